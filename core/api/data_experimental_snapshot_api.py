"""`tf.data.experimental.snapshot` and `Dataset.snapshot`: a dataset written to files by
its first complete pass and read back from them by later ones (this run's or another
program's), built as TensorFlow 2.21 builds it.

Without a `shard_func` the input is enumerated, element `i` goes to shard `i % CPUs`
and the index is mapped away after the snapshot; without a `reader_func` the shards are
interleaved back, `CPUs` at a time, so the elements return in their order. The node is a
SnapshotDatasetV2 whose files are TensorFlow's (core/data_snapshot.py, the kernel in
kernels/cpu/dataset_snapshot.py): `compression` "AUTO" (Snappy), "GZIP", "SNAPPY" or None.

The snapshot's directory under `path` is named by a fingerprint of the input pipeline
and the compression, so a changed pipeline writes a new snapshot. TensorFlow's kernel
fingerprints the input's graph itself; a tfx kernel does not see the graph, so the
fingerprint is computed here, when the graph is built, and set on the node (`hash`,
`hash_valid`). It covers the ops, their attrs and inputs and the functions they call,
not node or function names, so rebuilding the same pipeline finds the same snapshot.
The two fingerprints differ: TensorFlow and tfx read each other's snapshot files, but
each looks for its own under `path`.

    dataset = tf.data.Dataset.range(5).map(expensive).apply(
        tf.data.experimental.snapshot("/tmp/snapshots"))
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Any

from tfx.core import dtypes
from tfx.core.api.data_api import (
    AUTOTUNE,
    DatasetV1,
    DatasetV2,
    _signature,
    _TracedElementFunction,
)
from tfx.core.api.data_experimental_api import Transformation
from tfx.core.api.data_structure import DatasetSpec
from tfx.core.api.graph_builder import Operation, Tensor
from tfx.core.api.ops_api import apply_op, convert_to_tensor
from tfx.core.api.type_spec_api import TensorSpec
from tfx.protos import graph_pb2

__all__ = ["snapshot"]


def snapshot(path: Any, compression: str | None = "AUTO",
             reader_func: Callable[..., Any] | None = None,
             shard_func: Callable[..., Any] | None = None) -> Transformation:
    """The input written to `path` by its first complete pass, read back afterwards
    (for `Dataset.apply`).

    Args:
        path: the directory holding the snapshots.
        compression: "AUTO" (Snappy), "GZIP", "SNAPPY" or None.
        reader_func: maps the dataset of shard datasets to the dataset read back.
        shard_func: maps an element to its shard, an int64 scalar.

    Returns:
        A function from a dataset to the snapshot dataset.
    """
    def apply(dataset: DatasetV2) -> DatasetV1:
        return snapshot_dataset(dataset, path, compression, reader_func, shard_func)

    return apply


def snapshot_dataset(dataset: DatasetV2, path: Any, compression: str | None = "AUTO",
                     reader_func: Callable[..., Any] | None = None,
                     shard_func: Callable[..., Any] | None = None,
                     name: str | None = None) -> DatasetV1:
    """`dataset.snapshot(...)`: see `snapshot`."""
    cpus = os.cpu_count() or 1  # TensorFlow's multiprocessing.cpu_count()
    source = dataset
    if shard_func is None:
        source = dataset.enumerate(name=name)

        def shard_func(index: Tensor, _: Any) -> Tensor:
            return index % cpus

    if reader_func is None:
        def reader_func(datasets: DatasetV2) -> DatasetV2:
            return datasets.interleave(lambda shard: shard, cycle_length=cpus,
                                       num_parallel_calls=AUTOTUNE)

    spec = source.element_spec
    reader = _TracedElementFunction(reader_func, [DatasetSpec(DatasetSpec(spec))],
                                    "Dataset_snapshot_reader_func")
    shard = _TracedElementFunction(shard_func, [spec], "Dataset_snapshot_shard_func")
    out = shard.output_spec
    if not any(isinstance(out, TensorSpec) and out.is_compatible_with(TensorSpec([], t))
               for t in (dtypes.int32, dtypes.int64)):
        raise TypeError(f"Invalid `shard_func`. `shard_func` must return `tf.int64` scalar "
                        f"tensor but its return type is {out}.")
    variant = source._variant_tensor
    fingerprint = _fingerprint(variant, compression or "")
    snapshotted = apply_op(
        "SnapshotDatasetV2", input_dataset=variant,
        path=convert_to_tensor(path, dtypes.string, name="path"),
        reader_func_other_args=reader.captured, shard_func_other_args=shard.captured,
        compression=compression or "", reader_func=reader.attr, shard_func=shard.attr,
        hash_valid=True, hash=fingerprint - (1 << 64) if fingerprint >= 1 << 63 else fingerprint,
        **_signature(spec), name=name)
    result = DatasetV1(snapshotted, spec)
    if source is not dataset:
        result = result.map(lambda _, element: element, name=name)
    return result


def _fingerprint(tensor: Tensor, compression: str) -> int:
    """A 64-bit fingerprint of the ops computing `tensor` (types, attrs, inputs and the
    functions they call, not names) and of the compression."""
    graph = tensor.graph
    library = {f.signature.name: f for f in graph.as_graph_def().library.function}
    memo: dict[Any, bytes] = {}

    def digest(data: bytes) -> bytes:
        return hashlib.sha256(data).digest()

    def function(name: str) -> bytes:
        key = ("function", name)
        if key not in memo:
            memo[key] = b""  # a recursive call refers to itself as nothing more
            fdef = graph_pb2.FunctionDef()
            if name in library:
                fdef.CopyFrom(library[name])
            fdef.signature.name = ""
            for node in fdef.node_def:
                for value in node.attr.values():
                    canonical_attr(value)
            memo[key] = digest(fdef.SerializeToString(deterministic=True))
        return memo[key]

    def canonical_attr(value: graph_pb2.AttrValue) -> None:
        if value.HasField("func"):
            value.func.name = function(value.func.name).hex()
        for func in value.list.func:
            func.name = function(func.name).hex()

    def op_digest(op: Operation) -> bytes:
        if op not in memo:
            parts = [op.type.encode()]
            node = op.node_def
            for key in sorted(node.attr):
                if key.startswith("_") or key == "metadata":
                    continue  # placement hints and the dataset's debug name
                value = graph_pb2.AttrValue()
                value.CopyFrom(node.attr[key])
                canonical_attr(value)
                parts.append(key.encode() + value.SerializeToString(deterministic=True))
            for t in op.inputs:
                parts.append(op_digest(t.op) + str(t.value_index).encode())
            parts.extend(b"^" + op_digest(c) for c in op.control_inputs)
            memo[op] = digest(b"\0".join(parts))
        return memo[op]

    whole = digest(op_digest(tensor.op) + str(tensor.value_index).encode() + b"\0"
                   + compression.encode())
    return int.from_bytes(whole[:8], "little")
