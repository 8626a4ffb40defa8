"""Einsum equations as TensorFlow parses them (its `core/util/einsum_op_util.cc`).

Shared by the Einsum schema's shape function and its kernels, so both reject a bad
equation with TensorFlow's words. A label is any single character but `,` `.` and the
`->` arrow (TensorFlow accepts digits and spaces as labels); `...` stands for the
broadcast dims, at most once per subscript.
"""

from __future__ import annotations

from tfx.core.errors import InvalidArgumentError

ELLIPSIS = "..."


def split_equation(equation: str) -> tuple[list[str], str]:
    """The input subscripts (one or two) and the output subscript of `equation`."""
    parts = equation.split("->")
    if len(parts) != 2:
        raise InvalidArgumentError(f"Expecting exactly one '->' in einsum equation: {equation}")
    inputs = parts[0].split(",")
    if len(inputs) not in (1, 2):
        raise InvalidArgumentError(
            f"Expecting 1 or 2 input subscripts in equation '{equation}' but got: {len(inputs)}")
    return inputs, parts[1]


def has_ellipsis(subscript: str) -> bool:
    """Whether `subscript` holds an ellipsis; raises if its periods are not one `...`."""
    periods = subscript.count(".")
    if periods not in (0, 3):
        raise InvalidArgumentError(
            f"Expected at most one ellipsis (...), but found {periods} periods (.) in the "
            f"input subscript: {subscript}")
    if periods == 3 and ELLIPSIS not in subscript:
        raise InvalidArgumentError(f"Periods found outside of ellipsis in subscript: {subscript}")
    return periods == 3
