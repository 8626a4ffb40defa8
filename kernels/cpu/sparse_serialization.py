"""CPU kernels: SparseTensors to and from serialized TensorProto triples.

Each SparseTensor is three serialized TensorProtos (indices, values, dense
shape) written as TensorFlow writes them: dtype, shape and the bytes in
`tensor_content` (for strings, the varint lengths of the elements followed by
their bytes). Reading accepts any TensorProto encoding.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tfx.core import dtypes
from tfx.core.errors import InvalidArgumentError, UnimplementedError
from tfx.core.tensor_util import to_ndarray
from tfx.core.wire_format import read_varint, write_varint
from tfx.kernels.base import OpKernel, register_kernel
from tfx.protos import tensor_pb2


def _as_bytes(value: Any) -> bytes:
    return value.encode() if isinstance(value, str) else bytes(value)


def serialize_tensor(array: np.ndarray, dtype: dtypes.DType) -> bytes:
    """One tensor as TensorFlow's AsProtoTensorContent writes it."""
    proto = tensor_pb2.TensorProto(dtype=dtype.enum)
    proto.tensor_shape.SetInParent()
    for dim in array.shape:
        proto.tensor_shape.dim.add().size = dim
    if array.size and dtype.name == "string":
        items = [_as_bytes(v) for v in array.reshape(-1)]
        proto.tensor_content = b"".join(write_varint(len(v)) for v in items) + b"".join(items)
    elif array.size:
        proto.tensor_content = np.ascontiguousarray(
            array, dtype=dtype.np.newbyteorder("<")).tobytes()
    return proto.SerializeToString()


def parse_tensor(data: Any) -> tuple[np.ndarray, dtypes.DType]:
    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(_as_bytes(data))
        dtype = dtypes.as_dtype(proto.dtype)
        if dtype.name == "string" and proto.tensor_content:
            shape = tuple(d.size for d in proto.tensor_shape.dim)
            content, pos, lengths = proto.tensor_content, 0, []
            for _ in range(int(np.prod(shape))):
                length, pos = read_varint(content, pos)
                lengths.append(length)
            items = np.empty(len(lengths), dtype=object)
            for i, length in enumerate(lengths):
                items[i] = content[pos:pos + length]
                pos += length
            return items.reshape(shape), dtype
        return np.asarray(to_ndarray(proto, "the serialized tensor")), dtype
    except (DecodeError, InvalidArgumentError, TypeError, ValueError):
        raise InvalidArgumentError("Could not parse serialized proto") from None


def _check_sparse(indices: np.ndarray, values: np.ndarray, shape: np.ndarray) -> None:
    if indices.ndim != 2:
        raise InvalidArgumentError(f"Input indices should be a matrix but received shape "
                                   f"{list(indices.shape)}")
    if values.ndim != 1:
        raise InvalidArgumentError(f"Input values should be a vector but received shape "
                                   f"{list(values.shape)}")
    if shape.ndim != 1:
        raise InvalidArgumentError(f"Input shape should be a vector but received shape "
                                   f"{list(shape.shape)}")
    if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
        raise InvalidArgumentError(
            f"Number of indices and values/shape do not match: indices {list(indices.shape)}, "
            f"values {list(values.shape)}, shape {list(shape.shape)}")


class VariantTensor:
    """A tensor held in one element of a variant tensor (out_type=variant: each of the
    three parts of a SparseTensor, as TensorFlow's datasets carry sparse elements)."""

    __slots__ = ("value", "dtype")

    def __init__(self, value: np.ndarray, dtype: dtypes.DType) -> None:
        self.value = value
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"VariantTensor({self.dtype.name}, shape={list(self.value.shape)})"


class _Serialize(OpKernel):
    def setup(self, out_type: dtypes.DType, **_: Any) -> None:
        if out_type.name not in ("string", "variant"):
            raise UnimplementedError(f"{type(self).__name__}: out_type {out_type.name} is not "
                                     "supported; only string and variant")
        self._variant = out_type.name == "variant"

    def _triple(self, indices: np.ndarray, values: np.ndarray, shape: np.ndarray) -> list:
        if self._variant:
            return [VariantTensor(indices.astype(np.int64), dtypes.int64),
                    VariantTensor(values, self.attrs["T"]),
                    VariantTensor(shape.astype(np.int64), dtypes.int64)]
        return [serialize_tensor(indices.astype(np.int64), dtypes.int64),
                serialize_tensor(values, self.attrs["T"]),
                serialize_tensor(shape.astype(np.int64), dtypes.int64)]


@register_kernel("SerializeSparse", "CPU")
class SerializeSparse(_Serialize):
    def compute(self, sparse_indices, sparse_values, sparse_shape):
        indices, values, shape = map(np.asarray, (sparse_indices, sparse_values, sparse_shape))
        _check_sparse(indices, values, shape)
        out = np.empty(3, dtype=object)
        for k, part in enumerate(self._triple(indices, values, shape)):
            out[k] = part
        return (out,)


@register_kernel("SerializeManySparse", "CPU")
class SerializeManySparse(_Serialize):
    """Row i holds the entries whose first index is i, that index dropped."""

    def compute(self, sparse_indices, sparse_values, sparse_shape):
        indices, values, shape = map(np.asarray, (sparse_indices, sparse_values, sparse_shape))
        _check_sparse(indices, values, shape)
        if shape.size <= 1:
            raise InvalidArgumentError(f"Rank of input SparseTensor should be > 1, but saw "
                                       f"rank: {shape.size}")
        rows = int(shape[0])
        if indices.size and (indices[:, 0].min() < 0 or indices[:, 0].max() >= rows):
            raise InvalidArgumentError(f"Sparse indices out of range for a batch of {rows}")
        out = np.empty((rows, 3), dtype=object)
        # A stable sort keeps each row's entries in their given order.
        order = np.argsort(indices[:, 0], kind="stable")
        indices, values = indices[order], values[order]
        bounds = np.searchsorted(indices[:, 0], np.arange(rows + 1))
        for row in range(rows):
            lo, hi = bounds[row], bounds[row + 1]
            for k, part in enumerate(self._triple(indices[lo:hi, 1:], values[lo:hi],
                                                  shape[1:])):
                out[row, k] = part
        return (out,)


def deserialize(serialized: np.ndarray, dtype: dtypes.DType) -> tuple:
    """Stack the SparseTensors of a [..., 3] array as leading dimensions."""
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim == 0 or serialized.shape[-1] != 3:
        raise InvalidArgumentError(f"Serialized sparse should have 3 as the last dimension, "
                                   f"got shape {list(serialized.shape)}")
    outer = serialized.shape[:-1]
    rows = serialized.reshape(-1, 3)
    parts, rank = [], None
    for i, (a, b, c) in enumerate(rows):
        (indices, t_i), (values, t_v), (shape, t_s) = _part(a), _part(b), _part(c)
        if t_v != dtype:
            raise InvalidArgumentError(
                f"Requested SparseTensor of type {_tf_name(dtype)} but SparseTensor[{i}]"
                f".values.dtype() == {_tf_name(t_v)}")
        if t_i.name != "int64" or t_s.name != "int64":
            raise InvalidArgumentError(f"SparseTensor[{i}]: indices and shape must be int64")
        _check_sparse(indices, values, shape)
        if rank is not None and shape.size != rank:
            raise InvalidArgumentError(
                f"Inconsistent shape across SparseTensors: rank prior to SparseTensor[{i}] "
                f"was: {rank} but rank of SparseTensor[{i}] is: {shape.size}")
        rank = shape.size
        parts.append((indices, values, shape))
    if not parts:
        raise InvalidArgumentError("Serialized sparse must hold at least one SparseTensor")
    positions = np.array(list(np.ndindex(*outer)), dtype=np.int64).reshape(len(parts), -1)
    all_indices = [np.hstack([np.repeat(positions[i:i + 1], len(ind), axis=0),
                              ind.reshape(len(ind), rank)]) for i, (ind, _, _) in
                   enumerate(parts)]
    out_indices = np.concatenate(all_indices).astype(np.int64)
    values = np.concatenate([v for _, v, _ in parts])
    if dtype.name == "string":
        values = values.astype(object)
    else:
        values = values.astype(dtype.np)
    out_shape = np.array([*outer, *np.max([s for _, _, s in parts], axis=0)], dtype=np.int64)
    return out_indices, values, out_shape


def _part(element: Any) -> tuple[np.ndarray, dtypes.DType]:
    """One serialized part: a variant element's tensor, or a TensorProto's bytes."""
    if isinstance(element, VariantTensor):
        return element.value, element.dtype
    return parse_tensor(element)


def _tf_name(dtype: dtypes.DType) -> str:
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name,
                                                                            dtype.name)


@register_kernel("DeserializeSparse", "CPU")
class DeserializeSparse(OpKernel):

    def compute(self, serialized_sparse):
        return deserialize(serialized_sparse, self.attrs["dtype"])


@register_kernel("DeserializeManySparse", "CPU")
class DeserializeManySparse(OpKernel):
    def compute(self, serialized_sparse):
        if np.ndim(serialized_sparse) != 2 or np.shape(serialized_sparse)[1] != 3:
            raise InvalidArgumentError(f"Serialized sparse should be a matrix with 3 columns, "
                                       f"got shape {list(np.shape(serialized_sparse))}")
        return deserialize(serialized_sparse, self.attrs["dtype"])
