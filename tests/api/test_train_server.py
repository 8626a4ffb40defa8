"""`tf.train.Server`, `tf.distribute.Server` and `tf.test.create_local_cluster` as
TensorFlow 1.x scripts use them: a cluster spec, a server per task, sessions on a target."""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf

pytestmark = pytest.mark.distributed


def test_the_api_names_are_the_runtimes() -> None:
    from tfx.core.distributed.server import Server, create_local_cluster

    assert tf.train.Server is tf.distribute.Server is tf.compat.v1.train.Server is Server
    assert tf.test.create_local_cluster is create_local_cluster


def test_a_server_from_a_cluster_spec_keeps_tensorflows_server_def() -> None:
    cluster = tf.train.ClusterSpec({"ps": ["localhost:0"], "worker": ["localhost:0"]})
    config = tf.ConfigProto(allow_soft_placement=True)
    server = tf.train.Server(cluster, job_name="ps", task_index=0, config=config)
    try:
        assert server.server_def.job_name == "ps" and server.server_def.task_index == 0
        assert server.server_def.protocol == "grpc"
        assert server.server_def.default_session_config.allow_soft_placement
        port = server.target.rsplit(":", 1)[1]
        assert int(port) > 0  # port 0 became the port bound, in the target and the def
        ps_address = tf.train.ClusterSpec(server.server_def.cluster).task_address("ps", 0)
        assert ps_address == f"localhost:{port}"
    finally:
        server.stop(0)


def test_between_graph_replication_on_a_local_cluster() -> None:
    workers, ps = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    try:
        results = []
        for index, worker in enumerate(workers):
            with tf.Graph().as_default():
                with tf.device(tf.train.replica_device_setter(
                        worker_device=f"/job:worker/task:{index}",
                        cluster=tf.train.ClusterSpec({"ps": ["ps0:1"],
                                                      "worker": ["w0:1", "w1:1"]}))):
                    counter = tf.get_variable("counter", [], initializer=tf.zeros_initializer())
                    bump = counter.assign_add(float(index + 1))
                with tf.Session(worker.target) as sess:
                    if index == 0:
                        sess.run(counter.initializer)
                    results.append(sess.run(bump))
        # Both workers' graphs share the ps task's variable, as in TensorFlow: 0+1, then +2.
        np.testing.assert_array_equal(results, [1.0, 3.0])
    finally:
        for server in workers + ps:
            server.stop(0)


def test_isolated_sessions_keep_their_variables_and_reset_clears_shared_ones() -> None:
    server = tf.train.Server.create_local_server()
    try:
        def bump(config=None) -> float:
            with tf.Graph().as_default():
                v = tf.Variable(10.0, name="shared")
                with tf.Session(server.target, config=config) as sess:
                    if not sess.run(tf.is_variable_initialized(v)):
                        sess.run(v.initializer)
                    return float(sess.run(v.assign_add(1.0)))

        assert bump() == 11.0
        assert bump() == 12.0  # the server kept the variable between sessions
        assert bump(tf.ConfigProto(isolate_session_state=True)) == 11.0
        tf.Session.reset(server.target, ["other"])
        assert bump() == 13.0  # only the named container was cleared
        tf.Session.reset(server.target)
        assert bump() == 11.0  # Reset without containers clears them all
        with tf.Graph().as_default():
            with tf.Session(server.target) as sess:
                (device,) = sess.list_devices()
        assert device.name == "/job:localhost/replica:0/task:0/device:CPU:0"
        assert device.device_type == "CPU"
    finally:
        server.stop(0)
