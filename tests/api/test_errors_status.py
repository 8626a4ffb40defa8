"""tf.errors.raise_exception_on_not_ok_status: the guard TensorFlow 2.21 puts around C API
calls, which raises the error class of the status code its block leaves set."""

from __future__ import annotations

import pytest

import tfx as tf


def test_ok_status_lets_the_block_end_as_it_would():
    with tf.errors.raise_exception_on_not_ok_status() as status:
        assert (status.code, status.message) == (tf.errors.OK, "")
    with pytest.raises(ValueError, match="inner"):
        with tf.errors.raise_exception_on_not_ok_status():
            raise ValueError("inner")


@pytest.mark.parametrize("code", range(1, 17))
def test_a_set_status_raises_the_class_of_its_code(code):
    with pytest.raises(tf.errors.OpError) as caught:
        with tf.errors.raise_exception_on_not_ok_status() as status:
            status.set(code, "bad thing")
    err = caught.value
    assert type(err) is tf.errors.exception_type_from_error_code(code)
    assert (err.message, err.error_code, err.op, err.node_def) == ("bad thing", code, None, None)


def test_the_status_error_wins_over_the_blocks_exception():
    guard = tf.errors.raise_exception_on_not_ok_status()
    with pytest.raises(tf.errors.NotFoundError, match="nf") as caught:
        with guard as status:
            status.set(tf.errors.NOT_FOUND, "nf")
            raise ValueError("inner")
    assert isinstance(caught.value.__context__, ValueError)
    assert not hasattr(guard, "status")  # dropped on exit, as TensorFlow drops its TF_Status
    with pytest.raises(KeyError):
        with tf.errors.raise_exception_on_not_ok_status() as status:
            status.set(99, "no such code")
