"""Error classes, named after TensorFlow's status codes.

Every error tfx raises on purpose is a `TfxError`. The CLI turns one into a
single line and an exit code (`exit_code`): 2 for bad input or usage, 1 for a
failure at run time. Messages name what is wrong and where (node, op, device,
file), so they read well without a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class TfxError(Exception):
    """Base of all deliberate tfx errors."""

    code = "UNKNOWN"
    exit_code = 1


class InvalidArgumentError(TfxError):
    """Bad input: a malformed graph, feed, attr, shape or argument."""

    code = "INVALID_ARGUMENT"
    exit_code = 2


class DTypeError(InvalidArgumentError, TypeError):
    """A value of a type the op or function does not take: bad input, and a TypeError to
    Python callers, as TensorFlow raises one when an op is built with such an input."""


class NotFoundError(TfxError):
    """A named thing (node, op, kernel, file, tensor) does not exist."""

    code = "NOT_FOUND"
    exit_code = 2


class UnimplementedError(TfxError):
    """The graph needs something tfx does not implement (yet)."""

    code = "UNIMPLEMENTED"
    exit_code = 2


class FailedPreconditionError(TfxError):
    """The system is not in a state to run this (e.g. an uninitialized variable)."""

    code = "FAILED_PRECONDITION"


class OutOfRangeError(TfxError):
    """Iterated past the end (e.g. dequeue from a closed, empty queue)."""

    code = "OUT_OF_RANGE"


class ResourceExhaustedError(TfxError):
    """An allocation beyond the configured limit."""

    code = "RESOURCE_EXHAUSTED"


class CancelledError(TfxError):
    """The step was cancelled (Ctrl-C, a failing partition, a closed session)."""

    code = "CANCELLED"


class DeadlineExceededError(TfxError):
    """The step ran past its timeout."""

    code = "DEADLINE_EXCEEDED"


class DataLossError(TfxError):
    """Corrupt or truncated data (checkpoint CRC mismatch, short file): bad input."""

    code = "DATA_LOSS"
    exit_code = 2


class AbortedError(TfxError):
    """The operation was aborted, typically by a concurrent change."""

    code = "ABORTED"


class UnavailableError(TfxError):
    """A service (remote worker) cannot be reached."""

    code = "UNAVAILABLE"


class InternalError(TfxError):
    """An invariant of tfx itself was broken: a bug."""

    code = "INTERNAL"


def closest(name: str, candidates: Iterable[str], n: int = 3) -> str:
    """Return ' (did you mean: a, b?)' for the nearest candidates, or ''."""
    matches = difflib.get_close_matches(name, list(candidates), n=n, cutoff=0.6)
    if not matches:
        return ""
    return " (did you mean: " + ", ".join(matches) + "?)"
