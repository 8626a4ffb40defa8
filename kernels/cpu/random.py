"""CPU kernels: random number generation (numpy's PCG64 generator).

Each kernel owns a generator, built when the step's plan is prepared: seeded
from (seed, seed2) when either is non-zero, so a graph with seeds gives the same
numbers in every new session, and from the OS otherwise. The stream continues
across the steps of one session. A lock keeps concurrent steps from sharing a
generator's state mid-draw.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tfx.core import limits
from tfx.core.errors import InvalidArgumentError
from tfx.kernels.base import OpKernel, register_kernel


def _shape(value: Any, itemsize: int = 8) -> tuple[int, ...]:
    dims = np.asarray(value)
    if dims.ndim != 1:
        raise InvalidArgumentError(f"shape must be a vector, got shape {list(dims.shape)}")
    shape = tuple(int(d) for d in dims)
    limits.check_allocation(shape, itemsize, "random tensor")
    return shape


class _RandomKernel(OpKernel):
    __slots__ = ("_rng", "_lock")

    def setup(self, seed: int = 0, seed2: int = 0, **attrs: Any) -> None:
        entropy = [seed & 0xFFFFFFFFFFFFFFFF, seed2 & 0xFFFFFFFFFFFFFFFF] if seed or seed2 else None
        self._rng = np.random.default_rng(entropy)
        self._lock = threading.Lock()


@register_kernel("RandomUniform", "CPU")
class RandomUniform(_RandomKernel):
    def compute(self, shape):
        with self._lock:
            values = self._rng.random(_shape(shape), dtype=np.float64)
        return (values.astype(self.output_types[0].np),)


@register_kernel("RandomStandardNormal", "CPU")
class RandomStandardNormal(_RandomKernel):
    def compute(self, shape):
        with self._lock:
            values = self._rng.standard_normal(_shape(shape))
        return (values.astype(self.output_types[0].np),)


@register_kernel("TruncatedNormal", "CPU")
class TruncatedNormal(_RandomKernel):
    def compute(self, shape):
        dims = _shape(shape)
        with self._lock:
            values = self._rng.standard_normal(dims)
            bad = np.abs(values) > 2.0
            while bad.any():
                values[bad] = self._rng.standard_normal(int(bad.sum()))
                bad = np.abs(values) > 2.0
        return (values.astype(self.output_types[0].np),)


@register_kernel("RandomUniformInt", "CPU")
class RandomUniformInt(_RandomKernel):
    def compute(self, shape, minval, maxval):
        if np.ndim(minval) != 0 or np.ndim(maxval) != 0:
            raise InvalidArgumentError("minval and maxval must be scalars")
        if not minval < maxval:
            raise InvalidArgumentError(f"need minval < maxval, got {minval} >= {maxval}")
        with self._lock:
            values = self._rng.integers(int(minval), int(maxval), _shape(shape))
        return (values.astype(self.output_types[0].np),)


@register_kernel("RandomShuffle", "CPU")
class RandomShuffle(_RandomKernel):
    def compute(self, value):
        if np.ndim(value) == 0:
            return (value,)
        with self._lock:
            order = self._rng.permutation(np.shape(value)[0])
        return (np.asarray(value)[order],)


@register_kernel("Multinomial", "CPU")
class Multinomial(_RandomKernel):
    def compute(self, logits, num_samples):
        logits = np.asarray(logits, dtype=np.float64)
        if logits.ndim != 2:
            raise InvalidArgumentError(f"logits must be a matrix, got shape {list(logits.shape)}")
        count = int(num_samples)
        if count < 0:
            raise InvalidArgumentError(f"num_samples must be >= 0, got {count}")
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs = shifted / shifted.sum(axis=1, keepdims=True)
        with self._lock:
            draws = [self._rng.choice(probs.shape[1], size=count, p=p) for p in probs]
        out = np.asarray(draws, dtype=self.output_types[0].np).reshape(len(draws), count)
        return (out,)
