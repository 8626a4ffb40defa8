"""Steps on a GPU through CuPy: the corpus and the GPU kernels give the CPU's values.

Every test runs on `emulated_cupy` (CuPy 14's rules, host memory), so the GPU
path is tested on any machine; through the `gpu_cupy` fixture the same tests run
on a real GPU when CuPy and one are present (the `gpu` marker), and skip otherwise.
"""

from __future__ import annotations

import subprocess
import sys

import emulated_cupy
import numpy as np
import pytest
from corpus import DATA, STEP_CASES, manifest, run_steps
from gpu_updates import update_on_cpu_and_gpu

import tfx
import tfx as tf
from tfx.core import devices as devices_module
from tfx.core.api.ops_api import apply_op
from tfx.core.devices import DeviceSet, GPUDevice
from tfx.core.eager import run_op
from tfx.core.errors import InvalidArgumentError, ResourceExhaustedError, UnimplementedError
from tfx.core.graph_io import load_graph
from tfx.core.kernel_registry import find_kernel
from tfx.core.multi_device import MultiDeviceSession
from tfx.core.ops.training_ops import optimizer_of
from tfx.kernels.gpu.shared import INDEXED_OPS, SHARED_OPS, TRAINING_OPS

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"


def _on_gpu(graph_def) -> None:
    """Ask for the GPU everywhere; soft placement leaves on the CPU what has no GPU kernel."""
    for node in graph_def.node:
        node.device = "/device:GPU:0"


# --- the device set -------------------------------------------------------------------------


def test_a_local_gpu_becomes_runnable_with_its_gpu_kernels(gpu_cupy) -> None:
    ready = DeviceSet.from_names("cpu:0,gpu:0").runnable()
    gpu = ready.get(GPU0)
    assert gpu.local and gpu.kernels == "GPU" and ready.client == CPU0
    assert ready.link(CPU0, GPU0) == DeviceSet.from_names("cpu:0,gpu:0").link(CPU0, GPU0)
    assert gpu.supports("MatMul") and not gpu.supports("FIFOQueueV2")
    assert gpu.memory == devices_module.local_gpu(GPU0).context.mem_info[1]  # the card's own


def test_placement_keeps_within_the_gpus_own_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(devices_module, "_GPUS", {})
    emulated_cupy.install(monkeypatch).memory = 1 << 20  # a 1 MiB card
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [1024, 1024], name="x")
        tf.matmul(x, x, name="y")
    with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,gpu:0") as sess:
        assert {n.device for n in sess.graph} == {CPU0}  # 4 MiB tensors: not on the GPU
    pinned = graph.as_graph_def()
    for node in pinned.node:
        node.device = "/device:GPU:0"
    with pytest.raises(ResourceExhaustedError, match=r"node 'x' \(op Placeholder\) fits on no "
                       r"device: it needs 4194304 bytes more.*GPU:0 \(0 of 1048576 bytes"):
        MultiDeviceSession(pinned, devices="cpu:0,gpu:0")


def test_a_gpu_alone_gets_a_cpu_for_the_client_and_the_other_ops(gpu_cupy) -> None:
    ready = DeviceSet.from_names("gpu:0").runnable()
    assert ready.names == [CPU0, GPU0] and ready.client == CPU0
    assert ready.get(CPU0).local and ready.link(GPU0, CPU0).bandwidth < float("inf")


def test_without_cupy_a_gpu_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` raises ImportError
    with pytest.raises(UnimplementedError, match=r"device .*GPU:0 needs CuPy, which is not "
                       r"installed \(pip install 'tfx-dataflow\[gpu\]'\)"):
        DeviceSet.from_names("cpu:0,gpu:0").runnable()


def test_a_gpu_this_machine_lacks_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    emulated_cupy.install(monkeypatch, gpus=1)
    with pytest.raises(InvalidArgumentError, match=r"no such GPU: .*GPU:1; CuPy sees 1 GPU\(s\) "
                                                   r"\(GPU:0\)"):
        DeviceSet.from_names("cpu:0,gpu:2").runnable()
    emulated_cupy.install(monkeypatch, gpus=0)  # the CUDA runtime finds no device
    with pytest.raises(InvalidArgumentError, match=r"CuPy sees 0 GPU\(s\) \(none\)"):
        DeviceSet.from_names("cpu:0,gpu:0").runnable()


def test_devices_of_other_tasks_do_not_run() -> None:
    with pytest.raises(UnimplementedError, match="cannot run on /job:worker/replica:0/task:1/"
                                                 "device:CPU:0: tfx runs steps on this process"):
        DeviceSet.from_names("cpu:0,/job:worker/task:1/cpu:0").runnable()


def test_loading_the_gpu_kernels_does_not_import_cupy() -> None:
    code = ("import sys, tfx.kernels.gpu; from tfx.core.kernel_registry import has_kernel; "
            "assert has_kernel('MatMul', 'GPU'); print('cupy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"


def test_gpu_kernels_take_only_types_cupy_holds() -> None:
    float_attrs = {"T": tfx.float32}
    assert find_kernel("Relu", "GPU", float_attrs)
    with pytest.raises(Exception, match="no GPU kernel for op Relu"):
        find_kernel("Relu", "GPU", {"T": tfx.bfloat16})


# --- running steps --------------------------------------------------------------------------


@pytest.mark.parametrize("name", STEP_CASES)
def test_corpus_on_a_gpu_matches_the_cpu(name: str, gpu_cupy) -> None:
    with tfx.Session(str(DATA / f"{name}.pb")) as sess:
        single = run_steps(sess, name)
    graph_def = load_graph(str(DATA / f"{name}.pb"))
    _on_gpu(graph_def)
    with MultiDeviceSession(graph_def, devices="cpu:0,gpu:0", soft_placement=True) as sess:
        on_gpu = [n for n in sess.graph if n.device == GPU0]
        assert on_gpu, "nothing ran on the GPU"
        got = run_steps(sess, name)
    for i, (want_step, got_step, step) in enumerate(zip(single, got, manifest(name)["steps"])):
        for tensor, want, value in zip(step.get("fetches", []), want_step, got_step):
            assert isinstance(value, (np.ndarray, np.generic)), f"step {i} {tensor}: {value!r}"
            want, value = np.asarray(want), np.asarray(value)
            assert value.shape == want.shape and value.dtype == want.dtype, f"step {i} {tensor}"
            if want.dtype.kind in "fc":
                np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6,
                                           err_msg=f"step {i} {tensor}")
            else:
                np.testing.assert_array_equal(value, want, err_msg=f"step {i} {tensor}")


def _ops_graph() -> tuple[tf.Graph, list, dict]:
    """One node of each GPU op the corpus does not use, on the GPU."""
    graph = tf.Graph()
    with graph.as_default(), graph.device("/device:GPU:0"):
        x = tf.placeholder(tf.float32, [None, 3], name="x")  # so Shape is not folded
        n = tf.placeholder(tf.int64, [2, 3], name="n")
        flags = tf.placeholder(tf.bool, [2, 3], name="flags")
        positive = tf.abs(x) + 0.5
        outputs = [
            tf.math.reciprocal(positive), tf.sign(x), tf.math.floor(x), tf.math.ceil(x),
            tf.sin(x), tf.cos(x), tf.math.log1p(positive), tf.math.expm1(x), tf.add(x, x),
            tf.not_equal(x, 0.5),
            tf.greater_equal(x, 0.0), tf.less_equal(x, 0.0), tf.logical_or(flags, x > 0),
            tf.logical_not(flags), tf.where(flags, x, -x), tf.shape(x), tf.rank(x), tf.size(x),
            apply_op("OnesLike", x=x),  # tf.ones_like builds Fill, as TF's does
            tf.reverse(x, [1]), tf.squeeze(tf.expand_dims(x, 0), [0]),
            tf.unstack(x, 2)[1], tf.split(x, 3, axis=1)[2], x[:, 1:], tf.add(n, n),
            tf.sigmoid(x) * tf.tanh(x), tf.nn.softmax(x), tf.reduce_prod(x, 1),
            tf.reduce_all(flags, 0), tf.argmin(x, 1), tf.pow(positive, 2.0),
            tf.math.floordiv(n, 2), tf.math.floormod(n, 2), tf.cast(n, tf.float32),
            tf.reduce_max(x[:0], 0),  # over no elements: the identity, -inf
            tf.is_variable_initialized(tf.Variable([1.0, 2.0])),
            tf.cumsum(x, 1, exclusive=True, reverse=True), tf.math.cumprod(x, 0),
            tf.placeholder_with_default(tf.constant([1.0]), [None]),
            tf.range(tf.reduce_sum(x), 8.0, 1.5), tf.range(0, tf.size(x), 2),
            tf.one_hot(n[0], 4), tf.one_hot(tf.cast(n, tf.int32), 3, 5, -1, axis=0),
            *apply_op("BroadcastGradientArgs", s0=tf.shape(x), s1=tf.constant([1, 3])),
            apply_op("Merge", inputs=list(apply_op("_SwitchN", data=x, output_index=tf.size(x) - 5,
                                                   num_outs=3)))[0],  # a lowered Case
        ]
        v = tf.Variable([1.0, 2.0, 3.0], use_resource=True)
        with tf.control_dependencies([v.initializer]):
            outputs.append(v.assign_sub(x[0]))
    feeds = {"x:0": np.array([[-1.5, 0.25, 2.0], [0.5, -0.75, 3.0]], np.float32),
             "n:0": np.array([[-3, 4, 7], [0, 9, -8]], np.int64),
             "flags:0": np.array([[True, False, True], [False, False, True]])}
    return graph, outputs, feeds


def test_each_gpu_op_matches_the_cpu(gpu_cupy) -> None:
    graph, outputs, feeds = _ops_graph()
    names = [t.name for t in outputs]
    with tfx.Session(graph=graph) as sess:
        want = sess.run(names, feeds)
    with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,gpu:0",
                            soft_placement=True) as sess:
        got = sess.run(names, feeds)
        ran_on_gpu = {n.op for n in sess.graph if n.device == GPU0}
    for name, w, g in zip(names, want, got):
        assert isinstance(g, np.ndarray) and g.dtype == w.dtype, name
        np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=name)
    if isinstance(gpu_cupy, emulated_cupy.EmulatedCupy):
        assert gpu_cupy.to_device > 0 and gpu_cupy.to_host > 0 and gpu_cupy.devices_used == {0}
    # Between the corpus and this graph every GPU op has run on the GPU.
    corpus_ops = set()
    for name in STEP_CASES:
        corpus_ops |= {n.op for n in load_graph(str(DATA / f"{name}.pb")).node}
    # Not built by tfx's API: Add (TensorFlow 1.x graphs; AddV2's kernel), PreventGradient
    # (Identity's), ControlTrigger (NoOp's), PlaceholderV2 (Placeholder's), Gather (GatherV2's
    # gather); Rank is folded when the graph is built. (The optimizer updates have a test of
    # their own; test_gpu_kernels_more.py runs the index-driven ops, VariableShape and Einsum.)
    not_built = {"Add", "PreventGradient", "ControlTrigger", "PlaceholderV2", "Gather", "Rank",
                 "VariableShape", "Einsum", *TRAINING_OPS, *INDEXED_OPS}
    untested = set(SHARED_OPS) - corpus_ops - ran_on_gpu - not_built
    assert not untested


def test_convolutions_and_pools_on_a_gpu_match_the_cpu(gpu_cupy) -> None:
    rng = np.random.default_rng(7)
    graph = tf.Graph()
    with graph.as_default(), graph.device("/device:GPU:0"):
        x = tf.constant(rng.standard_normal((2, 7, 20, 4)).astype(np.float32))
        w = tf.constant(rng.standard_normal((3, 3, 4, 6)).astype(np.float32))
        grouped = tf.constant(rng.standard_normal((3, 3, 2, 6)).astype(np.float32))
        dw1 = tf.constant(rng.standard_normal((3, 3, 4, 1)).astype(np.float32))
        dw2 = tf.constant(rng.standard_normal((3, 3, 4, 2)).astype(np.float32))
        nchw = tf.transpose(x, [0, 3, 1, 2])
        outputs = [
            tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"),
            tf.nn.conv2d(x, w, [1, 2, 2, 1], "VALID"),
            tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1]),
            tf.nn.conv2d(x, grouped, [1, 1, 1, 1], "SAME"),
            tf.nn.conv2d(nchw, w, [1, 1, 1, 1], "SAME", data_format="NCHW"),
            tf.nn.depthwise_conv2d(x, dw1, [1, 1, 1, 1], "SAME"),
            tf.nn.depthwise_conv2d(x, dw2, [1, 2, 2, 1], "SAME"),  # wide strided rows
            tf.nn.depthwise_conv2d(x, dw2, [1, 3, 3, 1], "VALID"),
            tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
            tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),  # windows of 4 to 9
            tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
        ]
    names = [t.name for t in outputs]
    with tfx.Session(graph=graph) as sess:
        want = sess.run(names)
    with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,gpu:0",
                            soft_placement=True) as sess:
        got = sess.run(names)
        on_gpu = {n.op for n in sess.graph if n.device == GPU0}
    assert {"Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool"} <= on_gpu
    for name, w_, g in zip(names, want, got):
        assert isinstance(g, np.ndarray) and g.shape == w_.shape, name
        np.testing.assert_allclose(g, w_, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("use_resource", [False, True])
def test_training_on_a_gpu_matches_the_cpu(gpu_cupy, use_resource: bool) -> None:
    """Variables, their slots and the dense optimizer updates live on the GPU."""
    rng = np.random.default_rng(3)
    graph = tf.Graph()
    with graph.as_default(), graph.device("/device:GPU:0"):
        x = tf.placeholder(tf.float32, [None, 5], name="x")
        y = tf.placeholder(tf.float32, [None, 2], name="y")
        w = tf.Variable(rng.standard_normal((5, 2)).astype(np.float32), name="w",
                        use_resource=use_resource)
        b = tf.Variable(np.zeros(2, np.float32), name="b", use_resource=use_resource)
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="loss")
        train = tf.group(*(optimizer.minimize(loss) for optimizer in (
            tf.train.MomentumOptimizer(0.05, 0.9), tf.train.AdamOptimizer(0.01),
            tf.train.RMSPropOptimizer(0.01), tf.train.AdagradOptimizer(0.1))), name="train")
        init = tf.global_variables_initializer()
        fetches = ["loss:0", tf.identity(w, name="w_value").name,
                   tf.identity(b, name="b_value").name]
    feeds = {"x:0": rng.standard_normal((8, 5)).astype(np.float32),
             "y:0": rng.standard_normal((8, 2)).astype(np.float32)}

    def steps(sess: tfx.Session) -> list:
        sess.run(init.name)
        return [sess.run([*fetches, train.name], feeds)[:3] for _ in range(3)]

    with tfx.Session(graph=graph) as sess:
        want = steps(sess)
    with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,gpu:0",
                            soft_placement=True) as sess:
        got = steps(sess)
        on_gpu = {n.op for n in sess.graph if n.device == GPU0}
    updates = {"ResourceApplyAdam", "ResourceApplyMomentum"} if use_resource else {
        "ApplyAdam", "ApplyMomentum", "ApplyRMSProp", "ApplyAdagrad", "VariableV2", "Assign"}
    assert updates <= on_gpu
    for want_step, got_step in zip(want, got):
        for name, w_, g in zip(fetches, want_step, got_step):
            np.testing.assert_allclose(g, w_, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("op", TRAINING_OPS)
def test_every_dense_update_on_a_gpu_matches_the_cpu(gpu_cupy, op: str) -> None:
    optimizer, form = optimizer_of(op)
    rng = np.random.default_rng(11)
    names = optimizer.input_names(form)
    nvars = len(optimizer.variables)
    slots = [rng.uniform(1.0, 2.0, (2, 3)) for _ in range(nvars)]  # positive accumulators
    rest = [rng.uniform(-1.0, 1.0, (2, 3)) if name in ("grad", "delta") else
            np.array(0.5 if name != "lr_power" else -0.5) for name in names[nvars:]]
    results = update_on_cpu_and_gpu(gpu_cupy, op, {"T": tfx.float64}, slots, rest)
    for slot, want, got in zip(optimizer.variables, *results):
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=slot)


def test_run_op_runs_one_op_on_the_gpu(gpu_cupy) -> None:
    (out,) = run_op("MatMul", [np.eye(2, dtype=np.float32), np.ones((2, 3), np.float32)],
                    device_type="GPU")
    assert isinstance(out, gpu_cupy.ndarray)
    np.testing.assert_array_equal(devices_module.local_gpu(GPU0).copy_to_host(out),
                                  np.ones((2, 3)))


def test_gathers_on_a_gpu_read_their_indices_there(gpu_cupy) -> None:
    graph = tf.Graph()
    with graph.as_default(), graph.device("/device:GPU:0"):
        params = tf.placeholder(tf.float32, [3, 4, 2], name="params")
        ids = tf.placeholder(tf.int32, [None], name="ids")
        outputs = [
            tf.gather(params, ids), tf.gather(params, tf.cast(ids, tf.int64), axis=1),
            tf.gather(params, [[0, 2], [1, 1], [3, 0]], axis=1, batch_dims=1),
            tf.gather(params, ids[:0]),
        ]
    names = [t.name for t in outputs]
    feeds = {"params:0": np.arange(24, dtype=np.float32).reshape(3, 4, 2), "ids:0": [2, 0, 2]}
    with tfx.Session(graph=graph) as sess:
        want = sess.run(names, feeds)
    with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,gpu:0",
                            soft_placement=True) as sess:
        got = sess.run(names, feeds)
        gathers = [n for n in sess.graph if n.op == "GatherV2"]
        assert gathers and all(n.device == GPU0 for n in gathers)
        kernels = {n.name: n.kernel for job in next(iter(sess.steps.values())).jobs
                   for n in job.prepared.plan.nodes}
        assert kernels[gathers[0].name]._input_on_host == (False, False, True)
        with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 3\)"):
            sess.run(names[0], {**feeds, "ids:0": [0, 7]})
    for name, w_, g in zip(names, want, got):
        assert g.shape == w_.shape, name
        np.testing.assert_array_equal(g, w_, err_msg=name)


def test_int32_tensors_stay_in_host_memory(gpu_cupy) -> None:
    graph = tf.Graph()
    with graph.as_default(), graph.device("/device:GPU:0"):
        i = tf.placeholder(tf.int32, [3], name="i")
        total = tf.add(i, i, name="total")
        tf.reshape(tf.constant([1.0, 2.0, 3.0, 4.0]), tf.stack([2, total[0]]), name="shaped")
        tf.shape(tf.placeholder_with_default([[1.0]], [None, 1]), out_type=tf.int64,
                 name="shape64")
    with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,gpu:0",
                            soft_placement=True) as sess:
        out_total, out_shaped, out_shape = sess.run(["total:0", "shaped:0", "shape64:0"],
                                                    {"i:0": [1, 2, 3]})
        kernels = {n.name: n.kernel for job in next(iter(sess.steps.values())).jobs
                   for n in job.prepared.plan.nodes}
    np.testing.assert_array_equal(out_total, [2, 4, 6])
    np.testing.assert_array_equal(out_shaped, [[1.0, 2.0], [3.0, 4.0]])
    assert out_shape.dtype == np.int64 and out_shape.tolist() == [1, 1]
    assert kernels["total"]._output_on_host == (True,)
    assert kernels["shape64"]._output_on_host == (True,)  # a shape, whatever its type
    assert kernels["shaped"]._input_on_host == (False, True)


def test_gpu_device_copies_and_caches_constants(gpu_cupy) -> None:
    gpu = devices_module.local_gpu("/gpu:0")
    assert isinstance(gpu, GPUDevice) and devices_module.local_gpu(GPU0) is gpu
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    on_gpu = gpu.copy_from_host(value)
    assert isinstance(on_gpu, gpu_cupy.ndarray)
    assert isinstance(gpu.copy_from_host(np.float32(2.0)), gpu_cupy.ndarray)
    strings = np.array([b"a"], dtype=object)
    assert gpu.copy_from_host(strings) is strings
    np.testing.assert_array_equal(gpu.copy_to_host(on_gpu * 2), value * 2)
    assert gpu.allocate((4,), np.float32).shape == (4,)


def test_a_while_loop_runs_on_the_gpu(gpu_cupy) -> None:
    """The loop's frame (Enter, Merge, Switch, LoopCond, NextIteration, Exit) and its body
    all on GPU:0; the predicate stays in host memory."""
    graph = tf.Graph()
    with graph.as_default(), graph.device("/device:GPU:0"):
        x = tf.placeholder(tf.float32, [3, 3], name="x")
        _, y = tf.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, tf.tanh(tf.matmul(v, v))),
                             [tf.constant(0), x])
        tf.identity(y, name="y")
    feed = {"x:0": np.linspace(-1, 1, 9, dtype=np.float32).reshape(3, 3)}
    with tfx.Session(graph=graph) as sess:
        want = sess.run("y:0", feed)
    with MultiDeviceSession(graph.as_graph_def(), devices="cpu:0,gpu:0",
                            soft_placement=True) as sess:
        got = sess.run("y:0", feed)
        loop_ops = {n.op: n.device for n in sess.graph
                    if n.op in ("Enter", "Exit", "NextIteration", "LoopCond", "MatMul")}
    assert set(loop_ops.values()) == {GPU0} and len(loop_ops) == 5
    # A real GPU's matmul and tanh round differently: TF's float32 tolerance, as in its tests.
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
