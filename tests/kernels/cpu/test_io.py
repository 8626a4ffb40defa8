"""Tests for the checkpoint kernels (SaveV2, RestoreV2, MergeV2Checkpoints) and Saver string ops.

Kernels run one at a time through `run_op`; the corpus case `tf_checkpoint`
runs TensorFlow's own Saver graph in a Session (restore and save).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest
from kernel_checks import scalar, strings

from tfx.core import dtypes
from tfx.core.checkpoint import BundleReader, data_filename, load_tensors, save_tensors
from tfx.core.eager import run_op
from tfx.core.errors import (
    DataLossError,
    InvalidArgumentError,
    NotFoundError,
    UnimplementedError,
)
from tfx.core.graph_io import load_graph
from tfx.core.kernel_registry import has_kernel
from tfx.core.op_registry import has_op
from tfx.core.session import Session
from tfx.protos import graph_pb2

DATA = Path(__file__).resolve().parents[2] / "data"
CORPUS = DATA / "conformance"
CORPUS_PREFIX = CORPUS / "tf_checkpoint" / "model.ckpt"


def _fixture_tensors() -> dict[str, np.ndarray]:
    path = DATA / "checkpoints" / "make_fixtures.py"
    spec = importlib.util.spec_from_file_location("make_fixtures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.fixture_tensors()


EXPECTED = _fixture_tensors()


def save(prefix, tensors: dict[str, np.ndarray], **attrs) -> tuple:
    names = list(tensors)
    return run_op("SaveV2", [scalar(prefix), strings(*names), strings(*[""] * len(names)),
                             *tensors.values()], **attrs)


def restore(prefix, names, types, specs=None) -> tuple:
    specs = specs or [""] * len(names)
    return run_op("RestoreV2", [scalar(prefix), strings(*names), strings(*specs)],
                  dtypes=list(types))


def same(got: np.ndarray, want: np.ndarray) -> bool:
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype == object:
        return list(got.reshape(-1)) == list(want.reshape(-1))
    as_bytes = [np.ascontiguousarray(a).reshape(-1).view(np.uint8) for a in (got, want)]
    return np.array_equal(*as_bytes)


# --- SaveV2 / RestoreV2 ----------------------------------------------------------------


def test_save_and_restore_every_fixture_dtype(tmp_path):
    assert save(tmp_path / "model.ckpt", EXPECTED) == ()
    names = list(EXPECTED)
    types = [dtypes.as_dtype(v.dtype) for v in EXPECTED.values()]
    got = restore(tmp_path / "model.ckpt", names, types)
    assert all(same(g, EXPECTED[n]) for g, n in zip(got, names))


def test_save_quantized_types_with_explicit_dtypes(tmp_path):
    values = [np.arange(4, dtype=np.int8), np.arange(3, dtype=np.int32)]
    types = [dtypes.as_dtype("qint8"), dtypes.as_dtype("qint32")]
    save(tmp_path / "q", {"a": values[0], "b": values[1]}, dtypes=types)
    assert BundleReader(tmp_path / "q").dtype("a").name == "qint8"
    got = restore(tmp_path / "q", ["a", "b"], types)
    assert all(np.array_equal(g, v) for g, v in zip(got, values))


@pytest.mark.parametrize("folder", ["tf", "tf_sharded"])
def test_restore_tensorflow_fixtures(folder):
    prefix = DATA / "checkpoints" / folder / "model.ckpt"
    names = sorted(EXPECTED)
    got = restore(prefix, names, [dtypes.as_dtype(EXPECTED[n].dtype) for n in names])
    assert all(same(g, EXPECTED[n]) for g, n in zip(got, names))


def test_restore_corpus_checkpoint_exactly():
    expected = np.load(CORPUS / "tf_checkpoint.expected.npz")
    names = sorted(expected.files)
    got = restore(CORPUS_PREFIX, names, [dtypes.float32] * len(names))
    for value, name in zip(got, names):
        assert same(value, expected[name])


def test_restore_slices_of_whole_tensors(tmp_path):
    save(tmp_path / "c", {"w": np.arange(12, dtype=np.float32).reshape(3, 4)})
    (whole, rows, cols) = restore(tmp_path / "c", ["w", "w", "w"], [dtypes.float32] * 3,
                                  ["", "3 4 1,2:-", "3 4 -:3,1"])
    assert whole.shape == (3, 4)
    assert np.array_equal(rows, whole[1:3]) and np.array_equal(cols, whole[:, 3:4])


def test_restore_refuses_wrong_dtype_and_missing_tensor(tmp_path):
    save(tmp_path / "c", {"weights": np.zeros(3, np.float32)})
    with pytest.raises(InvalidArgumentError, match="'weights'.*float32.*float64"):
        restore(tmp_path / "c", ["weights"], [dtypes.float64])
    with pytest.raises(NotFoundError, match="'weight' is not in checkpoint.*did you mean: weights"):
        restore(tmp_path / "c", ["weight"], [dtypes.float32])
    with pytest.raises(NotFoundError, match="nope.index"):
        restore(tmp_path / "nope", ["weights"], [dtypes.float32])


def test_restore_reports_corruption_before_returning_anything(tmp_path):
    save(tmp_path / "c", {"a": np.zeros(3, np.float32), "b": np.ones(3, np.float32)})
    path = Path(data_filename(tmp_path / "c", 0, 1))
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF  # the last tensor written, "b"
    path.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match="'b'"):
        restore(tmp_path / "c", ["a", "b"], [dtypes.float32] * 2)


def test_argument_checks(tmp_path):
    prefix = scalar(tmp_path / "c")
    with pytest.raises(InvalidArgumentError, match="tensor_names must be a vector of 1"):
        run_op("SaveV2", [prefix, strings("a", "b"), strings(""), np.zeros(1)])
    with pytest.raises(InvalidArgumentError, match="prefix must be a scalar"):
        run_op("SaveV2", [strings("a", "b"), strings("a"), strings(""), np.zeros(1)])
    with pytest.raises(InvalidArgumentError, match="shape_and_slices"):
        run_op("RestoreV2", [prefix, strings("a"), strings("", "")], dtypes=[dtypes.float32])
    with pytest.raises(InvalidArgumentError, match="'a': invalid shape_and_slice spec"):
        run_op("SaveV2", [prefix, strings("a"), strings("4 0;2"), np.zeros(2)])
    assert not os.listdir(tmp_path)


def test_v1_checkpoint_ops_are_refused():
    with pytest.raises(UnimplementedError, match="V1 checkpoint format"):
        run_op("Save", [scalar("x"), strings("a"), np.zeros(1)])


# --- sharded saves: MergeV2Checkpoints and the file-name ops ---------------------------


def test_sharded_save_the_way_a_saver_graph_does(tmp_path):
    prefix = scalar(tmp_path / "model.ckpt-7")
    is_s3 = run_op("StaticRegexFullMatch", [prefix], pattern="^s3://.*")[0]
    assert not is_s3
    (tmp_prefix,) = run_op("StringJoin", [prefix, scalar("_temp/part")])
    parts = []
    for shard in range(2):
        (part,) = run_op("ShardedFilename", [tmp_prefix, np.int32(shard), np.int32(2)])
        parts.append(part.item())
        save(os.fsdecode(part.item()), {f"v{shard}": np.full(2, shard, np.int64)})
    assert parts[1].endswith(b"model.ckpt-7_temp/part-00001-of-00002")
    run_op("MergeV2Checkpoints", [strings(*parts), prefix])
    assert sorted(os.listdir(tmp_path)) == [
        "model.ckpt-7.data-00000-of-00002", "model.ckpt-7.data-00001-of-00002",
        "model.ckpt-7.index"]  # the _temp directory is gone
    merged = load_tensors(tmp_path / "model.ckpt-7")
    assert np.array_equal(merged["v1"], [1, 1])


def test_merge_keeps_old_dirs_when_asked(tmp_path):
    save_tensors(tmp_path / "tmp" / "p0", {"a": np.zeros(1)})
    run_op("MergeV2Checkpoints", [strings(str(tmp_path / "tmp" / "p0")), scalar(tmp_path / "m")],
           delete_old_dirs=False)
    assert (tmp_path / "tmp").is_dir()


def test_file_name_ops():
    assert run_op("ShardedFilename", [scalar("ckpt"), np.int32(3), np.int32(12)])[0] == \
        b"ckpt-00003-of-00012"
    assert run_op("ShardedFilespec", [scalar("ckpt"), np.int32(12)])[0] == b"ckpt-?????-of-00012"


def test_string_join_broadcasts_scalars():
    (out,) = run_op("StringJoin", [strings("a", "b"), scalar("x"), strings("1", "2")],
                    separator="/")
    assert list(out) == [b"a/x/1", b"b/x/2"]
    with pytest.raises(InvalidArgumentError, match="same shape"):
        run_op("StringJoin", [strings("a", "b"), strings("a", "b", "c")])


def test_static_regex_full_match():
    (out,) = run_op("StaticRegexFullMatch", [strings("s3://b/k", "/tmp/s3://", "")],
                    pattern="^s3://.*")
    assert out.tolist() == [True, False, False]


# --- TensorFlow's Saver graph, run in a tfx Session ------------------------------------

_SAVER_OPS = ["Const", "PlaceholderWithDefault", "Identity", "NoOp", "VariableV2", "Assign",
              "SaveV2", "RestoreV2"]


def _corpus_graph(saver_only: bool) -> graph_pb2.GraphDef:
    """The corpus graph, or just its variables, initializer and Saver (no model ops)."""
    graph = load_graph(str(CORPUS / "tf_checkpoint.pb"))
    if saver_only:
        nodes = [n for n in graph.node if n.name.startswith(("W_", "b_", "save/", "init"))]
        del graph.node[:]
        graph.node.extend(nodes)
    return graph


def _missing(saver_only: bool) -> list[str]:
    """Ops of the graph without a schema, and Saver ops without a CPU kernel."""
    graph_ops = {node.op for node in _corpus_graph(saver_only).node}
    missing = [f"{op} (schema)" for op in sorted(graph_ops) if not has_op(op)]
    return missing + [f"{op} (kernel)" for op in _SAVER_OPS if not has_kernel(op, "CPU")]


def _graphs() -> list:
    params = []
    for saver_only in (False, True):
        missing = _missing(saver_only)
        marks = pytest.mark.skipif(bool(missing), reason="needs: " + ", ".join(missing))
        params.append(pytest.param(saver_only, marks=marks,
                                   id="saver-subgraph" if saver_only else "whole-graph"))
    return params


@pytest.mark.parametrize("saver_only", _graphs())
def test_tensorflow_saver_graph_restores_and_saves(tmp_path, saver_only):
    expected = np.load(CORPUS / "tf_checkpoint.expected.npz")
    with Session(_corpus_graph(saver_only)) as sess:
        sess.run("save/restore_all", {"save/Const:0": str(CORPUS_PREFIX)})
        for name in expected.files:
            assert same(sess.run(f"{name}/read:0"), expected[name])
        written = sess.run("save/control_dependency:0", {"save/Const:0": str(tmp_path / "out")})
        assert os.fsencode(written.item()) == os.fsencode(tmp_path / "out")
    for suffix in (".index", ".data-00000-of-00001"):  # TensorFlow's bytes, reproduced
        assert Path(f"{tmp_path}/out{suffix}").read_bytes() == \
            Path(f"{CORPUS_PREFIX}{suffix}").read_bytes()


@pytest.mark.parametrize("saver_only", _graphs())
def test_failed_restore_assigns_no_variable(tmp_path, saver_only):
    save_tensors(tmp_path / "bad", load_tensors(CORPUS_PREFIX))
    path = Path(data_filename(tmp_path / "bad", 0, 1))
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF  # corrupts b_2, the last tensor written
    path.write_bytes(bytes(data))
    with Session(_corpus_graph(saver_only)) as sess:
        sess.run("init")
        before = sess.run(["W_1/read:0", "b_1/read:0"])
        with pytest.raises(DataLossError, match="'b_2'"):
            sess.run("save/restore_all", {"save/Const:0": str(tmp_path / "bad")})
        after = sess.run(["W_1/read:0", "b_1/read:0"])
    assert all(np.array_equal(a, b) for a, b in zip(before, after))
