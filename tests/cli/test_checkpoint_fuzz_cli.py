"""`tfx checkpoint` on TensorFlow-written and hostile checkpoints.

Hostile input gives one `error:` line and exit code 2 (bad input: a corrupt
file is a DataLossError, exit 2), never a traceback; TensorFlow's Saver graphs, partitioned
variables and object-based checkpoints restore and inspect.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from cli_checks import assert_one_line, tfx_cli

from tfx.core.checkpoint import restore as ckpt
from tfx.core.errors import InvalidArgumentError
from tfx.core.graph_io import load_graph
from tfx.core.session import Session

FIXTURES = Path(__file__).parents[1] / "data" / "checkpoints"
SAVER = FIXTURES / "tf_saver"


# --- TensorFlow's Saver graphs ------------------------------------------------------------


def test_restore_tensorflow_saver_with_partitions_and_resource_variable(capsys):
    code, out, err = tfx_cli(capsys, "checkpoint", "restore", str(SAVER / "graph.pb"),
                             str(SAVER), "--fetch", "p/part_1", "--fetch", "a", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["method"] == "save/restore_all" and result["verified"]
    # `r` is assigned through an Identity; each part of `p` from a slice of tensor `p`.
    assert sorted((r["variable"], r["tensor"]) for r in result["restored"]) == [
        ("a", "a"), ("p/part_0", "p"), ("p/part_1", "p"), ("p/part_2", "p"), ("r", "r")]
    assert result["unused"] == []
    assert result["fetches"]["p/part_1:0"] == [[8.0, 9.0], [10.0, 11.0], [12.0, 13.0]]
    assert result["fetches"]["a:0"] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_saver_partition_of_another_shape_changes_nothing(tmp_path):
    graph = load_graph(SAVER / "graph.pb")
    for node in graph.node:  # p is now [12, 2] in the graph: the slice specs disagree
        if node.name == "save/RestoreV2/shape_and_slices":
            tensor = node.attr["value"].tensor
            tensor.string_val[:] = [v.replace(b"10 2 ", b"12 2 ") for v in tensor.string_val]
    from tfx.core.graph import Graph

    ir = Graph.from_graph_def(graph)
    saver = ckpt.find_saver(ir)
    assert dict(saver.slices)["p/part_0"] == "12 2 0,4:0,2"
    with Session(ir) as sess:
        sess.run("init")
        with pytest.raises(InvalidArgumentError, match="restored as a slice") as info:
            ckpt.restore_with_saver(sess, saver, str(SAVER / "model.ckpt"))
        assert "no variable was changed" in str(info.value)
        assert sess.run("p/part_0:0").tolist() == [[0.0, 0.0]] * 4


def test_inspect_partitioned_and_object_based_checkpoints(capsys):
    code, out, err = tfx_cli(capsys, "checkpoint", "inspect", str(SAVER), "--json")
    assert code == 0, err
    tensors = {t["name"]: t for t in json.loads(out)["tensors"]}
    assert sorted(tensors) == ["a", "p", "r"]
    assert tensors["p"]["shape"] == [10, 2] and tensors["p"]["max"] == 19.0
    code, out, err = tfx_cli(capsys, "checkpoint", "inspect",
                             str(FIXTURES / "tf_object" / "ckpt-1"), "--json",
                             "--tensor", "model/txt/.ATTRIBUTES/VARIABLE_VALUE")
    assert code == 0, err
    result = json.loads(out)
    names = [t["name"] for t in result["tensors"]]
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in names
    assert "model/w/.ATTRIBUTES/VARIABLE_VALUE" in names
    step = next(t for t in result["tensors"] if t["name"] == "model/step/.ATTRIBUTES/"
                "VARIABLE_VALUE")
    assert (step["dtype"], step["shape"], step["max"]) == ("int64", [], 5.0)
    assert result["values"]["model/txt/.ATTRIBUTES/VARIABLE_VALUE"] == "hello"


# --- hostile files ------------------------------------------------------------------------


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    folder = tmp_path / "ckpt"
    shutil.copytree(SAVER, folder)
    return folder


@pytest.mark.parametrize("command", ["inspect", "list"])
def test_state_file_not_utf8_is_one_line(capsys, saved, command):
    (saved / "checkpoint").write_bytes(b'model_checkpoint_path: "\xff"\n')
    code, _, err = tfx_cli(capsys, "checkpoint", command, str(saved))
    assert code == 2
    assert_one_line(err)
    assert "not a valid checkpoint state file" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_index_fifo_is_one_line_without_blocking(capsys, saved):
    os.unlink(saved / "model.ckpt.index")
    os.mkfifo(saved / "model.ckpt.index")
    code, _, err = tfx_cli(capsys, "checkpoint", "inspect", str(saved / "model.ckpt"))
    assert code == 2
    assert_one_line(err)
    assert "not a regular file" in err


def test_zero_size_tensor_with_huge_dims_is_one_line(capsys, tmp_path):
    from tfx.core.checkpoint import index_filename, save_tensors, table
    from tfx.protos import checkpoint_pb2

    prefix = tmp_path / "model.ckpt"
    save_tensors(prefix, {"z": np.zeros((0, 2), np.float32)})
    items = table.read_table(index_filename(prefix))
    entry = checkpoint_pb2.BundleEntryProto.FromString(items[1][1])
    entry.shape.dim[1].size = 2**62
    entry.shape.dim.add().size = 2**62
    with open(index_filename(prefix), "wb") as handle:
        writer = table.TableWriter(handle)
        writer.add(items[0][0], items[0][1])
        writer.add(items[1][0], entry.SerializeToString())
        writer.finish()
    code, _, err = tfx_cli(capsys, "checkpoint", "inspect", str(prefix))
    assert code == 2
    assert_one_line(err)
    assert "'z'" in err and "impossibly large" in err
