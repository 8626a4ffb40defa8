"""Op schemas: uniform quantization (TensorFlow's UniformQuantize, UniformDequantize,
UniformRequantize, UniformQuantizedAdd, UniformQuantizedClipByValue, UniformQuantizedDot
and UniformQuantizedDotHybrid, from uniform_quant_ops.cc).

A uniformly quantized tensor q stands for scale * (q - zero_point), clamped to
[quantization_min_val, quantization_max_val]. The parameters are per tensor
(quantization_axis -1: scalar scales and zero points) or per slice along one axis (vectors
as long as that dimension).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tfx.core import wire_format
from tfx.core.errors import InvalidArgumentError
from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext, broadcast_pair, merge_dim


def _params(ctx: ShapeContext, data: Shape, first: int, axis: int, what: str) -> None:
    """Inputs `first` (scales) and `first + 1` (zero points) for `data` quantized along
    `axis`: scalars, or vectors as long as that dimension."""
    if axis < -1:
        raise ctx.error(f"{what}quantization_axis must be >= -1, got {axis}")
    if data is not None and axis >= len(data):
        raise ctx.error(f"{what}quantization_axis must be less than the rank {len(data)}, "
                        f"got {axis}")
    rank = 0 if axis == -1 else 1
    depth = None if axis == -1 or data is None else data[axis]
    for index in (first, first + 1):
        shape = ctx.input_shapes[index]
        if shape is None:
            continue
        if len(shape) != rank:
            raise ctx.error(f"Shape must be rank {rank} but is rank {len(shape)} for input "
                            f"{index}")
        if rank:
            depth = merge_dim(depth, shape[0], ctx, "Dimensions must be equal")


def _unchanged(first: int, prefix: str):
    def shape_fn(ctx: ShapeContext) -> list[Shape]:
        data = ctx.input_shapes[0]
        _params(ctx, data, first, int(ctx.attrs[f"{prefix}quantization_axis"]), prefix)
        return [data]

    return shape_fn


def _requantize_shape(ctx: ShapeContext) -> list[Shape]:
    data = ctx.input_shapes[0]
    for first, prefix in ((1, "input_"), (3, "output_")):
        _params(ctx, data, first, int(ctx.attrs[f"{prefix}quantization_axis"]), prefix)
    return [data]


def _add_shape(ctx: ShapeContext) -> list[Shape]:
    out = broadcast_pair(ctx.input_shapes[0], ctx.input_shapes[1], ctx)
    for index, first, prefix in ((0, 2, "lhs_"), (1, 4, "rhs_"), (None, 6, "output_")):
        data = out if index is None else ctx.input_shapes[index]
        _params(ctx, data, first, int(ctx.attrs[f"{prefix}quantization_axis"]), prefix)
    return [out]


def _clip_shape(ctx: ShapeContext) -> list[Shape]:
    data = ctx.input_shapes[0]
    axis = int(ctx.attrs["quantization_axis"])
    _params(ctx, data, 3, axis, "")
    for index in (1, 2):
        shape = ctx.input_shapes[index]
        rank = 0 if axis == -1 else 1
        if shape is not None and len(shape) != rank:
            raise ctx.error(f"Shape must be rank {rank} but is rank {len(shape)} for input "
                            f"{index}")
    return [data]


def _dot_shape(ctx: ShapeContext) -> list[Shape]:
    lhs, rhs = ctx.input_shapes[0], ctx.input_shapes[1]
    for index, shape in ((0, lhs), (1, rhs)):
        if shape is not None and len(shape) != 2:
            raise ctx.error(f"Shape must be rank 2 but is rank {len(shape)} for input {index}")
    if lhs is not None and rhs is not None:
        merge_dim(lhs[1], rhs[0], ctx, "Dimensions must be equal")
    out = (None if lhs is None else lhs[0], None if rhs is None else rhs[1])
    hybrid = ctx.op.endswith("Hybrid")
    if not hybrid:
        _params(ctx, lhs, 2, int(ctx.attrs["lhs_quantization_axis"]), "lhs_")
    _params(ctx, rhs, 2 if hybrid else 4, int(ctx.attrs["rhs_quantization_axis"]), "rhs_")
    if not hybrid:
        _params(ctx, out, 6, int(ctx.attrs["output_quantization_axis"]), "output_")
    return [out]


def _quantization_attrs(schema, prefix: str = ""):
    return (schema.attr(f"{prefix}quantization_axis: int = -1")
            .attr(f"{prefix}quantization_min_val: int")
            .attr(f"{prefix}quantization_max_val: int"))


_quantization_attrs(
    register_op("UniformQuantize").input("input: Tin").input("scales: float")
    .input("zero_points: int32").output("output: Tout").attr("Tin: {float}")
    .attr("Tout: {qint8, quint8, qint32}")
).shape(_unchanged(1, "")).doc("Quantize floats: round(x / scale) + zero_point, clamped.")

_quantization_attrs(
    register_op("UniformDequantize").input("input: Tin").input("scales: float")
    .input("zero_points: int32").output("output: Tout").attr("Tin: {qint8, quint8, qint32}")
    .attr("Tout: {float}")
).shape(_unchanged(1, "")).doc("Dequantize: (q - zero_point) * scale.")

_requantize = (register_op("UniformRequantize").input("input: Tin")
               .input("input_scales: float").input("input_zero_points: int32")
               .input("output_scales: float").input("output_zero_points: int32")
               .output("output: Tout").attr("Tin: {qint8, qint32}").attr("Tout: {qint8, qint32}"))
_quantization_attrs(_requantize, "input_")
_quantization_attrs(_requantize, "output_").shape(_requantize_shape).doc(
    "Move a quantized tensor to other quantization parameters.")

_add = register_op("UniformQuantizedAdd").input("lhs: T").input("rhs: T")
for _side in ("lhs", "rhs", "output"):
    _add.input(f"{_side}_scales: float").input(f"{_side}_zero_points: int32")
_add.output("output: T")
for _side in ("lhs", "rhs", "output"):
    _quantization_attrs(_add, f"{_side}_")
_add.attr("T: {qint32}").shape(_add_shape).doc(
    "Add two quantized tensors (broadcasting) into the output's quantization.")

_quantization_attrs(
    register_op("UniformQuantizedClipByValue").input("operand: T").input("min: T")
    .input("max: T").input("scales: float").input("zero_points: int32").output("output: T")
    .attr("T: {qint32}")
).shape(_clip_shape).doc("Clip a quantized tensor to [min, max] (same quantization).")

_dot = (register_op("UniformQuantizedDot").input("lhs: Tin").input("rhs: Tin"))
for _side in ("lhs", "rhs", "output"):
    _dot.input(f"{_side}_scales: float").input(f"{_side}_zero_points: int32")
_dot.output("output: Tout").attr("Tin: {qint8}").attr("Tout: {qint32}")
for _side in ("lhs", "rhs", "output"):
    _quantization_attrs(_dot, f"{_side}_")
_dot.shape(_dot_shape).doc("Quantized matrix product: [b, k] x [k, n] into qint32.")

_quantization_attrs(
    register_op("UniformQuantizedDotHybrid").input("lhs: Tlhs").input("rhs: Trhs")
    .input("rhs_scales: float").input("rhs_zero_points: int32").output("output: Tout")
    .attr("Tlhs: {float}").attr("Trhs: {qint8}").attr("Tout: {float}"), "rhs_"
).shape(_dot_shape).doc("Float [b, k] times quantized [k, n]: the lhs is quantized per row.")


# UniformQuantizedConvolutionDimensionNumbersAttr's fields, by field number.
_DIMENSION_FIELDS = {1: "input_batch_dimension", 2: "input_feature_dimension",
                     3: "input_spatial_dimensions", 4: "kernel_input_feature_dimension",
                     5: "kernel_output_feature_dimension", 6: "kernel_spatial_dimensions",
                     7: "output_batch_dimension", 8: "output_feature_dimension",
                     9: "output_spatial_dimensions"}


def _signed(value: int) -> int:
    return value - (1 << 64) if value >> 63 else value  # an int64 field


def parse_dimension_numbers(data: bytes) -> dict[str, Any]:
    """The serialized UniformQuantizedConvolutionDimensionNumbersAttr the dimension_numbers
    attr holds (an empty string: no fields); other fields are skipped, as protobuf does."""
    fields: dict[str, Any] = {name: [] if name.endswith("dimensions") else 0
                              for name in _DIMENSION_FIELDS.values()}
    pos = 0
    try:
        while pos < len(data):
            number, wire, pos = wire_format.read_key(data, pos)
            name = _DIMENSION_FIELDS.get(number)
            repeated = name is not None and isinstance(fields[name], list)
            if name is not None and wire == wire_format.VARINT:
                value, pos = wire_format.read_varint(data, pos)
                if repeated:
                    fields[name].append(_signed(value))
                else:
                    fields[name] = _signed(value)
            elif repeated and wire == wire_format.LENGTH:  # packed
                end = wire_format.skip(data, pos, number, wire)
                _, pos = wire_format.read_varint(data, pos)
                while pos < end:
                    value, pos = wire_format.read_varint(data, pos)
                    fields[name].append(_signed(value))
                if pos != end:
                    raise ValueError("a packed varint runs past its field")
            else:
                pos = wire_format.skip(data, pos, number, wire)
    except ValueError:
        raise InvalidArgumentError("Error parsing convolution dimension numbers.") from None
    return fields


def _dilated(size: int, dilation: int) -> int:
    return 0 if size == 0 else dilation * (size - 1) + 1


@dataclass
class ConvolutionParams:
    """TensorFlow's UniformQuantizedConvolutionParams: the attrs checked against the lhs
    and rhs shapes, defaults filled in, and the padding and output shape worked out."""

    strides: list[int]
    lhs_dilation: list[int]
    rhs_dilation: list[int]
    padding: list[int]
    numbers: dict[str, Any]
    feature_groups: int
    batch_groups: int
    output_shape: tuple[int, ...]

    def __init__(self, attrs: dict[str, Any], lhs: tuple, rhs: tuple) -> None:
        padding = attrs["padding"]
        explicit = list(attrs.get("explicit_padding", []))
        if padding not in ("EXPLICIT", "SAME", "VALID"):
            raise InvalidArgumentError(f"padding Attr must be one of [EXPLICIT | SAME | "
                                       f"VALID], but given: {padding}")
        if padding != "EXPLICIT" and explicit:
            raise InvalidArgumentError(
                f"If padding Attr is not 'EXPLICIT', explicit_padding Attr must be empty. "
                f"Given padding {padding} and explicit_padding of size {len(explicit)}")
        raw = attrs.get("dimension_numbers", b"")
        numbers = parse_dimension_numbers(raw.encode() if isinstance(raw, str) else raw)
        if len(lhs) != len(rhs):
            raise InvalidArgumentError(f"lhs and rhs must have same dims. Given lhs and rhs of "
                                       f"shapes: {_shape(lhs)}{_shape(rhs)}")
        dims = len(lhs)
        if dims <= 2:
            raise InvalidArgumentError(f"lhs and rhs shape dims must be at least 3. Given: "
                                       f"{dims}")
        spatial = dims - 2
        lists = {}
        for name, what in (("window_strides", "window_strides"),
                           ("lhs_dilation", "lhs_dilation"), ("rhs_dilation", "rhs_dilation")):
            value = list(attrs.get(name, []))
            if not value:
                value = [1] * spatial
            elif len(value) != spatial:
                raise InvalidArgumentError(f"Size of {what} Attr must be dims - 2.")
            elif not all(v >= 1 for v in value):
                raise InvalidArgumentError(f"All elements of {what} must be >= 1. Given "
                                           f"{', '.join(map(str, value))}")
            lists[name] = value
        if not numbers["input_spatial_dimensions"]:
            numbers = {"input_batch_dimension": 0, "input_feature_dimension": 1,
                       "input_spatial_dimensions": list(range(2, dims)),
                       "kernel_output_feature_dimension": 0,
                       "kernel_input_feature_dimension": 1,
                       "kernel_spatial_dimensions": list(range(2, dims)),
                       "output_batch_dimension": 0, "output_feature_dimension": 1,
                       "output_spatial_dimensions": list(range(2, dims))}
        else:
            for value in numbers.values():
                values = value if isinstance(value, list) else [value]
                if isinstance(value, list) and len(value) != spatial:
                    raise InvalidArgumentError(
                        f"Spatial dimensions size must be rank - 2. Given rank {dims} and "
                        f"spatial dimensions size {len(value)}")
                for v in values:
                    if not 0 <= v < dims:
                        raise InvalidArgumentError(
                            f"Each dimension number must be in region [0, rank). Given rank "
                            f"{dims} and dimension number value {v}")
        groups, batch_groups = int(attrs["feature_group_count"]), int(attrs["batch_group_count"])
        features = lhs[numbers["input_feature_dimension"]]
        in_features = rhs[numbers["kernel_input_feature_dimension"]]
        out_features = rhs[numbers["kernel_output_feature_dimension"]]
        batch = lhs[numbers["input_batch_dimension"]]
        if groups <= 0:
            raise InvalidArgumentError(f"feature_group_count must be a positive integer, "
                                       f"given: {groups}")
        if features % groups:
            raise InvalidArgumentError(f"feature_group_count must divide lhs feature dimension "
                                       f"size, but {groups} does not divide {features}")
        if in_features == 0 or features % in_features:
            raise InvalidArgumentError(f"rhs input feature dimension must divide lhs feature "
                                       f"dimension size, but {in_features} does not divide "
                                       f"{features}")
        if features // groups != in_features:
            raise InvalidArgumentError(
                f"lhs feature dimension size divided by feature_group_count must equal the "
                f"rhs input feature dimension size, but {features} / {groups} != {in_features}")
        if out_features % groups:
            raise InvalidArgumentError(f"rhs output dimension size must be a multiple of "
                                       f"feature_group_count, but {out_features} is not a "
                                       f"multiple of {groups}")
        if batch_groups <= 0:
            raise InvalidArgumentError(f"batch_group_count Attr must be a positive integer. "
                                       f"Given: {batch_groups}")
        if batch % batch_groups:
            raise InvalidArgumentError(f"batch_group_count must divide lhs batch dimension "
                                       f"size, but {batch_groups} does not divide {batch}")
        if out_features % batch_groups:
            raise InvalidArgumentError(f"rhs output dimension size must be a multiple of "
                                       f"batch_group_count, but {out_features} is not a "
                                       f"multiple of {batch_groups}")
        strides = lists["window_strides"]
        lhs_sizes = [_dilated(lhs[d], lists["lhs_dilation"][i])
                     for i, d in enumerate(numbers["input_spatial_dimensions"])]
        rhs_sizes = [_dilated(rhs[d], lists["rhs_dilation"][i])
                     for i, d in enumerate(numbers["kernel_spatial_dimensions"])]
        if padding == "EXPLICIT":
            if len(explicit) != 2 * spatial:
                raise InvalidArgumentError(
                    f"Size of explicit_padding Attr must be 2 * (rank - 2). Given rank {dims} "
                    f"and explicit_padding of size {len(explicit)}")
            if not all(v >= 0 for v in explicit):
                raise InvalidArgumentError(f"All explicit_padding elems must be >= 0, Given "
                                           f"{', '.join(map(str, explicit))}")
        elif padding == "VALID":
            explicit = [0] * (2 * spatial)
        else:
            explicit = []
            for stride, size, window in zip(strides, lhs_sizes, rhs_sizes):
                total = max(((size + stride - 1) // stride - 1) * stride + window - size, 0)
                explicit += [total // 2, total - total // 2]
        shape = [0] * dims
        shape[numbers["output_batch_dimension"]] = batch // batch_groups
        shape[numbers["output_feature_dimension"]] = out_features
        for i, d in enumerate(numbers["output_spatial_dimensions"]):
            numerator = lhs_sizes[i] + explicit[2 * i] + explicit[2 * i + 1] - rhs_sizes[i] + 1
            shape[d] = (numerator + strides[i] - 1) // strides[i]
        self.strides, self.lhs_dilation = strides, lists["lhs_dilation"]
        self.rhs_dilation, self.padding, self.numbers = lists["rhs_dilation"], explicit, numbers
        self.feature_groups, self.batch_groups = groups, batch_groups
        self.output_shape = tuple(shape)


def _shape(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _convolution_shape(ctx: ShapeContext) -> list[Shape]:
    """The output shape when both operands' shapes are known (TensorFlow's
    CalculateOutputShape), else one of the lhs rank."""
    lhs, rhs = ctx.input_shapes[0], ctx.input_shapes[1]
    if lhs is None or rhs is None or None in lhs or None in rhs:
        rank = lhs if lhs is not None else rhs
        return [None if rank is None else (None,) * len(rank)]
    try:
        return [ConvolutionParams(ctx.attrs, lhs, rhs).output_shape]
    except Exception as exc:  # noqa: BLE001 - re-raised as the node's error
        raise ctx.error(str(exc)) from exc


_CONVOLUTION_ATTRS = ("window_strides: list(int) = []", "padding: string",
                      "explicit_padding: list(int) = []", "lhs_dilation: list(int) = []",
                      "rhs_dilation: list(int) = []", "batch_group_count: int = 1",
                      "feature_group_count: int = 1", "dimension_numbers: string = ''")

_convolution = (register_op("UniformQuantizedConvolution").input("lhs: Tin")
                .input("rhs: Tin"))
for _side in ("lhs", "rhs", "output"):
    _convolution.input(f"{_side}_scales: float").input(f"{_side}_zero_points: int32")
_convolution.output("output: Tout").attr("Tin: {qint8}").attr("Tout: {qint32}")
for _spec in _CONVOLUTION_ATTRS:
    _convolution.attr(_spec)
for _side in ("lhs", "rhs", "output"):
    _quantization_attrs(_convolution, f"{_side}_")
_convolution.shape(_convolution_shape).doc(
    "Quantized convolution with XLA's dimension numbers, padding, dilations and groups.")

_hybrid = (register_op("UniformQuantizedConvolutionHybrid").input("lhs: Tlhs")
           .input("rhs: Trhs").input("rhs_scales: float").input("rhs_zero_points: int32")
           .output("output: Tout").attr("Tlhs: {float}").attr("Trhs: {qint8}")
           .attr("Tout: {float}"))
for _spec in _CONVOLUTION_ATTRS:
    _hybrid.attr(_spec)
_quantization_attrs(_hybrid, "rhs_").shape(_convolution_shape).doc(
    "Float lhs convolved with quantized rhs: the lhs is quantized per batch.")
