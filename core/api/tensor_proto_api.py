"""tf.make_tensor_proto and tf.make_ndarray: TensorFlow's names for tfx's TensorProto
conversion (`tfx.core.tensor_util`), with TensorFlow's shape handling.

A `shape` with as many elements as the values reshapes them; with more, the last value
fills the rest (one value makes a splat, as TensorFlow's decoder pads); with fewer, it is
a ValueError. `verify_shape` asks for the values' own shape instead.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfx.core import dtypes, tensor_util
from tfx.protos import tensor_pb2


def make_tensor_proto(values: Any, dtype: Any = None, shape: Any = None,
                      verify_shape: bool = False,
                      allow_broadcast: bool = False) -> tensor_pb2.TensorProto:
    """A TensorProto holding `values`.

    Args:
        values: A Python value or numpy array (Python floats become float32 and ints int32,
            as in TensorFlow; strings become bytes).
        dtype: The element type; by default the values'.
        shape: The tensor's shape; by default the values'.
        verify_shape: Require the values to have exactly `shape`.
        allow_broadcast: Accepted for TensorFlow's signature; shapes are handled as above.

    Returns:
        A `tensor_pb2.TensorProto`.

    Example:
        >>> make_ndarray(make_tensor_proto([1, 2], shape=[4]))   # [1, 2, 2, 2]
    """
    del allow_broadcast
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if dtype is not None and dtype.is_integer and not isinstance(values, np.ndarray):
        floats = np.asarray(values)
        if floats.dtype.kind == "f" and floats.size:
            first = floats.reshape(-1)[0].item()
            raise TypeError(f"Expected {dtype.name}, but got {first} of type 'float'.")
    array = tensor_util.as_ndarray(values, dtype)
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        if verify_shape and array.shape != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, but got {array.shape}.")
        size = math.prod(shape)
        if array.size > size:
            raise ValueError(
                f"Too many elements provided. Takes at most {size}, but got {array.size}."
            )
        flat = array.reshape(-1)
        if flat.size < size:
            fill = flat[-1:] if flat.size else np.zeros(1, array.dtype)
            flat = np.concatenate([flat, np.broadcast_to(fill, (size - flat.size,))])
        array = flat.reshape(shape)
    return tensor_util.from_ndarray(array, dtype)


def make_ndarray(tensor: tensor_pb2.TensorProto, dtype: Any = None) -> np.ndarray:
    """The numpy array a TensorProto holds (a new, writable array).

    Args:
        tensor: A `tensor_pb2.TensorProto`.
        dtype: A type to cast the array to; by default the proto's.

    Returns:
        A numpy array of the proto's shape.

    Example:
        >>> make_ndarray(make_tensor_proto([[1.5, 2.0]]))   # float32 [[1.5, 2.0]]
    """
    array = np.array(tensor_util.to_ndarray(tensor))  # a copy: splats decode to a view
    if dtype is not None:
        array = array.astype(dtypes.as_dtype(dtype).np)
    return array
