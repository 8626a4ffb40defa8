"""A step's cancellation flag that also tells those waiting without a thread.

`CancellationFlag` is a `threading.Event` (so `set`, `is_set` and `wait` work
as ever) that runs callbacks once when it is set, as TensorFlow's
CancellationManager does: an asynchronous wait (a `_Recv` for a tensor not yet
sent, a RecvTensor call in flight) holds no thread to poll the flag, so it
registers what ends it instead.

    key = flag.add_callback(lambda: future.cancel())
    if key is None:
        ...  # cancelled already: the callback will not run, end the wait now
    ...
    flag.remove_callback(key)  # the wait ended first
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable


class CancellationFlag(threading.Event):
    """An Event whose `set` runs the callbacks registered until then, each once."""

    def __init__(self) -> None:
        super().__init__()
        self._callbacks: dict[int, Callable[[], object]] = {}
        self._keys = itertools.count()
        self._callback_lock = threading.Lock()

    def add_callback(self, callback: Callable[[], object]) -> int | None:
        """Run `callback` when the flag is set; return a key for `remove_callback`, or
        None (without running it) if the flag is set already."""
        with self._callback_lock:
            if self.is_set():
                return None
            key = next(self._keys)
            self._callbacks[key] = callback
            return key

    def remove_callback(self, key: int | None) -> None:
        """Forget a callback that has not run (nothing if it ran or `key` is None)."""
        if key is not None:
            with self._callback_lock:
                self._callbacks.pop(key, None)

    def set(self) -> None:
        with self._callback_lock:
            if self.is_set():
                return
            super().set()
            callbacks = list(self._callbacks.values())
            self._callbacks.clear()
        # Outside the lock: a callback may take locks of its own (a rendezvous's).
        for callback in callbacks:
            callback()
