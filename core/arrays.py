"""The array library a kernel's tensors belong to: numpy in host memory, CuPy on a GPU.

CPU kernels compute with numpy's functions, which CuPy arrays take over
(`__array_ufunc__`, `__array_function__`), but making a new array (`np.empty`,
`np.full`, `np.asarray`) would always make a host one. A kernel that should
also run on a GPU (`tfx.kernels.gpu.shared`) makes its arrays through
`namespace(x)`, the module of its input `x`: numpy, or CuPy for a CuPy array.
CuPy is never imported here: an array can only be CuPy's once CuPy is loaded.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy as np


def namespace(x: Any) -> ModuleType:
    """numpy, or the CuPy module when `x` is a CuPy array."""
    if type(x) is np.ndarray:  # the hot path: host memory
        return np
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(x, cupy.ndarray):
        return cupy
    return np


def as_array(x: Any) -> Any:
    """`x` as an array where it lives: numpy scalars become 0-d numpy arrays."""
    return namespace(x).asarray(x)
