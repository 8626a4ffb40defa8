"""CPU kernels: SdcaShrinkL1 and SdcaFprint.

Each weight becomes sign(w) * max(|w| - shrinkage, 0) with shrinkage = l1 / l2 in
float32, as TensorFlow's SDCA regularizer: l2 = 0 makes the shrinkage infinite (every
weight 0, keeping its sign), a negative l2 grows the weights. Each variable is
updated under its lock.

SdcaFprint gives each string of a vector [low, high] of its FarmHash Fingerprint128 as
int64s, a low half of 0 or 1 becoming 2**64 - 2 or 2**64 - 1 as TensorFlow's (SDCA keeps
0 and 1 free as sentinel keys).
"""

from __future__ import annotations

import numpy as np

from tfx.core.errors import InvalidArgumentError
from tfx.core.variables import as_variable, locked
from tfx.kernels.base import OpKernel, register_kernel
from tfx.kernels.cpu.fingerprint128 import fingerprint128


@register_kernel("SdcaShrinkL1", "CPU")
class SdcaShrinkL1(OpKernel):
    def setup(self, **attrs):
        with np.errstate(divide="ignore", invalid="ignore"):
            self.shrinkage = np.float32(attrs["l1"]) / np.float32(attrs["l2"])

    def compute(self, *weights):
        for i, ref in enumerate(weights):
            variable = as_variable(ref, f"weights_{i}")
            with locked(variable):
                w = variable.read()
                with np.errstate(invalid="ignore"):
                    shrunk = np.maximum(np.abs(w) - self.shrinkage, np.float32(0)) * np.sign(w)
                variable.store(shrunk.astype(np.float32, copy=False))
        return ()


@register_kernel("SdcaFprint", "CPU")
class SdcaFprint(OpKernel):
    def compute(self, strings):
        strings = np.asarray(strings, dtype=object)
        if strings.ndim != 1:
            raise InvalidArgumentError(
                f"Input must be a vector, got shape [{','.join(map(str, strings.shape))}]")
        out = np.empty((strings.size, 2), np.uint64)
        for i, value in enumerate(strings):
            low, high = fingerprint128(value.encode() if isinstance(value, str) else value)
            out[i] = (low if low >= 2 else low + (1 << 64) - 2, high)
        return (out.view(np.int64),)
