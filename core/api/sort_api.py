"""tf.sort and tf.argsort, built on TopKV2 as TensorFlow's sort_ops.py builds them.

A descending sort is `top_k` with k the length of the sorted axis (ties keep their index
order); an ascending one sorts the negated values descending (`-x - 1` for signed integers,
so the lowest value does not overflow, and `max - x` for unsigned ones), so equal values keep
their index order in both directions. A sorted axis other than the last is transposed to the
end and back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.api import array_api as A
from tfx.core.api import math_api as M
from tfx.core.api import nn_api
from tfx.core.api.graph_builder import Tensor, constant_value, name_scope
from tfx.core.api.ops_api import constant, convert_to_tensor

_DIRECTIONS = ("ASCENDING", "DESCENDING")


def _descending(values: Tensor, axis: int, return_argsort: bool) -> Tensor:
    k = A.shape(values)[axis]
    static_rank = values.shape.ndims
    transposition = None
    top_k_input = values
    if not (axis == -1 or axis + 1 == static_rank):
        if static_rank is None:
            rank = A.rank(values)
            moved = M.add(axis, rank) if axis < 0 else constant(axis, dtype=dtypes.int32)
            last = M.sub(rank, 1)
            # range(rank) with the sorted axis and the last one swapped.
            transposition = A.tensor_scatter_nd_update(
                A.range(rank), A.reshape(A.stack([moved, last]), [2, 1]), A.stack([last, moved]))
        else:
            if axis < 0:
                axis += static_rank
            perm = np.r_[np.arange(axis), [static_rank - 1], np.arange(axis + 1, static_rank - 1),
                         [axis]].astype(np.int32)
            transposition = constant(perm, name="transposition")
        top_k_input = A.transpose(values, transposition)
    sorted_values, indices = nn_api.top_k(top_k_input, k)
    result = indices if return_argsort else sorted_values
    if transposition is not None:
        result = A.transpose(result, transposition)
    return result


def _ascending(values: Tensor, axis: int, return_argsort: bool) -> Tensor:
    dtype = values.dtype
    if dtype in dtypes.UNSIGNED_INTS:
        offset = constant(np.iinfo(dtype.np).max, dtype=dtype)
        result = _descending(M.sub(offset, values), axis, return_argsort)
        return result if return_argsort else M.sub(offset, result)
    if dtype.is_integer:
        result = _descending(M.sub(M.negative(values), 1), axis, return_argsort)
        return result if return_argsort else M.sub(M.negative(result), 1)
    result = _descending(M.negative(values), axis, return_argsort)
    return result if return_argsort else M.negative(result)


def _sort_or_argsort(values: Any, axis: Any, direction: str, return_argsort: bool) -> Tensor:
    if direction not in _DIRECTIONS:
        raise ValueError(f"Argument `direction` should be one of {', '.join(_DIRECTIONS)}. "
                         f"Received: direction={direction}")
    axis_tensor = convert_to_tensor(axis, name="axis")
    axis_static = constant_value(axis_tensor)
    if axis_tensor.shape.ndims not in (None, 0) or axis_static is None:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    values = convert_to_tensor(values, name="values")
    sort = _ascending if direction == "ASCENDING" else _descending
    return sort(values, int(axis_static), return_argsort)


def sort(values: Any, axis: Any = -1, direction: str = "ASCENDING",
         name: str | None = None) -> Tensor:
    """`values` sorted along `axis` (built on `TopKV2`, as TensorFlow's).

    Args:
        values: A real tensor.
        axis: A constant scalar: the axis to sort along.
        direction: "ASCENDING" or "DESCENDING".
        name: A name scope for the ops (default "sort").

    Returns:
        A tensor of `values`' shape and type.

    Example:
        >>> sort([3, 1, 2], direction="DESCENDING")   # [3, 2, 1]
    """
    with name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(values: Any, axis: Any = -1, direction: str = "ASCENDING", stable: bool = False,
            name: str | None = None) -> Tensor:
    """The int32 indices that sort `values` along `axis`; equal values keep their order.

    Args:
        values: A real tensor.
        axis: A constant scalar: the axis to sort along.
        direction: "ASCENDING" or "DESCENDING".
        stable: Unused, as in TensorFlow: the order is always stable.
        name: A name scope for the ops (default "argsort").

    Returns:
        An int32 tensor of `values`' shape.

    Example:
        >>> argsort([3, 1, 2])   # [1, 2, 0]
    """
    del stable  # TopKV2 already keeps equal values in index order
    with name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)
