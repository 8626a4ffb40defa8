"""SdcaOptimizer calls whose results do not depend on the (random) example order: each
example has sparse features of its own, or the batch has one example. `CASES[name]` is
the keyword arguments of tf.raw_ops.SdcaOptimizer (numpy values); `ERRORS[name]` calls
TensorFlow rejects."""

import numpy as np


def _i64(values):
    return np.array(values, np.int64)


def _f32(values):
    return np.array(values, np.float32)


_LABELS = {"squared_loss": [1.5, -0.5, 2.0], "poisson_loss": [1.5, 0.0, 2.0]}


def _disjoint(loss, l1=0.0, l2=1.0, parts=1, values=True, state=None):
    return dict(
        sparse_example_indices=[_i64([0, 0, 1, 2, 2])],
        sparse_feature_indices=[_i64([0, 1, 2, 3, 4])],
        sparse_feature_values=[_f32([1.0, 0.5, -2.0, 0.25, 3.0])] if values else [],
        dense_features=[], example_weights=_f32([1.0, 2.0, 0.5]),
        example_labels=_f32(_LABELS.get(loss, [1.0, 0.0, 1.0])),
        sparse_indices=[_i64([0, 1, 2, 3, 4])], sparse_weights=[_f32([0.1, -0.2, 0.3, 0.0, 0.5])],
        dense_weights=[], example_state_data=_f32(np.zeros((3, 4)) if state is None else state),
        loss_type=loss, l1=l1, l2=l2, num_loss_partitions=parts, num_inner_iterations=1,
        adaptative=False)


def _one_example(loss, label):
    return dict(
        sparse_example_indices=[_i64([0, 0])], sparse_feature_indices=[_i64([1, 3])],
        sparse_feature_values=[], dense_features=[_f32([[0.5, -1.0, 2.0]])],
        example_weights=_f32([1.5]), example_labels=_f32([label]),
        sparse_indices=[_i64([1, 3, 5])], sparse_weights=[_f32([0.2, -0.4, 0.9])],
        dense_weights=[_f32([[0.1], [0.2], [-0.3]])], example_state_data=_f32([[0.1, 0, 0, 1.5]]),
        loss_type=loss, l1=0.05, l2=0.5, num_loss_partitions=3, num_inner_iterations=1,
        adaptative=False)


LOSSES = ["squared_loss", "hinge_loss", "smooth_hinge_loss", "logistic_loss", "poisson_loss"]
_STATE = [[0.2, 0, 0, 1], [-0.1, 0, 0, 2], [0.05, 0, 0, 0.5]]
CASES = {}
for _loss in LOSSES:
    CASES[_loss] = _disjoint(_loss)
    CASES[f"{_loss}_l1_partitions"] = _disjoint(
        _loss, l1=0.3, l2=2.0, parts=2, values=False,
        state=None if _loss == "poisson_loss" else _STATE)
for _loss, _label in [("squared_loss", 2.0), ("logistic_loss", 0.0), ("hinge_loss", 1.0),
                      ("smooth_hinge_loss", 0.0), ("poisson_loss", 3.0)]:
    CASES[f"dense_{_loss}"] = _one_example(_loss, _label)

ERRORS = {
    "label": dict(CASES["logistic_loss"], example_labels=_f32([1.0, 0.5, 0.0])),
    "poisson_label": dict(CASES["poisson_loss"], example_labels=_f32([1.0, -2.0, 0.0])),
    "state_shape": dict(CASES["squared_loss"], example_state_data=_f32(np.zeros((3, 3)))),
    "unknown_feature": dict(CASES["squared_loss"],
                            sparse_feature_indices=[_i64([0, 1, 2, 3, 9])]),
    "duplicate": dict(CASES["squared_loss"], sparse_feature_indices=[_i64([0, 0, 2, 3, 4])]),
    "dense_too_wide": dict(CASES["dense_squared_loss"],
                           dense_features=[_f32([[0.5, -1.0, 2.0, 4.0]])]),
    "labels_count": dict(CASES["squared_loss"], example_labels=_f32([1.0, 2.0])),
}
