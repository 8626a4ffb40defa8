"""`tf.train.sdca_optimizer`, `sdca_shrink_l1` and `sdca_fprint`: stochastic dual
coordinate ascent (SDCA) over a mini-batch, its L1 shrinkage step on a list of variables,
and its example ids.

    out = tf.train.sdca_optimizer(..., loss_type="logistic_loss", l1=0.0, l2=1.0,
                                  num_loss_partitions=1, num_inner_iterations=1)
    out.out_example_state_data, out.out_delta_sparse_weights, out.out_delta_dense_weights
    tf.train.sdca_shrink_l1([w1, w2], l1=0.1, l2=1.0)   # w = sign(w) * max(|w| - 0.1, 0)
    tf.train.sdca_fprint(["a", "b"])                    # int64 [2, 2] fingerprints
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

from tfx.core.api.graph_builder import Operation, Tensor
from tfx.core.api.ops_api import apply_op
from tfx.core.api.state_api import ResourceVariable, Variable

__all__ = ["sdca_fprint", "sdca_optimizer", "sdca_shrink_l1"]


def sdca_shrink_l1(weights: Sequence[Variable], l1: float, l2: float,
                   name: str | None = None) -> Operation:
    """The op that shrinks every float32 variable of `weights` by l1 / l2 towards zero.

    Args:
        weights: reference (not resource) float32 variables.
        l1, l2: the regularization strengths (shrinkage l1 / l2).
        name: the op name (default "SdcaShrinkL1").

    Raises:
        TypeError: a weight that is not a float32 reference variable.
    """
    refs = []
    for w in weights:
        if not isinstance(w, Variable) or isinstance(w, ResourceVariable):
            raise TypeError(f"sdca_shrink_l1: {w!r} is not a reference variable")
        refs.append(w._ref())
    return apply_op("SdcaShrinkL1", weights=refs, l1=float(l1), l2=float(l2), name=name)


def sdca_fprint(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The 128-bit FarmHash fingerprint of each string of a vector, int64 [N, 2] (the low
    64 bits, kept clear of 0 and 1, then the high 64 bits), as TensorFlow's.

    Args:
        input: a string vector.
        name: the op name (default "SdcaFprint").

    Example:
        >>> tf.train.sdca_fprint(["abc"])   # [[4143508125394299908, -6879828354153669051]]
    """
    return apply_op("SdcaFprint", input=input, name=name)


SdcaOptimizerOutput = namedtuple(
    "SdcaOptimizer", ["out_example_state_data", "out_delta_sparse_weights",
                      "out_delta_dense_weights"])


def sdca_optimizer(sparse_example_indices: Sequence[Any], sparse_feature_indices: Sequence[Any],
                   sparse_feature_values: Sequence[Any], dense_features: Sequence[Any],
                   example_weights: Any, example_labels: Any, sparse_indices: Sequence[Any],
                   sparse_weights: Sequence[Any], dense_weights: Sequence[Any],
                   example_state_data: Any, loss_type: str, l1: float, l2: float,
                   num_loss_partitions: int, num_inner_iterations: int,
                   adaptative: bool = True, name: str | None = None) -> SdcaOptimizerOutput:
    """One SDCA pass over a mini-batch (the SdcaOptimizer op; kernels/cpu/sdca_optimizer.py
    says how), as TensorFlow's: examples visit in a random order (by importance with
    `adaptative`), so batches whose examples share features vary run to run.

    Args:
        sparse_example_indices, sparse_feature_indices: per sparse feature group, int64
            vectors: the example (sorted) and feature id of each entry.
        sparse_feature_values: float vectors of the first groups' values (others 1.0).
        dense_features: per dense group, a float [examples, features] matrix.
        example_weights, example_labels: float [examples].
        sparse_indices, sparse_weights: per sparse group, the feature ids and weights.
        dense_weights: per dense group, its weights.
        example_state_data: float [examples, 4]: dual, primal loss, dual loss, weight.
        loss_type: logistic_loss, squared_loss, hinge_loss, smooth_hinge_loss or
            poisson_loss.
        l1, l2: the regularization strengths.
        num_loss_partitions: partitions of the loss (CoCoA+ scaling), >= 1.
        num_inner_iterations: kept for TensorFlow's signature (the kernel uses none).
        adaptative: sample examples by importance.
        name: the op name (default "SdcaOptimizer").

    Returns:
        (out_example_state_data, out_delta_sparse_weights, out_delta_dense_weights).
    """
    outputs = apply_op(
        "SdcaOptimizer", sparse_example_indices=list(sparse_example_indices),
        sparse_feature_indices=list(sparse_feature_indices),
        sparse_feature_values=list(sparse_feature_values),
        dense_features=list(dense_features), example_weights=example_weights,
        example_labels=example_labels, sparse_indices=list(sparse_indices),
        sparse_weights=list(sparse_weights), dense_weights=list(dense_weights),
        example_state_data=example_state_data, loss_type=loss_type, l1=float(l1),
        l2=float(l2), num_loss_partitions=int(num_loss_partitions),
        num_inner_iterations=int(num_inner_iterations), adaptative=bool(adaptative),
        name=name)
    sparse = len(list(sparse_weights))
    return SdcaOptimizerOutput(outputs[0], list(outputs[1:1 + sparse]),
                               list(outputs[1 + sparse:]))
