"""A task's WorkerService: register graph pieces, run them per step, hand over tensors.

The master registers, per worker session, one GraphDef per step signature:
this task's share of the step, every node on one of this task's devices. A tfx
master cuts it per device already (every edge between devices is a `_Send`/
`_Recv` pair); TensorFlow's master cuts only per task, and the worker cuts the
rest. Each device's graph is compiled once
(`tfx.core.multi_device.compile_partition`, all of its nodes as targets) and a
handle returned. `run_graph` runs the handle's device graphs at once, as a
local multi-device step (`run_partitions`), in the step's `WorkerRendezvous`:
the request's `send` (rendezvous key -> tensor: the client's feeds) goes in
first, and its `recv_key`s (the fetches) come back, with what the request's
ExecutorOpts asked to record: the step's kernels as StepStats per device
(`record_timeline`/`record_costs`) and the device graphs it ran
(`record_partition_graphs`). A step's rendezvous lives
from the first RunGraph or RecvTensor that names its step id until the step
has ended here: when its RunGraph went well and peers have taken every tensor
it sent (a peer can still pull one after the RunGraph has returned), or at
the master's CleanupGraph, which a TensorFlow master sends after every step
and a tfx master only after a failed one (the worker's GetStatus says it
cleans up after itself, `SELF_CLEANING`). A RecvTensor for a step that has
ended is refused rather than left waiting. A partial run's RunGraphs
(`is_partial`) share one step: the first starts it in a thread of its own
(plans whose feed Recvs wait, compiled on first use), each hands over its
feeds and takes its fetches, and the last (`is_last_partial_run`) waits for
the step to end.

A worker session holds the kernels of stateful nodes, shared by every graph
registered in it, as a local Session's steps share them. Resources (variables,
queues, ...) live in the worker's resource manager, which every session shares
unless it asked for `isolate_session_state`: as in TensorFlow, a variable on a
ps task outlives the session that made it and is seen by the sessions of other
clients (between-graph replication), until a Reset (CleanupAll) clears it. The
empty session handle is the worker's own default session, which TensorFlow's
older masters use.

Collective ops on this task's devices share the task's `Collectives` (every
step's rendezvous carries it): the worker answers the collective service's
`JoinGroup` when it is the group leader, and `FetchContribution` for what its
devices contributed; a Reset (CleanupAll of every container) starts them over.
"""

from __future__ import annotations

import collections
import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tfx.core.collectives import Collectives
from tfx.core.devices import DeviceSet
from tfx.core.distributed.rendezvous import WorkerRendezvous, task_of
from tfx.core.distributed.wire import status_of, tensor_from_proto, tensor_to_proto
from tfx.core.errors import (
    AbortedError,
    AlreadyExistsError,
    CancelledError,
    InvalidArgumentError,
    NotFoundError,
    TfxError,
)
from tfx.core.executor import StepState
from tfx.core.graph import Graph
from tfx.core.multi_device import (
    PartitionJob,
    StepPartition,
    compile_partition,
    cut_step,
    run_partitions,
)
from tfx.core.plan_builder import OpSegment
from tfx.core.rendezvous import LocalRendezvous, parse_key
from tfx.core.resources import ResourceManager
from tfx.core.trace import StepTrace, step_stats
from tfx.kernels.base import DEAD
from tfx.protos import distributed_pb2 as pb
from tfx.protos import graph_pb2

# What a tfx worker says of its devices (GetStatus): it releases a step that went well by
# itself, so a tfx master sends it CleanupGraph only for steps that failed. (TensorFlow's
# workers say something else, and get CleanupGraph after every step, as from their master.)
SELF_CLEANING = "tfx worker: a step that ends well cleans up after itself"
# How many cleaned-up step ids a worker remembers, to refuse late RecvTensors for them.
_CLEANED_STEPS_KEPT = 4096
# How long CleanupGraph waits for a cancelled step to stop (a kernel that ignores
# cancellation cannot hold the master forever).
_CLEANUP_WAIT_SECONDS = 10.0


@dataclass(frozen=True)
class _Registered:
    """A registered graph: its device graphs' plans, the device graphs (what a step
    asked for its partition graphs gets) and the graph as registered (its nodes'
    inputs label a traced step's kernels)."""

    jobs: tuple[PartitionJob, ...]
    pieces: tuple[StepPartition, ...]
    graph: Graph


@dataclass
class _PartialStep:
    """A partial run's step on this task: running in a thread from its first RunGraph."""

    rendezvous: WorkerRendezvous
    thread: threading.Thread | None = None
    errors: list[BaseException] = field(default_factory=list)


@dataclass
class _Session:
    resources: ResourceManager
    isolated: bool = False
    kernels: OpSegment = field(default_factory=OpSegment)
    graphs: dict[str, _Registered] = field(default_factory=dict)

    def close(self) -> None:
        self.graphs.clear()
        self.kernels.clear()
        if self.isolated:
            self.resources.clear()


class Worker:
    """The WorkerService of one task.

    Args:
        task: this task, `/job:J/replica:R/task:T`.
        devices: the task's devices (full names under `task`).
        peers: task -> its worker, for the tensors other tasks send (`WorkerCache.get`).
        collective_leader: the task that resolves collective groups spanning tasks
            (None: this one).

    Example:
        >>> worker = Worker("/job:worker/replica:0/task:0", devices, cache.get)
        >>> handle = worker.register_graph(request).graph_handle
    """

    def __init__(self, task: str, devices: DeviceSet, peers: Any,
                 collective_leader: str | None = None) -> None:
        strangers = [d.name for d in devices if task_of(d.name) != task]
        if strangers:
            raise InvalidArgumentError(
                f"devices {', '.join(strangers)} are not devices of task {task}")
        self.task = task
        self.devices = devices
        self._peers = peers
        self._lock = threading.Lock()
        self._resources = ResourceManager()  # shared by the sessions that do not isolate
        self._sessions: dict[str, _Session] = {"": _Session(self._resources)}
        self._steps: dict[int, WorkerRendezvous] = {}
        # step id -> the RunGraph calls running it: (their state, set when they return).
        self._running: dict[int, list[tuple[StepState, threading.Event]]] = {}
        self._cleaned: collections.OrderedDict[int, None] = collections.OrderedDict()
        self._partials: dict[int, _PartialStep] = {}  # step id -> a partial run's step
        self._handles = itertools.count(1)
        self.collectives = Collectives(task, peers, collective_leader)

    # --- status and sessions ------------------------------------------------------------
    def get_status(self, request: pb.GetStatusRequest) -> pb.GetStatusResponse:
        response = pb.GetStatusResponse()
        for device in self.devices:
            response.device_attributes.add(
                name=device.name, device_type=device.device_type,
                memory_limit=int(min(device.memory, 2**63 - 1)),
                incarnation=device.incarnation, physical_device_desc=SELF_CLEANING)
        return response

    def create_worker_session(self, request: pb.CreateWorkerSessionRequest
                              ) -> pb.CreateWorkerSessionResponse:
        handle = request.session_handle
        if not handle:
            raise InvalidArgumentError("CreateWorkerSession needs a session handle")
        with self._lock:
            if handle in self._sessions:
                raise AlreadyExistsError(f"worker session {handle!r} exists on {self.task}")
            isolated = request.isolate_session_state
            self._sessions[handle] = _Session(ResourceManager() if isolated else self._resources,
                                              isolated)
        return pb.CreateWorkerSessionResponse()

    def delete_worker_session(self, request: pb.DeleteWorkerSessionRequest
                              ) -> pb.DeleteWorkerSessionResponse:
        with self._lock:
            session = self._sessions.pop(request.session_handle, None) \
                if request.session_handle else None
        if session is not None:
            session.close()
        return pb.DeleteWorkerSessionResponse()

    def _session(self, handle: str) -> _Session:
        with self._lock:
            session = self._sessions.get(handle)
        if session is None:
            raise AbortedError(f"session {handle!r} is not found on {self.task}: the worker "
                               "may have restarted")
        return session

    def cleanup_all(self, request: pb.CleanupAllRequest) -> pb.CleanupAllResponse:
        """Release the shared resources of the named containers, or of all of them when
        none is named (TensorFlow's Reset reaches workers as this)."""
        if not request.container:
            self._resources.clear()
            self.collectives.reset()
            return pb.CleanupAllResponse()
        wanted = set(request.container)
        for (container, name), resource in self._resources.items():
            if container in wanted and self._resources.delete(container, name):
                close = getattr(resource, "close", None)
                if callable(close):
                    close()
        return pb.CleanupAllResponse()

    # --- graphs -------------------------------------------------------------------------
    def register_graph(self, request: pb.RegisterGraphRequest) -> pb.RegisterGraphResponse:
        session = self._session(request.session_handle)
        graph, pieces = self._split(request.graph_def)
        jobs = self._compile(session, pieces)
        handle = f"{self.task}/graph_{next(self._handles)}"
        with self._lock:
            session.graphs[handle] = _Registered(jobs, tuple(pieces), graph)
        return pb.RegisterGraphResponse(graph_handle=handle)

    def _compile(self, session: _Session, pieces: Sequence[StepPartition]
                 ) -> tuple[PartitionJob, ...]:
        # A task with one CPU device gives it the whole machine; several split it.
        cpus = [d.name for d in self.devices if d.device_type == "CPU"]
        return tuple(compile_partition(piece, self.devices.get(piece.device).kernels,
                                       session.kernels,
                                       one_kernel_at_a_time=cpus != [piece.device])
                     for piece in pieces)

    def _split(self, graph_def: graph_pb2.GraphDef) -> tuple[Graph, list[StepPartition]]:
        """The registered graph, and it as one graph per device, every node running.

        A tfx master sends a piece already cut per device. TensorFlow's master cuts
        only per task and leaves the cut between a task's devices to the worker: such a
        piece is cut here, as a local multi-device step is (`cut_step`).
        """
        device_of = {node.name: node.device for node in graph_def.node}
        crossing = False
        for node in graph_def.node:
            if node.device not in self.devices.names:
                raise InvalidArgumentError(
                    f"RegisterGraph: node {node.name!r} (op {node.op}) is on "
                    f"{node.device or 'no device'}, not on a device of {self.task} ("
                    + ", ".join(self.devices.names) + ")")
            crossing = crossing or any(
                device_of.get(source.lstrip("^").split(":")[0], node.device) != node.device
                for source in node.input)
        graph = Graph.from_graph_def(graph_def)
        graph.validate()
        if crossing:
            incarnations = {d.name: d.incarnation for d in self.devices}
            cut = cut_step(graph, [], [], [node.name for node in graph],
                           client=self.devices.client, incarnations=incarnations)
            return graph, list(cut.partitions)
        by_device: dict[str, list[graph_pb2.NodeDef]] = {}
        for node in graph_def.node:
            by_device.setdefault(node.device, []).append(node)
        pieces = []
        for device, nodes in by_device.items():
            piece = Graph.from_graph_def(graph_pb2.GraphDef(
                node=nodes, library=graph_def.library, versions=graph_def.versions))
            pieces.append(StepPartition(device, piece, tuple(n.name for n in piece)))
        return graph, pieces

    def deregister_graph(self, request: pb.DeregisterGraphRequest
                         ) -> pb.DeregisterGraphResponse:
        session = self._session(request.session_handle)
        with self._lock:
            if session.graphs.pop(request.graph_handle, None) is None:
                raise NotFoundError(f"graph handle {request.graph_handle!r} is not registered "
                                    f"on {self.task}")
        return pb.DeregisterGraphResponse()

    # --- steps --------------------------------------------------------------------------
    def _rendezvous(self, step_id: int) -> WorkerRendezvous:
        with self._lock:
            if step_id in self._cleaned:
                raise AbortedError(f"step {step_id} was already cleaned up on {self.task}")
            rendezvous = self._steps.get(step_id)
            if rendezvous is None:
                rendezvous = WorkerRendezvous(step_id, self.task, self._peers)
                rendezvous.collectives = self.collectives
                self._steps[step_id] = rendezvous
            return rendezvous

    def run_graph(self, request: pb.RunGraphRequest, caller: Any = None) -> pb.RunGraphResponse:
        """Run a registered graph for one step, cancelled when `caller` (an RPC's context or
        an in-process caller's StepState) gives up. A failure is raised, or returned in the
        response when the request asks for that (`store_errors_in_response_body`, as
        TensorFlow's masters do)."""
        try:
            return self._run_graph(request, caller)
        except TfxError as exc:
            if not request.store_errors_in_response_body:
                raise
            code, message = status_of(exc)
            return pb.RunGraphResponse(status_code=code, status_error_message=message)

    def _run_graph(self, request: pb.RunGraphRequest, caller: Any) -> pb.RunGraphResponse:
        sends = {item.name: tensor_from_proto(item.tensor, f"sent tensor {item.name!r}")
                 for item in request.send}
        if request.is_partial:
            return self._run_partial(request, sends, caller)
        options = request.exec_opts
        trace = StepTrace() if options.record_timeline or options.record_costs else None
        values = self.run_step(request.session_handle, request.graph_handle, request.step_id,
                               sends, list(request.recv_key), caller, trace)
        response = pb.RunGraphResponse()
        for key, value in zip(request.recv_key, values):
            response.recv.add(name=key, tensor=tensor_to_proto(
                value, f"fetch {parse_key(key).tensor_name!r}"))
        self.describe_step(request.session_handle, request.graph_handle, trace,
                           options.record_partition_graphs, response)
        return response

    def _run_partial(self, request: pb.RunGraphRequest, sends: dict[str, Any], caller: Any
                     ) -> pb.RunGraphResponse:
        """One call of a partial run: the first starts the step here in a thread of its
        own, each hands over its feeds and takes its fetches, and the last waits for the
        step to finish (TensorFlow's `is_partial` / `is_last_partial_run`)."""
        step_id = request.step_id
        with self._lock:
            partial = self._partials.get(step_id)
        if partial is None:
            partial = self._start_partial(request)
        response = pb.RunGraphResponse()
        try:
            for key, value in sends.items():
                partial.rendezvous.send(key, value)
            for key in request.recv_key:
                value = LocalRendezvous.recv(partial.rendezvous, key, caller)
                response.recv.add(name=key, tensor=tensor_to_proto(
                    value, f"fetch {parse_key(key).tensor_name!r}"))
        except TfxError:
            if partial.rendezvous.aborted:  # the step failed: its own error, not the abort
                partial.thread.join()
                if partial.errors:
                    raise partial.errors[0] from None
            raise
        if request.is_last_partial_run:
            partial.thread.join()
            with self._lock:
                self._partials.pop(step_id, None)
                if not partial.errors:
                    self._release_if_done(step_id)
            if partial.errors:
                raise partial.errors[0]
        return response

    def _start_partial(self, request: pb.RunGraphRequest) -> _PartialStep:
        self._registered(request.session_handle, request.graph_handle)  # (or NotFoundError)
        partial = _PartialStep(self._rendezvous(request.step_id))

        def run() -> None:
            try:
                self.run_step(request.session_handle, request.graph_handle, request.step_id,
                              {}, [])
            except BaseException as exc:  # noqa: BLE001 - the call that waits reports it
                partial.errors.append(exc)

        partial.thread = threading.Thread(target=run, name="tfx-partial-run", daemon=True)
        with self._lock:
            self._partials[request.step_id] = partial
        partial.thread.start()
        return partial

    def describe_step(self, session_handle: str, graph_handle: str, trace: StepTrace | None,
                      partition_graphs: bool, response: pb.RunGraphResponse) -> None:
        """Put what the master asked to know of a step into its response: the traced
        kernels as StepStats, one DeviceStepStats per device of this task (wall-clock
        times, so the tasks' stats share a timeline), and the device graphs run."""
        registered = self._registered(session_handle, graph_handle)
        if trace is not None:
            response.step_stats.CopyFrom(step_stats(trace.events, registered.graph,
                                                    device=None))
        if partition_graphs:
            response.partition_graph.extend(piece.graph.to_graph_def()
                                            for piece in registered.pieces)

    def _registered(self, session_handle: str, graph_handle: str) -> _Registered:
        session = self._session(session_handle)
        with self._lock:
            registered = session.graphs.get(graph_handle)
        if registered is None:
            raise NotFoundError(f"graph handle {graph_handle!r} is not registered on "
                                f"{self.task}")
        return registered

    def run_step(self, session_handle: str, graph_handle: str, step_id: int,
                 sends: dict[str, Any], recv_keys: list[str], caller: Any = None,
                 trace: StepTrace | None = None) -> list[Any]:
        """RunGraph without the messages: what an in-process master calls, so the feeds
        and fetches of its own task are not encoded only to be decoded again. A `trace`
        records the step's kernels (see `describe_step`)."""
        session = self._session(session_handle)
        registered = self._registered(session_handle, graph_handle)
        jobs = registered.jobs
        rendezvous = self._rendezvous(step_id)
        timeout = caller.remaining() if caller is not None else None
        state = StepState(session.resources, rendezvous, timeout)
        state.tracer = trace
        done = threading.Event()
        with self._lock:
            self._running.setdefault(step_id, []).append((state, done))
        if isinstance(caller, StepState):
            state.cancelled = caller.cancelled  # an in-process caller: one step, one flag
        elif caller is not None:
            caller.add_callback(lambda: done.is_set() or _cancel(state, rendezvous))
        succeeded = False
        try:
            values = run_partitions(jobs, state, sends, recv_keys, rendezvous)
            succeeded = True
            return values
        finally:
            with self._lock:
                running = self._running.get(step_id, [])
                running.remove((state, done))
                if not running:
                    self._running.pop(step_id, None)
                    if succeeded:
                        self._release_if_done(step_id)
            done.set()

    def _release_if_done(self, step_id: int) -> None:
        """Drop a step's rendezvous once nothing of the step runs here and every tensor it
        sent has been taken (so no CleanupGraph need follow a step that went well);
        called with the lock held. A RecvTensor for the step is then refused."""
        rendezvous = self._steps.get(step_id)
        if (rendezvous is None or step_id in self._running or step_id in self._partials
                or rendezvous.pending_keys()):
            return  # (a partial run's step ends with its last call)
        del self._steps[step_id]
        self._remember_cleaned(step_id)
        rendezvous.abort(CancelledError(f"step {step_id} has ended"))  # wakes a stray receive

    def _remember_cleaned(self, step_id: int) -> None:
        self._cleaned[step_id] = None
        while len(self._cleaned) > _CLEANED_STEPS_KEPT:
            self._cleaned.popitem(last=False)

    def cleanup_graph(self, request: pb.CleanupGraphRequest) -> pb.CleanupGraphResponse:
        """End a step here: cancel what still runs of it, and return once it has stopped,
        so that no later step meets its remains (a dequeue still waiting, say)."""
        with self._lock:
            rendezvous = self._steps.pop(request.step_id, None)
            running = list(self._running.get(request.step_id, ()))
            self._remember_cleaned(request.step_id)
            self._partials.pop(request.step_id, None)
        for state, _ in running:
            state.cancelled.set()
        if rendezvous is not None:
            rendezvous.abort(CancelledError(f"step {request.step_id} has ended"))
        for _, done in running:
            done.wait(_CLEANUP_WAIT_SECONDS)
        return pb.CleanupGraphResponse()

    def recv_tensor(self, request: pb.RecvTensorRequest, caller: Any = None
                    ) -> pb.RecvTensorResponse:
        """Hand over a tensor this task's step sent, waiting for it while the caller waits."""
        key = request.rendezvous_key
        parsed = parse_key(key)
        source = task_of(parsed.src_device)
        if source != self.task:
            raise InvalidArgumentError(f"RecvTensor on {self.task} for {key!r}, which {source} "
                                       "sends")
        device = self.devices.get(parsed.src_device)
        if parsed.src_incarnation != device.incarnation:
            raise AbortedError(
                f"RecvTensor for {parsed.tensor_name!r} names incarnation "
                f"{parsed.src_incarnation} of {device.name}, which is now {device.incarnation}: "
                f"the task {self.task} was restarted since the step was planned")
        rendezvous = self._rendezvous(request.step_id)
        value = LocalRendezvous.recv(rendezvous, key, caller)
        with self._lock:  # the step may have finished here, waiting for this tensor to go
            self._release_if_done(request.step_id)
        if value is DEAD:
            return pb.RecvTensorResponse(is_dead=True)
        return pb.RecvTensorResponse(tensor=tensor_to_proto(
            value, f"tensor {parse_key(key).tensor_name!r} sent by {self.task}"))

    # --- collectives ----------------------------------------------------------------------
    def join_group(self, request: pb.JoinGroupRequest, caller: Any = None,
                   timeout: float | None = None) -> pb.JoinGroupResponse:
        """As the group leader: add a device to a collective group, and answer with the
        group's devices in rank order once all have joined."""
        members = self.collectives.join(request.group_key, request.group_size,
                                        request.device, caller)
        return pb.JoinGroupResponse(devices=members)

    def fetch_contribution(self, request: pb.FetchContributionRequest, caller: Any = None,
                           timeout: float | None = None) -> pb.FetchContributionResponse:
        """Hand another task one of this task's contributions to a collective, once
        posted."""
        value = self.collectives.take((request.group_key, request.instance_key,
                                       request.sequence, request.rank), caller)
        if value is None:
            return pb.FetchContributionResponse(is_empty=True)
        return pb.FetchContributionResponse(tensor=tensor_to_proto(
            value, f"contribution to collective instance {request.instance_key}"))

    def close(self) -> None:
        """Abort every step and drop every session."""
        with self._lock:
            steps = list(self._steps.values())
            self._steps.clear()
            sessions = list(self._sessions.values())
            self._sessions = {"": _Session(self._resources)}
        for rendezvous in steps:
            rendezvous.abort(CancelledError(f"the worker {self.task} is shutting down"))
        for session in sessions:
            session.close()
        self._resources.clear()
        self.collectives.reset()


def _cancel(state: StepState, rendezvous: LocalRendezvous) -> None:
    """Cancel a step whose caller gave up (the RPC was cancelled or timed out)."""
    state.cancelled.set()
    rendezvous.abort(CancelledError("the step was cancelled: its caller gave up"))

