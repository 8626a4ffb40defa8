"""MultiWorkerMirroredStrategy across a cluster: collective all-reduce between workers.

Between-graph replication, as TensorFlow 1.x runs it: every worker task has its
own client, which builds the same graph for its own devices (the strategy's
`worker_devices`, `/job:worker/replica:0/task:<i>/device:CPU:0`) and runs it in a
session on its own server, with the config `update_config_proto` gives (the
session sees only its task's devices; the group leader is the chief, or worker 0).
What joins the workers are collective ops (`tfx.core.collectives`):

* A variable created in the strategy's scope is initialized from the chief's
  initial value: the chief's initializer broadcasts it (CollectiveBcastSend) and
  the others receive it (CollectiveBcastRecv), so every worker starts from the
  same values whatever its random seed.
* Reductions (`reduce_to`, `batch_reduce_to`, `strategy.reduce`, the optimizers'
  gradient sums) are CollectiveReduce ops over every replica of every worker, a
  plain value included (each worker has its own).

Keys are numbered as TensorFlow numbers them, in the order the graph is built:
groups from 1, instances from 100; so every worker must build the same
collectives in the same order, as between-graph replication does anyway.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfx.core.api import distribute_values as values_lib
from tfx.core.api.distribute_context import ReduceOp, as_reduce_op
from tfx.core.api.distribute_cross_device_api import (
    CrossDeviceOps,
    devices_of,
    simple_broadcast,
)
from tfx.core.api.distribute_mirrored_api import MirroredExtended, _OneDeviceScope
from tfx.core.api.graph_builder import IndexedSlices, get_default_graph
from tfx.core.api.ops_api import apply_op, convert_to_tensor

__all__ = ["CollectiveKeys", "CollectiveAllReduce", "CollectiveAllReduceExtended"]

_FIRST_GROUP_KEY = 1
_FIRST_INSTANCE_KEY = 100


class CollectiveKeys:
    """Group keys (one per set of devices) and instance keys, in creation order."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, ...], int] = {}
        self._next_instance = _FIRST_INSTANCE_KEY

    def group_key(self, devices: Sequence[str]) -> int:
        key = tuple(sorted(devices))
        if key not in self._groups:
            self._groups[key] = _FIRST_GROUP_KEY + len(self._groups)
        return self._groups[key]

    def instance_key(self) -> int:
        self._next_instance += 1
        return self._next_instance - 1


def _task_of(device: str) -> str:
    """`/job:J/replica:R/task:T` of a full device name."""
    return device.split("/device:")[0]


def _dense(value: Any) -> Any:
    """A gradient as a dense tensor (sparse ones are summed into their rows)."""
    if isinstance(value, IndexedSlices):
        from tfx.core.api import math_api

        return math_api.unsorted_segment_sum(value.values, value.indices,
                                             value.dense_shape[0])
    return convert_to_tensor(value)


class CollectiveAllReduce(CrossDeviceOps):
    """All-reduce over every replica of every worker with CollectiveReduce.

    Args:
        devices: this worker's replica devices.
        group_size: the replicas of all workers.
        keys: the strategy's CollectiveKeys.
        group_devices: names the group (every worker builds the same key from it).
    """

    def __init__(self, devices: Sequence[str], group_size: int, keys: CollectiveKeys,
                 group_devices: Sequence[str]) -> None:
        self._devices = tuple(devices)
        self._group_size = group_size
        self._keys = keys
        self._group_devices = tuple(group_devices)

    def reduce(self, reduce_op: Any, per_replica_value: Any, destinations: Any,
               options: Any = None) -> Any:
        # No shortcut for one local replica: the other workers' replicas count too.
        reduce_op = as_reduce_op(reduce_op)
        if not isinstance(per_replica_value, values_lib.DistributedValues):
            per_replica_value = values_lib.PerReplica(
                [per_replica_value] * len(self._devices))
        return self.reduce_implementation(reduce_op, per_replica_value, destinations, options)

    def reduce_implementation(self, reduce_op: ReduceOp, per_replica_value: Any,
                              destinations: Any, options: Any) -> Any:
        parts = list(per_replica_value.values)
        if len(parts) != len(self._devices):
            raise ValueError(f"all-reduce of {len(parts)} values on a worker with "
                             f"{len(self._devices)} replicas")
        group_key = self._keys.group_key(self._group_devices)
        instance_key = self._keys.instance_key()
        graph = get_default_graph()
        reduced = []
        for part, device in zip(parts, self._devices):
            with graph.device(device):
                reduced.append(apply_op(
                    "CollectiveReduce", input=_dense(part), group_size=self._group_size,
                    group_key=group_key, instance_key=instance_key, merge_op="Add",
                    final_op="Div" if reduce_op is ReduceOp.MEAN else "Id",
                    subdiv_offsets=[0]))
        targets = devices_of(destinations) if destinations is not None else self._devices
        if tuple(targets) == self._devices:
            return reduced[0] if len(reduced) == 1 else values_lib.Mirrored(reduced)
        # Copies of the first replica's result, which wait for the other local replicas'
        # reductions: a member that nothing runs would leave the group waiting for it.
        with graph.control_dependencies(reduced[1:]):
            return simple_broadcast(reduced[0], destinations)


class CollectiveAllReduceExtended(MirroredExtended):
    """MirroredStrategy's operations on one worker, reduced across every worker.

    Args:
        devices: this worker's replica devices.
        num_workers: how many workers train together.
        is_chief: whether this worker's variable initial values are the ones used.
        default_device: this worker's task, where the strategy's scope puts ops.
        group_devices: one replica device per worker (the first of each), in task order.
        rank: this worker's place in that order.
    """

    def __init__(self, devices: Sequence[str], num_workers: int, is_chief: bool,
                 default_device: str, group_devices: Sequence[str], rank: int) -> None:
        self._keys = CollectiveKeys()
        self._between_graph = True
        # This worker's first replica among all workers' (a distributed dataset gives
        # it that part of each global batch).
        self.first_replica = rank * len(devices)
        self._num_workers = num_workers
        self._is_chief = is_chief
        self._default_device = default_device
        self._worker_group = tuple(group_devices)
        # Every worker's replica devices: the first worker's device names, on each task.
        all_replicas = tuple(device.replace(_task_of(devices[0]), _task_of(first))
                             for first in group_devices for device in devices)
        super().__init__(devices, CollectiveAllReduce(
            devices, num_workers * len(devices), self._keys, all_replicas))

    @property
    def _num_replicas_in_sync(self) -> int:
        return len(self._devices) * self._num_workers

    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        # Every worker starts from the chief's initial value (a collective broadcast).
        initial_value = kwargs.get("initial_value")
        group_key = self._keys.group_key(self._worker_group)
        instance_key = self._keys.instance_key()
        dtype = kwargs.get("dtype")

        def broadcast_initial_value() -> Any:
            value = initial_value() if callable(initial_value) else initial_value
            value = convert_to_tensor(value, dtype=dtype)
            shape = value.shape.as_list() if value.shape.rank is not None else None
            if shape is None or None in shape:
                raise ValueError(f"MultiWorkerMirroredStrategy broadcasts a variable's initial "
                                 f"value, whose shape must be known; {value.name} has shape "
                                 f"{value.shape}")
            keys = dict(group_size=self._num_workers, group_key=group_key,
                        instance_key=instance_key, shape=shape)
            # On this worker's member of the group (its first replica's device), whatever
            # scope the variable is made in: a group's members share one device type.
            with get_default_graph().device(self._devices[0]):
                if self._is_chief:
                    return apply_op("CollectiveBcastSend", input=value, **keys)
                return apply_op("CollectiveBcastRecv", T=value.dtype.base, **keys)

        kwargs["initial_value"] = broadcast_initial_value
        return super()._create_variable(next_creator, **kwargs)

    def _reduce_to(self, reduce_op: ReduceOp, value: Any, destinations: Any) -> Any:
        if isinstance(value, values_lib.Mirrored) and reduce_op is ReduceOp.MEAN:
            return value  # the same on every replica of every worker
        return self._cross_device_ops.reduce(reduce_op, value, destinations)

    def _reduce(self, reduce_op: ReduceOp, value: Any) -> Any:
        device = get_default_graph()._current_device(None) or self._default_device
        return self._local_results(self._reduce_to(reduce_op, value, device))[0]

    def _scope(self, strategy: Any) -> Any:
        return _OneDeviceScope(strategy, self._default_device)
