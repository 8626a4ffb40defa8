"""TensorProto <-> ndarray in both of TensorFlow's encodings, and untrusted protos."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tfx.core import dtypes, limits, tensor_util
from tfx.core.errors import InvalidArgumentError, ResourceExhaustedError
from tfx.protos import tensor_pb2, types_pb2

NUMERIC = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
           np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64, np.complex128]


@pytest.mark.parametrize("np_type", NUMERIC + [ml_dtypes.bfloat16])
def test_round_trip_every_numeric_dtype(np_type) -> None:
    array = (np.arange(12) % 5).astype(np_type).reshape(3, 4)
    back = tensor_util.to_ndarray(tensor_util.from_ndarray(array))
    assert back.dtype == array.dtype
    np.testing.assert_array_equal(back, array)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float32, np.int32, np.int64, np.float64]),
                  hnp.array_shapes(min_dims=0, max_dims=4, max_side=5)))
def test_round_trip_property(array) -> None:
    back = tensor_util.to_ndarray(tensor_util.from_ndarray(array))
    np.testing.assert_array_equal(back, array)
    assert back.dtype == array.dtype and back.shape == array.shape


def test_typed_fields_and_splat_form() -> None:
    proto = tensor_pb2.TensorProto(dtype=dtypes.float32.enum)
    proto.tensor_shape.dim.add().size = 5
    proto.float_val.extend([1.0, 2.0])  # fewer values than elements: repeat the last
    np.testing.assert_array_equal(tensor_util.to_ndarray(proto), [1, 2, 2, 2, 2])
    big = np.full((64, 64), 7, dtype=np.int32)
    encoded = tensor_util.from_ndarray(big)
    assert list(encoded.int_val) == [7] and not encoded.tensor_content
    np.testing.assert_array_equal(tensor_util.to_ndarray(encoded), big)


def test_strings_half_and_complex_fields() -> None:
    strings = np.array([b"a", b"bc"], dtype=object)
    np.testing.assert_array_equal(tensor_util.to_ndarray(tensor_util.from_ndarray(strings)),
                                  strings)
    half = tensor_pb2.TensorProto(dtype=dtypes.float16.enum)
    half.half_val.append(int(np.float16(1.5).view(np.uint16)))
    assert tensor_util.to_ndarray(half) == np.float16(1.5)
    cplx = tensor_pb2.TensorProto(dtype=dtypes.complex64.enum, scomplex_val=[1.0, 2.0])
    assert tensor_util.to_ndarray(cplx) == np.complex64(1 + 2j)


def test_bad_protos_are_refused() -> None:
    no_dtype = tensor_pb2.TensorProto()
    with pytest.raises(InvalidArgumentError, match="DT_INVALID"):
        tensor_util.to_ndarray(no_dtype)
    with pytest.raises(InvalidArgumentError, match="invalid DataType"):
        tensor_util.to_ndarray(tensor_pb2.TensorProto(dtype=77))
    short = tensor_pb2.TensorProto(dtype=dtypes.float32.enum, tensor_content=b"\0" * 7)
    short.tensor_shape.dim.add().size = 2
    with pytest.raises(InvalidArgumentError, match="needs 8"):
        tensor_util.to_ndarray(short)
    negative = tensor_pb2.TensorProto(dtype=dtypes.float32.enum)
    negative.tensor_shape.dim.add().size = -5
    with pytest.raises(InvalidArgumentError, match="invalid dimension"):
        tensor_util.to_ndarray(negative)
    overflow = tensor_pb2.TensorProto(dtype=dtypes.int8.enum, int_val=[300])
    with pytest.raises(InvalidArgumentError, match="out of range"):
        tensor_util.to_ndarray(overflow)


def test_absurd_shape_hits_the_allocation_limit() -> None:
    proto = tensor_pb2.TensorProto(dtype=dtypes.float32.enum, float_val=[0.0])
    for _ in range(4):
        proto.tensor_shape.dim.add().size = 100_000
    with pytest.raises(ResourceExhaustedError, match="limit"):
        tensor_util.to_ndarray(proto)
    previous = limits.set_max_tensor_bytes(64)
    try:
        with pytest.raises(ResourceExhaustedError):
            limits.check_allocation((100,), 4)
    finally:
        limits.set_max_tensor_bytes(previous)


def test_dtype_lookup() -> None:
    assert dtypes.as_dtype("float") is dtypes.float32
    assert dtypes.as_dtype(np.int64) is dtypes.int64
    assert dtypes.as_dtype(101).base is dtypes.float32
    assert dtypes.as_dtype(101).is_ref
    assert dtypes.float32.as_ref.enum == 101
    with pytest.raises(InvalidArgumentError):
        dtypes.as_dtype(999)


def test_python_bytes_keep_their_trailing_nul_bytes() -> None:
    # numpy's fixed-width "S" arrays drop trailing NULs; a binary string must not lose them.
    array = tensor_util.as_ndarray([b"\x01\x00", b"ab\x00"])
    assert array.dtype == object and list(array) == [b"\x01\x00", b"ab\x00"]
    assert tensor_util.as_ndarray(b"x\x00")[()] == b"x\x00"
    nested = tensor_util.as_ndarray([["a", "b\x00"], ["c", "d"]])
    assert nested.shape == (2, 2) and nested[0, 1] == b"b\x00"


def test_strings_in_tensor_content_as_tensorflow_sends_them() -> None:
    # TensorFlow 2.21's worker answered a tfx worker's RecvTensor for tf.as_string's
    # [3, 4] result with this tensor_content (the varint sizes, then the bytes); tfx read
    # the empty string_val and got 12 empty strings, so string ops downstream differed.
    proto = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        tensor_content=b"\x04\x03\x03\x03\x04\x04\x03\x03\x04\x03\x03\x03"
                       b"-4.02.03.02.0-8.0-5.02.04.0-4.03.03.00.0")
    proto.tensor_shape.dim.add(size=3)
    proto.tensor_shape.dim.add(size=4)
    np.testing.assert_array_equal(tensor_util.to_ndarray(proto), np.array(
        [[b"-4.0", b"2.0", b"3.0", b"2.0"], [b"-8.0", b"-5.0", b"2.0", b"4.0"],
         [b"-4.0", b"3.0", b"3.0", b"0.0"]], dtype=object))
    for content, message in ((b"\x04\x03", "truncated string sizes"),
                             (proto.tensor_content + b"x", "do not add up")):
        bad = tensor_pb2.TensorProto()
        bad.CopyFrom(proto)
        bad.tensor_content = content
        with pytest.raises(InvalidArgumentError, match=message):
            tensor_util.to_ndarray(bad)
