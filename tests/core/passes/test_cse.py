"""CSE merges pure duplicates and nothing else."""

from __future__ import annotations

import numpy as np

from tfx.core.passes.cse import eliminate_common_subexpressions as cse


def _cse(graph, kit, inputs=(), outputs=()):
    graph, changed = cse(graph, kit.context(inputs, outputs))
    graph.validate()
    return graph, changed


def test_duplicates_collapse_in_chains(builder, kit) -> None:
    x = builder.placeholder("x", shape=[2])
    y = builder.placeholder("y", shape=[2])
    builder.op("Mul", "m1", [x, y])
    builder.op("Mul", "m2", [y, x])  # commutative: the same product
    builder.op("Neg", "n1", ["m1"])
    builder.op("Neg", "n2", ["m2"])
    builder.op("AddV2", "out", ["n1", "n2"])
    graph = builder.graph()
    feeds = {"x:0": [1.0, 2.0], "y:0": [3.0, 4.0]}
    want = kit.run(graph, ["out:0"], feeds)
    graph, changed = _cse(graph, kit, ["x", "y"], ["out"])
    assert changed and kit.ops_of(graph) == ["AddV2", "Mul", "Neg", "Placeholder", "Placeholder"]
    kit.assert_same(want, kit.run(graph, ["out:0"], feeds))


def test_equal_constants_merge_and_different_ones_do_not(builder, kit) -> None:
    builder.const("a", [1.0, 2.0])
    builder.const("b", [1.0, 2.0])
    builder.const("c", [1.0, 2.5])
    builder.const("d", [1.0, 2.0], dtype="float64")
    builder.op("AddV2", "ab", ["a", "b"])
    builder.op("AddV2", "ac", ["a", "c"])
    builder.op("Identity", "dd", ["d"], T="float64")
    graph, changed = _cse(builder.graph(), kit, outputs=["ab", "ac", "dd"])
    assert changed and sorted(n.name for n in graph if n.op == "Const") == ["a", "c", "d"]
    assert [s.node.name for s in graph.node("ab").inputs] == ["a", "a"]


def test_attrs_devices_and_control_inputs_distinguish(builder, kit) -> None:
    x = builder.placeholder("x", shape=[2, 2])
    builder.op("MatMul", "p", [x, x])
    builder.op("MatMul", "q", [x, x], transpose_a=True)
    builder.op("MatMul", "r", [x, x], device="/device:CPU:1")
    builder.op("MatMul", "s", [x, x], controls=["q"])
    graph, changed = _cse(builder.graph(), kit, ["x"], ["p", "q", "r", "s"])
    assert not changed and len(graph) == 5


def test_side_effects_and_placeholders_never_merge(builder, kit) -> None:
    builder.placeholder("x1", shape=[])
    builder.placeholder("x2", shape=[])
    c = builder.const("c", 1.0)
    builder.op("CheckNumerics", "check1", [c], message="m")
    builder.op("CheckNumerics", "check2", [c], message="m")
    builder.op("FIFOQueueV2", "q1", component_types=["float32"])
    builder.op("FIFOQueueV2", "q2", component_types=["float32"])
    builder.op("QueueDequeueV2", "d1", ["q1"], component_types=["float32"])
    builder.op("QueueDequeueV2", "d2", ["q1"], component_types=["float32"])
    graph, changed = _cse(builder.graph(), kit, ["x1", "x2"],
                          ["check1", "check2", "q2", "d1", "d2"])
    assert not changed and len(graph) == 9


def test_a_kept_duplicate_takes_over(builder, kit) -> None:
    x = builder.placeholder("x", shape=[])
    builder.op("Neg", "first", [x])
    builder.op("Neg", "kept", [x])
    builder.op("Square", "user", ["first"])
    graph, changed = _cse(builder.graph(), kit, ["x"], ["kept", "user"])
    assert changed and "first" not in graph
    assert graph.node("user").inputs[0].node.name == "kept"
    np.testing.assert_array_equal(kit.run(graph, ["user:0"], {"x:0": 3.0})[0], 9.0)


def test_two_kept_duplicates_both_stay(builder, kit) -> None:
    x = builder.placeholder("x", shape=[])
    builder.op("Neg", "a", [x])
    builder.op("Neg", "b", [x])
    graph, changed = _cse(builder.graph(), kit, ["x"], ["a", "b"])
    assert not changed and len(graph) == 3
