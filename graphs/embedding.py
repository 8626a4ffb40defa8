"""The seed paper's Figure 4: an embedding table sharded across parameter tasks.

`ids` (int32 [batch, words]) are looked up in `shards` pieces of the table
(`DynamicPartition` by id mod shards, a `Gather` per shard on its own device,
`DynamicStitch` back in order), averaged per example and classified. The
gradient reaches each shard as IndexedSlices, so Adagrad updates only the rows
that were looked up. With `ps_tasks=N` the shards are placed round-robin on
`/job:ps/task:0..N-1` and the rest on `/job:worker`; with 0 (the default) the
graph runs in one process.
"""

from __future__ import annotations

import tfx as tf
from tfx.graphs._layers import classifier_head, dense, optimizer


def build(vocabulary: int = 1000, dim: int = 16, shards: int = 4, words: int = 8,
          classes: int = 2, ps_tasks: int = 0, learning_rate: float = 0.5,
          opt: str = "adagrad", seed: int = 0) -> dict:
    """The model. Returns the named nodes: inputs, predictions, loss, accuracy, train, init."""
    tf.set_random_seed(seed)
    rows = [vocabulary // shards + (1 if i < vocabulary % shards else 0) for i in range(shards)]
    params = []
    for i, count in enumerate(rows):
        with tf.device(f"/job:ps/task:{i % ps_tasks}" if ps_tasks else None):
            params.append(tf.Variable(tf.random_uniform([count, dim], -0.1, 0.1),
                                      name=f"embedding/shard_{i}"))
    with tf.device("/job:worker/task:0" if ps_tasks else None):
        ids = tf.placeholder(tf.int32, [None, words], name="ids")
        y = tf.placeholder(tf.int32, [None], name="y")
        embedded = tf.nn.embedding_lookup(params, ids, partition_strategy="mod")
        features = tf.reduce_mean(embedded, axis=1)
        logits = dense(features, classes, "logits_layer")
        head = classifier_head(logits, y, optimizer(opt, learning_rate))
    return {"inputs": [ids, y], **head}
