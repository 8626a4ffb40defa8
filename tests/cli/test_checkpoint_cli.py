"""`tfx checkpoint` inspect/list/save/restore/diff/freeze, and the library under it.

(Named test_checkpoint_cli.py: tests/core/test_checkpoint.py already holds the module
name test_checkpoint, and the tests folders are not packages.)
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from cli_checks import assert_one_line, tfx_cli

from tfx.core.checkpoint import BundleReader, index_filename, save_tensors
from tfx.core.checkpoint import restore as ckpt
from tfx.core.eager import make_node_def
from tfx.core.errors import (
    DataLossError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)
from tfx.core.graph import Graph
from tfx.core.graph_io import load_graph
from tfx.core.session import Session
from tfx.protos import graph_pb2

CORPUS = Path(__file__).parents[1] / "data" / "conformance"
TF_GRAPH = str(CORPUS / "tf_checkpoint.pb")
TF_DIR = CORPUS / "tf_checkpoint"
TF_PREFIX = str(TF_DIR / "model.ckpt")
with np.load(CORPUS / "tf_checkpoint.expected.npz") as _expected:
    EXPECTED = {name: _expected[name] for name in _expected.files}


def const(name: str, value: np.ndarray) -> graph_pb2.NodeDef:
    return make_node_def("Const", name, [], {"dtype": value.dtype, "value": value})


def write(path: Path, nodes: list[graph_pb2.NodeDef]) -> str:
    graph = graph_pb2.GraphDef()
    graph.node.extend(nodes)
    path.write_bytes(graph.SerializeToString())
    return str(path)


def counter_graph(path: Path, width: int = 2) -> str:
    """Ref variables: `train` adds x to `w` and 1 to `count`; `total` = sum(w read)."""
    return write(path, [
        make_node_def("VariableV2", "w", [], {"dtype": "float32", "shape": (width,)}),
        const("w/init", np.arange(width, dtype=np.float32)),
        make_node_def("Assign", "w/Assign", ["w", "w/init"], {"T": "float32"}),
        make_node_def("VariableV2", "count", [], {"dtype": "int64", "shape": ()}),
        const("zero", np.array(0, np.int64)),
        const("one", np.array(1, np.int64)),
        make_node_def("Assign", "count/Assign", ["count", "zero"], {"T": "int64"}),
        make_node_def("NoOp", "init", ["^w/Assign", "^count/Assign"], {}),
        make_node_def("Placeholder", "x", [], {"dtype": "float32", "shape": (width,)}),
        make_node_def("AssignAdd", "w/add", ["w", "x"], {"T": "float32"}),
        make_node_def("AssignAdd", "count/add", ["count", "one"], {"T": "int64"}),
        make_node_def("NoOp", "train", ["^w/add", "^count/add"], {}),
        make_node_def("Identity", "w/read", ["w"], {"T": "float32"}),
        make_node_def("Identity", "count/read", ["count"], {"T": "int64"}),
        const("axis", np.array([0], np.int32)),
        make_node_def("Sum", "total", ["w/read", "axis"], {"T": "float32", "Tidx": "int32"}),
    ])


def resource_graph(path: Path) -> str:
    """A resource variable `v` (float32[3]) read by `out` = 2 * v."""
    return write(path, [
        make_node_def("VarHandleOp", "v", [], {"dtype": "float32", "shape": (3,),
                                               "shared_name": "v"}),
        const("v/init", np.array([1.0, 2.0, 3.0], np.float32)),
        make_node_def("AssignVariableOp", "v/Assign", ["v", "v/init"], {"dtype": "float32"}),
        make_node_def("NoOp", "init", ["^v/Assign"], {}),
        make_node_def("ReadVariableOp", "v/read", ["v"], {"dtype": "float32"}),
        const("two", np.array(2.0, np.float32)),
        make_node_def("Mul", "out", ["v/read", "two"], {"T": "float32"}),
    ])


def trained_counter(capsys, tmp_path: Path, steps: int = 3) -> tuple[str, Path]:
    graph = counter_graph(tmp_path / "g.pb")
    run_dir = tmp_path / "run"
    code, _, err = tfx_cli(capsys, "run", graph, "--init", "init", "--target", "train",
                           "--feed", "x=[1,1]", "--steps", str(steps), "--checkpoint-dir",
                           str(run_dir), "--save-every", "1", "--keep", "2")
    assert code == 0, err
    return graph, run_dir


def corrupt_copy(tmp_path: Path) -> str:
    """The corpus checkpoint with one byte of b_1's data flipped."""
    target = tmp_path / "bad"
    shutil.copytree(TF_DIR, target)
    prefix = str(target / "model.ckpt")
    with BundleReader(prefix) as reader:
        offset = reader.entry("b_1").offset
    data = target / "model.ckpt.data-00000-of-00001"
    raw = bytearray(data.read_bytes())
    raw[offset + 5] ^= 0xFF
    data.write_bytes(bytes(raw))
    return prefix


# --- inspect -----------------------------------------------------------------------------


def test_inspect_the_corpus_checkpoint(capsys) -> None:
    argv = ["checkpoint", "inspect", TF_PREFIX, "--json"]
    for name in EXPECTED:
        argv += ["--tensor", name]
    code, out, err = tfx_cli(capsys, *argv)
    assert code == 0, err
    info = json.loads(out)
    assert info["num_shards"] == 1
    tensors = {t["name"]: t for t in info["tensors"]}
    assert sorted(tensors) == sorted(EXPECTED)
    for name, want in EXPECTED.items():
        got = tensors[name]
        assert got["dtype"] == "float32" and got["shape"] == list(want.shape)
        assert got["size"] == want.nbytes
        assert got["min"] == pytest.approx(float(want.min()))
        assert got["max"] == pytest.approx(float(want.max()))
        assert got["mean"] == pytest.approx(float(want.astype(np.float64).mean()))
        np.testing.assert_array_equal(np.array(info["values"][name], np.float32), want)


def test_inspect_table_accepts_a_directory_or_a_file(capsys) -> None:
    for where in (str(TF_DIR), TF_PREFIX + ".index", TF_PREFIX + ".data-00000-of-00001"):
        code, out, err = tfx_cli(capsys, "checkpoint", "inspect", where, "--tensor", "b_2")
        assert code == 0, err
        assert "4 tensor(s)" in out and "W_1" in out and "[784, 100]" in out
        assert "b_2 (float32, [10]):" in out


def test_inspect_missing_prefix_and_empty_directory(capsys, tmp_path: Path) -> None:
    code, out, err = tfx_cli(capsys, "checkpoint", "inspect", str(tmp_path / "nope"))
    assert code == 2 and out == ""
    assert_one_line(err)
    assert "nope.index" in err
    code, _, err = tfx_cli(capsys, "checkpoint", "inspect", str(tmp_path))
    assert code == 2
    assert_one_line(err)
    assert "no checkpoint in directory" in err


def test_inspect_corrupt_checkpoint_names_the_tensor(capsys, tmp_path: Path) -> None:
    prefix = corrupt_copy(tmp_path)
    code, out, err = tfx_cli(capsys, "checkpoint", "inspect", prefix)
    assert code == 2 and out == ""  # a corrupt file is bad input
    assert_one_line(err)
    assert "'b_1'" in err and "checksum mismatch" in err
    code, out, err = tfx_cli(capsys, "checkpoint", "inspect", prefix, "--no-stats")
    assert code == 0, err  # the catalogue alone reads no tensor data


def test_inspect_truncated_index(capsys, tmp_path: Path) -> None:
    shutil.copytree(TF_DIR, tmp_path / "cut")
    index = tmp_path / "cut" / "model.ckpt.index"
    index.write_bytes(index.read_bytes()[:-20])
    code, _, err = tfx_cli(capsys, "checkpoint", "inspect", str(tmp_path / "cut"))
    assert code in (1, 2)
    assert_one_line(err)
    assert "model.ckpt.index" in err


# --- list --------------------------------------------------------------------------------


def test_list_a_training_directory(capsys, tmp_path: Path) -> None:
    _, run_dir = trained_counter(capsys, tmp_path, steps=3)
    code, out, err = tfx_cli(capsys, "checkpoint", "list", str(run_dir), "--json")
    assert code == 0, err
    rows = json.loads(out)["checkpoints"]
    assert [(Path(r["prefix"]).name, r["step"], r["latest"]) for r in rows] == [
        ("model.ckpt-2", 2, False), ("model.ckpt-3", 3, True)]
    assert all(r["exists"] and r["listed"] and r["bytes"] > 0 and r["time"] for r in rows)
    code, out, err = tfx_cli(capsys, "checkpoint", "list", str(run_dir))
    assert code == 0, err
    assert "model.ckpt-3" in out and "latest" in out


def test_list_shows_the_best_and_unlisted_checkpoints(capsys, tmp_path: Path) -> None:
    _, run_dir = trained_counter(capsys, tmp_path, steps=2)
    save_tensors(run_dir / "other.ckpt", {"w": np.zeros(2, np.float32)})
    (run_dir / "checkpoint_best").write_text('model_checkpoint_path: "model.ckpt-1"\n')
    code, out, err = tfx_cli(capsys, "checkpoint", "list", str(run_dir), "--json")
    assert code == 0, err
    rows = {Path(r["prefix"]).name: r for r in json.loads(out)["checkpoints"]}
    assert rows["other.ckpt"]["listed"] is False and rows["other.ckpt"]["step"] is None
    assert rows["model.ckpt-1"]["best"] is True


def test_list_the_corpus_directory_and_a_missing_one(capsys, tmp_path: Path) -> None:
    code, out, err = tfx_cli(capsys, "checkpoint", "list", str(TF_DIR), "--json")
    assert code == 0, err
    (row,) = json.loads(out)["checkpoints"]
    assert row["prefix"] == TF_PREFIX and row["latest"] and row["step"] is None
    code, _, err = tfx_cli(capsys, "checkpoint", "list", str(tmp_path / "none"))
    assert code == 2
    assert_one_line(err)


# --- save --------------------------------------------------------------------------------


def initial_values() -> dict[str, np.ndarray]:
    from tfx.core import tensor_util

    return {node.name.split("/")[0]: tensor_util.to_ndarray(node.attr["value"].tensor)
            for node in load_graph(TF_GRAPH).node if node.name.endswith("/initial_value")}


def test_save_with_the_saver_and_by_name_agree(capsys, tmp_path: Path) -> None:
    code, out, err = tfx_cli(capsys, "checkpoint", "save", TF_GRAPH, "--init", "init",
                             "-o", str(tmp_path / "a" / "model.ckpt"))
    assert code == 0, err
    assert "save/control_dependency:0" in out and "4 tensor(s)" in out
    code, out, err = tfx_cli(capsys, "checkpoint", "save", TF_GRAPH, "--init", "init",
                             "--by-name", "-o", str(tmp_path / "b" / "model.ckpt"), "--json")
    assert code == 0, err
    assert json.loads(out)["method"] == "by name"
    with BundleReader(tmp_path / "a" / "model.ckpt") as reader:
        for name, value in initial_values().items():
            np.testing.assert_array_equal(reader.read(name), value)
    code, out, err = tfx_cli(capsys, "checkpoint", "diff", str(tmp_path / "a"),
                             str(tmp_path / "b"), "--json")
    assert code == 0, err
    assert json.loads(out)["identical"] is True


def test_save_uninitialized_variables_fails_cleanly(capsys, tmp_path: Path) -> None:
    for extra in ([], ["--by-name"]):
        code, _, err = tfx_cli(capsys, "checkpoint", "save", TF_GRAPH, *extra,
                               "-o", str(tmp_path / "model.ckpt"))
        assert code == 1
        assert_one_line(err)
        assert "W_1" in err and "uninitialized" in err.replace("not initialized", "uninitialized")
    assert list(tmp_path.iterdir()) == []


def test_save_after_a_target_step(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    code, _, err = tfx_cli(capsys, "checkpoint", "save", graph, "--init", "init", "--target",
                           "train", "--feed", "x=[2,2]", "-o", str(tmp_path / "c" / "m"))
    assert code == 0, err
    with BundleReader(tmp_path / "c" / "m") as reader:
        assert reader.read("count") == 1
        np.testing.assert_array_equal(reader.read("w"), [2.0, 3.0])


# --- restore -----------------------------------------------------------------------------


@pytest.mark.parametrize("extra, method", [([], "save/restore_all"), (["--by-name"], "by name")])
def test_restore_the_corpus_checkpoint(capsys, extra: list[str], method: str) -> None:
    argv = ["checkpoint", "restore", TF_GRAPH, TF_PREFIX, *extra, "--json"]
    for name in EXPECTED:
        argv += ["--fetch", name]
    code, out, err = tfx_cli(capsys, *argv)
    assert code == 0, err
    report = json.loads(out)
    assert report["method"] == method and report["verified"] is True
    assert sorted(r["variable"] for r in report["restored"]) == sorted(EXPECTED)
    for name, want in EXPECTED.items():
        np.testing.assert_array_equal(np.array(report["fetches"][f"{name}:0"], np.float32), want)


def test_restore_table(capsys) -> None:
    code, out, err = tfx_cli(capsys, "checkpoint", "restore", TF_GRAPH, str(TF_DIR))
    assert code == 0, err
    assert "restored 4 variable(s)" in out and "verified" in out and "save/restore_all" in out


def test_restore_round_trip_of_a_training_run(capsys, tmp_path: Path) -> None:
    graph, run_dir = trained_counter(capsys, tmp_path, steps=3)
    code, out, err = tfx_cli(capsys, "checkpoint", "restore", graph, str(run_dir),
                             "--fetch", "count/read", "--fetch", "w/read", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["prefix"] == str(run_dir / "model.ckpt-3")
    assert report["fetches"] == {"count/read:0": 3, "w/read:0": [3.0, 4.0]}
    assert report["unused"] == []  # _tfx/step is bookkeeping, not an unused tensor


@pytest.mark.parametrize("graph_kind, words, code", [
    ("counter", "not in the checkpoint: w, count", 2),
    ("wide", "not in the checkpoint", 2),
])
def test_restore_refuses_a_checkpoint_of_another_graph(capsys, tmp_path: Path, graph_kind: str,
                                                       words: str, code: int) -> None:
    graph = counter_graph(tmp_path / "g.pb", width=3 if graph_kind == "wide" else 2)
    got, out, err = tfx_cli(capsys, "checkpoint", "restore", graph, TF_PREFIX)
    assert got == code and out == ""
    assert_one_line(err)
    assert words in err and "no variable was changed" in err


def test_restore_shape_mismatch(capsys, tmp_path: Path) -> None:
    _, run_dir = trained_counter(capsys, tmp_path)
    wide = counter_graph(tmp_path / "wide.pb", width=3)
    code, _, err = tfx_cli(capsys, "checkpoint", "restore", wide, str(run_dir))
    assert code == 2
    assert_one_line(err)
    assert "'w' has shape [3], the checkpoint stores [2]" in err


def test_restore_missing_and_corrupt(capsys, tmp_path: Path) -> None:
    code, _, err = tfx_cli(capsys, "checkpoint", "restore", TF_GRAPH, str(tmp_path / "x.ckpt"))
    assert code == 2
    assert_one_line(err)
    code, _, err = tfx_cli(capsys, "checkpoint", "restore", TF_GRAPH, corrupt_copy(tmp_path))
    assert code == 2
    assert_one_line(err)
    assert "'b_1'" in err


def test_restore_allow_missing(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    save_tensors(tmp_path / "part", {"w": np.array([7.0, 8.0], np.float32)})
    code, out, err = tfx_cli(capsys, "checkpoint", "restore", graph, str(tmp_path / "part"),
                             "--init", "init", "--allow-missing", "--fetch", "total",
                             "--fetch", "count/read", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["missing"] == ["count"]
    assert report["fetches"] == {"total:0": 15.0, "count/read:0": 0}


# --- the library: all or nothing ---------------------------------------------------------


def counter_session(tmp_path: Path, width: int = 2) -> Session:
    sess = Session(counter_graph(tmp_path / f"g{width}.pb", width))
    sess.run("init")
    return sess


def test_restore_variables_checks_everything_before_assigning(tmp_path: Path) -> None:
    save_tensors(tmp_path / "bad", {"w": np.array([5.0, 6.0], np.float32),
                                    "count": np.array(9, np.int32)})  # wrong dtype
    with counter_session(tmp_path) as sess:
        with pytest.raises(InvalidArgumentError, match="'count' is int64, the checkpoint stores"):
            ckpt.restore_variables(sess, tmp_path / "bad")
        state = ckpt.read_variables(sess)
        np.testing.assert_array_equal(state["w"], [0.0, 1.0])
        assert state["count"] == 0


def test_a_corrupt_tensor_changes_no_variable(tmp_path: Path) -> None:
    prefix = corrupt_copy(tmp_path)
    with Session(TF_GRAPH) as sess:
        sess.run("init")
        before = ckpt.read_variables(sess)
        with pytest.raises(DataLossError, match="b_1"):
            ckpt.restore_variables(sess, prefix)
        saver = ckpt.find_saver(sess.graph)
        with pytest.raises(DataLossError, match="b_1"):
            ckpt.restore_with_saver(sess, saver, prefix)
        after = ckpt.read_variables(sess)
        for name, value in before.items():
            assert after[name] is value


def test_saver_restore_rolls_back_when_an_assign_fails(tmp_path: Path, monkeypatch) -> None:
    tensors = dict(EXPECTED)
    tensors["b_2"] = np.zeros(11, np.float32)  # the Assign of b_2 will refuse this
    save_tensors(tmp_path / "odd", tensors)
    # start from values unlike the checkpoint's (the graph's initial values equal them)
    save_tensors(tmp_path / "ones", {n: np.ones_like(v) for n, v in EXPECTED.items()})
    with Session(TF_GRAPH) as sess:
        ckpt.restore_variables(sess, tmp_path / "ones")
        saver = ckpt.find_saver(sess.graph)
        assert saver.filename_tensor == "save/Const:0"
        assert saver.restore_op == "save/restore_all"
        assert saver.save_tensor == "save/control_dependency:0"
        assert dict(saver.assignments) == {name: name for name in EXPECTED}
        before = ckpt.read_variables(sess)
        with pytest.raises(InvalidArgumentError, match="'b_2' has shape"):
            ckpt.restore_with_saver(sess, saver, tmp_path / "odd")
        monkeypatch.setattr(ckpt, "_mismatch", lambda *args: None)  # skip the pre-check
        with pytest.raises(InvalidArgumentError):
            ckpt.restore_with_saver(sess, saver, tmp_path / "odd")
        after = ckpt.read_variables(sess)
        for name, value in before.items():
            np.testing.assert_array_equal(after[name], value)
            assert (value == 1).all()


def test_resource_variables_save_restore_and_freeze(tmp_path: Path) -> None:
    graph = resource_graph(tmp_path / "r.pb")
    with Session(graph) as sess:
        (variable,) = ckpt.graph_variables(sess.graph)
        assert (variable.op, variable.shape, str(variable.dtype)) == ("VarHandleOp", (3,),
                                                                      "float32")
        with pytest.raises(FailedPreconditionError, match="not initialized: v"):
            ckpt.save_variables(sess, tmp_path / "none")
        sess.run("init")
        ckpt.save_variables(sess, tmp_path / "r")
    save_tensors(tmp_path / "r2", {"v": np.array([4.0, 5.0, 6.0], np.float32)})
    with Session(graph) as sess:
        result = ckpt.restore_variables(sess, tmp_path / "r2")
        assert result.restored == [("v", "v")]
        assert ckpt.verify_restored(sess, result) == []
        np.testing.assert_array_equal(sess.run("out:0"), [8.0, 10.0, 12.0])
    frozen = ckpt.freeze_graph(Graph.from_graph_def(load_graph(graph)), tmp_path / "r2", ["out"])
    assert frozen.frozen == ["v"]
    assert {n.op for n in frozen.graph_def.node} == {"Const", "Mul"}
    with Session(frozen.graph_def) as sess:
        np.testing.assert_array_equal(sess.run("out:0"), [8.0, 10.0, 12.0])


# --- freeze ------------------------------------------------------------------------------


def test_freeze_a_trained_graph(capsys, tmp_path: Path) -> None:
    graph, run_dir = trained_counter(capsys, tmp_path, steps=3)
    out_file = tmp_path / "frozen.pb"
    code, out, err = tfx_cli(capsys, "checkpoint", "freeze", graph, str(run_dir), "-o",
                             str(out_file), "--outputs", "total,count/read")
    assert code == 0, err
    assert "1 variable(s)" not in out and "2 variable(s) frozen" in out
    frozen = load_graph(str(out_file))
    assert {n.op for n in frozen.node} == {"Const", "Identity", "Sum"}
    with Session(frozen) as sess:
        assert sess.run(["total:0", "count/read:0"]) == [7.0, 3]
    code, out, err = tfx_cli(capsys, "run", str(out_file), "--fetch", "total", "--json")
    assert code == 0, err
    assert json.loads(out)["fetches"][0]["value"] == 7.0


def test_freeze_the_corpus_graph(capsys, tmp_path: Path) -> None:
    out_file = tmp_path / "frozen.pbtxt"
    code, out, err = tfx_cli(capsys, "checkpoint", "freeze", TF_GRAPH, TF_PREFIX, "-o",
                             str(out_file), "--outputs", "add", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["frozen"] == ["W_1", "b_1"] and report["nodes_after"] < report["nodes_before"]
    x = np.linspace(-1, 1, 4 * 784, dtype=np.float32).reshape(4, 784)
    with Session(str(out_file)) as sess:
        assert not any(n.op in ckpt.VARIABLE_OPS for n in sess.graph.nodes)
        got = sess.run("add:0", {"x:0": x})
    np.testing.assert_allclose(got, x @ EXPECTED["W_1"] + EXPECTED["b_1"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("outputs, checkpoint, words, code", [
    ("train", "run", "takes variable 'w' by reference", 2),
    ("totl", "run", "'totl'", 2),
    ("total", "tf", "not in checkpoint", 2),
    (",", "run", "at least one output", 2),
])
def test_freeze_refuses(capsys, tmp_path: Path, outputs: str, checkpoint: str, words: str,
                        code: int) -> None:
    graph, run_dir = trained_counter(capsys, tmp_path, steps=1)
    source = str(run_dir) if checkpoint == "run" else TF_PREFIX
    out_file = tmp_path / "frozen.pb"
    got, _, err = tfx_cli(capsys, "checkpoint", "freeze", graph, source, "-o", str(out_file),
                          "--outputs", outputs)
    assert got == code and words in err
    assert not out_file.exists()


# --- diff --------------------------------------------------------------------------------


def test_diff_reports_each_kind_of_difference(capsys, tmp_path: Path) -> None:
    save_tensors(tmp_path / "a", {
        "same": np.arange(4, dtype=np.float32), "moved": np.zeros(3, np.float32),
        "retyped": np.zeros(2, np.float32), "reshaped": np.zeros(2, np.float32),
        "gone": np.zeros(1, np.int32), "words": np.array([b"x", b"y"], dtype=object),
    })
    save_tensors(tmp_path / "b", {
        "same": np.arange(4, dtype=np.float32), "moved": np.array([0, 0.5, 0], np.float32),
        "retyped": np.zeros(2, np.float64), "reshaped": np.zeros(3, np.float32),
        "new": np.zeros(1, np.int32), "words": np.array([b"x", b"z"], dtype=object),
    })
    code, out, err = tfx_cli(capsys, "checkpoint", "diff", str(tmp_path / "a"),
                             str(tmp_path / "b"), "--json")
    assert code == 0, err
    report = json.loads(out)
    status = {t["name"]: t["status"] for t in report["tensors"]}
    assert status == {"same": "equal", "moved": "different", "retyped": "dtype",
                      "reshaped": "shape", "gone": "only in a", "new": "only in b",
                      "words": "different"}
    moved = next(t for t in report["tensors"] if t["name"] == "moved")
    assert moved["differing"] == 1 and moved["max_abs_diff"] == 0.5
    assert report["identical"] is False
    code, out, err = tfx_cli(capsys, "checkpoint", "diff", str(tmp_path / "a"),
                             str(tmp_path / "b"), "--atol", "0.6", "--json")
    assert {t["name"]: t["status"] for t in json.loads(out)["tensors"]}["moved"] == "equal"
    code, out, err = tfx_cli(capsys, "checkpoint", "diff", str(tmp_path / "a"),
                             str(tmp_path / "b"))
    assert code == 0, err
    assert "1 equal" in out and "only in b" in out and "same" not in out.split("\n", 3)[3]


def test_diff_of_a_training_run(capsys, tmp_path: Path) -> None:
    _, run_dir = trained_counter(capsys, tmp_path, steps=3)
    code, out, err = tfx_cli(capsys, "checkpoint", "diff", str(run_dir / "model.ckpt-2"),
                             str(run_dir), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert {t["name"]: t["status"] for t in report["tensors"]} == {
        "_tfx/step": "different", "count": "different", "w": "different"}


def test_diff_missing_checkpoint(capsys, tmp_path: Path) -> None:
    code, _, err = tfx_cli(capsys, "checkpoint", "diff", TF_PREFIX, str(tmp_path / "b"))
    assert code == 2
    assert_one_line(err)


# --- misc -------------------------------------------------------------------------------


def test_help_lists_the_subcommands(capsys) -> None:
    code, out, _ = tfx_cli(capsys, "checkpoint", "--help")
    assert code == 0
    for command in ("inspect", "list", "save", "restore", "diff", "freeze"):
        assert command in out
    code, out, _ = tfx_cli(capsys, "--help")
    assert "checkpoint" in out


def test_resolve_prefix(tmp_path: Path) -> None:
    assert ckpt.resolve_prefix(TF_DIR) == TF_PREFIX
    assert ckpt.resolve_prefix(index_filename(TF_PREFIX)) == TF_PREFIX
    save_tensors(tmp_path / "one", {"a": np.zeros(1, np.float32)})
    assert ckpt.resolve_prefix(tmp_path) == str(tmp_path / "one")
    save_tensors(tmp_path / "two", {"a": np.zeros(1, np.float32)})
    with pytest.raises(NotFoundError, match="2 checkpoints and no state file"):
        ckpt.resolve_prefix(tmp_path)


def test_find_saver_prefers_the_merging_save_op_of_a_sharded_saver() -> None:
    strings = np.array([b"w"], dtype=object)
    nodes = [
        make_node_def("VariableV2", "w", [], {"dtype": "float32", "shape": (2,)}),
        const("save/Const", np.array(b"model", dtype=object)),
        const("save/names", strings),
        const("save/slices", np.array([b""], dtype=object)),
        make_node_def("SaveV2", "save/SaveV2", ["save/Const", "save/names", "save/slices", "w"],
                      {"dtypes": ["float32"]}),
        make_node_def("Identity", "save/control_dependency", ["save/Const", "^save/SaveV2"],
                      {"T": "string"}),
        make_node_def("MergeV2Checkpoints", "save/MergeV2Checkpoints",
                      ["save/names", "save/Const"], {}),
        make_node_def("Identity", "save/Identity", ["save/Const", "^save/MergeV2Checkpoints"],
                      {"T": "string"}),
        make_node_def("RestoreV2", "save/RestoreV2", ["save/Const", "save/names", "save/slices"],
                      {"dtypes": ["float32"]}),
        make_node_def("Assign", "save/Assign", ["w", "save/RestoreV2"], {"T": "float32"}),
        make_node_def("NoOp", "save/restore_all", ["^save/Assign"], {}),
    ]
    graph = graph_pb2.GraphDef()
    graph.node.extend(nodes)
    saver = ckpt.find_saver(Graph.from_graph_def(graph))
    assert saver.save_tensor == "save/Identity:0" and saver.assignments == (("w", "w"),)
