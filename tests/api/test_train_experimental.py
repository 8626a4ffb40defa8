"""tf.train.experimental against TensorFlow 2.21: the checkpoint sharding policies'
shards (tests/data/train_experimental: scenario.py run with TensorFlow's classes by
generate.py), PythonState, and the loss-scale names shared with tf.mixed_precision."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import tfx as tf
from tfx.core.api import train_experimental_api as te

DATA = Path(__file__).resolve().parents[1] / "data" / "train_experimental"
EXPECTED = json.loads((DATA / "shards.json").read_text())


@pytest.fixture(scope="module")
def shards():
    spec = importlib.util.spec_from_file_location("sharding_scenario", DATA / "scenario.py")
    scenario = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scenario)
    return scenario.run(tf, te.ShardableTensor, te.MaxShardSizePolicy, te.ShardByTaskPolicy,
                        tf.DeviceSpec.from_string)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_shards_equal_tensorflows(shards, case):
    assert shards[case] == EXPECTED[case]


def test_namespace_is_tensorflows():
    names = json.loads((Path(__file__).resolve().parents[1] / "data" /
                        "tf1_namespaces.json").read_text())["train"]
    assert "experimental" in names
    assert tf.train.experimental.DynamicLossScale is (
        tf.mixed_precision.experimental.DynamicLossScale)
    assert tf.train.experimental.enable_mixed_precision_graph_rewrite is (
        tf.mixed_precision.enable_mixed_precision_graph_rewrite)


def test_python_state_serializes_to_a_string_tensor():
    class Counter(tf.train.experimental.PythonState):
        def __init__(self):
            self.n = 3

        def serialize(self):
            return str(self.n).encode()

        def deserialize(self, string_value):
            self.n = int(string_value)

    with pytest.raises(TypeError, match="abstract"):
        tf.train.experimental.PythonState()
    counter = Counter()
    with tf.Graph().as_default():
        tensors = counter._serialize_to_tensors()
        assert list(tensors) == ["py_state"] and tensors["py_state"].dtype == tf.string
        with tf.Session() as sess:
            value = sess.run(tensors["py_state"])
    counter.n = 0
    counter.deserialize(value)
    assert counter.n == 3


def test_policies_hash_and_a_slice_larger_than_the_limit():
    assert hash(te.MaxShardSizePolicy(10)) == hash(te.MaxShardSizePolicy(10))
    assert hash(te.MaxShardSizePolicy(10)) != hash(te.MaxShardSizePolicy(11))
    with tf.Graph().as_default():
        big = tf.constant(np.arange(8, dtype=np.float32).reshape(2, 4))
        item = te.ShardableTensor(None, big, tf.float32, None, "big", big.shape, "", "big",
                                  None)
        assert hash(item) == hash(te.ShardableTensor(None, None, tf.float32, None, "big",
                                                     None, "", "big", None))
        # No slice of a [2, 4] float32 fits 4 bytes: TensorFlow loops forever here; tfx
        # gives the first row a shard of its own (after the others, with TF's warning)
        # and the rest goes one element a shard
        got = te.MaxShardSizePolicy(4)([item])
        with tf.Session() as sess:
            values = [{k: {s: sess.run(t).tolist() for s, t in v.items()} for k, v in g.items()}
                      for g in got]
    assert values == [{"big": {"2 4 1,1:0,1": [[4.0]]}}, {"big": {"2 4 1,1:1,1": [[5.0]]}},
                      {"big": {"2 4 1,1:2,1": [[6.0]]}}, {"big": {"2 4 1,1:3,1": [[7.0]]}},
                      {"big": {"2 4 0,1:0,4": [[0.0, 1.0, 2.0, 3.0]]}}]
