"""`tfx run`: the bundled graph, feeds, fetches, output files, and one-line errors."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_checks import assert_one_line, tfx_cli

import tfx.graphs
from tfx.core import limits, tensor_util
from tfx.core.eager import make_node_def
from tfx.core.graph_io import load_graph
from tfx.protos import graph_pb2

DEFAULT = str(Path(tfx.graphs.__file__).parent / "default.pbtxt")
CONFORMANCE = Path(__file__).parents[1] / "data" / "conformance"


def default_forward(x: np.ndarray | None = None) -> np.ndarray:
    """The default graph's MLP in numpy, from the constants in the file."""
    consts = {
        node.name: tensor_util.to_ndarray(node.attr["value"].tensor)
        for node in load_graph(DEFAULT).node
        if node.op == "Const"
    }
    x = consts["input/default"] if x is None else x
    hidden = np.maximum(x @ consts["dense1/kernel"] + consts["dense1/bias"], 0.0)
    logits = hidden @ consts["dense2/kernel"] + consts["dense2/bias"]
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def write_graph(path: Path, nodes: list[graph_pb2.NodeDef]) -> str:
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend(nodes)
    path.write_bytes(graph_def.SerializeToString())
    return str(path)


def const(name: str, value: np.ndarray) -> graph_pb2.NodeDef:
    return make_node_def("Const", name, [], {"dtype": value.dtype, "value": value})


def matmul_graph(tmp_path: Path) -> str:
    """x [?, 2] float32 placeholder times a [2, 1] constant, and a NoOp target."""
    return write_graph(tmp_path / "matmul.pb", [
        make_node_def("Placeholder", "x", [], {"dtype": "float32", "shape": (None, 2)}),
        const("w", np.array([[1.0], [2.0]], np.float32)),
        make_node_def("MatMul", "y", ["x", "w"], {"T": "float32"}),
        make_node_def("NoOp", "done", ["^y"], {}),
    ])


# --- the bundled graph ---------------------------------------------------------------------


def test_default_graph_prints_a_table(capsys) -> None:
    code, out, err = tfx_cli(capsys, "run", DEFAULT)
    assert code == 0, err
    assert "probs:0" in out and "float32" in out and "[2, 3]" in out
    first = f"{default_forward()[0, 0]:.4f}"
    assert first[:-1] in out  # the preview shows the values to 4 digits


def test_default_graph_json_values(capsys) -> None:
    code, out, err = tfx_cli(capsys, "run", DEFAULT, "--json")
    assert code == 0, err
    fetches = json.loads(out)["fetches"]
    assert [f["name"] for f in fetches] == ["probs:0"]
    assert fetches[0]["dtype"] == "float32" and fetches[0]["shape"] == [2, 3]
    np.testing.assert_allclose(fetches[0]["value"], default_forward(), rtol=1e-6)


def test_default_graph_runs_from_another_directory(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tfx.cli.main", "run", os.path.relpath(DEFAULT, tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "probs:0" in done.stdout


# --- feeds ---------------------------------------------------------------------------------


def test_feed_from_npy_replaces_the_default_input(capsys, tmp_path: Path) -> None:
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.save(tmp_path / "x.npy", x)
    code, out, err = tfx_cli(capsys, "run", DEFAULT, "--feed", f"input:0={tmp_path / 'x.npy'}",
                             "--fetch", "probs", "--json")
    assert code == 0, err
    (fetch,) = json.loads(out)["fetches"]
    assert fetch["shape"] == [3, 3]
    np.testing.assert_allclose(fetch["value"], default_forward(x), rtol=1e-6)


def test_inline_json_feeds(capsys, tmp_path: Path) -> None:
    graph = matmul_graph(tmp_path)
    code, out, err = tfx_cli(capsys, "run", graph, "--feed", "x:0=[[1,2],[3,4]]",
                             "--fetch", "y:0", "--json")
    assert code == 0, err
    assert json.loads(out)["fetches"][0]["value"] == [[5.0], [11.0]]
    code, out, err = tfx_cli(capsys, "run", graph, "--feed", "x=[[0.5, 0.25]]", "--fetch", "y",
                             "--json")
    assert code == 0, err
    assert json.loads(out)["fetches"][0]["value"] == [[1.0]]


def test_feed_from_npz_key(capsys, tmp_path: Path) -> None:
    graph = matmul_graph(tmp_path)
    np.savez(tmp_path / "in.npz", a=np.ones((1, 2), np.float32), b=np.full((2, 2), 2.0))
    code, out, err = tfx_cli(capsys, "run", graph, "--feed", f"x:0={tmp_path / 'in.npz'}:b",
                             "--fetch", "y:0", "--json")
    assert code == 0, err
    assert json.loads(out)["fetches"][0]["value"] == [[6.0], [6.0]]
    code, _, err = tfx_cli(capsys, "run", graph, "--feed", f"x:0={tmp_path / 'in.npz'}:zz",
                           "--fetch", "y:0")
    assert code == 2 and "no array 'zz'" in err and "keys: a, b" in err


def test_targets_run_without_fetches(capsys, tmp_path: Path) -> None:
    code, out, err = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed", "x=[[1,1]]",
                             "--target", "done")
    assert code == 0, err
    assert "ran 1 target(s): done" in out


# --- outputs -------------------------------------------------------------------------------


def test_npz_output_round_trip(capsys, tmp_path: Path) -> None:
    graph = matmul_graph(tmp_path)
    out_file = tmp_path / "out.npz"
    code, _, err = tfx_cli(capsys, "run", graph, "--feed", "x:0=[[1,2]]", "--fetch", "y:0",
                           "--fetch", "w", "-o", str(out_file))
    assert code == 0, err
    assert "wrote 2 tensor(s)" in err
    with np.load(out_file) as saved:
        assert sorted(saved.files) == ["w:0", "y:0"]
        assert saved["y:0"].dtype == np.float32 and saved["y:0"].tolist() == [[5.0]]
        assert saved["w:0"].tolist() == [[1.0], [2.0]]


def test_npy_output_needs_exactly_one_fetch(capsys, tmp_path: Path) -> None:
    graph = matmul_graph(tmp_path)
    code, _, err = tfx_cli(capsys, "run", graph, "--feed", "x:0=[[1,2]]", "--fetch", "y",
                           "-o", str(tmp_path / "y.npy"))
    assert code == 0, err
    assert np.load(tmp_path / "y.npy").tolist() == [[5.0]]
    code, _, err = tfx_cli(capsys, "run", graph, "--feed", "x:0=[[1,2]]", "--fetch", "y",
                           "--fetch", "w", "-o", str(tmp_path / "two.npy"))
    assert code == 2 and err.startswith("error: ") and "use .npz" in err
    assert not (tmp_path / "two.npy").exists()


def test_failed_run_leaves_the_output_file_alone(capsys, tmp_path: Path) -> None:
    out_file = tmp_path / "out.npz"
    out_file.write_bytes(b"previous")
    code, _, _ = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed", "x:0=[1,2]",
                         "--fetch", "y", "-o", str(out_file))
    assert code == 2
    assert out_file.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_output_to_a_missing_directory_names_the_file(capsys, tmp_path: Path) -> None:
    target = tmp_path / "missing" / "out.npz"
    code, _, err = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed", "x=[[1,2]]",
                           "--fetch", "y", "-o", str(target))
    assert code == 2
    assert err == f"error: {target}: No such file or directory\n"


def test_graph_from_stdin_and_npz_to_stdout(tmp_path: Path) -> None:
    graph = Path(matmul_graph(tmp_path)).read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "tfx.cli.main", "run", "-", "--feed", "x=[[1,2]]", "--fetch", "y",
         "-o", "-"],
        input=graph, capture_output=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    with np.load(io.BytesIO(done.stdout)) as saved:
        assert saved["y:0"].tolist() == [[5.0]]


def test_graph_from_stdin_in_process(capsys, monkeypatch, tmp_path: Path) -> None:
    graph = Path(DEFAULT).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(graph)))
    code, out, err = tfx_cli(capsys, "run", "-", "--json")
    assert code == 0, err
    np.testing.assert_allclose(json.loads(out)["fetches"][0]["value"], default_forward(),
                               rtol=1e-6)


def test_feed_npy_from_stdin(capsys, monkeypatch, tmp_path: Path) -> None:
    buffer = io.BytesIO()
    np.save(buffer, np.array([[2.0, 3.0]], np.float32))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(buffer.getvalue())))
    code, out, err = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed", "x:0=-",
                             "--fetch", "y", "--json")
    assert code == 0, err
    assert json.loads(out)["fetches"][0]["value"] == [[8.0]]


# --- bad input: one line, the right exit code, no traceback --------------------------------


def test_missing_graph_file(capsys, tmp_path: Path) -> None:
    code, out, err = tfx_cli(capsys, "run", str(tmp_path / "nope.pb"))
    assert code == 2 and out == ""
    assert_one_line(err)
    assert "nope.pb" in err


@pytest.mark.parametrize("content", [b"\xff\xfe garbage \x00\x01", b"truncated"])
def test_garbage_and_truncated_graph_files(capsys, tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.pb"
    path.write_bytes(content)
    code, _, err = tfx_cli(capsys, "run", str(path))
    assert code == 2
    assert_one_line(err)
    assert "bad.pb" in err


def test_truncated_real_graph(capsys, tmp_path: Path) -> None:
    data = (CONFORMANCE / "mlp_frozen.pb").read_bytes()
    path = tmp_path / "cut.pb"
    path.write_bytes(data[: len(data) // 2])
    code, _, err = tfx_cli(capsys, "run", str(path))
    assert code == 2
    assert_one_line(err)


def test_unknown_op_names_the_node_the_op_and_close_names(capsys, tmp_path: Path) -> None:
    x = make_node_def("Placeholder", "x", [], {"dtype": "float32"})
    bad = graph_pb2.NodeDef(name="mm", op="MatMull", input=["x", "x"])
    code, _, err = tfx_cli(capsys, "run", write_graph(tmp_path / "g.pb", [x, bad]),
                           "--fetch", "mm")
    assert code == 2
    assert_one_line(err)
    assert "'mm'" in err and "MatMull" in err and "MatMul" in err.split("MatMull", 2)[-1]


def test_input_naming_a_missing_node(capsys, tmp_path: Path) -> None:
    nodes = [make_node_def("Identity", "y", ["ghost"], {"T": "float32"})]
    code, _, err = tfx_cli(capsys, "run", write_graph(tmp_path / "g.pb", nodes))
    assert code == 2
    assert_one_line(err)
    assert "'ghost'" in err and "'y'" in err


def test_cycle(capsys, tmp_path: Path) -> None:
    nodes = [
        make_node_def("Identity", "a", ["b"], {"T": "float32"}),
        make_node_def("Identity", "b", ["a"], {"T": "float32"}),
    ]
    code, _, err = tfx_cli(capsys, "run", write_graph(tmp_path / "g.pb", nodes), "--fetch", "a")
    assert code == 2
    assert_one_line(err)
    assert "cycle" in err


def test_attr_of_the_wrong_type(capsys, tmp_path: Path) -> None:
    mm = make_node_def("MatMul", "mm", ["w", "w"], {"T": "float32"})
    mm.attr["transpose_a"].Clear()
    mm.attr["transpose_a"].i = 1
    nodes = [const("w", np.eye(2, dtype=np.float32)), mm]
    code, _, err = tfx_cli(capsys, "run", write_graph(tmp_path / "g.pb", nodes), "--fetch", "mm")
    assert code == 2
    assert_one_line(err)
    assert "'mm'" in err and "transpose_a" in err


@pytest.mark.parametrize("value, words", [
    ('["a", "b"]', "string"),
    ("[1, 2]", "shape [2]"),
    ("[[1, 2, 3]]", "shape [1, 3]"),
])
def test_feed_contradicting_the_placeholder(capsys, tmp_path: Path, value: str,
                                            words: str) -> None:
    code, _, err = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed", f"x:0={value}",
                           "--fetch", "y")
    assert code == 2
    assert_one_line(err)
    assert "x:0" in err and words in err


def test_unparsable_feed_value(capsys, tmp_path: Path) -> None:
    code, _, err = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed", "x:0=[[1,2",
                           "--fetch", "y")
    assert code == 2
    assert_one_line(err)
    code, _, err = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed", "x:0",
                           "--fetch", "y")
    assert code == 2 and "NAME=VALUE" in err


def test_feed_file_missing(capsys, tmp_path: Path) -> None:
    code, _, err = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed",
                           f"x:0={tmp_path / 'none.npy'}", "--fetch", "y")
    assert code == 2
    assert_one_line(err)
    assert "none.npy" in err


def test_fetch_that_does_not_exist(capsys, tmp_path: Path) -> None:
    code, _, err = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed", "x=[[1,2]]",
                           "--fetch", "yy:0")
    assert code == 2
    assert_one_line(err)
    assert "'yy'" in err and "did you mean: y" in err
    code, _, err = tfx_cli(capsys, "run", matmul_graph(tmp_path), "--feed", "x=[[1,2]]",
                           "--fetch", "y:3")
    assert code == 2 and "y:3" in err


def fill_graph(tmp_path: Path, dims: list[int]) -> str:
    return write_graph(tmp_path / "fill.pb", [
        const("dims", np.array(dims, np.int64)),
        const("value", np.array(1.0, np.float32)),
        make_node_def("Fill", "huge", ["dims", "value"], {"T": "float32", "index_type": "int64"}),
    ])


def test_fill_with_absurd_dims_is_resource_exhausted(capsys, tmp_path: Path) -> None:
    code, _, err = tfx_cli(capsys, "run", fill_graph(tmp_path, [1 << 20, 1 << 20, 1 << 20]))
    assert code == 1
    assert_one_line(err)
    assert "bytes" in err and "limit" in err


def test_max_tensor_bytes_option(capsys, tmp_path: Path) -> None:
    before = limits.max_tensor_bytes()
    graph = fill_graph(tmp_path, [100, 100])
    code, _, err = tfx_cli(capsys, "run", graph, "--max-tensor-bytes", "1000")
    assert code == 1
    assert_one_line(err)
    assert "40000 bytes" in err
    assert limits.max_tensor_bytes() == before  # the option does not leak past the command
    code, _, err = tfx_cli(capsys, "run", graph, "--max-tensor-bytes", "40000", "--json")
    assert code == 0, err


def test_debug_shows_the_traceback(capsys, tmp_path: Path) -> None:
    code, _, err = tfx_cli(capsys, "--debug", "run", str(tmp_path / "nope.pb"))
    assert code == 2
    assert "Traceback (most recent call last)" in err
    assert err.rstrip().splitlines()[-1].startswith("error: ")
    # --debug does not stick to the next invocation
    code, _, err = tfx_cli(capsys, "run", str(tmp_path / "nope.pb"))
    assert "Traceback" not in err


def test_usage_errors_exit_2(capsys) -> None:
    code, _, err = tfx_cli(capsys, "run")
    assert code == 2 and "Usage" in err and "GRAPH" in err
    code, _, err = tfx_cli(capsys, "run", DEFAULT, "--json", "-o", "-")
    assert code == 2 and "choose one" in err
    code, _, err = tfx_cli(capsys, "run", DEFAULT, "--no-such-option")
    assert code == 2 and "--no-such-option" in err


def test_help_has_an_example(capsys) -> None:
    code, out, _ = tfx_cli(capsys, "run", "--help")
    assert code == 0
    assert "tfx run graphs/default.pbtxt" in out


def test_version_and_top_level_help(capsys) -> None:
    import tfx

    code, out, _ = tfx_cli(capsys, "--version")
    assert code == 0 and out.strip() == f"tfx {tfx.__version__}"
    code, out, _ = tfx_cli(capsys, "--help")
    assert code == 0
    for command in ("run", "inspect", "ops"):
        assert command in out


def test_interrupt_exits_130_and_bugs_exit_1_in_one_line(capsys, monkeypatch,
                                                          tmp_path: Path) -> None:
    from tfx.core.session import Session

    graph = matmul_graph(tmp_path)

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Session, "run", interrupted)
    code, _, _ = tfx_cli(capsys, "run", graph, "--feed", "x=[[1,2]]", "--fetch", "y")
    assert code == 130

    def buggy(self, *args, **kwargs):
        raise ValueError("a kernel bug")

    monkeypatch.setattr(Session, "run", buggy)
    code, _, err = tfx_cli(capsys, "run", graph, "--feed", "x=[[1,2]]", "--fetch", "y")
    assert code == 1
    assert_one_line(err)
    assert "ValueError: a kernel bug" in err and "--debug" in err


def test_the_preview_of_a_huge_splat_reads_only_its_ends() -> None:
    # A one-value constant of 1 GiB decodes to a broadcast view; printing it used to flatten
    # it and copy it to float64 (3 GB) just to show six values and three statistics.
    import tracemalloc

    from tfx.cli.common import preview

    splat = np.broadcast_to(np.float32(1.5), (16384, 16384))
    tracemalloc.start()
    try:
        text = preview(splat)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text == "[1.5 1.5 1.5 ... 1.5 1.5 1.5]\nmin 1.5  max 1.5  mean 1.5"
    assert peak < 1 << 20
    assert preview(np.arange(20.0)) == "[ 0.  1.  2. ... 17. 18. 19.]\nmin 0  max 19  mean 9.5"
