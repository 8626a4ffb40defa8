"""Steps across several local devices: the conformance corpus placed by the greedy placer on
virtual CPU devices gives the single-device values; errors and cancellations reach every
partition."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
from corpus import DATA, STEP_CASES, run_steps

import tfx
from tfx.core.devices import DeviceSet, incarnation_of
from tfx.core.eager import make_node_def
from tfx.core.errors import (
    CancelledError,
    DeadlineExceededError,
    InvalidArgumentError,
    NotFoundError,
    UnimplementedError,
)
from tfx.core.executor import StepState
from tfx.core.graph import Graph
from tfx.core.multi_device import (
    MultiDeviceSession,
    StepPartition,
    compile_partition,
    prepare_step,
    run_partitions,
)
from tfx.core.rendezvous import LocalRendezvous, child_frame_id, create_key
from tfx.core.resources import ResourceManager
from tfx.kernels.base import DEAD
from tfx.protos import graph_pb2

CASES = STEP_CASES
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


def _run_steps(sess: tfx.Session, name: str) -> list[list[np.ndarray]]:
    return [[np.asarray(v) for v in step] for step in run_steps(sess, name)]


def test_the_corpus_has_cases() -> None:
    assert len(CASES) >= 12 and "mobilenet_v2_frozen" in CASES and "while_v1" in CASES


@pytest.mark.parametrize("devices", ["cpu:0,cpu:1", "cpu:0,cpu:1,cpu:2"])
@pytest.mark.parametrize("name", CASES)
def test_corpus_on_several_devices_matches_single_device(name: str, devices: str) -> None:
    manifest = json.loads((DATA / f"{name}.json").read_text())
    expected = np.load(DATA / f"{name}.expected.npz")
    with tfx.Session(str(DATA / f"{name}.pb")) as sess:
        single = _run_steps(sess, name)
    with MultiDeviceSession(str(DATA / f"{name}.pb"), devices=devices) as sess:
        assert all(n.device.startswith("/job:localhost/replica:0/task:0/device:CPU:")
                   for n in sess.graph)
        multi = _run_steps(sess, name)
    for i, (want_step, got_step, step) in enumerate(zip(single, multi, manifest["steps"])):
        for tensor, want, got in zip(step.get("fetches", []), want_step, got_step):
            assert got.shape == want.shape and got.dtype == want.dtype, f"step {i} {tensor}"
            if want.dtype.kind in "fc":
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7,
                                           err_msg=f"step {i} {tensor}")
                np.testing.assert_allclose(got, expected[f"step{i}/{tensor}"],
                                           rtol=manifest["rtol"], atol=manifest["atol"])
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"step {i} {tensor}")


def test_large_graphs_really_use_two_devices() -> None:
    with MultiDeviceSession(str(DATA / "mobilenet_v2_frozen.pb"), devices="cpu:0,cpu:1") as sess:
        used = {n.device for n in sess.graph}
        assert used == {CPU0, CPU1}
        assert sess.partitions.transfers
        assert sess.placement.chosen.makespan <= min(
            b.makespan for b in sess.placement.baselines.values())


def _pinned(*nodes: graph_pb2.NodeDef) -> graph_pb2.GraphDef:
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend(nodes)
    return graph_def


def _node(op: str, name: str, inputs: list[str], attrs: dict, device: str) -> graph_pb2.NodeDef:
    node_def = make_node_def(op, name, inputs, attrs)
    node_def.device = device
    return node_def


def test_pinned_placement_and_fetches_from_every_partition() -> None:
    graph_def = _pinned(
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (3,)}, "/cpu:0"),
        _node("Neg", "a", ["x"], {"T": "float32"}, "/cpu:1"),
        _node("Abs", "b", ["x"], {"T": "float32"}, "/cpu:1"),
        _node("Add", "c", ["a", "b"], {"T": "float32"}, "/cpu:0"),
        _node("NoOp", "after", ["^a"], {}, "/cpu:0"),
    )
    x = np.array([-1.0, 2.0, -3.0], np.float32)
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1") as sess:
        assert sess.graph.node("a").device == CPU1
        c, a, none = sess.run(["c:0", "a:0", "after"], {"x:0": x})
        np.testing.assert_array_equal(c, -x + np.abs(x))
        np.testing.assert_array_equal(a, -x)
        assert none is None
        # Feeding a tensor that crosses devices gives it to the partition that reads it.
        np.testing.assert_array_equal(sess.run("c:0", {"a:0": np.zeros(3, np.float32),
                                                       "x:0": x}), np.abs(x))
        # Same signature twice: the prepared step is reused.
        np.testing.assert_array_equal(sess.run("c:0", {"x:0": -x}), x + np.abs(x))


def test_each_step_is_optimized_before_it_is_cut() -> None:
    # Constant folding and CSE run on the placed graph, keeping the devices.
    three = np.array(3.0, np.float32)
    graph_def = _pinned(
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": ()}, "/cpu:0"),
        _node("Const", "k", [], {"dtype": "float32", "value": three}, "/cpu:1"),
        _node("Mul", "k2", ["k", "k"], {"T": "float32"}, "/cpu:1"),
        _node("Neg", "n1", ["x"], {"T": "float32"}, "/cpu:1"),
        _node("Neg", "n2", ["x"], {"T": "float32"}, "/cpu:1"),
        _node("AddN", "y", ["k2", "n1", "n2"], {"T": "float32", "N": 3}, "/cpu:0"),
    )
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1") as sess:
        assert sess.run("y:0", {"x:0": np.float32(1.0)}) == 7.0
        (step,) = sess.steps.values()
    on_cpu1 = {node.name: node.op for node in step.partitions.graphs[CPU1]}
    assert on_cpu1["k2"] == "Const"  # folded where it was placed
    assert ("n1" in on_cpu1) != ("n2" in on_cpu1)  # the common subexpression once


def test_an_error_in_one_partition_reaches_the_step() -> None:
    # CheckNumerics fails on CPU:1 while CPU:0 waits for its result.
    graph_def = _pinned(
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (2,)}, "/cpu:0"),
        _node("CheckNumerics", "check", ["x"], {"T": "float32", "message": "bad x"}, "/cpu:1"),
        _node("Neg", "out", ["check"], {"T": "float32"}, "/cpu:0"),
    )
    threads_before = threading.active_count()
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1") as sess:
        start = time.monotonic()
        with pytest.raises(InvalidArgumentError, match=r"check.*bad x"):
            sess.run("out:0", {"x:0": np.array([1.0, np.nan], np.float32)})
        assert time.monotonic() - start < 5
        # The session still works after a failed step.
        np.testing.assert_array_equal(sess.run("out:0", {"x:0": np.ones(2, np.float32)}),
                                      -np.ones(2, np.float32))
    # No partition thread is left behind (pools other tests started may live on: they are
    # counted before). The process-wide pools a first step starts add a few at most.
    assert threading.active_count() <= threads_before + 4


def test_a_step_timeout_cancels_every_partition() -> None:
    # CPU:1 dequeues from an empty queue; CPU:0 waits for what it would send.
    graph_def = _pinned(
        _node("FIFOQueueV2", "q", [], {"component_types": ["float32"], "capacity": 2},
              "/cpu:1"),
        _node("QueueDequeueV2", "deq", ["q"], {"component_types": ["float32"]}, "/cpu:1"),
        _node("Neg", "out", ["deq"], {"T": "float32"}, "/cpu:0"),
    )
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1") as sess:
        start = time.monotonic()
        with pytest.raises(DeadlineExceededError):
            sess.run("out:0", timeout=0.3)
        assert time.monotonic() - start < 5


def test_only_this_process_devices_run() -> None:
    with pytest.raises(UnimplementedError, match="cannot run on /job:ps/replica:0/task:0/"
                                                 "device:CPU:0: tfx runs steps on this process"):
        MultiDeviceSession(str(DATA / "mlp_frozen.pb"), devices="cpu:0,/job:ps/task:0/cpu:0")
    devices = DeviceSet.from_names("cpu:0,cpu:1")
    with MultiDeviceSession(str(DATA / "mlp_frozen.pb"), devices=devices,
                            strategy="single") as sess:
        assert {n.device for n in sess.graph} == {CPU0}


def test_feeds_and_fetches_meet_the_rendezvous_where_they_are_used() -> None:
    graph_def = _pinned(
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (3,)}, "/cpu:1"),
        _node("Neg", "a", ["x"], {"T": "float32"}, "/cpu:1"),
        _node("Abs", "b", ["a"], {"T": "float32"}, "/cpu:0"),
    )
    x = np.array([-1.0, 2.0, -3.0], np.float32)
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1") as sess:
        a, b, fed = sess.run(["a:0", "b:0", "x:0"], {"x:0": x})
        np.testing.assert_array_equal(a, -x)
        np.testing.assert_array_equal(b, np.abs(x))
        np.testing.assert_array_equal(fed, x)  # a fetch of a fed tensor is the fed value
        step = sess.steps[(("x:0",), ("a:0", "b:0", "x:0"), ())]
    client = sess.device_set.client
    assert client == CPU0
    # The feed goes straight to CPU:1, where x is read, and each fetch leaves from the
    # device that computes it: nothing detours through the client's device. No
    # partition plan has feeds or fetches of its own.
    parts = step.partitions
    assert [f.device for f in parts.feeds + parts.fetches] == [CPU1, CPU1, CPU0]
    assert step.feed_keys == (create_key(CPU1, incarnation_of(CPU1), CPU1, "x:0"),)
    assert [k.split(";")[3] for k in step.fetch_keys] == ["a:0", "b:0"]
    assert step.fetch_sources == (("recv", 0), ("recv", 1), ("feed", 0))
    assert all(not job.prepared.plan.feed_edges and job.prepared.plan.num_fetches == 0
               for job in step.jobs)
    assert {t.source for t in parts.transfers} == {"a:0"}


def test_a_worker_runs_partitions_from_rendezvous_keys() -> None:
    # What a remote worker's RunGraph will do: sends (key -> tensor) in, recv keys out.
    graph_def = _pinned(
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (2,)}, "/cpu:0"),
        _node("Neg", "a", ["x"], {"T": "float32"}, "/cpu:1"),
        _node("AddV2", "c", ["a", "x"], {"T": "float32"}, "/cpu:0"),
    )
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1") as sess:
        graph = sess.graph
    step = prepare_step(graph, ["x:0"], ["c:0"], [], client=CPU0)
    x = np.array([1.0, -2.0], np.float32)
    [key] = step.feed_keys
    values = run_partitions(step.jobs, StepState(ResourceManager()), {key: x}, step.fetch_keys)
    np.testing.assert_array_equal(values[0], np.zeros(2, np.float32))
    with pytest.raises(NotFoundError, match=r"nothing was sent under rendezvous key .*;c:1;0:0"):
        run_partitions(step.jobs, StepState(ResourceManager()), {key: x},
                       [step.fetch_keys[0].replace(";c:0;", ";c:1;")])


def test_a_dead_send_hands_its_deadness_to_the_recv() -> None:
    # The untaken branch's Send runs on its dead input, as TensorFlow's transfer nodes do,
    # and the Recv on the other device gets DEAD (tfx used to add a second "resolver" Send
    # per key for this; a TensorFlow task, which has none, was left waiting).
    graph_def = _pinned(
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (2,)}, "/cpu:0"),
        _node("Placeholder", "pred", [], {"dtype": "bool", "shape": ()}, "/cpu:0"),
        _node("Switch", "switch", ["x", "pred"], {"T": "float32"}, "/cpu:0"),
        _node("Neg", "no", ["switch:0"], {"T": "float32"}, "/cpu:1"),
        _node("Abs", "yes", ["switch:1"], {"T": "float32"}, "/cpu:1"),
        _node("Merge", "merge", ["no", "yes"], {"T": "float32", "N": 2}, "/cpu:1"),
    )
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1") as sess:
        for pred, want in ((True, [1.0, 2.0]), (False, [-1.0, 2.0])):
            out = sess.run(["merge:0", "merge:1"], {"x:0": [1.0, -2.0], "pred:0": pred})
            np.testing.assert_array_equal(out[0], want)
            assert out[1] == int(pred)
        graph = sess.graph
    step = prepare_step(graph, ["x:0", "pred:0"], ["merge:0"], [], client=CPU0)
    assert not [n for job in step.jobs for n in job.prepared.plan.nodes
                if n.name.endswith("/_resolved")]


def test_a_dead_fetch_fails_as_in_a_session() -> None:
    graph_def = _pinned(
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (2,)}, "/cpu:0"),
        _node("Placeholder", "pred", [], {"dtype": "bool", "shape": ()}, "/cpu:0"),
        _node("Switch", "switch", ["x", "pred"], {"T": "float32"}, "/cpu:1"),
        _node("Neg", "no", ["switch:0"], {"T": "float32"}, "/cpu:1"),
        _node("Abs", "yes", ["switch:1"], {"T": "float32"}, "/cpu:1"),
    )
    feeds = {"x:0": np.array([1.0, -2.0], np.float32), "pred:0": True}
    # The one-device session needs the CPU:1 the nodes ask for (TensorFlow refuses them
    # otherwise), though it runs them all in one executor.
    config = tfx.ConfigProto(device_count={"CPU": 2})
    with tfx.Session(graph_def, config=config) as sess, \
            pytest.raises(InvalidArgumentError) as single:
        sess.run("no:0", feeds)
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1") as sess:
        np.testing.assert_array_equal(sess.run("yes:0", feeds), [1.0, 2.0])
        with pytest.raises(InvalidArgumentError) as multi:
            sess.run("no:0", feeds)
    assert str(multi.value) == str(single.value)
    assert "fetch 'no:0' has no value: its value is dead" in str(multi.value)


def _accumulating_loop_fed_from_another_device() -> graph_pb2.GraphDef:
    """acc = 0; for 3 iterations: acc += m, on CPU:0, where m = Square(Neg(x)) is computed
    on CPU:1 from CPU:0's Neg of a random x; CPU:1 then adds the loop's result to m."""
    f32, i32 = {"T": "float32"}, {"T": "int32"}
    loop = {"frame_name": "loop"}

    def on0(op, name, inputs, attrs):
        return _node(op, name, inputs, attrs, "/cpu:0")

    def const(name, value, anchor=()):
        array = np.asarray(value)
        return on0("Const", name, list(anchor), {"dtype": array.dtype.name, "value": array})

    return _pinned(
        const("shape", np.zeros(0, np.int32)),
        on0("RandomStandardNormal", "x", ["shape"], {"dtype": "float32", "T": "int32",
                                                     "seed": 1, "seed2": 2}),
        on0("Neg", "t", ["x"], f32),
        _node("Square", "m", ["t"], f32, "/cpu:1"),
        const("zero", np.float32(0)), const("i0", np.int32(0)), const("n", np.int32(3)),
        on0("Enter", "acc_enter", ["zero"], {**f32, **loop}),
        on0("Enter", "i_enter", ["i0"], {**i32, **loop}),
        on0("Enter", "n_enter", ["n"], {**i32, **loop, "is_constant": True}),
        on0("Enter", "m_enter", ["m"], {**f32, **loop, "is_constant": True}),
        on0("Merge", "i_merge", ["i_enter", "i_next"], {**i32, "N": 2}),
        on0("Merge", "acc_merge", ["acc_enter", "acc_next"], {**f32, "N": 2}),
        on0("Less", "less", ["i_merge", "n_enter"], i32),
        on0("LoopCond", "cond", ["less"], {}),
        on0("Switch", "i_switch", ["i_merge", "cond"], i32),
        on0("Switch", "acc_switch", ["acc_merge", "cond"], f32),
        on0("Identity", "i_body", ["i_switch:1"], i32),
        on0("Identity", "acc_body", ["acc_switch:1"], f32),
        const("one", np.int32(1), ["^i_body"]),
        on0("AddV2", "i_add", ["i_body", "one"], i32),
        on0("AddV2", "acc_add", ["acc_body", "m_enter"], f32),
        on0("NextIteration", "i_next", ["i_add"], i32),
        on0("NextIteration", "acc_next", ["acc_add"], f32),
        on0("Exit", "i_exit", ["i_switch"], i32),
        on0("Exit", "acc_exit", ["acc_switch"], f32),
        _node("AddV2", "out", ["acc_exit", "m"], f32, "/cpu:1"),
    )


def test_a_loop_result_is_received_after_what_the_loop_reads() -> None:
    # Ignoring back edges, the accumulator's Exit depends only on its initial value and
    # the loop condition; it still leaves with what the body added from m. CPU:1's Recvs
    # (t, then the Exit) were once chained in a topological order, and the Exit first
    # deadlocked, since the loop waits for m, which waits for t (found by fuzzing a
    # TF-written while-loop gradient placed across two devices). Recvs now wait at once.
    graph_def = _accumulating_loop_fed_from_another_device()
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1", timeout=20) as sess:
        out, m = sess.run(["out:0", "m:0"])
        assert out == np.float32(m * 3 + m)


def test_a_loop_variable_that_enters_from_another_device_after_the_loop_left() -> None:
    # TensorFlow's while-loop gradient adds an iteration counter to the forward frame
    # whose Enter, under tf.control_dependencies, waits for ops that read the loop's
    # results. Here that path runs through CPU:1, out of CPU:0's sight: the loop on
    # CPU:0 must not be compiled into one node needing every Enter first (it waited
    # for ever; found by fuzzing a TF-written LSTM with batch norm on two devices).
    graph_def = _accumulating_loop_fed_from_another_device()
    i32, loop = {"T": "int32"}, {"frame_name": "loop"}
    zero = np.int32(0)
    graph_def.node.extend([
        _node("Identity", "after", ["acc_exit"], {"T": "float32"}, "/cpu:1"),
        _node("Const", "late", ["^after"], {"dtype": "int32", "value": zero}, "/cpu:1"),
        _node("Enter", "c_enter", ["late"], {**i32, **loop}, "/cpu:0"),
        _node("Merge", "c_merge", ["c_enter", "c_next"], {**i32, "N": 2}, "/cpu:0"),
        _node("Switch", "c_switch", ["c_merge", "cond"], i32, "/cpu:0"),
        _node("Identity", "c_body", ["c_switch:1"], i32, "/cpu:0"),
        _node("Const", "ten", ["^c_body"], {"dtype": "int32", "value": np.int32(10)}, "/cpu:0"),
        _node("AddV2", "c_add", ["c_body", "ten"], i32, "/cpu:0"),
        _node("NextIteration", "c_next", ["c_add"], i32, "/cpu:0"),
        _node("Exit", "c_exit", ["c_switch"], i32, "/cpu:0"),
    ])
    with MultiDeviceSession(graph_def, devices="cpu:0,cpu:1", timeout=20) as sess:
        counter, out, m = sess.run(["c_exit:0", "out:0", "m:0"])
    assert counter == 30
    assert out == np.float32(m * 3 + m)


def test_more_waiting_recvs_than_a_pool_of_threads() -> None:
    # A TensorFlow master's piece for a tfx task may hold many Recvs (69 in a fuzzed
    # program) whose values the other task sends only after this one has sent it
    # something, which needs the last of them: each waiting Recv held one of 64 pool
    # threads, the last never started, and the step hung.
    count = 100
    nodes = [
        _node("_Recv", f"r{i}", [], {"tensor_type": "float32", "tensor_name": f"t{i}",
                                     "send_device": CPU1, "send_device_incarnation": 1,
                                     "recv_device": CPU0, "client_terminated": False}, CPU0)
        for i in range(count)]
    nodes.append(_node("AddN", "sum", [f"r{i}" for i in range(count - 1)],
                       {"T": "float32", "N": count - 1}, CPU0))
    nodes.append(_node("_Send", "s", [f"r{count - 1}"],
                       {"T": "float32", "tensor_name": "last", "send_device": CPU0,
                        "send_device_incarnation": 1, "recv_device": CPU1,
                        "client_terminated": False}, CPU0))
    graph = Graph.from_graph_def(graph_pb2.GraphDef(node=nodes))
    job = compile_partition(StepPartition(CPU0, graph, ("sum", "s")))
    rendezvous = LocalRendezvous()

    def other_task() -> None:  # sends t0..t98 once it has the value its t99 led to
        rendezvous.send(create_key(CPU1, 1, CPU0, f"t{count - 1}"), np.float32(1.0))
        rendezvous.recv(create_key(CPU0, 1, CPU1, "last"))
        for i in range(count - 1):
            rendezvous.send(create_key(CPU1, 1, CPU0, f"t{i}"), np.float32(i))

    helper = threading.Thread(target=other_task, daemon=True)
    helper.start()
    state = StepState(ResourceManager(), timeout=30)
    run_partitions([job], state, {}, [], rendezvous=rendezvous)
    helper.join(timeout=5)
    assert not helper.is_alive()


def _waiting_recvs(count: int) -> Graph:
    """`count` Recvs from CPU:1 on CPU:0 whose sum is the target."""
    nodes = [
        _node("_Recv", f"r{i}", [], {"tensor_type": "float32", "tensor_name": f"t{i}",
                                     "send_device": CPU1, "send_device_incarnation": 1,
                                     "recv_device": CPU0, "client_terminated": False}, CPU0)
        for i in range(count)]
    nodes.append(_node("AddN", "sum", [f"r{i}" for i in range(count)],
                       {"T": "float32", "N": count}, CPU0))
    return Graph.from_graph_def(graph_pb2.GraphDef(node=nodes))


def test_a_waiting_recv_holds_no_thread() -> None:
    # More Recvs wait at once than the blocking pool has threads (4,096): each asks the
    # rendezvous to call back, so the step makes no thread for them at all.
    count = 5000
    job = compile_partition(StepPartition(CPU0, _waiting_recvs(count), ("sum",)))
    rendezvous = LocalRendezvous()
    state = StepState(ResourceManager(), timeout=60)
    threads_before = threading.active_count()
    runner = threading.Thread(target=run_partitions, args=([job], state, {}, []),
                              kwargs={"rendezvous": rendezvous}, daemon=True)
    runner.start()
    deadline = time.monotonic() + 30
    while len(rendezvous._waiters) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(rendezvous._waiters) == count  # every Recv is waiting
    assert threading.active_count() <= threads_before + 2
    for i in reversed(range(count)):
        rendezvous.send(create_key(CPU1, 1, CPU0, f"t{i}"), np.float32(1.0))
    runner.join(timeout=30)
    assert not runner.is_alive() and not rendezvous.pending_keys()


@pytest.mark.parametrize("end", ["cancel", "deadline"])
def test_a_waiting_recv_ends_with_its_step(end: str) -> None:
    # No thread polls a waiting Recv: the step's cancellation (or its deadline) answers it.
    job = compile_partition(StepPartition(CPU0, _waiting_recvs(3), ("sum",)))
    rendezvous = LocalRendezvous()
    state = StepState(ResourceManager(), timeout=0.3 if end == "deadline" else 60)
    if end == "cancel":
        threading.Timer(0.3, state.cancelled.set).start()
    start = time.monotonic()
    error = CancelledError if end == "cancel" else DeadlineExceededError
    with pytest.raises(error):
        run_partitions([job], state, {}, [], rendezvous=rendezvous)
    assert time.monotonic() - start < 5
    assert not rendezvous._waiters  # each wait was taken back


def test_cancelling_a_step_at_any_moment_ends_every_waiting_recv() -> None:
    # Cancellation races the tensors: each Recv is answered once, by its tensor or by the
    # cancellation, and the step ends (a value or CancelledError) with no wait left over.
    count = 60
    transfer = {"send_device": CPU0, "send_device_incarnation": 1, "recv_device": CPU1,
                "client_terminated": False}
    sender = Graph.from_graph_def(graph_pb2.GraphDef(node=[
        node for i in range(count) for node in (
            _node("Const", f"c{i}", [], {"dtype": "float32", "value": np.float32(i)}, CPU0),
            _node("Sqrt", f"s{i}", [f"c{i}"], {"T": "float32"}, CPU0),
            _node("_Send", f"send{i}", [f"s{i}"],
                  {"T": "float32", "tensor_name": f"t{i}", **transfer}, CPU0))]))
    receiver = Graph.from_graph_def(graph_pb2.GraphDef(node=[
        *(_node("_Recv", f"r{i}", [], {"tensor_type": "float32", "tensor_name": f"t{i}",
                                       **transfer}, CPU1) for i in range(count)),
        _node("AddN", "sum", [f"r{i}" for i in range(count)], {"T": "float32", "N": count},
              CPU1)]))
    jobs = [compile_partition(StepPartition(CPU0, sender, tuple(f"send{i}"
                                                                for i in range(count)))),
            compile_partition(StepPartition(CPU1, receiver, ("sum",)))]
    rng = np.random.default_rng(0)
    outcomes = set()
    for _ in range(40):
        rendezvous = LocalRendezvous()
        state = StepState(ResourceManager(), timeout=30)
        threading.Timer(rng.uniform(0, 0.004), state.cancelled.set).start()
        start = time.monotonic()
        try:
            run_partitions(jobs, state, {}, [], rendezvous=rendezvous)
            outcomes.add("ran")
        except CancelledError:
            outcomes.add("cancelled")
        assert time.monotonic() - start < 5
        assert not rendezvous._waiters and not state.cancelled._callbacks
    assert "cancelled" in outcomes


def test_a_loop_entered_dead_sends_its_test_dead() -> None:
    # TensorFlow fires a loop's Merge dead on a dead Enter, so a loop in an untaken branch
    # (or in an outer loop's last iteration) runs its test once, dead. TensorFlow's master
    # splits a loop so that the task holding the test sends it to the others; a tfx task
    # holding it never ran the test, and the other task waited for it.
    def node(op, name, inputs, **attrs):
        return _node(op, name, inputs, attrs, CPU0)

    transfer = {"send_device": CPU0, "send_device_incarnation": 1, "recv_device": CPU1,
                "client_terminated": False}
    graph = Graph.from_graph_def(graph_pb2.GraphDef(node=[
        node("Const", "x", [], dtype="float32", value=np.float32(0.0)),
        node("Const", "no", [], dtype="bool", value=np.bool_(False)),
        node("Switch", "branch", ["x", "no"], T="float32"),
        node("Enter", "enter", ["branch:1"], T="float32", frame_name="f"),
        node("Merge", "merge", ["enter", "next"], T="float32", N=2),
        node("Const", "three", ["^merge"], dtype="float32", value=np.float32(3.0)),
        node("Less", "less", ["merge", "three"], T="float32"),
        node("LoopCond", "test", ["less"]),
        node("Switch", "switch", ["merge", "test"], T="float32"),
        node("Exit", "exit", ["switch:0"], T="float32"),
        node("Identity", "body", ["switch:1"], T="float32"),
        node("Const", "one", ["^body"], dtype="float32", value=np.float32(1.0)),
        node("AddV2", "add", ["body", "one"], T="float32"),
        node("NextIteration", "next", ["add"], T="float32"),
        node("_Send", "send_test", ["test"], T="bool", tensor_name="test", **transfer),
    ]))
    job = compile_partition(StepPartition(CPU0, graph, ("exit", "send_test")))
    rendezvous = LocalRendezvous()
    run_partitions([job], StepState(ResourceManager(), timeout=30), {}, [],
                   rendezvous=rendezvous)
    key = create_key(CPU0, 1, CPU1, "test", child_frame_id(0, 0, "f"), 0)
    assert rendezvous.take(key) is DEAD
