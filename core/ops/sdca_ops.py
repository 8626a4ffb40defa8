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


def _sdca_optimizer_shape(ctx: ShapeContext) -> list[Shape]:
    sparse, dense = ctx.attrs["num_sparse_features"], ctx.attrs["num_dense_features"]
    with_values = ctx.attrs["num_sparse_features_with_values"]
    shapes = ctx.input_shapes
    # inputs: example and feature indices (sparse each), values, dense features, weights,
    # labels, then the model: sparse indices and weights, dense weights, the state
    weights_at = 2 * sparse + with_values + dense + 2 + sparse
    state = shapes[weights_at + sparse + dense]
    if state is not None and len(state) != 2:
        raise ctx.error(f"Shape must be rank 2 but is rank {len(state)}")
    return [state, *shapes[weights_at:weights_at + sparse + dense]]


for _name, _adaptive in (("SdcaOptimizer", "adaptative"), ("SdcaOptimizerV2", "adaptive")):
    (register_op(_name)
        .input("sparse_example_indices: num_sparse_features * int64")
        .input("sparse_feature_indices: num_sparse_features * int64")
        .input("sparse_feature_values: num_sparse_features_with_values * float")
        .input("dense_features: num_dense_features * float")
        .input("example_weights: float").input("example_labels: float")
        .input("sparse_indices: num_sparse_features * int64")
        .input("sparse_weights: num_sparse_features * float")
        .input("dense_weights: num_dense_features * float")
        .input("example_state_data: float")
        .output("out_example_state_data: float")
        .output("out_delta_sparse_weights: num_sparse_features * float")
        .output("out_delta_dense_weights: num_dense_features * float")
        .attr("loss_type: {'logistic_loss', 'squared_loss', 'hinge_loss', "
              "'smooth_hinge_loss', 'poisson_loss'}")
        .attr(f"{_adaptive}: bool = false")
        .attr("num_sparse_features: int >= 0").attr("num_sparse_features_with_values: int >= 0")
        .attr("num_dense_features: int >= 0").attr("l1: float").attr("l2: float")
        .attr("num_loss_partitions: int >= 1").attr("num_inner_iterations: int >= 1")
        .shape(_sdca_optimizer_shape)
        .doc("One pass of stochastic dual coordinate ascent over a mini-batch: the new "
             "example state and the weight deltas."))
