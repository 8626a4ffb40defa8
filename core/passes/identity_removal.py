"""Identity removal: readers of Identity, StopGradient and PreventGradient read the input.

An identity is left alone where it carries meaning: a kept node (a fetch name
or a feed), an identity of a control-flow node (the pivot of a cond branch,
which gives the branch its deadness and frame), an identity of a reference (a
snapshot of a variable's value), and an identity on another device than its
input (a transfer). Its control inputs move to its readers.

A NoOp that joins control edges is removed too when that adds few edges (its
inputs become control inputs of each of its readers), as Grappler's dependency
optimizer does.
"""

from __future__ import annotations

from tfx.core.graph import Graph, Node
from tfx.core.passes.base import CONTROL_FLOW_OPS, Pass, PassContext, binds, bypass

IDENTITY_OPS = frozenset({"Identity", "StopGradient", "PreventGradient"})


def remove_identities(graph: Graph, ctx: PassContext) -> tuple[Graph, bool]:
    """Bypass removable identities and control-joining NoOps.

    Args:
        graph: the graph, changed in place.
        ctx: the kept nodes.

    Returns:
        (graph, whether anything was removed).
    """
    removed = 0
    for node in graph:
        if ctx.is_kept(node) or not binds(node):
            continue
        if node.op in IDENTITY_OPS and _removable_identity(node):
            removed += bypass(graph, node, node.inputs[0], ctx)
        elif node.op == "NoOp" and node.users and _cheap_to_bypass(node):
            _bypass_noop(graph, node)
            removed += 1
    ctx.stats["identities removed"] += removed
    return graph, bool(removed)


def _removable_identity(node: Node) -> bool:
    if len(node.inputs) != 1:
        return False
    source = node.inputs[0]
    producer = source.node
    return (
        producer.op not in CONTROL_FLOW_OPS
        and producer.device == node.device
        and binds(producer)
        and source.index < producer.num_outputs
        and not source.dtype.is_ref
    )


def _cheap_to_bypass(node: Node) -> bool:
    if any(u.op in CONTROL_FLOW_OPS for u in node.users):
        return False  # a Merge's control inputs gate it: leave them as they are
    fan_in, fan_out = len(node.control_inputs), len(node.users)
    return fan_in <= 1 or fan_out <= 1 or fan_in * fan_out <= fan_in + fan_out


def _bypass_noop(graph: Graph, node: Node) -> None:
    for user in list(node.users):
        graph.remove_control_input(user, node)
        for control in node.control_inputs:
            graph.add_control_input(user, control)
    graph.remove_node(node)


PASS = Pass("identity_removal", remove_identities,
            "bypass Identity/StopGradient/PreventGradient and control-joining NoOps")
