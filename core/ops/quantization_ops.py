"""Op schemas: quantization (TensorFlow's QuantizeV2, Dequantize, FakeQuant*, QuantizedConcat
and QuantizeAndDequantize*, from array_ops.cc).

QuantizeV2 maps float32 to a quantized type T (qint8, quint8, qint16, quint16, qint32) over a
range [min_range, max_range] and returns the range it really used; Dequantize maps back. The
FakeQuant ops quantize and dequantize float32 in one step, with the range nudged so that 0.0
is exactly representable; their `*Gradient` ops give the straight-through gradient.
QuantizeAndDequantize simulates a signed or unsigned integer of num_bits with 0 kept exact.
A quantization `axis` (-1: none) gives per-slice ranges as vectors along that axis.
"""

from __future__ import annotations

from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext, merge_dim, unchanged

_MODE = "mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'"
_QUANTIZED = "T: {qint8, quint8, qint32, qint16, quint16}"


def _check_rank(ctx: ShapeContext, index: int, rank: int, what: str) -> Shape:
    shape = ctx.input_shapes[index]
    if shape is not None and len(shape) != rank:
        raise ctx.error(f"Shape must be rank {rank} but is rank {len(shape)} for {what}")
    return shape


def _ranges(ctx: ShapeContext, data: Shape, axis: int, first: int) -> Shape:
    """The shape of the range inputs `first`, `first + 1`: scalars, or one value per slice."""
    if axis < -1:
        raise ctx.error(f"axis should be at least -1, got {axis}")
    if axis == -1:
        _check_rank(ctx, first, 0, "min_range")
        _check_rank(ctx, first + 1, 0, "max_range")
        return ()
    if data is not None and len(data) <= axis:
        raise ctx.error(f"Shape must be at least rank {axis + 1} but is rank {len(data)} "
                        f"(axis {axis})")
    depth = None if data is None else data[axis]
    for offset, what in ((0, "min_range"), (1, "max_range")):
        shape = _check_rank(ctx, first + offset, 1, what)
        if shape is not None:
            depth = merge_dim(depth, shape[0], ctx, f"Dimensions must be equal ({what})")
    return (depth,)


def _quantize_shape(ctx: ShapeContext) -> list[Shape]:
    data = ctx.input_shapes[0]
    ranges = _ranges(ctx, data, int(ctx.attrs.get("axis", -1)), 1)
    return [data, ranges, ranges]


def _dequantize_shape(ctx: ShapeContext) -> list[Shape]:
    data = ctx.input_shapes[0]
    _ranges(ctx, data, int(ctx.attrs.get("axis", -1)), 1)
    return [data]


def _scalar_vars_shape(ctx: ShapeContext) -> list[Shape]:
    first = 1 if ctx.op == "FakeQuantWithMinMaxVars" else 2
    _check_rank(ctx, first, 0, "min")
    _check_rank(ctx, first + 1, 0, "max")
    data = ctx.input_shapes[first - 1]
    return [data, (), ()][:ctx.num_outputs]


def _per_channel_shape(ctx: ShapeContext) -> list[Shape]:
    first = 1 if ctx.op == "FakeQuantWithMinMaxVarsPerChannel" else 2
    data = ctx.input_shapes[first - 1]
    if data is not None and not data:
        raise ctx.error("Shape must be at least rank 1 but is rank 0 for inputs")
    if ctx.op != "FakeQuantWithMinMaxVarsPerChannel" and data is not None and len(data) > 4:
        raise ctx.error(f"Shape must be at most rank 4 but is rank {len(data)} for inputs")
    depth = None if data is None else data[-1]
    for offset, what in ((0, "min"), (1, "max")):
        shape = _check_rank(ctx, first + offset, 1, what)
        if shape is not None:
            depth = merge_dim(depth, shape[0], ctx, f"Dimensions must be equal ({what})")
    return [data, (depth,), (depth,)][:ctx.num_outputs]


def _quantized_concat_shape(ctx: ShapeContext) -> list[Shape]:
    _check_rank(ctx, 0, 0, "concat_dim")
    count = (len(ctx.input_shapes) - 1) // 3
    for i in range(1 + count, 1 + 3 * count):
        _check_rank(ctx, i, 0, "input_mins/input_maxes")
    values = ctx.input_shapes[1:1 + count]
    dim = ctx.value(0)
    known = [s for s in values if s is not None]
    if dim is None or not known:
        rank = len(known[0]) if known else None
        return [None if rank is None else (None,) * rank, (), ()]
    rank = len(known[0])
    axis = int(dim) + rank if int(dim) < 0 else int(dim)
    if not 0 <= axis < rank:
        raise ctx.error(f"Expected concat_dim in the range [{-rank}, {rank}), but got {int(dim)}")
    out: list[int | None] = list(known[0])
    out[axis] = 0
    for shape in values:
        if shape is None:
            out[axis] = None
            continue
        if len(shape) != rank:
            raise ctx.error(f"Shape must be rank {rank} but is rank {len(shape)}")
        for j, size in enumerate(shape):
            if j == axis:
                out[axis] = None if out[axis] is None or size is None else out[axis] + size
            else:
                out[j] = merge_dim(out[j], size, ctx, "Dimensions must be equal")
    return [tuple(out), (), ()]


def _quantize_and_dequantize_shape(ctx: ShapeContext) -> list[Shape]:
    axis = int(ctx.attrs.get("axis", -1))
    data = ctx.input_shapes[0]
    if axis < -1:
        raise ctx.error(f"axis should be at least -1, got {axis}")
    if axis == -1:
        for index, what in ((1, "input_min"), (2, "input_max")):
            _check_rank(ctx, index, 0, what)
        return [data]
    _ranges(ctx, data, axis, 1)
    return [data]


def _quantize_and_dequantize_grad_shape(ctx: ShapeContext) -> list[Shape]:
    axis = int(ctx.attrs.get("axis", -1))
    data = ctx.input_shapes[1]
    ranges = _ranges(ctx, data, axis, 2)
    return [data, ranges, ranges]


(register_op("QuantizeV2")
    .input("input: float").input("min_range: float").input("max_range: float")
    .output("output: T").output("output_min: float").output("output_max: float")
    .attr(_QUANTIZED).attr(_MODE)
    .attr("round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = 'HALF_AWAY_FROM_ZERO'")
    .attr("narrow_range: bool = false").attr("axis: int = -1")
    .attr("ensure_minimum_range: float = 0.01")
    .shape(_quantize_shape)
    .doc("Quantize float32 to T over [min_range, max_range]; also the range used."))

(register_op("Dequantize")
    .input("input: T").input("min_range: float").input("max_range: float")
    .output("output: dtype").attr(_QUANTIZED).attr(_MODE)
    .attr("narrow_range: bool = false").attr("axis: int = -1")
    .attr("dtype: {bfloat16, float} = DT_FLOAT")
    .shape(_dequantize_shape)
    .doc("Map quantized values back to floats over [min_range, max_range]."))

(register_op("QuantizedConcat")
    .input("concat_dim: int32").input("values: N * T").input("input_mins: N * float")
    .input("input_maxes: N * float")
    .output("output: T").output("output_min: float").output("output_max: float")
    .attr("N: int >= 2").attr("T: type")
    .shape(_quantized_concat_shape)
    .doc("Concatenate quantized tensors, requantized into one range that covers them all."))

_FAKE_QUANT_ATTRS = ("num_bits: int = 8", "narrow_range: bool = false")

_args = (register_op("FakeQuantWithMinMaxArgs").input("inputs: float").output("outputs: float")
         .attr("min: float = -6").attr("max: float = 6"))
_args_grad = (register_op("FakeQuantWithMinMaxArgsGradient")
              .input("gradients: float").input("inputs: float").output("backprops: float")
              .attr("min: float = -6").attr("max: float = 6"))
_vars = (register_op("FakeQuantWithMinMaxVars")
         .input("inputs: float").input("min: float").input("max: float")
         .output("outputs: float"))
_vars_grad = (register_op("FakeQuantWithMinMaxVarsGradient")
              .input("gradients: float").input("inputs: float").input("min: float")
              .input("max: float").output("backprops_wrt_input: float")
              .output("backprop_wrt_min: float").output("backprop_wrt_max: float"))
_channel = (register_op("FakeQuantWithMinMaxVarsPerChannel")
            .input("inputs: float").input("min: float").input("max: float")
            .output("outputs: float"))
_channel_grad = (register_op("FakeQuantWithMinMaxVarsPerChannelGradient")
                 .input("gradients: float").input("inputs: float").input("min: float")
                 .input("max: float").output("backprops_wrt_input: float")
                 .output("backprop_wrt_min: float").output("backprop_wrt_max: float"))
for _schema in (_args, _args_grad, _vars, _vars_grad, _channel, _channel_grad):
    for _spec in _FAKE_QUANT_ATTRS:
        _schema.attr(_spec)
_args.shape(unchanged).doc("Fake-quantize floats over the attr range [min, max] (nudged).")
_args_grad.shape(lambda ctx: [ctx.input_shapes[1]]).doc(
    "The straight-through gradient of FakeQuantWithMinMaxArgs.")
_vars.shape(_scalar_vars_shape).doc("Fake-quantize floats over the scalar tensor range.")
_vars_grad.shape(_scalar_vars_shape).doc(
    "The gradients of FakeQuantWithMinMaxVars with respect to inputs, min and max.")
_channel.shape(_per_channel_shape).doc(
    "Fake-quantize floats with one range per channel (the last dimension).")
_channel_grad.shape(_per_channel_shape).doc(
    "The gradients of FakeQuantWithMinMaxVarsPerChannel w.r.t. inputs, min and max.")

_QDQ_ATTRS = ("signed_input: bool = true", "num_bits: int = 8", "range_given: bool = false",
              "T: {bfloat16, half, float, double}",
              "round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'",
              "narrow_range: bool = false", "axis: int = -1")
for _name in ("QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"):
    _schema = (register_op(_name).input("input: T").input("input_min: T").input("input_max: T")
               .output("output: T"))
    for _spec in _QDQ_ATTRS:
        _schema.attr(_spec)
    _schema.shape(_quantize_and_dequantize_shape).doc(
        "Quantize to a simulated num_bits integer (0 exact) and back.")

(register_op("QuantizeAndDequantizeV4Grad")
    .input("gradients: T").input("input: T").input("input_min: T").input("input_max: T")
    .output("input_backprop: T").output("input_min_backprop: T")
    .output("input_max_backprop: T")
    .attr("T: {bfloat16, half, float, double}").attr("axis: int = -1")
    .shape(_quantize_and_dequantize_grad_shape)
    .doc("The straight-through gradient of QuantizeAndDequantizeV4 (0 outside the range)."))
