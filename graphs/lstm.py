"""An LSTM language model whose time steps are a `while_loop`.

`ids` (int32 [batch, steps]) are embedded; the loop runs one LSTM cell per
step (one MatMul over [x_t, h] for the four gates), predicts the next word
from h and adds the step's cross-entropy against `targets` (int32 [batch,
steps]) to a running sum carried as a loop variable. `loss` is the mean over
the steps; `predictions` and `accuracy` are for the last step. The gradient of
the loop is the reverse loop with the forward values on stacks.
"""

from __future__ import annotations

import tfx as tf
from tfx.graphs._layers import optimizer


def build(vocabulary: int = 50, embedding: int = 16, hidden: int = 32, steps: int = 10,
          learning_rate: float = 0.05, opt: str = "adam", seed: int = 0) -> dict:
    """The model. Returns the named nodes: inputs, predictions, loss, accuracy, train, init."""
    tf.set_random_seed(seed)
    ids = tf.placeholder(tf.int32, [None, steps], name="ids")
    targets = tf.placeholder(tf.int32, [None, steps], name="targets")
    table = tf.Variable(tf.random_uniform([vocabulary, embedding], -0.1, 0.1), name="embedding")
    with tf.name_scope("lstm"):
        W = tf.Variable(tf.truncated_normal([embedding + hidden, 4 * hidden],
                                            stddev=(1.0 / (embedding + hidden)) ** 0.5), name="W")
        b = tf.Variable(tf.zeros([4 * hidden]), name="b")
    with tf.name_scope("softmax"):
        W_out = tf.Variable(tf.truncated_normal([hidden, vocabulary], stddev=hidden**-0.5),
                            name="W")
        b_out = tf.Variable(tf.zeros([vocabulary]), name="b")
    inputs = tf.transpose(tf.nn.embedding_lookup(table, ids), [1, 0, 2])  # [steps, batch, emb]
    labels = tf.transpose(targets)  # [steps, batch]
    batch = tf.shape(ids)[0]
    zeros = tf.zeros(tf.stack([batch, hidden]))

    def step(t: tf.Tensor, c: tf.Tensor, h: tf.Tensor, total: tf.Tensor) -> tuple:
        x = tf.gather(inputs, t)
        gates = tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), W), b)
        i, j, f, o = tf.split(gates, 4, axis=1)
        c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(j)
        h = tf.sigmoid(o) * tf.tanh(c)
        logits = tf.nn.bias_add(tf.matmul(h, W_out), b_out)
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.gather(labels, t),
                                                              logits=logits)
        return t + 1, c, h, total + tf.reduce_mean(xent)

    _, _, h, total = tf.while_loop(
        lambda t, c, h, total: t < steps, step, [tf.constant(0), zeros, zeros, tf.constant(0.0)],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, hidden]),
                          tf.TensorShape([None, hidden]), tf.TensorShape([])])
    loss = tf.divide(total, float(steps), name="loss")
    logits = tf.nn.bias_add(tf.matmul(h, W_out), b_out)
    predictions = tf.nn.softmax(logits, name="predictions")
    last = targets[:, steps - 1]
    correct = tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), last)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    train = optimizer(opt, learning_rate).minimize(
        loss, global_step=tf.train.get_or_create_global_step())
    return {"inputs": [ids, targets], "predictions": predictions, "loss": loss,
            "accuracy": accuracy, "train": train, "init": tf.global_variables_initializer()}
