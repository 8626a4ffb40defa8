"""ExtractVolumePatches (core/ops/volume_patches_ops.py, kernels/cpu/volume_patches.py)
and tf.extract_volume_patches with its gradient (core/api/volume_patches_api.py) against
TensorFlow 2.21's values, errors and gradients, recorded in tf.compat.v1 graph mode with
the same inputs, and against a direct numpy loop. These tests need no TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api.volume_patches_api import extract_volume_patches

X = (np.arange(2 * 3 * 4 * 5 * 2).reshape(2, 3, 4, 5, 2) % 11).astype(np.float32)
# TensorFlow 2.21's values for X:
# VALID, ksizes [1, 2, 2, 2, 1], strides [1, 1, 2, 2, 1]
# SAME, ksizes [1, 2, 3, 2, 1], strides [1, 2, 2, 3, 1]
# SAME over the planes only (X[:1, ..., :1], ksizes [1, 1, 3, 1, 1], strides all 1)
# and the gradients of sum(patches * (arange % 7)) for the first two.
# fmt: off
VALID_PATCHES = np.array([
    0, 1, 2, 3, 10, 0, 1, 2, 7, 8, 9, 10, 6, 7, 8, 9, 4, 5, 6, 7, 3, 4, 5, 6, 0, 1, 2, 3,
    10, 0, 1, 2, 9, 10, 0, 1, 8, 9, 10, 0, 5, 6, 7, 8, 4, 5, 6, 7, 2, 3, 4, 5, 1, 2, 3, 4,
    9, 10, 0, 1, 8, 9, 10, 0, 7, 8, 9, 10, 6, 7, 8, 9, 3, 4, 5, 6, 2, 3, 4, 5, 0, 1, 2, 3,
    10, 0, 1, 2, 7, 8, 9, 10, 6, 7, 8, 9, 5, 6, 7, 8, 4, 5, 6, 7, 1, 2, 3, 4, 0, 1, 2, 3, 9,
    10, 0, 1, 8, 9, 10, 0, 5, 6, 7, 8, 4, 5, 6, 7, 10, 0, 1, 2, 9, 10, 0, 1, 6, 7, 8, 9, 5,
    6, 7, 8, 3, 4, 5, 6, 2, 3, 4, 5, 10, 0, 1, 2, 9, 10, 0, 1, 8, 9, 10, 0, 7, 8, 9, 10, 4,
    5, 6, 7, 3, 4, 5, 6, 1, 2, 3, 4, 0, 1, 2, 3, 8, 9, 10, 0, 7, 8, 9, 10, 6, 7, 8, 9, 5, 6,
    7, 8, 2, 3, 4, 5, 1, 2, 3, 4, 10, 0, 1, 2, 9, 10, 0, 1, 6, 7, 8, 9, 5, 6, 7, 8, 4, 5, 6,
    7, 3, 4, 5, 6, 0, 1, 2, 3, 10, 0, 1, 2, 8, 9, 10, 0, 7, 8, 9, 10, 4, 5, 6, 7, 3, 4, 5, 6
]).reshape((2, 2, 2, 2, 16))
SAME_PATCHES = np.array([
    0, 1, 2, 3, 10, 0, 1, 2, 9, 10, 0, 1, 7, 8, 9, 10, 6, 7, 8, 9, 5, 6, 7, 8, 6, 7, 8, 9,
    5, 6, 7, 8, 4, 5, 6, 7, 2, 3, 4, 5, 1, 2, 3, 4, 0, 1, 2, 3, 9, 10, 0, 1, 8, 9, 10, 0, 0,
    0, 0, 0, 5, 6, 7, 8, 4, 5, 6, 7, 0, 0, 0, 0, 4, 5, 6, 7, 3, 4, 5, 6, 0, 0, 0, 0, 0, 1,
    2, 3, 10, 0, 1, 2, 0, 0, 0, 0, 3, 4, 5, 6, 2, 3, 4, 5, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 9, 10, 0, 1, 8, 9, 10, 0, 7, 8, 9, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 1, 2, 3, 4, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 8, 9, 10,
    6, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 1, 2, 9, 10, 0, 1, 8,
    9, 10, 0, 6, 7, 8, 9, 5, 6, 7, 8, 4, 5, 6, 7, 5, 6, 7, 8, 4, 5, 6, 7, 3, 4, 5, 6, 1, 2,
    3, 4, 0, 1, 2, 3, 10, 0, 1, 2, 8, 9, 10, 0, 7, 8, 9, 10, 0, 0, 0, 0, 4, 5, 6, 7, 3, 4,
    5, 6, 0, 0, 0, 0, 3, 4, 5, 6, 2, 3, 4, 5, 0, 0, 0, 0, 10, 0, 1, 2, 9, 10, 0, 1, 0, 0, 0,
    0, 2, 3, 4, 5, 1, 2, 3, 4, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 9, 10, 0,
    7, 8, 9, 10, 6, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 10, 0, 1, 2, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 7, 8, 9, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0
]).reshape((2, 2, 2, 2, 24))
SAME_PLANES_PATCHES = np.array([
    0, 0, 10, 0, 2, 1, 0, 4, 3, 0, 6, 5, 0, 8, 7, 0, 10, 9, 2, 1, 0, 4, 3, 2, 6, 5, 4, 8, 7,
    6, 10, 9, 8, 1, 0, 10, 3, 2, 1, 5, 4, 3, 7, 6, 5, 9, 8, 0, 0, 10, 0, 2, 1, 0, 4, 3, 0,
    6, 5, 0, 0, 7, 6, 0, 9, 8, 0, 0, 10, 0, 2, 1, 0, 4, 3, 7, 6, 5, 9, 8, 7, 0, 10, 9, 2, 1,
    0, 4, 3, 2, 6, 5, 4, 8, 7, 6, 10, 9, 8, 1, 0, 10, 3, 2, 1, 5, 4, 0, 7, 6, 0, 9, 8, 0, 0,
    10, 0, 2, 1, 0, 0, 3, 2, 0, 5, 4, 0, 7, 6, 0, 9, 8, 0, 0, 10, 3, 2, 1, 5, 4, 3, 7, 6, 5,
    9, 8, 7, 0, 10, 9, 2, 1, 0, 4, 3, 2, 6, 5, 4, 8, 7, 6, 10, 9, 8, 1, 0, 0, 3, 2, 0, 5, 4,
    0, 7, 6, 0, 9, 8, 0
]).reshape((1, 3, 4, 5, 3))
VALID_GRAD = np.array([
    0, 1, 2, 3, 2, 3, 4, 5, 0, 0, 4, 5, 6, 0, 6, 0, 1, 2, 0, 0, 4, 5, 6, 0, 6, 0, 1, 2, 0,
    0, 1, 2, 3, 4, 3, 4, 5, 6, 0, 0, 2, 4, 6, 8, 6, 8, 10, 12, 0, 0, 10, 12, 0, 2, 0, 2, 4,
    6, 0, 0, 10, 12, 0, 2, 0, 2, 4, 6, 0, 0, 4, 6, 8, 10, 8, 10, 12, 0, 0, 0, 2, 3, 4, 5, 4,
    5, 6, 0, 0, 0, 6, 0, 1, 2, 1, 2, 3, 4, 0, 0, 6, 0, 1, 2, 1, 2, 3, 4, 0, 0, 3, 4, 5, 6,
    5, 6, 0, 1, 0, 0, 2, 3, 4, 5, 4, 5, 6, 0, 0, 0, 6, 0, 1, 2, 1, 2, 3, 4, 0, 0, 6, 0, 1,
    2, 1, 2, 3, 4, 0, 0, 3, 4, 5, 6, 5, 6, 0, 1, 0, 0, 6, 8, 10, 12, 10, 12, 0, 2, 0, 0, 0,
    2, 4, 6, 4, 6, 8, 10, 0, 0, 0, 2, 4, 6, 4, 6, 8, 10, 0, 0, 8, 10, 12, 0, 12, 0, 2, 4, 0,
    0, 4, 5, 6, 0, 6, 0, 1, 2, 0, 0, 1, 2, 3, 4, 3, 4, 5, 6, 0, 0, 1, 2, 3, 4, 3, 4, 5, 6,
    0, 0, 5, 6, 0, 1, 0, 1, 2, 3, 0, 0
]).reshape((2, 3, 4, 5, 2))
SAME_GRAD = np.array([
    0, 1, 2, 3, 0, 0, 3, 4, 5, 6, 4, 5, 6, 0, 0, 0, 0, 1, 2, 3, 7, 2, 4, 6, 0, 0, 6, 8, 10,
    5, 3, 4, 5, 6, 0, 0, 6, 0, 1, 2, 5, 6, 0, 1, 0, 0, 1, 2, 3, 4, 2, 3, 4, 5, 0, 0, 5, 6,
    0, 1, 10, 5, 7, 2, 0, 0, 2, 4, 6, 8, 1, 2, 3, 4, 0, 0, 4, 5, 6, 0, 5, 6, 0, 1, 0, 0, 1,
    2, 3, 4, 2, 3, 4, 5, 0, 0, 5, 6, 0, 1, 10, 5, 7, 2, 0, 0, 2, 4, 6, 8, 1, 2, 3, 4, 0, 0,
    4, 5, 6, 0, 3, 4, 5, 6, 0, 0, 6, 0, 1, 2, 0, 1, 2, 3, 0, 0, 3, 4, 5, 6, 6, 8, 10, 5, 0,
    0, 5, 7, 2, 4, 6, 0, 1, 2, 0, 0, 2, 3, 4, 5, 1, 2, 3, 4, 0, 0, 4, 5, 6, 0, 5, 6, 0, 1,
    0, 0, 1, 2, 3, 4, 2, 4, 6, 8, 0, 0, 8, 10, 5, 7, 4, 5, 6, 0, 0, 0, 0, 1, 2, 3, 1, 2, 3,
    4, 0, 0, 4, 5, 6, 0, 5, 6, 0, 1, 0, 0, 1, 2, 3, 4, 2, 4, 6, 8, 0, 0, 8, 10, 5, 7, 4, 5,
    6, 0, 0, 0, 0, 1, 2, 3
]).reshape((2, 3, 4, 5, 2))
# fmt: on


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_values_match_tensorflow():
    valid = extract_volume_patches(X, [1, 2, 2, 2, 1], [1, 1, 2, 2, 1], "VALID")
    same = extract_volume_patches(X, [1, 2, 3, 2, 1], [1, 2, 2, 3, 1], "SAME")
    planes = extract_volume_patches(X[:1, :, :, :, :1], [1, 1, 3, 1, 1], [1] * 5, "SAME")
    assert valid.shape.as_list() == [2, 2, 2, 2, 16]
    assert same.shape.as_list() == [2, 2, 2, 2, 24]
    got = _run([valid, same, planes])
    np.testing.assert_array_equal(got[0], VALID_PATCHES)
    np.testing.assert_array_equal(got[1], SAME_PATCHES)
    np.testing.assert_array_equal(got[2], SAME_PLANES_PATCHES)
    ints = extract_volume_patches(X.astype(np.int32)[:1, :2, :2, :2], [1, 1, 2, 2, 1],
                                  [1] * 5, "VALID")
    assert ints.dtype == tf.int32
    assert _run(ints).tolist() == [[[[[0, 1, 2, 3, 10, 0, 1, 2]]], [[[7, 8, 9, 10, 6, 7, 8, 9]]]]]
    # a window larger than the volume leaves no VALID patch
    assert _run(extract_volume_patches(X, [1, 4, 2, 2, 1], [1] * 5, "VALID")).shape == (
        2, 0, 3, 4, 32)


def _weighted_grad(ksizes, strides, padding):
    x = tf.constant(X)
    patches = extract_volume_patches(x, ksizes, strides, padding)
    dims = patches.shape.as_list()
    weights = tf.constant((np.arange(np.prod(dims)) % 7).reshape(dims).astype(np.float32))
    return tf.gradients(patches * weights, x)[0]


def test_gradients_match_tensorflow():
    np.testing.assert_array_equal(
        _run(_weighted_grad([1, 2, 2, 2, 1], [1, 1, 2, 2, 1], "VALID")), VALID_GRAD)
    np.testing.assert_array_equal(
        _run(_weighted_grad([1, 2, 3, 2, 1], [1, 2, 2, 3, 1], "SAME")), SAME_GRAD)


def test_gradient_with_unknown_shapes_is_the_adjoint():
    ksizes, strides = [1, 2, 1, 2, 1], [1, 1, 1, 2, 1]
    x = tf.placeholder(tf.float64, [None, None, None, None, None])
    patches = extract_volume_patches(x, ksizes, strides, "SAME")
    weights = tf.placeholder(tf.float64)
    grad = tf.gradients(patches * weights, x)[0]
    shape = (2, 2, 2, 3, 2)
    w = np.arange(2 * 2 * 2 * 2 * 8, dtype=np.float64).reshape(2, 2, 2, 2, 8) % 5
    got = _run(grad, {x: np.zeros(shape), weights: w})
    # <P e_i, w> for every voxel basis vector e_i
    want = np.zeros(shape)
    for i in np.ndindex(*shape):
        basis = np.zeros(shape)
        basis[i] = 1
        want[i] = (_reference(basis, ksizes, strides, "SAME") * w).sum()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("ksizes, strides, error, message", [
    ([2, 2, 2, 2, 1], [1] * 5, tf.errors.UnimplementedError, "Only support ksizes across space."),
    ([1, 2, 2, 2, 2], [1] * 5, tf.errors.UnimplementedError, "Only support ksizes across space."),
    ([1, 2, 2, 2, 1], [2, 1, 1, 1, 1], tf.errors.UnimplementedError,
     "Only support strides across space."),
    ([1, 2, 2, 2, 1], [1, 1, 1, 1, 2], tf.errors.UnimplementedError,
     "Only support strides across space."),
    ([1, 0, 2, 2, 1], [1] * 5, tf.errors.OutOfRangeError, "ksizes is out of range."),
])
def test_run_errors_match_tensorflow(ksizes, strides, error, message):
    with pytest.raises(error) as info:
        _run(extract_volume_patches(X, ksizes, strides, "VALID"))
    assert message in str(info.value)


def test_rank_must_be_5():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shape must be rank 5 but is rank 4"):
        extract_volume_patches(X[0], [1, 2, 2, 2, 1], [1] * 5, "VALID")
    ph = tf.placeholder(tf.float32)
    out = extract_volume_patches(ph, [1, 2, 2, 2, 1], [1] * 5, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input must be 5-dimensional\[3,4,5,2\]"):
        _run(out, {ph: X[0]})


def test_attr_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Stride must be > 0, but got 0"):
        extract_volume_patches(X, [1, 2, 2, 2, 1], [1, 0, 1, 1, 1], "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError):
        extract_volume_patches(X, [1, 2, 2, 1], [1] * 5, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError):
        extract_volume_patches(X, [1, 2, 2, 2, 1], [1] * 5, "FOO")
    with pytest.raises(TypeError):
        extract_volume_patches(X.astype(np.complex64), [1, 2, 2, 2, 1], [1] * 5, "VALID")


def test_static_shapes_and_names():
    ph = tf.placeholder(tf.float32, [None, 3, None, 5, 2])
    assert extract_volume_patches(ph, [1, 2, 2, 2, 1], [1, 1, 2, 2, 1],
                                  "VALID").shape.as_list() == [None, 2, None, 2, 16]
    out = extract_volume_patches(X, [1, 2, 2, 2, 1], [1] * 5, "VALID", name="foo")
    assert out.name == "foo:0" and out.op.type == "ExtractVolumePatches"


def _reference(x, ksizes, strides, padding):
    """A direct loop over windows and taps."""
    batch, planes, rows, cols, depth = x.shape
    outs, pads = [], []
    for size, k, s in zip((planes, rows, cols), ksizes[1:4], strides[1:4]):
        if padding == "SAME":
            out = -(-size // s)
            pads.append(max(0, (out - 1) * s + k - size) // 2)
        else:
            out = (size - k) // s + 1
            pads.append(0)
        outs.append(out)
    result = np.zeros((batch, *outs, ksizes[1] * ksizes[2] * ksizes[3] * depth), x.dtype)
    for p in range(outs[0]):
        for r in range(outs[1]):
            for c in range(outs[2]):
                taps = []
                for dp in range(ksizes[1]):
                    for dr in range(ksizes[2]):
                        for dc in range(ksizes[3]):
                            ip = p * strides[1] - pads[0] + dp
                            ir = r * strides[2] - pads[1] + dr
                            ic = c * strides[3] - pads[2] + dc
                            inside = 0 <= ip < planes and 0 <= ir < rows and 0 <= ic < cols
                            taps.append(x[:, ip, ir, ic, :] if inside
                                        else np.zeros((batch, depth), x.dtype))
                result[:, p, r, c, :] = np.concatenate(taps, axis=-1)
    return result


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=3, max_size=3),
       st.lists(st.integers(1, 3), min_size=3, max_size=3),
       st.lists(st.integers(1, 3), min_size=3, max_size=3),
       st.sampled_from(["SAME", "VALID"]), st.integers(1, 2))
def test_matches_a_direct_loop(spatial, ksize, stride, padding, depth):
    if padding == "VALID" and any(k > s for k, s in zip(ksize, spatial)):
        return
    x = np.random.RandomState(0).randint(-9, 9, (2, *spatial, depth)).astype(np.float32)
    ksizes, strides = [1, *ksize, 1], [1, *stride, 1]
    with tf.Graph().as_default():
        got = _run(extract_volume_patches(x, ksizes, strides, padding))
    np.testing.assert_array_equal(got, _reference(x, ksizes, strides, padding))


@pytest.mark.parametrize("data, ksizes", [
    (X, [1, 1 << 40, 2, 2, 1]),  # SAME: the window's taps alone would be terabytes
    (np.ones((1, 40, 40, 40, 1), np.float32), [1, 40, 40, 20, 1]),  # 7.6 GiB of patches
])
def test_huge_windows_hit_the_allocation_limit(data, ksizes):
    ph = tf.placeholder(tf.float32)
    out = extract_volume_patches(ph, ksizes, [1] * 5, "SAME", name="big")
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"node 'big'.*over the limit"):
        _run(out, {ph: data})


def test_empty_output_with_a_huge_window_allocates_nothing():
    ph = tf.placeholder(tf.float32)
    out = extract_volume_patches(ph, [1, 1 << 40, 2, 2, 1], [1] * 5, "SAME")
    got = _run(out, {ph: np.ones((0, 3, 4, 5, 2), np.float32)})
    assert got.shape == (0, 3, 4, 5, (1 << 40) * 8) and got.dtype == np.float32


def test_empty_output_too_large_for_numpy_is_refused():
    # 2**31 - 1 planes times 2**31 rows of window: the patch depth alone passes int64
    ph = tf.placeholder(tf.float32)
    out = extract_volume_patches(ph, [1, 2**31 - 1, 2**31, 1, 1], [1] * 5, "SAME", name="wide")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"node 'wide'.*too large to represent"):
        _run(out, {ph: np.ones((0, 1, 2, 1, 4), np.float32)})
