"""tfx.core.allocator: glibc keeps freed tensor memory for the next step, once per process."""

from __future__ import annotations

import ctypes.util
import sys

import pytest

from tfx.core import allocator

GLIBC = sys.platform.startswith("linux") and "libc" in (ctypes.util.find_library("c") or "")


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(allocator, "_done", False)
    for name in ("TFX_KEEP_FREED_MEMORY", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.skipif(not GLIBC, reason="mallopt is glibc's")
def test_tunes_once_per_process(fresh) -> None:
    assert allocator.keep_freed_memory() is True
    assert allocator.keep_freed_memory() is False


@pytest.mark.parametrize("name, value", [("TFX_KEEP_FREED_MEMORY", "0"),
                                         ("MALLOC_MMAP_THRESHOLD_", "131072")])
def test_the_environment_can_opt_out(fresh, name: str, value: str) -> None:
    fresh.setenv(name, value)
    assert allocator.keep_freed_memory() is False
