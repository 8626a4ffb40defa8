"""tf.debugging's traceback-filtering switch, as TensorFlow 2.21 keeps it: on by default,
set and read per thread."""

from __future__ import annotations

import threading

import tfx as tf


def test_traceback_filtering_switch_is_per_thread():
    assert tf.debugging.is_traceback_filtering_enabled() is True
    try:
        assert tf.debugging.disable_traceback_filtering() is None
        assert tf.debugging.is_traceback_filtering_enabled() is False
        seen = []
        thread = threading.Thread(
            target=lambda: seen.append(tf.debugging.is_traceback_filtering_enabled()))
        thread.start()
        thread.join()
        assert seen == [True]  # TF 2.21: another thread keeps its own (default) switch
    finally:
        assert tf.debugging.enable_traceback_filtering() is None
    assert tf.debugging.is_traceback_filtering_enabled() is True
