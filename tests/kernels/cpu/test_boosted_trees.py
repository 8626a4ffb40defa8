"""Boosted trees kernels against TensorFlow's values.

TensorFlow 2.21 keeps the BoostedTrees* OpDefs but registers no kernel for any of them
(tests/data/boosted_trees/tf_run_error.json records its NotFound message), so the values
here are the ones TensorFlow's own kernel tests (boosted_trees training_ops_test.py,
stats_ops_test.py) asserted for the kernels TensorFlow shipped: the same inputs, the
same expected outputs. The schemas are compared with TF 2.21's OpDefs.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core import errors
from tfx.core.op_registry import NO_DEFAULT, get_op
from tfx.protos import boosted_trees_pb2 as bt

DATA = Path(__file__).resolve().parents[2] / "data" / "boosted_trees"
OP_DEFS = json.loads((DATA / "op_defs.json").read_text())
r = tf.raw_ops

# TensorFlow's stats_ops_test inputs: [feature, max_splits, num_buckets, 2].
STATS = np.array([
    [[[0., 0.], [.08, .09], [0., 0.], [0., 0.]],
     [[0., 0.], [.15, .36], [.06, .07], [.1, .2]],
     [[0., 0.], [-.33, .58], [0., 0.], [.3, .4]]] + [[[0., 0.]] * 4] * 4,
    [[[0., 0.], [0., 0.], [.08, .09], [0., 0.]],
     [[0., 0.], [.3, .5], [-.05, .06], [.06, .07]],
     [[.1, .1], [.2, .3], [-.4, .5], [.07, .08]]] + [[[0., 0.]] * 4] * 4,
], np.float32)


def _with_missing_bucket(summary: np.ndarray) -> np.ndarray:
    zeros = np.zeros(summary.shape[:2] + (1,) + summary.shape[3:], np.float32)
    return np.concatenate([summary, zeros], axis=2)


def _run(build):
    graph = tf.Graph()
    with graph.as_default():
        fetches = build()
        with tf.compat.v1.Session() as sess:
            return sess.run(fetches)


def _arg(a) -> list:
    fixed = (tf.as_dtype(a.dtype).as_datatype_enum if a.dtype is not None else None)
    from tfx.protos import types_pb2
    return [a.name, types_pb2.DataType.Name(fixed) if fixed else a.type_attr, a.number_attr,
            a.type_list_attr]


@pytest.mark.parametrize("name", sorted(OP_DEFS))
def test_schema_is_tensorflows_op_def(name):
    theirs, schema = OP_DEFS[name], get_op(name)
    assert [_arg(a) for a in schema.inputs] == theirs["inputs"]
    assert [_arg(a) for a in schema.outputs] == theirs["outputs"]
    ours = [[a.name, a.type, "<required>" if a.default is NO_DEFAULT else a.default,
             None if a.allowed is None else sorted(a.allowed), a.minimum]
            for a in schema.attrs.values()]
    expected = [[n, t, d, None if allowed is None else sorted(allowed), minimum]
                for n, t, d, allowed, minimum in theirs["attrs"]]
    assert ours == expected
    assert schema.is_stateful == theirs["is_stateful"]


def test_tensorflow_2_21_has_no_kernels():
    kind, message = json.loads((DATA / "tf_run_error.json").read_text())
    assert kind == "InvalidArgumentError" and "No OpKernel was registered" in message


def test_best_gains_per_feature_is_tensorflows():
    out = _run(lambda: r.BoostedTreesCalculateBestGainsPerFeature(
        node_id_range=[1, 3], stats_summary_list=list(STATS), l1=0.0, l2=0.0,
        tree_complexity=0.0, min_node_weight=0.0, max_splits=7))
    nodes, gains, thresholds, lefts, rights = out
    np.testing.assert_array_equal(nodes, [[1, 2], [1, 2]])
    np.testing.assert_allclose(gains, [[0.004775, 0.41184], [0.02823, 0.41184]], rtol=1e-4)
    np.testing.assert_array_equal(thresholds, [[1, 1], [1, 1]])
    np.testing.assert_allclose(lefts, [[[-.416667], [.568966]], [[-.6], [-.75]]], rtol=1e-5)
    np.testing.assert_allclose(rights, [[[-.592593], [-.75]], [[-.076923], [.568966]]],
                               rtol=1e-5)


def test_best_feature_split_v2_is_tensorflows():
    summaries = [_with_missing_bucket(f[:, None]) for f in STATS]
    out = _run(lambda: r.BoostedTreesCalculateBestFeatureSplitV2(
        node_id_range=[1, 3], stats_summaries_list=summaries,
        split_types=["inequality", "inequality"], candidate_feature_ids=[9, 12], l1=0.0,
        l2=0.0, tree_complexity=0.0, min_node_weight=0.0, logits_dimension=1))
    nodes, gains, features, dims, thresholds, lefts, rights, types = out
    np.testing.assert_array_equal(nodes, [1, 2])
    np.testing.assert_allclose(gains, [0.02823, 0.41184], rtol=1e-4)
    np.testing.assert_array_equal(features, [12, 9])
    np.testing.assert_array_equal(dims, [0, 0])
    np.testing.assert_array_equal(thresholds, [1, 1])
    np.testing.assert_allclose(lefts, [[-.6], [.568966]], rtol=1e-5)
    np.testing.assert_allclose(rights, [[-.076923], [-.75]], rtol=1e-5)
    assert list(types) == [b"INEQUALITY_DEFAULT_LEFT"] * 2


@pytest.mark.parametrize("missing", [False, True])
def test_multi_dimension_feature_split_is_tensorflows(missing):
    # Without the appended empty bucket, TF's last bucket is the missing values' one.
    summary = np.moveaxis(STATS, 0, 1)
    summary = summary if missing else _with_missing_bucket(summary)
    out = _run(lambda: r.BoostedTreesCalculateBestFeatureSplitV2(
        node_id_range=[1, 3], stats_summaries_list=[summary], split_types=["inequality"],
        candidate_feature_ids=[4], l1=0.0, l2=0.0, tree_complexity=0.0,
        min_node_weight=0.0, logits_dimension=1))
    nodes, gains, features, dims, thresholds, lefts, rights, types = out
    np.testing.assert_array_equal(nodes, [1, 2])
    np.testing.assert_array_equal(features, [4, 4])
    np.testing.assert_array_equal(thresholds, [1, 1])
    if missing:
        np.testing.assert_allclose(gains, [0.116495, 0.60429], rtol=1e-4)
        np.testing.assert_array_equal(dims, [1, 1])
        np.testing.assert_allclose(lefts, [[-0.631579], [-0.770833]], rtol=1e-5)
        np.testing.assert_allclose(rights, [[0.833333], [0.8]], rtol=1e-5)
    else:
        np.testing.assert_allclose(gains, [0.02823, 0.41184], rtol=1e-4)
        np.testing.assert_array_equal(dims, [1, 0])
        np.testing.assert_allclose(lefts, [[-.6], [.568966]], rtol=1e-5)
        np.testing.assert_allclose(rights, [[-.076923], [-.75]], rtol=1e-5)
    assert list(types) == [b"INEQUALITY_DEFAULT_LEFT"] * 2


def test_equality_split_is_tensorflows():
    summary = np.moveaxis(STATS, 0, 1)
    for op in ("v1", "v2"):
        if op == "v1":
            out = _run(lambda: r.BoostedTreesCalculateBestFeatureSplit(
                node_id_range=[1, 3], stats_summary=summary, l1=0.0, l2=0.0,
                tree_complexity=0.0, min_node_weight=0.0, logits_dimension=1,
                split_type="equality"))
            nodes, gains, dims, thresholds, lefts, rights, types = out
        else:
            out = _run(lambda: r.BoostedTreesCalculateBestFeatureSplitV2(
                node_id_range=[1, 3], stats_summaries_list=[summary],
                split_types=["equality"], candidate_feature_ids=[4], l1=0.0, l2=0.0,
                tree_complexity=0.0, min_node_weight=0.0, logits_dimension=1))
            nodes, gains, _, dims, thresholds, lefts, rights, types = out
        np.testing.assert_array_equal(nodes, [1, 2])
        np.testing.assert_allclose(gains, [0.116495, 0.60429], rtol=1e-4)
        np.testing.assert_array_equal(dims, [1, 1])
        np.testing.assert_array_equal(thresholds, [2, 2])
        np.testing.assert_allclose(lefts, [[0.833333], [.8]], rtol=1e-5)
        np.testing.assert_allclose(rights, [[-0.631579], [-0.770833]], rtol=1e-5)
        assert list(types) == [b"EQUALITY_DEFAULT_RIGHT"] * 2


def test_invalid_split_type_is_aborted():
    summaries = [_with_missing_bucket(f[:, None]) for f in STATS]
    with pytest.raises(errors.AbortedError, match="Incorrect split type"):
        _run(lambda: r.BoostedTreesCalculateBestFeatureSplitV2(
            node_id_range=[1, 3], stats_summaries_list=summaries,
            split_types=["INVALID", "INVALID"], candidate_feature_ids=[9, 12], l1=0.0,
            l2=0.0, tree_complexity=0.0, min_node_weight=0.0, logits_dimension=1))


def _grow_empty(v2: bool, split_types=(b"INEQUALITY_DEFAULT_LEFT", b"INEQUALITY_DEFAULT_RIGHT"),
                logits: int = 1):
    left = [[-4.375, 5.11], [-4.89, 6.31]] if logits == 2 else [[-4.375], [-4.89]]
    right = [[7.143, 2.98], [5.3, -1.21]] if logits == 2 else [[7.143], [5.3]]

    def build():
        h = r.BoostedTreesEnsembleResourceHandleOp(shared_name="ensemble")
        create = r.BoostedTreesCreateEnsemble(tree_ensemble_handle=h,
                                              stamp_token=np.int64(0),
                                              tree_ensemble_serialized=b"")
        with tf.control_dependencies([create]):
            if v2:
                grow = r.BoostedTreesUpdateEnsembleV2(
                    tree_ensemble_handle=h, feature_ids=[[0], [6]], dimension_ids=[[0], [1]],
                    node_ids=[[0], [0]], gains=list(np.array([[7.62], [7.65]], np.float32)),
                    thresholds=[[52], [7]],
                    left_node_contribs=[np.array([left[0]], np.float32),
                                        np.array([left[1]], np.float32)],
                    right_node_contribs=[np.array([right[0]], np.float32),
                                         np.array([right[1]], np.float32)],
                    split_types=[[split_types[0]], [split_types[1]]], max_depth=1,
                    learning_rate=np.float32(0.1), pruning_mode=0, logits_dimension=logits)
            else:
                grow = r.BoostedTreesUpdateEnsemble(
                    tree_ensemble_handle=h, feature_ids=[0, 2, 6],
                    node_ids=[[0], [0], [0]],
                    gains=list(np.array([[7.62], [0.63], [7.65]], np.float32)),
                    thresholds=[[52], [23], [7]],
                    left_node_contribs=list(np.array([[[-4.375]], [[-0.6]], [[-4.89]]],
                                                     np.float32)),
                    right_node_contribs=list(np.array([[[7.143]], [[0.24]], [[5.3]]],
                                                      np.float32)),
                    max_depth=1, learning_rate=np.float32(0.1), pruning_mode=0)
        with tf.control_dependencies([grow]):
            return r.BoostedTreesSerializeEnsemble(tree_ensemble_handle=h)
    stamp, serialized = _run(build)
    return int(stamp), bt.TreeEnsemble.FromString(bytes(serialized))


_GROWN = """
trees {{ nodes {{ {split} {{ feature_id: 6 {threshold} {dimension} left_id: 1 right_id: 2
                  {direction} }}
            metadata {{ gain: 7.65 {original} }} }}
        nodes {{ leaf {{ {left} }} }} nodes {{ leaf {{ {right} }} }} }}
trees {{ nodes {{ leaf {{ {empty} }} }} }}
tree_weights: 1.0 tree_weights: 1.0
tree_metadata {{ num_layers_grown: 1 is_finalized: true }} tree_metadata {{ }}
growing_metadata {{ num_trees_attempted: 1 num_layers_attempted: 1 last_layer_node_start: 0
                   last_layer_node_end: 1 }}
"""


def _rounded(message):
    """A copy with every float field rounded to 6 significant digits."""
    out = type(message)()
    out.CopyFrom(message)
    for field, value in out.ListFields():
        if field.type == field.TYPE_FLOAT:
            if field.is_repeated:
                value[:] = [float(f"{v:.6g}") for v in value]
            else:
                setattr(out, field.name, float(f"{value:.6g}"))
        elif field.type == field.TYPE_MESSAGE:
            for item in value if field.is_repeated else [value]:
                item.CopyFrom(_rounded(item))
    return out


def _same(ours: bt.TreeEnsemble, theirs: bt.TreeEnsemble) -> bool:
    """Equal as TensorFlow's assertProtoEquals compares: floats to 6 significant digits."""
    return _rounded(ours) == _rounded(theirs)


def _expected(**fields) -> bt.TreeEnsemble:
    values = dict(split="bucketized_split", threshold="threshold: 7", dimension="",
                  direction="", original="", left="scalar: -0.489", right="scalar: 0.53",
                  empty="")
    values.update(fields)
    return text_format.Parse(_GROWN.format(**values), bt.TreeEnsemble())


def test_update_ensemble_grows_an_empty_ensemble_as_tensorflow():
    stamp, ensemble = _grow_empty(v2=False)
    assert stamp == 1
    assert _same(ensemble, _expected())


@pytest.mark.parametrize("kind", ["inequality", "equality", "multiclass"])
def test_update_ensemble_v2_grows_an_empty_ensemble_as_tensorflow(kind):
    if kind == "equality":
        stamp, ensemble = _grow_empty(True, (b"INEQUALITY_DEFAULT_LEFT",
                                             b"EQUALITY_DEFAULT_RIGHT"))
        want = _expected(split="categorical_split", threshold="value: 7",
                         dimension="dimension_id: 1")
    elif kind == "multiclass":
        stamp, ensemble = _grow_empty(True, logits=2)
        want = _expected(dimension="dimension_id: 1", direction="default_direction: "
                         "DEFAULT_RIGHT",
                         original="original_leaf { vector { value: 0 value: 0 } }",
                         left="vector { value: -0.489 value: 0.631 }",
                         right="vector { value: 0.53 value: -0.121 }",
                         empty="vector { value: 0 value: 0 }")
    else:
        stamp, ensemble = _grow_empty(True)
        want = _expected(dimension="dimension_id: 1",
                         direction="default_direction: DEFAULT_RIGHT")
    assert stamp == 1
    assert _same(ensemble, want)


def _centered_ensemble(stamp: int, gradient: float, hessian: float, l2: float):
    """An empty ensemble (shared_name "ensemble") created at `stamp`, then its bias centered
    once by one logit's mean gradient and hessian: (its handle, the CenterBias op)."""
    h = r.BoostedTreesEnsembleResourceHandleOp(shared_name="ensemble")
    create = r.BoostedTreesCreateEnsemble(tree_ensemble_handle=h, stamp_token=np.int64(stamp),
                                          tree_ensemble_serialized=b"")
    with tf.control_dependencies([create]):
        center = r.BoostedTreesCenterBias(
            tree_ensemble_handle=h, mean_gradients=np.array([[gradient]], np.float32),
            mean_hessians=np.array([[hessian]], np.float32), l1=np.float32(0),
            l2=np.float32(l2))
    return h, center


def test_center_bias_on_an_empty_ensemble_is_tensorflows():
    def build():
        h, center = _centered_ensemble(stamp=0, gradient=5.0, hessian=24.0, l2=1.0)
        with tf.control_dependencies([center]):
            return center, r.BoostedTreesSerializeEnsemble(tree_ensemble_handle=h)
    moving, (stamp, serialized) = _run(build)
    assert bool(moving) and int(stamp) == 1
    want = text_format.Parse("trees { nodes { leaf { scalar: -0.2 } } } tree_weights: 1.0 "
                             "tree_metadata { }", bt.TreeEnsemble())
    assert _same(bt.TreeEnsemble.FromString(bytes(serialized)), want)


def test_uncreated_ensemble_is_not_found_and_bad_bytes_do_not_parse():
    with pytest.raises(errors.NotFoundError, match="BoostedTreesEnsembleResource"):
        _run(lambda: r.BoostedTreesPredict(
            tree_ensemble_handle=r.BoostedTreesEnsembleResourceHandleOp(shared_name="none"),
            bucketized_features=[[0]], logits_dimension=1))
    with pytest.raises(errors.InvalidArgumentError, match="Unable to parse tree ensemble"):
        _run(lambda: r.BoostedTreesCreateEnsemble(
            tree_ensemble_handle=r.BoostedTreesEnsembleResourceHandleOp(shared_name="bad"),
            stamp_token=np.int64(0), tree_ensemble_serialized=b"\xff\xff"))


def test_bad_node_id_range_is_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError, match="shape=\\[2\\]"):
        _run(lambda: r.BoostedTreesCalculateBestGainsPerFeature(
            node_id_range=[1, 2, 3], stats_summary_list=list(STATS), l1=0.0, l2=0.0,
            tree_complexity=0.0, min_node_weight=0.0, max_splits=7))


def test_bucketize_takes_the_first_boundary_not_below_clamped_to_the_last():
    out = _run(lambda: r.BoostedTreesBucketize(
        float_values=[np.array([-1., 2., 3., 4., 9.], np.float32),
                      np.array([1., 1.], np.float32)],
        bucket_boundaries=[np.array([2., 4., 6.], np.float32), np.zeros(0, np.float32)]))
    np.testing.assert_array_equal(out[0], [0, 0, 1, 1, 2])
    np.testing.assert_array_equal(out[1], [0, 0])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3),
                          st.floats(-4, 4, width=32), st.floats(0, 4, width=32)),
                min_size=1, max_size=12))
def test_make_stats_summary_sums_as_numpy(rows):
    nodes = np.array([n for n, _, _, _ in rows], np.int32)
    buckets = np.array([b for _, b, _, _ in rows], np.int32)
    grads = np.array([[g] for _, _, g, _ in rows], np.float32)
    hess = np.array([[h] for _, _, _, h in rows], np.float32)
    out = _run(lambda: r.BoostedTreesMakeStatsSummary(
        node_ids=nodes, gradients=grads, hessians=hess, bucketized_features_list=[buckets],
        max_splits=3, num_buckets=4))
    want = np.zeros((1, 3, 4, 2))
    for i in range(len(rows)):
        want[0, nodes[i], buckets[i]] += (float(grads[i, 0]), float(hess[i, 0]))
    np.testing.assert_array_equal(out, want.astype(np.float32))


def _sparse(summary: np.ndarray) -> tuple:
    where = np.nonzero(summary)
    return (np.stack(where, 1).astype(np.int32), summary[where].astype(np.float32),
            np.array(summary.shape, np.int32))


@pytest.mark.parametrize("case", ["dense", "sparse"])
def test_sparse_best_feature_split_is_tensorflows(case):
    stats = STATS.copy()
    if case == "dense":
        # TF's dense data with node 0 emptied and an empty missing bucket: the dense
        # kernels' answer.
        stats[0, 0, 1] = stats[1, 0, 2] = 0
        summary = _with_missing_bucket(np.moveaxis(stats, 0, 1))
    else:
        stats[0, 0, 1] = stats[1, 0, 2] = 0
        summary = np.moveaxis(stats, 0, 1)  # the last bucket holds missing values
    indices, values, shape = _sparse(summary)
    out = _run(lambda: r.BoostedTreesSparseCalculateBestFeatureSplit(
        node_id_range=[1, 3], stats_summary_indices=indices, stats_summary_values=values,
        stats_summary_shape=shape, l1=0.0, l2=0.0, tree_complexity=0.0, min_node_weight=0.0,
        logits_dimension=1))
    nodes, gains, dims, thresholds, lefts, rights, types = out
    np.testing.assert_array_equal(nodes, [1, 2])
    if case == "dense":
        np.testing.assert_allclose(gains, [0.02823, 0.41184], rtol=1e-4)
        np.testing.assert_allclose(lefts[0], [-0.6], rtol=1e-5)
        np.testing.assert_allclose(rights[0], [-0.076923], rtol=1e-5)
    else:
        np.testing.assert_allclose(gains, [0.116495, 0.60429], rtol=1e-4)
        np.testing.assert_array_equal(thresholds, [1, 1])
        np.testing.assert_array_equal(dims, [1, 1])
        np.testing.assert_allclose(lefts, [[-0.631579], [-0.770833]], rtol=1e-5)
        np.testing.assert_allclose(rights, [[0.833333], [0.8]], rtol=1e-5)
        assert list(types) == [b"INEQUALITY_DEFAULT_LEFT"] * 2


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_sparse_aggregate_stats_densifies_to_the_dense_reference(data):
    # TensorFlow's own test compares with this reference: present entries in their
    # bucket, absent (example, dimension) pairs in the missing bucket.
    batch = data.draw(st.integers(1, 6))
    dims = data.draw(st.integers(1, 3))
    present = sorted(data.draw(st.sets(st.tuples(st.integers(0, batch - 1),
                                                 st.integers(0, dims - 1)))))
    buckets = [data.draw(st.integers(0, 2)) for _ in present]
    nodes = np.array(data.draw(st.lists(st.integers(0, 2), min_size=batch,
                                        max_size=batch)), np.int32)
    grads = np.array(data.draw(st.lists(st.floats(-2, 2, width=32), min_size=batch,
                                        max_size=batch)), np.float32)[:, None]
    hess = np.abs(grads) + np.float32(0.5)
    out = _run(lambda: r.BoostedTreesSparseAggregateStats(
        node_ids=nodes, gradients=grads, hessians=hess,
        feature_indices=np.array(present, np.int32).reshape(-1, 2),
        feature_values=np.array(buckets, np.int32), feature_shape=[batch, dims],
        max_splits=3, num_buckets=3))
    indices, values, shape = out
    np.testing.assert_array_equal(shape, [3, dims, 4, 2])
    dense = np.zeros(shape)
    dense[tuple(np.asarray(indices).T)] = values
    want = np.zeros((3, dims, 4, 2))
    seen = set(present)
    for (i, d), b in zip(present, buckets):
        want[nodes[i], d, b] += (grads[i, 0], hess[i, 0])
    for i in range(batch):
        for d in range(dims):
            if (i, d) not in seen:
                want[nodes[i], d, 3] += (grads[i, 0], hess[i, 0])
    np.testing.assert_allclose(dense, want, rtol=1e-6, atol=1e-6)


# TensorFlow's quantile_ops_test data: two features, example weights, eps 0.01.
FEATURE_0 = np.array([1.2, 12.1, 0.3, 0.5, 0.6, 2.2], np.float32)
FEATURE_1 = np.array([2.3, 1.2, 1.1, 2.6, 3.2, 0.8], np.float32)
WEIGHTS = np.array([10, 1, 1, 1, 1, 1], np.float32)


def test_quantile_buckets_are_tensorflows():
    def build():
        h = r.BoostedTreesQuantileStreamResourceHandleOp(shared_name="floats")
        create = r.BoostedTreesCreateQuantileStreamResource(
            quantile_stream_resource_handle=h, epsilon=np.float32(0.01),
            num_streams=np.int64(2), max_elements=1 << 16)
        summaries = r.BoostedTreesMakeQuantileSummaries(
            float_values=[FEATURE_0, FEATURE_1], example_weights=WEIGHTS,
            epsilon=np.float32(0.01))
        with tf.control_dependencies([create]):
            add = r.BoostedTreesQuantileStreamResourceAddSummaries(
                quantile_stream_resource_handle=h, summaries=summaries)
        with tf.control_dependencies([add]):
            flush = r.BoostedTreesQuantileStreamResourceFlush(
                quantile_stream_resource_handle=h, num_buckets=np.int64(3))
        with tf.control_dependencies([flush]):
            bounds = r.BoostedTreesQuantileStreamResourceGetBucketBoundaries(
                quantile_stream_resource_handle=h, num_features=2)
            buckets = r.BoostedTreesBucketize(float_values=[FEATURE_0, FEATURE_1],
                                              bucket_boundaries=bounds)
        return bounds, buckets
    bounds, buckets = _run(build)
    np.testing.assert_allclose(bounds[0], [0.3, 0.6, 1.2, 12.1])
    np.testing.assert_allclose(bounds[1], [0.8, 1.2, 2.3, 3.2])
    np.testing.assert_array_equal(buckets[0], [2, 3, 0, 1, 1, 3])
    np.testing.assert_array_equal(buckets[1], [2, 1, 1, 3, 3, 0])


def test_quantile_summaries_before_flush_and_after_deserialize():
    def build():
        h = r.BoostedTreesQuantileStreamResourceHandleOp(shared_name="q")
        before = r.IsBoostedTreesQuantileStreamResourceInitialized(
            quantile_stream_resource_handle=h)
        with tf.control_dependencies([before]):
            create = r.BoostedTreesCreateQuantileStreamResource(
                quantile_stream_resource_handle=h, epsilon=np.float32(0.01),
                num_streams=np.int64(1))
        with tf.control_dependencies([create]):
            after = r.IsBoostedTreesQuantileStreamResourceInitialized(
                quantile_stream_resource_handle=h)
            empty = r.BoostedTreesQuantileStreamResourceGetBucketBoundaries(
                quantile_stream_resource_handle=h, num_features=1)
            summary = r.BoostedTreesMakeQuantileSummaries(
                float_values=[FEATURE_0], example_weights=WEIGHTS, epsilon=np.float32(0.01))
        with tf.control_dependencies([after, empty[0]]):
            add = r.BoostedTreesQuantileStreamResourceAddSummaries(
                quantile_stream_resource_handle=h, summaries=summary)
        with tf.control_dependencies([add]):
            flushed = r.BoostedTreesFlushQuantileSummaries(
                quantile_stream_resource_handle=h, num_features=1)
        with tf.control_dependencies(flushed):
            restore = r.BoostedTreesQuantileStreamResourceDeserialize(
                quantile_stream_resource_handle=h,
                bucket_boundaries=[np.array([1., 2.], np.float32)])
        with tf.control_dependencies([restore]):
            restored = r.BoostedTreesQuantileStreamResourceGetBucketBoundaries(
                quantile_stream_resource_handle=h, num_features=1)
        return before, after, empty, summary, flushed, restored
    before, after, empty, summary, flushed, restored = _run(build)
    assert not before and after
    assert np.asarray(empty[0]).shape == (0,)
    # Sorted values with their weights and [min, max] ranks (exact with 6 values).
    want = [[0.3, 1, 0, 1], [0.5, 1, 1, 2], [0.6, 1, 2, 3], [1.2, 10, 3, 13],
            [2.2, 1, 13, 14], [12.1, 1, 14, 15]]
    np.testing.assert_allclose(summary[0], want, rtol=1e-6)
    np.testing.assert_allclose(flushed[0], want, rtol=1e-6)
    np.testing.assert_array_equal(restored[0], [1., 2.])


def test_summary_merge_keeps_tensorflows_rank_bounds():
    from tfx.kernels.cpu.boosted_trees_quantile_stream import Entry, merge
    # The example TensorFlow's WeightedQuantilesSummary documents.
    one = [Entry(1, 3, 0, 3), Entry(4, 2, 3, 5)]
    two = [Entry(3, 1, 0, 1), Entry(4, 1, 1, 2)]
    assert [e.row() for e in merge(one, two)] == [[1, 3, 0, 3], [3, 1, 3, 4], [4, 3, 4, 7]]


def test_quantile_stream_errors():
    with pytest.raises(errors.InvalidArgumentError, match="epsilon value of zero"):
        _run(lambda: r.BoostedTreesCreateQuantileStreamResource(
            quantile_stream_resource_handle=r.BoostedTreesQuantileStreamResourceHandleOp(
                shared_name="z"), epsilon=np.float32(0), num_streams=np.int64(1)))
    with pytest.raises(errors.InvalidArgumentError, match="single value or same size"):
        _run(lambda: r.BoostedTreesMakeQuantileSummaries(
            float_values=[FEATURE_0], example_weights=WEIGHTS[:2], epsilon=np.float32(0.01)))
    with pytest.raises(errors.NotFoundError):
        _run(lambda: r.BoostedTreesQuantileStreamResourceFlush(
            quantile_stream_resource_handle=r.BoostedTreesQuantileStreamResourceHandleOp(
                shared_name="none"), num_buckets=np.int64(3)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=300), st.integers(2, 10))
def test_quantile_boundaries_stay_within_epsilon_of_the_ranks(values, num_buckets):
    # The stream's guarantee: every boundary's rank is within eps * n of a requested
    # quantile's, and the extremes are kept.
    from tfx.kernels.cpu.boosted_trees_quantile_stream import QuantileStream, generate_quantiles
    stream = QuantileStream(0.01, len(values) + 1)
    for v in values:
        stream.push_entry(v, 1.0)
    stream.finalize()
    got = generate_quantiles(stream.local, num_buckets)
    data = np.sort(np.array(values, np.float32))
    assert got[0] == data[0] and got[-1] == data[-1]
    n = len(values)
    for k, q in enumerate(got):
        lo, hi = np.searchsorted(data, q, "left"), np.searchsorted(data, q, "right")
        target = k * n / num_buckets
        assert lo - 0.01 * n - 1 <= target <= hi + 0.01 * n + 1


# TensorFlow's prediction_ops_test ensemble for a cache within one tree (scalar or two
# logits: a second value per leaf).
_SAME_TREE = """
trees {{
  nodes {{ bucketized_split {{ feature_id: 1 threshold: 15 left_id: 1 right_id: 2 }}
          metadata {{ gain: 7.62 original_leaf {{ {root} }} }} }}
  nodes {{ bucketized_split {{ feature_id: 1 threshold: 7 left_id: 3 right_id: 4 }}
          metadata {{ gain: 1.4 original_leaf {{ {n1} }} }} }}
  nodes {{ bucketized_split {{ feature_id: 0 threshold: 7 left_id: 5 right_id: 6 }}
          metadata {{ gain: 2.7 original_leaf {{ {n2} }} }} }}
  nodes {{ leaf {{ {n3} }} }} nodes {{ leaf {{ {n4} }} }} nodes {{ leaf {{ {n5} }} }}
  nodes {{ leaf {{ {n6} }} }}
}}
tree_weights: 0.1
tree_metadata {{ is_finalized: true num_layers_grown: 2 }}
growing_metadata {{ num_trees_attempted: 1 num_layers_attempted: 2 }}
"""
_VALUES = {"root": (-2, 1.2), "n1": (7.14, -3.2), "n2": (-4.375, 0.9), "n3": (1.14, 0.27),
           "n4": (8.79, -3.4), "n5": (-5.875, 1.61), "n6": (-2.075, 3.48)}


@pytest.mark.parametrize("dim", [1, 2])
def test_training_predict_from_a_cache_in_the_same_tree_is_tensorflows(dim):
    leaf = ("scalar: {}" if dim == 1 else "vector {{ value: {} value: {} }}")
    text = _SAME_TREE.format(**{k: leaf.format(*v[:dim]) for k, v in _VALUES.items()})
    serialized = text_format.Parse(text, bt.TreeEnsemble()).SerializeToString()

    def build(cached_nodes):
        def inner():
            h = r.BoostedTreesEnsembleResourceHandleOp(shared_name="ensemble")
            create = r.BoostedTreesCreateEnsemble(tree_ensemble_handle=h,
                                                  stamp_token=np.int64(0),
                                                  tree_ensemble_serialized=serialized)
            with tf.control_dependencies([create]):
                return r.BoostedTreesTrainingPredict(
                    tree_ensemble_handle=h, cached_tree_ids=[0, 0],
                    cached_node_ids=cached_nodes, bucketized_features=[[67, 5], [9, 17]],
                    logits_dimension=dim)
        return inner
    logits, trees, nodes = _run(build([1, 0]))
    np.testing.assert_array_equal(trees, [0, 0])
    np.testing.assert_array_equal(nodes, [4, 5])
    want = 0.1 * np.array([[1.65, -0.2], [-3.875, 0.41]])[:, :dim]
    np.testing.assert_allclose(logits, want, rtol=1e-5, atol=1e-6)
    # A cache at the leaves already reached changes nothing.
    logits, trees, nodes = _run(build([4, 5]))
    np.testing.assert_array_equal(nodes, [4, 5])
    np.testing.assert_allclose(logits, np.zeros((2, dim)), atol=1e-6)


def test_serialized_ensemble_is_tensorflows_wire_format():
    # TreeEnsemble{trees{nodes{leaf{scalar: -0.2}}} tree_weights: 1 tree_metadata{}}
    # in TF's field numbers: trees 1, nodes 1, leaf 1, scalar 3 (fixed32), tree_weights 2
    # (packed), tree_metadata 3 (empty but present).
    def build():
        h, center = _centered_ensemble(stamp=4, gradient=5.0, hessian=24.0, l2=1.0)
        with tf.control_dependencies([center]):
            return r.BoostedTreesSerializeEnsemble(tree_ensemble_handle=h)
    stamp, serialized = _run(build)
    assert int(stamp) == 5
    assert bytes(serialized) == bytes.fromhex("0a090a070a051dcdcc4cbe" "12040000803f" "1a00")


def test_post_pruning_is_tensorflows():
    # TensorFlow's testPostPruningOfSomeNodes: three layers, max_depth 3; the negative
    # gain splits of node 1 and its child 3 fold back when the tree is finalized.
    layers = [
        ([0, 1], [[0], [0]], [[-1.3], [-0.2]], [[7], [33]], [[[0.013]], [[0.01]]],
         [[[0.0143]], [[0.0143]]]),
        ([3], [[1, 2]], [[-0.2, 0.5]], [[7, 5]], [[[0.07], [0.041]]], [[[0.083], [0.064]]]),
        ([92], [[3]], [[-0.45]], [[11]], [[[0.15]]], [[[0.5]]]),
    ]
    graph = tf.Graph()
    with graph.as_default():
        h = r.BoostedTreesEnsembleResourceHandleOp(shared_name="ensemble")
        create = r.BoostedTreesCreateEnsemble(tree_ensemble_handle=h, stamp_token=np.int64(0),
                                              tree_ensemble_serialized=b"")
        grows = [r.BoostedTreesUpdateEnsemble(
            tree_ensemble_handle=h, feature_ids=features,
            node_ids=[np.array(n, np.int32) for n in nodes],
            gains=[np.array(g, np.float32) for g in gains],
            thresholds=[np.array(t, np.int32) for t in thresholds],
            left_node_contribs=[np.array(c, np.float32) for c in lefts],
            right_node_contribs=[np.array(c, np.float32) for c in rights],
            max_depth=3, learning_rate=np.float32(1.0), pruning_mode=2)
            for features, nodes, gains, thresholds, lefts, rights in layers]
        serialize = r.BoostedTreesSerializeEnsemble(tree_ensemble_handle=h)
        with tf.compat.v1.Session() as sess:
            sess.run(create)
            for grow in grows:
                sess.run(grow)
            stamp, serialized = sess.run(serialize)
    changes = [(0, 0.0), (1, 0.0), (2, 0.0), (1, -0.07), (1, -0.083), (3, 0.0), (4, 0.0),
               (1, -0.22), (1, -0.57)]
    meta = " ".join(f"post_pruned_nodes_meta {{ new_node_id: {n} logit_change: {c} }}"
                    for n, c in changes)
    want = text_format.Parse(f"""
        trees {{
          nodes {{ bucketized_split {{ feature_id: 1 threshold: 33 left_id: 1 right_id: 2 }}
                  metadata {{ gain: -0.2 }} }}
          nodes {{ leaf {{ scalar: 0.01 }} }}
          nodes {{ bucketized_split {{ feature_id: 3 threshold: 5 left_id: 3 right_id: 4 }}
                  metadata {{ gain: 0.5 original_leaf {{ scalar: 0.0143 }} }} }}
          nodes {{ leaf {{ scalar: 0.0553 }} }}
          nodes {{ leaf {{ scalar: 0.0783 }} }}
        }}
        trees {{ nodes {{ leaf {{ }} }} }}
        tree_weights: 1.0 tree_weights: 1.0
        tree_metadata {{ num_layers_grown: 3 is_finalized: true {meta} }}
        tree_metadata {{ }}
        growing_metadata {{ num_trees_attempted: 1 num_layers_attempted: 3
                           last_layer_node_start: 0 last_layer_node_end: 1 }}
    """, bt.TreeEnsemble())
    assert int(stamp) == 3
    assert _same(bt.TreeEnsemble.FromString(bytes(serialized)), want)


_DEBUG_ENSEMBLES = {
    # TensorFlow's feature contribs tests (prediction_ops_test): ensemble, weights,
    # expected feature ids and logits paths for examples f0 = [36, 32], f2 = [11, 27].
    "bias_only": ("trees { nodes { leaf { scalar: 1.72 } } } tree_weights: 0.1 "
                  "tree_metadata { }", [(), ()], [(0.172,), (0.172,)]),
    "bias_tree_first": (
        "trees { nodes { leaf { scalar: 1.72 } } } "
        "trees { nodes { bucketized_split { feature_id: 2 threshold: 26 left_id: 1 "
        "right_id: 2 } } nodes { bucketized_split { feature_id: 0 threshold: 50 left_id: 3 "
        "right_id: 4 } metadata { original_leaf { scalar: 5.5 } } } "
        "nodes { leaf { scalar: 7.0 } } nodes { leaf { scalar: 5.0 } } "
        "nodes { leaf { scalar: 6.0 } } } "
        "tree_weights: 1 tree_weights: 0.1 tree_metadata { } tree_metadata { "
        "num_layers_grown: 1 }",
        [(2, 0), (2,)], [(1.72, 2.27, 2.22), (1.72, 2.42)]),
    "three_trees": (
        "trees { nodes { bucketized_split { feature_id: 2 threshold: 28 left_id: 1 "
        "right_id: 2 } metadata { gain: 7.62 original_leaf { scalar: 2.1 } } } "
        "nodes { leaf { scalar: 1.14 } } nodes { leaf { scalar: 8.79 } } } "
        "trees { nodes { bucketized_split { feature_id: 2 threshold: 26 left_id: 1 "
        "right_id: 2 } } nodes { bucketized_split { feature_id: 0 threshold: 50 left_id: 3 "
        "right_id: 4 } metadata { original_leaf { scalar: 5.5 } } } "
        "nodes { leaf { scalar: 7.0 } } nodes { leaf { scalar: 5.0 } } "
        "nodes { leaf { scalar: 6.0 } } } "
        "trees { nodes { bucketized_split { feature_id: 0 threshold: 34 left_id: 1 "
        "right_id: 2 } } nodes { leaf { scalar: -7.0 } } nodes { leaf { scalar: 5.0 } } } "
        "tree_weights: 0.1 tree_weights: 0.2 tree_weights: 1.0 "
        "tree_metadata { num_layers_grown: 1 } tree_metadata { num_layers_grown: 2 } "
        "tree_metadata { num_layers_grown: 1 }",
        [(2, 2, 0, 0), (2, 2, 0)],
        [(0.21, 0.114, 1.214, 1.114, 6.114), (0.21, 0.114, 1.514, -5.486)]),
}


@pytest.mark.parametrize("name", sorted(_DEBUG_ENSEMBLES))
def test_example_debug_outputs_are_tensorflows(name):
    text, feature_ids, paths = _DEBUG_ENSEMBLES[name]
    serialized = text_format.Parse(text, bt.TreeEnsemble()).SerializeToString()

    def build():
        h = r.BoostedTreesEnsembleResourceHandleOp(shared_name="ensemble")
        create = r.BoostedTreesCreateEnsemble(tree_ensemble_handle=h, stamp_token=np.int64(0),
                                              tree_ensemble_serialized=serialized)
        with tf.control_dependencies([create]):
            return r.BoostedTreesExampleDebugOutputs(
                tree_ensemble_handle=h, bucketized_features=[[36, 32], [13, -29], [11, 27]],
                logits_dimension=1)
    outputs = [bt.DebugOutput.FromString(bytes(s)) for s in _run(build)]
    assert [tuple(o.feature_ids) for o in outputs] == feature_ids
    for output, path in zip(outputs, paths):
        np.testing.assert_allclose(list(output.logits_path), path, rtol=1e-5)


def test_bad_cache_and_contribution_widths_are_invalid_argument():
    def predict():
        h, center = _centered_ensemble(stamp=0, gradient=1.0, hessian=1.0, l2=0.0)
        with tf.control_dependencies([center]):
            return r.BoostedTreesTrainingPredict(
                tree_ensemble_handle=h, cached_tree_ids=[3], cached_node_ids=[0],
                bucketized_features=[[1]], logits_dimension=1)
    with pytest.raises(errors.InvalidArgumentError, match="not in the ensemble"):
        _run(predict)
    with pytest.raises(errors.InvalidArgumentError, match="fewer than logits_dimension"):
        _run(_grow_wide)


def _grow_wide():
    h = r.BoostedTreesEnsembleResourceHandleOp(shared_name="wide")
    create = r.BoostedTreesCreateEnsemble(tree_ensemble_handle=h, stamp_token=np.int64(0),
                                          tree_ensemble_serialized=b"")
    with tf.control_dependencies([create]):
        return r.BoostedTreesUpdateEnsembleV2(
            tree_ensemble_handle=h, feature_ids=[[0]], dimension_ids=[[0]], node_ids=[[0]],
            gains=[np.array([1.0], np.float32)], thresholds=[[1]],
            left_node_contribs=[np.array([[0.5]], np.float32)],
            right_node_contribs=[np.array([[0.5]], np.float32)],
            split_types=[[b"INEQUALITY_DEFAULT_LEFT"]], max_depth=1,
            learning_rate=np.float32(0.1), pruning_mode=0, logits_dimension=2)
