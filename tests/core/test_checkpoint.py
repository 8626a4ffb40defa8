"""Tests for the checkpoint format: table, tensor bundle, merge, state file, bad input.

The committed fixtures in tests/data/checkpoints (written by tfx and by
TensorFlow; see make_fixtures.py there) make the format checks run without
TensorFlow; the TensorFlow round trips at the end skip when it is missing.
"""

from __future__ import annotations

import importlib.util
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tfx.core import dtypes, limits
from tfx.core.checkpoint import (
    BundleReader,
    BundleWriter,
    checkpoint_files,
    data_filename,
    index_filename,
    latest_checkpoint,
    load_tensors,
    merge_bundles,
    read_state,
    record_checkpoint,
    save_tensors,
    table,
    write_state,
)
from tfx.core.errors import (
    DataLossError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    UnimplementedError,
)
from tfx.protos import checkpoint_pb2

DATA = Path(__file__).resolve().parents[1] / "data"
FIXTURES = DATA / "checkpoints"
CORPUS = DATA / "conformance"


def _load_fixture_module():
    spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXPECTED = _load_fixture_module().fixture_tensors()


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype == object:
        assert list(got.reshape(-1)) == list(want.reshape(-1))
    else:
        # Bitwise, so NaN, -0.0 and the narrow float types compare exactly.
        as_bytes = [np.ascontiguousarray(a).reshape(-1).view(np.uint8) for a in (got, want)]
        assert np.array_equal(*as_bytes)


def rewrite_entry(prefix: Path, name: str, mutate) -> None:
    """Change one tensor's index entry, keeping the table valid (CRCs recomputed)."""
    items = table.read_table(index_filename(prefix))
    out = io.BytesIO()
    writer = table.TableWriter(out)
    for key, value in items:
        if key == name.encode():
            entry = checkpoint_pb2.BundleEntryProto.FromString(value)
            mutate(entry)
            value = entry.SerializeToString()
        writer.add(key, value)
    writer.finish()
    Path(index_filename(prefix)).write_bytes(out.getvalue())


@pytest.fixture
def ckpt(tmp_path: Path) -> Path:
    prefix = tmp_path / "model.ckpt"
    save_tensors(prefix, {"w": np.arange(12, dtype=np.float32).reshape(3, 4),
                          "names": np.array([b"a", b"bc"], dtype=object)})
    return prefix


# --- the table -------------------------------------------------------------------------


def test_masked_crc_matches_leveldb():
    assert table.crc32c(b"123456789") == 0xE3069283
    assert table.unmask_crc(table.mask_crc(0xE3069283)) == 0xE3069283
    assert table.mask_crc(0xE3069283) != 0xE3069283


def test_table_rewrites_tensorflow_index_byte_for_byte():
    original = (CORPUS / "tf_checkpoint" / "model.ckpt.index").read_bytes()
    out = io.BytesIO()
    writer = table.TableWriter(out)
    for key, value in table.parse_table(original):
        writer.add(key, value)
    writer.finish()
    assert out.getvalue() == original


@pytest.mark.parametrize("block_size", [64, 4096])
def test_table_round_trip_with_many_blocks_and_restarts(block_size):
    items = [(f"layer_{i:04d}/kernel".encode(), bytes([i % 251]) * (i % 37)) for i in range(500)]
    out = io.BytesIO()
    writer = table.TableWriter(out, block_size=block_size)
    for key, value in items:
        writer.add(key, value)
    writer.finish()
    assert table.parse_table(out.getvalue()) == items


def test_table_refuses_unsorted_keys():
    writer = table.TableWriter(io.BytesIO())
    writer.add(b"b", b"")
    with pytest.raises(ValueError):
        writer.add(b"a", b"")


def test_table_reads_snappy_blocks(monkeypatch):
    pytest.importorskip("cramjam")
    items = [(f"var_{i:03d}".encode(), b"x" * 40) for i in range(100)]
    out = io.BytesIO()
    writer = table.TableWriter(out, block_size=1024, compression=table.SNAPPY_COMPRESSION)
    for key, value in items:
        writer.add(key, value)
    writer.finish()
    data = out.getvalue()
    assert len(data) < sum(len(k) + len(v) for k, v in items) / 2  # really compressed
    assert table.parse_table(data) == items
    monkeypatch.setattr(table, "_snappy_module", lambda: None)
    with pytest.raises(UnimplementedError, match="Snappy"):
        table.parse_table(data, "x.index")


# --- bundles: round trips and fixtures -------------------------------------------------

_ROUND_TRIP_TYPES = [d for d in dtypes.all_dtypes() if d.name not in ("resource", "variant")]


@pytest.mark.parametrize("dtype", _ROUND_TRIP_TYPES, ids=str)
def test_round_trip_every_dtype(tmp_path, dtype):
    if dtype is dtypes.string:
        value = np.array([[b"x", b""], [b"\x00\xff", b"long" * 100]], dtype=object)
    else:
        value = (np.arange(24) % 7).astype(dtype.np).reshape(2, 3, 4)
    with BundleWriter(tmp_path / "c") as writer:
        writer.add("t", value, dtype)
        writer.add("scalar", value.reshape(-1)[1], dtype)
        writer.add("empty", value.reshape(-1)[:0].reshape(0, 3), dtype)
    reader = BundleReader(tmp_path / "c")
    assert reader.dtype("t") is dtype and reader.shape("t") == value.shape
    assert_same(reader.read("t"), value)
    assert_same(reader.read("scalar"), np.asarray(value.reshape(-1)[1], dtype=value.dtype))
    assert reader.read("empty").shape == (0, 3)


@pytest.mark.parametrize("folder", ["tfx", "tf", "tf_sharded"])
def test_committed_fixtures_read_back_exactly(folder):
    with BundleReader(FIXTURES / folder / "model.ckpt") as reader:
        assert reader.num_shards == (2 if folder == "tf_sharded" else 1)
        assert sorted(reader.names()) == sorted(EXPECTED)
        for name, want in EXPECTED.items():
            assert_same(reader.read(name), want)


def test_writer_output_is_byte_identical_to_tensorflow_and_committed_fixture(tmp_path):
    save_tensors(tmp_path / "sorted", {k: EXPECTED[k] for k in sorted(EXPECTED)})
    save_tensors(tmp_path / "ordered", EXPECTED)
    for suffix in (".index", ".data-00000-of-00001"):
        tf_bytes = (FIXTURES / "tf" / f"model.ckpt{suffix}").read_bytes()
        assert Path(f"{tmp_path}/sorted{suffix}").read_bytes() == tf_bytes
        tfx_bytes = (FIXTURES / "tfx" / f"model.ckpt{suffix}").read_bytes()
        assert Path(f"{tmp_path}/ordered{suffix}").read_bytes() == tfx_bytes


def test_corpus_checkpoint_gives_exactly_the_saved_values():
    expected = np.load(CORPUS / "tf_checkpoint.expected.npz")
    reader = BundleReader(CORPUS / "tf_checkpoint" / "model.ckpt")
    assert sorted(reader.names()) == sorted(expected.files)
    for name in expected.files:
        assert_same(reader.read(name), expected[name])


def test_read_slice_and_catalogue(ckpt):
    reader = BundleReader(ckpt)
    assert reader.names() == ["names", "w"] and "w" in reader and len(reader) == 2
    rows = np.arange(4, 12, dtype=np.float32).reshape(2, 4)
    assert_same(reader.read_slice("w", "3 4 1,2:-"), rows)
    assert_same(reader.read_slice("w", "3 4 -:0,1"), np.array([[0], [4], [8]], np.float32))
    with pytest.raises(InvalidArgumentError, match="does not match"):
        reader.read_slice("w", "4 3 -:-")
    with pytest.raises(InvalidArgumentError, match="outside shape"):
        reader.read_slice("w", "3 4 2,5:-")
    with pytest.raises(NotFoundError, match="did you mean: w"):
        reader.read("ww")


def test_writer_refuses_bad_names_and_types(tmp_path):
    writer = BundleWriter(tmp_path / "c")
    writer.add("a", np.zeros(2))
    with pytest.raises(InvalidArgumentError, match="twice"):
        writer.add("a", np.zeros(2))
    with pytest.raises(InvalidArgumentError, match="empty"):
        writer.add("", np.zeros(2))
    with pytest.raises(UnimplementedError):
        writer.add("r", np.array([object()], dtype=object), dtypes.resource)
    writer.abort()
    assert not list(tmp_path.iterdir())


# --- writes that cannot lose data ------------------------------------------------------


def test_interrupted_save_leaves_previous_checkpoint_intact(ckpt):
    before = {p: Path(p).read_bytes() for p in checkpoint_files(ckpt)}
    with pytest.raises(RuntimeError, match="killed"):
        with BundleWriter(ckpt) as writer:
            writer.add("w", np.full((3, 4), 7, np.float32))
            raise RuntimeError("killed mid-save")
    assert {p: Path(p).read_bytes() for p in checkpoint_files(ckpt)} == before
    assert sorted(os.listdir(ckpt.parent)) == sorted(os.path.basename(p) for p in before)
    assert_same(load_tensors(ckpt)["w"], np.arange(12, dtype=np.float32).reshape(3, 4))


def test_abandoned_writer_does_not_touch_the_committed_files(ckpt):
    writer = BundleWriter(ckpt)  # a process killed here never reaches finish()
    writer.add("w", np.zeros((3, 4), np.float32))
    writer._file.flush()
    assert_same(load_tensors(ckpt)["w"], np.arange(12, dtype=np.float32).reshape(3, 4))
    writer.abort()


_KILLED_WRITER = """
import sys, time, numpy as np
from tfx.core.checkpoint import BundleWriter
writer = BundleWriter(sys.argv[1])
writer.add("w", np.full((3, 4), 7, np.float32))
writer.add("big", np.zeros(1 << 20, np.float64))
print("mid-save", flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_save_leaves_previous_checkpoint_intact(ckpt):
    before = {p: Path(p).read_bytes() for p in checkpoint_files(ckpt)}
    child = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(ckpt)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "mid-save"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
    assert {p: Path(p).read_bytes() for p in checkpoint_files(ckpt)} == before
    assert_same(load_tensors(ckpt)["w"], np.arange(12, dtype=np.float32).reshape(3, 4))


# --- bad input -------------------------------------------------------------------------


def test_missing_prefix_and_missing_data_file(tmp_path, ckpt):
    with pytest.raises(NotFoundError, match="nope.index"):
        BundleReader(tmp_path / "nope")
    with pytest.raises(NotFoundError, match="is a directory"):
        BundleReader(tmp_path)
    os.unlink(data_filename(ckpt, 0, 1))
    with pytest.raises(NotFoundError, match=r"model\.ckpt\.data-00000-of-00001"):
        BundleReader(ckpt).read("w")


@pytest.mark.parametrize("keep", [0, 10, 100, -1])
def test_truncated_index(ckpt, keep):
    path = Path(index_filename(ckpt))
    data = path.read_bytes()
    path.write_bytes(data[:keep] if keep >= 0 else data[:-1])
    with pytest.raises(DataLossError, match=r"model\.ckpt\.index"):
        BundleReader(ckpt)


def test_wrong_magic(ckpt):
    path = Path(index_filename(ckpt))
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match=r"model\.ckpt\.index.*magic"):
        BundleReader(ckpt)


def test_flipped_byte_in_index_block(ckpt):
    path = Path(index_filename(ckpt))
    data = bytearray(path.read_bytes())
    data[5] ^= 0x20
    path.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match=r"model\.ckpt\.index.*checksum"):
        BundleReader(ckpt)


@pytest.mark.parametrize("name", ["w", "names"])
def test_flipped_byte_in_data_names_tensor_and_file(ckpt, name):
    entry = BundleReader(ckpt).entry(name)
    path = Path(data_filename(ckpt, 0, 1))
    data = bytearray(path.read_bytes())
    data[entry.offset + entry.size - 1] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match=rf"tensor '{name}' in .*data-00000-of-00001"):
        BundleReader(ckpt).read(name)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda e: setattr(e, "offset", 10_000), "past the end of the file"),
        (lambda e: setattr(e, "shard_id", 3), r"shard id 3 is out of range \[0, 1\)"),
        (lambda e: setattr(e, "shard_id", -1), "out of range"),
        (lambda e: setattr(e.shape.dim[0], "size", -3), "negative dimension"),
        (lambda e: setattr(e.shape.dim[0], "size", 2**62), "needs"),
        (lambda e: setattr(e, "size", 4), "needs 48"),
        (lambda e: setattr(e, "dtype", 77), "invalid dtype enum 77"),
        (lambda e: setattr(e, "dtype", 101), "invalid dtype"),
        (lambda e: setattr(e, "crc32c", e.crc32c ^ 1), "checksum mismatch"),
    ],
)
def test_corrupt_entries_raise_data_loss_naming_the_tensor(ckpt, mutate, message):
    rewrite_entry(ckpt, "w", mutate)
    with pytest.raises(DataLossError, match=message) as info:
        BundleReader(ckpt).read("w")
    assert "'w'" in str(info.value) and "model.ckpt" in str(info.value)


def test_corrupt_string_lengths(ckpt):
    rewrite_entry(ckpt, "names", lambda e: setattr(e.shape.dim[0], "size", 3))
    with pytest.raises(DataLossError, match="'names'"):
        BundleReader(ckpt).read("names")


def test_huge_shape_hits_the_allocation_limit(tmp_path):
    save_tensors(tmp_path / "c", {"big": np.zeros(1000, np.float64)})
    previous = limits.set_max_tensor_bytes(1000)
    try:
        with pytest.raises(ResourceExhaustedError, match="'big'"):
            BundleReader(tmp_path / "c").read("big")
    finally:
        limits.set_max_tensor_bytes(previous)


# --- merging ---------------------------------------------------------------------------


def test_merge_makes_one_sharded_checkpoint(tmp_path):
    parts = [str(tmp_path / "tmp" / f"part-{i}") for i in range(3)]
    for i, part in enumerate(parts):
        save_tensors(part, {f"v{i}": np.full(3, i, np.int64), f"s{i}": np.array(b"%d" % i, object)})
    merge_bundles(parts, tmp_path / "model.ckpt")
    reader = BundleReader(tmp_path / "model.ckpt")
    assert reader.num_shards == 3
    assert {reader.entry(f"v{i}").shard_id for i in range(3)} == {0, 1, 2}
    for i in range(3):
        assert_same(reader.read(f"v{i}"), np.full(3, i, np.int64))
        assert reader.read(f"s{i}") == b"%d" % i
    assert os.listdir(tmp_path / "tmp") == []  # data moved, indexes deleted


def test_merge_refuses_duplicates_and_missing(tmp_path):
    save_tensors(tmp_path / "a", {"x": np.zeros(1)})
    save_tensors(tmp_path / "b", {"x": np.ones(1)})
    with pytest.raises(InvalidArgumentError, match="'x'"):
        merge_bundles([str(tmp_path / "a"), str(tmp_path / "b")], tmp_path / "m")
    assert os.path.exists(data_filename(tmp_path / "a", 0, 1))  # nothing moved
    with pytest.raises(NotFoundError, match="missing"):
        merge_bundles([str(tmp_path / "a"), str(tmp_path / "missing")], tmp_path / "m")
    merge_bundles([str(tmp_path / "a"), str(tmp_path / "missing")], tmp_path / "m",
                  allow_missing_files=True)
    assert_same(load_tensors(tmp_path / "m")["x"], np.zeros(1))


# --- the state file --------------------------------------------------------------------


def test_read_tensorflow_state_file():
    state = read_state(FIXTURES / "tf")
    assert state.model_checkpoint_path == str(FIXTURES / "tf" / "model.ckpt")
    assert list(state.all_model_checkpoint_timestamps) == [1700000000.5]
    assert latest_checkpoint(FIXTURES / "tf") == str(FIXTURES / "tf" / "model.ckpt")
    assert read_state(FIXTURES / "tf", resolve=False).model_checkpoint_path == "model.ckpt"


def test_state_round_trip_relative_paths(tmp_path):
    state = checkpoint_pb2.CheckpointState(
        model_checkpoint_path=str(tmp_path / "m-2"),
        all_model_checkpoint_paths=[str(tmp_path / "m-1"), str(tmp_path / "m-2")],
    )
    write_state(tmp_path, state)
    assert 'model_checkpoint_path: "m-2"' in (tmp_path / "checkpoint").read_text()
    assert read_state(tmp_path) == state
    assert latest_checkpoint(tmp_path) is None  # named, but no index file
    assert read_state(tmp_path / "empty") is None


def test_corrupt_state_file(tmp_path):
    (tmp_path / "checkpoint").write_text("model_checkpoint_path: [oops")
    with pytest.raises(DataLossError, match="checkpoint"):
        read_state(tmp_path)


def test_record_checkpoint_retention(tmp_path):
    def save(step: int, **kwargs) -> list[str]:
        prefix = str(tmp_path / f"model.ckpt-{step}")
        save_tensors(prefix, {"step": np.int64(step)})
        return record_checkpoint(tmp_path, prefix, now=step * 3600.0, **kwargs)

    assert save(1, max_to_keep=2) == [] and save(2, max_to_keep=2) == []
    assert save(3, max_to_keep=2) == [str(tmp_path / "model.ckpt-1")]
    assert not checkpoint_files(tmp_path / "model.ckpt-1")
    assert save(4, max_to_keep=2, keep=[str(tmp_path / "model.ckpt-2")]) == []
    assert checkpoint_files(tmp_path / "model.ckpt-2")  # kept (e.g. best), but unlisted
    state = read_state(tmp_path)
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == [
        "model.ckpt-3", "model.ckpt-4"]
    assert load_tensors(latest_checkpoint(tmp_path))["step"] == 4


def test_record_checkpoint_keep_every_n_hours(tmp_path):
    deleted = []
    for step in range(1, 8):
        prefix = str(tmp_path / f"m-{step}")
        save_tensors(prefix, {"step": np.int64(step)})
        deleted += record_checkpoint(tmp_path, prefix, max_to_keep=1, keep_every_n_hours=3,
                                     now=step * 3600.0)
    # Preserved every 3 hours from the first save (t=1h): steps 4 and 7 stay on disk.
    assert [os.path.basename(p) for p in deleted] == ["m-1", "m-2", "m-3", "m-5", "m-6"]
    assert checkpoint_files(tmp_path / "m-4") and checkpoint_files(tmp_path / "m-7")


# --- TensorFlow reads what tfx writes (skips without TensorFlow) -----------------------

# TensorFlow runs in a child process: importing it here would load its own protobuf and
# gRPC libraries into the test process, which crashes later tests that run protoc.
_TF_READER = """
import sys, numpy as np, tensorflow as tf
out = {}
for prefix in sys.argv[2:]:
    reader = tf.train.load_checkpoint(prefix)
    for name in reader.get_variable_to_shape_map():
        value = reader.get_tensor(name)
        value = np.asarray(value, dtype=object if isinstance(value, bytes) else None)
        key = prefix + "|" + name
        out[key + "|dtype"] = np.array(str(value.dtype))
        out[key + "|shape"] = np.array(value.shape, dtype=np.int64)
        # npz keeps neither bfloat16 nor bytes objects exactly: store raw bytes.
        raw = b"".join(value.reshape(-1)) if value.dtype == object else value.tobytes()
        out[key] = np.frombuffer(raw, dtype=np.uint8)
        if value.dtype == object:
            out[key + "|lengths"] = np.array([len(v) for v in value.reshape(-1)], np.int64)
out["latest"] = np.array(tf.train.latest_checkpoint(sys.argv[1]) or "")
np.savez(sys.argv[1] + "/read_by_tf.npz", **out)
"""


@pytest.mark.tensorflow
def test_tensorflow_reads_tfx_checkpoints(tmp_path):
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("tensorflow is not installed")
    whole = str(tmp_path / "model.ckpt")
    save_tensors(whole, EXPECTED)
    record_checkpoint(tmp_path, whole)
    names = sorted(EXPECTED)
    parts = [str(tmp_path / "tmp" / f"part-{i}") for i in range(2)]
    for i, part in enumerate(parts):
        save_tensors(part, {n: EXPECTED[n] for n in names[i::2]})
    merged = str(tmp_path / "merged")
    merge_bundles(parts, merged)
    subprocess.run([sys.executable, "-c", _TF_READER, str(tmp_path), whole, merged],
                   check=True, capture_output=True, timeout=300)
    read = np.load(tmp_path / "read_by_tf.npz")
    assert str(read["latest"]) == whole
    for prefix in (whole, merged):
        assert {k.split("|")[1] for k in read.files if k.startswith(prefix + "|")} == set(names)
        for name, want in EXPECTED.items():
            key = f"{prefix}|{name}"
            assert tuple(read[key + "|shape"]) == want.shape, name
            if want.dtype == object:
                assert read[key].tobytes() == b"".join(want.reshape(-1)), name
                assert list(read[key + "|lengths"]) == [len(v) for v in want.reshape(-1)], name
            else:
                assert str(read[key + "|dtype"]) == str(want.dtype), name
                assert read[key].tobytes() == np.ascontiguousarray(want).tobytes(), name


def test_a_restore_op_with_a_splat_of_names_is_read_without_expanding_it() -> None:
    # tensor_names as a one-value splat of 2**28 names: reading name 0 must not copy them all.
    import tracemalloc

    from tfx.core.checkpoint import restore
    from tfx.core.graph import Graph
    from tfx.protos import graph_pb2

    graph_def = graph_pb2.GraphDef()
    for name, count in (("names", 1 << 28), ("slices", 1)):
        node = graph_def.node.add(name=name, op="Const")
        node.attr["dtype"].type = dtypes.string.enum
        tensor = node.attr["value"].tensor
        tensor.dtype = dtypes.string.enum
        tensor.tensor_shape.dim.add(size=count)
        tensor.string_val.append(b"w" if name == "names" else b"")
    prefix = graph_def.node.add(name="prefix", op="Const")
    prefix.attr["dtype"].type = dtypes.string.enum
    prefix.attr["value"].tensor.dtype = dtypes.string.enum
    prefix.attr["value"].tensor.string_val.append(b"model.ckpt")
    node = graph_def.node.add(name="restore", op="RestoreV2", input=["prefix", "names", "slices"])
    node.attr["dtypes"].list.type.append(dtypes.float32.enum)
    graph = Graph.from_graph_def(graph_def)
    tracemalloc.start()
    try:
        assert restore._restore_input(graph.node("restore"), 1, 0) == "w"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
