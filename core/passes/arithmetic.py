"""Arithmetic simplification: algebraic identities that remove work.

* `x * 1`, `1 * x`, `x / 1`, `x + 0`, `0 + x`, `x - 0`, `BiasAdd(x, 0)` -> `x`, when
  broadcasting the constant cannot change x's shape or type;
* `Neg(Neg(x))` -> `x`; `Cast` to the type it already has -> its input;
* `Transpose(Transpose(x, p), q)` -> `Transpose(x, p[q])`, or `x` when that is
  the identity permutation; `Transpose(x, identity)` -> `x`;
* `Reshape(Reshape(x, a), b)` -> `Reshape(x, b)`; `Reshape(x, shape of x)` -> `x`.

Every rewrite is exact except `x + 0`, which turns -0.0 into +0.0 as Grappler's
does. Folding constant scales into convolution and matmul weights is the
`weight_folding` pass.
"""

from __future__ import annotations

import numpy as np

from tfx.core.graph import Graph, Node, Output
from tfx.core.passes.analysis import infer_shapes, shape_of
from tfx.core.passes.base import (
    Pass,
    PassContext,
    add_const,
    binds,
    bypass,
    const_shape,
    const_value,
    is_const,
    remove_if_unused,
    same_device,
)

# op -> (neutral value, which operand positions may hold it)
_NEUTRAL = {
    "Mul": (1, (0, 1)), "Add": (0, (0, 1)), "AddV2": (0, (0, 1)), "Sub": (0, (1,)),
    "RealDiv": (1, (1,)), "Div": (1, (1,)), "BiasAdd": (0, (1,)),
}


def simplify_arithmetic(graph: Graph, ctx: PassContext) -> tuple[Graph, bool]:
    """Apply the identities above wherever they hold.

    Args:
        graph: the graph, changed in place.
        ctx: the kept nodes.

    Returns:
        (graph, whether anything changed).
    """
    shapes = infer_shapes(graph, ctx.inputs)
    changed = 0
    for node in graph.topological_order():
        if node.name not in graph or graph.node(node.name) is not node:
            continue
        if ctx.is_opaque(node) or not binds(node):
            continue
        changed += _simplify(graph, node, shapes, ctx)
    ctx.stats["arithmetic simplified"] += changed
    return graph, bool(changed)


def _simplify(graph: Graph, node: Node, shapes: dict, ctx: PassContext) -> bool:
    op = node.op
    if op in _NEUTRAL:
        return _drop_neutral(graph, node, shapes, ctx)
    if op == "Neg":
        inner = _producer(node, 0, "Neg", ctx)
        if inner is None or not bypass(graph, node, inner.inputs[0], ctx):
            return False
        remove_if_unused(graph, inner, ctx)
        return True
    if op == "Cast":
        source = node.inputs[0]
        return source.dtype.base is node.output_types[0] and bypass(graph, node, source, ctx)
    if op == "Transpose":
        return _simplify_transpose(graph, node, ctx)
    if op == "Reshape":
        return _simplify_reshape(graph, node, shapes, ctx)
    return False


def _producer(node: Node, index: int, op: str, ctx: PassContext) -> Node | None:
    """The producer of input `index` when it is an `op` node we may look through."""
    source = node.inputs[index]
    producer = source.node
    if producer.op != op or ctx.is_opaque(producer) or not same_device(node, producer):
        return None
    if producer.control_inputs:  # bypassing it would drop them
        return None
    return producer


def _drop_neutral(graph: Graph, node: Node, shapes: dict, ctx: PassContext) -> bool:
    neutral, positions = _NEUTRAL[node.op]
    if len(node.inputs) != 2:
        return False
    for position in positions:
        const = node.inputs[position].node
        other = node.inputs[1 - position]
        if not is_const(const, ctx) or other.dtype.base is not node.output_types[0]:
            continue
        c_shape = const_shape(const)
        if c_shape is None or not _broadcast_keeps(shape_of(other, shapes), c_shape):
            continue
        value = const_value(const)
        if value.size == 0 or not bool(np.all(value == neutral)):
            continue
        # The constant's control inputs (a cond branch's pivot) move to the readers.
        if bypass(graph, node, other, ctx, extra_controls=const.control_inputs):
            remove_if_unused(graph, const, ctx)
            return True
    return False


def _broadcast_keeps(x_shape: tuple | None, c_shape: tuple) -> bool:
    """Whether broadcasting x against a constant of `c_shape` leaves x's shape as it is."""
    if not c_shape:
        return True  # a scalar
    if x_shape is None or len(c_shape) > len(x_shape):
        return False
    for c_dim, x_dim in zip(reversed(c_shape), reversed(x_shape)):
        if c_dim != 1 and c_dim != x_dim:
            return False
    return True


def _waits(producer: Node, ctx: PassContext) -> list[Node]:
    """What a reader of `producer` waits for once it no longer reads it: a constant's
    control inputs (a cond branch's pivot), another node itself (its deadness), nothing
    for a fed node (fed values are never dead, and a fed placeholder must not run)."""
    if ctx.is_opaque(producer):
        return []
    return list(producer.control_inputs) if producer.op == "Const" else [producer]


def _const_ints(node: Node, ctx: PassContext) -> list[int] | None:
    if not is_const(node, ctx):
        return None
    value = const_value(node)
    return [int(v) for v in value.reshape(-1)] if value.dtype.kind in "iu" else None


def _simplify_transpose(graph: Graph, node: Node, ctx: PassContext) -> bool:
    outer_perm = _const_ints(node.inputs[1].node, ctx)
    if outer_perm is None:
        return False
    if outer_perm == list(range(len(outer_perm))):
        return bypass(graph, node, node.inputs[0], ctx, _waits(node.inputs[1].node, ctx))
    inner = _producer(node, 0, "Transpose", ctx)
    if inner is None:
        return False
    inner_perm = _const_ints(inner.inputs[1].node, ctx)
    if inner_perm is None or len(inner_perm) != len(outer_perm):
        return False
    combined = [inner_perm[p] for p in outer_perm]
    source = inner.inputs[0]
    old_perm, inner_perm_node = node.inputs[1].node, inner.inputs[1].node
    waits = list(dict.fromkeys([*old_perm.control_inputs, *inner_perm_node.control_inputs]))
    if combined == list(range(len(combined))):
        changed = bypass(graph, node, source, ctx, waits)
    else:
        perm_type = node.attrs["Tperm"]
        perm = add_const(graph, f"{node.name}/perm", np.asarray(combined, perm_type.np),
                         perm_type, old_perm.device, waits)
        graph.set_input(node, 0, source)
        graph.set_input(node, 1, perm.output(0))
        remove_if_unused(graph, old_perm, ctx)
        changed = True
    if changed:
        remove_if_unused(graph, inner, ctx)
    return changed


def _simplify_reshape(graph: Graph, node: Node, shapes: dict, ctx: PassContext) -> bool:
    source: Output = node.inputs[0]
    out_shape = shape_of(node.output(0), shapes)
    in_shape = shape_of(source, shapes)
    if out_shape is not None and out_shape == in_shape and None not in out_shape:
        return bypass(graph, node, source, ctx, _waits(node.inputs[1].node, ctx))
    inner = _producer(node, 0, "Reshape", ctx)
    if inner is None:
        return False
    for control in _waits(inner.inputs[1].node, ctx):
        graph.add_control_input(node, control)
    graph.set_input(node, 0, inner.inputs[0])
    remove_if_unused(graph, inner, ctx)
    return True


PASS = Pass("arithmetic", simplify_arithmetic,
            "x*1, x+0, x-0, Neg(Neg x), double Transpose/Reshape, no-op Cast")
