"""tf.data.experimental.snapshot / Dataset.snapshot: written by the first complete pass,
read back by later ones, in TensorFlow 2.21's files.

tests/data/snapshot holds snapshots TensorFlow 2.21 wrote (generate.py) and what it read
back from them; tfx reads those files, and the shard files tfx writes for the same
elements equal TensorFlow's byte for byte (plain and GZIP; tfx's Snappy blocks differ in
compression, not in content). The behaviours asserted below (orders, directory names,
errors) were recorded with TensorFlow 2.21 on the same pipelines.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import tfx as tf
from tfx.core import data_snapshot
from tfx.core.errors import InvalidArgumentError

DATA = Path(__file__).resolve().parents[1] / "data" / "snapshot"
EXPECTED = json.loads((DATA / "expected.json").read_text())


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _files(path):
    return sorted(os.path.relpath(os.path.join(r, f), path)
                  for r, _, fs in os.walk(path) for f in fs)


def _run(dataset, take=None):
    if take is not None:
        dataset = dataset.take(take)
    element = tf.data.make_one_shot_iterator(dataset).get_next()
    got = []
    with tf.Session() as sess:
        try:
            while True:
                got.append(sess.run(element))
        except tf.errors.OutOfRangeError:
            return got


def _fixture_pipeline(path, compression):
    dataset = tf.data.Dataset.from_tensor_slices(
        ([1, 2, 3], [[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]], [b"a", b"bb", b"ccc"]))
    return dataset.apply(tf.data.experimental.snapshot(
        str(path), compression=compression,
        reader_func=lambda datasets: datasets.flat_map(lambda shard: shard),
        shard_func=lambda a, b, c: tf.cast(a % 2, tf.int64)))


def _as_lists(elements):
    return [[int(a), b.tolist(), c.decode()] for a, b, c in elements]


def _hash_dir(dataset_tensor_graph):
    (node,) = [n for n in dataset_tensor_graph.as_graph_def().node
               if n.op == "SnapshotDatasetV2"]
    assert node.attr["hash_valid"].b
    return str(node.attr["hash"].i % (1 << 64))


@pytest.mark.parametrize("case", sorted(EXPECTED["cases"]))
def test_reads_tensorflows_snapshot_files(case, tmp_path):
    expected = EXPECTED["cases"][case]
    dataset = _fixture_pipeline(tmp_path, expected["compression"])
    ours = tmp_path / _hash_dir(tf.get_default_graph())
    shutil.copytree(DATA / "tf" / case / expected["hash"], ours)
    assert _as_lists(_run(dataset)) == expected["read"]  # shard 0, then shard 1
    assert _files(ours) == expected["files"]  # read, nothing written


@pytest.mark.parametrize("case", sorted(EXPECTED["cases"]))
def test_writes_tensorflows_snapshot_files(case, tmp_path):
    expected = EXPECTED["cases"][case]
    dataset = _fixture_pipeline(tmp_path, expected["compression"])
    assert _as_lists(_run(dataset)) == expected["written"]
    ours = tmp_path / _hash_dir(tf.get_default_graph())
    metadata = data_snapshot.read_metadata(str(ours))
    theirs = EXPECTED["metadata"][case]
    assert (metadata.version, metadata.dtypes, metadata.num_elements, metadata.finalized) == (
        theirs["version"], theirs["dtype"], theirs["num_elements"], theirs["finalized"])
    assert metadata.graph_hash == ours.name
    tf_run = theirs["run_id"]
    assert _files(ours) == [f.replace(tf_run, metadata.run_id) for f in expected["files"]]
    compression = data_snapshot.compression_of(expected["compression"] or "")
    for name in expected["files"][:-1]:
        mine = ours / name.replace(tf_run, metadata.run_id)
        tf_file = DATA / "tf" / case / expected["hash"] / name
        assert (list(data_snapshot.read_shard_records(str(mine), compression))
                == list(data_snapshot.read_shard_records(str(tf_file), compression)))
        if compression != data_snapshot.SNAPPY:
            assert mine.read_bytes() == tf_file.read_bytes()
    # and the second pass reads them back as TensorFlow's did
    assert _as_lists(_run(_fixture_pipeline(tmp_path, expected["compression"]))) == (
        expected["read"])


def test_second_pass_reads_and_a_new_pipeline_or_compression_writes_anew(tmp_path):
    def build(n=5, compression="AUTO"):
        return tf.data.Dataset.range(n).snapshot(str(tmp_path), compression=compression)

    assert _run(build()) == [0, 1, 2, 3, 4]
    (hash_dir,) = os.listdir(tmp_path)
    written = _files(tmp_path)
    # shard i % CPUs of the enumerated input (TF: two shards on two CPUs)
    assert len([f for f in written if f.endswith(".snapshot")]) == min(os.cpu_count(), 5)
    with tf.Graph().as_default():
        assert _run(build()) == [0, 1, 2, 3, 4]  # read back in order by the interleave
    assert _files(tmp_path) == written
    with tf.Graph().as_default():
        assert _run(build(3)) == [0, 1, 2]
    with tf.Graph().as_default():
        assert _run(build(compression="GZIP")) == [0, 1, 2, 3, 4]
    assert len(os.listdir(tmp_path)) == 3  # TF 2.21: one hash directory each


def test_a_pass_dropped_early_leaves_the_snapshot_to_be_written_again(tmp_path):
    def build():
        return tf.data.experimental.snapshot(str(tmp_path))(tf.data.Dataset.range(5))

    assert _run(build(), take=2) == [0, 1]
    (hash_dir,) = os.listdir(tmp_path)
    assert not data_snapshot.read_metadata(str(tmp_path / hash_dir)).finalized
    with tf.Graph().as_default():
        assert _run(build()) == [0, 1, 2, 3, 4]  # TF 2.21 writes a second run
    runs = [d for d in os.listdir(tmp_path / hash_dir) if d != "snapshot.metadata"]
    assert len(runs) == 2
    metadata = data_snapshot.read_metadata(str(tmp_path / hash_dir))
    assert metadata.finalized and metadata.run_id in runs
    with tf.Graph().as_default():
        assert _run(build()) == [0, 1, 2, 3, 4]
    assert len(os.listdir(tmp_path / hash_dir)) == 3


def test_shard_and_reader_functions(tmp_path):
    def build(path, **kwargs):
        return tf.data.Dataset.range(5).snapshot(str(path), **kwargs)

    flat = {"reader_func": lambda datasets: datasets.flat_map(lambda shard: shard),
            "shard_func": lambda x: x % 2}
    assert _run(build(tmp_path / "a", **flat)) == [0, 1, 2, 3, 4]
    with tf.Graph().as_default():
        assert _run(build(tmp_path / "a", **flat)) == [0, 2, 4, 1, 3]  # TF 2.21's order
    times_ten = {
        "reader_func": lambda datasets: datasets.flat_map(lambda shard: shard).map(
            lambda x: x * 10),
        "shard_func": lambda x: x % 2}
    with tf.Graph().as_default():
        assert _run(build(tmp_path / "b", **times_ten)) == [0, 1, 2, 3, 4]
    with tf.Graph().as_default():
        assert _run(build(tmp_path / "b", **times_ten)) == [0, 20, 40, 10, 30]
    # a negative shard is its unsigned 64-bit number, as TensorFlow names it
    with tf.Graph().as_default():
        assert _run(build(tmp_path / "c", shard_func=lambda x: x - 3)) == [0, 1, 2, 3, 4]
    (hash_dir,) = os.listdir(tmp_path / "c")
    metadata = data_snapshot.read_metadata(str(tmp_path / "c" / hash_dir))
    assert sorted(os.listdir(tmp_path / "c" / hash_dir / metadata.run_id)) == [
        "00000000.shard", "00000001.shard", "18446744073709551613.shard",
        "18446744073709551614.shard", "18446744073709551615.shard"]


def test_tensorflows_errors(tmp_path, caplog):
    with pytest.raises(TypeError) as caught:
        tf.data.Dataset.range(5).snapshot(str(tmp_path),
                                          shard_func=lambda x: tf.cast(x, tf.float32))
    assert str(caught.value) == (
        "Invalid `shard_func`. `shard_func` must return `tf.int64` scalar tensor but its "
        "return type is TensorSpec(shape=(), dtype=tfx.float32, name=None).")
    # an int32 shard passes the build and fails the pass, as in TensorFlow
    dataset = tf.data.Dataset.range(5).snapshot(str(tmp_path),
                                                shard_func=lambda x: tf.cast(x, tf.int32))
    element = tf.data.make_one_shot_iterator(dataset).get_next()
    with tf.Session() as sess, pytest.raises(InvalidArgumentError,
                                             match="`shard_func` must return a scalar int64."):
        sess.run(element)
    # an unknown compression is TF's logged error, and the files are written plain
    with tf.Graph().as_default():
        assert _run(tf.data.Dataset.range(3).snapshot(
            str(tmp_path / "foo"), compression="FOO", shard_func=lambda x: x * 0)) == [0, 1, 2]
    assert "Unsupported compression_type:FOO. No compression will be used." in caplog.text
    (hash_dir,) = os.listdir(tmp_path / "foo")
    run = data_snapshot.read_metadata(str(tmp_path / "foo" / hash_dir)).run_id
    shard = tmp_path / "foo" / hash_dir / run / "00000000.shard" / "00000000.snapshot"
    records = list(data_snapshot.read_shard_records(str(shard), data_snapshot.NONE))
    assert [data_snapshot.tensor_from_record(r, "x").tolist() for r in records] == [0, 1, 2]


def test_structure_and_tensor_records():
    dataset = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [[b"x"], [b"y"]]})
    out = dataset.apply(tf.data.experimental.snapshot("/tmp/unused"))
    assert out.element_spec == dataset.element_spec
    assert [n.op for n in tf.get_default_graph().as_graph_def().node].count(
        "SnapshotDatasetV2") == 1
    for value, dtype in [(np.array([[b"ab", b""], [b"c", b"def"]], dtype=object), tf.string),
                         (np.array(True), tf.bool), (np.arange(6, dtype=np.float16), tf.float16),
                         (np.zeros((0, 3), np.int64), tf.int64)]:
        record = data_snapshot.tensor_record(value, dtype)
        back = data_snapshot.tensor_from_record(record, "x")
        assert back.shape == value.shape and back.tolist() == value.tolist()
    text = b"snapshot " * 50
    assert data_snapshot.snappy_decompress(data_snapshot.snappy_compress(text), "x") == text


def test_corrupt_records_are_data_loss():
    from tfx.core.errors import DataLossError
    from tfx.protos import tensor_pb2

    def record(**fields):
        proto = tensor_pb2.TensorProto(**fields)
        proto.tensor_shape.dim.add().size = 2
        return proto.SerializeToString()

    with pytest.raises(DataLossError, match="does not fit its shape"):
        data_snapshot.tensor_from_record(record(dtype=1, tensor_content=b"123"), "f")
    with pytest.raises(DataLossError, match="cut short"):
        data_snapshot.tensor_from_record(record(dtype=7, tensor_content=b"\x01"), "f")
    with pytest.raises(DataLossError, match="do not fill"):
        data_snapshot.tensor_from_record(record(dtype=7, tensor_content=b"\x01\x01abc"), "f")
    with pytest.raises(DataLossError, match="no TensorProto"):
        data_snapshot.tensor_from_record(b"\xff\xff", "f")
    # values in the typed fields (not what TensorFlow writes, but a valid TensorProto)
    assert data_snapshot.tensor_from_record(record(dtype=1, float_val=[1.5, 2.5]),
                                            "f").tolist() == [1.5, 2.5]
