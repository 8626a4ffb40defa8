"""gRPC for the distributed runtime: TensorFlow's service paths, a shared secret, clients.

Both services are bound with TensorFlow's method paths
(`/tensorflow.MasterService/RunStep`, `/tensorflow.WorkerService/RunGraph`, ...)
and TensorFlow's message bytes (`protos/distributed.proto`), plus the standard
`/grpc.health.v1.Health/Check` and tfx's own `/tfx.CollectiveService/` (a
worker's collective groups and contributions; TensorFlow's workers answer it
UNIMPLEMENTED). An implementation is a plain object with one
method per RPC in snake case (`run_graph(request, step)`), taking and returning
the messages and raising tfx errors; `add_services` adapts it, carrying an
error back as its gRPC status (TensorFlow's status codes and gRPC's are the same
numbers) and message, and the clients (`GrpcWorker`, `GrpcMaster`) raise it again
with its class.

Authentication: TensorFlow's server has none. A tfx server given a secret token
refuses every call whose `authorization` metadata is not `Bearer <token>`
(UNAUTHENTICATED), comparing in constant time; the health check answers
anyone. Clients send the token they are given. `token_from_env` reads
`TFX_AUTH_TOKEN`.

Messages may be as large as the allocation limit allows a tensor
(`tfx.core.limits`), up to gRPC's 2 GiB; gRPC's own default of 4 MiB would
refuse ordinary tensors. Calls that wait on a step (RunGraph, RecvTensor,
RunStep) carry the step's deadline, which the callee reads as its own; they are
blocking calls, which the master ends early by ending the step on every task. A
client gives RunStep `STEP_GRACE_SECONDS` more than the step's timeout, so that the
master, which stops the step on every task before it answers, reports the timeout
itself.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable
from typing import Any

import grpc

from tfx.core import limits
from tfx.core.distributed.wire import error_from_status, status_of
from tfx.core.errors import (
    CancelledError,
    DeadlineExceededError,
    TfxError,
    UnavailableError,
)
from tfx.protos import distributed_pb2 as pb

TOKEN_ENV = "TFX_AUTH_TOKEN"
_MAX_MESSAGE = 2**31 - 1
_NO_DEADLINE = 1e9  # seconds
STEP_GRACE_SECONDS = 5.0

MASTER_SERVICE = "tensorflow.MasterService"
WORKER_SERVICE = "tensorflow.WorkerService"
HEALTH_SERVICE = "grpc.health.v1.Health"
COLLECTIVE_SERVICE = "tfx.CollectiveService"

# Method name -> (request type, response type).
MASTER_METHODS: dict[str, tuple[type, type]] = {
    "CreateSession": (pb.CreateSessionRequest, pb.CreateSessionResponse),
    "ExtendSession": (pb.ExtendSessionRequest, pb.ExtendSessionResponse),
    "RunStep": (pb.RunStepRequest, pb.RunStepResponse),
    "PartialRunSetup": (pb.PartialRunSetupRequest, pb.PartialRunSetupResponse),
    "CloseSession": (pb.CloseSessionRequest, pb.CloseSessionResponse),
    "ListDevices": (pb.ListDevicesRequest, pb.ListDevicesResponse),
    "Reset": (pb.ResetRequest, pb.ResetResponse),
}
WORKER_METHODS: dict[str, tuple[type, type]] = {
    "GetStatus": (pb.GetStatusRequest, pb.GetStatusResponse),
    "CreateWorkerSession": (pb.CreateWorkerSessionRequest, pb.CreateWorkerSessionResponse),
    "DeleteWorkerSession": (pb.DeleteWorkerSessionRequest, pb.DeleteWorkerSessionResponse),
    "RegisterGraph": (pb.RegisterGraphRequest, pb.RegisterGraphResponse),
    "DeregisterGraph": (pb.DeregisterGraphRequest, pb.DeregisterGraphResponse),
    "RunGraph": (pb.RunGraphRequest, pb.RunGraphResponse),
    "CleanupGraph": (pb.CleanupGraphRequest, pb.CleanupGraphResponse),
    "CleanupAll": (pb.CleanupAllRequest, pb.CleanupAllResponse),
    "RecvTensor": (pb.RecvTensorRequest, pb.RecvTensorResponse),
}
COLLECTIVE_METHODS: dict[str, tuple[type, type]] = {
    "JoinGroup": (pb.JoinGroupRequest, pb.JoinGroupResponse),
    "FetchContribution": (pb.FetchContributionRequest, pb.FetchContributionResponse),
}
# The calls that wait for a step: cancelled with it, bounded by its deadline.
_STEP_CALLS = {"RunStep", "RunGraph", "RecvTensor", "JoinGroup", "FetchContribution"}


def snake_case(method: str) -> str:
    """`RunGraph` -> `run_graph`: the implementation's method for an RPC."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in method).lstrip("_")


def token_from_env() -> str | None:
    """The shared secret in `TFX_AUTH_TOKEN`, or None."""
    return os.environ.get(TOKEN_ENV) or None


def channel_options() -> list[tuple[str, int]]:
    """Message size limits: a tensor as large as the allocation limit must fit."""
    size = min(_MAX_MESSAGE, limits.max_tensor_bytes() + (1 << 20))
    return [("grpc.max_send_message_length", size), ("grpc.max_receive_message_length", size)]


# --- the server side ----------------------------------------------------------------------

_GRPC_CODES = {code.value[0]: code for code in grpc.StatusCode}


class _CallContext:
    """The step-like object a waiting implementation polls: the client gave up, or not."""

    def __init__(self, context: grpc.ServicerContext) -> None:
        self._context = context

    def check_cancelled(self) -> None:
        if not self._context.is_active():
            raise CancelledError("the caller cancelled the call")

    def add_callback(self, callback: Callable[[], object]) -> None:
        """Call `callback` when the call ends: answered, cancelled or timed out."""
        self._context.add_callback(callback)

    def remaining(self) -> float | None:
        left = self._context.time_remaining()
        # gRPC reports a call without a deadline as ~292 billion years remaining.
        return None if left is None or left > _NO_DEADLINE else left


def method_handler(implementation: Any, method: str, request_type: type,
             response_type: type) -> grpc.RpcMethodHandler:
    function = getattr(implementation, snake_case(method))
    waits = method in _STEP_CALLS

    def call(request: Any, context: grpc.ServicerContext) -> Any:
        try:
            if waits:
                return function(request, _CallContext(context))
            return function(request)
        except TfxError as exc:
            code, message = status_of(exc)
            context.abort(_GRPC_CODES.get(code, grpc.StatusCode.UNKNOWN), message)
        except Exception as exc:  # noqa: BLE001 - a bug becomes an INTERNAL status, not a hang
            context.abort(grpc.StatusCode.INTERNAL, f"{type(exc).__name__}: {exc}")
        return response_type()  # not reached: abort raises

    return grpc.unary_unary_rpc_method_handler(
        call, request_deserializer=request_type.FromString,
        response_serializer=response_type.SerializeToString)


def _health_check(request: pb.HealthCheckRequest, context: grpc.ServicerContext) -> Any:
    return pb.HealthCheckResponse(status=pb.HealthCheckResponse.SERVING)


class TokenCheck(grpc.ServerInterceptor):
    """Refuse calls without the shared secret (the health check is open)."""

    def __init__(self, token: str) -> None:
        self._expected = f"Bearer {token}".encode()

        def refuse(request: Any, context: grpc.ServicerContext) -> Any:
            context.abort(grpc.StatusCode.UNAUTHENTICATED,
                          "this server requires its auth token (TFX_AUTH_TOKEN)")

        self._refusal = grpc.unary_unary_rpc_method_handler(refuse)

    def intercept_service(self, continuation: Callable, details: Any) -> Any:
        if details.method.startswith(f"/{HEALTH_SERVICE}/"):
            return continuation(details)
        for key, value in details.invocation_metadata or ():
            if key == "authorization":
                given = value.encode() if isinstance(value, str) else value
                if hmac.compare_digest(given, self._expected):
                    return continuation(details)
        return self._refusal


# A call holds a server thread until it is answered, and a RecvTensor is answered only
# when its tensor has been sent: a TensorFlow worker asks for every tensor of its step at
# once (dozens), and the one that lets the step go on must not wait behind them for a
# thread (32 threads: a TensorFlow master's step across a tfx task hung). Threads are
# made as calls need them, up to this many.
MAX_CONCURRENT_CALLS = 1024


def make_server(master: Any, worker: Any, *, token: str | None,
                max_workers: int = MAX_CONCURRENT_CALLS) -> grpc.Server:
    """A gRPC server with the MasterService (if `master`), WorkerService and health check."""
    from concurrent import futures

    interceptors = [TokenCheck(token)] if token else []
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers,
                                                    thread_name_prefix="tfx-rpc"),
                         interceptors=interceptors, options=channel_options())
    services = [(WORKER_SERVICE, WORKER_METHODS, worker),
                (COLLECTIVE_SERVICE, COLLECTIVE_METHODS, worker)]
    if master is not None:
        services.append((MASTER_SERVICE, MASTER_METHODS, master))
    for service, methods, implementation in services:
        handlers = {name: method_handler(implementation, name, *types)
                    for name, types in methods.items()}
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(service, handlers),))
    health = grpc.unary_unary_rpc_method_handler(
        _health_check, request_deserializer=pb.HealthCheckRequest.FromString,
        response_serializer=pb.HealthCheckResponse.SerializeToString)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(HEALTH_SERVICE, {"Check": health}),))
    return server


# --- the client side ----------------------------------------------------------------------


class ServiceClient:
    """Calls one service of one address; each RPC is a method in snake case."""

    def __init__(self, service: str, methods: dict[str, tuple[type, type]], address: str, *,
                 who: str, token: str | None = None,
                 channel: grpc.Channel | None = None) -> None:
        self.address = address
        self.who = who
        self._channel = channel or grpc.insecure_channel(address, options=channel_options())
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self._calls = {
            name: self._channel.unary_unary(f"/{service}/{name}",
                                            request_serializer=req.SerializeToString,
                                            response_deserializer=resp.FromString)
            for name, (req, resp) in methods.items()
        }
        for name in methods:
            setattr(self, snake_case(name), self._bind(name, name in _STEP_CALLS))

    def _bind(self, name: str, waits: bool) -> Callable[..., Any]:
        call = self._calls[name]

        def invoke(request: Any, step: Any = None, timeout: float | None = None,
                   wait_for_ready: bool = False) -> Any:
            if waits and step is not None and timeout is None:
                timeout = step.remaining()  # the callee reads the step's deadline from it
            # A blocking call: gRPC's futures start a thread per call. A call that waits
            # for a step ends when the step ends everywhere (the master's CleanupGraph
            # stops it on every task) or at the step's deadline.
            try:
                return call(request, timeout=timeout, metadata=self._metadata,
                            wait_for_ready=wait_for_ready)
            except grpc.RpcError as exc:
                raise self._error(name, exc) from None

        return invoke

    def call_async(self, name: str, request: Any, done: Callable[[Any, Any], None],
                   step: Any = None) -> None:
        """Start RPC `name` and return; `done(response, None)` or `done(None, error)` runs
        on a gRPC thread when it is answered. Nothing waits for the answer: the step's
        deadline bounds the call and its cancellation (`step.cancelled`) cancels it."""
        timeout = step.remaining() if step is not None else None
        future = self._calls[name].future(request, timeout=timeout, metadata=self._metadata)
        flag = getattr(step, "cancelled", None)
        registration = None
        if flag is not None:
            registration = flag.add_callback(future.cancel)
            if registration is None:  # cancelled already
                future.cancel()

        def answered(call: Any) -> None:
            if flag is not None:
                flag.remove_callback(registration)
            if call.cancelled():
                done(None, CancelledError(f"{name} to {self.who} at {self.address} was "
                                          "cancelled: the step was cancelled"))
                return
            try:
                response = call.result()
            except grpc.RpcError as exc:
                done(None, self._error(name, exc))
            else:
                done(response, None)

        future.add_done_callback(answered)

    def _error(self, name: str, exc: grpc.RpcError) -> TfxError:
        code = exc.code() if hasattr(exc, "code") else grpc.StatusCode.UNKNOWN
        details = exc.details() if hasattr(exc, "details") else str(exc)
        if code == grpc.StatusCode.UNAVAILABLE:
            return UnavailableError(f"{self.who} at {self.address} is unavailable ({name}): "
                                    f"{details}")
        if code == grpc.StatusCode.DEADLINE_EXCEEDED and details == "Deadline Exceeded":
            return DeadlineExceededError(f"{name} to {self.who} at {self.address} timed out")
        return error_from_status(code.value[0], details or f"{name} to {self.who} failed")

    def close(self) -> None:
        self._channel.close()


class GrpcWorker(ServiceClient):
    """A remote task's WorkerService: `get_status`, `register_graph`, `run_graph`, ...,
    and its collective service: `join_group`, `fetch_contribution`."""

    def __init__(self, address: str, task: str = "worker", **kwargs: Any) -> None:
        super().__init__(WORKER_SERVICE, WORKER_METHODS, address, who=f"task {task}", **kwargs)
        kwargs["channel"] = self._channel
        collective = ServiceClient(COLLECTIVE_SERVICE, COLLECTIVE_METHODS, address,
                                   who=f"task {task}", **kwargs)
        self.join_group = collective.join_group
        self.fetch_contribution = collective.fetch_contribution

    def recv_tensor_async(self, request: pb.RecvTensorRequest,
                          done: Callable[[Any, Any], None], step: Any = None) -> None:
        """RecvTensor without a waiting thread (`call_async`)."""
        self.call_async("RecvTensor", request, done, step)


class GrpcMaster(ServiceClient):
    """A server's MasterService: `create_session`, `run_step`, ..."""

    def __init__(self, address: str, **kwargs: Any) -> None:
        super().__init__(MASTER_SERVICE, MASTER_METHODS, address, who="master", **kwargs)


def check_health(address: str, timeout: float = 5.0) -> bool:
    """Whether a server answers the standard health check as SERVING within `timeout` s."""
    return health(address, timeout) == "SERVING"


def health(address: str, timeout: float = 5.0) -> str:
    """A server's answer to the standard health check within `timeout` s: "SERVING" or
    another status name; "UNIMPLEMENTED" for a server without the health service
    (TensorFlow's), "UNAVAILABLE" when nothing answers in time."""
    with grpc.insecure_channel(address) as channel:
        call = channel.unary_unary(f"/{HEALTH_SERVICE}/Check",
                                   request_serializer=pb.HealthCheckRequest.SerializeToString,
                                   response_deserializer=pb.HealthCheckResponse.FromString)
        try:
            response = call(pb.HealthCheckRequest(), timeout=timeout, wait_for_ready=True)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else grpc.StatusCode.UNAVAILABLE
            if code == grpc.StatusCode.UNIMPLEMENTED:
                return "UNIMPLEMENTED"
            return "UNAVAILABLE"
    return pb.HealthCheckResponse.ServingStatus.Name(response.status)
