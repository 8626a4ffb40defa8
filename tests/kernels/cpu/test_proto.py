"""DecodeProtoV2 and EncodeProto (core/ops/proto_ops.py, kernels/cpu/proto.py) against
TensorFlow 2.21.

tests/data/proto/generate.py built the FileDescriptorSet all_types.desc (every field
type singular, repeated and packed) and recorded TensorFlow's results and errors for its
cases in proto_reference.json: well-formed messages, wire-level oddities (a singular
field twice, packed records into a singular field, mixed packing, wrong wire types,
groups), text format, malformed bytes and bad attributes. The same cases run here.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core import dtypes, errors
from tfx.core.api.ops_api import apply_op
from tfx.core.eager import run_op
from tfx.protos import summary_pb2

DATA = Path(__file__).parents[2] / "data" / "proto"
_spec = importlib.util.spec_from_file_location("generate_proto", DATA / "generate.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)
REFERENCE = json.loads((DATA / "proto_reference.json").read_text())
SOURCE = str(DATA / "all_types.desc")
DECODE = {case["name"]: case for case in gen.decode_cases()}
ENCODE = {case["name"]: case for case in gen.encode_cases()}


def _as_json(array: np.ndarray):
    if array.dtype == object:
        return np.vectorize(lambda b: b.hex(), otypes=[object])(array).tolist()
    return array.tolist()


def _decode(case: dict):
    return run_op("DecodeProtoV2", [np.array(case["bytes"], dtype=object)],
                  message_type=case.get("message_type", "tfxtest.AllTypes"),
                  field_names=case["fields"],
                  output_types=[dtypes.as_dtype(t) for t in case["types"]],
                  descriptor_source=SOURCE, message_format=case.get("format", "binary"))


@pytest.mark.parametrize("name", sorted(DECODE))
def test_decode_matches_tensorflow(name: str) -> None:
    case, want = DECODE[name], REFERENCE["decode"][name]
    if "error" in want:
        with pytest.raises(getattr(errors, want["error"])) as caught:
            _decode(case)
        assert str(caught.value) == want["message"]
        return
    sizes, *values = _decode(case)
    assert sizes.dtype == np.int32 and sizes.tolist() == want["sizes"]
    for field, kind, value, expected, shape in zip(case["fields"], case["types"], values,
                                                   want["values"], want["shapes"]):
        assert list(value.shape) == shape, field
        if kind != "string":
            assert value.dtype == dtypes.as_dtype(kind).np, field
        assert _as_json(value) == expected, field


def _encode(case: dict):
    values = [np.array(v, dtype=object if t == "string" else dtypes.as_dtype(t).np)
              for v, t in case["values"]]
    if any(t == "string" for _, t in case["values"]):
        values = [np.vectorize(lambda s: s if isinstance(s, bytes) else s.encode(),
                               otypes=[object])(v) if v.dtype == object else v for v in values]
    return run_op("EncodeProto", [np.array(case["sizes"], np.int32), *values],
                  field_names=case["fields"], message_type="tfxtest.AllTypes",
                  descriptor_source=SOURCE,
                  Tinput_types=[dtypes.as_dtype(t) for _, t in case["values"]])


@pytest.mark.parametrize("name", sorted(ENCODE))
def test_encode_matches_tensorflow(name: str) -> None:
    case, want = ENCODE[name], REFERENCE["encode"][name]
    if "error" in want:
        with pytest.raises(getattr(errors, want["error"])) as caught:
            _encode(case)
        assert str(caught.value) == want["message"]
        return
    (out,) = _encode(case)
    assert _as_json(out) == want["bytes"]


def test_local_pool_has_tfx_protos() -> None:
    summary = summary_pb2.Summary()
    summary.value.add(tag="t", simple_value=2.0)
    sizes, values = run_op("DecodeProtoV2", [np.array([summary.SerializeToString()],
                                                      dtype=object)],
                           message_type="tfx.Summary", field_names=["value"],
                           output_types=[dtypes.string])
    assert sizes.tolist() == [[1]]
    assert summary_pb2.Summary.Value.FromString(values[0, 0]).tag == "t"


def test_bytes_descriptor_source() -> None:
    source = "bytes://" + Path(SOURCE).read_bytes().decode("latin-1")
    sizes, values = run_op("DecodeProtoV2", [np.array([b"\x68\x05"], dtype=object)],
                           message_type="tfxtest.AllTypes", field_names=["i32"],
                           output_types=[dtypes.int32], descriptor_source=source)
    assert values.tolist() == [[5]]
    with pytest.raises(errors.InvalidArgumentError, match="Source does not represent"):
        run_op("DecodeProtoV2", [np.array([b""], dtype=object)],
               message_type="tfxtest.AllTypes", field_names=["i32"],
               output_types=[dtypes.int32], descriptor_source="/nonexistent")


def test_in_a_graph() -> None:
    with tf.Graph().as_default():
        data = tf.placeholder(tf.string, [None])
        sizes, values = apply_op("DecodeProtoV2", bytes=data, message_type="tfxtest.AllTypes",
                                 field_names=["r_i32"], output_types=[tf.int32],
                                 descriptor_source=SOURCE)
        assert sizes.shape.as_list() == [None, 1] and values.shape.as_list() == [None, None]
        encoded = apply_op("EncodeProto", sizes=sizes, values=[values],
                           field_names=["r_i32"], message_type="tfxtest.AllTypes",
                           descriptor_source=SOURCE)
        assert encoded.shape.as_list() == [None]
        with tf.Session() as sess:
            out = sess.run(encoded, {data: [b"\x70\x01\x70\x02", b""]})
    assert out.tolist() == [b"\x70\x01\x70\x02", b""]


@settings(max_examples=60, deadline=None)
@given(ints=st.lists(st.integers(-2**31, 2**31 - 1), max_size=5),
       longs=st.lists(st.integers(-2**63, 2**63 - 1), max_size=5),
       floats=st.lists(st.floats(allow_nan=False, width=32), max_size=4),
       texts=st.lists(st.binary(max_size=6), max_size=3), flag=st.booleans())
def test_encode_decode_round_trip_and_protobuf_agree(ints, longs, floats, texts,
                                                     flag) -> None:
    make = gen.message_class()
    message = make(r_si32=ints, p_i64=longs, r_f=floats, r_by=texts, b=flag)
    data = message.SerializeToString()
    fields = ["r_si32", "p_i64", "r_f", "r_by", "b"]
    types = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.string, dtypes.bool_]
    sizes, *values = run_op("DecodeProtoV2", [np.array([data], dtype=object)],
                            message_type="tfxtest.AllTypes", field_names=fields,
                            output_types=types, descriptor_source=SOURCE)
    assert sizes.tolist() == [[len(ints), len(longs), len(floats), len(texts), 1]]
    assert values[0][0, :len(ints)].tolist() == ints
    assert values[1][0, :len(longs)].tolist() == longs
    assert values[2][0, :len(floats)].tolist() == floats
    assert values[3][0, :len(texts)].tolist() == texts
    (again,) = run_op("EncodeProto", [sizes, *values], field_names=fields,
                      message_type="tfxtest.AllTypes", descriptor_source=SOURCE,
                      Tinput_types=types)
    assert make.FromString(again[0]) == message


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=40))
def test_arbitrary_bytes_decode_or_fail_cleanly(data: bytes) -> None:
    try:
        run_op("DecodeProtoV2", [np.array([data], dtype=object)],
               message_type="tfxtest.AllTypes", field_names=["i32", "r_s", "inner", "p_d"],
               output_types=[dtypes.int32, dtypes.string, dtypes.string, dtypes.float64],
               descriptor_source=SOURCE)
    except errors.DataLossError:
        pass


def test_api_names_and_round_trip() -> None:
    from tfx.core.api.proto_api import decode_proto, encode_proto

    with tf.Graph().as_default():
        decoded = decode_proto(tf.placeholder(tf.string, [None]), "tfxtest.AllTypes",
                               ["r_s", "i32"], [tf.string, tf.int64],
                               descriptor_source=SOURCE, name="dp")
        assert type(decoded).__name__ == "DecodeProtoV2"
        assert decoded._fields == ("sizes", "values")
        assert decoded.sizes.name == "dp:0"
        assert [v.name for v in decoded.values] == ["dp:1", "dp:2"]
        encoded = encode_proto(decoded.sizes, decoded.values, ["r_s", "i32"],
                               "tfxtest.AllTypes", descriptor_source=SOURCE, name="ep")
        assert encoded.name == "ep:0"
        make = gen.message_class()
        data = [make(i32=3, r_s=["a"]).SerializeToString(),
                make(r_s=[""]).SerializeToString()]
        with tf.Session() as sess:
            assert sess.run(encoded, {decoded.sizes.op.inputs[0]: data}).tolist() == data


# TensorFlow 2.21's DecodeProtoV2 of these bytes as a tensorflow.Summary (its one field,
# `value` = 1, a message, requested as a string): groups nested past protobuf's limit of
# 100 are a DataLossError (tfx hit Python's recursion limit on the first two), keys and
# lengths are read as C++'s CodedInputStream reads them.
WIRE_CASES = [
    ("deep_groups_in_requested_field", b"\x0b" * 100000,
     "CollectField: Failed skipping malformed field"),
    ("deep_groups_unrequested", b"\x13" * 100000, "Failed skipping unrequested field"),
    ("groups_101", b"\x0b" * 101 + b"\x0c" * 101,
     "CollectField: Failed skipping malformed field"),
    ("unrequested_groups_101", b"\x13" * 101 + b"\x14" * 101,
     "Failed skipping unrequested field"),
    ("groups_100", b"\x0b" * 100 + b"\x0c" * 100, ([[0]], [[b""]])),
    ("unrequested_groups_100_then_value", b"\x13" * 100 + b"\x14" * 100 + b"\x0a\x01z",
     ([[1]], [[b"z"]])),
    ("group_ended_by_another", b"\x0b\x14", "CollectField: Failed skipping malformed field"),
    ("group_unended", b"\x0b", "CollectField: Failed skipping malformed field"),
    ("field_0_in_group", b"\x0b\x00\x01\x0c", "CollectField: Failed skipping malformed field"),
    ("wire_type_6", b"\x0e", "CollectField: Failed skipping malformed field"),
    ("unrequested_field_0", b"\x01" + bytes(8), "Failed skipping unrequested field"),
    ("end_group_key", b"\x0c", "CountFields: Failed to consume entire buffer"),
    ("key_11_bytes", b"\x90" + b"\x80" * 9 + b"\x00\x01",
     "CountFields: Failed to consume entire buffer"),
    ("key_high_bits_dropped", b"\x8a\x80\x80\x80\x10\x01a", ([[1]], [[b"a"]])),
    ("key_6_bytes", b"\x8a\x80\x80\x80\x80\x00\x01a", ([[1]], [[b"a"]])),
    ("length_6_bytes", b"\x0a\x81\x80\x80\x80\x80\x00a", ([[1]], [[b"a"]])),
    ("unrequested_length_11_bytes", b"\x12\x81" + b"\x80" * 9 + b"\x00a",
     "Failed skipping unrequested field"),
]


def _assert_outcome(decode, want) -> None:
    """`decode()` ends as TensorFlow's did: `want` is its DataLossError's message, or
    the (sizes, values) it returned."""
    if isinstance(want, str):
        with pytest.raises(errors.DataLossError) as caught:
            decode()
        assert str(caught.value) == want
        return
    sizes, values = decode()
    assert (sizes.tolist(), values.tolist()) == want


@pytest.mark.parametrize("name,data,want", WIRE_CASES, ids=[c[0] for c in WIRE_CASES])
def test_decode_wire_edges_match_tensorflow(name: str, data: bytes, want) -> None:
    def decode():
        return run_op("DecodeProtoV2", [np.array([data], dtype=object)],
                      message_type="tfx.Summary", field_names=["value"],
                      output_types=[dtypes.string])

    _assert_outcome(decode, want)


def _group_source() -> str:
    """A bytes:// pool of proto2 `g.M { repeated group Grp = 1 { optional int32 x = 2; } }`."""
    from google.protobuf import descriptor_pb2

    files = descriptor_pb2.FileDescriptorSet()
    file = files.file.add(name="g.proto", package="g", syntax="proto2")
    message = file.message_type.add(name="M")
    message.nested_type.add(name="Grp").field.add(name="x", number=2, type=5, label=1)
    message.field.add(name="grp", number=1, type=10, label=3, type_name=".g.M.Grp")
    return "bytes://" + files.SerializeToString().decode("latin-1")


# TensorFlow 2.21's DecodeProtoV2 of a requested group field: each value is the group
# with both its keys (the start key written anew), a length-delimited record is refused.
GROUP_CASES = [
    ("one", b"\x0b\x10\x05\x0c", ([[1]], [[b"\x0b\x10\x05\x0c"]])),
    ("two", b"\x0b\x0c\x0b\x10\x01\x0c", ([[2]], [[b"\x0b\x0c", b"\x0b\x10\x01\x0c"]])),
    ("nested", b"\x0b\x13\x14\x0c", ([[1]], [[b"\x0b\x13\x14\x0c"]])),
    ("padded_key", b"\x8b\x80\x80\x80\x80\x00\x0c", ([[1]], [[b"\x0b\x0c"]])),
    ("ended_by_another", b"\x0b\x14", "ReadValue: Failed skipping field when counting"),
    ("length_delimited", b"\x0a\x01\x05", "TYPE_GROUP encountered as packed"),
    ("empty_length_delimited", b"\x0a\x00", "Non-primitive type encountered as packed"),
]


@pytest.mark.parametrize("name,data,want", GROUP_CASES, ids=[c[0] for c in GROUP_CASES])
def test_decode_group_field_matches_tensorflow(name: str, data: bytes, want) -> None:
    def decode():
        return run_op("DecodeProtoV2", [np.array([data], dtype=object)], message_type="g.M",
                      field_names=["grp"], output_types=[dtypes.string],
                      descriptor_source=_group_source())

    _assert_outcome(decode, want)
