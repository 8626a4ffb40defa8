"""Training on a cluster with TensorFlow's training loop: MonitoredTrainingSession over a
master with SyncReplicasOptimizer, and failure handling: a ps task restarts and the training
session recovers from its checkpoint (user-level fault tolerance)."""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf

pytestmark = pytest.mark.distributed


def test_a_restarted_ps_task_is_recovered_from_the_last_checkpoint(tmp_path) -> None:
    workers, ps = tf.test.create_local_cluster(num_workers=1, num_ps=1)
    cluster = tf.train.ClusterSpec(ps[0].server_def.cluster)
    try:
        with tf.Graph().as_default():
            with tf.device(tf.train.replica_device_setter(ps_tasks=1, cluster=cluster)):
                step = tf.train.get_or_create_global_step()
                w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
                train = tf.group(w.assign_add(1.0), step.assign_add(1))
            hooks = [tf.train.CheckpointSaverHook(str(tmp_path), save_steps=3)]
            with tf.train.MonitoredTrainingSession(master=workers[0].target, is_chief=True,
                                                   checkpoint_dir=str(tmp_path),
                                                   save_checkpoint_secs=None,
                                                   chief_only_hooks=hooks) as sess:
                for _ in range(4):
                    sess.run(train)
                assert sess.run([w, step]) == [np.float32(4.0), 4]
                # The ps task dies and comes back empty on the same port.
                ps[0].stop(0)
                ps[0] = tf.train.Server(cluster, job_name="ps", task_index=0)
                # The next step meets the new task, which does not know the session: the
                # monitored session starts a new one and restores the last checkpoint (step 3).
                sess.run(train)
                assert sess.run([w, step]) == [np.float32(4.0), 4]
    finally:
        for server in workers + ps:
            server.stop(0)


def test_sync_replicas_training_on_a_ps_task_matches_plain_descent() -> None:
    workers, ps = tf.test.create_local_cluster(num_workers=1, num_ps=1)
    cluster = tf.train.ClusterSpec(ps[0].server_def.cluster)
    try:
        with tf.Graph().as_default():
            with tf.device(tf.train.replica_device_setter(ps_tasks=1, cluster=cluster)):
                step = tf.train.get_or_create_global_step()
                w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
                loss = tf.square(w * 2.0 - 2.0)
                opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                                     replicas_to_aggregate=1)
                train = opt.minimize(loss, global_step=step)
            hooks = [opt.make_session_run_hook(True), tf.train.StopAtStepHook(last_step=3)]
            with tf.train.MonitoredTrainingSession(master=workers[0].target, is_chief=True,
                                                   hooks=hooks,
                                                   stop_grace_period_secs=2) as sess:
                while not sess.should_stop():
                    sess.run(train)
            # The variables live on the ps task, past the training session.
            with tf.Session(workers[0].target) as plain:
                got = plain.run([w, step])
        # w <- w - 0.1 * 4 * (2w - 2), three times from 0: 0.8, 0.96, 0.992.
        np.testing.assert_allclose(got[0], 0.992, rtol=1e-6)
        assert got[1] == 3
    finally:
        for server in workers + ps:
            server.stop(0)
