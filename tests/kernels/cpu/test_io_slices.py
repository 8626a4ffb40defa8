"""SaveV2, RestoreV2 and MergeV2Checkpoints on slices of partitioned tensors.

The expected bytes are TensorFlow's (committed fixtures written by
tests/data/checkpoints/make_tf_saver_fixtures.py with TensorFlow 2.21), so these
tests check the format without TensorFlow installed.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from kernel_checks import scalar, strings

from tfx.core import dtypes
from tfx.core.checkpoint import BundleReader, load_tensors
from tfx.core.eager import run_op
from tfx.core.errors import DataLossError, InvalidArgumentError
from tfx.core.graph_io import load_graph
from tfx.core.session import Session

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "checkpoints"
P = np.arange(20, dtype=np.float32).reshape(10, 2)


def save(prefix, names: list[str], specs: list[str], *tensors: np.ndarray) -> None:
    run_op("SaveV2", [scalar(prefix), strings(*names), strings(*specs), *tensors])


def restore(prefix, names: list[str], specs: list[str], types: list) -> tuple:
    return run_op("RestoreV2", [scalar(prefix), strings(*names), strings(*specs)], dtypes=types)


def same_files(ours: str | Path, theirs: Path, suffixes: tuple[str, ...]) -> None:
    for suffix in suffixes:
        assert Path(f"{ours}{suffix}").read_bytes() == Path(f"{theirs}{suffix}").read_bytes()


def test_save_slices_writes_tensorflows_bytes(tmp_path):
    big = np.arange(1500, dtype=np.float32).reshape(300, 5)
    text = strings("a", "bb", "ccc", "dddd").reshape(2, 2)
    names, specs, tensors = [], [], []
    for start, length in ((0, 100), (100, 150), (250, 50)):
        names.append("big")
        specs.append(f"300 5 {start},{length}:-")
        tensors.append(big[start : start + length])
    for row in (0, 1):
        names.append("str")
        specs.append(f"2 2 {row},1:-")
        tensors.append(text[row : row + 1])
    for start in (0, 2**40):  # a tensor of 2**40 + 1 elements, saved as two of them
        names.append("huge")
        specs.append(f"{2**40 + 1} 1 {start},1:0,1")
        tensors.append(np.ones((1, 1), np.float32))
    names.append("whole")
    specs.append("")
    tensors.append(np.array([1, 2, 3], np.int8))
    save(tmp_path / "model.ckpt", names, specs, *tensors)
    same_files(
        tmp_path / "model.ckpt",
        FIXTURES / "tf_sliced" / "model.ckpt",
        (".index", ".data-00000-of-00001"),
    )


def test_sharded_save_of_slices_merges_to_tensorflows_bytes(tmp_path):
    text = strings("x", "yy", "zzz")
    parts = [str(tmp_path / "model.ckpt_temp" / f"part-{i:05d}-of-00002") for i in (0, 1)]
    save(
        parts[0],
        ["p", "s", "w"],
        ["10 2 0,4:-", "3 2,1", ""],
        P[:4],
        text[2:],
        np.array([7, 8], np.int32),
    )
    save(parts[1], ["p", "s"], ["10 2 4,6:-", "3 0,2"], P[4:], text[:2])
    run_op("MergeV2Checkpoints", [strings(*parts), scalar(tmp_path / "model.ckpt")])
    assert sorted(os.listdir(tmp_path)) == [
        "model.ckpt.data-00000-of-00002",
        "model.ckpt.data-00001-of-00002",
        "model.ckpt.index",
    ]
    same_files(
        tmp_path / "model.ckpt",
        FIXTURES / "tf_sliced_merged" / "model.ckpt",
        (".index", ".data-00000-of-00002", ".data-00001-of-00002"),
    )
    got = restore(
        tmp_path / "model.ckpt",
        ["p", "p", "s", "s"],
        ["", "10 2 3,2:1,1", "", "3 1,2"],
        [dtypes.float32] * 2 + [dtypes.string] * 2,
    )
    assert np.array_equal(got[0], P) and got[1].tolist() == [[7.0], [9.0]]
    assert got[2].tolist() == [b"x", b"yy", b"zzz"] and got[3].tolist() == [b"yy", b"zzz"]


def test_restore_slices_of_whole_and_sliced_tensors(tmp_path):
    save(tmp_path / "c", ["p", "p", "q"], ["10 2 0,5:-", "10 2 5,5:-", ""], P[:5], P[5:], P)
    rows, column = "10 2 4,2:-", "10 2 -:1,1"  # the rows cross the two stored slices
    got = restore(
        tmp_path / "c", ["p", "q", "p", "q"], [rows, rows, column, column], [dtypes.float32] * 4
    )
    assert got[0].tolist() == got[1].tolist() == [[8.0, 9.0], [10.0, 11.0]]
    assert got[2].tolist() == got[3].tolist() == [[v] for v in range(1, 20, 2)]
    with BundleReader(tmp_path / "c") as reader:
        assert len(reader.entry("p").slices) == 2 and not reader.entry("q").slices


def test_restore_errors_name_the_tensor(tmp_path):
    save(tmp_path / "c", ["p"], ["10 2 0,4:-"], P[:4])
    for spec, types, error, message in [
        (
            "10 3 0,2:-",
            [dtypes.float32],
            InvalidArgumentError,
            "'p': shape \\[10, 3\\] in the spec .* does not match the shape stored .*\\[10, 2\\]",
        ),
        ("10 2 8,4:-", [dtypes.float32], InvalidArgumentError, "'p'.*outside shape"),
        ("10 2 0,2:-", [dtypes.float64], InvalidArgumentError, "'p'.*float32.*float64"),
        ("10 2 2,4:-", [dtypes.float32], DataLossError, "'p'.*do not cover the slice restored"),
    ]:
        with pytest.raises(error, match=message):
            restore(tmp_path / "c", ["p"], [spec], types)
    assert restore(tmp_path / "c", ["p"], ["10 2 1,2:-"], [dtypes.float32])[0].tolist() == [
        [2.0, 3.0],
        [4.0, 5.0],
    ]


@pytest.mark.parametrize(
    ("specs", "values", "message"),
    [
        (
            ["10 2 0,4:-"],
            [P[:3]],
            "'p': slice 0,4:- of shape \\[10, 2\\] has shape \\[4, 2\\], "
            "but the value saved for it has shape \\[3, 2\\]",
        ),
        (
            ["10 2 8,4:-"],
            [P[:4]],
            "'p': shape_and_slice spec '10 2 8,4:-': slice 8,4:- is outside shape \\[10, 2\\]",
        ),
        (["10 2 0,4"], [P[:4]], "'p'.*has 1 extents for shape \\[10, 2\\]"),
        (["10 x"], [P[:4]], "'p': invalid shape_and_slice spec '10 x'"),
        (["10 2 0,4:-", "10 2 2,8:-"], [P[:4], P[2:]], "'p': slice 2,8:- overlaps slice 0,4:-"),
        (
            ["10 2 0,4:-", "10 2 4,6:-"],
            [P[:4], P[4:].astype(np.int32)],
            "'p': its slices have different dtypes \\(float32 and int32\\)",
        ),
        (["10 2 0,4:-", "12 2 4,6:-"], [P[:4], P[4:]], "'p': its slices give different full"),
    ],
)
def test_bad_slices_are_refused_and_nothing_is_written(tmp_path, specs, values, message):
    with pytest.raises(InvalidArgumentError, match=message):
        save(tmp_path / "c", ["p"] * len(specs), specs, *values)
    assert os.listdir(tmp_path) == []


def test_save_errors_name_the_node(tmp_path):
    prefix = tmp_path / "c"
    graph_text = f"""
node {{ name: "prefix" op: "Const" attr {{ key: "dtype" value {{ type: DT_STRING }} }}
  attr {{ key: "value" value {{ tensor {{ dtype: DT_STRING tensor_shape {{}}
    string_val: "{prefix}" }} }} }} }}
node {{ name: "names" op: "Const" attr {{ key: "dtype" value {{ type: DT_STRING }} }}
  attr {{ key: "value" value {{ tensor {{ dtype: DT_STRING tensor_shape {{ dim {{ size: 1 }} }}
    string_val: "p" }} }} }} }}
node {{ name: "specs" op: "Const" attr {{ key: "dtype" value {{ type: DT_STRING }} }}
  attr {{ key: "value" value {{ tensor {{ dtype: DT_STRING tensor_shape {{ dim {{ size: 1 }} }}
    string_val: "10 2 0,4:-" }} }} }} }}
node {{ name: "value" op: "Const" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }}
  attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ dim {{ size: 3 }} }}
    float_val: 1 }} }} }} }}
node {{ name: "save/SaveV2" op: "SaveV2" input: "prefix" input: "names" input: "specs"
  input: "value" attr {{ key: "dtypes" value {{ list {{ type: DT_FLOAT }} }} }} }}
"""
    from google.protobuf import text_format

    from tfx.protos import graph_pb2

    graph = text_format.Parse(graph_text, graph_pb2.GraphDef())
    with (
        Session(graph) as sess,
        pytest.raises(InvalidArgumentError, match="node 'save/SaveV2' .*tensor 'p': slice 0,4:-"),
    ):
        sess.run("save/SaveV2")
    assert os.listdir(tmp_path) == []


def test_failed_merge_keeps_the_inputs_and_their_directory(tmp_path):
    parts = [str(tmp_path / "tmp" / f"part-{i}") for i in (0, 1)]
    save(parts[0], ["p"], ["10 2 0,6:-"], P[:6])
    save(parts[1], ["p"], ["10 2 4,6:-"], P[4:])
    before = sorted(os.listdir(tmp_path / "tmp"))
    with pytest.raises(InvalidArgumentError, match="'p': slice 4,6:- in .*overlaps slice 0,6:-"):
        run_op("MergeV2Checkpoints", [strings(*parts), scalar(tmp_path / "model.ckpt")])
    assert sorted(os.listdir(tmp_path / "tmp")) == before and os.listdir(tmp_path) == ["tmp"]
    got = restore(parts[1], ["p"], ["10 2 4,6:-"], [dtypes.float32])[0]
    assert np.array_equal(got, P[4:])


def test_tensorflow_saver_graph_with_a_partitioned_variable_saves_tensorflows_bytes(tmp_path):
    # TensorFlow 1.x's Saver over `a`, resource `r` and `p` in three partitions.
    saver = FIXTURES / "tf_saver"
    with Session(load_graph(str(saver / "graph.pb"))) as sess:
        sess.run("save/restore_all", {"save/Const:0": str(saver / "model.ckpt")})
        parts = sess.run(["p/part_0:0", "p/part_1:0", "p/part_2:0"])
        assert np.array_equal(np.concatenate(parts), P)
        sess.run("save/control_dependency:0", {"save/Const:0": str(tmp_path / "out")})
    same_files(tmp_path / "out", saver / "model.ckpt", (".index", ".data-00000-of-00001"))
    assert np.array_equal(load_tensors(tmp_path / "out")["p"], P)
