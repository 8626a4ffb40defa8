"""`tfx run --steps`: init once, N steps, per-step values, checkpoints, resume after SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from cli_checks import assert_one_line, tfx_cli

from tfx.core.checkpoint import BundleReader, latest_checkpoint, read_state
from tfx.core.eager import make_node_def
from tfx.core.kernel_registry import has_kernel
from tfx.core.training_loop import STEP_KEY
from tfx.protos import graph_pb2

CONFORMANCE = Path(__file__).parents[1] / "data" / "conformance"
MLP = CONFORMANCE / "mlp_train_adagrad"


def const(name: str, value: np.ndarray) -> graph_pb2.NodeDef:
    return make_node_def("Const", name, [], {"dtype": value.dtype, "value": value})


def counter_graph(path: Path, width: int = 2) -> str:
    """`train` adds the fed x to `w` and one to `count`; `total` = sum(w); `m` echoes a feed."""
    graph = graph_pb2.GraphDef()
    graph.node.extend([
        make_node_def("VariableV2", "w", [], {"dtype": "float32", "shape": (width,)}),
        const("w/init", np.arange(width, dtype=np.float32)),
        make_node_def("Assign", "w/Assign", ["w", "w/init"], {"T": "float32"}),
        make_node_def("VariableV2", "count", [], {"dtype": "int64", "shape": ()}),
        const("zero", np.array(0, np.int64)),
        const("one", np.array(1, np.int64)),
        make_node_def("Assign", "count/Assign", ["count", "zero"], {"T": "int64"}),
        make_node_def("NoOp", "init", ["^w/Assign", "^count/Assign"], {}),
        make_node_def("Placeholder", "x", [], {"dtype": "float32", "shape": (width,)}),
        make_node_def("AssignAdd", "w/add", ["w", "x"], {"T": "float32"}),
        make_node_def("AssignAdd", "count/add", ["count", "one"], {"T": "int64"}),
        make_node_def("NoOp", "train", ["^w/add", "^count/add"], {}),
        make_node_def("Identity", "w/read", ["w"], {"T": "float32"}),
        const("axis", np.array([0], np.int32)),
        make_node_def("Sum", "total", ["w/read", "axis"], {"T": "float32", "Tidx": "int32"}),
        const("m/default", np.array(0.0, np.float32)),
        make_node_def("PlaceholderWithDefault", "m", ["m/default"],
                      {"dtype": "float32", "shape": ()}),
        make_node_def("Identity", "metric", ["m"], {"T": "float32"}),
    ])
    path.write_bytes(graph.SerializeToString())
    return str(path)


def step_counter(prefix: str) -> int:
    with BundleReader(prefix) as reader:
        return int(reader.read(STEP_KEY))


# --- steps, values, progress -------------------------------------------------------------


def test_steps_print_a_row_every_k_steps_and_the_last(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    code, out, err = tfx_cli(capsys, "run", graph, "--init", "init", "--target", "train",
                             "--fetch", "metric", "--feed", "x=[1,1]", "--steps", "5",
                             "--every", "2")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["step", "metric:0"]
    assert [line.split()[0] for line in lines[1:]] == ["2", "4", "5"]
    assert "ran 5 step(s)" in err
    assert "\x1b[" not in out + err  # no progress bar or colours when not on a terminal


def test_json_is_a_list_of_step_records(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    code, out, err = tfx_cli(capsys, "run", graph, "--init", "init", "--target", "train",
                             "--fetch", "m", "--feed", "x=[0.5,0.5]", "--feed", "m={step}",
                             "--steps", "4", "--json")
    assert code == 0, err
    records = json.loads(out)
    assert [r["step"] for r in records] == [1, 2, 3, 4]
    assert [r["fetches"]["m:0"] for r in records] == [0.0, 1.0, 2.0, 3.0]
    assert all(r["checkpoint"] is None for r in records)


def test_step_templates_pick_a_batch_per_step(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    np.savez(tmp_path / "batches.npz", x0=np.array([1, 0], np.float32),
             x1=np.array([0, 10], np.float32))
    batches = tmp_path / "batches.npz"
    code, out, err = tfx_cli(capsys, "run", graph, "--init", "init", "--target", "train",
                             "--fetch", "total", "--feed", f"x={batches}:x{{step%2}}",
                             "--steps", "3", "--json", "-o", str(tmp_path / "last.npz"))
    assert code == 0, err
    with np.load(tmp_path / "last.npz") as saved:
        # w starts [0, 1]; after x0, x1, x0 it is [2, 11]; the last fetch may be read either
        # side of the step's own update
        assert saved["total:0"] in (12.0, 13.0)
    assert len(json.loads(out)) == 3


def test_init_without_steps_runs_once_before_the_step(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    code, out, err = tfx_cli(capsys, "run", graph, "--init", "init", "--fetch", "total",
                             "--json")
    assert code == 0, err
    assert json.loads(out)["fetches"][0]["value"] == 1.0


@pytest.mark.parametrize("loop", [[], ["--steps", "1"]])
def test_init_ops_run_one_step_each_in_the_order_given(capsys, tmp_path: Path,
                                                       loop: list[str]) -> None:
    # Regression: the --init ops ran as one step, in whatever order the executor chose
    # (`--init init --init reset` could leave either value), and an op that two of them
    # need ran once where a step each runs it twice.
    graph = graph_pb2.GraphDef.FromString(Path(counter_graph(tmp_path / "g.pb")).read_bytes())
    graph.node.extend([make_node_def("NoOp", "bump", ["^count/add"], {}),
                       make_node_def("NoOp", "bump_again", ["^count/add"], {})])
    path = tmp_path / "bumps.pb"
    path.write_bytes(graph.SerializeToString())
    code, out, err = tfx_cli(capsys, "run", str(path), "--init", "init", "--init", "bump",
                             "--init", "bump_again", "--fetch", "count", "--json", *loop)
    assert code == 0, err
    record = json.loads(out)
    assert (record[-1]["fetches"]["count:0"] if loop else record["fetches"][0]["value"]) == 2
    code, _, err = tfx_cli(capsys, "run", str(path), "--init", "bump", "--init", "init",
                           "--fetch", "count", *loop)
    assert code == 1 and "uninitialized value count" in err


def test_targets_only(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    code, out, err = tfx_cli(capsys, "run", graph, "--init", "init", "--target", "train",
                             "--feed", "x=[1,1]", "--steps", "3")
    assert code == 0, err
    assert "ran 1 target(s) 3 time(s): train" in out


@pytest.mark.skipif(
    not all(has_kernel(op, "CPU") for op in ("Relu", "ReluGrad", "SoftmaxCrossEntropyWithLogits")),
    reason="the nn kernels are not registered yet",
)
def test_mlp_train_adagrad_matches_tensorflow(capsys, tmp_path: Path) -> None:
    manifest = json.loads(MLP.with_suffix(".json").read_text())
    inputs = f"{MLP}.inputs.npz"
    code, out, err = tfx_cli(
        capsys, "run", f"{MLP}.pb", "--init", "init", "--target", "train", "--fetch", "loss",
        "--feed", f"x:0={inputs}:x{{step}}", "--feed", f"y:0={inputs}:y{{step}}",
        "--steps", "5", "--json", "--checkpoint-dir", str(tmp_path / "run"), "--save-every", "5",
    )
    assert code == 0, err
    tol = {"rtol": manifest["rtol"], "atol": manifest["atol"]}
    with np.load(f"{MLP}.expected.npz") as expected:
        losses = [expected[f"step{i}/loss:0"] for i in range(1, 6)]
        np.testing.assert_allclose([r["fetches"]["loss:0"] for r in json.loads(out)], losses,
                                   **tol)
        prefix = latest_checkpoint(tmp_path / "run")
        assert prefix == str(tmp_path / "run" / "model.ckpt-5")
        with BundleReader(prefix) as reader:
            np.testing.assert_allclose(reader.read("W_2"), expected["step6/W_2:0"], **tol)
            np.testing.assert_allclose(reader.read("b_1"), expected["step6/b_1:0"], **tol)
            assert reader.read(STEP_KEY) == 5 and "W_1/Adagrad" in reader


# --- checkpoints and resuming -----------------------------------------------------------


def test_checkpoints_retention_and_resume(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    run_dir = tmp_path / "run"
    args = ["run", graph, "--init", "init", "--target", "train", "--fetch", "metric",
            "--feed", "x=[1,1]", "--checkpoint-dir", str(run_dir), "--save-every", "2",
            "--keep", "2", "--json"]
    code, out, err = tfx_cli(capsys, *args, "--steps", "5")
    assert code == 0, err
    assert [r["checkpoint"] for r in json.loads(out)] == [
        None, str(run_dir / "model.ckpt-2"), None, str(run_dir / "model.ckpt-4"),
        str(run_dir / "model.ckpt-5")]
    assert f"saved {run_dir / 'model.ckpt-5'} (removed 1 old)" in err
    assert sorted(p.name for p in run_dir.glob("*.index")) == ["model.ckpt-4.index",
                                                               "model.ckpt-5.index"]
    code, out, err = tfx_cli(capsys, *args, "--steps", "7")
    assert code == 0, err
    assert f"restored {run_dir / 'model.ckpt-5'} (step 5)" in err
    assert [r["step"] for r in json.loads(out)] == [6, 7]
    with BundleReader(latest_checkpoint(run_dir)) as reader:
        assert reader.read(STEP_KEY) == 7 and reader.read("count") == 7
    code, out, err = tfx_cli(capsys, *args, "--steps", "7")
    assert code == 0 and json.loads(out) == [] and "already at step 7 of 7" in err


def test_keep_best_and_save_every_seconds(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    np.save(tmp_path / "m.npy", np.array([3, 1, 2, 5, 4], np.float32))
    np.savez(tmp_path / "m.npz", **{f"m{i}": v for i, v in enumerate([3.0, 1.0, 2.0, 5.0, 4.0])})
    run_dir = tmp_path / "run"
    code, _, err = tfx_cli(capsys, "run", graph, "--init", "init", "--target", "train",
                           "--feed", "x=[1,1]", "--feed", f"m={tmp_path / 'm.npz'}:m{{step}}",
                           "--steps", "5", "--checkpoint-dir", str(run_dir),
                           "--save-every", "0.000001s", "--keep", "1",
                           "--keep-best", "metric:min", "--json")
    assert code == 0, err
    best = read_state(run_dir, filename="checkpoint_best").model_checkpoint_path
    assert best == str(run_dir / "model.ckpt-2")
    assert sorted(p.name for p in run_dir.glob("*.index")) == ["model.ckpt-2.index",
                                                               "model.ckpt-5.index"]


@pytest.mark.parametrize("argv, words", [
    (["--every", "2"], "needs --steps"),
    (["--checkpoint-dir", "d"], "needs --steps"),
    (["--steps", "2", "--keep", "2"], "needs --checkpoint-dir"),
    (["--steps", "2", "--save-every", "5"], "needs --checkpoint-dir"),
    (["--steps", "2", "--keep-best", "metric"], "needs --checkpoint-dir"),
    (["--steps", "-1"], "--steps"),
    (["--steps", "2", "--every", "0"], "--every"),
])
def test_loop_options_need_their_partners(capsys, tmp_path: Path, argv: list[str],
                                          words: str) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    code, _, err = tfx_cli(capsys, "run", graph, "--target", "train", *argv)
    assert code == 2 and words in err


@pytest.mark.parametrize("argv, words", [
    (["--save-every", "often"], "--save-every 'often'"),
    (["--save-every", "0"], "--save-every '0'"),
    (["--keep-best", "x:0"], "must be a real scalar"),
    (["--keep-best", "nope"], "'nope'"),
])
def test_bad_checkpoint_options_are_one_line(capsys, tmp_path: Path, argv: list[str],
                                             words: str) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    code, _, err = tfx_cli(capsys, "run", graph, "--init", "init", "--target", "train",
                           "--feed", "x=[1,1]", "--steps", "3", "--checkpoint-dir",
                           str(tmp_path / "run"), *argv)
    assert code == 2
    assert_one_line(err.splitlines(keepends=True)[-1])
    assert words in err


def test_resuming_with_a_checkpoint_of_another_shape_changes_nothing(capsys,
                                                                     tmp_path: Path) -> None:
    run_dir = str(tmp_path / "run")
    code, _, err = tfx_cli(capsys, "run", counter_graph(tmp_path / "wide.pb", width=3),
                           "--init", "init", "--target", "train", "--feed", "x=[1,1,1]",
                           "--steps", "2", "--checkpoint-dir", run_dir)
    assert code == 0, err
    before = sorted(p.name for p in Path(run_dir).iterdir())
    code, out, err = tfx_cli(capsys, "run", counter_graph(tmp_path / "g.pb"), "--init", "init",
                             "--target", "train", "--feed", "x=[1,1]", "--steps", "4",
                             "--checkpoint-dir", run_dir)
    assert code == 2 and out == ""
    assert_one_line(err)
    assert "'w' has shape [2]" in err and "no variable was changed" in err
    assert sorted(p.name for p in Path(run_dir).iterdir()) == before


def test_missing_step_fetch_fails_before_init(capsys, tmp_path: Path) -> None:
    code, _, err = tfx_cli(capsys, "run", counter_graph(tmp_path / "g.pb"), "--init", "nope",
                           "--fetch", "totl", "--steps", "2")
    assert code == 2
    assert_one_line(err)
    assert "'totl'" in err and "total" in err


# --- SIGKILL: the run resumes from its last checkpoint ----------------------------------------


def _cli_command(graph: str, run_dir: Path, steps: int) -> list[str]:
    return ["run", graph, "--init", "init", "--target", "train", "--feed", "x=[1,1]",
            "--steps", str(steps), "--every", str(steps), "--checkpoint-dir", str(run_dir),
            "--save-every", "25", "--keep", "3"]


def _wait_for(predicate, process: subprocess.Popen, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _latest_step(run_dir: Path) -> int:
    try:
        prefix = latest_checkpoint(run_dir)
    except Exception:  # noqa: BLE001 - the state file may be mid-replace: try again
        return 0
    return step_counter(prefix) if prefix else 0


def _resume_and_check(capsys, graph: str, run_dir: Path, resumed_at: int) -> None:
    total = resumed_at + 30
    code, out, err = tfx_cli(capsys, *_cli_command(graph, run_dir, total), "--json")
    assert code == 0, err
    assert f"restored {run_dir / f'model.ckpt-{resumed_at}'} (step {resumed_at})" in err
    assert json.loads(out)[-1]["step"] == total
    with BundleReader(latest_checkpoint(run_dir)) as reader:
        # every step added one to count: restored at `resumed_at`, it ends exactly at `total`
        assert reader.read(STEP_KEY) == total and reader.read("count") == total
        np.testing.assert_array_equal(reader.read("w"), [total, total + 1])
    assert not list(run_dir.glob("*tempstate*"))


def test_sigkilled_run_resumes_from_its_last_checkpoint(capsys, tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    run_dir = tmp_path / "run"
    process = subprocess.Popen(
        [sys.executable, "-m", "tfx.cli.main", *_cli_command(graph, run_dir, 10**7)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        _wait_for(lambda: _latest_step(run_dir) >= 50, process)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    resumed_at = _latest_step(run_dir)
    assert resumed_at >= 50 and resumed_at % 25 == 0
    _resume_and_check(capsys, graph, run_dir, resumed_at)


_KILL_MID_SAVE = textwrap.dedent("""
    import os, signal, sys
    from tfx.core.checkpoint import bundle
    from tfx.cli.main import main

    original = bundle.index_filename

    def index_filename(prefix):
        # BundleWriter.finish asks for the index's name after renaming the data file
        # into place and before renaming the index: die right there, in the third save.
        if prefix.endswith("-75") and os.path.exists(bundle.data_filename(prefix, 0, 1)):
            os.kill(os.getpid(), signal.SIGKILL)
        return original(prefix)

    bundle.index_filename = index_filename
    sys.exit(main(sys.argv[1:]))
""")


def test_sigkill_in_the_middle_of_a_save_keeps_the_previous_checkpoint(capsys,
                                                                      tmp_path: Path) -> None:
    graph = counter_graph(tmp_path / "g.pb")
    run_dir = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-c", _KILL_MID_SAVE, *_cli_command(graph, run_dir, 10**7)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    names = sorted(p.name for p in run_dir.iterdir())
    # the third save got as far as its data file and a temporary index, never its index
    assert "model.ckpt-75.data-00000-of-00001" in names and "model.ckpt-75.index" not in names
    assert any(name.startswith("model.ckpt-75.index.tempstate") for name in names)
    assert latest_checkpoint(run_dir) == str(run_dir / "model.ckpt-50")
    _resume_and_check(capsys, graph, run_dir, 50)
    assert os.path.exists(run_dir / "model.ckpt-75.index")  # step 75 was saved again
