"""Identity removal bypasses identities and NoOps only where nothing depends on them."""

from __future__ import annotations

import numpy as np

from tfx.core.passes.identity_removal import remove_identities


def test_chain_of_identities_is_bypassed(builder, kit) -> None:
    x = builder.placeholder("x", shape=[3])
    a = builder.op("Identity", "a", [x])
    b = builder.op("StopGradient", "b", [a])
    builder.op("Neg", "y", [b])
    graph = builder.graph()
    graph, changed = remove_identities(graph, kit.context(["x"], ["y"]))
    graph.validate()
    assert changed and kit.ops_of(graph) == ["Neg", "Placeholder"]
    assert graph.node("y").inputs[0].node.name == "x"
    np.testing.assert_array_equal(kit.run(graph, ["y:0"], {"x:0": [1.0, 2.0, 3.0]})[0],
                                  [-1.0, -2.0, -3.0])


def test_kept_identity_stays(builder, kit) -> None:
    x = builder.placeholder("x")
    builder.op("Identity", "out", [x])
    graph, changed = remove_identities(builder.graph(), kit.context(["x"], ["out"]))
    assert not changed and "out" in graph


def test_control_inputs_move_to_readers(builder, kit) -> None:
    x = builder.placeholder("x")
    gate = builder.op("NoOp", "gate")
    ident = builder.op("Identity", "ident", [x], controls=[gate])
    builder.op("Neg", "y", [ident])
    builder.op("Square", "z", [x], controls=[ident])
    graph = builder.graph()
    graph, changed = remove_identities(graph, kit.context(["x"], ["y", "z", "gate"]))
    graph.validate()
    assert changed and "ident" not in graph
    assert [c.name for c in graph.node("y").control_inputs] == ["gate"]
    # a control reader of the identity now waits for its control input, and for its
    # input's node unless that is fed (a control edge would make a fed placeholder run)
    assert {c.name for c in graph.node("z").control_inputs} == {"gate"}
    kit.run(graph, ["z:0"], {"x:0": 2.0})


def test_control_readers_wait_for_an_unfed_source(builder, kit) -> None:
    a = builder.op("Neg", "a", [builder.const("c", 1.0)])
    ident = builder.op("Identity", "ident", [a])
    builder.op("Square", "z", [builder.const("d", 2.0)], controls=[ident])
    graph, changed = remove_identities(builder.graph(), kit.context((), ["z"]))
    graph.validate()
    assert changed and [c.name for c in graph.node("z").control_inputs] == ["a"]


def test_pivot_of_a_cond_branch_stays(kit) -> None:
    graph, inputs, outputs = kit.case("cond_v1")
    switches = {n.name for n in graph if n.op == "Switch"}
    pivots = {n.name for n in graph if n.op == "Identity"
              and n.inputs[0].node.name in switches}
    graph, _ = remove_identities(graph, kit.context(inputs, outputs))
    graph.validate()
    assert pivots and pivots <= {n.name for n in graph}
    kit.run_case("cond_v1", graph)


def test_identity_on_another_device_or_of_a_ref_stays(builder, kit) -> None:
    x = builder.placeholder("x", shape=[])
    builder.op("Identity", "copy", [x], device="/device:CPU:1")
    builder.op("Neg", "y", ["copy"])
    builder.op("VariableV2", "v", dtype="float32", shape=())
    builder.op("Identity", "read", ["v"])
    builder.op("Neg", "z", ["read"])
    graph, changed = remove_identities(builder.graph(), kit.context(["x"], ["y", "z"]))
    assert not changed and {"copy", "read"} <= {n.name for n in graph}


def test_noop_joining_control_edges_is_bypassed(builder, kit) -> None:
    a = builder.op("NoOp", "a")
    b = builder.op("NoOp", "b")
    join = builder.op("NoOp", "join", controls=[a, b])
    x = builder.placeholder("x")
    builder.op("Neg", "y", [x], controls=[join])
    graph = builder.graph()
    graph, changed = remove_identities(graph, kit.context(["x"], ["y", "a", "b"]))
    graph.validate()
    assert changed and "join" not in graph
    assert {c.name for c in graph.node("y").control_inputs} == {"a", "b"}
