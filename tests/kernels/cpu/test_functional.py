"""Function-calling kernels against TensorFlow: PartitionedCall, StatefulPartitionedCall
and TF1 Defun calls.

The GraphDefs and TensorFlow's outputs in tests/data/functions/ were recorded with
TensorFlow 2.21 by tests/data/functions/generate.py; each case is run with a Session
(optimized and not) and with `tfx run`, and compared to them.
"""

# ruff: noqa: E501 - the GraphDefs and FunctionDefs are written as protobuf text, a node a line

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tfx.cli.main import main as tfx_main
from tfx.core.graph_io import load_graph
from tfx.core.session import Session

DATA = Path(__file__).parents[2] / "data" / "functions"
# The call ops each recorded graph holds (TensorFlow 2.21 chose them).
CALL_OPS = {
    "nested": "PartitionedCall", "variable": "StatefulPartitionedCall",
    "defun": "scaled_add_Hm5sXN0PXMU",
}
CASES = sorted(CALL_OPS)


def load_case(name: str) -> tuple[dict, dict, list]:
    data = np.load(DATA / f"{name}.npz")
    feeds = {k[5:]: data[k] for k in data.files if k.startswith("feed:")}
    fetches = {k[6:]: data[k] for k in data.files if k.startswith("fetch:")}
    targets = [k[7:] for k in data.files if k.startswith("target:")]
    return feeds, fetches, targets


def test_each_case_holds_its_call_op() -> None:
    for name, op in CALL_OPS.items():
        assert op in {n.op for n in load_graph(str(DATA / f"{name}.pb")).node}, name


@pytest.mark.parametrize("optimize", ["none", "basic"])
@pytest.mark.parametrize("name", CASES)
def test_session_matches_tensorflow(name: str, optimize: str) -> None:
    feeds, expected, targets = load_case(name)
    with Session(str(DATA / f"{name}.pb"), optimize=optimize) as sess:
        if targets:
            sess.run(targets)
        got = sess.run(list(expected), feeds)
        again = sess.run(list(expected), feeds)  # the compiled functions are reused
    for value, repeat, (fetch, want) in zip(got, again, expected.items()):
        assert value.dtype == want.dtype, fetch
        np.testing.assert_allclose(value, want, rtol=1e-6)
        np.testing.assert_array_equal(value, repeat)


@pytest.mark.parametrize("name", CASES)
def test_tfx_run_matches_tensorflow(name: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    feeds, expected, targets = load_case(name)
    argv = ["run", str(DATA / f"{name}.pb"), "-o", str(tmp_path / "out.npz")]
    for k, (tensor, value) in enumerate(feeds.items()):
        np.save(tmp_path / f"feed{k}.npy", value)
        argv += ["--feed", f"{tensor}={tmp_path / f'feed{k}.npy'}"]
    for tensor in expected:
        argv += ["--fetch", tensor]
    for target in targets:
        argv += ["--init", target]
    assert tfx_main(argv) == 0, capsys.readouterr().err
    out = np.load(tmp_path / "out.npz")
    assert len(out.files) == len(expected)
    for key, want in zip(out.files, expected.values()):
        np.testing.assert_allclose(out[key], want, rtol=1e-6)


# --- hand-written graphs -------------------------------------------------------------------

