"""Record TensorFlow 2.21's snapshot files and what it reads back from them.

Not a test: it needs TensorFlow. For each compression ("AUTO", "GZIP", None) it snapshots
the pipeline of `pipeline()` (TF1 graph mode) under `tf/<case>/` with an explicit
`shard_func` (component `a` modulo 2), once to write and once to read back through a
`flat_map` reader (shards in order), and writes `expected.json`:

* `cases`: case -> {"compression", "files": the files under the snapshot's hash
  directory (relative to it), "hash": TensorFlow's hash directory name, "written": the
  elements the writing pass gave, "read": those the reading pass gave};
* `metadata`: case -> the fields of its snapshot.metadata (SnapshotMetadataRecord)
  but the run's timestamp.

Elements are lists [a, b, c] with b a list and c a str (utf-8).

    cd tests/data/snapshot && python generate.py
"""

from __future__ import annotations

import json
import os
import shutil

import tensorflow as tf
from tensorflow.core.protobuf import snapshot_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
v1 = tf.compat.v1
CASES = {"auto": "AUTO", "gzip": "GZIP", "none": None}


def pipeline():
    return v1.data.Dataset.from_tensor_slices(
        ([1, 2, 3], [[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]], [b"a", b"bb", b"ccc"]))


def shard_func(a, b, c):
    return tf.cast(a % 2, tf.int64)


def reader_func(datasets):
    return datasets.flat_map(lambda shard: shard)


def run(path, compression):
    with tf.Graph().as_default():
        out = pipeline().apply(v1.data.experimental.snapshot(
            path, compression=compression, reader_func=reader_func, shard_func=shard_func))
        element = v1.data.make_one_shot_iterator(out).get_next()
        got = []
        with v1.Session() as sess:
            try:
                while True:
                    a, b, c = sess.run(element)
                    got.append([int(a), b.tolist(), c.decode()])
            except tf.errors.OutOfRangeError:
                return got


def main():
    v1.disable_eager_execution()
    root = os.path.join(HERE, "tf")
    shutil.rmtree(root, ignore_errors=True)
    expected = {"cases": {}, "metadata": {}}
    for case, compression in CASES.items():
        path = os.path.join(root, case)
        written = run(path, compression)
        read = run(path, compression)
        (hash_dir,) = os.listdir(path)
        base = os.path.join(path, hash_dir)
        files = sorted(os.path.relpath(os.path.join(r, f), base)
                       for r, _, fs in os.walk(base) for f in fs)
        expected["cases"][case] = {"compression": compression, "files": files,
                                   "hash": hash_dir, "written": written, "read": read}
        record = snapshot_pb2.SnapshotMetadataRecord()
        with open(os.path.join(base, "snapshot.metadata"), "rb") as f:
            record.ParseFromString(f.read())
        expected["metadata"][case] = {
            "graph_hash": record.graph_hash, "run_id": record.run_id,
            "version": record.version, "dtype": list(record.dtype),
            "num_elements": record.num_elements, "finalized": record.finalized}
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
