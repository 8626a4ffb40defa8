"""Input for the replicas: a dataset's batches split across them, as TensorFlow splits them.

`strategy.experimental_distribute_dataset(dataset)` (and `make_dataset_iterator`)
takes the *global* batches of `dataset` and gives each replica a part of each: with
`b` rows in a batch and `n` replicas, replica i gets rows [i*k, (i+1)*k) clipped to
`b`, where k = ceil(b / n), computed for every batch at run time. So a batch of 5
over 2 replicas is 3 + 2, a final partial batch of 2 is 1 + 1, and a batch of 1
leaves the second replica an empty part, which is what TensorFlow 2.21's rebatching
gives. The iterator reads on the CPU of the replicas' task (GPUs have no dataset kernels;
TensorFlow's input workers read there too), and each part is placed on its replica's
device. A dataset from
`distribute_datasets_from_function` is already batched per replica: replica i takes
the i-th of n consecutive elements.

One iterator reads the dataset; `get_next()` returns PerReplica values (the element
itself with a single replica). Under MultiWorkerMirroredStrategy every worker reads
the whole dataset and keeps its replicas' parts of each global batch (worker w's
replica i is replica w * replicas_per_worker + i of them all), as TensorFlow's
rebatching and data sharding give them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tfx.core import dtypes
from tfx.core.api import array_api, math_api
from tfx.core.api import distribute_values as values_lib
from tfx.core.api.distribute_lib import Strategy, _flatten
from tfx.core.api.graph_builder import Operation, Tensor, get_default_graph
from tfx.core.devices import DeviceName

__all__ = ["DistributedDataset", "DistributedIterator"]


class DistributedDataset:
    """A dataset whose elements are split across a strategy's replicas.

    Args:
        dataset: the dataset (global batches, or per-replica ones if not `split_batches`).
        strategy: the strategy whose replicas take the input.
        split_batches: split each element across the replicas (else one element each).
    """

    def __init__(self, dataset: Any, strategy: Strategy, split_batches: bool = True) -> None:
        self._dataset = dataset
        self._strategy = strategy
        self._split = split_batches

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    def __iter__(self) -> Any:
        raise RuntimeError("__iter__() is only supported inside of tf.function or when eager "
                           "execution is enabled.")

    def make_initializable_iterator(self) -> DistributedIterator:
        """An iterator whose `initializer` starts a pass over the dataset."""
        from tfx.core.api.data_iterator_api import make_initializable_iterator

        with get_default_graph().device(_input_host(self._strategy)):
            iterator = make_initializable_iterator(self._dataset)
        return DistributedIterator(iterator, self._strategy, self._split)

    def make_one_shot_iterator(self) -> DistributedIterator:
        """An iterator that starts its one pass over the dataset on first use."""
        from tfx.core.api.data_iterator_api import make_one_shot_iterator

        with get_default_graph().device(_input_host(self._strategy)):
            iterator = make_one_shot_iterator(self._dataset)
        return DistributedIterator(iterator, self._strategy, self._split)


class DistributedIterator:
    """An iterator giving each replica its part of an element (see the module doc)."""

    def __init__(self, iterator: Any, strategy: Strategy, split_batches: bool) -> None:
        self._iterator = iterator
        self._strategy = strategy
        self._split = split_batches

    @property
    def initializer(self) -> Operation:
        return self._iterator.initializer

    def initialize(self) -> list[Operation]:
        """The ops that (re)start the pass: `[initializer]`."""
        return [self._iterator.initializer]

    @property
    def element_spec(self) -> Any:
        return self._iterator.element_spec

    @property
    def output_types(self) -> Any:
        return self._iterator.output_types

    @property
    def output_shapes(self) -> Any:
        return self._iterator.output_shapes

    def get_next(self, name: str | None = None) -> Any:
        """Each replica's part of the next element: PerReplica values in its structure."""
        devices = self._strategy.extended.worker_devices
        graph = get_default_graph()
        host = _input_host(self._strategy)
        if not self._split:
            parts = []
            previous: list[Any] = []
            for device in devices:
                # One element per replica, read in replica order, each moved to its replica.
                with graph.device(host), graph.control_dependencies(previous):
                    element = self._iterator.get_next()
                previous = _flatten(element)[0]
                with graph.device(device):
                    flat, rebuild = _flatten(element)
                    parts.append(rebuild([array_api.identity(t) for t in flat]))
            return values_lib.regroup(parts)
        with graph.device(host):
            element = self._iterator.get_next(name)
        total = self._strategy.num_replicas_in_sync
        if total == 1:
            return element
        first = getattr(self._strategy.extended, "first_replica", 0)
        flat, rebuild = _flatten(element)
        per_replica = [_split(t, total, devices, first) for t in flat]
        if len(devices) == 1:
            return rebuild([p[0] for p in per_replica])
        return values_lib.regroup([rebuild([p[i] for p in per_replica])
                                   for i in range(len(devices))])


def _input_host(strategy: Strategy) -> str:
    """The CPU of the task the strategy's replicas are on."""
    name = DeviceName.parse(strategy.extended.worker_devices[0])
    return str(dataclasses.replace(name, type="CPU", id=0))


def _split(tensor: Any, n: int, devices: Any, first: int = 0) -> list[Tensor]:
    """`tensor`'s rows cut into n parts of ceil(rows / n): parts first, first + 1, ...,
    one per device."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"a distributed dataset splits tensors; got {tensor!r}")
    if tensor.shape.ndims == 0:
        raise ValueError(f"a distributed dataset splits each batch across the replicas, but "
                         f"element {tensor.name!r} is a scalar: batch the dataset first")
    graph = get_default_graph()
    rows = array_api.shape(tensor)[0]
    per = math_api.floordiv(rows + (n - 1), n)
    parts = []
    for i, device in enumerate(devices, start=first):
        with graph.device(device):
            begin = math_api.minimum(per * i, rows)
            end = math_api.minimum(per * (i + 1), rows)
            parts.append(array_api.gather(tensor, array_api.range(begin, end,
                                                                  dtype=dtypes.int32)))
    return parts
