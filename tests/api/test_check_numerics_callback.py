"""tf.debugging.enable_check_numerics / disable_check_numerics in a graph, and the
CheckNumericsV2 op they add: the instrumented graph (names, wiring, control inputs), the
errors a run raises and what is left alone, as TensorFlow 2.21 builds and raises them
(recorded with tf.compat.v1 in graph mode on the same code)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tfx as tf
from tfx.core.errors import InvalidArgumentError


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield
    tf.debugging.disable_check_numerics()


def _nodes():
    return [(n.name, n.op, list(n.input)) for n in tf.get_default_graph().as_graph_def().node]


# TensorFlow 2.21's graph for the code in the test below.
TF_GRAPH = [
    ("Placeholder", "Placeholder", []), ("p", "Placeholder", []),
    ("p/CheckNumericsV2", "CheckNumericsV2", ["p"]), ("Log", "Log", ["Placeholder"]),
    ("Log/CheckNumericsV2", "CheckNumericsV2", ["Log"]), ("mul/y", "Const", []),
    ("mul/CheckNumericsV2", "CheckNumericsV2", ["mul/y"]),
    ("mul", "Mul", ["Log/CheckNumericsV2", "mul/CheckNumericsV2"]),
    ("mul/CheckNumericsV2_1", "CheckNumericsV2", ["mul"]),
    ("add", "AddV2", ["mul/CheckNumericsV2_1", "p", "^p/CheckNumericsV2"]),
    ("add/CheckNumericsV2", "CheckNumericsV2", ["add"]), ("Const", "Const", []),
    ("add_1/y", "Const", []), ("add_1", "AddV2", ["Const", "add_1/y"]),
    ("Reshape/shape", "Const", []),
    ("Reshape", "Reshape", ["add/CheckNumericsV2", "Reshape/shape"]),
    ("Const_1", "Const", []), ("Sum", "Sum", ["Reshape", "Const_1"]),
    ("Sum/CheckNumericsV2", "CheckNumericsV2", ["Sum"])]


def test_instrumented_graph_and_run_time_errors_are_tensorflows():
    x = tf.placeholder(tf.float32, [2])  # built before: not checked
    assert tf.debugging.enable_check_numerics() is None
    p = tf.placeholder(tf.float32, [2], name="p")
    y = tf.math.log(x)
    z = y * 2.0 + p
    tf.constant([1, 2]) + 1  # integers: not checked
    total = tf.reduce_sum(tf.reshape(z, [2, 1]))  # Reshape only moves values: not checked
    assert _nodes() == TF_GRAPH
    with tf.Session() as sess:
        assert sess.run(total, {x: [1.0, 2.0], p: [0.0, 0.0]}) == pytest.approx(1.3862944)
        cases = [({x: [0.0, 1.0], p: [0.0, 0.0]}, "Log", "Log", "-Inf",
                  "  Input tensor: <tfx.Tensor 'Placeholder:0' shape=(2,) dtype=float32>"),
                 ({x: [1.0, 1.0], p: [np.nan, 0.0]}, "p", "Placeholder", "NaN", None),
                 ({x: [-1.0, 1.0], p: [0.0, 0.0]}, "Log", "Log", "NaN", "  Input tensor:")]
        for feed, node, op_type, kind, input_line in cases:
            with pytest.raises(InvalidArgumentError) as caught:
                sess.run(total, feed)
            message = str(caught.value)
            assert f"node '{node}/CheckNumericsV2'" in message
            assert (f'!!! Detected Infinity or NaN in output 0 of graph op "{op_type}" '
                    "(# of outputs: 1) !!!\n  dtype: tfx.float32\n  shape: (2,)\n") in message
            assert message.endswith(f" : Tensor had {kind} values")
            assert ('  Stack trace of op\'s creation ("->": inferred user code):'
                    in message)
            assert (input_line in message) if input_line else "Input tensor" not in message
    tf.debugging.disable_check_numerics()
    q = tf.math.log(x)
    assert q.op.type == "Log" and _nodes()[-1][1] == "Log"  # no longer checked


def test_only_floating_outputs_and_only_this_thread():
    tf.debugging.enable_check_numerics()
    tf.debugging.enable_check_numerics(stack_height_limit=1)  # idempotent, as TF's
    seen = []

    def other_thread():
        with tf.Graph().as_default():
            tf.math.log(tf.placeholder(tf.float32, [2]))
            seen.append([n.op for n in tf.get_default_graph().as_graph_def().node])

    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join()
    assert seen == [["Placeholder", "Log"]]  # TF 2.21: the callback is per thread
    tf.constant([1.0, 2.0], tf.float64)
    tf.unique(tf.constant([1.0, 1.0, 2.0]))  # output 1 (int32 indices) is not checked
    assert _nodes() == [
        ("Const", "Const", []), ("CheckNumericsV2", "CheckNumericsV2", ["Const"]),
        ("Const_1", "Const", []), ("CheckNumericsV2_1", "CheckNumericsV2", ["Const_1"]),
        ("Unique", "Unique", ["CheckNumericsV2_1"]),
        ("Unique/CheckNumericsV2", "CheckNumericsV2", ["Unique"])]


def test_variables_keep_working_and_limits_shape_the_stack():
    # tfx's decision: a reference output (a ref variable) is not replaced by its check
    tf.debugging.enable_check_numerics(stack_height_limit=2, path_length_limit=12)
    v = tf.Variable([1.0, 2.0])
    bad = tf.math.sqrt(v - 5.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(v.assign([3.0, 4.0])).tolist() == [3.0, 4.0]
        with pytest.raises(InvalidArgumentError) as caught:
            sess.run(bad)
    message = str(caught.value)
    assert "graph op \"Sqrt\"" in message and message.endswith("Tensor had NaN values")
    frames = [line for line in message.splitlines() if line.startswith("    + ")]
    assert frames[0].startswith("    + ... (Omitted ") and len(frames) == 3
    assert all(len(f.split(" (L")[0]) <= len("    + ...") + 12 for f in frames[1:])


@pytest.mark.parametrize("values, kind", [
    ([1.0, np.nan], "NaN"), ([np.inf], "+Inf"), ([-np.inf], "-Inf"),
    ([np.inf, -np.inf], "-Inf and +Inf"), ([np.nan, np.inf], "+Inf and NaN"),
    ([np.nan, -np.inf], "-Inf and NaN"), ([np.nan, np.inf, -np.inf], "-Inf, +Inf, and NaN")])
def test_check_numerics_v2_messages_are_tensorflows(values, kind):
    checked = tf.raw_ops.CheckNumericsV2(tensor=tf.constant(values, tf.float32), message="msg")
    with tf.Session() as sess, pytest.raises(InvalidArgumentError) as caught:
        sess.run(checked)
    assert str(caught.value).endswith(f"msg : Tensor had {kind} values")
    with tf.Session() as sess:
        fine = tf.raw_ops.CheckNumericsV2(tensor=tf.constant([1.0], tf.float64), message="m")
        assert sess.run(fine).tolist() == [1.0]
