"""Writes the TensorFlow 2.21 values the legacy-op tests compare with (run with TF installed).

    python tests/data/legacy_ops/generate.py

Writes, next to this file:
- old_graph.pb: a GraphDef with producer version 1 holding the ops TensorFlow removed at a
  later GraphDef version (BatchMatrix*, BatchFFT*, SelfAdjointEig, AdjustContrast,
  BatchNormWithGlobalNormalization, QuantizeAndDequantize, ...), which TF still runs;
- tile_grad_graph.pb: TileGrad in a GraphDef of producer 2, which TF cannot run either;
- expected.json: TF's fetched values of old_graph.pb, the messages TF's import gives for
  the same graph at producer 2474, and the values (and static shapes) of the other cases.
"""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import graph_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
R = tf.raw_ops


def plain(value):
    value = np.asarray(value)
    if value.dtype.kind == "c":
        return {"real": value.real.tolist(), "imag": value.imag.tolist()}
    if value.dtype.kind in "SO":
        return [v.decode("latin-1") if isinstance(v, bytes) else v for v in value.reshape(-1)]
    return value.tolist()


def _shape(tensor) -> list | None:
    return tensor.shape.as_list() if tensor.shape.rank is not None else None


def no_kernel_shapes(expected: dict) -> None:
    """TF's static shapes of the ops it has no CPU kernel for (graph-mode inference)."""
    shapes = {}
    g = tf.Graph()
    with g.as_default():
        cases = _load("cases").no_kernel_cases(tf)
    for name, value in cases.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        shapes[name] = [_shape(t) for t in values]
    for op, k, count in (("KthOrderStatistic", 2, 1), ("MakeUnique", None, 1),
                         ("TopKUnique", 2, 2), ("TopKWithUnique", 2, 2)):
        graph_def = graph_pb2.GraphDef()
        node = graph_def.node.add(name="x", op="Const")
        node.attr["dtype"].type = tf.float32.as_datatype_enum
        node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.ones((3, 5), np.float32)))
        node = graph_def.node.add(name="op", op=op, input=["x"])
        if k is not None:
            node.attr["k"].i = k
        g = tf.Graph()
        with g.as_default():
            tf.import_graph_def(graph_def, name="")
        shapes[op] = [_shape(g.get_tensor_by_name(f"op:{i}")) for i in range(count)]
    expected["no_kernel_shapes"] = shapes


def old_graph() -> tuple[graph_pb2.GraphDef, list[str]]:
    """The deprecated ops on constants, built in a graph whose producer is 1."""
    g = tf.Graph()
    fetches = []
    with g.as_default():
        empty = graph_pb2.GraphDef()
        empty.versions.producer = 1
        tf.import_graph_def(empty, name="")  # the graph's producer becomes 1
        m = tf.constant([[[4., 1.], [1., 3.]], [[2., -1.], [-1., 5.]]], name="m")
        d = tf.constant([[1., 2.], [3., 4.]], name="d")
        rhs = tf.constant([[[1.], [2.]], [[3.], [-1.]]], name="rhs")
        x = tf.constant(np.arange(12.).reshape(1, 2, 2, 3).astype(np.float32), name="x")
        ops = [
            ("BatchMatrixDiag", dict(diagonal=d)),
            ("BatchMatrixDiagPart", dict(input=m)),
            ("BatchMatrixSetDiag", dict(input=m, diagonal=d)),
            ("BatchMatrixBandPart", dict(input=m, num_lower=0, num_upper=-1)),
            ("BatchMatrixDeterminant", dict(input=m)),
            ("BatchMatrixInverse", dict(input=m)),
            ("BatchMatrixSolve", dict(matrix=m, rhs=rhs)),
            ("BatchMatrixTriangularSolve", dict(matrix=m, rhs=rhs)),
            ("BatchMatrixSolveLs", dict(matrix=m, rhs=rhs, l2_regularizer=0.)),
            ("BatchCholesky", dict(input=m)),
            ("BatchCholeskyGrad", dict(l=tf.constant([[[2., 0.], [1., 3.]]]),
                                       grad=tf.constant([[[1., 0.], [2., 1.]]]))),
            ("BatchSelfAdjointEig", dict(input=m)),
            ("SelfAdjointEig", dict(input=m[0])),
            ("AdjustContrast", dict(images=x, contrast_factor=2., min_value=0., max_value=5.)),
            ("BatchNormWithGlobalNormalization",
             dict(t=x[:, :, :, :2], m=[0.5, 1.], v=[1., 4.], beta=[0.1, 0.2], gamma=[2., 3.],
                  variance_epsilon=0.001, scale_after_normalization=True)),
            ("BatchNormWithGlobalNormalizationGrad",
             dict(t=x[:, :, :, :2], m=[0.5, 1.], v=[1., 4.], gamma=[2., 3.],
                  backprop=tf.ones([1, 2, 2, 2]), variance_epsilon=0.001,
                  scale_after_normalization=False)),
            ("QuantizeAndDequantize", dict(input=d * 1.3)),
            ("QuantizeAndDequantize", dict(input=d - 2.5, signed_input=True, num_bits=4,
                                           range_given=True, input_min=-2., input_max=2.)),
        ]
        for i, (op, kwargs) in enumerate(ops):
            out = getattr(R, op)(name=f"op{i}", **kwargs)
            outs = out if isinstance(out, (list, tuple)) else [out]
            fetches += [t.name for t in outs]
        for compute_v in (True, False):
            e, v = R.BatchSelfAdjointEigV2(input=m, compute_v=compute_v, name=f"eigv2_{compute_v}")
            fetches += [e.name] + ([v.name] if compute_v else [])
        s, u, v = R.BatchSvd(input=m, compute_uv=True, name="svd")
        fetches += [s.name]
    return g.as_graph_def(), fetches


def run_old_graph(expected: dict) -> None:
    graph_def, fetches = old_graph()
    with open(os.path.join(HERE, "old_graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=g) as sess:
        values = sess.run(fetches)
    expected["old_graph"] = {name: plain(v) for name, v in zip(fetches, values)}
    expected["old_graph_shapes"] = {name: _shape(g.get_tensor_by_name(name))
                                    for name in fetches}
    from tensorflow.python.framework import op_def_registry

    def removed(op: str) -> bool:
        return op_def_registry.get(op).HasField("deprecation")

    base = [n for n in graph_def.node if not removed(n.op)]
    messages = {}
    for node in graph_def.node:
        if not removed(node.op) or node.op in messages:
            continue
        one = graph_pb2.GraphDef()
        one.versions.producer = 2474
        one.node.extend(base + [node])
        try:
            with tf.Graph().as_default():
                tf.import_graph_def(one, name="")
        except Exception as exc:  # noqa: BLE001 - the message is what is recorded
            messages[node.op] = [type(exc).__name__, str(exc)]
    expected["removed"] = messages


def slice_update(expected: dict) -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[1., 2., 3.], [4., 5., 6.]])
        value = tf.constant([10., 20.])
        y = R.TensorStridedSliceUpdate(input=x, begin=[0, 1], end=[2, 3], strides=[1, 1],
                                       value=value)
        w = tf.constant([[1., 2., 3.], [4., 5., 6.]])
        gx, gv = tf.gradients(y * w, [x, value])
        z = R.TensorStridedSliceUpdate(input=x, begin=[1], end=[0], strides=[-1],
                                       value=[[7., 8., 9.], [0., 0., 1.]],
                                       end_mask=1)
        with tf.compat.v1.Session() as sess:
            out = sess.run({"y": y, "gx": gx, "gv": gv, "z": z})
    expected["tensor_strided_slice_update"] = {k: plain(v) for k, v in out.items()}


def _load(name: str):
    """A sibling module of this generator, loaded by path."""
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def op_cases(expected: dict) -> None:
    """Each op on fixed inputs, run by TF in a session: {case: [outputs]}."""
    g = tf.Graph()
    with g.as_default():
        cases = _load("cases").op_cases(tf)
        shapes = {}
        for name, value in cases.items():
            values = value if isinstance(value, (list, tuple)) else [value]
            shapes[name] = [t.shape.as_list() if t.shape.rank is not None else None
                            for t in values]
        with tf.compat.v1.Session() as sess:
            out = sess.run(cases)
    expected["static_shapes"] = shapes
    record = {}
    for name, value in out.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        record[name] = [plain(v) for v in values]
    expected["ops"] = record


def gradients(expected: dict) -> None:
    g = tf.Graph()
    with g.as_default():
        empty = graph_pb2.GraphDef()
        empty.versions.producer = 1
        tf.import_graph_def(empty, name="")  # for BatchNormWithGlobalNormalizationGrad
        x = tf.constant([[1., 5., 3.], [4., 2., 6.]])
        updates = tf.constant([10., 1., -6.])
        w = tf.constant([[1., 2., 3.], [4., 5., 6.]])
        y = R.ScatterNdNonAliasingAdd(input=x, indices=[[0, 1], [0, 1], [1, 2]],
                                      updates=updates)
        gx, gu = tf.gradients(y * w, [x, updates])
        rows = tf.constant([[3., 1., 2., 2., 5.], [1., 2., 3., 4., 5.]])
        iso = tf.nn.isotonic_regression(rows)[0]
        (giso,) = tf.gradients(iso * tf.constant([[1., 2., 3., 4., 5.], [5., 4., 3., 2., 1.]]),
                               [rows])
        bands = tf.constant([[2., 3., 4.], [1., 2., 3.]])
        rhs3 = tf.constant([[1., 2.], [0., 1.], [3., -1.]])
        sol = tf.linalg.banded_triangular_solve(bands, rhs3)
        gb, gr = tf.gradients(sol * tf.constant([[1., 2.], [3., 4.], [5., 6.]]), [bands, rhs3])
        acc = tf.math.accumulate_n([x, w])
        ga = tf.gradients(acc * w, [x, w])
        a = tf.constant([[2., 1.], [0.5, 3.]])
        e, v = tf.linalg.eig(a)
        (geig,) = tf.gradients(tf.math.real(tf.reduce_sum(e * tf.constant([1., 2.], tf.complex64))),
                               [a])
        t = tf.constant(np.arange(8.).reshape(1, 2, 2, 2).astype(np.float32))
        bn = R.BatchNormWithGlobalNormalizationGrad(
            t=t, m=[0.5, 1.], v=[1., 4.], gamma=[2., 3.], backprop=t * 0.5 + 1.,
            variance_epsilon=0.001, scale_after_normalization=True)
        image = tf.reshape(tf.range(8.), [1, 2, 4, 1])
        batched = R.SpaceToBatch(input=image, paddings=[[1, 1], [0, 0]], block_size=2)
        (gspace,) = tf.gradients(batched * tf.reshape(tf.range(16.), [4, 2, 2, 1]), [image])
        bn_in = [t, tf.constant([0.5, 1.]), tf.constant([1., 4.]), tf.constant([0.1, 0.2]),
                 tf.constant([2., 3.])]
        bn_out = R.BatchNormWithGlobalNormalization(
            t=bn_in[0], m=bn_in[1], v=bn_in[2], beta=bn_in[3], gamma=bn_in[4],
            variance_epsilon=0.001, scale_after_normalization=True)
        gbn = tf.gradients(bn_out * (t + 1.), bn_in)
        with tf.compat.v1.Session() as sess:
            out = sess.run({"scatter_x": gx, "scatter_updates": gu, "isotonic": giso,
                            "banded_matrix": gb, "banded_rhs": gr, "accumulate": ga,
                            "eig": geig, "bn_grad_scaled": list(bn), "space_to_batch": gspace,
                            "batch_norm_global": gbn})
    expected["gradients"] = {k: ([plain(x) for x in v] if isinstance(v, list) else plain(v))
                             for k, v in out.items()}


def stochastic_cast(expected: dict) -> None:
    """StochasticCastToInt (not in tf.raw_ops) from a GraphDef, each Tin and Tout."""
    x = (np.random.default_rng(0).normal(size=40) * 3).astype(np.float32)
    x[:4] = [np.nan, 1e10, -1e10, 2.0]
    record = {"x": plain(x)}
    for tin in (tf.float16, tf.bfloat16, tf.float32, tf.float64):
        for tout in (tf.int8, tf.int16, tf.int32):
            graph_def = graph_pb2.GraphDef()
            for name, value, dtype in (("x", x, tin), ("key", [7], tf.uint64),
                                       ("counter", [3, 0], tf.uint64), ("alg", 1, tf.int32)):
                node = graph_def.node.add(name=name, op="Const")
                proto = tf.make_tensor_proto(np.asarray(value).astype(dtype.as_numpy_dtype),
                                             dtype=dtype)
                node.attr["dtype"].type = proto.dtype
                node.attr["value"].tensor.CopyFrom(proto)
            node = graph_def.node.add(name="cast", op="StochasticCastToInt",
                                      input=["x", "key", "counter", "alg"])
            node.attr["Tin"].type = tin.as_datatype_enum
            node.attr["Tout"].type = tout.as_datatype_enum
            g = tf.Graph()
            with g.as_default():
                tf.import_graph_def(graph_def, name="")
            with tf.compat.v1.Session(graph=g) as sess:
                record[f"{tin.name}_{tout.name}"] = plain(sess.run("cast:0"))
    expected["stochastic_cast"] = record


def stateful_standard_normal(expected: dict) -> None:
    """StatefulStandardNormal (v1) in a graph of producer 28: two runs and the state."""
    g = tf.Graph()
    with g.as_default():
        empty = graph_pb2.GraphDef()
        empty.versions.producer = 28
        tf.import_graph_def(empty, name="")
        state = tf.compat.v1.get_variable(
            "state", initializer=tf.constant([1, 5, 0, 7], tf.int64), use_resource=True)
        sample = R.StatefulStandardNormal(resource=state.handle, shape=[2, 3])
        with tf.compat.v1.Session() as sess:
            sess.run(state.initializer)
            first = sess.run(sample)
            second = sess.run(sample)
            after = sess.run(state.read_value())
    expected["stateful_standard_normal"] = {"first": plain(first), "second": plain(second),
                                            "state": plain(after)}


def ref_ops(expected: dict) -> None:
    """RefSelect and RefIdentity forward the reference: updates through them reach the
    selected variable; TileGrad in a graph of producer 2 (before its removal) fails."""
    g = tf.Graph()
    with g.as_default():
        a = tf.compat.v1.Variable([1., 2.], use_resource=False, name="a")
        b = tf.compat.v1.Variable([3., 4.], use_resource=False, name="b")
        selected = R.RefSelect(index=1, inputs=[a._ref(), b._ref()])
        same = R.RefIdentity(input=a._ref())
        add = tf.compat.v1.assign_add(selected, [10., 10.])
        put = tf.compat.v1.assign(same, [7., 8.])
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            record = {"add": plain(sess.run(add)), "put": plain(sess.run(put)),
                      "after": [plain(v) for v in sess.run([a, b])]}
    graph_def = graph_pb2.GraphDef()
    graph_def.versions.producer = 2
    for name, value, dtype in (("x", np.ones([4, 3]), tf.float32), ("m", [2, 1], tf.int32)):
        node = graph_def.node.add(name=name, op="Const")
        proto = tf.make_tensor_proto(value, dtype=dtype)
        node.attr["dtype"].type = proto.dtype
        node.attr["value"].tensor.CopyFrom(proto)
    node = graph_def.node.add(name="grad", op="TileGrad", input=["x", "m"])
    node.attr["T"].type = tf.float32.as_datatype_enum
    with open(os.path.join(HERE, "tile_grad_graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def, name="")
    try:
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run("grad:0")
    except tf.errors.OpError as exc:
        lines = [line for line in exc.message.split("\n") if "TileGrad" in line]
        # The KernelDef TF prints after it holds a debug link that varies run to run.
        record["tile_grad"] = [type(exc).__name__, lines[0].split(", KernelDef")[0]]
    expected["ref_ops"] = record


def main() -> None:
    expected: dict = {}
    run_old_graph(expected)
    slice_update(expected)
    op_cases(expected)
    gradients(expected)
    stochastic_cast(expected)
    stateful_standard_normal(expected)
    ref_ops(expected)
    no_kernel_shapes(expected)
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    tf.compat.v1.disable_eager_execution()
    main()
