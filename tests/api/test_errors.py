"""tf.errors: TensorFlow 1.x's error classes and status codes, and that the errors tfx
raises are the ones TensorFlow code catches by those names.

The codes and behaviours were checked against TensorFlow 2.21 (tf.compat.v1.errors).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tfx as tf

TF1_ERRORS = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "tf1_namespaces.json").read_text()
)["errors"]

# TensorFlow's error_codes.proto, by name.
TF_CODES = {
    "OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4,
    "NOT_FOUND": 5, "ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8,
    "FAILED_PRECONDITION": 9, "ABORTED": 10, "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12,
    "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15, "UNAUTHENTICATED": 16,
}


def test_namespace_holds_tensorflow_names_only():
    public = sorted(n for n in dir(tf.errors) if not n.startswith("_"))
    assert public == sorted(tf.errors.__all__)
    assert set(public) <= set(TF1_ERRORS)
    assert set(TF1_ERRORS) - set(public) == set()


@pytest.mark.parametrize("name, code", sorted(TF_CODES.items()))
def test_status_codes(name, code):
    assert getattr(tf.errors, name) == code


def test_classes_and_their_codes():
    for code in range(1, 17):
        cls = tf.errors.exception_type_from_error_code(code)
        assert issubclass(cls, tf.errors.OpError)
        assert tf.errors.error_code_from_exception_type(cls) == code
        assert cls(None, None, "m").error_code == code
    assert tf.errors.exception_type_from_error_code(3) is tf.errors.InvalidArgumentError
    assert tf.errors.OpError is tf.OpError
    for bad in (0, 99):
        with pytest.raises(KeyError):
            tf.errors.exception_type_from_error_code(bad)
    with pytest.warns(UserWarning, match="Unknown class exception"):
        assert tf.errors.error_code_from_exception_type(ValueError) is None


def test_tensorflow_constructor_form():
    err = tf.errors.InvalidArgumentError(None, None, "boom")
    assert (err.message, str(err), err.error_code, err.op, err.node_def) == (
        "boom", "boom", 3, None, None)
    op_error = tf.errors.OpError(None, None, "m", 5)
    assert (op_error.error_code, op_error.message) == (5, "m")
    # tfx's own form: the message alone
    assert tf.errors.NotFoundError("gone").message == "gone"
    assert tf.errors.NotFoundError("gone").error_code == 5


def test_runtime_errors_caught_by_tensorflow_names():
    queue = tf.FIFOQueue(2, tf.float32)
    close = queue.close()
    dequeue = queue.dequeue()
    x = tf.placeholder(tf.float32, [2])
    checked = tf.check_numerics(x, "bad x")
    with tf.Session() as sess:
        sess.run(close)
        with pytest.raises(tf.errors.OutOfRangeError) as caught:
            sess.run(dequeue)
        assert caught.value.error_code == tf.errors.OUT_OF_RANGE
        with pytest.raises(tf.errors.OpError):
            sess.run(checked, {x: np.array([1.0, np.nan], np.float32)})
