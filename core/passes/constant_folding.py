"""Constant folding: evaluate what depends only on constants, once, with our own kernels.

A node is folded when every data input is a Const and the node is pure (no
side effect, no control flow, not an input or output with several results
that must keep its name). Its value is computed with `run_op` on the CPU
kernels and stored in a new Const under the node's name, which inherits the
node's control inputs and those of the constants it read, so the constant
runs in the same frame, waits for the same things and is dead when they are.

Shapes are folded too: `Shape`, `ShapeN`, `Size` and `Rank` of a tensor whose
static shape is known become constants. Inside control flow the constant
keeps a control edge from the measured tensor's node, which carries its frame
and deadness.

Size limits keep a fold from blowing a graph up: the output must be known
statically to hold at most `max_constant_bytes` (default 10 MiB), and a fold
whose serialized result is much larger than its inputs (a `Fill`, `Tile` or
`BroadcastTo` of a small constant) is left to run at step time.
"""

from __future__ import annotations

import numpy as np

from tfx.core import dtypes
from tfx.core.eager import run_op
from tfx.core.errors import TfxError
from tfx.core.graph import Graph, Node, Output
from tfx.core.kernel_registry import find_kernel
from tfx.core.passes.analysis import node_output_shapes, num_elements, shape_of
from tfx.core.passes.base import (
    CONTROL_FLOW_OPS,
    Pass,
    PassContext,
    add_const,
    const_value,
    is_const,
    is_pure,
    make_const_attr,
    remove_if_unused,
    replace_node,
)

_SHAPE_OPS = frozenset({"Shape", "ShapeN", "Size", "Rank"})
# Ops that only name their input again: folding one copies the constant for nothing.
_NO_FOLD_OPS = frozenset({"Const", "NoOp", "Snapshot"})
# A fold may grow the serialized graph by this much beyond twice its inputs' size.
_GROWTH_ALLOWANCE = 64 << 10


def fold_constants(graph: Graph, ctx: PassContext) -> tuple[Graph, bool]:
    """Replace constant subgraphs and statically known shapes with Consts.

    Args:
        graph: the graph, changed in place.
        ctx: kept nodes and `max_constant_bytes`.

    Returns:
        (graph, whether anything was folded).
    """
    # Shapes are inferred as the walk goes, so a folded Shape informs what follows
    # (a Reshape to it, a Shape of that...) in the same pass.
    shapes: dict[Output, tuple | None] = {}
    in_control_flow = _control_flow_region(graph)
    folded = 0
    for node in graph.topological_order():
        if node.name not in graph or graph.node(node.name) is not node:
            continue
        for index, shape in enumerate(node_output_shapes(node, shapes, ctx.inputs)):
            shapes[Output(node, index)] = shape
        if ctx.is_opaque(node) or not node.inputs or node.op in _NO_FOLD_OPS:
            continue
        if not is_pure(node):
            continue
        if node.op in _SHAPE_OPS and not all(is_const(s.node, ctx) for s in node.inputs):
            extra = [s.node for s in node.inputs if s.node in in_control_flow]
            if any(n.op in CONTROL_FLOW_OPS for n in extra):
                continue  # a control edge from a Switch is live in the untaken branch
            values = _static_shape_values(node, shapes)
        elif all(is_const(s.node, ctx) for s in node.inputs):
            values = _evaluate(node, shapes, ctx)
            extra = [c for s in node.inputs for c in s.node.control_inputs]
        else:
            continue
        if values is None:
            continue
        if _materialize(graph, node, values, extra, ctx):
            folded += 1
    ctx.stats["constants folded"] += folded
    return graph, bool(folded)


def _control_flow_region(graph: Graph) -> set[Node]:
    """Nodes downstream of control flow: they may run in a loop frame or be dead."""
    region: set[Node] = set()
    stack = [n for n in graph if n.op in CONTROL_FLOW_OPS]
    while stack:
        node = stack.pop()
        if node in region:
            continue
        region.add(node)
        stack.extend(node.users)
    return region


def _static_shape_values(node: Node, shapes: dict[Output, tuple | None]) -> list | None:
    out_type = node.attrs.get("out_type", dtypes.int32)
    values = []
    for source in node.inputs:
        shape = shape_of(source, shapes)
        if shape is None:
            return None
        if node.op == "Rank":
            values.append(np.asarray(len(shape), dtype=np.int32))
            continue
        if any(d is None for d in shape):
            return None
        if node.op == "Size":
            values.append(np.asarray(int(np.prod(shape, dtype=np.int64)), dtype=out_type.np))
        else:
            values.append(np.asarray(shape, dtype=out_type.np).reshape(len(shape)))
    for value in values:
        if value.dtype == np.int32 and value.size and np.abs(value.astype(np.int64)).max() >= 2**31:
            return None  # the kernel would refuse: leave the error to run time
    return values


def _evaluate(node: Node, shapes: dict[Output, tuple | None], ctx: PassContext) -> list | None:
    try:
        kernel = find_kernel(node.op, "CPU", node.attrs)
    except Exception:  # noqa: BLE001 - no kernel: nothing to fold with
        return None
    if getattr(kernel, "needs_context", False) or getattr(kernel, "blocking", False):
        return None
    try:
        inputs = [const_value(s.node) for s in node.inputs]
    except TfxError:  # a constant that cannot be decoded (limits, range) fails at run time
        return None
    input_bytes = sum(int(v.nbytes) for v in inputs)
    static = node_output_shapes(node, shapes, ctx.inputs, values=inputs)
    for shape, dtype in zip(static, node.output_types):
        count = num_elements(shape)
        if count is None or count * max(dtype.itemsize or 8, 1) > ctx.max_constant_bytes:
            return None
    attrs = {k: v for k, v in node.attrs.items()}
    try:
        outputs = run_op(node.op, inputs, **attrs)
    except Exception:  # noqa: BLE001 - a failing kernel fails at run time, as before
        return None
    if len(outputs) != node.num_outputs:
        return None
    values = []
    for value, dtype in zip(outputs, node.output_types):
        array = np.asarray(value)
        if array.dtype.kind == "O" and dtype.name != "string":
            return None
        if array.nbytes > ctx.max_constant_bytes:
            return None
        values.append(array)
    out_bytes = sum(int(v.nbytes) for v in values)
    if out_bytes > 2 * input_bytes + _GROWTH_ALLOWANCE:
        serialized = sum(
            make_const_attr(v, t)["value"].ByteSize() for v, t in zip(values, node.output_types)
        )
        if serialized > 2 * input_bytes + _GROWTH_ALLOWANCE:
            return None
    return values


def _materialize(graph: Graph, node: Node, values: list, extra_controls: list[Node],
                 ctx: PassContext) -> bool:
    """Put Consts in place of `node`'s outputs; return whether the node was replaced."""
    producers = [s.node for s in node.inputs]
    types = node.output_types
    if len(values) == 1:
        replace_node(graph, node, "Const", [], make_const_attr(values[0], types[0].base),
                     control_inputs=extra_controls)
    else:
        if ctx.is_kept(node) or any(node in u.control_inputs for u in node.users):
            return False
        controls = list(dict.fromkeys([*node.control_inputs, *extra_controls]))
        for index, (value, dtype) in enumerate(zip(values, types)):
            readers = [u for u in node.users if any(s == node.output(index) for s in u.inputs)]
            if not readers:
                continue
            const = add_const(graph, f"{node.name}/output_{index}", value, dtype.base,
                              node.device, controls)
            graph.replace_uses(node.output(index), const.output(0))
        graph.remove_node(node)
    for producer in producers:
        if producer.name in graph and graph.node(producer.name) is producer:
            remove_if_unused(graph, producer, ctx)
    return True


PASS = Pass("constant_folding", fold_constants,
            "evaluate constant subgraphs and static shapes (Shape/Size/Rank) once")
