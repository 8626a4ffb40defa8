"""`tf.queue` (TensorFlow 1.x's `tf.compat.v1.queue`): the queue classes.

TensorFlow 2.21's `tf.compat.v1.queue` holds exactly FIFOQueue, PaddingFIFOQueue,
PriorityQueue, QueueBase and RandomShuffleQueue; tfx's are in `data_flow_api`.

    q = tf.queue.FIFOQueue(10, [tf.float32])
"""

from __future__ import annotations

from tfx.core.api.data_flow_api import (
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]
