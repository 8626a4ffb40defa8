"""Pruning keeps what kept nodes and side effects need, and nothing else."""

from __future__ import annotations

import numpy as np

from tfx.core.passes.pruning import prune


def test_drops_what_no_output_needs(builder, kit) -> None:
    x = builder.placeholder("x", shape=[2])
    one = builder.const("one", 1.0)
    builder.op("AddV2", "y", [x, one])
    builder.op("Mul", "unused", [x, x])
    builder.op("Neg", "unused2", ["unused"])
    graph = builder.graph()
    graph, changed = prune(graph, kit.context(["x"], ["y"]))
    graph.validate()
    assert changed
    assert sorted(n.name for n in graph) == ["one", "x", "y"]
    np.testing.assert_array_equal(kit.run(graph, ["y:0"], {"x:0": [1.0, 2.0]})[0], [2.0, 3.0])


def test_keeps_inputs_side_effects_and_control_dependencies(builder, kit) -> None:
    builder.placeholder("unused_input")
    builder.op("VariableV2", "v", dtype="float32", shape=())
    value = builder.const("value", 3.0)
    builder.op("Assign", "assign", ["v", value])  # read by nobody: kept for its effect
    gate = builder.const("gate", 0.0)
    builder.op("Identity", "out", [builder.const("c", 1.0)], controls=[gate])
    graph = builder.graph()
    graph, _ = prune(graph, kit.context(["unused_input"], ["out"]))
    graph.validate()
    assert {"unused_input", "v", "value", "assign", "gate", "c", "out"} == {n.name for n in graph}


def test_unchanged_graph_reports_no_change(builder, kit) -> None:
    x = builder.placeholder("x")
    builder.op("Neg", "y", [x])
    graph, changed = prune(builder.graph(), kit.context(["x"], ["y"]))
    assert not changed and len(graph) == 2


def test_removes_a_dead_loop_whole(kit) -> None:
    graph, inputs, _ = kit.case("while_v1")
    graph, changed = prune(graph, kit.context(inputs, []))  # only the inputs are kept
    graph.validate()
    assert changed and sorted(n.name for n in graph) == ["n", "x"]
