"""Python values to and from TensorFlow's StructuredValue (struct.proto), as a TF2
SavedModel writes function signatures: `encode(value)` and `decode(proto)`.

The values a signature holds: None, bool, int, float, str, tuples, lists, dicts (str
keys), namedtuples (rebuilt as `collections.namedtuple` classes of the saved name and
fields), TensorShape, DType, TensorSpec, numpy arrays (`numpy_value`, as TensorFlow
writes a numpy argument), and the composite specs SparseTensorSpec and RaggedTensorSpec
(a TypeSpecProto: the class, its constructor fields as a tuple and its number of flat
component tensors). A kind tfx does not model (another TypeSpecProto class,
BoundedTensorSpec) decodes to an `UnsupportedValue` naming it, so a SavedModel holding
one still loads and only a call that needs it fails.

Example:
    >>> decode(encode((TensorSpec([None, 2], float32, "x"),)))
    (TensorSpec(shape=(None, 2), dtype=tf.float32, name='x'),)
"""

from __future__ import annotations

import collections
import functools
from typing import Any

import numpy as np

from tfx.core import dtypes, tensor_util, wire_format
from tfx.core.api.graph_builder import TensorShape
from tfx.core.api.type_spec_api import SparseTensorSpec, TensorSpec
from tfx.protos import saved_object_graph_pb2 as so_pb2

__all__ = ["UnsupportedValue", "decode", "encode", "length_delimited",
           "length_delimited_fields"]


class UnsupportedValue:
    """A StructuredValue kind tfx does not model (kept so the rest of a nest decodes)."""

    def __init__(self, kind: str, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail

    def __repr__(self) -> str:
        return f"<unsupported {self.kind}{': ' + self.detail if self.detail else ''}>"


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def encode(value: Any) -> so_pb2.StructuredValue:
    """The StructuredValue of `value`.

    Raises:
        ValueError: `value` (or a leaf of it) has no StructuredValue encoding, or a dict
            key is not a string.
    """
    proto = so_pb2.StructuredValue()
    if value is None:
        proto.none_value.SetInParent()
    elif isinstance(value, (bool, np.bool_)):
        proto.bool_value = bool(value)
    elif isinstance(value, (int, np.integer)):
        proto.int64_value = int(value)
    elif isinstance(value, (float, np.floating)):
        proto.float64_value = float(value)
    elif isinstance(value, str):
        proto.string_value = value
    elif isinstance(value, TensorSpec):
        spec = proto.tensor_spec_value
        spec.name = value.name or ""
        tensor_util.shape_to_proto(value.shape.as_tuple(), spec.shape)
        spec.dtype = value.dtype.enum
    elif isinstance(value, TensorShape):
        tensor_util.shape_to_proto(value.as_tuple(), proto.tensor_shape_value)
    elif _composite_class(value) is not None:
        kind, name, state = _composite_class(value)
        spec = proto.type_spec_value
        spec.type_spec_class = kind
        spec.type_spec_class_name = name
        spec.type_state.CopyFrom(encode(state))
        spec.num_flat_components = len(value._component_specs)
    elif isinstance(value, dtypes.DType):
        proto.tensor_dtype_value = value.enum
    elif isinstance(value, np.ndarray):
        proto.numpy_value.CopyFrom(tensor_util.from_ndarray(value))
    elif _is_namedtuple(value):
        named = proto.named_tuple_value
        named.SetInParent()
        named.name = type(value).__name__
        for key in value._fields:
            named.values.add(key=key).value.CopyFrom(encode(getattr(value, key)))
    elif isinstance(value, tuple):
        proto.tuple_value.SetInParent()  # an empty one is set too
        proto.tuple_value.values.extend(encode(v) for v in value)
    elif isinstance(value, list):
        proto.list_value.SetInParent()
        proto.list_value.values.extend(encode(v) for v in value)
    elif isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise ValueError(f"a saved signature's dict keys must be strings, got {key!r}")
        proto.dict_value.SetInParent()
        for key in sorted(value):
            proto.dict_value.fields[key].CopyFrom(encode(value[key]))
    else:
        raise ValueError(f"cannot save {value!r} ({type(value).__name__}) in a function "
                         "signature: it has no StructuredValue encoding")
    return proto


def _composite_class(value: Any) -> tuple[int, str, tuple] | None:
    """(TypeSpecClass, class name, constructor fields) of a composite spec tfx saves."""
    from tfx.core.api.ragged_tensor_api import RaggedTensorSpec

    if isinstance(value, SparseTensorSpec):
        return so_pb2.TypeSpecProto.SPARSE_TENSOR_SPEC, "SparseTensorSpec", (
            value.shape, value.dtype)
    if isinstance(value, RaggedTensorSpec):
        if value.flat_values_spec is not None:
            raise ValueError(f"cannot save {value!r}: its flat_values_spec has no encoding "
                             "in tfx")
        return so_pb2.TypeSpecProto.RAGGED_TENSOR_SPEC, "RaggedTensorSpec", (
            value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)
    return None


def _composite(spec: so_pb2.TypeSpecProto) -> Any:
    """The SparseTensorSpec or RaggedTensorSpec of a TypeSpecProto, else None."""
    from tfx.core.api.ragged_tensor_api import RaggedTensorSpec

    state = decode(spec.type_state)
    if not isinstance(state, tuple):
        return None
    if spec.type_spec_class == so_pb2.TypeSpecProto.SPARSE_TENSOR_SPEC and len(state) == 2:
        return SparseTensorSpec(*state)
    if spec.type_spec_class == so_pb2.TypeSpecProto.RAGGED_TENSOR_SPEC and len(state) in (4, 5):
        if len(state) == 5 and state[4] is not None:
            return None  # a flat_values_spec: not modelled
        return RaggedTensorSpec(*state[:4])
    return None


@functools.cache
def _namedtuple_class(name: str, fields: tuple[str, ...]) -> type:
    return collections.namedtuple(name, fields)  # noqa: PYI024 - made at run time


def _shape(proto: Any) -> TensorShape:
    return TensorShape(tensor_util.shape_from_proto(proto))


def decode(proto: so_pb2.StructuredValue) -> Any:
    """The Python value of a StructuredValue (see the module docstring)."""
    kind = proto.WhichOneof("kind")
    if kind is None or kind == "none_value":
        return None
    if kind in ("bool_value", "int64_value", "float64_value", "string_value"):
        return getattr(proto, kind)
    if kind == "tensor_spec_value":
        spec = proto.tensor_spec_value
        return TensorSpec(_shape(spec.shape), dtypes.as_dtype(spec.dtype), spec.name or None)
    if kind == "tensor_shape_value":
        return _shape(proto.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return dtypes.as_dtype(proto.tensor_dtype_value)
    if kind in ("tensor_value", "numpy_value"):
        return tensor_util.to_ndarray(getattr(proto, kind), "a saved signature's value")
    if kind == "tuple_value":
        return tuple(decode(v) for v in proto.tuple_value.values)
    if kind == "list_value":
        return [decode(v) for v in proto.list_value.values]
    if kind == "dict_value":
        return {k: decode(proto.dict_value.fields[k]) for k in sorted(proto.dict_value.fields)}
    if kind == "named_tuple_value":
        named = proto.named_tuple_value
        cls = _namedtuple_class(named.name, tuple(p.key for p in named.values))
        return cls(*[decode(p.value) for p in named.values])
    if kind == "type_spec_value":
        spec = proto.type_spec_value
        composite = _composite(spec)
        if composite is not None:
            return composite
        name = spec.type_spec_class_name or so_pb2.TypeSpecProto.TypeSpecClass.Name(
            spec.type_spec_class)
        return UnsupportedValue("type_spec_value", name)
    return UnsupportedValue(kind)


# --- protobuf fields tfx's protos lack (TensorInfo.composite_tensor, ...) --------------


def length_delimited(number: int, payload: bytes) -> bytes:
    """The wire bytes of field `number` holding `payload` (a message, string or bytes):
    merged into a message whose class lacks the field, protobuf keeps it as unknown."""
    return (wire_format.write_varint(number << 3 | wire_format.LENGTH)
            + wire_format.write_varint(len(payload)) + payload)


def length_delimited_fields(data: bytes) -> list[tuple[int, bytes]]:
    """(field number, payload) of the length-delimited fields of a serialized message,
    in order; the other wire types are skipped.

    Raises:
        ValueError: `data` is not a well-formed message.
    """
    return [(number, value) for number, wire, value in wire_format.fields(data)
            if wire == wire_format.LENGTH]
