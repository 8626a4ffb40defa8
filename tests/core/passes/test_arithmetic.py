"""Arithmetic simplification: neutral elements, double negation, transposes, reshapes."""

from __future__ import annotations

import numpy as np
import pytest

from tfx.core.passes.arithmetic import simplify_arithmetic


def _simplify(graph, kit, inputs, outputs):
    graph, changed = simplify_arithmetic(graph, kit.context(inputs, outputs))
    graph.validate()
    return graph, changed


def test_neutral_elements_disappear(builder, kit) -> None:
    x = builder.placeholder("x", shape=[2, 3])
    one, zero = builder.const("one", 1.0), builder.const("zero", [0.0, 0.0, 0.0])
    a = builder.op("Mul", "a", [one, x])
    b = builder.op("AddV2", "b", [a, zero])
    c = builder.op("Sub", "c", [b, zero])
    d = builder.op("RealDiv", "d", [c, one])
    builder.op("Cast", "e", [d], SrcT="float32", DstT="float32")
    builder.op("Neg", "out", ["e"])
    graph = builder.graph()
    feeds = {"x:0": np.arange(6, dtype=np.float32).reshape(2, 3)}
    want = kit.run(graph, ["out:0"], feeds)
    graph, changed = _simplify(graph, kit, ["x"], ["out"])
    assert changed and kit.ops_of(graph) == ["Neg", "Placeholder"]
    kit.assert_same(want, kit.run(graph, ["out:0"], feeds))


def test_constants_that_broadcast_or_are_not_neutral_stay(builder, kit) -> None:
    x = builder.placeholder("x", shape=[3])
    ones = builder.const("ones", np.ones((2, 3)))
    builder.op("Mul", "widened", [x, ones])  # [3] * [2, 3] -> [2, 3]: not x
    builder.op("Sub", "flipped", [builder.const("zero", 0.0), x])  # 0 - x is -x
    builder.op("Mul", "twice", [x, builder.const("two", 2.0)])
    graph, changed = _simplify(builder.graph(), kit, ["x"], ["widened", "flipped", "twice"])
    assert not changed and len(graph) == 7


def test_unknown_shape_only_drops_a_scalar(builder, kit) -> None:
    x = builder.placeholder("x")  # unknown rank
    builder.op("Mul", "by_vector", [x, builder.const("ones", [1.0, 1.0])])
    builder.op("Mul", "by_scalar", [x, builder.const("one", 1.0)])
    builder.op("Neg", "out", ["by_scalar"])
    graph, changed = _simplify(builder.graph(), kit, ["x"], ["by_vector", "out"])
    assert changed and "by_scalar" not in graph and "by_vector" in graph


def test_double_negation_and_kept_nodes(builder, kit) -> None:
    x = builder.placeholder("x", shape=[])
    builder.op("Neg", "n1", [x])
    builder.op("Neg", "n2", ["n1"])
    builder.op("Square", "out", ["n2"])
    graph, changed = _simplify(builder.graph(), kit, ["x"], ["out"])
    assert changed and kit.ops_of(graph) == ["Placeholder", "Square"]
    builder2 = type(builder)()
    x = builder2.placeholder("x", shape=[])
    builder2.op("Neg", "n1", [x])
    builder2.op("Neg", "n2", ["n1"])
    graph, changed = _simplify(builder2.graph(), kit, ["x"], ["n2"])  # n2 is fetched
    assert not changed


def test_transposes_compose(builder, kit) -> None:
    x = builder.placeholder("x", shape=[2, 3, 4])
    p = builder.const("p", [1, 2, 0], dtype="int32")
    q = builder.const("q", [2, 0, 1], dtype="int32")
    builder.op("Transpose", "t1", [x, p])
    builder.op("Transpose", "back", ["t1", q])  # p then q: the identity
    builder.op("Neg", "out1", ["back"])
    builder.op("Transpose", "t2", [x, p])
    builder.op("Transpose", "twice", ["t2", p])  # p[p] = [2, 0, 1]
    builder.op("Transpose", "same", [x, builder.const("id", [0, 1, 2], dtype="int32")])
    builder.op("Neg", "out2", ["same"])
    graph = builder.graph()
    fetches = ["out1:0", "twice:0", "out2:0"]
    feeds = {"x:0": np.arange(24, dtype=np.float32).reshape(2, 3, 4)}
    want = kit.run(graph, fetches, feeds)
    graph, changed = _simplify(graph, kit, ["x"], ["out1", "twice", "out2"])
    assert changed and kit.ops_of(graph).count("Transpose") == 1
    assert graph.node("twice").inputs[0].node.name == "x"
    kit.assert_same(want, kit.run(graph, fetches, feeds))


def test_reshapes_collapse(builder, kit) -> None:
    x = builder.placeholder("x", shape=[2, 6])
    builder.op("Reshape", "r1", [x, builder.const("s1", [3, 4], dtype="int32")])
    builder.op("Reshape", "r2", ["r1", builder.const("s2", [12], dtype="int32")])
    builder.op("Reshape", "r3", [x, builder.const("s3", [2, -1], dtype="int32")])  # no-op
    builder.op("Neg", "out", ["r3"])
    graph = builder.graph()
    feeds = {"x:0": np.arange(12, dtype=np.float32).reshape(2, 6)}
    want = kit.run(graph, ["r2:0", "out:0"], feeds)
    graph, changed = _simplify(graph, kit, ["x"], ["r2", "out"])
    assert changed and "r1" not in graph and "r3" not in graph
    kit.assert_same(want, kit.run(graph, ["r2:0", "out:0"], feeds))


@pytest.mark.parametrize("taken_op", ["Mul", "Transpose", "Reshape"])
def test_a_constant_of_a_cond_branch_keeps_the_branch_dead(builder, kit, taken_op) -> None:
    x = builder.placeholder("x", shape=[1, 2])
    pred = builder.placeholder("pred", dtype="bool", shape=[])
    switch = builder.op("Switch", "switch", [x, pred])
    pivot = builder.op("Identity", "pivot_t", [f"{switch}:1"])
    # A constant of the true branch (it waits for the pivot), read with x from outside
    # the cond: the rewrite drops the constant, and the branch must stay dead.
    if taken_op == "Mul":
        one = builder.const("one", 1.0, controls=[pivot])
        taken = builder.op("Mul", "taken", [x, one])
    elif taken_op == "Transpose":
        perm = builder.const("perm", [0, 1], "int32", controls=[pivot])
        taken = builder.op("Transpose", "taken", [x, perm], Tperm="int32")
    else:
        shape = builder.const("shape", [1, 2], "int32", controls=[pivot])
        taken = builder.op("Reshape", "taken", [x, shape], Tshape="int32")
    other = builder.op("Neg", "other", [f"{switch}:0"])
    builder.op("Identity", "read", [taken])
    builder.op("Merge", "merge", ["read", other], N=2)
    builder.op("Identity", "out", ["merge"])
    graph = builder.graph()
    feeds = {"x:0": np.array([[1.0, -2.0]], np.float32), "pred:0": False}
    want = kit.run(graph, ["out:0"], feeds)
    graph, changed = _simplify(graph, kit, ["x", "pred"], ["out"])
    assert changed and "taken" not in graph
    kit.assert_same(want, kit.run(graph, ["out:0"], feeds))  # the false branch's value
