"""Regenerate the function-library GraphDefs and TensorFlow's outputs for them.

Not a test: it needs TensorFlow (recorded with TensorFlow 2.21). Each case writes
`NAME.pb` (a GraphDef whose nodes call functions of its library) and `NAME.npz`
holding `feed:<tensor>` inputs and `fetch:<tensor>` outputs as TensorFlow computed
them. The tests only read these files.

    python tests/data/functions/generate.py
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def _save(name: str, graph_def, feeds: dict, fetches: list[str]) -> None:
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as sess:
        values = sess.run(fetches, {k: v for k, v in feeds.items()})
    with open(os.path.join(HERE, f"{name}.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    arrays = {f"feed:{k}": np.asarray(v) for k, v in feeds.items()}
    arrays.update({f"fetch:{k}": np.asarray(v) for k, v in zip(fetches, values)})
    np.savez(os.path.join(HERE, f"{name}.npz"), **arrays)
    ops = sorted({n.op for n in graph_def.node})
    print(name, ops, [f.signature.name for f in graph_def.library.function])


def _fn_graph(fn, *specs):
    concrete = fn.get_concrete_function(*specs)
    return concrete.graph.as_graph_def(), concrete


def nested() -> None:
    @tf.function
    def inner(x, y):
        return x * y + 1.0, x - y

    @tf.function
    def outer(x, y):
        a, b = inner(x, y)
        return inner(a, b)[0] * 2.0 + tf.reduce_sum(b)

    @tf.function
    def top(x, y):
        return outer(x, y) - 1.0

    spec = tf.TensorSpec([3], tf.float32)
    graph_def, concrete = _fn_graph(top, spec, spec)
    out = concrete.outputs[0].name
    ins = [t.name for t in concrete.inputs]
    _save("nested", graph_def,
          {ins[0]: np.array([1.0, 2.0, -3.0], np.float32),
           ins[1]: np.array([0.5, -1.0, 4.0], np.float32)}, [out])


def cond() -> None:
    @tf.function
    def f(x, p):
        return tf.cond(p, lambda: tf.square(x) + 1.0, lambda: -x)

    graph_def, concrete = _fn_graph(f, tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.bool))
    ins = [t.name for t in concrete.inputs]
    out = concrete.outputs[0].name
    x = np.array([1.5, -2.0], np.float32)
    _save("cond_true", graph_def, {ins[0]: x, ins[1]: np.array(True)}, [out])
    _save("cond_false", graph_def, {ins[0]: x, ins[1]: np.array(False)}, [out])


def cond_stateful() -> None:
    # A branch with a stateful op (Print-free but with a random op seeded) gives an If.
    @tf.function
    def f(x, p):
        def yes():
            tf.print("taken")
            return x * 3.0

        return tf.cond(p, yes, lambda: x + 10.0)

    graph_def, concrete = _fn_graph(f, tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.bool))
    ins = [t.name for t in concrete.inputs]
    out = concrete.outputs[0].name
    _save("if_stateful", graph_def,
          {ins[0]: np.array([1.0, 2.0], np.float32), ins[1]: np.array(False)}, [out])


def while_loop() -> None:
    @tf.function
    def f(n, x):
        i = tf.constant(0)
        acc = tf.zeros([2])

        def body(i, acc):
            return i + 1, acc + x * tf.cast(i, tf.float32)

        _, acc = tf.while_loop(lambda i, acc: i < n, body, [i, acc])
        return acc

    graph_def, concrete = _fn_graph(f, tf.TensorSpec([], tf.int32), tf.TensorSpec([2], tf.float32))
    ins = [t.name for t in concrete.inputs]
    out = concrete.outputs[0].name
    _save("while", graph_def,
          {ins[0]: np.array(5, np.int32), ins[1]: np.array([1.0, -0.5], np.float32)}, [out])


def switch_case() -> None:
    @tf.function
    def f(k, x):
        return tf.switch_case(k, [lambda: x + 1.0, lambda: x * x, lambda: -x])

    graph_def, concrete = _fn_graph(f, tf.TensorSpec([], tf.int32), tf.TensorSpec([2], tf.float32))
    ins = [t.name for t in concrete.inputs]
    out = concrete.outputs[0].name
    x = np.array([2.0, -3.0], np.float32)
    for k in (0, 1, 2, 7):  # an index out of range runs the last branch
        _save(f"case_{k}", graph_def, {ins[0]: np.array(k, np.int32), ins[1]: x}, [out])


def variable() -> None:
    # A TF1 graph whose resource variable is read inside a function (a
    # StatefulPartitionedCall taking the handle); the step runs `init` first.
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        v = tf1.get_variable("v", initializer=tf.constant([1.0, 2.0, 3.0]), use_resource=True)
        x = tf1.placeholder(tf.float32, [3], name="x")

        @tf.function
        def read(x):
            return v * x + 1.0

        out = tf.identity(read(x) * 2.0, name="out")
        init = tf1.group(tf1.global_variables_initializer(), name="init")
        with tf1.Session() as sess:
            sess.run(init)
            value = sess.run(out, {x: np.array([2.0, 0.5, -1.0], np.float32)})
    graph_def = graph.as_graph_def()
    with open(os.path.join(HERE, "variable.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    np.savez(os.path.join(HERE, "variable.npz"),
             **{"feed:x:0": np.array([2.0, 0.5, -1.0], np.float32), "fetch:out:0": value,
                "target:init": np.array(0)})
    print("variable", sorted({n.op for n in graph_def.node}))


def defun() -> None:
    from tensorflow.python.framework import function

    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        @function.Defun(tf.float32, tf.float32)
        def scaled_add(a, b):
            return a * 2.0 + b

        x = tf1.placeholder(tf.float32, [2], name="x")
        y = tf1.placeholder(tf.float32, [2], name="y")
        out = tf.identity(scaled_add(x, y), name="out")
    _save("defun", graph.as_graph_def(),
          {"x:0": np.array([1.0, 2.0], np.float32), "y:0": np.array([3.0, -4.0], np.float32)},
          [out.name])


if __name__ == "__main__":
    nested()
    cond()
    cond_stateful()
    while_loop()
    switch_case()
    variable()
    defun()
