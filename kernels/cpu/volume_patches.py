"""CPU kernel: ExtractVolumePatches (numpy).

Output voxel (p, r, c) holds the window whose first tap sits at (p * stride_planes -
pad_front, r * stride_rows - pad_top, c * stride_cols - pad_left), flattened plane by
plane, row by row, with the depth innermost; taps outside the volume read 0. Output sizes
and SAME padding are Conv3D's. Only the spatial dims may have a window or stride other
than 1 (TensorFlow's Unimplemented errors otherwise). The output is checked against the
allocation limit (core/limits.py) before the tap tables or the gather are built, and an
empty output is returned at once, so absurd windows from an untrusted graph cost nothing.
"""

from __future__ import annotations

import numpy as np

from tfx.core.errors import InvalidArgumentError, OutOfRangeError, UnimplementedError
from tfx.core.limits import check_allocation
from tfx.core.ops.nn_ops import window_output
from tfx.kernels.base import OpKernel, register_kernel
from tfx.kernels.cpu.manip import shape_string

_INT64_MAX = (1 << 63) - 1


def _zeros(shape: tuple, dtype: np.dtype, what: str) -> np.ndarray:
    """Zeros of `shape`, which is empty or within the limit; numpy refuses an empty shape
    whose other dims multiply past int64, as untrusted sizes can make them."""
    span = np.dtype(dtype).itemsize
    for dim in shape:
        span *= max(int(dim), 1)
    if span > _INT64_MAX:
        raise InvalidArgumentError(
            f"{what}: the output shape {list(shape)} is too large to represent (its "
            "nonzero dims multiply past int64)")
    return np.zeros(shape, dtype)


def extract_volume_patches(data: np.ndarray, ksizes: list, strides: list,
                           padding: str) -> np.ndarray:
    """The patches of a [batch, planes, rows, cols, depth] array (see the module
    docstring)."""
    batch, depth = data.shape[0], data.shape[4]
    spatial = data.shape[1:4]
    windows = [window_output(size, ksizes[axis], strides[axis], 1, padding)
               for axis, size in enumerate(spatial, start=1)]
    out_shape = (batch,) + tuple(w[0] for w in windows)
    full_shape = out_shape + (ksizes[1] * ksizes[2] * ksizes[3] * depth,)
    check_allocation(full_shape, data.dtype.itemsize, "ExtractVolumePatches", data.dtype.name)
    if 0 in full_shape:
        # The tap tables below are out x ksize each: huge for a huge window, even here.
        return _zeros(full_shape, data.dtype, "ExtractVolumePatches")
    taps = []
    for axis, (size, (out, pad_before, _)) in enumerate(zip(spatial, windows), start=1):
        tap = (np.arange(out)[:, None] * strides[axis] - pad_before
               + np.arange(ksizes[axis])[None, :])
        # Shifted by one, so that index 0 names the zero border.
        taps.append(np.where((tap >= 0) & (tap < size), tap + 1, 0))
    padded = np.zeros((batch,) + tuple(s + 1 for s in spatial) + (depth,), data.dtype)
    padded[:, 1:, 1:, 1:] = data
    tp, tr, tc = taps
    # [batch, out_p, k_p, out_r, k_r, out_c, k_c, depth]
    gathered = padded[:, tp[:, :, None, None, None, None],
                      tr[None, None, :, :, None, None], tc[None, None, None, None, :, :]]
    gathered = gathered.transpose(0, 1, 3, 5, 2, 4, 6, 7)
    return gathered.reshape(full_shape)


@register_kernel("ExtractVolumePatches", "CPU")
class ExtractVolumePatches(OpKernel):
    """Sliding 3-D windows of a batch of volumes, flattened into the depth."""

    def compute(self, data):
        ksizes, strides = self.attrs["ksizes"], self.attrs["strides"]
        if ksizes[0] != 1 or ksizes[4] != 1:
            raise UnimplementedError("Only support ksizes across space.")
        if strides[0] != 1 or strides[4] != 1:
            raise UnimplementedError("Only support strides across space.")
        data = np.asarray(data)
        if data.ndim != 5:
            raise InvalidArgumentError(
                f"input must be 5-dimensional{shape_string(data.shape)}")
        if min(ksizes[1:4]) < 1:
            raise OutOfRangeError("ksizes is out of range.")
        return (extract_volume_patches(data, ksizes, strides, self.attrs["padding"]),)
