"""TensorFlow's ReaderBaseState proto (reader_base.proto), encoded and decoded by hand.

    message ReaderBaseState {
      int64 work_started = 1; int64 work_finished = 2;
      int64 num_records_produced = 3; bytes current_work = 4;
    }

`encode` writes what protobuf's SerializeToString writes for it (proto3: fields in
number order, zeros and empty bytes left out). `decode` reads as protobuf's parser
does (through core/wire_format.py): the last occurrence of a field wins, unknown fields
and fields of an unexpected wire type are skipped (a group up to its matching end),
negative int64s are ten-byte varints; anything malformed (a truncated or overlong
varint, a length past the end, an unended or mismatched group, an invalid wire type) is
a ValueError. `debug_string` and `c_escape` give the text TensorFlow's messages show.
"""

from __future__ import annotations

from tfx.core.wire_format import LENGTH, VARINT, fields, write_varint

__all__ = ["c_escape", "debug_string", "decode", "encode"]

_NAMES = ("work_started", "work_finished", "num_records_produced")


def encode(started: int, finished: int, produced: int, work: bytes) -> bytes:
    """The serialized ReaderBaseState."""
    out = bytearray()
    for number, value in enumerate((started, finished, produced), start=1):
        if value:
            out += write_varint(number << 3 | VARINT) + write_varint(value)
    if work:
        out += write_varint(4 << 3 | LENGTH) + write_varint(len(work)) + work
    return bytes(out)


def decode(data: bytes) -> tuple[int, int, int, bytes]:
    """(work_started, work_finished, num_records_produced, current_work) of the bytes."""
    found: list = [0, 0, 0, b""]
    for number, wire, value in fields(data):
        if wire == VARINT and 1 <= number <= 3:
            found[number - 1] = value - (1 << 64) if value >> 63 else value  # int64
        elif wire == LENGTH and number == 4:
            found[3] = value
    return found[0], found[1], found[2], found[3]


def c_escape(data: bytes) -> str:
    """absl::CEscape: C escapes, and three-digit octal for other unprintable bytes."""
    named = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}
    return "".join(named.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}")
                   for b in data)


def debug_string(started: int, finished: int, produced: int, work: bytes) -> str:
    """The proto's text form, as its DebugString lists the fields that are set."""
    lines = [f"{name}: {value}" for name, value in zip(_NAMES, (started, finished, produced))
             if value]
    if work:
        lines.append(f'current_work: "{c_escape(work)}"')
    return "".join(line + "\n" for line in lines)
