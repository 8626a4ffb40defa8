"""Op schema: ExtractVolumePatches (TensorFlow's array_ops.cc).

`ExtractVolumePatches(input)` slides a [ksize_planes, ksize_rows, ksize_cols] window over
the three spatial dims of a [batch, planes, rows, cols, depth] tensor with `strides` and
SAME or VALID padding (as Conv3D), and flattens each window into the depth:
[batch, out_planes, out_rows, out_cols, ksize_planes * ksize_rows * ksize_cols * depth].
`ksizes` and `strides` have 5 entries, the batch and depth ones 1 (checked by the kernel,
as TensorFlow does).
"""

from __future__ import annotations

from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext

_T = ("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
      "uint64}")


def _volume_patches_shape(ctx: ShapeContext) -> list[Shape]:
    from tfx.core.ops.nn_ops import window_output

    ksizes, strides, padding = ctx.attrs["ksizes"], ctx.attrs["strides"], ctx.attrs["padding"]
    for attr, values in (("ksizes", ksizes), ("strides", strides)):
        if len(values) != 5:
            raise ctx.error(f"ExtractVolumePatches requires the {attr} attribute to contain "
                            f"5 values, but got: {len(values)}")
    data = ctx.input_shapes[0]
    if data is not None and len(data) != 5:
        raise ctx.error(f"Shape must be rank 5 but is rank {len(data)}")
    if data is None:
        return [(None,) * 5]
    for stride in strides[1:4]:
        if stride <= 0:
            raise ctx.error(f"Stride must be > 0, but got {stride}")
    out: list = [data[0]]
    for axis in (1, 2, 3):
        if data[axis] is None or ksizes[axis] < 1:
            out.append(None)
            continue
        try:
            out.append(window_output(data[axis], ksizes[axis], strides[axis], 1, padding)[0])
        except Exception as exc:  # noqa: BLE001 - re-raised as the node's shape error
            raise ctx.error(str(exc)) from exc
    depth = data[4]
    out.append(None if depth is None else ksizes[1] * ksizes[2] * ksizes[3] * depth)
    return [tuple(out)]


(register_op("ExtractVolumePatches").input("input: T").output("patches: T")
    .attr("ksizes: list(int) >= 5").attr("strides: list(int) >= 5").attr(_T)
    .attr("padding: {'SAME', 'VALID'}").shape(_volume_patches_shape))
