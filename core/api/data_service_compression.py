"""The tf.data service's compressed elements, in TensorFlow 2.21's CompressedElement format.

`distribute` and `register_dataset` with compression "AUTO" register the dataset mapped
through CompressElement, and the reading dataset maps each element through
UncompressElement: the workers send one variant per element. Its value here is a
`CompressedElement` holding the bytes of TensorFlow's `tensorflow.data.CompressedElement`
proto (field numbers as TensorFlow's dataset.proto):

* `data` (1): a raw Snappy block of the components' bytes one after another: a numeric
  or bool tensor's little-endian C-order bytes, a string tensor's strings concatenated;
* `component_metadata` (2), one per component: `dtype` (1), `tensor_shape` (2, a
  TensorShapeProto) and `uncompressed_bytes` (4, packed): the tensor's byte count
  (none for an empty tensor), or for a string tensor each string's length;
* `version` (3): 0, left out.

TensorFlow's own compressed elements decode here and the other way round (checked
against TensorFlow 2.21's bytes). The Snappy block may differ byte for byte from
TensorFlow's (without a Snappy library tfx writes literals only); both decode alike.
Tensors of other types (variant, resource) are refused: TensorFlow stores them as
TensorProtos of its own variants, which tfx cannot write.

Over tfx's worker service a compressed element travels as TensorFlow encodes the variant
in a TensorProto: a VariantTensorDataProto of type name
"tensorflow.data.CompressedElement" whose metadata is the proto's bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfx.core import dtypes, wire_format
from tfx.core.data_snapshot import snappy_compress, snappy_decompress
from tfx.core.errors import InternalError, InvalidArgumentError, UnimplementedError
from tfx.core.wire_format import write_varint
from tfx.protos import tensor_pb2

TYPE_NAME = "tensorflow.data.CompressedElement"


class CompressedElement:
    """A compressed element: TensorFlow's CompressedElement proto as bytes."""

    def __init__(self, proto: bytes) -> None:
        self.proto = proto

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CompressedElement) and other.proto == self.proto

    def __hash__(self) -> int:
        return hash(self.proto)

    def __repr__(self) -> str:
        return f"<CompressedElement {len(self.proto)} bytes>"


# --- the protobuf wire format, for the two small messages -----------------------------------


def _field(number: int, payload: bytes) -> bytes:
    return write_varint(number << 3 | wire_format.LENGTH) + write_varint(len(payload)) + payload


def fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """(field number, value) of each field of a serialized message: a varint's int, a
    length-delimited field's bytes (fixed-width fields and groups skipped).

    Raises:
        ValueError: the bytes are no valid message.
    """
    return [(number, value) for number, wire, value in wire_format.fields(data)
            if wire in (wire_format.VARINT, wire_format.LENGTH)]


# --- compressing and uncompressing ----------------------------------------------------------


def compress(components: Sequence[Any], types: Sequence[dtypes.DType],
             what: str) -> CompressedElement:
    """The components as one compressed element.

    Raises:
        UnimplementedError: a component of a type other than numeric, bool or string.
    """
    data = bytearray()
    metadata = bytearray()
    for index, (value, dtype) in enumerate(zip(components, types, strict=True)):
        array = np.asarray(value)
        shape = tensor_pb2.TensorShapeProto()
        for size in array.shape:
            shape.dim.add(size=size)
        if dtype == dtypes.string:
            items = [s.encode() if isinstance(s, str) else bytes(s) for s in array.flat]
            sizes = [len(s) for s in items]
            data += b"".join(items)
        elif dtype.np is not None and dtype.np.kind != "O":
            raw = np.ascontiguousarray(array, dtype=dtype.np).tobytes()  # little-endian hosts
            sizes = [len(raw)] if raw else []  # TensorFlow records no size for no bytes
            data += raw
        else:
            raise UnimplementedError(f"{what}: component {index} is of type {dtype.name}; "
                                     "tfx compresses numeric, bool and string tensors only")
        entry = (write_varint(1 << 3) + write_varint(dtype.as_datatype_enum)
                 + _field(2, shape.SerializeToString())
                 + (_field(4, b"".join(write_varint(s) for s in sizes)) if sizes else b""))
        metadata += _field(2, entry)
    return CompressedElement(_field(1, snappy_compress(bytes(data))) + bytes(metadata))


def _component(entry: bytes, what: str) -> tuple[dtypes.DType, tuple[int, ...], list[int]]:
    dtype, dims, sizes = dtypes.float32, (), []
    for number, value in fields(entry):
        if number == 1 and isinstance(value, int):
            dtype = dtypes.as_dtype(value)
        elif number == 2 and isinstance(value, bytes):
            shape = tensor_pb2.TensorShapeProto.FromString(value)
            dims = tuple(d.size for d in shape.dim)
        elif number == 4:
            if isinstance(value, bytes):  # packed
                pos = 0
                while pos < len(value):
                    size, pos = wire_format.read_varint(value, pos)
                    sizes.append(size)
            else:
                sizes.append(value)
    return dtype, dims, sizes


def uncompress(element: Any, what: str) -> list[np.ndarray]:
    """The components of a compressed element.

    Raises:
        InvalidArgumentError: the value is no compressed element.
        InternalError: its bytes are inconsistent (TensorFlow's class for a corrupt one).
    """
    value = element[()] if isinstance(element, np.ndarray) and element.shape == () else element
    if not isinstance(value, CompressedElement):
        raise InvalidArgumentError(f"{what}: input must be a CompressedElement, got "
                                   f"{type(value).__name__}")
    try:
        parsed = fields(value.proto)
        block = b"".join(v for n, v in parsed if n == 1 and isinstance(v, bytes))
        data = snappy_decompress(block, what) if block else b""
        out = []
        pos = 0
        for number, entry in parsed:
            if number != 2 or not isinstance(entry, bytes):
                continue
            dtype, dims, sizes = _component(entry, what)
            count = int(np.prod(dims, dtype=np.int64))
            if dtype == dtypes.string:
                if len(sizes) != count:
                    raise ValueError(f"{len(sizes)} string sizes for {count} strings")
                flat = np.empty(count, dtype=object)
                for i, size in enumerate(sizes):
                    flat[i] = data[pos:pos + size]
                    pos += size
                out.append(flat.reshape(dims))
            elif dtype in (dtypes.variant, dtypes.resource):
                raise UnimplementedError(f"{what}: a component of type {dtype.name}: tfx "
                                         "uncompresses numeric, bool and string tensors only")
            else:
                size = sum(sizes)
                if size != count * dtype.np.itemsize or pos + size > len(data):
                    raise ValueError(f"{size} bytes for a {dtype.name} tensor of shape "
                                     f"{list(dims)}")
                flat = np.frombuffer(data[pos:pos + size], dtype=dtype.np)
                out.append(flat.reshape(dims).copy())
                pos += size
        return out
    except ValueError as exc:
        raise InternalError(f"{what}: corrupt compressed element ({exc})") from None


def to_proto(value: CompressedElement) -> tensor_pb2.TensorProto:
    """The scalar variant TensorProto TensorFlow writes for a compressed element."""
    proto = tensor_pb2.TensorProto(dtype=dtypes.variant.as_datatype_enum)
    proto.tensor_shape.SetInParent()
    proto.variant_val.add(type_name=TYPE_NAME, metadata=value.proto)
    return proto


def from_proto(proto: tensor_pb2.TensorProto) -> np.ndarray | None:
    """The compressed element in a scalar variant TensorProto; None for any other."""
    if (proto.dtype != dtypes.variant.as_datatype_enum or len(proto.variant_val) != 1
            or proto.variant_val[0].type_name != TYPE_NAME):
        return None
    out = np.empty((), dtype=object)
    out[()] = CompressedElement(proto.variant_val[0].metadata)
    return out
