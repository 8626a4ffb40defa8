"""CPU kernels: FFTND, IFFTND, RFFTND, IRFFTND on numpy.fft.

TensorFlow 2.21 registers these ops for GPU only; these kernels follow its GPU kernel's
contract and messages: `axes` (negative ones counted from the end) must be successive,
ascending and end at the last dim, `fft_length` has one non-negative entry per axis, a
real transform's input must be at least `fft_length` long in each transformed dim (for
IRFFTND the last one fft_length // 2 + 1) unless that dim is empty, and an empty input
gives an empty (zero) output. The input is cropped to `fft_length`; a complex one shorter
than it is zero-padded. IFFTND divides by the transform size; IRFFTND ignores the
imaginary parts a Hermitian signal cannot have. complex64/float32 are transformed in
single precision, complex128/float64 in double. An empty `axes` is rejected (TensorFlow's
kernel reads before its axes then). The output is checked against the allocation limit
(core/limits.py) before anything is allocated, so an absurd fft_length from an untrusted
graph is a ResourceExhaustedError.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core.errors import InvalidArgumentError
from tfx.core.limits import check_allocation
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


class _FFTND(OpKernel):
    """One N-d transform over the innermost len(axes) dims."""

    real = False
    forward = True

    def setup(self, **attrs: Any) -> None:
        self._out = self.output_types[0].np

    def _check(self, data: np.ndarray, fft_length: np.ndarray, axes: np.ndarray) -> list[int]:
        if axes.ndim != 1:
            raise InvalidArgumentError(f"axes must be a vector, got shape "
                                       f"{shape_string(axes.shape)}")
        rank, fft_rank = data.ndim, axes.shape[0]
        if rank < fft_rank:
            raise InvalidArgumentError(f"Input must have rank of at least {fft_rank} but "
                                       f"got: {shape_string(data.shape)}")
        normalized = [int(a) + rank if a < 0 else int(a) for a in axes]
        for i in range(1, fft_rank):
            if normalized[i - 1] + 1 != normalized[i]:
                raise InvalidArgumentError("axes must be successive and ascending.")
        if not normalized or normalized[-1] != rank - 1:
            raise InvalidArgumentError("The last axis to perform transform on must be -1.")
        if fft_length.ndim != 1 or fft_length.shape[0] != fft_rank:
            got = fft_length.shape[0] if fft_length.ndim else shape_string(fft_length.shape)
            raise InvalidArgumentError(f"fft_length must have shape [{fft_rank}], but got: "
                                       f"{got}.")
        lengths = [int(n) for n in fft_length]
        for i, n in enumerate(lengths):
            if n < 0:
                raise InvalidArgumentError(f"fft_length[{i}] must >= 0, but got: {n}")
            if self.real:
                needed = n // 2 + 1 if not self.forward and i == fft_rank - 1 else n
                index = rank - fft_rank + i
                dim = data.shape[index]
                if dim != 0 and dim < needed:
                    raise InvalidArgumentError(
                        f"Input dimension {index} must have length of at least {needed} but "
                        f"got: {dim}")
        return lengths

    def compute(self, data, fft_length, axes):
        data, fft_length, axes = np.asarray(data), np.asarray(fft_length), np.asarray(axes)
        lengths = self._check(data, fft_length, axes)
        fft_rank = len(lengths)
        inner = list(lengths)
        if self.real and self.forward and inner[-1] != 0:
            inner[-1] = inner[-1] // 2 + 1
        out_shape = data.shape[:data.ndim - fft_rank] + tuple(inner)
        # numpy transforms in double precision whatever the output's width.
        work = np.dtype(np.float64 if self.real and not self.forward else np.complex128)
        check_allocation(out_shape, work.itemsize, type(self).__name__, work.name)
        if data.size == 0 or 0 in out_shape:
            return (_zeros(out_shape, self._out, type(self).__name__),)
        dims = tuple(range(data.ndim - fft_rank, data.ndim))
        if not self.real:
            fn = np.fft.fftn if self.forward else np.fft.ifftn
            out = fn(data, s=lengths, axes=dims)
        elif self.forward:
            out = np.fft.rfftn(data, s=lengths, axes=dims)
        else:
            crop = lengths[:-1] + [lengths[-1] // 2 + 1]
            data = data[(Ellipsis,) + tuple(slice(0, n) for n in crop)]
            out = np.fft.irfftn(data, s=lengths, axes=dims)
        return (out.astype(self._out, copy=False),)


for _name, _real, _forward in (("FFTND", False, True), ("IFFTND", False, False),
                               ("RFFTND", True, True), ("IRFFTND", True, False)):
    register_kernel(_name, "CPU")(type(_name, (_FFTND,), {
        "real": _real, "forward": _forward,
        "__doc__": f"{_name} over the innermost len(axes) dims."}))
