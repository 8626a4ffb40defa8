"""Fixtures every test folder shares. (This folder is on sys.path for the tests, so
helpers here, such as `emulated_cupy`, import by name.)"""

from __future__ import annotations

import emulated_cupy
import pytest


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
