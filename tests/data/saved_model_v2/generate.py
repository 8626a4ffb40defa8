"""Regenerate the TensorFlow-written TF2 SavedModels and their expected outputs.

    python tests/data/saved_model_v2/generate.py     # needs tensorflow (2.21 used)

Each model is saved by `tf.saved_model.save` in TensorFlow 2's eager mode into
`tf_<name>/`; `expected.json` records, per model, calls (a function or signature,
its float/int inputs) and the outputs TensorFlow 2.21 gave for them after loading
the model back with `tf.saved_model.load`, and the variables' values by attribute path
("vs/0": the first of the list `vs`) as saved.

- `tf_dense`: a Module with `w` (2x3) and `b` (3), `__call__` (x: float32 [None, 2]) ->
  relu(x @ w + b); signatures: serving_default (from __call__, output "output_0").
- `tf_multi`: a Module with a nested submodule and a list of variables; two
  signatures (`predict` returning a dict {"sum", "scaled"}, `count` with int32 input),
  a method returning a tuple, and `bump` (assign_add on a counter, stateful).
- `tf_control`: a Module whose function has an `if` and a `while` on tensors (If/While
  ops in the library) and a function with two concrete traces (float32 and int32).
- `tf_misc`: a Module with a dict and a tuple of variables, a string variable, an Asset
  (`vocab.txt` beside this script), a captured constant, a dict-structured argument,
  a function traced for a Python `training` flag both ways, a string function and a
  function calling another; signatures "greet" and "nested".
- `tf_table`: a Module with a StaticHashTable (string -> int64, default -1) and a lookup
  function (the default signature).
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def build(tf):  # noqa: ANN001, ANN201 - tf is TensorFlow
    class Dense(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = tf.Variable([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], name="w")
            self.b = tf.Variable([0.1, 0.2, -0.3], name="b")

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):  # noqa: ANN001, ANN204
            return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    class Inner(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = tf.Variable(2.5, name="scale")

    class Multi(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = Inner()
            self.vs = [tf.Variable([1.0, 2.0], name="a"), tf.Variable([3.0, 4.0], name="c")]
            self.counter = tf.Variable(0, dtype=tf.int64, name="counter")

        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32),
                                      tf.TensorSpec([], tf.float32)])
        def predict(self, x, bias):  # noqa: ANN001, ANN201
            total = x + self.vs[0] + self.vs[1] + bias
            return {"sum": total, "scaled": total * self.inner.scale}

        @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
        def count(self, ids):  # noqa: ANN001, ANN201
            return {"n": tf.size(ids), "total": tf.reduce_sum(ids)}

        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def pair(self, x):  # noqa: ANN001, ANN201
            return x * self.inner.scale, tf.reduce_max(x)

        @tf.function(input_signature=[])
        def bump(self):  # noqa: ANN201
            self.counter.assign_add(3)
            return self.counter.read_value()

    class Control(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.limit = tf.Variable(10.0, name="limit")

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def grow(self, x):  # noqa: ANN001, ANN201
            if x > 0:
                y = x * 2.0
            else:
                y = -x
            while y < self.limit:
                y = y * 3.0
            return y

        @tf.function
        def twice(self, x):  # noqa: ANN001, ANN201
            return x + x

    class Misc(tf.Module):
        def __init__(self, vocab: str) -> None:
            super().__init__()
            self.table = {"k": tf.Variable(3.0, name="k"), "j": tf.Variable([1, 2], name="j")}
            self.pair = (tf.Variable(1.5, name="p0"), tf.Variable(-1.0, name="p1"))
            self.offset = tf.constant([10.0, 20.0])
            self.vocab = tf.saved_model.Asset(vocab)
            self.words = tf.Variable(["a", "bc"], name="words")

        @tf.function(input_signature=[{"a": tf.TensorSpec([2], tf.float32),
                                       "b": tf.TensorSpec([], tf.float32)}])
        def nested(self, d):  # noqa: ANN001, ANN201
            return {"out": d["a"] * self.table["k"] + d["b"] + self.offset}

        @tf.function
        def mode(self, x, training=False):  # noqa: ANN001, ANN201
            return x * 2.0 if training else x - 1.0

        @tf.function(input_signature=[tf.TensorSpec([], tf.string)])
        def greet(self, name):  # noqa: ANN001, ANN201
            return (tf.strings.join([name, self.words[1]], separator="-"),
                    tf.io.read_file(self.vocab))

        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def outer(self, x):  # noqa: ANN001, ANN201
            return self.inner(x) + self.pair[0]

        @tf.function
        def inner(self, x):  # noqa: ANN001, ANN201
            return x * self.pair[1]

    class Table(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            init = tf.lookup.KeyValueTensorInitializer(
                tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64))
            self.table = tf.lookup.StaticHashTable(init, default_value=-1)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def lookup(self, keys):  # noqa: ANN001, ANN201
            return self.table.lookup(keys)

    dense = Dense()
    multi = Multi()
    misc = Misc(os.path.join(HERE, "vocab.txt"))
    for training in (True, False):
        misc.mode.get_concrete_function(tf.TensorSpec([None], tf.float32), training=training)
    control = Control()
    control.twice.get_concrete_function(tf.TensorSpec([None], tf.float32))
    control.twice.get_concrete_function(tf.TensorSpec([], tf.int32))
    return {
        "dense": (dense, None),
        "multi": (multi, {"predict": multi.predict, "count": multi.count.get_concrete_function()}),
        "control": (control, None),
        "misc": (misc, {"greet": misc.greet, "nested": misc.nested}),
        "table": (Table(), None),
    }


CALLS = {
    "dense": [
        ["signature", "serving_default", {"x": [[1.0, 2.0], [-1.0, 0.5]]}],
        ["function", "__call__", [[[0.5, -0.5]]]],
    ],
    "multi": [
        ["signature", "predict", {"x": [1.0, -1.0], "bias": 0.5}],
        ["signature", "count", {"ids": ("int32", [4, 5, 6])}],
        ["function", "predict", [[2.0, 3.0], 1.0]],
        ["function", "pair", [[1.5, -4.0]]],
        ["function", "bump", []],
    ],
    "control": [
        ["function", "grow", [1.0]],
        ["function", "grow", [-4.0]],
        ["function", "twice", [[1.0, 2.5]]],
        ["function", "twice", [("int32", 7)]],
    ],
    "misc": [
        ["function", "nested", [{"a": [1.0, 2.0], "b": 0.5}]],
        ["function", "mode", [[1.0, 2.0]], {"training": True}],
        ["function", "mode", [[1.0, 2.0]]],
        ["function", "greet", [("string", "x")]],
        ["function", "outer", [[1.0, 2.0]]],
        ["signature", "greet", {"name": ("string", "y")}],
        ["signature", "nested", {"d": [3.0, 4.0], "d_1": -1.0}],  # TF names them so
    ],
    "table": [
        ["function", "lookup", [("string", ["b", "z", "a"])]],
        ["signature", "serving_default", {"keys": ("string", ["c"])}],
    ],
}


def _arg(tf, value):  # noqa: ANN001, ANN202
    if isinstance(value, dict):
        return {k: _arg(tf, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and len(value) == 2 and value[0] in ("int32", "string"):
        return tf.constant(value[1], getattr(tf, value[0]))
    return tf.constant(value, tf.float32)


def _plain(value):  # noqa: ANN001, ANN202
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    array = np.asarray(value)
    if array.dtype == object:  # strings: bytes, written as text
        return {"dtype": "bytes", "value": np.vectorize(bytes.decode)(array).tolist()}
    return {"dtype": str(array.dtype), "value": array.tolist()}


def main() -> None:
    import tensorflow as tf

    expected = {}
    for name, (obj, signatures) in build(tf).items():
        path = os.path.join(HERE, f"tf_{name}")
        shutil.rmtree(path, ignore_errors=True)
        tf.saved_model.save(obj, path, signatures=signatures)
        # The fingerprint is TensorFlow's bookkeeping; tfx neither writes nor reads it.
        os.remove(os.path.join(path, "fingerprint.pb"))
        loaded = tf.saved_model.load(path)
        results = []
        for kind, fname, args, *kwargs in CALLS[name]:
            kwargs = kwargs[0] if kwargs else {}
            if kind == "signature":
                out = loaded.signatures[fname](**{k: _arg(tf, v) for k, v in args.items()})
            else:
                out = getattr(loaded, fname)(*[_arg(tf, v) for v in args], **kwargs)
            results.append({"kind": kind, "name": fname, "args": args, "kwargs": kwargs,
                            "output": _plain(out)})
        variables = {"/".join(map(str, path)): _plain(v.numpy()) for path, v in obj._flatten(
            with_path=True, predicate=lambda v: isinstance(v, tf.Variable))}
        expected[name] = {"calls": results, "variables": variables}
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
