"""tf.bitwise (core/api/bitwise_api.py) against TensorFlow 2.21's values, recorded in
tf.compat.v1 graph mode with the same inputs, and against numpy. These tests need no
TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api import bitwise_api
from tfx.core.api.bitwise_api import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)

# dtype -> (x, y, left_shift(x, y), right_shift(x, y)) as TensorFlow 2.21 computes them:
# shift amounts of the bit width or more act as bits - 1.
# fmt: off
SHIFTS = {
    np.int8: ([1, 5, -3, 127, 0, 1], [0, 7, 1, 8, 3, 9],
              [1, -128, -6, -128, 0, -128], [1, 0, -2, 0, 0, 0]),
    np.uint8: ([1, 5, 200, 127, 0, 1], [0, 7, 1, 8, 3, 9],
               [1, 128, 144, 128, 0, 128], [1, 0, 100, 0, 0, 0]),
    np.int32: ([1, 5, -3, 127, 0, 1], [0, 7, 1, 8, 3, 9],
               [1, 640, -6, 32512, 0, 512], [1, 0, -2, 0, 0, 0]),
    np.int64: ([1, 5, -3, 127, 0, 1], [0, 7, 1, 8, 3, 64],
               [1, 640, -6, 32512, 0, -9223372036854775808], [1, 0, -2, 0, 0, 0]),
    np.uint64: ([1, 5, 200, 127, 0, 1], [0, 7, 1, 8, 3, 64],
                [1, 640, 400, 32512, 0, 9223372036854775808], [1, 0, 100, 0, 0, 0]),
}
# negative shift amounts act as 0 (TensorFlow 2.21, every signed type)
NEG_X, NEG_Y = [1, 5, -3, 127, 0, 1], [-1, -5, 2, -100, 1, 1]
NEG_LEFT, NEG_RIGHT = [1, 5, -12, 127, 0, 2], [1, 5, -1, 127, 0, 0]
# large shifts of negative values: int8, then int32 and int64 (x[0] is the type's minimum)
BIG_Y = [100, 100, 100, 1, 100, 3]
BIG = {
    np.int8: ([-128, -1, -7, 64, 3, -100], [0, -128, -128, -128, -128, -32],
              [-1, -1, -1, 32, 0, -13]),
    np.int32: ([-2**31, -1, -7, 64, 3, -100], [0, -2**31, -2**31, 128, -2**31, -800],
               [-1, -1, -1, 32, 0, -13]),
    np.int64: ([-2**31, -1, -7, 64, 3, -100], [0, -2**63, -2**63, 128, -2**63, -800],
               [-1, -1, -1, 32, 0, -13]),
}
# fmt: on
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_names_are_tf1_bitwise():
    # dir(tf.compat.v1.bitwise) in TensorFlow 2.21, public names
    assert sorted(bitwise_api.__all__) == ["bitwise_and", "bitwise_or", "bitwise_xor",
                                           "invert", "left_shift", "right_shift"]


@pytest.mark.parametrize("dtype", list(SHIFTS))
def test_shifts_match_tensorflow(dtype):
    x, y, left, right = SHIFTS[dtype]
    x, y = np.array(x, dtype), np.array(y, dtype)
    out_l, out_r = _run([left_shift(x, y), right_shift(x, y)])
    assert out_l.dtype == dtype and out_l.tolist() == left
    assert out_r.dtype == dtype and out_r.tolist() == right


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_negative_and_oversized_shifts_match_tensorflow(dtype):
    x, y = np.array(NEG_X, dtype), np.array(NEG_Y, dtype)
    assert _run(left_shift(x, y)).tolist() == NEG_LEFT
    assert _run(right_shift(x, y)).tolist() == NEG_RIGHT
    xs, left, right = BIG[dtype]
    xs, ys = np.array(xs, dtype), np.array(BIG_Y, dtype)
    assert _run(left_shift(xs, ys)).tolist() == left
    assert _run(right_shift(xs, ys)).tolist() == right


def test_logic_and_invert_match_tensorflow():
    a, b = np.array([12, -1], np.int16), np.array([10, 7], np.int16)
    assert _run(bitwise_and(a, b)).tolist() == [8, 7]
    assert _run(bitwise_or(a, b)).tolist() == [14, -1]
    assert _run(bitwise_xor(a, b)).tolist() == [6, -8]
    assert _run(invert(np.array([0, 5, -1], np.int32))).tolist() == [-1, -6, 0]
    assert _run(invert(np.array([0, 5, 255], np.uint8))).tolist() == [255, 250, 0]
    shifted = left_shift(np.array([[1], [2]], np.int32), np.array([1, 2, 3], np.int32))
    assert shifted.shape.as_list() == [2, 3]
    assert _run(shifted).tolist() == [[2, 4, 8], [4, 8, 16]]


def test_op_names_and_types():
    with tf.Graph().as_default():
        assert bitwise_and(1, 2).op.type == "BitwiseAnd"
        assert bitwise_or(1, 2).dtype == tf.int32
        assert bitwise_xor(1, 2).op.type == "BitwiseXor"
        assert invert(1).op.type == "Invert"
        assert left_shift(1, 2).op.name == "LeftShift"
        assert right_shift(1, 2, name="foo").name == "foo:0"


@pytest.mark.parametrize("fn", [bitwise_and, left_shift])
def test_float_inputs_are_rejected(fn):
    with tf.Graph().as_default(), pytest.raises(TypeError):
        fn(np.array([1.0], np.float32), np.array([1.0], np.float32))
    with tf.Graph().as_default(), pytest.raises(TypeError):
        invert(np.array([1.0], np.float32))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(INTS), st.lists(st.integers(-70, 70), min_size=1, max_size=6),
       st.data())
def test_shifts_and_logic_match_numpy(dtype, shifts, data):
    info = np.iinfo(dtype)
    x = np.array(data.draw(st.lists(st.integers(int(info.min), int(info.max)),
                                    min_size=len(shifts), max_size=len(shifts))), dtype)
    y = np.array([s if info.min < 0 else abs(s) for s in shifts], dtype)
    bits = info.bits
    clamped = np.clip(y.astype(np.int64), 0, bits - 1).astype(dtype)
    with tf.Graph().as_default():
        got = _run([left_shift(x, y), right_shift(x, y), bitwise_and(x, y),
                    bitwise_or(x, y), bitwise_xor(x, y), invert(x)])
    want = [np.left_shift(x, clamped), np.right_shift(x, clamped), x & y, x | y, x ^ y, ~x]
    for g, w in zip(got, want):
        assert g.dtype == dtype and g.tolist() == w.tolist()
