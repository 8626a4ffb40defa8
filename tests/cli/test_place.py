"""`tfx place`: placed graphs, the report (table and --json), device specs, profiles, input
shapes, soft placement, one-line errors for bad input; `tfx run --devices`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_checks import tfx_cli
from rich.console import Console

from tfx.cli import common
from tfx.core.cost_model import record_profile
from tfx.core.eager import make_node_def
from tfx.core.graph import Graph
from tfx.core.graph_io import load_graph
from tfx.protos import graph_pb2

CONFORMANCE = Path(__file__).parents[1] / "data" / "conformance"
MLP = str(CONFORMANCE / "mlp_frozen.pb")
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


def write_graph(path: Path, nodes: list[graph_pb2.NodeDef]) -> str:
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend(nodes)
    path.write_bytes(graph_def.SerializeToString())
    return str(path)


def _node(op: str, name: str, inputs: list[str], attrs: dict,
          device: str = "") -> graph_pb2.NodeDef:
    node_def = make_node_def(op, name, inputs, attrs)
    node_def.device = device
    return node_def


def _towers(path: Path, size: int = 256) -> str:
    nodes = [_node("Placeholder", "x", [], {"dtype": "float32", "shape": (None, size)})]
    for tower in "ab":
        prev = "x"
        for i in range(3):
            nodes.append(_node("Const", f"{tower}{i}/w", [], {
                "dtype": "float32", "value": np.ones((size, size), np.float32)}))
            nodes.append(_node("MatMul", f"{tower}{i}", [prev, f"{tower}{i}/w"],
                               {"T": "float32"}))
            prev = f"{tower}{i}"
    nodes.append(_node("Add", "sum", ["a2", "b2"], {"T": "float32"}))
    return write_graph(path / "towers.pb", nodes)


def _spec(path: Path, spec: dict) -> str:
    file = path / "cluster.json"
    file.write_text(json.dumps(spec))
    return str(file)


def test_place_writes_a_fully_placed_graph_and_a_report(tmp_path: Path, capsys,
                                                        monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # table cells unwrapped
    out = tmp_path / "placed.pb"
    code, stdout, stderr = tfx_cli(capsys, "place", _towers(tmp_path), "--devices",
                                   "cpu:0,cpu:1", "--input-shape", "x:0=256,256",
                                   "-o", str(out))
    assert code == 0, stderr
    graph = load_graph(str(out))
    assert {n.device for n in graph.node} == {CPU0, CPU1}
    assert f"wrote the placed graph to {out}" in stderr
    for text in ("simulated step", "greedy (chosen)", "best single device (CPU:0)",
                 "TensorFlow default", "lower bound", "send/recv pairs", "bytes moved",
                 "busy time / peak memory", "capacity"):
        assert text in stdout, text


def test_each_command_reads_columns_when_it_runs(tmp_path: Path, capsys, monkeypatch) -> None:
    # Regression: the consoles were made once, at import, and kept the width COLUMNS
    # had then; in a process that imported the CLI under COLUMNS=80 (a pytest-xdist
    # worker), COLUMNS=200 set later was ignored and the report's table wrapped.
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(common, "console", Console())
    monkeypatch.setattr(common, "err_console", Console(stderr=True))
    monkeypatch.setenv("COLUMNS", "200")
    code, stdout, stderr = tfx_cli(capsys, "place", _towers(tmp_path), "--devices",
                                   "cpu:0,cpu:1", "--input-shape", "x:0=256,256")
    assert code == 0, stderr
    assert "greedy (chosen)" in stdout and max(map(len, stdout.splitlines())) > 80


def test_place_json_report(tmp_path: Path, capsys) -> None:
    code, stdout, _ = tfx_cli(capsys, "place", _towers(tmp_path), "--devices", "cpu:2",
                              "--input-shape", "x=256,256", "--json")
    assert code == 0
    report = json.loads(stdout)
    assert report["devices"] == [CPU0, CPU1] and report["output"] is None
    chosen, baselines = report["chosen"], report["baselines"]
    assert set(baselines) == {"single", "default"}
    assert chosen["strategy"] == "greedy" and report["note"] == ""
    assert chosen["makespan_s"] <= min(b["makespan_s"] for b in baselines.values())
    assert chosen["makespan_s"] >= report["lower_bound_s"] > 0
    assert chosen["send_recv_pairs"] == 2
    assert chosen["bytes_moved"] == 2 * 256 * 256 * 4
    assert set(chosen["busy_s"]) == set(chosen["peak_memory_bytes"]) == {CPU0, CPU1}
    assert all(v > 0 for v in chosen["busy_s"].values())
    assert sum(chosen["nodes"].values()) == 14


def test_place_on_a_simulated_cluster(tmp_path: Path, capsys) -> None:
    spec = _spec(tmp_path, {
        "devices": [{"job": "worker", "type": "CPU", "count": 1},
                    {"job": "worker", "type": "GPU", "count": 2, "flops": 1e13}],
        "links": [{"between": ["/job:worker", "/job:worker"], "bandwidth": 1.2e10,
                   "latency": 1e-5}],
    })
    out = tmp_path / "placed.pbtxt"
    code, stdout, stderr = tfx_cli(capsys, "place", MLP, "--device-spec", spec, "-o", str(out),
                                   "--json")
    assert code == 0, stderr
    report = json.loads(stdout)
    assert report["devices"][1] == "/job:worker/replica:0/task:0/device:GPU:0"
    graph = load_graph(str(out))
    assert all(n.device.startswith("/job:worker/replica:0/task:0/device:") for n in graph.node)
    # Counts work from --devices too; GPUs are simulated, so nothing runs, but places.
    code, stdout, _ = tfx_cli(capsys, "place", MLP, "--devices", "gpu:4", "--json")
    assert code == 0 and len(json.loads(stdout)["devices"]) == 4


def test_place_with_a_measured_profile(tmp_path: Path, capsys) -> None:
    graph = Graph.from_graph_def(load_graph(MLP))
    feeds = {"x:0": np.ones((16, 784), np.float32)}
    fetch = next(n.name for n in graph if n.op == "Softmax") + ":0"
    profile = record_profile(graph, feeds, [fetch])
    path = tmp_path / "prof.json"
    profile.save(path)
    code, stdout, stderr = tfx_cli(capsys, "place", MLP, "--devices", "cpu:0,cpu:1",
                                   "--profile", str(path), "--json")
    assert code == 0, stderr
    busy = sum(json.loads(stdout)["chosen"]["busy_s"].values())
    # Measured times replace the estimates (x was fed, not run: a Placeholder costs 0).
    assert "x" not in profile.times
    assert busy == pytest.approx(sum(profile.times.values()))


def test_soft_placement_relaxes_a_missing_device(tmp_path: Path, capsys) -> None:
    graph = write_graph(tmp_path / "g.pb", [
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (2, 2)}),
        _node("MatMul", "m", ["x", "x"], {"T": "float32"}, "/device:GPU:0"),
    ])
    code, _, stderr = tfx_cli(capsys, "place", graph, "--devices", "cpu:0,cpu:1")
    assert code == 2
    assert stderr == ("error: Cannot assign a device for operation m: {{node m}} was "
                      f"explicitly assigned to /device:GPU:0 but available devices are [ {CPU0}, "
                      f"{CPU1} ]. Make sure the device specification refers to a valid device. "
                      "The requested device appears to be a GPU, but CUDA is not enabled. "
                      "(Soft placement would relax it.)\n")
    out = tmp_path / "placed.pb"
    code, _, _ = tfx_cli(capsys, "place", graph, "--devices", "cpu:0,cpu:1",
                         "--soft-placement", "-o", str(out))
    assert code == 0
    assert {n.device for n in load_graph(str(out)).node} <= {CPU0, CPU1}


def _colocated_apart(tmp_path: Path) -> str:
    colocated = _node("Neg", "b", ["x"], {"T": "float32"}, "/cpu:1")
    colocated.attr["_class"].list.s.append(b"loc:@a")
    return write_graph(tmp_path / "coloc.pb", [
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (4,)}),
        _node("Neg", "a", ["x"], {"T": "float32"}, "/cpu:0"),
        colocated,
    ])


@pytest.mark.parametrize(("make_args", "message"), [
    (lambda p: ["--devices", "cpu:0", "--device-spec", "x.json"],
     "give either --devices or --device-spec"),
    (lambda p: [], "give either --devices or --device-spec"),
    (lambda p: ["--devices", "cpu:0", "--json", "-o", "-"], "--json and -o - both"),
])
def test_usage_errors(tmp_path: Path, capsys, make_args, message: str) -> None:
    code, _, stderr = tfx_cli(capsys, "place", MLP, *make_args(tmp_path))
    assert code == 2 and message in stderr


@pytest.mark.parametrize(("make_args", "message"), [
    (lambda p: [_colocated_apart(p), "--devices", "cpu:0,cpu:1"],
     "error: colocation conflict: node 'a' asks for device '/cpu:0' but node 'b' asks "
     "for '/cpu:1', and they must share a device ('b' has _class loc:@a)"),
    (lambda p: [MLP, "--device-spec", _spec(p, {
        "devices": [{"type": "GPU", "count": 2, "unsupported_ops": ["MatMul"]}],
        "links": [{"between": ["", ""], "bandwidth": 1e10, "latency": 0}]})],
     "has no kernel on any listed device (/job:localhost/replica:0/task:0/device:GPU:0, "
     "/job:localhost/replica:0/task:0/device:GPU:1)"),
    (lambda p: [MLP, "--device-spec", _spec(p, {
        "devices": [{"type": "GPU", "count": 2, "flops": -5}], "links": []})],
     "devices[0]: 'flops' must be positive and finite, got -5"),
    (lambda p: [MLP, "--device-spec", _spec(p, {
        "devices": [{"type": "GPU", "count": 2}], "links": []})],
     "no link between /job:localhost/replica:0/task:0/device:GPU:0 <-> "
     "/job:localhost/replica:0/task:0/device:GPU:1"),
    (lambda p: [MLP, "--device-spec", _spec(p, {
        "devices": [{"type": "CPU", "count": 2, "memory": 1000}],
        "links": [{"between": ["", ""], "bandwidth": 1e10, "latency": 0}]})],
     "fits on no device: it needs"),
    (lambda p: [MLP, "--devices", "cpu:0,tpu:x"], "malformed device name 'tpu:x'"),
    (lambda p: [MLP, "--devices", "cpu:0", "--input-shape", "x:0=a,b"],
     "--input-shape 'x:0=a,b': bad dimension 'a'"),
    (lambda p: [MLP, "--devices", "cpu:0", "--input-shape", "nope:0=1"], "nope"),
    (lambda p: [MLP, "--devices", "cpu:0", "--profile", str(p / "missing.json")],
     "no such profile file"),
    (lambda p: [MLP, "--devices", "cpu:0", "--device-spec", str(p / "missing.json")],
     "give either"),
])
def test_bad_input_is_one_line_exit_2(tmp_path: Path, capsys, make_args, message: str) -> None:
    code, stdout, stderr = tfx_cli(capsys, "place", *make_args(tmp_path))
    assert code == 2, stderr
    assert message in stderr
    assert stderr.startswith("error: ") or "Usage" in stderr
    if stderr.startswith("error: "):
        assert stderr.count("\n") == 1
    assert stdout == ""


def test_run_across_devices(tmp_path: Path, capsys) -> None:
    placed = tmp_path / "placed.pb"
    assert tfx_cli(capsys, "place", MLP, "--devices", "cpu:0,cpu:1", "-o", str(placed))[0] == 0
    x = tmp_path / "x.npy"
    np.save(x, np.random.default_rng(0).standard_normal((16, 784)).astype(np.float32))
    results = []
    for graph, extra in ((MLP, []), (str(placed), ["--devices", "cpu:0,cpu:1"]),
                         (MLP, ["--devices", "cpu:0,cpu:1,cpu:2"])):
        code, stdout, stderr = tfx_cli(capsys, "run", graph, "--feed", f"x:0={x}", "--json",
                                       *extra)
        assert code == 0, stderr
        results.append(json.loads(stdout)["fetches"])
    assert results[0] == results[1] == results[2]
    code, _, stderr = tfx_cli(capsys, "run", MLP, "--devices", "cpu:0,/job:ps/task:0/cpu:0")
    assert code == 2 and "tfx runs steps on this process's CPU and GPU devices" in stderr
