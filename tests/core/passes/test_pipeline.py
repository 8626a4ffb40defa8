"""The pipeline: levels, explicit pass lists, what is kept, the report and the dumps."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tfx.core.errors import InvalidArgumentError, NotFoundError
from tfx.core.graph_io import load_graph
from tfx.core.passes import LEVELS, PASSES, optimize, pass_names, resolve_passes


def _model(builder) -> None:
    """x -> MatMul -> (+0) -> BiasAdd -> Relu -> probs, with dead and duplicated nodes."""
    builder.placeholder("x", shape=(2, 3))
    w = builder.const("w", np.arange(6, dtype=np.float32).reshape(3, 2) / 10)
    mm = builder.op("MatMul", "mm", ["x", w])
    zero = builder.const("zero", 0.0)
    plus = builder.op("AddV2", "plus_zero", [mm, zero])
    ident = builder.op("Identity", "ident", [plus])
    b = builder.op("BiasAdd", "bias", [ident, builder.const("b", [0.5, -0.5])])
    relu = builder.op("Relu", "relu", [b])
    builder.op("Softmax", "probs", [relu])
    builder.op("Neg", "unused", [mm])  # read by nothing: pruned
    one, two = builder.const("one", 1.0), builder.const("two", 2.0)
    builder.op("AddV2", "three", [one, two])  # constant: folded, then unused


X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32)


def test_levels_and_passes_resolve() -> None:
    assert [p.name for p in resolve_passes("none")] == []
    assert [p.name for p in resolve_passes("basic")] == list(LEVELS["basic"])
    assert all(PASSES[name].exact for name in LEVELS["basic"])
    assert {"fusion", "weight_folding"} <= set(LEVELS["all"])
    assert [p.name for p in resolve_passes("all", ["cse", "pruning"])] == ["cse", "pruning"]
    assert set(pass_names()) == set(PASSES)


def test_unknown_level_or_pass_lists_the_valid_ones() -> None:
    with pytest.raises(InvalidArgumentError, match="valid levels: none, basic, all"):
        resolve_passes("fast")
    with pytest.raises(InvalidArgumentError, match="'prunning'.*pruning.*valid passes: "):
        resolve_passes(passes=["prunning"])


def test_default_keeps_placeholders_and_likely_outputs(builder, kit) -> None:
    _model(builder)
    graph = builder.graph()
    want = kit.run(graph, ["probs:0"], {"x:0": X})
    result = optimize(graph, level="all", validate_each=True)
    report = result.report
    # Unread nodes are likely outputs too, so the default keeps them.
    assert report.inputs == ["x"] and report.outputs == ["probs", "three", "unused"]
    assert len(graph) == report.before.nodes  # the argument is copied, not changed
    optimized = result.graph
    ops = {n.name: n.op for n in optimized}
    assert ops["three"] == "Const" and ops["unused"] == "Neg" and ops["probs"] == "Softmax"
    # `unused` reads the MatMul too, so it is not fused; without it, it is (below).
    assert ops["mm"] == "MatMul" and ops["relu"] == "Relu" and "ident" not in ops
    kit.assert_same(want, kit.run(optimized, ["probs:0"], {"x:0": X}), exact=False)
    assert report.after.nodes == len(optimized) < report.before.nodes
    assert report.before.op_counts["Identity"] == 1 and "Identity" not in report.after.op_counts
    assert report.parameters_folded == report.before.parameters - report.after.parameters
    assert report.before.flops > 0 and report.after.flops > 0


def test_level_all_fuses_what_basic_leaves(builder, kit) -> None:
    _model(builder)
    graph = builder.graph()
    want = kit.run(graph, ["probs:0"], {"x:0": X})
    basic = optimize(graph, outputs=["probs"], level="basic", validate_each=True).graph
    assert kit.ops_of(basic) == ["BiasAdd", "Const", "Const", "MatMul", "Placeholder", "Relu",
                                 "Softmax"]
    kit.assert_same(want, kit.run(basic, ["probs:0"], {"x:0": X}))  # bit for bit
    full = optimize(graph, outputs=["probs"], level="all", validate_each=True).graph
    assert kit.ops_of(full) == ["Const", "Const", "Placeholder", "Softmax", "_FusedMatMul"]
    assert full.node("relu").op == "_FusedMatMul"
    kit.assert_same(want, kit.run(full, ["probs:0"], {"x:0": X}), exact=False)


def test_report_has_one_record_per_pass_and_is_json(builder) -> None:
    _model(builder)
    result = optimize(builder.graph(), outputs=["probs:0"], level="basic")
    data = json.loads(json.dumps(result.report.to_dict()))
    assert [p["name"] for p in data["passes"]] == list(LEVELS["basic"])
    first = data["passes"][0]
    assert first["name"] == "pruning" and first["counts"] == {"pruned": 4}
    assert first["nodes_before"] - first["nodes_after"] == 4
    assert all(p["seconds"] >= 0 for p in data["passes"])
    assert data["level"] == "basic" and data["outputs"] == ["probs"]
    assert {"nodes", "op_counts", "parameters", "flops"} <= set(data["before"])


def test_level_none_and_explicit_passes(builder) -> None:
    _model(builder)
    graph = builder.graph()
    result = optimize(graph, outputs=["probs"], level="none")
    assert result.report.passes == [] and len(result.graph) == len(graph)
    result = optimize(graph, outputs=["probs"], passes=["identity_removal"])
    assert result.report.level == "custom" and "ident" not in result.graph
    assert "unused" in result.graph


def test_kept_outputs_and_fed_nodes_survive(builder, kit) -> None:
    _model(builder)
    graph = builder.graph()
    result = optimize(graph, inputs=["x:0", "ident"], outputs=["ident:0", "probs", "three"],
                      level="all", validate_each=True)
    optimized = result.graph
    for name in ("x", "ident", "probs", "three"):
        assert name in optimized
    assert optimized.node("three").op == "Const"
    feed = {"x:0": X, "ident:0": np.ones((2, 2), np.float32)}
    kit.assert_same(kit.run(graph, ["probs:0", "three:0"], feed),
                    kit.run(optimized, ["probs:0", "three:0"], feed), exact=False)


def test_bad_names_and_limits(builder) -> None:
    _model(builder)
    graph = builder.graph()
    with pytest.raises(NotFoundError, match="outputs: no node named 'prob'.*probs"):
        optimize(graph, outputs=["prob:0"])
    with pytest.raises(NotFoundError, match="inputs: no node named 'y'"):
        optimize(graph, inputs=["y"], outputs=["probs"])
    with pytest.raises(Exception, match="probs:3"):
        optimize(graph, outputs=["probs:3"])
    with pytest.raises(InvalidArgumentError, match="must be positive"):
        optimize(graph, outputs=["probs"], max_constant_bytes=0)


def test_dump_dir_has_the_graph_after_every_pass(builder, tmp_path) -> None:
    _model(builder)
    result = optimize(builder.graph(), outputs=["probs"], passes=["pruning", "cse"],
                      dump_dir=tmp_path / "dump")
    names = sorted(p.name for p in (tmp_path / "dump").iterdir())
    assert names == ["00-input.pb", "01-pruning.pb", "02-cse.pb"]
    assert len(load_graph(tmp_path / "dump" / "00-input.pb").node) == result.report.before.nodes
    assert len(load_graph(tmp_path / "dump" / "02-cse.pb").node) == result.report.after.nodes


def test_graph_def_in_and_in_place(builder) -> None:
    _model(builder)
    graph = builder.graph()
    result = optimize(graph.to_graph_def(), outputs=["probs"])
    assert len(result.graph) < len(graph)
    same = optimize(graph, outputs=["probs"], copy=False).graph
    assert same is graph and len(graph) == len(result.graph)
