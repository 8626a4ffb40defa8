"""TensorFlow's ReaderBaseState proto (reader_base.proto), encoded and decoded by hand.

    message ReaderBaseState {
      int64 work_started = 1; int64 work_finished = 2;
      int64 num_records_produced = 3; bytes current_work = 4;
    }

`encode` writes what protobuf's SerializeToString writes for it (proto3: fields in
number order, zeros and empty bytes left out). `decode` reads as protobuf's parser
does: the last occurrence of a field wins, unknown fields and fields of an unexpected
wire type are skipped (a group up to its matching end), negative int64s are ten-byte
varints; anything malformed (a truncated or overlong varint, a length past the end, an
unended or mismatched group, an invalid wire type) is a ValueError. `debug_string` and
`c_escape` give the text TensorFlow's messages show.
"""

from __future__ import annotations

__all__ = ["c_escape", "debug_string", "decode", "encode"]

_NAMES = ("work_started", "work_finished", "num_records_produced")


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # int64 as two's complement
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode(started: int, finished: int, produced: int, work: bytes) -> bytes:
    """The serialized ReaderBaseState."""
    out = bytearray()
    for number, value in enumerate((started, finished, produced), start=1):
        if value:
            out += _varint(number << 3) + _varint(value)
    if work:
        out += _varint(4 << 3 | 2) + _varint(len(work)) + work
    return bytes(out)


# Protobuf's largest field number; a tag is a 32-bit varint.
_MAX_FIELD_NUMBER = (1 << 29) - 1


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = 0
    for i in range(10):
        if pos + i >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos + i]
        result |= (byte & 0x7F) << (7 * i)
        if byte < 0x80:
            return result, pos + i + 1
    raise ValueError("overlong varint")


def _read_key(data: bytes, pos: int) -> tuple[int, int, int]:
    key, pos = _read_varint(data, pos)
    number = key >> 3
    if number == 0 or number > _MAX_FIELD_NUMBER or key >> 32:
        raise ValueError(f"field number {number} out of range")
    return number, key & 7, pos


# Protobuf's default recursion limit, which bounds nested groups too.
_MAX_DEPTH = 100


def _skip(data: bytes, pos: int, number: int, wire: int, depth: int = 0) -> int:
    """The position after a field's value (the key already read); a group is skipped
    up to its matching end, as protobuf keeps it among the unknown fields."""
    if wire == 0:
        return _read_varint(data, pos)[1]
    if wire == 2:
        size, pos = _read_varint(data, pos)
        if pos + size > len(data):
            raise ValueError("length past the end")
        return pos + size
    if wire in (1, 5):
        pos += 8 if wire == 1 else 4
        if pos > len(data):
            raise ValueError("truncated fixed field")
        return pos
    if wire == 3:
        if depth >= _MAX_DEPTH:
            raise ValueError("groups nested too deeply")
        while pos < len(data):
            inner, inner_wire, pos = _read_key(data, pos)
            if inner_wire == 4:
                if inner != number:
                    raise ValueError(f"group {number} ended by {inner}")
                return pos
            pos = _skip(data, pos, inner, inner_wire, depth + 1)
        raise ValueError(f"group {number} has no end")
    raise ValueError(f"wire type {wire}")


def decode(data: bytes) -> tuple[int, int, int, bytes]:
    """(work_started, work_finished, num_records_produced, current_work) of the bytes."""
    fields: list = [0, 0, 0, b""]
    pos = 0
    while pos < len(data):
        number, wire, pos = _read_key(data, pos)
        if wire == 0 and 1 <= number <= 3:
            value, pos = _read_varint(data, pos)
            value &= (1 << 64) - 1  # int64: the low 64 bits, signed
            fields[number - 1] = value - (1 << 64) if value >> 63 else value
        elif wire == 2 and number == 4:
            end = _skip(data, pos, number, wire)
            size, pos = _read_varint(data, pos)
            fields[3] = bytes(data[pos:end])
            pos = end
        else:
            pos = _skip(data, pos, number, wire)
    return fields[0], fields[1], fields[2], fields[3]


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
