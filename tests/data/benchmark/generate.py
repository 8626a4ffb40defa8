"""Write step_stats.json: TensorFlow 2.21 StepStats of three traced runs and the per-allocator
peak bytes TensorFlow's timeline finds in them (what tf.test.Benchmark.run_op_benchmark
reports as allocator_maximum_num_bytes_*).

Run with TensorFlow 2.21 installed: `python tests/data/benchmark/generate.py`.
"""

import json
from pathlib import Path

import numpy as np


def main() -> None:
    import tensorflow.compat.v1 as tf
    from tensorflow.python.client import timeline

    tf.disable_eager_execution()

    def chain():
        x = tf.placeholder(tf.float32, [100])
        return x * 2.0 + 1.0, {x: np.ones(100, np.float32)}

    def matmul():
        x = tf.placeholder(tf.float32, [64, 64])
        y = tf.matmul(x, x)
        return [tf.nn.relu(y) + tf.reduce_sum(y, 0), tf.split(y, 4, axis=1)], {
            x: np.ones((64, 64), np.float32)}

    def fan_in():
        x = tf.placeholder(tf.float32, [1000])
        total = tf.add_n([tf.sin(x), tf.cos(x), tf.exp(x)])
        return total * tf.reduce_mean(x), {x: np.arange(1000, dtype=np.float32)}

    cases = []
    for build in (chain, matmul, fan_in):
        with tf.Graph().as_default():
            fetch, feed = build()
            with tf.Session() as sess:
                metadata = tf.RunMetadata()
                sess.run(fetch, feed_dict=feed, run_metadata=metadata,
                         options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
        analysis = timeline.Timeline(metadata.step_stats).analyze_step_stats(show_memory=True)
        cases.append({"name": build.__name__,
                      "step_stats": metadata.step_stats.SerializeToString().hex(),
                      "allocator_maximums": {k: v.num_bytes for k, v in
                                             analysis.allocator_maximums.items()}})
    out = Path(__file__).resolve().parent / "step_stats.json"
    out.write_text(json.dumps(cases, indent=1) + "\n")


if __name__ == "__main__":
    main()
