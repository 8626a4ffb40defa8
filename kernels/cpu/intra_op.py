"""Intra-op parallelism: one large kernel's work split over its batch dimension.

`map_batch` is what kernels use: it computes a result piece by piece of the
batch on several threads and assembles the pieces in one array.

The executor runs independent kernels in parallel, but a network that is one
chain of convolutions has nothing independent to run: there a kernel has to
use the cores itself. `batch_pieces` cuts a batch into at most one piece per
core, and only when each piece has enough work to repay handing it to a thread
(tens of microseconds); `run_pieces` runs the pieces on a small pool of its own,
the calling thread working too, and re-raises the first piece's error.

numpy releases the GIL inside einsum, ufuncs and matrix products, so the pieces
really run at once. A piece never splits again (a fused kernel calling its base
kernel), and the pool is not the executor's, so a kernel waiting for its pieces
can never wait for itself.

The number of threads is `TFX_INTRA_OP_THREADS` when set (as TensorFlow's
`intra_op_parallelism_threads`; 1 turns splitting off), else the cores this
process may use.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tfx.core.errors import InvalidArgumentError

__all__ = ["batch_pieces", "inside", "map_batch", "run_pieces", "serial", "threads"]

# Work (a kernel's `split_work`) a piece must have before a thread handoff pays. The
# handoff costs 50-150 µs on a busy 2-core VM: at 1 << 19, LeNet's second convolution
# (a 0.1 ms kernel at batch 4) split into 3 pieces and the step took 0.47-0.58 ms
# instead of 0.31 ms.
MIN_PIECE_WORK = 1 << 22
# Pieces per thread, so the work balances when some threads get less of a core.
PIECES_PER_THREAD = 2

_local = threading.local()
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_threads: int | None = None


def threads() -> int:
    """How many threads one kernel may use."""
    global _threads
    if _threads is None:
        setting = os.environ.get("TFX_INTRA_OP_THREADS", "").strip()
        if setting:
            if not setting.isdigit() or int(setting) < 1:
                raise InvalidArgumentError(
                    f"TFX_INTRA_OP_THREADS must be a positive integer, got {setting!r}"
                )
            _threads = int(setting)
        else:
            try:
                _threads = len(os.sched_getaffinity(0))
            except AttributeError:  # not Linux
                _threads = os.cpu_count() or 1
    return _threads


def inside() -> bool:
    """Whether this thread is running a piece (which must not split again)."""
    return getattr(_local, "inside", False)


def serial() -> bool:
    """Whether a kernel called now runs whole on this thread: one thread, or inside a
    piece. Kernels check it first to skip the splitting machinery's Python cost."""
    return threads() == 1 or getattr(_local, "inside", False)


def batch_pieces(batch: int, work: int) -> list[slice]:
    """Slices of range(batch), as even as possible: a few per thread that has work.

    More pieces than threads let a busy machine even out: a thread that is not
    scheduled leaves its pieces to the others instead of holding the kernel up.
    """
    count = min(threads() * PIECES_PER_THREAD, batch, work // MIN_PIECE_WORK)
    if count <= 1 or threads() == 1 or inside():
        return [slice(0, batch)]
    bounds = [batch * k // count for k in range(count + 1)]
    return [slice(start, stop) for start, stop in zip(bounds, bounds[1:])]


def _drain(fn: Callable[[slice], None], queue: Iterator[slice]) -> None:
    _local.inside = True
    try:
        for piece in queue:  # next() on a list iterator is atomic under the GIL
            fn(piece)
    finally:
        _local.inside = False


def _worker_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max(1, threads() - 1), "tfx-intra-op")
    return _pool


def run_pieces(fn: Callable[[slice], None], pieces: list[slice]) -> None:
    """fn(piece) for every piece, on up to threads() threads; returns when all are done.

    The calling thread works too, taking pieces until none are left; a helper that
    had not started by then is cancelled rather than waited for.
    """
    if len(pieces) == 1:
        fn(pieces[0])
        return
    queue = iter(pieces)
    pool = _worker_pool()
    helpers = [pool.submit(_drain, fn, queue)
               for _ in range(min(threads(), len(pieces)) - 1)]
    error: BaseException | None = None
    try:
        _drain(fn, queue)
    except BaseException as exc:  # noqa: BLE001 - re-raised once the helpers are done
        error = exc
        for _ in queue:  # leave the helpers nothing more to start
            pass
    for helper in helpers:
        if helper.cancel():
            continue
        exc = helper.exception()
        if exc is not None and error is None:
            error = exc
    if error is not None:
        raise error


def map_batch(compute: Callable[[slice], np.ndarray], batch: int, work: int,
              dtype: np.dtype,
              finish: Callable[[np.ndarray, np.ndarray | None], np.ndarray] | None = None,
              ) -> np.ndarray:
    """compute(rows) over pieces of range(batch), assembled along the first axis.

    `work` (multiply-adds) decides how many pieces. `finish(y, out)` turns a piece's
    result into the output's rows `out` (elementwise work done while y is in cache)
    and returns them; with out None (one piece) it may return y itself. Without
    `finish` the rows are copied. The first piece to finish allocates the output.
    """
    pieces = batch_pieces(batch, work)
    if len(pieces) == 1:
        y = compute(slice(None))
        return finish(y, None) if finish is not None else y
    result: list[np.ndarray] = []
    lock = threading.Lock()

    def piece(rows: slice) -> None:
        y = compute(rows)
        with lock:
            if not result:
                result.append(np.empty((batch, *y.shape[1:]), dtype))
        out = result[0][rows]
        if y.shape[1:] != out.shape[1:]:
            raise InvalidArgumentError(
                f"batch pieces disagree on the result's shape: {list(y.shape[1:])} vs "
                f"{list(out.shape[1:])}"
            )
        if finish is not None:
            finish(y, out)
        else:
            np.copyto(out, y, casting="same_kind")

    run_pieces(piece, pieces)
    return result[0]
