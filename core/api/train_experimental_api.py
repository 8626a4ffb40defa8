"""`tf.train.experimental`: Python state for checkpoints and checkpoint sharding policies.

As TensorFlow 2.21's (the loss-scale names of the namespace are tf.mixed_precision's):

* `PythonState`: the base of objects that keep Python state in a checkpoint through
  `serialize()` (bytes) and `deserialize(bytes)`; its tensor is the string constant of
  `serialize()` under the attribute name "py_state".
* `ShardableTensor`: a tensor as a sharding policy sees it (key, slice spec, dtype,
  device, shape), `ShardingCallback` the policy interface: `description` and
  `__call__(shardable_tensors)` -> shards, each {checkpoint key: {slice spec: tensor}}.
* `ShardByTaskPolicy`: one shard of everything (TensorFlow's groups nothing either).
* `MaxShardSizePolicy(max_shard_size)`: shards of at most that many bytes, filled in
  order; a tensor that does not fit is split along the axis that needs the fewest
  slices into `tf.slice`s with "full_shape offset,length:..." slice specs; a scalar or
  minimal slice larger than the limit gets a shard of its own (after the others, with
  a warning); the object graph and variants count 0 bytes, strings their longest
  element per element (0, with a warning, without a default session to measure them).

tfx's tf.train.Checkpoint tracks variables, iterators and Checkpoints and writes one
shard (its CheckpointOptions refuses sharding callbacks), so these are for code that
calls them itself.

Example:
    >>> policy = MaxShardSizePolicy(max_shard_size=1024)
    >>> shards = policy([ShardableTensor(None, t, t.dtype, None, "w", t.shape, "",
    ...                                  "w/.ATTRIBUTES/VARIABLE_VALUE", None)])
"""

from __future__ import annotations

import abc
import dataclasses
import inspect
import logging
import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.api.graph_builder import get_default_graph
from tfx.core.api.ops_api import apply_op, convert_to_tensor
from tfx.core.api.saver_api import SaveSliceInfo
from tfx.core.api.session_api import get_default_session

__all__ = ["MaxShardSizePolicy", "PythonState", "ShardByTaskPolicy", "ShardableTensor",
           "ShardingCallback"]

PYTHON_STATE = "py_state"
OBJECT_GRAPH_PROTO_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"

_log = logging.getLogger("tensorflow")

Shard = dict  # {checkpoint key: {slice spec: tensor}}


class PythonState(metaclass=abc.ABCMeta):
    """Python state saved in a checkpoint: subclasses define `serialize` and `deserialize`.

    Example:
        >>> class Counter(PythonState):
        ...     def __init__(self): self.n = 0
        ...     def serialize(self): return str(self.n).encode()
        ...     def deserialize(self, string_value): self.n = int(string_value)
    """

    @abc.abstractmethod
    def serialize(self) -> bytes:
        """The state as a string."""

    @abc.abstractmethod
    def deserialize(self, string_value: bytes) -> None:
        """Set the state from what `serialize` returned."""

    def _serialize_to_tensors(self) -> dict[str, Any]:
        """{"py_state": the string constant of `serialize()`}, as TensorFlow's."""
        graph = get_default_graph()
        with graph.control_dependencies(None):
            value = convert_to_tensor(self.serialize(), dtypes.string)
        return {PYTHON_STATE: value}


@dataclasses.dataclass
class ShardableTensor:
    """A tensor to be saved, as a sharding policy receives it."""

    _tensor_save_spec: Any
    tensor: Any
    dtype: Any
    device: Any
    name: str
    shape: Any
    slice_spec: str
    checkpoint_key: str
    trackable: Any

    def __hash__(self) -> int:
        return hash((self.name, self.dtype, str(self.device), self.checkpoint_key))

    def __repr__(self) -> str:
        return (f"\n{type(self).__name__}:\n"
                f"  _tensor_save_spec={self._tensor_save_spec!r}\n"
                f"  tensor={self.tensor!r}\n  dtype={self.dtype!r}\n"
                f"  device={self.device!r}\n  name={self.name!r}\n"
                f"  shape={self.shape!r}\n  slice_spec={self.slice_spec!r}\n"
                f"  checkpoint_key={self.checkpoint_key!r}\n  trackable={self.trackable!r}")


class ShardingCallback(abc.ABC):
    """How a checkpoint's tensors are split into shards (files)."""

    @property
    @abc.abstractmethod
    def description(self) -> str:
        """A text description of the policy."""

    @abc.abstractmethod
    def __call__(self, shardable_tensors: Sequence[ShardableTensor]) -> Sequence[Shard]:
        """The shards of `shardable_tensors`."""

    def __hash__(self) -> int:
        # as TensorFlow's: the description and the policy's plain attributes
        value = hash(self.description)
        for name, attr in vars(self).items():
            if not (inspect.ismethod(attr) or inspect.isfunction(attr)):
                value ^= hash(name)
                if isinstance(attr, Hashable):
                    value ^= hash(attr)
        return value


class ShardByTaskPolicy(ShardingCallback):
    """One shard of every tensor (TensorFlow's policy groups by task in name only)."""

    @property
    def description(self) -> str:
        return "Split tensors into shards based on their device spec task."

    def __call__(self, shardable_tensors: Sequence[ShardableTensor]) -> Sequence[Shard]:
        shard: Shard = {}
        for item in shardable_tensors:
            shard.setdefault(item.checkpoint_key, {})[item.slice_spec] = item.tensor
        return [shard]


def _dims(shape: Any) -> list[int] | None:
    if shape is None:
        return None
    if hasattr(shape, "as_list"):
        if getattr(shape, "dims", ()) is None:
            return None
        return [int(d) for d in shape.as_list()]
    return [int(d) for d in shape]


def _from_spec(spec: str) -> tuple[list[int], list[int], list[int]]:
    """(full shape, offset, shape) of a slice spec "4 6 2,2:0,6"."""
    parts = spec.split()
    extents = [e.split(",") for e in parts[-1].split(":")]
    return ([int(d) for d in parts[:-1]], [int(o) for o, _ in extents],
            [int(n) for _, n in extents])


def _dtype_size(dtype: Any) -> int:
    dtype = dtypes.as_dtype(dtype).base
    if dtype in (dtypes.string, dtypes.variant, dtypes.resource):
        return 0
    return np.dtype(dtype.np).itemsize


def _device_scope(device: Any) -> Any:
    return get_default_graph().device(device if device is not None else None)


class MaxShardSizePolicy(ShardingCallback):
    """Shards of at most `max_shard_size` bytes (see the module docstring).

    Args:
        max_shard_size: the largest shard, in bytes.
    """

    def __init__(self, max_shard_size: int) -> None:
        self.max_shard_size = max_shard_size

    @property
    def description(self) -> str:
        return "Split tensors into shards with a max shard size."

    def __call__(self, shardable_tensors: Sequence[ShardableTensor]) -> Sequence[Shard]:
        return _Partitioner(self.max_shard_size).partition(shardable_tensors)


class _Partitioner:
    """TensorFlow's MaxShardSizePartitioner: fill shards in order, splitting tensors."""

    def __init__(self, max_shard_size: int) -> None:
        self.max = max_shard_size
        self.shards: list[Shard] = [{}]
        self.large: list[Shard] = []
        self.remaining = max_shard_size

    def _next_partition(self, shape: list[int]) -> tuple[int, float]:
        """(axis, slice length) splitting the working slice in the fewest parts."""
        if not shape:
            return 0, math.inf
        count = math.prod(shape)

        def parts(axis: int) -> float:
            per_slice = count // shape[axis] * self.size
            slices = self.remaining // per_slice if per_slice else math.inf
            return math.inf if slices == 0 else math.ceil(shape[axis] / slices)

        best_axis, best = 0, parts(0)
        for axis in range(1, len(shape)):
            along = parts(axis)
            if along < best and count * self.size / along <= self.remaining:
                best_axis, best = axis, int(along)
        return best_axis, math.ceil(shape[best_axis] / best)

    def _slice(self, begin: list[int], size: list[int]) -> Any:
        with _device_scope(self.device):
            return apply_op("Slice", input=self.root, begin=[int(b) for b in begin],
                            size=[int(s) for s in size])

    def _spec(self, offset: list[int], shape: list[int]) -> str:
        return SaveSliceInfo(self.key, self.full_shape, offset, shape).spec.strip()

    def _add_partition(self, axis: int, length: int) -> None:
        relative = [o - r for o, r in zip(self.offset, self.root_offset)]
        shape = [r - o for r, o in zip(self.root_shape, relative)]
        shape[axis] = length
        nbytes = int(math.prod(shape)) * self.size
        piece = self._slice(relative, shape)
        spec = self._spec(self.offset, shape)
        if nbytes > self.max:
            _log.warning("Tensor %s's minimum slice %s has size %s bytes and cannot be "
                         "partitioned into a shard of max shard size %s bytes. It will be "
                         "added as an individual shard that exceeds the max shard size.",
                         self.key, spec, nbytes, self.max)
            self.large.append({self.key: {spec: piece}})
        elif nbytes > self.remaining:
            raise RuntimeError(f"Slice size ({nbytes} bytes) is larger than the remaining "
                               f"shard size ({self.remaining} bytes). This should have been "
                               "caught in MaxShardSizePolicy._add_partition().")
        else:
            self.shards[-1].setdefault(self.key, {})[spec] = piece
            self.remaining -= nbytes
            if self.remaining == 0:
                self.shards.append({})
                self.remaining = self.max
        self.offset[axis] += length
        relative[axis] += length
        self.shape = [r - o for r, o in zip(self.root_shape, relative)]

    def _string_sizes(self, item: ShardableTensor) -> tuple[int, int] | None:
        session = get_default_session()
        if session is None:
            return None
        value = np.asarray(session.run(self.root), dtype=object)
        sizes = [len(v) for v in value.ravel()] if value.ndim else [len(value.item())]
        return sum(sizes), max(sizes, default=0)

    def partition(self, shardable_tensors: Sequence[ShardableTensor]) -> list[Shard]:
        warned = False
        for item in shardable_tensors:
            self.key, self.device, self.root = item.checkpoint_key, item.device, item.tensor
            if item.slice_spec:
                self.full_shape, self.root_offset, self.root_shape = _from_spec(
                    item.slice_spec)
            else:
                self.full_shape = self.root_shape = _dims(item.shape)
                self.root_offset = [0] * len(self.root_shape or [])
            self.size = _dtype_size(item.dtype)
            dims = self.root_shape
            total = math.prod(dims) * self.size if dims is not None else 0
            dtype = dtypes.as_dtype(item.dtype).base
            if self.key == OBJECT_GRAPH_PROTO_KEY or dtype == dtypes.variant:
                total = self.size = 0
            elif dtype == dtypes.string:
                measured = self._string_sizes(item)
                if measured is None:
                    total = self.size = 0
                    if not warned:
                        _log.warning("The checkpoint sharding policy is being executed in a "
                                     "tf.function. The size of the string/variant constant "
                                     "cannot be obtained.")
                        warned = True
                else:
                    total, self.size = measured
            if not dims:
                if total > self.max:
                    _log.warning("Tensor %s is a %s scalar of size %s bytes and cannot be "
                                 "partitioned into a shard of max shard size %s bytes. It "
                                 "will be added as an individual shard that exceeds the max "
                                 "shard size.", self.key, dtype, total, self.max)
                    self.large.append({self.key: {item.slice_spec: self.root}})
                else:
                    if total > self.remaining:
                        self.shards.append({})
                        self.remaining = self.max
                    self.shards[-1].setdefault(self.key, {})[item.slice_spec] = self.root
                    self.remaining -= total
                continue
            self.offset = list(self.root_offset)
            self.shape = list(dims)
            working = total
            while working > self.remaining:
                axis, length = self._next_partition(self.shape)
                if length == 0 and self.remaining == self.max:
                    # not one slice fits an empty shard: TensorFlow loops here forever;
                    # tfx gives the thinnest slice a shard of its own (with the warning)
                    axis, length = 0, 1
                if length == 0:
                    self.shards.append({})
                    self.remaining = self.max
                else:
                    self._add_partition(axis, int(length))
                    working = int(math.prod(self.shape)) * self.size
            if math.prod(self.shape) > 0:
                # TensorFlow slices the rest even when it is the whole tensor
                relative = [o - r for o, r in zip(self.offset, self.root_offset)]
                piece = self._slice(relative, self.shape)
                spec = self._spec(self.offset, self.shape)
                self.shards[-1].setdefault(self.key, {})[spec] = piece
            self.remaining -= working
        out = list(self.shards) if self.shards[0] else []
        return out + self.large
