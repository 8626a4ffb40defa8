"""What the bundled models share: dense layers, classification heads, optimizers by name."""

from __future__ import annotations

from typing import Any

import tfx as tf

OPTIMIZERS = {
    "sgd": lambda lr: tf.train.GradientDescentOptimizer(lr),
    "momentum": lambda lr: tf.train.MomentumOptimizer(lr, 0.9),
    "adagrad": lambda lr: tf.train.AdagradOptimizer(lr),
    "adadelta": lambda lr: tf.train.AdadeltaOptimizer(lr),
    "rmsprop": lambda lr: tf.train.RMSPropOptimizer(lr),
    "adam": lambda lr: tf.train.AdamOptimizer(lr),
}


def optimizer(name: str, learning_rate: float) -> tf.train.Optimizer:
    """The optimizer called `name` (sgd, momentum, adagrad, adadelta, rmsprop, adam)."""
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r}; choose one of {', '.join(OPTIMIZERS)}")
    return OPTIMIZERS[name](learning_rate)


def dense(x: tf.Tensor, units: int, name: str, activation: Any = None, seed: int = 0) -> tf.Tensor:
    """activation(x @ W + b), W drawn from a truncated normal scaled by fan-in."""
    fan_in = x.shape.as_list()[-1]
    with tf.name_scope(name):
        W = tf.Variable(tf.truncated_normal([fan_in, units], stddev=(2.0 / fan_in) ** 0.5,
                                            seed=seed), name="W")
        b = tf.Variable(tf.zeros([units]), name="b")
        y = tf.nn.bias_add(tf.matmul(x, W), b)
        return activation(y) if activation is not None else y


def classifier_head(logits: tf.Tensor, labels: tf.Tensor, opt: tf.train.Optimizer) -> dict:
    """Softmax predictions, mean cross-entropy loss, accuracy, the train op and init."""
    predictions = tf.nn.softmax(logits, name="predictions")
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), name="loss")
    correct = tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), labels)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    step = tf.train.get_or_create_global_step()
    train = opt.minimize(loss, global_step=step)
    return {"predictions": predictions, "loss": loss, "accuracy": accuracy, "train": train,
            "init": tf.global_variables_initializer()}
