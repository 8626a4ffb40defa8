"""`tfx run --devices` with a GPU: the values of the CPU, and one clear line without one."""

from __future__ import annotations

import json
from pathlib import Path

import emulated_cupy
import numpy as np
import pytest
from cli_checks import assert_one_line, tfx_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "conformance"


def test_tfx_run_on_a_gpu(gpu_cupy, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    feed = tmp_path / "x.npy"
    np.save(feed, np.load(DATA / "mlp_frozen.inputs.npz")["x"])
    args = ["run", str(DATA / "mlp_frozen.pb"), "--feed", f"x:0={feed}", "--json"]
    code, out, err = tfx_cli(capsys, *args, "--devices", "cpu:0,gpu:0")
    assert code == 0, err
    on_gpu = json.loads(out)
    code, out, err = tfx_cli(capsys, *args)
    assert code == 0 and json.loads(out) == on_gpu


def test_tfx_run_without_a_gpu_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    emulated_cupy.install(monkeypatch, gpus=0)
    code, _, err = tfx_cli(capsys, "run", str(DATA / "mlp_frozen.pb"), "--devices", "gpu:0")
    assert code == 2
    assert_one_line(err)
    assert "no such GPU: /job:localhost/replica:0/task:0/device:GPU:0" in err
