"""Run a step across several devices: one executor per partition, joined by a rendezvous.

    with MultiDeviceSession("model.pb", devices="cpu:0,cpu:1") as sess:
        probs = sess.run("probs:0", {"x:0": x})   # same values as tfx.Session

`MultiDeviceSession` places the graph (`tfx.core.placer`, or keeps the
devices it already has), cuts it (`tfx.core.partitioner`) and runs each step
as one plan per partition, built by `plan_builder.build_plan` on the partition
graph. All partitions of a step run at once, each on its own thread with its
own executor, sharing one `StepState`: the resource manager, the step's
`LocalRendezvous`, cancellation and deadline. A partition only sees its graph,
its feeds and a rendezvous, so it could as well run on a remote worker. A
virtual device is one compute unit: its partition runs one kernel at a time on
its own thread (the executor's compute pool is not used), which is what the
placer simulates, so two towers on two devices use two cores and on one device
one. (A plain `Session` is not a device in this sense: its executor hands large
independent kernels to a pool.)

Per step signature (feeds, fetches, targets), `prepare_step` finds what each
partition must run: the fetches and targets, and, following each needed
`_Recv` to its `_Send` in another partition, the Sends that feed it, stopping
at fed tensors (a fed tensor is given to every partition that reads it, at the
Recv that carries it there). Errors and cancellations reach every partition:
the first failure aborts the rendezvous and cancels the step, and the error
raised is that first failure, not the cancellations it caused.

Two things the executor does not do yet are made up for here, in the graphs
each step runs (the partition graphs written by `tfx partition` stay as
TensorFlow writes them):

* the executor does not run a node whose input is dead, so a Send on an
  untaken branch never runs. Each Send whose value may be dead gets a
  *resolver*: Merge(token) after the Send (a Merge fires even if its control
  input is dead), sending `<tensor_name>/_resolved`; the rendezvous reads a
  resolver without a value as "dead" (`tfx.core.rendezvous`);
* a Recv blocks a thread of the executor's blocking pool while it waits, and
  that pool is bounded, so many waiting Recvs could starve the ones that
  would make progress. A partition's Recvs are therefore chained in the
  topological order of the tensors they carry (each waits for the previous
  through a Merge gate), so at most one per partition waits at a time; a
  topological order keeps the chain free of cycles.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.cost_model import CostModel
from tfx.core.devices import DeviceSet
from tfx.core.eager import make_node_def
from tfx.core.errors import (
    CancelledError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    UnimplementedError,
)
from tfx.core.executor import StepState, run_plan
from tfx.core.graph import Graph, Node, Output
from tfx.core.partitioner import PartitionedGraph, Transfer, partition
from tfx.core.placer import Placement, place
from tfx.core.plan_builder import FeedSpec, PreparedStep, build_plan
from tfx.core.rendezvous import RESOLVED_SUFFIX, LocalRendezvous
from tfx.core.session import (
    Session,
    _check_feed,
    _flatten,
    _is_tensor_name,
    _name_of,
    _unflatten,
)
from tfx.protos import graph_pb2

_PLACEHOLDERS = ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault")


@dataclass(frozen=True)
class PartitionJob:
    """What one partition runs in a step.

    Attributes:
        device: the partition's device.
        prepared: its plan.
        feed_indices: for each of the plan's feeds, the index of the step feed it takes.
        fetch_indices: for each of the plan's fetches, the step's plan-fetch index.
    """

    device: str
    prepared: PreparedStep
    feed_indices: tuple[int, ...]
    fetch_indices: tuple[int, ...]


@dataclass(frozen=True)
class PartitionedStep:
    """A compiled multi-device step; `feeds` and `fetch_sources` read as a PreparedStep's."""

    feeds: tuple[FeedSpec, ...]
    fetch_sources: tuple[tuple[str, int], ...]
    num_fetches: int
    jobs: tuple[PartitionJob, ...]


# --- preparing a step ------------------------------------------------------------------------


def prepare_step(parts: PartitionedGraph, feeds: Sequence[str], fetches: Sequence[str],
                 targets: Sequence[str], device_types: Mapping[str, str] | None = None,
                 ) -> PartitionedStep:
    """Compile one step signature over the partitions.

    Args:
        parts: the partitioned graph.
        feeds, fetches: tensor names of the original graph.
        targets: op names of the original graph.
        device_types: device -> type whose kernels run there (default "CPU").

    Returns:
        The PartitionedStep.
    """
    source = parts.source
    feed_outputs = [_tensor(source, name, "feed") for name in feeds]
    fed = {out.name: j for j, out in enumerate(feed_outputs)}
    if len(fed) != len(feed_outputs):
        raise InvalidArgumentError("the same tensor is fed twice")
    for name in targets:
        if name not in source:
            raise NotFoundError(f"target {name!r}: {_missing(source, name)}")

    recv_of = {(t.source, t.recv_device): t for t in parts.transfers}
    by_recv = {(t.recv_device, t.recv_node): t for t in parts.transfers}
    # Per device: partition-local tensor name -> step feed index.
    local_feeds: dict[str, dict[str, int]] = {d: {} for d in parts.graphs}
    for name, j in fed.items():
        node = name.rsplit(":", 1)[0]
        local_feeds[parts.device_of[node]][name] = j
        for device in parts.graphs:
            transfer = recv_of.get((name, device))
            if transfer is not None:
                local_feeds[device][f"{transfer.recv_node}:0"] = j

    fetch_sources: list[tuple[str, int]] = []
    plan_fetches: dict[str, list[tuple[str, int]]] = {d: [] for d in parts.graphs}
    num_fetches = 0
    for out in (_tensor(source, name, "fetch") for name in fetches):
        if out.name in fed:
            fetch_sources.append(("feed", fed[out.name]))
            continue
        plan_fetches[parts.device_of[out.node.name]].append((out.name, num_fetches))
        fetch_sources.append(("plan", num_fetches))
        num_fetches += 1

    # Walk back from fetches and targets through every partition, Recv -> Send.
    needed: dict[str, set[str]] = {d: set() for d in parts.graphs}
    stack = [(parts.device_of[name.rsplit(":", 1)[0]], name.rsplit(":", 1)[0])
             for names in plan_fetches.values() for name, _ in names]
    stack += [(parts.device_of[name], name) for name in targets]
    while stack:
        device, name = stack.pop()
        if name in needed[device]:
            continue
        needed[device].add(name)
        node = parts.graphs[device].node(name)
        for source_out in node.inputs:
            if source_out.name not in local_feeds[device]:
                stack.append((device, source_out.node.name))
        stack += [(device, c.name) for c in node.control_inputs]
        transfer = by_recv.get((device, name))
        if transfer is not None:
            stack.append((transfer.send_device, transfer.send_node))

    may_be_dead = _may_be_dead(source)
    positions = {node.name: i for i, node in enumerate(source.topological_order())}
    jobs = []
    for device, graph in parts.graphs.items():
        if not needed[device]:
            continue
        sends = [t for t in parts.transfers
                 if t.send_device == device and t.send_node in needed[device]]
        recvs = [t for t in parts.transfers
                 if t.recv_device == device and t.recv_node in needed[device]]
        step_targets = [t.send_node for t in sends]
        step_targets += [name for name in targets if parts.device_of[name] == device]
        graph = _step_graph(graph, device, sends, recvs, may_be_dead, positions, step_targets)
        feed_names = [name for name in local_feeds[device]
                      if name.rsplit(":", 1)[0] in graph]
        fetch_names = [name for name, _ in plan_fetches[device]]
        prepared = build_plan(graph, feed_names, fetch_names, step_targets,
                              (device_types or {}).get(device, "CPU"))
        # A device runs one kernel at a time, on its partition's thread, as the placer's
        # simulation assumes: parallelism comes from the devices, not from a shared pool.
        for plan_node in prepared.plan.nodes:
            plan_node.expensive = False
        jobs.append(PartitionJob(
            device, prepared,
            tuple(local_feeds[device][name] for name in feed_names),
            tuple(k for _, k in plan_fetches[device]),
        ))
    feed_specs = tuple(FeedSpec(o.name, o.dtype.base, _placeholder_shape(o.node))
                       for o in feed_outputs)
    return PartitionedStep(feed_specs, tuple(fetch_sources), num_fetches, tuple(jobs))


def _tensor(graph: Graph, name: str, what: str) -> Output:
    try:
        return graph.tensor(name)
    except NotFoundError as exc:
        raise NotFoundError(f"{what} {name!r}: {exc}") from None


def _missing(graph: Graph, name: str) -> str:
    try:
        graph.node(name)
    except NotFoundError as exc:
        return str(exc)
    return ""


def _placeholder_shape(node: Node) -> tuple | None:
    if node.op in _PLACEHOLDERS:
        shape = node.attrs.get("shape")
        return tuple(shape) if shape is not None else None
    return None


def _may_be_dead(graph: Graph) -> set[str]:
    """Nodes whose outputs may be dead: everything downstream of a Switch."""
    seen: set[str] = set()
    stack = [n for n in graph if n.op in ("Switch", "RefSwitch")]
    while stack:
        node = stack.pop()
        if node.name in seen:
            continue
        seen.add(node.name)
        stack += list(node.users)
    return seen


def _step_graph(graph: Graph, device: str, sends: list[Transfer], recvs: list[Transfer],
                may_be_dead: set[str], positions: dict[str, int],
                targets: list[str]) -> Graph:
    """The partition graph plus this step's resolvers and Recv chain (see module doc)."""
    dead_sends = [t for t in sends if t.source_node in may_be_dead]
    if not dead_sends and len(recvs) < 2:
        return graph
    graph = Graph.from_graph_def(graph.to_graph_def())
    token = graph.add_node(graph.unique_name("_tfx_step/token"), "Const",
                           attr=_attrs("Const", dtype=dtypes.float32,
                                       value=np.zeros((), np.float32)),
                           device=device)
    for transfer in dead_sends:
        send = graph.node(transfer.send_node)
        gate = graph.add_node(graph.unique_name(f"{send.name}/_resolved_after"), "Merge",
                              [token.output(0)], [send],
                              _attrs("Merge", T=dtypes.float32, N=1), device)
        resolver = graph.add_node(
            graph.unique_name(f"{send.name}/_resolved"), "_Send", [gate.output(0)],
            attr=_attrs("_Send", T=dtypes.float32,
                        tensor_name=transfer.tensor_name + RESOLVED_SUFFIX,
                        send_device=transfer.send_device,
                        send_device_incarnation=transfer.incarnation,
                        recv_device=transfer.recv_device, client_terminated=False),
            device=device,
        )
        targets.append(resolver.name)
    ordered = sorted(recvs, key=lambda t: (positions[t.source_node], t.source))
    for before, after in zip(ordered, ordered[1:]):
        gate = graph.add_node(graph.unique_name(f"{after.recv_node}/_after"), "Merge",
                              [token.output(0)], [graph.node(before.recv_node)],
                              _attrs("Merge", T=dtypes.float32, N=1), device)
        graph.add_control_input(graph.node(after.recv_node), gate)
    return graph


def _attrs(op: str, **values: Any) -> dict[str, graph_pb2.AttrValue]:
    return dict(make_node_def(op, "_", [], values).attr)


# --- running a step ----------------------------------------------------------------------


def run_step(step: PartitionedStep, feed_values: Sequence[Any], state: StepState) -> list[Any]:
    """Run every partition of a step at once; return the plan fetches in order.

    `state.rendezvous` is replaced by a fresh LocalRendezvous for the step.
    """
    rendezvous = LocalRendezvous()
    state.rendezvous = rendezvous
    results: list[Any] = [None] * step.num_fetches
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(job: PartitionJob) -> None:
        try:
            values = run_plan(job.prepared.plan, [feed_values[j] for j in job.feed_indices],
                              state)
        except BaseException as exc:  # noqa: BLE001 - every partition's failure is collected
            with lock:
                errors.append(exc)
            state.cancelled.set()
            rendezvous.abort(CancelledError(
                f"the step was cancelled: the partition on {job.device} failed"
            ))
            return
        for k, value in zip(job.fetch_indices, values):
            results[k] = value

    threads = [threading.Thread(target=run, args=(job,), name=f"tfx-partition-{i}",
                                daemon=True)
               for i, job in enumerate(step.jobs[1:], 1)]
    for thread in threads:
        thread.start()
    try:
        if step.jobs:
            run(step.jobs[0])
    finally:
        for thread in threads:
            _join(thread, state, rendezvous)
    if errors:
        raise _root_cause(errors)
    return results


def _join(thread: threading.Thread, state: StepState, rendezvous: LocalRendezvous) -> None:
    try:
        thread.join()
    except BaseException:
        # Ctrl-C while waiting: cancel the step so the partition returns, then re-raise.
        state.cancelled.set()
        rendezvous.abort(CancelledError("the step was cancelled"))
        thread.join()
        raise


def _root_cause(errors: list[BaseException]) -> BaseException:
    """The first error that is not a cancellation caused by another partition's failure."""
    for error in errors:
        if not isinstance(error, CancelledError):
            return error
    return errors[0]


# --- the session ---------------------------------------------------------------------------


class MultiDeviceSession(Session):
    """A Session whose steps run across several local devices.

    Args:
        graph: as for Session (path, bytes, GraphDef or Graph; a Graph is copied).
        devices: a DeviceSet or a `--devices` string such as "cpu:0,cpu:1".
        timeout: default per-step timeout in seconds.
        soft_placement: relax device constraints no device satisfies.
        strategy: placement strategy ("greedy", "single", "default").
        input_shapes: tensor name -> shape for the cost model.

    Example:
        >>> with MultiDeviceSession("graphs/default.pbtxt", devices="cpu:0,cpu:1") as sess:
        ...     sess.run("probs:0")
    """

    def __init__(self, graph: Any, devices: DeviceSet | str = "cpu:0,cpu:1", *,
                 timeout: float | None = None, soft_placement: bool = False,
                 strategy: str = "greedy",
                 input_shapes: Mapping[str, Sequence[int | None]] | None = None) -> None:
        if isinstance(graph, Graph):
            graph = graph.to_graph_def()
        super().__init__(graph, timeout=timeout)
        device_set = devices if isinstance(devices, DeviceSet) else DeviceSet.from_names(devices)
        simulated = [d.name for d in device_set if not d.local or d.device_type != "CPU"]
        if simulated:
            raise UnimplementedError(
                f"cannot run on {', '.join(simulated)}: tfx runs steps on local CPU devices "
                "only (other devices can be planned for with tfx place)"
            )
        self.device_set = device_set
        cost_model = CostModel(self.graph, input_shapes=input_shapes)
        self.placement: Placement = place(self.graph, device_set, cost_model=cost_model,
                                          soft_placement=soft_placement, strategy=strategy)
        self.partitions = partition(
            self.graph, {d.name: d.incarnation for d in device_set}
        )
        self._types = {d.name: d.kernels for d in device_set}
        self._steps: dict[tuple, PartitionedStep] = {}

    def run(self, fetches: Any, feed_dict: Mapping[Any, Any] | None = None, *,
            timeout: float | None = None) -> Any:
        """Run one step across the devices; arguments and results as `Session.run`."""
        if self._closed:
            raise FailedPreconditionError("attempted to use a closed Session")
        flat: list[str] = []
        structure = _flatten(fetches, flat)
        feed_names: tuple[str, ...] = ()
        feed_values: list[Any] = []
        if feed_dict:
            feed_names = tuple(_name_of(k) for k in feed_dict)
            feed_values = list(feed_dict.values())
        tensor_fetches = tuple(n for n in flat if _is_tensor_name(n))
        targets = tuple(n for n in flat if not _is_tensor_name(n))
        key = (feed_names, tensor_fetches, targets)
        step = self._steps.get(key)
        if step is None:
            step = prepare_step(self.partitions, *key, self._types)
            with self._lock:
                step = self._steps.setdefault(key, step)
        converted = [_check_feed(spec, value) for spec, value in zip(step.feeds, feed_values)]
        state = StepState(self._resources, None, timeout if timeout is not None else self._timeout)
        results = run_step(step, converted, state)
        values = [results[k] if source == "plan" else converted[k]
                  for source, k in step.fetch_sources]
        return _unflatten(structure, iter(values))
