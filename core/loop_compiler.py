"""Compile simple while loops of a plan into one straight-line node.

The generic executor moves every value of every loop iteration through
pending counts, ready queues and per-iteration slot tables: nine dispatches
per iteration for `i = i + 1`. A loop whose frame holds nothing but the
while-loop skeleton and ordinary kernels needs none of that, because one
iteration is always the same schedule. `compile_loops(nodes)` finds such
frames in a plan's node list and replaces each (its Enters, the nodes inside,
its Exits) by one `WhileLoop` node. That node's inputs are the Enters' inputs,
its outputs the Exits' outputs, and its kernel runs the iterations over a
register list:

* iteration 0 reads the Enters; later ones read what NextIteration got;
* the *pre* schedule runs the nodes that do not read the body (the condition
  and anything else that runs on every iteration, the last one included);
* if LoopCond is false the Exits take the Merge values; otherwise the *post*
  schedule (everything fed, directly or not, by a Switch's true output) runs
  and the NextIteration inputs become the next iteration's Merge values.

Switch, Merge, LoopCond and Identity move no data here (they name registers),
and constants inside the frame are read once. The frame compiles only when
this is exactly what the executor would do:

* the skeleton is TensorFlow's: each loop variable is Enter -> Merge(Enter,
  NextIteration) -> Switch(Merge, LoopCond) with Switch:0 going only to Exits;
* no other Switch or Merge (no conditional inside), no nested frame left
  (inner loops compile first and then count as ordinary nodes), no blocking
  kernel (a queue may wait for work elsewhere in the step), and no edge leaving
  the frame except through an Exit.

A loop with an expensive kernel inside (MatMul) is itself expensive: the
executor may run it on a pool thread while other work proceeds.

A loop whose inputs are partly dead (it sits in a cond, and only some of its
values come through the cond's Switch) runs as its frame would: a node with a
dead input or a dead control predecessor is skipped and its outputs are dead,
a dead LoopCond ends the loop with every Exit dead, and the dead loop
variables' Exits are dead. Only such a run pays for checking every node.

Anything else keeps the generic path. Errors inside name the inner node; the
step's cancellation and deadline are checked every iteration.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from tfx.core.errors import CancelledError, DeadlineExceededError
from tfx.core.executor import (
    ENTER,
    EXIT,
    MERGE,
    NEXT_ITERATION,
    NORMAL,
    PlanNode,
    node_error,
)
from tfx.core.rendezvous import child_frame_id
from tfx.kernels.base import DEAD, OpContext

_SWITCH_OPS = frozenset({"Switch", "RefSwitch"})
_CONTROL_FLOW_OPS = frozenset({"Switch", "RefSwitch", "_SwitchN", "RefSelect", "Merge",
                               "RefMerge", "LoopCond", "ControlTrigger"})
# Kernels whose output is their input: their outputs just name the input register.
_ALIAS_OPS = frozenset({"Identity", "LoopCond", "StopGradient", "PreventGradient", "Snapshot"})

# A schedule entry: (kernel, node, input registers, first output register, output count,
# whether it needs a context or reads references, the registers whose deadness kills it:
# its inputs' and the first of each control predecessor's).
_Entry = tuple


class LoopKernel:
    """The kernel of a compiled while loop (see the module docstring)."""

    needs_context = True
    blocking = False
    takes_dead_inputs = True  # the executor hands it dead inputs as DEAD (see compute)

    def __init__(self, frame: str, registers: int, constants: list[tuple[int, Any]],
                 loop_inputs: list[tuple[int, int]], invariant_inputs: list[tuple[int, int]],
                 pre: list[_Entry], post: list[_Entry], cond: int,
                 back_edges: list[tuple[int, int]], exits: list[int]) -> None:
        self.frame = frame
        self.registers = registers
        self.constants = constants  # (register, value) filled once per run
        self.loop_inputs = loop_inputs  # (Merge register, input slot)
        self.invariant_inputs = invariant_inputs  # (register, input slot) of constant Enters
        self.pre = pre
        self.post = post
        self.cond = cond  # the LoopCond input's register
        self.back_edges = back_edges  # (Merge register, NextIteration input register)
        self.exits = exits  # per Exit, the Merge register it takes
        self.expensive = any(entry[0].expensive for entry in pre + post)

    def instrumented(self, wrap: Callable[[Any, PlanNode], Any]) -> LoopKernel:
        """A copy whose inner kernels are replaced by `wrap(kernel, node)`."""
        def rewrap(schedule: list[_Entry]) -> list[_Entry]:
            return [(wrap(k, node), node, *rest) for k, node, *rest in schedule]

        return LoopKernel(self.frame, self.registers, self.constants, self.loop_inputs,
                          self.invariant_inputs, rewrap(self.pre), rewrap(self.post),
                          self.cond, self.back_edges, self.exits)

    def compute(self, context: OpContext, *inputs: Any) -> tuple:
        regs: list[Any] = [None] * self.registers
        for reg, value in self.constants:
            regs[reg] = value
        for reg, slot in self.invariant_inputs:
            regs[reg] = inputs[slot]
        for reg, slot in self.loop_inputs:
            regs[reg] = inputs[slot]
        # Some inputs dead (the loop sits in a cond that did not run for them): a node
        # with a dead input or dead control predecessor is skipped and its outputs are
        # dead, as in the generic executor. Only then is every node checked.
        with_dead = any(value is DEAD for value in inputs)
        step = context.step
        cancelled = step.cancelled
        deadline = step.deadline
        frame_id = child_frame_id(context.frame_id, context.iteration, self.frame)
        schedule = self.pre + [_TEST] + self.post
        cond, back_edges = self.cond, self.back_edges
        iteration = 0
        node = None
        try:
            while True:
                for kernel, node, ins, out, count, special, guards in schedule:
                    if kernel is None:  # the loop test, between pre and post
                        if with_dead and regs[cond] is DEAD:
                            return (DEAD,) * len(self.exits)
                        if not regs[cond]:
                            return tuple(regs[reg] for reg in self.exits)
                        continue
                    if with_dead and any(regs[r] is DEAD for r in guards):
                        regs[out:out + max(1, count)] = [DEAD] * max(1, count)
                        continue
                    if special:
                        args = [regs[r] for r in ins]
                        for slot in node.deref_slots:
                            args[slot] = args[slot].read()
                        if node.needs_context:
                            args.insert(0, OpContext(step, self.frame, iteration, frame_id))
                        outputs = kernel.compute(*args)
                    elif len(ins) == 2:
                        outputs = kernel.compute(regs[ins[0]], regs[ins[1]])
                    else:
                        outputs = kernel.compute(*[regs[r] for r in ins])
                    if count == 1:
                        regs[out] = outputs[0]
                    elif count:
                        regs[out:out + count] = outputs
                values = [regs[src] for _, src in back_edges]
                for (merge, _), value in zip(back_edges, values):
                    regs[merge] = value
                iteration += 1
                if cancelled.is_set():
                    raise CancelledError("the step was cancelled")
                if deadline is not None and time.monotonic() > deadline:
                    raise DeadlineExceededError(
                        f"the step timed out in iteration {iteration} of loop {self.frame!r}")
        except (CancelledError, DeadlineExceededError):
            raise
        except Exception as exc:  # noqa: BLE001 - re-raised naming the inner node
            raise node_error(node, exc) from None


# Marks the loop test in a schedule.
_TEST = (None, None, (), 0, 0, False, ())

Edges = list[list[tuple[int, int]]]


def compile_loops(nodes: list[PlanNode], feed_edges: Edges) -> tuple[list[PlanNode], Edges]:
    """Collapse the compilable loops of a plan's nodes (topologically ordered, edges by
    index) and its feed edges (per feed, (node, slot) pairs); return both, re-indexed."""
    failed: set[str] = set()
    while True:
        frames = {n.frame for n in nodes if n.frame} - failed
        entered_from = {n.frame for n in nodes if n.kind == ENTER}  # frames holding an Enter
        candidates = sorted(frames - entered_from)
        if not candidates:
            return nodes, feed_edges
        for frame in candidates:
            compiled = _compile_frame(nodes, feed_edges, frame)
            if compiled is None:
                failed.add(frame)
            else:
                nodes, feed_edges = compiled
                break


def _compile_frame(nodes: list[PlanNode], feed_edges: Edges,
                   frame: str) -> tuple[list[PlanNode], Edges] | None:
    """The node list with `frame` collapsed into a WhileLoop node, or None if it can't be."""
    members = [i for i, n in enumerate(nodes) if n.frame == frame]
    enters = [i for i, n in enumerate(nodes) if n.kind == ENTER and n.frame_name == frame]
    member_set = set(members)
    enter_set = set(enters)
    if not enters:
        return None
    # Inputs per node (data: slot -> (src, output); control: list of src), from edges.
    data_in: dict[int, dict[int, tuple[int, int]]] = {i: {} for i in members + enters}
    control_in: dict[int, list[int]] = {i: [] for i in members + enters}
    for src, node in enumerate(nodes):
        for k, edges in enumerate(node.out_edges):
            for dst, slot in edges:
                if dst in data_in:
                    data_in[dst][slot] = (src, k)
        for dst in node.control_out:
            if dst in control_in:
                control_in[dst].append(src)
    inside = member_set | enter_set
    for i in members:
        node = nodes[i]
        if node.blocking or node.op in ("_Send", "_Recv"):
            return None
        if any(s not in inside for s, _ in data_in[i].values()):
            return None
        if any(s not in inside for s in control_in[i]):
            return None
        if node.kind != EXIT:  # only Exits may lead out of the frame
            if any(dst < 0 or dst not in member_set for edges in node.out_edges
                   for dst, _ in edges):
                return None
            if any(dst not in member_set for dst in node.control_out):
                return None
    for i in enters:
        node = nodes[i]
        if node.num_inputs != 1 or node.deref_slots:
            return None
        if any(dst < 0 or dst not in member_set for edges in node.out_edges for dst, _ in edges):
            return None

    merges = [i for i in members if nodes[i].kind == MERGE]
    switches = [i for i in members if nodes[i].op in _SWITCH_OPS]
    conds = [i for i in members if nodes[i].op == "LoopCond"]
    exits = [i for i in members if nodes[i].kind == EXIT]
    if len(conds) != 1 or not merges or len(switches) != len(merges):
        return None
    cond = conds[0]
    if any(nodes[i].op in _CONTROL_FLOW_OPS and i not in (cond, *merges, *switches)
           for i in members):
        return None

    # The skeleton: Merge(Enter, NextIteration) -> Switch(Merge, LoopCond) -> Exit.
    merge_enter: dict[int, int] = {}
    merge_next: dict[int, int] = {}
    for m in merges:
        sources = data_in[m]
        if nodes[m].num_inputs != 2 or len(sources) != 2 or control_in[m]:
            return None
        kinds = {}
        for src, _ in sources.values():
            kinds[nodes[src].kind] = src
        enter, nxt = kinds.get(ENTER), kinds.get(NEXT_ITERATION)
        if enter is None or nxt is None or nodes[enter].is_constant or enter not in enter_set:
            return None
        if any(dst != m for edges in nodes[enter].out_edges for dst, _ in edges):
            return None
        if any(dst != m for edges in nodes[nxt].out_edges for dst, _ in edges):
            return None
        if any(edges for edges in nodes[m].out_edges[1:]):  # value_index is not used
            return None
        merge_enter[m], merge_next[m] = enter, nxt
    switch_merge: dict[int, int] = {}
    for s in switches:
        data = data_in[s].get(0)
        pred = data_in[s].get(1)
        if data is None or pred is None or data[0] not in merge_enter or pred[0] != cond:
            return None
        if any(nodes[dst].kind != EXIT for dst, _ in nodes[s].out_edges[0]):
            return None
        switch_merge[s] = data[0]
    if any(nodes[dst].op not in _SWITCH_OPS for dst, _ in nodes[cond].out_edges[0]):
        return None
    exit_merge: dict[int, int] = {}
    for e in exits:
        src = data_in[e].get(0)
        if src is None or src[0] not in switch_merge or src[1] != 0:
            return None
        exit_merge[e] = switch_merge[src[0]]
    # Constant Enters feed only nodes of the frame (checked above) and no Merge.
    for i in enters:
        if nodes[i].is_constant and any(nodes[dst].kind == MERGE
                                         for edges in nodes[i].out_edges for dst, _ in edges):
            return None
    if _may_wait_for_itself(nodes, exits, enter_set):
        return None

    # Registers: one per output of every member and Enter; aliases point elsewhere.
    register: dict[tuple[int, int], int] = {}
    for i in enters + members:
        for k in range(max(1, len(nodes[i].out_edges))):
            register[(i, k)] = len(register)

    def reg(src: tuple[int, int]) -> int:
        return register[src]

    for s, m in switch_merge.items():
        register[(s, 1)] = register[(m, 0)]
        register[(s, 0)] = register[(m, 0)]

    # Which members read the body (a Switch's true output), directly or not.
    post: set[int] = set()
    order = [i for i in members if i not in switch_merge and nodes[i].kind == NORMAL]
    nexts = set(merge_next.values())
    for i in members:  # topological: sources are classified first
        if i in switch_merge or nodes[i].kind in (MERGE, EXIT):
            continue
        sources = data_in[i].values()
        if any((src in switch_merge and k == 1) or src in post for src, k in sources) or any(
                src in post for src in control_in[i]):
            post.add(i)
    if cond in post or any(n not in post for n in nexts):
        return None

    constants: list[tuple[int, Any]] = []
    pre_schedule: list[_Entry] = []
    post_schedule: list[_Entry] = []
    for i in order:
        node = nodes[i]
        sources = [data_in[i].get(slot) for slot in range(node.num_inputs)]
        if any(s is None for s in sources):
            return None
        if node.op == "Const" and node.num_inputs == 0:
            constants.append((reg((i, 0)), node.kernel.compute()[0]))
            continue
        if node.op in _ALIAS_OPS and node.num_inputs == 1 and not node.deref_slots:
            register[(i, 0)] = reg(sources[0])
            continue
        ins = tuple(reg(s) for s in sources)
        guards = ins + tuple(reg((c, 0)) for c in control_in[i])
        entry = (node.kernel, node, ins, reg((i, 0)), len(node.out_edges),
                 bool(node.deref_slots or node.needs_context), guards)
        (post_schedule if i in post else pre_schedule).append(entry)
    for n in nexts:  # NextIteration: an alias of its input
        register[(n, 0)] = reg(data_in[n][0])

    slots = {e: j for j, e in enumerate(enters)}
    first_enter = nodes[enters[0]]
    kernel = LoopKernel(
        frame=frame,
        registers=len(register),
        constants=constants,
        loop_inputs=[(reg((m, 0)), slots[e]) for m, e in merge_enter.items()],
        invariant_inputs=[(reg((e, 0)), slots[e]) for e in enters if nodes[e].is_constant],
        pre=pre_schedule,
        post=post_schedule,
        cond=reg(data_in[cond][0]),
        back_edges=[(reg((m, 0)), reg((n, 0))) for m, n in merge_next.items()],
        exits=[reg((exit_merge[e], 0)) for e in exits],
    )
    loop = PlanNode(frame, "WhileLoop", first_enter.device, kernel)
    loop.frame = first_enter.frame
    loop.num_inputs = len(enters)
    loop.out_edges = [list(nodes[e].out_edges[0]) for e in exits]
    loop.control_out = [dst for e in exits for dst in nodes[e].control_out]
    return _rebuild(nodes, feed_edges, member_set | enter_set, enters, loop, control_in)


def _may_wait_for_itself(nodes: list[PlanNode], exits: list[int], enter_set: set[int]) -> bool:
    """Whether one of the frame's Enters may take a value computed from its own Exits.

    TensorFlow's gradient of a v1 while loop adds a loop variable to the
    forward frame (the iteration counter `f_count`); built under
    `tf.control_dependencies` on ops that read the loop's results (batch-norm
    moving-average updates), its Enter arrives after the loop's other
    variables have left. The frame runs such a late variable on its own, but
    one loop node, which needs every Enter to start, would wait for ever. In
    a partition the path may run through other devices: a result leaves by a
    _Send and something computed from it comes back by a _Recv, which this
    plan cannot follow, so a loop whose results are sent and whose Enters read
    a _Recv is assumed to wait for itself.
    """
    reached = _reachable(nodes, exits)
    if reached & enter_set:
        return True
    if any(nodes[i].op == "_Send" for i in reached):
        recvs = [i for i, node in enumerate(nodes) if node.op == "_Recv"]
        return bool(recvs) and bool(_reachable(nodes, recvs) & enter_set)
    return False


def _reachable(nodes: list[PlanNode], starts: list[int]) -> set[int]:
    """The nodes downstream of `starts` (loop back edges not followed)."""
    seen = set(starts)
    stack = list(starts)
    while stack:
        node = nodes[stack.pop()]
        if node.kind == NEXT_ITERATION:
            continue  # a back edge stays inside its loop
        for dst in [d for edges in node.out_edges for d, _ in edges if d >= 0] + node.control_out:
            if dst not in seen:
                seen.add(dst)
                stack.append(dst)
    return seen


def _rebuild(nodes: list[PlanNode], feed_edges: Edges, removed: set[int], enters: list[int],
             loop: PlanNode, control_in: dict[int, list[int]]) -> tuple[list[PlanNode], Edges]:
    """The node list without `removed`, plus `loop`, re-indexed and re-ordered."""
    keep = [i for i in range(len(nodes)) if i not in removed]
    new_index = {old: j for j, old in enumerate(keep)}
    loop_index = len(keep)
    # Edges into an Enter become edges into the loop's matching input slot.
    enter_slot = {e: j for j, e in enumerate(enters)}

    def remap(dst: int, slot: int) -> tuple[int, int]:
        if dst < 0:
            return dst, slot
        if dst in enter_slot:
            return loop_index, enter_slot[dst]
        return new_index[dst], slot

    result: list[PlanNode] = []
    for old in keep:
        node = nodes[old]
        node.out_edges = [[remap(d, s) for d, s in edges] for edges in node.out_edges]
        node.control_out = [loop_index if d in enter_slot else new_index[d]
                            for d in node.control_out if d in enter_slot or d not in removed]
        result.append(node)
    loop.out_edges = [[remap(d, s) for d, s in edges] for edges in loop.out_edges]
    loop.control_out = [new_index[d] for d in loop.control_out]
    loop.init_pending = len(enters) + sum(len(control_in[e]) for e in enters)
    result.append(loop)
    feeds = [[remap(d, s) for d, s in edges] for edges in feed_edges]
    return _reorder(result, feeds)


def _reorder(nodes: list[PlanNode], feed_edges: Edges) -> tuple[list[PlanNode], Edges]:
    """Topological order (back edges into Merges ignored), input slots laid out again."""
    count = len(nodes)
    indegree = [0] * count
    successors: list[list[int]] = [[] for _ in range(count)]
    for i, node in enumerate(nodes):
        targets = [d for edges in node.out_edges for d, _ in edges if d >= 0] + node.control_out
        for d in targets:
            if node.kind == NEXT_ITERATION:
                continue  # the loop's back edge
            successors[i].append(d)
            indegree[d] += 1
    ready = deque(i for i in range(count) if indegree[i] == 0)
    order: list[int] = []
    while ready:
        i = ready.popleft()
        order.append(i)
        for d in successors[i]:
            indegree[d] -= 1
            if indegree[d] == 0:
                ready.append(d)
    position = {old: new for new, old in enumerate(order)}
    result = [nodes[i] for i in order]
    base = 0
    for node in result:
        node.out_edges = [[(position[d] if d >= 0 else d, s) for d, s in edges]
                          for edges in node.out_edges]
        node.control_out = [position[d] for d in node.control_out]
        node.input_base = base
        base += node.num_inputs
    return result, [[(position[d], s) for d, s in edges] for edges in feed_edges]


def describe(nodes: Sequence[PlanNode]) -> list[str]:
    """The frames compiled in a plan's nodes (for tests and `--debug` output)."""
    return [n.name for n in nodes if isinstance(n.kernel, LoopKernel)]


__all__ = ["LoopKernel", "compile_loops", "describe"]
