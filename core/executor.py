"""The dataflow executor: runs one step of a prepared plan.

A `Plan` is compiled once per (graph, feeds, fetches, targets) by the session
from an already pruned node set: kernels instantiated, every node numbered in
topological order, each node's data inputs laid out as a run of slots, and
each output's consumers listed as (node, slot) pairs. A step then only does
list indexing:

* every node has a count of pending inputs (data and control); a node whose
  count reaches zero goes on the ready queue;
* ready nodes run inline on the calling thread, except expensive kernels when
  other work is ready too, which go to the step's inter-op pool (numpy releases
  the GIL in BLAS and ufuncs; `tfx.core.inter_op` says which pool), blocking
  kernels (queues), which always go to a pool of their own, and asynchronous
  kernels (a Recv: `compute_async`), which start their work, return, and call
  back when done, holding no thread while they wait; whatever finishes away
  from the driving thread is handed back to it through the step's completion
  queue (only the driving thread changes the step's counts and slots);
* a slot is cleared when its consumer reads it, so each tensor is freed after
  its last consumer runs.

Control flow follows TensorFlow's executor. Switch sends the `DEAD` value down
its untaken output; any node with a dead input produces dead outputs without
running, except Merge, which fires on its first live input (or once all its
inputs are dead). Enter moves a value into a child frame, Exit back to the
parent, NextIteration to the next iteration of the same frame; each (frame,
iteration) has its own pending counts and slots. Dead values stop at
NextIteration. When nothing is left to run, Exits of a frame that never
produced a live value emit dead values to the parent (a loop inside an untaken
branch), which may release more work. A compiled while loop (`loop_compiler`)
is the one ordinary node that runs with some inputs dead: it carries them as
dead loop values, as the frame it replaced would.

Kernels see no graph. Errors are re-raised naming the node, op and device.
"""

from __future__ import annotations

import functools
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from tfx.core.cancellation import CancellationFlag
from tfx.core.errors import (
    CancelledError,
    DeadlineExceededError,
    InternalError,
    InvalidArgumentError,
    ResourceExhaustedError,
    TfxError,
)
from tfx.core.inter_op import shared_pool
from tfx.core.rendezvous import child_frame_id
from tfx.kernels.base import DEAD, OpContext

# Node kinds with executor-level routing.
NORMAL, MERGE, ENTER, EXIT, NEXT_ITERATION = range(5)
_KIND_BY_OP = {
    "Merge": MERGE, "RefMerge": MERGE,
    "Enter": ENTER, "RefEnter": ENTER,
    "Exit": EXIT, "RefExit": EXIT,
    "NextIteration": NEXT_ITERATION, "RefNextIteration": NEXT_ITERATION,
}

_MISSING = object()
SHARED_POOL = object()


class StepState:
    """What one step shares with its kernels: resources, rendezvous, cancellation."""

    __slots__ = ("resources", "rendezvous", "deadline", "cancelled", "step_id", "pool",
                 "tracer", "_lock")

    _next_id = 0

    def __init__(self, resources: Any = None, rendezvous: Any = None,
                 timeout: float | None = None, pool: Any = SHARED_POOL) -> None:
        self.resources = resources
        self.rendezvous = rendezvous
        # Where expensive kernels may go: a ThreadPoolExecutor, None for the driving
        # thread only, or SHARED_POOL for the process's default pool (made on first use).
        self.pool = pool
        self.deadline = time.monotonic() + timeout if timeout else None
        # Set to cancel the step; it also ends asynchronous waits (`recv_async`).
        self.cancelled = CancellationFlag()
        # This step's own trace (a `tfx.core.trace.StepTrace`), as a worker records a step
        # its master asked to trace; None: only a process-wide `recording` traces it.
        self.tracer: Any = None
        StepState._next_id += 1
        self.step_id = StepState._next_id

    def check_cancelled(self) -> None:
        """Raise if the step was cancelled or its deadline passed (for blocking kernels)."""
        if self.cancelled.is_set():
            raise CancelledError("the step was cancelled")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise DeadlineExceededError("the step timed out")

    def remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())


class PlanNode:
    """Static facts about one node of a plan (built by the session)."""

    __slots__ = ("name", "op", "device", "kernel", "kind", "num_inputs", "input_base",
                 "out_edges", "control_out", "init_pending", "frame", "frame_name",
                 "is_constant", "expensive", "blocking", "is_async", "needs_context",
                 "deref_slots")

    def __init__(self, name: str, op: str, device: str, kernel: Any) -> None:
        self.name = name
        self.op = op
        self.device = device
        self.kernel = kernel
        self.kind = _KIND_BY_OP.get(op, NORMAL)
        self.num_inputs = 0
        self.input_base = 0
        self.out_edges: list[list[tuple[int, int]]] = []
        self.control_out: list[int] = []
        self.init_pending = 0
        self.frame = ""  # the static frame the node runs in ("" = root)
        self.frame_name = ""  # for Enter: the child frame it enters
        self.is_constant = False
        self.expensive = bool(getattr(kernel, "expensive", False))
        self.blocking = bool(getattr(kernel, "blocking", False))
        # `compute_async(*args, done)`: the kernel calls `done(outputs, error)` when it has
        # finished, perhaps on another thread, and holds no thread while it waits (a Recv).
        self.is_async = hasattr(kernel, "compute_async")
        self.needs_context = bool(getattr(kernel, "needs_context", False))
        # Inputs that receive a reference (a variable) but want its value.
        self.deref_slots: tuple[int, ...] = ()


class Plan:
    """A compiled step: nodes in order, slots, feeds and fetch sinks.

    Edges to fetch k are encoded as destination `-1 - k`.
    """

    def __init__(self, nodes: list[PlanNode], feed_edges: list[list[tuple[int, int]]],
                 num_fetches: int, fetch_names: Sequence[str],
                 deref_fetches: Sequence[bool] = ()) -> None:
        self.nodes = nodes
        self.deref_fetches = list(deref_fetches) or [False] * num_fetches
        self.feed_edges = feed_edges
        self.num_fetches = num_fetches
        self.fetch_names = list(fetch_names)
        self.num_slots = sum(n.num_inputs for n in nodes)
        self.roots = [i for i, n in enumerate(nodes) if n.init_pending == 0 and n.kind != MERGE]
        self.has_frames = any(n.kind != NORMAL for n in nodes)
        self.exits_by_frame: dict[str, list[int]] = {}
        for i, n in enumerate(nodes):
            if n.kind == EXIT:
                self.exits_by_frame.setdefault(n.frame, []).append(i)
        self.merge_data_inputs = [n.num_inputs for n in nodes]
        # Flat lists for the hot loop.
        self._kernels = [n.kernel for n in nodes]
        self._bases = [n.input_base for n in nodes]
        self._counts = [n.num_inputs for n in nodes]
        self._out = [n.out_edges for n in nodes]
        self._ctrl = [n.control_out for n in nodes]
        self._pending = [n.init_pending for n in nodes]
        self._kinds = [n.kind for n in nodes]
        # Per node, its outgoing edges split in two: plain ones as (output, node, absolute
        # slot) for the inlined delivery loop, and those to Merges or fetches, which need
        # `deliver`. Output -1 stands for a control edge.
        self._fast_edges: list[list[tuple[int, int, int]]] = []
        self._special_edges: list[list[tuple[int, int, int]]] = []
        for n in nodes:
            fast: list[tuple[int, int, int]] = []
            special: list[tuple[int, int, int]] = []
            for k, edges in enumerate(n.out_edges):
                for dst, slot in edges:
                    if dst < 0 or nodes[dst].kind == MERGE:
                        special.append((k, dst, slot))
                    else:
                        fast.append((k, dst, nodes[dst].input_base + slot))
            for dst in n.control_out:
                (special if nodes[dst].kind == MERGE else fast).append((-1, dst, -1))
            self._fast_edges.append(fast)
            self._special_edges.append(special)
        self._simple = [
            n.kind == NORMAL and not n.expensive and not n.blocking and not n.is_async
            and not n.needs_context
            and not n.deref_slots
            for n in nodes
        ]


class _Frame:
    """One instance of a loop frame, inside one iteration of its parent."""

    __slots__ = ("name", "parent", "id", "iterations", "constants", "exited")

    def __init__(self, name: str, parent: _Iteration) -> None:
        self.name = name
        self.parent = parent
        # TensorFlow's number for this frame instance, in the keys of Sends and Recvs in it
        above = parent.frame
        self.id = child_frame_id(above.id if above else 0, parent.number, name)
        self.iterations: dict[int, _Iteration] = {}
        self.constants: list[tuple[int, Any]] = []  # (Enter node, value) for every iteration
        self.exited: set[int] = set()


class _Iteration:
    """Pending counts and input slots of one (frame, iteration)."""

    __slots__ = ("frame", "number", "inputs", "pending", "dead", "live_merge", "children")

    def __init__(self, plan: Plan, frame: _Frame | None, number: int) -> None:
        self.frame = frame
        self.number = number
        self.inputs: list[Any] = [None] * plan.num_slots
        self.pending = plan._pending.copy()
        self.dead = [0] * len(plan.nodes)
        self.live_merge: dict[int, int] = {}
        self.children: dict[str, _Frame] = {}


_blocking_pool: ThreadPoolExecutor | None = None
# A blocking kernel holds its thread while it waits (a dequeue until there is an
# element), and the waits of one step may depend on each other: an element may come
# only from a later enqueue of the same step. So the pool must not run out first: its
# threads are made as needed, up to this many. (A Recv waits without a thread.)
_BLOCKING_THREADS = 4096
_pool_lock = threading.Lock()


def _blocking_executor() -> ThreadPoolExecutor:
    global _blocking_pool
    if _blocking_pool is None:
        with _pool_lock:
            if _blocking_pool is None:
                _blocking_pool = ThreadPoolExecutor(_BLOCKING_THREADS, "tfx-blocking")
    return _blocking_pool


class _Step:
    """The mutable state of one running step (touched only by the driving thread)."""

    def __init__(self, plan: Plan, state: StepState) -> None:
        self.plan = plan
        self.state = state
        self.root = _Iteration(plan, None, 0)
        self.ready: deque[tuple[int, _Iteration]] = deque()
        self.fetched: list[Any] = [_MISSING] * plan.num_fetches
        self.frames: list[_Frame] = []
        self.completions: queue.SimpleQueue = queue.SimpleQueue()
        self.inflight = 0
        self.error: BaseException | None = None

    # --- delivering values ----------------------------------------------------------------
    def deliver(self, dst: int, slot: int, value: Any, it: _Iteration) -> None:
        if dst < 0:
            self.fetched[-1 - dst] = value
            return
        plan = self.plan
        if plan._kinds[dst] == MERGE:
            self._deliver_merge(dst, slot, value, it)
            return
        if value is DEAD:
            it.dead[dst] += 1
        elif slot >= 0:
            it.inputs[plan._bases[dst] + slot] = value
        it.pending[dst] -= 1
        if it.pending[dst] == 0:
            self.ready.append((dst, it))

    def _deliver_merge(self, dst: int, slot: int, value: Any, it: _Iteration,
                       from_enter: bool = False) -> None:
        # A Merge waits for its control inputs, then fires on the first live data input,
        # or dead once every data input arrived dead. A dead Enter counts as all of them,
        # as in TensorFlow: a loop whose Enters are dead (in an untaken branch, or in the
        # last iteration of an outer loop) runs its test once, dead, rather than never,
        # so a LoopCond sent to another task arrives there (dead).
        if slot < 0:
            it.pending[dst] -= 1
        elif value is DEAD and from_enter:
            if it.dead[dst] >= self.plan.merge_data_inputs[dst]:
                return  # dead already
            it.dead[dst] = self.plan.merge_data_inputs[dst]
        elif value is DEAD:
            it.dead[dst] += 1
        else:
            if dst in it.live_merge:
                return
            it.live_merge[dst] = slot
            it.inputs[self.plan._bases[dst] + slot] = value
        if it.pending[dst] != 0:
            return
        if dst in it.live_merge:
            if slot >= 0 and it.live_merge[dst] != slot:
                return  # already fired on an earlier live input
            if slot < 0 or value is not DEAD:
                self.ready.append((dst, it))
        elif it.dead[dst] == self.plan.merge_data_inputs[dst]:
            self.ready.append((dst, it))

    def propagate(self, i: int, it: _Iteration, outputs: Sequence[Any], is_dead: bool) -> None:
        plan = self.plan
        kind = plan._kinds[i]
        dest = it
        if kind != NORMAL and kind != MERGE:
            if kind == ENTER:
                dest = self._enter(i, it, outputs)
                if dest is None:
                    return
            elif kind == EXIT:
                frame = it.frame
                if is_dead or frame is None:
                    return  # dead exits are resolved at quiescence
                frame.exited.add(i)
                dest = frame.parent
            else:  # NEXT_ITERATION: deadness stops here
                if is_dead or it.frame is None:
                    return
                dest = self._iteration(it.frame, it.number + 1)
        self.emit(i, outputs, dest, DEAD if is_dead else None)

    def emit(self, i: int, outputs: Sequence[Any], dest: _Iteration, token: Any) -> None:
        """Send node i's outputs (and `token` on its control edges) into iteration `dest`."""
        inputs, pending, dead, ready = dest.inputs, dest.pending, dest.dead, self.ready
        for k, dst, slot in self.plan._fast_edges[i]:
            value = outputs[k] if k >= 0 else token
            if value is DEAD:
                dead[dst] += 1
            elif k >= 0:
                inputs[slot] = value
            left = pending[dst] - 1
            pending[dst] = left
            if not left:
                ready.append((dst, dest))
        kinds = self.plan._kinds
        for k, dst, slot in self.plan._special_edges[i]:
            value = outputs[k] if k >= 0 else token
            if value is DEAD and dst >= 0 and kinds[i] == ENTER and kinds[dst] == MERGE:
                self._deliver_merge(dst, slot, value, dest, from_enter=True)
            else:
                self.deliver(dst, slot, value, dest)

    def _enter(self, i: int, it: _Iteration, outputs: Sequence[Any]) -> _Iteration | None:
        node = self.plan.nodes[i]
        frame = it.children.get(node.frame_name)
        if frame is None:
            frame = _Frame(node.frame_name, it)
            it.children[node.frame_name] = frame
            self.frames.append(frame)
        if node.is_constant:
            # A loop invariant: every iteration, present and future, sees it.
            frame.constants.append((i, outputs[0]))
            if not frame.iterations:
                self._iteration(frame, 0)
            else:
                for child in list(frame.iterations.values()):
                    self._send_outputs(i, child, outputs[0])
            return None
        return self._iteration(frame, 0)

    def _iteration(self, frame: _Frame, number: int) -> _Iteration:
        child = frame.iterations.get(number)
        if child is None:
            child = _Iteration(self.plan, frame, number)
            frame.iterations[number] = child
            for enter, value in frame.constants:
                self._send_outputs(enter, child, value)
        return child

    def _send_outputs(self, i: int, dest: _Iteration, value: Any) -> None:
        self.emit(i, (value,), dest, DEAD if value is DEAD else None)

    def resolve_dead_exits(self) -> bool:
        """At quiescence, let Exits that never fired send dead values out of their frame."""
        progressed = False
        for frame in self.frames:
            for exit_id in self.plan.exits_by_frame.get(frame.name, ()):
                if exit_id not in frame.exited:
                    frame.exited.add(exit_id)
                    self.emit(exit_id, (DEAD,), frame.parent, DEAD)
                    progressed = True
        return progressed


# While a step trace records (`tfx.core.trace.recording`), each plan is swapped for its
# traced copy before it runs; when none records, this one check is all tracing costs.
_trace_hook: Callable[[Plan], Plan] | None = None


def set_trace_hook(hook: Callable[[Plan], Plan] | None) -> Callable[[Plan], Plan] | None:
    """Have every `run_plan` in the process run `hook(plan)` instead; return the previous hook.

    Used by `tfx.core.trace.recording`; None turns tracing off.
    """
    global _trace_hook
    previous, _trace_hook = _trace_hook, hook
    return previous


def tracing() -> bool:
    """Whether a step trace is recording."""
    return _trace_hook is not None


def run_plan(plan: Plan, feed_values: Sequence[Any], state: StepState) -> list[Any]:
    """Run one step; return the fetched values in plan order."""
    if _trace_hook is not None:
        plan = _trace_hook(plan)
    elif state.tracer is not None:
        plan = state.tracer.traced_plan(plan)
    step = _Step(plan, state)
    root = step.root
    for value, edges in zip(feed_values, plan.feed_edges):
        for dst, slot in edges:
            step.deliver(dst, slot, value, root)
    step.ready.extend((i, root) for i in plan.roots)
    try:
        _drive(step)
    except BaseException:
        # Ctrl-C or an error: wake kernels blocked in this step (queues) so they return.
        state.cancelled.set()
        raise
    return _collect(step)


def _drive(step: _Step) -> None:
    plan = step.plan
    ready = step.ready
    kernels = plan._kernels
    simple = plan._simple
    bases = plan._bases
    counts = plan._counts
    fast_edges = plan._fast_edges
    special_edges = plan._special_edges
    deliver = step.deliver
    state = step.state
    deadline = state.deadline
    while True:
        while ready and step.error is None:
            i, it = ready.popleft()
            if simple[i] and not it.dead[i]:
                # The fast path: an ordinary cheap kernel with live inputs.
                n = counts[i]
                if n:
                    base = bases[i]
                    args = it.inputs[base:base + n]
                    it.inputs[base:base + n] = _NONES[n] if n < _NONES_LEN else [None] * n
                else:
                    args = ()
                try:
                    outputs = kernels[i].compute(*args)
                except Exception as exc:  # noqa: BLE001 - re-raised with the node named
                    step.error = node_error(plan.nodes[i], exc)
                    break
                # Delivery, inlined (this loop is the executor's hot path).
                inputs, pending = it.inputs, it.pending
                for k, dst, slot in fast_edges[i]:
                    if k >= 0:
                        value = outputs[k]
                        if value is DEAD:
                            it.dead[dst] += 1
                        else:
                            inputs[slot] = value
                    left = pending[dst] - 1
                    pending[dst] = left
                    if not left:
                        ready.append((dst, it))
                for k, dst, slot in special_edges[i]:
                    deliver(dst, slot, outputs[k] if k >= 0 else None, it)
            else:
                _start(step, i, it)
            if deadline is not None and step.error is None and time.monotonic() > deadline:
                # (an error the node raised, a timeout inside a function it called
                # included, says more than this one would)
                step.error = DeadlineExceededError(
                    f"the step timed out after running node {plan.nodes[i].name!r}"
                )
        if step.error is not None:
            _abort(step)
            raise step.error
        if step.inflight:
            _wait_for_completion(step)
            continue
        if plan.has_frames and step.resolve_dead_exits():
            continue
        return


_NONES_LEN = 64
_NONES = [[None] * k for k in range(_NONES_LEN)]


def _take_inputs(step: _Step, i: int, it: _Iteration) -> list[Any]:
    n = step.plan._counts[i]
    base = step.plan._bases[i]
    args = it.inputs[base:base + n]
    it.inputs[base:base + n] = [None] * n
    return args


def _start(step: _Step, i: int, it: _Iteration) -> None:
    """Run a node that needs more than the fast path: dead inputs, routing, pool, context."""
    plan = step.plan
    node = plan.nodes[i]
    kind = node.kind
    if kind == MERGE:
        if i in it.live_merge:
            slot = it.live_merge.pop(i)
            value = it.inputs[node.input_base + slot]
            it.inputs[node.input_base + slot] = None
            step.propagate(i, it, (value, _index_value(slot)), False)
        else:
            step.propagate(i, it, (DEAD, DEAD), True)
        return
    args = _take_inputs(step, i, it)
    if it.dead[i]:
        # A transfer (_Send, _Recv) runs dead or not, as in TensorFlow: a Send hands on
        # the deadness, so its Recv, perhaps in another task, is not left waiting. A
        # compiled loop runs on its live inputs, as the loop it replaced would (its dead
        # slots were never filled); a dead control input still kills it.
        dead_slots = sum(arg is None for arg in args)
        if not (getattr(node.kernel, "runs_when_dead", False)
                or (getattr(node.kernel, "takes_dead_inputs", False)
                    and dead_slots == it.dead[i] < len(args))):
            step.propagate(i, it, (DEAD,) * len(plan._out[i]), True)
            return
        args = [DEAD if arg is None else arg for arg in args]
    if kind != NORMAL and not node.deref_slots:
        # Enter/Exit/NextIteration forward their value; routing is in propagate.
        step.propagate(i, it, args, False)
        return
    kernel = node.kernel
    if node.deref_slots:
        try:
            for slot in node.deref_slots:
                args[slot] = args[slot].read()
        except Exception as exc:  # noqa: BLE001
            step.error = node_error(node, exc)
            return
    if node.needs_context:
        frame = it.frame
        context = OpContext(step.state, frame.name if frame else "", it.number,
                            frame.id if frame else 0)
        args = [context, *args]
    if node.is_async:
        step.inflight += 1
        try:
            kernel.compute_async(*args, done=functools.partial(_async_done, step, i, it))
        except BaseException as exc:  # noqa: BLE001 - as if it had called back with it
            step.completions.put((i, it, None, exc))
        return
    if node.blocking:
        pool = _blocking_executor()
    elif node.expensive and (step.ready or step.inflight) and step.state.pool is not None and (
            _worth_offloading(kernel, args)):
        pool = step.state.pool
        if pool is SHARED_POOL:
            pool = shared_pool()
    else:
        pool = None
    if pool is not None:
        step.inflight += 1
        pool.submit(_run_async, step, i, it, kernel, args)
        return
    try:
        outputs = kernel.compute(*args)
    except Exception as exc:  # noqa: BLE001
        step.error = node_error(node, exc)
        return
    step.propagate(i, it, outputs, _all_dead(outputs))


# Handing a kernel to a pool thread costs tens of microseconds (more when the machine is
# busy); only this much work makes the parallelism pay. Work is counted in elements of
# elementwise numpy work; kernels whose cost is not their input size say so with `work`.
_OFFLOAD_MIN_WORK = 1 << 18


def _worth_offloading(kernel: Any, args: Sequence[Any]) -> bool:
    estimate = getattr(kernel, "work", None)
    if estimate is not None:
        try:
            return estimate(*args) >= _OFFLOAD_MIN_WORK
        except Exception:  # noqa: BLE001 - a bad input: the kernel itself will report it
            return False
    total = 0
    for arg in args:
        total += getattr(arg, "size", 0)
    return total >= _OFFLOAD_MIN_WORK


def _all_dead(outputs: Sequence[Any]) -> bool:
    # Switch is the one kernel that returns DEAD itself; a node is dead if all outputs are.
    return bool(outputs) and all(o is DEAD for o in outputs)


_INDEX_VALUES = [np.int32(k) for k in range(16)]


def _index_value(slot: int) -> Any:
    return _INDEX_VALUES[slot] if slot < 16 else np.int32(slot)


def _run_async(step: _Step, i: int, it: _Iteration, kernel: Any, args: list[Any]) -> None:
    try:
        outputs = kernel.compute(*args)
        step.completions.put((i, it, outputs, None))
    except BaseException as exc:  # noqa: BLE001 - handed to the driving thread
        step.completions.put((i, it, None, exc))


def _async_done(step: _Step, i: int, it: _Iteration, outputs: Sequence[Any] | None,
                error: BaseException | None) -> None:
    step.completions.put((i, it, outputs, error))


def _wait_for_completion(step: _Step) -> None:
    timeout = step.state.remaining()
    try:
        item = step.completions.get(timeout=timeout)
    except queue.Empty:
        step.error = DeadlineExceededError("the step timed out waiting for running kernels")
        step.state.cancelled.set()
        _abort(step)
        raise step.error from None
    while True:
        step.inflight -= 1
        i, it, outputs, exc = item
        if exc is not None:
            if step.error is None:
                step.error = node_error(step.plan.nodes[i], exc)
                step.state.cancelled.set()  # wake blocking kernels of this step
        elif step.error is None:
            step.propagate(i, it, outputs, _all_dead(outputs))
        try:
            item = step.completions.get_nowait()
        except queue.Empty:
            return


def _abort(step: _Step) -> None:
    """Cancel the step and wait for kernels already running on pool threads."""
    step.state.cancelled.set()
    while step.inflight:
        step.completions.get()
        step.inflight -= 1


def _collect(step: _Step) -> list[Any]:
    results = []
    for k, value in enumerate(step.fetched):
        if value is _MISSING or value is DEAD:
            name = step.plan.fetch_names[k]
            why = (
                "its value is dead (it lies on an untaken branch of a conditional)"
                if value is DEAD
                else "the step ended before computing it"
            )
            raise InvalidArgumentError(f"fetch {name!r} has no value: {why}")
        results.append(value.read() if step.plan.deref_fetches[k] else value)
    return results


def node_error(node: PlanNode, exc: BaseException) -> BaseException:
    where = f"node {node.name!r} (op {node.op}, device {node.device or 'CPU'})"
    if isinstance(exc, TfxError):
        return type(exc)(f"{where}: {exc}")
    if isinstance(exc, MemoryError):
        return ResourceExhaustedError(f"{where}: out of memory")
    if isinstance(exc, (ValueError, IndexError, TypeError, ZeroDivisionError, OverflowError)):
        return InvalidArgumentError(f"{where}: {type(exc).__name__}: {exc}")
    return InternalError(f"{where}: {type(exc).__name__}: {exc}")
