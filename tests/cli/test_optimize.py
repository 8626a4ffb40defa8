"""`tfx optimize`: output files, stdin/stdout, levels and passes, the report, bad input."""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_checks import tfx_cli

import tfx.graphs
from tfx.cli.main import main
from tfx.core.graph_io import load_graph
from tfx.core.session import Session
from tfx.protos import graph_pb2

DEFAULT = str(Path(tfx.graphs.__file__).parent / "default.pbtxt")
CONFORMANCE = Path(__file__).parents[1] / "data" / "conformance"
X = np.array([[0.5, -1.0, 2.0, 0.25], [1.0, 1.0, -3.0, 0.0]], np.float32)


def tfx_graph_def(data: bytes) -> graph_pb2.GraphDef:
    graph = graph_pb2.GraphDef()
    graph.ParseFromString(data)
    return graph


def _probs(graph) -> np.ndarray:
    with Session(load_graph(graph), optimize="none") as sess:
        return sess.run("probs:0", {"input:0": X})


def test_writes_a_smaller_graph_with_the_same_results(capsys, tmp_path: Path) -> None:
    out = tmp_path / "opt.pb"
    code, stdout, err = tfx_cli(capsys, "optimize", DEFAULT, "-o", str(out))
    assert code == 0, err
    for text in ("nodes", "12", "9", "_FusedMatMul", "fusion", "nodes fused 2", f"wrote {out}"):
        assert text in stdout, text
    optimized = load_graph(out)
    assert len(optimized.node) == 9
    np.testing.assert_allclose(_probs(out), _probs(DEFAULT), rtol=1e-6)


def test_text_output_follows_the_file_name(capsys, tmp_path: Path) -> None:
    out = tmp_path / "opt.pbtxt"
    code, _, err = tfx_cli(capsys, "optimize", DEFAULT, "-o", str(out), "--level", "basic")
    assert code == 0, err
    assert out.read_text().startswith("node {")


def test_json_report_says_what_each_pass_did(capsys, tmp_path: Path) -> None:
    code, out, err = tfx_cli(capsys, "optimize", str(CONFORMANCE / "mobilenet_v2_frozen.pb"),
                             "-o", str(tmp_path / "m.pb"), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["level"] == "all" and data["output"] == str(tmp_path / "m.pb")
    assert data["before"]["nodes"] == 1053 and data["after"]["nodes"] <= 250
    assert data["after"]["flops"] < data["before"]["flops"]
    assert data["inputs"] == ["input"] and data["outputs"]
    passes = {p["name"]: p for p in data["passes"]}
    assert passes["identity_removal"]["counts"]["identities removed"] > 0
    assert passes["constant_folding"]["counts"]["constants folded"] > 0
    assert passes["fusion"]["counts"]["nodes fused"] > 0
    assert all(p["seconds"] >= 0 for p in data["passes"])
    assert data["after"]["op_counts"]["_FusedConv2D"] > 0


def test_stdin_to_stdout(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tfx.cli.main", "optimize", "-", "-o", "-"],
        input=Path(DEFAULT).read_bytes(), capture_output=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    out = tmp_path / "from_stdout.pb"
    out.write_bytes(done.stdout)
    assert len(load_graph(out).node) == 9
    assert b"nodes" in done.stderr  # with the graph on stdout, the report goes to stderr


def test_explicit_passes_kept_names_and_dump_dir(capsys, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    code, out, err = tfx_cli(capsys, "optimize", DEFAULT, "--passes", "pruning,fusion",
                             "--outputs", "probs", "--inputs", "input", "--dump-dir",
                             str(dump), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert [p["name"] for p in data["passes"]] == ["pruning", "fusion"]
    assert data["level"] == "custom" and data["output"] is None
    assert sorted(p.name for p in dump.iterdir()) == ["00-input.pb", "01-pruning.pb",
                                                     "02-fusion.pb"]


def test_level_none_changes_nothing(capsys, tmp_path: Path) -> None:
    out = tmp_path / "same.pb"
    code, _, err = tfx_cli(capsys, "optimize", DEFAULT, "--level", "none", "-o", str(out))
    assert code == 0, err
    assert len(load_graph(out).node) == len(load_graph(DEFAULT).node)


# --- bad input: one line, exit 2, no output file ------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--passes", "prunin"], "unknown pass 'prunin' (did you mean: pruning?); valid passes: "
                                 "pruning, identity_removal"),
        (["--level", "fast"], "unknown optimization level 'fast'; valid levels: none, basic, all"),
        (["--outputs", "prob"], "outputs: no node named 'prob' in the graph"),
        (["--inputs", "nope:0"], "inputs: no node named 'nope'"),
    ],
)
def test_bad_options_fail_in_one_line_and_keep_the_output(capsys, tmp_path: Path, args,
                                                          message) -> None:
    out = tmp_path / "out.pb"
    out.write_bytes(b"previous")
    code, stdout, err = tfx_cli(capsys, "optimize", DEFAULT, "-o", str(out), *args)
    assert code == 2 and stdout == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert out.read_bytes() == b"previous"


def test_a_graph_that_does_not_load(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\xff\xffnot a graph")
    out = tmp_path / "out.pb"
    code, stdout, err = tfx_cli(capsys, "optimize", str(bad), "-o", str(out))
    assert code == 2 and stdout == "" and err.count("\n") == 1
    assert err.startswith(f"error: {bad}: ") and not out.exists()
    code, _, err = tfx_cli(capsys, "optimize", str(tmp_path / "missing.pb"), "-o", str(out))
    assert code == 2 and "missing.pb" in err and not out.exists()


def test_unwritable_output_and_usage_errors(capsys, tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "dir.pb"
    code, _, err = tfx_cli(capsys, "optimize", DEFAULT, "-o", str(target))
    assert code == 2 and err == f"error: {target}: No such file or directory\n"
    code, _, err = tfx_cli(capsys, "optimize", DEFAULT, "-o", "-", "--json")
    assert code == 2 and "choose one" in err
    code, _, err = tfx_cli(capsys, "optimize")
    assert code == 2 and "GRAPH" in err


_TF_CHECK = """
import json, sys
import numpy as np
import tensorflow as tf
graph_path, case = sys.argv[1], sys.argv[2]
manifest = json.load(open(case + ".json"))
graph_def = tf.compat.v1.GraphDef()
graph_def.ParseFromString(open(graph_path, "rb").read())
inputs, expected = np.load(case + ".inputs.npz"), np.load(case + ".expected.npz")
with tf.Graph().as_default() as graph:
    tf.compat.v1.import_graph_def(graph_def, name="")
with tf.compat.v1.Session(graph=graph) as sess:
    for i, step in enumerate(manifest["steps"]):
        feeds = {t: inputs[k] for t, k in step.get("feeds", {}).items()}
        for t, v in zip(step["fetches"], sess.run(step["fetches"], feeds)):
            np.testing.assert_allclose(v, expected[f"step{i}/{t}"], rtol=manifest["rtol"],
                                       atol=manifest["atol"])
print("matches")
"""


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                    reason="needs tensorflow (optional extra)")
@pytest.mark.parametrize("case", ["mobilenet_v2_frozen", "lenet_frozen", "mlp_frozen"])
def test_optimized_graph_loads_and_matches_in_tensorflow(capsys, tmp_path: Path, case) -> None:
    manifest = json.loads((CONFORMANCE / f"{case}.json").read_text())
    fetches = [t for step in manifest["steps"] for t in step["fetches"]]
    out = tmp_path / f"{case}.pb"
    code, _, err = tfx_cli(capsys, "optimize", str(CONFORMANCE / f"{case}.pb"), "-o", str(out),
                           "--outputs", ",".join(fetches))
    assert code == 0, err
    done = subprocess.run([sys.executable, "-c", _TF_CHECK, str(out), str(CONFORMANCE / case)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "matches" in done.stdout, done.stderr[-2000:]


def test_report_goes_to_stderr_when_the_graph_goes_to_stdout(capsys, monkeypatch) -> None:
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw))
    code = main(["optimize", DEFAULT, "-o", "-", "--level", "basic"])
    sys.stdout.flush()
    _, err = capsys.readouterr()
    assert code == 0 and "nodes" in err
    graph = tfx_graph_def(raw.getvalue())
    assert len(graph.node) == 12  # basic: nothing to do on this graph, and nothing lost


def test_the_written_path_is_never_broken_across_lines(capsys, tmp_path: Path) -> None:
    """A path longer than the terminal stays whole, so it can be copied (a regression: rich
    wrapped it where pytest-xdist's longer tmp paths passed 80 columns)."""
    out = tmp_path / ("long_folder_name_" * 8) / "opt.pb"
    out.parent.mkdir()
    code, stdout, err = tfx_cli(capsys, "optimize", DEFAULT, "-o", str(out))
    assert code == 0, err
    assert f"wrote {out}" in stdout
