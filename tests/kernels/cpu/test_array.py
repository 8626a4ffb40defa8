"""Array kernels and schemas: values against numpy, TensorFlow's error cases, shape functions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfx.core import dtypes, limits
from tfx.core.eager import run_op
from tfx.core.errors import InvalidArgumentError, ResourceExhaustedError
from tfx.core.op_registry import get_op
from tfx.core.shapes import ShapeContext

FAST = settings(max_examples=25, deadline=None)


def run(op: str, *inputs, **attrs):
    return run_op(op, list(inputs), **attrs)


def one(op: str, *inputs, **attrs) -> np.ndarray:
    (out,) = run(op, *inputs, **attrs)
    return out


def i32(*values) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def infer(op: str, shapes: list, values: list | None = None, num_outputs: int = 1, **attrs):
    """Run op's shape function on static shapes (and constant values)."""
    schema = get_op(op)
    full = {k: s.default for k, s in schema.attrs.items() if s.default is not None}
    full.update(attrs)
    ctx = ShapeContext("n", op, full, shapes, values or [], num_outputs)
    return schema.shape_fn(ctx)


@st.composite
def arrays(draw, min_rank: int = 0, max_rank: int = 4, max_dim: int = 4,
           dtype=np.float32) -> np.ndarray:
    shape = draw(st.lists(st.integers(0, max_dim), min_size=min_rank, max_size=max_rank))
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


@pytest.fixture
def small_limit():
    previous = limits.set_max_tensor_bytes(1 << 20)
    yield
    limits.set_max_tensor_bytes(previous)


# --- constants, placeholders, identities -----------------------------------------------


def test_const_returns_its_frozen_value():
    value = np.array([[1, 2], [3, 4]], dtype=np.int32)
    out = one("Const", value=value, dtype=dtypes.int32)
    np.testing.assert_array_equal(out, value)
    assert out.dtype == np.int32 and not out.flags.writeable


def test_const_strings():
    out = one("Const", value=np.array([b"a", b"bc"], dtype=object), dtype=dtypes.string)
    assert out.tolist() == [b"a", b"bc"]


def test_const_dtype_mismatch():
    with pytest.raises(InvalidArgumentError, match="Type mismatch"):
        run("Const", value=np.array([1.0], dtype=np.float32), dtype=dtypes.int32)


def test_placeholder_must_be_fed():
    with pytest.raises(InvalidArgumentError, match=r"must feed a value.*float32.*\[\?,3\]"):
        run("Placeholder", dtype=dtypes.float32, shape=(None, 3))


def test_placeholder_with_default_forwards():
    x = np.ones(3, np.float32)
    assert one("PlaceholderWithDefault", x, dtype=dtypes.float32, shape=(3,)) is x


@pytest.mark.parametrize("op", ["Identity", "StopGradient", "PreventGradient", "GuaranteeConst"])
def test_identities_return_the_input_object(op):
    x = np.arange(4.0)
    assert one(op, x) is x


def test_identity_n_and_snapshot():
    a, b = np.arange(3), np.array([b"x"], dtype=object)
    out = run("IdentityN", a, b)
    assert out[0] is a and out[1] is b
    snap = one("Snapshot", a)
    assert snap is not a and not np.shares_memory(snap, a)
    np.testing.assert_array_equal(snap, a)


def test_check_numerics():
    x = np.array([1.0, 2.0], np.float32)
    assert one("CheckNumerics", x, message="ok") is x
    with pytest.raises(InvalidArgumentError, match="bad : Tensor had NaN values"):
        run("CheckNumerics", np.array([np.nan, 1], np.float32), message="bad")
    with pytest.raises(InvalidArgumentError, match="Tensor had Inf and NaN values"):
        run("CheckNumerics", np.array([np.nan, np.inf]), message="m")
    with pytest.raises(InvalidArgumentError, match="Tensor had Inf values"):
        run("CheckNumerics", np.array([-np.inf], np.float16), message="m")


def test_ensure_shape():
    x = np.zeros((2, 3))
    assert one("EnsureShape", x, shape=(None, 3)) is x
    with pytest.raises(InvalidArgumentError, match=r"\[2, 3\] is not compatible.*\[2,4\]"):
        run("EnsureShape", x, shape=(2, 4))
    with pytest.raises(InvalidArgumentError, match="not compatible"):
        run("EnsureShape", x, shape=(2, 3, 1))


def test_no_op():
    assert run("NoOp") == ()


# --- shapes of shapes ------------------------------------------------------------------


def test_shape_size_rank():
    x = np.zeros((2, 0, 5))
    out = one("Shape", x)
    assert out.dtype == np.int32 and out.tolist() == [2, 0, 5]
    assert one("Shape", x, out_type=dtypes.int64).dtype == np.int64
    a, b = run("ShapeN", x, np.zeros((1, 2)), out_type=dtypes.int64)
    assert a.tolist() == [2, 0, 5] and b.tolist() == [1, 2] and b.dtype == np.int64
    size = one("Size", np.zeros((3, 4)))
    assert size.shape == () and size.dtype == np.int32 and size == 12
    rank = one("Rank", np.zeros((3, 4, 1)))
    assert rank.shape == () and rank.dtype == np.int32 and rank == 3
    assert one("Shape", np.float32(1.0)).shape == (0,)


def test_size_too_large_for_int32():
    huge = np.broadcast_to(np.zeros(1, np.int8), (1 << 16, 1 << 16))  # no memory behind it
    with pytest.raises(InvalidArgumentError, match="too large for the int32"):
        run("Size", huge)
    assert one("Size", huge, out_type=dtypes.int64) == 1 << 32


# --- reshaping -------------------------------------------------------------------------


@FAST
@given(arrays(), st.data())
def test_reshape_matches_numpy(x, data):
    shape = list(data.draw(st.permutations(x.shape))) + [1]
    if shape and data.draw(st.booleans()) and x.size:
        shape[data.draw(st.integers(0, len(shape) - 1))] = -1
    out = one("Reshape", x, np.array(shape, np.int64))
    np.testing.assert_array_equal(out, x.reshape(shape))


def test_reshape_infers_with_zero_sized_dims():
    assert one("Reshape", np.zeros((0, 6)), i32(0, -1)).shape == (0, 6)
    assert one("Reshape", np.zeros((0, 6)), i32(-1, 3)).shape == (0, 3)
    assert one("Reshape", np.float32(7), i32()).shape == ()


@pytest.mark.parametrize("shape, message", [
    ((4, 2), "tensor with 6 values, but the requested shape has 8"),
    ((4, -1), "requires a multiple of 4"),
    ((-1, -1), "Only one input size may be -1"),
    ((-2, 3), "must be non-negative"),
])
def test_reshape_errors(shape, message):
    with pytest.raises(InvalidArgumentError, match=message):
        run("Reshape", np.zeros((2, 3)), i32(*shape))


def test_reshape_shape_must_be_a_vector():
    with pytest.raises(InvalidArgumentError, match="must be a vector"):
        run("Reshape", np.zeros(6), np.array([[2, 3]], np.int32))


@FAST
@given(arrays(min_rank=1), st.data())
def test_transpose_matches_numpy(x, data):
    perm = data.draw(st.permutations(range(x.ndim)))
    np.testing.assert_array_equal(one("Transpose", x, i32(*perm)), x.transpose(perm))


@pytest.mark.parametrize("perm, message", [
    ((0, 1), "vector of size 3"),
    ((0, 1, 3), "out of range"),
    ((0, 0, 1), "2 is missing"),
    ((-4, 0, 1), "out of range"),
    ((-1, 2, 0), "1 is missing"),
])
def test_transpose_errors(perm, message):
    with pytest.raises(InvalidArgumentError, match=message):
        run("Transpose", np.zeros((1, 2, 3)), i32(*perm))


def test_conjugate_transpose():
    x = np.array([[1 + 2j, 3 - 1j]], np.complex64)
    out = one("ConjugateTranspose", x, i32(1, 0))
    np.testing.assert_array_equal(out, np.conj(x.T))
    real = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(one("ConjugateTranspose", real, i32(1, 0)), real.T)


def test_expand_dims():
    x = np.zeros((2, 3))
    for dim in range(-3, 3):
        assert one("ExpandDims", x, np.int32(dim)).shape == np.expand_dims(x, dim).shape
    assert one("ExpandDims", x, i32(1)).shape == (2, 1, 3)  # a one-element vector works too
    with pytest.raises(InvalidArgumentError, match="expand dim index 3"):
        run("ExpandDims", x, np.int32(3))
    with pytest.raises(InvalidArgumentError, match="single value"):
        run("ExpandDims", x, i32(0, 1))


def test_squeeze():
    x = np.zeros((1, 2, 1, 3, 1))
    assert one("Squeeze", x).shape == (2, 3)
    assert one("Squeeze", x, squeeze_dims=[0, -1]).shape == (2, 1, 3)
    with pytest.raises(InvalidArgumentError, match=r"Can not squeeze dim\[1\]"):
        run("Squeeze", x, squeeze_dims=[1])
    with pytest.raises(InvalidArgumentError, match="squeeze dim index 5"):
        run("Squeeze", x, squeeze_dims=[5])


# --- joining and splitting -------------------------------------------------------------


@FAST
@given(arrays(min_rank=1, max_rank=3), st.data())
def test_concat_v2_matches_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    extra = list(x.shape)
    extra[axis] = data.draw(st.integers(0, 3))
    y = np.ones(extra, np.float32)
    out = one("ConcatV2", x, y, x, np.int32(axis))
    np.testing.assert_array_equal(out, np.concatenate([x, y, x], axis=axis))
    old = one("Concat", np.int32(axis), x, y)
    np.testing.assert_array_equal(old, np.concatenate([x, y], axis=axis))


def test_concat_errors():
    with pytest.raises(InvalidArgumentError, match="Dimensions of inputs should match"):
        run("ConcatV2", np.zeros((2, 3)), np.zeros((3, 3)), np.int32(1))
    with pytest.raises(InvalidArgumentError, match=r"range \[-2, 2\), but got 2"):
        run("ConcatV2", np.zeros((2, 3)), np.zeros((2, 3)), np.int32(2))
    with pytest.raises(InvalidArgumentError, match="Can't concatenate scalars"):
        run("ConcatV2", np.float32(1), np.float32(2), np.int32(0))
    with pytest.raises(InvalidArgumentError, match="Dimensions of inputs should match"):
        run("ConcatV2", np.zeros((2, 3)), np.zeros(3), np.int32(0))


def test_concat_offset():
    out = run("ConcatOffset", np.int32(1), i32(2, 3, 5), i32(2, 7, 5), i32(2, 1, 5))
    assert [o.tolist() for o in out] == [[0, 0, 0], [0, 3, 0], [0, 10, 0]]
    with pytest.raises(InvalidArgumentError, match="must match"):
        run("ConcatOffset", np.int32(1), i32(2, 3), i32(3, 3))


@FAST
@given(arrays(min_rank=1, max_rank=3), st.data())
def test_split_matches_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    count = data.draw(st.sampled_from([n for n in range(1, 5) if x.shape[axis] % n == 0]))
    out = run("Split", np.int32(axis), x, num_split=count)
    for got, want in zip(out, np.split(x, count, axis=axis), strict=True):
        np.testing.assert_array_equal(got, want)


def test_split_errors():
    with pytest.raises(InvalidArgumentError, match="evenly divide"):
        run("Split", np.int32(0), np.zeros(5), num_split=2)
    with pytest.raises(InvalidArgumentError, match="out of range"):
        run("Split", np.int32(1), np.zeros(4), num_split=2)


def test_split_v():
    x = np.arange(10.0)
    out = run("SplitV", x, i32(2, -1, 3), np.int32(0), num_split=3)
    assert [o.tolist() for o in out] == [[0, 1], [2, 3, 4, 5, 6], [7, 8, 9]]
    out = run("SplitV", x.reshape(2, 5), np.array([1, 4]), np.int32(-1), num_split=2)
    assert [o.shape for o in out] == [(2, 1), (2, 4)]
    with pytest.raises(InvalidArgumentError, match="only have one -1"):
        run("SplitV", x, i32(-1, -1), np.int32(0), num_split=2)
    with pytest.raises(InvalidArgumentError, match="Got: 9"):
        run("SplitV", x, i32(4, 5), np.int32(0), num_split=2)
    with pytest.raises(InvalidArgumentError, match="can't split axis of size 10"):
        run("SplitV", x, i32(11, -1), np.int32(0), num_split=2)
    with pytest.raises(InvalidArgumentError, match="num_split"):
        run("SplitV", x, i32(5, 5), np.int32(0), num_split=3)


@FAST
@given(arrays(max_rank=3), st.integers(1, 3), st.data())
def test_pack_unpack_match_numpy(x, n, data):
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim))
    values = [x + i for i in range(n)]
    packed = one("Pack", *values, axis=axis)
    np.testing.assert_array_equal(packed, np.stack(values, axis=axis))
    unpacked = run("Unpack", packed, num=n, axis=axis)
    for got, want in zip(unpacked, values, strict=True):
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, want)


def test_pack_unpack_errors():
    with pytest.raises(InvalidArgumentError, match="Shapes of all inputs must match"):
        run("Pack", np.zeros(2), np.zeros(3))
    with pytest.raises(InvalidArgumentError, match="out of range"):
        run("Pack", np.zeros(2), np.zeros(2), axis=2)
    with pytest.raises(InvalidArgumentError, match="must equal 3"):
        run("Unpack", np.zeros((2, 4)), num=3)
    with pytest.raises(InvalidArgumentError, match="out of range"):
        run("Unpack", np.zeros((2, 4)), num=2, axis=2)


# --- filling, tiling, padding ----------------------------------------------------------


def test_fill_and_likes():
    out = one("Fill", i32(2, 3), np.float32(1.5))
    assert out.dtype == np.float32 and out.tolist() == [[1.5] * 3] * 2
    assert one("Fill", np.array([2], np.int64), np.array(b"s", dtype=object)).tolist() == [b"s"] * 2
    with pytest.raises(InvalidArgumentError, match="Dimension -1 must be >= 0"):
        run("Fill", i32(2, -1), np.float32(0))
    with pytest.raises(InvalidArgumentError, match="must be a scalar"):
        run("Fill", i32(2), np.zeros(2, np.float32))
    z = one("ZerosLike", np.ones((2, 2), np.int64))
    assert z.dtype == np.int64 and not z.any()
    assert one("ZerosLike", np.array([b"x"], dtype=object)).tolist() == [b""]
    assert one("ZerosLike", np.array([True])).tolist() == [False]
    ones = one("OnesLike", np.zeros(3, np.float16))
    assert ones.dtype == np.float16 and ones.tolist() == [1, 1, 1]
    empty = one("Empty", i32(2, 2), dtype=dtypes.float64, init=True)
    assert empty.dtype == np.float64 and empty.shape == (2, 2)


def test_fill_checks_the_allocation_limit(small_limit):
    with pytest.raises(ResourceExhaustedError):
        run("Fill", np.array([1 << 20, 1 << 20], np.int64), np.float32(0))


@FAST
@given(arrays(max_rank=3, max_dim=3), st.data())
def test_tile_matches_numpy(x, data):
    reps = data.draw(st.lists(st.integers(0, 3), min_size=x.ndim, max_size=x.ndim))
    np.testing.assert_array_equal(one("Tile", x, i32(*reps)), np.tile(x, reps) if reps else x)


def test_tile_errors(small_limit):
    with pytest.raises(InvalidArgumentError, match="vector of length 2 but got length 1"):
        run("Tile", np.zeros((2, 2)), i32(2))
    with pytest.raises(InvalidArgumentError, match=r"multiples\[1\] >= 0"):
        run("Tile", np.zeros((2, 2)), i32(2, -1))
    with pytest.raises(ResourceExhaustedError):
        run("Tile", np.zeros((2, 2)), i32(1 << 16, 1 << 16))


@FAST
@given(arrays(max_rank=3, max_dim=3), st.data())
def test_pad_matches_numpy(x, data):
    pads = [data.draw(st.tuples(st.integers(0, 2), st.integers(0, 2))) for _ in x.shape]
    paddings = np.array(pads, np.int32).reshape(-1, 2)
    want = np.pad(x, pads) if pads else x
    np.testing.assert_array_equal(one("Pad", x, paddings), want)
    padded = one("PadV2", x, paddings, np.float32(-1))
    np.testing.assert_array_equal(padded, np.pad(x, pads, constant_values=-1) if pads else x)
    assert padded.dtype == np.float32


@FAST
@given(arrays(min_rank=1, max_rank=3, max_dim=4), st.sampled_from(["REFLECT", "SYMMETRIC"]),
       st.data())
def test_mirror_pad_matches_numpy_and_its_gradient_is_the_adjoint(x, mode, data):
    limit = 1 if mode == "REFLECT" else 0
    if mode == "REFLECT" and 0 in x.shape:
        return  # an empty dim has nothing to reflect
    bound = st.integers(0, max(min(x.shape) - limit, 0))
    pads = [(data.draw(bound), data.draw(bound)) for _ in x.shape]
    paddings = np.array(pads, np.int64)
    out = one("MirrorPad", x, paddings, mode=mode)
    np.testing.assert_array_equal(out, np.pad(x, pads, mode=mode.lower()))
    # <MirrorPad(x), y> == <x, MirrorPadGrad(y)> for every y: the gradient is the adjoint.
    y = np.random.default_rng(0).standard_normal(out.shape)
    grad = one("MirrorPadGrad", y, paddings, mode=mode)
    assert grad.shape == x.shape
    np.testing.assert_allclose((out * y).sum(), (x * grad).sum(), rtol=1e-6, atol=1e-6)


def test_pad_errors():
    x = np.zeros((2, 3))
    with pytest.raises(InvalidArgumentError, match=r"paddings must have shape \[2, 2\]"):
        run("Pad", x, i32(1, 1))
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        run("Pad", x, np.array([[0, 0], [-1, 0]], np.int32))
    with pytest.raises(InvalidArgumentError, match="must be a scalar"):
        run("PadV2", x, np.zeros((2, 2), np.int32), np.zeros(1))
    with pytest.raises(InvalidArgumentError, match="REFLECT"):
        run("MirrorPad", x, np.array([[2, 0], [0, 0]], np.int32), mode="REFLECT")
    assert one("MirrorPad", x, np.array([[2, 0], [0, 3]]), mode="SYMMETRIC").shape == (4, 6)


def test_pad_strings_with_empty_bytes():
    out = one("Pad", np.array([b"a"], dtype=object), i32(1, 1).reshape(1, 2))
    assert out.tolist() == [b"", b"a", b""]


# --- reversing and broadcasting --------------------------------------------------------


@FAST
@given(arrays(min_rank=1), st.data())
def test_reverse_matches_numpy(x, data):
    axes = data.draw(st.lists(st.integers(0, x.ndim - 1), unique=True))
    signed = [a - x.ndim if data.draw(st.booleans()) else a for a in axes]
    want = np.flip(x, axes) if axes else x
    np.testing.assert_array_equal(one("ReverseV2", x, i32(*signed)), want)
    mask = np.isin(np.arange(x.ndim), axes)
    np.testing.assert_array_equal(one("Reverse", x, mask), want)


def test_reverse_errors():
    with pytest.raises(InvalidArgumentError, match="out of valid range"):
        run("ReverseV2", np.zeros((2, 2)), i32(2))
    with pytest.raises(InvalidArgumentError, match="specified more than once"):
        run("ReverseV2", np.zeros((2, 2)), i32(1, -1))
    with pytest.raises(InvalidArgumentError, match="one entry per dimension"):
        run("Reverse", np.zeros((2, 2)), np.array([True]))


def test_reverse_sequence():
    x = np.arange(24).reshape(2, 4, 3)  # [batch, time, feature]... with seq_dim=1
    out = one("ReverseSequence", x, np.array([3, 1], np.int64), seq_dim=1, batch_dim=0)
    want = x.copy()
    want[0, :3] = x[0, 2::-1]
    np.testing.assert_array_equal(out, want)
    out = one("ReverseSequence", x.transpose(1, 0, 2), np.array([2, 4]), seq_dim=0, batch_dim=1)
    want = x.transpose(1, 0, 2).copy()
    want[:2, 0] = want[1::-1, 0].copy()
    want[:, 1] = want[::-1, 1].copy()
    np.testing.assert_array_equal(out, want)
    with pytest.raises(InvalidArgumentError, match="seq_lengths must be in"):
        run("ReverseSequence", x, np.array([5, 1]), seq_dim=1)
    with pytest.raises(InvalidArgumentError, match="vector of length 2"):
        run("ReverseSequence", x, np.array([1]), seq_dim=1)


def test_broadcast_to():
    x = np.arange(3, dtype=np.float32)
    out = one("BroadcastTo", x, i32(2, 3))
    np.testing.assert_array_equal(out, np.broadcast_to(x, (2, 3)))
    assert out.flags.writeable and out.flags.c_contiguous
    assert one("BroadcastTo", x, i32(3)) is x
    with pytest.raises(InvalidArgumentError, match="Unable to broadcast"):
        run("BroadcastTo", x, i32(2, 4))
    with pytest.raises(InvalidArgumentError, match="Unable to broadcast"):
        run("BroadcastTo", np.zeros((2, 3)), i32(3))


def test_broadcast_args_and_gradient_args():
    assert one("BroadcastArgs", i32(2, 1, 3), i32(4, 1)).tolist() == [2, 4, 3]
    out = one("BroadcastArgs", np.array([5], np.int64), np.array([], np.int64))
    assert out.dtype == np.int64 and out.tolist() == [5]
    with pytest.raises(InvalidArgumentError, match="Incompatible shapes"):
        run("BroadcastArgs", i32(2, 3), i32(4))
    r0, r1 = run("BroadcastGradientArgs", i32(2, 3, 1), i32(3, 5))
    assert r0.tolist() == [2] and r1.tolist() == [0] and r0.dtype == np.int32
    r0, r1 = run("BroadcastGradientArgs", i32(1, 1), i32(1))
    assert r0.tolist() == [0, 1] and r1.tolist() == [0, 1]
    with pytest.raises(InvalidArgumentError, match="Incompatible shapes"):
        run("BroadcastGradientArgs", i32(2), i32(3))


# --- space, depth and batch ------------------------------------------------------------


def _space_to_batch_reference(x, block, pads):
    padded = np.pad(x, [(0, 0)] + pads + [(0, 0)] * (x.ndim - 1 - len(block)))
    batch = x.shape[0]
    spatial = [padded.shape[1 + i] // b for i, b in enumerate(block)]
    out = np.zeros([batch * int(np.prod(block))] + spatial + list(x.shape[1 + len(block):]),
                   x.dtype)
    for offset in np.ndindex(*block):
        base = int(np.ravel_multi_index(offset, block)) * batch
        window = tuple(slice(o, None, b) for o, b in zip(offset, block))
        out[base:base + batch] = padded[(slice(None),) + window]
    return out


@FAST
@given(st.integers(1, 2), st.lists(st.integers(1, 3), min_size=1, max_size=2), st.data())
def test_space_to_batch_nd_and_back(batch, block, data):
    pads, spatial = [], []
    for b in block:
        padded = data.draw(st.integers(0, 3)) * b
        before = data.draw(st.integers(0, padded))
        after = data.draw(st.integers(0, padded - before))
        pads.append([before, after])
        spatial.append(padded - before - after)
    x = np.arange(batch * int(np.prod(spatial)) * 2, dtype=np.float32).reshape(
        [batch] + spatial + [2])
    out = one("SpaceToBatchND", x, i32(*block), np.array(pads, np.int32).reshape(-1, 2))
    np.testing.assert_array_equal(out, _space_to_batch_reference(x, block, pads))
    back = one("BatchToSpaceND", out, i32(*block), np.array(pads, np.int64).reshape(-1, 2))
    np.testing.assert_array_equal(back, x)


def test_space_to_batch_tensorflow_example():
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 2, 2, 1)
    out = one("SpaceToBatchND", x, i32(2, 2), np.zeros((2, 2), np.int32))
    assert out.shape == (4, 1, 1, 1) and out.ravel().tolist() == [1, 2, 3, 4]
    with pytest.raises(InvalidArgumentError, match="not divisible"):
        run("SpaceToBatchND", np.zeros((1, 3, 2, 1)), i32(2, 2), np.zeros((2, 2), np.int32))
    with pytest.raises(InvalidArgumentError, match="not divisible by product"):
        run("BatchToSpaceND", np.zeros((3, 1, 1, 1)), i32(2, 2), np.zeros((2, 2), np.int32))
    with pytest.raises(InvalidArgumentError, match="positive"):
        run("SpaceToBatchND", np.zeros((1, 2, 2, 1)), i32(0, 2), np.zeros((2, 2), np.int32))


def test_space_to_depth_and_back():
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 2, 2, 1)
    out = one("SpaceToDepth", x, block_size=2)
    assert out.shape == (1, 1, 1, 4) and out.ravel().tolist() == [1, 2, 3, 4]
    x = np.random.default_rng(1).standard_normal((2, 4, 6, 3))
    deep = one("SpaceToDepth", x, block_size=2)
    assert deep.shape == (2, 2, 3, 12)
    np.testing.assert_array_equal(one("DepthToSpace", deep, block_size=2), x)
    nchw = one("SpaceToDepth", x.transpose(0, 3, 1, 2), block_size=2, data_format="NCHW")
    np.testing.assert_array_equal(nchw, deep.transpose(0, 3, 1, 2))
    back = one("DepthToSpace", nchw, block_size=2, data_format="NCHW")
    np.testing.assert_array_equal(back, x.transpose(0, 3, 1, 2))
    with pytest.raises(InvalidArgumentError, match="divisible"):
        run("SpaceToDepth", np.zeros((1, 3, 2, 1)), block_size=2)
    with pytest.raises(InvalidArgumentError, match="divisible"):
        run("DepthToSpace", np.zeros((1, 1, 1, 3)), block_size=2)


def test_bitcast():
    x = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(one("Bitcast", x, type=dtypes.int32), x.view(np.int32))
    raw = one("Bitcast", x, type=dtypes.uint8)
    assert raw.shape == (2, 4) and raw.dtype == np.uint8
    np.testing.assert_array_equal(one("Bitcast", raw, type=dtypes.float32), x)
    assert one("Bitcast", np.array(1.0), type=dtypes.uint16).shape == (4,)
    with pytest.raises(InvalidArgumentError, match="must be 4"):
        run("Bitcast", np.zeros((2, 3), np.uint8), type=dtypes.float32)


# --- diagonals and bands ---------------------------------------------------------------


def test_matrix_diag_family():
    d = np.arange(6.0).reshape(2, 3)
    m = one("MatrixDiag", d)
    np.testing.assert_array_equal(m, np.stack([np.diag(r) for r in d]))
    x = np.arange(24.0).reshape(2, 3, 4)
    part = one("MatrixDiagPart", x)
    np.testing.assert_array_equal(part, np.stack([np.diag(r) for r in x]))
    assert part.flags.writeable
    new = one("MatrixSetDiag", x, -part)
    want = x.copy()
    for b in range(2):
        np.fill_diagonal(want[b], -np.diag(x[b]))
    np.testing.assert_array_equal(new, want)
    assert (x == np.arange(24.0).reshape(2, 3, 4)).all()  # the input is untouched
    with pytest.raises(InvalidArgumentError, match="must have shape"):
        run("MatrixSetDiag", x, np.zeros((2, 4)))


@pytest.mark.parametrize("lower, upper", [(0, 0), (1, -1), (-1, 0), (2, 1), (-1, -1)])
def test_matrix_band_part(lower, upper):
    x = np.arange(1.0, 21.0).reshape(4, 5)
    want = x.copy()
    for i, j in np.ndindex(*x.shape):
        if (lower >= 0 and i - j > lower) or (upper >= 0 and j - i > upper):
            want[i, j] = 0
    out = one("MatrixBandPart", x, np.int64(lower), np.int64(upper))
    np.testing.assert_array_equal(out, want)


def test_matrix_band_part_limits():
    with pytest.raises(InvalidArgumentError, match="num_lower"):
        run("MatrixBandPart", np.zeros((2, 3)), np.int64(3), np.int64(0))


def test_diag_and_diag_part():
    d = np.arange(1.0, 7.0).reshape(2, 3)
    out = one("Diag", d)
    assert out.shape == (2, 3, 2, 3)
    assert out[1, 2, 1, 2] == 6 and out.sum() == d.sum()
    np.testing.assert_array_equal(one("DiagPart", out), d)
    with pytest.raises(InvalidArgumentError, match="even"):
        run("DiagPart", np.zeros((2, 3)))


# --- schemas and shape functions -------------------------------------------------------


def test_schemas_match_tensorflow():
    gather = get_op("GatherV2")
    assert [a.name for a in gather.inputs] == ["params", "indices", "axis"]
    assert gather.attrs["batch_dims"].default == 0
    assert [a.name for a in get_op("ConcatV2").inputs] == ["values", "axis"]
    assert get_op("Squeeze").attrs["squeeze_dims"].default == []
    assert get_op("Pack").attrs["axis"].default == 0
    assert get_op("OneHot").attrs["TI"].default == dtypes.int64
    assert get_op("SplitV").attrs["Tlen"].default == dtypes.int64
    assert get_op("Placeholder").attrs["shape"].default is None
    assert get_op("Where").attrs["T"].default == dtypes.bool_
    assert get_op("CheckNumerics").is_stateful
    assert "Rank" in [s.name for s in [get_op("Rank")]] and "out_type" not in get_op("Rank").attrs


def test_reshape_shape_function():
    assert infer("Reshape", [(2, 3), (2,)], [None, i32(3, -1)]) == [(3, 2)]
    assert infer("Reshape", [(None, 3), (2,)], [None, i32(-1, 3)]) == [(None, 3)]
    assert infer("Reshape", [(2, 3), (2,)]) == [(None, None)]
    assert infer("Reshape", [None, None]) == [None]
    with pytest.raises(InvalidArgumentError, match="node 'n'.*Cannot reshape"):
        infer("Reshape", [(2, 3), (2,)], [None, i32(4, 2)])


def test_shape_functions():
    assert infer("Const", [], value=np.zeros((2, 1))) == [(2, 1)]
    assert infer("Placeholder", [], shape=(None, 3)) == [(None, 3)]
    assert infer("Transpose", [(2, 3, 4), (3,)], [None, i32(2, 0, 1)]) == [(4, 2, 3)]
    assert infer("Transpose", [None, (3,)]) == [(None, None, None)]
    assert infer("ExpandDims", [(2, 3), ()], [None, np.int32(-1)]) == [(2, 3, 1)]
    assert infer("Squeeze", [(1, None, 3, 1)], squeeze_dims=[0]) == [(None, 3, 1)]
    assert infer("Squeeze", [(1, None, 3)]) == [None]
    assert infer("Shape", [(2, None)]) == [(2,)]
    assert infer("Size", [None]) == [()]
    assert infer("ConcatV2", [(2, 3), (2, None), ()], [None, None, np.int32(1)], N=2) == [
        (2, None)]
    assert infer("ConcatV2", [(2, 3), (4, 3), ()], [None, None, np.int32(0)], N=2) == [(6, 3)]
    assert infer("ConcatV2", [(2, 3), (4, 3), ()], N=2) == [(None, None)]
    assert infer("Pack", [(2, None), (None, 3)], N=2, axis=1) == [(2, 2, 3)]
    assert infer("Unpack", [(2, 3)], num_outputs=3, num=3, axis=1) == [(2,)] * 3
    assert infer("Split", [(), (4, 6)], [np.int32(1)], num_outputs=3, num_split=3) == [(4, 2)] * 3
    assert infer("SplitV", [(10,), (2,), ()], [None, i32(3, -1), np.int32(0)], num_outputs=2,
                 num_split=2) == [(3,), (7,)]
    assert infer("Slice", [(5, 6), (2,), (2,)], [None, i32(1, 2), i32(-1, 3)]) == [(4, 3)]
    assert infer("Tile", [(2, None), (2,)], [None, i32(3, 2)]) == [(6, None)]
    assert infer("Pad", [(2, 3), (2, 2)], [None, np.array([[1, 1], [0, 2]])]) == [(4, 5)]
    assert infer("Fill", [(2,), ()], [i32(2, 5)]) == [(2, 5)]
    assert infer("OneHot", [(4,), (), (), ()], [None, np.int32(3)], axis=0) == [(3, 4)]
    assert infer("BroadcastTo", [(3,), (2,)], [None, i32(2, 3)]) == [(2, 3)]
    assert infer("SpaceToBatchND", [(1, 4, 4, 3), (2,), (2, 2)],
                 [None, i32(2, 2), np.zeros((2, 2), np.int32)]) == [(4, 2, 2, 3)]
    assert infer("SpaceToDepth", [(1, 4, 6, 3)], block_size=2) == [(1, 2, 3, 12)]
    assert infer("Bitcast", [(5,)], T=dtypes.float32, type=dtypes.uint8) == [(5, 4)]
    assert infer("MatrixDiagPart", [(2, 3, 4)]) == [(2, 3)]


@pytest.mark.parametrize("op, shapes, values, attrs, message", [
    ("Squeeze", [(2, 3)], None, {"squeeze_dims": [0]}, "Can not squeeze"),
    ("ConcatV2", [(2, 3), (3, 4), ()], [None, None, np.int32(0)], {"N": 2}, "Dimension 1"),
    ("Pack", [(2,), (3,)], None, {"N": 2}, "must match"),
    ("Split", [(), (5,)], [np.int32(0)], {"num_split": 2}, "evenly divide"),
    ("Transpose", [(2, 3), (2,)], [None, i32(0, 2)], {}, "out of range"),
    ("Fill", [(1,), ()], [i32(-1)], {}, ">= 0"),
    ("Pad", [(2, 3), (2, 2)], [None, np.array([[0, -1], [0, 0]])], {}, "non-negative"),
])
def test_shape_functions_reject_provable_errors(op, shapes, values, attrs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        infer(op, shapes, values, num_outputs=2 if op == "Split" else 1, **attrs)
