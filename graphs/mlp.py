"""The seed paper's Figure 1: a ReLU hidden layer and a softmax classifier.

Inputs `x` (float32 [batch, inputs]) and `y` (int32 class ids); the defaults fit
8x8 digit images flattened to 64 values. Build with `tfx build mlp -o mlp.pb`.
"""

from __future__ import annotations

import tfx as tf
from tfx.graphs._layers import classifier_head, dense, optimizer


def build(inputs: int = 64, hidden: int = 100, classes: int = 10,
          learning_rate: float = 0.1, opt: str = "sgd", seed: int = 0) -> dict:
    """The MLP. Returns the named nodes: inputs, predictions, loss, accuracy, train, init."""
    tf.set_random_seed(seed)
    x = tf.placeholder(tf.float32, [None, inputs], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    relu = dense(x, hidden, "hidden", tf.nn.relu)
    logits = dense(relu, classes, "logits_layer")
    return {"inputs": [x, y], **classifier_head(logits, y, optimizer(opt, learning_rate))}
