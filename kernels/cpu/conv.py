"""CPU kernels: convolutions and pooling (numpy), with their gradients.

Every kernel works channels-last inside: an NCHW (NCDHW) input is viewed as
NHWC by a transpose, without a copy, and the result is transposed back. The
window arithmetic (output sizes, SAME's `total // 2` padding before) is
`tfx.core.ops.nn_ops.window_output`, the one the shape functions use.

How each family computes, and why:

- Conv2D/Conv3D: a 1x1 convolution is one matrix product of the (pixels,
  channels) matrix with the filter. Anything else gathers the taps of each
  output pixel from the padded input into a (pixels, taps * channels) matrix
  (im2col: one strided view, one copy) and multiplies it by the filter, so the
  arithmetic is a single float32 BLAS call. Grouped convolution (input depth a
  multiple of the filter's) is one batched matrix product over the groups.
- DepthwiseConv2dNative: no channel mixing, so no matrix product; a single
  einsum over a strided view that holds every tap. With stride 1 the view's
  width and channel dims merge into one long contiguous run, which is what
  makes einsum's inner loop fast. With numba installed, float32 with channel
  multiplier 1 takes a compiled loop instead (`jit`), which skips the padded
  copy and, in the fused kernel, adds the bias and clamps on the way out.
- Pooling: a maximum (or sum) accumulated over the kh*kw strided slices of
  the padded input. Max pooling pads with the dtype's lowest value so padding
  never wins; average pooling divides by the number of real (non-padded)
  elements under each window, as TensorFlow does.
- Gradients scatter-add per tap into a zero-padded buffer and crop it.
  MaxPoolGrad routes each gradient to the first maximum of its window in
  row-major order (strictly greater wins), TensorFlow's CPU rule; MaxPool3DGrad
  gives it to every element within 1e-5 of the maximum, as TensorFlow's 3-D
  kernel does. MaxPoolGradGrad (and its V2 and 3-D forms) takes, per window, the
  value at the first element equal to the pooled maximum.

float16 and bfloat16 are computed in float32 and rounded once at the end;
outputs have exactly the node's dtype. Kernels keep no state between calls
and never write into their inputs. Bad inputs raise InvalidArgumentError
(UnimplementedError for what TensorFlow's CPU kernels do not support either),
without naming the node: the executor adds it.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tfx.core import dtypes, limits
from tfx.core.arrays import namespace
from tfx.core.dtypes import FLOATS, REALS
from tfx.core.errors import InvalidArgumentError, UnimplementedError
from tfx.core.ops import nn_ops
from tfx.core.ops.nn_ops import DataFormat
from tfx.kernels.base import OpKernel, register_kernel
from tfx.kernels.cpu import intra_op, jit
from tfx.kernels.cpu.intra_op import map_batch

_HALF = frozenset({dtypes.float16.np, dtypes.bfloat16.np})
Pads = Sequence[tuple[int, int]]


def work_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype arithmetic runs in: float32 for the half types, else the dtype itself."""
    return np.dtype(np.float32) if dtype in _HALF else dtype


def _lowest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).min if dtype.kind in "iu" else -np.inf


def _lowest_finite(dtype: np.dtype) -> float:
    """The most negative finite value of a float dtype, bfloat16 included."""
    if dtype == dtypes.bfloat16.np:
        return -(2 - 2.0**-7) * 2.0**127
    return float(np.finfo(dtype).min)


# --- layout and geometry ---------------------------------------------------------------


def _channels_last(x: np.ndarray, fmt: DataFormat) -> np.ndarray:
    return x if fmt.channels_last else np.moveaxis(x, 1, -1)


def _restore_layout(y: np.ndarray, fmt: DataFormat, dtype: np.dtype) -> np.ndarray:
    """Back to the node's layout and dtype (a view where possible)."""
    if y.dtype != dtype:
        y = y.astype(dtype)
    return y if fmt.channels_last else np.moveaxis(y, -1, 1)


class Window:
    """A node's window attrs: data format, spatial strides and dilations, padding."""

    __slots__ = ("fmt", "strides", "dilations", "padding", "explicit", "_cache")

    def __init__(self, fmt: DataFormat, strides: Sequence[int], dilations: Sequence[int],
                 padding: str, explicit: Pads) -> None:
        self.fmt = fmt
        self.strides = tuple(strides)
        self.dilations = tuple(dilations)
        self.padding = padding
        self.explicit = tuple(explicit)
        # Geometry per (input sizes, window): a step repeats the same shapes, and
        # dict reads and writes are atomic, so concurrent steps can share it.
        self._cache: dict[tuple, tuple[tuple[int, ...], tuple[tuple[int, int], ...]]] = {}

    @classmethod
    def from_attrs(cls, rank: int, strides: Sequence[int], padding: str,
                   data_format: str, dilations: Sequence[int] | None = None,
                   explicit_paddings: Sequence[int] = ()) -> Window:
        fmt = nn_ops.data_format(data_format, rank)
        spatial_strides = nn_ops.check_window_attrs("strides", strides, fmt)
        spatial_dilations = (
            [1] * (rank - 2) if dilations is None
            else nn_ops.check_window_attrs("dilations", dilations, fmt)
        )
        pads = nn_ops.explicit_pads(padding, explicit_paddings, fmt)
        return cls(fmt, spatial_strides, spatial_dilations, padding, pads)

    def geometry(self, sizes: Sequence[int], windows: Sequence[int]
                 ) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """Output sizes and per-dim (before, after) padding for these input sizes."""
        key = (*sizes, *windows)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        outs, pads = [], []
        for size, window, stride, dilation, (before, after) in zip(
            sizes, windows, self.strides, self.dilations, self.explicit
        ):
            out, before, after = nn_ops.window_output(
                size, window, stride, dilation, self.padding, before, after
            )
            outs.append(out)
            pads.append((before, after))
        result = (tuple(outs), tuple(pads))
        if len(self._cache) < 64:
            self._cache[key] = result
        return result


# From this many elements a padded copy fills only its borders, not all of it first
# (below, the extra numpy calls cost more than the pass they spare).
_FILL_BORDERS_FROM_SIZE = 1 << 15


def _pad(x: np.ndarray, pads: Pads, value: Any = 0) -> np.ndarray:
    """x (channels-last) padded on its spatial dims; x itself when there is no padding."""
    if not any(before or after for before, after in pads):
        return x
    shape = (x.shape[0], *(n + b + a for n, (b, a) in zip(x.shape[1:-1], pads)), x.shape[-1])
    limits.check_allocation(shape, x.itemsize, "padded input")
    interior = (slice(None), *(slice(b, b + n) for n, (b, _) in zip(x.shape[1:-1], pads)))
    xp = namespace(x)
    if x.size < _FILL_BORDERS_FROM_SIZE:
        out = xp.full(shape, value, x.dtype) if value else xp.zeros(shape, x.dtype)
        out[interior] = x
        return out
    # The interior is written once and only the borders are filled: np.zeros would write
    # every element twice, a pass over memory that two cores do not share out.
    out = xp.empty(shape, x.dtype)
    out[interior] = x
    for axis, (before, after) in enumerate(pads, start=1):
        lead = (slice(None),) * axis
        if before:
            out[(*lead, slice(0, before))] = value
        if after:
            out[(*lead, slice(shape[axis] - after, None))] = value
    return out


def _crop(xp: np.ndarray, pads: Pads, sizes: Sequence[int]) -> np.ndarray:
    return xp[(slice(None), *(slice(b, b + n) for n, (b, _) in zip(sizes, pads)))]


def _strided(x: np.ndarray, shape: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """A view of x with the given shape and byte strides. The ndarray constructor is ten
    times cheaper than as_strided, and checks the view stays inside x's buffer; it needs
    a contiguous x. A GPU array takes CuPy's as_strided."""
    if type(x) is not np.ndarray:
        return namespace(x).lib.stride_tricks.as_strided(x, shape, strides)
    if x.flags.c_contiguous:
        return np.ndarray(shape, x.dtype, x, 0, strides)
    return as_strided(x, shape, strides, writeable=False)


def _tap_view(xp: np.ndarray, outs: Sequence[int], windows: Sequence[int],
              strides: Sequence[int], dilations: Sequence[int]) -> np.ndarray:
    """Read-only view v[n, *out, *tap, c] = xp[n, out * stride + tap * dilation, c]."""
    st = xp.strides
    nd = len(outs)
    shape = (xp.shape[0], *outs, *windows, xp.shape[-1])
    view_strides = (
        st[0],
        *(st[1 + i] * strides[i] for i in range(nd)),
        *(st[1 + i] * dilations[i] for i in range(nd)),
        st[-1],
    )
    return _strided(xp, shape, view_strides)


def _tap_slices(windows: Sequence[int], outs: Sequence[int], strides: Sequence[int],
                dilations: Sequence[int]) -> list[tuple[slice, ...]]:
    """For each tap (row-major), the slice of the padded input it reads for every output."""
    # With no outputs along a dim the slice must be empty: `(o - 1) * s + 1` would be a
    # negative stop there, which numpy counts from the end.
    ranges = [
        [slice(t * d, t * d + (o - 1) * s + 1 if o else t * d, s) for t in range(k)]
        for k, o, s, d in zip(windows, outs, strides, dilations)
    ]
    return [(slice(None), *combo, slice(None)) for combo in itertools.product(*ranges)]


def _check_rank(x: np.ndarray, rank: int, what: str) -> None:
    if x.ndim != rank:
        raise InvalidArgumentError(f"{what} must be {rank}-dimensional, got shape {list(x.shape)}")


def _sizes_vector(value: np.ndarray, what: str) -> list[int]:
    sizes = np.asarray(value)
    if sizes.ndim != 1:
        raise InvalidArgumentError(f"{what} must be a 1-D vector, got shape {list(sizes.shape)}")
    result = [int(v) for v in sizes]
    if any(v < 0 for v in result):
        raise InvalidArgumentError(f"{what} must be non-negative, got {result}")
    return result


# --- convolution -----------------------------------------------------------------------


def _groups(channels: int, filter_depth: int, out_depth: int) -> int:
    if filter_depth <= 0 or channels % filter_depth:
        raise InvalidArgumentError(
            f"input depth must be evenly divisible by filter depth: {channels} vs {filter_depth}"
        )
    groups = channels // filter_depth
    if out_depth % groups:
        raise InvalidArgumentError(
            f"output depth {out_depth} must be evenly divisible by the number of groups {groups}"
        )
    return groups


def _grouped_matmul(cols: np.ndarray, w2: np.ndarray, groups: int, taps: int) -> np.ndarray:
    """cols (P, taps * C) @ w2 (taps * Cg, O) where group g reads channels g*Cg.. and
    writes outputs g*Og..; one batched matmul over the groups."""
    pixels = cols.shape[0]
    out_depth = w2.shape[1]
    per_group = w2.shape[0] // taps
    a = cols.reshape(pixels, taps, groups, per_group).transpose(2, 0, 1, 3)
    a = a.reshape(groups, pixels, taps * per_group)
    b = w2.reshape(taps * per_group, groups, out_depth // groups).transpose(1, 0, 2)
    return np.matmul(a, b).transpose(1, 0, 2).reshape(pixels, out_depth)


def conv_forward(x: np.ndarray, w: np.ndarray, window: Window) -> np.ndarray:
    """N-d convolution of channels-last x with w (*k, Cg, O); result in x's dtype."""
    nd = x.ndim - 2
    windows, (filter_depth, out_depth) = w.shape[:nd], w.shape[nd:]
    channels = x.shape[-1]
    groups = _groups(channels, filter_depth, out_depth)
    outs, pads = window.geometry(x.shape[1:-1], windows)
    batch = x.shape[0]
    taps = math.prod(windows)
    if taps == 1 and not any(b or a for b, a in pads):
        # 1x1: every output pixel is one input pixel times the filter matrix.
        if any(s != 1 for s in window.strides):
            x = x[(slice(None), *(slice(None, None, s) for s in window.strides))]
        cols = x.reshape(-1, channels)
    else:
        xp = _pad(x, pads)
        cols_shape = (batch * math.prod(outs), taps * channels)
        limits.check_allocation(cols_shape, x.itemsize, "convolution patches")
        cols = _tap_view(xp, outs, windows, window.strides, window.dilations).reshape(cols_shape)
    w2 = w.reshape(taps * filter_depth, out_depth)
    y = cols @ w2 if groups == 1 else _grouped_matmul(cols, w2, groups, taps)
    return y.reshape(batch, *outs, out_depth)


def conv_backprop_input(shape: Sequence[int], w: np.ndarray, dy: np.ndarray,
                        window: Window) -> np.ndarray:
    """Gradient of conv_forward with respect to its input (channels-last `shape`)."""
    nd = len(shape) - 2
    windows, (filter_depth, out_depth) = w.shape[:nd], w.shape[nd:]
    channels = shape[-1]
    groups = _groups(channels, filter_depth, out_depth)
    outs, pads = window.geometry(shape[1:-1], windows)
    _check_backprop_shape(dy, (shape[0], *outs, out_depth))
    taps = math.prod(windows)
    pixels = shape[0] * math.prod(outs)
    dy2 = dy.reshape(pixels, out_depth)
    w2 = w.reshape(taps * filter_depth, out_depth)
    if groups == 1:
        cols = dy2 @ w2.T
    else:
        per_out = out_depth // groups
        a = dy2.reshape(pixels, groups, per_out).transpose(1, 0, 2)
        b = w2.reshape(taps * filter_depth, groups, per_out).transpose(1, 2, 0)
        cols = np.matmul(a, b).reshape(groups, pixels, taps, filter_depth)
        cols = cols.transpose(1, 2, 0, 3).reshape(pixels, taps * channels)
    cols = cols.reshape(shape[0], *outs, taps, channels)
    padded = (shape[0], *(n + b + a for n, (b, a) in zip(shape[1:-1], pads)), channels)
    limits.check_allocation(padded, dy.itemsize, "input gradient")
    dxp = np.zeros(padded, cols.dtype)
    for t, where in enumerate(_tap_slices(windows, outs, window.strides, window.dilations)):
        dxp[where] += cols[(Ellipsis, t, slice(None))]
    return _crop(dxp, pads, shape[1:-1])


def conv_backprop_filter(x: np.ndarray, filter_shape: Sequence[int], dy: np.ndarray,
                         window: Window) -> np.ndarray:
    """Gradient of conv_forward with respect to its filter."""
    nd = x.ndim - 2
    windows, (filter_depth, out_depth) = tuple(filter_shape[:nd]), filter_shape[nd:]
    channels = x.shape[-1]
    groups = _groups(channels, filter_depth, out_depth)
    outs, pads = window.geometry(x.shape[1:-1], windows)
    _check_backprop_shape(dy, (x.shape[0], *outs, out_depth))
    taps = math.prod(windows)
    pixels = x.shape[0] * math.prod(outs)
    xp = _pad(x, pads)
    limits.check_allocation((pixels, taps * channels), x.itemsize, "convolution patches")
    cols = _tap_view(xp, outs, windows, window.strides, window.dilations)
    cols = cols.reshape(pixels, taps * channels)
    dy2 = dy.reshape(pixels, out_depth)
    if groups == 1:
        dw = cols.T @ dy2
    else:
        per_out = out_depth // groups
        a = cols.reshape(pixels, taps, groups, filter_depth).transpose(2, 1, 3, 0)
        a = a.reshape(groups, taps * filter_depth, pixels)
        b = dy2.reshape(pixels, groups, per_out).transpose(1, 0, 2)
        dw = np.matmul(a, b).transpose(1, 0, 2).reshape(taps * filter_depth, out_depth)
    return dw.reshape(filter_shape)


def _check_backprop_shape(dy: np.ndarray, expected: Sequence[int]) -> None:
    if tuple(dy.shape) != tuple(expected):
        raise InvalidArgumentError(
            f"out_backprop has shape {list(dy.shape)} but the convolution's output would have "
            f"shape {list(expected)} (both channels-last)"
        )


class _Conv(OpKernel):
    """Shared setup of convolution kernels: window attrs bound once."""

    expensive = True
    rank = 4

    def setup(self, strides: Sequence[int], padding: str, data_format: str = "NHWC",
              dilations: Sequence[int] | None = None, explicit_paddings: Sequence[int] = (),
              **_: Any) -> None:
        self._window = Window.from_attrs(self.rank, strides, padding, data_format, dilations,
                                         explicit_paddings)
        self._fmt = self._window.fmt
        self._dtype = self.output_types[0].np
        self._work = work_dtype(self._dtype)

    def work(self, x, w, *rest) -> int:
        if x.ndim != self.rank or w.ndim != self.rank:  # a gradient: a shape comes first
            return x.size + w.size + sum(r.size for r in rest)
        # Multiply-adds (ignoring strides) over 8, as MatMul counts them.
        return x.size * w.size // max(1, w.shape[-2]) // 8

    def split_work(self, x: np.ndarray, w: np.ndarray) -> int:
        """The multiply-adds `intra_op` weighs when splitting a forward pass over the batch."""
        return self.work(x, w) * 8

    def _input(self, x: np.ndarray, what: str) -> np.ndarray:
        _check_rank(x, self.rank, what)
        return _channels_last(x, self._fmt).astype(self._work, copy=False)

    def _filter(self, w: np.ndarray) -> np.ndarray:
        _check_rank(w, self.rank, "filter")
        return w.astype(self._work, copy=False)

    def _sizes(self, value: np.ndarray, known: np.ndarray, what: str) -> list[int]:
        """A full channels-last shape from a sizes input of rank entries (or spatial ones)."""
        sizes = _sizes_vector(value, what)
        if len(sizes) == self.rank - 2:
            # Spatial sizes only: batch and depth come from the other operands.
            return [known.shape[0], *sizes, -1]
        if len(sizes) != self.rank:
            raise InvalidArgumentError(
                f"{what} must have {self.rank} (or {self.rank - 2}) entries, got {sizes}"
            )
        fmt = self._fmt
        return [sizes[0], *fmt.spatial(sizes), sizes[fmt.channel_axis]]


@register_kernel("Conv2D", "CPU", T=FLOATS | {dtypes.int32})
class Conv2D(_Conv):
    """2-D convolution (cross-correlation), optionally grouped; NHWC or NCHW."""

    def compute(self, x, w):
        x_last, w = self._input(x, "input"), self._filter(w)
        if w.size == 0:
            self._check_empty_filter(x_last, w)

        def forward(rows: slice) -> np.ndarray:
            return _restore_layout(conv_forward(x_last[rows], w, self._window), self._fmt,
                                   self._dtype)

        if x.shape[0] < 2 or intra_op.serial() or type(x) is not np.ndarray:
            return (forward(slice(None)),)
        return (map_batch(forward, x.shape[0], self.split_work(x, w), self._dtype),)

    def split_work(self, x: np.ndarray, w: np.ndarray) -> int:
        # A 1x1 filter is a plain matrix product, whose BLAS uses the cores itself.
        return 0 if math.prod(w.shape[:-2]) == 1 else super().split_work(x, w)

    def _check_empty_filter(self, x: np.ndarray, w: np.ndarray) -> None:
        """TensorFlow's Conv2D rejects a filter with no elements unless its output is
        empty anyway (a zero-size batch, spatial dim or output depth)."""
        outs, _ = self._window.geometry(x.shape[1:-1], w.shape[:-2])
        if x.shape[0] and w.shape[-1] and all(outs):
            raise InvalidArgumentError(_EMPTY_FILTER)


_EMPTY_FILTER = "filter must not have zero elements (i.e. all dimensions must be non-zero)"


@register_kernel("Conv3D", "CPU", T=FLOATS)
class Conv3D(Conv2D):
    """3-D convolution; NDHWC or NCDHW."""

    rank = 5

    def _check_empty_filter(self, x: np.ndarray, w: np.ndarray) -> None:
        # Conv3D checks before looking at its output.
        raise InvalidArgumentError(_EMPTY_FILTER)


class _BackpropInput(_Conv):
    """Gradient of a convolution with respect to its input, by `backprop_input`."""

    backprop_input: Callable[..., np.ndarray]
    # Whether input_sizes may give the spatial sizes alone (Conv2DBackpropInput only).
    spatial_sizes = True

    def compute(self, input_sizes, w, dy):
        w = self._filter(w)
        dy = self._input(dy, "out_backprop")
        if not self.spatial_sizes and np.size(input_sizes) != self.rank:
            raise InvalidArgumentError(
                f"input_sizes must have {self.rank} entries, got {np.asarray(input_sizes).tolist()}"
            )
        shape = self._sizes(input_sizes, dy, "input_sizes")
        if shape[-1] == -1:
            shape[-1] = w.shape[2]
        dx = type(self).backprop_input(shape, w, dy, self._window)
        return (_restore_layout(dx, self._fmt, self._dtype),)


@register_kernel("Conv2DBackpropInput", "CPU", T=FLOATS | {dtypes.int32})
class Conv2DBackpropInput(_BackpropInput):
    """Gradient of Conv2D with respect to its input."""

    backprop_input = staticmethod(conv_backprop_input)


@register_kernel("Conv2DBackpropFilter", "CPU", T=FLOATS)
class Conv2DBackpropFilter(_Conv):
    """Gradient of Conv2D with respect to its filter."""

    def compute(self, x, filter_sizes, dy):
        x = self._input(x, "input")
        sizes = _sizes_vector(filter_sizes, "filter_sizes")
        if len(sizes) != self.rank:
            raise InvalidArgumentError(f"filter_sizes must have {self.rank} entries, got {sizes}")
        dw = conv_backprop_filter(x, sizes, self._input(dy, "out_backprop"), self._window)
        return (dw.astype(self._dtype, copy=False),)


@register_kernel("Conv3DBackpropInputV2", "CPU", T=FLOATS)
class Conv3DBackpropInputV2(_BackpropInput):
    """Gradient of Conv3D with respect to its input; input_sizes has all 5 entries."""

    rank = 5
    backprop_input = staticmethod(conv_backprop_input)
    spatial_sizes = False


@register_kernel("Conv3DBackpropFilterV2", "CPU", T=FLOATS)
class Conv3DBackpropFilterV2(Conv2DBackpropFilter):
    """Gradient of Conv3D with respect to its filter."""

    rank = 5


# --- depthwise convolution -------------------------------------------------------------


def _depthwise_geometry(x_shape: Sequence[int], w_shape: Sequence[int], window: Window):
    kh, kw, depth, _ = w_shape
    if x_shape[-1] != depth:
        raise InvalidArgumentError(
            f"input and filter must have the same depth: {x_shape[-1]} vs {depth}"
        )
    return window.geometry(x_shape[1:3], (kh, kw))


def _tile_filter(w: np.ndarray, width: int) -> np.ndarray:
    """w (kh, kw, C, M) repeated along a row of `width` pixels: (kh, kw, width * C, M)."""
    kh, kw, depth, mult = w.shape
    tiled = namespace(w).empty((kh, kw, width, depth, mult), w.dtype)
    tiled[...] = w[:, :, None]
    return tiled.reshape(kh, kw, width * depth, mult)


def _merged_einsum(view: np.ndarray, tiled: np.ndarray) -> np.ndarray:
    """Sum over taps of view (kh, kw, N, OH, Q) times tiled (kh, kw, Q, M): (N, OH, Q, M)."""
    if tiled.shape[-1] == 1:
        return np.einsum("ijnhq,ijq->nhq", view, tiled[..., 0])
    return np.einsum("ijnhq,ijqm->nhqm", view, tiled)


def depthwise_loops(x: np.ndarray, w: np.ndarray) -> Any:
    """jit's compiled loops when they can compute this depthwise convolution (float32, channel
    multiplier 1, finite filter, numba installed), else None.

    The loops skip the taps that fall in the padding, where TensorFlow (and the numpy path)
    multiply a zero: the same unless a filter value is inf or NaN (0 * inf is NaN).
    """
    if (x.dtype != np.float32 or w.dtype != np.float32 or w.shape[3] != 1
            or type(x) is not np.ndarray):
        return None
    loops = jit.loops()
    if loops is None or not np.isfinite(w).all():
        return None
    return loops


def depthwise_compiled(loops: Any, x: np.ndarray, w: np.ndarray, window: Window,
                       bias: np.ndarray | None = None, lo: float = -np.inf,
                       hi: float = np.inf) -> np.ndarray:
    """depthwise_forward, plus `bias` and clamped to [lo, hi], by `depthwise_loops`' loop."""
    (oh, ow), pads = _depthwise_geometry(x.shape, w.shape, window)
    depth = w.shape[2]
    bias = np.zeros(depth, np.float32) if bias is None else np.ascontiguousarray(bias)
    if bias.shape != (depth,) or bias.dtype != np.float32:
        raise InvalidArgumentError(f"the bias must be float32 of shape [{depth}], got "
                                   f"{bias.dtype} {list(bias.shape)}")
    out = np.empty((x.shape[0], oh, ow, depth), np.float32)
    x, taps = np.ascontiguousarray(x), np.ascontiguousarray(w[:, :, :, 0])
    lo, hi = np.float32(lo), np.float32(hi)
    if taps.shape[:2] == (3, 3) and window.dilations == (1, 1):
        loops.depthwise_conv_3x3(x, taps, bias, out, *window.strides, pads[0][0], pads[1][0],
                                 lo, hi)
    else:
        loops.depthwise_conv(x, taps, bias, out, *window.strides, *window.dilations,
                             pads[0][0], pads[1][0], lo, hi)
    return out


def depthwise_forward(x: np.ndarray, w: np.ndarray, window: Window) -> np.ndarray:
    """Depthwise 2-D convolution of channels-last x with w (kh, kw, C, M): (N, OH, OW, C*M)."""
    loops = depthwise_loops(x, w)
    if loops is not None:
        return depthwise_compiled(loops, x, w, window)
    (oh, ow), pads = _depthwise_geometry(x.shape, w.shape, window)
    kh, kw, depth, mult = w.shape
    xp = namespace(x).ascontiguousarray(_pad(x, pads))
    batch = x.shape[0]
    # The views below merge width and channels into one run, so they need xp's C-order
    # strides. xp.strides can differ on size-1 dims even when xp is flagged contiguous
    # (a channels-last view of NCHW input with one channel keeps the NCHW channel stride),
    # so derive them from the shape.
    sc = xp.itemsize
    sw = sc * depth
    sh = sw * xp.shape[2]
    sn = sh * xp.shape[1]
    dh, dw = window.dilations
    if window.strides == (1, 1):
        # Width and channels merge into one contiguous run per output row.
        view = _strided(xp, (kh, kw, batch, oh, ow * depth), (dh * sh, dw * sw, sn, sh, sc))
        y = _merged_einsum(view, _tile_filter(w, ow))
    elif window.strides[1] <= 2 and ow >= 8:
        # A column stride breaks the width-channel run, and einsum's short inner loops
        # then cost more than the arithmetic: computing every column of the strided
        # rows and dropping the extra ones is faster for wide outputs.
        s_h, s_w = window.strides
        full = (ow - 1) * s_w + 1
        view = _strided(xp, (kh, kw, batch, oh, full * depth),
                        (dh * sh, dw * sw, sn, s_h * sh, sc))
        y = _merged_einsum(view, _tile_filter(w, full))
        y = y.reshape(batch, oh, full, depth * mult)[:, :, ::s_w]
    else:
        s_h, s_w = window.strides
        view = _strided(xp, (kh, kw, batch, oh, ow, depth),
                        (dh * sh, dw * sw, sn, s_h * sh, s_w * sw, sc))
        if mult == 1:
            y = np.einsum("ijnhwc,ijc->nhwc", view, w[:, :, :, 0])
        else:
            y = np.einsum("ijnhwc,ijcm->nhwcm", view, w)
    return y.reshape(batch, oh, ow, depth * mult)


def depthwise_backprop_input(shape: Sequence[int], w: np.ndarray, dy: np.ndarray,
                             window: Window) -> np.ndarray:
    (oh, ow), pads = _depthwise_geometry(shape, w.shape, window)
    kh, kw, depth, mult = w.shape
    _check_backprop_shape(dy, (shape[0], oh, ow, depth * mult))
    dy5 = dy.reshape(shape[0], oh, ow, depth, mult)
    padded = (shape[0], shape[1] + sum(pads[0]), shape[2] + sum(pads[1]), depth)
    limits.check_allocation(padded, dy.itemsize, "input gradient")
    dxp = np.zeros(padded, dy.dtype)
    slices = _tap_slices((kh, kw), (oh, ow), window.strides, window.dilations)
    for (i, j), where in zip(itertools.product(range(kh), range(kw)), slices):
        if mult == 1:
            dxp[where] += dy5[..., 0] * w[i, j, :, 0]
        else:
            dxp[where] += np.einsum("nhwcm,cm->nhwc", dy5, w[i, j])
    return _crop(dxp, pads, shape[1:3])


def depthwise_backprop_filter(x: np.ndarray, filter_shape: Sequence[int], dy: np.ndarray,
                              window: Window) -> np.ndarray:
    (oh, ow), pads = _depthwise_geometry(x.shape, filter_shape, window)
    kh, kw, depth, mult = filter_shape
    _check_backprop_shape(dy, (x.shape[0], oh, ow, depth * mult))
    view = _tap_view(_pad(x, pads), (oh, ow), (kh, kw), window.strides, window.dilations)
    dy5 = dy.reshape(x.shape[0], oh, ow, depth, mult)
    return np.einsum("nhwijc,nhwcm->ijcm", view, dy5)


@register_kernel("DepthwiseConv2dNative", "CPU", T=FLOATS)
class DepthwiseConv2dNative(_Conv):
    """Depthwise 2-D convolution: each input channel has its own filters (channel multiplier M)."""

    def compute(self, x, w):
        x_last, w = self._input(x, "input"), self._filter(w)
        return (self._by_pieces(x, w, lambda rows: depthwise_forward(x_last[rows], w,
                                                                      self._window)),)

    def compute_fused(self, x: np.ndarray, w: np.ndarray, bias: np.ndarray, lo: float,
                      hi: float) -> np.ndarray | None:
        """compute, plus `bias` and clamped to [lo, hi], in one compiled pass over the
        output; None where `depthwise_loops` does not apply or the bias does not fit (the
        fused kernel then takes its unfused way, which reports a bad bias)."""
        x_last, w = self._input(x, "input"), self._filter(w)
        loops = depthwise_loops(x_last, w) if self._dtype == np.float32 else None
        if loops is None or bias.dtype != np.float32 or bias.shape != (w.shape[2],):
            return None
        return self._by_pieces(x, w, lambda rows: depthwise_compiled(
            loops, x_last[rows], w, self._window, bias, lo, hi))

    def _by_pieces(self, x: np.ndarray, w: np.ndarray,
                   forward: Callable[[slice], np.ndarray]) -> np.ndarray:
        """forward(rows) in the node's layout and dtype, over pieces of a large batch."""

        def piece(rows: slice) -> np.ndarray:
            return _restore_layout(forward(rows), self._fmt, self._dtype)

        if x.shape[0] < 2 or intra_op.serial() or type(x) is not np.ndarray:
            return piece(slice(None))
        return map_batch(piece, x.shape[0], self.split_work(x, w), self._dtype)


@register_kernel("DepthwiseConv2dNativeBackpropInput", "CPU", T=FLOATS)
class DepthwiseConv2dNativeBackpropInput(_BackpropInput):
    """Gradient of DepthwiseConv2dNative with respect to its input."""

    backprop_input = staticmethod(depthwise_backprop_input)
    spatial_sizes = False


@register_kernel("DepthwiseConv2dNativeBackpropFilter", "CPU", T=FLOATS)
class DepthwiseConv2dNativeBackpropFilter(_Conv):
    """Gradient of DepthwiseConv2dNative with respect to its filter."""

    def compute(self, x, filter_sizes, dy):
        sizes = _sizes_vector(filter_sizes, "filter_sizes")
        if len(sizes) != 4:
            raise InvalidArgumentError(f"filter_sizes must have 4 entries, got {sizes}")
        dw = depthwise_backprop_filter(self._input(x, "input"), sizes,
                                       self._input(dy, "out_backprop"), self._window)
        return (dw.astype(self._dtype, copy=False),)


# --- pooling ---------------------------------------------------------------------------


class PoolSpec:
    """A pooling node's ksize/strides/padding, checked once."""

    __slots__ = ("window", "ksize", "depth_window")

    def __init__(self, rank: int, ksize: Sequence[int], strides: Sequence[int], padding: str,
                 data_format: str, explicit_paddings: Sequence[int] = ()) -> None:
        if data_format == "NCHW_VECT_C":
            raise UnimplementedError("data_format NCHW_VECT_C is not supported on CPU")
        fmt = nn_ops.data_format(data_format, rank)
        for what, values in (("ksize", ksize), ("strides", strides)):
            if len(values) != rank:
                raise InvalidArgumentError(
                    f"Sliding window {what} field must specify {rank} dimensions, "
                    f"got {list(values)}"
                )
            if any(v <= 0 for v in values):
                raise InvalidArgumentError(f"all {what} must be positive, got {list(values)}")
        if ksize[0] != 1 or strides[0] != 1:
            raise UnimplementedError("Pooling is not yet supported on the batch dimension.")
        self.depth_window = ksize[fmt.channel_axis]
        if self.depth_window != 1 or strides[fmt.channel_axis] != 1:
            if any(k != 1 for k in fmt.spatial(ksize)) or any(s != 1 for s in fmt.spatial(strides)):
                raise UnimplementedError(
                    "MaxPooling supports exactly one of pooling across depth or pooling across "
                    "width/height."
                )
            if strides[fmt.channel_axis] != self.depth_window:
                raise UnimplementedError(
                    "Depthwise max pooling requires the depth window to equal the depth stride."
                )
        self.ksize = tuple(fmt.spatial(ksize))
        pads = nn_ops.explicit_pads(padding, explicit_paddings, fmt)
        # A window made only of padding would have no maximum; TensorFlow rejects it.
        for (before, after), k, sides in zip(pads, self.ksize, (("Top", "Bottom"),
                                                                 ("Left", "Right"))):
            for side, pad in zip(sides, (before, after)):
                if pad >= k:
                    raise InvalidArgumentError(
                        f"{side} padding {pad} needs to be smaller than the window size {k}"
                    )
        self.window = Window(fmt, fmt.spatial(strides), [1] * (rank - 2), padding, pads)

    def geometry(self, x: np.ndarray):
        return self.window.geometry(x.shape[1:-1], self.ksize)


def max_pool(x: np.ndarray, spec: PoolSpec, floor: float | None = None) -> np.ndarray:
    """Max pooling of channels-last x.

    With a `floor` (float x), each window starts at that value and NaN never wins, as in
    TensorFlow's 2-D kernel, whose floor is the node type's lowest finite value: a window
    of NaN and -inf gives the floor. Without one, the maximum propagates NaN.
    """
    if spec.depth_window != 1:
        return _depth_max_pool(x, spec.depth_window)
    outs, pads = spec.geometry(x)
    xp = _pad(x, pads, _lowest(x.dtype))
    window = spec.window
    slices = _tap_slices(spec.ksize, outs, window.strides, window.dilations)
    if floor is not None:
        # fmax skips NaN and runs as fast as maximum.
        out = np.fmax(xp[slices[0]], x.dtype.type(floor))
        for where in slices[1:]:
            np.fmax(out, xp[where], out=out)
        return out
    out = None
    for where in slices:
        if out is None:
            out = xp[where].copy()
        else:
            np.maximum(out, xp[where], out=out)
    return out


def _depth_max_pool(x: np.ndarray, depth_window: int) -> np.ndarray:
    """Max over each group of depth_window channels. As in TensorFlow, a group's first
    element stands until a strictly greater one comes: a leading NaN stays, later ones
    are passed over."""
    depth = x.shape[-1]
    if depth % depth_window:
        raise InvalidArgumentError(
            f"Depthwise max pooling requires the depth window ({depth_window}) to "
            f"evenly divide the input depth ({depth})"
        )
    groups = x.reshape(*x.shape[:-1], depth // depth_window, depth_window)
    out = groups[..., 0].copy()
    for j in range(1, depth_window):
        candidate = groups[..., j]
        np.copyto(out, candidate, where=candidate > out)
    return out


def _window_counts(sizes: Sequence[int], outs: Sequence[int], spec: PoolSpec,
                   pads: Pads) -> np.ndarray | float:
    """How many real (non-padded) elements each output's window covers."""
    if not any(b or a for b, a in pads):
        return float(math.prod(spec.ksize))
    counts: np.ndarray | float = 1.0
    for axis, (size, out, k, s, (before, _)) in enumerate(
        zip(sizes, outs, spec.ksize, spec.window.strides, pads)
    ):
        start = np.arange(out) * s - before
        per_dim = np.minimum(start + k, size) - np.maximum(start, 0)
        shape = [1] * (len(sizes) + 2)
        shape[axis + 1] = out
        counts = counts * per_dim.reshape(shape).astype(np.float64)
    return counts


def avg_pool(x: np.ndarray, spec: PoolSpec) -> np.ndarray:
    """Average pooling of channels-last x (in x's dtype, float32 for the half types)."""
    outs, pads = spec.geometry(x)
    xp = _pad(x, pads)
    window = spec.window
    acc = None
    for where in _tap_slices(spec.ksize, outs, window.strides, window.dilations):
        if acc is None:
            acc = xp[where].copy()
        else:
            np.add(acc, xp[where], out=acc)
    counts = _window_counts(x.shape[1:-1], outs, spec, pads)
    np.divide(acc, namespace(acc).asarray(counts, acc.dtype), out=acc)
    return acc


def _first_real_taps(sizes: Sequence[int], outs: Sequence[int], spec: PoolSpec,
                     pads: Pads) -> list[np.ndarray]:
    """Per spatial dim, the window tap at which each output's window first reads a real
    (not padded) element, shaped to broadcast against (N, *outs, C)."""
    firsts = []
    for axis, (out, stride, (before, _)) in enumerate(zip(outs, spec.window.strides, pads)):
        shape = [1] * (len(sizes) + 2)
        shape[axis + 1] = out
        firsts.append(np.maximum(before - np.arange(out) * stride, 0).reshape(shape))
    return firsts


def max_pool_grad(x: np.ndarray, grad: np.ndarray, spec: PoolSpec) -> np.ndarray:
    """Route each output gradient to the maximum of its window as TensorFlow's CPU kernel
    finds it: the window's first real element (row-major) is taken whatever its value,
    then each strictly greater one replaces it. So a leading NaN keeps the gradient, and
    a window of -inf (or of the integer minimum) still passes it on."""
    outs, pads = spec.geometry(x)
    _check_pool_grad(grad, (x.shape[0], *outs, x.shape[-1]))
    xp = _pad(x, pads, _lowest(x.dtype))
    window = spec.window
    slices = _tap_slices(spec.ksize, outs, window.strides, window.dilations)
    firsts = _first_real_taps(x.shape[1:-1], outs, spec, pads)
    best = np.full(grad.shape, _lowest(x.dtype), x.dtype)
    chosen = np.full(grad.shape, -1, np.int32)
    taps = itertools.product(*(range(k) for k in spec.ksize))
    for t, (tap, where) in enumerate(zip(taps, slices)):
        better = xp[where] > best
        # Padding is never greater than anything, so the taps before a window's first
        # real one took nothing; that one is taken outright.
        is_first = [first == i for first, i in zip(firsts, tap)]
        if all(f.any() for f in is_first):
            better |= functools.reduce(np.logical_and, is_first)
        np.copyto(best, xp[where], where=better)
        np.copyto(chosen, t, where=better)
    dxp = np.zeros(xp.shape, grad.dtype)
    for t, where in enumerate(slices):
        dxp[where] += np.where(chosen == t, grad, 0)
    return _crop(dxp, pads, x.shape[1:-1])


def max_pool_grad_near(x: np.ndarray, y: np.ndarray, grad: np.ndarray,
                       spec: PoolSpec) -> np.ndarray:
    """TensorFlow's MaxPool3DGrad rule on CPU: every element of a window within 1e-5 of
    the window's maximum (orig_output) gets the window's whole gradient, so ties and
    near-ties each get it."""
    outs, pads = spec.geometry(x)
    expected = (x.shape[0], *outs, x.shape[-1])
    _check_pool_grad(grad, expected)
    _check_pool_output(y, expected)
    # Padding is never within reach of a maximum (inf - inf is NaN, not close).
    xp = _pad(x, pads, _lowest(x.dtype))
    dxp = np.zeros(xp.shape, grad.dtype)
    window = spec.window
    for where in _tap_slices(spec.ksize, outs, window.strides, window.dilations):
        near = np.abs(xp[where] - y) < 1e-5
        dxp[where] += np.where(near, grad, 0)
    return _crop(dxp, pads, x.shape[1:-1])


def max_pool_grad_grad(x: np.ndarray, y: np.ndarray, grad: np.ndarray,
                       spec: PoolSpec) -> np.ndarray:
    """The gradient of MaxPoolGrad with respect to its grad input: for each window, `grad`
    (shaped like x) at the window's first real element (row-major) equal to its maximum
    `y`, or 0 where none is (a NaN maximum), as TensorFlow's CPU kernels pick it."""
    outs, pads = spec.geometry(x)
    if tuple(grad.shape) != tuple(x.shape):
        raise InvalidArgumentError(
            f"grad has shape {list(grad.shape)} but orig_input has shape {list(x.shape)}"
        )
    _check_pool_output(y, (x.shape[0], *outs, x.shape[-1]))
    xp, gp = _pad(x, pads), _pad(grad, pads)
    # Which padded positions hold input elements: padding never matches, whatever y is.
    real = _pad(np.ones((*x.shape[:-1], 1), bool), pads, False)
    out = np.zeros(y.shape, grad.dtype)
    found = np.zeros(y.shape, bool)
    window = spec.window
    for where in _tap_slices(spec.ksize, outs, window.strides, window.dilations):
        hit = (xp[where] == y) & real[where] & ~found
        np.copyto(out, gp[where], where=hit)
        found |= hit
    return out


def avg_pool_grad(shape: Sequence[int], grad: np.ndarray, spec: PoolSpec) -> np.ndarray:
    """Spread each output gradient evenly over the real elements of its window."""
    sizes = shape[1:-1]
    outs, pads = spec.window.geometry(sizes, spec.ksize)
    _check_pool_grad(grad, (shape[0], *outs, shape[-1]))
    scaled = grad / np.asarray(_window_counts(sizes, outs, spec, pads), grad.dtype)
    padded = (shape[0], *(n + b + a for n, (b, a) in zip(sizes, pads)), shape[-1])
    limits.check_allocation(padded, grad.itemsize, "input gradient")
    dxp = np.zeros(padded, grad.dtype)
    window = spec.window
    for where in _tap_slices(spec.ksize, outs, window.strides, window.dilations):
        dxp[where] += scaled
    return _crop(dxp, pads, sizes)


def _check_pool_grad(grad: np.ndarray, expected: Sequence[int]) -> None:
    if tuple(grad.shape) != tuple(expected):
        raise InvalidArgumentError(
            f"grad has shape {list(grad.shape)} but the pooling output would have shape "
            f"{list(expected)} (both channels-last)"
        )


def _check_pool_output(y: np.ndarray, expected: Sequence[int]) -> None:
    if tuple(y.shape) != tuple(expected):
        raise InvalidArgumentError(
            f"orig_output has shape {list(y.shape)} but the pooling output would have shape "
            f"{list(expected)} (both channels-last)"
        )


class _Pool(OpKernel):
    """Shared setup of pooling kernels with ksize and strides attrs."""

    expensive = True
    rank = 4
    depth_pooling = False  # only MaxPool pools across channels

    def setup(self, padding: str, data_format: str = "NHWC", ksize: Sequence[int] = (),
              strides: Sequence[int] = (), explicit_paddings: Sequence[int] = (),
              **_: Any) -> None:
        self._data_format = data_format
        self._padding = padding
        self._dtype = self.output_types[0].np
        self._work = work_dtype(self._dtype)
        self._spec = self._make_spec(ksize, strides, explicit_paddings) if ksize else None
        # Where a 2-D max pool's windows start (see max_pool); 3-D has no floor.
        self._floor = (_lowest_finite(self._dtype)
                       if self.rank == 4 and self._work.kind == "f" else None)

    def _make_spec(self, ksize, strides, explicit=()) -> PoolSpec:
        spec = PoolSpec(self.rank, list(ksize), list(strides), self._padding, self._data_format,
                        explicit)
        if spec.depth_window != 1 and not self.depth_pooling:
            raise UnimplementedError(f"{self.op} does not support pooling across depth")
        return spec

    def _dynamic_spec(self, ksize: np.ndarray, strides: np.ndarray) -> PoolSpec:
        """MaxPoolV2 and MaxPoolGradV2 take ksize and strides as tensors."""
        return self._make_spec(_sizes_vector(ksize, "ksize"), _sizes_vector(strides, "strides"))

    def _input(self, x: np.ndarray, what: str, spec: PoolSpec) -> np.ndarray:
        _check_rank(x, self.rank, what)
        return _channels_last(x, spec.window.fmt).astype(self._work, copy=False)

    def _output(self, y: np.ndarray, spec: PoolSpec) -> np.ndarray:
        return _restore_layout(y, spec.window.fmt, self._dtype)


@register_kernel("MaxPool", "CPU", T=REALS)
class MaxPool(_Pool):
    """Max pooling over spatial windows (or, with ksize on depth only, across channels)."""

    depth_pooling = True

    def compute(self, x):
        spec = self._spec
        return (self._output(max_pool(self._input(x, "input", spec), spec, self._floor), spec),)


@register_kernel("MaxPool3D", "CPU", T=FLOATS)
class MaxPool3D(MaxPool):
    rank = 5
    depth_pooling = False


@register_kernel("MaxPoolV2", "CPU", T=REALS)
class MaxPoolV2(_Pool):
    """MaxPool with ksize and strides given as int32 tensors."""

    depth_pooling = True

    def compute(self, x, ksize, strides):
        spec = self._dynamic_spec(ksize, strides)
        return (self._output(max_pool(self._input(x, "input", spec), spec, self._floor), spec),)


@register_kernel("AvgPool", "CPU", T=FLOATS)
class AvgPool(_Pool):
    """Average pooling; SAME windows divide by their count of real elements."""

    def compute(self, x):
        spec = self._spec
        return (self._output(avg_pool(self._input(x, "value", spec), spec), spec),)


@register_kernel("AvgPool3D", "CPU", T=FLOATS)
class AvgPool3D(AvgPool):
    rank = 5


@register_kernel("MaxPoolGrad", "CPU", T=REALS)
class MaxPoolGrad(_Pool):
    """Gradient of MaxPool: each gradient goes to the first maximum of its window."""

    def compute(self, orig_input, orig_output, grad):
        return (self._grad(self._spec, orig_input, grad),)

    def _grad(self, spec: PoolSpec, orig_input: np.ndarray, grad: np.ndarray) -> np.ndarray:
        x = self._input(orig_input, "orig_input", spec)
        dx = max_pool_grad(x, self._input(grad, "grad", spec), spec)
        return self._output(dx, spec)


@register_kernel("MaxPoolGradV2", "CPU", T=REALS)
class MaxPoolGradV2(MaxPoolGrad):
    """MaxPoolGrad with ksize and strides given as int32 tensors."""

    def compute(self, orig_input, orig_output, grad, ksize, strides):
        return (self._grad(self._dynamic_spec(ksize, strides), orig_input, grad),)


@register_kernel("AvgPoolGrad", "CPU", T=FLOATS)
class AvgPoolGrad(_Pool):
    """Gradient of AvgPool given the original input's shape."""

    def compute(self, orig_input_shape, grad):
        spec = self._spec
        sizes = _sizes_vector(orig_input_shape, "orig_input_shape")
        if len(sizes) != self.rank:
            raise InvalidArgumentError(
                f"orig_input_shape must have {self.rank} elements, got {sizes}"
            )
        fmt = spec.window.fmt
        shape = [sizes[0], *fmt.spatial(sizes), sizes[fmt.channel_axis]]
        dx = avg_pool_grad(shape, self._input(grad, "grad", spec), spec)
        return (self._output(dx, spec),)


@register_kernel("AvgPool3DGrad", "CPU", T=FLOATS)
class AvgPool3DGrad(AvgPoolGrad):
    rank = 5


@register_kernel("MaxPool3DGrad", "CPU", T=FLOATS)
class MaxPool3DGrad(_Pool):
    """Gradient of MaxPool3D: each gradient goes to every element within 1e-5 of its
    window's maximum (see max_pool_grad_near)."""

    rank = 5

    def compute(self, orig_input, orig_output, grad):
        spec = self._spec
        x = self._input(orig_input, "orig_input", spec)
        y = self._input(orig_output, "orig_output", spec)
        dx = max_pool_grad_near(x, y, self._input(grad, "grad", spec), spec)
        return (self._output(dx, spec),)


@register_kernel("MaxPoolGradGrad", "CPU", T=REALS)
class MaxPoolGradGrad(_Pool):
    """Gradient of MaxPoolGrad with respect to its grad: one value per pooling window."""

    def compute(self, orig_input, orig_output, grad):
        return (self._grad_grad(self._spec, orig_input, orig_output, grad),)

    def _grad_grad(self, spec: PoolSpec, orig_input: np.ndarray, orig_output: np.ndarray,
                   grad: np.ndarray) -> np.ndarray:
        x = self._input(orig_input, "orig_input", spec)
        y = self._input(orig_output, "orig_output", spec)
        out = max_pool_grad_grad(x, y, self._input(grad, "grad", spec), spec)
        return self._output(out, spec)


@register_kernel("MaxPoolGradGradV2", "CPU", T=REALS)
class MaxPoolGradGradV2(MaxPoolGradGrad):
    """MaxPoolGradGrad with ksize and strides given as int32 tensors."""

    def compute(self, orig_input, orig_output, grad, ksize, strides):
        spec = self._dynamic_spec(ksize, strides)
        return (self._grad_grad(spec, orig_input, orig_output, grad),)


@register_kernel("MaxPool3DGradGrad", "CPU", T=REALS)
class MaxPool3DGradGrad(MaxPoolGradGrad):
    rank = 5
