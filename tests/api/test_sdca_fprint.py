"""tf.train.sdca_fprint (SdcaFprint) and FarmHash's Fingerprint128 against TensorFlow 2.21.

tests/data/sdca_fprint/fprint.json holds TensorFlow's SdcaFprint of 61 strings of 0 to
1000 bytes (generate.py beside it), covering every length branch of the hash.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tfx as tf
from tfx.core.errors import InvalidArgumentError
from tfx.kernels.cpu import sdca as sdca_kernels
from tfx.kernels.cpu.fingerprint128 import fingerprint128

CASES = json.loads((Path(__file__).resolve().parents[1] / "data" / "sdca_fprint" /
                    "fprint.json").read_text())


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_fingerprints_equal_tensorflows():
    strings = np.array([bytes.fromhex(h) for h, _ in CASES], dtype=object)
    fprint = tf.train.sdca_fprint(strings)
    assert fprint.dtype == tf.int64 and fprint.shape.as_list() == [len(CASES), 2]
    with tf.Session() as sess:
        got = sess.run(fprint)
    assert got.tolist() == [want for _, want in CASES]


def test_low_half_skips_the_sentinels(monkeypatch):
    assert fingerprint128(b"abc") == (4143508125394299908, (1 << 64) - 6879828354153669051)
    # TF's rule for a low half of 0 or 1: + 2**64 - 2 (as uint64), i.e. -2 and -1 as int64
    halves = iter([(0, 5), (1, 6), (2, 7)])
    monkeypatch.setattr(sdca_kernels, "fingerprint128", lambda _: next(halves))
    with tf.Session() as sess:
        got = sess.run(tf.train.sdca_fprint(["x", "y", "z"]))
    assert got.tolist() == [[-2, 5], [-1, 6], [2, 7]]


def test_shape_errors_are_tensorflows():
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.train.sdca_fprint([["a"]])
    fed = tf.placeholder(tf.string)
    fprint = tf.train.sdca_fprint(fed)
    assert fprint.shape.as_list() == [None, 2]
    with tf.Session() as sess:
        with pytest.raises(InvalidArgumentError,
                           match=r"Input must be a vector, got shape \[1,1\]"):
            sess.run(fprint, {fed: [["a"]]})
        assert sess.run(fprint, {fed: []}).shape == (0, 2)
