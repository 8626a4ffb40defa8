"""Constant folding evaluates constant subgraphs once, within size limits and frames."""

from __future__ import annotations

import numpy as np

from tfx.core.passes.constant_folding import fold_constants


def _fold(graph, kit, inputs=(), outputs=(), **kwargs):
    graph, changed = fold_constants(graph, kit.context(inputs, outputs, **kwargs))
    graph.validate()
    return graph, changed


def test_constant_chain_becomes_one_constant_under_the_last_name(builder, kit) -> None:
    a = builder.const("a", [1.0, 2.0])
    b = builder.const("b", [3.0, 4.0])
    s = builder.op("AddV2", "sum", [a, b])
    builder.op("Mul", "prod", [s, builder.const("c", 2.0)])
    graph = builder.graph()
    want = kit.run(graph, ["prod:0"])
    graph, changed = _fold(graph, kit, outputs=["prod"])
    assert changed and [(n.name, n.op) for n in graph] == [("prod", "Const")]
    kit.assert_same(want, kit.run(graph, ["prod:0"]))


def test_side_effects_inputs_and_fed_constants_are_not_folded(builder, kit) -> None:
    c = builder.const("c", [1.0, -2.0])
    builder.op("CheckNumerics", "checked", [c], message="bad")  # stateful: kept as is
    fed = builder.const("fed", 5.0)
    builder.op("Neg", "neg", [fed])
    builder.op("PlaceholderWithDefault", "p", [builder.const("d", 1.0)], dtype="float32",
               shape=())
    graph, changed = _fold(builder.graph(), kit, inputs=["fed", "p"],
                           outputs=["checked", "neg", "p"])
    assert not changed
    assert {n.name: n.op for n in graph}["neg"] == "Neg"
    np.testing.assert_array_equal(kit.run(graph, ["neg:0"], {"fed:0": 7.0})[0], -7.0)


def test_huge_or_growing_folds_are_refused(builder, kit) -> None:
    dims = builder.const("dims", [1 << 30], dtype="int32")
    builder.op("Fill", "huge", [dims, builder.const("zero", 0.0)])  # 4 GiB: never computed
    start, limit, delta = (builder.const(n, v, "int32") for n, v in
                           (("start", 0), ("limit", 100_000), ("delta", 1)))
    builder.op("Range", "range", [start, limit, delta], Tidx="int32")  # 400 KB from 12 bytes
    small = builder.const("small_dims", [1000], dtype="int32")
    builder.op("Fill", "ones", [small, builder.const("one", 1.0)])
    graph, _ = _fold(builder.graph(), kit, outputs=["huge", "range", "ones"])
    ops = {n.name: n.op for n in graph}
    assert ops["huge"] == "Fill" and ops["range"] == "Range" and ops["ones"] == "Const"


def test_max_constant_bytes_is_respected(builder, kit) -> None:
    dims = builder.const("dims", [1000], dtype="int32")
    builder.op("Fill", "ones", [dims, builder.const("one", 1.0)])
    graph, changed = _fold(builder.graph(), kit, outputs=["ones"], max_constant_bytes=1000)
    assert not changed
    graph, changed = _fold(graph, kit, outputs=["ones"], max_constant_bytes=4000)
    assert changed


def test_static_shapes_fold(builder, kit) -> None:
    x = builder.placeholder("x", shape=[2, 3])
    y = builder.placeholder("y", shape=[None, 3])
    builder.op("Shape", "shape_x", [x])
    builder.op("Size", "size_x", [x], out_type="int64")
    builder.op("Rank", "rank_y", [y])
    builder.op("Shape", "shape_y", [y])  # unknown batch: left to run time
    graph = builder.graph()
    feeds = {"x:0": np.zeros((2, 3), np.float32), "y:0": np.zeros((5, 3), np.float32)}
    fetches = ["shape_x:0", "size_x:0", "rank_y:0", "shape_y:0"]
    want = kit.run(graph, fetches, feeds)
    graph, changed = _fold(graph, kit, inputs=["x", "y"],
                           outputs=["shape_x", "size_x", "rank_y", "shape_y"])
    ops = {n.name: n.op for n in graph}
    assert ops == {"x": "Placeholder", "y": "Placeholder", "shape_x": "Const",
                   "size_x": "Const", "rank_y": "Const", "shape_y": "Shape"}
    kit.assert_same(want, kit.run(graph, fetches, feeds))


def test_fold_inside_a_cond_branch_keeps_the_pivot(builder, kit) -> None:
    x = builder.placeholder("x", shape=[])
    pred = builder.placeholder("pred", dtype="bool", shape=[])
    builder.op("Switch", "switch", [x, pred])
    pivot = builder.op("Identity", "pivot", ["switch:1"])
    a = builder.const("a", 2.0, controls=[pivot])
    b = builder.const("b", 3.0, controls=[pivot])
    folded = builder.op("Mul", "folded", [a, b])
    taken = builder.op("AddV2", "taken", [pivot, folded])
    builder.op("Merge", "out", ["switch:0", taken], N=2)
    graph = builder.graph()
    graph, changed = _fold(graph, kit, inputs=["x", "pred"], outputs=["out"])
    assert changed and graph.node("folded").op == "Const"
    assert [c.name for c in graph.node("folded").control_inputs] == ["pivot"]
    for flag, want in ((True, 7.0), (False, 1.0)):
        got = kit.run(graph, ["out:0"], {"x:0": 1.0, "pred:0": flag})[0]
        np.testing.assert_array_equal(got, want)


def test_outputs_of_a_multi_output_op_fold_separately(builder, kit) -> None:
    value = builder.const("value", [[1.0, 2.0], [3.0, 4.0]])
    builder.op("Unpack", "rows", [value], num=2)
    builder.op("Neg", "first", ["rows:0"])
    builder.op("Identity", "second", ["rows:1"])
    graph = builder.graph()
    want = kit.run(graph, ["first:0", "second:0"])
    graph, changed = _fold(graph, kit, outputs=["first", "second"])
    assert changed and kit.ops_of(graph) == ["Const", "Const"]
    kit.assert_same(want, kit.run(graph, ["first:0", "second:0"]))


def test_a_folded_shape_informs_the_shapes_after_it_in_one_pass(builder, kit) -> None:
    x = builder.placeholder("x", shape=(2, 3))
    first = builder.op("Shape", "first", [x], out_type="int32")
    reshaped = builder.op("Reshape", "reshaped", [x, first], Tshape="int32")
    builder.op("Shape", "second", [builder.op("Neg", "neg", [reshaped])], out_type="int32")
    graph, changed = _fold(builder.graph(), kit, inputs=["x"], outputs=["second", "neg"])
    assert changed and graph.node("second").op == "Const"
    np.testing.assert_array_equal(kit.run(graph, ["second:0"])[0], [2, 3])
