"""tf.compat.v1.distribute.experimental.ParameterServerStrategy on local clusters, against
TensorFlow 2.21 (tests/data/parameter_server_strategy/generate.py ran the same model on
tf.distribute.Servers; its values, devices and errors are in tf_values.json)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tfx as tf

pytestmark = pytest.mark.distributed

TF = json.loads((Path(__file__).resolve().parents[1] / "data" / "parameter_server_strategy"
                 / "tf_values.json").read_text())
X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [-2.0, 1.0]], np.float32)
Y = np.array([[1.0], [2.0], [0.5], [-1.0]], np.float32)


@pytest.fixture()
def cluster():
    """(cluster spec, worker servers) of a local cluster of 2 workers and 2 ps tasks."""
    workers, ps = tf.test.create_local_cluster(num_workers=2, num_ps=2)
    spec = tf.train.ClusterSpec({"worker": [w.target[len("grpc://"):] for w in workers],
                                 "ps": [p.target[len("grpc://"):] for p in ps]})
    yield spec, workers
    for server in workers + ps:
        server.stop(0)


def strategy_for(spec: tf.train.ClusterSpec, task_id: int, **kwargs):
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        spec, task_type="worker", task_id=task_id, **kwargs)
    return tf.distribute.experimental.ParameterServerStrategy(resolver)


def build(strategy, optimizer, run=None, batch=2, reduce="SUM"):
    """generate.py's model: y = x w + b, mean squared error, trained in the replica fn."""
    with strategy.scope():
        w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer([[0.5], [-1.0]]))
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        step = tf.train.get_or_create_global_step()
        dataset = tf.data.Dataset.from_tensor_slices((X, Y)).batch(batch).repeat()
        iterator = strategy.make_dataset_iterator(dataset)
        x, y = iterator.get_next()

        def train_step(x, y):
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            train = optimizer().minimize(loss, global_step=step)
            with tf.control_dependencies([train]):
                return tf.identity(loss)

        run = run or strategy.extended.call_for_each_replica
        loss = run(train_step, args=(x, y))
        total = strategy.reduce(reduce, loss, axis=None)
    return w, b, step, iterator, loss, total


def test_the_names() -> None:
    from tfx.core.api.distribute_parameter_server_api import ParameterServerStrategy

    assert tf.distribute.experimental.ParameterServerStrategy is ParameterServerStrategy
    assert tf.compat.v1.distribute.experimental.ParameterServerStrategy is (
        ParameterServerStrategy)


def test_one_worker_trains_on_the_ps_tasks_as_tensorflow(cluster) -> None:
    spec, workers = cluster
    expected = TF["one_worker"]
    strategy = strategy_for(spec, 0)
    extended = strategy.extended
    assert strategy.num_replicas_in_sync == expected["num_replicas_in_sync"]
    assert list(extended.parameter_devices) == expected["parameter_devices"]
    assert list(extended.worker_devices) == expected["worker_devices"]
    assert [extended.experimental_between_graph, extended.experimental_should_init,
            extended.should_checkpoint, extended.should_save_summary] == [
        expected["between_graph"], expected["should_init"], expected["should_checkpoint"],
        expected["should_save_summary"]]
    config = strategy.update_config_proto(tf.ConfigProto())
    assert list(config.device_filters) == expected["device_filters"]
    assert config.isolate_session_state == expected["isolate_session_state"]
    with tf.Graph().as_default() as graph:
        w, b, step, iterator, loss, total = build(
            strategy, lambda: tf.train.GradientDescentOptimizer(0.05))
        with strategy.scope():
            in_scope = tf.constant(1.0, name="in_scope")
        assert [w.device, b.device, step.device] == expected["variable_devices"]
        assert loss.device == expected["loss_device"]
        assert total.device == expected["total_device"]
        assert in_scope.device == expected["in_scope_device"]
        ops = {op.name: (op.type, op.device) for op in graph.get_operations()}
        for name, op_type, device in expected["op_devices"]:
            if op_type in ("MatMul", "IteratorGetNext", "VarHandleOp",
                           "ResourceApplyGradientDescent", "AssignVariableOp"):
                assert ops[name] == (op_type, device), name
        with tf.Session(workers[0].target) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(iterator.initializer)
            losses = [float(sess.run(total)) for _ in range(3)]
            w_value, b_value, step_value = sess.run([w, b, step])
    np.testing.assert_allclose(losses, expected["losses"], rtol=1e-6)
    np.testing.assert_allclose(w_value, expected["w"], rtol=1e-6)
    np.testing.assert_allclose(b_value, expected["b"], rtol=1e-6)
    assert step_value == expected["step"]


def test_two_workers_share_the_ps_variables_with_adam(cluster) -> None:
    spec, workers = cluster
    expected = TF["two_workers"]
    sessions = []
    for task in range(2):
        strategy = strategy_for(spec, task)
        assert strategy.extended.experimental_should_init == expected["should_init"][task]
        graph = tf.Graph()
        with graph.as_default():
            w, b, step, iterator, _, total = build(strategy,
                                                    lambda: tf.train.AdamOptimizer(0.1))
            init = tf.global_variables_initializer()
            start = iterator.initializer
        ops = {op.name: (op.type, op.device) for op in graph.get_operations()}
        # The slots sit with their variables, Adam's powers with the first variable by
        # name ("b"), as in TensorFlow's graph.
        for name, op_type, device in expected["op_devices"][task]:
            if op_type in ("VarHandleOp", "ResourceApplyAdam"):
                assert ops[name] == (op_type, device), name
        sess = tf.Session(workers[task].target, graph=graph)
        if task == 0:
            sess.run(init)
        sess.run(start)
        sessions.append((sess, w, b, step, total))
    try:
        losses = [float(sessions[turn % 2][0].run(sessions[turn % 2][4]))
                  for turn in range(4)]
        sess, w, b, step, _ = sessions[1]
        w_value, b_value, step_value = sess.run([w, b, step])
    finally:
        for s in sessions:
            s[0].close()
    np.testing.assert_allclose(losses, expected["losses"], rtol=1e-6)
    np.testing.assert_allclose(w_value, expected["w"], rtol=1e-6)
    np.testing.assert_allclose(b_value, expected["b"], rtol=1e-6)
    assert step_value == expected["step"]


def test_two_replicas_per_worker_sum_their_gradients_on_the_worker(cluster) -> None:
    # A resolver reporting 2 GPUs gives 2 replicas; the session places them softly on
    # the worker's CPU (no GPUs here, nor in generate.py's TensorFlow run).
    spec, workers = cluster
    expected = TF["two_replicas"]
    strategy = strategy_for(spec, 0, num_accelerators={"GPU": 2})
    assert strategy.num_replicas_in_sync == expected["num_replicas_in_sync"]
    assert list(strategy.extended.worker_devices) == expected["worker_devices"]
    with tf.Graph().as_default() as graph:
        w, b, step, iterator, loss, total = build(
            strategy, lambda: tf.train.MomentumOptimizer(0.05, 0.9), batch=4, reduce="MEAN")
        assert type(w).__name__ == expected["variable_type"]
        assert [[v.name, v.device] for v in loss.values] == expected["loss"]
        ops = {op.name: (op.type, op.device) for op in graph.get_operations()}
        for name, op_type, device in expected["op_devices"]:
            if op_type in ("AddN", "VarHandleOp", "ResourceApplyMomentum"):
                assert ops[name] == (op_type, device), name
        config = tf.ConfigProto(allow_soft_placement=True)
        with tf.Session(workers[0].target, config=config) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(iterator.initializer)
            losses = [float(sess.run(total)) for _ in range(3)]
            w_value, b_value, step_value = sess.run([w, b, step])
    np.testing.assert_allclose(losses, expected["losses"], rtol=1e-6)
    np.testing.assert_allclose(w_value, expected["w"], rtol=1e-6)
    np.testing.assert_allclose(b_value, expected["b"], rtol=1e-6)
    assert step_value == expected["step"]


def test_run_and_dataset_distribution_return_none_as_tensorflow(cluster) -> None:
    # TensorFlow 2.21's run, experimental_distribute_dataset and
    # (experimental_)distribute_datasets_from_function of this class build what they build
    # and drop the result (recorded), and so do experimental_run(_v2), which call run.
    spec, workers = cluster
    errors = TF["errors"]
    assert errors["run_and_distribute_datasets_return_none"] == [True, True, True]
    assert errors["experimental_run_and_old_name_return_none"] == [True, True, True]
    strategy = strategy_for(spec, 0)
    with tf.Graph().as_default() as graph:
        with strategy.scope():
            dataset = tf.data.Dataset.range(4).batch(2)
            seen = []
            assert strategy.run(lambda: tf.constant(1.0, name="built_by_run")) is None
            assert strategy.experimental_run(lambda x: x * 2,
                                             strategy.make_dataset_iterator(dataset)) is None
            assert strategy.experimental_run_v2(lambda: tf.constant(2.0)) is None
            assert strategy.experimental_distribute_dataset(dataset) is None
            assert strategy.distribute_datasets_from_function(
                lambda context: seen.append(context) or dataset) is None
            assert strategy.experimental_distribute_datasets_from_function(
                lambda context: seen.append(context) or dataset) is None
        # What run built is in the graph, on the worker's replica device.
        built = graph.get_operation_by_name("built_by_run")
        assert built.device == "/job:worker/replica:0/task:0/device:CPU:0"
        assert len(seen) == 2
    # The step that run builds still trains when fetched through the graph: the loss of
    # call_for_each_replica's step equals TensorFlow's.
    with tf.Graph().as_default():
        w, b, step, iterator, loss, total = build(
            strategy, lambda: tf.train.GradientDescentOptimizer(0.05))
        with tf.Session(workers[0].target) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(iterator.initializer)
            losses = [float(sess.run(loss)) for _ in range(3)]
    np.testing.assert_allclose(losses, TF["one_worker"]["losses"], rtol=1e-6)


def test_reduce_over_an_axis_fails_as_tensorflow(cluster) -> None:
    # reduce with an axis reduces run's result, which this class's run drops.
    spec, _ = cluster
    errors = TF["errors"]
    assert errors["reduce_sum_no_axis"] is None
    strategy = strategy_for(spec, 0)
    with tf.Graph().as_default(), strategy.scope():
        value = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        for op, key in (("SUM", "reduce_sum_axis"), ("MEAN", "reduce_mean_axis")):
            error = {"ValueError": ValueError, "TypeError": TypeError}[errors[key][0]]
            with pytest.raises(error) as info:
                strategy.reduce(op, value, axis=0)
            assert [type(info.value).__name__, str(info.value)] == errors[key]
        assert isinstance(strategy.reduce("SUM", value, axis=None), tf.Tensor)


def test_errors_are_tensorflows() -> None:
    errors = TF["errors"]
    no_ps = tf.train.ClusterSpec({"worker": ["localhost:1"]})
    both = tf.train.ClusterSpec({"worker": ["localhost:1", "localhost:2"],
                                 "ps": ["localhost:3"]})
    with pytest.raises(ValueError) as info:
        strategy_for(no_ps, 0)
    assert [type(info.value).__name__, str(info.value)] == errors["no_ps"]
    with pytest.raises(ValueError) as info:
        tf.distribute.experimental.ParameterServerStrategy(
            tf.distribute.cluster_resolver.SimpleClusterResolver(both))
    assert [type(info.value).__name__, str(info.value)] == errors["no_task"]
    strategy = strategy_for(both, 0)
    with tf.Graph().as_default(), strategy.scope():
        with pytest.raises(ValueError) as info:
            strategy.extended.reduce_to("SUM", tf.constant(1.0), "/job:worker/task:1")
        assert [type(info.value).__name__, str(info.value)] == errors["reduce_to_other_worker"]
        with pytest.raises(ValueError, match=r"^You can not update `var` .*Const.* It must "
                                             r"be a Variable\.$"):
            strategy.extended.update(tf.constant(1.0), lambda v: v)
    assert errors["update_tensor"][1].startswith("You can not update `var` <tf.Tensor 'Const")


def test_without_a_cluster_it_is_local(monkeypatch) -> None:
    monkeypatch.delenv("TF_CONFIG", raising=False)
    expected = TF["local"]
    strategy = tf.distribute.experimental.ParameterServerStrategy()
    assert list(strategy.extended.parameter_devices) == expected["parameter_devices"]
    assert list(strategy.extended.worker_devices) == expected["worker_devices"]
    config = strategy.update_config_proto(tf.ConfigProto())
    assert config.isolate_session_state == expected["isolate_session_state"]
    with tf.Graph().as_default():
        with strategy.scope():
            v = tf.Variable(1.0, name="v")
            doubled = strategy.extended.call_for_each_replica(lambda: v * 2.0)
        assert v.device == expected["variable_device"]
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(doubled) == 2.0


def test_a_local_strategy_with_a_gpu_trains_there_from_the_hosts_dataset(
        gpu_cupy, monkeypatch) -> None:
    """One GPU (emulated, or a real one): the replica and its variables are on it, the
    iterator on the CPU (a regression: the iterator went to the GPU, which has
    no dataset kernels). The losses are TF's one-worker values."""
    from tfx.core.api import config_api

    monkeypatch.delenv("TF_CONFIG", raising=False)
    # The process's devices as this test's CuPy sees them (they are read once, as TF's).
    monkeypatch.setattr(config_api, "_CONTEXT", config_api._Context())
    strategy = tf.distribute.experimental.ParameterServerStrategy()
    assert strategy.extended.worker_devices == ("/replica:0/task:0/device:GPU:0",)
    with tf.Graph().as_default() as graph:
        w, b, step, iterator, loss, total = build(
            strategy, lambda: tf.train.GradientDescentOptimizer(0.05))
        devices = {op.type: op.device for op in graph.get_operations()}
        assert [d for t, d in devices.items() if t.startswith("Iterator")] and all(
            d.endswith("CPU:0") for t, d in devices.items() if t.startswith("Iterator"))
        assert devices["MatMul"].endswith("GPU:0") and w.device.endswith("GPU:0")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(iterator.initializer)
            losses = [float(sess.run(total)) for _ in range(3)]
    np.testing.assert_allclose(losses, TF["one_worker"]["losses"], rtol=1e-6, atol=1e-6)


def test_configure_turns_a_local_strategy_into_a_worker() -> None:
    strategy = tf.distribute.experimental.ParameterServerStrategy(
        tf.distribute.cluster_resolver.SimpleClusterResolver(tf.train.ClusterSpec({})))
    config = tf.ConfigProto()
    strategy.configure(config, cluster_spec={"worker": ["a:1", "b:1"], "ps": ["c:1"]},
                       task_type="worker", task_id=1)
    assert strategy.extended.worker_devices == ("/job:worker/replica:0/task:1/device:CPU:0",)
    assert strategy.extended.parameter_devices == ("/job:ps/task:0",)
    assert not strategy.extended.experimental_should_init
    assert list(config.device_filters) == ["/job:worker/task:1", "/job:ps"]
    assert not config.isolate_session_state


def test_input_pipelines_and_the_chief_with_a_chief_job() -> None:
    expected = TF["input_contexts"]
    spec = tf.train.ClusterSpec({"chief": ["localhost:9"], "worker": ["localhost:1",
                                                                      "localhost:4"],
                                 "ps": ["localhost:2", "localhost:3"]})
    for task_type, task_id in (("worker", 1), ("chief", 0)):
        strategy = tf.distribute.experimental.ParameterServerStrategy(
            tf.distribute.cluster_resolver.SimpleClusterResolver(
                spec, task_type=task_type, task_id=task_id))
        seen = []

        def input_fn(context, seen=seen):
            seen.append([context.num_input_pipelines, context.input_pipeline_id,
                         context.num_replicas_in_sync])
            return tf.data.Dataset.range(6).shard(context.num_input_pipelines,
                                                  context.input_pipeline_id)

        with tf.Graph().as_default(), strategy.scope():
            strategy.make_input_fn_iterator(input_fn)
            strategy.distribute_datasets_from_function(input_fn)
        assert seen == [expected[task_type]["context"]] * 2
        assert strategy.extended.experimental_should_init == (
            expected[task_type]["should_init"])
    for kwargs, key in (({"task_type": "worker", "task_id": 5}, "bad_task_id"),
                        ({"task_type": "foo", "task_id": 0}, "bad_task_type")):
        with pytest.raises(ValueError) as info:
            tf.distribute.experimental.ParameterServerStrategy(
                tf.distribute.cluster_resolver.SimpleClusterResolver(spec, **kwargs))
        assert str(info.value) == expected[key]


def test_an_evaluator_has_its_own_input_pipeline_and_is_chief() -> None:
    expected = TF["input_contexts"]["evaluator"]
    spec = tf.train.ClusterSpec({"evaluator": ["localhost:9"], "worker": ["localhost:1"],
                                 "ps": ["localhost:2"]})
    strategy = tf.distribute.experimental.ParameterServerStrategy(
        tf.distribute.cluster_resolver.SimpleClusterResolver(spec, task_type="evaluator",
                                                             task_id=0))
    seen = []

    def input_fn(context):
        seen.append([context.num_input_pipelines, context.input_pipeline_id,
                     context.num_replicas_in_sync])
        return tf.data.Dataset.range(3)

    with tf.Graph().as_default(), strategy.scope():
        strategy.make_input_fn_iterator(input_fn)
        v = tf.Variable(1.0)
    config = strategy.update_config_proto(tf.ConfigProto())
    assert {"context": seen[0], "should_init": strategy.extended.experimental_should_init,
            "worker_devices": list(strategy.extended.worker_devices),
            "variable_device": v.device,
            "device_filters": list(config.device_filters)} == expected
