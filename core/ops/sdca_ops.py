"""Op schemas: SdcaShrinkL1 and SdcaFprint (TensorFlow's sdca_ops.cc).

`SdcaShrinkL1(weights)` applies the L1 shrinkage of stochastic dual coordinate ascent to
each float variable of `weights` in place: w = sign(w) * max(|w| - l1 / l2, 0).
`SdcaFprint(input)` gives each string of a vector its 128-bit FarmHash fingerprint as
two int64s (int64 [N, 2]), the example ids SDCA keys its state by.
"""

from __future__ import annotations

from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext, unknown

(register_op("SdcaShrinkL1")
    .input("weights: num_features * Ref(float)")
    .attr("num_features: int >= 0").attr("l1: float").attr("l2: float")
    .stateful().shape(unknown)
    .doc("Shrinks each weight towards zero by l1 / l2 (SDCA's L1 regularization)."))


def _fprint_shape(ctx: ShapeContext) -> list[Shape]:
    (strings,) = ctx.input_shapes
    if strings is not None and len(strings) != 1:
        raise ctx.error(f"Shape must be rank 1 but is rank {len(strings)}")
    return [(None if strings is None else strings[0], 2)]


(register_op("SdcaFprint")
    .input("input: string").output("output: int64")
    .shape(_fprint_shape)
    .doc("Each string's FarmHash Fingerprint128 as [low 64 bits, high 64 bits]."))
