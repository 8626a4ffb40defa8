"""CPU kernel: SnapshotDatasetV2 (`tf.data.Dataset.snapshot`), in TensorFlow's files.

A pass decides what to do from `<path>/<hash>/snapshot.metadata` (core/data_snapshot.py
has the file format), as TensorFlow's snapshot does:

* finalized metadata: read. The shards of the run it names (`<run_id>/*.shard`, in
  name order) become datasets of their elements, `reader_func` is called on the dataset
  of those datasets, and its result's elements are the pass's (TensorFlow's default
  reader interleaves the shards, so an enumerated input comes back in order). The
  metadata's dtypes must be the dataset's.
* no metadata, or a writer's unfinalized one (a pass still running or dropped before
  the end): write a new run. The metadata goes there unfinalized, each element of the
  input goes to the shard `shard_func(element)` names (an unsigned 64-bit number; an
  int64 scalar, else TensorFlow's InvalidArgumentError) and is passed on, and the
  metadata is finalized when the input ends. A pass dropped before the end leaves its
  run unfinalized, so the next pass writes again, as in TensorFlow.

An element the input failed to make is passed on and not written. The hash is computed
when the graph is built (`hash_valid`); a kernel does not see the graph TensorFlow
fingerprints, so a node without a valid hash is refused.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tfx.core import data_snapshot as fmt
from tfx.core import dtypes
from tfx.core.datasets import (
    Dataset,
    Element,
    Failure,
    IterationContext,
    dataset_from_tensor,
    variant,
)
from tfx.core.errors import InvalidArgumentError, UnimplementedError
from tfx.core.fileio import os_error
from tfx.kernels.base import register_kernel
from tfx.kernels.cpu.dataset_functions import _Function, _FunctionsDatasetKernel
from tfx.kernels.cpu.datasets import _Wrapper, list_dataset, scalar


class _ShardDataset(Dataset):
    """The elements of one shard of a finished snapshot run."""

    def __init__(self, directory: str, compression: str, types: Sequence,
                 shapes: Sequence) -> None:
        super().__init__(types, shapes)
        self._directory = directory
        self._compression = compression

    def elements(self, ctx: IterationContext) -> Iterator[Element]:
        n = len(self.output_types)
        for name in sorted(os.listdir(self._directory)):
            path = os.path.join(self._directory, name)
            element: Element = []
            for record in fmt.read_shard_records(path, self._compression):
                element.append(fmt.tensor_from_record(record, path))
                if len(element) == n:
                    yield element
                    element = []


class _SnapshotDataset(_Wrapper):
    def __init__(self, input_dataset: Dataset, hash_dir: str, compression: str,
                 reader: _Function, shard: _Function, where: str,
                 shapes: Sequence) -> None:
        super().__init__(input_dataset)
        self._hash_dir = hash_dir
        self._compression = compression
        self._reader = reader
        self._shard = shard
        self._where = where
        self._shapes = list(shapes)

    def cardinality(self) -> int:
        return self.input.cardinality()

    def elements(self, ctx: IterationContext) -> Iterator[Element]:
        metadata = fmt.read_metadata(self._hash_dir)
        if metadata is not None and metadata.finalized:
            return self._read(ctx, metadata)
        return self._write(ctx)

    def _read(self, ctx: IterationContext, metadata: fmt.Metadata) -> Iterator[Element]:
        want = [t.as_datatype_enum for t in self.output_types]
        if metadata.dtypes != want:
            raise InvalidArgumentError(
                f"{self._where}: the snapshot in {self._hash_dir!r} holds elements of types "
                f"{[dtypes.as_dtype(t).name for t in metadata.dtypes]}, the dataset's are "
                f"{[t.name for t in self.output_types]}")
        run_dir = os.path.join(self._hash_dir, metadata.run_id)
        try:
            names = sorted(n for n in os.listdir(run_dir) if n.endswith(fmt.SHARD_SUFFIX))
        except OSError as exc:
            raise os_error(exc, run_dir) from None
        shards = [[variant(_ShardDataset(os.path.join(run_dir, n), self._compression,
                                         self.output_types, self._shapes))]
                  for n in names]
        datasets = list_dataset(shards, [dtypes.variant], [()])
        out = self._reader(ctx, [variant(datasets)])
        if len(out) != 1:
            raise InvalidArgumentError(f"{self._where}: reader_func must return a dataset")
        result = dataset_from_tensor(out[0], f"{self._where}: reader_func's result")
        if result.output_types != self.output_types:
            raise InvalidArgumentError(
                f"{self._where}: reader_func returned a dataset of types "
                f"{[t.name for t in result.output_types]}, expected "
                f"{[t.name for t in self.output_types]}")
        yield from result.elements(ctx)

    def _write(self, ctx: IterationContext) -> Iterator[Element]:
        run_id = str(random.getrandbits(64))
        run_dir = os.path.join(self._hash_dir, run_id)
        metadata = fmt.Metadata(
            graph_hash=os.path.basename(self._hash_dir), run_id=run_id,
            run_timestamp=time.time_ns() // 1000,
            dtypes=[t.as_datatype_enum for t in self.output_types])
        try:
            os.makedirs(run_dir, exist_ok=True)
            fmt.write_metadata(self._hash_dir, metadata)
        except OSError as exc:
            raise os_error(exc, run_dir) from None
        writers: dict[int, fmt.ShardWriter] = {}
        try:
            for element in self.input.elements(ctx):
                if not isinstance(element, Failure):
                    self._writer(writers, run_dir, self._shard_of(ctx, element)).write_all(
                        element, self.output_types)
                yield element
        finally:
            for writer in writers.values():
                writer.close()
        metadata.finalized = True
        fmt.write_metadata(self._hash_dir, metadata)

    def _shard_of(self, ctx: IterationContext, element: Element) -> int:
        out = self._shard(ctx, element)
        if len(out) != 1 or np.asarray(out[0]).dtype != np.int64 or np.ndim(out[0]) != 0:
            raise InvalidArgumentError("`shard_func` must return a scalar int64.")
        return int(out[0])

    def _writer(self, writers: dict[int, _ElementWriter], run_dir: str,
                shard: int) -> _ElementWriter:
        if shard not in writers:
            directory = fmt.shard_directory(run_dir, shard)
            try:
                os.makedirs(directory, exist_ok=True)
                writers[shard] = _ElementWriter(os.path.join(directory, fmt.CHECKPOINT_FILE),
                                                self._compression)
            except OSError as exc:
                raise os_error(exc, directory) from None
        return writers[shard]


class _ElementWriter(fmt.ShardWriter):
    def write_all(self, element: Element, types: Sequence[dtypes.DType]) -> None:
        for value, dtype in zip(element, types):
            self.write(fmt.tensor_record(np.asarray(value), dtype))


@register_kernel("SnapshotDatasetV2", "CPU")
class SnapshotDatasetV2(_FunctionsDatasetKernel):
    func_attrs = ("reader_func", "shard_func")

    def make(self, input_dataset: Any, path: Any, *other_args: Any) -> Dataset:
        dataset = dataset_from_tensor(input_dataset)
        if not self.attrs.get("hash_valid", False):
            raise UnimplementedError(
                f"{self.where}: a snapshot needs the fingerprint of its input graph "
                "(hash_valid), which tfx computes when tf.data's snapshot() builds the node")
        name = scalar(path, "path", bytes)
        root = name.decode("utf-8", "surrogateescape") if isinstance(name, bytes) else name
        compression = fmt.compression_of(self.attrs.get("compression", ""))
        if compression is None:
            logging.getLogger("tfx").error(  # TensorFlow's record writer says so and goes on
                "Unsupported compression_type:%s. No compression will be used.",
                self.attrs["compression"])
            compression = fmt.NONE
        count = len(self.attrs.get("Treader_func_args", []))
        reader = _Function(self.fns["reader_func"], other_args[:count], self.where)
        shard = _Function(self.fns["shard_func"], other_args[count:], self.where)
        self.fns["shard_func"].check_signature(
            [*dataset.output_types, *self.attrs.get("Tshard_func_args", [])], None, self.where)
        hash_dir = os.path.join(root, str(int(self.attrs["hash"]) % (1 << 64)))
        return _SnapshotDataset(dataset, hash_dir, compression, reader, shard, self.where,
                                self.attrs.get("output_shapes") or [])
