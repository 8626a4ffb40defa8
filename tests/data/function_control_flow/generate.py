"""Print TensorFlow 2.21's results for the samples of tests/api/test_function_control_flow.py.

The samples (between the `# --- samples ---` markers of the test file) are written to a
temporary module importing TensorFlow as `tf` (AutoGraph needs their source). Each case runs
in a TensorFlow 1.x-style graph: `tf.function(sample)` called on placeholders (a `("var",
value)` argument is a resource variable), then a session run. The printed tuples are the
test's STATE literals. Run by hand: `python tests/data/function_control_flow/generate.py`
(never collected by pytest).
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

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

    def run(name: str, args: list) -> list:
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
            with tf1.Session() as sess:
                sess.run(tf1.global_variables_initializer())
                return sess.run(out, feeds)

    def plain(value: object) -> object:
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return np.asarray(value).tolist()

    for name, args in STATE:
        print(repr((name, args, plain(run(name, args)))) + ",")


if __name__ == "__main__":
    main()
