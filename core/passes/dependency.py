"""Dependency optimization: drop control edges that order nothing.

A control edge `^c -> n` is redundant when

* `c` is also a data input of `n`;
* `c` is already an ancestor of another input of `n` along a path that carries
  its deadness (not through a Merge, and not leaving or entering a frame); the
  search is bounded, so a long chain is simply kept;
* `c` is quiet: pure, with only pure ancestors and no control flow or feed
  upstream, so it has no effect to wait for and is never dead (the common
  case: a NoOp grouping reads of frozen variables).

Nodes that nothing reads afterwards are left to the pruning pass.
"""

from __future__ import annotations

from tfx.core.graph import Graph, Node
from tfx.core.passes.base import CONTROL_FLOW_OPS, Pass, PassContext, is_pure

_SEARCH_BUDGET = 256  # nodes visited per search for an alternative path
_NO_EXPAND = CONTROL_FLOW_OPS - {"Switch", "RefSwitch"}


def optimize_dependencies(graph: Graph, ctx: PassContext) -> tuple[Graph, bool]:
    """Remove redundant control edges.

    Args:
        graph: the graph, changed in place.
        ctx: the kept nodes (fed nodes are never quiet).

    Returns:
        (graph, whether any edge was removed).
    """
    order = graph.topological_order()
    quiet = _quiet_nodes(order, ctx)
    dropped = 0
    for node in order:
        if not node.control_inputs or node.op in CONTROL_FLOW_OPS:
            continue  # a Merge's control inputs gate when it may fire: left alone
        data_producers = {s.node for s in node.inputs}
        for control in list(node.control_inputs):
            if (
                control in data_producers
                or control in quiet
                or _reaches(control, node, data_producers)
            ):
                graph.remove_control_input(node, control)
                dropped += 1
    ctx.stats["control edges dropped"] += dropped
    return graph, bool(dropped)


def _quiet_nodes(order: list[Node], ctx: PassContext) -> set[Node]:
    quiet: set[Node] = set()
    for node in order:
        if ctx.is_opaque(node) or not is_pure(node):
            continue
        producers = [s.node for s in node.inputs] + node.control_inputs
        if all(p in quiet for p in producers):
            quiet.add(node)
    return quiet


def _reaches(control: Node, node: Node, data_producers: set[Node]) -> bool:
    """Whether another input of `node` already depends on `control`, deadness included."""
    others = [p for p in data_producers if p is not control]
    others += [c for c in node.control_inputs if c is not control]
    seen: set[Node] = set()
    stack = others
    while stack and len(seen) < _SEARCH_BUDGET:
        current = stack.pop()
        if current is control:
            return True
        if current in seen:
            continue
        seen.add(current)
        if current.op in _NO_EXPAND:
            continue
        stack.extend(s.node for s in current.inputs)
        stack.extend(current.control_inputs)
    return False


PASS = Pass("dependency", optimize_dependencies, "drop redundant control edges")
