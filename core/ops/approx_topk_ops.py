"""Op schema: ApproxTopK (TensorFlow's tpu_ops / approx_topk op definition).

`ApproxTopK(input)` gives the k largest (`is_max_k`) or smallest entries along
`reduction_dimension` with their int32 indices; `recall_target`,
`reduction_input_size_override` and `aggregate_to_topk` tune the accelerators'
approximate search and leave the CPU result exact. The shape function is TensorFlow's:
rank at least 1, the reduction dimension within [-rank, rank - 1], its size at least k,
recall_target in (0, 1]; both outputs are the input's shape with that dimension k.
"""

from __future__ import annotations

from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext


def _approx_top_k_shape(ctx: ShapeContext) -> list[Shape]:
    k, dim = ctx.attrs["k"], ctx.attrs.get("reduction_dimension", -1)
    recall = ctx.attrs.get("recall_target", 0.95)
    if not 0 < recall <= 1:
        raise ctx.error(f"Invalid recall target: {recall:g}. Valid value range in : [0, 1.0].")
    data = ctx.input_shapes[0]
    if data is None:
        return [None, None]
    rank = len(data)
    if rank < 1:
        raise ctx.error(f"Shape must be at least rank 1 but is rank {rank}")
    if not -rank <= dim < rank:
        raise ctx.error(f"Invalid reduction dimension: {dim}. Must be within the range of "
                        f"[{-rank}, {rank - 1}]")
    dim %= rank
    if data[dim] is not None and data[dim] < k:
        raise ctx.error(f"input must have last dimension >= k = {k} but was {data[dim]}")
    out = data[:dim] + (k,) + data[dim + 1:]
    return [out, out]


(register_op("ApproxTopK").input("input: T").output("values: T").output("indices: int32")
    .attr("k: int >= 0").attr("reduction_dimension: int = -1")
    .attr("recall_target: float = 0.95").attr("is_max_k: bool = true")
    .attr("reduction_input_size_override: int = -1").attr("aggregate_to_topk: bool = true")
    .attr("T: {half, bfloat16, float}").shape(_approx_top_k_shape))
