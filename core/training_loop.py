"""The step loop behind `tfx run --steps`: init, N steps, periodic checkpoints, resume.

A `TrainingLoop` drives one session: `start()` runs the init ops once and, when
the checkpoint directory has a checkpoint, restores every variable from the
latest one (all or nothing) and the step counter with them; `run()` then yields
one `StepResult` per step until `steps` steps are done in total, so running the
same command again after a kill continues where the last checkpoint left off.

Steps are counted from 1: step s is the s-th step of the whole training, and
the checkpoint written after it is `DIR/model.ckpt-s`, holding the variables
and the counter under `_tfx/step` (TensorFlow's `global_step` convention, but
kept apart from the graph's own variables).

Checkpoints are kill-safe: the bundle is committed atomically and the state
file is replaced only afterwards, so a kill at any moment leaves the previous
checkpoint as the latest one. Saves happen every `every_steps` steps or
`every_seconds` seconds, and after the last step. Retention keeps the newest
`keep`; with `best_metric`, the checkpoint with the best value of that fetched
scalar is kept too, named by the state file `checkpoint_best` and holding the
value under `_tfx/metric`, so a resumed run still knows its best.

Example:
    >>> with Session("train.pb") as sess:
    ...     loop = TrainingLoop(sess, fetches=["loss:0"], targets=["train"], init=["init"],
    ...                         steps=100, checkpoint=CheckpointConfig("runs/a", every_steps=10))
    ...     for result in loop.run():
    ...         print(result.step, result.values["loss:0"])
"""

from __future__ import annotations

import glob
import math
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from tfx.core.checkpoint.bundle import BundleReader
from tfx.core.checkpoint.restore import restore_variables, save_variables
from tfx.core.checkpoint.state import (
    checkpoint_exists,
    read_state,
    record_checkpoint,
    remove_checkpoint,
    write_state,
)
from tfx.core.errors import InvalidArgumentError
from tfx.protos import checkpoint_pb2

if TYPE_CHECKING:
    from tfx.core.session import Session

STEP_KEY = "_tfx/step"
METRIC_KEY = "_tfx/metric"
BEST_STATE_FILENAME = "checkpoint_best"
DEFAULT_SAVE_SECONDS = 600.0  # TensorFlow's CheckpointSaverHook default


@dataclass
class CheckpointConfig:
    """Where and when the loop saves, and what it keeps.

    Args:
        directory: the checkpoint directory (created when needed).
        every_steps: save after every step whose number is a multiple of this.
        every_seconds: save when this long has passed since the last save (or the start).
            With neither given, every 600 seconds, as TensorFlow.
        keep: how many of the newest checkpoints stay (None or 0: all).
        best_metric: a fetched scalar tensor; the checkpoint where it was best is kept.
        best_mode: "min" or "max".
        basename: the checkpoints are `directory/basename-STEP`.
    """

    directory: str
    every_steps: int | None = None
    every_seconds: float | None = None
    keep: int | None = 5
    best_metric: str | None = None
    best_mode: str = "min"
    basename: str = "model.ckpt"

    def __post_init__(self) -> None:
        if self.every_steps is not None and self.every_steps < 1:
            raise InvalidArgumentError(f"save every {self.every_steps} steps: must be >= 1")
        if self.every_seconds is not None and not self.every_seconds > 0:
            raise InvalidArgumentError(f"save every {self.every_seconds} s: must be > 0")
        if self.every_steps is None and self.every_seconds is None:
            self.every_seconds = DEFAULT_SAVE_SECONDS
        if self.best_mode not in ("min", "max"):
            raise InvalidArgumentError(f"keep-best mode {self.best_mode!r}: use min or max")


def parse_save_every(text: str) -> tuple[int | None, float | None]:
    """'100' -> (100 steps, None); '30s' or '2.5s' -> (None, seconds)."""
    value = text.strip()
    try:
        if value.endswith("s"):
            seconds = float(value[:-1])
            if not seconds > 0 or math.isinf(seconds):
                raise ValueError
            return None, seconds
        steps = int(value)
        if steps < 1:
            raise ValueError
        return steps, None
    except ValueError:
        raise InvalidArgumentError(
            f"--save-every {text!r}: expected a number of steps (100) or seconds (30s)"
        ) from None


def parse_keep_best(text: str) -> tuple[str, str]:
    """'loss:0' -> ('loss:0', 'min'); 'acc:0:max' -> ('acc:0', 'max'); 'loss' -> 'loss:0'."""
    name, mode = text, "min"
    head, sep, tail = text.rpartition(":")
    if sep and tail in ("min", "max"):
        name, mode = head, tail
    if not name:
        raise InvalidArgumentError(f"--keep-best {text!r}: expected TENSOR[:min|max]")
    node, sep, index = name.rpartition(":")
    if not (sep and index.isdigit()):
        name = f"{name}:0"
    return name, mode


@dataclass
class StepResult:
    """One step: its number (from 1), the fetched values, and the checkpoint saved after it."""

    step: int
    values: dict[str, np.ndarray]
    seconds: float
    checkpoint: str | None = None
    deleted: list[str] = field(default_factory=list)  # checkpoints retention removed


@dataclass
class _Best:
    prefix: str
    value: float


FeedFn = Callable[[int], Mapping[str, Any]]


class TrainingLoop:
    """Run the same step of a session `steps` times in total (see the module docstring).

    Args:
        session: the session; its variables are what is saved and restored.
        fetches: tensor names fetched at every step.
        targets: op names run at every step (the train op).
        init: op names run once each, in order, as steps of their own, before any restore.
        feeds: a feed dict used at every step, or a function of the step index
            (0 for the first step of the whole training) returning one.
        steps: the total number of steps; a resumed run stops there too.
        checkpoint: where and when to save; None runs without checkpoints.
        timeout: per-step timeout in seconds.
        clock: a monotonic clock in seconds (tests replace it).
    """

    def __init__(
        self, session: Session, *, fetches: Sequence[str] = (), targets: Sequence[str] = (),
        init: Sequence[str] = (), feeds: Mapping[str, Any] | FeedFn | None = None,
        steps: int, checkpoint: CheckpointConfig | None = None,
        timeout: float | None = None, clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if steps < 0:
            raise InvalidArgumentError(f"steps must be >= 0, got {steps}")
        self.session = session
        self.fetches = list(dict.fromkeys(fetches))
        self.targets = list(dict.fromkeys(targets))
        self.init = list(init)
        self.steps = steps
        self.checkpoint = checkpoint
        self.timeout = timeout
        self._feeds: FeedFn = feeds if callable(feeds) else (lambda _step, f=feeds or {}: f)
        self._clock = clock
        if checkpoint is not None and checkpoint.best_metric is not None:
            if checkpoint.best_metric not in self.fetches:
                self.fetches.append(checkpoint.best_metric)
        self.start_step = 0
        self.restored_from: str | None = None
        self.best: _Best | None = None
        self._started = False
        self._last_save = 0.0
        self._last_saved_step: int | None = None

    # --- starting: init, then restore the latest checkpoint --------------------------------
    def start(self) -> int:
        """Run the init ops and restore the latest checkpoint; return the step to start at."""
        if self._started:
            return self.start_step
        for op in dict.fromkeys(self.init):  # each its own step, in order, as the CLI's
            self.session.run(op, timeout=self.timeout)
        config = self.checkpoint
        if config is not None:
            _remove_stale_temporaries(config)
            prefix = self.latest_checkpoint()
            if prefix is not None:
                restore_variables(self.session, prefix)
                self.start_step = _stored_step(prefix)
                self.restored_from = prefix
                self._last_saved_step = self.start_step
            self.best = _stored_best(config)
        self._last_save = self._clock()
        self._started = True
        return self.start_step

    def latest_checkpoint(self) -> str | None:
        """The newest committed checkpoint the state file lists, or None."""
        if self.checkpoint is None:
            return None
        state = read_state(self.checkpoint.directory)
        if state is None:
            return None
        candidates = [state.model_checkpoint_path, *reversed(state.all_model_checkpoint_paths)]
        return next((p for p in candidates if checkpoint_exists(p)), None)

    # --- the steps ---------------------------------------------------------------------
    def run(self) -> Iterator[StepResult]:
        """Yield one result per step, from `start_step + 1` to `steps`."""
        start = self.start()
        for step in range(start + 1, self.steps + 1):
            began = self._clock()
            out = self.session.run(self.fetches + self.targets, self._feeds(step - 1),
                                   timeout=self.timeout)
            values = {name: np.asarray(v) for name, v in zip(self.fetches, out)}
            result = StepResult(step, values, self._clock() - began)
            if self.checkpoint is not None and self._save_due(step):
                result.checkpoint, result.deleted = self.save(step, values)
            yield result

    def _save_due(self, step: int) -> bool:
        config = self.checkpoint
        assert config is not None
        if step == self.steps:
            return True
        if config.every_steps and step % config.every_steps == 0:
            return True
        return bool(config.every_seconds) and (
            self._clock() - self._last_save >= config.every_seconds
        )

    def save(self, step: int, values: Mapping[str, np.ndarray] | None = None,
             ) -> tuple[str, list[str]]:
        """Write `DIR/basename-STEP`, record it, apply retention; return (prefix, deleted)."""
        config = self.checkpoint
        if config is None:
            raise InvalidArgumentError("this loop has no checkpoint directory")
        prefix = os.path.join(config.directory, f"{config.basename}-{step}")
        extra: dict[str, Any] = {STEP_KEY: np.array(step, np.int64)}
        metric = None
        if config.best_metric is not None:
            metric = _metric_value(config.best_metric, (values or {}).get(config.best_metric))
            extra[METRIC_KEY] = np.array(metric, np.float64)
        save_variables(self.session, prefix, extra=extra)
        improved = metric is not None and self._improves(metric)
        best = prefix if improved else (self.best.prefix if self.best else None)
        deleted = record_checkpoint(config.directory, prefix, max_to_keep=config.keep,
                                    keep=[best] if best else [])
        if improved:
            assert metric is not None
            deleted += self._set_best(prefix, metric)
        self._last_save = self._clock()
        self._last_saved_step = step
        return prefix, deleted

    def _improves(self, metric: float) -> bool:
        if math.isnan(metric):
            return False
        if self.best is None:
            return True
        assert self.checkpoint is not None
        if self.checkpoint.best_mode == "min":
            return metric < self.best.value
        return metric > self.best.value

    def _set_best(self, prefix: str, metric: float) -> list[str]:
        config = self.checkpoint
        assert config is not None
        old, self.best = self.best, _Best(prefix, metric)
        state = checkpoint_pb2.CheckpointState(model_checkpoint_path=prefix,
                                               all_model_checkpoint_paths=[prefix])
        write_state(config.directory, state, filename=BEST_STATE_FILENAME)
        if old is None or os.path.abspath(old.prefix) == os.path.abspath(prefix):
            return []
        listed = read_state(config.directory)
        kept = {os.path.abspath(p) for p in (listed.all_model_checkpoint_paths if listed else [])}
        if os.path.abspath(old.prefix) in kept:
            return []
        remove_checkpoint(old.prefix)  # no longer the best, and retention already let it go
        return [old.prefix]


def _metric_value(name: str, value: Any) -> float:
    if value is None:
        raise InvalidArgumentError(f"--keep-best: {name!r} was not fetched")
    array = np.asarray(value)
    if array.size != 1 or array.dtype.kind not in "biuf":
        raise InvalidArgumentError(
            f"--keep-best: {name!r} must be a real scalar, got {array.dtype} with shape "
            f"{list(array.shape)}"
        )
    return float(array.reshape(()))


def _stored_step(prefix: str) -> int:
    """The step counter saved with a checkpoint: `_tfx/step`, else a `-N` suffix, else 0."""
    with BundleReader(prefix) as reader:
        if STEP_KEY in reader:
            return int(np.asarray(reader.read(STEP_KEY)).reshape(()))
    match = re.search(r"-(\d+)$", prefix)
    return int(match.group(1)) if match else 0


def _stored_best(config: CheckpointConfig) -> _Best | None:
    if config.best_metric is None:
        return None
    state = read_state(config.directory, filename=BEST_STATE_FILENAME)
    if state is None or not checkpoint_exists(state.model_checkpoint_path):
        return None
    with BundleReader(state.model_checkpoint_path) as reader:
        if METRIC_KEY not in reader:
            return None
        value = float(np.asarray(reader.read(METRIC_KEY)).reshape(()))
    return _Best(state.model_checkpoint_path, value)


def _remove_stale_temporaries(config: CheckpointConfig) -> None:
    # A kill during a save leaves the bundle's temporary files; they are never committed.
    pattern = os.path.join(glob.escape(config.directory),
                           glob.escape(config.basename) + "-*.tempstate*")
    for path in glob.glob(pattern):
        try:
            os.unlink(path)
        except OSError:
            pass
