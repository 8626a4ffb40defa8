"""Regenerate the TensorFlow-written fixtures of partitioned tensors and Saver graphs.

    python tests/data/checkpoints/make_tf_saver_fixtures.py     # needs tensorflow

- `tf_sliced/model.ckpt.*`: SaveV2 called with slice specs, so tensors are stored in
  slices under TensorFlow's encoded slice keys: `big` (300x5 float32, three row
  slices: arange(1500)), `str` (2x2 strings, two row slices: a, bb, ccc, dddd),
  `huge` (shape [2**40 + 1, 1], two 1x1 slices: far too big to read), `whole`
  (int8 [1, 2, 3], unsliced).
- `tf_sliced_merged/model.ckpt.*`: two SaveV2 bundles joined by MergeV2Checkpoints,
  each holding slices of the same tensors, so the merged entries list the slices of
  both: `p` (10x2 float32 arange(20): rows 0-3 in the first, 4-9 in the second),
  `s` (3 strings x, yy, zzz: element 2 in the first, 0-1 in the second) and `w`
  (int32 [7, 8], whole, in the first).
- `tf_saver/`: a TensorFlow 1.x graph (`graph.pb`) with a `tf.compat.v1.train.Saver`
  over a ref variable `a` (2x3 float32, arange(6)), a resource variable `r` (int64
  [1, 2, 3], restored through an Identity) and `p`, a variable partitioned into
  three (10x2 float32, arange(20)), saved at `model.ckpt` with a relative state file.
- `tf_object/ckpt-1.*`: a TF2 `tf.train.Checkpoint` (object-based keys):
  `model/w` (2x2 float32 ones), `model/step` (int64 5), `model/txt` (b"hello").
"""

from __future__ import annotations

import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _fresh(folder: str) -> str:
    path = os.path.join(HERE, folder)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def write_sliced(tf) -> None:
    folder = _fresh("tf_sliced")
    big = np.arange(1500, dtype=np.float32).reshape(300, 5)
    strings = np.array([b"a", b"bb", b"ccc", b"dddd"], dtype=object).reshape(2, 2)
    names, specs, tensors = [], [], []
    for start, length in ((0, 100), (100, 150), (250, 50)):
        names.append("big")
        specs.append(f"300 5 {start},{length}:-")
        tensors.append(big[start:start + length])
    for row in (0, 1):
        names.append("str")
        specs.append(f"2 2 {row},1:-")
        tensors.append(strings[row:row + 1])
    for start in (0, 2**40):
        names.append("huge")
        specs.append(f"{2**40 + 1} 1 {start},1:0,1")
        tensors.append(np.ones((1, 1), np.float32))
    names.append("whole")
    specs.append("")
    tensors.append(np.array([1, 2, 3], np.int8))
    tf.raw_ops.SaveV2(prefix=os.path.join(folder, "model.ckpt"), tensor_names=names,
                      shape_and_slices=specs, tensors=[tf.constant(t) for t in tensors])


def write_sliced_merged(tf) -> None:
    folder = _fresh("tf_sliced_merged")
    p = np.arange(20, dtype=np.float32).reshape(10, 2)
    s = np.array([b"x", b"yy", b"zzz"], dtype=object)
    parts = [os.path.join(folder, "model.ckpt_temp", f"part-{i:05d}-of-00002") for i in (0, 1)]
    tf.raw_ops.SaveV2(prefix=parts[0], tensor_names=["p", "s", "w"],
                      shape_and_slices=["10 2 0,4:-", "3 2,1", ""],
                      tensors=[tf.constant(p[:4]), tf.constant(s[2:]),
                               tf.constant(np.array([7, 8], np.int32))])
    tf.raw_ops.SaveV2(prefix=parts[1], tensor_names=["p", "s"],
                      shape_and_slices=["10 2 4,6:-", "3 0,2"],
                      tensors=[tf.constant(p[4:]), tf.constant(s[:2])])
    tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=parts,
                                  destination_prefix=os.path.join(folder, "model.ckpt"))


def write_saver(tf) -> None:
    folder = _fresh("tf_saver")
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        a = v1.get_variable("a", initializer=np.arange(6, dtype=np.float32).reshape(2, 3),
                            use_resource=False)
        r = v1.get_variable("r", initializer=np.array([1, 2, 3], np.int64), use_resource=True)
        p = v1.get_variable("p", shape=[10, 2], initializer=v1.zeros_initializer(),
                            partitioner=v1.fixed_size_partitioner(3), use_resource=False)
        values = np.arange(20, dtype=np.float32).reshape(10, 2)
        parts, start = [], 0
        for part in p:
            rows = part.shape[0]
            parts.append(part.assign(values[start:start + rows]))
            start += rows
        saver = v1.train.Saver([a, r, p])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(parts)
            saver.save(sess, os.path.join(folder, "model.ckpt"), write_meta_graph=False)
        tf.io.write_graph(graph.as_graph_def(), folder, "graph.pb", as_text=False)
    del r
    # The state file holds absolute paths of this machine; keep it relative.
    state = os.path.join(folder, "checkpoint")
    with open(state) as handle:
        text = handle.read().replace(folder + os.sep, "")
    with open(state, "w") as handle:
        handle.write(text)


def write_object(tf) -> None:
    folder = _fresh("tf_object")

    class Model(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = tf.Variable(np.ones((2, 2), np.float32))
            self.step = tf.Variable(5, dtype=tf.int64)
            self.txt = tf.Variable(b"hello")

    tf.train.Checkpoint(model=Model()).write(os.path.join(folder, "ckpt-1"))


if __name__ == "__main__":
    import tensorflow as tf

    write_sliced(tf)
    write_sliced_merged(tf)
    write_saver(tf)
    write_object(tf)
