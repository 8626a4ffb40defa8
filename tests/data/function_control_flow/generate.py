"""Print TensorFlow 2.21's results for the samples of tests/api/test_function_control_flow.py.

The samples (between the `# --- samples ---` markers of the test file) are written to a
temporary module importing TensorFlow as `tf` (AutoGraph needs their source). Each case runs
in a TensorFlow 1.x-style graph: `tf.function(sample)` called on placeholders (a `("var",
value)` argument is a resource variable), `tf.gradients` of the result with respect to the
float arguments, then a session run. The printed tuples are the test's GRADIENTS, SECOND
(second derivatives) and STATE literals. Run by hand:
`python tests/data/function_control_flow/generate.py` (never collected by pytest).
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

# (sample, arguments): the value and the gradients with respect to the float arguments.
GRADIENTS = [
    ("cond_of_two", [3.0, 2.0]), ("cond_of_two", [1.0, 2.0]),
    ("affine_loop", [1.5, 2.0, 0.5, 3]), ("affine_loop", [1.5, 2.0, 0.5, 0]),
    ("affine_loop", [-0.7, 1.25, 2.0, 5]),
    ("cond_in_loop", [1.5, 2.0]), ("cond_in_loop", [2.5, 0.5]), ("cond_in_loop", [0.8, 3.0]),
    ("parity_loop", [1.5, 4]), ("parity_loop", [1.5, 1]), ("parity_loop", [1.5, 0]),
    ("loop_in_loop", [1.1]), ("loop_in_loop", [0.7]),
    ("loop_in_cond", [1.5]), ("loop_in_cond", [0.5]),
    ("cond_in_cond", [1.5, 2.0]), ("cond_in_cond", [1.5, -2.0]), ("cond_in_cond", [-1.0, 3.0]),
    ("capped_loop", [2.0]), ("capped_loop", [20.0]), ("frozen_loop", [2.0]),
    ("tensor_array_loop", [[1.0, 2.0, 3.0]]),
    ("variable_loop", [("var", 2.0), 1.0]),
    ("converted_if_and_while", [3.0]), ("converted_if_and_while", [-2.0]),
    ("converted_if_and_while", [0.5]),
    ("converted_for", [[1.0, -2.0, 0.5]]),
]

# (sample, argument): the value, the first and the second derivative.
SECOND = [("cubic_cond", 2.0), ("cubic_cond", -1.0)]

# (sample, arguments): the results, the variable argument an int32 resource variable.
STATE = [
    ("assign_in_if_in_loop", [("var", 0), 6]), ("assign_in_if_in_loop", [("var", 5), 3]),
    ("read_then_assign_in_branch", [("var", 1), 4]),
    ("assign_in_nested_loops", [("var", 0), 3]),
    ("assign_in_if", [("var", 1.0), 3.0]), ("assign_in_if", [("var", 1.0), -1.0]),
]


def main() -> None:
    import numpy as np
    import tensorflow as tf

    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    text = (Path(__file__).parents[2] / "api" / "test_function_control_flow.py").read_text()
    samples = text.split("# --- samples ---\n")[1].split("# --- end samples ---")[0]
    folder = tempfile.mkdtemp()
    (Path(folder) / "function_control_flow_samples.py").write_text(
        "import tensorflow as tf\n" + samples)
    sys.path.insert(0, folder)
    module = importlib.import_module("function_control_flow_samples")

    def run(name: str, args: list, differentiate: bool) -> list:
        with tf.Graph().as_default():
            inputs, feeds = [], {}
            for arg in args:
                if isinstance(arg, tuple):
                    inputs.append(tf1.Variable(arg[1], use_resource=True))
                    continue
                value = np.array(arg)
                value = value.astype(np.float32 if value.dtype.kind == "f" else np.int32)
                placeholder = tf1.placeholder(value.dtype, value.shape)
                feeds[placeholder] = value
                inputs.append(placeholder)
            out = tf.function(getattr(module, name))(*inputs)
            fetches = [out]
            if differentiate:
                floats = [t for t in inputs if t.dtype.base_dtype == tf.float32]
                fetches.append(tf.gradients(out, floats))
            with tf1.Session() as sess:
                sess.run(tf1.global_variables_initializer())
                return sess.run(fetches, feeds)

    def plain(value: object) -> object:
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return np.asarray(value).tolist()

    for name, args in GRADIENTS:
        value, grads = run(name, args, True)
        print(repr((name, args, plain(value), plain(grads))) + ",")
    for name, arg in SECOND:
        with tf.Graph().as_default():
            x = tf1.placeholder(tf.float32, [])
            y = tf.function(getattr(module, name))(x)
            first = tf.gradients(y, x)[0]
            with tf1.Session() as sess:
                found = sess.run([y, first, tf.gradients(first, x)[0]], {x: arg})
        print(repr((name, arg, plain(found))) + ",")
    for name, args in STATE:
        (value,) = run(name, args, False)
        print(repr((name, args, plain(value))) + ",")


if __name__ == "__main__":
    main()
