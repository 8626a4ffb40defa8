"""Compile a step: prune the graph to what it needs and lay out an executor plan.

`build_plan(graph, feeds, fetches, targets)` keeps the transitive closure of
the fetched tensors and target ops, stopping at fed tensors (a fed tensor's
producer is not run unless something else needs it), orders the kept nodes,
assigns every node its static control-flow frame (checking Enter/Exit
pairing), instantiates one kernel per node for its device type, wires
feeds and fetches to slots, and collapses each simple while loop into one
node (`loop_compiler`). The result is immutable and can serve many
concurrent steps.

A stateless kernel belongs to its plan. A stateful one (its op schema says so:
random ops, candidate samplers, readers, queues, variables...) belongs to the
session, as in TensorFlow's OpSegment: given the session's `OpSegment`,
`build_plan` takes the kernel of a stateful node from it, so every plan of the
session that runs the node runs the same kernel, and a seeded random op draws
one stream across all the steps of a session whatever their fetches.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import Any

from tfx.core import loop_compiler
from tfx.core.errors import InvalidArgumentError, NotFoundError, TfxError
from tfx.core.executor import ENTER, MERGE, Plan, PlanNode
from tfx.core.graph import Graph, Node, Output
from tfx.core.kernel_registry import find_kernel
from tfx.core.op_registry import has_op
from tfx.protos import graph_pb2

DEFAULT_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


@dataclass(frozen=True)
class FeedSpec:
    """How a fed value is checked: the tensor's dtype and, for placeholders, shape."""

    name: str
    dtype: object
    shape: tuple | None


@dataclass(frozen=True)
class PreparedStep:
    plan: Plan
    feeds: tuple[FeedSpec, ...]
    # For each requested fetch: ("plan", k) for plan fetch k, or ("feed", j) for feed j.
    fetch_sources: tuple[tuple[str, int], ...]
    # How the step may be cut along the batch (`batch_split`), or None.
    batch_split: Any = None


class OpSegment:
    """The kernels of a session's stateful nodes, shared by all the session's plans.

    A kernel is kept per (node name, device, device type, node definition): the
    definition being the op and the attrs the kernel is built from, so a node that
    was changed or replaced under the same name (a graph edited between steps) gets
    a kernel of its own rather than an old one. Safe to use from several threads.

    Example:
        >>> segment = OpSegment()
        >>> plan_a = build_plan(graph, [], ["r:0"], [], kernels=segment)
        >>> plan_b = build_plan(graph, [], ["r:0", "x:0"], [], kernels=segment)
        >>> # both run one RandomUniform kernel: their draws continue one stream
    """

    def __init__(self) -> None:
        self._kernels: dict[tuple, Any] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kernels)

    def find_or_create(self, node: Node, device: str, device_type: str,
                       create: Callable[[], Any]) -> Any:
        """The kernel kept for `node` on `device`, made by `create()` the first time."""
        key = (node.name, device, device_type.upper(), node.op, _attr_fingerprint(node))
        with self._lock:
            kernel = self._kernels.get(key)
        if kernel is None:
            # Built outside the lock (a kernel may read a file when it is built); if two
            # plans race to build it, the first one kept wins and the other is dropped.
            kernel = create()
            with self._lock:
                kernel = self._kernels.setdefault(key, kernel)
        return kernel

    def clear(self) -> None:
        """Drop every kernel (the session is closing)."""
        with self._lock:
            self._kernels.clear()


def _attr_fingerprint(node: Node) -> tuple[tuple[str, bytes], ...]:
    """The attrs a kernel is built from, serialized: those of the op's schema (attrs
    with a leading underscore, such as `_class`, never reach a kernel)."""
    schema_attrs = node.bound.schema.attrs
    return tuple(sorted((key, value.SerializeToString(deterministic=True))
                        for key, value in node.attr.items() if key in schema_attrs))


def build_plan(
    graph: Graph,
    feeds: Sequence[str],
    fetches: Sequence[str],
    targets: Sequence[str],
    device_type: str = "CPU",
    compile_loops: bool = True,
    kernels: OpSegment | None = None,
) -> PreparedStep:
    """Compile one step of `graph` (see the module docstring).

    Args:
        graph: the graph, already optimized for the step if it is to be.
        feeds, fetches: tensor names; targets: op names.
        device_type: the type of device whose kernels run the nodes.
        compile_loops: collapse simple while loops into one node each.
        kernels: the session's OpSegment, which keeps the kernels of stateful nodes
            across plans; None gives every node a kernel of this plan's own.

    Returns:
        The PreparedStep.
    """
    feed_outputs = [_tensor(graph, name, "feed") for name in feeds]
    fetch_outputs = [_tensor(graph, name, "fetch") for name in fetches]
    target_nodes = [_node(graph, name) for name in targets]
    fed = {out: j for j, out in enumerate(feed_outputs)}
    if len(fed) != len(feed_outputs):
        raise InvalidArgumentError("the same tensor is fed twice")

    roots = [o.node for o in fetch_outputs if o not in fed] + target_nodes
    # As TensorFlow's feed rewriting: a fed Placeholder does not run, and the control edges
    # out of it are satisfied by its feed (they would otherwise run it unfed).
    fed_placeholders = {o.node for o in feed_outputs if o.node.op in _PLACEHOLDERS}
    kept = closure(roots, fed, fed_placeholders)
    graph.validate(kept)
    order = graph.topological_order(kept)
    index = {node: i for i, node in enumerate(order)}
    frames, parents = _assign_frames(order)

    plan_nodes: list[PlanNode] = []
    base = 0
    for node in order:
        try:
            if kernels is not None and node.is_stateful:
                kernel = kernels.find_or_create(
                    node, node.device or DEFAULT_DEVICE, device_type,
                    lambda node=node: _make_kernel(node, device_type))
            else:
                kernel = _make_kernel(node, device_type)
        except TfxError as exc:
            where, message = f"node {node.name!r} (op {node.op})", str(exc)
            # A Const's value is decoded here, and its errors already name the node.
            message = message if message.startswith(where) else f"{where}: {message}"
            raise type(exc)(message) from None
        pnode = PlanNode(node.name, node.op, node.device or DEFAULT_DEVICE, kernel)
        pnode.num_inputs = len(node.inputs)
        pnode.input_base = base
        base += pnode.num_inputs
        pnode.out_edges = [[] for _ in node.output_types]
        pnode.frame = frames[node]
        if pnode.kind == ENTER:
            pnode.frame_name = node.attrs["frame_name"]
            pnode.is_constant = bool(node.attrs.get("is_constant", False))
        plan_nodes.append(pnode)

    feed_edges: list[list[tuple[int, int]]] = [[] for _ in feed_outputs]
    for node in order:
        dst = index[node]
        pnode = plan_nodes[dst]
        for slot, source in enumerate(node.inputs):
            j = fed.get(source)
            if j is not None:
                if frames[node]:
                    raise InvalidArgumentError(
                        f"cannot feed {source.name!r}: node {node.name!r} reads it inside "
                        f"loop frame {frames[node]!r}"
                    )
                feed_edges[j].append((dst, slot))
            else:
                plan_nodes[index[source.node]].out_edges[source.index].append((dst, slot))
        controls = [c for c in node.control_inputs if c not in fed_placeholders]
        for control in controls:
            plan_nodes[index[control]].control_out.append(dst)
        pnode.deref_slots = tuple(
            slot
            for slot, (source, want) in enumerate(zip(node.inputs, node.input_types))
            if source.dtype.is_ref and not want.is_ref
        )
        data = 0 if pnode.kind == MERGE else len(node.inputs)  # a Merge waits only for controls
        pnode.init_pending = data + len(controls)

    fetch_sources: list[tuple[str, int]] = []
    plan_fetch_names: list[str] = []
    deref_fetches: list[bool] = []
    for output in fetch_outputs:
        if output in fed:
            fetch_sources.append(("feed", fed[output]))
            continue
        frame = _frame_after(output.node, frames[output.node], parents)
        if frame:
            raise InvalidArgumentError(
                f"cannot fetch {output.name!r}: it is inside loop frame {frame!r}"
            )
        k = len(plan_fetch_names)
        plan_nodes[index[output.node]].out_edges[output.index].append((-1 - k, 0))
        plan_fetch_names.append(output.name)
        deref_fetches.append(output.dtype.is_ref)
        fetch_sources.append(("plan", k))

    if compile_loops:
        plan_nodes, feed_edges = loop_compiler.compile_loops(plan_nodes, feed_edges)
    plan = Plan(plan_nodes, feed_edges, len(plan_fetch_names), plan_fetch_names, deref_fetches)
    feed_specs = tuple(
        feed_spec(o) for o in feed_outputs
    )
    return PreparedStep(plan, feed_specs, tuple(fetch_sources))


def _make_kernel(node: Node, device_type: str) -> Any:
    bound = node.bound
    attrs = bound.attrs
    if not has_op(node.op):
        # The op type names a library function (bound against its signature): it runs as
        # a PartitionedCall of that function with the node's attrs.
        call = graph_pb2.AttrValue()
        call.func.name = node.op
        for key, value in node.attr.items():
            if not key.startswith("_"):
                call.func.attr[key].CopyFrom(value)
        attrs = {"f": call.func, "Tin": bound.input_types, "Tout": bound.output_types}
        kernel_class = find_kernel("PartitionedCall", device_type, attrs)
    else:
        kernel_class = find_kernel(node.op, device_type, attrs)
    if getattr(kernel_class, "needs_library", False):
        # Function-calling kernels see the graph's library, never the graph itself.
        attrs = {**attrs, "_library": node.graph.function_library}
    return kernel_class(node.name, node.op, attrs, bound.input_types,
                        bound.output_types, node.device or DEFAULT_DEVICE)


def _tensor(graph: Graph, name: str, what: str) -> Output:
    try:
        return graph.tensor(name)
    except NotFoundError as exc:
        raise NotFoundError(f"{what} {name!r}: {exc}") from None


def _node(graph: Graph, name: str) -> Node:
    try:
        return graph.node(name)
    except NotFoundError as exc:
        raise NotFoundError(f"target {name!r}: {exc}") from None


_PLACEHOLDERS = frozenset({"Placeholder", "PlaceholderV2"})


def closure(roots: list[Node], fed: Container[Output],
            skipped: Container[Node] = frozenset()) -> list[Node]:
    """Nodes reachable backwards from `roots`, not crossing fed tensors nor control edges
    from `skipped` nodes (in graph order)."""
    kept: dict[Node, None] = {}
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node in kept:
            continue
        kept[node] = None
        for source in node.inputs:
            if source not in fed and source.node not in kept:
                stack.append(source.node)
        for control in node.control_inputs:
            if control not in kept and control not in skipped:
                stack.append(control)
    return list(kept)


def _assign_frames(order: list[Node]) -> tuple[dict[Node, str], dict[str, str]]:
    """The loop frame each node runs in ("" for the root), from Enter/Exit structure."""
    frames: dict[Node, str] = {}
    parents: dict[str, str] = {}
    for node in order:
        frame: str | None = None
        for producer in [s.node for s in node.inputs] + node.control_inputs:
            if producer not in frames or producer.op in ("NextIteration", "RefNextIteration"):
                continue  # fed, or a loop back edge (its frame is checked from the other side)
            candidate = _frame_after(producer, frames[producer], parents)
            if frame is None:
                frame = candidate
            elif candidate != frame:
                raise InvalidArgumentError(
                    f"node {node.name!r} (op {node.op}) reads from two frames, "
                    f"{frame or 'root'!r} and {candidate or 'root'!r}: Enter/Exit do not pair up"
                )
        frames[node] = frame or ""
        if node.op in ("Enter", "RefEnter"):
            child = node.attrs["frame_name"]
            if not child:
                raise InvalidArgumentError(f"node {node.name!r} (op Enter) has an empty frame_name")
            if parents.setdefault(child, frames[node]) != frames[node]:
                raise InvalidArgumentError(
                    f"frame {child!r} is entered from two different parent frames"
                )
        if node.op in ("Exit", "RefExit") and not frames[node]:
            raise InvalidArgumentError(
                f"node {node.name!r} (op {node.op}) is not inside any loop frame"
            )
        if node.op in ("NextIteration", "RefNextIteration") and not frames[node]:
            raise InvalidArgumentError(
                f"node {node.name!r} (op {node.op}) is not inside any loop frame"
            )
    return frames, parents


def _frame_after(producer: Node, frame: str, parents: dict[str, str]) -> str:
    kind_op = producer.op
    if kind_op in ("Enter", "RefEnter"):
        return producer.attrs["frame_name"]
    if kind_op in ("Exit", "RefExit"):
        return parents.get(frame, "")
    return frame


def feed_spec(output: Output) -> FeedSpec:
    """How a value fed to `output` is checked: its dtype, and a placeholder's shape."""
    return FeedSpec(output.name, output.dtype.base, _placeholder_shape(output))


def _placeholder_shape(output: Output) -> tuple | None:
    node = output.node
    if node.op in ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault"):
        shape = node.attrs.get("shape")
        return tuple(shape) if shape is not None else None
    return None

