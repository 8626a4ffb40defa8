"""tf.random_index_shuffle: TensorFlow 1.x's RandomIndexShuffle op (compat.v1 top level).

A stateless, seeded permutation of [0, max_index] read one index at a time, so a huge
range can be shuffled without materializing it (see kernels/cpu/random_index.py for the
cipher). The op has no gradient.
"""

from __future__ import annotations

from typing import Any

from tfx.core.api.gradients import NotDifferentiable
from tfx.core.api.graph_builder import Tensor
from tfx.core.api.ops_api import apply_op

__all__ = ["random_index_shuffle"]

NotDifferentiable("RandomIndexShuffle")


def random_index_shuffle(index: Any, seed: Any, max_index: Any, rounds: int = 4,
                         name: str | None = None) -> Tensor:
    """The position of `index` in a pseudorandom permutation of [0, max_index].

    For a fixed `seed` and `max_index`, the map from every index in [0, max_index] to its
    result is a bijection, so `random_index_shuffle(tf.range(n), seed, n - 1)` is a
    permutation of range(n); the values are TensorFlow's, bit for bit.

    Args:
        index: A scalar or vector of int32, uint32, int64 or uint64, each in
            [0, max_index].
        seed: Three integers ([3]), or one row of three per index ([n, 3]), of any of
            those types.
        max_index: A scalar, or a vector of one per index, of `index`'s type.
        rounds: The cipher's rounds, an even number >= 4 (more: better mixing of small
            ranges, linearly slower).
        name: A name for the op.

    Returns:
        A tensor of `index`'s type: a scalar when `index`, `max_index` and `seed` are
        scalars and a [3] vector, else a vector of n.

    Example:
        >>> tf.random_index_shuffle(tf.range(10), [1, 2, 3], 9)
        ... # [2, 0, 6, 4, 8, 1, 7, 9, 5, 3]
    """
    return apply_op("RandomIndexShuffle", index=index, seed=seed, max_index=max_index,
                    rounds=rounds, name=name)
