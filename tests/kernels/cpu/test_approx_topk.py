"""ApproxTopK (core/ops/approx_topk_ops.py, kernels/cpu/approx_topk.py) and tf.approx_top_k
with its gradient (core/api/approx_topk_api.py) against TensorFlow 2.21's CPU values,
shape errors and gradients, recorded in tf.compat.v1 graph mode with the same inputs, and
against a numpy sort. These tests need no TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tfx as tf
from tfx.core.api.approx_topk_api import approx_top_k

X = np.array([[3, 1, 4, 1, 5, 9, 2, 6], [5, 3, 5, 8, 9, 7, 9, 3],
              [-1, -2, -3, -4, 0, 0, 0, 0]], np.float32)
TOP3 = ([[9, 6, 5], [9, 9, 8], [0, 0, 0]], [[5, 7, 4], [4, 6, 3], [4, 5, 6]])


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(t):
    with tf.Session() as sess:
        out = sess.run(t)
    return [v.tolist() for v in out] if isinstance(out, list) else out.tolist()


def test_values_match_tensorflow():
    assert _run(approx_top_k(X, 3)) == [*TOP3]
    # the accelerator-only attrs leave the CPU result exact
    assert _run(approx_top_k(X, 3, aggregate_to_topk=False)) == [*TOP3]
    assert _run(approx_top_k(X, 3, recall_target=0.5,
                             reduction_input_size_override=100)) == [*TOP3]
    assert _run(approx_top_k(X, 8)) == [
        [[9, 6, 5, 4, 3, 2, 1, 1], [9, 9, 8, 7, 5, 5, 3, 3], [0, 0, 0, 0, -1, -2, -3, -4]],
        [[5, 7, 4, 2, 0, 6, 1, 3], [4, 6, 3, 5, 0, 2, 1, 7], [4, 5, 6, 7, 0, 1, 2, 3]]]
    assert _run(approx_top_k(X, 0)) == [[[], [], []], [[], [], []]]
    assert _run(approx_top_k(X[0], 3)) == [[9, 6, 5], [5, 7, 4]]
    assert _run(approx_top_k(X.reshape(3, 2, 4), 2)) == [
        [[[4, 3], [9, 6]], [[8, 5], [9, 9]], [[-1, -2], [0, 0]]],
        [[[2, 0], [1, 3]], [[3, 0], [0, 2]], [[0, 1], [0, 1]]]]
    assert _run(approx_top_k(np.zeros([0, 4], np.float32), 2)) == [[], []]


def test_nan_signed_zero_and_half_types_match_tensorflow():
    values, indices = _run(approx_top_k(
        np.array([1, np.nan, 3, np.inf, -np.inf, 2], np.float32), 3))
    assert np.isnan(values[0]) and values[1:] == [np.inf, 3] and indices == [1, 3, 2]
    zeros = np.array([0.0, -0.0, 0.0, -0.0], np.float32)
    values, indices = _run(approx_top_k(zeros, 2))
    assert indices == [0, 1] and [np.signbit(v) for v in values] == [False, True]
    half = approx_top_k(X.astype(np.float16), 2)
    assert half[0].dtype == tf.float16 and half[1].dtype == tf.int32
    assert _run(half) == [[[9, 6], [9, 9], [0, 0]], [[5, 7], [4, 6], [4, 5]]]
    assert _run(approx_top_k(tf.cast(X, tf.bfloat16), 2)[0]) == [[9, 6], [9, 9], [0, 0]]


def test_min_k_and_other_dimensions_are_exact():
    # TensorFlow 2.21 has no CPU kernel for these (XLA only); tfx computes them exactly.
    assert _run(approx_top_k(X, 3, is_max_k=False)) == [
        [[1, 1, 2], [3, 3, 5], [-4, -3, -2]], [[1, 3, 6], [1, 7, 0], [3, 2, 1]]]
    assert _run(approx_top_k(X, 2, reduction_dimension=0)) == [
        [[5, 3, 5, 8, 9, 9, 9, 6], [3, 1, 4, 1, 5, 7, 2, 3]],
        [[1, 1, 1, 1, 1, 0, 1, 0], [0, 0, 0, 0, 0, 1, 0, 1]]]


def test_static_shapes_and_names_match_tensorflow():
    values, indices = approx_top_k(X, 3)
    assert values.shape.as_list() == [3, 3] and indices.shape.as_list() == [3, 3]
    assert indices.dtype == tf.int32
    assert approx_top_k(X, 2, reduction_dimension=0)[0].shape.as_list() == [2, 8]
    assert approx_top_k(tf.placeholder(tf.float32, [None, 8]), 3)[0].shape.as_list() == [
        None, 3]
    assert values.name == "ApproxTopK:0"
    assert approx_top_k(X, 3, name="foo")[1].name == "foo:1"


@pytest.mark.parametrize("kwargs, message", [
    ({"k": 9}, "input must have last dimension >= k = 9 but was 8"),
    ({"k": 2, "reduction_dimension": 2},
     "Invalid reduction dimension: 2. Must be within the range of [-2, 1]"),
    ({"k": 2, "reduction_dimension": -3},
     "Invalid reduction dimension: -3. Must be within the range of [-2, 1]"),
    ({"k": 2, "recall_target": 0.0},
     "Invalid recall target: 0. Valid value range in : [0, 1.0]."),
    ({"k": 2, "recall_target": 1.5},
     "Invalid recall target: 1.5. Valid value range in : [0, 1.0]."),
])
def test_shape_errors_match_tensorflow(kwargs, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        approx_top_k(X, **kwargs)
    assert message in str(info.value)


def test_bad_types_and_ranks_are_rejected():
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least rank 1 but is rank 0"):
        approx_top_k(np.float32(3), 1)
    with pytest.raises(TypeError):
        approx_top_k(X.astype(np.float64), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="below the minimum 0"):
        approx_top_k(X, -1)


def test_run_time_checks_for_unknown_shapes():
    ph = tf.placeholder(tf.float32)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="last dimension >= k = 9 but was 8"):
        sess.run(approx_top_k(ph, 9), {ph: X})


def test_gradient_matches_tensorflow():
    x = tf.constant(X)
    values, _ = approx_top_k(x, 3)
    grad = tf.gradients(values, x, grad_ys=np.arange(9, dtype=np.float32).reshape(3, 3) + 1)[0]
    assert _run(grad) == [[0, 0, 0, 0, 3, 1, 0, 2], [0, 0, 0, 6, 4, 0, 5, 0],
                          [0, 0, 0, 0, 7, 8, 9, 0]]
    x3 = tf.constant(X.reshape(3, 2, 4))
    values, _ = approx_top_k(x3, 2)
    weights = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 2, 2))
    assert _run(tf.gradients(values * weights, x3)[0]) == [
        [[1, 0, 0, 0], [0, 2, 0, 3]], [[5, 0, 0, 4], [6, 0, 7, 0]],
        [[8, 9, 0, 0], [10, 11, 0, 0]]]
    assert "ScatterNd" in {op.type for op in tf.get_default_graph().get_operations()}


def test_gradient_along_a_leading_dimension():
    x = tf.constant(X)
    values, _ = approx_top_k(x, 2, reduction_dimension=0, is_max_k=False)
    grad = tf.gradients(values, x, grad_ys=np.arange(16, dtype=np.float32).reshape(2, 8) + 1)
    want = np.zeros((3, 8), np.float32)
    # smallest two per column: rows (2, 0) except where row 0 ties below row 1
    order = np.argsort(X, axis=0, kind="stable")[:2]
    for r in range(2):
        want[order[r], np.arange(8)] += np.arange(8) + 1 + 8 * r
    assert _run(grad[0]) == want.tolist()


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                  elements=st.integers(-4, 4).map(float)),
       st.data(), st.booleans())
def test_matches_a_stable_numpy_sort(x, data, largest):
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    k = data.draw(st.integers(0, x.shape[dim]))
    with tf.Graph().as_default():
        values, indices = _run(approx_top_k(x, k, reduction_dimension=dim, is_max_k=largest))
    order = np.argsort(-x if largest else x, axis=dim, kind="stable")
    want_idx = np.take(order, np.arange(k), axis=dim)
    assert indices == want_idx.tolist()
    assert values == np.take_along_axis(x, want_idx, axis=dim).tolist()
