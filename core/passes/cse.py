"""Common subexpression elimination: nodes computing the same thing become one.

Two nodes are the same computation when they have the same op, device and
attrs, read the same tensors (in any order for commutative ops) and wait for
the same control inputs. Constants are the same when their values are. Nodes
with side effects, control-flow nodes, inputs and anything that reads no
tensor but is not a constant (a placeholder, a variable) are never merged.

Nodes are visited with producers first, so chains of duplicates collapse in
one pass. A kept node is never removed: the kept one of a set of duplicates
takes over the others' readers (else the one listed first in the graph).
"""

from __future__ import annotations

from tfx.core.graph import Graph, Node
from tfx.core.passes.base import CONTROL_FLOW_OPS, Pass, PassContext, attr_key, binds, is_pure


def eliminate_common_subexpressions(graph: Graph, ctx: PassContext) -> tuple[Graph, bool]:
    """Merge duplicate pure nodes.

    Args:
        graph: the graph, changed in place.
        ctx: the kept nodes.

    Returns:
        (graph, whether any node was merged).
    """
    seen: dict[tuple, Node] = {}
    position = {node: i for i, node in enumerate(graph)}
    # Readers are keyed by the class of what they read, which survives merges either way.
    classes: dict[Node, int] = {}
    merged = 0
    for node in graph.topological_order():
        key = _key(node, classes, ctx)
        classes.setdefault(node, len(classes))
        if key is None:
            continue
        first = seen.get(key)
        if first is None:
            seen[key] = node
            continue
        classes[node] = classes[first]
        if ctx.is_kept(first) and ctx.is_kept(node):
            continue
        # The survivor is the kept one, else the one the graph lists first.
        if ctx.is_kept(node) or (not ctx.is_kept(first) and position[node] < position[first]):
            first, node = node, first
            seen[key] = first
        _merge(graph, node, first)
        merged += 1
    ctx.stats["nodes merged"] += merged
    return graph, bool(merged)


def _key(node: Node, classes: dict[Node, int], ctx: PassContext) -> tuple | None:
    if ctx.is_opaque(node) or node.op in CONTROL_FLOW_OPS or not binds(node):
        return None
    if not node.inputs and node.op != "Const":
        return None
    if not is_pure(node):
        return None
    def cls(producer: Node) -> int:
        # A producer not seen yet (a loop back edge) is its own class.
        return classes.get(producer, -1 - id(producer))

    sources = [(cls(s.node), s.index) for s in node.inputs]
    if node.bound.schema.is_commutative:
        sources.sort()
    controls = tuple(sorted({cls(c) for c in node.control_inputs}))
    return (node.op, node.device, tuple(sources), controls, attr_key(node))


def _merge(graph: Graph, duplicate: Node, survivor: Node) -> None:
    for index in range(duplicate.num_outputs):
        graph.replace_uses(duplicate.output(index), survivor.output(index))
    for user in list(duplicate.users):
        graph.remove_control_input(user, duplicate)
        graph.add_control_input(user, survivor)
    graph.remove_node(duplicate)


PASS = Pass("cse", eliminate_common_subexpressions,
            "merge nodes with the same op, attrs and inputs (pure nodes only)")
