"""Dependency optimization drops only control edges that order nothing."""

from __future__ import annotations

from tfx.core.passes.dependency import optimize_dependencies


def _optimize(graph, kit, inputs, outputs):
    graph, changed = optimize_dependencies(graph, kit.context(inputs, outputs))
    graph.validate()
    return graph, changed


def _controls(graph, name):
    return sorted(c.name for c in graph.node(name).control_inputs)


def test_redundant_edges_go(builder, kit) -> None:
    x = builder.placeholder("x", shape=[])
    a = builder.op("Neg", "a", [x])
    b = builder.op("Square", "b", [a])
    builder.op("AddV2", "data_too", [a, x], controls=[a])  # a is also a data input
    builder.op("Neg", "via_path", [b], controls=[a])  # b already waits for a
    builder.op("Neg", "from_const", [x], controls=[builder.const("c", 1.0)])  # quiet
    graph, changed = _optimize(builder.graph(), kit, ["x"], ["data_too", "via_path",
                                                             "from_const"])
    assert changed
    for name in ("data_too", "via_path", "from_const"):
        assert _controls(graph, name) == []


def test_edges_that_order_effects_or_feeds_stay(builder, kit) -> None:
    x = builder.placeholder("x", shape=[])
    builder.op("VariableV2", "v", dtype="float32", shape=())
    assign = builder.op("Assign", "assign", ["v", builder.const("one", 1.0)])
    builder.op("Neg", "after_assign", [x], controls=[assign])
    builder.op("Neg", "after_feed", [builder.const("c", 2.0)], controls=[x])
    fed = builder.const("fed", 3.0)
    builder.op("Neg", "after_fed_const", [builder.const("d", 2.0)], controls=[fed])
    graph, changed = _optimize(builder.graph(), kit, ["x", "fed"],
                               ["after_assign", "after_feed", "after_fed_const"])
    assert not changed
    assert _controls(graph, "after_assign") == ["assign"]
    assert _controls(graph, "after_feed") == ["x"]


def test_control_flow_is_left_alone(kit) -> None:
    graph, inputs, outputs = kit.case("while_v1")
    before = {n.name: _controls(graph, n.name) for n in graph}
    graph, _ = _optimize(graph, kit, inputs, outputs)
    for node in graph:
        if node.op in ("Merge", "Switch", "Enter", "Exit", "NextIteration"):
            assert _controls(graph, node.name) == before[node.name]
    kit.run_case("while_v1", graph)


def test_a_long_path_is_not_searched_past_the_budget(builder, kit) -> None:
    x = builder.placeholder("x", shape=[])
    previous = builder.op("Neg", "start", [x])
    for i in range(300):
        previous = builder.op("Neg", f"n{i}", [previous])
    builder.op("Neg", "end", [previous], controls=["start"])
    graph, _ = _optimize(builder.graph(), kit, ["x"], ["end"])
    assert _controls(graph, "end") == ["start"]  # redundant, but too far to prove cheaply
