"""Optimizers: one step against the update rule in numpy, sparse rows, slots, training."""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf

W0 = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], np.float32)


def _quadratic() -> tuple:
    W = tf.Variable(W0, name="W")
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.constant(X), W)))
    grad = 2 * X.T @ (X @ W0)
    return W, loss, grad


def _steps(opt: tf.train.Optimizer, steps: int = 2) -> tuple:
    W, loss, grad = _quadratic()
    train = opt.minimize(loss)
    values = []
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(steps):
            s.run(train)
            values.append(s.run(W))
    return values, grad


def _grad(w: np.ndarray) -> np.ndarray:
    return 2 * X.T @ (X @ w)


def test_gradient_descent_step() -> None:
    (w1, _), g = _steps(tf.train.GradientDescentOptimizer(0.01))
    np.testing.assert_allclose(w1, W0 - 0.01 * g, rtol=1e-5)


def test_momentum_steps() -> None:
    (w1, w2), g = _steps(tf.train.MomentumOptimizer(0.01, 0.9))
    accum = g
    want1 = W0 - 0.01 * accum
    accum = 0.9 * accum + _grad(want1)
    np.testing.assert_allclose(w1, want1, rtol=1e-5)
    np.testing.assert_allclose(w2, want1 - 0.01 * accum, rtol=1e-5)


def test_adagrad_step() -> None:
    (w1, _), g = _steps(tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.1))
    np.testing.assert_allclose(w1, W0 - 0.1 * g / np.sqrt(0.1 + g * g), rtol=1e-5)


def test_rmsprop_step() -> None:
    (w1, _), g = _steps(tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5, epsilon=1e-10))
    ms = 0.9 * 1.0 + 0.1 * g * g
    np.testing.assert_allclose(w1, W0 - 0.01 * g / np.sqrt(ms + 1e-10), rtol=1e-5)


def test_centered_rmsprop_steps() -> None:
    (w1, w2), g = _steps(tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5,
                                                   epsilon=1e-10, centered=True))
    ms, mg, mom, w = np.ones_like(W0), np.zeros_like(W0), np.zeros_like(W0), W0.copy()
    for want, grad in ((w1, g), (w2, None)):
        grad = _grad(w) if grad is None else grad
        ms = 0.9 * ms + 0.1 * grad * grad
        mg = 0.9 * mg + 0.1 * grad
        mom = 0.5 * mom + 0.01 * grad / np.sqrt(ms - mg * mg + 1e-10)
        w = w - mom
        np.testing.assert_allclose(want, w, rtol=1e-5)
    assert "ApplyCenteredRMSProp" in {op.type for op in tf.get_default_graph().get_operations()}


def test_adam_steps_and_beta_powers(graph: tf.Graph) -> None:
    (w1, w2), g = _steps(tf.train.AdamOptimizer(0.1))
    m, v, w = np.zeros_like(W0), np.zeros_like(W0), W0.copy()
    for t, grad in ((1, g), (2, None)):
        grad = _grad(w) if grad is None else grad
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        lr = 0.1 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        w = w - lr * m / (np.sqrt(v) + 1e-8)
        np.testing.assert_allclose((w1, w2)[t - 1], w, rtol=1e-4)
    names = {op.name for op in graph.get_operations()}
    assert {"W/Adam", "W/Adam_1", "beta1_power", "beta2_power"} <= names


def test_adadelta_step() -> None:
    (w1, _), g = _steps(tf.train.AdadeltaOptimizer(1.0, rho=0.95, epsilon=1e-6))
    accum = 0.05 * g * g
    update = np.sqrt(1e-6) / np.sqrt(accum + 1e-6) * g
    np.testing.assert_allclose(w1, W0 - update, rtol=1e-4)


def test_minimize_increments_global_step_and_names_slots() -> None:
    W, loss, _ = _quadratic()
    step = tf.train.get_or_create_global_step()
    opt = tf.train.MomentumOptimizer(0.01, 0.9)
    train = opt.minimize(loss, global_step=step)
    assert opt.get_slot(W, "momentum").name == "W/Momentum:0"
    assert opt.get_slot_names() == ["momentum"]
    assert not opt.get_slot(W, "momentum").trainable
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(train)
        assert s.run(step) == 3


def test_compute_and_apply_gradients_with_clipping() -> None:
    W, loss, g = _quadratic()
    opt = tf.train.GradientDescentOptimizer(1.0)
    grads_and_vars = opt.compute_gradients(loss)
    clipped, norm = tf.clip_by_global_norm([g_ for g_, _ in grads_and_vars], 1.0)
    train = opt.apply_gradients(zip(clipped, [v for _, v in grads_and_vars]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(norm) == pytest.approx(np.linalg.norm(g), rel=1e-5)
        s.run(train)
        np.testing.assert_allclose(s.run(W), W0 - g / np.linalg.norm(g), rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda: tf.train.GradientDescentOptimizer(0.5),
    lambda: tf.train.MomentumOptimizer(0.5, 0.9),
    lambda: tf.train.AdagradOptimizer(0.5),
    lambda: tf.train.RMSPropOptimizer(0.5),
    lambda: tf.train.RMSPropOptimizer(0.5, centered=True),
    lambda: tf.train.AdadeltaOptimizer(0.5),
])
def test_sparse_updates_touch_only_gathered_rows(make) -> None:
    table = tf.Variable(np.ones((6, 2), np.float32), name="table")
    rows = tf.nn.embedding_lookup(table, tf.constant([4, 1, 4]))
    loss = tf.reduce_sum(rows * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    train = make().minimize(loss)
    ops = {op.type for op in tf.get_default_graph().get_operations()}
    assert ops & {"ScatterSub", "SparseApplyMomentum", "SparseApplyAdagrad",
                  "SparseApplyRMSProp", "SparseApplyCenteredRMSProp", "SparseApplyAdadelta"}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        after = s.run(table)
    untouched = [0, 2, 3, 5]
    np.testing.assert_array_equal(after[untouched], np.ones((4, 2)))
    assert (after[[1, 4]] < 1).all()


def test_no_gradients_is_an_error() -> None:
    tf.Variable(1.0)
    unrelated = tf.placeholder(tf.float32, [])
    with pytest.raises(ValueError, match="no gradients"):
        tf.train.GradientDescentOptimizer(0.1).minimize(unrelated * 2.0)


def test_softmax_regression_reaches_a_loss_target() -> None:
    rng = np.random.default_rng(0)
    centers = rng.standard_normal((3, 4)) * 3
    labels = rng.integers(0, 3, 300)
    features = (centers[labels] + rng.standard_normal((300, 4))).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.int32, [None])
    W = tf.Variable(tf.truncated_normal([4, 3], stddev=0.1, seed=1))
    b = tf.Variable(tf.zeros([3]))
    logits = tf.matmul(x, W) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y),
                                      tf.float32))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        first = s.run(loss, {x: features, y: labels})
        for _ in range(150):
            s.run(train, {x: features, y: labels})
        last, acc = s.run([loss, accuracy], {x: features, y: labels})
    assert first > 0.9 and last < 0.2 and acc > 0.95


def test_training_graph_matches_tensorflow(graph: tf.Graph, tensorflow_run) -> None:
    W, loss, _ = _quadratic()
    train = tf.train.AdamOptimizer(0.1).minimize(loss, name="train")
    init = tf.global_variables_initializer()
    with tf.Session() as s:
        s.run(init)
        s.run(train)
        ours = s.run(W)
    (theirs,) = tensorflow_run(graph.as_graph_def(), ["W:0"], targets=[init.name, "train"])
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    lambda: tf.train.AdagradOptimizer(0.1),
    lambda: tf.train.AdamOptimizer(0.1),
])
def test_resource_variables_train_with_mixed_sparse_and_dense_gradients(make) -> None:
    w = tf.Variable(np.ones((3, 2), np.float32), use_resource=True, name="w")
    loss = tf.reduce_sum(tf.square(tf.gather(w, [0, 2]))) + tf.reduce_sum(w)
    train = make().minimize(loss)
    assert any(op.type.startswith("ResourceApply") for op in
               tf.get_default_graph().get_operations())
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        before = s.run(loss)
        s.run(train)
        assert s.run(loss) < before


def test_dropout_keeps_the_expectation() -> None:
    kept = tf.nn.dropout(tf.ones([4000]), keep_prob=0.5, seed=1)
    with tf.Session() as s:
        value = s.run(kept)
    assert set(np.unique(value).tolist()) == {0.0, 2.0}
    assert abs(value.mean() - 1.0) < 0.1
