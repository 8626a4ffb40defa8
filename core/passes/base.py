"""The pass contract and the graph edits every pass shares.

A pass is a function `run(graph, ctx) -> (graph, changed)` that rewrites the
graph in place through the IR's own methods and never changes what the kept
nodes compute. `PassContext` says what must survive: `inputs` (fed tensors'
nodes: opaque, kept, and never looked through, since a feed replaces their
value) and `outputs` (fetched tensors' nodes and targets: kept under their
names, though their op may change when the new one computes the same values).

Safety rules every pass follows, named once here:

* `has_side_effects` nodes (stateful schemas, anything reading a ref or a
  resource handle, queues, random ops) are never folded, merged or removed;
* control-flow nodes (Switch, Merge, Enter, Exit, NextIteration, LoopCond) are
  never folded, merged, moved or looked through, so frames stay as they were;
* a node's control inputs move with it to its readers when it is bypassed, so
  every dependency (and every dead value) still arrives;
* a pattern spans nodes on one device only, and never a ref edge.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from tfx.core import dtypes, limits, tensor_util
from tfx.core.errors import TfxError
from tfx.core.graph import Graph, Node, Output
from tfx.protos import graph_pb2

CONTROL_FLOW_OPS = frozenset({
    "Switch", "RefSwitch", "_SwitchN", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
    "RefExit", "NextIteration", "RefNextIteration", "LoopCond", "ControlTrigger", "Abort",
})
INPUT_OPS = frozenset({"Placeholder", "PlaceholderV2", "PlaceholderWithDefault"})
# Ops whose schema may not say "stateful" but whose effect or result is not a
# pure function of their inputs (TensorFlow marks them stateful; tfx may not yet), and
# CheckNumerics, whose point is the error it raises.
_EFFECT_OP_RE = re.compile(
    r"Random|Multinomial|Shuffle|Queue|TensorArray|Stack|Barrier|Accumulator|Print|Assert|"
    r"CheckNumerics|"
    r"Variable|Resource|Iterator|Dataset|Summary|Save|Restore|Candidate|Stateful|Seed|"
    r"Parameterized|TruncatedNormal|Assign|Scatter|Apply|CountUpTo|Checkpoint|Rendezvous|"
    r"^_Send$|^_Recv$|^_HostSend$|^_HostRecv$"
)
_HANDLE_TYPES = frozenset({"resource", "variant"})


@dataclass
class PassContext:
    """What a pass must preserve, its options, and what it counts.

    Attributes:
        inputs: names of nodes whose outputs are fed: kept as they are and opaque.
        outputs: names of nodes fetched or run as targets: kept under their names.
        max_constant_bytes: the largest constant a fold may create.
        stats: counters the passes add to (`folded`, `merged`, ...), for the report.
    """

    inputs: frozenset[str] = frozenset()
    outputs: frozenset[str] = frozenset()
    max_constant_bytes: int = 10 << 20
    stats: Counter = field(default_factory=Counter)

    def is_kept(self, node: Node) -> bool:
        return node.name in self.inputs or node.name in self.outputs

    def is_opaque(self, node: Node) -> bool:
        """Fed nodes: their value comes from the feed, so nothing may look through them."""
        return node.name in self.inputs


PassFn = Callable[[Graph, PassContext], "tuple[Graph, bool]"]


@dataclass(frozen=True)
class Pass:
    """A named pass. `exact` passes change no bit of any result; others round differently."""

    name: str
    run: PassFn
    summary: str
    exact: bool = True


# --- node predicates ---------------------------------------------------------------------


def binds(node: Node) -> bool:
    """Whether the node's op is known and its attrs are valid."""
    try:
        node.bound  # noqa: B018 - evaluated for its checks
    except TfxError:
        return False
    return True


def has_side_effects(node: Node) -> bool:
    """Whether the node does more than compute its outputs from its inputs (or may)."""
    if not binds(node):
        return True  # unknown: assume the worst
    if node.is_stateful or _EFFECT_OP_RE.search(node.op):
        return True
    for dtype in (*node.input_types, *node.output_types):
        if dtype.is_ref or dtype.base.name in _HANDLE_TYPES:
            return True
    return False


def is_pure(node: Node) -> bool:
    """A node that may be folded, merged, removed when unused or rewritten."""
    return node.op not in CONTROL_FLOW_OPS and node.op not in INPUT_OPS and not (
        has_side_effects(node)
    )


def is_const(node: Node, ctx: PassContext) -> bool:
    """A Const whose value a pass may read and compute with.

    Not a fed one, not one over the per-tensor limit (decoding it fails; the
    error is left to run time, where a higher limit may be given), and not a
    splat (a few values standing for many) larger than `ctx.max_constant_bytes`:
    computing with it would expand it, so the passes treat it as an opaque
    input, as TensorFlow's grappler does with constants over its size limit.
    Its shape is still known (`const_shape`).
    """
    return node.op == "Const" and not ctx.is_opaque(node) and not _too_large(node, ctx)


def _too_large(node: Node, ctx: PassContext) -> bool:
    value = node.attr.get("value")
    if value is None or value.WhichOneof("value") != "tensor":
        return False
    tensor = value.tensor
    try:
        nbytes = tensor_util.proto_nbytes(tensor)
        if nbytes > limits.max_tensor_bytes():
            return True
        return tensor_util.is_compact(tensor) and nbytes > ctx.max_constant_bytes
    except TfxError:
        return False  # malformed: binding the node reports it


def const_value(node: Node) -> np.ndarray:
    """The decoded value of a Const that `is_const` accepts."""
    return node.attrs["value"].value


def const_shape(node: Node) -> tuple[int, ...] | None:
    """A Const's shape from its proto, without decoding the values."""
    value = node.attr.get("value")
    if value is None or value.WhichOneof("value") != "tensor":
        return None
    shape = value.tensor.tensor_shape
    if shape.unknown_rank or any(d.size < 0 for d in shape.dim):
        return None
    return tuple(int(d.size) for d in shape.dim)


def sole_reader(node: Node, reader: Node) -> bool:
    """Whether `reader` is the only node reading `node`, through one data edge."""
    if len(node.users) != 1 or reader not in node.users or node in reader.control_inputs:
        return False
    return sum(1 for s in reader.inputs if s.node is node) == 1


def same_device(*nodes: Node) -> bool:
    return len({n.device for n in nodes}) == 1


def data_users(node: Node) -> list[Node]:
    return [u for u in node.users if any(s.node is node for s in u.inputs)]


# --- graph edits -------------------------------------------------------------------------


def make_const_attr(value: np.ndarray, dtype: dtypes.DType) -> dict[str, graph_pb2.AttrValue]:
    tensor = tensor_util.from_ndarray(value, dtype)
    return {
        "dtype": graph_pb2.AttrValue(type=dtype.enum),
        "value": graph_pb2.AttrValue(tensor=tensor),
    }


def add_const(graph: Graph, name: str, value: np.ndarray, dtype: dtypes.DType,
              device: str = "", control_inputs: Iterable[Node] = ()) -> Node:
    """A new Const node (named `name`, or a unique variant of it)."""
    return graph.add_node(graph.unique_name(name), "Const", (), control_inputs,
                          make_const_attr(value, dtype), device)


def bypass(graph: Graph, node: Node, source: Output, ctx: PassContext,
           extra_controls: Iterable[Node] = ()) -> bool:
    """Make every reader of `node:0` read `source` instead, and remove `node`.

    The node's control inputs (and `extra_controls`: those of inputs the rewrite
    drops, such as a neutral constant's) move to its readers and its control
    readers wait for `source`'s node instead (unless it is fed), so every
    dependency, and the deadness it carries, still holds. Refused (False) for
    kept nodes, for nodes with several outputs, and where moving edges would
    touch control flow.
    """
    if ctx.is_kept(node) or node.num_outputs != 1:
        return False
    users = list(node.users)
    moved = list(dict.fromkeys([*node.control_inputs, *extra_controls]))
    if moved and any(u.op in CONTROL_FLOW_OPS for u in users):
        return False
    control_readers = [u for u in users if node in u.control_inputs]
    if control_readers and source.node.op in CONTROL_FLOW_OPS:
        return False
    for user in users:
        for control in moved:
            if control is not user:
                graph.add_control_input(user, control)
    for user in control_readers:
        graph.remove_control_input(user, node)
        # A fed node's value is there from the start: waiting for it orders nothing, and
        # a control edge would make the session run (and fail on) a fed placeholder.
        if user is not source.node and not ctx.is_opaque(source.node):
            graph.add_control_input(user, source.node)
    graph.replace_uses(node.output(0), source)
    graph.remove_node(node)
    return True


def replace_node(graph: Graph, old: Node, op: str, inputs: list[Output],
                 attr: dict[str, graph_pb2.AttrValue], control_inputs: Iterable[Node] = (),
                 ) -> Node:
    """Replace `old` by a new node of `op` under the same name, device and readers.

    The new node's output i takes the place of `old`'s output i. `inputs` may
    read `old`'s producers but not `old` itself.
    """
    name, device = old.name, old.device
    controls = list(dict.fromkeys([*old.control_inputs, *control_inputs]))
    temp = graph.add_node(graph.unique_name(f"{name}/_replaced"), op, inputs, controls, attr,
                          device)
    _move_readers(graph, old, temp)
    graph.remove_node(old)
    new = graph.add_node(name, op, list(temp.inputs), list(temp.control_inputs),
                         dict(temp.attr), device)
    _move_readers(graph, temp, new)
    graph.remove_node(temp)
    return new


def _move_readers(graph: Graph, old: Node, new: Node) -> None:
    for user in list(old.users):
        if old in user.control_inputs:
            graph.remove_control_input(user, old)
            graph.add_control_input(user, new)
        for i, source in enumerate(user.inputs):
            if source.node is old:
                graph.set_input(user, i, new.output(source.index))


def remove_if_unused(graph: Graph, node: Node, ctx: PassContext) -> int:
    """Remove `node` and then its producers that nothing reads any more (pure, not kept)."""
    removed = 0
    stack = [node]
    while stack:
        current = stack.pop()
        if current.users or ctx.is_kept(current) or current.name not in graph:
            continue
        if graph.node(current.name) is not current or not is_pure(current):
            continue
        producers = [s.node for s in current.inputs] + list(current.control_inputs)
        graph.remove_node(current)
        removed += 1
        stack.extend(producers)
    return removed


def attr_key(node: Node) -> tuple:
    """A hashable, deterministic form of a node's attrs."""
    return tuple(
        (key, node.attr[key].SerializeToString(deterministic=True)) for key in sorted(node.attr)
    )
