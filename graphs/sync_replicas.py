"""The seed paper's Figure 5: synchronous data-parallel replicas with backup workers.

The batch is split across `replicas` worker replicas of the MLP (one per
`/job:worker/task:i` when `tasks=True`), which share the parameters. Each
replica computes its gradients and enqueues them on a gradient-accumulating
queue; the update takes the first `aggregate` sets to arrive (m of n: the
other replicas are backup workers), averages them, applies them once with
the optimizer, and drops the late sets so the queue is empty for the next step.
"""

from __future__ import annotations

import tfx as tf
from tfx.graphs._layers import dense, optimizer


def build(inputs: int = 64, hidden: int = 100, classes: int = 10, replicas: int = 4,
          aggregate: int = 3, learning_rate: float = 0.1, opt: str = "sgd",
          tasks: bool = False, seed: int = 0) -> dict:
    """The model. Named nodes: inputs, loss, accuracy, predictions, train, init."""
    if not 1 <= aggregate <= replicas:
        raise ValueError(f"aggregate must be between 1 and replicas ({replicas}), "
                         f"got {aggregate}")
    tf.set_random_seed(seed)
    x = tf.placeholder(tf.float32, [None, inputs], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")

    def model(features: tf.Tensor) -> tf.Tensor:
        relu = dense(features, hidden, "hidden", tf.nn.relu)
        return dense(relu, classes, "logits_layer")

    with tf.device("/job:ps/task:0" if tasks else None):
        logits = model(x)  # the parameters, and the full-batch evaluation
    variables = tf.trainable_variables()
    shapes = [v.shape.as_list() for v in variables]
    with tf.device("/job:ps/task:0" if tasks else None):
        queue = tf.FIFOQueue(replicas, [v.dtype.base for v in variables], shapes=shapes,
                             name="gradient_queue")
    xs = tf.split(x, replicas)
    ys = tf.split(y, replicas)
    enqueues = []
    losses = []
    for i in range(replicas):
        with tf.device(f"/job:worker/task:{i}" if tasks else None), tf.name_scope(f"replica_{i}"):
            h = tf.nn.relu(tf.matmul(xs[i], variables[0]) + variables[1])
            replica_logits = tf.matmul(h, variables[2]) + variables[3]
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=ys[i], logits=replica_logits))
            grads = tf.gradients(loss, variables)
            enqueues.append(queue.enqueue(grads))
            losses.append(loss)
    with tf.device("/job:ps/task:0" if tasks else None), tf.name_scope("aggregate"):
        with tf.control_dependencies(enqueues):
            taken = queue.dequeue_many(aggregate)
        taken = taken if isinstance(taken, list) else [taken]
        averaged = [tf.reduce_mean(g, axis=0) for g in taken]
        step = tf.train.get_or_create_global_step()
        apply = optimizer(opt, learning_rate).apply_gradients(zip(averaged, variables),
                                                              global_step=step)
        late = [apply]
        if replicas > aggregate:
            with tf.control_dependencies([apply]):
                late.append(queue.dequeue_many(replicas - aggregate)[0].op)
    predictions = tf.nn.softmax(logits, name="predictions")
    correct = tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y)
    return {"inputs": [x, y], "predictions": predictions,
            "loss": tf.add_n(losses) / float(replicas),
            "accuracy": tf.reduce_mean(tf.cast(correct, tf.float32)),
            "train": tf.group(*late), "init": tf.global_variables_initializer()}
