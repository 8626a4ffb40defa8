"""CPU kernels: SaveDataset and LoadDataset (`tf.data.Dataset.save` / `Dataset.load`), in
TensorFlow 2.21's files (core/data_snapshot.py has the record format).

SaveDataset writes one run of a snapshot directly under `path`, as TensorFlow's does:
`snapshot.metadata` (a SnapshotMetadataRecord: run_id, creation time, version 2, the
dtypes, unfinalized while writing; finalized with the element count at the end) and
`<run_id>/<shard>.shard/00000000.snapshot` per shard. Without `use_shard_func` every
element goes to shard 0 (TensorFlow 2.21's round robin restarts at each element); with
it, `shard_func(element)` names the shard, an int64 scalar read as an unsigned number.

The compression is the record writer's: "" (none), "GZIP", "ZLIB" or "SNAPPY" (Snappy
blocks). Any other name, "AUTO" included, writes and reads uncompressed after TensorFlow's
logged complaint, as TensorFlow's record writer and reader do.

LoadDataset reads the run the metadata names, or a distributed snapshot
(`tf.data.experimental.distributed_save`: a text-format DistributedSnapshotMetadata)
once it is complete. The shards (or chunks) become datasets of their elements, in name
order, `reader_func` turns the dataset of them into the elements, and each element is
checked against the node's output types and shapes, in TensorFlow's words. TensorFlow
stores a SparseTensor component as a variant of its three tensors; tfx's datasets carry
it as their three serialized TensorProtos (strings), so a variant record where a string
component is expected is read as one. (tfx does not write them: its SaveDataset cannot
tell such strings from a string tensor, so `Dataset.save` refuses sparse elements.)
"""

from __future__ import annotations

import logging
import os
import random
import re
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from google.protobuf import text_format

from tfx.core import data_snapshot as fmt
from tfx.core import dtypes, wire_format
from tfx.core.datasets import (
    Dataset,
    Element,
    Failure,
    IterationContext,
    check_element,
    dataset_from_tensor,
    variant,
)
from tfx.core.errors import DataLossError, InvalidArgumentError, NotFoundError
from tfx.core.fileio import os_error
from tfx.kernels.base import OpContext, register_kernel
from tfx.kernels.cpu.dataset_functions import _Function, _FunctionsDatasetKernel
from tfx.kernels.cpu.datasets import list_dataset, scalar
from tfx.protos import data_service_pb2, tensor_pb2

VERSION = 2
_KNOWN = {"": fmt.NONE, "GZIP": fmt.GZIP, "ZLIB": "ZLIB", "SNAPPY": fmt.SNAPPY}
_CHUNK = re.compile(r"chunk_(\d+)_(\d+)_(\d+)")
_POLL_SECONDS = 0.05
_TENSOR_VARIANT = b"tensorflow::Tensor"


def _component(record: bytes, want: dtypes.DType, where: str) -> np.ndarray:
    """One component of an element. A SparseTensor's is a variant in TensorFlow's files
    (its three tensors) and three serialized TensorProtos (strings) in tfx's datasets: a
    variant record where a string is wanted is such a component."""
    if want is dtypes.string:
        proto = tensor_pb2.TensorProto()
        try:
            proto.ParseFromString(record)
        except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError
            raise DataLossError(f"{where}: a record is no TensorProto ({exc})") from None
        if proto.dtype == dtypes.variant.as_datatype_enum:
            return _sparse_from_variant(proto, where)
    return fmt.tensor_from_record(record, where)


def _sparse_from_variant(proto: tensor_pb2.TensorProto, where: str) -> np.ndarray:
    """The serialized tensors of a variant tensor of tensors (TensorFlow's encoding: the
    elements' varint lengths, then each a VariantTensorData holding one tensor)."""
    shape = tuple(d.size for d in proto.tensor_shape.dim)
    count = int(np.prod(shape, dtype=np.int64))
    content = proto.tensor_content
    try:
        sizes, pos = [], 0
        for _ in range(count):
            size, pos = wire_format.read_varint(content, pos)
            sizes.append(size)
        out = np.empty(count, dtype=object)
        for i, size in enumerate(sizes):
            out[i] = _variant_tensor(content[pos:pos + size])
            pos += size
    except ValueError as exc:
        raise DataLossError(f"{where}: a sparse component's variant is corrupt ({exc})") \
            from None
    return out.reshape(shape)


def _variant_tensor(data: bytes) -> bytes:
    """The serialized TensorProto of a VariantTensorData holding one tensor."""
    tensor = None
    for number, wire, value in wire_format.fields(data):
        if wire != wire_format.LENGTH:
            continue  # protobuf keeps it among the unknown fields
        if number == 1 and value != _TENSOR_VARIANT:
            raise ValueError(f"a variant of type {value!r}, not a tensor")
        if number == 3:
            tensor = value
    if tensor is None:
        raise ValueError("a variant without its tensor")
    return tensor


def record_compression(name: str) -> str:
    """The stream compression a save/load `compression` attr names; an unknown name is
    logged and read or written uncompressed, as TensorFlow's record I/O does."""
    if name in _KNOWN:
        return _KNOWN[name]
    logging.getLogger("tfx").error("Unsupported compression_type:%s. No compression will be "
                                   "used.", name)
    return fmt.NONE


def _path(value: Any) -> str:
    name = scalar(value, "path", bytes)
    return name.decode("utf-8", "surrogateescape") if isinstance(name, bytes) else name


# --- saving -----------------------------------------------------------------------------


@register_kernel("SaveDataset", "CPU")
class SaveDataset(_FunctionsDatasetKernel):
    needs_context = True
    func_attrs = ("shard_func",)

    def compute(self, ctx: OpContext, input_dataset: Any, path: Any,
                *shard_args: Any) -> tuple:
        dataset = dataset_from_tensor(input_dataset, "input_dataset")
        root = _path(path)
        compression = record_compression(self.attrs.get("compression", ""))
        use_shard_func = self.attrs.get("use_shard_func", True)
        if use_shard_func:
            self.fns["shard_func"].check_signature(
                [*dataset.output_types, *self.attrs.get("Tshard_func_args", [])], None,
                self.where)
        shard_func = _Function(self.fns["shard_func"], shard_args, self.where)
        run_id = str(random.getrandbits(64))
        run_dir = os.path.join(root, run_id)
        metadata = fmt.Metadata(run_id=run_id, run_timestamp=time.time_ns() // 1000,
                                dtypes=[t.as_datatype_enum for t in dataset.output_types])
        try:
            os.makedirs(run_dir, exist_ok=True)
            fmt.write_metadata(root, metadata)
        except OSError as exc:
            raise os_error(exc, run_dir) from None
        writers: dict[int, fmt.ShardWriter] = {}
        count = 0
        try:
            for element in dataset.elements(IterationContext(ctx.step)):
                ctx.check_cancelled()
                if isinstance(element, Failure):
                    raise element.error
                count += 1
                shard = self._shard_of(ctx, shard_func, element) if use_shard_func else 0
                writer = writers.get(shard) or self._open(writers, run_dir, shard,
                                                          compression)
                for value, dtype in zip(element, dataset.output_types):
                    writer.write(fmt.tensor_record(np.asarray(value), dtype))
        finally:
            for writer in writers.values():
                writer.close()
        metadata.num_elements = count
        metadata.finalized = True
        metadata.run_timestamp = time.time_ns() // 1000
        fmt.write_metadata(root, metadata)
        return ()

    @staticmethod
    def _shard_of(ctx: OpContext, shard_func: _Function, element: Element) -> int:
        out = shard_func(ctx, element)
        if len(out) != 1 or np.asarray(out[0]).dtype != np.int64 or np.size(out[0]) != 1:
            raise InvalidArgumentError("`shard_func` must return a scalar int64.")
        return int(np.asarray(out[0]).reshape(-1)[0])

    @staticmethod
    def _open(writers: dict[int, fmt.ShardWriter], run_dir: str, shard: int,
              compression: str) -> fmt.ShardWriter:
        directory = fmt.shard_directory(run_dir, shard)
        try:
            os.makedirs(directory, exist_ok=True)
            writers[shard] = fmt.ShardWriter(os.path.join(directory, fmt.CHECKPOINT_FILE),
                                             compression)
        except OSError as exc:
            raise os_error(exc, directory) from None
        return writers[shard]


# --- loading ----------------------------------------------------------------------------


class _RecordFilesDataset(Dataset):
    """The elements in snapshot record files, read one file after another: a shard's
    checkpoint files (`00000000.snapshot`, `00000001.snapshot`, ...) or one chunk."""

    def __init__(self, files: Sequence[str], compression: str, types: Sequence,
                 shapes: Sequence) -> None:
        super().__init__(types, shapes)
        self._files = list(files)
        self._compression = compression

    def elements(self, ctx: IterationContext) -> Iterator[Element]:
        n = len(self.output_types)
        for path in self._files:
            element: Element = []
            for record in fmt.read_shard_records(path, self._compression):
                want = self.output_types[len(element)]
                element.append(_component(record, want, path))
                if len(element) == n:
                    yield element
                    element = []
            if element:
                raise DataLossError(f"{path}: the file ends inside an element of {n} "
                                    "components")


def _shard_files(directory: str) -> list[str]:
    """A shard's checkpoint files in order, up to the first one missing."""
    files = []
    while True:
        path = os.path.join(directory, f"{len(files):08d}.snapshot")
        if not os.path.exists(path):
            return files
        files.append(path)


def distributed_metadata(path: str) -> data_service_pb2.DistributedSnapshotMetadata | None:
    """The metadata of the distributed snapshot at `path`, or None when `path` holds none
    (no metadata file, or a binary one: a non-distributed snapshot's)."""
    try:
        with open(os.path.join(path, fmt.METADATA_FILE), "rb") as f:
            text = f.read().decode()
        return text_format.Parse(text, data_service_pb2.DistributedSnapshotMetadata())
    except (OSError, UnicodeDecodeError, text_format.ParseError):
        return None


class _LoadedDataset(Dataset):
    """The shards of a saved dataset (or the chunks of a distributed snapshot) through
    the reader function."""

    def __init__(self, shards: Any, reader: _Function, types: Sequence, shapes: Sequence,
                 cardinality: int, where: str) -> None:
        super().__init__(types, shapes)
        self._shards = shards  # () -> the list of shard datasets, listed when a pass starts
        self._reader = reader
        self._cardinality = cardinality
        self._where = where

    def cardinality(self) -> int:
        return self._cardinality

    def elements(self, ctx: IterationContext) -> Iterator[Element]:
        shards = [[variant(d)] for d in self._shards()]
        datasets = list_dataset(shards, [dtypes.variant], [()])
        out = self._reader(ctx, [variant(datasets)])
        if len(out) != 1:
            raise InvalidArgumentError("reader_func returns more than one argument.")
        result = dataset_from_tensor(out[0], f"{self._where}: reader_func's result")
        for element in result.elements(ctx):
            if not isinstance(element, Failure):
                check_element(element, self.output_types, self.output_shapes, self._where)
            yield element


@register_kernel("LoadDataset", "CPU")
class LoadDataset(_FunctionsDatasetKernel):
    func_attrs = ("reader_func",)

    def make(self, path: Any, *reader_args: Any) -> Dataset:
        root = _path(path)
        reader = _Function(self.fns["reader_func"], reader_args, self.where)
        types = self.types()
        shapes = list(self.attrs.get("output_shapes") or [])
        distributed = distributed_metadata(root)
        if distributed is not None:
            compression = record_compression(distributed.compression)

            def chunks() -> list[Dataset]:
                return [_RecordFilesDataset([f], compression, types, shapes)
                        for f in _complete_chunks(root)]

            return _LoadedDataset(chunks, reader, types, shapes, -2, self.where)
        try:
            metadata = fmt.read_metadata(root)
        except OSError as exc:
            raise os_error(exc, root) from None
        if metadata is None:
            raise NotFoundError(f"Could not find metadata file [{root}]")
        compression = record_compression(self.attrs.get("compression", ""))
        run_dir = os.path.join(root, metadata.run_id)

        def shards() -> list[Dataset]:
            try:
                names = sorted(n for n in os.listdir(run_dir) if n.endswith(fmt.SHARD_SUFFIX))
            except FileNotFoundError:
                names = []  # TensorFlow matches `<run>/*.shard`: nothing there, no shards
            except OSError as exc:
                raise os_error(exc, run_dir) from None
            return [_RecordFilesDataset(_shard_files(os.path.join(run_dir, n)), compression,
                                        types, shapes) for n in names]

        return _LoadedDataset(shards, reader, types, shapes, metadata.num_elements,
                              self.where)


def _complete_chunks(root: str) -> list[str]:
    """The chunk files of a distributed snapshot in (stream, chunk) order, once its writers
    are done (DONE); a failed save (ERROR) fails the load with its message."""
    while True:
        error = os.path.join(root, "ERROR")
        if os.path.exists(error):
            with open(error, encoding="utf-8", errors="replace") as f:
                raise InvalidArgumentError(f"Failed to load tf.data snapshot at {root}. The "
                                           f"save job failed to write it. Status: {f.read()}")
        if os.path.exists(os.path.join(root, "DONE")):
            break
        time.sleep(_POLL_SECONDS)
    directory = os.path.join(root, "chunks")
    found = []
    for name in os.listdir(directory):
        match = _CHUNK.fullmatch(name)
        if match:
            found.append((int(match[1]), int(match[2]), os.path.join(directory, name)))
    return [path for _, _, path in sorted(found)]
