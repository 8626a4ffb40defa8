"""control_flow_structure: the v1 contexts recovered from a function body's ops are the ones
`cond` and `while_loop` built, and gradients through a call rebuilt with them equal the
gradients of the same ops built inline (hypothesis: random nests of conds and loops)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api.control_flow_api import CondContext, WhileContext
from tfx.core.api.control_flow_structure import BranchInfo, LoopInfo, infer_structure
from tfx.core.api.function_tracing import trace
from tfx.core.api.type_spec_api import TensorSpec
from tfx.core.functions import instantiate


def _assert_recovered(fn: Any) -> None:
    """Every op of `fn`'s trace lies, by the recovered structure, in the context it was made
    in (contexts matched one to one: a loop by its frame, a branch by its pred_id)."""
    traced = trace(fn, [TensorSpec([], tf.float32)])
    graph = traced.graph
    body = instantiate(graph._ir.function_library, traced.name, {}, "test").graph
    structure = infer_structure(body)
    pairs: dict[int, Any] = {}
    for op in graph.get_operations():
        if op.type == "Placeholder":
            continue
        real, found = op._control_flow_context, structure.context(op.name)
        while real is not None or found is not None:
            if isinstance(real, WhileContext):
                assert isinstance(found, LoopInfo) and found.frame == real.frame_name, op.name
            else:
                assert isinstance(real, CondContext) and isinstance(found, BranchInfo), op.name
                assert found.branch == real.branch, op.name
                assert found.cond.pred[0] == real.pred.op.name, op.name
            assert pairs.setdefault(id(real), found) is found, op.name
            real, found = real.outer, found.outer
    assert len({id(v) for v in pairs.values()}) == len(pairs)


def test_contexts_of_nested_conds_and_loops() -> None:
    def nested(x):
        def body(i, y):
            y = tf.cond(y > 2.0, lambda: y * x, lambda: tf.cond(x > 0.0, lambda: y + 1.0,
                                                               lambda: tf.constant(3.0)))
            inner = tf.while_loop(lambda j, z: j < i, lambda j, z: (j + 1, z * 0.5), [0, y])
            return i + 1, inner[1]

        looped = tf.while_loop(lambda i, y: i < 3, body, [0, x])[1]
        return tf.cond(x < 1.0, lambda: tf.while_loop(lambda z: z < 5.0, lambda z: z + x,
                                                      [looped]), lambda: looped * 2.0)

    _assert_recovered(nested)


def test_loop_skeleton_and_cond_pivots() -> None:
    def fn(x):
        a, b = tf.while_loop(lambda a, b: a < 10.0, lambda a, b: (a * 2.0, b + a), [x, x])
        return tf.cond(b > 0.0, lambda: a, lambda: b)

    traced = trace(fn, [TensorSpec([], tf.float32)])
    body = instantiate(traced.graph._ir.function_library, traced.name, {}, "test").graph
    structure = infer_structure(body)
    (loop,) = structure.loops
    assert loop.frame == "while" and loop.loop_cond == "while/LoopCond"
    assert loop.enters == ["while/Enter", "while/Enter_1"]
    assert loop.exits == ["while/Exit", "while/Exit_1"]
    assert loop.body_vars == ["while/Identity", "while/Identity_1"]
    assert loop.next_iterations == ["while/NextIteration", "while/NextIteration_1"]
    (cond,) = structure.conds
    assert (cond.header, cond.pred) == ("cond/Switch", ("cond/pred_id", 0))
    assert cond.pivots == ["cond/switch_f", "cond/switch_t"]
    assert cond.outer is None
    assert structure.closes["cond/Merge"] is cond
    assert structure.context("while/Exit") is loop and structure.context("cond/Merge") is None


# A nest: ("scale",) y * x; ("sin",) sin(y) + x; ("cond", t, a, b) a(y) if y > t else b(y);
# ("loop", n, a) y = a(y) n times.
_nests = st.recursive(
    st.sampled_from([("scale",), ("sin",)]),
    lambda inner: st.one_of(
        st.tuples(st.just("cond"), st.sampled_from([-0.5, 0.0, 0.5]), inner, inner),
        st.tuples(st.just("loop"), st.integers(0, 3), inner)),
    max_leaves=4)


def _apply(nest: tuple, y: Any, x: Any) -> Any:
    kind = nest[0]
    if kind == "scale":
        return y * x
    if kind == "sin":
        return tf.sin(y) + x
    if kind == "cond":
        return tf.cond(y > nest[1], lambda: _apply(nest[2], y, x), lambda: _apply(nest[3], y, x))
    return tf.while_loop(lambda i, v: i < nest[1], lambda i, v: (i + 1, _apply(nest[2], v, x)),
                         [0, y])[1]


@settings(max_examples=20, deadline=None)
@given(_nests, st.floats(-1.5, 1.5, width=32), st.floats(-1.0, 1.0, width=32))
def test_call_gradients_match_the_inlined_graph(nest: tuple, x0: float, y0: float) -> None:
    def fn(x, y):
        return _apply(nest, y, x) * y

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        y = tf.placeholder(tf.float32, [])
        called = tf.function(fn, autograph=False)(x, y)
        inline = fn(x, y)
        grads = tf.gradients(called, [x, y]) + tf.gradients(inline, [x, y])
        with tf.Session() as sess:
            got = sess.run([called, inline, *grads], {x: x0, y: y0})
    np.testing.assert_allclose(got[0], got[1], rtol=1e-6)
    np.testing.assert_allclose(got[2:4], got[4:6], rtol=1e-5, atol=1e-6)
    _assert_recovered(lambda x: fn(x, x * 0.5))
