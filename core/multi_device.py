"""Run a step across several devices: one executor per partition, joined by a rendezvous.

    with MultiDeviceSession("model.pb", devices="cpu:0,cpu:1") as sess:
        probs = sess.run("probs:0", {"x:0": x})   # same values as tfx.Session

`MultiDeviceSession` places the graph (`tfx.core.placer`, or keeps the
devices it already has) and, per step signature (feeds, fetches, targets),
cuts it for that step (`tfx.core.partitioner`): as TensorFlow does, each fed
tensor becomes a client-terminated `_Recv` and each fetched tensor gets a
client-terminated `_Send`; unlike TensorFlow, which puts both on the client's
device, the Recv goes on the device that reads the feed (when one device
does) and the Send on the device that computes the fetch, so no value takes
a detour through the client's device (`partition(near_use=True)`). Each partition is
compiled into a plan by `plan_builder.build_plan` with no feeds and no
fetches of its own: everything a partition takes in or gives out goes through
the step's rendezvous. As in a Session, the kernels of stateful nodes are the
session's (`plan_builder.OpSegment`): the partition plans of all steps share one
kernel per node and device, so a seeded random op draws one stream. A step is
then what a worker's RunGraph is (`run_partitions`): the client leaves each
feed in the rendezvous under its key, every partition runs at once, each on
its own thread with its own executor, sharing one `StepState` (the resource
manager, the step's `LocalRendezvous`, cancellation and deadline), and the
client takes each fetch from the rendezvous under its key. A partition only
sees its graph and a rendezvous, so it could as well run on a remote worker. A
virtual device is one compute unit: its partition runs one kernel at a time on
its own thread (the executor's compute pool is not used), which is what the
placer simulates, so two towers on two devices use two cores and on one device
one. (A plain `Session` is not a device in this sense: its executor hands large
independent kernels to a pool.)

`prepare_step` finds what each partition must run: the fetches' Sends and the
targets, and, following each needed `_Recv` to its `_Send` in another
partition, the Sends that feed it; a feed's Recv has no Send to follow (the
client sends it). A fetch of a fed tensor is answered with the fed value.
Errors and cancellations reach every partition: the first failure aborts the
rendezvous and cancels the step, and the error raised is that first failure,
not the cancellations it caused.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tfx.core.cost_model import CostModel
from tfx.core.devices import DeviceSet
from tfx.core.errors import (
    CancelledError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)
from tfx.core.executor import StepState, run_plan
from tfx.core.graph import Graph, Output
from tfx.core.partitioner import PartitionedGraph, partition
from tfx.core.placer import Placement, place
from tfx.core.plan_builder import FeedSpec, OpSegment, PreparedStep, build_plan, feed_spec
from tfx.core.rendezvous import LocalRendezvous, parse_key
from tfx.core.session import (
    Session,
    _check_feed,
    _flatten,
    _is_tensor_name,
    _name_of,
    _unflatten,
)
from tfx.kernels.base import DEAD


@dataclass(frozen=True)
class PartitionJob:
    """What one partition runs in a step: its device and its plan (no feeds, no fetches)."""

    device: str
    prepared: PreparedStep


@dataclass(frozen=True)
class PartitionedStep:
    """A compiled multi-device step.

    Attributes:
        feeds: how each fed value is checked, in the step's feed order.
        feed_keys: the rendezvous key each feed is sent under.
        fetch_keys: the rendezvous key of each fetch the partitions send.
        fetch_sources: per requested fetch, ("recv", k) for `fetch_keys[k]` or ("feed", j)
            for a fed tensor fetched back.
        jobs: the partitions that run.
        partitions: the graph as cut for this step.
    """

    feeds: tuple[FeedSpec, ...]
    feed_keys: tuple[str, ...]
    fetch_keys: tuple[str, ...]
    fetch_sources: tuple[tuple[str, int], ...]
    jobs: tuple[PartitionJob, ...]
    partitions: PartitionedGraph


@dataclass(frozen=True)
class StepPartition:
    """One device's graph for a step: what it runs (`targets`) and where (`device`)."""

    device: str
    graph: Graph
    targets: tuple[str, ...]


@dataclass(frozen=True)
class CutStep:
    """A step cut into device graphs, not yet compiled (fields as in PartitionedStep)."""

    feeds: tuple[FeedSpec, ...]
    feed_keys: tuple[str, ...]
    fetch_keys: tuple[str, ...]
    fetch_sources: tuple[tuple[str, int], ...]
    partitions: tuple[StepPartition, ...]
    parts: PartitionedGraph


# --- preparing a step ------------------------------------------------------------------------


def prepare_step(graph: Graph, feeds: Sequence[str], fetches: Sequence[str],
                 targets: Sequence[str], *, client: str,
                 incarnations: Mapping[str, int] | None = None,
                 device_types: Mapping[str, str] | None = None,
                 kernels: OpSegment | None = None,
                 partial: bool = False) -> PartitionedStep:
    """Cut a placed graph for one step signature (`cut_step`) and compile each partition.

    Args:
        graph: the placed graph (every node with a full device name).
        feeds, fetches: tensor names.
        targets: op names.
        client: the client's device, where feeds arrive and fetches leave.
        incarnations: device -> incarnation (default: a stable number per name).
        device_types: device -> type whose kernels run there (default "CPU").
        kernels: the session's OpSegment: a stateful node's kernel is shared with the
            session's other steps (None: each partition plan has kernels of its own).
        partial: a partial run's step (`tfx.core.partial_run`): its feeds arrive while it
            runs, and a lone device runs independent kernels at once, as a Session.

    Returns:
        The PartitionedStep.

    Example:
        >>> step = prepare_step(graph, ["x:0"], ["y:0"], [], client=devices.client)
        >>> run_step(step, [x], StepState(resources))
    """
    cut = cut_step(graph, feeds, fetches, targets, client=client, incarnations=incarnations)
    whole_machine = partial and len(cut.partitions) == 1
    jobs = tuple(compile_partition(piece, (device_types or {}).get(piece.device, "CPU"), kernels,
                                   one_kernel_at_a_time=not whole_machine)
                 for piece in cut.partitions)
    return PartitionedStep(cut.feeds, cut.feed_keys, cut.fetch_keys, cut.fetch_sources, jobs,
                           cut.parts)


def cut_step(graph: Graph, feeds: Sequence[str], fetches: Sequence[str],
             targets: Sequence[str], *, client: str,
             incarnations: Mapping[str, int] | None = None,
             numbers: Iterator[int] | None = None) -> CutStep:
    """Cut a placed graph for one step signature: one step graph per device that runs.

    Each step graph is its device's partition; its targets are the Sends it runs and the
    step's targets there. This is
    what a master registers with the workers (`tfx.core.distributed.master`), which
    passes one counter (`numbers`) for all of a session's cuts (see `partition`).
    """
    feed_outputs = [_tensor(graph, name, "feed") for name in feeds]
    fed = {out.name: j for j, out in enumerate(feed_outputs)}
    if len(fed) != len(feed_outputs):
        raise InvalidArgumentError("the same tensor is fed twice")
    for name in targets:
        if name not in graph:
            raise NotFoundError(f"target {name!r}: {_missing(graph, name)}")
    fetch_names = [_tensor(graph, name, "fetch").name for name in fetches]
    sent = list(dict.fromkeys(name for name in fetch_names if name not in fed))
    parts = partition(graph, incarnations, feeds=list(fed), fetches=sent, client=client,
                      near_use=True, numbers=numbers)

    by_recv = {(t.recv_device, t.recv_node): t for t in parts.transfers}
    # Walk back from fetches and targets through every partition, Recv -> Send.
    needed: dict[str, set[str]] = {d: set() for d in parts.graphs}
    stack = [(f.device, f.node) for f in parts.fetches]
    stack += [(parts.device_of[name], name) for name in targets]
    while stack:
        device, name = stack.pop()
        if name in needed[device]:
            continue
        needed[device].add(name)
        node = parts.graphs[device].node(name)
        stack += [(device, s.node.name) for s in node.inputs]
        stack += [(device, c.name) for c in node.control_inputs]
        transfer = by_recv.get((device, name))
        if transfer is not None:
            stack.append((transfer.send_device, transfer.send_node))

    pieces = []
    for device, partition_graph in parts.graphs.items():
        if not needed[device]:
            continue
        step_targets = [t.send_node for t in parts.transfers
                        if t.send_device == device and t.send_node in needed[device]]
        step_targets += [f.node for f in parts.fetches if f.device == device]
        step_targets += [name for name in targets if parts.device_of[name] == device]
        pieces.append(StepPartition(device, partition_graph, tuple(step_targets)))
    key_of = {f.tensor: k for k, f in enumerate(parts.fetches)}
    fetch_sources = tuple(("feed", fed[name]) if name in fed else ("recv", key_of[name])
                          for name in fetch_names)
    feed_specs = tuple(feed_spec(o) for o in feed_outputs)
    return CutStep(feed_specs, tuple(f.key for f in parts.feeds),
                   tuple(f.key for f in parts.fetches), fetch_sources, tuple(pieces), parts)


def compile_partition(piece: StepPartition, device_type: str = "CPU",
                      kernels: OpSegment | None = None, *,
                      one_kernel_at_a_time: bool = True) -> PartitionJob:
    """Build the plan one device runs for a step (no feeds, no fetches of its own).

    A device runs one kernel at a time, on its partition's thread, as the placer's
    simulation assumes of the virtual devices that share this process's cores:
    parallelism comes from the devices. A device that is a whole machine (a task's
    only CPU) runs independent expensive kernels at once, as a Session does
    (`one_kernel_at_a_time=False`).
    """
    prepared = build_plan(piece.graph, [], [], list(piece.targets), device_type,
                          kernels=kernels)
    if one_kernel_at_a_time:
        for plan_node in prepared.plan.nodes:
            plan_node.expensive = False
    return PartitionJob(piece.device, prepared)


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


# --- running a step ----------------------------------------------------------------------


def run_step(step: PartitionedStep, feed_values: Sequence[Any], state: StepState) -> list[Any]:
    """Run every partition of a step at once; return the values of `step.fetch_keys`.

    The feeds go into the step's rendezvous under `step.feed_keys` first, as the client's
    sends; `state.rendezvous` is replaced by a fresh LocalRendezvous for the step.
    """
    return run_partitions(step.jobs, state, dict(zip(step.feed_keys, feed_values)),
                          step.fetch_keys)


def run_partitions(jobs: Sequence[PartitionJob], state: StepState, sends: Mapping[str, Any],
                   recv_keys: Sequence[str],
                   rendezvous: LocalRendezvous | None = None) -> list[Any]:
    """What a worker's RunGraph does: leave `sends` (rendezvous key -> value) in the step's
    rendezvous, run `jobs` at once, and take the value of each of `recv_keys`.

    Args:
        jobs: the partitions to run.
        state: the step's state; its rendezvous becomes `rendezvous`.
        sends: the client's tensors, by rendezvous key (the feeds).
        recv_keys: the keys of the tensors the client takes (the fetches).
        rendezvous: the step's rendezvous (default: a fresh LocalRendezvous); a worker's
            also fetches what other tasks send (`tfx.core.distributed.rendezvous`).

    Returns:
        The received values, in the order of `recv_keys`.

    Raises:
        The first partition's failure (not the cancellations it caused);
        InvalidArgumentError for a fetch whose value is dead.
    """
    if rendezvous is None:
        rendezvous = LocalRendezvous()
    state.rendezvous = rendezvous
    for key, value in sends.items():
        rendezvous.send(key, value)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(job: PartitionJob) -> None:
        try:
            run_plan(job.prepared.plan, [], state)
        except BaseException as exc:  # noqa: BLE001 - every partition's failure is collected
            with lock:
                errors.append(exc)
            state.cancelled.set()
            rendezvous.abort(CancelledError(
                f"the step was cancelled: the partition on {job.device} failed"
            ))

    threads = [threading.Thread(target=run, args=(job,), name=f"tfx-partition-{i}",
                                daemon=True)
               for i, job in enumerate(jobs[1:], 1)]
    for thread in threads:
        thread.start()
    try:
        if jobs:
            run(jobs[0])
    finally:
        for thread in threads:
            _join(thread, state, rendezvous)
    if errors:
        raise _root_cause(errors)
    return [_received(rendezvous, key) for key in recv_keys]


def _received(rendezvous: LocalRendezvous, key: str) -> Any:
    """A fetch the partitions sent, once they have all finished."""
    value = rendezvous.take(key)
    if value is DEAD:
        raise InvalidArgumentError(
            f"fetch {parse_key(key).tensor_name!r} has no value: its value is dead (it lies "
            "on an untaken branch of a conditional)"
        )
    return value


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

    The devices are this process's: virtual CPUs, and GPUs through CuPy
    (`DeviceSet.runnable`); a GPU partition's kernels keep their tensors in GPU
    memory, and its Sends and Recvs copy to and from the host.

    Args:
        graph: as for Session (path, bytes, GraphDef or Graph; a Graph is copied).
        devices: a DeviceSet or a `--devices` string such as "cpu:0,cpu:1" or "cpu:0,gpu:0".
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
        device_set = device_set.runnable()
        self.device_set = device_set
        cost_model = CostModel(self.graph, input_shapes=input_shapes)
        self.placement: Placement = place(self.graph, device_set, cost_model=cost_model,
                                          soft_placement=soft_placement, strategy=strategy)
        self._incarnations = {d.name: d.incarnation for d in device_set}
        # The whole graph cut once, for inspection; each step cuts it for its feeds and
        # fetches (`steps`).
        self.partitions = partition(self.graph, self._incarnations)
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
            # Optimized as a one-device session optimizes; the passes keep the devices.
            step = prepare_step(self._step_graph(*key), *key, client=self.device_set.client,
                                incarnations=self._incarnations, device_types=self._types,
                                kernels=self._kernels)
            with self._lock:
                step = self._steps.setdefault(key, step)
        converted = [_check_feed(spec, value) for spec, value in zip(step.feeds, feed_values)]
        state = StepState(self._resources, None, timeout if timeout is not None else self._timeout)
        results = run_step(step, converted, state)
        values = [results[k] if source == "recv" else converted[k]
                  for source, k in step.fetch_sources]
        return _unflatten(structure, iter(values))

    def _partial_step(self, feeds: tuple, fetches: tuple, targets: tuple
                      ) -> tuple[PartitionedStep, Graph]:
        """A partial run's step, across the session's devices as its placement says."""
        graph = self._step_graph(feeds, fetches, targets)
        step = prepare_step(graph, feeds, fetches, targets, client=self.device_set.client,
                            incarnations=self._incarnations, device_types=self._types,
                            kernels=self._kernels, partial=True)
        return step, graph

    @property
    def steps(self) -> dict[tuple, PartitionedStep]:
        """The compiled steps, by (feeds, fetches, targets)."""
        return dict(self._steps)
