"""The allocation limits: guards against absurd tensors from untrusted graphs.

Kernels that size their output from data (Fill, Tile, Range, Reshape of a
feed, a constant's shape...) call `check_allocation` before allocating, so a
graph asking for a petabyte gets a clear ResourceExhaustedError naming the
node instead of a MemoryError or a swapping machine. The limit is per tensor;
set it with `set_max_tensor_bytes`, the `TFX_MAX_TENSOR_BYTES` environment
variable, or `tfx run --max-tensor-bytes`.

A second, total limit covers what a graph file can make out of nothing: a
constant stored in TensorFlow's compact form (a few values, "repeat the last
one" for the rest) that has to be expanded into a dense array. One value
repeated costs nothing (it decodes to a read-only broadcast view), but a
splat of two values is expanded, so a 1 KB file could otherwise hold 1000
such constants of 100 MB each. `track_expansion` counts every expanded array
while it is alive against `max_expanded_bytes` (`TFX_MAX_EXPANDED_BYTES`,
default 4 GiB); dense `tensor_content` is not counted, since its size is
bounded by the file that holds it.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfx.core.errors import InvalidArgumentError, ResourceExhaustedError

if TYPE_CHECKING:
    import numpy as np

_DEFAULT = 4 << 30  # 4 GiB per tensor
_DEFAULT_EXPANDED = 4 << 30  # 4 GiB of expanded constants alive at once

_max_tensor_bytes = int(os.environ.get("TFX_MAX_TENSOR_BYTES", _DEFAULT))
_max_expanded_bytes = int(os.environ.get("TFX_MAX_EXPANDED_BYTES", _DEFAULT_EXPANDED))
_expanded_bytes = 0
# Reentrant: a finalizer may run (garbage collection) while this thread holds it.
_expanded_lock = threading.RLock()


def max_tensor_bytes() -> int:
    return _max_tensor_bytes


def set_max_tensor_bytes(limit: int) -> int:
    """Set the per-tensor limit in bytes; return the previous one."""
    global _max_tensor_bytes
    if limit <= 0:
        raise InvalidArgumentError(f"the tensor size limit must be positive, got {limit}")
    previous, _max_tensor_bytes = _max_tensor_bytes, int(limit)
    return previous


def max_expanded_bytes() -> int:
    return _max_expanded_bytes


def set_max_expanded_bytes(limit: int) -> int:
    """Set the total limit on live expanded constants in bytes; return the previous one."""
    global _max_expanded_bytes
    if limit <= 0:
        raise InvalidArgumentError(f"the expanded constant limit must be positive, got {limit}")
    previous, _max_expanded_bytes = _max_expanded_bytes, int(limit)
    return previous


def expanded_bytes() -> int:
    """Bytes of expanded constants alive now."""
    return _expanded_bytes


def format_bytes(size: int) -> str:
    """A byte count for people: 512 B, 1.5 KiB, 1.0 GiB."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def num_elements(shape: Sequence[int], what: str = "tensor") -> int:
    """Element count of a shape, checking each dim is a non-negative integer."""
    count = 1
    for dim in shape:
        dim = int(dim)
        if dim < 0:
            raise InvalidArgumentError(f"{what}: negative dimension {dim} in shape {list(shape)}")
        count *= dim
    return count


def check_allocation(
    shape: Sequence[int], itemsize: int, what: str = "tensor", dtype: str | None = None
) -> None:
    """Raise unless a tensor of `shape` and `itemsize` fits under the limit.

    Args:
        shape: the tensor's dims.
        itemsize: bytes per element.
        what: who asks, for the message (a node: "node 'big' (op Const)").
        dtype: the dtype's name, for the message.
    """
    count = num_elements(shape, what)
    size = count * max(itemsize, 1)
    if size > _max_tensor_bytes:
        kind = f" {dtype}" if dtype else ""
        raise ResourceExhaustedError(
            f"{what}: a tensor of shape {list(shape)}{kind} needs {size} bytes "
            f"({format_bytes(size)}), over the limit of {_max_tensor_bytes} bytes "
            f"({format_bytes(_max_tensor_bytes)}) (raise it with TFX_MAX_TENSOR_BYTES or "
            "tfx run --max-tensor-bytes)"
        )


def reserve_expansion(size: int, what: str = "tensor") -> None:
    """Raise unless `size` more bytes of expanded constants fit under the total limit."""
    with _expanded_lock:
        if _expanded_bytes + size > _max_expanded_bytes:
            raise ResourceExhaustedError(
                f"{what}: expanding a compact (splat) constant needs {format_bytes(size)} "
                f"more, but expanded constants already hold {format_bytes(_expanded_bytes)} "
                f"of the {format_bytes(_max_expanded_bytes)} total (raise it with "
                "TFX_MAX_EXPANDED_BYTES)"
            )


def track_expansion(array: np.ndarray, what: str = "tensor") -> None:
    """Count `array`, just expanded from a compact constant, against the total until freed.

    Call `reserve_expansion` before allocating it; this books the bytes and
    releases them when the array is garbage collected.
    """
    global _expanded_bytes
    size = int(array.nbytes)
    with _expanded_lock:
        reserve_expansion(size, what)
        _expanded_bytes += size
    weakref.finalize(array, _release, size)


def _release(size: int) -> None:
    global _expanded_bytes
    with _expanded_lock:
        _expanded_bytes -= size
