"""tf.bitwise: TensorFlow 1.x's bitwise functions on integer tensors.

Each function builds one op (`BitwiseAnd`, `BitwiseOr`, `BitwiseXor`, `Invert`,
`LeftShift`, `RightShift`) on int8/16/32/64 or uint8/16/32/64 tensors; the binary ones
broadcast. The shifts follow TensorFlow's definition for every shift amount: the amount is
clamped to [0, bits - 1] (a negative amount shifts by 0, one of the bit width or more by
bits - 1), a left shift wraps, and a right shift of a signed value is arithmetic.

`__all__` lists exactly tf.compat.v1.bitwise's names.
"""

from __future__ import annotations

from typing import Any

from tfx.core.api.graph_builder import Tensor
from tfx.core.api.ops_api import apply_op

__all__ = [
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "invert",
    "left_shift",
    "right_shift",
]


def bitwise_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The bitwise AND of `x` and `y`, broadcast (`BitwiseAnd`).

    Args:
        x: An integer tensor.
        y: A tensor of `x`'s type.
        name: A name for the op.

    Returns:
        A tensor of `x`'s type.

    Example:
        >>> tf.bitwise.bitwise_and([12, -1], [10, 7])  # [8, 7]
    """
    return apply_op("BitwiseAnd", x=x, y=y, name=name)


def bitwise_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The bitwise OR of `x` and `y`, broadcast (`BitwiseOr`).

    Args:
        x: An integer tensor.
        y: A tensor of `x`'s type.
        name: A name for the op.

    Returns:
        A tensor of `x`'s type.

    Example:
        >>> tf.bitwise.bitwise_or([12, -1], [10, 7])  # [14, -1]
    """
    return apply_op("BitwiseOr", x=x, y=y, name=name)


def bitwise_xor(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The bitwise exclusive OR of `x` and `y`, broadcast (`BitwiseXor`).

    Args:
        x: An integer tensor.
        y: A tensor of `x`'s type.
        name: A name for the op.

    Returns:
        A tensor of `x`'s type.

    Example:
        >>> tf.bitwise.bitwise_xor([12, -1], [10, 7])  # [6, -8]
    """
    return apply_op("BitwiseXor", x=x, y=y, name=name)


def invert(x: Any, name: str | None = None) -> Tensor:
    """Every bit of `x` flipped (`Invert`): -x - 1 for signed types, max - x for unsigned.

    Args:
        x: An integer tensor.
        name: A name for the op.

    Returns:
        A tensor of `x`'s type.

    Example:
        >>> tf.bitwise.invert(tf.constant([0, 5, 255], tf.uint8))  # [255, 250, 0]
    """
    return apply_op("Invert", x=x, name=name)


def left_shift(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`x` shifted left by `y` bits, broadcast (`LeftShift`).

    The shift is clamped to [0, bits - 1] and the bits shifted out are lost.

    Args:
        x: An integer tensor.
        y: The shift amounts, a tensor of `x`'s type.
        name: A name for the op.

    Returns:
        A tensor of `x`'s type.

    Example:
        >>> tf.bitwise.left_shift(tf.constant([1, 5], tf.int8), tf.constant([3, 7], tf.int8))
        ... # [8, -128]
    """
    return apply_op("LeftShift", x=x, y=y, name=name)


def right_shift(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`x` shifted right by `y` bits, broadcast (`RightShift`).

    The shift is clamped to [0, bits - 1]; a signed `x` keeps its sign (arithmetic shift).

    Args:
        x: An integer tensor.
        y: The shift amounts, a tensor of `x`'s type.
        name: A name for the op.

    Returns:
        A tensor of `x`'s type.

    Example:
        >>> tf.bitwise.right_shift([-100, 64], [3, 1])  # [-13, 32]
    """
    return apply_op("RightShift", x=x, y=y, name=name)
