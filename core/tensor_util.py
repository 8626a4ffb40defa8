"""TensorProto <-> numpy conversion, in both of TensorFlow's encodings.

`to_ndarray` reads `tensor_content` (raw little-endian bytes; for strings and
variants, the varint size of each element, then the elements) or the typed
`*_val` fields, where fewer values than the shape needs means "repeat the
last one" (TensorFlow's compact form for large splats). `from_ndarray` writes
`tensor_content` for numeric tensors, the typed field for strings, and the
one-value splat form when every element is equal and the tensor is large.

Protos are untrusted, and a 60-byte splat can describe a gigabyte: the dtype
enum, the dims and the byte counts are checked against the per-tensor limit
before anything is allocated, and a splat of one value decodes to a read-only
broadcast view of that value (`is_splat`), which costs no memory whatever its
shape. Only a splat of several values is expanded into a dense array, and that
counts against the total limit on expanded constants (`limits.track_expansion`).
Whoever needs only the dtype and shape reads them from the proto
(`proto_dtype`, `proto_shape`, `proto_nbytes`) without decoding anything, and a
bound node holds its tensor attrs as `TensorValue`s, checked but decoded only
when `.value` is read, so binding never materializes a large constant.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tfx.core import dtypes, limits
from tfx.core.errors import InvalidArgumentError
from tfx.protos import tensor_pb2

# Which typed field holds the values for each base dtype name.
_VAL_FIELD = {
    "float32": "float_val",
    "float64": "double_val",
    "int32": "int_val",
    "int16": "int_val",
    "int8": "int_val",
    "uint8": "int_val",
    "uint16": "int_val",
    "qint8": "int_val",
    "quint8": "int_val",
    "qint16": "int_val",
    "quint16": "int_val",
    "qint32": "int_val",
    "int64": "int64_val",
    "uint32": "uint32_val",
    "uint64": "uint64_val",
    "bool": "bool_val",
    "float16": "half_val",
    "bfloat16": "half_val",
    "complex64": "scomplex_val",
    "complex128": "dcomplex_val",
    "string": "string_val",
    "resource": "resource_handle_val",
    "variant": "variant_val",
}

_SPLAT_MIN_ELEMENTS = 16


def shape_from_proto(proto: tensor_pb2.TensorShapeProto, what: str = "shape") -> tuple | None:
    """Static shape as a tuple with None for unknown dims, or None for unknown rank."""
    if proto.unknown_rank:
        return None
    dims = []
    for dim in proto.dim:
        if dim.size < -1:
            raise InvalidArgumentError(f"{what}: invalid dimension {dim.size}")
        dims.append(None if dim.size == -1 else int(dim.size))
    return tuple(dims)


def shape_to_proto(shape: Any, proto: tensor_pb2.TensorShapeProto | None = None):
    """Fill (or make) a TensorShapeProto from a tuple with None for unknown dims."""
    proto = proto if proto is not None else tensor_pb2.TensorShapeProto()
    proto.Clear()
    if shape is None:
        proto.unknown_rank = True
        return proto
    for dim in shape:
        proto.dim.add().size = -1 if dim is None else int(dim)
    return proto


def proto_dtype(proto: tensor_pb2.TensorProto, what: str = "tensor") -> dtypes.DType:
    """The dtype of a tensor value, checked, without decoding its values."""
    dtype = dtypes.as_dtype(proto.dtype) if proto.dtype else None
    if dtype is None:
        raise InvalidArgumentError(f"{what}: tensor has no dtype (DT_INVALID)")
    if dtype.is_ref:
        raise InvalidArgumentError(f"{what}: a tensor value cannot have reference type {dtype}")
    return dtype


def proto_shape(proto: tensor_pb2.TensorProto, what: str = "tensor") -> tuple[int, ...]:
    """The fully known shape of a tensor value, checked, without decoding its values."""
    shape = shape_from_proto(proto.tensor_shape, what)
    if shape is None or any(d is None for d in shape):
        raise InvalidArgumentError(f"{what}: a tensor value needs a fully known shape")
    return shape


def proto_nbytes(proto: tensor_pb2.TensorProto, what: str = "tensor") -> int:
    """Bytes the decoded value would take as a dense array (8 per string or handle)."""
    dtype = proto_dtype(proto, what)
    return limits.num_elements(proto_shape(proto, what), what) * (dtype.itemsize or 8)


def is_compact(proto: tensor_pb2.TensorProto) -> bool:
    """Whether the proto holds fewer values than its shape has elements (a splat).

    Such a value costs more to decode densely than to store: readers that would
    expand it should first weigh `proto_nbytes` against their budget.
    """
    if proto.tensor_content:
        return False
    dtype = dtypes.as_dtype(proto.dtype) if proto.dtype else None
    field = _VAL_FIELD.get(dtype.name) if dtype is not None else None
    stored = len(getattr(proto, field)) if field else 0
    if dtype is not None and dtype.is_complex:
        stored //= 2
    count = 1
    for dim in proto.tensor_shape.dim:
        count *= max(int(dim.size), 0)
    return stored < count


def check_proto(
    proto: tensor_pb2.TensorProto, what: str = "tensor"
) -> tuple[dtypes.DType, tuple[int, ...]]:
    """Check what can be checked of a tensor value without decoding it; return dtype, shape.

    The dtype (set, not a reference, supported here), the shape (fully known,
    non-negative) and how many values are stored against it: everything
    `to_ndarray` would refuse except the per-tensor and total limits and the
    range of integer values, which are checked when the value is decoded.
    """
    dtype = proto_dtype(proto, what)
    if dtype.np is None:
        raise InvalidArgumentError(f"{what}: dtype {dtype} is not supported on this install")
    shape = proto_shape(proto, what)
    count = limits.num_elements(shape, what)
    name = dtype.name
    if proto.tensor_content and name not in ("string", "resource", "variant"):
        expected = count * dtype.itemsize
        if len(proto.tensor_content) != expected:
            raise InvalidArgumentError(
                f"{what}: tensor_content holds {len(proto.tensor_content)} bytes but shape "
                f"{list(shape)} of {name} needs {expected}"
            )
        return dtype, shape
    field = _VAL_FIELD.get(name)
    if field is None:
        if count == 0:
            return dtype, shape
        raise InvalidArgumentError(f"{what}: cannot decode values of dtype {name}")
    stored = len(getattr(proto, field))
    if dtype.is_complex:
        if stored % 2:
            raise InvalidArgumentError(f"{what}: complex values need (real, imag) pairs")
        stored //= 2
    if stored > count:
        raise InvalidArgumentError(
            f"{what}: {stored} values given for shape {list(shape)} ({count} elements)"
        )
    return dtype, shape


class TensorValue:
    """A tensor-valued attr as a bound node holds it: checked, decoded on first use.

    Binding a node (graph validation, output types, shape inference, the cost
    model, placement, partitioning) needs a constant's dtype and shape, never
    its values; an untrusted 60-byte splat can stand for gigabytes, and a
    constant may be over the per-tensor limit yet fine to optimize or place.
    So binding only runs `check_proto`, and the values are decoded by
    `.value` (`to_ndarray`, with the per-tensor and total limits and errors
    naming `what`) when someone needs them: the Const kernel's setup, constant
    folding of small constants, shape functions reading small constants.

    Attributes:
        dtype: the value's dtype.
        shape: its fully known shape.
        what: who holds it, for error messages ("node 'c' (op Const), attr 'value'").

    Example:
        >>> lazy = TensorValue(from_ndarray(np.zeros((2, 3), np.float32)))
        >>> lazy.shape, lazy.nbytes, lazy.value.tolist()[0]
        ((2, 3), 24, [0.0, 0.0, 0.0])
    """

    __slots__ = ("_proto", "_array", "dtype", "shape", "what")

    def __init__(self, proto: tensor_pb2.TensorProto, what: str = "tensor") -> None:
        self.dtype, self.shape = check_proto(proto, what)
        self.what = what
        self._proto: tensor_pb2.TensorProto | None = proto
        self._array: np.ndarray | None = None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return limits.num_elements(self.shape, self.what)

    @property
    def nbytes(self) -> int:
        """Bytes the decoded value takes as a dense array (8 per string or handle)."""
        return self.size * (self.dtype.itemsize or 8)

    @property
    def value(self) -> np.ndarray:
        """The decoded array, cached (a read-only view for a one-value splat).

        Raises:
            ResourceExhaustedError: over the per-tensor limit, or expanding a
                splat of several values would go over the total limit.
            InvalidArgumentError: an integer value out of its dtype's range.
        """
        array = self._array
        if array is None:
            with _decode_lock:
                if self._array is None:
                    self._array = to_ndarray(self._proto, self.what)
                    self._proto = None  # the array now stands for it
                array = self._array
        return array

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        # Generic numpy code (np.asarray) sees the decoded value.
        return np.asarray(self.value, dtype=dtype)

    def __repr__(self) -> str:
        dims = ", ".join(map(str, self.shape))
        return f"<TensorValue {self.dtype.name}[{dims}] of {self.what}>"


# Decoding is rare (kernel setup, folding); one lock keeps a value from being decoded twice.
_decode_lock = threading.Lock()


def is_splat(array: np.ndarray) -> bool:
    """Whether `array` is one value broadcast to its shape (a zero-stride view).

    `to_ndarray` decodes a one-value splat so: it looks like a dense array of its
    full shape, but holds one element, and is read-only.
    """
    return array.size > 1 and not any(array.strides)


def to_ndarray(proto: tensor_pb2.TensorProto, what: str = "tensor") -> np.ndarray:
    """Decode a TensorProto into a numpy array (validated).

    Args:
        proto: the tensor; untrusted.
        what: who holds it, for error messages ("node 'big' (op Const), attr 'value'").

    Returns:
        A new array, or for a splat of one value a read-only broadcast view of it
        (`is_splat`): no memory is spent on the repeats.

    Raises:
        InvalidArgumentError: a malformed proto.
        ResourceExhaustedError: the value is over the per-tensor limit, or expanding
            a splat of several values would go over the total limit.

    Example:
        >>> to_ndarray(from_ndarray(np.zeros((4096, 4096), np.float32))).strides
        (0, 0)
    """
    dtype, shape = check_proto(proto, what)
    count = limits.num_elements(shape, what)
    limits.check_allocation(shape, dtype.itemsize or 8, what, dtype.name)
    name = dtype.name

    if proto.tensor_content and name not in ("string", "resource", "variant"):
        flat = np.frombuffer(proto.tensor_content, dtype=dtype.np.newbyteorder("<"))
        return flat.astype(dtype.np, copy=True).reshape(shape)

    field = _VAL_FIELD.get(name)
    if field is None:  # check_proto allows no values only for an empty tensor
        return np.zeros(shape, dtype=dtype.np)
    values = getattr(proto, field)
    if name == "string":
        flat = np.empty(len(values), dtype=object)
        flat[:] = list(values)
        if proto.tensor_content:  # TensorFlow's workers send strings this way (RecvTensor)
            flat = _length_prefixed(proto.tensor_content, count, what, "string")
    elif name == "variant":
        flat = _variants(proto, count, what)
    elif name == "resource":
        flat = np.empty(len(values), dtype=object)
        flat[:] = [v for v in values]
    elif name in ("float16", "bfloat16"):
        flat = np.asarray(values, dtype=np.uint16).view(dtype.np)
    elif name in ("complex64", "complex128"):
        pairs = np.asarray(values, dtype=np.float32 if name == "complex64" else np.float64)
        flat = pairs[0::2] + 1j * pairs[1::2]
    else:
        flat = np.asarray(values)
        if flat.size and dtype.is_integer:
            info = np.iinfo(dtype.np)
            if flat.min() < info.min or flat.max() > info.max:
                raise InvalidArgumentError(f"{what}: a value is out of range for {name}")
    flat = flat.astype(dtype.np, copy=False)
    if flat.size == count:
        return flat.reshape(shape).copy() if flat.base is not None else flat.reshape(shape)
    # Fewer values than elements: repeat the last one (TensorFlow's splat form).
    if flat.size == 0 or flat.size == 1 or _all_equal(flat):
        return _broadcast_one(flat, dtype, shape)
    size = count * flat.itemsize
    limits.reserve_expansion(size, what)
    out = np.empty(count, dtype=dtype.np)
    out[: flat.size] = flat
    out[flat.size :] = flat[-1]
    limits.track_expansion(out, what)
    return out.reshape(shape)


def _variants(proto: tensor_pb2.TensorProto, count: int, what: str) -> np.ndarray:
    """A variant tensor's values, each decoded by the codec registered for its type name
    (a TensorList; tfx.core.checkpoint.variants), from variant_val or tensor_content."""
    # Imported here: both import this module.
    from tfx.core import tensor_lists  # noqa: F401 - registers the TensorList codec
    from tfx.core.checkpoint import variants

    if proto.tensor_content:
        chunks = _length_prefixed(proto.tensor_content, count, what, "variant")
        protos = np.empty(count, dtype=object)
        for i, chunk in enumerate(chunks):
            try:
                protos[i] = tensor_pb2.VariantTensorDataProto.FromString(chunk)
            except DecodeError:
                raise InvalidArgumentError(
                    f"{what}: variant element {i} is not a VariantTensorDataProto") from None
    else:
        protos = np.empty(len(proto.variant_val), dtype=object)
        protos[:] = list(proto.variant_val)
    return variants.decode_array(protos)


def _length_prefixed(content: bytes, count: int, what: str, kind: str) -> np.ndarray:
    """The `count` byte strings of a string or variant tensor's tensor_content, as
    TensorFlow's AsProtoTensorContent lays them out (a worker's RecvTensor answer,
    tf.io.serialize_tensor of a variant): the varint size of each element, then the
    elements one after another."""
    from tfx.core.checkpoint.table import decode_varint  # it imports this module

    sizes, pos = [], 0
    try:
        for _ in range(count):
            size, pos = decode_varint(content, pos, len(content))
            sizes.append(size)
    except ValueError:
        raise InvalidArgumentError(f"{what}: truncated {kind} sizes in tensor_content") from None
    if pos + sum(sizes) != len(content):
        raise InvalidArgumentError(
            f"{what}: the {kind} elements' sizes do not add up to tensor_content's length")
    flat = np.empty(count, dtype=object)
    for i, size in enumerate(sizes):
        flat[i] = content[pos:pos + size]
        pos += size
    return flat


def _broadcast_one(flat: np.ndarray, dtype: dtypes.DType, shape: tuple) -> np.ndarray:
    """The last value of `flat` (or the dtype's zero) as a read-only view of `shape`."""
    if flat.size:
        one = flat[-1:].copy()  # not a view of `flat`, which may be large
    elif dtype.name == "string":
        one = np.empty(1, dtype=object)
        one[0] = b""
    else:
        one = np.zeros(1, dtype=dtype.np)
    return np.broadcast_to(one.reshape(()), shape)


def from_ndarray(
    value: Any, dtype: dtypes.DType | None = None, proto: tensor_pb2.TensorProto | None = None
) -> tensor_pb2.TensorProto:
    """Encode a value as a TensorProto (numeric: tensor_content or a splat)."""
    array = as_ndarray(value, dtype)
    dt = dtype or dtypes.as_dtype(array.dtype)
    proto = proto if proto is not None else tensor_pb2.TensorProto()
    proto.Clear()
    proto.dtype = dt.enum
    shape_to_proto(array.shape, proto.tensor_shape)
    if dt.name == "string":
        proto.string_val.extend(_to_bytes(v) for v in array.reshape(-1))
        return proto
    if dt.name == "variant":
        # Each element encodes itself (a TensorList, an iterator state); see
        # tfx.core.checkpoint.variants.
        for value in array.reshape(-1):
            encode = getattr(value, "encode", None)
            if not callable(encode):
                raise TypeError(f"a variant holding a {type(value).__name__} has no encoding")
            proto.variant_val.append(encode())
        return proto
    if array.size >= _SPLAT_MIN_ELEMENTS and (is_splat(array) or _all_equal(array)):
        field = _VAL_FIELD[dt.name]
        first = array[(0,) * array.ndim + (None,)]  # reshape(-1) would copy a splat view
        if dt.name in ("float16", "bfloat16"):
            getattr(proto, field).append(int(first.view(np.uint16)[0]))
        elif dt.is_complex:
            getattr(proto, field).extend([float(first[0].real), float(first[0].imag)])
        else:
            getattr(proto, field).append(first[0].item())
        return proto
    proto.tensor_content = np.ascontiguousarray(array, dtype=dt.np.newbyteorder("<")).tobytes()
    return proto


def _all_equal(array: np.ndarray) -> bool:
    flat = array.reshape(-1)
    if flat.dtype.kind == "f" and np.isnan(flat[0]):
        return False
    return bool((flat == flat[0]).all())


def _to_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return str(value).encode("utf-8")


def as_ndarray(value: Any, dtype: dtypes.DType | None = None) -> np.ndarray:
    """Convert a Python value or array to an ndarray of `dtype` (strings as bytes objects)."""
    if dtype is not None and dtype.name == "string":
        array = np.asarray(value, dtype=object)
        if array.size and not all(isinstance(v, bytes) for v in array.reshape(-1)):
            flat = np.array([_to_bytes(v) for v in array.reshape(-1)], dtype=object)
            array = flat.reshape(array.shape)
        return array
    if dtype is not None:
        return np.asarray(value, dtype=dtype.np)
    array = np.asarray(value)
    if array.dtype.kind in "US":
        if not isinstance(value, (np.ndarray, np.generic)):
            # numpy's fixed-width strings drop trailing NUL bytes (b"a\0" reads back as
            # b"a"): take the Python objects themselves.
            array = np.asarray(value, dtype=object)
        flat = np.empty(array.size, dtype=object)
        flat[:] = [_to_bytes(v) for v in array.reshape(-1)]
        return flat.reshape(array.shape)
    if isinstance(value, (np.ndarray, np.generic)):
        return array  # numpy values keep their dtype
    if array.dtype == np.float64:
        # Python floats become float32, as in TensorFlow's convert_to_tensor.
        return array.astype(np.float32)
    if array.dtype == np.int64:
        return array.astype(np.int32) if _fits_int32(array) else array
    return array


def _fits_int32(array: np.ndarray) -> bool:
    return array.size == 0 or (array.min() >= -(2**31) and array.max() < 2**31)
