"""The executor: dataflow order, parallelism, dead values, loop frames, errors."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tfx
from tfx.core import executor, loop_compiler
from tfx.core.eager import make_node_def
from tfx.core.errors import DeadlineExceededError, InvalidArgumentError
from tfx.core.graph import Graph
from tfx.core.plan_builder import build_plan
from tfx.protos import graph_pb2


class Builder:
    """A terse GraphDef builder for tests."""

    def __init__(self) -> None:
        self.graph_def = graph_pb2.GraphDef()

    def op(self, op: str, name: str, inputs=(), **attrs) -> str:
        self.graph_def.node.append(make_node_def(op, name, list(inputs), attrs))
        return name

    def const(self, name: str, value, dtype="float32") -> str:
        array = np.asarray(value, dtype=tfx.as_dtype(dtype).np)
        return self.op("Const", name, dtype=dtype, value=array)

    def placeholder(self, name: str, dtype="float32", shape=None) -> str:
        attrs = {"dtype": dtype}
        if shape is not None:
            attrs["shape"] = shape
        return self.op("Placeholder", name, **attrs)

    def session(self) -> tfx.Session:
        return tfx.Session(self.graph_def)


@pytest.fixture(autouse=True, params=["compiled loops", "generic loops"])
def loop_mode(request, monkeypatch) -> str:
    """Every test runs twice: simple loops compiled (the default) and on the generic path."""
    if request.param == "generic loops":
        monkeypatch.setattr(loop_compiler, "compile_loops", lambda nodes, feeds: (nodes, feeds))
    return request.param


def _cond(b: Builder, pred: str, x: str) -> str:
    """merge(switch_false * 2, switch_true + 10)."""
    b.op("Switch", "sw", [x, pred], T="float32")
    b.const("two", 2.0)
    b.const("ten", 10.0)
    b.op("Identity", "t_pivot", ["sw:1"], T="float32")
    b.op("Identity", "f_pivot", ["sw"], T="float32")
    b.op("Mul", "f_out", ["f_pivot", "two"], T="float32")
    b.op("AddV2", "t_out", ["t_pivot", "ten"], T="float32")
    return b.op("Merge", "merge", ["f_out", "t_out"], T="float32", N=2)


def test_cond_takes_one_branch() -> None:
    b = Builder()
    b.placeholder("p", "bool", ())
    b.placeholder("x", "float32", ())
    _cond(b, "p", "x")
    with b.session() as sess:
        assert sess.run("merge:0", {"p:0": True, "x:0": 1.0}) == 11.0
        out, index = sess.run(["merge:0", "merge:1"], {"p:0": False, "x:0": 1.0})
        assert out == 2.0 and index == 0
        with pytest.raises(InvalidArgumentError, match="dead"):
            sess.run("t_out:0", {"p:0": False, "x:0": 1.0})


def _while(b: Builder, n: str, frame: str = "loop", prefix: str = "", pivot: str = "") -> str:
    """i = 0; acc = 1; while i < n: i += 1; acc *= 2  -> returns the Exit of acc.

    `pivot` anchors the initial constants in an enclosing frame (as TensorFlow does).
    """
    p = prefix
    anchor = ["^" + pivot] if pivot else []
    b.op("Const", p + "zero", anchor, dtype="int32", value=np.int32(0))
    b.op("Const", p + "one_f", anchor, dtype="float32", value=np.float32(1))
    b.op("Enter", p + "i_enter", [p + "zero"], T="int32", frame_name=frame)
    b.op("Enter", p + "acc_enter", [p + "one_f"], T="float32", frame_name=frame)
    b.op("Enter", p + "n_enter", [n], T="int32", frame_name=frame, is_constant=True)
    b.op("Merge", p + "i_merge", [p + "i_enter", p + "i_next"], T="int32", N=2)
    b.op("Merge", p + "acc_merge", [p + "acc_enter", p + "acc_next"], T="float32", N=2)
    b.op("Less", p + "less", [p + "i_merge", p + "n_enter"], T="int32")
    b.op("LoopCond", p + "cond", [p + "less"])
    b.op("Switch", p + "i_switch", [p + "i_merge", p + "cond"], T="int32")
    b.op("Switch", p + "acc_switch", [p + "acc_merge", p + "cond"], T="float32")
    b.op("Identity", p + "i_body", [p + "i_switch:1"], T="int32")
    b.op("Identity", p + "acc_body", [p + "acc_switch:1"], T="float32")
    b.op("Const", p + "step", ["^" + p + "i_body"], dtype="int32", value=np.int32(1))
    b.op("Const", p + "two", ["^" + p + "i_body"], dtype="float32", value=np.float32(2))
    b.op("AddV2", p + "i_add", [p + "i_body", p + "step"], T="int32")
    b.op("Mul", p + "acc_mul", [p + "acc_body", p + "two"], T="float32")
    b.op("NextIteration", p + "i_next", [p + "i_add"], T="int32")
    b.op("NextIteration", p + "acc_next", [p + "acc_mul"], T="float32")
    b.op("Exit", p + "i_exit", [p + "i_switch"], T="int32")
    return b.op("Exit", p + "acc_exit", [p + "acc_switch"], T="float32")


def test_while_loop_runs_n_times_including_zero() -> None:
    b = Builder()
    b.placeholder("n", "int32", ())
    _while(b, "n")
    with b.session() as sess:
        for n in (0, 1, 5, 100):
            acc, i = sess.run(["acc_exit:0", "i_exit:0"], {"n:0": n})
            assert i == n and acc == 2.0**n


def test_loop_inside_untaken_branch_yields_dead_exit() -> None:
    b = Builder()
    b.placeholder("p", "bool", ())
    b.const("n_const", 3, "int32")
    b.op("Switch", "n_sw", ["n_const", "p"], T="int32")
    b.op("Identity", "n_true", ["n_sw:1"], T="int32")
    _while(b, "n_true")
    b.const("minus", -1.0)
    b.op("Switch", "m_sw", ["minus", "p"], T="float32")
    b.op("Identity", "m_false", ["m_sw"], T="float32")
    b.op("Merge", "out", ["m_false", "acc_exit"], T="float32", N=2)
    with b.session() as sess:
        assert sess.run("out:0", {"p:0": True}) == 8.0
        assert sess.run("out:0", {"p:0": False}) == -1.0


def test_nested_loops() -> None:
    b = Builder()
    b.placeholder("n", "int32", ())
    # Outer loop over j < n whose body runs an inner loop of n iterations.
    b.const("o_zero", 0, "int32")
    b.op("Enter", "j_enter", ["o_zero"], T="int32", frame_name="outer")
    b.op("Enter", "on_enter", ["n"], T="int32", frame_name="outer", is_constant=True)
    b.op("Merge", "j_merge", ["j_enter", "j_next"], T="int32", N=2)
    b.op("Less", "j_less", ["j_merge", "on_enter"], T="int32")
    b.op("LoopCond", "j_cond", ["j_less"])
    b.op("Switch", "j_switch", ["j_merge", "j_cond"], T="int32")
    b.op("Identity", "j_body", ["j_switch:1"], T="int32")
    b.op("Identity", "inner_n", ["on_enter", "^j_body"], T="int32")
    inner = _while(b, "inner_n", frame="inner", prefix="in_", pivot="j_body")
    b.op("Cast", "inner_i", ["in_i_exit"], SrcT="int32", DstT="int32")
    b.op("AddV2", "j_add", ["j_body", "inner_i"], T="int32")
    b.op("NextIteration", "j_next", ["j_add"], T="int32")
    b.op("Exit", "j_exit", ["j_switch"], T="int32")
    del inner
    with b.session() as sess:
        # j grows by n per outer iteration: the loop runs once for n > 0.
        assert sess.run("j_exit:0", {"n:0": 3}) == 3
        assert sess.run("j_exit:0", {"n:0": 0}) == 0


def test_independent_branches_run_in_parallel_and_agree() -> None:
    b = Builder()
    b.placeholder("x", "float32", (64, 64))
    names = []
    for k in range(8):
        names.append(b.op("MatMul", f"mm{k}", ["x", "x"], T="float32"))
    b.op("AddN", "sum", names, T="float32", N=len(names))
    x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    with b.session() as sess:
        np.testing.assert_allclose(sess.run("sum:0", {"x:0": x}), 8 * (x @ x), rtol=1e-4)


def test_error_names_node_op_and_device_and_session_survives() -> None:
    b = Builder()
    b.placeholder("a", "float32", None)
    b.placeholder("b", "float32", None)
    b.op("MatMul", "mm", ["a", "b"], T="float32")
    with b.session() as sess:
        with pytest.raises(InvalidArgumentError, match=r"node 'mm' \(op MatMul, device .*CPU"):
            sess.run("mm:0", {"a:0": np.ones((2, 3)), "b:0": np.ones((2, 3))})
        assert sess.run("mm:0", {"a:0": np.ones((2, 3)), "b:0": np.ones((3, 1))}).shape == (2, 1)


def test_concurrent_runs_from_threads() -> None:
    b = Builder()
    b.placeholder("x", "float32", ())
    b.const("one", 1.0)
    b.op("AddV2", "y", ["x", "one"], T="float32")
    errors = []
    with b.session() as sess:
        def worker(k: int) -> None:
            for i in range(200):
                if sess.run("y:0", {"x:0": float(k * 1000 + i)}) != k * 1000 + i + 1:
                    errors.append((k, i))

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors


def test_frame_errors_name_the_node() -> None:
    b = Builder()
    b.const("c", 1.0)
    b.op("NextIteration", "next", ["c"], T="float32")
    with b.session() as sess, pytest.raises(InvalidArgumentError, match="'next'.*not inside"):
        sess.run("next:0")
    b = Builder()
    b.const("c", 1.0)
    b.op("Exit", "exit", ["c"], T="float32")
    with b.session() as sess, pytest.raises(InvalidArgumentError, match="'exit'.*not inside"):
        sess.run("exit:0")
    b = Builder()
    b.const("c", 1.0)
    b.op("Enter", "in_a", ["c"], T="float32", frame_name="a")
    b.op("Enter", "in_b", ["c"], T="float32", frame_name="b")
    b.op("AddV2", "mixed", ["in_a", "in_b"], T="float32")
    with b.session() as sess, pytest.raises(InvalidArgumentError, match="'mixed'.*two frames"):
        sess.run("mixed")


def test_merge_without_a_live_input_is_a_clear_error() -> None:
    b = Builder()
    b.placeholder("p", "bool", ())
    b.const("c", 1.0)
    b.op("Switch", "sw", ["c", "p"], T="float32")
    b.op("Merge", "m", ["sw:1", "sw:1"], T="float32", N=2)
    with b.session() as sess:
        with pytest.raises(InvalidArgumentError, match=r"fetch 'm:0' has no value.*dead"):
            sess.run("m:0", {"p:0": False})
        assert sess.run("m:0", {"p:0": True}) == 1.0


def test_offloading_weighs_estimated_work_not_input_size() -> None:
    """Regression: an 8x784 @ 784x100 MatMul went to the pool and cost more than it ran."""
    b = Builder()
    b.placeholder("a")
    b.placeholder("b")
    b.op("MatMul", "m", ["a", "b"], T="float32")
    prepared = build_plan(Graph.from_graph_def(b.graph_def), ["a:0", "b:0"], ["m:0"], [])
    kernel = next(n.kernel for n in prepared.plan.nodes if n.op == "MatMul")
    small = (np.ones((8, 784), np.float32), np.ones((784, 100), np.float32))
    large = (np.ones((256, 784), np.float32), np.ones((784, 512), np.float32))
    assert not executor._worth_offloading(kernel, small)
    assert executor._worth_offloading(kernel, large)
    assert executor._worth_offloading(None, (np.ones(1 << 18, np.float32),))
    assert not executor._worth_offloading(None, (np.ones(1000, np.float32),))


def test_a_timeout_inside_a_function_names_the_inner_node_too() -> None:
    """Regression: the caller's deadline check replaced the error the call node raised, so
    only the outer call node was named."""
    import time

    import tfx as tf

    def slow(x):
        time.sleep(0.3)
        return x

    with tf.Graph().as_default():
        @tf.function(autograph=False)
        def f(x):
            return tf.py_func(slow, [x], tf.float32, name="sleepy") * 2

        x = tf.placeholder(tf.float32, [])
        out = f(x)
        with tf.Session() as sess:
            with pytest.raises(DeadlineExceededError,
                               match=r"node 'StatefulPartitionedCall'.*after running node "
                                     r"'sleepy'"):
                sess.run(out, {x: 1.0}, options=tf.RunOptions(timeout_in_ms=100))


def test_switch_n_routes_a_lowered_case() -> None:
    # TensorFlow's master lowers a Case to _SwitchN + Merge before a worker sees it (a
    # tfx worker refused the op); an index out of range takes the last (default) branch.
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend([
        make_node_def("Placeholder", "x", [], {"dtype": "float32", "shape": (2,)}),
        make_node_def("Placeholder", "i", [], {"dtype": "int32"}),
        make_node_def("_SwitchN", "s", ["x", "i"], {"T": "float32", "num_outs": 3}),
        make_node_def("Neg", "a", ["s:0"], {"T": "float32"}),
        make_node_def("Abs", "b", ["s:1"], {"T": "float32"}),
        make_node_def("Square", "c", ["s:2"], {"T": "float32"}),
        make_node_def("Merge", "m", ["a", "b", "c"], {"T": "float32", "N": 3}),
    ])
    want = {0: ([-1.0, 2.0], 0), 1: ([1.0, 2.0], 1), 2: ([1.0, 4.0], 2), 7: ([1.0, 4.0], 2),
            -1: ([1.0, 4.0], 2)}
    with tfx.Session(graph_def) as sess:
        for index, (value, branch) in want.items():
            out = sess.run(["m:0", "m:1"], {"x:0": [1.0, -2.0], "i:0": index})
            np.testing.assert_array_equal(out[0], value)
            assert out[1] == branch
        with pytest.raises(InvalidArgumentError, match="output_index must be a scalar"):
            sess.run("m:0", {"x:0": [1.0, -2.0], "i:0": [0]})
