"""Queues and the Saver built with the API."""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf


def test_fifo_queue_enqueue_many_dequeue() -> None:
    q = tf.FIFOQueue(10, [tf.float32, tf.int32], shapes=[[2], []])
    enqueue = q.enqueue_many([np.arange(8, dtype=np.float32).reshape(4, 2),
                              np.arange(4, dtype=np.int32)])
    x, y = q.dequeue_many(2)
    one = q.dequeue()
    assert x.shape.as_list() == [2, 2] and one[0].shape.as_list() == [2]
    with tf.Session() as s:
        s.run(enqueue)
        assert s.run(q.size()) == 4
        got_x, got_y = s.run([x, y])
        assert got_x.tolist() == [[0, 1], [2, 3]] and got_y.tolist() == [0, 1]
        assert s.run(one)[1] == 2


def test_named_components_and_close() -> None:
    q = tf.FIFOQueue(4, [tf.float32, tf.int32], shapes=[[], []], names=["a", "b"])
    enqueue = q.enqueue({"a": 1.5, "b": 2})
    out = q.dequeue()
    with tf.Session() as s:
        s.run(enqueue)
        s.run(q.close())
        assert s.run(out) == {"a": 1.5, "b": 2}
        with pytest.raises(tf.OutOfRangeError):
            s.run(out)


def test_random_shuffle_queue_gives_every_element() -> None:
    q = tf.RandomShuffleQueue(10, 0, [tf.int32], shapes=[[]], seed=3)
    enqueue = q.enqueue_many([np.arange(6, dtype=np.int32)])
    with tf.Session() as s:
        s.run(enqueue)
        assert sorted(s.run(q.dequeue_many(6)).tolist()) == list(range(6))


def test_saver_round_trip(tmp_path) -> None:
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    step = tf.train.get_or_create_global_step()
    saver = tf.train.Saver()
    graph = tf.get_default_graph()
    names = {op.name for op in graph.get_operations()}
    assert {"save/Const", "save/SaveV2", "save/control_dependency", "save/restore_all"} <= names
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(tf.assign_add(step, 41))
        path = saver.save(s, str(tmp_path / "ckpt" / "model"), global_step=step)
        assert path.endswith("model-41")
        s.run(tf.assign(w, tf.zeros([2, 3])))
        saver.restore(s, path)
        assert s.run(w).tolist() == [[0, 1, 2], [3, 4, 5]] and s.run(step) == 41


def test_saver_records_the_latest_checkpoint_and_keeps_max_to_keep(tmp_path) -> None:
    w = tf.Variable(np.zeros(3, np.float32), name="w")
    saver = tf.train.Saver(max_to_keep=2)
    directory = tmp_path / "run"
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for step in range(1, 5):
            s.run(tf.assign(w, np.full(3, step, np.float32)))
            saver.save(s, str(directory / "model"), global_step=step)
        latest = tf.train.latest_checkpoint(str(directory))
        assert latest == str(directory / "model-4")
        assert sorted(p.name for p in directory.glob("*.index")) == [
            "model-3.index", "model-4.index"]
        state = (directory / "checkpoint").read_text()
        assert 'model_checkpoint_path: "model-4"' in state and "model-2" not in state
        s.run(tf.assign(w, np.zeros(3, np.float32)))
        saver.restore(s, latest)
        assert s.run(w).tolist() == [4.0, 4.0, 4.0]
        saver.save(s, str(directory / "side"), write_state=False)
        assert tf.train.latest_checkpoint(str(directory)) == latest
    assert tf.train.latest_checkpoint(str(tmp_path / "empty")) is None


def test_saver_checkpoint_reads_in_tensorflow(tmp_path, tensorflow_run) -> None:
    w = tf.Variable(np.full((2, 2), 7.0, np.float32), name="w")
    saver = tf.train.Saver()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        path = saver.save(s, str(tmp_path / "model"))
    # TensorFlow restores our checkpoint through our own graph's restore ops.
    graph = tf.get_default_graph()
    (value,) = tensorflow_run(graph.as_graph_def(), [w.name], {"save/Const:0": np.array(path)},
                              ["save/restore_all"])
    assert value.tolist() == [[7.0, 7.0], [7.0, 7.0]]
