"""Op schema: RandomIndexShuffle (TensorFlow's stateless_random_ops_v2.cc).

`RandomIndexShuffle(index, seed, max_index)` gives the position of each `index` in a
pseudorandom permutation of [0, max_index] chosen by a three-word `seed`; `rounds` (the
cipher's rounds, an even number >= 4) trades time for randomness. `index` and `max_index`
are scalars or vectors of one length n, `seed` is [3] or [n, 3]; the output is a scalar
when all three are scalar-like (seed [3]) and [n] otherwise. The op is stateless.
"""

from __future__ import annotations

from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext

_INDEX_TYPES = "{int32, uint32, int64, uint64}"


def _shuffle_shape(ctx: ShapeContext) -> list[Shape]:
    index, seed, max_index = ctx.input_shapes
    for shape in (index, max_index):
        if shape is not None and len(shape) > 1:
            raise ctx.error(f"Shape must be at most rank 1 but is rank {len(shape)}")
    if seed is not None and not (len(seed) in (1, 2) and seed[-1] in (None, 3)):
        raise ctx.error(f"Seed must have shape [3] or [n, 3] but got "
                        f"[{', '.join('?' if d is None else str(d) for d in seed)}].")
    if index is None:
        return [None]
    if not index:
        rows = seed[0] if seed is not None and len(seed) == 2 else None
        if seed is not None and len(seed) == 2:
            return [(rows,)]
        if max_index is not None and len(max_index) == 1:
            return [(max_index[0],)]
        return [() if seed is not None and max_index is not None else None]
    n = index[0]
    if seed is not None and len(seed) == 2 and None not in (n, seed[0]) and seed[0] != n:
        raise ctx.error(f"Seed has shape [{seed[0]}, 3] but must have shape [{n}, 3]. "
                        f"since index had shape [{n}].")
    if (max_index is not None and len(max_index) == 1 and None not in (n, max_index[0])
            and max_index[0] != n):
        raise ctx.error(f"Max index has shape [{max_index[0]}] but must have shape [{n}].")
    return [(n,)]


(register_op("RandomIndexShuffle").input("index: dtype").input("seed: Tseed")
    .input("max_index: dtype").output("output: dtype").attr("rounds: int = 4")
    .attr(f"dtype: {_INDEX_TYPES}").attr(f"Tseed: {_INDEX_TYPES}")
    .shape(_shuffle_shape))
