"""`tfx run --devices` with a GPU: the values of the CPU, and one clear line without one."""

from __future__ import annotations

import json
from pathlib import Path

import emulated_cupy
import numpy as np
import pytest
from cli_checks import assert_one_line, tfx_cli

from tfx.core.graph_io import load_graph
from tfx.core.kernel_registry import has_kernel

DATA = Path(__file__).resolve().parent.parent / "data" / "conformance"


def _assert_same_run(gpu_cupy, on_gpu: dict, on_cpu: dict) -> None:
    """The emulation computes with numpy, so its values are the CPU's bit for bit; a real
    GPU's float32 math (cuBLAS, CUDA's exp) rounds differently: TensorFlow's float32
    tolerance (rtol = atol = 1e-6, as its assertAllCloseAccordingToType)."""
    if isinstance(gpu_cupy, emulated_cupy.EmulatedCupy):
        assert on_gpu == on_cpu
        return
    for got, want in zip(on_gpu["fetches"], on_cpu["fetches"], strict=True):
        assert {k: v for k, v in got.items() if k != "value"} == {
            k: v for k, v in want.items() if k != "value"}
        np.testing.assert_allclose(got["value"], want["value"], rtol=1e-6, atol=1e-6)
    assert {k: v for k, v in on_gpu.items() if k != "fetches"} == {
        k: v for k, v in on_cpu.items() if k != "fetches"}


def test_tfx_run_on_a_gpu(gpu_cupy, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    feed = tmp_path / "x.npy"
    np.save(feed, np.load(DATA / "mlp_frozen.inputs.npz")["x"])
    args = ["run", str(DATA / "mlp_frozen.pb"), "--feed", f"x:0={feed}", "--json"]
    code, out, err = tfx_cli(capsys, *args, "--devices", "cpu:0,gpu:0")
    assert code == 0, err
    on_gpu = json.loads(out)
    code, out, err = tfx_cli(capsys, *args)
    assert code == 0, err
    _assert_same_run(gpu_cupy, on_gpu, json.loads(out))


def test_tfx_run_without_a_gpu_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    emulated_cupy.install(monkeypatch, gpus=0)
    code, _, err = tfx_cli(capsys, "run", str(DATA / "mlp_frozen.pb"), "--devices", "gpu:0")
    assert code == 2
    assert_one_line(err)
    assert "no such GPU: /job:localhost/replica:0/task:0/device:GPU:0" in err


def test_a_graph_placed_for_a_gpu_runs_there(gpu_cupy, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    """tfx place plans a GPU with its GPU kernels, so what it places there can run there
    (where the cost model puts them: DynamicPartition and DynamicStitch have GPU kernels
    too, as in TensorFlow)."""
    graph, placed = str(DATA / "embedding_sharded.pb"), str(tmp_path / "placed.pb")
    ids = tmp_path / "ids.npy"
    np.save(ids, np.load(DATA / "embedding_sharded.inputs.npz")["ids"])
    code, _, err = tfx_cli(capsys, "place", graph, "--devices", "cpu:0,gpu:0", "-o", placed)
    assert code == 0, err
    nodes = load_graph(placed).node
    on_gpu = {n.op for n in nodes if n.device.endswith("GPU:0")}
    assert on_gpu and all(has_kernel(op, "GPU") for op in on_gpu)
    args = ["--init", "init", "--feed", f"ids:0={ids}", "--fetch", "embedded:0", "--json"]
    code, out, err = tfx_cli(capsys, "run", placed, "--devices", "cpu:0,gpu:0", *args)
    assert code == 0, err
    on_gpu = json.loads(out)
    code, out, err = tfx_cli(capsys, "run", graph, *args)
    assert code == 0, err
    _assert_same_run(gpu_cupy, on_gpu, json.loads(out))


def test_a_trace_of_a_gpu_step_times_the_work_not_the_launch(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    from tfx.core import devices

    monkeypatch.setattr(devices, "_GPUS", {})
    cupy = emulated_cupy.install(monkeypatch)
    feed, trace = tmp_path / "x.npy", tmp_path / "trace.json"
    np.save(feed, np.load(DATA / "mlp_frozen.inputs.npz")["x"])
    code, _, err = tfx_cli(capsys, "run", str(DATA / "mlp_frozen.pb"), "--feed", f"x:0={feed}",
                           "--devices", "cpu:0,gpu:0", "--trace", str(trace))
    assert code == 0, err
    slices = [e for e in json.loads(trace.read_text())["traceEvents"] if e.get("ph") == "X"]
    on_gpu = [e for e in slices if "GPU:0" in json.dumps(e)]
    assert on_gpu and cupy.synchronized >= len(on_gpu)  # each GPU kernel waited for
