"""FFTND, IFFTND, RFFTND, IRFFTND (core/ops/fftnd_ops.py, kernels/cpu/fftnd.py) and
tf.signal.fftnd/ifftnd/rfftnd/irfftnd (core/api/fftnd_api.py).

TensorFlow 2.21 has no CPU kernel for these ops (GPU only), so the values are checked
against numpy.fft (the same transforms and norms); what TensorFlow 2.21 does give on CPU
was recorded in tf.compat.v1 graph mode and is asserted here: the ops each wrapper builds
(Pad for a longer fft_length, RealDiv/Mul for a norm), names, types and the wrappers'
errors. The kernel's errors are those of TensorFlow's GPU kernel. These tests need no
TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api.fftnd_api import fftnd, ifftnd, irfftnd, rfftnd
from tfx.core.api.ops_api import apply_op

RNG = np.random.RandomState(0)
X = (RNG.randn(2, 3, 4) + 1j * RNG.randn(2, 3, 4)).astype(np.complex64)
R = RNG.randn(2, 3, 4).astype(np.float32)
C = np.fft.rfftn(R, axes=[1, 2]).astype(np.complex64)


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def _ops():
    return [op.type for op in tf.get_default_graph().get_operations()]


@pytest.mark.parametrize("build, want", [
    (lambda: fftnd(X), np.fft.fftn(X)),
    (lambda: fftnd(X, axes=[-1]), np.fft.fftn(X, axes=[-1])),
    (lambda: fftnd(X, fft_length=[5, 2], axes=[-2, -1]),
     np.fft.fftn(X, s=[5, 2], axes=[-2, -1])),
    (lambda: fftnd(X, fft_length=[3, 4], axes=[1, 2], norm="ortho"),
     np.fft.fftn(X, axes=[1, 2], norm="ortho")),
    (lambda: fftnd(X, fft_length=[3, 4], axes=[1, 2], norm="forward"),
     np.fft.fftn(X, axes=[1, 2], norm="forward")),
    (lambda: ifftnd(X), np.fft.ifftn(X)),
    (lambda: ifftnd(X, fft_length=[3, 4], axes=[1, 2], norm="ortho"),
     np.fft.ifftn(X, axes=[1, 2], norm="ortho")),
    (lambda: ifftnd(X, fft_length=[3, 4], axes=[1, 2], norm="forward"),
     np.fft.ifftn(X, axes=[1, 2], norm="forward")),
    (lambda: rfftnd(R), np.fft.rfftn(R)),
    (lambda: rfftnd(R, fft_length=[5, 3], axes=[1, 2]), np.fft.rfftn(R, s=[5, 3], axes=[1, 2])),
    (lambda: rfftnd(R, norm="ortho"), np.fft.rfftn(R, norm="ortho")),
    (lambda: irfftnd(C, axes=[1, 2]), np.fft.irfftn(C, axes=[1, 2])),
    (lambda: irfftnd(C, fft_length=[3, 9], axes=[1, 2]), np.fft.irfftn(C, s=[3, 9], axes=[1, 2])),
    (lambda: irfftnd(C, fft_length=[2, 5], axes=[1, 2], norm="forward"),
     np.fft.irfftn(C, s=[2, 5], axes=[1, 2], norm="forward")),
])
def test_values_match_numpy(build, want):
    out = build()
    assert out.shape.as_list() == list(want.shape)
    got = _run(out)
    assert got.dtype == (np.float32 if np.isrealobj(want) else np.complex64)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_double_precision():
    out = rfftnd(tf.constant(R.astype(np.float64)), fft_length=[3, 5], axes=[1, 2])
    assert out.dtype == tf.complex128
    assert out.op.inputs[0].op.type == "Pad"  # the last dim 4 is padded to 5
    np.testing.assert_allclose(_run(out), np.fft.rfftn(R.astype(np.float64), s=[3, 5],
                                                       axes=[1, 2]), rtol=1e-12, atol=1e-12)


def test_graphs_match_tensorflow():
    # TensorFlow 2.21 builds: fftnd(x) -> ... StridedSlice, FFTND (the default length read
    # off the shape); a longer fft_length -> Pad; norm -> RealDiv (forward transforms) or
    # Mul (inverse ones) before the op; the wrapper's name scope names the op.
    x = tf.placeholder(tf.complex64, [2, 3, 4])
    assert fftnd(x, fft_length=[5, 2], axes=[-2, -1]).op.inputs[0].op.type == "Pad"
    assert fftnd(x, fft_length=[3, 4], axes=[-2, -1], norm="ortho").op.inputs[0].op.type == (
        "RealDiv")
    assert ifftnd(x, fft_length=[3, 4], axes=[-2, -1], norm="ortho").op.inputs[0].op.type == (
        "Mul")
    assert irfftnd(x, fft_length=[3, 9], axes=[1, 2]).op.inputs[0].op.type == "Pad"
    assert irfftnd(x).op.inputs[0] is x
    out = rfftnd(tf.placeholder(tf.float32, [2, 3, 4]), name="foo")
    assert out.name == "foo:0" and out.op.type == "RFFTND"
    with tf.Graph().as_default():
        x = tf.placeholder(tf.complex64, [2, 3, 4])
        assert fftnd(x).name == "fftnd:0" and ifftnd(x).op.name == "ifftnd"
        y = irfftnd(x)
        assert y.dtype == tf.float32 and y.op.name == "irfftnd"
        assert y.shape.as_list() == [2, 3, 6]  # the last dim as 2 * (4 - 1)


def test_wrapper_errors_match_tensorflow():
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs"):
        rfftnd(tf.placeholder(tf.int32, [2, 3]))
    with pytest.raises(ValueError, match="IRFFT requires tf.complex64 or tf.complex128"):
        irfftnd(tf.placeholder(tf.float32, [2, 3, 4]))
    with pytest.raises(TypeError):
        fftnd(tf.placeholder(tf.float32, [2, 3, 4]))
    with pytest.raises(ValueError, match=r"must have rank at least 2"):
        fftnd(tf.placeholder(tf.complex64, [4]), fft_length=[4, 4], axes=[0, 1])
    with pytest.raises(ValueError, match="Cannot take the length of shape with unknown rank"):
        fftnd(tf.placeholder(tf.complex64))


def test_tfx_extensions():
    # TensorFlow fails on these; tfx reads dims at run time, takes lists, checks norm.
    ph = tf.placeholder(tf.complex64, [None, 4])
    np.testing.assert_allclose(_run(fftnd(ph), {ph: X[0]}), np.fft.fftn(X[0]), atol=1e-4)
    np.testing.assert_allclose(_run(rfftnd([[1.0, 2.0, 3.0, 4.0]])), [[10, -2 + 2j, -2]])
    with pytest.raises(ValueError, match="norm must be one of"):
        fftnd(X, norm="xyz")
    with pytest.raises(ValueError, match="needs a fft_length known at construction"):
        fftnd(X, fft_length=tf.placeholder(tf.int32, [3]), norm="ortho")


def test_no_gradient():
    x = tf.constant(X)
    with pytest.raises(LookupError):
        tf.gradients(tf.real(fftnd(x)), x)


def _raw(op, data, lengths, axes, **types):
    return apply_op(op, input=data, fft_length=np.array(lengths, np.int32),
                    axes=np.array(axes, np.int32), **types)


@pytest.mark.parametrize("op, data, lengths, axes, message", [
    ("FFTND", X, [3, 4], [0, 2], "axes must be successive and ascending."),
    ("FFTND", X, [3, 4], [2, 1], "axes must be successive and ascending."),
    ("FFTND", X, [2, 3], [0, 1], "The last axis to perform transform on must be -1."),
    ("FFTND", X, [], [], "The last axis to perform transform on must be -1."),
    ("FFTND", X, [3, 4, 5], [1, 2], "fft_length must have shape [2], but got: 3."),
    ("FFTND", X, [3, -1], [1, 2], "fft_length[1] must >= 0, but got: -1"),
    ("RFFTND", R, [4, 4], [1, 2], "Input dimension 1 must have length of at least 4 but got: 3"),
    ("IRFFTND", C, [3, 8], [1, 2],
     "Input dimension 2 must have length of at least 5 but got: 3"),
])
def test_kernel_errors(op, data, lengths, axes, message):
    ph = tf.placeholder(tf.as_dtype(data.dtype))
    lengths_ph = tf.placeholder(tf.int32)
    axes_ph = tf.placeholder(tf.int32)
    out = apply_op(op, input=ph, fft_length=lengths_ph, axes=axes_ph)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(out, {ph: data, lengths_ph: np.array(lengths, np.int32),
                   axes_ph: np.array(axes, np.int32)})
    assert message in str(info.value)


def test_kernel_rank_error_and_empty_inputs():
    ph = tf.placeholder(tf.complex64)
    out = apply_op("FFTND", input=ph, fft_length=[2, 2], axes=[0, 1])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input must have rank of at least 2 but got: \[4\]"):
        _run(out, {ph: X[0, 0]})
    empty = _run(_raw("RFFTND", np.zeros((0, 4), np.float32), [0, 4], [0, 1]))
    assert empty.shape == (0, 3) and empty.dtype == np.complex64
    zero_length = _run(_raw("FFTND", X, [0], [2]))
    assert zero_length.shape == (2, 3, 0)
    # a complex input shorter than fft_length is zero-padded by the kernel itself
    np.testing.assert_allclose(_run(_raw("FFTND", X, [6], [-1])),
                               np.fft.fft(X, n=6), atol=1e-4)


def test_static_shapes():
    assert _raw("RFFTND", R, [5, 7], [-2, -1]).shape.as_list() == [2, 5, 4]
    assert _raw("IRFFTND", C, [3, 5], [1, 2]).shape.as_list() == [2, 3, 5]
    assert _raw("FFTND", X, [5], [2]).shape.as_list() == [2, 3, 5]
    lengths = tf.placeholder(tf.int32, [2])
    out = apply_op("RFFTND", input=R, fft_length=lengths, axes=np.array([1, 2], np.int32))
    assert out.shape.as_list() == [2, None, None]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.integers(1, 3), st.data())
def test_round_trips_and_numpy(shape, fft_rank, data):
    fft_rank = min(fft_rank, len(shape))
    lengths = data.draw(st.lists(st.integers(1, 6), min_size=fft_rank, max_size=fft_rank))
    axes = list(range(len(shape) - fft_rank, len(shape)))
    x = np.random.RandomState(len(shape)).randn(*shape).astype(np.float64)
    with tf.Graph().as_default():
        got = _run([rfftnd(x.astype(np.float32), fft_length=lengths, axes=axes),
                    fftnd(tf.constant(x, tf.complex128), fft_length=lengths, axes=axes),
                    irfftnd(tf.constant(np.fft.rfftn(x, s=lengths, axes=axes), tf.complex128),
                            fft_length=lengths, axes=axes)])
    np.testing.assert_allclose(got[0], np.fft.rfftn(x, s=lengths, axes=axes), atol=1e-3)
    np.testing.assert_allclose(got[1], np.fft.fftn(x, s=lengths, axes=axes), atol=1e-9)
    cropped = x[tuple([slice(None)] * (len(shape) - fft_rank) + [slice(0, n) for n in lengths])]
    padded = np.zeros(x.shape[:len(shape) - fft_rank] + tuple(lengths))
    padded[tuple(slice(0, n) for n in cropped.shape)] = cropped
    np.testing.assert_allclose(got[2], padded, atol=1e-9)


@pytest.mark.parametrize("op, data, lengths", [
    ("FFTND", X, [1 << 30, 1 << 30]),
    ("IFFTND", X, [3, (1 << 31) - 1]),
    # an empty transformed dim skips the real ops' length check: the output still counts
    ("RFFTND", np.zeros((2, 0, 4), np.float32), [1 << 30, 4]),
    ("IRFFTND", np.zeros((2, 0, 3), np.complex64), [1 << 30, 4]),
])
def test_absurd_fft_length_hits_the_allocation_limit(op, data, lengths):
    ph = tf.placeholder(tf.as_dtype(data.dtype))
    lengths_ph = tf.placeholder(tf.int32)
    out = apply_op(op, input=ph, fft_length=lengths_ph, axes=[1, 2], name="big")
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"node 'big'.*over the limit"):
        _run(out, {ph: data, lengths_ph: np.array(lengths, np.int32)})


def test_empty_output_too_large_for_numpy_is_refused():
    ph = tf.placeholder(tf.complex64)
    out = apply_op("FFTND", input=ph, fft_length=[2**31 - 1, 2**31 - 1], axes=[1, 2],
                   name="wide")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"node 'wide'.*too large to represent"):
        _run(out, {ph: np.zeros((0, 4, 4), np.complex64)})
    # an empty output numpy can hold is returned
    out = apply_op("FFTND", input=ph, fft_length=[1 << 20, 1 << 20], axes=[1, 2])
    assert _run(out, {ph: np.zeros((0, 4, 4), np.complex64)}).shape == (0, 1 << 20, 1 << 20)
