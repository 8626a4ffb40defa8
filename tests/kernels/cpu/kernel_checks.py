"""Helpers the CPU kernel tests share: running one op on read-only inputs, central finite
differences for checking gradient kernels, and string tensors for the I/O kernels.

Inputs are made read-only so a kernel that writes into its input fails loudly.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from tfx.core.eager import run_op


def strings(*values: str | bytes) -> np.ndarray:
    """A string vector (bytes objects; str values encoded as UTF-8)."""
    out = np.empty(len(values), dtype=object)
    out[:] = [v.encode() if isinstance(v, str) else v for v in values]
    return out


def scalar(value: str | os.PathLike) -> np.ndarray:
    """A string scalar holding a path."""
    return np.array(os.fsencode(value), dtype=object)


def frozen(value, dtype=None) -> np.ndarray:
    array = np.array(value, dtype=dtype)
    array.flags.writeable = False
    return array


def run(op: str, *inputs, **attrs):
    """run_op on read-only copies; numpy scalars become 0-d arrays so they keep their dtype."""
    return run_op(op, [frozen(v) if isinstance(v, (np.ndarray, np.generic)) else v
                       for v in inputs], **attrs)


def run1(op: str, *inputs, **attrs) -> np.ndarray:
    """The one output of `op`."""
    (out,) = run(op, *inputs, **attrs)
    return np.asarray(out)


def numeric_grad(f: Callable[[np.ndarray], np.ndarray], x: np.ndarray, weights: np.ndarray,
                 eps: float = 1e-6) -> np.ndarray:
    """d/dx of sum(f(x) * weights) by central differences (computed in float64)."""
    grad = np.zeros(x.shape, np.float64)
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        # Difference first, then weigh and sum: the sums of large outputs would cancel.
        change = np.asarray(f(plus), np.float64) - np.asarray(f(minus), np.float64)
        grad[index] = np.sum(change * weights) / (2 * eps)
    return grad
