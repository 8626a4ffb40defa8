"""The distributed runtime in one process: servers for several tasks, a client session.

Each test starts real gRPC servers on loopback ports; tensors between tasks go
through RecvTensor, feeds and fetches through RunStep and RunGraph.
"""

from __future__ import annotations

import contextlib
import threading
import time

import numpy as np
import pytest

import tfx as tf
from tfx.core.distributed.server import Server, create_local_cluster
from tfx.core.errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    UnavailableError,
)

pytestmark = pytest.mark.distributed


@pytest.fixture
def cluster():
    workers, ps = create_local_cluster(2, 1)
    yield workers, ps
    for server in workers + ps:
        server.stop(0)


def test_a_step_runs_across_tasks(cluster) -> None:
    workers, _ = cluster
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 2], name="x")
        with tf.device("/job:worker/task:1"):
            y = tf.matmul(x, x, name="y")
        with tf.device("/job:worker/task:0"):
            z = tf.add(y, 1.0, name="z")
        with tf.Session(workers[0].target) as sess:
            got_z, got_y = sess.run([z, y], {x: [[1.0, 2.0], [3.0, 4.0]]})
            assert sess.sess_str == workers[0].target
    np.testing.assert_array_equal(got_y, [[7.0, 10.0], [15.0, 22.0]])
    np.testing.assert_array_equal(got_z, [[8.0, 11.0], [16.0, 23.0]])


def test_the_master_places_nodes_on_the_tasks_they_ask_for(cluster) -> None:
    workers, ps = cluster
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable([1.0, 2.0], name="v")
        with tf.device("/job:worker/task:1"):
            doubled = v * 2.0
        update = v.assign_add(doubled)
        with tf.Session(workers[0].target) as sess:
            sess.run(v.initializer)
            sess.run(update)
            np.testing.assert_array_equal(sess.run(v), [3.0, 6.0])
            sess.run(update)
            np.testing.assert_array_equal(sess.run(v), [9.0, 18.0])
            # The variable lives in the ps task's worker session.
            (session,) = [s for h, s in ps[0].worker._sessions.items() if h]
            assert any("v" in str(key) for key in session.kernels._kernels)
        # Closing the client session deletes its worker sessions everywhere.
        assert list(ps[0].worker._sessions) == [""]


def test_the_graph_grows_between_steps(cluster) -> None:
    workers, _ = cluster
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        with tf.Session(workers[0].target) as sess:
            assert sess.run(x * 2.0, {x: [1.0]}).tolist() == [2.0]
            with tf.device("/job:worker/task:1"):
                later = tf.reduce_sum(x) + 1.0
            assert sess.run(later, {x: [1.0, 2.0]}) == 4.0


def test_training_on_ps_and_worker_matches_the_local_session(cluster) -> None:
    workers, _ = cluster
    rng = np.random.RandomState(0)
    data = rng.randn(16, 3).astype(np.float32)
    labels = (data @ [[1.0], [-2.0], [0.5]]).astype(np.float32)

    def train(target: str) -> list[float]:
        with tf.Graph().as_default():
            tf.set_random_seed(1)
            x = tf.placeholder(tf.float32, [None, 3])
            t = tf.placeholder(tf.float32, [None, 1])
            with tf.device(tf.train.replica_device_setter(ps_tasks=1,
                                                          worker_device="/job:worker/task:1")):
                w = tf.get_variable("w", [3, 1])
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - t))
                step = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
            with tf.Session(target) as sess:
                sess.run(tf.global_variables_initializer())
                return [float(sess.run([loss, step], {x: data, t: labels})[0])
                        for _ in range(5)]

    remote = train(workers[0].target)
    with tf.Graph().as_default():
        pass
    local = _train_locally(data, labels)
    np.testing.assert_allclose(remote, local, rtol=1e-6)


def _train_locally(data: np.ndarray, labels: np.ndarray) -> list[float]:
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 3])
        t = tf.placeholder(tf.float32, [None, 1])
        w = tf.get_variable("w", [3, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - t))
        step = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [float(sess.run([loss, step], {x: data, t: labels})[0]) for _ in range(5)]


def test_a_conditional_across_tasks(cluster) -> None:
    workers, _ = cluster
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        x = tf.placeholder(tf.float32, [])

        def on_task1():
            with tf.device("/job:worker/task:1"):
                return x * 10.0

        result = tf.cond(p, on_task1, lambda: x - 1.0)
        with tf.Session(workers[0].target) as sess:
            assert sess.run(result, {p: True, x: 2.0}) == 20.0
            assert sess.run(result, {p: False, x: 2.0}) == 1.0


def test_a_tensor_list_travels_between_tasks(cluster) -> None:
    # v2 control flow keeps loop accumulators in TensorLists (DT_VARIANT); one made on
    # task 1 and read on task 0 crosses as TensorFlow sends it (it used to arrive as
    # the bytes of its repr, found by fuzzing TF-written graphs on two tasks).
    workers, _ = cluster
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3, 2])
        with tf.device("/job:worker/task:1"):
            reserved = tf.raw_ops.TensorListReserve(
                element_shape=tf.constant([2]), num_elements=4, element_dtype=tf.float32)
            listed = tf.raw_ops.TensorListSetItem(input_handle=reserved, index=2, item=x[1])
        with tf.device("/job:worker/task:0"):
            stacked = tf.raw_ops.TensorListStack(input_handle=listed, element_dtype=tf.float32,
                                                 element_shape=tf.constant([2]))
        with tf.Session(workers[0].target) as sess:
            got = sess.run(stacked, {x: [[1, 2], [3, 4], [5, 6]]})
    np.testing.assert_array_equal(got, [[0, 0], [0, 0], [3, 4], [0, 0]])


def test_an_optional_travels_between_tasks(cluster) -> None:
    # TensorFlow's master put a v2 cond's gradient on two tasks, and an Optional (the
    # cond's saved intermediates) made on the tfx task had to cross: it could not be
    # encoded (found by fuzzing a TensorFlow master with a tfx worker).
    workers, _ = cluster
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        with tf.device("/job:worker/task:1"):
            held = tf.raw_ops.OptionalFromValue(components=[x * 2, tf.constant(b"s")])
            empty = tf.raw_ops.OptionalNone()
        with tf.device("/job:worker/task:0"):
            doubled, text = tf.raw_ops.OptionalGetValue(
                optional=held, output_types=[tf.float32, tf.string], output_shapes=[[2], []])
            has = tf.raw_ops.OptionalHasValue(optional=empty)
        with tf.Session(workers[0].target) as sess:
            got = sess.run([doubled, text, has], {x: [1, 2]})
    np.testing.assert_array_equal(got[0], [2, 4])
    assert got[1] == b"s" and not got[2]


def test_an_error_on_another_task_names_the_node_and_the_session_goes_on(cluster) -> None:
    workers, _ = cluster
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        with tf.device("/job:worker/task:1"):
            check = tf.debugging.assert_positive(x, name="positive")
            with tf.control_dependencies([check]):
                y = tf.identity(x * 3.0)
        with tf.Session(workers[0].target) as sess:
            with pytest.raises(InvalidArgumentError, match="positive") as info:
                sess.run(y, {x: -1.0})
            assert "/job:worker/replica:0/task:1" in str(info.value)
            assert sess.run(y, {x: 2.0}) == 6.0


def test_feeds_are_checked_before_they_travel(cluster) -> None:
    workers, _ = cluster
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        with tf.Session(workers[0].target) as sess:
            with pytest.raises(InvalidArgumentError, match="x:0"):
                sess.run(x + 1.0, {x: [1.0, 2.0, 3.0]})


def test_a_step_times_out_on_another_task_and_the_next_one_runs(cluster) -> None:
    workers, _ = cluster
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:1"):
            queue = tf.FIFOQueue(2, tf.float32)
            taken = queue.dequeue()
            put = queue.enqueue(5.0)
        with tf.Session(workers[0].target) as sess:
            start = time.monotonic()
            with pytest.raises(DeadlineExceededError):
                sess.run(taken, options=tf.RunOptions(timeout_in_ms=300))
            assert time.monotonic() - start < 10
            sess.run(put)
            assert sess.run(taken) == 5.0


def test_a_task_that_is_gone_is_named(cluster) -> None:
    workers, _ = cluster
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:1"):
            y = tf.constant(1.0) + 1.0
        workers[1].stop(0)
        # A new session waits for every task to answer, up to its operation timeout.
        config = tf.ConfigProto(operation_timeout_in_ms=1500)
        with tf.Session(workers[0].target, config=config) as sess:
            start = time.monotonic()
            with pytest.raises(UnavailableError, match="task /job:worker/replica:0/task:1 .* "
                                                       "did not answer within 1.5 s"):
                sess.run(y)
            assert time.monotonic() - start < 10


def test_a_task_that_starts_late_is_waited_for() -> None:
    workers, _ = create_local_cluster(2, 0)
    cluster = workers[1].server_def.cluster
    workers[1].stop(0)
    late: list[Server] = []
    timer = threading.Timer(1.0, lambda: late.append(
        Server(cluster, job_name="worker", task_index=1)))
    timer.start()
    try:
        with tf.Graph().as_default():
            with tf.device("/job:worker/task:1"):
                y = tf.constant(2.0) * 4.0
            with tf.Session(workers[0].target) as sess:
                assert sess.run(y) == 8.0
    finally:
        timer.join()
        for server in workers[:1] + late:
            server.stop(0)


def test_list_devices_and_extend_version_check(cluster) -> None:
    from tfx.core.distributed.client import GrpcSession
    from tfx.protos import distributed_pb2 as pb

    workers, _ = cluster
    with tf.Graph().as_default() as graph:
        tf.constant(1.0, name="c")
        remote = GrpcSession(workers[0].target)
        remote.run(graph._ir, ["c:0"])
        names = sorted(d.name for d in remote.list_devices())
        assert names == ["/job:ps/replica:0/task:0/device:CPU:0",
                         "/job:worker/replica:0/task:0/device:CPU:0",
                         "/job:worker/replica:0/task:1/device:CPU:0"]
        with pytest.raises(FailedPreconditionError, match="version 7"):
            remote._master.extend_session(pb.ExtendSessionRequest(
                session_handle=remote._handle, current_graph_version=7))
        remote.close()


def test_a_local_server_serves_one_task() -> None:
    server = Server.create_local_server()
    try:
        assert server.target.startswith("grpc://localhost:")
        assert server.server_def.job_name == "localhost"
        with tf.Graph().as_default():
            with tf.Session(server.target) as sess:
                assert sess.run(tf.constant([1, 2]) * 2).tolist() == [2, 4]
    finally:
        server.stop(0)


def test_closing_a_session_cancels_its_running_steps(cluster) -> None:
    from tfx.core.errors import CancelledError

    workers, _ = cluster
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:1"):
            taken = tf.FIFOQueue(1, tf.float32).dequeue()
        sess = tf.Session(workers[0].target)
        outcome: list[BaseException] = []

        def blocked() -> None:
            try:
                sess.run(taken)
            except BaseException as exc:  # noqa: BLE001 - the test looks at it
                outcome.append(exc)

        thread = threading.Thread(target=blocked)
        thread.start()
        time.sleep(1.0)  # the dequeue waits on task 1
        start = time.monotonic()
        sess.close()
        thread.join(timeout=30)
        assert not thread.is_alive() and time.monotonic() - start < 10
        assert isinstance(outcome[0], CancelledError)


def _traced_run(sess, fetch, feeds=None):
    metadata = tf.RunMetadata()
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
    value = sess.run(fetch, feeds, options=options, run_metadata=metadata)
    return value, metadata


def test_a_traced_step_reports_every_task_s_kernels_and_partitions(cluster) -> None:
    workers, ps = cluster
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        with tf.device("/job:ps/task:0"):
            y = tf.multiply(x, x, name="y")
        with tf.device("/job:worker/task:1"):
            z = tf.reduce_sum(y, name="z")
        with tf.Session(workers[0].target) as sess:
            assert sess.run(z, {x: [1.0, 2.0]}) == 5.0
            value, metadata = _traced_run(sess, z, {x: [1.0, 2.0]})
    assert value == 5.0
    stats = {d.device: [n.node_name for n in d.node_stats]
             for d in metadata.step_stats.dev_stats}
    ps_cpu = "/job:ps/replica:0/task:0/device:CPU:0"
    w1_cpu = "/job:worker/replica:0/task:1/device:CPU:0"
    # The feed went straight to the ps task that reads it and the fetch came back from
    # worker 1 that computes it: the master's own task had nothing to do.
    assert set(stats) == {ps_cpu, w1_cpu}
    assert "y" in stats[ps_cpu] and "z" in stats[w1_cpu]
    (y_stats,) = [n for d in metadata.step_stats.dev_stats for n in d.node_stats
                  if n.node_name == "y"]
    assert y_stats.timeline_label.startswith("y = Mul(")
    assert [d.size for d in y_stats.output[0].tensor_description.shape.dim] == [2]
    # One partition graph per device that ran, each with its Sends and Recvs.
    devices = [{n.device for n in g.node} for g in metadata.partition_graphs]
    assert sorted(d.pop() for d in devices if len(d) == 1) == sorted([ps_cpu, w1_cpu])
    ops = {n.op for g in metadata.partition_graphs for n in g.node}
    assert {"_Send", "_Recv", "Mul", "Sum"} <= ops


def test_an_untraced_step_reports_nothing_and_recording_gathers_a_remote_step(cluster) -> None:
    from tfx.core.trace import StepTrace, recording

    workers, _ = cluster
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:1"):
            y = tf.reduce_sum(tf.range(4.0) * 2.0, name="y")
        with tf.Session(workers[0].target) as sess:
            metadata = tf.RunMetadata()
            assert sess.run(y, options=tf.RunOptions(), run_metadata=metadata) == 12.0
            assert not metadata.step_stats.dev_stats and not metadata.partition_graphs
            trace = StepTrace()
            with recording(trace):
                assert sess.run(y) == 12.0
    # In one process the kernels report to the recording directly, each once.
    names = [e.name for e in trace.events]
    assert names.count("y") == 1
    assert {e.device for e in trace.events if e.name == "y"} == {
        "/job:worker/replica:0/task:1/device:CPU:0"}


def test_the_master_optimizes_the_step_unless_the_config_says_l0(cluster) -> None:
    workers, _ = cluster
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        with tf.device("/job:worker/task:1"):
            folded = tf.multiply(tf.constant(3.0), tf.constant(4.0), name="folded")
            y = tf.add(x, folded, name="y")
        ops = {}
        for level in (tf.OptimizerOptions.L1, tf.OptimizerOptions.L0):
            config = tf.ConfigProto(graph_options=tf.GraphOptions(
                optimizer_options=tf.OptimizerOptions(opt_level=level)))
            with tf.Session(workers[0].target, config=config) as sess:
                value, metadata = _traced_run(sess, y, {x: 1.0})
            assert value == 13.0
            ops[level] = {n.name: n.op for g in metadata.partition_graphs for n in g.node}
    assert ops[tf.OptimizerOptions.L1]["folded"] == "Const"  # folded before the cut
    assert ops[tf.OptimizerOptions.L0]["folded"] == "Mul"


@contextlib.contextmanager
def _two_workers_registering(monkeypatch, register):
    """Two worker tasks whose RegisterGraph is `register(original, worker, request)`: the
    patch comes before the servers, which bind their handlers when they start."""
    from tfx.core.distributed.worker import Worker

    original = Worker.register_graph
    monkeypatch.setattr(Worker, "register_graph",
                        lambda self, request: register(original, self, request))
    workers, _ = create_local_cluster(2, 0)
    try:
        yield workers
    finally:
        for server in workers:
            server.stop(0)


def test_a_registration_that_fails_on_one_task_leaves_none_behind(monkeypatch) -> None:
    calls = []

    def second_call_fails(register, worker, request):
        calls.append(worker.task)
        if len(calls) == 2:
            raise UnavailableError(f"{worker.task} fell over")
        return register(worker, request)

    with _two_workers_registering(monkeypatch, second_call_fails) as workers, \
            tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        with tf.device("/job:worker/task:1"):
            y = tf.reduce_sum(x, name="y")
        with tf.device("/job:worker/task:0"):
            z = tf.multiply(y, 2.0, name="z")
        with tf.Session(workers[0].target) as sess:
            with pytest.raises(UnavailableError, match="fell over"):
                sess.run(z, {x: [0.0, 1.0, 2.0]})
            # The task that had taken its piece let it go.
            for server in workers:
                for session in server.worker._sessions.values():
                    assert not session.graphs
            assert sess.run(z, {x: [0.0, 1.0, 2.0]}) == 6.0  # registered again
    assert len(calls) == 4


def test_send_and_recv_names_are_never_reused_across_a_session_s_steps(monkeypatch) -> None:
    # A TensorFlow worker keeps one kernel per stateful node name in a session: a step's
    # Recv named as another step's, with another tensor_name, ran as that one and waited
    # for a tensor nobody sent (a tfx master driving a TensorFlow worker timed out).
    registered: list = []

    def recording(register, worker, request):
        registered.append(request.graph_def)
        return register(worker, request)

    with _two_workers_registering(monkeypatch, recording) as workers, \
            tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        with tf.device("/job:worker/task:1"):
            y = tf.reduce_sum(x, name="y")
            w = tf.reduce_max(x, name="w")
        with tf.device("/job:worker/task:0"):
            z = tf.multiply(y, 2.0, name="z")
            v = tf.add(w, z, name="v")
        with tf.Session(workers[0].target) as sess:
            assert sess.run(z, {x: [0.0, 1.0, 2.0]}) == 6.0
            assert sess.run(v, {x: [0.0, 1.0, 2.0]}) == 8.0
    transfers: dict[str, str] = {}
    for graph_def in registered:
        for node in graph_def.node:
            if node.op in ("_Send", "_Recv") and not node.attr["client_terminated"].b:
                tensor = node.attr["tensor_name"].s.decode()
                assert transfers.setdefault(node.name, tensor) == tensor, node.name
    assert len(registered) == 4 and len(transfers) >= 6


def test_a_task_with_a_gpu_runs_its_nodes_there(gpu_cupy) -> None:
    from tfx.core.distributed.server import _free_ports

    ports = _free_ports(2)
    spec = {"worker": [f"localhost:{port}" for port in ports]}
    servers = [Server(spec, job_name="worker", task_index=0, gpu_count=0),
               Server(spec, job_name="worker", task_index=1, gpu_count=1)]
    gpu = "/job:worker/replica:0/task:1/device:GPU:0"
    try:
        assert servers[1].worker.devices.names == [
            "/job:worker/replica:0/task:1/device:CPU:0", gpu]
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        with tf.Graph().as_default():
            feed = tf.placeholder(tf.float32, [2, 3])
            with tf.device("/job:worker/task:1/device:GPU:0"):
                product = tf.matmul(feed, feed, transpose_b=True, name="product")
            with tf.device("/job:worker/task:0"):
                total = tf.reduce_sum(product, name="total")
            with tf.Session(servers[0].target) as sess:
                devices = {d.name for d in sess.list_devices()}
                assert gpu in devices
                got_product, got_total = _traced_run(sess, [product, total], {feed: x})[0]
                _, metadata = _traced_run(sess, total, {feed: x})
        np.testing.assert_allclose(got_product, x @ x.T)
        assert got_total == pytest.approx(float((x @ x.T).sum()))
        ran_on = {d.device: [n.node_name for n in d.node_stats]
                  for d in metadata.step_stats.dev_stats}
        assert "product" in ran_on[gpu]
    finally:
        for server in servers:
            server.stop(0)


def test_a_step_that_ends_well_needs_no_cleanup_from_the_master(monkeypatch) -> None:
    from tfx.core.distributed.worker import Worker
    from tfx.core.errors import AbortedError
    from tfx.core.rendezvous import create_key
    from tfx.protos import distributed_pb2 as pb

    cleaned: list[str] = []
    cleanup, get_status = Worker.cleanup_graph, Worker.get_status

    def counted_cleanup(self, request):
        cleaned.append(self.task)
        return cleanup(self, request)

    def status(self, request):
        response = get_status(self, request)
        if self.task.endswith("task:2"):  # this task answers as a TensorFlow worker would
            for device in response.device_attributes:
                device.physical_device_desc = ""
        return response

    monkeypatch.setattr(Worker, "cleanup_graph", counted_cleanup)
    monkeypatch.setattr(Worker, "get_status", status)
    workers, _ = create_local_cluster(3, 0)
    try:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [], name="x")
            with tf.device("/job:worker/task:1"):
                y = tf.multiply(x, 2.0, name="y")
            with tf.device("/job:worker/task:2"):
                w = tf.add(y, 1.0, name="w")
            with tf.device("/job:worker/task:0"):
                z = tf.multiply(w, y, name="z")
            with tf.Session(workers[0].target) as sess:
                for step in range(3):
                    assert sess.run(z, {x: float(step)}) == (2 * step + 1) * 2 * step
                # Each tfx task dropped each step's rendezvous once its tensors were taken;
                # only the task that answers as TensorFlow's got CleanupGraph, every step.
                time.sleep(0.2)  # the master sends cleanups without waiting for them
                assert cleaned == ["/job:worker/replica:0/task:2"] * 3
                assert all(not server.worker._steps for server in workers[:2])
                # A RecvTensor for a step that ended is refused, not left waiting.
                task1 = workers[1].worker
                step_id = list(task1._cleaned)[-1]
                cpu = task1.devices.devices[0]
                key = create_key(cpu.name, cpu.incarnation, "/job:worker/replica:0/task:0/"
                                 "device:CPU:0", "y:0")
                with pytest.raises(AbortedError, match="already cleaned up"):
                    task1.recv_tensor(pb.RecvTensorRequest(step_id=step_id,
                                                           rendezvous_key=key))
                # A step that fails still ends everywhere with CleanupGraph.
                with pytest.raises(InvalidArgumentError, match="must feed a value"):
                    sess.run(z)
                time.sleep(0.2)
                assert cleaned.count("/job:worker/replica:0/task:1") == 1
    finally:
        for server in workers:
            server.stop(0)


def test_a_partial_run_across_tasks(cluster) -> None:
    # TensorFlow 2.21's values for this graph on one machine (test_partial_run_api).
    workers, ps = cluster
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [], name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        c = tf.placeholder(tf.float32, [], name="c")
        with tf.device("/job:worker/task:1"):
            r1 = tf.add(a, b, name="r1")
            rnd = tf.random_uniform([], seed=1, name="rnd")
        with tf.device("/job:ps/task:0"):
            r2 = tf.multiply(r1, c, name="r2")
            r3 = tf.add(r1, rnd, name="r3")
        with tf.Session(workers[0].target) as sess:
            handle = sess.partial_run_setup([r1, r2, r3, rnd], [a, b, c])
            assert sess.partial_run(handle, r1, feed_dict={a: 1, b: 2}) == 3.0
            got_r2, got_rnd = sess.partial_run(handle, [r2, rnd], feed_dict={c: 17})
            assert (got_r2, got_rnd) == (51.0, np.float32(0.2390374))
            assert sess.partial_run(handle, r3) == np.float32(3.2390375)  # the same draw
            with pytest.raises(InvalidArgumentError, match="Must run 'setup'"):
                sess.partial_run(handle, r1)
            handle = sess.partial_run_setup([r1, r2], [a, b, c])
            with pytest.raises(InvalidArgumentError, match="Fetch c:0 can't be computed"):
                sess.partial_run(handle, r2, feed_dict={a: 1, b: 2})
            assert sess.partial_run(handle, r1, feed_dict={a: 1, b: 2}) == 3.0
            with pytest.raises(InvalidArgumentError, match="The feed a:0 has already been fed"):
                sess.partial_run(handle, r2, feed_dict={a: 1})
            assert sess.partial_run(handle, r2, feed_dict={c: 3}) == 9.0
            # Every task let the steps go.
            for server in workers + ps:
                assert not server.worker._steps and not server.worker._partials
            # A run whose step fails on a task names the node, and is over everywhere.
            handle = sess.partial_run_setup([r2], [a, c])  # b is never fed
            time.sleep(0.2)  # the step has failed by now, before the call's feeds arrive
            with pytest.raises(InvalidArgumentError, match="node 'b'.*must feed"):
                sess.partial_run(handle, r2, feed_dict={a: 1, c: 2})
            with pytest.raises(InvalidArgumentError, match="Must run 'setup'"):
                sess.partial_run(handle, r2)
            # A run left unfinished is stopped when the session closes.
            sess.partial_run_setup([r2], [a, b, c])
        time.sleep(0.2)
        for server in workers + ps:
            assert not server.worker._partials
            assert not any(alive for alive in server.worker._running.values())


def test_a_failed_partial_run_reports_its_cause_when_that_task_answers_last(
        cluster, monkeypatch) -> None:
    # Regression: task 0's step fails (b is never fed) and task 1's Recv of b is cancelled
    # by it. When task 1 answered first, the master ended the run everywhere at once, so
    # task 0's call found its step gone, and the user saw only task 1's cancellation.
    workers, _ = cluster
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [], name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        with tf.device("/job:worker/task:1"):
            r1 = tf.add(a, b, name="r1")
        with tf.Session(workers[0].target) as sess:
            handle = sess.partial_run_setup([r1], [a])
            time.sleep(0.2)  # the step has failed on both tasks by now
            task0 = workers[0].worker
            run_graph = task0.run_graph

            def answering_late(request, *args, **kwargs):
                time.sleep(0.3)
                return run_graph(request, *args, **kwargs)

            monkeypatch.setattr(task0, "run_graph", answering_late)
            with pytest.raises(InvalidArgumentError, match="node 'b'.*must feed"):
                sess.partial_run(handle, r1, feed_dict={a: 1})


def test_checkpoints_of_a_cluster_s_variables_are_written_by_the_client(cluster,
                                                                           tmp_path) -> None:
    from tfx.core.checkpoint import BundleReader
    from tfx.core.checkpoint.restore import restore_variables, save_variables

    workers, _ = cluster
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.get_variable("w", initializer=[1.0, 2.0], use_resource=True)
            v = tf.Variable([[3.0]], name="v", use_resource=False)
        bump = tf.group(w.assign_add([1.0, 1.0]), v.assign_add([[1.0]]))
        with tf.Session(workers[0].target) as sess:
            assert not sess.state_is_local
            sess.run(tf.global_variables_initializer())
            sess.run(bump)
            assert save_variables(sess, tmp_path / "m") == ["v", "w"]
            sess.run(bump)
            result = restore_variables(sess, tmp_path / "m")
            assert sorted(result.restored) == [("v", "v"), ("w", "w")]
            got_w, got_v = sess.run([w, v])
    np.testing.assert_array_equal(got_w, [2.0, 3.0])
    np.testing.assert_array_equal(got_v, [[4.0]])
    with BundleReader(tmp_path / "m") as reader:
        np.testing.assert_array_equal(reader.read("w"), [2.0, 3.0])
