"""tf.sort, tf.argsort, tf.repeat, tf.bincount and tf.make_tensor_proto / tf.make_ndarray
against TensorFlow 2.21's values (tf.compat.v1 graph mode, same inputs), static shapes
included. These tests need no TensorFlow.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tfx as tf
from tfx.core.api.importer import import_graph_def

X = np.array([[3, 1, 2, 1], [0, -5, 7, 0], [2, 2, 2, -1]], np.float32)
# (function, axis, direction) -> TensorFlow's value for X as float32, int32 and int64
# fmt: off
SORTS = {
    ("sort", -1, "ASCENDING"): [[1, 1, 2, 3], [-5, 0, 0, 7], [-1, 2, 2, 2]],
    ("argsort", -1, "ASCENDING"): [[1, 3, 2, 0], [1, 0, 3, 2], [3, 0, 1, 2]],
    ("sort", -1, "DESCENDING"): [[3, 2, 1, 1], [7, 0, 0, -5], [2, 2, 2, -1]],
    ("argsort", -1, "DESCENDING"): [[0, 2, 1, 3], [2, 0, 3, 1], [0, 1, 2, 3]],
    ("sort", 0, "ASCENDING"): [[0, -5, 2, -1], [2, 1, 2, 0], [3, 2, 7, 1]],
    ("argsort", 0, "ASCENDING"): [[1, 1, 0, 2], [2, 0, 2, 1], [0, 2, 1, 0]],
    ("sort", 0, "DESCENDING"): [[3, 2, 7, 1], [2, 1, 2, 0], [0, -5, 2, -1]],
    ("argsort", 0, "DESCENDING"): [[0, 2, 1, 0], [2, 0, 0, 1], [1, 1, 2, 2]],
}
# the same for abs(X) as uint8 (sorted through max - x)
UINT8_SORTS = {
    ("sort", -1, "ASCENDING"): [[1, 1, 2, 3], [0, 0, 5, 7], [1, 2, 2, 2]],
    ("argsort", -1, "ASCENDING"): [[1, 3, 2, 0], [0, 3, 1, 2], [3, 0, 1, 2]],
    ("sort", 0, "DESCENDING"): [[3, 5, 7, 1], [2, 2, 2, 1], [0, 1, 2, 0]],
    ("argsort", 0, "DESCENDING"): [[0, 1, 1, 0], [2, 2, 0, 2], [1, 0, 2, 1]],
}
# fmt: on


def _run(*tensors, feed=None):
    with tf.Session() as sess:
        return sess.run(list(tensors), feed)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("key", sorted(SORTS))
def test_sort_and_argsort_match_tensorflow(dtype, key):
    fn, axis, direction = key
    (got,) = _run(getattr(tf, fn)(X.astype(dtype), axis, direction))
    assert got.dtype == (np.int32 if fn == "argsort" else dtype)
    np.testing.assert_array_equal(got, SORTS[key])


@pytest.mark.parametrize("key", sorted(UINT8_SORTS))
def test_sort_unsigned_matches_tensorflow(key):
    fn, axis, direction = key
    (got,) = _run(getattr(tf, fn)(np.abs(X).astype(np.uint8), axis, direction))
    np.testing.assert_array_equal(got, UINT8_SORTS[key])


def test_sort_middle_axis_and_unknown_rank():
    v = np.arange(24, dtype=np.int32).reshape(2, 3, 4) % 5
    unknown = tf.placeholder(tf.float32, None)
    got = _run(tf.sort(v, 1), tf.argsort(v, 1, "DESCENDING"), tf.sort(unknown, 0),
               tf.argsort(unknown, -2, "DESCENDING"), feed={unknown: X})
    np.testing.assert_array_equal(got[0], [[[0, 0, 0, 1], [3, 1, 1, 2], [4, 4, 2, 3]],
                                           [[0, 1, 2, 0], [1, 2, 3, 3], [2, 3, 4, 4]]])
    np.testing.assert_array_equal(got[1], [[[1, 2, 0, 0], [2, 0, 1, 1], [0, 1, 2, 2]],
                                           [[0, 0, 0, 1], [1, 1, 1, 2], [2, 2, 2, 0]]])
    np.testing.assert_array_equal(got[2], SORTS[("sort", 0, "ASCENDING")])
    np.testing.assert_array_equal(got[3], SORTS[("argsort", 0, "DESCENDING")])


def test_sort_int32_extremes_and_errors():
    (got,) = _run(tf.sort(np.array([2**31 - 1, -(2**31), 0], np.int32)))
    np.testing.assert_array_equal(got, [-(2**31), 0, 2**31 - 1])
    with pytest.raises(ValueError, match="direction"):
        tf.sort(X, direction="UP")
    with pytest.raises(ValueError, match="constant scalar"):
        tf.sort(X, tf.placeholder(tf.int32, []))


# fmt: off
M = np.arange(6, dtype=np.float32).reshape(2, 3)
M3 = np.arange(24).reshape(2, 3, 4)
REPEATS = [  # (input, repeats, axis, TensorFlow's static shape, TensorFlow's value)
    (M, 2, None, [12], [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]),
    (M, [2, 0], 0, [None, 3], [[0, 1, 2], [0, 1, 2]]),
    (M, [1, 0, 3], 1, [2, 4], [[0, 2, 2, 2], [3, 5, 5, 5]]),
    (M, 3, 1, [2, 9], [[0, 0, 0, 1, 1, 1, 2, 2, 2], [3, 3, 3, 4, 4, 4, 5, 5, 5]]),
    (M, [2], -1, [2, 6], [[0, 0, 1, 1, 2, 2], [3, 3, 4, 4, 5, 5]]),
    (3, 4, None, [4], [3, 3, 3, 3]),
    (M, [1, 2, 0, 1, 1, 3], None, [None], [0, 1, 1, 3, 4, 5, 5, 5]),
    (M, 0, 0, [0, 3], np.zeros((0, 3))),
    (M3, [1, 2, 0], 1, [2, 3, 4], [[[0, 1, 2, 3], [4, 5, 6, 7], [4, 5, 6, 7]],
                                   [[12, 13, 14, 15], [16, 17, 18, 19], [16, 17, 18, 19]]]),
]
# fmt: on


@pytest.mark.parametrize("case", range(len(REPEATS)))
def test_repeat_matches_tensorflow(case):
    data, repeats, axis, static, expected = REPEATS[case]
    out = tf.repeat(data, repeats, axis)
    assert out.shape.as_list() == static
    np.testing.assert_array_equal(_run(out)[0], expected)


def test_repeat_with_unknown_rows():
    rows = tf.placeholder(tf.float32, [None, 3])
    by_row, by_column = tf.repeat(rows, [1, 2], 0), tf.repeat(rows, [3, 0, 1], 1)
    assert (by_row.shape.as_list(), by_column.shape.as_list()) == ([None, 3], [None, 4])
    got = _run(by_row, by_column, feed={rows: M})
    np.testing.assert_array_equal(got[0], [[0, 1, 2], [3, 4, 5], [3, 4, 5]])
    np.testing.assert_array_equal(got[1], [[0, 0, 0, 2], [3, 3, 3, 5]])


A = np.array([[1, 1, 3], [0, 7, 3]], np.int32)
W = np.array([[0.5, 1, 2], [3, 4, 5]], np.float32)


def test_bincount_matches_tensorflow():
    cases = [tf.bincount(A), tf.math.bincount(A, minlength=10), tf.bincount(A, maxlength=4),
             tf.bincount(A, weights=W), tf.bincount(A, weights=W, maxlength=2, minlength=5),
             tf.bincount(np.zeros(0, np.int32)), tf.bincount(A, dtype=tf.float64)]
    assert [c.shape.as_list() for c in cases] == [[8], [10], [4], [8], [2], [0], [8]]
    got = _run(*cases)
    expected = [[1, 2, 0, 2, 0, 0, 0, 1], [1, 2, 0, 2, 0, 0, 0, 1, 0, 0], [1, 2, 0, 2],
                [3, 1.5, 0, 7, 0, 0, 0, 4], [3, 1.5], [], [1, 2, 0, 2, 0, 0, 0, 1]]
    for value, want, dtype in zip(got, expected, ["int32"] * 3 + ["float32"] * 2 +
                                  ["int32", "float64"]):
        assert value.dtype == dtype
        np.testing.assert_array_equal(value, want)
    rows = tf.placeholder(tf.int32, [None])
    assert tf.bincount(rows).shape.as_list() == [None]
    np.testing.assert_array_equal(_run(tf.bincount(rows), feed={rows: [2, 0]})[0], [1, 0, 1])


# (values, kwargs, TensorFlow's make_ndarray(make_tensor_proto(values, **kwargs)))
PROTOS = [
    ([1, 2], {"shape": [4]}, np.array([1, 2, 2, 2], np.int32)),
    ([], {"shape": [3], "dtype": tf.float32}, np.zeros(3, np.float32)),
    (1.5, {}, np.float32(1.5)),
    (7, {"shape": [2, 2]}, np.full((2, 2), 7, np.int32)),
    (["a", "bc"], {}, np.array([b"a", b"bc"], object)),
    (3, {"dtype": tf.int64}, np.int64(3)),
    (np.array([1.0, 2.0]), {"dtype": tf.float16}, np.array([1, 2], np.float16)),
    (2**40, {}, np.int64(2**40)),
]


@pytest.mark.parametrize("case", range(len(PROTOS)))
def test_make_tensor_proto_round_trips_as_tensorflow(case):
    values, kwargs, expected = PROTOS[case]
    got = tf.make_ndarray(tf.make_tensor_proto(values, **kwargs))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.flags.writeable
    np.testing.assert_array_equal(got, expected)


def test_make_tensor_proto_errors_and_cast():
    with pytest.raises(ValueError, match="Too many elements provided. Takes at most 2, but got 3"):
        tf.make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(1, 2\), but got \(2,\)"):
        tf.make_tensor_proto([1, 2], shape=[1, 2], verify_shape=True)
    with pytest.raises(TypeError, match="Expected int32, but got 1.5 of type 'float'"):
        tf.make_tensor_proto([1.5], dtype=tf.int32)
    got = tf.make_ndarray(tf.make_tensor_proto([1, 2, 3]), dtype=np.float32)
    assert got.dtype == np.float32 and got.tolist() == [1, 2, 3]


def test_tensorflow_dense_bincount_graph_runs_with_tensorflows_values():
    """tests/data/tf_graphs/dense_bincount.pb: TensorFlow 2.21's tf.math.bincount (the v2
    function, in a tf.compat.v1 graph) builds DenseBincount nodes; fed x and m, TF fetched
    the values below."""
    path = Path(__file__).resolve().parent.parent / "data" / "tf_graphs" / "dense_bincount.pb"
    with tf.Graph().as_default() as graph:
        import_graph_def(str(path), name="")
        assert {op.type for op in graph.get_operations()} >= {"DenseBincount"}
        fetches = [graph.get_tensor_by_name(n) for n in ("counts:0", "weighted:0", "rows:0")]
        with tf.Session() as sess:
            counts, weighted, rows = sess.run(fetches, {"x:0": [1, 1, 3, 5, 0, 2],
                                                        "m:0": [[0, 2, 2], [4, 1, 1]]})
    np.testing.assert_array_equal(counts, np.int32([1, 2, 1, 1, 0, 1]))
    np.testing.assert_array_equal(weighted, np.float32([0, 1, 1, 1.5]))
    np.testing.assert_array_equal(rows, np.int32([[1, 0, 1, 0, 0], [0, 1, 0, 0, 1]]))
    assert (counts.dtype, weighted.dtype, rows.dtype) == (np.int32, np.float32, np.int32)
