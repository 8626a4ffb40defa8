"""TensorFlow 1.x's `tf.errors`: the error classes, their numeric status codes, and the
maps between the two, and `raise_exception_on_not_ok_status`, which raises the error of a
status code a block sets.

The classes are tfx's own (`tfx.core.errors`); `OpError` is their common base. A class
raised by TensorFlow code under its TensorFlow name is the one tfx raises, so
`except tf.errors.OutOfRangeError` catches tfx's end-of-queue error.
"""

from __future__ import annotations

import warnings

from tfx.core.errors import (
    ERROR_CODES,
    AbortedError,
    AlreadyExistsError,
    CancelledError,
    DataLossError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OutOfRangeError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
    UnknownError,
)
from tfx.core.errors import TfxError as OpError

OK = ERROR_CODES["OK"]
CANCELLED = ERROR_CODES["CANCELLED"]
UNKNOWN = ERROR_CODES["UNKNOWN"]
INVALID_ARGUMENT = ERROR_CODES["INVALID_ARGUMENT"]
DEADLINE_EXCEEDED = ERROR_CODES["DEADLINE_EXCEEDED"]
NOT_FOUND = ERROR_CODES["NOT_FOUND"]
ALREADY_EXISTS = ERROR_CODES["ALREADY_EXISTS"]
PERMISSION_DENIED = ERROR_CODES["PERMISSION_DENIED"]
RESOURCE_EXHAUSTED = ERROR_CODES["RESOURCE_EXHAUSTED"]
FAILED_PRECONDITION = ERROR_CODES["FAILED_PRECONDITION"]
ABORTED = ERROR_CODES["ABORTED"]
OUT_OF_RANGE = ERROR_CODES["OUT_OF_RANGE"]
UNIMPLEMENTED = ERROR_CODES["UNIMPLEMENTED"]
INTERNAL = ERROR_CODES["INTERNAL"]
UNAVAILABLE = ERROR_CODES["UNAVAILABLE"]
DATA_LOSS = ERROR_CODES["DATA_LOSS"]
UNAUTHENTICATED = ERROR_CODES["UNAUTHENTICATED"]

_CLASSES: tuple[type[OpError], ...] = (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError, InternalError,
    UnavailableError, DataLossError, UnauthenticatedError,
)
_CLASS_OF_CODE = {ERROR_CODES[cls.code]: cls for cls in _CLASSES}


def exception_type_from_error_code(error_code: int) -> type[OpError]:
    """The error class of a TensorFlow status code (`3` -> InvalidArgumentError).

    Raises KeyError for OK or a number that is not a status code, as TensorFlow does.
    """
    return _CLASS_OF_CODE[error_code]


def error_code_from_exception_type(cls: type[OpError]) -> int | None:
    """The TensorFlow status code of an error class; for any other class None, with a
    warning, as TensorFlow answers."""
    for code, known in _CLASS_OF_CODE.items():
        if cls is known:
            return code
    warnings.warn("Unknown class exception", stacklevel=2)
    return None


class Status:
    """What `raise_exception_on_not_ok_status` hands its block (TensorFlow hands a C
    `TF_Status`): a status code, OK until set, and its message."""

    def __init__(self) -> None:
        self.code = OK
        self.message = ""

    def set(self, code: int, message: str) -> None:
        """Record a failure (`code` one of tf.errors' codes) for the block's exit to raise."""
        if code != OK:
            exception_type_from_error_code(code)  # KeyError for a number that is no code
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"Status(code={self.code}, message={self.message!r})"


class raise_exception_on_not_ok_status:  # noqa: N801 (TensorFlow's name)
    """Context manager that raises the error of the status its block set, as TensorFlow's
    guard around C API calls does.

    `with` gives a `Status` (code OK); when the block ends with it set to another code,
    the error class of that code is raised with its message (after an exception from the
    block too, which becomes its context). An OK status lets the block end as it would.

        with tf.errors.raise_exception_on_not_ok_status() as status:
            status.set(tf.errors.NOT_FOUND, "no such file")   # raises NotFoundError
    """

    def __enter__(self) -> Status:
        self.status = Status()
        return self.status

    def __exit__(self, *exc_info: object) -> bool:
        try:
            if self.status.code != OK:
                cls = exception_type_from_error_code(self.status.code)
                raise cls(None, None, self.status.message)
        finally:
            del self.status
        return False


__all__ = sorted(
    [cls.__name__ for cls in _CLASSES]
    + ["OpError", "error_code_from_exception_type", "exception_type_from_error_code",
       "raise_exception_on_not_ok_status"]
    + [name for name in ERROR_CODES]
)
