"""CPU kernels: reductions, scans, arg-reductions, top-k, Bincount and DenseBincount.

TensorFlow's semantics, vectorized with numpy:

- reduction axes come from a scalar or vector tensor, may be negative and may
  repeat; an axis out of range is InvalidArgumentError; no axes returns the
  input unchanged (EuclideanNorm still takes |x|); keep_dims leaves reduced
  axes as size 1;
- Sum and Prod keep the input dtype (integers wrap); bfloat16 sums (Sum, Mean,
  EuclideanNorm) accumulate in float32 and round once, float16 reductions and
  bfloat16 products accumulate in their own type, as TensorFlow's do;
- Mean of integers sums in 64 bits and divides truncating toward zero, as
  TensorFlow's MeanReducer does; the mean over zero elements is nan for
  real floats and 0 for integers and complex numbers; Max and Min over zero
  elements give their identities (-inf/+inf, or the integer type's bounds);
- ArgMax/ArgMin return the first index of the extreme value, in output_type,
  skipping NaNs;
- TopKV2 sorts descending and breaks ties by the lower index, like TensorFlow;
  with sorted=False it leaves the k entries in the order TensorFlow's CPU
  kernel's heap does;
- Cumsum, Cumprod and CumulativeLogsumexp support exclusive and reverse;
  CumulativeLogsumexp steps as TensorFlow's does, NaN and infinities included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core import dtypes, limits
from tfx.core.arrays import as_array, namespace, ufunc_at
from tfx.core.dtypes import NUMBERS, REALS
from tfx.core.errors import InvalidArgumentError
from tfx.kernels.base import OpKernel, register_kernel


def _shape(x: Any) -> list[int]:
    return list(np.shape(x))


def _scalar_int(value: Any, what: str) -> int:
    if np.ndim(value) != 0:
        raise InvalidArgumentError(f"{what} must be a scalar, not shape {_shape(value)}")
    return int(value)


def _reduction_axes(indices: Any, rank: int) -> tuple[int, ...]:
    """The sorted, non-negative axes named by a reduction_indices tensor.

    An axis named twice (1 and 1, or -1 and rank - 1) is an error, as in TensorFlow.
    """
    axes = set()
    for axis in np.asarray(indices).reshape(-1).tolist():  # a handful of axes, not elements
        if not -rank <= axis < rank:
            raise InvalidArgumentError(
                f"Invalid reduction dimension ({axis} for input with {rank} dimension(s)"
            )
        if axis % rank in axes:
            raise InvalidArgumentError(
                "Invalid reduction arguments: Axes contains duplicate dimension: "
                f"{axis % rank}"
            )
        axes.add(axis % rank)
    return tuple(sorted(axes))


def _accumulator(dtype: np.dtype) -> np.dtype:
    """TensorFlow sums bfloat16 in float32 but float16 in float16: numpy's half loops do the
    same, pairwise in float32 along the contiguous axis and rounding after every step across
    the others (4096 ones sum to 4096 along a row, to 2048 down a column)."""
    return np.dtype(np.float32) if dtype == dtypes.bfloat16.np else dtype


class _Reduce(OpKernel):
    """Reduce input over the axes in reduction_indices."""

    def setup(self, keep_dims: bool = False, **attrs: Any) -> None:
        self._keep = keep_dims
        self._dtype = self.input_types[0].np
        self._acc = _accumulator(self._dtype)

    def compute(self, x, reduction_indices):
        axes = _reduction_axes(reduction_indices, np.ndim(x))
        if not axes:
            return (x,)
        return (self.reduce(as_array(x), axes),)

    def reduce(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError


@register_kernel("Sum", "CPU", T=NUMBERS)
class Sum(_Reduce):
    def reduce(self, x, axes):
        total = np.add.reduce(x, axis=axes, dtype=self._acc, keepdims=self._keep)
        return as_array(total).astype(self._dtype, copy=False)


@register_kernel("Prod", "CPU", T=NUMBERS)
class Prod(_Reduce):
    def setup(self, **attrs: Any) -> None:
        super().setup(**attrs)
        self._acc = self._dtype  # even bfloat16 products round after every factor

    def reduce(self, x, axes):
        with np.errstate(all="ignore"):
            product = np.multiply.reduce(x, axis=axes, dtype=self._acc, keepdims=self._keep)
        return as_array(product).astype(self._dtype, copy=False)


@register_kernel("Mean", "CPU", T=NUMBERS)
class Mean(_Reduce):
    def setup(self, **attrs: Any) -> None:
        super().setup(**attrs)
        dtype = self.input_types[0]
        self._integer = dtype.is_integer
        # TensorFlow's mean over no elements is 0 for integers and complex numbers, nan for
        # real floats.
        self._empty_is_zero = dtype.is_integer or dtype.is_complex
        if self._integer:
            # TensorFlow sums narrow integers in 64 bits so the mean cannot overflow.
            self._acc = np.dtype(np.uint64 if dtype in dtypes.UNSIGNED_INTS else np.int64)

    def reduce(self, x, axes):
        count = 1
        for axis in axes:
            count *= x.shape[axis]
        total = as_array(np.add.reduce(x, axis=axes, dtype=self._acc, keepdims=self._keep))
        if count == 0 and self._empty_is_zero:
            return namespace(total).zeros(total.shape, self._dtype)
        if self._integer:
            quotient = total // count
            # C++ integer division truncates toward zero; floor division rounds negatives down.
            quotient += (total < 0) & (total % count != 0)
            return quotient.astype(self._dtype)
        with np.errstate(all="ignore"):  # 0/0 is the nan TensorFlow returns for no elements
            mean = total / self._acc.type(count)
        return mean.astype(self._dtype, copy=False)


@register_kernel("EuclideanNorm", "CPU", T=NUMBERS)
class EuclideanNorm(_Reduce):
    """sqrt(sum(x * conj(x))); for integers the root is truncated back to T. With no axes it
    is still taken elementwise (|x|, or the root of a wrapped integer square); complex norms
    have an imaginary part of exactly 0."""

    def compute(self, x, reduction_indices):
        return (self.reduce(as_array(x), _reduction_axes(reduction_indices, np.ndim(x))),)

    def reduce(self, x, axes):
        with np.errstate(all="ignore"):
            if np.iscomplexobj(x):
                squares = x.real * x.real + x.imag * x.imag
                acc = squares.dtype
            else:
                wide = x.astype(self._acc, copy=False)  # bfloat16 squares are not rounded
                squares, acc = wide * wide, self._acc
            total = np.add.reduce(squares, axis=axes, dtype=acc, keepdims=self._keep)
            return as_array(np.sqrt(total)).astype(self._dtype)


@register_kernel(["Max", "Min"], "CPU", T=REALS)
class MaxMin(_Reduce):
    def setup(self, **attrs: Any) -> None:
        super().setup(**attrs)
        is_max = self.op == "Max"
        # np.amax, not np.maximum.reduce: CuPy has no reduce for maximum and minimum.
        self._reduce = np.amax if is_max else np.amin
        if self.input_types[0].is_floating:
            self._identity = -np.inf if is_max else np.inf
        else:
            info = np.iinfo(self._dtype)
            self._identity = info.min if is_max else info.max
        # bfloat16 compares exactly in float32; other types reduce natively.
        self._wide = np.float32 if self._dtype == dtypes.bfloat16.np else None

    def reduce(self, x, axes):
        if self._wide is not None:
            x = x.astype(self._wide)
        if not x.size:  # the identity (CuPy's reduce takes no `initial`)
            shape = [1 if i in axes else d for i, d in enumerate(x.shape)]
            out = namespace(x).full(shape, self._identity, dtype=self._dtype)
            return out if self._keep else out.reshape([d for i, d in enumerate(x.shape)
                                                       if i not in axes])
        result = self._reduce(x, axis=axes, keepdims=self._keep)
        return as_array(result).astype(self._dtype, copy=False)


@register_kernel(["All", "Any"], "CPU")
class AllAny(_Reduce):
    def setup(self, **attrs: Any) -> None:
        super().setup(**attrs)
        # np.all, not np.logical_and.reduce: CuPy has no reduce for the logical ufuncs.
        self._reduce = np.all if self.op == "All" else np.any

    def reduce(self, x, axes):
        return as_array(self._reduce(x, axis=axes, keepdims=self._keep))


@register_kernel(["ArgMax", "ArgMin"], "CPU", T=REALS | {dtypes.bool_})
class ArgMaxMin(OpKernel):
    """Index of the first largest (ArgMax) or smallest (ArgMin) value along an axis.

    For floats TensorFlow starts from index 0 holding the type's lowest (highest) finite
    value and moves only to a strictly larger (smaller) one, so NaNs are skipped and a
    slice with nothing beyond that bound (all NaN, or only -inf and lowest()) gives 0.
    """

    def setup(self, **attrs: Any) -> None:
        self._is_max = self.op == "ArgMax"
        self._fn = np.argmax if self._is_max else np.argmin
        self._out = self.output_types[0].np
        dtype = self.input_types[0]
        self._wide = np.float32 if dtype.np == dtypes.bfloat16.np else None
        self._bound = None
        if dtype.is_floating:
            import ml_dtypes  # a dependency; its finfo also knows bfloat16

            largest = float(ml_dtypes.finfo(dtype.np).max)
            self._bound = -largest if self._is_max else largest

    def compute(self, x, dimension):
        dim = _scalar_int(dimension, "dimension")
        rank = np.ndim(x)
        if not -rank <= dim < rank:
            raise InvalidArgumentError(
                f"Expected dimension in the range [{-rank}, {rank}), but got {dim}"
            )
        axis = dim % rank
        if np.shape(x)[axis] == 0:
            raise InvalidArgumentError(f"Reduction axis {axis} is empty in shape {_shape(x)}")
        if self._wide is not None:
            x = x.astype(self._wide)
        index = self._fn(x, axis=axis)
        if self._bound is not None:
            index = self._skip_nan(as_array(x), axis, index)
        return (as_array(index).astype(self._out),)

    def _skip_nan(self, x: np.ndarray, axis: int, index: np.ndarray) -> np.ndarray:
        """numpy's pick where it is TensorFlow's; numpy picks the first NaN instead, and the
        first of equal values at or past the bound, so those slices are searched again."""
        picked = np.take_along_axis(x, np.expand_dims(index, axis), axis)
        beyond = picked > self._bound if self._is_max else picked < self._bound
        if beyond.all():  # no NaN anywhere (numpy would have picked it): the common case
            return index
        ignored = np.isnan(x) | ~(x > self._bound if self._is_max else x < self._bound)
        fill = -np.inf if self._is_max else np.inf
        return self._fn(np.where(ignored, fill, x), axis=axis)


def _scan_axis(axis: Any, rank: int) -> int:
    if np.ndim(axis) != 0:
        raise InvalidArgumentError(f"ScanOp: axis must be a scalar, not {_shape(axis)}")
    a = int(axis)
    if not -rank <= a < rank:
        raise InvalidArgumentError(
            f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got {a}"
        )
    return a % rank


@register_kernel(["Cumsum", "Cumprod"], "CPU", T=NUMBERS)
class Scan(OpKernel):
    """Cumulative sum or product along an axis; exclusive starts from the identity."""

    def setup(self, exclusive: bool = False, reverse: bool = False, **attrs: Any) -> None:
        self._exclusive, self._reverse = exclusive, reverse
        self._ufunc = np.add if self.op == "Cumsum" else np.multiply
        self._identity = 0 if self.op == "Cumsum" else 1
        # Every type scans natively, rounding each partial sum to T as Eigen does (bfloat16
        # included: TensorFlow's running bfloat16 sum is not kept in float32).
        self._dtype = self._acc = self.input_types[0].np

    def compute(self, x, axis):
        a = _scan_axis(axis, np.ndim(x))
        x = as_array(x)
        if self._reverse:
            x = np.flip(x, a)
        with np.errstate(all="ignore"):
            if self._exclusive:
                out = namespace(x).empty(x.shape, self._acc)
                head = (slice(None),) * a + (slice(0, 1),)
                tail = (slice(None),) * a + (slice(1, None),)
                out[head] = self._identity
                if x.shape[a] > 1:
                    body = (slice(None),) * a + (slice(None, -1),)
                    self._ufunc.accumulate(x[body], axis=a, dtype=self._acc, out=out[tail])
            else:
                out = self._ufunc.accumulate(x, axis=a, dtype=self._acc)
        if self._reverse:
            out = np.flip(out, a)
        return (out.astype(self._dtype, copy=False),)


def _log_add_exp(acc: np.ndarray, x: np.ndarray) -> np.ndarray:
    """One step of TensorFlow's cumulative log-sum-exp: max + log1p(exp(min - max)).

    A NaN `x` counts as `acc` in both the max and the min (so it adds log 2 to `acc`); a
    max of -inf stays -inf; inf with inf is NaN. 16-bit floats round after every op, as
    TensorFlow's do; numpy's logaddexp gives TensorFlow's float and double values.
    """
    with np.errstate(all="ignore"):
        high = np.where(x > acc, x, acc)
        low = np.where(x < acc, x, acc)
        gap = low - high
        if high.dtype.itemsize >= 4:
            out = np.where(np.isnan(gap), gap, np.logaddexp(high, low))
        else:
            out = high + np.log1p(np.exp(gap))
    return np.where(high == -np.inf, high, out)


@register_kernel("CumulativeLogsumexp", "CPU", T=dtypes.FLOATS)
class CumulativeLogsumexp(OpKernel):
    """log(cumsum(exp(x))) along an axis without overflow; exclusive starts from -inf."""

    def setup(self, exclusive: bool = False, reverse: bool = False, **attrs: Any) -> None:
        self._exclusive, self._reverse = exclusive, reverse

    def compute(self, x, axis):
        a = _scan_axis(axis, np.ndim(x))
        x = np.moveaxis(np.asarray(x), a, 0)
        if self._reverse:
            x = x[::-1]
        out = np.empty_like(x)
        if len(x) and x.dtype.itemsize >= 4 and np.isfinite(x).all():
            # Without NaN or infinities, the steps are numpy's logaddexp: scan in C.
            if self._exclusive:
                out[0] = -np.inf
                np.logaddexp.accumulate(x[:-1], axis=0, out=out[1:])
            else:
                np.logaddexp.accumulate(x, axis=0, out=out)
        else:
            acc = np.full(x.shape[1:], -np.inf, x.dtype)
            for i in range(len(x)):
                if self._exclusive:
                    out[i] = acc
                acc = _log_add_exp(acc, x[i])
                if not self._exclusive:
                    out[i] = acc
        if self._reverse:
            out = out[::-1]
        return (np.moveaxis(out, 0, a),)


# Entries of a TopKV2 row screened against the heap's worst entry at once (numpy), before
# the few that may enter are pushed one by one.
_TOP_K_CHUNK = 4096


@register_kernel(["TopKV2", "TopK"], "CPU", T=REALS)
class TopK(OpKernel):
    """The k largest entries of the last axis.

    Sorted, they run descending with ties by the lower index. With sorted=False they come
    in TensorFlow's CPU kernel's order, which follows from its algorithm and is
    deterministic: k == 1 and k == n are sorted anyway (a max scan; a full sort), and for
    1 < k < n a heap of the k best (gtl::TopN over the column indices, worst at the root,
    ties by the lower index) is read out in array order: the first k + 1 columns are
    heapified and the worst dropped, then each later column better than the root replaces
    it by pop_heap and push_heap over the k entries (libstdc++'s heap algorithms, replayed
    by `_heap_top_k`). Verified against TensorFlow 2.21 on every permutation of 4 to 7
    distinct values, on ties, and on rows up to 20000 long.
    """

    def setup(self, **attrs: Any) -> None:
        self._k = attrs.get("k")  # TopK has k as an attr, TopKV2 as an input
        self._sorted = attrs.get("sorted", True)
        self._index = self.output_types[1].np
        self._wide = np.float32 if self.input_types[0].np == dtypes.bfloat16.np else None

    def compute(self, x, k=None):
        if self._k is not None:
            k = self._k
        elif np.ndim(k) != 0:
            raise InvalidArgumentError(f"k must be 0-D, got shape {_shape(k)}")
        k = int(k)
        if k < 0:
            raise InvalidArgumentError(f"Need k >= 0, got {k}")
        if np.ndim(x) < 1:
            raise InvalidArgumentError(f"input must be >= 1-D, got shape {_shape(x)}")
        x = as_array(x)
        n = x.shape[-1]
        if n < k:
            raise InvalidArgumentError(f"input must have at least k columns. Had {n}, needed {k}")
        keys = x if self._wide is None else x.astype(self._wide)
        if not self._sorted and 1 < k < n:
            xp = namespace(x)
            rows = keys.reshape(-1, n)
            if xp is not np:  # the heap walks each row on the host
                rows = xp.asnumpy(rows)
            indices = np.array([_heap_top_k(row, k) for row in rows], np.int64)
            indices = xp.asarray(indices.reshape(x.shape[:-1] + (k,)))
        else:
            # A stable ascending sort of the reversed row, read backwards, is descending
            # with equal values in increasing index order.
            order = np.argsort(keys[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :k]
            indices = (n - 1) - order
        values = np.take_along_axis(x, indices, axis=-1)
        return values, indices.astype(self._index)


def _heap_top_k(row: np.ndarray, k: int) -> list[int]:
    """The columns of TensorFlow's unsorted top k of `row` (1 < k < len(row)), in its order.

    `better(a, b)` is the kernel's stable comparator: a larger value, or an equal (or
    unordered, NaN) one at a lower index. As a libstdc++ heap's "less" it keeps the worst
    column at the root.
    """
    values = row.tolist()

    def better(a: int, b: int) -> bool:
        return values[b] < values[a] or (not values[b] > values[a] and a < b)

    heap = list(range(k + 1))
    for parent in range((k - 1) // 2, -1, -1):  # std::make_heap
        _sift_down(heap, parent, k + 1, heap[parent], better)
    _pop_heap(heap, k + 1, better)
    for start in range(k + 1, len(values), _TOP_K_CHUNK):
        # A later column ties the root at a higher index, so only a strictly larger value
        # can enter; the root only improves, so these candidates are checked again.
        block = row[start : start + _TOP_K_CHUNK]
        for column in (start + np.flatnonzero(block > values[heap[0]])).tolist():
            if better(column, heap[0]):
                _pop_heap(heap, k, better)
                heap[k - 1] = column
                _sift_up(heap, k - 1, 0, column, better)  # std::push_heap
    return heap[:k]


def _sift_up(heap: list[int], hole: int, top: int, value: int, better: Any) -> None:
    """libstdc++'s __push_heap: move `value` up from `hole` while its parent is better."""
    parent = (hole - 1) // 2
    while hole > top and better(heap[parent], value):
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value


def _sift_down(heap: list[int], hole: int, length: int, value: int, better: Any) -> None:
    """libstdc++'s __adjust_heap: walk the hole down to a leaf by the worse child, then
    place `value` by sifting it up."""
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if better(heap[child], heap[child - 1]):
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    _sift_up(heap, hole, top, value, better)


def _pop_heap(heap: list[int], length: int, better: Any) -> None:
    """std::pop_heap over heap[:length]: the root moves to length - 1."""
    if length > 1:
        value = heap[length - 1]
        heap[length - 1] = heap[0]
        _sift_down(heap, 0, length - 1, value, better)


@register_kernel("Bincount", "CPU", T=(dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64))
class Bincount(OpKernel):
    """Counts (or sums weights) of each value of arr in [0, size); larger values are dropped."""

    def compute(self, arr, size, weights):
        size = _scalar_int(size, "size")
        if size < 0:
            raise InvalidArgumentError(f"size ({size}) must be non-negative")
        dtype = self.output_types[0].np
        limits.check_allocation((size,), dtype.itemsize, "Bincount")
        values = as_array(arr).reshape(-1)
        if values.size and values.min() < 0:
            raise InvalidArgumentError("Input arr must be non-negative!")
        weights = as_array(weights)
        if weights.size and weights.shape != np.shape(arr):
            raise InvalidArgumentError(
                "`weights` must be the same shape as `arr` or a length-0 `Tensor`, got "
                f"{_shape(weights)} and {_shape(arr)}"
            )
        keep = values < size
        values = values[keep]
        if not weights.size:
            return (np.bincount(values, minlength=size).astype(dtype),)
        weights = weights.reshape(-1)[keep]
        if dtype.kind == "f":
            return (np.bincount(values, weights, size).astype(dtype),)
        out = namespace(values).zeros(size, dtype)  # integer weights: exact sums in T
        ufunc_at(np.add, out, values, weights)
        return (out,)


@register_kernel("DenseBincount", "CPU", Tidx=(dtypes.int32, dtypes.int64),
                 T=(dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64))
class DenseBincount(OpKernel):
    """Bincount over a scalar, a vector, or each row of a matrix (one row of bins per row).

    As TensorFlow's CPU kernel: values >= size are dropped; empty weights count ones;
    binary_output writes 1 wherever a value occurs (weights ignored); a negative value is
    an error, reported with the first one found for a matrix.
    """

    def setup(self, **attrs: Any) -> None:
        self._binary = attrs.get("binary_output", False)
        self._dtype = self.output_types[0].np

    def compute(self, data, size, weights):
        data, weights = as_array(data), as_array(weights)
        if data.ndim > 2:
            raise InvalidArgumentError(f"Shape must be at most rank 2 but is rank {data.ndim}")
        if np.ndim(size) != 0:
            raise InvalidArgumentError(f"Shape must be rank 0 but is rank {np.ndim(size)}")
        if weights.size and weights.shape != data.shape:
            raise InvalidArgumentError(
                "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which "
                "case it acts as all weights equal to 1. Received "
                f"[{','.join(str(d) for d in weights.shape)}]"
            )
        size = int(size)
        if size < 0:
            raise InvalidArgumentError(f"size ({size}) must be non-negative")
        rows = 1 if data.ndim < 2 else data.shape[0]
        limits.check_allocation((rows, size), self._dtype.itemsize, "DenseBincount")
        negative = data < 0
        if negative.any():
            if data.ndim < 2:
                raise InvalidArgumentError("Input arr must be non-negative!")
            raise InvalidArgumentError("Input 'in' must be non-negative! Negative input value "
                                       f"found: {data[negative][0].item()}")
        matrix = data if data.ndim == 2 else data.reshape(1, -1)
        out = namespace(data).zeros((rows, size), self._dtype)
        row, col = np.nonzero(matrix < size)
        bins = matrix[row, col]
        if self._binary:
            out[row, bins] = 1
        elif weights.size:
            ufunc_at(np.add, out, (row, bins), weights.reshape(matrix.shape)[row, col])
        else:
            ufunc_at(np.add, out, (row, bins), 1)
        return (out if data.ndim == 2 else out.reshape(size),)
