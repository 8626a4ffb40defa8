"""MultiWorkerMirroredStrategy over a cluster: between-graph training with collectives.

The expected values are TensorFlow 2.21's: the same script (graph mode, GradientDescent
on a linear model, each worker feeding its half of the batch) ran as two processes,
each with its own `tf.distribute.Server` and session (scratch script, not kept); the
config bytes are TF's `update_config_proto` output for the same clusters.
"""

from __future__ import annotations

import socket

import numpy as np
import pytest
from threads import on_threads

import tfx as tf
from tfx.core.api.distribute_cluster_resolver_api import SimpleClusterResolver
from tfx.core.cluster import ClusterSpec
from tfx.core.distributed.server import Server
from tfx.protos import config_pb2

MultiWorkerMirroredStrategy = tf.distribute.experimental.MultiWorkerMirroredStrategy

X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25], [-2.0, 1.0]], np.float32)
Y = np.array([[1.0], [0.0], [2.0], [-1.0]], np.float32)
# TF 2.21, two workers: the variables after three steps, and each step's (worker's loss,
# mean loss over the workers).
TF_W = [[0.4358525276184082], [0.6790004372596741]]
TF_B = -0.2831699252128601
TF_LOSSES = {0: [[11.25, 6.25], [1.051952838897705, 1.5386936664581299],
                 [0.6095120310783386, 1.131132960319519]],
             1: [[1.25, 6.25], [2.0254344940185547, 1.5386936664581299],
                 [1.6527539491653442, 1.131132960319519]]}


def _ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("localhost", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


@pytest.fixture
def servers(request):
    """Servers for a cluster {job: task count}; yields (spec, {(job, index): server})."""
    jobs: dict[str, int] = request.param
    ports = iter(_ports(sum(jobs.values())))
    spec = ClusterSpec({job: [f"localhost:{next(ports)}" for _ in range(n)]
                        for job, n in jobs.items()})
    started = {(job, i): Server(spec, job_name=job, task_index=i)
               for job, n in jobs.items() for i in range(n)}
    yield spec, started
    for server in started.values():
        server.stop()


def _on_every_worker(spec, started, client) -> dict:
    """Run `client(strategy, server, rank)` on a thread per worker; its results by rank."""
    tasks = sorted(started, key=lambda t: (t[0] != "chief", t[1]))

    def run(rank: int):
        task = tasks[rank]
        with tf.Graph().as_default():
            strategy = MultiWorkerMirroredStrategy(
                cluster_resolver=SimpleClusterResolver(spec, task_type=task[0],
                                                       task_id=task[1]))
            return client(strategy, started[task], rank)

    return dict(enumerate(on_threads(run, range(len(tasks)))))


def _linear_regression(strategy, server, rank: int) -> dict:
    with strategy.scope():
        w = tf.Variable([[1.0], [2.0]], name="w")
        b = tf.Variable(0.5, name="b")
        optimizer = tf.train.GradientDescentOptimizer(0.1)
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")

        def step():
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            return optimizer.minimize(loss), loss

        train, loss = strategy.extended.call_for_each_replica(step)
        mean_loss = strategy.reduce(tf.distribute.ReduceOp.MEAN, loss, axis=None)
        train = strategy.group(train)
        loss = strategy.experimental_local_results(loss)[0]  # this worker's first replica's
    config = strategy.update_config_proto(tf.ConfigProto())
    with tf.Session(server.target, config=config) as sess:
        sess.run(tf.global_variables_initializer())
        half = slice(2 * rank, 2 * rank + 2)
        losses = [[float(v) for v in sess.run([train, loss, mean_loss],
                                              {x: X[half], y: Y[half]})[1:]]
                  for _ in range(3)]
        return {"w": sess.run(w).tolist(), "b": float(sess.run(b)), "losses": losses}


@pytest.mark.parametrize("servers", [{"worker": 2}, {"chief": 1, "worker": 1}],
                         indirect=True, ids=["two_workers", "chief_and_worker"])
def test_two_workers_train_as_tensorflows_do(servers) -> None:
    results = _on_every_worker(*servers, _linear_regression)
    for rank in (0, 1):
        assert results[rank] == {"w": TF_W, "b": TF_B, "losses": TF_LOSSES[rank]}


@pytest.mark.parametrize("servers", [{"worker": 2}], indirect=True)
def test_every_worker_starts_from_the_chiefs_initial_values(servers) -> None:
    def client(strategy, server, rank):
        tf.set_random_seed(rank)  # each worker would draw other values by itself
        with strategy.scope():
            v = tf.Variable(tf.random_normal([3]), name="v")
            step = tf.train.get_or_create_global_step()
        with tf.Session(server.target,
                        config=strategy.update_config_proto(tf.ConfigProto())) as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(v).tolist(), int(sess.run(step))

    results = _on_every_worker(*servers, client)
    assert results[0] == results[1]
    assert results[0][1] == 0


@pytest.mark.parametrize("servers", [{"worker": 2}], indirect=True)
def test_a_sum_over_the_workers_of_plain_values(servers) -> None:
    def client(strategy, server, rank):
        with strategy.scope():
            total = strategy.reduce(tf.distribute.ReduceOp.SUM,
                                    tf.constant([rank + 1.0, 10.0 * rank]), axis=None)
        with tf.Session(server.target,
                        config=strategy.update_config_proto(tf.ConfigProto())) as sess:
            return sess.run(total).tolist()

    assert _on_every_worker(*servers, client) == {0: [3.0, 10.0], 1: [3.0, 10.0]}


# TF 2.21's update_config_proto(ConfigProto(device_filters=["/job:ps"])) on the chief and
# on worker 1 of {"chief": 1, "worker": 2}: its own task replaces the filters.
TF_CONFIG_BYTES = {
    ("chief", 0): "22112f6a6f623a63686965662f7461736b3a305219521778018201120a10436f6c6c656374"
                  "69766552656475636582011d0a1b2f6a6f623a63686965662f7265706c6963613a302f74"
                  "61736b3a30",
    ("worker", 1): "22122f6a6f623a776f726b65722f7461736b3a315219521778018201120a10436f6c6c65"
                   "637469766552656475636582011d0a1b2f6a6f623a63686965662f7265706c6963613a30"
                   "2f7461736b3a30",
}


@pytest.mark.parametrize("task, chief", [(("chief", 0), True), (("worker", 1), False)])
def test_a_workers_strategy_and_config_are_tensorflows(task, chief) -> None:
    spec = ClusterSpec({"chief": ["localhost:12340"],
                        "worker": ["localhost:12345", "localhost:12346"]})
    strategy = MultiWorkerMirroredStrategy(
        cluster_resolver=SimpleClusterResolver(spec, task_type=task[0], task_id=task[1]))
    extended = strategy.extended
    assert strategy.num_replicas_in_sync == 3
    assert extended.worker_devices == (f"/job:{task[0]}/replica:0/task:{task[1]}/device:CPU:0",)
    assert (extended.should_checkpoint, extended.should_save_summary) == (chief, chief)
    assert extended.experimental_should_init and extended.experimental_between_graph
    config = strategy.update_config_proto(config_pb2.ConfigProto(device_filters=["/job:ps"]))
    assert config.SerializeToString().hex() == TF_CONFIG_BYTES[task]


def test_configure_makes_it_a_workers_strategy() -> None:
    strategy = MultiWorkerMirroredStrategy(cluster_resolver=SimpleClusterResolver(
        ClusterSpec({})))
    assert strategy.num_replicas_in_sync == 1
    config = config_pb2.ConfigProto()
    strategy.configure(config, {"worker": ["localhost:1", "localhost:2"]}, "worker", 1)
    assert strategy.num_replicas_in_sync == 2
    assert list(config.device_filters) == ["/job:worker/task:1"]
    assert config.experimental.collective_group_leader == "/job:worker/replica:0/task:0"


def test_a_task_that_is_no_worker_is_refused() -> None:
    spec = ClusterSpec({"worker": ["localhost:1", "localhost:2"], "ps": ["localhost:3"]})
    with pytest.raises(ValueError, match="not on task ps:0"):
        MultiWorkerMirroredStrategy(
            cluster_resolver=SimpleClusterResolver(spec, task_type="ps", task_id=0))


@pytest.mark.parametrize("servers", [{"worker": 2}], indirect=True)
def test_each_worker_reads_its_replicas_part_of_every_global_batch(servers) -> None:
    def client(strategy, server, rank):
        iterator = strategy.make_dataset_iterator(tf.data.Dataset.range(10).batch(4))
        element = strategy.experimental_local_results(iterator.get_next())
        return _read_all(strategy, server, iterator, element)

    # TF 2.21's tf.compat.v1 MultiWorkerMirroredStrategy.make_dataset_iterator, two workers.
    assert _on_every_worker(*servers, client) == TF_PARTS


# The parts of Dataset.range(10).batch(4) each of two workers' one replica reads (TF 2.21).
TF_PARTS = {0: [[[0, 1]], [[4, 5]], [[8]]], 1: [[[2, 3]], [[6, 7]], [[9]]]}


def _read_all(strategy, server, iterator, element) -> list:
    """Every value of `element` (a worker's replicas' parts) until the dataset ends."""
    with tf.Session(server.target,
                    config=strategy.update_config_proto(tf.ConfigProto())) as sess:
        sess.run(iterator.initializer)
        parts = []
        while True:
            try:
                parts.append([v.tolist() for v in sess.run(element)])
            except tf.errors.OutOfRangeError:
                return parts


def test_workers_with_a_gpu_each_read_the_dataset_on_their_cpu(one_gpu_each) -> None:
    """The iterator on each worker's CPU (a GPU has no dataset kernels: a regression, seen on
    an H100), each part on the worker's GPU."""
    def client(strategy, server, rank):
        iterator = strategy.make_dataset_iterator(tf.data.Dataset.range(10).batch(4))
        element = strategy.experimental_local_results(iterator.get_next())
        assert element[0].device.endswith(f"task:{rank}/device:GPU:0")
        graph = element[0].graph
        assert all(op.device.endswith(f"task:{rank}/device:CPU:0")
                   for op in graph.get_operations() if op.type.startswith("Iterator"))
        return _read_all(strategy, server, iterator, element)

    assert _on_every_worker(*one_gpu_each, client) == TF_PARTS


@pytest.mark.parametrize("servers", [{"worker": 2}], indirect=True)
def test_replica_ids_count_across_the_workers(servers) -> None:
    def client(strategy, server, rank):
        ids = strategy.extended.call_for_each_replica(
            lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
        with tf.Session(server.target,
                        config=strategy.update_config_proto(tf.ConfigProto())) as sess:
            return int(sess.run(ids)), strategy.num_replicas_in_sync

    assert _on_every_worker(*servers, client) == {0: (0, 2), 1: (1, 2)}


def _two_workers(gpu_count: int):
    """Two workers' servers with `gpu_count` GPUs each; yields (spec, servers)."""
    ports = _ports(2)
    spec = ClusterSpec({"worker": [f"localhost:{port}" for port in ports]})
    started = {("worker", i): Server(spec, job_name="worker", task_index=i,
                                     gpu_count=gpu_count)
               for i in range(2)}
    yield spec, started
    for server in started.values():
        server.stop()


@pytest.fixture
def two_gpus_each(monkeypatch):
    """Two workers whose tasks have two (emulated) GPUs each."""
    import emulated_cupy

    from tfx.core import devices

    monkeypatch.setattr(devices, "_GPUS", {})
    emulated_cupy.install(monkeypatch, gpus=2)
    yield from _two_workers(2)


@pytest.fixture
def one_gpu_each(gpu_cupy):
    """Two workers whose tasks have one GPU each: emulated, or this machine's real one
    (both tasks of the in-process cluster then share it)."""
    yield from _two_workers(1)


def test_workers_with_a_gpu_each_train_as_tensorflows_do(one_gpu_each) -> None:
    def client(strategy, server, rank):
        assert strategy.extended.worker_devices == (
            f"/job:worker/replica:0/task:{rank}/device:GPU:0",)
        return _linear_regression(strategy, server, rank)

    # TF's two-worker CPU values; a real GPU's float32 sums may round differently.
    results = _on_every_worker(*one_gpu_each, client)
    for rank in (0, 1):
        np.testing.assert_allclose(results[rank]["w"], TF_W, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(results[rank]["b"], TF_B, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(results[rank]["losses"], TF_LOSSES[rank], rtol=1e-6,
                                   atol=1e-6)


# TF 2.21, two workers as above but with learning rate 0.2: the variables after three
# steps and the mean losses.
TF_W_RATE_02 = [[-2.0338046550750732], [1.0441913604736328]]
TF_B_RATE_02 = -0.6466094255447388
TF_MEAN_LOSSES_RATE_02 = [6.25, 3.4875874519348145, 7.041667938232422]


def test_workers_with_two_gpus_each_train_four_replicas(two_gpus_each) -> None:
    def client(strategy, server, rank):
        assert strategy.extended.worker_devices == tuple(
            f"/job:worker/replica:0/task:{rank}/device:GPU:{i}" for i in range(2))
        assert strategy.num_replicas_in_sync == 4
        return _linear_regression(strategy, server, rank)

    # Both replicas of a worker read its whole fed batch, so the four replicas' summed
    # gradient is twice the two-worker one: TF's two-worker values at twice the rate, up
    # to the order of the float sums.
    results = _on_every_worker(*two_gpus_each, client)
    for rank in (0, 1):
        np.testing.assert_allclose(results[rank]["w"], TF_W_RATE_02, rtol=1e-6)
        np.testing.assert_allclose(results[rank]["b"], TF_B_RATE_02, rtol=1e-6)
        np.testing.assert_allclose([step[1] for step in results[rank]["losses"]],
                                   TF_MEAN_LOSSES_RATE_02, rtol=1e-6)
