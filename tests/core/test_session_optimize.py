"""Session optimizes each step's graph before it builds and caches the step's plan."""

from __future__ import annotations

import numpy as np
import pytest

from tfx.core import passes
from tfx.core.eager import make_node_def
from tfx.core.errors import InvalidArgumentError, NotFoundError
from tfx.core.session import Session
from tfx.protos import graph_pb2


def _graph() -> graph_pb2.GraphDef:
    """y = relu(x @ w + (b + 0)) with a constant subtree, an Identity and a dead branch."""
    graph = graph_pb2.GraphDef()
    graph.versions.producer = 1994

    def node(op: str, name: str, inputs=(), **attrs) -> None:
        graph.node.append(make_node_def(op, name, list(inputs), attrs))

    f32 = "float32"
    node("Placeholder", "x", dtype=f32, shape=(1, 2))
    node("Const", "w", dtype=f32, value=np.array([[1.0, -1.0], [2.0, 0.5]], np.float32))
    node("Const", "b", dtype=f32, value=np.array([0.5, -3.0], np.float32))
    node("Const", "zero", dtype=f32, value=np.float32(0.0))
    node("AddV2", "b_plus_zero", ["b", "zero"], T=f32)
    node("Identity", "w_read", ["w"], T=f32)
    node("MatMul", "mm", ["x", "w_read"], T=f32)
    node("BiasAdd", "biased", ["mm", "b_plus_zero"], T=f32)
    node("Relu", "y", ["biased"], T=f32)
    node("Neg", "unused", ["mm"], T=f32)
    return graph


X = np.array([[1.0, 2.0]], np.float32)


def _plan_ops(sess: Session) -> list[str]:
    (prepared,) = sess._plans.values()
    return sorted(n.op for n in prepared.plan.nodes)


def test_basic_by_default_same_bits_fewer_kernels() -> None:
    with Session(_graph(), optimize="none") as plain:
        want = plain.run("y:0", {"x:0": X})
        unoptimized = _plan_ops(plain)
    with Session(_graph()) as sess:
        got = sess.run("y:0", {"x:0": X})
        ops = _plan_ops(sess)
    np.testing.assert_array_equal(got, want)
    assert "Identity" in unoptimized and "AddV2" in unoptimized
    assert "Identity" not in ops and "AddV2" not in ops and len(ops) < len(unoptimized)


def test_level_all_fuses() -> None:
    with Session(_graph(), optimize="all") as sess:
        got = sess.run("y:0", {"x:0": X})
        assert "_FusedMatMul" in _plan_ops(sess)
    np.testing.assert_allclose(got, [[5.5, 0.0]])


def test_fed_and_fetched_nodes_are_not_optimized_away() -> None:
    with Session(_graph()) as sess:
        fed_bias = np.array([10.0, 10.0], np.float32)
        got = sess.run(["biased:0", "b_plus_zero:0"], {"x:0": X, "b_plus_zero:0": fed_bias})
        np.testing.assert_array_equal(got[0], [[15.0, 10.0]])
        np.testing.assert_array_equal(got[1], fed_bias)
        np.testing.assert_array_equal(sess.run("w_read:0"), [[1.0, -1.0], [2.0, 0.5]])


def test_bad_level_and_names_keep_their_errors() -> None:
    with pytest.raises(InvalidArgumentError, match="valid levels: none, basic, all"):
        Session(_graph(), optimize="max")
    with Session(_graph()) as sess, pytest.raises(NotFoundError, match="yy"):
        sess.run("yy:0", {"x:0": X})


def test_a_failing_pass_falls_back_to_the_graph_as_it_is(monkeypatch) -> None:
    def broken(graph, ctx):
        raise RuntimeError("pass bug")

    monkeypatch.setitem(passes.PASSES, "cse", passes.Pass("cse", broken, "broken"))
    with Session(_graph()) as sess, pytest.warns(RuntimeWarning, match="pass bug"):
        got = sess.run("y:0", {"x:0": X})
    np.testing.assert_array_equal(got, [[5.5, 0.0]])


def test_a_step_optimizes_only_what_it_depends_on() -> None:
    from tfx.core.graph import Graph

    graph = Graph.from_graph_def(_graph())
    step = passes.optimize_step(graph, ["x:0"], ["mm:0"], [], level="basic")
    assert sorted(n.name for n in step) == ["mm", "w", "x"]  # w_read bypassed
    assert len(graph) == 10  # the session's graph is not changed
    assert passes.optimize_step(graph, [], ["y:0"], [], level="none") is graph


def test_a_feed_the_fetches_do_not_need_is_accepted() -> None:
    """Regression: the per-step copy dropped a fed placeholder nothing fetched depends
    on (a gradient that no longer reads its input), and the plan refused the feed."""
    graph = graph_pb2.GraphDef()
    graph.node.append(make_node_def("Placeholder", "x", [], {"dtype": "float32"}))
    graph.node.append(make_node_def("Const", "two", [], {"dtype": "float32",
                                                           "value": np.float32(2.0)}))
    graph.node.append(make_node_def("Identity", "grad", ["two"], {"T": "float32"}))
    for level in ("basic", "all", "none"):
        with Session(graph, optimize=level) as sess:
            assert sess.run("grad:0", {"x:0": np.ones(3, np.float32)}) == 2.0
