"""The gRPC server's threads: calls that wait (RecvTensor) do not starve the one that
would let them go on."""

from __future__ import annotations

import threading

import grpc
import pytest

from tfx.core.distributed.rpc import WORKER_SERVICE, make_server
from tfx.protos import distributed_pb2 as pb

pytestmark = pytest.mark.distributed


class _Worker:
    """Answers RecvTensor for key "go" at once and every other key once "go" was asked."""

    def __init__(self) -> None:
        self.asked_for_go = threading.Event()

    def recv_tensor(self, request: pb.RecvTensorRequest, caller=None) -> pb.RecvTensorResponse:
        if request.rendezvous_key == "go":
            self.asked_for_go.set()
        elif not self.asked_for_go.wait(timeout=20):
            raise TimeoutError(f"{request.rendezvous_key}: 'go' never arrived")
        return pb.RecvTensorResponse(is_dead=True)

    def __getattr__(self, name: str):  # the other WorkerService methods: unused here
        return lambda *args: None


def test_many_waiting_recv_tensor_calls_leave_a_thread_for_the_one_that_frees_them() -> None:
    # A TensorFlow worker asked a tfx task for 31 tensors at once, whose values needed a
    # 32nd it asked for later; the server's 32 threads all waited and the step hung.
    worker = _Worker()
    server = make_server(None, worker, token=None)
    port = server.add_insecure_port("localhost:0")
    server.start()
    try:
        channel = grpc.insecure_channel(f"localhost:{port}")
        call = channel.unary_unary(
            f"/{WORKER_SERVICE}/RecvTensor",
            request_serializer=pb.RecvTensorRequest.SerializeToString,
            response_deserializer=pb.RecvTensorResponse.FromString)
        answers: list = []
        waiting = [threading.Thread(target=lambda k=k: answers.append(
            call(pb.RecvTensorRequest(rendezvous_key=f"k{k}"), timeout=30)))
            for k in range(48)]
        for thread in waiting:
            thread.start()
        for _ in range(500):  # until every call holds a server thread (5 s at most)
            if sum(t.name.startswith("tfx-rpc") for t in threading.enumerate()) >= 48:
                break
            threading.Event().wait(0.01)
        assert call(pb.RecvTensorRequest(rendezvous_key="go"), timeout=10).is_dead
        for thread in waiting:
            thread.join(timeout=30)
        assert len(answers) == 48 and all(a.is_dead for a in answers)
        channel.close()
    finally:
        server.stop(0)
