"""CPU kernel: ApproxTopK, computed exactly as TensorFlow computes it on CPU.

The k largest (or, with is_max_k false, smallest) entries along the reduction dimension,
in order, with their indices; equal values keep their index order (-0.0 equals 0.0) and
NaN ranks before every number, as in TensorFlow's CPU results. `recall_target`,
`reduction_input_size_override` and `aggregate_to_topk` only steer accelerators'
approximate search, so they do not change the result. TensorFlow 2.21's CPU kernel
covers is_max_k with the last dimension only; this one takes any dimension and min-k.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core.errors import InvalidArgumentError
from tfx.kernels.base import OpKernel, register_kernel
from tfx.kernels.cpu.manip import shape_string


def top_k_indices(x: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """Indices of the k extreme entries of each row of `x` (last axis), NaN first, ties by
    index."""
    values = x.astype(np.float32)
    nan = np.isnan(values)
    key = np.where(nan, 0, -values if largest else values)
    # lexsort is stable and sorts by its last key first: NaN, then the value.
    order = np.lexsort((key, ~nan), axis=-1)
    return order[..., :k]


@register_kernel("ApproxTopK", "CPU")
class ApproxTopK(OpKernel):
    """Exact top-k (or bottom-k) along one dimension."""

    def setup(self, k: int = 0, reduction_dimension: int = -1, is_max_k: bool = True,
              **attrs: Any) -> None:
        self._k, self._dim, self._largest = k, reduction_dimension, is_max_k

    def compute(self, data):
        data = np.asarray(data)
        rank = data.ndim
        if rank < 1:
            raise InvalidArgumentError(f"input must be at least rank 1 but got shape "
                                       f"{shape_string(data.shape)}")
        if not -rank <= self._dim < rank:
            raise InvalidArgumentError(
                f"Invalid reduction dimension: {self._dim}. Must be within the range of "
                f"[{-rank}, {rank - 1}]")
        dim = self._dim % rank
        if data.shape[dim] < self._k:
            raise InvalidArgumentError(f"input must have last dimension >= k = {self._k} "
                                       f"but was {data.shape[dim]}")
        moved = np.moveaxis(data, dim, -1)
        if moved.size == 0:
            idx = np.zeros(moved.shape[:-1] + (self._k,), np.int64)
        else:
            idx = top_k_indices(moved, self._k, self._largest)
        values = np.take_along_axis(moved, idx, axis=-1)
        return (np.moveaxis(values, -1, dim).copy(),
                np.moveaxis(idx, -1, dim).astype(np.int32))
