"""Op schemas: linear algebra (TensorFlow's linalg_ops.cc): Einsum.

`Einsum(inputs: N * T) -> output: T` with attrs `equation: string`, `N: int >= 1` and
`T: type`, exactly as TensorFlow registers it (any type; kernels exist for floats,
int32, int64 and complex). The shape function is TensorFlow's `EinsumShape`: each
label's dims must agree, an input's rank must equal its number of labels (at least,
with an ellipsis), the ellipsis dims of two inputs broadcast, and the output lists
the labels' dims with the broadcast dims at its ellipsis.
"""

from __future__ import annotations

from tfx.core import shapes
from tfx.core.einsum_util import ELLIPSIS, has_ellipsis, split_equation
from tfx.core.errors import InvalidArgumentError
from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext


def _rank_error(ctx: ShapeContext, rank: int, want: str, index: int, equation: str) -> None:
    raise ctx.error(f"Shape must be {want} but is rank {rank} for {index}th input and "
                    f"equation: {equation}")


def _einsum_shape(ctx: ShapeContext) -> list[Shape]:
    equation = ctx.attrs["equation"]
    try:
        input_labels, output_labels = split_equation(equation)
        if len(ctx.input_shapes) != len(input_labels):
            raise InvalidArgumentError(
                f"Expected {len(input_labels)} inputs for equation {equation} but got: "
                f"{len(ctx.input_shapes)}")
        ellipses = [has_ellipsis(labels) for labels in input_labels]
        output_ellipsis = has_ellipsis(output_labels)
    except InvalidArgumentError as error:
        raise ctx.error(str(error)) from None
    dims: dict[str, int | None] = {}
    bcast: list[Shape] = []
    for index, (labels, shape, ellipsis) in enumerate(
            zip(input_labels, ctx.input_shapes, ellipses)):
        named = labels.replace(ELLIPSIS, "")
        if shape is not None:
            if ellipsis and len(shape) < len(named):
                _rank_error(ctx, len(shape), f"at least rank {len(named)}", index, equation)
            if not ellipsis and len(shape) != len(named):
                _rank_error(ctx, len(shape), f"rank {len(named)}", index, equation)
        before, _, after = labels.partition(ELLIPSIS) if ellipsis else (labels, "", "")
        if shape is None:
            bcast.append(None if ellipsis else ())
            axes = [None] * len(named)
        else:
            end = len(shape) - len(after)
            bcast.append(tuple(shape[len(before):end]))
            axes = list(shape[:len(before)]) + list(shape[end:])
        for label, dim in zip(named, axes):
            known = dims.get(label)
            if known is not None and dim is not None and known != dim:
                raise ctx.error(f"Dimensions must be equal, but are {known} and {dim}")
            dims[label] = dim if known is None else known
    out_bcast = bcast[0]
    if len(bcast) == 2:
        for a, b in zip(reversed(bcast[0] or ()), reversed(bcast[1] or ())):
            if a is not None and b is not None and 1 not in (a, b) and a != b:
                raise ctx.error(f"Dimensions must be equal, but are {a} and {b}")
        out_bcast = shapes.broadcast_pair(bcast[0], bcast[1])
    if output_ellipsis and out_bcast is None:
        return [None]
    if not output_ellipsis and out_bcast:
        raise ctx.error(
            f"Shape must be at most rank 0 but is rank {len(out_bcast)} for einsum equation "
            f"'{equation}' without ellipsis (...) in the output subscripts where input(s) "
            "have non-empty broadcasting shape")
    out: list[int | None] = []
    before, _, after = output_labels.partition(ELLIPSIS)
    for part, extra in ((before, out_bcast or ()), (after, ())):
        for label in part:
            if label not in dims:
                raise ctx.error(
                    f"Einsum output subscripts for equation '{equation}' has label '{label}' "
                    "which is not present in the input subscripts")
            out.append(dims[label])
        out.extend(extra if output_ellipsis else ())
    return [tuple(out)]


(register_op("Einsum").input("inputs: N * T").output("output: T").attr("equation: string")
    .attr("N: int >= 1").attr("T: type").shape(_einsum_shape))
