"""CPU nn kernels against numpy references written here: activations, softmax and the
cross-entropy losses, BiasAdd, FusedBatchNorm, LRN and InTopK; every gradient kernel against
central finite differences of its forward kernel; and the error cases.

Inputs are made read-only so a kernel that writes into its input fails loudly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from kernel_checks import numeric_grad, run, run1

from tfx.core.errors import InvalidArgumentError

FAST = settings(max_examples=30, deadline=None)
SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def away_from(x: np.ndarray, kinks: tuple[float, ...], margin: float = 0.05) -> np.ndarray:
    """x with every value within `margin` of a kink pushed out, so differences stay smooth."""
    x = x.copy()
    for k in kinks:
        near = np.abs(x - k) < margin
        x[near] = k + np.where(x[near] >= k, margin, -margin) * 2
    return x


# --- activations -----------------------------------------------------------------------


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


ACTIVATIONS = {
    "Relu": lambda x: np.maximum(x, 0),
    "Relu6": lambda x: np.minimum(np.maximum(x, 0), 6),
    "Elu": lambda x: np.where(x < 0, np.exp(x) - 1, x),
    "Selu": lambda x: SELU_SCALE * np.where(x < 0, SELU_ALPHA * (np.exp(x) - 1), x),
    "LeakyRelu": lambda x: np.where(x > 0, x, 0.2 * x),
    "Softplus": lambda x: np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0),
    "Softsign": lambda x: x / (1 + np.abs(x)),
    "Sigmoid": sigmoid,
    "Tanh": np.tanh,
}


@FAST
@given(x=hnp.arrays(np.float64, hnp.array_shapes(max_dims=3, max_side=4),
                    elements=st.floats(-8, 8)),
       op=st.sampled_from(sorted(ACTIVATIONS)))
def test_activation_matches_reference(x, op):
    got = run1(op, x)
    assert got.dtype == np.float64 and got.shape == x.shape
    np.testing.assert_allclose(got, ACTIVATIONS[op](x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("op", sorted(ACTIVATIONS))
def test_activation_float32_keeps_dtype(op):
    x = np.linspace(-7, 7, 15).astype(np.float32)
    got = run1(op, x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ACTIVATIONS[op](x.astype(np.float64)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", sorted(ACTIVATIONS))
def test_activation_float16_keeps_dtype(op):
    x = np.linspace(-7, 7, 15).astype(np.float16)
    got = run1(op, x)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, ACTIVATIONS[op](x.astype(np.float64)), rtol=2e-3,
                               atol=2e-3)


def test_documented_activation_values():
    x = np.array([-10.0, -1.0, 0.0, 3.0, 6.0, 7.5, np.nan])
    np.testing.assert_array_equal(run1("Relu6", x), [0, 0, 0, 3, 6, 6, np.nan])
    np.testing.assert_array_equal(run1("Relu", x), [0, 0, 0, 3, 6, 7.5, np.nan])
    # SELU's constants (Klambauer et al.), as TensorFlow hard-codes them.
    np.testing.assert_allclose(run1("Selu", np.array([1.0, -1.0])),
                               [1.0507009873554805, 1.0507009873554805 * 1.6732632423543772
                                * (np.exp(-1) - 1)])
    np.testing.assert_allclose(run1("Selu", np.array([-50.0])), [-1.7580993408473766])
    # LeakyRelu's default alpha is 0.2; alpha > 1 is allowed and still means `x if x > 0`.
    np.testing.assert_allclose(run1("LeakyRelu", np.array([-2.0, 3.0])), [-0.4, 3.0])
    np.testing.assert_allclose(run1("LeakyRelu", np.array([-2.0, 3.0]), alpha=0.01),
                               [-0.02, 3.0])
    np.testing.assert_allclose(run1("LeakyRelu", np.array([-2.0, 3.0]), alpha=2.0),
                               [-4.0, 3.0])
    np.testing.assert_allclose(run1("Elu", np.array([-1e3, 0.0, 2.0])), [-1, 0, 2])


def test_relu_integers_and_softplus_extremes():
    x = np.array([-5, 0, 7, 9], np.int32)
    assert run1("Relu", x).tolist() == [0, 0, 7, 9]
    assert run1("Relu6", x).tolist() == [0, 0, 6, 6]
    big = run1("Softplus", np.array([-50.0, 100.0, 1000.0], np.float32))
    np.testing.assert_allclose(big, [np.exp(-50.0), 100.0, 1000.0], rtol=1e-6)
    assert np.isfinite(big).all()


# --- activation gradients --------------------------------------------------------------

# (gradient op, forward op, attrs, whether the gradient takes the forward's output, kinks).
# SigmoidGrad and TanhGrad (math kernels) take (y, dy), the others (gradients, x or y).
GRADS = [
    ("ReluGrad", "Relu", {}, False, (0.0,)),
    ("Relu6Grad", "Relu6", {}, False, (0.0, 6.0)),
    ("EluGrad", "Elu", {}, True, (0.0,)),
    ("SeluGrad", "Selu", {}, True, (0.0,)),
    ("LeakyReluGrad", "LeakyRelu", {"alpha": 0.3}, False, (0.0,)),
    ("SoftplusGrad", "Softplus", {}, False, ()),
    ("SoftsignGrad", "Softsign", {}, False, ()),
    ("SigmoidGrad", "Sigmoid", {}, True, ()),
    ("TanhGrad", "Tanh", {}, True, ()),
]


@pytest.mark.parametrize("grad_op,fwd,attrs,from_output,kinks", GRADS,
                         ids=[g[0] for g in GRADS])
def test_activation_grad_matches_finite_differences(grad_op, fwd, attrs, from_output, kinks):
    rng = np.random.default_rng(1)
    x = away_from(rng.uniform(-8, 8, (3, 5)), kinks)
    g = rng.normal(size=x.shape)
    y = run1(fwd, x, **attrs)
    if grad_op in ("SigmoidGrad", "TanhGrad"):
        got = run1(grad_op, y, g)
    else:
        got = run1(grad_op, g, y if from_output else x, **attrs)
    want = numeric_grad(lambda v: run1(fwd, v, **attrs), x, g, 1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_activation_grads_at_the_kinks_follow_tensorflow():
    x = np.array([-1.0, 0.0, 6.0, 7.0])
    g = np.ones(4)
    # The subgradient TensorFlow picks: 0 at x == 0, and Relu6's gradient is 0 at x == 6.
    assert run1("ReluGrad", g, x).tolist() == [0, 0, 1, 1]
    assert run1("Relu6Grad", g, x).tolist() == [0, 0, 0, 0]
    assert run1("LeakyReluGrad", g, x).tolist() == [0.2, 0.2, 1, 1]


@pytest.mark.parametrize("op", ["ReluGrad", "EluGrad", "SoftplusGrad", "LeakyReluGrad"])
def test_activation_grad_shape_mismatch(op):
    with pytest.raises(InvalidArgumentError, match="same shape"):
        run(op, np.ones((2, 3)), np.ones((3, 2)))


# --- softmax and losses ----------------------------------------------------------------


def log_softmax_ref(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@FAST
@given(x=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                    elements=st.floats(-30, 30)))
def test_softmax_and_log_softmax(x):
    np.testing.assert_allclose(run1("LogSoftmax", x), log_softmax_ref(x), rtol=1e-12,
                               atol=1e-12)
    got = run1("Softmax", x)
    np.testing.assert_allclose(got, np.exp(log_softmax_ref(x)), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got.sum(axis=-1), 1.0, rtol=1e-12)


def test_softmax_is_stable_for_huge_logits():
    x = np.array([[1000.0, 1000.0, -1000.0]], np.float32)
    np.testing.assert_allclose(run1("Softmax", x), [[0.5, 0.5, 0.0]])
    np.testing.assert_allclose(run1("LogSoftmax", x), [[-np.log(2), -np.log(2), -2000 - np.log(2)]],
                               rtol=1e-6)


def test_softmax_of_a_scalar_is_an_error():
    with pytest.raises(InvalidArgumentError, match="scalar"):
        run("Softmax", np.float32(1.0))


@FAST
@given(batch=st.integers(1, 4), classes=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_softmax_cross_entropy(batch, classes, seed):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(batch, classes)) * 5
    labels = rng.dirichlet(np.ones(classes), size=batch)
    loss, backprop = run("SoftmaxCrossEntropyWithLogits", logits, labels)
    np.testing.assert_allclose(loss, -(labels * log_softmax_ref(logits)).sum(axis=1),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(backprop, np.exp(log_softmax_ref(logits)) - labels, atol=1e-12)


def test_softmax_cross_entropy_backprop_is_the_gradient():
    rng = np.random.default_rng(2)
    logits, labels = rng.normal(size=(3, 4)), rng.dirichlet(np.ones(4), size=3)
    g = rng.normal(size=3)
    _, backprop = run("SoftmaxCrossEntropyWithLogits", logits, labels)
    want = numeric_grad(lambda v: run("SoftmaxCrossEntropyWithLogits", v, labels)[0],
                        logits, g, 1e-6)
    np.testing.assert_allclose(backprop * g[:, None], want, rtol=1e-6, atol=1e-8)


def test_softmax_cross_entropy_broadcasts_labels():
    logits = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    labels = np.array([0.0, 0.0, 1.0])
    loss, backprop = run("SoftmaxCrossEntropyWithLogits", logits, labels)
    np.testing.assert_allclose(loss, -log_softmax_ref(logits)[:, 2])
    assert backprop.shape == (2, 3)


def test_softmax_cross_entropy_errors():
    with pytest.raises(InvalidArgumentError, match="broadcastable"):
        run("SoftmaxCrossEntropyWithLogits", np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(InvalidArgumentError, match="2-dimensional"):
        run("SoftmaxCrossEntropyWithLogits", np.ones((2, 3, 4)), np.ones((2, 3, 4)))


@FAST
@given(batch=st.integers(1, 4), classes=st.integers(1, 5), seed=st.integers(0, 2**16),
       label_type=st.sampled_from([np.int32, np.int64]))
def test_sparse_softmax_cross_entropy(batch, classes, seed, label_type):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(batch, classes)) * 5
    labels = rng.integers(0, classes, batch).astype(label_type)
    loss, backprop = run("SparseSoftmaxCrossEntropyWithLogits", logits, labels)
    onehot = np.eye(classes)[labels]
    np.testing.assert_allclose(loss, -log_softmax_ref(logits)[np.arange(batch), labels],
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(backprop, np.exp(log_softmax_ref(logits)) - onehot, atol=1e-12)


def test_sparse_softmax_cross_entropy_backprop_is_the_gradient():
    rng = np.random.default_rng(3)
    logits, labels = rng.normal(size=(3, 4)), np.array([3, 0, 1], np.int32)
    g = rng.normal(size=3)
    _, backprop = run("SparseSoftmaxCrossEntropyWithLogits", logits, labels)
    want = numeric_grad(lambda v: run("SparseSoftmaxCrossEntropyWithLogits", v, labels)[0],
                        logits, g, 1e-6)
    np.testing.assert_allclose(backprop * g[:, None], want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("label", [-1, 4, 100])
def test_sparse_softmax_cross_entropy_out_of_range_label(label):
    labels = np.array([0, label], np.int64)
    with pytest.raises(InvalidArgumentError, match=rf"label value of {label}.*\[0, 4\)"):
        run("SparseSoftmaxCrossEntropyWithLogits", np.ones((2, 4)), labels)


def test_sparse_softmax_cross_entropy_shape_errors():
    with pytest.raises(InvalidArgumentError, match="logits must be 2-D"):
        run("SparseSoftmaxCrossEntropyWithLogits", np.ones(4), np.zeros((), np.int32))
    with pytest.raises(InvalidArgumentError, match="labels must be 1-D"):
        run("SparseSoftmaxCrossEntropyWithLogits", np.ones((2, 4)), np.zeros((2, 1), np.int32))
    with pytest.raises(InvalidArgumentError, match="same first dimension"):
        run("SparseSoftmaxCrossEntropyWithLogits", np.ones((2, 4)), np.zeros(3, np.int32))


# --- bias ------------------------------------------------------------------------------


@FAST
@given(shape=hnp.array_shapes(min_dims=2, max_dims=5, max_side=4), seed=st.integers(0, 99),
       data_format=st.sampled_from(["NHWC", "NCHW"]))
def test_bias_add(shape, seed, data_format):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    axis = 1 if data_format == "NCHW" else x.ndim - 1
    bias = rng.normal(size=shape[axis])
    view = [1] * x.ndim
    view[axis] = -1
    np.testing.assert_allclose(run1("BiasAdd", x, bias, data_format=data_format),
                               x + bias.reshape(view))
    db = run1("BiasAddGrad", x, data_format=data_format)
    np.testing.assert_allclose(db, x.sum(axis=tuple(a for a in range(x.ndim) if a != axis)))


def test_bias_add_grad_matches_finite_differences():
    rng = np.random.default_rng(4)
    x, bias = rng.normal(size=(2, 3, 2, 2)), rng.normal(size=3)
    g = rng.normal(size=x.shape)
    want = numeric_grad(lambda b: run1("BiasAdd", x, b, data_format="NCHW"), bias, g, 1e-6)
    np.testing.assert_allclose(run1("BiasAddGrad", g, data_format="NCHW"), want, rtol=1e-7)


def test_bias_add_errors():
    with pytest.raises(InvalidArgumentError, match="at least 2D"):
        run("BiasAdd", np.ones(3), np.ones(3))
    with pytest.raises(InvalidArgumentError, match="Biases must be 1D"):
        run("BiasAdd", np.ones((2, 3)), np.ones((1, 3)))
    with pytest.raises(InvalidArgumentError, match="as many biases"):
        run("BiasAdd", np.ones((2, 3)), np.ones(2))
    with pytest.raises(InvalidArgumentError, match="as many biases"):
        run("BiasAdd", np.ones((2, 3, 4, 4)), np.ones(4), data_format="NCHW")
    with pytest.raises(InvalidArgumentError, match="at least 2D"):
        run("BiasAddGrad", np.ones(3))


# --- batch normalization ---------------------------------------------------------------


def bn_training_ref(x, scale, offset, epsilon, axis):
    axes = tuple(a for a in range(x.ndim) if a != axis)
    view = [1] * x.ndim
    view[axis] = -1
    mean = x.mean(axis=axes)
    var = x.var(axis=axes)
    y = (x - mean.reshape(view)) / np.sqrt(var.reshape(view) + epsilon)
    count = x.size // x.shape[axis]
    return y * scale.reshape(view) + offset.reshape(view), mean, var, var * count / (count - 1)


@FAST
@given(shape=hnp.array_shapes(min_dims=4, max_dims=4, min_side=1, max_side=4).filter(
    lambda s: np.prod(s) // s[-1] > 1 and np.prod(s) // s[1] > 1),
    seed=st.integers(0, 99), data_format=st.sampled_from(["NHWC", "NCHW"]),
    op=st.sampled_from(["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"]))
def test_fused_batch_norm_training(shape, seed, data_format, op):
    rng = np.random.default_rng(seed)
    axis = 1 if data_format == "NCHW" else 3
    c = shape[axis]
    x = rng.normal(size=shape).astype(np.float32)
    scale, offset = rng.normal(size=c).astype(np.float32), rng.normal(size=c).astype(np.float32)
    empty = np.zeros(0, np.float32)
    out = run(op, x, scale, offset, empty, empty, epsilon=0.001, data_format=data_format,
              is_training=True)
    assert len(out) == (6 if op.endswith("V3") else 5)
    y, mean, var, unbiased = bn_training_ref(x.astype(np.float64), scale, offset, 0.001, axis)
    np.testing.assert_allclose(out[0], y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out[1], mean, rtol=1e-5, atol=1e-6)  # batch_mean
    np.testing.assert_allclose(out[2], unbiased, rtol=1e-4, atol=1e-6)  # batch_variance
    np.testing.assert_allclose(out[3], mean, rtol=1e-5, atol=1e-6)  # reserve: mean
    np.testing.assert_allclose(out[4], var, rtol=1e-4, atol=1e-6)  # reserve: biased var


def test_fused_batch_norm_running_average():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 3, 3, 2)).astype(np.float32)
    scale, offset = np.ones(2, np.float32), np.zeros(2, np.float32)
    old_mean, old_var = np.array([1.0, -1.0], np.float32), np.array([2.0, 3.0], np.float32)
    out = run("FusedBatchNormV3", x, scale, offset, old_mean, old_var,
              exponential_avg_factor=0.25, is_training=True)
    _, mean, _, unbiased = bn_training_ref(x.astype(np.float64), scale, offset, 1e-4, 3)
    np.testing.assert_allclose(out[1], 0.75 * old_mean + 0.25 * mean, rtol=1e-5)
    np.testing.assert_allclose(out[2], 0.75 * old_var + 0.25 * unbiased, rtol=1e-5)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm_inference(data_format):
    rng = np.random.default_rng(6)
    x = rng.normal(size=(2, 3, 4, 3)).astype(np.float32)
    scale, offset, mean = (rng.normal(size=3).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.5, 2, 3).astype(np.float32)
    out = run("FusedBatchNormV2", x, scale, offset, mean, var, epsilon=0.01,
              data_format=data_format, is_training=False)
    view = (-1, 1, 1) if data_format == "NCHW" else (-1,)
    want = (x - mean.reshape(view)) / np.sqrt(var.reshape(view) + 0.01) * scale.reshape(view)
    np.testing.assert_allclose(out[0], want + offset.reshape(view), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[1], mean)
    np.testing.assert_array_equal(out[2], var)


def test_fused_batch_norm_half_input_keeps_float32_statistics():
    x = np.random.default_rng(10).normal(size=(2, 2, 2, 3))
    ones, zeros = np.ones(3, np.float32), np.zeros(3, np.float32)
    out = run("FusedBatchNormV2", x.astype(np.float16), ones, zeros, zeros, ones)
    want, mean, _, _ = bn_training_ref(x.astype(np.float16).astype(np.float64), ones, zeros,
                                       1e-4, 3)
    assert out[0].dtype == np.float16 and out[1].dtype == np.float32
    np.testing.assert_allclose(out[0], want, rtol=3e-3, atol=3e-3)
    np.testing.assert_allclose(out[1], mean, rtol=1e-5, atol=1e-6)


def test_fused_batch_norm_of_an_empty_batch_has_nan_statistics():
    # Regression: the kernel used np.mean, which warned "Mean of empty slice" (an error
    # under -W error); TensorFlow fills the batch statistics with NaN quietly.
    ones = np.ones(3, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = run("FusedBatchNormV3", np.ones((0, 2, 2, 3), np.float32), ones, ones, ones, ones)
    assert out[0].shape == (0, 2, 2, 3)
    assert np.isnan(out[1]).all() and np.isnan(out[2]).all()


def test_fused_batch_norm_v3_takes_5d():
    x = np.random.default_rng(7).normal(size=(2, 2, 2, 2, 3)).astype(np.float32)
    ones, zeros = np.ones(3, np.float32), np.zeros(3, np.float32)
    y = run("FusedBatchNormV3", x, ones, zeros, zeros, ones, data_format="NDHWC")[0]
    want, *_ = bn_training_ref(x.astype(np.float64), ones, zeros, 1e-4, 4)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


def bn_grad_case(training: bool, data_format: str, op: str = "FusedBatchNormGradV3"):
    rng = np.random.default_rng(8)
    shape = (2, 3, 2, 2) if data_format == "NCHW" else (2, 2, 2, 3)
    x = rng.normal(size=shape).astype(np.float32)
    scale = rng.uniform(0.5, 2, 3).astype(np.float32)
    offset = rng.normal(size=3).astype(np.float32)
    pop_mean = rng.normal(size=3).astype(np.float32)
    pop_var = rng.uniform(0.5, 2, 3).astype(np.float32)
    g = rng.normal(size=shape)
    attrs = {"epsilon": 0.001, "data_format": data_format, "is_training": training}

    def forward(x_, scale_, offset_):
        return run("FusedBatchNormV3", x_.astype(np.float32), scale_.astype(np.float32),
                   offset_.astype(np.float32), pop_mean, pop_var, **attrs)

    out = forward(x, scale, offset)
    reserve = (out[3], out[4]) if training else (pop_mean, pop_var)
    extra = (out[5],) if op.endswith("V3") else ()
    dx, dscale, doffset, *_ = run(op, g.astype(np.float32), x, scale, *reserve, *extra,
                                  **attrs)
    eps = 1e-2
    num_dx = numeric_grad(lambda v: forward(v, scale, offset)[0], x.astype(np.float64), g, eps)
    num_ds = numeric_grad(lambda v: forward(x, v, offset)[0], scale.astype(np.float64), g, eps)
    num_do = numeric_grad(lambda v: forward(x, scale, v)[0], offset.astype(np.float64), g, eps)
    return (dx, dscale, doffset), (num_dx, num_ds, num_do)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm_grad_matches_finite_differences(training, data_format):
    got, want = bn_grad_case(training, data_format)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-3, atol=2e-3)


def test_fused_batch_norm_grad_v1():
    got, want = bn_grad_case(True, "NHWC", op="FusedBatchNormGrad")
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-3, atol=2e-3)


def test_fused_batch_norm_errors():
    ones, zeros = np.ones(3, np.float32), np.zeros(3, np.float32)
    with pytest.raises(InvalidArgumentError, match="4-dimensional"):
        run("FusedBatchNorm", np.ones((2, 3, 3), np.float32), ones, zeros, zeros, ones)
    with pytest.raises(InvalidArgumentError, match="4-dimensional"):
        run("FusedBatchNormV2", np.ones((1, 2, 2, 2, 3), np.float32), ones, zeros, zeros, ones)
    with pytest.raises(InvalidArgumentError, match="scale must be a 1-D"):
        run("FusedBatchNorm", np.ones((1, 2, 2, 4), np.float32), ones, zeros, zeros, ones)
    with pytest.raises(InvalidArgumentError, match="variance"):
        run("FusedBatchNorm", np.ones((1, 2, 2, 3), np.float32), ones, zeros, zeros,
            np.ones(2, np.float32), is_training=False)
    with pytest.raises(InvalidArgumentError, match="same shape"):
        run("FusedBatchNormGrad", np.ones((1, 2, 2, 3), np.float32),
            np.ones((1, 2, 3, 3), np.float32), ones, zeros, ones)


# --- local response normalization ------------------------------------------------------


def lrn_ref(x, radius, bias, alpha, beta):
    out = np.empty_like(x)
    depth = x.shape[-1]
    for index in np.ndindex(x.shape[:-1]):
        for c in range(depth):
            lo, hi = max(0, c - radius), min(depth, c + radius + 1)
            norm = bias + alpha * np.sum(x[index][lo:hi] ** 2)
            out[index + (c,)] = x[index + (c,)] / norm**beta
    return out


@settings(max_examples=25, deadline=None)
@given(shape=hnp.array_shapes(min_dims=4, max_dims=4, max_side=3).map(
           lambda s: (*s[:3], s[3] + 3)),
       radius=st.integers(0, 3), bias=st.floats(0.5, 2), alpha=st.floats(0.01, 1),
       beta=st.sampled_from([0.5, 0.75, 1.0]), seed=st.integers(0, 99))
def test_lrn(shape, radius, bias, alpha, beta, seed):
    x = np.random.default_rng(seed).normal(size=shape).astype(np.float32)
    got = run1("LRN", x, depth_radius=radius, bias=bias, alpha=alpha, beta=beta)
    want = lrn_ref(x.astype(np.float64), radius, bias, alpha, beta)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("beta", [0.5, 0.75, 1.0])
def test_lrn_grad_matches_finite_differences(beta):
    rng = np.random.default_rng(9)
    x = rng.normal(size=(1, 2, 1, 5)).astype(np.float32)
    g = rng.normal(size=x.shape)
    attrs = {"depth_radius": 1, "bias": 1.5, "alpha": 0.3, "beta": beta}
    y = run1("LRN", x, **attrs)
    got = run1("LRNGrad", g.astype(np.float32), x, y, **attrs)
    want = numeric_grad(lambda v: run1("LRN", v.astype(np.float32), **attrs),
                        x.astype(np.float64), g, 1e-2)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)


def test_lrn_errors():
    with pytest.raises(InvalidArgumentError, match="4-dimensional"):
        run("LRN", np.ones((2, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match="4-dimensional"):
        run("LRNGrad", *(np.ones((2, 3), np.float32),) * 3)
    ones = np.ones((1, 1, 1, 3), np.float32)
    with pytest.raises(InvalidArgumentError, match="same shape"):
        run("LRNGrad", ones, np.ones((1, 1, 1, 4), np.float32), ones)


# --- InTopK ----------------------------------------------------------------------------


def in_top_k_ref(predictions, targets, k):
    out = []
    for row, t in zip(predictions, targets):
        if not 0 <= t < len(row) or not np.isfinite(row).all():
            out.append(False)
        else:
            out.append(int(np.sum(row > row[t])) < k)  # ties with the target count as in
    return out


@FAST
@given(batch=st.integers(1, 4), classes=st.integers(1, 5), k=st.integers(0, 6),
       seed=st.integers(0, 2**16))
def test_in_top_k(batch, classes, k, seed):
    rng = np.random.default_rng(seed)
    predictions = rng.integers(0, 3, (batch, classes)).astype(np.float32)  # many ties
    targets = rng.integers(-1, classes + 1, batch).astype(np.int32)  # some out of range
    want = in_top_k_ref(predictions, targets, k)
    assert run1("InTopK", predictions, targets, k=k).tolist() == want
    got = run1("InTopKV2", predictions, targets.astype(np.int64), np.int64(k))
    assert got.dtype == np.bool_ and got.tolist() == want


def test_in_top_k_non_finite_rows_are_false():
    predictions = np.array([[0.1, np.nan, 0.3], [0.1, 0.2, 0.3], [np.inf, 0.0, 0.0]],
                           np.float32)
    assert run1("InTopK", predictions, np.array([2, 2, 0], np.int32), k=1).tolist() == [
        False, True, False]


def test_in_top_k_errors():
    p, t = np.ones((2, 3), np.float32), np.zeros(2, np.int32)
    with pytest.raises(InvalidArgumentError, match="predictions must be 2-dimensional"):
        run("InTopK", np.ones(3, np.float32), t, k=1)
    with pytest.raises(InvalidArgumentError, match="targets must be 1-dimensional"):
        run("InTopK", p, np.zeros((2, 1), np.int32), k=1)
    with pytest.raises(InvalidArgumentError, match="must match length of targets"):
        run("InTopK", p, np.zeros(3, np.int32), k=1)
    with pytest.raises(InvalidArgumentError, match="k must be 0-D"):
        run("InTopKV2", p, t, np.array([1, 2], np.int32))
    # A negative k is no error in TensorFlow: nothing is in the top k.
    assert run1("InTopK", p, t, k=-1).tolist() == [False, False]

