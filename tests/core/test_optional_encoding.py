"""An optional (tf.data's Optional) as TensorFlow encodes it in a variant
(OptionalVariant::Encode), to cross between tasks.

The byte strings are `tf.io.serialize_tensor` of optionals TensorFlow 2.21 made: one
holding ([1.0, 2.0] float32, 3 int64, b"s") and an empty one.
"""

from __future__ import annotations

import numpy as np
import pytest

from tfx.core.datasets import OptionalValue
from tfx.core.distributed.wire import tensor_from_proto, tensor_to_proto
from tfx.core.errors import DataLossError
from tfx.protos import tensor_pb2

HOLDING = bytes.fromhex(
    "081512002246450a1a74656e736f72666c6f773a3a646174613a3a4f7074696f6e616c1201011a120801"
    "1204120208022a080000803f000000401a07080912005201031a0708071200420173")
EMPTY = bytes.fromhex(
    "0815120022201f0a1a74656e736f72666c6f773a3a646174613a3a4f7074696f6e616c120100")


def decoded(serialized: bytes) -> OptionalValue:
    array = tensor_from_proto(tensor_pb2.TensorProto.FromString(serialized), "optional")
    assert array.shape == () and array.dtype == object
    return array[()]


def test_tensorflow_s_optionals_decode() -> None:
    holding = decoded(HOLDING)
    assert holding.has_value
    values, count, text = holding.element
    np.testing.assert_array_equal(values, np.float32([1, 2]))
    assert values.dtype == np.float32 and count.dtype == np.int64 and count == 3
    assert text[()] == b"s"
    assert not decoded(EMPTY).has_value


@pytest.mark.parametrize("serialized", [HOLDING, EMPTY])
def test_an_optional_encodes_as_tensorflow_does(serialized: bytes) -> None:
    # The same type name, metadata byte and components as TensorFlow's (a component's
    # values may sit in tensor_content where TensorFlow used float_val: TensorFlow reads
    # both, as ParseTensor + OptionalGetValue of tfx's bytes showed).
    value = np.empty((), object)
    value[()] = decoded(serialized)
    sent = tensor_to_proto(value, "optional").variant_val[0]
    theirs = tensor_pb2.VariantTensorDataProto.FromString(
        tensor_pb2.TensorProto.FromString(serialized).tensor_content[1:])
    assert (sent.type_name, sent.metadata) == (theirs.type_name, theirs.metadata)
    assert [(t.dtype, t.tensor_shape) for t in sent.tensors] == [
        (t.dtype, t.tensor_shape) for t in theirs.tensors]
    again = OptionalValue.decode(sent)
    for mine, original in zip(again.element or (), value[()].element or ()):
        np.testing.assert_array_equal(mine, original)


@pytest.mark.parametrize("metadata, tensors", [(b"", 0), (b"\x02", 0), (b"\x01\x01", 0),
                                               (b"\x00", 1)])
def test_a_malformed_optional_is_data_loss(metadata: bytes, tensors: int) -> None:
    proto = tensor_pb2.VariantTensorDataProto(type_name=OptionalValue.TYPE_NAME,
                                              metadata=metadata)
    for _ in range(tensors):
        proto.tensors.add(dtype=1, float_val=[1.0])
    with pytest.raises(DataLossError, match="malformed Optional"):
        OptionalValue.decode(proto)
