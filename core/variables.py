"""Variables: the mutable tensors that outlive a step.

A `Variable` lives in the session's resource manager under (container, name)
and is shared by every step and thread of the session. Both kinds of
TensorFlow variable use it:

* ref variables (`VariableV2`): the node outputs the `Variable` object itself
  on a ref edge; a consumer that wants the value gets `read()` from the
  executor, while `Assign`, `ApplyAdagrad`, ... receive the object;
* resource variables (`VarHandleOp`): the node outputs a DT_RESOURCE handle
  and kernels look the variable up with `variable_from_handle`.

The contract:

* A variable has a dtype, a declared (possibly partial) shape, and either no
  value (uninitialized: `read()` raises FailedPreconditionError "Attempting to
  use uninitialized value <name>", as TensorFlow does) or a current array: an
  ndarray, or a CuPy array for a variable on a GPU.
* The current array is never written in place: consumers may hold it. Every
  update computes a new array and stores it (copy-on-write), so a reader sees
  either the old or the new value, never a half-written one, without locking.
* Read-modify-write sequences (AssignAdd, optimizer updates) hold the
  variable's lock; `locked(a, b, ...)` takes several in a fixed order so two
  kernels updating overlapping sets cannot deadlock. Kernels validate every
  input before storing anything, so a failed update leaves all state as it was.

Example:
    >>> v = Variable("w", dtypes.float32, (2,))
    >>> v.assign(np.zeros(2, np.float32))
    >>> with v.lock:
    ...     v.store(v.read() + 1)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.arrays import as_array
from tfx.core.errors import FailedPreconditionError, InvalidArgumentError
from tfx.core.resources import ResourceHandle, ResourceManager, handle_from_tensor

VARIABLE_KIND = "variable"


def shape_str(shape: tuple | None) -> str:
    """A shape as TensorFlow prints it: [2,?,3], or <unknown>."""
    if shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def shapes_compatible(declared: tuple | None, shape: tuple) -> bool:
    """Whether a concrete shape fits a declared partial shape."""
    if declared is None:
        return True
    return len(declared) == len(shape) and all(
        d is None or d == s for d, s in zip(declared, shape)
    )


class Variable:
    """A named, typed, mutable tensor slot (see the module docstring).

    Args:
        name: the name errors use (the variable's shared_name or node name).
        dtype: the element type (a value type, not a ref type).
        shape: the declared shape: a tuple with None for unknown dims, or None.
    """

    __slots__ = ("name", "dtype", "shape", "lock", "_value")

    def __init__(self, name: str, dtype: dtypes.DType, shape: tuple | None = None) -> None:
        self.name = name
        self.dtype = dtypes.as_dtype(dtype).base
        self.shape = tuple(shape) if shape is not None else None
        self.lock = threading.RLock()
        self._value: np.ndarray | None = None

    @property
    def is_initialized(self) -> bool:
        return self._value is not None

    def read(self) -> np.ndarray:
        """The current value; FailedPreconditionError if never assigned."""
        value = self._value
        if value is None:
            raise FailedPreconditionError(f"Attempting to use uninitialized value {self.name}")
        return value

    def value_shape(self) -> tuple | None:
        """The shape of the current value, or the declared shape if uninitialized."""
        value = self._value
        return value.shape if value is not None else self.shape

    def check_dtype(self, dtype: dtypes.DType) -> None:
        """Refuse a kernel whose dtype attr disagrees with the variable's."""
        if dtypes.as_dtype(dtype).base is not self.dtype:
            raise InvalidArgumentError(
                f"variable {self.name} has dtype {self.dtype}, but the op expects {dtype}"
            )

    def assign(self, value: Any, validate_shape: bool = True) -> None:
        """Replace the value (under the lock).

        With `validate_shape`, the new value must have the current value's shape
        (or fit the declared shape while uninitialized); without, any shape goes.
        """
        array = self._checked_array(value)
        with self.lock:
            if validate_shape:
                current = self._value
                fits = (
                    current.shape == array.shape
                    if current is not None
                    else shapes_compatible(self.shape, array.shape)
                )
                if not fits:
                    expected = current.shape if current is not None else self.shape
                    raise InvalidArgumentError(
                        f"Assign requires shapes of both tensors to match: variable {self.name} "
                        f"has shape {shape_str(expected)}, value has shape "
                        f"{shape_str(array.shape)}"
                    )
            self._value = array

    def store(self, value: Any) -> None:
        """Set the value without checks. The caller holds `lock` and has validated."""
        array = as_array(value)  # a GPU variable's value stays in GPU memory
        if array.dtype != self.dtype.np:
            array = array.astype(self.dtype.np)
        self._value = array

    def reset(self) -> None:
        """Forget the value (back to uninitialized)."""
        with self.lock:
            self._value = None

    def _checked_array(self, value: Any) -> np.ndarray:
        array = as_array(value)
        if array.dtype != self.dtype.np:
            got = dtypes.as_dtype(array.dtype) if array.dtype.kind != "O" else "object"
            raise InvalidArgumentError(
                f"cannot assign a {got} value to variable {self.name} of dtype {self.dtype}"
            )
        return array

    def __repr__(self) -> str:
        state = shape_str(self._value.shape) if self._value is not None else "uninitialized"
        return f"<Variable {self.name!r} {self.dtype} {state}>"


@contextmanager
def locked(*variables: Variable) -> Iterator[None]:
    """Hold the locks of several variables, taken in one global order (no deadlock)."""
    distinct = sorted({id(v): v for v in variables}.values(), key=id)
    for index, variable in enumerate(distinct):
        try:
            variable.lock.acquire()
        except BaseException:
            for held in distinct[:index]:
                held.lock.release()
            raise
    try:
        yield
    finally:
        for variable in reversed(distinct):
            variable.lock.release()


def as_variable(value: Any, what: str = "ref") -> Variable:
    """The Variable on a ref edge; InvalidArgumentError for anything else (a fed tensor)."""
    if not isinstance(value, Variable):
        raise InvalidArgumentError(
            f"input {what!r} must be a variable reference, got {type(value).__name__} "
            "(a ref tensor cannot be fed)"
        )
    return value


def get_or_create(
    resources: ResourceManager,
    container: str,
    name: str,
    dtype: dtypes.DType,
    shape: tuple | None = None,
) -> Variable:
    """The variable under (container, name), created uninitialized if absent."""
    resource = resources.lookup_or_create(container, name, lambda: Variable(name, dtype, shape))
    if not isinstance(resource, Variable):
        raise InvalidArgumentError(
            f"resource {name!r} is a {type(resource).__name__}, not a variable"
        )
    resource.check_dtype(dtype)
    return resource


def variable_from_handle(
    resources: ResourceManager, tensor: Any, dtype: dtypes.DType | None = None
) -> Variable:
    """The variable a DT_RESOURCE handle tensor points to.

    Raises FailedPreconditionError when it does not exist (destroyed), and
    InvalidArgumentError when the handle is not a variable's or `dtype` disagrees.
    """
    handle = handle_from_tensor(tensor, VARIABLE_KIND)
    resource = resources.get(handle.container, handle.name)
    if resource is None:
        where = f"{handle.container}/{handle.name}" if handle.container else handle.name
        raise FailedPreconditionError(
            f"Could not find variable {where}: it has not been created or was deleted"
        )
    if not isinstance(resource, Variable):
        raise InvalidArgumentError(
            f"resource {handle.name!r} is a {type(resource).__name__}, not a variable"
        )
    if dtype is not None:
        resource.check_dtype(dtype)
    return resource


def create_from_handle(
    resources: ResourceManager, tensor: Any, dtype: dtypes.DType
) -> Variable:
    """The variable a handle points to, created uninitialized if it was deleted."""
    handle = handle_from_tensor(tensor, VARIABLE_KIND)
    return get_or_create(resources, handle.container, handle.name, dtype)


def variable_handle(container: str, name: str) -> np.ndarray:
    """A scalar DT_RESOURCE tensor naming the variable (container, name)."""
    return ResourceHandle(container, name, VARIABLE_KIND).as_tensor()
