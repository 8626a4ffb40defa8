"""Calls that wait (RecvTensor): on the server they do not starve the one that would let
them go on; on the client they hold no thread and end with their step."""

from __future__ import annotations

import threading
import time

import grpc
import numpy as np
import pytest

from tfx.core.distributed.rpc import WORKER_SERVICE, GrpcWorker, make_server
from tfx.core.distributed.wire import tensor_from_proto, tensor_to_proto
from tfx.core.errors import CancelledError
from tfx.core.executor import StepState
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


class _WaitingWorker:
    """Answers RecvTensor "go" at once; holds every other call until its caller gives up."""

    def __init__(self) -> None:
        self.gave_up = 0
        self._lock = threading.Lock()

    def recv_tensor(self, request: pb.RecvTensorRequest, caller=None) -> pb.RecvTensorResponse:
        if request.rendezvous_key != "go":
            while True:
                try:
                    caller.check_cancelled()
                except CancelledError:
                    with self._lock:
                        self.gave_up += 1
                    raise
                time.sleep(0.01)
        return pb.RecvTensorResponse(tensor=tensor_to_proto(np.float32(7.0), "go"))

    def __getattr__(self, name: str):
        return lambda *args: None


def _client_threads() -> int:
    return sum(not t.name.startswith("tfx-rpc") for t in threading.enumerate())


def test_an_asynchronous_recv_tensor_holds_no_thread_and_ends_with_its_step() -> None:
    # A Recv of another task's tensor starts its RecvTensor and returns: 40 in flight make
    # no thread here, and cancelling the step cancels each call (the callee sees it).
    worker = _WaitingWorker()
    server = make_server(None, worker, token=None)
    port = server.add_insecure_port("localhost:0")
    server.start()
    client = GrpcWorker(f"localhost:{port}", "task 1")
    try:
        got = []
        answered = threading.Event()
        client.recv_tensor_async(pb.RecvTensorRequest(rendezvous_key="go"),
                                 lambda response, error: (got.append(response),
                                                          answered.set()))
        assert answered.wait(10) and tensor_from_proto(got[0].tensor, "go") == 7.0

        state = StepState(timeout=60)
        errors: list = []
        count = 40
        all_answered = threading.Event()

        def done(response, error) -> None:
            errors.append(error)
            if len(errors) == count:
                all_answered.set()

        threads_before = _client_threads()
        for k in range(count):
            client.recv_tensor_async(pb.RecvTensorRequest(rendezvous_key=f"k{k}"), done, state)
        assert _client_threads() <= threads_before + 1  # (gRPC's own poller)
        time.sleep(0.2)
        assert not errors
        state.cancelled.set()
        assert all_answered.wait(10)
        assert all(isinstance(e, CancelledError) for e in errors)
        for _ in range(500):  # the server sees each call cancelled
            if worker.gave_up == count:
                break
            time.sleep(0.01)
        assert worker.gave_up == count
    finally:
        client.close()
        server.stop(None)
