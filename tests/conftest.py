"""Fixtures every test folder shares. (This folder is on sys.path for the tests, so
helpers here, such as `emulated_cupy`, import by name.)"""

from __future__ import annotations

import importlib.util
import sys

import emulated_cupy
import pytest


@pytest.fixture(autouse=True)
def _no_real_gpu(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests expect the devices of a machine without a GPU (CI's), except those that ask
    for one (the `gpu_cupy` fixture or the `gpu` marker): on a GPU machine the others would
    see it, as TensorFlow does (a server's task gets GPU:0, a strategy a replica there).
    So tfx counts no GPU in this process unless a test installs the emulation (which
    counts its own), and the processes a test starts see no CUDA device. (Blocking the
    import of CuPy instead broke libraries that load `cupyx` lazily.)"""
    if "gpu_cupy" in request.fixturenames or request.node.get_closest_marker("gpu"):
        return
    from tfx.core import devices

    real_count = devices.gpu_count

    def gpu_count(device: str = "GPU") -> int:
        loaded = sys.modules.get("cupy", ...)
        real_cupy = (importlib.util.find_spec("cupy") is not None if loaded is ...
                     else loaded is not None and not isinstance(loaded, emulated_cupy.EmulatedCupy))
        return 0 if real_cupy else real_count(device)  # the emulation, or no CuPy at all

    monkeypatch.setattr(devices, "gpu_count", gpu_count)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")


@pytest.fixture(params=["emulated", pytest.param("cuda", marks=pytest.mark.gpu)])
def gpu_cupy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """The CuPy module GPU devices use in a test: the emulation of CuPy 14's rules (any
    machine), and the real CuPy when it and a GPU are present (skipped otherwise)."""
    from tfx.core import devices

    monkeypatch.setattr(devices, "_GPUS", {})  # a GPU device keeps the CuPy it was made with
    if request.param == "emulated":
        return emulated_cupy.install(monkeypatch)
    real = pytest.importorskip("cupy")
    if devices.gpu_count() < 1:
        pytest.skip("no CUDA GPU")
    return real
