"""CPU kernel: ExtractVolumePatches (numpy).

Output voxel (p, r, c) holds the window whose first tap sits at (p * stride_planes -
pad_front, r * stride_rows - pad_top, c * stride_cols - pad_left), flattened plane by
plane, row by row, with the depth innermost; taps outside the volume read 0. Output sizes
and SAME padding are Conv3D's. Only the spatial dims may have a window or stride other
than 1 (TensorFlow's Unimplemented errors otherwise).
"""

from __future__ import annotations

import numpy as np

from tfx.core.errors import InvalidArgumentError, OutOfRangeError, UnimplementedError
from tfx.core.ops.nn_ops import window_output
from tfx.kernels.base import OpKernel, register_kernel
from tfx.kernels.cpu.manip import shape_string


def extract_volume_patches(data: np.ndarray, ksizes: list, strides: list,
                           padding: str) -> np.ndarray:
    """The patches of a [batch, planes, rows, cols, depth] array (see the module
    docstring)."""
    batch, depth = data.shape[0], data.shape[4]
    spatial = data.shape[1:4]
    taps = []
    for axis, size in enumerate(spatial, start=1):
        out, pad_before, _ = window_output(size, ksizes[axis], strides[axis], 1, padding)
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
    out_shape = (batch, tp.shape[0], tr.shape[0], tc.shape[0])
    return gathered.reshape(out_shape + (ksizes[1] * ksizes[2] * ksizes[3] * depth,))


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
