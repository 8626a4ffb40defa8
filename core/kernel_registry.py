"""The kernel registry: which implementation runs an op on a device type.

Kernels register per (op, device type) with optional dtype constraints on
type attrs, as TensorFlow's REGISTER_KERNEL_BUILDER does:

    @register_kernel("MatMul", "CPU", T=FLOATS)
    class MatMul(OpKernel): ...

`find_kernel` picks the first registration whose constraints the node's attrs
satisfy. Device packages (`tfx.kernels.cpu`, `tfx.kernels.gpu`) are imported
lazily the first time a device type is looked up, so optional backends such as
CuPy load only when their device is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tfx.core.errors import NotFoundError

_DEVICE_PACKAGES = {"CPU": "tfx.kernels.cpu", "GPU": "tfx.kernels.gpu"}


@dataclass(frozen=True)
class KernelRegistration:
    op: str
    device_type: str
    kernel_class: type
    constraints: tuple[tuple[str, frozenset], ...]

    def matches(self, attrs: dict[str, Any]) -> bool:
        for attr, allowed in self.constraints:
            value = attrs.get(attr)
            values = value if isinstance(value, list) else [value]
            if any(v not in allowed for v in values):
                return False
        return True


_KERNELS: dict[tuple[str, str], list[KernelRegistration]] = {}
_loaded: set[str] = set()


def register_kernel(ops: str | Iterable[str], device_type: str = "CPU", **constraints):
    """Class decorator registering a kernel for one or more ops on a device type.

    Keyword arguments constrain type attrs: `T=(float32, float64)` means the kernel
    only serves nodes whose attr T is one of those DTypes.
    """
    names = [ops] if isinstance(ops, str) else list(ops)
    frozen = tuple((k, frozenset(v)) for k, v in sorted(constraints.items()))

    def decorate(cls: type) -> type:
        for name in names:
            reg = KernelRegistration(name, device_type.upper(), cls, frozen)
            _KERNELS.setdefault((name, reg.device_type), []).append(reg)
        return cls

    return decorate


def load_device_kernels(device_type: str) -> None:
    """Import the kernel package of a device type (once)."""
    device_type = device_type.upper()
    if device_type in _loaded:
        return
    package = _DEVICE_PACKAGES.get(device_type)
    if package:
        importlib.import_module(package)
    _loaded.add(device_type)  # after the import: a failed one is retried, not half-loaded


def find_kernel(op: str, device_type: str, attrs: dict[str, Any]) -> type:
    """The kernel class for `op` on `device_type` given a node's attrs."""
    load_device_kernels(device_type)
    regs = _KERNELS.get((op, device_type.upper()), [])
    for reg in regs:
        if reg.matches(attrs):
            return reg.kernel_class
    if regs:
        got = {k: str(attrs.get(k)) for reg in regs for k, _ in reg.constraints}
        raise NotFoundError(
            f"no {device_type} kernel for op {op} with {got}; registered kernels accept "
            + "; ".join(
                ", ".join(f"{k} in {{{', '.join(sorted(map(str, v)))}}}" for k, v in r.constraints)
                for r in regs
            )
        )
    raise NotFoundError(f"op {op} has no kernel registered for device type {device_type}")


def has_kernel(op: str, device_type: str) -> bool:
    load_device_kernels(device_type)
    return (op, device_type.upper()) in _KERNELS


def kernels_for(op: str) -> list[KernelRegistration]:
    """Every registration of an op, over all device types loaded so far."""
    for device_type in _DEVICE_PACKAGES:
        if device_type == "CPU":
            load_device_kernels(device_type)
    return [reg for (name, _), regs in sorted(_KERNELS.items()) if name == op for reg in regs]


def registered_ops(device_type: str = "CPU") -> set[str]:
    load_device_kernels(device_type)
    return {name for (name, dev) in _KERNELS if dev == device_type.upper()}
