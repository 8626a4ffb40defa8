"""The behavior switches and assert_variables_initialized.

TensorFlow 2.21 (after `disable_v2_behavior()`) was checked for: the switches' defaults
(resource variables off, control flow v2 off), `assert_variables_initialized()` over a
float vector and an int scalar variable giving [1, 0] once initialized (one variable: the
bare rank, 1), FailedPreconditionError "Attempting to use uninitialized value v" before,
and None in a graph without variables.
"""

from __future__ import annotations

import pytest

import tfx as tf
from tfx.core.api import switches_api
from tfx.core.api.switches_api import assert_variables_initialized


def test_eager_and_v2_behavior_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="no eager execution"):
        switches_api.enable_eager_execution()
    with pytest.raises(ValueError, match="graph-mode behavior only"):
        switches_api.enable_v2_behavior()


def test_resource_variables_switch_round_trip():
    assert switches_api.resource_variables_enabled() is False
    try:
        switches_api.enable_resource_variables()
        assert switches_api.resource_variables_enabled() is True
    finally:
        switches_api.disable_resource_variables()
    assert switches_api.resource_variables_enabled() is False


def test_resource_variables_switch_changes_what_variables_are_built():
    # TensorFlow 2.21: after enable_resource_variables, tf.Variable and get_variable build
    # VarHandleOp resource variables; use_resource=False still builds a reference one.
    with tf.Graph().as_default():
        try:
            tf.enable_resource_variables()
            made = [tf.Variable(1.0), tf.get_variable("g", [2]),
                    tf.Variable(1.0, use_resource=False)]
        finally:
            tf.disable_resource_variables()
        after = tf.Variable(1.0)
        assert [v.op.type for v in made] == ["VarHandleOp", "VarHandleOp", "VariableV2"]
        assert after.op.type == "VariableV2"


def test_control_flow_v2_and_tensorshape_switches():
    switches_api.disable_control_flow_v2()
    assert switches_api.control_flow_v2_enabled() is False
    with pytest.raises(ValueError, match="v1 control flow only"):
        switches_api.enable_control_flow_v2()
    switches_api.enable_v2_tensorshape()
    assert type(tf.TensorShape([2, 3])[0]) is int  # v2 tensorshape: ints
    with pytest.raises(ValueError, match="no Dimension objects"):
        switches_api.disable_v2_tensorshape()


def test_tensor_equality_switch_is_recorded():
    assert switches_api.tensor_equality_enabled() is False
    try:
        switches_api.enable_tensor_equality()
        assert switches_api.tensor_equality_enabled() is True
    finally:
        switches_api.disable_tensor_equality()
    assert switches_api.tensor_equality_enabled() is False


def test_assert_variables_initialized_fails_until_initialized():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        w = tf.Variable(3, name="w")
        check_all = assert_variables_initialized()
        check_v = assert_variables_initialized([v])
        assert check_all.shape.as_list() == [2] and check_v.shape.as_list() == []
        with tf.Session() as sess:
            for check in (check_all, check_v):
                with pytest.raises(tf.errors.FailedPreconditionError,
                                   match="Attempting to use uninitialized value v"):
                    sess.run(check)
            sess.run(w.initializer)
            with pytest.raises(tf.errors.FailedPreconditionError, match="value v"):
                sess.run(check_all)
            sess.run(tf.global_variables_initializer())
            assert sess.run(check_all).tolist() == [1, 0]
            assert sess.run(check_v) == 1


def test_assert_variables_initialized_on_a_resource_variable():
    with tf.Graph().as_default():
        r = tf.get_variable("r", [3, 2], use_resource=True)
        check = assert_variables_initialized([r])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="value r"):
                sess.run(check)
            sess.run(r.initializer)
            assert sess.run(check) == 2


def test_assert_variables_initialized_without_variables_is_none():
    with tf.Graph().as_default():
        assert assert_variables_initialized() is None
        assert assert_variables_initialized([]) is None
