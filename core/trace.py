"""Step timelines: every kernel run as a slice, written as Chrome trace-event JSON.

A `StepTrace` is the executor's tracer: it is called once per kernel run with
the node's name, op and device, the start and end times (`perf_counter_ns`)
and the kernel's outputs, on the thread that ran the kernel. It keeps one
`KernelEvent` per call (names, shapes, dtypes and bytes; never the tensors),
so it can be handed to several steps, and several threads, at once.

`to_chrome_trace()` gives the trace-event format that Perfetto and
chrome://tracing open: one process per device, one thread track per executor
thread, a complete ("X") slice per kernel with op, node name, output shapes and
bytes in its args, and a flow arrow from each `_Send` to the `_Recv` that takes
its tensor (paired by the rendezvous attrs `tensor_name`, `send_device`,
`recv_device`, in the order they ran). `profile()` sums the same events per
node and per op type, as TensorFlow's benchmark_model reports them, and
`OpProfile.cost_profile()` writes the measured per-node costs in the
`tfx-profile` format the placer reads.

A GPU kernel's slice ends when the GPU has finished its work (the kernel's
`synchronize`), not when its launch returns, which is all a traced step waits
for beyond an untraced one.

`with recording(trace):` traces every step the process runs meanwhile, in any
session and on any thread (a multi-device step's partitions too): the executor
then runs each plan's traced copy, made once per plan by `instrument`, whose
kernels report every call. Outside such a block the executor pays one check
per step. A step may also carry a trace of its own (`StepState.tracer`), as a
worker traces a step its master asked it to.

`step_stats` turns events into TensorFlow's StepStats (wall-clock times; the
local CPU for a local session, each kernel's device for a worker), and
`StepTrace.add_step_stats` turns them back: a session whose steps run on a
cluster adds its tasks' kernels to the trace that is recording
(`active_trace`).
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from tfx.core import dtypes
from tfx.protos import config_pb2

if TYPE_CHECKING:
    from tfx.core.executor import Plan
    from tfx.core.graph import Graph

SEND_OPS = frozenset({"_Send", "_HostSend"})
RECV_OPS = frozenset({"_Recv", "_HostRecv"})
DEFAULT_DEVICE = "CPU"  # what an unplaced node runs on

# The tracer's signature: (node name, op, device, start ns, end ns, kernel outputs).
Tracer = Callable[[str, str, str, int, int, Sequence[Any]], None]


class KernelEvent(NamedTuple):
    """One kernel run."""

    name: str
    op: str
    device: str
    thread: int  # threading.get_ident() of the thread that ran it
    thread_name: str
    start_ns: int
    end_ns: int
    sizes: tuple[int, ...]  # bytes of each output (0 for a non-array value)
    shapes: tuple  # per output: a tuple of dims, or None for a non-array value
    dtypes: tuple  # per output: numpy dtype name, or None

    @property
    def output_bytes(self) -> int:
        return sum(self.sizes)


class StepTrace:
    """Collects kernel events; the tracer the executor calls.

    Args:
        graph: the graph being run, to pair Send/Recv nodes by their rendezvous attrs
            (optional: plans traced through `traced_plan` give the keys themselves).

    Example:
        >>> trace = StepTrace()
        >>> with recording(trace):
        ...     sess.run(fetches, feeds)
        >>> trace.write("trace.json")
        >>> print(trace.profile().to_text())
    """

    def __init__(self, graph: Graph | None = None) -> None:
        self.events: list[KernelEvent] = []
        self._transfer_keys: dict[str, tuple[str, str, str]] = {}
        self._traced: dict[int, tuple[Plan, Plan]] = {}  # id(plan) -> (plan, traced copy)
        self._lock = threading.Lock()
        if graph is not None:
            for node in graph:
                if node.op in SEND_OPS or node.op in RECV_OPS:
                    self._transfer_keys[node.name] = tuple(  # type: ignore[assignment]
                        _string_attr(node, key)
                        for key in ("tensor_name", "send_device", "recv_device"))

    def traced_plan(self, plan: Plan) -> Plan:
        """The copy of `plan` whose kernels report to this trace (made once per plan).

        Send/Recv kernels also give their rendezvous attrs, so the flows are drawn for
        partitions the trace was not given the graph of.
        """
        with self._lock:
            entry = self._traced.get(id(plan))
            if entry is not None and entry[0] is plan:
                return entry[1]
            for node in plan.nodes:
                if node.op in SEND_OPS or node.op in RECV_OPS:
                    attrs = getattr(node.kernel, "attrs", None) or {}
                    self._transfer_keys[node.name] = tuple(  # type: ignore[assignment]
                        str(attrs.get(key, ""))
                        for key in ("tensor_name", "send_device", "recv_device"))
            traced = instrument(plan, self)
            # Holding the plan keeps its id from being reused by another plan.
            self._traced[id(plan)] = (plan, traced)
            return traced

    def __call__(self, name: str, op: str, device: str, start_ns: int, end_ns: int,
                 outputs: Sequence[Any]) -> None:
        shapes, types, sizes = [], [], []
        for value in outputs:
            shape = getattr(value, "shape", None)
            dtype = getattr(value, "dtype", None)
            size = getattr(value, "nbytes", None)
            shapes.append(tuple(int(d) for d in shape) if isinstance(shape, tuple) else None)
            types.append(str(dtype) if dtype is not None and shape is not None else None)
            sizes.append(int(size) if hasattr(size, "__index__") else 0)
        thread = threading.current_thread()
        # list.append is atomic: kernels on pool threads report concurrently.
        self.events.append(KernelEvent(name, op, device or DEFAULT_DEVICE, thread.ident or 0,
                                       thread.name, start_ns, end_ns, tuple(sizes),
                                       tuple(shapes), tuple(types)))

    def add_partition_graphs(self, graph_defs: Iterable[Any]) -> None:
        """Learn the Send/Recv pairs of graphs other processes ran (a cluster step's
        partition graphs), so their transfers are drawn as flows too."""
        for graph_def in graph_defs:
            for node in graph_def.node:
                if node.op in SEND_OPS or node.op in RECV_OPS:
                    self._transfer_keys[node.name] = tuple(  # type: ignore[assignment]
                        _string_attr(node, key)
                        for key in ("tensor_name", "send_device", "recv_device"))

    def add_step_stats(self, stats: config_pb2.StepStats) -> None:
        """Add the kernels of TensorFlow StepStats (what a cluster's tasks recorded of a
        step, `step_stats`), their wall-clock times moved to this process's clock."""
        for dev_stats in stats.dev_stats:
            names = dict(dev_stats.thread_names)
            for node in dev_stats.node_stats:
                start = (node.all_start_nanos or node.all_start_micros * 1000) \
                    - _WALL_CLOCK_OFFSET_NS
                duration = node.all_end_rel_nanos or node.all_end_rel_micros * 1000
                label = node.timeline_label.partition(" = ")[2]
                op = label.partition("(")[0] or node.node_name
                sizes, shapes, types = [], [], []
                for output in sorted(node.output, key=lambda o: o.slot):
                    description = output.tensor_description
                    sizes.append(description.allocation_description.requested_bytes)
                    shapes.append(tuple(d.size for d in description.shape.dim))
                    types.append(_dtype_name(description.dtype))
                self.events.append(KernelEvent(
                    node.node_name, op, dev_stats.device, node.thread_id,
                    names.get(node.thread_id, str(node.thread_id)), start, start + duration,
                    tuple(sizes), tuple(shapes), tuple(types)))

    # --- the trace-event file ---------------------------------------------------------------
    def to_chrome_trace(self) -> dict[str, Any]:
        """The trace as a dict in Chrome's trace-event format (JSON object form)."""
        events = sorted(self.events, key=lambda e: e.start_ns)
        origin = events[0].start_ns if events else 0
        devices = sorted({e.device for e in events})
        pid = {d: i + 1 for i, d in enumerate(devices)}
        tids: dict[tuple[str, int], int] = {}
        out: list[dict[str, Any]] = []
        for device in devices:
            out.append({"ph": "M", "name": "process_name", "pid": pid[device], "tid": 0,
                        "args": {"name": device}})
            out.append({"ph": "M", "name": "process_sort_index", "pid": pid[device], "tid": 0,
                        "args": {"sort_index": pid[device]}})
        for event in events:
            key = (event.device, event.thread)
            if key not in tids:
                tids[key] = len([k for k in tids if k[0] == event.device]) + 1
                out.append({"ph": "M", "name": "thread_name", "pid": pid[event.device],
                            "tid": tids[key], "args": {"name": event.thread_name}})
        where: dict[int, tuple[int, int, float]] = {}
        for i, event in enumerate(events):
            ts = (event.start_ns - origin) / 1000.0
            place = (pid[event.device], tids[(event.device, event.thread)], ts)
            where[i] = place
            out.append({
                "ph": "X", "cat": "kernel", "name": event.op,
                "pid": place[0], "tid": place[1], "ts": round(ts, 3),
                "dur": round(max(event.end_ns - event.start_ns, 0) / 1000.0, 3),
                "args": {"name": event.name, "op": event.op, "device": event.device,
                         "output_shapes": [list(s) if s is not None else None
                                           for s in event.shapes],
                         "output_dtypes": list(event.dtypes),
                         "output_bytes": event.output_bytes},
            })
        for flow_id, (send, recv, tensor) in enumerate(self._transfer_pairs(events), start=1):
            (spid, stid, sts), (rpid, rtid, rts) = where[send], where[recv]
            # A Recv usually starts waiting before its Send runs: the arrow lands inside
            # the Recv slice no earlier than the Send, so it never points back in time.
            rend = rts + max(events[recv].end_ns - events[recv].start_ns, 0) / 1000.0
            rts = min(max(rts, sts), rend)
            out.append({"ph": "s", "id": flow_id, "cat": "transfer", "name": tensor,
                        "pid": spid, "tid": stid, "ts": round(sts, 3)})
            out.append({"ph": "f", "bp": "e", "id": flow_id, "cat": "transfer", "name": tensor,
                        "pid": rpid, "tid": rtid, "ts": round(rts, 3)})
        return {"traceEvents": out, "displayTimeUnit": "ms",
                "otherData": {"producer": "tfx", "kernels": len(events)}}

    def _transfer_pairs(self, events: list[KernelEvent]) -> list[tuple[int, int, str]]:
        """(send event, recv event, tensor name): the k-th Send of a key with its k-th Recv."""
        sends: dict[tuple, list[int]] = defaultdict(list)
        recvs: dict[tuple, list[int]] = defaultdict(list)
        for i, event in enumerate(events):
            key = self._transfer_keys.get(event.name)
            if key is None:
                continue
            (sends if event.op in SEND_OPS else recvs)[key].append(i)
        pairs = []
        for key, sent in sends.items():
            for send, recv in zip(sent, recvs.get(key, [])):
                pairs.append((send, recv, key[0]))
        return pairs

    def write(self, path: str) -> None:
        """Write the trace-event JSON atomically (`-` for stdout)."""
        from tfx.core import fileio

        data = json.dumps(self.to_chrome_trace(), separators=(",", ":")) + "\n"
        fileio.atomic_write_bytes(path, data.encode("utf-8"))

    def profile(self, steps: int = 1) -> OpProfile:
        """Per-node and per-op-type totals of the events recorded over `steps` steps."""
        nodes: dict[str, NodeCost] = {}
        for event in self.events:
            cost = nodes.get(event.name)
            if cost is None:
                cost = nodes[event.name] = NodeCost(event.name, event.op, event.device)
            cost.count += 1
            cost.total_ns += max(0, event.end_ns - event.start_ns)
            cost.output_bytes = max(cost.output_bytes, event.output_bytes)
            cost.per_output_bytes = [max(a, b) for a, b in zip(
                cost.per_output_bytes or [0] * len(event.sizes), event.sizes)]
        wall = (max(e.end_ns for e in self.events) - min(e.start_ns for e in self.events)
                if self.events else 0)
        return OpProfile(sorted(nodes.values(), key=lambda c: -c.total_ns), max(1, steps), wall)


def _string_attr(node: Any, key: str) -> str:
    value = node.attr.get(key)
    return value.s.decode("utf-8", "replace") if value is not None else ""


@dataclass
class NodeCost:
    """What one node cost over the recorded steps."""

    name: str
    op: str
    device: str
    count: int = 0  # kernel runs (a node in a loop runs once per iteration)
    total_ns: int = 0
    output_bytes: int = 0  # largest total output size of one run
    per_output_bytes: list[int] | None = None


@dataclass
class OpProfile:
    """Per-node costs, slowest first, and their per-op-type summary."""

    nodes: list[NodeCost]
    steps: int
    wall_ns: int

    def by_op(self) -> list[tuple[str, int, int, int]]:
        """(op, nodes, kernel runs, total ns) per op type, slowest first."""
        totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for cost in self.nodes:
            entry = totals[cost.op]
            entry[0] += 1
            entry[1] += cost.count
            entry[2] += cost.total_ns
        return sorted(((op, *v) for op, v in totals.items()), key=lambda row: -row[3])

    def to_dict(self, top: int | None = None) -> dict[str, Any]:
        total = sum(c.total_ns for c in self.nodes) or 1
        return {
            "steps": self.steps,
            "wall_ms": self.wall_ns / 1e6,
            "kernel_ms": sum(c.total_ns for c in self.nodes) / 1e6,
            "nodes": [{"name": c.name, "op": c.op, "device": c.device, "runs": c.count,
                       "total_ms": c.total_ns / 1e6, "percent": 100.0 * c.total_ns / total,
                       "output_bytes": c.output_bytes} for c in self.nodes[:top]],
            "ops": [{"op": op, "nodes": n, "runs": runs, "total_ms": ns / 1e6,
                     "percent": 100.0 * ns / total} for op, n, runs, ns in self.by_op()],
        }

    def to_text(self, top: int = 10) -> str:
        """benchmark_model's two tables: the slowest nodes, then time by op type."""
        total = sum(c.total_ns for c in self.nodes) or 1
        w = max([20, *(len(c.op) for c in self.nodes)])  # op names are never cut
        lines = [f"{len(self.nodes)} nodes ran over {self.steps} step(s): kernels "
                 f"{sum(c.total_ns for c in self.nodes) / 1e6:.3f} ms, wall "
                 f"{self.wall_ns / 1e6:.3f} ms", "",
                 f"============ Top by computation time (top {top}) ============",
                 f"{'[op]':>{w}} {'[runs]':>7} {'[ms]':>10} {'[%]':>7} {'[cdf%]':>7} "
                 f"{'[bytes]':>11}  [name]"]
        cumulative = 0
        for cost in self.nodes[:top]:
            cumulative += cost.total_ns
            lines.append(f"{cost.op:>{w}} {cost.count:>7} {cost.total_ns / 1e6:>10.3f} "
                         f"{100 * cost.total_ns / total:>6.2f}% {100 * cumulative / total:>6.2f}% "
                         f"{cost.output_bytes:>11}  {cost.name}")
        lines += ["", "============ Summary by op type ============",
                  f"{'[op]':>{w}} {'[nodes]':>7} {'[runs]':>7} {'[ms]':>10} {'[%]':>7} "
                  f"{'[cdf%]':>7}"]
        cumulative = 0
        for op, count, runs, ns in self.by_op():
            cumulative += ns
            lines.append(f"{op:>{w}} {count:>7} {runs:>7} {ns / 1e6:>10.3f} "
                         f"{100 * ns / total:>6.2f}% {100 * cumulative / total:>6.2f}%")
        return "\n".join(lines) + "\n"

    def cost_profile(self, device: str, device_type: str, flops: float) -> dict[str, Any]:
        """The measured costs as a `tfx-profile` file (what `tfx place --profile` reads).

        Per node: `time`, seconds per step (all its runs in a step, averaged over the
        steps), and `output_bytes`, the bytes of each output.
        """
        return {
            "format": "tfx-profile",
            "version": 1,
            "device": device,
            "device_type": device_type,
            "flops": float(flops),
            "nodes": {
                c.name: {"time": c.total_ns / 1e9 / self.steps,
                         "output_bytes": list(c.per_output_bytes or [])}
                for c in sorted(self.nodes, key=lambda c: c.name)
            },
        }


# --- TensorFlow's StepStats ----------------------------------------------------------------

# The device name TensorFlow gives the one local CPU, which a local tfx session runs on.
LOCAL_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
_CPU_ALLOCATOR = "cpu"  # TensorFlow's name for its CPU allocator (oneDNN builds: "mklcpu")
# Kernel events are timed with perf_counter_ns; adding this gives nanoseconds since the epoch.
_WALL_CLOCK_OFFSET_NS = time.time_ns() - time.perf_counter_ns()


def step_stats(events: Iterable[KernelEvent], graph: Graph, *,
               device: str | None = LOCAL_CPU) -> config_pb2.StepStats:
    """TensorFlow's StepStats of traced kernel runs, in start order, on `device`: the
    local CPU, which runs every kernel of a `tf.Session` step whatever device a node
    asks for; None puts each kernel on the device it ran on (one DeviceStepStats per
    device, as a worker reports a step). A kernel's timeline label names its data
    inputs as in `graph`. Times are wall-clock, as TensorFlow's, so the steps of several
    processes (a cluster's tasks) fall on one timeline."""
    stats = config_pb2.StepStats()
    by_device: dict[str, config_pb2.DeviceStepStats] = {}
    if device is not None:
        by_device[device] = stats.dev_stats.add(device=device)
    for event in sorted(events, key=lambda e: e.start_ns):
        where = device or event.device
        dev_stats = by_device.get(where)
        if dev_stats is None:
            dev_stats = by_device[where] = stats.dev_stats.add(device=where)
        duration_ns = event.end_ns - event.start_ns
        start_ns = event.start_ns + _WALL_CLOCK_OFFSET_NS
        inputs = ", ".join(
            s.node.name if s.index == 0 else s.name for s in graph.node(event.name).inputs
        ) if event.name in graph else ""
        node_stats = dev_stats.node_stats.add(
            node_name=event.name,
            timeline_label=f"{event.name} = {event.op}({inputs})",
            all_start_micros=start_ns // 1000,
            op_start_rel_micros=0,
            op_end_rel_micros=duration_ns // 1000,
            all_end_rel_micros=duration_ns // 1000,
            all_start_nanos=start_ns,
            op_start_rel_nanos=0,
            op_end_rel_nanos=duration_ns,
            all_end_rel_nanos=duration_ns,
            thread_id=event.thread & 0xFFFFFFFF,
        )
        _add_memory(node_stats, event)
        dev_stats.thread_names[event.thread & 0xFFFFFFFF] = event.thread_name
    return stats


def _add_memory(node_stats: config_pb2.NodeExecStats, event: KernelEvent) -> None:
    """A kernel's outputs (dtype, shape, bytes) and the memory they took, as TensorFlow
    records them: every array output is a fresh allocation of the CPU allocator (tfx
    forwards no buffers), alive when the kernel ends."""
    total = 0
    for slot, (size, shape, dtype) in enumerate(zip(event.sizes, event.shapes, event.dtypes)):
        if shape is None or dtype is None:
            continue
        output = node_stats.output.add(slot=slot)
        description = output.tensor_description
        description.dtype = dtypes.as_dtype(np.dtype(dtype)).enum
        description.shape.SetInParent()
        for dim in shape:
            description.shape.dim.add(size=int(dim))
        description.allocation_description.requested_bytes = size
        description.allocation_description.allocated_bytes = size
        description.allocation_description.allocator_name = _CPU_ALLOCATOR
        total += size
    if total:
        node_stats.memory.add(
            allocator_name=_CPU_ALLOCATOR, total_bytes=total, peak_bytes=total, live_bytes=total
        ).allocation_records.add(alloc_micros=(event.end_ns + _WALL_CLOCK_OFFSET_NS) // 1000,
                                 alloc_bytes=total)
    node_stats.memory_stats.SetInParent()


# --- recording: the executor runs traced plans ------------------------------------------------

_recording_lock = threading.Lock()
_active: StepTrace | None = None


@contextmanager
def recording(trace: StepTrace) -> Iterator[StepTrace]:
    """Trace every step run in this process (any session, any thread) inside the block.

    One trace records at a time: a nested or concurrent `recording` fails.

    Example:
        >>> trace = StepTrace()
        >>> with recording(trace):
        ...     sess.run("probs:0", {"x:0": x})
        >>> trace.write("trace.json")
    """
    from tfx.core import executor
    from tfx.core.errors import FailedPreconditionError

    global _active
    with _recording_lock:
        previous = executor.set_trace_hook(trace.traced_plan)
        if previous is not None:
            executor.set_trace_hook(previous)
            raise FailedPreconditionError("a step trace is already recording")
        _active = trace
    try:
        yield trace
    finally:
        with _recording_lock:
            executor.set_trace_hook(None)
            _active = None


def _dtype_name(enum: int) -> str | None:
    """numpy's name for a DataType enum; None for none or one tfx does not know."""
    try:
        return dtypes.as_dtype(enum).np.name if enum else None
    except (TypeError, ValueError, KeyError):
        return None


def active_trace() -> StepTrace | None:
    """The trace `recording` fills now, if any: a session whose steps run in other
    processes asks them for their kernels and adds them (`StepTrace.add_step_stats`)."""
    return _active


# --- traced kernels ----------------------------------------------------------------------------


class _TracedKernel:
    """A kernel that reports each call to a tracer (and otherwise is the kernel)."""

    def __init__(self, kernel: Any, name: str, op: str, device: str, tracer: Tracer) -> None:
        self.kernel = kernel
        self._report = (name, op, device)
        self._tracer = tracer
        # A GPU kernel returns when its work is queued: wait for it, so the slice is the work.
        self._synchronize = getattr(kernel, "synchronize", None)
        for flag in ("expensive", "blocking", "needs_context"):
            setattr(self, flag, getattr(kernel, flag, False))

    def compute(self, *args: Any) -> Any:
        start = time.perf_counter_ns()
        outputs = self.kernel.compute(*args)
        if self._synchronize is not None:
            self._synchronize()
        end = time.perf_counter_ns()
        name, op, device = self._report
        self._tracer(name, op, device, start, end, outputs)
        return outputs

    def compute_async(self, *args: Any, done: Any) -> None:
        """An asynchronous kernel (a Recv): its slice runs from the call to its answer."""
        start = time.perf_counter_ns()

        def report(outputs: Any, error: BaseException | None) -> None:
            if error is None:
                if self._synchronize is not None:
                    self._synchronize()
                name, op, device = self._report
                self._tracer(name, op, device, start, time.perf_counter_ns(), outputs)
            done(outputs, error)

        self.kernel.compute_async(*args, done=report)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.kernel, attr)


def instrument(plan: Plan, tracer: Tracer) -> Plan:
    """A copy of `plan` whose kernels report every call to `tracer`.

    Control-flow routing (Merge, dead inputs) runs no kernel and is not reported.

    Example:
        >>> prepared = build_plan(graph, feeds, fetches, targets)
        >>> run_plan(instrument(prepared.plan, trace), values, StepState(resources))
    """
    import copy

    from tfx.core.executor import Plan

    nodes = []
    for node in plan.nodes:
        traced = copy.copy(node)
        if hasattr(node.kernel, "instrumented"):
            # A compiled loop: its inner kernels report, once per iteration each.
            traced.kernel = node.kernel.instrumented(
                lambda kernel, inner: _TracedKernel(kernel, inner.name, inner.op, inner.device,
                                                    tracer))
        elif node.kernel is not None:
            traced.kernel = _TracedKernel(node.kernel, node.name, node.op, node.device, tracer)
        nodes.append(traced)
    return Plan(nodes, plan.feed_edges, plan.num_fetches, plan.fetch_names, plan.deref_fetches)
