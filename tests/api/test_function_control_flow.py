"""v1 cond and while_loop inside tf.function: stateful ops inside a cond or a loop run in
program order, as TensorFlow 2.21's If and While ops order them.

The sample functions between the `samples` markers are run by
`tests/data/function_control_flow/generate.py` under TensorFlow 2.21 (`tf.function` in a
graph); the literals below are what it printed. Here each sample runs
through tfx's `tf.function` the same way.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf


# --- samples ---
def assign_in_if_in_loop(v, n):
    i = tf.constant(0)
    s = tf.constant(0)
    while i < n:
        if tf.equal(i % 2, 0):
            v.assign_add(10)
        else:
            v.assign_sub(3)
        s = s * 2 + v.read_value()
        i += 1
    return s, v.read_value()


def read_then_assign_in_branch(v, n):
    i = tf.constant(0)
    s = tf.constant(0)
    while i < n:
        w = v.read_value()
        if i > 1:
            v.assign(w * 3)
            s += v.read_value()
        else:
            s += w
        i += 1
    return s, v.read_value()


def assign_in_nested_loops(v, n):
    i = tf.constant(0)
    while i < n:
        j = tf.constant(0)
        while j < 3:
            if tf.equal((i + j) % 2, 0):
                v.assign(v * 2 + 1)
            j += 1
        v.assign_add(100)
        i += 1
    return v.read_value()


def assign_in_if(v, x):
    if x > 0:
        v.assign(v * x)
    return v.read_value()
# --- end samples ---


# (sample, arguments, TF 2.21's results): stateful ops in conds and loops, in order.
STATE = [
    ("assign_in_if_in_loop", [("var", 0), 6], [693, 21]),
    ("assign_in_if_in_loop", [("var", 5), 3], [106, 22]),
    ("read_then_assign_in_branch", [("var", 1), 4], [14, 9]),
    ("assign_in_nested_loops", [("var", 0), 3], 1331),
    ("assign_in_if", [("var", 1.0), 3.0], 3.0),
    ("assign_in_if", [("var", 1.0), -1.0], 1.0),
]


def _inputs(args: list) -> tuple[list, dict]:
    """A resource variable per ("var", value), a placeholder fed with the value otherwise."""
    inputs, feeds = [], {}
    for arg in args:
        if isinstance(arg, tuple):
            inputs.append(tf.Variable(arg[1], use_resource=True))
            continue
        value = np.array(arg)
        value = value.astype(np.float32 if value.dtype.kind == "f" else np.int32)
        placeholder = tf.placeholder(tf.as_dtype(value.dtype), value.shape)
        feeds[placeholder] = value
        inputs.append(placeholder)
    return inputs, feeds


@pytest.mark.parametrize(("name", "args", "value"), STATE,
                         ids=[f"{c[0]}-{c[1]}" for c in STATE])
def test_state_matches_tensorflow(name: str, args: list, value: object) -> None:
    inputs, feeds = _inputs(args)
    out = tf.function(globals()[name])(*inputs)
    with tf.Session() as sess:
        for _ in range(3):  # the same each run: the order is in the graph
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(out, feeds), value)
