"""Record the rules of the installed CuPy that `tests/emulated_cupy.py` enforces.

    python tests/data/record_cupy_rules.py > tests/data/cupy_14_rules.json

Needs CuPy and a CUDA GPU (the ufunc probes run on the device). It writes, as
JSON: CuPy's version; the names in its namespaces (`cupy`, `cupy.linalg`,
`cupy.fft`, `cupy.lib.stride_tricks`) and which of them are only numpy's own
objects (CuPy's `__array_function__` declines those); the ndarray's attributes;
the keyword parameters of each function and ndarray method that Python can
introspect (the emulation refuses any other keyword, as CuPy does); and, for
every ufunc, which dtypes its `reduce`, `accumulate`, `reduceat` and `at`
methods take, with the error CuPy raises for the others.
"""

from __future__ import annotations

import inspect
import json
import sys

import cupy
import numpy as np

NAMESPACES = {"cupy": cupy, "cupy.linalg": cupy.linalg, "cupy.fft": cupy.fft,
              "cupy.lib.stride_tricks": cupy.lib.stride_tricks}
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")


def _parameters(function) -> list[str] | None:
    """Parameter names ("*args" and "**kwargs" for variadic ones), or None if hidden."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    names = []
    for p in parameters:
        if p.kind is p.VAR_POSITIONAL:
            names.append("*" + p.name)
        elif p.kind is p.VAR_KEYWORD:
            names.append("**" + p.name)
        else:
            names.append(p.name)
    return names


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"


def _probe(ufunc, method: str, dtype: str) -> str | None:
    """None when `ufunc.method` takes arrays of `dtype`, else CuPy's error."""
    host = (np.arange(6).reshape(3, 2) % 3 + 1).astype(dtype)
    a = cupy.asarray(host)
    try:
        if method == "reduce":
            ufunc.reduce(a, axis=0)
        elif method == "accumulate":
            ufunc.accumulate(a, axis=0)
        elif method == "reduceat":
            ufunc.reduceat(a, cupy.asarray([0, 2]), axis=0)
        elif ufunc.nin == 2:
            ufunc.at(a, cupy.asarray([0, 2, 0]), a.copy())
        else:
            ufunc.at(a, cupy.asarray([0, 2, 0]))
        cupy.cuda.Device().synchronize()
    except Exception as exc:  # noqa: BLE001 - recording what CuPy raises is the point
        return _error(exc)
    return None


def main() -> int:
    namespaces, numpy_objects, parameters = {}, {}, {}
    for ns_name, module in NAMESPACES.items():
        names = sorted(n for n in dir(module) if not n.startswith("_"))
        namespaces[ns_name] = names
        numpy_module = {"cupy": np, "cupy.linalg": np.linalg, "cupy.fft": np.fft,
                        "cupy.lib.stride_tricks": np.lib.stride_tricks}[ns_name]
        numpy_objects[ns_name] = sorted(
            n for n in names if getattr(numpy_module, n, None) is getattr(module, n))
        for name in names:
            obj = getattr(module, name)
            if callable(obj) and not isinstance(obj, (type, cupy.ufunc)):
                params = _parameters(obj)
                if params is not None:
                    parameters[f"{ns_name}.{name}"] = params
    ndarray = sorted(n for n in dir(cupy.ndarray) if not n.startswith("_"))
    for name in ndarray:
        attr = getattr(cupy.ndarray, name)
        if callable(attr):
            params = _parameters(attr)
            if params is not None:
                parameters[f"ndarray.{name}"] = params
    ufuncs = {}
    for name in namespaces["cupy"]:
        ufunc = getattr(cupy, name)
        if not isinstance(ufunc, cupy.ufunc):
            continue
        methods = {}
        for method in ("reduce", "accumulate", "reduceat", "at"):
            if method != "at" and ufunc.nin != 2:
                continue
            errors: dict[str, list[str]] = {}
            for dtype in DTYPES:
                error = _probe(ufunc, method, dtype)
                if error is not None:
                    errors.setdefault(error, []).append(dtype)
            methods[method] = errors
        ufuncs[name] = {"nin": ufunc.nin, "errors": methods}
    json.dump({"version": cupy.__version__, "namespaces": namespaces,
               "numpy_objects": numpy_objects, "ndarray": ndarray,
               "parameters": parameters, "ufuncs": ufuncs}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
