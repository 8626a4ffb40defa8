"""`tf.as_dtype` / `tf.dtypes.as_dtype` against TensorFlow 1.x: parameter `type_value`, and a
TypeError for anything that is not a TensorFlow type (TF: "Cannot convert the argument
`type_value`: 'bogus' to a TensorFlow DType."; likewise for None, 3.5 and object())."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tfx as tf
from tfx.core import dtypes
from tfx.core.errors import DTypeError, InvalidArgumentError


def test_parameter_is_type_value() -> None:
    assert tf.as_dtype is tf.dtypes.as_dtype is dtypes.as_dtype
    assert list(inspect.signature(tf.as_dtype).parameters) == ["type_value"]
    assert tf.dtypes.as_dtype(type_value="float32") is tf.float32


@pytest.mark.parametrize("value, expected", [
    ("float32", "float32"), (1, "float32"), (np.int32, "int32"),
    (np.dtype("float64"), "float64"), (bool, "bool"), ("string", "string"),
])
def test_converts(value, expected) -> None:
    assert tf.as_dtype(value).name == expected


def test_enum_names_are_a_tfx_extension() -> None:
    # TensorFlow raises TypeError for "DT_INT64"; tfx reads GraphDef enum names too.
    assert dtypes.as_dtype("DT_INT64") is tf.int64


@pytest.mark.parametrize("value", ["bogus", None, 3.5, object(), 999, [1, 2]])
def test_unconvertible_raises_type_error_and_invalid_argument(value) -> None:
    with pytest.raises(TypeError, match="cannot convert .* to a DType") as info:
        dtypes.as_dtype(value)
    assert isinstance(info.value, DTypeError)
    assert isinstance(info.value, InvalidArgumentError)
