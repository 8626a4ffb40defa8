"""What TensorFlow 2.21's own client sends a master, replayed against tfx's master.

`tests/data/distributed/tf_client/` holds the raw bytes of every MasterService
request `tf.compat.v1.Session("grpc://...")` sent while it built, ran and extended
a graph (see generate.py there). A tfx master must read each one with tfx's
messages, leave none of its fields unread, and answer with TensorFlow's values.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.protobuf import unknown_fields

from tfx.core.devices import DeviceSet
from tfx.core.distributed.master import Master, WorkerCache
from tfx.core.distributed.worker import Worker
from tfx.core.tensor_util import to_ndarray
from tfx.protos import distributed_pb2 as pb

pytestmark = pytest.mark.distributed

DATA = Path(__file__).resolve().parents[2] / "data" / "distributed" / "tf_client"
TASK = "/job:localhost/replica:0/task:0"


def _requests() -> list[tuple[str, object]]:
    requests = []
    for path in sorted(DATA.glob("*.bin")):
        method = path.stem.split("_", 1)[1]
        requests.append((method, getattr(pb, f"{method}Request").FromString(path.read_bytes())))
    return requests


def test_every_field_tensorflow_sends_is_one_tfx_reads() -> None:
    requests = _requests()
    assert [m for m, _ in requests] == ["CreateSession", "RunStep", "RunStep", "RunStep",
                                        "RunStep", "ExtendSession", "RunStep", "ExtendSession",
                                        "RunStep", "CloseSession"]
    for method, request in requests:
        assert not list(unknown_fields.UnknownFieldSet(request)), method
    assert all(r.store_errors_in_response_body for m, r in requests if m == "RunStep")


def test_a_tfx_master_answers_tensorflows_client_with_its_values() -> None:
    expected = json.loads((DATA / "expected.json").read_text())
    worker = Worker(TASK, DeviceSet.from_names([f"{TASK}/device:CPU:0"]), lambda task: None)
    master = Master(WorkerCache([TASK], TASK, worker))
    handle = ""
    fetched = []
    for method, request in _requests():
        if method == "CreateSession":
            handle = master.create_session(request).session_handle
            continue
        request.session_handle = handle
        response = getattr(master, {"RunStep": "run_step", "ExtendSession": "extend_session",
                                    "CloseSession": "close_session"}[method])(request)
        if method == "RunStep":
            fetched.append((request, response))
    values = [[to_ndarray(t.tensor).tolist() for t in r.tensor] for q, r in fetched if q.fetch]
    # y, the assign_add's value (TF's client fetches a Tensor it runs), y again, z.
    assert values == [[expected["y"]], [[[2.0], [3.0]]], [expected["y_after_update"]],
                      [expected["z"]]]
    failed = [r for q, r in fetched if r.status_code]
    assert [r.status_code for r in failed] == [expected["error_code"]]
    assert "x > 0 did not hold" in failed[0].status_error_message
