"""ReaderSerializeState(V2) and ReaderRestoreState(V2) (kernels/cpu/readers.py,
kernels/cpu/reader_state.py) and the readers' serialize_state/restore_state methods
(core/api/io_api.py). The bytes and messages are TensorFlow 2.21's, recorded from its
readers in a TF1 graph; the ReaderBaseState codec is also checked against protobuf's own
serialization of the same message. No TensorFlow needed.
"""

from __future__ import annotations

import numpy as np
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from hypothesis import example, given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api.ops_api import apply_op, apply_op_raw
from tfx.kernels.cpu import reader_state


@pytest.fixture
def session():
    with tf.Session() as sess:
        yield sess


def _queue(session, *works):
    queue = tf.FIFOQueue(10, tf.string)
    session.run(queue.enqueue_many([list(works)]))
    return queue


def test_identity_reader_state_bytes(session):
    reader = tf.IdentityReader()
    assert reader.supports_serialize
    assert session.run(reader.serialize_state()) == b""  # all fields zero
    queue = _queue(session, "w3", "w4")
    assert session.run(reader.read(queue)) == (b"w3", b"w3")
    # TF 2.21: started 1, finished 1 (the unit ends with its record), produced 1, "w3".
    assert session.run(reader.serialize_state()) == b'\x08\x01\x10\x01\x18\x01"\x02w3'


def test_whole_file_reader_state_bytes(session, tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"abc")
    reader = tf.WholeFileReader()
    assert reader.supports_serialize
    queue = _queue(session, str(path))
    assert session.run(reader.read(queue)) == (str(path).encode(), b"abc")
    assert session.run(reader.serialize_state()) == (
        b'\x08\x01\x10\x01\x18\x01"' + bytes([len(str(path))]) + str(path).encode())


def test_restore_sets_the_counters_and_work(session):
    reader = tf.IdentityReader()
    state = tf.placeholder(tf.string)
    restore = reader.restore_state(state)
    session.run(restore, {state: reader_state.encode(1, 2, 0, b"x")})
    assert session.run([reader.num_records_produced(),
                        reader.num_work_units_completed()]) == [0, 2]
    assert session.run(reader.serialize_state()) == b'\x08\x01\x10\x02"\x01x'
    # Nothing in progress: the next read dequeues; finishing sets finished = started
    # (TF 2.21 serializes started 2, finished 2 here).
    queue = _queue(session, "next")
    assert session.run(reader.read(queue)) == (b"next", b"next")
    assert session.run(reader.serialize_state()) == b'\x08\x02\x10\x02\x18\x01"\x04next'


@pytest.mark.parametrize("state, message", [
    (b"\xff\xff", r"Could not parse state for IdentityReader '[^']*': \\377\\377$"),
    (reader_state.encode(-1, 0, 0, b""),
     r"Unexpected negative value when restoring in IdentityReader '[^']*': "
     r"work_started: -1\n$"),
    (reader_state.encode(5, 4, 7, b"zz"),
     r"Inconsistent work started vs. finished when restoring in IdentityReader '[^']*': "
     r'work_started: 5\nwork_finished: 4\nnum_records_produced: 7\ncurrent_work: "zz"\n$'),
])
def test_bad_states_are_refused_and_reset_the_reader(session, state, message):
    reader = tf.IdentityReader()
    session.run(reader.read(_queue(session, "a")))
    placeholder = tf.placeholder(tf.string)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        session.run(reader.restore_state(placeholder), {placeholder: state})
    assert session.run(reader.serialize_state()) == b""


@pytest.mark.parametrize("make", [tf.TextLineReader, tf.TFRecordReader,
                                  lambda: tf.FixedLengthRecordReader(1)])
def test_other_readers_cannot_save(session, make):
    reader = make()
    assert not reader.supports_serialize
    with pytest.raises(tf.errors.UnimplementedError, match="Reader SerializeState$"):
        session.run(reader.serialize_state())
    with pytest.raises(tf.errors.UnimplementedError, match="Reader RestoreState$"):
        session.run(reader.restore_state(b""))


def test_state_must_be_a_scalar(session):
    reader = tf.IdentityReader()
    state = tf.placeholder(tf.string)  # of unknown rank, so the kernel sees [2]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Reader state must be scalar, but had shape: \[2\]"):
        session.run(reader.restore_state(state), {state: [b"", b""]})


def test_v1_ops_with_a_ref_handle(session):
    handle = apply_op("IdentityReader")
    assert session.run(apply_op("ReaderSerializeState", reader_handle=handle)) == b""
    session.run(apply_op_raw("ReaderRestoreState", reader_handle=handle,
                             state=reader_state.encode(3, 3, 9, b"q")))
    assert session.run(apply_op("ReaderNumRecordsProduced", reader_handle=handle)) == 9
    assert session.run(apply_op("ReaderSerializeState", reader_handle=handle)) == (
        b'\x08\x03\x10\x03\x18\x09"\x01q')


def _protobuf_class():
    """ReaderBaseState built at run time from its description, for protobuf's codec."""
    file = descriptor_pb2.FileDescriptorProto(name="reader_state_test.proto",
                                              package="t", syntax="proto3")
    message = file.message_type.add(name="ReaderBaseState")
    for number, name in enumerate(["work_started", "work_finished",
                                   "num_records_produced"], start=1):
        message.field.add(name=name, number=number, type=3, label=1)  # int64
    message.field.add(name="current_work", number=4, type=12, label=1)  # bytes
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("t.ReaderBaseState"))


PROTO = _protobuf_class()
_INT64 = st.integers(-(2**63), 2**63 - 1)


@settings(max_examples=200, deadline=None)
@given(_INT64, _INT64, _INT64, st.binary(max_size=40))
def test_codec_agrees_with_protobuf(started, finished, produced, work):
    reference = PROTO(work_started=started, work_finished=finished,
                      num_records_produced=produced, current_work=work)
    encoded = reader_state.encode(started, finished, produced, work)
    assert encoded == reference.SerializeToString()
    assert reader_state.decode(encoded) == (started, finished, produced, work)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=30))
@example(b"\xa5\x80\x80\x80\x10\x00\x00\x00\x00")  # field number 2**29 + 4: refused
@example(b"\xf8\xff\xff\xff\x0f\x00")  # field number 2**29 - 1: the largest, skipped
@example(b"cd")  # an empty group (field 12): skipped, as protobuf 7 does (seen on 3.12)
@example(b"\x0b\x08\x07\x0c\x08\x05")  # a group numbered 1 holding 1: 7 is not a value
@example(b"\x63\x6b\x6c")  # a group left open
@example(b"\x63\x6c")  # a group ended by another number
@example(b"\x63" * 101 + b"\x64" * 101)  # groups nested past protobuf's limit
@example(b"\x0b\x00\x01\x0c")  # field number 0 inside a group: upb alone accepts it
def test_decode_accepts_and_refuses_what_protobuf_does(data):
    reference = PROTO()
    try:
        reference.ParseFromString(data)
    except Exception:
        with pytest.raises(ValueError):
            reader_state.decode(data)
        return
    try:
        reader_state.decode(data)
    except ValueError as exc:
        # Python's protobuf (upb) keeps a field number 0 inside a group; C++'s protobuf,
        # which TensorFlow parses with, refuses it, and so does tfx (core/wire_format.py).
        assert "field number 0" in str(exc), data
        return
    assert reader_state.decode(data) == (reference.work_started, reference.work_finished,
                                         reference.num_records_produced,
                                         reference.current_work)


def test_c_escape_is_abseils():
    assert reader_state.c_escape(b'a\n\t"\'\\\x00\x7f\xff') == 'a\\n\\t\\"\\\'\\\\\\000\\177\\377'
    assert np.array_equal(reader_state.decode(b"\x20\x05"), (0, 0, 0, b""))  # unknown field
