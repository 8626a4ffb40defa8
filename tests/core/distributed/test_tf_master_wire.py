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


LOOP = DATA.parent / "tf_master_loop"


def test_a_tfx_worker_runs_its_share_of_a_loop_tensorflow_split_across_tasks() -> None:
    # TensorFlow's master puts a while loop on task 0 and its body's multiply on the tfx
    # task, to which it adds a control loop; every iteration's tensors cross in keys
    # holding TensorFlow's frame id (the tfx worker used to make its own, and waited
    # forever), and the last iteration's multiply is dead (the tfx worker used not to
    # send it, and TensorFlow's worker waited forever).
    info = json.loads((LOOP / "worker.json").read_text())
    named = DeviceSet.from_names(list(info["incarnations"]))
    devices = DeviceSet([dataclasses.replace(d, incarnation=info["incarnations"][d.name])
                         for d in named], named.links)
    answers = {key: pb.RecvTensorResponse.FromString((LOOP / name).read_bytes())
               for key, name in info["answers"].items()}

    class TensorFlowTask0:
        def recv_tensor(self, request: pb.RecvTensorRequest, step=None):
            return answers.pop(f"{request.step_id} {request.rendezvous_key}")

    worker = Worker(TASK, devices, lambda task: TensorFlowTask0())
    requests = []
    for path in sorted(LOOP.glob("[0-9]*.bin")):
        method = path.stem.split("_", 1)[1]
        requests.append((method, getattr(pb, f"{method}Request").FromString(path.read_bytes())))
    handed: dict[str, pb.RecvTensorResponse] = {}
    handle = ""
    for method, request in requests:
        if method == "RecvTensor":
            continue  # asked for while its step's RunGraph runs, below
        if method == "RunGraph":
            request.graph_handle = handle
            pulls = [threading.Thread(target=lambda r=r: handed.__setitem__(
                         f"{r.step_id} {r.rendezvous_key}", worker.recv_tensor(r)))
                     for m, r in requests if m == "RecvTensor" and r.step_id == request.step_id]
            for pull in pulls:
                pull.start()
        response = getattr(worker, snake_case(method))(request)
        if method == "RegisterGraph":
            handle = response.graph_handle
        if method == "RunGraph":
            assert response.status_code == 0, response.status_error_message
            for pull in pulls:
                pull.join(timeout=30)
                assert not pull.is_alive()
    assert not answers  # every tensor TensorFlow's task sent was asked for, by its key
    assert handed.keys() == info["handed"].keys()
    dead = []
    for key, response in handed.items():
        want = pb.RecvTensorResponse.FromString((LOOP / info["handed"][key]).read_bytes())
        assert response.is_dead == want.is_dead, key
        if response.is_dead:
            dead.append(key.rsplit(";", 1)[1])
        else:
            np.testing.assert_array_equal(to_ndarray(response.tensor), to_ndarray(want.tensor))
    assert dead == ["6315961604705615773:3"] * 2  # the test that ends each loop
    # Task 0 adds one to the last live multiply: TensorFlow's results, less one.
    steps = [str(r.step_id) for m, r in requests
             if m == "RunGraph" and any(k.startswith(f"{r.step_id} ") for k in handed)]
    for step, (_, looped) in zip(steps, info["results"], strict=True):
        last = next(r for k, r in handed.items()
                    if k.startswith(step + " ") and k.endswith("mul;6315961604705615773:2"))
        np.testing.assert_array_equal(to_ndarray(last.tensor) + 1.0, looped)
