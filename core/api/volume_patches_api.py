"""tf.extract_volume_patches (TensorFlow 1.x's compat.v1 top level) and its gradient.

The gradient is built as TensorFlow builds it: the patches of a volume of voxel numbers
(1-based, 0 for the padding) give a sparse (voxel, patch tap) matrix of ones whose product
with the incoming gradient sums every tap's gradient back onto its voxel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.api import array_api as A
from tfx.core.api import sparse_api
from tfx.core.api.gradients import RegisterGradient
from tfx.core.api.graph_builder import Operation, Tensor
from tfx.core.api.ops_api import apply_op, convert_to_tensor

__all__ = ["extract_volume_patches"]


def extract_volume_patches(input: Any, ksizes: Any, strides: Any, padding: str,  # noqa: A002
                           name: str | None = None) -> Tensor:
    """Sliding 3-D windows of a 5-D batch flattened into the depth (ExtractVolumePatches).

    Args:
        input: [batch, planes, rows, cols, depth], a real or integer tensor.
        ksizes: [1, ksize_planes, ksize_rows, ksize_cols, 1], the window.
        strides: [1, stride_planes, stride_rows, stride_cols, 1], the step between windows.
        padding: "VALID" or "SAME" (as Conv3D; taps outside the volume read 0).
        name: A name for the op.

    Returns:
        [batch, out_planes, out_rows, out_cols, ksize_planes * ksize_rows * ksize_cols *
        depth], each window flattened plane by plane, row by row, depth innermost.

    Example:
        >>> tf.extract_volume_patches(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID")
    """
    return apply_op("ExtractVolumePatches", input=input, ksizes=list(ksizes),
                    strides=list(strides), padding=padding, name=name)


def _int64s(*values: Any) -> Tensor:
    """An int64 vector of Python ints and int64 scalars."""
    if not any(isinstance(v, Tensor) for v in values):
        return convert_to_tensor(np.array(values, np.int64))
    return A.stack([v if isinstance(v, Tensor) else convert_to_tensor(np.int64(v))
                    for v in values])


@RegisterGradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op: Operation, grad: Tensor) -> list:
    ksizes, strides, padding = (op.get_attr("ksizes"), op.get_attr("strides"),
                                op.get_attr("padding"))
    in_shape = A.shape(op.inputs[0], out_type=dtypes.int64)
    batch, channels = in_shape[0], in_shape[4]
    planes_in, rows_in, cols_in = in_shape[1], in_shape[2], in_shape[3]
    num_in = 1 + planes_in * rows_in * cols_in
    in_idx = A.reshape(A.range(1, num_in, dtype=dtypes.int64),
                       _int64s(1, planes_in, rows_in, cols_in, 1))
    in_idx_patched = apply_op("ExtractVolumePatches", input=in_idx, ksizes=ksizes,
                              strides=strides, padding=padding)
    out_shape = A.shape(op.outputs[0], out_type=dtypes.int64)
    planes_out, rows_out, cols_out = out_shape[1], out_shape[2], out_shape[3]
    window = ksizes[1] * ksizes[2] * ksizes[3]
    num_out = planes_out * rows_out * cols_out * window
    out_idx = A.reshape(A.range(num_out, dtype=dtypes.int64),
                        _int64s(1, planes_out, rows_out, cols_out, window))
    idx_map = A.reshape(A.concat([A.expand_dims(in_idx_patched, -1),
                                  A.expand_dims(out_idx, -1)], -1), _int64s(-1, 2))
    full = sparse_api.SparseTensor(idx_map, A.fill(_int64s(num_out), A.ones([], grad.dtype)),
                                   _int64s(num_in, num_out))
    # Row 0 collects the taps that fell on the padding.
    sp_mat = sparse_api.sparse_slice(full, _int64s(1, 0), _int64s(num_in - 1, num_out))
    grad8 = A.reshape(grad, _int64s(batch, planes_out, rows_out, cols_out, ksizes[1],
                                    ksizes[2], ksizes[3], channels))
    grad_flat = A.reshape(A.transpose(grad8, [1, 2, 3, 4, 5, 6, 0, 7]),
                          _int64s(-1, batch * channels))
    jac = sparse_api.sparse_tensor_dense_matmul(sp_mat, grad_flat)
    grad_in = A.reshape(jac, _int64s(planes_in, rows_in, cols_in, batch, channels))
    return [A.transpose(grad_in, [3, 0, 1, 2, 4])]
