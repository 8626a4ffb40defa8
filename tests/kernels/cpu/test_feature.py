"""SparseCross and Bucketize kernels (kernels/cpu/feature.py) fed hostile inputs, as an
untrusted graph would deliver them; their values against TensorFlow 2.21 are checked in
tests/api/test_feature_column.py.

TensorFlow 2.21 (tf.raw_ops.SparseCross in graph mode) crashes on a negative shape
(segfault), is killed for memory on a batch size of 2**40 and silently drops features
whose row is outside the batch; tfx refuses the first and last and answers the second.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf
from tfx.core import limits
from tfx.core.api.ops_api import apply_op
from tfx.core.eager import run_op


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _i64(*values):
    return np.array(values, np.int64)


INDICES = _i64(0, 0, 1, 0).reshape(2, 2)
VALUES = _i64(3, 4)


def _cross(indices, values, shapes, dense=(), hashed=False, **attrs):
    attrs.setdefault("sparse_types", [tf.int64] * len(values))
    return apply_op(
        "SparseCross", indices=list(indices), values=list(values), shapes=list(shapes),
        dense_inputs=list(dense), N=len(indices), hashed_output=hashed,
        num_buckets=10 if hashed else 0, hash_key=0,
        dense_types=[tf.int64] * len(dense), out_type=tf.int64 if hashed else tf.string,
        internal_type=tf.int64, name="cross", **attrs)


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_huge_batch_size_costs_only_the_rows_held():
    indices, values, shape = _run(_cross([INDICES], [VALUES], [_i64(1 << 40, 1)]))
    assert indices.tolist() == [[0, 0], [1, 0]]
    assert values.tolist() == [b"3", b"4"]
    assert shape.tolist() == [1 << 40, 1]
    empty = _cross([np.zeros((0, 2), np.int64)], [np.zeros(0, np.int64)], [_i64(1 << 40, 1)])
    indices, values, shape = _run(empty)
    assert indices.shape == (0, 2) and values.shape == (0,)
    assert shape.tolist() == [1 << 40, 0]


def test_only_rows_in_every_sparse_input_cross():
    other = _i64(1, 0, 1, 1).reshape(2, 2)
    indices, values, shape = _run(_cross([INDICES, other], [VALUES, _i64(7, 8)],
                                         [_i64(3, 1), _i64(3, 2)], [_i64(5, 6, 9).reshape(3, 1)]))
    assert indices.tolist() == [[1, 0], [1, 1]]
    assert values.tolist() == [b"4_X_7_X_6", b"4_X_8_X_6"]
    assert shape.tolist() == [3, 2]


@pytest.mark.parametrize("indices, shape, message", [
    (INDICES, _i64(-2, 1), r"Input shapes must not be negative but received \[-2, 1\] at "
                           "position 0"),
    (_i64(5, 0, 1, 0).reshape(2, 2), _i64(2, 1), r"Row index 5 out of range \[0, 2\)"),
    (_i64(-1, 0, 1, 0).reshape(2, 2), _i64(2, 1), r"Row index -1 out of range \[0, 2\)"),
])
def test_bad_shapes_and_rows_are_refused(indices, shape, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"node 'cross'.*" + message):
        _run(_cross([indices], [VALUES], [shape]))


def test_values_list_must_match_n():
    # sparse_types is its own list attr: a hand-written node can make it disagree with N.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected 2 sparse values \(one per indices and shapes input\) "
                             "but got 1"):
        run_op("SparseCross", [INDICES, INDICES, VALUES, _i64(2, 1), _i64(2, 1)],
               N=2, sparse_types=[tf.int64], dense_types=[], hashed_output=False,
               num_buckets=0, hash_key=0, out_type=tf.string, internal_type=tf.int64)


@pytest.mark.parametrize("hashed", [True, False])
def test_a_multiplying_cross_hits_the_allocation_limit(hashed):
    # 3000 features in each of 3 inputs of one row: 27e9 crosses.
    many = np.zeros((3000, 2), np.int64)
    values = np.arange(3000, dtype=np.int64)
    out = _cross([many] * 3, [values] * 3, [_i64(1, 1)] * 3, hashed=hashed)
    with pytest.raises(tf.errors.ResourceExhaustedError,
                       match=r"node 'cross'.*\[27000000000, 2\] int64.*over the limit"):
        _run(out)


def test_long_crossed_strings_hit_the_allocation_limit():
    previous = limits.set_max_tensor_bytes(1 << 20)
    try:
        # 30 x 30 crosses of 4000 + 3 + 4000 bytes each: 7.2 MB of strings, few indices.
        long = np.array([b"x" * 4000] * 30, object)
        out = apply_op(
            "SparseCross", indices=[np.zeros((30, 2), np.int64)] * 2, values=[long] * 2,
            shapes=[_i64(1, 1)] * 2, dense_inputs=[], N=2, hashed_output=False,
            num_buckets=0, hash_key=0, sparse_types=[tf.string] * 2, dense_types=[],
            out_type=tf.string, internal_type=tf.string, name="cross")
        with pytest.raises(tf.errors.ResourceExhaustedError,
                           match=r"node 'cross'.*crossed strings.*7202700 bytes"):
            _run(out)
    finally:
        limits.set_max_tensor_bytes(previous)


@pytest.mark.parametrize("values, want", [
    # recorded with TensorFlow 2.21: NaN is in the last bucket
    ([np.nan, np.inf, -np.inf, 0.0], [2, 2, 0, 1]),
    ([], []),
])
def test_bucketize_nan_inf_and_empty(values, want):
    (ids,) = run_op("Bucketize", [np.array(values, np.float32)], boundaries=[0.0, 1.0])
    assert ids.dtype == np.int32 and ids.tolist() == want


def test_bucketize_compares_integers_in_float32_as_tensorflow():
    # recorded with TensorFlow 2.21: 33554435 rounds to the float32 boundary 33554436
    (ids,) = run_op("Bucketize", [_i64(33554435, 33554436, 2**62)],
                    boundaries=[33554436.0, 4.611686e18])
    assert ids.tolist() == [1, 1, 2]
    (ids,) = run_op("Bucketize", [np.array([33554435, 33554436], np.int32)],
                    boundaries=[33554436.0])
    assert ids.tolist() == [1, 1]
    (ids,) = run_op("Bucketize", [np.array([33554435.5, 33554436.0])], boundaries=[33554436.0])
    assert ids.tolist() == [0, 1]
