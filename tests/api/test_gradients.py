"""Every gradient function against central finite differences (float64).

Each case builds y = f(x1, x2, ...) from placeholders, takes the gradient of
sum(y * r) for a fixed random r (so every output element's gradient counts),
and compares it with (L(x + eps) - L(x - eps)) / 2eps element by element.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api import math_api as M
from tfx.core.api.session_api import IndexedSlicesValue

EPS = 1e-6


def _dense(value) -> np.ndarray:
    if isinstance(value, IndexedSlicesValue):
        out = np.zeros(tuple(value.dense_shape), value.values.dtype)
        np.add.at(out, value.indices, value.values)
        return out
    return np.asarray(value)


def check_gradients(fn: Callable, *values: np.ndarray, rtol: float = 1e-5,
                    atol: float = 1e-6) -> None:
    xs = [tf.placeholder(tf.float64, v.shape) for v in values]
    y = fn(*xs)
    r = np.random.default_rng(1).standard_normal(
        [d for d in y.shape.as_list()]).astype(np.float64) if y.shape.ndims else np.float64(1.3)
    loss = tf.reduce_sum(y * r)
    grads = tf.gradients(loss, xs)
    feed = dict(zip(xs, values))
    with tf.Session() as s:
        symbolic = s.run([g for g in grads if g is not None], feed)
        it = iter(symbolic)
        symbolic = [None if g is None else _dense(next(it)) for g in grads]
        for i, (x, v) in enumerate(zip(xs, values)):
            numeric = np.zeros_like(v)
            for idx in np.ndindex(v.shape):
                plus, minus = v.copy(), v.copy()
                plus[idx] += EPS
                minus[idx] -= EPS
                up = s.run(loss, {**feed, x: plus})
                down = s.run(loss, {**feed, x: minus})
                numeric[idx] = (up - down) / (2 * EPS)
            got = np.zeros_like(v) if symbolic[i] is None else symbolic[i]
            np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol,
                                       err_msg=f"gradient of input {i}")


rng = np.random.default_rng(0)
A23 = rng.standard_normal((2, 3))
B23 = rng.standard_normal((2, 3))
B34 = rng.standard_normal((3, 4))
POS23 = rng.uniform(0.5, 2.0, (2, 3))
# Well away from the kinks of relu, max, abs, and distinct for max/min.
APART = np.array([[-1.3, 0.4, 2.1], [0.7, -0.6, 1.5]])

CASES = {
    "add_broadcast": (lambda a, b: a + b[0], A23, B23),
    "sub": (lambda a, b: a - b, A23, B23),
    "mul_broadcast": (lambda a, b: a * tf.reshape(b, [2, 3, 1])[:, :, 0], A23, B23),
    "div": (lambda a, b: a / b, A23, POS23),
    "pow": (lambda a, b: a**b, POS23, B23),
    "squared_difference": (lambda a, b: tf.squared_difference(a, b), A23, B23),
    "maximum": (lambda a, b: tf.maximum(a, b), APART, B23),
    "minimum": (lambda a, b: tf.minimum(a, b), APART, B23),
    "matmul": (lambda a, b: tf.matmul(a, b), A23, B34),
    "matmul_transposed": (lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
                          B34.T[:3, :2].copy(), B34.T.copy()),
    "exp": (tf.exp, A23),
    "log": (tf.log, POS23),
    "sqrt": (tf.sqrt, POS23),
    "rsqrt": (tf.rsqrt, POS23),
    "square": (tf.square, A23),
    "abs": (tf.abs, APART),
    "neg": (lambda a: -a, A23),
    "tanh": (tf.tanh, A23),
    "sigmoid": (tf.sigmoid, A23),
    "sin_cos": (lambda a: tf.sin(a) * tf.cos(a), A23),
    "reduce_sum_axis": (lambda a: tf.reduce_sum(a, axis=1), A23),
    "reduce_mean_keepdims": (lambda a: tf.reduce_mean(a, axis=0, keepdims=True), A23),
    "reduce_max": (lambda a: tf.reduce_max(a, axis=1), APART),
    "reduce_prod": (lambda a: tf.reduce_prod(a, axis=0), POS23),
    "reduce_logsumexp": (lambda a: tf.reduce_logsumexp(a, axis=1), A23),
    "cumsum": (lambda a: tf.cumsum(a, axis=1), A23),
    "clip_by_value": (lambda a: tf.clip_by_value(a, -0.5, 1.0), APART),
    "reshape_transpose": (lambda a: tf.transpose(tf.reshape(a, [3, 2])), A23),
    "concat_stack": (lambda a, b: tf.stack([tf.concat([a, b], 1), tf.concat([b, a], 1)]),
                     A23, B23),
    "unstack": (lambda a: tf.unstack(a)[1] * 2.0, A23),
    "slice": (lambda a: a[:, 1:], A23),
    "strided_slice": (lambda a: a[::-1, ::2], A23),
    "tile_pad": (lambda a: tf.pad(tf.tile(a, [1, 2]), [[1, 0], [0, 2]]), A23),
    "expand_squeeze": (lambda a: tf.squeeze(tf.expand_dims(a, 0) * 2.0), A23),
    "gather": (lambda a: tf.gather(a, [1, 0, 1]), A23),
    "gather_axis1": (lambda a: tf.gather(a, [2, 0], axis=1), A23),
    "where": (lambda a, b: tf.where(a > 0, a, b), APART, B23),
    "dynamic_partition_stitch": (
        lambda a: tf.dynamic_stitch(
            [tf.constant([1, 3]), tf.constant([0, 2, 4, 5])],
            tf.dynamic_partition(tf.reshape(a, [6]), tf.constant([0, 1, 1, 0, 1, 1]), 2)),
        A23),
    "relu": (tf.nn.relu, APART),
    "relu6": (lambda a: tf.nn.relu6(a * 3.0), APART),
    "elu": (tf.nn.elu, APART),
    "softplus": (tf.nn.softplus, A23),
    "softmax": (tf.nn.softmax, A23),
    "log_softmax": (tf.nn.log_softmax, A23),
    "bias_add": (lambda a, b: tf.nn.bias_add(a, b[0]), A23, B23),
    "l2_loss": (tf.nn.l2_loss, A23),
    "softmax_xent": (lambda a: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.constant([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], tf.float64), logits=a), A23),
    "sparse_softmax_xent": (lambda a: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([2, 0]), logits=a), A23),
    "sigmoid_xent": (lambda a: tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.constant(np.full((2, 3), 0.3)), logits=a), A23),
    "add_n": (lambda a, b: tf.add_n([a, b, a]), A23, B23),
    "batch_matmul": (lambda a, b: tf.matmul(tf.reshape(a, [2, 1, 3]), tf.reshape(b, [2, 3, 1])),
                     A23, B23),
    "broadcast_to": (lambda a: tf.broadcast_to(a[0], [2, 3]), A23),
    "cast": (lambda a: tf.cast(a, tf.float64) * a, A23),
    "div_no_nan": (lambda a, b: M.div_no_nan(a, b), A23, POS23),
    "erf_expm1_log1p": (lambda a: M.erf(a) + M.expm1(a) + M.log1p(a * a), A23),
    "reciprocal_sign": (lambda a: M.reciprocal(a) + tf.sign(a) * a, POS23),
    "fill": (lambda a: tf.fill([2, 2], tf.reduce_sum(a)), A23),
    "floormod": (lambda a, b: M.floormod(a, b), POS23 * 2.0, np.full((2, 3), 0.7)),
    "gather_nd": (lambda a: tf.gather_nd(a, [[1, 2], [0, 0], [1, 2]]), A23),
    "scatter_nd": (lambda a: tf.scatter_nd([[3], [0]], a, [4, 3]), A23),
    "reverse": (lambda a: tf.reverse(a, [1]), A23),
    "split": (lambda a: tf.split(a, 3, axis=1)[1] * 2.0 + tf.split(a, [1, 2], axis=1)[1][:, :1],
              A23),
    "reduce_min": (lambda a: tf.reduce_min(a, axis=0), APART),
    "leaky_relu": (lambda a: tf.nn.leaky_relu(a, 0.1), APART),
    "selu": (tf.nn.selu, APART),
    "softsign": (tf.nn.softsign, A23),
    "top_k": (lambda a: tf.nn.top_k(a, 2)[0], APART),
    "mirror_pad": (lambda a: tf.pad(a, [[1, 1], [2, 0]], mode="REFLECT"), A23),
    "embedding_lookup_sharded": (
        lambda p0, p1: tf.nn.embedding_lookup([p0, p1], tf.constant([3, 0, 1, 3])), A23, B23),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name: str) -> None:
    fn, *values = CASES[name]
    check_gradients(fn, *values)


IMAGE = rng.standard_normal((1, 5, 5, 2))
FILTER = rng.standard_normal((3, 3, 2, 2)) * 0.5


@pytest.mark.parametrize("name, fn, values", [
    ("conv2d_same", lambda x, f: tf.nn.conv2d(x, f, [1, 2, 2, 1], "SAME"), (IMAGE, FILTER)),
    ("conv2d_valid", lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID"), (IMAGE, FILTER)),
    ("depthwise", lambda x, f: tf.nn.depthwise_conv2d(x, f[:, :, :, :1], [1, 1, 1, 1], "SAME"),
     (IMAGE, FILTER)),
    ("max_pool", lambda x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), (IMAGE,)),
    ("avg_pool", lambda x: tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"), (IMAGE,)),
])
def test_nn_gradients_match_finite_differences(name: str, fn, values) -> None:
    check_gradients(fn, *values, rtol=1e-4, atol=1e-5)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=6, max_size=6),
       st.sampled_from(["tanh_matmul", "softmax_sum", "sigmoid_mul"]))
def test_composed_gradients_hypothesis(entries: list[float], kind: str) -> None:
    with tf.Graph().as_default():
        a = np.array(entries).reshape(2, 3)
        fn = {
            "tanh_matmul": lambda x: tf.tanh(tf.matmul(x, tf.constant(B34))),
            "softmax_sum": lambda x: tf.nn.softmax(x) * tf.reduce_sum(x),
            "sigmoid_mul": lambda x: tf.sigmoid(x) * x * x,
        }[kind]
        check_gradients(fn, a, rtol=1e-4, atol=1e-5)


def test_gather_gradient_is_sparse() -> None:
    params = tf.Variable(np.arange(12.0).reshape(4, 3))
    loss = tf.reduce_sum(tf.gather(params, [3, 1]) * 2.0)
    (grad,) = tf.gradients(loss, params)
    assert isinstance(grad, tf.IndexedSlices)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        value = s.run(grad)
    assert sorted(value.indices.tolist()) == [1, 3] and value.values.shape == (2, 3)


def test_unconnected_gradient_is_none_and_paths_sum() -> None:
    x = tf.placeholder(tf.float64, [])
    z = tf.placeholder(tf.float64, [])
    y = x * x + 3.0 * x
    assert tf.gradients(y, z) == [None]
    (dx,) = tf.gradients(y, x)
    dx2 = tf.gradients(y, x, grad_ys=tf.constant(2.0, tf.float64))[0]
    with tf.Session() as s:
        assert s.run([dx, dx2], {x: 2.0}) == [7.0, 14.0]


def test_stop_gradient_blocks() -> None:
    x = tf.placeholder(tf.float64, [])
    y = tf.stop_gradient(x * x) + x
    (dx,) = tf.gradients(y, x)
    with tf.Session() as s:
        assert s.run(dx, {x: 3.0}) == 1.0


def _rnn(x: tf.Tensor, w: tf.Tensor, steps: int) -> tf.Tensor:
    """h <- tanh(h @ w + x[t]) for t < steps, as a while loop reading x by the counter."""
    def body(t: tf.Tensor, h: tf.Tensor) -> tuple:
        row = tf.gather(x, t)
        return t + 1, tf.tanh(tf.matmul(h, w) + row)

    h0 = tf.zeros([1, 3], tf.float64)
    return tf.while_loop(lambda t, h: t < steps, body, [tf.constant(0), h0])[1]


@pytest.mark.parametrize("name, fn, values", [
    ("power", lambda x, w: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x + w),
                                         [0, x])[1], (np.array(1.5), np.array(0.7))),
    ("rnn", lambda x, w: _rnn(x, w, 4), (rng.standard_normal((4, 1, 3)),
                                         rng.standard_normal((3, 3)) * 0.5)),
    ("two_loop_vars", lambda a: tf.add_n(tf.while_loop(
        lambda i, p, q: i < 2, lambda i, p, q: (i + 1, p * q, p + tf.sin(q)), [0, a, a * 2.0])[1:]),
     (A23,)),
    ("cond_in_loop", lambda a: tf.while_loop(
        lambda i, v: i < 4,
        lambda i, v: (i + 1, tf.cond(tf.equal(i % 2, 0), lambda: v * a, lambda: v + a)),
        [0, a])[1], (A23,)),
    ("maximum_iterations", lambda a: tf.while_loop(lambda v: tf.reduce_sum(v) < 1e9,
                                                   lambda v: v * a, [a], maximum_iterations=3),
     (POS23,)),
])
def test_while_loop_gradients_match_finite_differences(name: str, fn, values) -> None:
    check_gradients(fn, *values, rtol=1e-4, atol=1e-6)


def _nested(x: tf.Tensor, a: tf.Tensor) -> tf.Tensor:
    """v <- v * x, i + 1 times in the inner loop of outer iteration i; then + a * v."""
    def outer(i: tf.Tensor, v: tf.Tensor) -> tuple:
        _, w = tf.while_loop(lambda j, w: j < i + 1, lambda j, w: (j + 1, w * x + a), [0, v])
        return i + 1, tf.sin(w)

    return tf.while_loop(lambda i, v: i < 3, outer, [0, x])[1]


def test_nested_while_loop_gradients_match_finite_differences() -> None:
    check_gradients(_nested, np.array(0.8), np.array(0.3), rtol=1e-4, atol=1e-6)


def test_while_loop_gradient_with_zero_iterations() -> None:
    x = tf.placeholder(tf.float64, [])
    n = tf.placeholder(tf.int32, [])
    v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * x), [0, x])[1]
    (dx,) = tf.gradients(v, x)
    with tf.Session() as s:
        assert s.run(dx, {x: 3.0, n: 0}) == 1.0
        assert s.run(dx, {x: 3.0, n: 2}) == pytest.approx(27.0)  # d(x^3)/dx


def test_while_loop_trains_a_variable() -> None:
    w = tf.Variable(0.5, dtype=tf.float64)
    out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * w), [0, tf.constant(
        2.0, tf.float64)])[1]
    loss = tf.square(out - 16.0)  # 2 * w^3 = 16 at w = 2
    train = tf.train.GradientDescentOptimizer(0.001).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(500):
            s.run(train)
        assert s.run(w) == pytest.approx(2.0, abs=1e-3)
