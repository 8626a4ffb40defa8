"""TensorFlow 2.21's tf.debugging switches: traceback filtering.

`enable_traceback_filtering`, `disable_traceback_filtering` and
`is_traceback_filtering_enabled` keep TensorFlow's per-thread switch (on unless a thread
turns it off). TensorFlow consults it to drop its own frames from the tracebacks of the
errors it raises; tfx's errors already name the node, op and device they come from and keep
their whole traceback, so the switch is state that code written for TensorFlow can set and
read, and nothing else changes.

    tf.debugging.disable_traceback_filtering()
    tf.debugging.is_traceback_filtering_enabled()   # False, in this thread only
"""

from __future__ import annotations

import threading

__all__ = ["disable_traceback_filtering", "enable_traceback_filtering",
           "is_traceback_filtering_enabled"]

_traceback_filtering = threading.local()


def is_traceback_filtering_enabled() -> bool:
    """Whether traceback filtering is on in this thread (True unless disabled here).

    Returns:
        The thread's switch, as `enable_traceback_filtering` and
        `disable_traceback_filtering` last set it.
    """
    return getattr(_traceback_filtering, "value", True)


def enable_traceback_filtering() -> None:
    """Turn traceback filtering back on in this thread."""
    _traceback_filtering.value = True


def disable_traceback_filtering() -> None:
    """Turn traceback filtering off in this thread (other threads keep theirs)."""
    _traceback_filtering.value = False
