"""The MasterService: client sessions whose graphs run across the tasks of a cluster.

A `MasterSession` holds one client's graph (CreateSession, then ExtendSession
with the nodes added since) and runs its steps (RunStep), as TensorFlow's
master does:

1. Devices: every task of the cluster reports its devices (GetStatus); the
   client's device is this task's CPU:0. A session config's `device_filters`
   (partial names such as "/job:worker/task:1") keep only the devices that
   match one of them, and the session contacts only their tasks, as
   TensorFlow's does: between-graph clients so each use their own task.
2. Placement: the graph is placed on all of them (`tfx.core.placer`, the
   session config's soft placement); a node placed once keeps its device when
   the graph grows, so state never moves.
3. Per step signature (feeds, fetches, targets), once: the placed graph is
   pruned and optimized for the step (the session's passes, which keep each
   node's device; none under the config's opt_level L0), cut for the step
   (`tfx.core.multi_device.cut_step`), each task's device graphs are merged
   into one GraphDef, pruned to what the step runs there, and registered with
   that task's worker (RegisterGraph, in a worker session made for this master
   session).
4. Each step: a fresh random step id, one RunGraph per task at once: a feed
   goes with the RunGraph of the task that reads it, and a fetch comes back
   with the answer of the task that computes it (the cut puts the
   client-terminated Recvs and Sends there, not on the client's device, so
   no value takes a detour through this task). Then CleanupGraph on every
   task, waited for only when the step failed (a successful step has stopped
   everywhere already); after a successful step, tfx workers have cleaned up
   by themselves and only other (TensorFlow) workers get it. The first
   failure cancels the other tasks' calls, and the error returned is that
   failure, not the cancellations it caused. A step whose RunOptions ask for a
   trace or partition graphs asks every task for them and returns them all in
   its RunMetadata.

Closing the session deregisters its graphs and deletes its worker sessions.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import threading
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from tfx.core.cost_model import CostModel
from tfx.core.devices import KERNEL_TYPES, DeviceName, DeviceSet
from tfx.core.distributed.rendezvous import task_of
from tfx.core.distributed.wire import (
    error_from_status,
    status_of,
    tensor_from_proto,
    tensor_to_proto,
)
from tfx.core.distributed.worker import SELF_CLEANING
from tfx.core.errors import (
    AbortedError,
    CancelledError,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    TfxError,
    UnavailableError,
)
from tfx.core.executor import StepState
from tfx.core.graph import Graph
from tfx.core.multi_device import CutStep, cut_step
from tfx.core.partial_run import MUST_SETUP, PartialRunBook, check_setup, feeds_needed
from tfx.core.placer import place
from tfx.core.plan_builder import closure
from tfx.core.rendezvous import parse_key
from tfx.core.session import _check_feed, optimized_step_graph
from tfx.core.trace import StepTrace
from tfx.protos import config_pb2, graph_pb2
from tfx.protos import distributed_pb2 as pb

# How long a new session waits for each task of the cluster to answer.
STARTUP_WAIT_SECONDS = 60.0
# Calls to the tasks of a step, and cleanups, run here (threads made once, not per step).
_POOL = ThreadPoolExecutor(max_workers=64, thread_name_prefix="tfx-master")


class WorkerCache:
    """Task name -> its worker: this task's in-process, the others' over gRPC.

    Args:
        tasks: every task of the cluster (`/job:J/replica:0/task:T`), in order.
        local_task: this process's task, served by `local_worker`.
        addresses: task -> "host:port" for the others.
        token: the shared secret for the other tasks' servers.
    """

    def __init__(self, tasks: Sequence[str], local_task: str, local_worker: Any = None,
                 addresses: dict[str, str] | None = None, token: str | None = None) -> None:
        self.tasks = list(tasks)
        self.local_task = local_task
        self.local_worker = local_worker
        self._addresses = dict(addresses or {})
        self._token = token
        self._remote: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, task: str) -> Any:
        """The worker of `task` (InvalidArgumentError for a task not in the cluster)."""
        if task == self.local_task and self.local_worker is not None:
            return self.local_worker
        with self._lock:
            worker = self._remote.get(task)
            if worker is None:
                address = self._addresses.get(task)
                if address is None:
                    raise InvalidArgumentError(
                        f"task {task} is not in the cluster; its tasks: " + ", ".join(self.tasks))
                from tfx.core.distributed.rpc import GrpcWorker

                worker = GrpcWorker(address, task, token=self._token)
                self._remote[task] = worker
            return worker

    def close(self) -> None:
        with self._lock:
            remote = list(self._remote.values())
            self._remote.clear()
        for worker in remote:
            worker.close()


class DeviceFilters:
    """A session config's `device_filters` (partial device names): the tasks a session
    talks to and the devices it keeps; no filters keep everything."""

    def __init__(self, specs: Sequence[str]) -> None:
        self._specs = [DeviceName.parse(spec) for spec in specs]

    def reaches(self, task: str) -> bool:
        name = DeviceName.parse(task)
        return not self._specs or any(spec.compatible(name) for spec in self._specs)

    def keeps(self, device: str) -> bool:
        name = DeviceName.parse(device)
        return not self._specs or any(spec.matches(name) for spec in self._specs)


@dataclass(frozen=True)
class _Registered:
    """A step signature registered with the workers."""

    cut: CutStep
    handles: dict[str, str]  # task -> graph handle
    feeds: dict[str, list[int]]  # task -> the feeds (indices) it takes in, by key
    fetches: dict[str, list[str]]  # task -> the keys of the fetches it hands out


class MasterSession:
    """One client session: its graph, placement and registered steps."""

    def __init__(self, handle: str, graph_def: graph_pb2.GraphDef,
                 config: config_pb2.ConfigProto, workers: WorkerCache) -> None:
        self.handle = handle
        self.config = config
        self._workers = workers
        self._graph = Graph.from_graph_def(graph_def)
        self._graph.validate()
        self.version = 0
        self._lock = threading.Lock()
        self._devices: DeviceSet | None = None
        self._placed_version = -1
        self._steps: dict[tuple, _Registered] = {}
        # Numbers for Send/Recv names, unique across the session's steps (see partition)
        self._node_numbers = itertools.count()
        self._worker_sessions: set[str] = set()
        self._running: dict[int, Any] = {}  # step id -> what ends it everywhere
        self._closed = False
        self._self_cleaning: set[str] = set()  # tasks that need no CleanupGraph after success
        self._partial_runs: dict[str, _PartialRun] = {}
        self._partial_run_count = 0
        level = config.graph_options.optimizer_options.opt_level
        self._optimize = "none" if level == config_pb2.OptimizerOptions.L0 else "basic"

    # --- the graph ----------------------------------------------------------------------
    def extend(self, graph_def: graph_pb2.GraphDef, current_version: int) -> int:
        with self._lock:
            if current_version != self.version:
                raise FailedPreconditionError(
                    f"ExtendSession of graph version {current_version}, but the session's "
                    f"graph is at version {self.version}")
            merged = self._graph.to_graph_def()
            existing = {node.name for node in merged.node}
            clashes = [node.name for node in graph_def.node if node.name in existing]
            if clashes:
                raise InvalidArgumentError(
                    "ExtendSession adds nodes the graph already has: " + ", ".join(clashes[:5]))
            merged.node.extend(graph_def.node)
            known = {f.signature.name for f in merged.library.function}
            merged.library.function.extend(
                f for f in graph_def.library.function if f.signature.name not in known)
            known_grads = {g.function_name for g in merged.library.gradient}
            merged.library.gradient.extend(
                g for g in graph_def.library.gradient if g.function_name not in known_grads)
            graph = Graph.from_graph_def(merged)
            graph.validate()
            self._graph = graph
            self.version += 1
            return self.version

    def _placed(self) -> tuple[Graph, DeviceSet]:
        """The graph placed on the cluster's devices (placing what is new)."""
        if self._devices is None:
            self._devices = self._discover_devices()
        if self._placed_version != self.version:
            place(self._graph, self._devices, cost_model=CostModel(self._graph),
                  soft_placement=self.config.allow_soft_placement)
            self._placed_version = self.version
        return self._graph, self._devices

    def _discover_devices(self) -> DeviceSet:
        reported: dict[str, int] = {}
        filters = DeviceFilters(self.config.device_filters)
        for task in self._workers.tasks:
            if not filters.reaches(task):
                continue
            worker = self._workers.get(task)
            if worker is self._workers.local_worker:
                status = worker.get_status(pb.GetStatusRequest())
            else:
                # The tasks of a cluster start in any order: wait a while for each (the
                # session's operation timeout, if it has one).
                wait = self.config.operation_timeout_in_ms / 1000 or STARTUP_WAIT_SECONDS
                try:
                    status = worker.get_status(pb.GetStatusRequest(), None, wait,
                                               wait_for_ready=True)
                except DeadlineExceededError:
                    raise UnavailableError(
                        f"task {task} at {worker.address} did not answer within {wait:g} s; "
                        "is its server running?") from None
            reported.update((d.name, d.incarnation) for d in status.device_attributes)
            if all(d.physical_device_desc == SELF_CLEANING for d in status.device_attributes):
                self._self_cleaning.add(task)
        reported = {name: incarnation for name, incarnation in reported.items()
                    if filters.keeps(name)}
        if not reported:
            raise InvalidArgumentError(
                "no device of the cluster matches the session's device_filters: "
                + ", ".join(self.config.device_filters))
        devices = DeviceSet.from_names(list(reported))
        # A device's incarnation is what its task says (a restarted task has a new one, and
        # TensorFlow's workers refuse keys with the old one). The tasks are tfx servers, so
        # a GPU runs tfx's GPU kernels: a node with none (a dataset) is not placed there.
        attributes = [dataclasses.replace(
            d, incarnation=reported[d.name] or d.incarnation,
            kernels=d.device_type if d.device_type in KERNEL_TYPES else d.kernels)
            for d in devices]
        local = [d.name for d in devices
                 if task_of(d.name) == self._workers.local_task and d.device_type == "CPU"]
        return DeviceSet(attributes, devices.links, local[0] if local else "")

    # --- steps --------------------------------------------------------------------------
    def _register(self, key: tuple) -> _Registered:
        with self._lock:
            registered = self._steps.get(key)
            if registered is not None:
                return registered
            graph, devices = self._placed()
            feeds, fetches, targets = key
            # Pruned and optimized for the step before it is cut, as TensorFlow's master
            # does; the passes keep the placement.
            graph = optimized_step_graph(graph, feeds, fetches, targets, self._optimize)
            incarnations = {d.name: d.incarnation for d in devices}
            cut = cut_step(graph, feeds, fetches, targets, client=devices.client,
                           incarnations=incarnations, numbers=self._node_numbers)
            by_task: dict[str, graph_pb2.GraphDef] = {}
            for piece in cut.partitions:
                task = task_of(piece.device)
                merged = by_task.setdefault(task, graph_pb2.GraphDef(
                    library=graph.library, versions=graph.versions))
                roots = [piece.graph.node(name) for name in piece.targets]
                kept = {node.name for node in closure(roots, ())}
                merged.node.extend(node.to_node_def() for node in piece.graph
                                   if node.name in kept)
            handles: dict[str, str] = {}
            try:
                for task, graph_def in by_task.items():
                    self._ensure_worker_session(task)
                    response = self._workers.get(task).register_graph(pb.RegisterGraphRequest(
                        session_handle=self.handle, graph_def=graph_def,
                        create_worker_session_called=True))
                    handles[task] = response.graph_handle
            except BaseException:
                # Nothing half-registered: the tasks that took their piece let it go.
                self._deregister(handles)
                raise
            # A feed goes to the task its key's device is on (the device that reads it),
            # a fetch comes from the task that computes it (`partition`'s near_use).
            feeds_by_task: dict[str, list[int]] = {}
            for j, feed_key in enumerate(cut.feed_keys):
                feeds_by_task.setdefault(task_of(parse_key(feed_key).src_device), []).append(j)
            fetches_by_task: dict[str, list[str]] = {}
            for fetch_key in cut.fetch_keys:
                fetches_by_task.setdefault(task_of(parse_key(fetch_key).src_device),
                                           []).append(fetch_key)
            registered = _Registered(cut, handles, feeds_by_task, fetches_by_task)
            self._steps[key] = registered
            return registered

    def _cleanup(self, step_id: int, registered: _Registered, ended_well: bool) -> None:
        """CleanupGraph of a partial run's step on its tasks (after it ended well, only
        on those that do not clean up by themselves), waited for."""
        for task in registered.handles:
            if not (ended_well and task in self._self_cleaning):
                _quietly(self._workers.get(task).cleanup_graph,
                         pb.CleanupGraphRequest(step_id=step_id))

    def _deregister(self, handles: dict[str, str]) -> None:
        """DeregisterGraph of each task's handle, errors ignored (the task may be gone)."""
        for task, handle in handles.items():
            _quietly(self._workers.get(task).deregister_graph, pb.DeregisterGraphRequest(
                session_handle=self.handle, graph_handle=handle,
                create_worker_session_called=True))

    def _ensure_worker_session(self, task: str) -> None:
        if task in self._worker_sessions:
            return
        self._workers.get(task).create_worker_session(pb.CreateWorkerSessionRequest(
            session_handle=self.handle, isolate_session_state=self.config.isolate_session_state))
        self._worker_sessions.add(task)

    def run_step(self, request: pb.RunStepRequest, caller: Any = None) -> pb.RunStepResponse:
        if self._closed:
            raise FailedPreconditionError("the session is closed")
        if request.partial_run_handle:
            with self._lock:
                run = self._partial_runs.get(request.partial_run_handle)
            if run is None:
                raise InvalidArgumentError(MUST_SETUP)
            try:
                return run.run(request)
            finally:
                if run.over:
                    with self._lock:
                        self._partial_runs.pop(request.partial_run_handle, None)
        feed_names = tuple(item.name for item in request.feed)
        if len(set(feed_names)) != len(feed_names):
            raise InvalidArgumentError("the same tensor is fed twice")
        key = (feed_names, tuple(request.fetch), tuple(request.target))
        registered = self._register(key)
        cut = registered.cut
        fed = [_check_feed(spec, tensor_from_proto(item.tensor, f"feed {item.name!r}"))
               for spec, item in zip(cut.feeds, request.feed)]
        timeout = None
        if request.options.timeout_in_ms > 0:
            timeout = request.options.timeout_in_ms / 1000
        elif self.config.operation_timeout_in_ms > 0:
            timeout = self.config.operation_timeout_in_ms / 1000
        remaining = caller.remaining() if caller is not None else None
        if remaining is not None:
            timeout = remaining if timeout is None else min(timeout, remaining)
        step = StepState(None, None, timeout)
        response = pb.RunStepResponse()
        options = pb.ExecutorOpts(
            record_timeline=request.options.trace_level != config_pb2.RunOptions.NO_TRACE,
            record_partition_graphs=request.options.output_partition_graphs)
        values = self._run_graphs(registered, fed, step, caller, options, response.metadata)
        for name, (source, k) in zip(request.fetch, cut.fetch_sources):
            value = values[cut.fetch_keys[k]] if source == "recv" else fed[k]
            response.tensor.add(name=name, tensor=tensor_to_proto(value, f"fetch {name!r}"))
        return response

    def _run_graphs(self, registered: _Registered, fed: list, step: StepState, caller: Any,
                    options: pb.ExecutorOpts, metadata: config_pb2.RunMetadata
                    ) -> dict[str, Any]:
        """One RunGraph per task at once; the fetched values by rendezvous key. What
        `options` asks to record goes into `metadata`, the tasks' stats in task order."""
        step_id = random.getrandbits(63) or 1
        cut = registered.cut
        requests = {}
        described: dict[str, pb.RunGraphResponse] = {}
        for task, handle in registered.handles.items():
            request = pb.RunGraphRequest(session_handle=self.handle, graph_handle=handle,
                                         step_id=step_id, create_worker_session_called=True,
                                         exec_opts=options)
            if self._workers.get(task) is not self._workers.local_worker:
                for j in registered.feeds.get(task, ()):
                    request.send.add(name=cut.feed_keys[j],
                                     tensor=tensor_to_proto(fed[j], "feed"))
                request.recv_key.extend(registered.fetches.get(task, ()))
            requests[task] = request
        errors: list[tuple[str, BaseException]] = []
        results: dict[str, Any] = {}
        lock = threading.Lock()
        tasks = list(requests)
        cleanups: list[Any] = []

        def end_everywhere(ended_well: bool = False) -> None:
            """CleanupGraph on every task, once: it stops what still runs of the step.
            After a step that ended well, tfx workers have cleaned up already."""
            with lock:
                if cleanups:
                    return
                step.cancelled.set()
                cleanups.extend(_POOL.submit(_quietly, self._workers.get(task).cleanup_graph,
                                             pb.CleanupGraphRequest(step_id=step_id))
                                for task in tasks
                                if not (ended_well and task in self._self_cleaning))

        def run(task: str) -> None:
            worker = self._workers.get(task)
            try:
                if worker is self._workers.local_worker:
                    # This process's task: the values, without encoding them for the wire.
                    trace = StepTrace() if options.record_timeline else None
                    handle = registered.handles[task]
                    fetch_keys = registered.fetches.get(task, [])
                    values = worker.run_step(
                        self.handle, handle, step_id,
                        {cut.feed_keys[j]: fed[j] for j in registered.feeds.get(task, ())},
                        fetch_keys, step, trace)
                    results.update(zip(fetch_keys, values))
                    described[task] = response = pb.RunGraphResponse()
                    worker.describe_step(self.handle, handle, trace,
                                         options.record_partition_graphs, response)
                    return
                response = worker.run_graph(requests[task], step)
                raise_status(response.status_code, response.status_error_message)
                described[task] = response
            except BaseException as exc:  # noqa: BLE001 - collected, the first is raised
                with lock:
                    errors.append((task, exc))
                end_everywhere()  # the other tasks' calls return once their steps stop
                return
            for item in response.recv:
                results[item.name] = tensor_from_proto(item.tensor, f"fetch from {task}")

        results_ready = threading.Event()
        if caller is not None:  # the client gave up: stop the step everywhere
            caller.add_callback(lambda: results_ready.is_set() or end_everywhere())
        with self._lock:
            self._running[step_id] = end_everywhere  # closing the session ends it
        futures = [_POOL.submit(run, task) for task in tasks[1:]]
        try:
            if tasks:
                run(tasks[0])
        finally:
            for future in futures:
                future.result()
            results_ready.set()
            with self._lock:
                self._running.pop(step_id, None)
        end_everywhere(ended_well=not errors)
        if errors:
            # Wait until the step has stopped everywhere, so the next step meets none of it.
            for cleanup in cleanups:
                cleanup.result()
        if errors:
            raise _root_cause(errors)
        for task in tasks:
            response = described[task]
            metadata.step_stats.dev_stats.extend(response.step_stats.dev_stats)
            metadata.partition_graphs.extend(response.partition_graph)
        return results

    # --- partial runs -------------------------------------------------------------------
    def partial_run_setup(self, request: pb.PartialRunSetupRequest
                          ) -> pb.PartialRunSetupResponse:
        """Register the step of a partial run with the tasks and start it on each (the
        steps of TensorFlow's PartialRunSetup); its RunSteps feed and fetch it."""
        if self._closed:
            raise FailedPreconditionError("the session is closed")
        feeds = tuple(dict.fromkeys(request.feed))
        fetches = tuple(dict.fromkeys(request.fetch))
        targets = tuple(dict.fromkeys(request.target))
        check_setup(feeds, fetches)
        registered = self._register((feeds, fetches, targets))
        with self._lock:
            graph = self._graph
        book = PartialRunBook(feeds, fetches, feeds_needed(graph, fetches, feeds))
        run = _PartialRun(self, registered, book)
        run.start()
        with self._lock:
            self._partial_run_count += 1
            handle = f"{self.handle}/partial_run_{self._partial_run_count}"
            self._partial_runs[handle] = run
        return pb.PartialRunSetupResponse(partial_run_handle=handle)

    def close(self) -> None:
        """Cancel the steps still running (as TensorFlow's CloseSession does: a queue
        runner's step blocked on a ps task returns), then release the workers' state."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            steps = list(self._steps.values())
            self._steps.clear()
            sessions = list(self._worker_sessions)
            running = list(self._running.values())
            partial_runs = list(self._partial_runs.values())
            self._partial_runs.clear()
        for end_everywhere in running:
            end_everywhere()
        for run in partial_runs:
            run.end()
        for registered in steps:
            self._deregister(registered.handles)
        for task in sessions:
            _quietly(self._workers.get(task).delete_worker_session,
                     pb.DeleteWorkerSessionRequest(session_handle=self.handle))


class _PartialRun:
    """A partial run on the cluster: its step started on every task at setup (RunGraph
    with `is_partial`), then per RunStep one RunGraph to each task the call feeds or
    fetches from; the call that completes the run ends it on every task
    (`is_last_partial_run`). A failure ends it everywhere (CleanupGraph)."""

    def __init__(self, session: MasterSession, registered: _Registered,
                 book: PartialRunBook) -> None:
        self._session = session
        self._registered = registered
        self._book = book
        self._step_id = random.getrandbits(63) or 1
        self._lock = threading.Lock()
        self.over = False

    def _request(self, task: str) -> pb.RunGraphRequest:
        return pb.RunGraphRequest(
            session_handle=self._session.handle, graph_handle=self._registered.handles[task],
            step_id=self._step_id, create_worker_session_called=True, is_partial=True)

    def _call_all(self, requests: dict[str, pb.RunGraphRequest]) -> dict[str, Any]:
        """The RunGraphs at once; the values they return by key. A failure ends the run
        on every task; the cause is raised, not the cancellations it caused."""
        workers = self._session._workers
        results: dict[str, Any] = {}
        errors: list[tuple[str, BaseException]] = []

        def call(task: str) -> None:
            try:
                response = workers.get(task).run_graph(requests[task])
                raise_status(response.status_code, response.status_error_message)
                for item in response.recv:
                    results[item.name] = tensor_from_proto(item.tensor, f"fetch from {task}")
            except BaseException as exc:  # noqa: BLE001 - collected, the cause is raised
                errors.append((task, exc))
                if not _derived(exc):
                    # Stop what still waits elsewhere. A cancellation caused by another
                    # task's failure does not end the run: that task's call, still on its
                    # way, would find its step gone and the cause would be lost.
                    self.end()

        for future in [_POOL.submit(call, task) for task in requests]:
            future.result()
        if errors:
            self.end()
            raise _root_cause(errors)
        return results

    def start(self) -> None:
        self._call_all({task: self._request(task) for task in self._registered.handles})

    def run(self, request: pb.RunStepRequest) -> pb.RunStepResponse:
        cut = self._registered.cut
        book = self._book
        fetches = list(request.fetch)
        with self._lock:
            if self.over:
                raise InvalidArgumentError(MUST_SETUP)
            book.check(fetches, [item.name for item in request.feed])
            requests: dict[str, pb.RunGraphRequest] = {}
            for item in request.feed:  # checked here, so a bad value sends nothing
                j = book.feeds[item.name]
                value = _check_feed(cut.feeds[j], tensor_from_proto(item.tensor,
                                                                    f"feed {item.name!r}"))
                key = cut.feed_keys[j]
                task = task_of(parse_key(key).src_device)
                requests.setdefault(task, self._request(task)).send.add(
                    name=key, tensor=tensor_to_proto(value, "feed"))
            keys = []
            for name in fetches:
                _, k = cut.fetch_sources[book.fetches[name]]
                keys.append(cut.fetch_keys[k])
                task = task_of(parse_key(keys[-1]).src_device)
                requests.setdefault(task, self._request(task)).recv_key.append(keys[-1])
            book.record(fetches, [item.name for item in request.feed])
            last = book.done
            if last:  # every task finishes the step with this call
                for task in self._registered.handles:
                    requests.setdefault(task, self._request(task)).is_last_partial_run = True
        values = self._call_all(requests)
        if last:
            self.over = True
            self._session._cleanup(self._step_id, self._registered, ended_well=True)
        response = pb.RunStepResponse()
        for name, key in zip(fetches, keys):
            response.tensor.add(name=name, tensor=tensor_to_proto(values[key],
                                                                  f"fetch {name!r}"))
        return response

    def end(self) -> None:
        """Stop the run on every task (CleanupGraph), once."""
        with self._lock:
            if self.over:
                return
            self.over = True
        self._session._cleanup(self._step_id, self._registered, ended_well=False)


def _quietly(call: Any, request: Any) -> None:
    try:
        call(request)
    except TfxError:
        pass  # the worker is gone or already forgot: nothing is left to release


def _derived(error: BaseException) -> bool:
    """Whether `error` may be the effect of another failure of the step (a cancellation)."""
    return isinstance(error, (CancelledError, AbortedError))


def _root_cause(errors: list[tuple[str, BaseException]]) -> BaseException:
    for _, error in errors:
        if not _derived(error):
            return error
    return errors[0][1]


class Master:
    """The MasterService of one task: the sessions its clients created.

    Args:
        workers: the cluster's workers (`WorkerCache`).
        default_config: the server's default session ConfigProto.
    """

    def __init__(self, workers: WorkerCache,
                 default_config: config_pb2.ConfigProto | None = None) -> None:
        self.workers = workers
        self._default_config = default_config or config_pb2.ConfigProto()
        self._sessions: dict[str, MasterSession] = {}
        self._lock = threading.Lock()

    def _session(self, handle: str) -> MasterSession:
        with self._lock:
            session = self._sessions.get(handle)
        if session is None:
            raise AbortedError(f"session {handle!r} is not found: it was closed or the server "
                               "restarted")
        return session

    def create_session(self, request: pb.CreateSessionRequest) -> pb.CreateSessionResponse:
        config = config_pb2.ConfigProto()
        config.CopyFrom(self._default_config)
        config.MergeFrom(request.config)
        handle = uuid.uuid4().hex
        session = MasterSession(handle, request.graph_def, config, self.workers)
        with self._lock:
            self._sessions[handle] = session
        return pb.CreateSessionResponse(session_handle=handle, graph_version=session.version)

    def extend_session(self, request: pb.ExtendSessionRequest) -> pb.ExtendSessionResponse:
        session = self._session(request.session_handle)
        version = session.extend(request.graph_def, request.current_graph_version)
        return pb.ExtendSessionResponse(new_graph_version=version)

    def run_step(self, request: pb.RunStepRequest, caller: Any = None) -> pb.RunStepResponse:
        try:
            return self._session(request.session_handle).run_step(request, caller)
        except TfxError as exc:
            if not request.store_errors_in_response_body:
                raise
            code, message = status_of(exc)
            return pb.RunStepResponse(status_code=code, status_error_message=message)

    def partial_run_setup(self, request: pb.PartialRunSetupRequest
                          ) -> pb.PartialRunSetupResponse:
        return self._session(request.session_handle).partial_run_setup(request)

    def close_session(self, request: pb.CloseSessionRequest) -> pb.CloseSessionResponse:
        with self._lock:
            session = self._sessions.pop(request.session_handle, None)
        if session is None:
            raise AbortedError(f"session {request.session_handle!r} is not found")
        session.close()
        return pb.CloseSessionResponse()

    def list_devices(self, request: pb.ListDevicesRequest) -> pb.ListDevicesResponse:
        """Every task's devices, or those a session's device_filters keep."""
        with self._lock:
            session = self._sessions.get(request.session_handle)
        filters = DeviceFilters(session.config.device_filters if session is not None else ())
        response = pb.ListDevicesResponse()
        for task in self.workers.tasks:
            if not filters.reaches(task):
                continue
            status = self.workers.get(task).get_status(pb.GetStatusRequest())
            target = response.local_device if task == self.workers.local_task \
                else response.remote_device
            target.extend(d for d in status.device_attributes if filters.keeps(d.name))
        return response

    def reset(self, request: pb.ResetRequest) -> pb.ResetResponse:
        """Close every session and release the workers' resources (of the named containers,
        or all), as TensorFlow's Reset."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for session in sessions:
            session.close()
        for task in self.workers.tasks:
            _quietly(self.workers.get(task).cleanup_all,
                     pb.CleanupAllRequest(container=request.container))
        return pb.ResetResponse()


def raise_status(code: int, message: str) -> None:
    """Raise the error a response body carries (`store_errors_in_response_body`)."""
    if code:
        raise error_from_status(code, message)
