"""Quantized training (core/passes/quantize_training.py, tf.train.do_quantize_training_on_
graphdef) against TensorFlow 2.21.

tests/data/quantize_training holds five GraphDefs built by TensorFlow and TensorFlow's
rewrite of each (or the error it raised), written by generate.py beside them: a MatMul of
a variable, a graph saved by a tf.train.Saver, every range rule (Sigmoid, Tanh, Relu,
Relu6, Identity, Reshape, ConcatV2, MaxPool, Conv2D, a "gradients" node left alone), control
inputs, and too many inputs of unknown range.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tfx as tf
from tfx.core.graph import Graph
from tfx.core.passes.quantize_training import quantize_training
from tfx.protos import graph_pb2

DATA = Path(__file__).resolve().parents[2] / "data" / "quantize_training"
ERRORS = json.loads((DATA / "errors.json").read_text())
BITS = {"matmul": 8, "saver": 3, "rules": 8, "controls": 8}


def _graph(name: str) -> graph_pb2.GraphDef:
    return graph_pb2.GraphDef.FromString((DATA / name).read_bytes())


def _nodes(graph_def: graph_pb2.GraphDef) -> list:
    return [(n.name, n.op, list(n.input), n.device,
             {k: v.SerializeToString(deterministic=True) for k, v in n.attr.items()})
            for n in graph_def.node]


@pytest.mark.parametrize("case", sorted(BITS))
def test_rewrite_equals_tensorflows(case):
    given = _graph(f"{case}.input.pb")
    before = given.SerializeToString()
    got = quantize_training(given, BITS[case])
    want = _graph(f"{case}.tf.pb")
    assert _nodes(got) == _nodes(want) and got.versions == want.versions
    assert given.SerializeToString() == before  # the input is left as it was
    Graph.from_graph_def(got).validate()


def test_errors_are_tensorflows():
    kind, message = ERRORS["unknown"]
    with pytest.raises(NotImplementedError) as info:
        quantize_training(_graph("unknown.input.pb"), 8)
    assert (type(info.value).__name__, str(info.value)) == (kind, message)
    for bits in (0, 64):
        kind, message = ERRORS[f"num_bits={bits}"]
        with pytest.raises(IndexError) as info:
            tf.train.do_quantize_training_on_graphdef(_graph("matmul.input.pb"), bits)
        assert (type(info.value).__name__, str(info.value)) == (kind, message)


def test_quantized_graph_runs_as_tensorflows():
    quantized = tf.train.do_quantize_training_on_graphdef(_graph("matmul.input.pb"), 8)
    x = np.array([[0.1, 0.5, -0.3], [1.0, 2.0, 3.0]], np.float32)
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(quantized, name="")
        with tf.Session() as sess:
            sess.run(graph.get_operation_by_name("w/Assign"))
            first = sess.run("r:0", {"x:0": x})
            second = sess.run("r:0", {"x:0": x * 2})
            low, high = sess.run(["x/Min/Variable:0", "x/Max/Variable:0"])
    # TensorFlow 2.21's values running its own rewrite of the same graph
    np.testing.assert_allclose(first, [[0.28346458077430725] * 4, [6.0] * 4], rtol=1e-6)
    np.testing.assert_allclose(second, [[0.5911417007446289] * 4, [8.01588249206543] * 4],
                               rtol=1e-6)
    np.testing.assert_allclose([low, high], [-0.3003, 3.003], rtol=1e-6)
