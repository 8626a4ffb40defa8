"""Checkpoint sharding policies on a few tensors, run with TensorFlow's classes
(generate.py) and with tfx's (tests/api/test_train_experimental.py): each shard as
{checkpoint key: {slice spec: the slice's value}}."""

import numpy as np


def _key(name):
    return f"{name}/.ATTRIBUTES/VARIABLE_VALUE"


def run(tf, shardable, max_size_policy, by_task_policy, device):
    out = {}
    with tf.Graph().as_default():
        a = tf.constant(np.arange(24, dtype=np.float32).reshape(4, 6))
        b = tf.constant(np.arange(10, dtype=np.int64))
        c = tf.constant(np.float64(3.5))
        d = tf.constant(np.arange(60, dtype=np.float32).reshape(3, 4, 5))
        s = tf.constant(np.array([b"abc", b"defgh"], dtype=object))
        g = tf.constant(b"graph")
        cpu = device("/cpu:0")
        items = [shardable(None, a, tf.float32, cpu, "a", a.shape, "", _key("a"), None),
                 shardable(None, b, tf.int64, cpu, "b", b.shape, "", _key("b"), None),
                 shardable(None, c, tf.float64, cpu, "c", c.shape, "", _key("c"), None),
                 shardable(None, d, tf.float32, cpu, "d", d.shape, "", _key("d"), None),
                 shardable(None, g, tf.string, cpu, "_CHECKPOINTABLE_OBJECT_GRAPH", g.shape, "",
                           "_CHECKPOINTABLE_OBJECT_GRAPH", None)]
        part = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 6))
        sliced = [shardable(None, part, tf.float32, cpu, "e", part.shape, "4 6 2,2:0,6",
                            _key("e"), None)]
        strings = [shardable(None, s, tf.string, cpu, "s", s.shape, "", _key("s"), None)]
        with tf.Session() as sess:
            def value(t):
                v = np.asarray(sess.run(t), dtype=object if t.dtype == tf.string else None)
                if t.dtype == tf.string:
                    return [x.decode() for x in v.ravel()]
                return v.tolist()

            # sizes that fit each tensor's thinnest slice (TensorFlow loops on smaller)
            for size in [48, 64, 100, 250, 1000]:
                extra = strings if size >= 64 else []
                for name, group in [("main", items + extra), ("sliced", sliced)]:
                    shards = max_size_policy(size)(group)
                    out[f"{name}_{size}"] = [
                        {key: {spec: value(t) for spec, t in slices.items()}
                         for key, slices in shard.items()} for shard in shards]
            out["by_task"] = [{key: sorted(slices) for key, slices in shard.items()}
                              for shard in by_task_policy()(items)]
    out["descriptions"] = [max_size_policy(10).description, by_task_policy().description]
    return out
