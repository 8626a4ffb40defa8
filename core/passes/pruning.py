"""Pruning: drop the nodes no kept node depends on (dead code elimination).

The roots are the kept nodes (outputs, targets and inputs) and every node with
a side effect (an assignment, a queue operation, a variable...), since
running a step may be what gives it its effect. Everything reachable backwards
from a root through data or control edges stays; the rest is removed.
"""

from __future__ import annotations

from tfx.core.graph import Graph, Node
from tfx.core.passes.base import Pass, PassContext, has_side_effects


def prune(graph: Graph, ctx: PassContext) -> tuple[Graph, bool]:
    """Remove every node that no kept node or side effect needs.

    Args:
        graph: the graph, changed in place.
        ctx: the kept nodes.

    Returns:
        (graph, whether anything was removed).

    Example:
        >>> prune(graph, PassContext(outputs=frozenset({"probs"})))
    """
    stack: list[Node] = [n for n in graph if ctx.is_kept(n) or has_side_effects(n)]
    reached: set[Node] = set()
    while stack:
        node = stack.pop()
        if node in reached:
            continue
        reached.add(node)
        stack.extend(s.node for s in node.inputs)
        stack.extend(node.control_inputs)
    if len(reached) == len(graph):
        return graph, False
    dead = [n for n in graph if n not in reached]
    # Cut the dead nodes' inputs first: a dead loop is a cycle, with no node to remove first.
    for node in dead:
        for index in reversed(range(len(node.inputs))):
            graph.remove_input(node, index)
        for control in list(node.control_inputs):
            graph.remove_control_input(node, control)
    for node in dead:
        graph.remove_node(node)
    ctx.stats["pruned"] += len(dead)
    return graph, True


PASS = Pass("pruning", prune, "drop nodes no output, target or side effect depends on")
