"""Hostile graph files through the CLI: what fuzzing found, kept as regressions.

Each case is the smallest file that showed the bug. The promise checked: one `error:`
line naming the node (no traceback), exit code 2 for bad input, and no output left
behind (an existing one untouched).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from cli_checks import tfx_cli

from tfx.core.eager import make_node_def
from tfx.protos import graph_pb2

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


def _write(tmp_path: Path, nodes: list[graph_pb2.NodeDef], name: str = "g.pb") -> str:
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend(nodes)
    path = tmp_path / name
    path.write_bytes(graph_def.SerializeToString())
    return str(path)


def _node(op: str, name: str, inputs: list[str], attrs: dict,
          device: str = "") -> graph_pb2.NodeDef:
    node_def = make_node_def(op, name, inputs, attrs)
    node_def.device = device
    return node_def


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


def test_partition_refuses_a_reference_edge_between_devices(tmp_path: Path, capsys):
    # Assign on CPU:0 updating a variable on CPU:1: the partitioner sent the variable's
    # value, and wrote a CPU:0 graph whose Assign reads a float where it needs float_ref.
    path = _write(tmp_path, [
        _node("VariableV2", "v", [], {"dtype": "float32", "shape": (2,)}, CPU1),
        _node("Const", "one", [], {"dtype": "float32", "value": [1.0, 1.0]}, CPU0),
        _node("Assign", "v/Assign", ["v", "one"], {"T": "float32"}, CPU0),
    ])
    out_dir = tmp_path / "parts"
    code, _, err = tfx_cli(capsys, "partition", path, "-o", str(out_dir))
    assert code == 2
    line = _one_error_line(err)
    assert "'v/Assign' (op Assign)" in line and "reference" in line and CPU1 in line
    assert not out_dir.exists()


def test_partition_still_reads_a_remote_variable_by_value(tmp_path: Path, capsys):
    # Reading a ref as a value across devices is a plain transfer of the value.
    path = _write(tmp_path, [
        _node("VariableV2", "v", [], {"dtype": "float32", "shape": (2,)}, CPU1),
        _node("Identity", "read", ["v"], {"T": "float32"}, CPU0),
    ])
    code, _, err = tfx_cli(capsys, "partition", path, "-o", str(tmp_path / "parts"))
    assert code == 0, err


def test_optimize_leaves_a_conv_with_a_filter_of_the_wrong_rank_unfused(tmp_path: Path, capsys):
    # Conv2D -> Relu with a constant filter gets a zero bias sized by the filter's last
    # dim; a rank-2 filter made the fusion pass index past its shape (IndexError, exit 1).
    path = _write(tmp_path, [
        _node("Placeholder", "x", [], {"dtype": "float32", "shape": (1, 4, 4, 3)}),
        _node("Const", "w", [], {"dtype": "float32", "value": [[1.0, 2.0], [3.0, 4.0]]}),
        _node("Conv2D", "conv", ["x", "w"],
              {"T": "float32", "strides": [1, 1, 1, 1], "padding": "SAME"}),
        _node("Relu", "relu", ["conv"], {"T": "float32"}),
    ])
    out = tmp_path / "opt.pb"
    code, _, err = tfx_cli(capsys, "optimize", path, "-o", str(out), "--level", "all")
    assert code == 0, err
    from tfx.core.graph_io import load_graph

    assert {n.op for n in load_graph(str(out)).node} >= {"Conv2D", "Relu"}


@pytest.mark.parametrize("devices", ["cpu:100000", "cpu:0,gpu:5000"])
def test_place_refuses_absurd_device_counts(tmp_path: Path, capsys, devices: str):
    # `TYPE:N` is a count: cpu:100000 built 10^10 links and never finished.
    path = _write(tmp_path, [_node("Placeholder", "x", [], {"dtype": "float32", "shape": (2,)})])
    code, _, err = tfx_cli(capsys, "place", path, "--devices", devices,
                           "-o", str(tmp_path / "p.pb"))
    assert code == 2
    assert "at most 1024" in _one_error_line(err)
    assert not (tmp_path / "p.pb").exists()


def test_place_refuses_a_device_spec_adding_up_to_too_many_devices(tmp_path: Path, capsys):
    import json

    path = _write(tmp_path, [_node("Placeholder", "x", [], {"dtype": "float32", "shape": (2,)})])
    spec = tmp_path / "cluster.json"
    spec.write_text(json.dumps({"devices": [{"type": "CPU", "task": i, "count": 1000}
                                            for i in range(50)]}))
    code, _, err = tfx_cli(capsys, "place", path, "--device-spec", str(spec))
    assert code == 2
    assert "devices[1]" in _one_error_line(err)


def test_run_shows_a_kernel_warning_as_one_line(tmp_path: Path, capsys):
    # inf * 0 in a matrix product makes numpy warn from inside the kernel; the warning
    # printed the kernel's file, line and source code under it, which reads like a crash.
    path = _write(tmp_path, [
        _node("Const", "a", [], {"dtype": "float32", "value": [[float("inf"), 1.0]]}),
        _node("Const", "b", [], {"dtype": "float32", "value": [[0.0], [1.0]]}),
        _node("MatMul", "mm", ["a", "b"], {"T": "float32"}),
    ])
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        code, out, err = tfx_cli(capsys, "run", path, "--fetch", "mm:0", "--json")
    assert code == 0, err
    assert err.strip().splitlines() == ["warning: invalid value encountered in matmul"]
    assert "NaN" in out


def _placed_pair(tmp_path: Path) -> str:
    return _write(tmp_path, [
        _node("Const", "a", [], {"dtype": "float32", "value": [1.0]}, CPU0),
        _node("Neg", "b", ["a"], {"T": "float32"}, CPU1),
    ], "placed.pb")


@pytest.mark.parametrize("command", ["place", "trace", "profile"])
def test_an_output_that_is_a_directory_is_named_not_its_temporary_file(tmp_path: Path, capsys,
                                                                       command: str):
    # os.replace failed on the temporary file beside the target, and the message named
    # that file (/dir/.out.x8f2.tmp: Is a directory) instead of the one asked for.
    path = _placed_pair(tmp_path)
    target = tmp_path / "out"
    target.mkdir()
    argv = {"place": ["place", path, "--devices", "cpu:0,cpu:1", "-o", str(target)],
            "trace": ["run", path, "--fetch", "b", "--trace", str(target)],
            "profile": ["run", path, "--fetch", "b", "--profile-out", str(target)]}[command]
    code, _, err = tfx_cli(capsys, *argv)
    assert code == 2
    assert err.strip().splitlines()[-1] == f"error: {target}: Is a directory"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_partition_writes_all_its_files_or_none(tmp_path: Path, capsys):
    # index.json could not be written (a directory of that name): the per-device graphs
    # were already there, replacing the previous ones, beside no index.
    path = _placed_pair(tmp_path)
    out = tmp_path / "parts"
    (out / "index.json").mkdir(parents=True)
    old = out / "job_localhost_replica_0_task_0_device_CPU_0.pb"
    old.write_bytes(b"previous")
    code, _, err = tfx_cli(capsys, "partition", path, "-o", str(out))
    assert code == 2
    assert _one_error_line(err) == f"error: {out / 'index.json'}: Is a directory"
    assert sorted(p.name for p in out.iterdir()) == ["index.json", old.name]
    assert old.read_bytes() == b"previous"
    fresh = tmp_path / "fresh" / "parts"
    code, _, err = tfx_cli(capsys, "partition", path, "-o", str(fresh))
    assert code == 0, err
    assert sorted(p.name for p in fresh.iterdir()) == [
        "index.json", old.name, "job_localhost_replica_0_task_0_device_CPU_1.pb"]


def test_a_text_graph_may_start_with_a_byte_order_mark(tmp_path: Path, capsys):
    path = tmp_path / "g.pbtxt"
    path.write_bytes(b'\xef\xbb\xbfnode { name: "a" op: "NoOp" }\n')
    code, out, err = tfx_cli(capsys, "inspect", str(path), "--json")
    assert code == 0, err
    unnamed = tmp_path / "g.pb"  # the format is detected from the content
    unnamed.write_bytes(path.read_bytes())
    code, out, err = tfx_cli(capsys, "inspect", str(unnamed), "--json")
    assert code == 0, err


def test_optimize_of_a_graph_without_outputs_does_not_claim_every_node_is_read(tmp_path,
                                                                                capsys):
    # One unread Const: the message said "every node is read by another".
    path = _write(tmp_path, [_node("Const", "c", [], {"dtype": "float32", "value": 1.0})])
    code, _, err = tfx_cli(capsys, "optimize", path, "-o", str(tmp_path / "o.pb"))
    assert code == 2
    line = _one_error_line(err)
    assert "no likely outputs" in line and "--outputs" in line and "every node" not in line
    assert not (tmp_path / "o.pb").exists()


@pytest.mark.parametrize("command", [["run", "--fetch", "y"], ["optimize", "--outputs", "y"],
                                     ["place", "--devices", "cpu:0"]])
def test_a_malformed_device_name_is_refused_as_tensorflow_refuses_it(tmp_path: Path, capsys,
                                                                     command: list[str]):
    # A one-device run ignored node devices, so `device: "garbage"` ran (fuzzing found it
    # beside the two-device run, which refused it); TF's import refuses it. A device that
    # is well formed but absent stays the placer's question: one device runs everything.
    path = _write(tmp_path, [
        _node("Const", "x", [], {"dtype": "float32", "value": 1.0}),
        _node("Neg", "y", ["x"], {"T": "float32"}, "garbage"),
    ])
    code, _, err = tfx_cli(capsys, command[0], path, *command[1:])
    assert code == 2
    line = _one_error_line(err)
    assert "'y' (op Neg)" in line and "malformed device name 'garbage'" in line
    fine = _write(tmp_path, [
        _node("Const", "x", [], {"dtype": "float32", "value": 1.0}),
        _node("Neg", "y", ["x"], {"T": "float32"}, "/job:ps/task:3/device:GPU:1"),
    ], name="absent.pb")
    assert tfx_cli(capsys, "run", fine, "--fetch", "y")[0] == 0
