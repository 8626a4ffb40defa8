"""The v1 control-flow structure of a graph read back from its ops.

A graph built by `cond` and `while_loop` keeps, on each Operation, the
`CondContext` or `WhileContext` it was made in; the gradients of `Switch`,
`Merge` and of a loop need them. A graph that comes back from a GraphDef or a
FunctionDef (the body a function call's backward function rebuilds) has only
the ops, so `infer_structure` recovers the contexts from how the ops are wired, as
TensorFlow's executor recovers frames from `Enter`'s `frame_name`:

* a loop is the `Enter`s of one frame; through each loop variable's `Enter`
  run its `Merge`, the `Switch` on the `LoopCond`, the `Identity` the body
  reads (`Switch:1`), the `Exit` (`Switch:0`) and the `NextIteration` feeding
  the `Merge` back; a constant `Enter` brings an outside value in;
* a conditional is `Switch(pred, pred)` (the header) with its pivots
  `Identity(Switch:1)` and `Identity(Switch:0)`, and `pred_id`, an `Identity`
  of `pred` in the same name scope; a value enters branch k through a
  `Switch(value, pred_id)` whose output k is used, and the branches' results
  meet in a `Merge`;
* any other op lies in the innermost context its inputs come from (an `Exit`'s
  value lies outside its loop, a `Merge` closing a cond outside the cond), and
  an op without inputs in the context of the op gating it (a branch's pivot).

`ContextRebuilder` then gives the ops rebuilt from such a graph the matching
`CondContext`s and `WhileContext`s, so `gradients` differentiates them as if
`cond` and `while_loop` had built them:

    structure = infer_structure(body)
    contexts = ContextRebuilder(graph, structure)
    with contexts.creating(node):
        op = graph.create_op(...)
    contexts.adopt(node, op)
    ...
    contexts.finish()
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tfx.core.errors import InvalidArgumentError

__all__ = ["LoopInfo", "CondInfo", "BranchInfo", "Structure", "infer_structure",
           "ContextRebuilder"]

_ENTERS = frozenset({"Enter", "RefEnter"})
_EXITS = frozenset({"Exit", "RefExit"})
_SWITCHES = frozenset({"Switch", "RefSwitch"})
_MERGES = frozenset({"Merge", "RefMerge"})
_NEXT_ITERATIONS = frozenset({"NextIteration", "RefNextIteration"})
_IDENTITIES = frozenset({"Identity", "RefIdentity"})


@dataclass(eq=False)
class LoopInfo:
    """One while loop: its frame and, per loop variable, the names of its skeleton nodes
    (aligned lists; an entry is None where the graph lacks the node)."""

    frame: str
    parallel_iterations: int
    outer: Context
    enters: list[str] = field(default_factory=list)
    merges: list[str | None] = field(default_factory=list)
    switches: list[str | None] = field(default_factory=list)
    body_vars: list[str | None] = field(default_factory=list)
    next_iterations: list[str | None] = field(default_factory=list)
    exits: list[str | None] = field(default_factory=list)
    loop_cond: str | None = None

    def skeleton(self) -> list[str]:
        """The nodes every rebuilt copy of the loop needs, whichever variables it uses."""
        names = [self.loop_cond, *self.enters, *self.merges, *self.switches, *self.body_vars,
                 *self.next_iterations, *self.exits]
        return [n for n in names if n is not None]


@dataclass(eq=False)
class CondInfo:
    """One conditional: its header `Switch(pred, pred)`, pivots (false, true) and the
    predicate its branch Switches use (`pred_id`, or `pred` itself if it has none)."""

    header: str
    pred: tuple[str, int]
    pivots: list[str | None]
    outer: Context
    branches: list[BranchInfo] = field(default_factory=list)

    def skeleton(self) -> list[str]:
        return [n for n in (self.header, self.pred[0], *self.pivots) if n is not None]


@dataclass(eq=False)
class BranchInfo:
    """Branch `branch` (1: true, 0: false) of `cond`."""

    cond: CondInfo
    branch: int

    @property
    def outer(self) -> Context:
        return self.cond.outer


Context = LoopInfo | BranchInfo | None


def _depth(ctx: Context) -> int:
    depth = 0
    while ctx is not None:
        depth, ctx = depth + 1, ctx.outer
    return depth


def _constructs(ctx: Context) -> Iterator[LoopInfo | CondInfo]:
    while ctx is not None:
        yield ctx.cond if isinstance(ctx, BranchInfo) else ctx
        ctx = ctx.outer


@dataclass
class Structure:
    """Where each node of a graph lies: `contexts[name]` is its context (None outside any
    loop or cond); `closes[name]` is the cond a `Merge` closes."""

    contexts: dict[str, Context]
    closes: dict[str, CondInfo]
    loops: list[LoopInfo]
    conds: list[CondInfo]

    @property
    def has_control_flow(self) -> bool:
        return bool(self.loops or self.conds)

    def context(self, name: str) -> Context:
        return self.contexts.get(name)

    def constructs(self, name: str) -> list[LoopInfo | CondInfo]:
        """The loops and conds a node is part of: those around it, and the cond it closes."""
        found = list(_constructs(self.contexts.get(name)))
        if name in self.closes:
            found.append(self.closes[name])
        return found

    def gate(self, node: Any) -> list[str]:
        """The nodes the copy of IR node `node` must follow when rebuilt, beyond its inputs:
        in a branch, the branch's predicate and pivot (its context needs them); without
        inputs in a loop, the loop's first Merge (whose iterations it then runs in)."""
        ctx = self.contexts.get(node.name)
        if isinstance(ctx, BranchInfo):
            pivot = ctx.cond.pivots[ctx.branch]
            return [ctx.cond.pred[0]] + ([pivot] if pivot is not None else [])
        if isinstance(ctx, LoopInfo) and not node.inputs and ctx.merges and (
                ctx.merges[0] is not None):
            return [ctx.merges[0]]
        return []


def infer_structure(graph: Any) -> Structure:
    """The loops and conds of IR graph `graph` (tfx.core.graph.Graph) and where each node
    lies (see the module docstring for the rules)."""
    cond_by_header, pred_ids, pivots = _find_conds(graph)
    contexts: dict[str, Context] = {}
    output_contexts: dict[tuple[str, int], Context] = {}
    closes: dict[str, CondInfo] = {}
    loops: dict[str, LoopInfo] = {}

    def value_context(output: Any) -> Context:
        key = (output.node.name, output.index)
        if key in output_contexts:
            return output_contexts[key]
        return contexts.get(output.node.name)

    def control_context(node: Any) -> Context:
        if node.name in pivots:
            header, k = pivots[node.name]
            cond = cond_by_header[header]
            return cond.branches[k]
        return value_context(node.output(0)) if node.op in _EXITS else contexts.get(node.name)

    def innermost(candidates: list[Context]) -> Context:
        best: Context = None
        for ctx in candidates:
            if ctx is not None and _depth(ctx) > _depth(best):
                best = ctx
        return best

    for node in graph.topological_order():
        ctx: Context
        if node.op in _ENTERS:
            frame = node.attr["frame_name"].s.decode()
            loop = loops.get(frame)
            if loop is None:
                loop = LoopInfo(frame, node.attr["parallel_iterations"].i,
                                value_context(node.inputs[0]))
                loops[frame] = loop
            if not node.attr["is_constant"].b:
                loop.enters.append(node.name)
            ctx = loop
        elif node.op in _SWITCHES and node.inputs[0] == node.inputs[1]:
            ctx = value_context(node.inputs[0])
            cond = cond_by_header[node.name]
            cond.outer = ctx
        elif node.op in _SWITCHES and node.inputs[1].node.op == "LoopCond":
            ctx = contexts.get(node.inputs[1].node.name)
        elif node.op in _SWITCHES and node.inputs[1].node.name in pred_ids:
            cond = cond_by_header[pred_ids[node.inputs[1].node.name]]
            used = {o.index for user in node.users for o in user.inputs if o.node is node}
            ctx = cond.branches[1 if 1 in used or 0 not in used else 0]
            for k in (0, 1):
                output_contexts[(node.name, k)] = cond.branches[k]
        elif node.op in _EXITS:
            ctx = value_context(node.inputs[0])
            if isinstance(ctx, LoopInfo):
                output_contexts[(node.name, 0)] = ctx.outer
        elif node.op in _MERGES and any(o.node.op in _ENTERS | _NEXT_ITERATIONS
                                        for o in node.inputs) and any(
                o.node.op in _ENTERS and o.node.name in contexts for o in node.inputs):
            ctx = next(contexts[o.node.name] for o in node.inputs
                       if o.node.op in _ENTERS and o.node.name in contexts)
        else:
            ctx = None
            if node.op in _MERGES:
                closed = _closed_cond([value_context(o) for o in node.inputs])
                if closed is not None:
                    ctx = closed.outer
                    closes[node.name] = closed
            if node.name not in closes:
                ctx = innermost([value_context(o) for o in node.inputs]
                                + [control_context(c) for c in node.control_inputs])
        contexts[node.name] = ctx
    for loop in loops.values():
        _fill_loop(graph, loop)
    return Structure(contexts, closes, list(loops.values()),
                     list(cond_by_header.values()))


def _find_conds(graph: Any) -> tuple[dict[str, CondInfo], dict[str, str], dict[str, tuple]]:
    """Every cond header, keyed by name; pred_id node -> its header; pivot -> (header, k)."""
    headers: dict[tuple[str, int], list[Any]] = {}
    for node in graph:
        if node.op in _SWITCHES and node.inputs[0] == node.inputs[1]:
            headers.setdefault((node.inputs[0].node.name, node.inputs[0].index), []).append(node)
    cond_by_header: dict[str, CondInfo] = {}
    pred_ids: dict[str, str] = {}
    pivots: dict[str, tuple[str, int]] = {}
    for (pred_node, index), found in headers.items():
        pred = graph.node(pred_node)
        ids = [u for u in pred.users if u.op in _IDENTITIES and u.inputs[0] == pred.output(index)]
        for header in found:
            scope = header.name.rpartition("/")[0]
            same = [u for u in ids if u.name.rpartition("/")[0] == scope]
            pred_id = same[0] if same else None
            cond = CondInfo(header.name, (pred_id.name, 0) if pred_id else (pred_node, index),
                            [None, None], None)
            cond.branches = [BranchInfo(cond, 0), BranchInfo(cond, 1)]
            for user in header.users:
                if user.op in _IDENTITIES and user.inputs[0].node is header:
                    k = user.inputs[0].index
                    if cond.pivots[k] is None:
                        cond.pivots[k] = user.name
                    pivots[user.name] = (header.name, k)
            cond_by_header[header.name] = cond
            if pred_id is not None:
                pred_ids[pred_id.name] = header.name
        for u in ids:  # a pred_id outside its header's scope: any cond on the same pred
            pred_ids.setdefault(u.name, found[0].name)
    return cond_by_header, pred_ids, pivots


def _closed_cond(input_contexts: list[Context]) -> CondInfo | None:
    """The cond whose two branches the inputs of a Merge come from, if any."""
    seen: dict[int, tuple[CondInfo, set[int]]] = {}
    for ctx in input_contexts:
        while ctx is not None and not isinstance(ctx, BranchInfo):
            ctx = ctx.outer
        if ctx is None:
            return None
        cond, branches = seen.setdefault(id(ctx.cond), (ctx.cond, set()))
        branches.add(ctx.branch)
    if len(seen) == 1:
        cond, branches = next(iter(seen.values()))
        if branches == {0, 1}:
            return cond
    return None


def _fill_loop(graph: Any, loop: LoopInfo) -> None:
    """Follow each loop variable from its Enter to the rest of its skeleton."""

    def user(node: Any, index: int, ops: frozenset, pred: Any = None) -> Any:
        for u in node.users:
            if u.op in ops and u.inputs and u.inputs[0] == node.output(index) and (
                    pred is None or pred(u)):
                return u
        return None

    for name in loop.enters:
        merge = user(graph.node(name), 0, _MERGES)
        switch = merge and user(merge, 0, _SWITCHES,
                                lambda u: u.inputs[1].node.op == "LoopCond")
        body_var = switch and user(switch, 1, _IDENTITIES)
        exit_ = switch and user(switch, 0, _EXITS)
        back = merge and next((o.node for o in merge.inputs
                               if o.node.op in _NEXT_ITERATIONS), None)
        if switch is not None and loop.loop_cond is None:
            loop.loop_cond = switch.inputs[1].node.name
        for names, node in ((loop.merges, merge), (loop.switches, switch),
                            (loop.body_vars, body_var), (loop.exits, exit_),
                            (loop.next_iterations, back)):
            names.append(node.name if node is not None else None)


class ContextRebuilder:
    """Contexts for the ops rebuilt, one by one, from a graph whose `Structure` is known.

    `creating(node)` makes the graph's context the one to create IR node `node`'s copy in
    (an Enter and a branch's Switch are made outside the context they bring a value into,
    as `cond` and `while_loop` make them); `adopt(node, op)` records the copy and gives it
    its context; `finish()` fills in each loop's and cond's fields once all copies exist.
    A loop in `no_gradient` (built with back_prop=False) passes no gradient.
    """

    def __init__(self, graph: Any, structure: Structure,
                 no_gradient: frozenset[str] = frozenset()) -> None:
        self.graph = graph
        self.structure = structure
        self.no_gradient = no_gradient  # frames of loops built with back_prop=False
        self.ops: dict[str, Any] = {}  # node name -> its rebuilt Operation
        self._made: dict[int, Any] = {}  # id(LoopInfo or BranchInfo) -> its context

    def context(self, info: Context) -> Any:
        from tfx.core.api.control_flow_api import CondContext, WhileContext

        if info is None:
            return None
        ctx = self._made.get(id(info))
        if ctx is not None:
            return ctx
        outer = self.context(info.outer)
        if isinstance(info, LoopInfo):
            ctx = WhileContext(self.graph, info.frame, info.parallel_iterations)
        else:
            cond = info.cond
            pred = self.ops[cond.pred[0]].outputs[cond.pred[1]]
            pivot = cond.pivots[info.branch]
            ctx = CondContext(self.graph, pred, self._output(pivot), info.branch)
        ctx.outer = outer
        self._made[id(info)] = ctx
        return ctx

    def _output(self, name: str | None) -> Any:
        op = self.ops.get(name) if name is not None else None
        return op.outputs[0] if op is not None else None

    @contextlib.contextmanager
    def creating(self, node: Any) -> Iterator[None]:
        """Make the graph's context the one to create the copy of IR node `node` in."""
        from tfx.core.api.control_flow_api import _Entered

        info = self.structure.context(node.name)
        if node.op in _ENTERS or (node.op in _SWITCHES and isinstance(info, BranchInfo)):
            info = info.outer
        with _Entered(self.graph, self.context(info)):
            yield

    def adopt(self, node: Any, op: Any) -> None:
        """Record `op`, the copy of IR node `node`, and give it its context."""
        name = node.name
        self.ops[name] = op
        info = self.structure.context(name)
        ctx = self.context(info)
        op._control_flow_context = ctx
        if node.op in _ENTERS and node.attr["is_constant"].b:
            ctx._external[op.inputs[0].name] = op.outputs[0]
        elif node.op in _SWITCHES and isinstance(info, BranchInfo):
            ctx._external[op.inputs[0].name] = op.outputs[info.branch]
        elif isinstance(info, LoopInfo) and info.merges and name == info.merges[0]:
            ctx._phase_pivot = op.outputs[0]

    def finish(self) -> None:
        """Fill in the loops' skeletons and the branches' other pivots."""
        for loop in self.structure.loops:
            ctx = self._made.get(id(loop))
            if ctx is None:
                continue
            fields = {"enters": loop.enters, "merges": loop.merges, "switches": loop.switches,
                      "next_iterations": loop.next_iterations, "exits": loop.exits}
            for attr, names in fields.items():
                missing = [n or "?" for n in names if n is None or n not in self.ops]
                if missing:
                    raise InvalidArgumentError(
                        f"while loop {loop.frame!r}: its {attr} could not all be found or "
                        f"rebuilt ({missing[0]!r}: a loop variable's Merge, Switch, Exit or "
                        "NextIteration is missing), so it cannot be differentiated")
                setattr(ctx, attr, [self.ops[n] for n in names])
            ctx.body_vars = [self._output(n) for n in loop.body_vars]
            ctx.pivot = self._output(loop.loop_cond)
            ctx.back_prop = loop.frame not in self.no_gradient
            if ctx.body_vars and ctx.body_vars[0] is not None:
                ctx._phase_pivot = ctx.body_vars[0]
        for cond in self.structure.conds:
            for branch in cond.branches:
                ctx = self._made.get(id(branch))
                if ctx is not None:
                    if ctx.pivot is None:
                        ctx.pivot = self._output(cond.pivots[branch.branch])
                    ctx.other_pivot = self._output(cond.pivots[1 - branch.branch])
