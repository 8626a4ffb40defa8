"""A LeNet-style CNN: two convolution + max-pool stages, two dense layers, softmax.

Input `x` is float32 [batch, size, size, channels] (NHWC); `y` the int32 class
ids. SAME padding keeps small images (8x8 digits, the default) usable.
"""

from __future__ import annotations

import tfx as tf
from tfx.graphs._layers import classifier_head, dense, optimizer


def _conv(x: tf.Tensor, filters: int, name: str, seed: int) -> tf.Tensor:
    channels = x.shape.as_list()[-1]
    with tf.name_scope(name):
        kernel = tf.Variable(tf.truncated_normal([5, 5, channels, filters],
                                                 stddev=(2.0 / (25 * channels)) ** 0.5,
                                                 seed=seed), name="kernel")
        bias = tf.Variable(tf.zeros([filters]), name="bias")
        conv = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, kernel, [1, 1, 1, 1], "SAME"), bias))
        return tf.nn.max_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")


def build(size: int = 8, channels: int = 1, classes: int = 10, conv1: int = 6,
          conv2: int = 16, fc1: int = 120, fc2: int = 84, learning_rate: float = 0.01,
          opt: str = "adam", seed: int = 0) -> dict:
    """The CNN. Returns the named nodes: inputs, predictions, loss, accuracy, train, init."""
    tf.set_random_seed(seed)
    x = tf.placeholder(tf.float32, [None, size, size, channels], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    h = _conv(_conv(x, conv1, "conv1", seed), conv2, "conv2", seed + 1)
    flat = tf.reshape(h, [-1, h.shape[1] * h.shape[2] * h.shape[3]])
    h = dense(flat, fc1, "fc1", tf.nn.relu)
    h = dense(h, fc2, "fc2", tf.nn.relu)
    logits = dense(h, classes, "logits_layer")
    return {"inputs": [x, y], **classifier_head(logits, y, optimizer(opt, learning_rate))}
