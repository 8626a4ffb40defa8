"""Gradients of the segment reductions and the tf.math.segment_* / unsorted_segment_* API,
against TensorFlow 2.21's values (tf.compat.v1 graph mode, tf.gradients of
reduce_sum(y * W) on the same inputs), and against finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf

D = np.array([[1.0, -2.0], [5.0, 0.0], [5.0, 3.0], [0.0, 0.0], [2.0, 4.0], [-1.0, 7.0]],
             np.float32)
IDS = np.array([0, 0, 0, 2, 2, 3], np.int32)
UIDS = np.array([2, -1, 2, 0, 0, 2], np.int32)
W = np.arange(8, dtype=np.float32).reshape(4, 2) + 1
SQRT_W = [[2.886751413345337, 3.464101791381836], [0.7071067690849304, 1.4142135381698608]]

# fmt: off
TF_GRADS = {
    "segment_sum": [[1, 2], [1, 2], [1, 2], [5, 6], [5, 6], [7, 8]],
    "segment_mean": [[1 / 3, 2 / 3]] * 3 + [[2.5, 3], [2.5, 3], [7, 8]],
    "segment_max": [[0, 0], [0.5, 0], [0.5, 2], [0, 0], [5, 6], [7, 8]],
    "segment_min": [[1, 2], [0, 0], [0, 0], [5, 6], [0, 0], [7, 8]],
    "segment_prod": [[25, 0], [5, -12], [5, 0], [10, 24], [0, 0], [7, 8]],
    "unsorted_segment_sum": [[5, 6], [0, 0], [5, 6], [1, 2], [1, 2], [5, 6]],
    "unsorted_segment_max": [[0, 0], [0, 0], [5, 0], [0, 0], [1, 2], [0, 6]],
    "unsorted_segment_min": [[0, 6], [0, 0], [0, 0], [1, 2], [0, 0], [5, 0]],
    "unsorted_segment_prod": [[-25, 126], [0, 0], [-5, -84], [2, 8], [0, 0], [25, -36]],
    "unsorted_segment_mean": [[5 / 3, 2], [0, 0], [5 / 3, 2], [0.5, 1], [0.5, 1], [5 / 3, 2]],
    "unsorted_segment_sqrt_n": [SQRT_W[0], [0, 0], SQRT_W[0], SQRT_W[1], SQRT_W[1], SQRT_W[0]],
}
# fmt: on


def _apply(name, x):
    fn = getattr(tf.math, name)
    return fn(x, UIDS, 4) if name.startswith("unsorted") else fn(x, IDS)


@pytest.mark.parametrize("name", sorted(TF_GRADS))
def test_gradients_match_tensorflow(name):
    x = tf.constant(D)
    (grad,) = tf.gradients(tf.reduce_sum(_apply(name, x) * W), [x])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(grad), TF_GRADS[name], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(TF_GRADS))
def test_gradients_match_finite_differences(name):
    rng = np.random.default_rng(0)
    value = rng.uniform(0.5, 2.0, D.shape)  # distinct, nonzero: every op is smooth here
    weights = rng.uniform(-1, 1, W.shape)
    weights[[1, 3]] = 0  # the unsorted ops' empty segments hold +-1.8e308: no differences
    x = tf.placeholder(tf.float64, D.shape)
    y = tf.reduce_sum(_apply(name, x) * weights)
    (grad,) = tf.gradients(y, [x])
    eps = 1e-6
    with tf.Session() as sess:
        analytic = sess.run(grad, {x: value})
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            plus, minus = value.copy(), value.copy()
            plus[index] += eps
            minus[index] -= eps
            numeric[index] = (sess.run(y, {x: plus}) - sess.run(y, {x: minus})) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_top_level_and_math_names_are_the_same_functions():
    for name in TF_GRADS:
        assert getattr(tf, name) is getattr(tf.math, name)


def test_unsorted_segment_mean_of_integers_is_float64():
    # TensorFlow 2.21: [2.5, 0, 0, 4, 0] as float64.
    data = np.array([1, 5, 2, 7, 3], np.int32)
    out = tf.unsorted_segment_mean(data, np.array([3, -1, 0, 3, 0], np.int32), 5)
    with tf.Session() as sess:
        value = sess.run(out)
    assert value.dtype == np.float64
    np.testing.assert_array_equal(value, [2.5, 0, 0, 4, 0])
