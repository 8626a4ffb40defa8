"""Segment reduction kernels (Segment* and UnsortedSegment*) against a numpy reference,
TensorFlow 2.21's values for the edge cases (empty segments, NaN, -inf, integer means) and
its error messages, and the segment shape functions.

The TF_* values were recorded by running the same inputs through tf.compat.v1 in graph mode.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from kernel_checks import run1

import tfx as tf
from tfx.core.errors import InvalidArgumentError

FAST = settings(max_examples=40, deadline=None)
NAN = np.nan
F32_LOWEST = np.finfo(np.float32).min
F32_HIGHEST = np.finfo(np.float32).max


def reference(kind: str, data: np.ndarray, ids: np.ndarray, rows: int, unsorted: bool):
    """A loop over segments: NaN-free data, so Max/Min are plain maxima."""
    data = data.reshape((ids.size,) + data.shape[ids.ndim if unsorted else 1:])
    ids = ids.reshape(-1)
    empty = {"Sum": 0, "Mean": 0, "Prod": 1, "Max": 0, "Min": 0}[kind]
    if unsorted and kind in ("Max", "Min"):
        empty = F32_LOWEST if kind == "Max" else F32_HIGHEST
    out = np.full((rows,) + data.shape[1:], empty, np.float64)
    fn = {"Sum": np.sum, "Mean": np.mean, "Prod": np.prod, "Max": np.max, "Min": np.min}[kind]
    for segment in range(rows):
        members = data[ids == segment]
        if len(members):
            out[segment] = fn(members.astype(np.float64), axis=0)
    return out


@FAST
@given(st.sampled_from(["Sum", "Mean", "Prod", "Max", "Min"]),
       st.lists(st.integers(0, 5), max_size=12), st.integers(0, 2), st.data())
def test_sorted_segments_match_reference(kind, ids, inner, data):
    ids = np.array(sorted(ids), np.int32)
    values = data.draw(hnp.arrays(np.float32, (len(ids),) + (2,) * inner,
                                  elements=st.floats(-3, 3, width=32)))
    got = run1(f"Segment{kind}", values, ids)
    rows = int(ids[-1]) + 1 if ids.size else 0
    np.testing.assert_allclose(got, reference(kind, values, ids, rows, False), rtol=1e-5,
                               atol=1e-5)
    assert got.dtype == np.float32


@FAST
@given(st.sampled_from(["Sum", "Prod", "Max", "Min"]),
       hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4), st.integers(0, 1),
       st.integers(1, 5), st.data())
def test_unsorted_segments_match_reference(kind, ids_shape, inner, rows, data):
    ids = data.draw(hnp.arrays(np.int64, ids_shape, elements=st.integers(-2, rows - 1)))
    values = data.draw(hnp.arrays(np.float32, tuple(ids_shape) + (3,) * inner,
                                  elements=st.floats(-3, 3, width=32)))
    got = run1(f"UnsortedSegment{kind}", values, ids, np.int32(rows))
    np.testing.assert_allclose(got, reference(kind, values, ids, rows, True), rtol=1e-5,
                               atol=1e-5)


@FAST
@given(st.lists(st.integers(0, 4), min_size=1, max_size=10), st.data())
def test_integer_segment_mean_truncates_toward_zero(ids, data):
    ids = np.array(sorted(ids), np.int64)
    values = data.draw(hnp.arrays(np.int32, ids.shape, elements=st.integers(-50, 50)))
    got = run1("SegmentMean", values, ids)
    for segment in range(int(ids[-1]) + 1):
        members = values[ids == segment].astype(np.int64)
        expected = int(members.sum() / len(members)) if len(members) else 0
        assert got[segment] == expected


# (op, inputs, TensorFlow 2.21's output)
D = np.array([1.0, 5.0, 2.0, 7.0, 3.0], np.float32)
WITH_NAN = np.array([NAN, NAN, 1, NAN, NAN, 1, -np.inf, 3], np.float32)
NAN_IDS = np.array([0, 0, 1, 1, 2, 2, 3, 4], np.int32)
UNSORTED = np.array([3, -1, 0, 3, 0], np.int32)
# fmt: off
TF_CASES = [
    ("SegmentMax", (D, np.array([0, 0, 2, 2, 4], np.int32)), [5, 0, 7, 0, 3]),
    ("SegmentMin", (D, np.array([0, 0, 2, 2, 4], np.int32)), [1, 0, 2, 0, 3]),
    ("SegmentProd", (D, np.array([0, 0, 2, 2, 4], np.int32)), [5, 1, 14, 1, 3]),
    ("SegmentMean", (D, np.array([0, 0, 2, 2, 4], np.int32)), [3, 0, 4.5, 0, 3]),
    ("SegmentMean", (np.array([-9, 0, -7, 3, 5], np.int32), np.array([0, 0, 1, 1, 1], np.int32)),
     [-4, 0]),
    ("SegmentMax", (WITH_NAN, NAN_IDS), [NAN, NAN, 1, -np.inf, 3]),
    ("SegmentMin", (WITH_NAN, NAN_IDS), [NAN, NAN, 1, -np.inf, 3]),
    ("SegmentMean", (WITH_NAN, NAN_IDS), [NAN, NAN, NAN, -np.inf, 3]),
    ("UnsortedSegmentMax", (WITH_NAN, NAN_IDS, np.int32(6)),
     [NAN, NAN, 1, F32_LOWEST, 3, F32_LOWEST]),
    ("UnsortedSegmentMin", (WITH_NAN, NAN_IDS, np.int32(6)),
     [NAN, NAN, 1, -np.inf, 3, F32_HIGHEST]),
    ("UnsortedSegmentSum", (D, UNSORTED, np.int32(5)), [5, 0, 0, 8, 0]),
    ("UnsortedSegmentProd", (D, UNSORTED, np.int32(5)), [6, 1, 1, 7, 1]),
    ("UnsortedSegmentMax", (D.astype(np.int32), UNSORTED, np.int32(5)),
     [3, -2**31, -2**31, 7, -2**31]),
    ("UnsortedSegmentMin", (D.astype(np.int32), UNSORTED, np.int32(5)),
     [2, 2**31 - 1, 2**31 - 1, 1, 2**31 - 1]),
    ("UnsortedSegmentMax", (np.array([1, 2], np.float16), np.array([0, 0], np.int32),
                            np.int32(2)), [2, -65504]),
    ("UnsortedSegmentMax", (D[:0], np.zeros(0, np.int32), np.int64(3)), [F32_LOWEST] * 3),
    ("UnsortedSegmentSum", (D, np.int32(1), np.int32(3)), [[0] * 5, D.tolist(), [0] * 5]),
    ("UnsortedSegmentSum", (np.ones((2, 3), np.float32), np.array([0, 1], np.int16),
                            np.int64(2)), [[1, 1, 1], [1, 1, 1]]),
    ("SegmentSum", (D[:0], np.zeros(0, np.int32)), []),
]
# fmt: on


@pytest.mark.parametrize("op, inputs, expected", TF_CASES)
def test_tensorflow_values(op, inputs, expected):
    got = run1(op, *inputs)
    assert got.dtype == inputs[0].dtype
    np.testing.assert_array_equal(got, np.array(expected, inputs[0].dtype))


# (op, inputs, TensorFlow 2.21's message)
TF_ERRORS = [
    ("SegmentSum", (D, np.array([0, 1, 0, 2, 3], np.int32)), "segment ids are not increasing"),
    ("SegmentMax", (D, np.array([0, 1, 1, 2, 1], np.int32)), "segment ids are not increasing"),
    ("SegmentSum", (D, np.array([-1, 0, 0, 2, 3], np.int32)),
     "Segment id -1 out of range [0, 4), possibly because 'segment_ids' input is not sorted."),
    ("SegmentMean", (D, np.array([0, 1, 1, 2], np.int32)),
     "segment_ids should be the same size as dimension 0 of input."),
    ("UnsortedSegmentSum", (D, np.array([3, -1, 0, 5, 0], np.int32), np.int32(5)),
     "segment_ids[3] = 5 is out of range [0, 5)"),
    ("UnsortedSegmentMax", (D[:4].reshape(2, 2), np.array([[3, -1], [0, 7]], np.int32),
                            np.int32(5)), "segment_ids[1,1] = 7 is out of range [0, 5)"),
    ("UnsortedSegmentProd", (D, UNSORTED, np.int32(-1)),
     "Input num_segments == -1 must not be negative."),
    ("UnsortedSegmentMin", (D, np.array([0, 1, 1, 2], np.int32), np.int32(3)),
     "data.shape = [5] does not start with segment_ids.shape = [4]"),
]


@pytest.mark.parametrize("op, inputs, message", TF_ERRORS)
def test_tensorflow_errors(op, inputs, message):
    with pytest.raises(InvalidArgumentError) as info:
        run1(op, *inputs)
    assert message in str(info.value)


def test_shape_functions():
    data = tf.placeholder(tf.float32, [5, 3])
    assert tf.segment_sum(data, [0, 0, 1, 1, 2]).shape.as_list() == [None, 3]
    assert tf.unsorted_segment_max(data, [0, 0, 1, 1, 2], 4).shape.as_list() == [4, 3]
    ids = tf.placeholder(tf.int32, [None])
    assert tf.unsorted_segment_sum(data, ids, tf.placeholder(tf.int32, [])).shape.as_list() \
        == [None, 3]
    with pytest.raises(InvalidArgumentError, match="segment_ids must be rank 1"):
        tf.segment_sum(tf.placeholder(tf.float32, [2, 2]), [[0, 0], [1, 1]])
    with pytest.raises(InvalidArgumentError, match="must be non-negative but is -1"):
        tf.unsorted_segment_sum(data, [0, 0, 1, 1, 2], -1)
    with pytest.raises(InvalidArgumentError, match="num_segments must be a scalar"):
        tf.unsorted_segment_sum(data, [0, 0, 1, 1, 2], [5])
    with pytest.raises(InvalidArgumentError, match="start with segment_ids"):
        tf.unsorted_segment_sum(data, [0, 1, 1, 2], 3)
