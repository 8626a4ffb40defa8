"""Random ops: seeded RandomUniform / RandomStandardNormal / TruncatedNormal."""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf


@pytest.mark.parametrize("make, check", [
    (lambda seed: tf.random_uniform([2000], -2.0, 3.0, seed=seed),
     lambda v: v.min() >= -2 and v.max() < 3 and abs(v.mean() - 0.5) < 0.1),
    (lambda seed: tf.random_normal([4000], 1.0, 2.0, seed=seed),
     lambda v: abs(v.mean() - 1) < 0.15 and abs(v.std() - 2) < 0.15),
    (lambda seed: tf.truncated_normal([4000], 0.0, 1.0, seed=seed),
     lambda v: np.abs(v).max() <= 2 and abs(v.std() - 0.88) < 0.05),
    (lambda seed: tf.random_uniform([2000], 0, 10, dtype=tf.int32, seed=seed),
     lambda v: v.dtype == np.int32 and v.min() == 0 and v.max() == 9),
])
def test_distribution_and_seeds(make, check) -> None:
    t = make(7)
    same = make(7)
    unseeded = make(None)
    with tf.Session() as s:
        first, second = s.run(t), s.run(t)
        assert check(first)
        assert not np.array_equal(first, second)  # the stream continues across steps
        other = s.run(unseeded)
        np.testing.assert_array_equal(s.run(same), first)  # same seed, same numbers
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(t), first)  # a new session repeats a seeded op
        assert not np.array_equal(s.run(unseeded), other)


def test_graph_seed_makes_ops_deterministic(graph: tf.Graph) -> None:
    tf.set_random_seed(3)
    a = tf.random_normal([5])
    b = tf.random_normal([5])
    ra, rb = (t.op.inputs[0].op.inputs[0].op for t in (a, b))  # mean + stddev * sample
    assert ra.type == "RandomStandardNormal"
    assert ra.get_attr("seed") == 3 and ra.get_attr("seed2") != rb.get_attr("seed2")
    with tf.Session() as s:
        va, vb = s.run([a, b])
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(a), va)
    assert not np.array_equal(va, vb)


def test_random_ops_have_tensorflow_types_and_static_shapes(graph: tf.Graph) -> None:
    n = tf.placeholder(tf.int32, [])
    u = tf.random_uniform(tf.stack([n, 3]))
    assert tf.random_uniform([2, 3]).shape.as_list() == [2, 3]
    types = {op.type for op in graph.get_operations()}
    assert "RandomUniform" in types
    tf.random_normal([2, 3])
    tf.truncated_normal([2])
    tf.random_uniform([2], 0, 5, dtype=tf.int64)
    types = {op.type for op in graph.get_operations()} - types
    assert {"RandomStandardNormal", "TruncatedNormal", "RandomUniformInt"} <= types
    with tf.Session() as s:
        assert s.run(u, {n: 4}).shape == (4, 3)
