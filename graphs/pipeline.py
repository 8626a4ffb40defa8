"""The seed paper's Figure 2: input queue, preprocessing, training, periodic checkpoints.

Examples are fed to `raw_x`/`raw_y` and `enqueue` puts them on an input
queue (as a reader subgraph would); `train` dequeues a batch, standardizes it
(preprocessing), runs one step of the MLP and increments `global_step`;
`checkpoint` is a conditional subgraph that writes a V2 checkpoint to
`checkpoint_prefix` when the step is a multiple of `checkpoint_every` (an
empty string otherwise). A `train.Saver` under "save/" restores from it.
"""

from __future__ import annotations

import numpy as np

import tfx as tf
from tfx.core.api.ops_api import apply_op_raw
from tfx.graphs._layers import classifier_head, dense, optimizer


def _periodic_checkpoint(variables: list, step: tf.Tensor, every: int, prefix: str) -> tf.Tensor:
    names = [v.op.name for v in variables]

    def save() -> tf.Tensor:
        path = tf.constant(prefix)
        written = apply_op_raw(
            "SaveV2", prefix=path,
            tensor_names=tf.constant(np.array(names, dtype=object), tf.string),
            shape_and_slices=tf.constant(np.array([""] * len(names), dtype=object), tf.string),
            tensors=[v.value() for v in variables])
        with tf.control_dependencies([written]):
            return tf.identity(path)

    due = tf.equal(step % tf.cast(every, step.dtype), 0)
    return tf.cond(due, save, lambda: tf.constant(""), name="checkpoint_cond")


def build(inputs: int = 64, hidden: int = 100, classes: int = 10, batch_size: int = 32,
          capacity: int = 2000, learning_rate: float = 0.1, opt: str = "sgd",
          checkpoint_every: int = 100, checkpoint_prefix: str = "pipeline_ckpt/model",
          seed: int = 0) -> dict:
    """The pipeline. Named nodes: inputs, enqueue, queue_size, loss, accuracy, train, checkpoint,
    init."""
    tf.set_random_seed(seed)
    raw_x = tf.placeholder(tf.float32, [None, inputs], name="raw_x")
    raw_y = tf.placeholder(tf.int32, [None], name="raw_y")
    with tf.name_scope("input"):
        queue = tf.FIFOQueue(capacity, [tf.float32, tf.int32], shapes=[[inputs], []],
                             name="examples")
        enqueue = queue.enqueue_many([raw_x, raw_y])
        queue_size = queue.size()
        x, y = queue.dequeue_many(batch_size)
    with tf.name_scope("preprocess"):
        mean = tf.reduce_mean(x, axis=1, keepdims=True)
        std = tf.sqrt(tf.reduce_mean(tf.square(x - mean), axis=1, keepdims=True) + 1e-6)
        x = (x - mean) / std
    relu = dense(x, hidden, "hidden", tf.nn.relu)
    logits = dense(relu, classes, "logits_layer")
    head = classifier_head(logits, y, optimizer(opt, learning_rate))
    step = tf.train.get_global_step()
    variables = tf.global_variables()
    with tf.control_dependencies([head["train"]]):
        checkpoint = _periodic_checkpoint(variables, step.read_value(), checkpoint_every,
                                          checkpoint_prefix)
    tf.train.Saver(variables)
    return {"inputs": [raw_x, raw_y], "enqueue": enqueue, "queue_size": queue_size,
            **head, "checkpoint": checkpoint}
