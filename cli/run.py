"""`tfx run`: run a step of a graph, once or N times, and show, print or save what it fetched.

One step by default. With `--steps N` the same step runs repeatedly in one
session (`tfx.core.training_loop`): `--init` ops first, a progress bar on
stderr, the fetched values every `--every K` steps as a table on stdout (or a
JSON list of per-step records), and with `--checkpoint-dir` periodic, kill-safe
checkpoints and a restore of the latest one on start.

`--trace` and `--profile` record the step(s) (not the `--init` ops) with
`tfx.core.trace`: a trace-event timeline, and benchmark_model's tables on
stderr plus a per-node cost file for `tfx place --profile`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tfx.cli import common
from tfx.core.errors import InvalidArgumentError

if TYPE_CHECKING:
    import numpy as np

    from tfx.core.graph import Graph
    from tfx.core.session import Session
    from tfx.core.training_loop import CheckpointConfig, StepResult

HELP = """Run one step of GRAPH (a .pb/.pbtxt file, or - for stdin) and show the fetched tensors.

With no --fetch and no --target, the graph's likely outputs (nodes nobody reads) are
fetched. A feed VALUE is a .npy file, FILE.npz:KEY, - (a .npy on stdin) or a JSON
literal; a fetch `node` means `node:0`; a target is an op run for its effect.

Examples:

```
tfx run graphs/default.pbtxt
tfx run model.pb --feed input:0=x.npy --fetch probs:0 -o out.npz
tfx run model.pb --feed 'x:0=[[1,2],[3,4]]' --fetch y --json
cat model.pb | tfx run - --feed x=3.0 -o - > out.npz
```

Training: `--steps N` runs the step N times in one session after the `--init` ops.
In a feed VALUE, `{step}` is replaced by the step's index (0 for the first step of
the training) and `{step%K}` by that index modulo K, to feed a different batch at
each step. With `--checkpoint-dir`, variables are saved every `--save-every` steps
(or seconds: `30s`) and after the last step, the newest `--keep` checkpoints are
kept (plus the best by `--keep-best TENSOR[:min|max]`), and a rerun restores the
latest checkpoint and continues from its step up to N. With `--master`, a task that
fails mid-run is recovered from (up to 3 times): a new session, waiting for the task
to come back, then the latest checkpoint.

```
tfx run train.pb --init init --target train --fetch loss --steps 100 --every 10 \
    --feed 'x:0=data.npz:x{step%5}' --feed 'y:0=data.npz:y{step%5}' \
    --checkpoint-dir runs/a --save-every 20 --keep 3 --keep-best loss
```

Training on a dataset: `--data FILE.npz` makes each `--feed NAME=KEY` whose KEY is
an array of that file a mini-batch of it (`--batch-size`, rows shuffled anew each
epoch unless `--no-shuffle`); `--epochs E` runs E passes over the data (the steps
count follows; the loss shows in the progress bar).

```
tfx build mlp -o mlp.pb
tfx run mlp.pb --init init --target train --fetch loss --data digits.npz \
    --feed x:0=images --feed y:0=labels --batch-size 32 --epochs 5 --every 50
```

Profiling: `--trace FILE` writes the kernels of the step(s) as a Chrome trace-event
timeline (open it in https://ui.perfetto.dev or chrome://tracing): one track per
device and executor thread, Send/Recv joined by arrows. `--profile` prints the
slowest nodes and the time per op type on stderr, and writes each node's measured
time per step and output sizes to `--profile-out FILE` (default profile.json), which
`tfx place --profile` reads.

```
tfx run model.pb --feed x:0=x.npy --trace trace.json
tfx run model.pb --feed x:0=x.npy --steps 20 --profile-out prof.json
tfx place model.pb --devices cpu:0,cpu:1 --profile prof.json -o placed.pb
```
"""

DEFAULT_PROFILE = "profile.json"
# How often `tfx run --master ... --checkpoint-dir` recovers from a task that fails.
MAX_RECOVERIES = 3

_STEP_TEMPLATE = re.compile(r"\{step(?:%(\d+))?\}")


def run(
    graph: Annotated[
        str, typer.Argument(metavar="GRAPH", help="Graph file (.pb or .pbtxt), or - for stdin.")
    ],
    feed: Annotated[
        list[str] | None,
        typer.Option("--feed", "-f", metavar="NAME=VALUE",
                     help="Feed a tensor: x:0=x.npy, x:0=in.npz:key, x:0=- or x:0=[1,2]."),
    ] = None,
    fetch: Annotated[
        list[str] | None,
        typer.Option("--fetch", metavar="NAME",
                     help="Tensor to fetch (node:0; a bare node means node:0)."),
    ] = None,
    target: Annotated[
        list[str] | None,
        typer.Option("--target", "-t", metavar="OP", help="Op to run for its effect only."),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="OUT",
                     help="Save the fetches: out.npz (keys = tensor names), out.npy (one "
                          "fetch) or - (npz to stdout)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the fetched values as JSON.")
    ] = False,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", metavar="SECONDS", min=0.0,
                     help="Cancel the step after this many seconds."),
    ] = None,
    max_tensor_bytes: Annotated[
        int | None,
        typer.Option("--max-tensor-bytes", metavar="N", min=1,
                     help="Refuse to allocate any tensor larger than N bytes."),
    ] = None,
    devices: Annotated[
        str | None,
        typer.Option("--devices", "-d", metavar="LIST",
                     help="Run across local devices (cpu:0,cpu:1; gpu:0 through CuPy): nodes "
                          "keep the devices a placed graph gives them, the rest are placed "
                          "greedily."),
    ] = None,
    master: Annotated[
        str | None,
        typer.Option("--master", metavar="URL",
                     help="Run on a cluster: the grpc://HOST:PORT of a `tfx serve-worker` "
                          "(or TensorFlow server), whose master places the graph on the "
                          "cluster's tasks."),
    ] = None,
    init: Annotated[
        list[str] | None,
        typer.Option("--init", metavar="OP",
                     help="Op to run once first (e.g. init); repeatable: each runs as a "
                          "step of its own, in the order given."),
    ] = None,
    steps: Annotated[
        int | None,
        typer.Option("--steps", metavar="N", min=0,
                     help="Run the step N times in one session (in total, when resuming)."),
    ] = None,
    every: Annotated[
        int | None,
        typer.Option("--every", metavar="K", min=1,
                     help="With --steps: show the fetched values every K steps."),
    ] = None,
    checkpoint_dir: Annotated[
        str | None,
        typer.Option("--checkpoint-dir", metavar="DIR",
                     help="With --steps: save checkpoints here and resume from the latest."),
    ] = None,
    save_every: Annotated[
        str | None,
        typer.Option("--save-every", metavar="N[s]",
                     help="Save every N steps, or every N seconds with an s suffix "
                          "(default 600s); always after the last step."),
    ] = None,
    keep: Annotated[
        int | None,
        typer.Option("--keep", metavar="N", min=0,
                     help="Keep the newest N checkpoints (default 5; 0 keeps all)."),
    ] = None,
    keep_best: Annotated[
        str | None,
        typer.Option("--keep-best", metavar="TENSOR[:min|max]",
                     help="Also keep the checkpoint with the best value of this fetched "
                          "scalar (min by default)."),
    ] = None,
    trace: Annotated[
        str | None,
        typer.Option("--trace", metavar="FILE",
                     help="Write the step's kernel timeline as Chrome trace-event JSON "
                          "(Perfetto, chrome://tracing)."),
    ] = None,
    profile: Annotated[
        bool,
        typer.Option("--profile",
                     help="Print the slowest nodes and the time per op type (stderr); write "
                          "per-node costs for tfx place --profile to --profile-out."),
    ] = False,
    profile_out: Annotated[
        str | None,
        typer.Option("--profile-out", metavar="FILE",
                     help=f"Where --profile writes the per-node costs (default "
                          f"{DEFAULT_PROFILE}); implies --profile."),
    ] = None,
    data: Annotated[
        str | None,
        typer.Option("--data", metavar="FILE.npz",
                     help="Dataset to train on: --feed NAME=KEY feeds mini-batches of its "
                          "array KEY."),
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option("--batch-size", metavar="N", min=1,
                     help="Examples per step with --data (default 32)."),
    ] = None,
    epochs: Annotated[
        int | None,
        typer.Option("--epochs", metavar="E", min=1,
                     help="Passes over --data (default 1); sets the number of steps."),
    ] = None,
    shuffle: Annotated[
        bool,
        typer.Option("--shuffle/--no-shuffle",
                     help="Visit --data's examples in a new seeded order every epoch."),
    ] = True,
    seed: Annotated[
        int,
        typer.Option("--seed", metavar="N", help="Seed of --data's shuffling."),
    ] = 0,
) -> None:
    import numpy as np

    from tfx.core import limits

    feed, fetch, target, init = feed or [], fetch or [], target or [], init or []
    if output == "-" and as_json:
        raise typer.BadParameter("--json and -o - both write to stdout; choose one",
                                 param_hint="'-o'")
    if graph == "-" and any(spec.partition("=")[2] == "-" for spec in feed):
        raise typer.BadParameter("the graph and a feed cannot both come from stdin",
                                 param_hint="'--feed'")
    if data is None:
        for value, option in ((batch_size, "--batch-size"), (epochs, "--epochs")):
            if value is not None:
                raise typer.BadParameter("needs --data FILE.npz", param_hint=f"'{option}'")
    elif steps is not None and epochs is not None:
        raise typer.BadParameter("--steps and --epochs both set the number of steps; "
                                 "choose one", param_hint="'--epochs'")
    _check_loop_options(steps if data is None else 0, every, checkpoint_dir, save_every,
                        keep, keep_best)
    if profile or profile_out is not None:
        profile_out = profile_out or DEFAULT_PROFILE
    _check_profile_options(trace, profile_out)
    recorder = _StepRecorder() if trace is not None or profile_out is not None else None

    previous_limit = limits.set_max_tensor_bytes(max_tensor_bytes) if max_tensor_bytes else None
    try:
        ir = common.load_graph_ir(graph) if devices is None else _load_placed(graph)
        if data is None:
            feeds = _feeds_by_step(feed)
        else:
            feeds, steps_per_epoch = _data_feeds(data, feed, batch_size or 32, shuffle, seed)
            if steps is None:
                steps = (epochs or 1) * steps_per_epoch
        fetches = list(dict.fromkeys(common.tensor_name(name) for name in fetch))
        targets = list(dict.fromkeys(target))
        defaulted = not fetches and not targets
        if defaulted:
            fetches = _likely_output_tensors(ir, graph)
        with _session(ir, timeout, devices, master) as sess:
            if steps is not None:
                config = _checkpoint_config(checkpoint_dir, save_every, keep, keep_best)
                # On a cluster, a task that fails mid-run is recovered from: a new session
                # (the master waits for the task to come back), then the latest checkpoint.
                reconnect = None
                if master is not None and config is not None:
                    def reconnect() -> Session:
                        return _session(ir, timeout, devices, master)
                ran = _run_steps(sess, common.graph_label(graph), fetches, targets, init,
                                 feeds, steps, every or 1, config, timeout, output, as_json,
                                 recorder, reconnect)
                if recorder is not None:
                    recorder.report(sess, ran, trace, profile_out)
                return
            for op in dict.fromkeys(init):  # one step each, in the order given
                sess.run(op)
            with _recording(recorder):
                values = sess.run(fetches + targets, feeds(0))
            dtypes = [str(sess.graph.tensor(name).dtype.base) for name in fetches]
            if recorder is not None:
                recorder.report(sess, 1, trace, profile_out)
    finally:
        if previous_limit is not None:
            limits.set_max_tensor_bytes(previous_limit)

    results = {name: np.asarray(value) for name, value in zip(fetches, values)}
    if output is not None:
        common.write_arrays(output, results)
        if output == "-":
            return
        common.err_console.print(f"wrote {len(results)} tensor(s) to {output}", highlight=False,
                                 soft_wrap=True)
    if as_json:
        common.print_json({
            "fetches": [
                {"name": name, "dtype": dtype, "shape": list(value.shape),
                 "value": common.to_jsonable(value)}
                for (name, value), dtype in zip(results.items(), dtypes)
            ],
            "targets": targets,
        }, indent=None)  # tensors as one line each would be hundreds of lines
    elif output is None:
        _print_table(common.graph_label(graph), results, dtypes, targets, defaulted)


# --- --trace and --profile ---------------------------------------------------------------------


def _check_profile_options(trace: str | None, profile_out: str | None) -> None:
    for path, option in ((trace, "--trace"), (profile_out, "--profile-out")):
        if path is None:
            continue
        if path == "-" or not path:
            raise typer.BadParameter("name a file to write", param_hint=f"'{option}'")
        if path.endswith((".pb", ".pbtxt")):
            # `tfx run --trace model.pb` took the graph's name for the file to write.
            raise typer.BadParameter(f"{path} looks like a graph; this writes JSON",
                                     param_hint=f"'{option}'")
    if trace is not None and trace == profile_out:
        raise typer.BadParameter("--trace and --profile-out would write the same file",
                                 param_hint="'--profile-out'")


class _StepRecorder:
    """The kernels of the steps run under `--trace`/`--profile`, and what is made of them."""

    def __init__(self) -> None:
        from tfx.core.trace import StepTrace

        self.trace = StepTrace()

    def report(self, sess: Session, steps: int, trace_path: str | None,
               profile_path: str | None) -> None:
        """Write the trace, print the profile tables and write the cost file."""
        recorded = self.trace
        if trace_path is not None:
            try:
                recorded.write(trace_path)
            except OSError as exc:  # name the file asked for, not the temporary one
                raise OSError(exc.errno, exc.strerror, trace_path) from None
            _note(f"wrote {len(recorded.events)} kernel slice(s) to {trace_path} "
                  "(open in https://ui.perfetto.dev or chrome://tracing)")
        if profile_path is None:
            return
        measured = recorded.profile(max(1, steps))
        common.err_console.print(measured.to_text(), highlight=False, markup=False,
                                 soft_wrap=True, end="")
        device = _measured_device(sess)
        costs = measured.cost_profile(device.name, device.device_type, device.flops)
        _write_json(profile_path, costs)
        _note(f"wrote the costs of {len(costs['nodes'])} node(s) to {profile_path} "
              "(for tfx place --profile)")


@contextmanager
def _recording(recorder: _StepRecorder | None) -> Iterator[None]:
    if recorder is None:
        yield
        return
    from tfx.core.trace import recording

    with recording(recorder.trace):
        yield


def _measured_device(sess: Session) -> Any:
    """The device the costs were measured on: the session's first (local CPU) device."""
    device_set = getattr(sess, "device_set", None)
    if device_set is None:
        from tfx.core.devices import DeviceSet

        device_set = DeviceSet.local(1)
    return device_set.devices[0]


def _write_json(path: str, data: Any) -> None:
    import json

    common.write_bytes(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))


def _load_placed(graph: str) -> Graph:
    """With --devices, GRAPH may also be a folder of partitions from `tfx partition`."""
    from tfx.cli.partition import load_placed

    return load_placed(graph)


def _session(ir: Graph, timeout: float | None, devices: str | None,
             master: str | None = None) -> Session:
    """A Session; with --devices one whose steps run across those devices; with --master
    one whose steps run on a cluster."""
    from tfx.core.session import Session

    if master is not None:
        if devices is not None:
            raise InvalidArgumentError("--master and --devices do not go together: the "
                                       "master places the graph on its cluster's devices")
        from tfx.core.api.session_api import Session as ClusterSession
        from tfx.core.distributed.client import address_of

        address_of(master)  # refuse anything but grpc://host:port before connecting
        return ClusterSession(master, graph=ir, timeout=timeout)
    if devices is None:
        return Session(ir, timeout=timeout)
    from tfx.core.multi_device import MultiDeviceSession

    return MultiDeviceSession(ir, devices, timeout=timeout)


def _likely_output_tensors(ir: Graph, path: str) -> list[str]:
    from tfx.core.summarize import summarize_graph

    tensors: list[str] = []
    for out in summarize_graph(ir).outputs:
        if out.tensors is None:
            tensors.append(f"{out.name}:0")  # unknown op: the session will say what is wrong
        else:
            tensors += [name for name, _ in out.tensors]
    if not tensors:
        raise InvalidArgumentError(
            f"{common.graph_label(path)} has no likely output tensors; "
            "name what to run with --fetch NAME or --target OP"
        )
    return tensors


def _print_table(label: str, results: dict, dtypes: list[str], targets: list[str],
                 defaulted: bool) -> None:
    from rich.table import Table
    from rich.text import Text

    if results:
        table = Table(title=f"{label}: fetched", title_justify="left",
                      caption="likely outputs; choose with --fetch" if defaulted else None)
        table.add_column("tensor", overflow="fold")
        table.add_column("dtype")
        table.add_column("shape")
        table.add_column("value", overflow="fold")
        for (name, value), dtype in zip(results.items(), dtypes):
            cells = (name, dtype, common.dims_text(value.shape), common.preview(value))
            table.add_row(*(Text(cell) for cell in cells))
        common.console.print(table, highlight=False)
    if targets:
        common.console.print(f"ran {len(targets)} target(s): {', '.join(targets)}",
                             highlight=False, markup=False)


# --- feeds that change with the step -----------------------------------------------------


def _feeds_by_step(specs: Sequence[str]) -> Callable[[int], dict[str, Any]]:
    """Parse the feeds once; those whose VALUE holds {step} or {step%K} are read per step."""
    fixed = common.parse_feeds([s for s in specs if not _STEP_TEMPLATE.search(s)])
    templated = [s for s in specs if _STEP_TEMPLATE.search(s)]
    if not templated:
        return lambda _step: fixed
    for spec in templated:
        name = common.tensor_name(spec.partition("=")[0].strip())
        if name in fixed:
            raise InvalidArgumentError(f"--feed: {name!r} is fed twice")

    @lru_cache(maxsize=64)
    def load(spec: str) -> Mapping[str, Any]:
        return common.parse_feeds([spec])

    def feeds(step: int) -> dict[str, Any]:
        values = dict(fixed)
        for spec in templated:
            name, _, value = spec.partition("=")
            value = _STEP_TEMPLATE.sub(
                lambda m: str(step % int(m.group(1)) if m.group(1) else step), value
            )
            values.update(load(f"{name}={value}"))
        return values

    return feeds


def _data_feeds(path: str, specs: Sequence[str], batch_size: int, shuffle: bool,
                seed: int) -> tuple[Callable[[int], dict[str, Any]], int]:
    """Feeds per step: mini-batches of `path`'s arrays named by the specs' values, plus
    the other feeds as `--feed` reads them; and the steps of one epoch."""
    import zipfile

    import numpy as np

    from tfx.core.batches import Batches
    from tfx.core.errors import NotFoundError

    try:
        with np.load(path, allow_pickle=False) as archive:
            keys = set(archive.files)
            batched = {}
            rest = []
            for spec in specs:
                name, sep, value = spec.partition("=")
                if sep and value in keys:
                    tensor = common.tensor_name(name.strip())
                    if tensor in batched:
                        raise InvalidArgumentError(f"--feed: {tensor!r} is fed twice")
                    batched[tensor] = archive[value]
                else:
                    rest.append(spec)
    except FileNotFoundError:
        raise NotFoundError(f"--data: no such file {path!r}") from None
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise InvalidArgumentError(f"--data {path}: not a readable .npz file ({exc})") from None
    if not batched:
        raise InvalidArgumentError(
            f"--data {path}: no --feed NAME=KEY names one of its arrays "
            f"(keys: {', '.join(sorted(keys)[:10])})")
    batches = Batches(batched, batch_size, shuffle=shuffle, seed=seed, source=f"--data {path}")
    fixed = _feeds_by_step(rest)
    for name in batched:
        if name in fixed(0):
            raise InvalidArgumentError(f"--feed: {name!r} is fed twice")
    return (lambda step: {**fixed(step), **batches(step)}), batches.steps_per_epoch


# --- --steps: the loop, its progress bar and its table --------------------------------------


def _check_loop_options(steps: int | None, every: int | None, checkpoint_dir: str | None,
                        save_every: str | None, keep: int | None, keep_best: str | None) -> None:
    if steps is None:
        for value, option in ((every, "--every"), (checkpoint_dir, "--checkpoint-dir")):
            if value is not None:
                raise typer.BadParameter("needs --steps N", param_hint=f"'{option}'")
    if checkpoint_dir is None:
        for value, option in ((save_every, "--save-every"), (keep, "--keep"),
                              (keep_best, "--keep-best")):
            if value is not None:
                raise typer.BadParameter("needs --checkpoint-dir DIR", param_hint=f"'{option}'")


def _checkpoint_config(directory: str | None, save_every: str | None, keep: int | None,
                       keep_best: str | None) -> CheckpointConfig | None:
    from tfx.core.training_loop import CheckpointConfig, parse_keep_best, parse_save_every

    if directory is None:
        return None
    every_steps, every_seconds = parse_save_every(save_every) if save_every else (None, None)
    metric, mode = parse_keep_best(keep_best) if keep_best else (None, "min")
    return CheckpointConfig(directory, every_steps=every_steps, every_seconds=every_seconds,
                            keep=5 if keep is None else keep, best_metric=metric,
                            best_mode=mode)


def _run_steps(sess: Session, label: str, fetches: list[str], targets: list[str],
               init: list[str], feeds: Callable[[int], dict[str, Any]], steps: int, every: int,
               config: CheckpointConfig | None, timeout: float | None, output: str | None,
               as_json: bool, recorder: _StepRecorder | None = None,
               reconnect: Callable[[], Session] | None = None) -> int:
    """Run the loop, showing rows and checkpoints as they come; return the steps run.

    With `reconnect` (a cluster, and checkpoints), a step that fails because a task went
    away or restarted (UnavailableError, AbortedError) is recovered from up to
    `MAX_RECOVERIES` times, as TensorFlow's MonitoredTrainingSession does: a new session
    from `reconnect`, the init ops, the latest checkpoint, and on from its step.
    """
    import time

    from tfx.core.errors import AbortedError, UnavailableError
    from tfx.core.training_loop import TrainingLoop

    def start_loop(session: Session) -> tuple[TrainingLoop, int]:
        loop = TrainingLoop(session, fetches=fetches, targets=targets, init=init, feeds=feeds,
                            steps=steps, checkpoint=config, timeout=timeout)
        for name in loop.fetches:
            session.graph.tensor(name)  # a bad fetch fails before init runs
        start = loop.start()
        if loop.restored_from is not None:
            _note(f"restored {loop.restored_from} (step {start})")
        return loop, start

    loop, start = start_loop(sess)
    first_step = start
    if start >= steps:
        _note(f"{label}: already at step {start} of {steps}; nothing to run")
    shown = list(fetches) if not as_json and output != "-" else []
    table = _StepTable(shown) if shown else None
    records: list[dict[str, Any]] = []
    last: StepResult | None = None
    began = time.monotonic()
    recoveries: list[Session] = []  # the sessions recovery opened, closed at the end
    try:
        with _progress(steps, start) as (progress, task), _recording(recorder):
            while True:
                try:
                    for result in loop.run():
                        last = result
                        if result.checkpoint is not None:
                            _say(progress, f"saved {result.checkpoint}" + (
                                f" (removed {len(result.deleted)} old)" if result.deleted
                                else ""))
                        if result.step % every == 0 or result.step == steps:
                            if as_json:
                                records.append(_record(result, fetches))
                            elif table is not None:
                                table.row(progress, result)
                        if not progress.disable:
                            progress.update(task, completed=result.step,
                                            values=_brief(result, fetches))
                    break
                except (UnavailableError, AbortedError) as exc:
                    if reconnect is None or len(recoveries) >= MAX_RECOVERIES:
                        raise
                    _say(progress, f"{exc}; recovering ({len(recoveries) + 1} of "
                                   f"{MAX_RECOVERIES}): a new session and the latest checkpoint")
                    recoveries.append(reconnect())
                    loop, _ = start_loop(recoveries[-1])
    finally:
        for opened in recoveries:
            opened.close()
    start = first_step
    ran = (last.step - start) if last is not None else 0
    if ran:
        elapsed = time.monotonic() - began
        _note(f"ran {ran} step(s) in {elapsed:.2f} s ({1000 * elapsed / ran:.2f} ms/step)")
    if output is not None and last is not None:
        common.write_arrays(output, {n: last.values[n] for n in fetches})
        if output != "-":
            _note(f"wrote {len(fetches)} tensor(s) of step {last.step} to {output}")
    if as_json:
        common.print_json(records, indent=None)
    elif not fetches and targets and output is None:
        common.console.print(f"ran {len(targets)} target(s) {ran} time(s): {', '.join(targets)}",
                             highlight=False, markup=False, soft_wrap=True)
    return ran


def _note(text: str) -> None:
    common.err_console.print(text, highlight=False, markup=False, soft_wrap=True)


def _record(result: StepResult, fetches: list[str]) -> dict[str, Any]:
    return {
        "step": result.step,
        "fetches": {name: common.to_jsonable(result.values[name]) for name in fetches},
        "checkpoint": result.checkpoint,
    }


def _brief(result: StepResult, fetches: list[str]) -> str:
    return "  ".join(f"{name} {_cell(result.values[name])}" for name in fetches[:3])


def _cell(value: np.ndarray) -> str:
    """A fetched value in one short cell: a scalar, a tiny vector, or shape and mean."""
    import numpy as np

    array = np.asarray(value)
    if array.dtype.kind == "V":  # bfloat16 and kin: numpy formats them as float32
        array = array.astype(np.float32)
    if array.size == 1 and array.dtype.kind in "biuf":
        scalar = array.reshape(()).item()
        return f"{scalar:.6g}" if isinstance(scalar, float) else str(scalar)
    if array.size <= 4:
        return " ".join(np.array2string(array, precision=4, separator=" ").split())
    text = common.dims_text(array.shape)
    if array.dtype.kind in "biuf":
        text += f" mean {array.astype(np.float64).mean():.4g}"
    return text


class _StepTable:
    """Rows of fetched values printed as the steps go (a table that streams)."""

    def __init__(self, fetches: list[str]) -> None:
        self.fetches = fetches
        self.widths = [max(10, len(name)) for name in fetches]
        self.started = False

    def row(self, progress: Any, result: StepResult) -> None:
        cells = [_cell(result.values[name]) for name in self.fetches]
        if not self.started:
            self.started = True
            self._line(progress, "step".rjust(7) + "  " + self._join(self.fetches))
        self.widths = [max(w, len(c)) for w, c in zip(self.widths, cells)]
        self._line(progress, f"{result.step:>7}  " + self._join(cells))

    def _join(self, cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, self.widths)).rstrip()

    @staticmethod
    def _line(progress: Any, text: str) -> None:
        # Above the live bar when both go to one terminal; plain stdout otherwise.
        console = progress.console if _bar_shares_terminal(progress) else common.console
        console.print(text, highlight=False, markup=False, soft_wrap=True)


def _bar_shares_terminal(progress: Any) -> bool:
    return not progress.disable and common.console.is_terminal


def _say(progress: Any, text: str) -> None:
    progress.console.print(text, highlight=False, markup=False, soft_wrap=True)


@contextmanager
def _progress(total: int, completed: int) -> Iterator[tuple[Any, Any]]:
    """A rich progress bar on stderr, off when stderr is not a terminal."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress(
        TextColumn("step"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TimeRemainingColumn(), TextColumn("{task.fields[values]}"),
        console=common.err_console, disable=not common.err_console.is_terminal,
        redirect_stdout=False, redirect_stderr=False,
    )
    task = progress.add_task("steps", total=total, completed=completed, values="")
    with progress:
        yield progress, task
