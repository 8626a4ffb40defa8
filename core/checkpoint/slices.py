"""Slices of partitioned tensors, as a tensor bundle stores them.

A partitioned variable is saved as pieces of one full tensor. SaveV2 describes
each piece by a spec "d0 d1 ... e0:e1:..." (the full shape, then one extent per
dimension: "-" for all of it, or "start,length"). The bundle then holds, under
the tensor's name, an entry with the full dtype and shape, no data and one
TensorSliceProto per piece, and each piece as an ordinary entry under a key
that TensorFlow's `checkpoint::EncodeTensorNameSlice` builds with OrderedCode:
the number 0 (so every slice key sorts before the names, which never start with
a NUL byte), the name, the rank, then each start and length as signed numbers
(-1 for a whole dimension).

Here a slice is a tuple of extents `(start, length)`, `length == -1` meaning
the whole dimension (TensorFlow's TensorSlice); `bounds` turns it into index
ranges for a given full shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tfx.core.errors import InvalidArgumentError
from tfx.protos import checkpoint_pb2

Extents = tuple[tuple[int, int], ...]
Bounds = tuple[tuple[int, int], ...]  # (start, stop) per dimension
FULL = -1  # the length of an extent covering its whole dimension


def parse_slice_spec(spec: str) -> tuple[tuple[int, ...], Extents]:
    """The full shape and the extents of a SaveV2 spec ("10 4 0,5:-").

    Raises:
        InvalidArgumentError: the spec is malformed, its rank disagrees with the
            shape, or an extent reaches outside the shape.
    """
    *dims, text = spec.strip().split(" ")
    try:
        shape = tuple(int(d) for d in dims)
        if not shape or any(d < 0 for d in shape):
            raise ValueError
        extents = []
        for part in text.split(":"):
            if part == "-":
                extents.append((0, FULL))
                continue
            start, length = (int(x) for x in part.split(","))
            if length < 0:
                raise ValueError
            extents.append((start, length))
    except ValueError:
        raise InvalidArgumentError(
            f"invalid shape_and_slice spec {spec!r}: want the full shape, then one extent per "
            f"dimension, '-' or 'start,length' (as '10 4 0,5:-')"
        ) from None
    try:
        bounds(extents, shape)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"shape_and_slice spec {spec!r}: {exc}") from None
    return shape, tuple(extents)


def parse_shape_and_slice(spec: str) -> tuple[tuple[int, ...], tuple[slice, ...]]:
    """The full shape and a numpy index for a spec ("4 3 0,2:-" -> (4, 3), [0:2, :])."""
    shape, extents = parse_slice_spec(spec)
    return shape, tuple(slice(start, stop) for start, stop in bounds(extents, shape))


def bounds(extents: Sequence[tuple[int, int]], shape: Sequence[int]) -> Bounds:
    """(start, stop) per dimension, or InvalidArgumentError when the slice leaves `shape`."""
    if len(extents) != len(shape):
        raise InvalidArgumentError(
            f"slice {slice_text(extents)} has {len(extents)} extents for shape {list(shape)}"
        )
    out = []
    for (start, length), dim in zip(extents, shape):
        if length == FULL and start == 0:
            out.append((0, dim))
        elif 0 <= start and 0 <= length and start + length <= dim:
            out.append((start, start + length))
        else:
            raise InvalidArgumentError(
                f"slice {slice_text(extents)} is outside shape {list(shape)}"
            )
    return tuple(out)


def covers(box: Bounds, shape: Sequence[int]) -> bool:
    """Whether the slice is the whole tensor (TensorFlow then saves it as a plain entry)."""
    return all(stop - start == dim for (start, stop), dim in zip(box, shape))


def intersection(box: Bounds, other: Bounds) -> Bounds | None:
    """The elements two slices share, or None when they share none."""
    out = tuple((max(a0, b0), min(a1, b1)) for (a0, a1), (b0, b1) in zip(box, other))
    return out if all(start < stop for start, stop in out) else None


def first_overlap(box: Bounds, others: Iterable[tuple[Extents, Bounds]]) -> Extents | None:
    """The first of `others` sharing an element with `box` (empty slices share none)."""
    for extents, other in others:
        if intersection(box, other) is not None:
            return extents
    return None


def to_proto(extents: Sequence[tuple[int, int]]) -> checkpoint_pb2.TensorSliceProto:
    """TensorSlice::AsProto: a whole dimension is an empty Extent (no start, no length)."""
    proto = checkpoint_pb2.TensorSliceProto()
    for start, length in extents:
        extent = proto.extent.add()
        if not (length == FULL and start == 0):
            extent.start = start
            extent.length = length
    return proto


def from_proto(proto: checkpoint_pb2.TensorSliceProto) -> Extents:
    return tuple((e.start, e.length if e.HasField("length") else FULL) for e in proto.extent)


def slice_key(name: bytes, extents: Sequence[tuple[int, int]]) -> bytes:
    """The index key of one slice: 0, the name, the rank, then each (start, length)."""
    out = bytearray(_ordered_uint(0))
    out += name.replace(b"\xff", b"\xff\x00").replace(b"\x00", b"\x00\xff") + b"\x00\x01"
    out += _ordered_uint(len(extents))
    for start, length in extents:
        out += _ordered_int(start) + _ordered_int(length)
    return bytes(out)


def slice_text(extents: Sequence[tuple[int, int]]) -> str:
    """The extents as a spec writes them: "0,5:-"."""
    return ":".join("-" if n == FULL else f"{s},{n}" for s, n in extents)


def _ordered_uint(value: int) -> bytes:
    """A byte count, then the big-endian bytes (none for 0)."""
    body = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return bytes([len(body)]) + body


def _ordered_int(value: int) -> bytes:
    """Signed: L bytes of two's complement hold 7L-1 value bits, their first L bits
    flipped (so L ones, then the sign, for a non-negative value)."""
    magnitude = ~value if value < 0 else value
    length = 1
    while magnitude.bit_length() > 7 * length - 1:
        length += 1
    bits = 8 * length
    header = ((1 << length) - 1) << (bits - length)
    return ((value & ((1 << bits) - 1)) ^ header).to_bytes(length, "big")
