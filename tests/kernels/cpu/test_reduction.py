"""CPU reduction kernels against numpy references: Sum/Mean/Prod/Max/Min/All/Any,
ArgMax/ArgMin, Cumsum/Cumprod, TopKV2/TopK and Bincount, with their error cases and
the reduction shape functions.

Inputs are made read-only so a kernel that writes into its input fails loudly.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from kernel_checks import run, run1

from tfx.core import dtypes, limits
from tfx.core.errors import InvalidArgumentError, ResourceExhaustedError
from tfx.core.op_registry import get_op
from tfx.core.shapes import ShapeContext

BF16 = np.dtype(ml_dtypes.bfloat16)
FAST = settings(max_examples=25, deadline=None)


def axes_of(x: np.ndarray):
    """Strategy: a subset of x's axes, some written negative, as an int32 vector."""
    rank = x.ndim
    return st.lists(st.integers(0, max(rank - 1, 0)), unique=True, max_size=rank).flatmap(
        lambda axes: st.tuples(st.just(tuple(sorted(axes))),
                               st.lists(st.booleans(), min_size=len(axes), max_size=len(axes)))
    ).map(lambda pair: (pair[0], np.array([a - rank if neg else a for a, neg in zip(*pair)],
                                          np.int32)))


REDUCE_REF = {"Sum": np.sum, "Prod": np.prod, "Max": np.max, "Min": np.min, "Mean": np.mean}


# --- Sum, Mean, Prod, Max, Min, All, Any -----------------------------------------------


@FAST
@given(st.sampled_from(sorted(REDUCE_REF)), st.booleans(),
       hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=4, max_side=4),
                  elements=st.floats(-10, 10)), st.data())
def test_reductions_match_numpy(op, keep_dims, x, data):
    axes, indices = data.draw(axes_of(x))
    got = run1(op, x, indices, keep_dims=keep_dims)
    assert got.dtype == np.float64
    if not axes:
        np.testing.assert_array_equal(got, x)
        return
    want = REDUCE_REF[op](x, axis=axes, keepdims=keep_dims)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_reduction_axis_forms():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(run1("Sum", x, np.int32(-1)), x.sum(-1))
    np.testing.assert_array_equal(run1("Sum", x, np.array([2, 0], np.int64)), x.sum((0, 2)))
    np.testing.assert_array_equal(run1("Sum", x, np.zeros(0, np.int32)), x)
    np.testing.assert_array_equal(run1("Mean", x, np.array([0, 1, 2], np.int32),
                                       keep_dims=True), np.full((1, 1, 1), 11.5))
    assert run1("Sum", np.float32(3), np.zeros(0, np.int32)) == 3


@pytest.mark.parametrize("axis", [3, -4])
def test_reduction_axis_out_of_range(axis):
    with pytest.raises(InvalidArgumentError, match="Invalid reduction dimension"):
        run("Max", np.ones((2, 3, 4), np.float32), np.int32(axis))


@pytest.mark.parametrize("op", ["Sum", "Prod", "Mean", "EuclideanNorm", "Max", "Min"])
@pytest.mark.parametrize("axes, named", [((1, 1), 1), ((1, -1), 1), ((0, 1, 0), 0), ((-2, 0), 0)])
def test_reduction_refuses_an_axis_named_twice(op, axes, named):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(InvalidArgumentError,
                       match=f"Axes contains duplicate dimension: {named}$"):
        run(op, x, np.array(axes, np.int32))


@pytest.mark.parametrize("op", ["All", "Any"])
def test_logical_reduction_refuses_an_axis_named_twice(op):
    with pytest.raises(InvalidArgumentError, match="duplicate dimension: 1"):
        run(op, np.ones((2, 3), bool), np.array([1, -1], np.int64))


def test_reduction_shape_reduces_a_repeated_axis_once():
    # TensorFlow's shape function gives [2] and [2, 1] for axes [1, 1]; only its kernel refuses.
    sum_op = get_op("Sum")
    for keep, want in ((False, (2,)), (True, (2, 1))):
        attrs = {"T": dtypes.float32, "Tidx": dtypes.int32, "keep_dims": keep}
        ctx = ShapeContext("n", "Sum", attrs, [(2, 3), (2,)], [None, np.array([1, -1], np.int32)])
        assert sum_op.shape_fn(ctx) == [want]


def test_integer_sum_and_prod_keep_dtype_and_wrap():
    x = np.array([100, 100], np.int8)
    got = run1("Sum", x, np.int32(0))
    assert got.dtype == np.int8 and got == -56
    assert run1("Prod", np.array([2**20, 2**12], np.int32), np.int32(0)) == 0


def test_integer_mean_truncates_toward_zero_without_overflow():
    x = np.array([[-7, 0], [7, 0], [100, 100]], np.int8)
    got = run1("Mean", x, np.int32(1))
    np.testing.assert_array_equal(got, [-3, 3, 100])
    assert got.dtype == np.int8
    np.testing.assert_array_equal(run1("Mean", np.array([2**31 - 1] * 2, np.int32),
                                       np.int32(0)), 2**31 - 1)
    assert run1("Mean", np.array([5, 6], np.uint8), np.int32(0)) == 5


def test_low_precision_reductions_accumulate_in_float32():
    x = np.full(4096, 1.0, np.float16)
    got = run1("Sum", x, np.int32(0))
    assert got.dtype == np.float16 and got == 4096  # float16 running sums stall at 2048
    assert run1("Mean", x, np.int32(0)) == 1
    b = run1("Sum", np.ones(300, BF16), np.int32(0))
    assert b.dtype == BF16 and float(b) == 300


def test_complex_reductions():
    z = np.array([1 + 1j, 2 - 3j], np.complex64)
    assert run1("Sum", z, np.int32(0)) == 3 - 2j
    assert run1("Mean", z, np.int32(0)).dtype == np.complex64


def test_empty_reductions_give_identities():
    x = np.zeros((0, 3), np.float32)
    axis = np.int32(0)
    np.testing.assert_array_equal(run1("Sum", x, axis), [0, 0, 0])
    np.testing.assert_array_equal(run1("Prod", x, axis), [1, 1, 1])
    np.testing.assert_array_equal(run1("Max", x, axis), [-np.inf] * 3)
    np.testing.assert_array_equal(run1("Min", x, axis), [np.inf] * 3)
    assert np.isnan(run1("Mean", x, axis)).all()
    xi = np.zeros((0, 2), np.int32)
    np.testing.assert_array_equal(run1("Max", xi, axis), [-(2**31)] * 2)
    np.testing.assert_array_equal(run1("Mean", xi, axis), [0, 0])
    assert run1("All", np.zeros(0, bool), axis) and not run1("Any", np.zeros(0, bool), axis)


def test_all_any():
    x = np.array([[True, False], [True, True]])
    assert run1("All", x, np.int32(1)).tolist() == [False, True]
    assert run1("Any", x, np.int32(0), keep_dims=True).tolist() == [[True, True]]


def test_max_min_of_integers_and_bfloat16():
    x = np.array([[3, -9], [7, 2]], np.int64)
    np.testing.assert_array_equal(run1("Max", x, np.int32(0)), [7, 2])
    np.testing.assert_array_equal(run1("Min", x, np.int32(1)), [-9, 2])
    got = run1("Max", x.astype(BF16), np.int32(0))
    assert got.dtype == BF16 and got.astype(np.float32).tolist() == [7, 2]


def test_euclidean_norm():
    x = np.array([[3.0, 4.0], [6.0, 8.0]], np.float32)
    np.testing.assert_allclose(run1("EuclideanNorm", x, np.int32(1)), [5, 10])
    np.testing.assert_array_equal(run1("EuclideanNorm", np.array([3, 5], np.int32),
                                       np.int32(0)), 5)  # sqrt(34) truncated


# --- ArgMax / ArgMin -------------------------------------------------------------------


@FAST
@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                  elements=st.integers(-3, 3)), st.data())
def test_arg_reductions_match_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    if x.shape[axis] == 0:
        return
    np.testing.assert_array_equal(run1("ArgMax", x, np.int32(axis)), np.argmax(x, axis))
    np.testing.assert_array_equal(run1("ArgMin", x, np.int64(axis)), np.argmin(x, axis))


def test_arg_reductions_ties_types_and_errors():
    x = np.array([1.0, 5.0, 5.0, -2.0, -2.0], np.float32)
    got = run1("ArgMax", x, np.int32(0))
    assert got == 1 and got.dtype == np.int64  # first of the tied maxima; default output_type
    got = run1("ArgMin", x, np.int32(0), output_type=dtypes.int32)
    assert got == 3 and got.dtype == np.int32
    assert run1("ArgMax", np.array([False, True, True]), np.int32(0)) == 1
    with pytest.raises(InvalidArgumentError, match=r"range \[-1, 1\), but got 1"):
        run("ArgMax", x, np.int32(1))
    with pytest.raises(InvalidArgumentError, match="empty"):
        run("ArgMin", np.zeros((2, 0), np.float32), np.int32(1))
    with pytest.raises(InvalidArgumentError, match="scalar"):
        run("ArgMax", x, np.array([0], np.int32))


# --- Cumsum / Cumprod ------------------------------------------------------------------


def scan_reference(x, axis, op, exclusive, reverse):
    ufunc = np.add if op == "Cumsum" else np.multiply
    if reverse:
        x = np.flip(x, axis)
    out = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
    if exclusive:
        identity = np.full_like(np.take(x, [0], axis=axis), 0 if op == "Cumsum" else 1)
        out = np.concatenate([identity, np.delete(out, -1, axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@FAST
@given(st.sampled_from(["Cumsum", "Cumprod"]), st.booleans(), st.booleans(),
       hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                  elements=st.integers(-4, 4)), st.data())
def test_scans_match_reference(op, exclusive, reverse, x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    got = run1(op, x, np.int32(axis), exclusive=exclusive, reverse=reverse)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, scan_reference(x, axis, op, exclusive, reverse))


def test_scan_examples_and_errors():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(run1("Cumsum", x, np.int32(0)), [1, 3, 6])
    np.testing.assert_array_equal(run1("Cumsum", x, np.int32(0), exclusive=True), [0, 1, 3])
    np.testing.assert_array_equal(run1("Cumsum", x, np.int32(0), reverse=True), [6, 5, 3])
    np.testing.assert_array_equal(run1("Cumprod", x, np.int32(0), exclusive=True,
                                       reverse=True), [6, 3, 1])
    assert run1("Cumsum", x.astype(BF16), np.int32(0)).dtype == BF16
    with pytest.raises(InvalidArgumentError, match="scan axis in the range"):
        run("Cumsum", x, np.int32(1))
    with pytest.raises(InvalidArgumentError, match="scalar"):
        run("Cumprod", x, np.array([0], np.int32))


# --- TopKV2 / TopK ---------------------------------------------------------------------


def top_k_reference(x, k):
    """Descending by value, ties by ascending index, via a lexicographic sort per row."""
    rows = x.reshape(-1, x.shape[-1])
    index = np.arange(x.shape[-1])
    order = np.stack([np.lexsort((index, -row.astype(np.float64)))[:k] for row in rows])
    order = order.reshape(x.shape[:-1] + (k,))
    return np.take_along_axis(x, order, axis=-1), order


@FAST
@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                  elements=st.integers(-3, 3)), st.data())
def test_top_k_matches_reference(x, data):
    k = data.draw(st.integers(0, x.shape[-1]))
    values, indices = run("TopKV2", x, np.int32(k))
    want_values, want_indices = top_k_reference(x, k)
    np.testing.assert_array_equal(values, want_values)
    np.testing.assert_array_equal(indices, want_indices)
    assert np.asarray(indices).dtype == np.int32


def test_top_k_ties_types_and_v1():
    x = np.array([[3.0, 1.0, 3.0, 2.0]], np.float32)
    values, indices = run("TopKV2", x, np.int64(3), index_type=dtypes.int64)
    np.testing.assert_array_equal(values, [[3, 3, 2]])
    np.testing.assert_array_equal(indices, [[0, 2, 3]])
    assert np.asarray(indices).dtype == np.int64
    values, indices = run("TopK", x, k=2)
    np.testing.assert_array_equal(indices, [[0, 2]])
    values, _ = run("TopKV2", x.astype(np.float16), np.int32(1))
    assert np.asarray(values).dtype == np.float16


def test_top_k_errors():
    x = np.array([1.0, 2.0], np.float32)
    with pytest.raises(InvalidArgumentError, match="at least k columns. Had 2, needed 3"):
        run("TopKV2", x, np.int32(3))
    with pytest.raises(InvalidArgumentError, match="k >= 0"):
        run("TopKV2", x, np.int32(-1))
    with pytest.raises(InvalidArgumentError, match="1-D"):
        run("TopKV2", np.float32(1), np.int32(0))
    with pytest.raises(InvalidArgumentError, match="0-D"):
        run("TopKV2", x, np.array([1], np.int32))


# --- Bincount --------------------------------------------------------------------------


def test_bincount():
    arr = np.array([0, 2, 2, 5, 1], np.int32)
    got = run1("Bincount", arr, np.int32(4), np.zeros(0, np.float32))
    np.testing.assert_array_equal(got, [1, 1, 2, 0])  # 5 is past size and dropped
    assert got.dtype == np.float32
    weights = np.array([1.5, 2, 3, 4, 5], np.float64)
    np.testing.assert_array_equal(run1("Bincount", arr, np.int32(3), weights), [1.5, 5, 5])
    iw = np.array([10, 20, 30, 40, 2**40], np.int64)
    np.testing.assert_array_equal(run1("Bincount", arr, np.int32(6), iw),
                                  [10, 2**40, 50, 0, 0, 40])
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        run("Bincount", np.array([-1], np.int32), np.int32(2), np.zeros(0, np.int32))
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        run("Bincount", arr, np.int32(-1), np.zeros(0, np.int32))
    with pytest.raises(InvalidArgumentError, match="same shape"):
        run("Bincount", arr, np.int32(2), np.ones(2, np.int32))
    previous = limits.set_max_tensor_bytes(1 << 20)
    try:
        with pytest.raises(ResourceExhaustedError):
            run("Bincount", arr, np.int32(2**30), np.zeros(0, np.int32))
    finally:
        limits.set_max_tensor_bytes(previous)



# --- DenseBincount ---------------------------------------------------------------------
# Expected values and messages are TensorFlow 2.21's (tf.raw_ops.DenseBincount run in a
# tf.compat.v1 session on the same inputs).

F32_EMPTY = np.zeros(0, np.float32)


@pytest.mark.parametrize("data,size,weights,binary,expected", [
    ([1, 1, 3, 7, 0], 5, F32_EMPTY, False, np.float32([1, 2, 0, 1, 0])),
    ([1, 1, 3, 7, 0], 5, np.float32([.5, 1.5, 2, 9, 1]), False, np.float32([1, 2, 0, 2, 0])),
    ([1, 1, 3, 7, 0], 5, F32_EMPTY, True, np.float32([1, 1, 0, 1, 0])),
    ([1, 1, 3, 7, 0], 5, np.float32([.5, 1.5, 2, 9, 1]), True, np.float32([1, 1, 0, 1, 0])),
    (np.int64([1, 1, 3]), 4, np.int64([2, 3, 4]), False, np.int64([0, 5, 0, 4])),
    (2, 4, F32_EMPTY, False, np.float32([0, 0, 1, 0])),
    (2, 4, np.float32(3), False, np.float32([0, 0, 3, 0])),
    ([[1, 1, 3], [0, 2, 9]], 4, np.zeros(0, np.int32), False, np.int32([[0, 2, 0, 1],
                                                                        [1, 0, 1, 0]])),
    ([[1, 1, 3], [0, 2, 9]], 4, np.float64([[1, 2, 3], [4, 5, 6]]), False,
     np.float64([[0, 3, 0, 3], [4, 0, 5, 0]])),
    ([[1, 1, 3], [0, 2, 9]], 4, np.zeros(0, np.int32), True, np.int32([[0, 1, 0, 1],
                                                                       [1, 0, 1, 0]])),
    ([[1, 1, 3], [0, 2, 9]], 4, np.float64([[1, 2, 3], [4, 5, 6]]), True,
     np.float64([[0, 1, 0, 1], [1, 0, 1, 0]])),
    ([1, 2], 0, F32_EMPTY, False, np.zeros(0, np.float32)),
    (np.zeros((0, 3)), 3, F32_EMPTY, False, np.zeros((0, 3), np.float32)),
    (np.zeros(0), 3, F32_EMPTY, False, np.float32([0, 0, 0])),
])
def test_dense_bincount_matches_tensorflow(data, size, weights, binary, expected):
    index = np.asarray(data).dtype.type if np.asarray(data).dtype == np.int64 else np.int32
    got = run1("DenseBincount", np.asarray(data, index), index(size), weights,
               binary_output=binary)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("data,size,weights,message", [
    ([1, -1, 2], 4, F32_EMPTY, "^Input arr must be non-negative!$"),
    ([[1, -1, 2]], 4, F32_EMPTY,
     "^Input 'in' must be non-negative! Negative input value found: -1$"),
    ([1, 2], 3, np.ones(3, np.float32), "`weights` must be the same shape as `arr` or a "
     "length-0 `Tensor`, in which case it acts as all weights equal to 1. Received \\[3\\]$"),
    ([[1, 2]], 3, np.ones((1, 3), np.float32), "Received \\[1,3\\]$"),
    ([1, 2], -2, F32_EMPTY, "^size \\(-2\\) must be non-negative$"),
    ([[[1]]], 3, F32_EMPTY, "^Shape must be at most rank 2 but is rank 3$"),
])
def test_dense_bincount_errors_as_tensorflow(data, size, weights, message):
    for binary in (False, True):
        with pytest.raises(InvalidArgumentError, match=message):
            run("DenseBincount", np.asarray(data, np.int32), np.int32(size), weights,
                binary_output=binary)
    with pytest.raises(InvalidArgumentError, match="^Shape must be rank 0 but is rank 1$"):
        run("DenseBincount", np.int32([1]), np.int32([3]), F32_EMPTY)


def test_dense_bincount_shape_function_as_tensorflow():
    def infer(data, size_value, size_shape=()):
        schema = get_op("DenseBincount")
        attrs = {"T": dtypes.float32, "Tidx": dtypes.int32, "binary_output": False}
        ctx = ShapeContext("n", "DenseBincount", attrs, [data, size_shape, (0,)],
                           [None, size_value, None], 1)
        return schema.shape_fn(ctx)[0]

    four = np.int32(4)
    # (input shape, with size 4, with size unknown), as TensorFlow 2.21 infers them
    for data, known, unknown in [((), (4,), ()), ((None,), (4,), (None,)), ((5,), (4,), (None,)),
                                 ((None, 3), (None, 4), (None, None)),
                                 ((2, 3), (2, 4), (None, None)), (None, None, None)]:
        assert (infer(data, four), infer(data, None), infer(data, None, None)) == (
            known, unknown, unknown)
    with pytest.raises(InvalidArgumentError, match="size \\(-1\\) must be non-negative"):
        infer((2,), np.int32(-1))
    with pytest.raises(InvalidArgumentError, match="at most rank 2 but is rank 3"):
        infer((1, 1, 1), four)
    with pytest.raises(InvalidArgumentError, match="rank 0 but is rank 1"):
        infer((2,), None, (1,))


# --- shape functions -------------------------------------------------------------------


def infer(op: str, shapes: list, values: list | None = None, **attrs):
    schema = get_op(op)
    full = {name: spec.default for name, spec in schema.attrs.items()}
    full.update(attrs)
    ctx = ShapeContext("n", op, full, shapes, values or [], len(schema.outputs))
    return schema.shape_fn(ctx)


def test_reduction_shape_functions():
    shape = (2, None, 4)
    assert infer("Sum", [shape, (2,)], [None, np.array([0, -1])]) == [(None,)]
    assert infer("Sum", [shape, (2,)], [None, np.array([0, -1])], keep_dims=True) == [
        (1, None, 1)]
    assert infer("Mean", [shape, (None,)], keep_dims=True) == [(None, None, None)]
    assert infer("Max", [shape, (None,)]) == [None]
    assert infer("Max", [shape, (0,)]) == [shape]
    with pytest.raises(InvalidArgumentError, match="Invalid reduction dimension"):
        infer("Sum", [shape, ()], [None, np.array(3)])
    assert infer("ArgMax", [shape, ()], [None, np.array(1)]) == [(2, 4)]
    assert infer("ArgMax", [shape, ()]) == [(None, None)]
    assert infer("ArgMin", [(5,), ()]) == [()]
    assert infer("TopKV2", [(3, 7), ()], [None, np.array(2)]) == [(3, 2), (3, 2)]
    assert infer("TopK", [(3, 7)], k=4) == [(3, 4), (3, 4)]
    with pytest.raises(InvalidArgumentError):
        infer("TopKV2", [(3, 2), ()], [None, np.array(5)])
    assert infer("Cumsum", [shape, ()]) == [shape]
