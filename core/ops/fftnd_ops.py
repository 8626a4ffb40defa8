"""Op schemas: the N-d fast Fourier transforms FFTND, IFFTND, RFFTND, IRFFTND
(TensorFlow's spectral_ops.cc).

Each takes the transform's `fft_length` and `axes` as int32 vectors of one entry per
transformed dim; the axes must be the innermost dims in order (TensorFlow's kernels reject
anything else). Types as the fixed-rank FFTs: `Tcomplex: {complex64, complex128}` and, for
the real transforms, `Treal: {float, double}`. The transformed dims of the output are
`fft_length` (for RFFTND the last one halved plus one). TensorFlow's own shape function
returns the input's shape unchanged, which is wrong whenever `fft_length` differs from the
input (and for every RFFTND/IRFFTND); this one gives the shape the kernel produces.
"""

from __future__ import annotations

import numpy as np

from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext

_COMPLEX = "Tcomplex: {complex64, complex128} = DT_COMPLEX64"
_REAL = "Treal: {float, double} = DT_FLOAT"


def _fftnd_shape(real: bool, forward: bool):
    def infer(ctx: ShapeContext) -> list[Shape]:
        data = ctx.input_shapes[0]
        axes = ctx.value(2)
        axes_shape = ctx.input_shapes[2]
        if axes is not None:
            fft_rank: int | None = int(np.asarray(axes).size)
        elif axes_shape is not None and len(axes_shape) == 1:
            fft_rank = axes_shape[0]
        else:
            fft_rank = None
        if data is None or fft_rank is None:
            return [None if data is None else (None,) * len(data)]
        if len(data) < fft_rank:
            raise ctx.error(f"Shape must be at least rank {fft_rank} but is rank {len(data)}")
        lengths = ctx.value(1)
        if lengths is None or np.asarray(lengths).shape != (fft_rank,):
            inner: tuple = (None,) * fft_rank
        else:
            inner = tuple(int(n) for n in np.asarray(lengths))
            if real and forward and inner and inner[-1] != 0:
                inner = inner[:-1] + (inner[-1] // 2 + 1,)
        return [tuple(data[:len(data) - fft_rank]) + inner]

    return infer


for _name, _forward in (("FFTND", True), ("IFFTND", False)):
    (register_op(_name).input("input: Tcomplex").input("fft_length: int32")
        .input("axes: int32").output("output: Tcomplex").attr(_COMPLEX)
        .shape(_fftnd_shape(real=False, forward=_forward)))
(register_op("RFFTND").input("input: Treal").input("fft_length: int32").input("axes: int32")
    .output("output: Tcomplex").attr(_REAL).attr(_COMPLEX)
    .shape(_fftnd_shape(real=True, forward=True)))
(register_op("IRFFTND").input("input: Tcomplex").input("fft_length: int32")
    .input("axes: int32").output("output: Treal").attr(_REAL).attr(_COMPLEX)
    .shape(_fftnd_shape(real=True, forward=False)))
