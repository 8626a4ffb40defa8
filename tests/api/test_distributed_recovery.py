"""Failure handling on a cluster: a ps task restarts, the training session recovers from its
checkpoint (TensorFlow's MonitoredTrainingSession over a master, user-level fault tolerance)."""

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
