"""A worker's rendezvous for one step: local sends, and receives from any task.

A `_Send` always leaves its tensor in the rendezvous of its own task's step,
as in TensorFlow; the `_Recv` pulls it. `WorkerRendezvous.recv` of a key whose
source device is on this task waits here (`LocalRendezvous`); of a key sent by
another task it asks that task's worker (RecvTensor with the step id and the
key), waiting while the step lives: the step's cancellation or deadline cancels
the call. A dead tensor comes back as `is_dead` and is DEAD here.

`task_of` names a device's task (`/job:J/replica:R/task:T`), the unit the
master cuts graphs by and the key of the `WorkerCache`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from tfx.core.devices import DeviceName
from tfx.core.distributed.wire import tensor_from_proto
from tfx.core.errors import InvalidArgumentError
from tfx.core.rendezvous import LocalRendezvous, parse_key
from tfx.kernels.base import DEAD
from tfx.protos import distributed_pb2


def task_of(device: str) -> str:
    """The task of a full device name: `/job:J/replica:R/task:T`."""
    name = DeviceName.parse(device)
    if name.job is None or name.task is None:
        raise InvalidArgumentError(f"device {device!r} names no job and task")
    return f"/job:{name.job}/replica:{name.replica or 0}/task:{name.task}"


class RecvTensorPeer(Protocol):
    """What a rendezvous needs of another task's worker."""

    def recv_tensor(self, request: distributed_pb2.RecvTensorRequest,
                    step: Any = None) -> distributed_pb2.RecvTensorResponse: ...


class WorkerRendezvous(LocalRendezvous):
    """One step's rendezvous on one task.

    Args:
        step_id: the master's id of the step, shared by every task's RunGraph.
        task: this task (`task_of` form).
        peers: task -> its worker (`WorkerCache.get`), for keys other tasks send.
    """

    def __init__(self, step_id: int, task: str,
                 peers: Callable[[str], RecvTensorPeer]) -> None:
        super().__init__()
        self.step_id = step_id
        self.task = task
        self._peers = peers
        # The task's `tfx.core.collectives.Collectives`, which its collective ops share.
        self.collectives: Any = None

    def _source_task(self, key: str) -> str:
        return task_of(parse_key(key).src_device)

    def recv(self, key: str, step: Any = None, timeout: float | None = None) -> Any:
        source = self._source_task(key)
        if source == self.task:
            return super().recv(key, step, timeout)
        request = distributed_pb2.RecvTensorRequest(step_id=self.step_id, rendezvous_key=key)
        return self._value_of(self._peers(source).recv_tensor(request, step), key, source)

    def recv_async(self, key: str, done: Callable[[Any, BaseException | None], None],
                   step: Any = None) -> None:
        source = self._source_task(key)
        if source == self.task:
            super().recv_async(key, done, step)
            return
        peer = self._peers(source)
        request = distributed_pb2.RecvTensorRequest(step_id=self.step_id, rendezvous_key=key)
        start = getattr(peer, "recv_tensor_async", None)
        if start is None:  # a peer that only answers while the caller waits (in-process)
            threading.Thread(target=self._wait_for, args=(key, done, step),
                             name="tfx-recv-wait", daemon=True).start()
            return

        def answered(response: Any, error: BaseException | None) -> None:
            if error is not None:
                done(None, error)
                return
            try:
                value = self._value_of(response, key, source)
            except BaseException as exc:  # noqa: BLE001 - handed to the callback
                done(None, exc)
            else:
                done(value, None)

        start(request, answered, step)

    def _wait_for(self, key: str, done: Callable[[Any, BaseException | None], None],
                  step: Any) -> None:
        try:
            value = self.recv(key, step)
        except BaseException as exc:  # noqa: BLE001 - handed to the callback
            done(None, exc)
        else:
            done(value, None)

    @staticmethod
    def _value_of(response: distributed_pb2.RecvTensorResponse, key: str, source: str) -> Any:
        if response.is_dead:
            return DEAD
        return tensor_from_proto(response.tensor, f"tensor {parse_key(key).tensor_name!r} "
                                                  f"received from {source}")
