"""Hypothesis properties of the snapshot file encoding, the Snappy block codec, tfdbg's
DebugNumericSummaryV2 and CheckNumericsV2, and list autopacking, against numpy
references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tfx as tf
from tfx.core import data_snapshot
from tfx.core.errors import InvalidArgumentError

_DTYPES = {np.dtype(np.float32): tf.float32, np.dtype(np.float64): tf.float64,
           np.dtype(np.int32): tf.int32, np.dtype(np.int64): tf.int64,
           np.dtype(np.uint8): tf.uint8, np.dtype(np.bool_): tf.bool,
           np.dtype(np.float16): tf.float16, np.dtype(np.complex64): tf.complex64}
arrays = st.sampled_from(sorted(_DTYPES, key=str)).flatmap(
    lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                               max_side=4)))
floats = hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
                    elements=st.sampled_from([0.0, -1.5, 2.0, np.inf, -np.inf, np.nan]))


@settings(max_examples=60, deadline=None)
@given(value=arrays)
def test_snapshot_records_round_trip(value):
    back = data_snapshot.tensor_from_record(
        data_snapshot.tensor_record(value, _DTYPES[value.dtype]), "x")
    assert back.dtype == value.dtype and back.shape == value.shape
    np.testing.assert_array_equal(back, value)


@settings(max_examples=40, deadline=None)
@given(strings=st.lists(st.binary(max_size=300), max_size=6))
def test_string_records_and_snappy_blocks_round_trip(strings):
    value = np.array(strings, dtype=object)
    back = data_snapshot.tensor_from_record(data_snapshot.tensor_record(value, tf.string), "x")
    assert back.tolist() == strings
    data = b"".join(strings) * 3
    block = data_snapshot.snappy_compress(data)
    assert data_snapshot._snappy_decode(block) == data  # tfx's own decoder reads it


@settings(max_examples=40, deadline=None)
@given(x=floats, mode=st.sampled_from([2, 3, 4, 5]))
def test_numeric_summaries_count_like_numpy(x, mode):
    with tf.Graph().as_default():
        summary = tf.raw_ops.DebugNumericSummaryV2(input=x, tensor_debug_mode=mode,
                                                   tensor_id=9, output_dtype=tf.float64)
        with tf.Session() as sess:
            got = sess.run(summary).tolist()
    neg, pos, nan = (int(np.isneginf(x).sum()), int(np.isposinf(x).sum()),
                     int(np.isnan(x).sum()))
    finite = x[np.isfinite(x)]
    expected = {
        2: [9, float(neg + pos + nan > 0)],
        3: [9, x.size, neg, pos, nan],
        4: [9, -1, 1, x.ndim, x.size, neg, pos, nan, (finite < 0).sum(), (finite == 0).sum(),
            (finite > 0).sum()],
        5: [9, 1, x.ndim, x.size, *x.shape, *[0] * (6 - x.ndim)]}[mode]
    assert got == [float(v) for v in expected]


@settings(max_examples=40, deadline=None)
@given(x=floats)
def test_check_numerics_v2_passes_finite_and_names_what_is_not(x):
    with tf.Graph().as_default():
        checked = tf.raw_ops.CheckNumericsV2(tensor=x, message="m")
        with tf.Session() as sess:
            if np.isfinite(x).all():
                np.testing.assert_array_equal(sess.run(checked), x)
                return
            with pytest.raises(InvalidArgumentError) as caught:
                sess.run(checked)
    found = [name for name, hit in (("-Inf", np.isneginf(x).any()),
                                    ("+Inf", np.isposinf(x).any()),
                                    ("NaN", np.isnan(x).any())) if hit]
    for name in found:
        assert name in str(caught.value)


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(-100, 100), min_size=1, max_size=5),
       tensor_at=st.data())
def test_lists_holding_tensors_pack_to_the_numpy_value(values, tensor_at):
    which = tensor_at.draw(st.sets(st.integers(0, len(values) - 1), min_size=1))
    with tf.Graph().as_default():
        items = [tf.constant(v, tf.int64) if i in which else v for i, v in enumerate(values)]
        packed = tf.convert_to_tensor(items)
        as_int32 = tf.convert_to_tensor(items, tf.int32)
        with tf.Session() as sess:
            got, got32 = sess.run([packed, as_int32])
    assert packed.dtype == tf.int64 and got.tolist() == values
    assert as_int32.dtype == tf.int32 and got32.tolist() == values
