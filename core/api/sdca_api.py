"""`tf.train.sdca_shrink_l1` and `sdca_fprint`: SDCA's L1 shrinkage step on a list of
variables, and its example ids.

    tf.train.sdca_shrink_l1([w1, w2], l1=0.1, l2=1.0)   # w = sign(w) * max(|w| - 0.1, 0)
    tf.train.sdca_fprint(["a", "b"])                    # int64 [2, 2] fingerprints
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfx.core.api.graph_builder import Operation, Tensor
from tfx.core.api.ops_api import apply_op
from tfx.core.api.state_api import ResourceVariable, Variable

__all__ = ["sdca_fprint", "sdca_shrink_l1"]


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
