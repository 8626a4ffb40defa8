"""CPU kernels: segment reductions (TensorFlow's segment_reduction_ops).

`Segment{Sum,Mean,Max,Min,Prod}(data, segment_ids)` reduce the rows of `data` that share a
segment id; the ids are a vector as long as data's first dimension, sorted, and the output
has `segment_ids[-1] + 1` rows. `UnsortedSegment{Sum,Max,Min,Prod}(data, segment_ids,
num_segments)` take ids of any shape that prefixes data's, in any order; rows with a
negative id are dropped and the output has `num_segments` rows.

TensorFlow's semantics, vectorized with numpy (a stable sort by id, then `reduceat`; on
CuPy, sums add each row into its segment, `_segment_sums`):

- ids are validated as TensorFlow's CPU kernels do, with its messages: for the sorted ops
  segments are walked in order and the first bad one is reported, as "segment ids are not
  increasing" when the next id is smaller, else "Segment id ... out of range"; for the
  unsorted ops the first id (in flat order) at or past num_segments is named by position;
- an empty segment is 0 in every sorted op except SegmentProd (1); in the unsorted ops it
  is the reduction's identity: 0, 1, or the type's lowest (Max) and highest (Min) finite
  value, not an infinity;
- Max and Min take a value unless it is strictly worse than the running result (C++'s
  `(x < acc) ? acc : x`), so a NaN replaces the result and the next number replaces the
  NaN: a segment's extreme is that of the values after its last NaN, or NaN when it ends
  with one; the unsorted ops start from lowest/highest, so -inf (+inf) comes out as that;
- Mean of integers sums in 64 bits and divides truncating toward zero; bfloat16 sums
  and means accumulate in float32.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from tfx.core import dtypes
from tfx.core.arrays import as_array, namespace, ufunc_at
from tfx.core.dtypes import NUMBERS, REALS
from tfx.core.errors import InvalidArgumentError
from tfx.core.limits import check_allocation
from tfx.kernels.base import OpKernel, register_kernel


def _dims(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _starts(ids: np.ndarray) -> np.ndarray:
    """Where each run of equal ids begins (ids is a non-empty vector)."""
    change = namespace(ids).empty(ids.size, np.bool_)
    change[0] = True
    np.not_equal(ids[1:], ids[:-1], out=change[1:])
    return np.flatnonzero(change)


def _segment_sums(data: np.ndarray, starts: np.ndarray, dtype: Any = None) -> np.ndarray:
    """The sum of each segment's rows (segments start at `starts` and run on to the next).

    numpy's `add.reduceat` sums each segment on its own. CuPy's takes differences of a
    running sum (seen on a GPU: a NaN in one segment made the later ones NaN, and sums
    carried the running total's rounding), so on CuPy each row is added into its segment.
    """
    if type(data) is np.ndarray:
        return np.add.reduceat(data, starts, axis=0, dtype=dtype)
    xp = namespace(data)
    begins = xp.zeros(len(data), np.int64)
    begins[starts[1:]] = 1
    totals = xp.zeros((len(starts),) + data.shape[1:], dtype or data.dtype)
    ufunc_at(np.add, totals, xp.cumsum(begins), data.astype(totals.dtype, copy=False))
    return totals


def _limits(dtype: np.dtype) -> tuple[Any, Any]:
    """The lowest and highest finite values of a real type (bfloat16 included)."""
    info = np.iinfo(dtype) if dtype.kind in "iu" else ml_dtypes.finfo(dtype)
    return info.min, info.max


class _SegmentReduction(OpKernel):
    """Reduce data's rows by segment; subclasses validate the ids and size the output."""

    sorted_ids = True

    def setup(self, **attrs: Any) -> None:
        self._reduction = self.op.removeprefix("Unsorted").removeprefix("Segment")
        dtype = self.input_types[0]
        self._dtype = dtype.np
        # bfloat16 accumulates in float32 (products too: tfx rounds once, at the end).
        self._work = np.dtype(np.float32) if dtype is dtypes.bfloat16 else self._dtype
        self._integer = dtype.is_integer
        self._floating = dtype.is_floating
        self._empty = 1 if self._reduction == "Prod" else 0
        self._init = None  # the unsorted Max/Min's starting value
        if not self.sorted_ids and self._reduction in ("Max", "Min"):
            lowest, highest = _limits(self._dtype)
            self._empty = self._init = lowest if self._reduction == "Max" else highest

    def reduce(self, data: np.ndarray, ids: np.ndarray, rows: int) -> np.ndarray:
        """The output: `rows` segments of data's rows (data is 2-D, ids valid and 1-D)."""
        check_allocation((rows, data.shape[1]), self._dtype.itemsize, self.op)
        out = namespace(data).full((rows, data.shape[1]), self._empty, self._work)
        if not ids.size:
            return out.astype(self._dtype)
        if not self.sorted_ids:
            order = np.argsort(ids, kind="stable")
            ids, data = ids[order], data[order]
        starts = _starts(ids)
        counts = np.diff(starts, append=ids.size)
        data = data.astype(self._work, copy=False)
        with np.errstate(all="ignore"):
            out[ids[starts]] = self._reduce_rows(data, starts, counts)
        return out.astype(self._dtype)

    def _reduce_rows(self, data: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> Any:
        kind = self._reduction
        if kind == "Sum":
            return _segment_sums(data, starts)
        if kind == "Prod":
            return np.multiply.reduceat(data, starts, axis=0)
        if kind == "Mean":
            if self._integer:
                total = _segment_sums(data, starts, np.int64)
                count = counts[:, None]
                quotient = total // count
                # C++ division truncates toward zero; floor division rounds negatives down.
                return quotient + ((total < 0) & (total % count != 0))
            return _segment_sums(data, starts) / counts[:, None].astype(data.dtype)
        return self._extreme(data, starts, counts, kind == "Max")

    def _extreme(self, data: np.ndarray, starts: np.ndarray, counts: np.ndarray,
                 is_max: bool) -> np.ndarray:
        ufunc = np.maximum if is_max else np.minimum
        nan = np.isnan(data) if self._floating else None
        if nan is None or not nan.any():
            result = ufunc.reduceat(data, starts, axis=0)
            return result if self._init is None else ufunc(result, self._init)
        # The running result restarts at each NaN: only the values after a segment's last
        # NaN count, and a segment ending with NaN gives NaN.
        rows = namespace(data).arange(len(data))[:, None]
        last_nan = np.maximum.reduceat(np.where(nan, rows, -1), starts, axis=0)
        segment = np.searchsorted(starts, rows[:, 0], side="right") - 1
        dropped = rows < last_nan[segment]
        tail = np.where(dropped, -np.inf if is_max else np.inf, data)
        result = (np.fmax if is_max else np.fmin).reduceat(tail, starts, axis=0)
        if self._init is not None:
            result = np.where(last_nan >= 0, result, ufunc(result, self._init))
        ends = (starts + counts - 1)[:, None]
        return np.where(last_nan == ends, np.nan, result)


@register_kernel(["SegmentSum", "SegmentMean", "SegmentProd"], "CPU", T=NUMBERS)
@register_kernel(["SegmentMax", "SegmentMin"], "CPU", T=REALS)
class SegmentReduction(_SegmentReduction):
    """Segment{Sum,Mean,Max,Min,Prod}: sorted ids, `segment_ids[-1] + 1` output rows."""

    def compute(self, data, segment_ids):
        data, ids = as_array(data), as_array(segment_ids)
        if ids.ndim != 1:
            raise InvalidArgumentError("segment_ids should be a vector.")
        if data.ndim < 1:
            raise InvalidArgumentError("input must be at least rank 1")
        if ids.size != data.shape[0]:
            raise InvalidArgumentError(
                "segment_ids should be the same size as dimension 0 of input."
            )
        rows = int(ids[-1]) + 1 if ids.size else 0
        if rows < 0:
            raise InvalidArgumentError("segment ids must be >= 0")
        ids = ids.astype(np.int64)
        if ids.size:
            _check_sorted(ids, rows)
        inner = math.prod(data.shape[1:])
        out = self.reduce(data.reshape(ids.size, inner), ids, rows)
        return (out.reshape((rows,) + data.shape[1:]),)


def _check_sorted(ids: np.ndarray, rows: int) -> None:
    """TensorFlow's walk over the segments: at each segment's end the next id must be larger,
    then the segment's id must be in [0, rows); the first segment failing either is named."""
    values = ids[_starts(ids)]
    decreasing = namespace(values).zeros(values.size, np.bool_)
    np.less(values[1:], values[:-1], out=decreasing[:-1])
    outside = (values < 0) | (values >= rows)
    bad = np.flatnonzero(decreasing | outside)
    if not bad.size:
        return
    first = int(bad[0])
    if decreasing[first]:
        raise InvalidArgumentError("segment ids are not increasing")
    raise InvalidArgumentError(
        f"Segment id {int(values[first])} out of range [0, {rows}), possibly because "
        "'segment_ids' input is not sorted."
    )


@register_kernel(["UnsortedSegmentSum", "UnsortedSegmentProd"], "CPU", T=NUMBERS)
@register_kernel(["UnsortedSegmentMax", "UnsortedSegmentMin"], "CPU", T=REALS)
class UnsortedSegmentReduction(_SegmentReduction):
    """UnsortedSegment{Sum,Max,Min,Prod}: ids in any order and shape prefixing data's;
    negative ids are dropped; `num_segments` output rows."""

    sorted_ids = False

    def compute(self, data, segment_ids, num_segments):
        data, ids = as_array(data), as_array(segment_ids)
        if np.ndim(num_segments) != 0:
            raise InvalidArgumentError(
                f"num_segments should be a scalar, not shape {_dims(np.shape(num_segments))}"
            )
        if data.shape[: ids.ndim] != ids.shape:
            raise InvalidArgumentError(
                f"data.shape = {_dims(data.shape)} does not start with segment_ids.shape = "
                f"{_dims(ids.shape)}"
            )
        rows = int(num_segments)
        if rows < 0:
            raise InvalidArgumentError(f"Input num_segments == {rows} must not be negative.")
        flat = ids.reshape(-1).astype(np.int64)
        too_big = np.flatnonzero(flat >= rows)
        if too_big.size:
            first = int(too_big[0])
            position = np.unravel_index(first, ids.shape) if ids.ndim else ()
            raise InvalidArgumentError(
                f"segment_ids{_dims(position) if ids.ndim else ''} = {int(flat[first])} is out of "
                f"range [0, {rows})"
            )
        tail = data.shape[ids.ndim:]
        data = data.reshape((flat.size, math.prod(tail)))
        keep = flat >= 0
        if not keep.all():
            flat, data = flat[keep], data[keep]
        out = self.reduce(data, flat, rows)
        return (out.reshape((rows,) + tail),)
