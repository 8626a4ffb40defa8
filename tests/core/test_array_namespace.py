"""tfx.core.arrays on CuPy's rules: `ufunc_at` updates as numpy's `ufunc.at` does, for every
dtype and index form the kernels use, and CuPy refuses and computes what CuPy 14.2 did on an
H100. Each test runs on the emulation, and on a real GPU where there is one (`gpu_cupy`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfx.core.arrays import ufunc_at

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
UFUNCS = [np.add, np.subtract, np.maximum, np.minimum]


def _case(rng: np.random.Generator, dtype: str, rows: int, tuple_index: bool):
    target = (rng.integers(-5, 6, (rows, 3, 2)) * 3).astype(dtype)
    if target.dtype.kind == "c":
        target = target + 1j * rng.integers(-5, 6, target.shape).astype(dtype)
    updates = rng.integers(-9, 10, (7, 2)).astype(dtype)
    first = rng.integers(0, rows, 7)
    index = (first, rng.integers(0, 3, 7)) if tuple_index else first
    if not tuple_index:
        updates = rng.integers(-9, 10, (7, 3, 2)).astype(dtype)
    return target, index, updates


# Neither CuPy keeps state an example could leave behind for the next.
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dtype=st.sampled_from(DTYPES), ufunc=st.sampled_from(UFUNCS),
       rows=st.integers(1, 5), tuple_index=st.booleans(), seed=st.integers(0, 2**16))
def test_ufunc_at_on_cupy_matches_numpy(gpu_cupy, dtype: str, ufunc: np.ufunc, rows: int,
                                        tuple_index: bool, seed: int) -> None:
    if dtype.startswith("complex") and ufunc in (np.maximum, np.minimum):
        return  # no ordering of complex numbers: the kernels never ask
    rng = np.random.default_rng(seed)
    target, index, updates = _case(rng, dtype, rows, tuple_index)
    want = target.copy()
    with np.errstate(over="ignore"):
        ufunc.at(want, index, updates)
    on_device = gpu_cupy.asarray(target)
    device_index = (tuple(gpu_cupy.asarray(i) for i in index) if tuple_index
                    else gpu_cupy.asarray(index))
    with np.errstate(over="ignore"):
        ufunc_at(ufunc, on_device, device_index, gpu_cupy.asarray(updates))
    np.testing.assert_array_equal(on_device.get(), want)


def test_ufunc_at_updates_a_strided_view_in_place(gpu_cupy) -> None:
    base = gpu_cupy.asarray(np.zeros((4, 6), np.float32))
    view = base[:, ::2]  # not contiguous: flattening it would copy
    index = (gpu_cupy.asarray(np.array([0, 3, 0])), gpu_cupy.asarray(np.array([1, 2, 1])))
    ufunc_at(np.add, view, index, gpu_cupy.asarray(np.array([1.0, 2.0, 3.0], np.float32)))
    want = np.zeros((4, 6), np.float32)
    want[0, 2], want[3, 4] = 4.0, 2.0
    np.testing.assert_array_equal(base.get(), want)


def test_cupy_rules_refuse_what_cupy_refused(gpu_cupy) -> None:
    """What a real CuPy 14.2 raised on an H100, and the emulation must raise too."""
    x = gpu_cupy.asarray(np.arange(6, dtype=np.float32))
    with pytest.raises(TypeError, match="unexpected keyword argument 'mode'"):
        np.take(x, gpu_cupy.asarray(np.array([1, 2])), mode="clip")
    with pytest.raises(NotImplementedError, match="cupy_minimum.reduce"):
        np.minimum.reduce(x)
    with pytest.raises(NotImplementedError, match="cupy_logical_and.reduce"):
        np.logical_and.reduce(x > 1)
    with pytest.raises(TypeError, match="subtract.at only supports int32, uint32"):
        np.subtract.at(x, gpu_cupy.asarray(np.array([0, 1])), x[:2])
    with pytest.raises(TypeError, match="NotImplemented"):
        pair = (gpu_cupy.asarray(np.array([0])), gpu_cupy.asarray(np.array([1])))
        np.add.at(x.reshape(2, 3), pair, x[:1])


def test_add_reduceat_reproduces_cupy_on_an_h100(gpu_cupy) -> None:
    """CuPy 14.2's add.reduceat, as printed on an H100: a NaN in the middle segment reaches
    the last one, and the middle sum carries the running total's rounding."""
    data = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    data[3, 1] = np.nan
    starts = gpu_cupy.asarray(np.array([0, 2, 5]))
    got = np.add.reduceat(gpu_cupy.asarray(data), starts, axis=0).get()
    seen = np.array([[0.23063033819198608, -0.6677742600440979, 1.0020177364349365],
                     [-2.286452293395996, np.nan, -1.9083201885223389],
                     [-0.7322673797607422, np.nan, -0.31630009412765503]], np.float32)
    np.testing.assert_array_equal(got, seen)
