"""CPU convolution and pooling kernels against naive-loop numpy references written here
(SAME/VALID/EXPLICIT padding, strides, dilations, NHWC and NCHW, grouped and depthwise
filters), their gradient kernels against central finite differences, and the error cases.

Inputs are made read-only so a kernel that writes into its input fails loudly.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_checks import numeric_grad, run1

from tfx.core.errors import InvalidArgumentError, UnimplementedError

FAST = settings(max_examples=30, deadline=None)


# --- naive references (NHWC, float64) --------------------------------------------------


def geometry(size: int, k: int, stride: int, dilation: int, padding, ) -> tuple[int, int]:
    """(output size, padding before) of one dim; padding is a string or (before, after)."""
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        return out, max(0, (out - 1) * stride + eff - size) // 2
    before, after = (0, 0) if padding == "VALID" else padding
    return (size + before + after - eff) // stride + 1, before


def conv_ref(x, w, strides, dilations, pads):
    """Grouped 2-D cross-correlation: w is (kh, kw, C / groups, O)."""
    n, h, wd, c = x.shape
    kh, kw, cg, o = w.shape
    groups = c // cg
    (oh, top), (ow, left) = (geometry(h, kh, strides[0], dilations[0], pads[0]),
                             geometry(wd, kw, strides[1], dilations[1], pads[1]))
    y = np.zeros((n, oh, ow, o))
    for b, i, j, oc in np.ndindex(n, oh, ow, o):
        g = oc // (o // groups)
        for di, dj, ic in np.ndindex(kh, kw, cg):
            r = i * strides[0] + di * dilations[0] - top
            s = j * strides[1] + dj * dilations[1] - left
            if 0 <= r < h and 0 <= s < wd:
                y[b, i, j, oc] += x[b, r, s, g * cg + ic] * w[di, dj, ic, oc]
    return y


def depthwise_ref(x, w, strides, dilations, padding):
    kh, kw, c, m = w.shape
    # A depthwise filter is a grouped one with one input channel per group.
    grouped = w.reshape(kh, kw, 1, c * m)
    return conv_ref(x, grouped, strides, dilations, [padding, padding])


def pool_ref(x, ksize, strides, padding, kind):
    n, h, wd, c = x.shape
    (oh, top), (ow, left) = (geometry(h, ksize[0], strides[0], 1, padding),
                             geometry(wd, ksize[1], strides[1], 1, padding))
    y = np.zeros((n, oh, ow, c))
    for b, i, j, ch in np.ndindex(n, oh, ow, c):
        values = [x[b, r, s, ch]
                  for r in range(i * strides[0] - top, i * strides[0] - top + ksize[0])
                  for s in range(j * strides[1] - left, j * strides[1] - left + ksize[1])
                  if 0 <= r < h and 0 <= s < wd]
        # Average pooling divides by the real elements only, never by padding.
        y[b, i, j, ch] = max(values) if kind == "max" else sum(values) / len(values)
    return y


def to_nchw(x):
    return np.ascontiguousarray(np.moveaxis(x, -1, 1))


def to_nhwc(x):
    return np.moveaxis(x, 1, -1)


def explicit_attr(pads, data_format):
    flat = [0, 0, *pads[0], *pads[1], 0, 0]
    return flat if data_format == "NHWC" else [0, 0, 0, 0, *pads[0], *pads[1]]


def four(values, data_format):
    return [1, *values, 1] if data_format == "NHWC" else [1, 1, *values]


# --- Conv2D ----------------------------------------------------------------------------

paddings = st.one_of(
    st.sampled_from(["SAME", "VALID"]),
    st.tuples(st.tuples(st.integers(0, 2), st.integers(0, 2)),
              st.tuples(st.integers(0, 2), st.integers(0, 2))),
)


@st.composite
def conv_cases(draw):
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    cg = draw(st.integers(1, 2))
    o = groups * draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    strides = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilations = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = draw(paddings)
    h = draw(st.integers((kh - 1) * dilations[0] + 1, 7))
    wd = draw(st.integers((kw - 1) * dilations[1] + 1, 7))
    n = draw(st.integers(1, 2))
    fmt = draw(st.sampled_from(["NHWC", "NCHW"]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, h, wd, groups * cg))
    w = rng.normal(size=(kh, kw, cg, o))
    return x, w, strides, dilations, padding, fmt


def conv_attrs(strides, dilations, padding, fmt):
    attrs = {"strides": four(strides, fmt), "dilations": four(dilations, fmt),
             "data_format": fmt}
    if isinstance(padding, str):
        attrs["padding"] = padding
    else:
        attrs["padding"] = "EXPLICIT"
        attrs["explicit_paddings"] = explicit_attr(padding, fmt)
    return attrs


def pads_of(padding):
    return [padding, padding] if isinstance(padding, str) else list(padding)


@FAST
@given(case=conv_cases())
def test_conv2d_matches_reference(case):
    x, w, strides, dilations, padding, fmt = case
    want = conv_ref(x, w, strides, dilations, pads_of(padding))
    attrs = conv_attrs(strides, dilations, padding, fmt)
    if fmt == "NHWC":
        got = run1("Conv2D", x, w, **attrs)
    else:
        got = to_nhwc(run1("Conv2D", to_nchw(x), w, **attrs))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("value", [0, -np.inf])
@pytest.mark.parametrize("shape", [(1, 5, 4, 2), (2, 70, 60, 4)])  # small, and past the size
def test_padded_copies_match_np_pad(shape, value):                 # where only borders fill
    from tfx.kernels.cpu.conv import _pad

    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    pads = ((2, 1), (0, 3))
    want = np.pad(x, ((0, 0), *pads, (0, 0)), constant_values=value)
    np.testing.assert_array_equal(_pad(x, pads, value), want)


def test_conv2d_float32_and_known_values():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    w = np.ones((2, 2, 1, 1), np.float32)
    got = run1("Conv2D", x, w, strides=[1, 2, 2, 1], padding="VALID")
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got[0, :, :, 0], [[10, 18], [42, 50]])
    # SAME with an even filter pads after, not before: the last row and column see zeros.
    same = run1("Conv2D", x, w, strides=[1, 1, 1, 1], padding="SAME")
    assert same[0, 3, 3, 0] == 15 and same[0, 0, 0, 0] == 0 + 1 + 4 + 5


def test_conv2d_int32():
    x = np.arange(9, dtype=np.int32).reshape(1, 3, 3, 1)
    got = run1("Conv2D", x, np.ones((3, 3, 1, 1), np.int32), strides=[1, 1, 1, 1],
               padding="VALID")
    assert got.dtype == np.int32 and got.ravel().tolist() == [36]


def test_conv3d_matches_reference():
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(1, 3, 4, 4, 2)), rng.normal(size=(2, 2, 3, 2, 3))
    got = run1("Conv3D", x, w, strides=[1, 1, 2, 1, 1], padding="SAME")
    want = np.zeros((1, 3, 2, 4, 3))
    xp = np.pad(x, [(0, 0), (0, 1), (0, 0), (1, 1), (0, 0)])  # SAME: total 1, 0, 2
    for d, i, j in np.ndindex(3, 2, 4):
        patch = xp[0, d:d + 2, 2 * i:2 * i + 2, j:j + 3]
        want[0, d, i, j] = np.einsum("abcd,abcde->e", patch, w)
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_conv3d_ncdhw_and_dilations_match_ndhwc():
    rng = np.random.default_rng(11)
    x, w = rng.normal(size=(1, 3, 4, 5, 2)), rng.normal(size=(2, 2, 2, 2, 3))
    got = run1("Conv3D", x, w, strides=[1, 1, 2, 1, 1], dilations=[1, 1, 1, 2, 1],
               padding="SAME")
    # Dilation 2 on the last spatial dim: the same as a filter with a zero tap between.
    spread = np.zeros((2, 2, 3, 2, 3))
    spread[:, :, ::2] = w
    np.testing.assert_allclose(got, run1("Conv3D", x, spread, strides=[1, 1, 2, 1, 1],
                                         padding="SAME"), rtol=1e-12)
    nc = run1("Conv3D", np.ascontiguousarray(np.moveaxis(x, -1, 1)), w,
              strides=[1, 1, 1, 2, 1], dilations=[1, 1, 1, 1, 2], padding="SAME",
              data_format="NCDHW")
    np.testing.assert_allclose(np.moveaxis(nc, 1, -1), got, rtol=1e-12)


# --- Conv2D gradients ------------------------------------------------------------------

GRAD_CASES = [
    # (x shape NHWC, filter shape, strides, dilations, padding, data_format)
    ((1, 5, 4, 2), (3, 2, 2, 3), (1, 1), (1, 1), "SAME", "NHWC"),
    ((2, 5, 5, 2), (3, 3, 2, 2), (2, 2), (1, 1), "VALID", "NHWC"),
    ((1, 6, 5, 2), (2, 2, 2, 2), (2, 1), (1, 2), "SAME", "NCHW"),
    ((1, 4, 5, 1), (2, 3, 1, 2), (1, 2), (2, 1), ((1, 0), (2, 1)), "NHWC"),
    ((1, 4, 4, 4), (2, 2, 2, 4), (1, 1), (1, 1), "SAME", "NHWC"),  # two groups
    ((1, 3, 3, 2), (1, 1, 2, 3), (2, 2), (1, 1), "VALID", "NCHW"),  # 1x1 strided
    ((1, 6, 6, 2), (3, 3, 2, 2), (2, 2), (1, 1), "VALID", "NHWC"),  # last row unread
    ((1, 4, 4, 6), (2, 2, 2, 6), (2, 1), (1, 1), "SAME", "NCHW"),  # three groups
]


@pytest.mark.parametrize("xs,ws,strides,dilations,padding,fmt", GRAD_CASES)
def test_conv2d_backprops_match_finite_differences(xs, ws, strides, dilations, padding, fmt):
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=xs), rng.normal(size=ws)
    attrs = conv_attrs(strides, dilations, padding, fmt)
    layout = to_nchw if fmt == "NCHW" else np.asarray
    xl = layout(x)

    def forward(x_, w_):
        return run1("Conv2D", x_, w_, **attrs)

    y = forward(xl, w)
    g = rng.normal(size=y.shape)
    dx = run1("Conv2DBackpropInput", np.array(xl.shape, np.int32), w, g, **attrs)
    dw = run1("Conv2DBackpropFilter", xl, np.array(ws, np.int32), g, **attrs)
    np.testing.assert_allclose(dx, numeric_grad(lambda v: forward(v, w), xl, g), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(dw, numeric_grad(lambda v: forward(xl, v), w, g), rtol=1e-6,
                               atol=1e-8)


def test_conv2d_backprop_input_takes_spatial_sizes():
    rng = np.random.default_rng(2)
    w, g = rng.normal(size=(2, 2, 3, 2)), rng.normal(size=(1, 3, 3, 2))
    full = run1("Conv2DBackpropInput", np.array([1, 3, 3, 3], np.int32), w, g,
                strides=[1, 1, 1, 1], padding="SAME")
    spatial = run1("Conv2DBackpropInput", np.array([3, 3], np.int32), w, g,
                   strides=[1, 1, 1, 1], padding="SAME")
    np.testing.assert_array_equal(full, spatial)


# --- depthwise -------------------------------------------------------------------------


@st.composite
def depthwise_cases(draw):
    c, m = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    strides = (draw(st.integers(1, 2)), draw(st.integers(1, 3)))
    dilations = (1, 1) if strides != (1, 1) else (draw(st.integers(1, 2)),) * 2
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    h = draw(st.integers((kh - 1) * dilations[0] + 1, 6))
    wd = draw(st.integers((kw - 1) * dilations[1] + 1, 17))  # wide rows take another path
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    fmt = draw(st.sampled_from(["NHWC", "NCHW"]))
    return (rng.normal(size=(draw(st.integers(1, 2)), h, wd, c)),
            rng.normal(size=(kh, kw, c, m)), strides, dilations, padding, fmt)


@FAST
@given(case=depthwise_cases())
def test_depthwise_matches_reference(case):
    x, w, strides, dilations, padding, fmt = case
    want = depthwise_ref(x, w, strides, dilations, padding)
    attrs = conv_attrs(strides, dilations, padding, fmt)
    if fmt == "NHWC":
        got = run1("DepthwiseConv2dNative", x, w, **attrs)
    else:
        got = to_nhwc(run1("DepthwiseConv2dNative", to_nchw(x), w, **attrs))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape,strides", [((4, 1, 2, 2), (1, 1)), ((1, 1, 1, 16), (1, 2)),
                                           ((2, 1, 3, 9), (1, 2))])
def test_depthwise_nchw_with_one_channel(shape, strides):
    # Regression: the channels-last view of a one-channel NCHW input is flagged contiguous
    # but keeps NCHW's stride on its size-1 channel dim; the kernel read its merged
    # width-and-channel run with that stride and raised numpy's ValueError (or read wrong data).
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    w = np.array([1.5, -2.0]).reshape(1, 1, 1, 2)
    got = run1("DepthwiseConv2dNative", x, w, strides=[1, 1, *strides], padding="SAME",
               data_format="NCHW")
    want = to_nchw(depthwise_ref(to_nhwc(x), w, strides, (1, 1), "SAME"))
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("xs,ws,strides,dilations,padding", [
    ((1, 4, 5, 2), (3, 3, 2, 1), (1, 1), (1, 1), "SAME"),
    ((2, 5, 4, 3), (2, 2, 3, 2), (2, 2), (1, 1), "VALID"),
    ((1, 5, 5, 2), (2, 2, 2, 2), (1, 1), (2, 2), "SAME"),
    ((1, 3, 9, 1), (2, 3, 1, 2), (1, 2), (1, 1), "SAME"),
    ((1, 6, 6, 2), (3, 3, 2, 1), (2, 2), (1, 1), "VALID"),  # the last row and column unread
])
def test_depthwise_backprops_match_finite_differences(xs, ws, strides, dilations, padding):
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=xs), rng.normal(size=ws)
    attrs = conv_attrs(strides, dilations, padding, "NHWC")

    def forward(x_, w_):
        return run1("DepthwiseConv2dNative", x_, w_, **attrs)

    g = rng.normal(size=forward(x, w).shape)
    dx = run1("DepthwiseConv2dNativeBackpropInput", np.array(xs, np.int32), w, g, **attrs)
    dw = run1("DepthwiseConv2dNativeBackpropFilter", x, np.array(ws, np.int32), g, **attrs)
    np.testing.assert_allclose(dx, numeric_grad(lambda v: forward(v, w), x, g), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(dw, numeric_grad(lambda v: forward(x, v), w, g), rtol=1e-6,
                               atol=1e-8)


# --- pooling ---------------------------------------------------------------------------


@st.composite
def pool_cases(draw):
    ksize = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    strides = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    h, wd = draw(st.integers(ksize[0], 6)), draw(st.integers(ksize[1], 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.normal(size=(draw(st.integers(1, 2)), h, wd, draw(st.integers(1, 3))))
    return x, ksize, strides, padding, draw(st.sampled_from(["NHWC", "NCHW"]))


@FAST
@given(case=pool_cases(), kind=st.sampled_from(["max", "avg"]))
def test_pool_matches_reference(case, kind):
    x, ksize, strides, padding, fmt = case
    op = "MaxPool" if kind == "max" else "AvgPool"
    attrs = {"ksize": four(ksize, fmt), "strides": four(strides, fmt), "padding": padding,
             "data_format": fmt}
    if fmt == "NHWC":
        got = run1(op, x, **attrs)
    else:
        got = to_nhwc(run1(op, to_nchw(x), **attrs))
    np.testing.assert_allclose(got, pool_ref(x, ksize, strides, padding, kind), rtol=1e-12)


def test_avg_pool_same_does_not_count_padding():
    x = np.ones((1, 3, 3, 1), np.float32)
    got = run1("AvgPool", x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="SAME")
    np.testing.assert_array_equal(got, np.ones_like(x))  # zeros padding would give 0.5, 0.25
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)
    got = run1("AvgPool", x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    np.testing.assert_allclose(got[0, :, :, 0], [[3, 4], [6, 7]])


def test_max_pool_integers_and_negative_values():
    x = -np.arange(1, 10, dtype=np.int32).reshape(1, 3, 3, 1)
    got = run1("MaxPool", x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    # Padding never wins, even against negative numbers.
    assert got.dtype == np.int32 and got[0, :, :, 0].tolist() == [[-1, -3], [-7, -9]]


def test_max_pool_across_depth():
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 2, 6)
    got = run1("MaxPool", x, ksize=[1, 1, 1, 3], strides=[1, 1, 1, 3], padding="VALID")
    np.testing.assert_array_equal(got.reshape(-1), [2, 5, 8, 11])


def test_3d_pools():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(1, 4, 4, 4, 2)).astype(np.float32)  # float32: TF's 3-D pool types
    attrs = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID"}
    blocks = x.reshape(1, 2, 2, 2, 2, 2, 2, 2).transpose(0, 1, 3, 5, 7, 2, 4, 6)
    blocks = blocks.reshape(1, 2, 2, 2, 2, 8)
    np.testing.assert_array_equal(run1("MaxPool3D", x, **attrs), blocks.max(-1))
    np.testing.assert_allclose(run1("AvgPool3D", x, **attrs), blocks.mean(-1), rtol=1e-6)


@pytest.mark.parametrize("ksize,strides,padding,fmt", [
    ((2, 2), (1, 1), "SAME", "NHWC"),
    ((3, 2), (2, 2), "SAME", "NHWC"),
    ((2, 3), (2, 1), "VALID", "NCHW"),
    ((3, 3), (3, 3), "SAME", "NCHW"),
])
def test_pool_grads_match_finite_differences(ksize, strides, padding, fmt):
    rng = np.random.default_rng(5)
    shape = (2, 5, 4, 2) if fmt == "NHWC" else (2, 2, 5, 4)
    # Distinct values far apart, so a small step never changes which element is the max.
    x = rng.permutation(np.prod(shape)).reshape(shape).astype(np.float64)
    attrs = {"ksize": four(ksize, fmt), "strides": four(strides, fmt), "padding": padding,
             "data_format": fmt}
    y = run1("MaxPool", x, **attrs)
    g = rng.normal(size=y.shape)
    got = run1("MaxPoolGrad", x, y, g, **attrs)
    np.testing.assert_allclose(got, numeric_grad(lambda v: run1("MaxPool", v, **attrs), x, g),
                               rtol=1e-6, atol=1e-8)
    got = run1("AvgPoolGrad", np.array(shape, np.int32), g, **attrs)
    np.testing.assert_allclose(got, numeric_grad(lambda v: run1("AvgPool", v, **attrs), x, g),
                               rtol=1e-6, atol=1e-8)


def test_max_pool_v2_takes_ksize_and_strides_as_tensors():
    x = np.random.default_rng(6).normal(size=(1, 5, 4, 2))
    attrs = {"ksize": [1, 3, 2, 1], "strides": [1, 2, 1, 1], "padding": "SAME"}
    sizes = (np.array(attrs["ksize"], np.int32), np.array(attrs["strides"], np.int32))
    y = run1("MaxPool", x, **attrs)
    np.testing.assert_array_equal(run1("MaxPoolV2", x, *sizes, padding="SAME"), y)
    g = np.random.default_rng(7).normal(size=y.shape)
    np.testing.assert_array_equal(run1("MaxPoolGradV2", x, y, g, *sizes, padding="SAME"),
                                  run1("MaxPoolGrad", x, y, g, **attrs))


@pytest.mark.parametrize("op,extra", [
    ("Conv2D", (np.linspace(-1, 1, 12).reshape(2, 2, 1, 3),)),
    ("DepthwiseConv2dNative", (np.linspace(-1, 1, 4).reshape(2, 2, 1, 1),)),
    ("MaxPool", ()),
    ("AvgPool", ()),
])
def test_half_types_compute_in_float32_and_keep_their_dtype(op, extra):
    x = np.linspace(-2, 2, 25).reshape(1, 5, 5, 1)
    attrs = {"strides": [1, 2, 2, 1], "padding": "SAME"}
    if op.endswith("Pool"):
        attrs["ksize"] = [1, 2, 2, 1]
    want = run1(op, x.astype(np.float32), *(e.astype(np.float32) for e in extra), **attrs)
    got = run1(op, x.astype(np.float16), *(e.astype(np.float16) for e in extra), **attrs)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)


def test_max_pool_grad_goes_to_the_first_maximum():
    x = np.ones((1, 2, 2, 1), np.float32)
    y = run1("MaxPool", x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID")
    got = run1("MaxPoolGrad", x, y, np.full_like(y, 5), ksize=[1, 2, 2, 1],
               strides=[1, 1, 1, 1], padding="VALID")
    assert got[0, :, :, 0].tolist() == [[5, 0], [0, 0]]


# --- errors ----------------------------------------------------------------------------

X = np.ones((1, 4, 4, 2), np.float32)
W = np.ones((2, 2, 2, 3), np.float32)
STRIDE1 = [1, 1, 1, 1]


@pytest.mark.parametrize("inputs,attrs,match", [
    ((np.ones((4, 4, 2), np.float32), W), {}, "input must be 4-dimensional"),
    ((X, np.ones((2, 2, 3), np.float32)), {}, "filter must be 4-dimensional"),
    ((X, np.ones((2, 2, 3, 3), np.float32)), {}, "evenly divisible by filter depth"),
    ((np.ones((1, 4, 4, 4), np.float32), np.ones((2, 2, 2, 3), np.float32)), {},
     "evenly divisible by the number of groups"),
    ((X, W), {"padding": "FULL"}, "padding"),
    ((X, W), {"strides": [1, 0, 1, 1]}, "strides must be positive"),
    ((X, W), {"strides": [1, -2, 1, 1]}, "strides must be positive"),
    ((X, W), {"strides": [2, 1, 1, 1]}, "batch and depth"),
    ((X, W), {"strides": [1, 1, 1]}, "must specify 4 dimensions"),
    ((X, W), {"dilations": [1, 0, 1, 1]}, "dilations must be positive"),
    ((X, W), {"padding": "EXPLICIT", "explicit_paddings": [0, 0, 1, 1]}, "8 entries"),
    ((X, W), {"padding": "EXPLICIT", "explicit_paddings": [0, 0, -1, 0, 0, 0, 0, 0]},
     "nonnegative"),
    ((X, W), {"explicit_paddings": [0, 0, 1, 1, 1, 1, 0, 0]}, "must be empty"),
    ((X, W), {"data_format": "NCDHW"}, "data_format"),
])
def test_conv2d_errors(inputs, attrs, match):
    attrs = {"strides": STRIDE1, "padding": "SAME", **attrs}
    with pytest.raises(InvalidArgumentError, match=match):
        run1("Conv2D", *inputs, **attrs)


def test_conv_filter_larger_than_input_for_valid():
    # As in TensorFlow: an output size of 0 is an empty result, a negative one an error.
    got = run1("Conv2D", X, np.ones((5, 5, 2, 1), np.float32), strides=STRIDE1, padding="VALID")
    assert got.shape == (1, 0, 0, 1)
    with pytest.raises(InvalidArgumentError, match="output size would be negative"):
        run1("Conv2D", X, np.ones((6, 6, 2, 1), np.float32), strides=STRIDE1, padding="VALID")


def test_conv_backprop_errors():
    g = np.ones((1, 4, 4, 3), np.float32)
    with pytest.raises(InvalidArgumentError, match="out_backprop has shape"):
        run1("Conv2DBackpropInput", np.array([1, 5, 5, 2], np.int32), W, g,
             strides=[1, 2, 2, 1], padding="SAME")
    with pytest.raises(InvalidArgumentError, match="input_sizes must have 4"):
        run1("Conv2DBackpropInput", np.array([1, 4, 4], np.int32), W, g, strides=STRIDE1,
             padding="SAME")
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        run1("Conv2DBackpropInput", np.array([1, -4, 4, 2], np.int32), W, g, strides=STRIDE1,
             padding="SAME")
    with pytest.raises(InvalidArgumentError, match="filter_sizes must have 4"):
        run1("Conv2DBackpropFilter", X, np.array([2, 2, 2], np.int32), g, strides=STRIDE1,
             padding="SAME")
    with pytest.raises(InvalidArgumentError, match="out_backprop must be 4-dimensional"):
        run1("Conv2DBackpropFilter", X, np.array([2, 2, 2, 3], np.int32), g[0],
             strides=STRIDE1, padding="SAME")


def test_depthwise_errors():
    with pytest.raises(InvalidArgumentError, match="same depth"):
        run1("DepthwiseConv2dNative", X, np.ones((2, 2, 3, 1), np.float32), strides=STRIDE1,
             padding="SAME")
    with pytest.raises(InvalidArgumentError, match="must be 4-dimensional"):
        run1("DepthwiseConv2dNative", X[0], np.ones((2, 2, 2, 1), np.float32),
             strides=STRIDE1, padding="SAME")
    with pytest.raises(InvalidArgumentError, match="filter_sizes must have 4"):
        run1("DepthwiseConv2dNativeBackpropFilter", X, np.array([2, 2, 2], np.int32),
             np.ones((1, 4, 4, 2), np.float32), strides=STRIDE1, padding="SAME")
    with pytest.raises(InvalidArgumentError, match="out_backprop has shape"):
        run1("DepthwiseConv2dNativeBackpropInput", np.array([1, 4, 4, 2], np.int32),
             np.ones((2, 2, 2, 2), np.float32), np.ones((1, 4, 4, 2), np.float32),
             strides=STRIDE1, padding="SAME")


@pytest.mark.parametrize("op,attrs,error,match", [
    ("MaxPool", {"ksize": [1, 2, 2]}, InvalidArgumentError, "ksize"),
    ("AvgPool", {"ksize": [1, 0, 2, 1]}, InvalidArgumentError, "ksize must be positive"),
    ("MaxPool", {"strides": [1, -1, 1, 1]}, InvalidArgumentError, "strides must be positive"),
    ("MaxPool", {"ksize": [2, 2, 2, 1]}, UnimplementedError, "batch dimension"),
    ("AvgPool", {"ksize": [1, 1, 1, 2], "strides": [1, 1, 1, 2]}, UnimplementedError,
     "across depth"),
    ("MaxPool", {"ksize": [1, 2, 2, 2]}, UnimplementedError, "exactly one"),
    ("MaxPool", {"padding": "FULL"}, InvalidArgumentError, "padding"),
])
def test_pool_errors(op, attrs, error, match):
    attrs = {"ksize": [1, 2, 2, 1], "strides": STRIDE1, "padding": "VALID", **attrs}
    with pytest.raises(error, match=match):
        run1(op, X, **attrs)


def test_pool_input_and_grad_errors():
    attrs = {"ksize": [1, 2, 2, 1], "strides": STRIDE1, "padding": "VALID"}
    with pytest.raises(InvalidArgumentError, match="must be 4-dimensional"):
        run1("MaxPool", X[0], **attrs)
    with pytest.raises(InvalidArgumentError, match="evenly divide"):
        run1("MaxPool", np.ones((1, 2, 2, 5), np.float32), ksize=[1, 1, 1, 2],
             strides=[1, 1, 1, 2], padding="VALID")
    with pytest.raises(InvalidArgumentError, match="grad has shape"):
        run1("MaxPoolGrad", X, X, X, **attrs)
    with pytest.raises(InvalidArgumentError, match="orig_input_shape must have 4"):
        run1("AvgPoolGrad", np.array([1, 4, 4], np.int32), X, **attrs)
    with pytest.raises(InvalidArgumentError, match="grad has shape"):
        run1("AvgPoolGrad", np.array([1, 4, 4, 2], np.int32), X, **attrs)
