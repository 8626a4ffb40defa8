"""Partitioned tensors in checkpoints: BundleWriter.add_slice, reading slices, merging.

TensorFlow's bytes come from the committed fixtures `tf_sliced` and `tf_sliced_merged`
(see tests/data/checkpoints/make_tf_saver_fixtures.py), so no test needs TensorFlow.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from tfx.core.checkpoint import (
    BundleReader,
    BundleWriter,
    data_filename,
    index_filename,
    load_tensors,
    merge_bundles,
    parse_slice_spec,
    save_tensors,
)
from tfx.core.checkpoint import bundle as bundle_module
from tfx.core.errors import (
    DataLossError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "checkpoints"
P = np.arange(20, dtype=np.float32).reshape(10, 2)
S = np.array([b"x", b"yy", b"zzz"], dtype=object)


def files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def write_parts(folder: Path) -> list[str]:
    """The two bundles TensorFlow merged into the `tf_sliced_merged` fixture."""
    parts = [str(folder / "model.ckpt_temp" / f"part-{i:05d}-of-00002") for i in (0, 1)]
    with BundleWriter(parts[0]) as writer:
        writer.add_slice("p", [10, 2], [(0, 4), (0, -1)], P[:4])
        writer.add_slice("s", [3], [(2, 1)], S[2:])
        writer.add("w", np.array([7, 8], np.int32))
    with BundleWriter(parts[1]) as writer:
        writer.add_slice("p", [10, 2], [(4, 6), (0, -1)], P[4:])
        writer.add_slice("s", [3], [(0, 2)], S[:2])
    return parts


# --- specs -----------------------------------------------------------------------------


def test_parse_slice_spec():
    assert parse_slice_spec("10 2 0,4:-") == ((10, 2), ((0, 4), (0, -1)))
    assert parse_slice_spec(" 3 2,1 ") == ((3,), ((2, 1),))
    for spec, message in [
        ("10 2 8,4:-", "slice 8,4:- is outside shape \\[10, 2\\]"),
        ("10 2 0,4", "slice 0,4 has 1 extents for shape \\[10, 2\\]"),
        ("10 2 -1,2:-", "outside shape"),
        ("10 0,-1", "invalid shape_and_slice spec"),
        ("0,1", "invalid shape_and_slice spec"),
        ("a 0,1", "invalid shape_and_slice spec"),
    ]:
        with pytest.raises(InvalidArgumentError, match=message):
            parse_slice_spec(spec)


# --- writing slices --------------------------------------------------------------------


def test_add_slice_round_trip_and_partial_reads(tmp_path):
    write_parts(tmp_path)
    prefix = str(tmp_path / "model.ckpt_temp" / "part-00000-of-00002")
    with BundleReader(prefix) as reader:
        assert reader.names() == ["p", "s", "w"]
        assert reader.shape("p") == (10, 2) and not reader.entry("p").size
        # rows 0-3 are in this part: they read; row 4 is not.
        assert reader.read_slice("p", "10 2 1,2:1,1").tolist() == [[3.0], [5.0]]
        assert reader.read_slice("s", "3 2,1").tolist() == [b"zzz"]
        with pytest.raises(DataLossError, match="'p'.*do not cover the slice restored"):
            reader.read_slice("p", "10 2 3,2:-")
        with pytest.raises(DataLossError, match="'p'.*do not cover the whole tensor"):
            reader.read("p")


def test_a_slice_covering_the_tensor_is_saved_whole(tmp_path):
    with BundleWriter(tmp_path / "c") as writer:
        writer.add_slice("p", [10, 2], [(0, 10), (0, -1)], P)
    with BundleReader(tmp_path / "c") as reader:
        assert not reader.entry("p").slices and list(reader.entries()) == [b"p"]
        assert np.array_equal(reader.read("p"), P)


def test_read_slice_spanning_stored_slices(tmp_path):
    with BundleWriter(tmp_path / "c") as writer:
        for start in (0, 3, 6):
            writer.add_slice(
                "p",
                [10, 2],
                [(start, 3 if start < 6 else 4), (0, -1)],
                P[start : start + (3 if start < 6 else 4)],
            )
    with BundleReader(tmp_path / "c") as reader:
        assert reader.read_slice("p", "10 2 2,5:1,1").tolist() == [
            [5.0],
            [7.0],
            [9.0],
            [11.0],
            [13.0],
        ]
        assert np.array_equal(reader.read("p"), P)
        with pytest.raises(InvalidArgumentError, match="'p'.*shape \\[10, 3\\].*\\[10, 2\\]"):
            reader.read_slice("p", "10 3 0,2:-")
        with pytest.raises(InvalidArgumentError, match="'p'.*outside shape"):
            reader.read_slice("p", "10 2 8,4:-")


def test_read_a_slice_of_a_tensor_too_big_to_assemble():
    with BundleReader(FIXTURES / "tf_sliced" / "model.ckpt") as reader:
        last = f"{2**40 + 1} 1 {2**40},1:-"
        assert reader.read_slice("huge", last).tolist() == [[1.0]]
        assert reader.read_slice("str", "2 2 1,1:0,1").tolist() == [[b"ccc"]]


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        (
            ("p", [10, 2], [(0, 4), (0, -1)], P[:4]),
            ("p", [10, 2], [(3, 2), (0, -1)], P[3:5]),
            "'p': slice 3,2:- overlaps slice 0,4:-, saved already",
        ),
        (
            ("p", [10, 2], [(0, 4), (0, -1)], P[:4]),
            ("p", [10, 2], [(0, 4), (0, -1)], P[:4]),
            "'p': slice 0,4:- overlaps slice 0,4:-",
        ),
        (
            ("p", [10, 2], [(0, 4), (0, -1)], P[:4]),
            ("p", [10, 2], [(8, 4), (0, -1)], P[:4]),
            "'p': slice 8,4:- is outside shape \\[10, 2\\]",
        ),
        (
            ("p", [10, 2], [(0, 4), (0, -1)], P[:4]),
            ("p", [10, 2], [(4, 6), (0, -1)], P[:4]),
            "'p': slice 4,6:- of shape \\[10, 2\\] has shape \\[6, 2\\], but the value saved for "
            "it has shape \\[4, 2\\]",
        ),
        (
            ("p", [10, 2], [(0, 4), (0, -1)], P[:4]),
            ("p", [10, 2], [(4, 6), (0, -1)], P[4:].astype(np.float64)),
            "'p': its slices have different dtypes \\(float32 and float64\\)",
        ),
        (
            ("p", [10, 2], [(0, 4), (0, -1)], P[:4]),
            ("p", [11, 2], [(4, 6), (0, -1)], P[4:]),
            "'p': its slices give different full shapes \\(\\[10, 2\\] and \\[11, 2\\]\\)",
        ),
        (
            ("p", None, None, P),
            ("p", [10, 2], [(4, 6), (0, -1)], P[4:]),
            "'p': slice 4,6:- overlaps the whole tensor",
        ),
        (
            ("p", [10, 2], [(0, 4), (0, -1)], P[:4]),
            ("p", None, None, P),
            "'p' is added whole.*already saved in slices",
        ),
    ],
)
def test_bad_slices_give_one_clear_error(tmp_path, first, second, message):
    prefix = tmp_path / "c"
    with pytest.raises(InvalidArgumentError, match=message), BundleWriter(prefix) as writer:
        for name, shape, extents, value in (first, second):
            if shape is None:
                writer.add(name, value)
            else:
                writer.add_slice(name, shape, extents, value)
    assert os.listdir(tmp_path) == []  # the writer aborted: no partial checkpoint


def test_empty_slices_share_no_element(tmp_path):
    with BundleWriter(tmp_path / "c") as writer:
        writer.add_slice("p", [10, 2], [(0, 0), (0, -1)], P[:0])
        writer.add_slice("p", [10, 2], [(0, 10), (0, 1)], P[:, :1])
        writer.add_slice("p", [10, 2], [(0, 10), (1, 1)], P[:, 1:])
    assert np.array_equal(load_tensors(tmp_path / "c")["p"], P)


# --- merging ---------------------------------------------------------------------------


def test_merged_slices_are_tensorflows_bytes(tmp_path):
    parts = write_parts(tmp_path)
    merge_bundles(parts, tmp_path / "model.ckpt")
    fixture = FIXTURES / "tf_sliced_merged"
    assert files(tmp_path) == files(fixture)  # the inputs moved or deleted
    for name in files(fixture):
        assert (tmp_path / name).read_bytes() == (fixture / name).read_bytes(), name
    with BundleReader(tmp_path / "model.ckpt") as reader:
        assert len(reader.entry("p").slices) == 2 and len(reader.entry("s").slices) == 2
        assert np.array_equal(reader.read("p"), P)
        assert reader.read("s").tolist() == [b"x", b"yy", b"zzz"]
        assert reader.read_slice("p", "10 2 3,2:1,1").tolist() == [[7.0], [9.0]]


def test_tensorflows_merged_slices_read_back():
    tensors = load_tensors(FIXTURES / "tf_sliced_merged" / "model.ckpt")
    assert np.array_equal(tensors["p"], P)
    assert tensors["s"].tolist() == [b"x", b"yy", b"zzz"]
    assert tensors["w"].tolist() == [7, 8]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in files(folder)}


def failed_merge(tmp_path: Path, parts: list[str], error: type, message: str) -> None:
    """The merge fails naming the problem and leaves every file as it was."""
    before = snapshot(tmp_path)
    with pytest.raises(error, match=message):
        merge_bundles(parts, tmp_path / "merged")
    assert snapshot(tmp_path) == before


def test_merge_refuses_a_tensor_in_two_inputs(tmp_path):
    save_tensors(tmp_path / "a", {"x": np.zeros(1), "y": np.ones(1)})
    save_tensors(tmp_path / "b", {"x": np.ones(1)})
    failed_merge(
        tmp_path,
        [str(tmp_path / "a"), str(tmp_path / "b")],
        InvalidArgumentError,
        "tensor 'x' is in more than one checkpoint to merge \\(.*/a' and .*/b'\\)",
    )


def test_merge_refuses_a_whole_tensor_and_slices_of_it(tmp_path):
    parts = write_parts(tmp_path)
    save_tensors(tmp_path / "c", {"p": P})
    failed_merge(
        tmp_path,
        [parts[0], str(tmp_path / "c")],
        InvalidArgumentError,
        "tensor 'p' is in more than one checkpoint",
    )


@pytest.mark.parametrize(
    ("extents", "value", "message"),
    [
        ([(2, 4), (0, -1)], P[2:6], "'p': slice 2,4:- in .*overlaps slice 0,4:- from .*part-0"),
        ([(0, 4), (0, -1)], P[:4], "'p': slice 0,4:- in .*overlaps slice 0,4:-"),
        ([(4, 6), (0, -1)], P[4:].astype(np.float16), "'p'.*different dtypes"),
    ],
)
def test_merge_refuses_conflicting_slices(tmp_path, extents, value, message):
    parts = write_parts(tmp_path)
    other = str(tmp_path / "other")
    with BundleWriter(other) as writer:
        writer.add_slice("p", [10, 2], extents, value)
    failed_merge(tmp_path, [parts[0], other], InvalidArgumentError, message)


def test_merge_refuses_slices_of_another_full_shape(tmp_path):
    parts = write_parts(tmp_path)
    other = str(tmp_path / "other")
    with BundleWriter(other) as writer:
        writer.add_slice("p", [12, 2], [(4, 8), (0, -1)], np.zeros((8, 2), np.float32))
    failed_merge(
        tmp_path,
        [parts[0], other],
        InvalidArgumentError,
        "'p'.*different full shapes \\(\\[10, 2\\] and \\[12, 2\\]\\)",
    )


def test_merge_refuses_missing_and_corrupt_inputs(tmp_path):
    parts = write_parts(tmp_path)
    failed_merge(tmp_path, [parts[0], str(tmp_path / "missing")], NotFoundError, "missing.index")
    data = Path(data_filename(parts[1], 0, 1))
    data.rename(tmp_path / "aside")
    failed_merge(tmp_path, parts, NotFoundError, "data file .*part-00001-of-00002.* is missing")
    (tmp_path / "aside").rename(data)
    data.write_bytes(data.read_bytes()[:-1])
    failed_merge(tmp_path, parts, DataLossError, "part-00001.*reaches past the end")
    index = Path(index_filename(parts[0]))
    index.write_bytes(index.read_bytes()[:-10])
    failed_merge(tmp_path, parts, DataLossError, "part-00000-of-00002.index")


def test_merge_puts_everything_back_when_a_rename_fails(tmp_path, monkeypatch):
    parts = write_parts(tmp_path)
    # A checkpoint to replace, with as many shards: the merge renames over its files.
    old = [str(tmp_path / "old" / name) for name in ("a", "b")]
    save_tensors(old[0], {"old": np.arange(3)})
    save_tensors(old[1], {"older": np.arange(2)})
    merge_bundles(old, tmp_path / "merged")
    os.rmdir(tmp_path / "old")
    real, calls = os.replace, []

    def flaky(src, dst):
        calls.append(src)
        if str(src).endswith("part-00001-of-00002.data-00000-of-00001"):
            raise PermissionError(13, "Permission denied", src)
        real(src, dst)

    monkeypatch.setattr(bundle_module.os, "replace", flaky)
    failed_merge(
        tmp_path,
        parts,
        FailedPreconditionError,
        "merging checkpoints into .*merged.*Permission denied",
    )
    monkeypatch.setattr(bundle_module.os, "replace", real)
    assert any(str(c).endswith("part-00000-of-00002.data-00000-of-00001") for c in calls)
    assert load_tensors(tmp_path / "merged")["old"].tolist() == [0, 1, 2]
    merge_bundles(parts, tmp_path / "merged")
    assert np.array_equal(load_tensors(tmp_path / "merged")["p"], P)
    assert files(tmp_path) == [
        "merged.data-00000-of-00002",
        "merged.data-00001-of-00002",
        "merged.index",
    ]


def test_merge_skips_missing_inputs_when_allowed(tmp_path):
    parts = write_parts(tmp_path)
    merge_bundles([parts[0], str(tmp_path / "gone")], tmp_path / "m", allow_missing_files=True)
    with BundleReader(tmp_path / "m") as reader:
        assert reader.num_shards == 1 and reader.read("w").tolist() == [7, 8]
        assert reader.read_slice("p", "10 2 0,4:-").tolist() == P[:4].tolist()
    with pytest.raises(NotFoundError, match="none of the checkpoints to merge exists"):
        merge_bundles([str(tmp_path / "gone")], tmp_path / "n", allow_missing_files=True)
