"""`import_graph_def`: TensorFlow's conformance graphs imported into the API, run and extended."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tfx as tf
from tfx.core.api.importer import import_graph_def
from tfx.core.errors import NotFoundError

DATA = Path(__file__).resolve().parent.parent / "data" / "conformance"
CASES = sorted(p.stem for p in DATA.glob("*.json") if (DATA / f"{p.stem}.pb").exists()
               and p.stem != "tf_checkpoint")


@pytest.mark.parametrize("name", CASES)
def test_imported_case_matches_tensorflow(graph: tf.Graph, name: str) -> None:
    manifest = json.loads((DATA / f"{name}.json").read_text())
    inputs_path = DATA / f"{name}.inputs.npz"
    inputs = np.load(inputs_path) if inputs_path.exists() else {}
    expected = np.load(DATA / f"{name}.expected.npz")
    import_graph_def(str(DATA / manifest["graph"]), name="")
    with tf.Session() as s:
        for i, step in enumerate(manifest["steps"]):
            feeds = {graph.get_tensor_by_name(t): inputs[k]
                     for t, k in step.get("feeds", {}).items()}
            fetches = [graph.get_tensor_by_name(t) for t in step.get("fetches", [])]
            targets = [graph.get_operation_by_name(t) for t in step.get("targets", [])]
            values = s.run(fetches + targets, feeds)
            for t, got in zip(fetches, values):
                np.testing.assert_allclose(np.asarray(got, np.float64) if np.asarray(
                    got).dtype.kind in "fc" else got, expected[f"step{i}/{t.name}"],
                    rtol=manifest["rtol"], atol=manifest["atol"], err_msg=f"step {i} {t.name}")


def test_imported_shapes_and_prefix(graph: tf.Graph) -> None:
    probs, x = import_graph_def(str(DATA / "mlp_frozen.pb"), return_elements=["probs:0", "x:0"])
    assert probs.name == "import/probs:0" and x.op.type == "Placeholder"
    assert probs.shape.as_list()[-1] == 10
    again = import_graph_def(str(DATA / "mlp_frozen.pb"), return_elements=["probs"])
    assert again[0].name == "import_1/probs"


def test_gradient_added_to_a_frozen_graph() -> None:
    probs, x = import_graph_def(str(DATA / "mlp_frozen.pb"), return_elements=["probs:0", "x:0"],
                                name="")
    target = tf.reduce_sum(probs[:, 3])
    (dx,) = tf.gradients(target, x)
    value = np.load(DATA / "mlp_frozen.inputs.npz")["x"].astype(np.float32)
    with tf.Session() as s:
        grad = s.run(dx, {x: value})
        eps = 1e-2
        bumped = value.copy()
        bumped[0, 5] += eps
        lowered = value.copy()
        lowered[0, 5] -= eps
        numeric = (s.run(target, {x: bumped}) - s.run(target, {x: lowered})) / (2 * eps)
    assert grad.shape == value.shape
    np.testing.assert_allclose(grad[0, 5], numeric, rtol=2e-2, atol=1e-4)


def test_input_map_replaces_a_placeholder() -> None:
    images = tf.placeholder(tf.float32, [None, 784], name="images")
    (probs,) = import_graph_def(str(DATA / "mlp_frozen.pb"), input_map={"x:0": images * 1.0},
                                return_elements=["probs:0"], name="model")
    value = np.load(DATA / "mlp_frozen.inputs.npz")["x"]
    with tf.Session() as s:
        got = s.run(probs, {images: value})
    np.testing.assert_allclose(got, np.load(DATA / "mlp_frozen.expected.npz")["step0/probs:0"],
                               rtol=1e-5, atol=1e-5)


def test_unknown_return_element() -> None:
    with pytest.raises(NotFoundError, match="did you mean"):
        import_graph_def(str(DATA / "mlp_frozen.pb"), return_elements=["prob:0"])
