"""N-d fast Fourier transforms: tf.signal.fftnd, ifftnd, rfftnd, irfftnd (TensorFlow 2.21's
compat.v1 also has them at the top level).

Built as TensorFlow's fft_ops.py builds them: `axes` defaults to every dim; the input is
converted with complex64 (float32 for rfftnd) preferred; an input shorter than
`fft_length` in its innermost dims is zero-padded (`Pad`) before the op, which only crops;
`norm` "backward" (the default) leaves the forward transform unscaled and divides the
inverse by the transform size, "forward" moves that division to the forward transform and
"ortho" divides both by its square root, by scaling the input before the op (so it needs a
static `fft_length`). The transformed axes must be the innermost dims in order, as
TensorFlow's kernels require.

Differences from TensorFlow, each where TensorFlow fails: `fft_length` defaults to the
sizes of the transformed dims (TensorFlow passes the whole input shape, which its kernel
rejects unless `axes` names every dim), inputs may be lists or arrays, dims unknown at
construction are read at run time, and an unknown `norm` is an error (TensorFlow ignores
it). TensorFlow registers no gradient for these ops, so none is defined here either.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.api import math_api
from tfx.core.api.graph_builder import Tensor, constant_value, name_scope
from tfx.core.api.ops_api import apply_op, constant, convert_to_tensor
from tfx.core.api.spectral_api import _default_length, _pad_to_length

__all__ = ["fftnd", "ifftnd", "irfftnd", "rfftnd"]

_NORMS = ("backward", "forward", "ortho")
_PAIRS = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def _transform(op_type: str, input_tensor: Any, fft_length: Any, axes: Any, norm: Any,
               name: str | None) -> Tensor:
    inverse = op_type.startswith("I")
    real = "RFFT" in op_type
    with name_scope(name, op_type.lower(), [input_tensor, fft_length, axes]) as scope:
        forward_real = real and not inverse
        x = convert_to_tensor(input_tensor, dtype_hint=dtypes.float32 if forward_real
                              else dtypes.complex64)
        if real:
            wanted = tuple(_PAIRS) if forward_real else tuple(_PAIRS.values())
            if x.dtype.base not in wanted:
                kind = "tf.float32 or tf.float64" if forward_real else (
                    "tf.complex64 or tf.complex128")
                raise ValueError(f"{'RFFT' if forward_real else 'IRFFT'} requires {kind} "
                                 f"inputs, got: {x}")
        rank = x.shape.ndims
        if rank is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        if axes is None:
            axes = constant(np.arange(rank, dtype=np.int32))
        else:
            axes = convert_to_tensor(axes, dtype=dtypes.int32)
        if axes.shape.ndims != 1 or axes.shape[0] is None:
            raise ValueError(f"axes must be a vector of known length, got shape {axes.shape}")
        fft_rank = int(axes.shape[0])
        if rank < fft_rank:
            raise ValueError(f"Shape {x.shape} must have rank at least {fft_rank}")
        irfft = real and inverse
        if fft_length is None:
            fft_length = _default_length(x, fft_rank, irfft)
        else:
            fft_length = convert_to_tensor(fft_length, dtype=dtypes.int32)
        if fft_rank:
            x = _pad_to_length(x, fft_rank, fft_length, irfft)
        static = constant_value(fft_length)
        if static is not None:
            fft_length = constant(np.asarray(static, np.int32))
        norm = "backward" if norm is None else norm
        if norm not in _NORMS:
            raise ValueError(f"norm must be one of {', '.join(_NORMS)}, got: {norm!r}")
        if norm != "backward":
            if static is None:
                raise ValueError(f"norm={norm!r} needs a fft_length known at construction")
            size = float(np.prod(np.asarray(static, np.float64)))
            scale = size if norm == "forward" else float(np.sqrt(size))
            factor = constant(scale, dtype=x.dtype)
            x = math_api.multiply(x, factor) if inverse else math_api.truediv(x, factor)
        types: dict[str, Any] = {}
        if forward_real:
            types["Tcomplex"] = _PAIRS[x.dtype.base]
        elif irfft:
            types["Treal"] = {v: k for k, v in _PAIRS.items()}[x.dtype.base]
        return apply_op(op_type, input=x, fft_length=fft_length, axes=axes, name=scope,
                        **types)


def fftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: Any = None,
          name: str | None = None) -> Tensor:
    """The N-d discrete Fourier transform over the innermost dims of a complex tensor
    (`FFTND`).

    Args:
        input_tensor: A complex64 or complex128 tensor.
        fft_length: int32 transform lengths, one per axis (default: those dims' sizes);
            a shorter input is zero-padded, a longer one cropped.
        axes: The transformed dims, the innermost ones in order (default: all dims).
        norm: "backward" (default), "forward" or "ortho" (see the module docstring).
        name: A name scope.

    Returns:
        A tensor of the input's type whose transformed dims are fft_length.

    Example:
        >>> tf.signal.fftnd(tf.constant([[1, 2], [3, 4]], tf.complex64))
        ... # [[10, -2], [-4, 0]]
    """
    return _transform("FFTND", input_tensor, fft_length, axes, norm, name)


def ifftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: Any = None,
           name: str | None = None) -> Tensor:
    """The N-d inverse discrete Fourier transform over the innermost dims (`IFFTND`),
    divided by the transform size under the default norm.

    Args:
        input_tensor: A complex64 or complex128 tensor.
        fft_length: int32 transform lengths, one per axis (default: those dims' sizes).
        axes: The transformed dims, the innermost ones in order (default: all dims).
        norm: "backward" (default), "forward" or "ortho".
        name: A name scope.

    Returns:
        A tensor of the input's type whose transformed dims are fft_length.

    Example:
        >>> tf.signal.ifftnd(tf.constant([[10, -2], [-4, 0]], tf.complex64))
        ... # [[1, 2], [3, 4]]
    """
    return _transform("IFFTND", input_tensor, fft_length, axes, norm, name)


def rfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: Any = None,
           name: str | None = None) -> Tensor:
    """The non-negative frequencies of the N-d Fourier transform of a real tensor over its
    innermost dims (`RFFTND`).

    Args:
        input_tensor: A float32 or float64 tensor.
        fft_length: int32 transform lengths, one per axis (default: those dims' sizes).
        axes: The transformed dims, the innermost ones in order (default: all dims).
        norm: "backward" (default), "forward" or "ortho".
        name: A name scope.

    Returns:
        A complex64 (complex128) tensor whose transformed dims are fft_length, the last
        n // 2 + 1.

    Example:
        >>> tf.signal.rfftnd([[1.0, 2.0, 3.0, 4.0]])  # [[10, -2+2j, -2]]
    """
    return _transform("RFFTND", input_tensor, fft_length, axes, norm, name)


def irfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: Any = None,
            name: str | None = None) -> Tensor:
    """The real signal whose N-d Fourier transform's non-negative frequencies are
    `input_tensor` (`IRFFTND`).

    Args:
        input_tensor: A complex64 or complex128 tensor.
        fft_length: int32 output lengths, one per axis (default: the transformed dims'
            sizes, the last as 2 * (n - 1)).
        axes: The transformed dims, the innermost ones in order (default: all dims).
        norm: "backward" (default), "forward" or "ortho".
        name: A name scope.

    Returns:
        A float32 (float64) tensor whose transformed dims are fft_length.

    Example:
        >>> tf.signal.irfftnd(tf.constant([[10, -2 + 2j, -2]], tf.complex64))
        ... # [[1, 2, 3, 4]]
    """
    return _transform("IRFFTND", input_tensor, fft_length, axes, norm, name)
