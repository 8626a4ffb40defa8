"""TensorFlow 1.x's session tensor handles: keep a tensor in the session between steps.

    c = tf.multiply(a, b)
    h = sess.run(get_session_handle(c))           # a TensorHandle; c is kept
    holder, value = get_session_tensor(h.handle, tf.float32)
    sess.run(value * 10, {holder: h.handle})      # c's kept value, times 10
    h.delete()                                    # or run delete_session_tensor's op

The kept tensors live in the session (`tfx.core.session_tensors`): a handle works in
the session that made it, until it is deleted or the session closes.
"""

from __future__ import annotations

from typing import Any

from tfx.core import dtypes
from tfx.core.api.graph_builder import Operation, Tensor, colocate_with, device
from tfx.core.api.ops_api import apply_op, placeholder
from tfx.core.session_tensors import TensorHandle

# TensorFlow's names; TensorHandle (what sess.run returns) is importable from here too.
__all__ = ["delete_session_tensor", "get_session_handle", "get_session_tensor"]


def get_session_handle(data: Tensor, name: str | None = None) -> Tensor:
    """A string tensor: running it keeps `data`'s value in the session.

    Args:
        data: the Tensor to keep.
        name: the op's name (default "GetSessionHandle").

    Returns:
        A scalar string Tensor; `sess.run` of it returns a `TensorHandle`.

    Example:
        >>> h = sess.run(get_session_handle(loss))
    """
    if not isinstance(data, Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with colocate_with(data.op):
        return apply_op("GetSessionHandle", name=name, value=data)


def _handle_device(handle: Any) -> str | None:
    """The device in a handle string "name;id;device", on which its tensor is kept."""
    if isinstance(handle, TensorHandle):
        handle = handle.handle
    elif isinstance(handle, bytes):
        handle = handle.decode("utf-8", "replace")
    if not isinstance(handle, str):
        raise TypeError(f"a session tensor handle must be a string, got {type(handle).__name__}")
    parts = handle.split(";")
    return parts[-1] if len(parts) == 3 and parts[-1] else None


def get_session_tensor(handle: Any, dtype: Any, name: str | None = None
                       ) -> tuple[Tensor, Tensor]:
    """A placeholder for a handle, and the kept tensor that handle names.

    Args:
        handle: a handle string (or TensorHandle): its device places the read.
        dtype: the kept tensor's dtype.
        name: the read op's name (default "GetSessionTensor").

    Returns:
        `(holder, tensor)`: feed a handle to the string placeholder `holder`;
        `tensor` is the tensor kept under it.

    Example:
        >>> holder, value = get_session_tensor(h.handle, tf.float32)
        >>> sess.run(value + 1, {holder: h.handle})
    """
    dtype = dtypes.as_dtype(dtype)
    with device(_handle_device(handle)):
        holder = placeholder(dtypes.string)
        tensor = apply_op("GetSessionTensor", name=name, handle=holder, dtype=dtype)
    return holder, tensor


def delete_session_tensor(handle: Any, name: str | None = None) -> tuple[Tensor, Operation]:
    """A placeholder for a handle, and the op that frees the tensor it names.

    Returns:
        `(holder, deleter)`: running `deleter` with a handle fed to `holder` frees
        that tensor (InvalidArgumentError if it is not kept).

    Example:
        >>> holder, deleter = delete_session_tensor(h.handle)
        >>> sess.run(deleter, {holder: h.handle})
    """
    with device(_handle_device(handle)):
        holder = placeholder(dtypes.string)
        deleter = apply_op("DeleteSessionTensor", name=name, handle=holder)
    return holder, deleter
