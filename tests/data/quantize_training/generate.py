"""Write TensorFlow 2.21's do_quantize_training_on_graphdef on five graphs: for each case
`<case>.input.pb` (the GraphDef given) and `<case>.tf.pb` (TensorFlow's result), and in
errors.json the errors TensorFlow raised ([type, message]).

Run with TensorFlow 2.21 installed: `python tests/data/quantize_training/generate.py`.
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()

    def matmul():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w = tf.Variable(tf.ones([3, 4]), name="w", use_resource=False)
        tf.nn.relu(tf.matmul(x, w, name="mm"), name="r")

    def saver():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w = tf.Variable(tf.ones([3, 4]), name="w", use_resource=False)
        y = tf.nn.relu6(tf.matmul(x, w, name="mm"))
        tf.matmul(y, tf.ones([4, 2]), name="mm2")
        tf.train.Saver()

    def rules():
        a = tf.placeholder(tf.float32, [2, 2], name="a")
        s, t = tf.nn.sigmoid(a), tf.tanh(a)
        r, i = tf.reshape(tf.nn.relu(a), [2, 2]), tf.identity(t)
        tf.matmul(s, t, name="m1")
        tf.matmul(r, i, name="m2")
        tf.matmul(i, i, name="m3")
        with tf.name_scope("gradients"):
            tf.matmul(a, a, name="gm")
        tf.matmul(tf.concat([tf.nn.relu(a), a], 1), tf.ones([4, 2]), name="m4")
        pooled = tf.nn.max_pool(tf.reshape(tf.nn.relu6(a), [1, 2, 2, 1]), [1, 1, 1, 1],
                                [1, 1, 1, 1], "SAME")
        tf.nn.conv2d(pooled, tf.ones([1, 1, 1, 1]), [1, 1, 1, 1], "SAME", name="conv")

    def controls():
        a = tf.placeholder(tf.float32, [2, 2], name="a")
        first, second = tf.no_op(name="z_first"), tf.no_op(name="a_second")
        with tf.control_dependencies([first, second]):
            tf.matmul(a, tf.constant([[1.0, 2.0], [3.0, 4.0]]), name="mm")
        tf.train.Saver(var_list=[tf.Variable(1.0, name="v", use_resource=False)])

    def unknown():
        a = tf.placeholder(tf.float32, [2, 2], name="a")
        b, c, d = tf.square(a, name="sq"), tf.exp(a, name="ex"), tf.sin(a, name="si")
        tf.matmul(b, c, name="m1")
        tf.matmul(d, b, name="m2")

    errors = {}
    for build, bits in ((matmul, 8), (saver, 3), (rules, 8), (controls, 8), (unknown, 8)):
        graph = tf.Graph()
        with graph.as_default():
            build()
        graph_def = graph.as_graph_def()
        (HERE / f"{build.__name__}.input.pb").write_bytes(graph_def.SerializeToString())
        try:
            result = tf.train.do_quantize_training_on_graphdef(graph_def, bits)
        except Exception as exc:  # noqa: BLE001 - recorded as TensorFlow raised it
            errors[build.__name__] = [type(exc).__name__, str(exc)]
            continue
        (HERE / f"{build.__name__}.tf.pb").write_bytes(result.SerializeToString())
    for bits in (0, 64):
        try:
            tf.train.do_quantize_training_on_graphdef(graph_def, bits)
        except Exception as exc:  # noqa: BLE001
            errors[f"num_bits={bits}"] = [type(exc).__name__, str(exc)]
    (HERE / "errors.json").write_text(json.dumps(errors, indent=1) + "\n")


if __name__ == "__main__":
    main()
