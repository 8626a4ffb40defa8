"""tf.train.sdca_optimizer (SdcaOptimizer, SdcaOptimizerV2) against TensorFlow 2.21.

tests/data/sdca_optimizer/cases.py holds calls whose results do not depend on the
random example order (examples with features of their own, or one example), for every
loss with and without L1, several loss partitions and dense groups; expected.json holds
TensorFlow's outputs and errors for them (generate.py beside it).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api.raw_ops_api import raw_ops
from tfx.core.errors import InvalidArgumentError

DATA = Path(__file__).resolve().parents[1] / "data" / "sdca_optimizer"
EXPECTED = json.loads((DATA / "expected.json").read_text())
_spec = importlib.util.spec_from_file_location("sdca_optimizer_cases", DATA / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


def _run(kwargs: dict, op=None) -> list:
    with tf.Graph().as_default():
        if op is None:
            out = tf.train.sdca_optimizer(**kwargs)
        else:
            out = op(**kwargs)
        with tf.Session() as sess:
            state, sparse, dense = sess.run(
                [out.out_example_state_data, out.out_delta_sparse_weights,
                 out.out_delta_dense_weights])
    return [state, sparse, dense]


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_values_equal_tensorflows(name):
    state, sparse, dense = _run(cases.CASES[name])
    want_state, want_sparse, want_dense = EXPECTED["values"][name]
    np.testing.assert_array_equal(state, np.array(want_state, np.float32))
    assert [s.tolist() for s in sparse] == [np.float32(w).tolist() for w in want_sparse]
    assert [d.tolist() for d in dense] == [np.float32(w).tolist() for w in want_dense]


@pytest.mark.parametrize("name", sorted(cases.ERRORS))
def test_errors_are_tensorflows(name):
    kind, message = EXPECTED["errors"][name]
    assert kind == "InvalidArgumentError"
    with pytest.raises(InvalidArgumentError) as info:
        _run(cases.ERRORS[name])
    assert message in str(info.value)


def test_structure_shapes_and_v2():
    kwargs = cases.CASES["dense_logistic_loss"]
    with tf.Graph().as_default():
        out = tf.train.sdca_optimizer(**kwargs)
        assert out._fields == ("out_example_state_data", "out_delta_sparse_weights",
                               "out_delta_dense_weights")
        assert out.out_example_state_data.shape.as_list() == [1, 4]
        assert [t.shape.as_list() for t in out.out_delta_dense_weights] == [[3, 1]]
        assert out.out_example_state_data.op.get_attr("adaptative") is False
    v2 = dict(kwargs)
    v2["adaptive"] = v2.pop("adaptative")
    with tf.Graph().as_default():
        got = raw_ops.SdcaOptimizerV2(**v2)
        with tf.Session() as sess:
            state = sess.run(got[0])
    want = EXPECTED["values"]["dense_logistic_loss"][0]
    np.testing.assert_array_equal(state, np.array(want, np.float32))
    with tf.Graph().as_default(), pytest.raises(InvalidArgumentError, match="not allowed"):
        tf.train.sdca_optimizer(**dict(kwargs, loss_type="absolute_loss"))
    with pytest.raises(InvalidArgumentError, match="Requires at least one feature to train"):
        _run(dict(kwargs, sparse_example_indices=[], sparse_feature_indices=[],
                  sparse_indices=[], sparse_weights=[], dense_features=[], dense_weights=[]))


def test_adaptive_sampling_trains_every_kind_of_batch():
    # TensorFlow's adaptive order is random; its result on one example is not
    kwargs = dict(cases.CASES["dense_squared_loss"], adaptative=True)
    want = EXPECTED["values"]["dense_squared_loss"][0]
    np.testing.assert_array_equal(_run(kwargs)[0], np.array(want, np.float32))
    state = _run(dict(cases.CASES["squared_loss"], adaptative=True))[0]
    assert state.shape == (3, 4) and np.isfinite(state).all()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(-2, 2, width=32), st.floats(-2, 2, width=32),
                          st.floats(0.25, 3, width=32), st.sampled_from([0.0, 1.0])),
                min_size=1, max_size=5),
       st.sampled_from(cases.LOSSES), st.sampled_from([0.0, 0.2]), st.integers(1, 3))
def test_disjoint_examples_train_as_one_example_batches(rows, loss, l1, parts):
    """Examples with features of their own update as if each were its own batch."""
    n = len(rows)
    feature, weight, example_weight, label = (np.array(c, np.float32) for c in zip(*rows))
    if loss == "poisson_loss":
        label = label * 2
    batch = dict(
        sparse_example_indices=[np.arange(n, dtype=np.int64)],
        sparse_feature_indices=[np.arange(n, dtype=np.int64)],
        sparse_feature_values=[feature], dense_features=[], example_weights=example_weight,
        example_labels=label, sparse_indices=[np.arange(n, dtype=np.int64)],
        sparse_weights=[weight], dense_weights=[],
        example_state_data=np.zeros((n, 4), np.float32), loss_type=loss, l1=l1, l2=1.0,
        num_loss_partitions=parts, num_inner_iterations=1, adaptative=False)
    state, (delta,), _ = _run(batch)
    for i in range(n):
        single = dict(batch, sparse_example_indices=[np.zeros(1, np.int64)],
                      sparse_feature_indices=[np.zeros(1, np.int64)],
                      sparse_feature_values=[feature[i:i + 1]],
                      example_weights=example_weight[i:i + 1], example_labels=label[i:i + 1],
                      sparse_indices=[np.zeros(1, np.int64)], sparse_weights=[weight[i:i + 1]],
                      example_state_data=np.zeros((1, 4), np.float32))
        one_state, (one_delta,), _ = _run(single)
        np.testing.assert_array_equal(state[i], one_state[0])
        assert delta[i] == one_delta[0]
