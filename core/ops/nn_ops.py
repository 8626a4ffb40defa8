"""Op schemas: neural-network ops (TensorFlow's nn_ops.cc).

Convolutions (2-D, depthwise, 3-D and their gradients), pooling, bias adds,
activations and their gradients, softmax and cross-entropy losses, batch
normalization, LRN, L2Loss and InTopK. Every schema matches TensorFlow's
registration (argument names and order, attr names, defaults, allowed types),
so GraphDefs written by TensorFlow bind here unchanged.

The window arithmetic lives here too (`window_output`, `DataFormat`): shape
functions and CPU kernels share it, so a static shape and the shape a kernel
produces cannot disagree. It follows TensorFlow's GetWindowedOutputSize: SAME
pads `total // 2` before and the rest after; VALID and EXPLICIT truncate the
division as C++ does, and a negative output size is an error.

Shape functions infer what the known dims allow and raise only for a
contradiction they can prove (a wrong rank, channels that do not match);
unknown dims come out as None.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tfx.core import shapes
from tfx.core.errors import InvalidArgumentError
from tfx.core.op_registry import register_op
from tfx.core.ops.math_ops import merge_shapes
from tfx.core.shapes import Shape, ShapeContext

_FLOAT = "T: {half, bfloat16, float, double}"
_REAL = (
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
    "uint64}"
)
_NUMBER = (
    "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
    "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}"
)
_PADDING = "padding: {'SAME', 'VALID'}"
_PADDING_EXPLICIT = "padding: {'SAME', 'VALID', 'EXPLICIT'}"
_FORMAT_2D = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"
_FORMAT_3D = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'"


# --- window arithmetic shared with the kernels -----------------------------------------


def _trunc_div(a: int, b: int) -> int:
    """Integer division rounding toward zero, as C++ does."""
    return a // b if a >= 0 else -((-a) // b)


def window_output(
    size: int, window: int, stride: int, dilation: int, padding: str,
    pad_before: int = 0, pad_after: int = 0,
) -> tuple[int, int, int]:
    """Output size and (before, after) padding of one windowed dimension.

    Args:
        size: the input size along the dimension.
        window: the filter (or pooling window) size.
        stride, dilation: the window's step and the spacing of its taps.
        padding: "VALID", "SAME" or "EXPLICIT" (then `pad_before`/`pad_after` apply).

    Returns:
        (output size, padding before, padding after).

    Example: `window_output(5, 3, 2, 1, "SAME")` is `(3, 1, 1)`.
    """
    if stride <= 0:
        raise InvalidArgumentError(f"Stride must be > 0, but got {stride}")
    if dilation <= 0:
        raise InvalidArgumentError(f"Dilation rate must be >= 1, but got {dilation}")
    effective = (window - 1) * dilation + 1
    if padding == "SAME":
        out = (size + stride - 1) // stride
        total = max(0, (out - 1) * stride + effective - size)
        pad_before, pad_after = total // 2, total - total // 2
    else:
        if padding != "EXPLICIT":
            pad_before = pad_after = 0
        out = _trunc_div(size + pad_before + pad_after - effective + stride, stride)
    if out < 0:
        raise InvalidArgumentError(
            f"Computed output size would be negative: {out} [input_size: {size}, "
            f"effective_filter_size: {effective}, stride: {stride}]"
        )
    return out, pad_before, pad_after


@dataclass(frozen=True)
class DataFormat:
    """Where batch, spatial and channel dims sit in a data_format such as NHWC."""

    name: str
    rank: int
    channel_axis: int
    spatial_axes: tuple[int, ...]

    @property
    def channels_last(self) -> bool:
        return self.channel_axis == self.rank - 1

    def spatial(self, values: Sequence) -> list:
        """The spatial entries of a per-dimension list (strides, ksize, a shape)."""
        return [values[a] for a in self.spatial_axes]

    def make(self, batch: object, spatial: Sequence, channels: object) -> tuple:
        """A full per-dimension tuple from its batch, spatial and channel parts."""
        if self.channels_last:
            return (batch, *spatial, channels)
        return (batch, channels, *spatial)


FORMATS = {
    "NHWC": DataFormat("NHWC", 4, 3, (1, 2)),
    "NCHW": DataFormat("NCHW", 4, 1, (2, 3)),
    "NDHWC": DataFormat("NDHWC", 5, 4, (1, 2, 3)),
    "NCDHW": DataFormat("NCDHW", 5, 1, (2, 3, 4)),
}


def data_format(name: str, rank: int) -> DataFormat:
    """The DataFormat called `name` for tensors of `rank` (NHWC/NCHW also name 5-D)."""
    if rank == 5 and name in ("NHWC", "NCHW"):
        name = "NDHWC" if name == "NHWC" else "NCDHW"
    fmt = FORMATS.get(name)
    if fmt is None or fmt.rank != rank:
        raise InvalidArgumentError(f"data_format {name} is not supported for rank-{rank} tensors")
    return fmt


def check_window_attrs(
    what: str, values: Sequence[int], fmt: DataFormat, *, allow_depth: bool = False
) -> list[int]:
    """Check a strides/ksize/dilations list: one entry per dim, batch (and depth) 1.

    Returns the spatial entries.
    """
    if len(values) != fmt.rank:
        raise InvalidArgumentError(
            f"Sliding window {what} field must specify {fmt.rank} dimensions, got {list(values)}"
        )
    if any(v <= 0 for v in values):
        raise InvalidArgumentError(f"all {what} must be positive, got {list(values)}")
    if values[0] != 1 or (values[fmt.channel_axis] != 1 and not allow_depth):
        raise InvalidArgumentError(
            f"Current implementation does not yet support {what} in the batch and depth "
            f"dimensions, got {list(values)}"
        )
    return fmt.spatial(values)


def explicit_pads(padding: str, explicit: Sequence[int], fmt: DataFormat) -> list[tuple[int, int]]:
    """Per spatial dim (before, after) explicit padding; zeros unless padding is EXPLICIT."""
    if padding != "EXPLICIT":
        if explicit:
            raise InvalidArgumentError(
                "explicit_paddings attribute must be empty if the padding attribute is not "
                f"EXPLICIT, got {list(explicit)}"
            )
        return [(0, 0)] * len(fmt.spatial_axes)
    if len(explicit) != 2 * fmt.rank:
        raise InvalidArgumentError(
            f"explicit_paddings must have {2 * fmt.rank} entries (2 per dimension), "
            f"got {len(explicit)}"
        )
    if any(p < 0 for p in explicit):
        raise InvalidArgumentError(
            f"All elements of explicit_paddings must be nonnegative, got {list(explicit)}"
        )
    pairs = [(explicit[2 * i], explicit[2 * i + 1]) for i in range(fmt.rank)]
    if pairs[0] != (0, 0) or pairs[fmt.channel_axis] != (0, 0):
        raise InvalidArgumentError(
            "Nonzero explicit padding in the batch or depth dimensions is not supported"
        )
    return fmt.spatial(pairs)


# --- shape functions -------------------------------------------------------------------


def _with_rank(ctx: ShapeContext, shape: Shape, rank: int, what: str) -> tuple:
    if shape is None:
        return (None,) * rank
    if len(shape) != rank:
        raise ctx.error(f"{what} must be {rank}-dimensional, got shape {list(shape)}")
    return tuple(shape)


def _guard(ctx: ShapeContext, fn, *args, **kwargs):
    """Call a window helper, turning its InvalidArgumentError into one naming the node."""
    try:
        return fn(*args, **kwargs)
    except InvalidArgumentError as exc:
        raise ctx.error(str(exc)) from None


def _spatial_out(
    ctx: ShapeContext, sizes: Sequence, windows: Sequence, strides: Sequence,
    dilations: Sequence, pads: Sequence,
) -> list:
    out = []
    padding = ctx.attrs["padding"]
    for size, window, stride, dilation, (before, after) in zip(
        sizes, windows, strides, dilations, pads
    ):
        if size is None or window is None:
            out.append(None)
            continue
        # Stricter than the kernels, as in TensorFlow: a padded input smaller than the
        # window is an error here even where the kernel's arithmetic gives 0 outputs.
        effective = (window - 1) * dilation + 1
        padded = size + before + after if padding == "EXPLICIT" else size
        if padding != "SAME" and padded < effective:
            raise ctx.error(f"Negative dimension size caused by subtracting {effective} from "
                            f"{padded}")
        out.append(_guard(ctx, window_output, size, window, stride, dilation, padding,
                          before, after)[0])
    return out


def _conv_shape(ctx: ShapeContext, depthwise: bool = False) -> list[Shape]:
    attrs = ctx.attrs
    nd = 3 if ctx.op.startswith("Conv3D") else 2
    fmt = _guard(ctx, data_format, attrs["data_format"], nd + 2)
    x = _with_rank(ctx, ctx.input_shapes[0], nd + 2, "input")
    f = _with_rank(ctx, ctx.input_shapes[1], nd + 2, "filter")
    strides = _guard(ctx, check_window_attrs, "strides", attrs["strides"], fmt)
    dilations = _guard(ctx, check_window_attrs, "dilations", attrs["dilations"], fmt)
    pads = _guard(ctx, explicit_pads, attrs["padding"], attrs.get("explicit_paddings", []), fmt)
    batch, channels = x[0], x[fmt.channel_axis]
    in_depth, out_depth = f[nd], f[nd + 1]
    if depthwise:
        shapes.merge_dim(channels, in_depth, ctx, "input depth must equal the filter's depth")
        if channels is None:
            channels = in_depth
        out_channels = None if channels is None or out_depth is None else channels * out_depth
    else:
        if channels is not None and in_depth is not None:
            if in_depth == 0 or channels % in_depth:
                raise ctx.error(f"Depth of input ({channels}) is not a multiple of input depth "
                                f"of filter ({in_depth})")
            groups = channels // in_depth
            if out_depth is not None and out_depth % groups:
                raise ctx.error(f"Depth of output ({out_depth}) is not a multiple of the number "
                                f"of groups ({groups})")
        out_channels = out_depth
    spatial = _spatial_out(ctx, fmt.spatial(x), f[:nd], strides, dilations, pads)
    return [fmt.make(batch, spatial, out_channels)]


def _depthwise_shape(ctx: ShapeContext) -> list[Shape]:
    return _conv_shape(ctx, depthwise=True)


def _sizes_input_shape(ctx: ShapeContext, index: int, rank: int) -> Shape:
    """The shape given by a sizes input (Conv2DBackpropInput's input_sizes...): its values
    when known, else unknown dims, as many as the vector has (`rank` if that is unknown)."""
    value = ctx.value(index)
    if value is None:
        sizes_shape = ctx.input_shapes[index]
        if sizes_shape is not None and len(sizes_shape) != 1:
            raise ctx.error(f"input {index} must be a vector, got shape {list(sizes_shape)}")
        if sizes_shape is not None and sizes_shape[0] is not None:
            return (None,) * sizes_shape[0]
        return (None,) * rank
    sizes = [int(v) for v in np.asarray(value).reshape(-1)]
    return tuple(sizes)


def _conv_backprop_input_shape(ctx: ShapeContext) -> list[Shape]:
    sizes = _sizes_input_shape(ctx, 0, 4)
    if len(sizes) == 4:
        return [sizes]
    if len(sizes) != 2:
        raise ctx.error(f"input_sizes must have 4 (or 2 spatial) entries, got {list(sizes)}")
    # Only the spatial dims are given: batch comes from out_backprop, depth from the filter.
    fmt = _guard(ctx, data_format, ctx.attrs["data_format"], 4)
    dy = _with_rank(ctx, ctx.input_shapes[2], 4, "out_backprop")
    f = _with_rank(ctx, ctx.input_shapes[1], 4, "filter")
    return [fmt.make(dy[0], sizes, f[2])]


def _depthwise_backprop_input_shape(ctx: ShapeContext) -> list[Shape]:
    sizes = _sizes_input_shape(ctx, 0, 4)
    if len(sizes) != 4:
        raise ctx.error(f"input_sizes must have 4 entries, got {list(sizes)}")
    return [sizes]


def _conv_backprop_filter_shape(ctx: ShapeContext) -> list[Shape]:
    sizes = _sizes_input_shape(ctx, 1, 4)
    if len(sizes) != 4:
        raise ctx.error(f"filter_sizes must have 4 entries, got {list(sizes)}")
    return [sizes]


def _conv3d_backprop_shape(ctx: ShapeContext) -> list[Shape]:
    """Conv3DBackpropInputV2 and FilterV2: the shape their sizes input gives (5 entries)."""
    index, what = (0, "input_sizes") if "Input" in ctx.op else (1, "filter_sizes")
    sizes = _sizes_input_shape(ctx, index, 5)
    if len(sizes) != 5:
        raise ctx.error(f"{what} must have 5 entries, got {list(sizes)}")
    return [sizes]


def _pool_shape(ctx: ShapeContext, ksize: Sequence[int] | None = None,
                strides: Sequence[int] | None = None) -> list[Shape]:
    attrs = ctx.attrs
    nd = 3 if ctx.op.endswith("3D") else 2
    if attrs["data_format"] == "NCHW_VECT_C":
        return [(None,) * 4]
    fmt = _guard(ctx, data_format, attrs["data_format"], nd + 2)
    x = _with_rank(ctx, ctx.input_shapes[0], nd + 2, "input")
    ksize = attrs["ksize"] if ksize is None else ksize
    strides = attrs["strides"] if strides is None else strides
    k = _guard(ctx, check_window_attrs, "ksize", ksize, fmt, allow_depth=True)
    s = _guard(ctx, check_window_attrs, "strides", strides, fmt, allow_depth=True)
    channels = x[fmt.channel_axis]
    depth_window = ksize[fmt.channel_axis]
    if depth_window != 1:
        # Depthwise max pooling: the window moves over channels only.
        if any(v != 1 for v in k):
            raise ctx.error("MaxPooling supports exactly one of pooling across depth or "
                            "pooling across width/height")
        if channels is not None and channels % depth_window:
            raise ctx.error(f"Depthwise max pooling requires the depth window ({depth_window}) "
                            f"to evenly divide the input depth ({channels})")
        return [fmt.make(x[0], fmt.spatial(x), None if channels is None
                         else channels // depth_window)]
    pads = _guard(ctx, explicit_pads, attrs["padding"], attrs.get("explicit_paddings", []), fmt)
    spatial = _spatial_out(ctx, fmt.spatial(x), k, s, [1] * nd, pads)
    return [fmt.make(x[0], spatial, channels)]


def _pool_v2_shape(ctx: ShapeContext) -> list[Shape]:
    ksize, strides = ctx.value(1), ctx.value(2)
    if ksize is None or strides is None:
        x = ctx.input_shapes[0]
        _with_rank(ctx, x, 4, "input")
        return [(None,) * 4]
    return _pool_shape(ctx, [int(v) for v in np.ravel(ksize)], [int(v) for v in np.ravel(strides)])


def _pool_grad_shape(ctx: ShapeContext) -> list[Shape]:
    rank = 5 if ctx.op.endswith("3DGrad") else 4
    return [_with_rank(ctx, ctx.input_shapes[0], rank, "orig_input")]


def _avg_pool_grad_shape(ctx: ShapeContext) -> list[Shape]:
    rank = 5 if ctx.op == "AvgPool3DGrad" else 4
    sizes = _sizes_input_shape(ctx, 0, rank)
    if len(sizes) != rank:
        raise ctx.error(f"orig_input_shape must have {rank} entries, got {list(sizes)}")
    return [sizes]


def _pool_grad_grad_shape(ctx: ShapeContext) -> list[Shape]:
    """MaxPoolGradGrad and its kin: a gradient of the pooled output, shaped like it."""
    rank = 5 if ctx.op.startswith("MaxPool3D") else 4
    _with_rank(ctx, ctx.input_shapes[0], rank, "orig_input")
    _with_rank(ctx, ctx.input_shapes[2], rank, "grad")
    return [_with_rank(ctx, ctx.input_shapes[1], rank, "orig_output")]


def _channel_axis(ctx: ShapeContext, rank: int) -> int:
    return 1 if ctx.attrs.get("data_format", "NHWC").startswith("NC") else rank - 1


def _check_bias_rank(ctx: ShapeContext, shape: tuple) -> None:
    """At least 2-D; NCHW needs a dim after the channels (the kernels accept 2-D NCHW,
    TensorFlow's shape functions do not)."""
    least = 3 if ctx.attrs.get("data_format", "NHWC") == "NCHW" else 2
    if len(shape) < least:
        raise ctx.error(f"Input tensor must be at least {least}D, got shape {list(shape)}")


def _bias_add_shape(ctx: ShapeContext) -> list[Shape]:
    value, bias = ctx.input_shapes
    bias = _with_rank(ctx, bias, 1, "bias")
    if value is None:
        return [None]
    _check_bias_rank(ctx, value)
    axis = _channel_axis(ctx, len(value))
    out = list(value)
    out[axis] = shapes.merge_dim(value[axis], bias[0], ctx,
                                 "Must provide as many biases as the channel dimension of the "
                                 "input tensor")
    return [tuple(out)]


def _bias_add_grad_shape(ctx: ShapeContext) -> list[Shape]:
    dy = ctx.input_shapes[0]
    if dy is None:
        return [(None,)]
    _check_bias_rank(ctx, dy)
    return [(dy[_channel_axis(ctx, len(dy))],)]


def _merge_inputs_shape(ctx: ShapeContext) -> list[Shape]:
    """Gradient ops: every input has the same shape, and so has the output."""
    shape: Shape = None
    for other in ctx.input_shapes:
        shape = merge_shapes(shape, other, ctx, "inputs must have the same shape")
    return [shape]


def _softmax_shape(ctx: ShapeContext) -> list[Shape]:
    x = ctx.input_shapes[0]
    if x is not None and len(x) < 1:
        raise ctx.error("logits must have >= 1 dimension, got a scalar")
    return [x]


def _xent_shape(ctx: ShapeContext) -> list[Shape]:
    logits, labels = ctx.input_shapes
    both = shapes.broadcast_pair(logits, labels, ctx)
    if both is None:
        return [(None,), (None, None)]
    if len(both) != 2:
        raise ctx.error("logits and labels must be either 2-dimensional, or broadcasted to be "
                        f"2-dimensional, got shapes {list(logits)} and {list(labels)}")
    return [(both[0],), both]


def _sparse_xent_shape(ctx: ShapeContext) -> list[Shape]:
    features = _with_rank(ctx, ctx.input_shapes[0], 2, "logits")
    labels = _with_rank(ctx, ctx.input_shapes[1], 1, "labels")
    batch = shapes.merge_dim(features[0], labels[0], ctx,
                             "logits and labels must have the same first dimension")
    return [(batch,), (batch, features[1])]


def _in_top_k_shape(ctx: ShapeContext) -> list[Shape]:
    predictions = _with_rank(ctx, ctx.input_shapes[0], 2, "predictions")
    targets = _with_rank(ctx, ctx.input_shapes[1], 1, "targets")
    # InTopKV2's k is checked by the kernel only, as in TensorFlow.
    return [(shapes.merge_dim(predictions[0], targets[0], ctx,
                              "predictions and targets must have the same batch size"),)]


def batch_norm_shape(ctx: ShapeContext) -> list[Shape]:
    x = ctx.input_shapes[0]
    name = ctx.attrs["data_format"]
    rank = len(x) if x is not None else (5 if name in ("NDHWC", "NCDHW") else 4)
    if rank not in (4, 5) or (rank == 5 and ctx.op != "FusedBatchNormV3"):
        raise ctx.error(f"input must be 4-dimensional, got shape {list(x)}")
    fmt = _guard(ctx, data_format, name, rank)
    x = _with_rank(ctx, x, rank, "input")
    channels = x[fmt.channel_axis]
    # Training reads mean and variance only to blend them into the running values.
    training_alone = (ctx.attrs["is_training"]
                      and ctx.attrs.get("exponential_avg_factor", 1.0) == 1.0)
    checked = (1, 2) if training_alone else (1, 2, 3, 4)
    for i in checked:
        vec = _with_rank(ctx, ctx.input_shapes[i], 1, f"input {i}")
        channels = shapes.merge_dim(channels, vec[0], ctx,
                                    f"input {i} must have one element per channel of x")
    out = [x] + [(channels,)] * 4
    if ctx.num_outputs == 6:
        out.append(None)
    return out


def _batch_norm_grad_shape(ctx: ShapeContext) -> list[Shape]:
    dy, x = ctx.input_shapes[:2]
    rank = len(dy) if dy is not None else len(x) if x is not None else 4
    fmt = _guard(ctx, data_format, ctx.attrs["data_format"], rank)
    shape = merge_shapes(dy, x, ctx, "y_backprop and x must have the same shape")
    shape = _with_rank(ctx, shape, rank, "y_backprop")
    channels = shape[fmt.channel_axis]
    for i in (2, 3, 4):
        vec = _with_rank(ctx, ctx.input_shapes[i], 1, f"input {i}")
        channels = shapes.merge_dim(channels, vec[0], ctx,
                                    f"input {i} must have one element per channel of x")
    return [shape, (channels,), (channels,), None, None]


def _rank4_unchanged(ctx: ShapeContext) -> list[Shape]:
    shape: Shape = None
    for other in ctx.input_shapes:
        shape = merge_shapes(shape, _with_rank(ctx, other, 4, "input"), ctx,
                             "inputs must have the same shape")
    return [shape]


# --- convolutions ----------------------------------------------------------------------

_CONV_ATTRS = (_PADDING_EXPLICIT, "explicit_paddings: list(int) = []", _FORMAT_2D,
               "dilations: list(int) = [1, 1, 1, 1]")


def _conv_op(name: str, inputs: Sequence[str], type_attr: str, cudnn: bool, shape_fn):
    schema = register_op(name)
    for spec in inputs:
        schema.input(spec)
    schema.output("output: T").attr(type_attr).attr("strides: list(int)")
    if cudnn:
        schema.attr("use_cudnn_on_gpu: bool = true")
    for spec in _CONV_ATTRS:
        schema.attr(spec)
    schema.shape(shape_fn)


_CONV_T = "T: {half, bfloat16, float, double, int32}"
_conv_op("Conv2D", ["input: T", "filter: T"], _CONV_T, True, _conv_shape)
_conv_op("Conv2DBackpropInput", ["input_sizes: int32", "filter: T", "out_backprop: T"], _CONV_T,
         True, _conv_backprop_input_shape)
_conv_op("Conv2DBackpropFilter", ["input: T", "filter_sizes: int32", "out_backprop: T"], _FLOAT,
         True, _conv_backprop_filter_shape)
_conv_op("DepthwiseConv2dNative", ["input: T", "filter: T"], _FLOAT, False, _depthwise_shape)
_conv_op("DepthwiseConv2dNativeBackpropInput",
         ["input_sizes: int32", "filter: T", "out_backprop: T"], _FLOAT, False,
         _depthwise_backprop_input_shape)
_conv_op("DepthwiseConv2dNativeBackpropFilter",
         ["input: T", "filter_sizes: int32", "out_backprop: T"], _FLOAT, False,
         _conv_backprop_filter_shape)
(register_op("Conv3D").input("input: T").input("filter: T").output("output: T").attr(_FLOAT)
    .attr("strides: list(int) >= 5").attr(_PADDING).attr(_FORMAT_3D)
    .attr("dilations: list(int) = [1, 1, 1, 1, 1]").shape(_conv_shape))
(register_op("Conv3DBackpropInputV2").input("input_sizes: Tshape").input("filter: T")
    .input("out_backprop: T").output("output: T").attr(_FLOAT)
    .attr("strides: list(int) >= 5").attr(_PADDING).attr(_FORMAT_3D)
    .attr("dilations: list(int) = [1, 1, 1, 1, 1]").attr("Tshape: {int32, int64} = DT_INT32")
    .shape(_conv3d_backprop_shape))
(register_op("Conv3DBackpropFilterV2").input("input: T").input("filter_sizes: int32")
    .input("out_backprop: T").output("output: T").attr(_FLOAT)
    .attr("strides: list(int) >= 5").attr(_PADDING).attr(_FORMAT_3D)
    .attr("dilations: list(int) = [1, 1, 1, 1, 1]").shape(_conv3d_backprop_shape))


# --- pooling ---------------------------------------------------------------------------

_MAX_POOL_T = (
    "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} "
    "= DT_FLOAT"
)
(register_op("MaxPool").input("input: T").output("output: T").attr(_MAX_POOL_T)
    .attr("ksize: list(int) >= 4").attr("strides: list(int) >= 4").attr(_PADDING_EXPLICIT)
    .attr("explicit_paddings: list(int) = []")
    .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'").shape(_pool_shape))
(register_op("MaxPoolV2").input("input: T").input("ksize: int32").input("strides: int32")
    .output("output: T").attr(_MAX_POOL_T).attr(_PADDING)
    .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'").shape(_pool_v2_shape))
(register_op("AvgPool").input("value: T").output("output: T").attr("ksize: list(int) >= 4")
    .attr("strides: list(int) >= 4").attr(_PADDING).attr(_FORMAT_2D).attr(_FLOAT)
    .shape(_pool_shape))
(register_op("MaxPoolGrad").input("orig_input: T").input("orig_output: T").input("grad: T")
    .output("output: T").attr("ksize: list(int) >= 4").attr("strides: list(int) >= 4")
    .attr(_PADDING_EXPLICIT).attr("explicit_paddings: list(int) = []").attr(_FORMAT_2D)
    .attr(_REAL + " = DT_FLOAT").shape(_pool_grad_shape))
(register_op("MaxPoolGradV2").input("orig_input: T").input("orig_output: T").input("grad: T")
    .input("ksize: int32").input("strides: int32").output("output: T").attr(_PADDING)
    .attr(_FORMAT_2D).attr(_REAL + " = DT_FLOAT").shape(_pool_grad_shape))
(register_op("AvgPoolGrad").input("orig_input_shape: int32").input("grad: T")
    .output("output: T").attr("ksize: list(int) >= 4").attr("strides: list(int) >= 4")
    .attr(_PADDING).attr(_FORMAT_2D).attr(_FLOAT).shape(_avg_pool_grad_shape))
(register_op("MaxPool3D").input("input: T").output("output: T").attr("ksize: list(int) >= 5")
    .attr("strides: list(int) >= 5").attr(_PADDING).attr(_FORMAT_3D)
    .attr("T: {half, bfloat16, float}").shape(_pool_shape))
(register_op("AvgPool3D").input("input: T").output("output: T").attr("ksize: list(int) >= 5")
    .attr("strides: list(int) >= 5").attr(_PADDING).attr(_FORMAT_3D).attr(_FLOAT)
    .shape(_pool_shape))
(register_op("MaxPool3DGrad").input("orig_input: TInput").input("orig_output: TInput")
    .input("grad: T").output("output: T").attr("ksize: list(int) >= 5")
    .attr("strides: list(int) >= 5").attr(_PADDING).attr(_FORMAT_3D)
    .attr("T: {half, bfloat16, float} = DT_FLOAT")
    .attr("TInput: {half, bfloat16, float} = DT_FLOAT")
    .shape(_pool_grad_shape))
(register_op("AvgPool3DGrad").input("orig_input_shape: int32").input("grad: T")
    .output("output: T").attr("ksize: list(int) >= 5").attr("strides: list(int) >= 5")
    .attr(_PADDING).attr(_FORMAT_3D).attr(_FLOAT).shape(_avg_pool_grad_shape))
(register_op("MaxPoolGradGrad").input("orig_input: T").input("orig_output: T").input("grad: T")
    .output("output: T").attr("ksize: list(int) >= 4").attr("strides: list(int) >= 4")
    .attr(_PADDING).attr(_FORMAT_2D).attr(_REAL).shape(_pool_grad_grad_shape))
(register_op("MaxPoolGradGradV2").input("orig_input: T").input("orig_output: T")
    .input("grad: T").input("ksize: int32").input("strides: int32").output("output: T")
    .attr(_PADDING).attr(_FORMAT_2D).attr(_REAL).shape(_pool_grad_grad_shape))
(register_op("MaxPool3DGradGrad").input("orig_input: T").input("orig_output: T")
    .input("grad: T").output("output: T").attr("ksize: list(int) >= 5")
    .attr("strides: list(int) >= 5").attr(_PADDING).attr(_FORMAT_3D).attr(_REAL)
    .shape(_pool_grad_grad_shape))


# --- bias ------------------------------------------------------------------------------

(register_op("BiasAdd").input("value: T").input("bias: T").output("output: T").attr(_NUMBER)
    .attr(_FORMAT_2D).shape(_bias_add_shape))
(register_op("BiasAddV1").input("value: T").input("bias: T").output("output: T").attr(_NUMBER)
    .shape(_bias_add_shape))
(register_op("BiasAddGrad").input("out_backprop: T").output("output: T").attr(_NUMBER)
    .attr(_FORMAT_2D).shape(_bias_add_grad_shape))


# --- activations and their gradients ---------------------------------------------------

(register_op("Relu").input("features: T").output("activations: T")
    .attr(_REAL[:-1] + ", qint8}").shape(shapes.unchanged))
register_op("Relu6").input("features: T").output("activations: T").attr(_REAL).shape(
    shapes.unchanged
)
for _name in ("Elu", "Selu", "Softplus", "Softsign"):
    register_op(_name).input("features: T").output("activations: T").attr(_FLOAT).shape(
        shapes.unchanged
    )
(register_op("LeakyRelu").input("features: T").output("activations: T")
    .attr("alpha: float = 0.2").attr(_FLOAT + " = DT_FLOAT").shape(shapes.unchanged))

for _name in ("ReluGrad", "Relu6Grad"):
    (register_op(_name).input("gradients: T").input("features: T").output("backprops: T")
        .attr(_REAL).shape(_merge_inputs_shape))
for _name in ("EluGrad", "SeluGrad"):
    (register_op(_name).input("gradients: T").input("outputs: T").output("backprops: T")
        .attr(_FLOAT).shape(_merge_inputs_shape))
for _name in ("SoftplusGrad", "SoftsignGrad"):
    (register_op(_name).input("gradients: T").input("features: T").output("backprops: T")
        .attr(_FLOAT).shape(_merge_inputs_shape))
(register_op("LeakyReluGrad").input("gradients: T").input("features: T")
    .output("backprops: T").attr("alpha: float = 0.2").attr(_FLOAT + " = DT_FLOAT")
    .shape(_merge_inputs_shape))


# --- softmax and losses ----------------------------------------------------------------

register_op("Softmax").input("logits: T").output("softmax: T").attr(_FLOAT).shape(_softmax_shape)
(register_op("LogSoftmax").input("logits: T").output("logsoftmax: T").attr(_FLOAT)
    .shape(_softmax_shape))
(register_op("SoftmaxCrossEntropyWithLogits").input("features: T").input("labels: T")
    .output("loss: T").output("backprop: T").attr(_FLOAT).shape(_xent_shape))
(register_op("SparseSoftmaxCrossEntropyWithLogits").input("features: T")
    .input("labels: Tlabels").output("loss: T").output("backprop: T").attr(_FLOAT)
    .attr("Tlabels: {int32, int64} = DT_INT64").shape(_sparse_xent_shape))
register_op("L2Loss").input("t: T").output("output: T").attr(_FLOAT).shape(shapes.scalar)
(register_op("InTopK").input("predictions: float").input("targets: T").output("precision: bool")
    .attr("k: int").attr("T: {int32, int64} = DT_INT32").shape(_in_top_k_shape))
(register_op("InTopKV2").input("predictions: float").input("targets: T").input("k: T")
    .output("precision: bool").attr("T: {int32, int64} = DT_INT32").shape(_in_top_k_shape))


# --- normalization ---------------------------------------------------------------------

_BN_ATTRS = ("epsilon: float = 0.0001", "exponential_avg_factor: float = 1.0")


def _batch_norm_op(name: str, t: str, u: str | None, formats: str, reserve_3: bool) -> None:
    stat = "U" if u else "T"
    schema = register_op(name).input("x: T")
    for arg in ("scale", "offset", "mean", "variance"):
        schema.input(f"{arg}: {stat}")
    schema.output("y: T")
    for arg in ("batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"):
        schema.output(f"{arg}: {stat}")
    if reserve_3:
        schema.output(f"reserve_space_3: {stat}")
    schema.attr(t)
    if u:
        schema.attr(u)
    for spec in _BN_ATTRS:
        schema.attr(spec)
    schema.attr(f"data_format: {formats} = 'NHWC'").attr("is_training: bool = true")
    schema.shape(batch_norm_shape)


def _batch_norm_grad_op(name: str, t: str, u: str | None, formats: str, reserve: int) -> None:
    stat = "U" if u else "T"
    schema = register_op(name).input("y_backprop: T").input("x: T")
    schema.input("scale: float" if u else "scale: T")
    for i in range(1, reserve + 1):
        schema.input(f"reserve_space_{i}: {stat}")
    schema.output("x_backprop: T").output(f"scale_backprop: {stat}")
    schema.output(f"offset_backprop: {stat}")
    schema.output(f"reserve_space_{reserve + 1}: {stat}")
    schema.output(f"reserve_space_{reserve + 2}: {stat}")
    schema.attr(t)
    if u:
        schema.attr(u)
    schema.attr("epsilon: float = 0.0001").attr(f"data_format: {formats} = 'NHWC'")
    schema.attr("is_training: bool = true").shape(_batch_norm_grad_shape)


_FORMATS_2D = "{'NHWC', 'NCHW'}"
_FORMATS_ANY = "{'NHWC', 'NCHW', 'NDHWC', 'NCDHW'}"
_BN_T = "T: {half, bfloat16, float}"
_batch_norm_op("FusedBatchNorm", "T: {float}", None, _FORMATS_2D, False)
_batch_norm_op("FusedBatchNormV2", _BN_T, "U: {float}", _FORMATS_2D, False)
_batch_norm_op("FusedBatchNormV3", _BN_T, "U: {bfloat16, float}", _FORMATS_ANY, True)
_batch_norm_grad_op("FusedBatchNormGrad", "T: {float}", None, _FORMATS_2D, 2)
_batch_norm_grad_op("FusedBatchNormGradV2", _BN_T, "U: {float}", _FORMATS_2D, 2)
_batch_norm_grad_op("FusedBatchNormGradV3", _BN_T, "U: {float}", _FORMATS_ANY, 3)

_LRN_ATTRS = ("depth_radius: int = 5", "bias: float = 1.0", "alpha: float = 1.0",
              "beta: float = 0.5", "T: {half, bfloat16, float} = DT_FLOAT")
_lrn = register_op("LRN").input("input: T").output("output: T").shape(_rank4_unchanged)
_lrn_grad = (register_op("LRNGrad").input("input_grads: T").input("input_image: T")
             .input("output_image: T").output("output: T").shape(_rank4_unchanged))
for _spec in _LRN_ATTRS:
    _lrn.attr(_spec)
    _lrn_grad.attr(_spec)


# --- max pooling with argmax ---------------------------------------------------------------


def _max_pool_with_argmax_shape(ctx: ShapeContext) -> list[Shape]:
    """MaxPool's NHWC output shape, for the maxima and for their indices."""
    fmt = FORMATS["NHWC"]
    x = _with_rank(ctx, ctx.input_shapes[0], 4, "input")
    k = _guard(ctx, check_window_attrs, "ksize", ctx.attrs["ksize"], fmt)
    s = _guard(ctx, check_window_attrs, "strides", ctx.attrs["strides"], fmt)
    spatial = _spatial_out(ctx, fmt.spatial(x), k, s, [1, 1], [(0, 0), (0, 0)])
    out = fmt.make(x[0], spatial, x[3])
    return [out, out]


def _max_pool_grad_with_argmax_shape(ctx: ShapeContext) -> list[Shape]:
    return [_with_rank(ctx, ctx.input_shapes[0], 4, "input")]


_ARGMAX_ATTRS = ("ksize: list(int) >= 4", "strides: list(int) >= 4",
                 "Targmax: {int32, int64} = DT_INT64", _PADDING,
                 "include_batch_in_index: bool = false", _REAL)
_argmax = (register_op("MaxPoolWithArgmax").input("input: T").output("output: T")
           .output("argmax: Targmax").shape(_max_pool_with_argmax_shape))
_argmax_grad = (register_op("MaxPoolGradWithArgmax").input("input: T").input("grad: T")
                .input("argmax: Targmax").output("output: T")
                .shape(_max_pool_grad_with_argmax_shape))
for _spec in _ARGMAX_ATTRS:
    _argmax.attr(_spec)
    _argmax_grad.attr(_spec)
