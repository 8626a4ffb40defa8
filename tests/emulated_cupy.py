"""A stand-in for CuPy that keeps "device" arrays in host memory but enforces CuPy's rules.

GPU execution cannot be tested on a machine without a GPU, and a plain numpy
subclass would hide exactly the mistakes that break on one: a kernel calling
`np.asarray` on a device array, mixing host and device arrays in one
operation, or calling a numpy function CuPy does not provide. `EmulatedCupy`
is a module object to put in `sys.modules["cupy"]`; its `ndarray` wraps a
numpy array and follows CuPy 14's behaviour:

* `__array__` raises TypeError (CuPy refuses implicit conversion to numpy);
* numpy ufuncs and array functions dispatch to the device only when CuPy has a
  function of that name in the matching namespace, and take only the keyword
  arguments CuPy's function has (`tests/data/cupy_14_rules.json`, recorded from
  CuPy 14.2 on an H100 by `tests/data/record_cupy_rules.py`: its namespaces, the
  names that are merely numpy's own objects, which CuPy's `__array_function__`
  declines, and each function's parameters);
* a numpy array among the operands of a device operation is a TypeError (numpy
  and Python scalars are fine), as in CuPy;
* only attributes a CuPy ndarray has are available;
* a ufunc's `reduce`, `accumulate`, `reduceat` and `at` raise what CuPy raises for
  the ufunc and dtype (recorded: `minimum.reduce` is not supported, `subtract.at`
  takes int32 and uint32 only, ...), `at` declines an index tuple, and `reduce` takes
  no `initial`;
* `add.reduceat` sums as CuPy 14.2 was seen to on a GPU: as differences of a running
  sum, so a NaN or infinity in one segment reaches the later ones and a segment's
  sum carries the rounding of the running total.

It counts host-to-device and device-to-host copies so tests can see them.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

_RULES = json.loads((Path(__file__).resolve().parent / "data" / "cupy_14_rules.json")
                    .read_text())
_NAMESPACES = {ns: set(names) for ns, names in _RULES["namespaces"].items()}
_NUMPY_OBJECTS = {ns: set(names) for ns, names in _RULES["numpy_objects"].items()}
_NDARRAY_ATTRIBUTES = set(_RULES["ndarray"])
# "cupy.take" -> the keyword arguments it takes, or None when it has **kwargs.
_KEYWORDS = {name: None if any(p.startswith("**") for p in params)
             else {p for p in params if not p.startswith("*")}
             for name, params in _RULES["parameters"].items()}
# (ufunc, method, dtype) -> (exception class, message) for the combinations CuPy refuses.
_UFUNC_ERRORS = {
    (name, method, dtype): error
    for name, rules in _RULES["ufuncs"].items()
    for method, errors in rules["errors"].items()
    for error, dtypes in errors.items() for dtype in dtypes
}
_EXCEPTIONS = {"TypeError": TypeError, "NotImplementedError": NotImplementedError,
               "ValueError": ValueError}
# CuPy 14's ufunc.reduce(array, axis=0, dtype=None, out=None, keepdims=False): no `initial`.
_REDUCE_ARGUMENTS = {"axis", "dtype", "out", "keepdims"}


class CUDARuntimeError(RuntimeError):
    pass


def _unwrap(value: Any) -> Any:
    """Device arrays to their numpy contents; a numpy array operand is CuPy's TypeError."""
    if isinstance(value, ndarray):
        return value._host
    if isinstance(value, np.ndarray):
        raise TypeError(f"Unsupported type {type(value)}")
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    return value


def _wrap(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return ndarray(value)
    if isinstance(value, np.generic):
        return ndarray(np.asarray(value))  # CuPy returns 0-d arrays, not scalars
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _check_keywords(name: str, kwargs: dict[str, Any]) -> None:
    """CuPy's TypeError for a keyword its function `name` ("cupy.take") does not take."""
    allowed = _KEYWORDS.get(name)
    unknown = sorted(set(kwargs) - allowed) if allowed is not None else ()
    if unknown:
        raise TypeError(f"{name.rpartition('.')[2]}() got an unexpected keyword argument "
                        f"{unknown[0]!r}")


def _running_sum_reduceat(array: np.ndarray, indices: Any, axis: int = 0, dtype: Any = None,
                          out: Any = None) -> np.ndarray:
    """`add.reduceat` as CuPy 14.2 computes it: differences of the running sum at the
    segment ends (numpy's reduceat sums each segment on its own)."""
    starts = np.asarray(indices)
    moved = np.moveaxis(array, axis, 0)
    running = np.cumsum(moved, axis=0, dtype=dtype)
    ends = np.append(starts[1:], len(moved)) - 1
    result = running[ends]
    later = starts > 0
    result[later] -= running[starts[later] - 1]
    backward = ends < starts  # numpy's rule: an empty or backward segment is its first element
    result[backward] = moved[starts[backward]]
    return np.moveaxis(result, 0, axis)


class ndarray(np.lib.mixins.NDArrayOperatorsMixin):  # noqa: N801 - CuPy's name
    """A device array: numpy contents reachable only through CuPy's interface."""

    __array_priority__ = 100

    def __init__(self, host: np.ndarray) -> None:
        self._host = host

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. "
                        "Please use `.get()` to construct a NumPy array explicitly.")

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if ufunc.__name__ not in _NAMESPACES["cupy"]:
            return NotImplemented
        if method == "at" and isinstance(inputs[1], tuple):
            return NotImplemented  # seen on a GPU: CuPy declines `at` with an index tuple
        if method != "__call__":
            first = inputs[0]
            dtype = first._host.dtype if isinstance(first, ndarray) else np.asarray(first).dtype
            error = _UFUNC_ERRORS.get((ufunc.__name__, method, dtype.name))
            if error is not None:
                kind, _, message = error.partition(": ")
                raise _EXCEPTIONS[kind](message)
        if method == "reduce" and set(kwargs) - _REDUCE_ARGUMENTS:
            raise TypeError(f"{ufunc.__name__}.reduce() got an unexpected keyword argument "
                            f"{sorted(set(kwargs) - _REDUCE_ARGUMENTS)[0]!r}")
        if "out" in kwargs:
            kwargs["out"] = tuple(_unwrap(o) for o in kwargs["out"])
        if ufunc is np.add and method == "reduceat":
            return _wrap(_running_sum_reduceat(*_unwrap(inputs), **_unwrap(kwargs)))
        result = getattr(ufunc, method)(*_unwrap(inputs), **_unwrap(kwargs))
        return _wrap(result)

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        namespace = "cupy" + func.__module__[len("numpy"):]
        if (func.__name__ not in _NAMESPACES.get(namespace, ())
                or func.__name__ in _NUMPY_OBJECTS.get(namespace, ())):
            return NotImplemented
        _check_keywords(f"{namespace}.{func.__name__}", kwargs)
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in _NDARRAY_ATTRIBUTES:
            raise AttributeError(f"'cupy.ndarray' object has no attribute {name!r}")
        value = getattr(self._host, name)
        if callable(value):
            return lambda *a, **k: _wrap(value(*_unwrap(a), **_unwrap(k)))
        return _wrap(value) if isinstance(value, np.ndarray) else value

    def get(self) -> np.ndarray:
        EMULATED.to_host += 1
        return self._host.copy()

    def __getitem__(self, key: Any) -> Any:
        return _wrap(self._host[_unwrap(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._host[_unwrap(key)] = _unwrap(value)

    def __len__(self) -> int:
        return len(self._host)

    def __iter__(self):
        return (_wrap(v) for v in self._host)

    def __bool__(self) -> bool:
        return bool(self._host)

    def __int__(self) -> int:
        return int(self._host)

    def __float__(self) -> float:
        return float(self._host)

    def __index__(self) -> int:
        return self._host.__index__()

    def __repr__(self) -> str:
        return f"emulated_cupy.ndarray({self._host!r})"


class _Device:
    """`cupy.cuda.Device(i)`: a context manager selecting GPU i."""

    def __init__(self, index: int = 0) -> None:
        if not 0 <= index < EMULATED.gpus:
            raise CUDARuntimeError("cudaErrorInvalidDevice: invalid device ordinal")
        self.id = index

    def __enter__(self) -> _Device:
        EMULATED.current.append(self.id)
        return self

    def __exit__(self, *exc: Any) -> None:
        EMULATED.current.pop()

    def use(self) -> None:
        EMULATED.current[:] = [self.id]

    def synchronize(self) -> None:
        EMULATED.synchronized += 1

    @property
    def mem_info(self) -> tuple[int, int]:
        """(free, total) bytes: an emulated 8 GiB card."""
        return EMULATED.memory // 2, EMULATED.memory


class EmulatedCupy(types.ModuleType):
    """The module: `asarray`, `asnumpy`, `empty`, `ndarray`, `cuda`, counters."""

    def __init__(self, gpus: int = 1) -> None:
        super().__init__("cupy")
        self.gpus = gpus
        self.memory = 8 << 30
        self.synchronized = 0
        self.to_device = 0
        self.to_host = 0
        self.current: list[int] = []
        self.devices_used: set[int] = set()
        self.ndarray = ndarray
        runtime = types.SimpleNamespace(getDeviceCount=self._device_count,
                                        CUDARuntimeError=CUDARuntimeError)
        self.cuda = types.SimpleNamespace(Device=_Device, runtime=runtime)
        strided = np.lib.stride_tricks.as_strided
        self.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(
            as_strided=lambda x, shape=None, strides=None: _wrap(
                strided(_unwrap(x), shape, strides))))

    def _device_count(self) -> int:
        if self.gpus == 0:
            raise CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
        return self.gpus

    def asarray(self, value: Any, dtype: Any = None) -> ndarray:
        if isinstance(value, ndarray):
            return value if dtype is None else ndarray(value._host.astype(dtype))
        self.to_device += 1
        if self.current:
            self.devices_used.add(self.current[-1])
        return ndarray(np.array(value, dtype=dtype))

    def asnumpy(self, value: Any) -> np.ndarray:
        if isinstance(value, ndarray):
            return value.get()
        return np.asarray(value)

    def empty(self, shape: Any, dtype: Any = float) -> ndarray:
        return ndarray(np.empty(shape, dtype))

    def __getattr__(self, name: str) -> Any:
        """CuPy's other functions: numpy's, on device arrays only (CuPy refuses numpy ones)."""
        if name.startswith("_") or name not in _NAMESPACES["cupy"] or not hasattr(np, name):
            raise AttributeError(f"module 'cupy' has no attribute {name!r}")
        function = getattr(np, name)

        def on_device(*args: Any, **kwargs: Any) -> Any:
            _check_keywords(f"cupy.{name}", kwargs)
            return _wrap(function(*_unwrap(args), **_unwrap(kwargs)))

        return on_device


EMULATED = EmulatedCupy()


def install(monkeypatch: Any, gpus: int = 1) -> EmulatedCupy:
    """Put a fresh emulated CuPy with `gpus` GPUs in sys.modules for one test."""
    global EMULATED
    EMULATED = EmulatedCupy(gpus)
    monkeypatch.setitem(sys.modules, "cupy", EMULATED)
    return EMULATED
