"""The local rendezvous: where a step's `_Send` leaves a tensor for its `_Recv`.

Keys are TensorFlow's:

    src_device;hex(src_incarnation);dst_device;tensor_name;frame_id:iter_id

(`create_key`), so a partition graph's Send and Recv meet by their attrs alone.
One rendezvous serves one step. `send` never blocks; `recv` blocks until its
key arrives, polling the step's cancellation and deadline; `recv_async` calls
back instead, holding no thread (the step's cancellation, a
`tfx.core.cancellation.CancellationFlag`, ends it); and `take` returns what has
arrived without waiting (the client's fetches, once the step's partitions have
finished). A dead value (an untaken branch of a conditional, a loop's last test)
passes through like any other: the executor runs a `_Send` whose input is dead,
as TensorFlow runs its transfer nodes, so the `_Recv` gets DEAD rather than
waiting. Each key is sent once and received once.

`abort(error)` fails every waiting and later receive with `error`: the
multi-device runner calls it when any partition of the step fails, so the
error reaches every partition.
"""

from __future__ import annotations

import functools
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tfx.core.errors import (
    CancelledError,
    DeadlineExceededError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    TfxError,
)

_POLL_SECONDS = 0.05


def create_key(src_device: str, src_incarnation: int, dst_device: str, tensor_name: str,
               frame_id: int = 0, iter_id: int = 0) -> str:
    """The rendezvous key of one tensor sent from `src_device` to `dst_device`.

    Example:
        >>> create_key("/job:a/replica:0/task:0/device:CPU:0", 1,
        ...            "/job:a/replica:0/task:0/device:CPU:1", "edge_3_x")
        '/job:a/replica:0/task:0/device:CPU:0;0000000000000001;/job:a/replica:0/task:0/device:CPU:1;edge_3_x;0:0'
    """
    return (f"{src_device};{src_incarnation & 0xFFFFFFFFFFFFFFFF:016x};{dst_device};"
            f"{tensor_name};{frame_id}:{iter_id}")


def incarnation_attr(incarnation: int) -> int:
    """An incarnation as the int64 `send_device_incarnation` attr holds it.

    Incarnations are unsigned 64-bit (TensorFlow draws them at random, so half
    have the top bit set); the attr is a signed int64 and TensorFlow stores the
    same 64 bits, so such an incarnation is written as a negative number.

    Example:
        >>> incarnation_attr(2**64 - 1)
        -1
    """
    incarnation &= 0xFFFFFFFFFFFFFFFF
    return incarnation - (1 << 64) if incarnation >> 63 else incarnation


@dataclass(frozen=True)
class ParsedKey:
    src_device: str
    src_incarnation: int
    dst_device: str
    tensor_name: str
    frame_id: int
    iter_id: int


def parse_key(key: str) -> ParsedKey:
    """Split a rendezvous key; InvalidArgumentError if it is not one."""
    parts = key.split(";")
    if len(parts) != 5:
        raise InvalidArgumentError(f"invalid rendezvous key {key!r}: expected 5 ';' fields")
    src, inc, dst, name, frame_iter = parts
    frame, sep, iteration = frame_iter.partition(":")
    try:
        return ParsedKey(src, int(inc, 16), dst, name, int(frame), int(iteration))
    except ValueError:
        raise InvalidArgumentError(f"invalid rendezvous key {key!r}") from None


_MASK64 = (1 << 64) - 1
_MURMUR_MULTIPLIER = 0xC6A4A7935BD1E995


def hash64(data: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TensorFlow's `Hash64`: MurmurHash64A over `data`, with TensorFlow's default seed."""
    m = _MURMUR_MULTIPLIER
    h = (seed ^ (len(data) * m)) & _MASK64
    whole = len(data) - len(data) % 8
    for (k,) in struct.iter_unpack("<Q", data[:whole]):
        k = k * m & _MASK64
        k = (k ^ (k >> 47)) * m & _MASK64
        h = (h ^ k) * m & _MASK64
    if whole < len(data):
        h = (h ^ int.from_bytes(data[whole:], "little")) * m & _MASK64
    h = (h ^ (h >> 47)) * m & _MASK64
    return h ^ (h >> 47)


def hash64_combine(a: int, b: int) -> int:
    """TensorFlow's `Hash64Combine` of two 64-bit hashes."""
    return a ^ ((b + 0x9E3779B97F4A7800 + (a << 10) + (a >> 4)) & _MASK64)


@functools.lru_cache(maxsize=4096)
def _frame_name_hash(name: str) -> int:
    return hash64(name.encode())


def child_frame_id(parent_id: int, parent_iteration: int, name: str) -> int:
    """The id of loop frame `name` entered in iteration `parent_iteration` of the frame
    `parent_id` (0 for the root frame), as TensorFlow's executor numbers frames.

    It is the `frame_id` of the keys of every Send and Recv in that frame, so a frame
    split across tasks meets TensorFlow's half of it: a while loop named "while" at the
    top level is frame 6315961604705615773.
    """
    return hash64_combine(parent_id, hash64_combine(parent_iteration, _frame_name_hash(name)))


_NOTHING = object()


class LocalRendezvous:
    """An in-process table of sent tensors for one step.

    Example:
        >>> r = LocalRendezvous()
        >>> r.send("k", 1.0)
        >>> r.recv("k")
        1.0
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._values: dict[str, Any] = {}
        self._received: set[str] = set()
        self._waiters: dict[str, list[Callable[[Any, BaseException | None], None]]] = {}
        self._error: BaseException | None = None

    def send(self, key: str, value: Any) -> None:
        """Leave `value` (which may be DEAD) under `key`; never blocks."""
        with self._lock:
            if self._error is not None:
                raise _copy(self._error)
            if key in self._received or key in self._values:
                raise InternalError(f"duplicated send of rendezvous key {key!r}")
            callbacks = self._waiters.pop(key, None)
            if callbacks:
                self._received.add(key)
            else:
                self._values[key] = value
                self._lock.notify_all()
        for callback in callbacks or ():
            callback(value, None)

    def recv(self, key: str, step: Any = None, timeout: float | None = None) -> Any:
        """Wait for `key` and take its value.

        Args:
            key: the rendezvous key.
            step: the StepState whose cancellation and deadline end the wait.
            timeout: seconds to wait at most (DeadlineExceededError after).
        """
        end = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                if self._error is not None:
                    raise _copy(self._error)
                value = self._values.pop(key, _NOTHING)
                if value is not _NOTHING:
                    self._received.add(key)
                    return value
                if step is not None:
                    step.check_cancelled()
                wait = _POLL_SECONDS
                if end is not None:
                    left = end - time.monotonic()
                    if left <= 0:
                        raise DeadlineExceededError(f"timed out receiving {key!r}")
                    wait = min(wait, left)
                self._lock.wait(wait)

    def take(self, key: str) -> Any:
        """Take the value under `key` if it has arrived, without waiting.

        What the client does with its fetches once every partition of the step has
        finished: a key that is not there then never will be.

        Raises:
            NotFoundError: nothing was sent under `key` (naming the keys that were).
        """
        with self._lock:
            if self._error is not None:
                raise _copy(self._error)
            value = self._values.pop(key, _NOTHING)
            if value is _NOTHING:
                pending = ", ".join(sorted(self._values)) or "none"
                raise NotFoundError(
                    f"nothing was sent under rendezvous key {key!r}; keys waiting: {pending}")
            self._received.add(key)
            return value

    def recv_async(self, key: str, done: Callable[[Any, BaseException | None], None],
                   step: Any = None) -> None:
        """Call `done(value, None)` when `key` arrives, or `done(None, error)` on abort or
        when `step` (a StepState) is cancelled first; at once if the value is there.

        No thread waits: `done` runs on the thread that sends, aborts or cancels.
        """
        with self._lock:
            error = self._error
            value = _NOTHING if error is not None else self._values.pop(key, _NOTHING)
            if error is None and value is _NOTHING:
                waiter = done if step is None else _CancellableWait(self, key, done, step)
                self._waiters.setdefault(key, []).append(waiter)
            elif value is not _NOTHING:
                self._received.add(key)
        if error is not None:
            done(None, _copy(error))
        elif value is not _NOTHING:
            done(value, None)
        elif step is not None:
            waiter.register()  # (outside the lock: a cancellation may answer it at once)

    def _withdraw(self, key: str, waiter: Callable[..., None]) -> bool:
        """Take back a waiting `recv_async`; False if its key arrived (or the rendezvous
        was aborted) first, so it has been or is being answered."""
        with self._lock:
            waiters = self._waiters.get(key)
            if waiters is None or waiter not in waiters:
                return False
            waiters.remove(waiter)
            if not waiters:
                del self._waiters[key]
            return True

    def abort(self, error: BaseException) -> None:
        """Fail every pending and later send/receive with `error` (first abort wins)."""
        with self._lock:
            if self._error is not None:
                return
            self._error = error
            waiters = [cb for callbacks in self._waiters.values() for cb in callbacks]
            self._waiters.clear()
            self._lock.notify_all()
        for callback in waiters:
            callback(None, _copy(error))

    @property
    def aborted(self) -> bool:
        return self._error is not None

    def pending_keys(self) -> list[str]:
        """Keys sent but not received (for diagnostics)."""
        with self._lock:
            return sorted(self._values)


class _CancellableWait:
    """A `recv_async` that the step's cancellation ends: whichever comes first, the
    tensor (or an abort) or the cancellation, answers it, and only that one."""

    __slots__ = ("_rendezvous", "_key", "_done", "_flag", "_registration")

    def __init__(self, rendezvous: LocalRendezvous, key: str,
                 done: Callable[[Any, BaseException | None], None], step: Any) -> None:
        self._rendezvous = rendezvous
        self._key = key
        self._done = done
        self._flag = step.cancelled
        self._registration: int | None = None

    def register(self) -> None:
        """Have the step's cancellation end this wait, once it is in the table."""
        self._registration = self._flag.add_callback(self._cancel)
        if self._registration is None:  # cancelled already
            self._cancel()

    def __call__(self, value: Any, error: BaseException | None) -> None:
        self._flag.remove_callback(self._registration)
        self._done(value, error)

    def _cancel(self) -> None:
        if self._rendezvous._withdraw(self._key, self):
            self._done(None, CancelledError("the step was cancelled"))


def _copy(error: BaseException) -> BaseException:
    if isinstance(error, TfxError):
        return type(error)(str(error))
    return error
