"""What TensorFlow 2.21's master and worker send a tfx worker, replayed.

`tests/data/distributed/tf_master/` holds every WorkerService request a tfx worker
(task 1) received from a TensorFlow master and worker (task 0) while TensorFlow's
client ran y = (2x on task 1) + 1 on task 0 twice, and the answers TensorFlow's worker
gave to the tfx worker's RecvTensor calls (see generate_tf_master.py there). A tfx
worker with the recorded device incarnation must register TensorFlow's graph piece,
run it with x from the recorded answers, and hand 2x to TensorFlow's RecvTensor.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import unknown_fields

from tfx.core.devices import DeviceSet
from tfx.core.distributed.rpc import snake_case
from tfx.core.distributed.worker import Worker
from tfx.core.tensor_util import to_ndarray
from tfx.protos import distributed_pb2 as pb

pytestmark = pytest.mark.distributed

DATA = Path(__file__).resolve().parents[2] / "data" / "distributed" / "tf_master"
TASK = "/job:worker/replica:0/task:1"
# Fields of TensorFlow's requests tfx does not read: CreateWorkerSession's master_task (5)
# and master_incarnation (6), RegisterGraph's tfdbg options (5).
IGNORED = {"CreateWorkerSession": {5, 6}, "RegisterGraph": {5}}


class _TensorFlowTask0:
    """Task 0 as the tfx worker met it: it answers RecvTensor as TensorFlow's worker did."""

    def __init__(self) -> None:
        self.answers = [pb.RecvTensorResponse.FromString(p.read_bytes())
                        for p in sorted(DATA.glob("recv_*.bin"))]

    def recv_tensor(self, request: pb.RecvTensorRequest, step=None) -> pb.RecvTensorResponse:
        return self.answers.pop(0)


def _requests() -> list[tuple[str, object]]:
    out = []
    for path in sorted(DATA.glob("[0-9]*.bin")):
        method = path.stem.split("_", 1)[1]
        out.append((method, getattr(pb, f"{method}Request").FromString(path.read_bytes())))
    return out


def test_tfx_reads_what_tensorflows_master_sends() -> None:
    for method, request in _requests():
        unread = {f.field_number for f in unknown_fields.UnknownFieldSet(request)}
        assert unread <= IGNORED.get(method, set()), method


def test_a_tfx_worker_runs_tensorflows_graph_piece_for_tensorflows_master() -> None:
    info = json.loads((DATA / "worker.json").read_text())
    named = DeviceSet.from_names(list(info["incarnations"]))
    devices = DeviceSet([dataclasses.replace(d, incarnation=info["incarnations"][d.name])
                         for d in named], named.links)
    peer = _TensorFlowTask0()
    worker = Worker(TASK, devices, lambda task: peer)
    handed: list[np.ndarray] = []
    pending: list[threading.Thread] = []
    handle = ""
    for method, request in _requests():
        if method == "RecvTensor":
            # TensorFlow's worker asks before the piece has run: answer once it has.
            def pull(request=request) -> None:
                handed.append(to_ndarray(worker.recv_tensor(request).tensor))
            pending.append(threading.Thread(target=pull))
            pending[-1].start()
            continue
        if method == "RunGraph":
            request.graph_handle = handle
        response = getattr(worker, snake_case(method))(request)
        if method == "GetStatus":
            assert [d.incarnation for d in response.device_attributes] == list(
                info["incarnations"].values())
        if method == "RegisterGraph":
            handle = response.graph_handle
        if method == "RunGraph":
            assert response.status_code == 0, response.status_error_message
            pending.pop(0).join(timeout=30)
    # Task 0 added one to what it pulled: TensorFlow's results, less one, are tfx's 2x.
    np.testing.assert_array_equal(np.array(handed) + 1.0, info["results"])
    assert not peer.answers
