"""tf.image.generate_bounding_box_proposals (GenerateBoundingBoxProposals).

TensorFlow 2.21 has only a GPU kernel, so the values here are worked out from what that
kernel does (decode, clip, size filter, greedy NMS; kernels/cpu/box_proposals.py), and a
hypothesis property checks the kernel against an independent NumPy reference. Shapes
and the graph-construction error are TensorFlow's (scratch run).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.errors import InvalidArgumentError


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(*args, **kwargs):
    out = tf.image.generate_bounding_box_proposals(*args, **kwargs)
    with tf.Session() as sess:
        return sess.run(out)


# one position (1 x 1), three anchors [y1, x1, y2, x2]
ANCHORS = np.array([[[0, 0, 10, 10, 1, 1, 11, 11, 0, 20, 4, 40]]], np.float32)
INFO = np.array([[30, 30, 1, 0, 0]], np.float32)


def test_decode_sort_clip_filter_and_suppress():
    scores = np.array([[[[0.2, 0.9, 0.5]]]], np.float32)
    deltas = np.zeros((1, 1, 1, 12), np.float32)
    rois, probs = _run(scores, deltas, INFO, ANCHORS, nms_threshold=0.7, min_size=2,
                       post_nms_topn=4)
    # by score: anchor 1 (0.9), anchor 2 (0.5, x2 clipped 40 -> 30), anchor 0 (0.2): its
    # IoU with anchor 1 is 81 / 119 = 0.68 <= 0.7, so it stays
    np.testing.assert_array_equal(rois[0], [[1, 1, 11, 11], [0, 20, 4, 30], [0, 0, 10, 10],
                                            [0, 0, 0, 0]])
    np.testing.assert_array_equal(probs[0], np.float32([0.9, 0.5, 0.2, 0]))
    rois, probs = _run(scores, deltas, INFO, ANCHORS, nms_threshold=0.6, min_size=5,
                       post_nms_topn=3)
    # 0.68 > 0.6 suppresses anchor 0; anchor 2's 4-high box is under min_size 5
    np.testing.assert_array_equal(rois[0], [[1, 1, 11, 11], [0, 0, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(probs[0], np.float32([0.9, 0, 0]))


def test_deltas_move_and_scale_the_anchor():
    scores = np.array([[[[0.2, 0.9, 0.5]]]], np.float32)
    deltas = np.zeros((1, 1, 1, 12), np.float32)
    deltas[0, 0, 0, 4:8] = [0.1, -0.2, math.log(2), 10.0]  # anchor 1: dy, dx, dh, dw
    rois, _ = _run(scores, deltas, INFO, ANCHORS, pre_nms_topn=1, post_nms_topn=1,
                   min_size=0)
    # centre (6, 6) moves by (1, -2); height doubles to 20 (y from -3, clipped to 0, to
    # 17); dw is capped at log(62.5), so the width 625 is clipped to the image width
    np.testing.assert_allclose(rois[0, 0], [0, 0, 17, 30], rtol=1e-6)
    scale = np.float32([[30, 30, 4, 0, 0]])
    _, probs = _run(scores, deltas, scale, ANCHORS, pre_nms_topn=1, post_nms_topn=1,
                    min_size=5)
    assert probs[0, 0] == 0  # shorter side 20 < min_size 5 * scale 4


def test_shapes_and_errors_are_tensorflows():
    scores = tf.placeholder(tf.float32, [2, 3, 4, 5])
    out = tf.image.generate_bounding_box_proposals(
        scores, tf.placeholder(tf.float32, [2, 3, 4, 20]), tf.placeholder(tf.float32, [2, 5]),
        tf.placeholder(tf.float32, [3, 4, 20]), post_nms_topn=7)
    assert out.rois.shape.as_list() == [2, 7, 4]  # TF 2.21's shapes
    assert out.roi_probabilities.shape.as_list() == [2, 7]
    with pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
        tf.image.generate_bounding_box_proposals(
            scores, tf.placeholder(tf.float32, [2, 3, 4, 20]),
            tf.placeholder(tf.float32, [2, 5]), tf.placeholder(tf.float32, [5, 4]))
    good = (np.ones((1, 1, 1, 3), np.float32), np.zeros((1, 1, 1, 12), np.float32), INFO,
            ANCHORS)
    with pytest.raises(InvalidArgumentError, match="nms_threshold should be between 0 and 1"):
        _run(*good, nms_threshold=1.5)
    with pytest.raises(InvalidArgumentError, match="pre_nms_topn should be greater than 0"):
        _run(*good, pre_nms_topn=0)
    with pytest.raises(InvalidArgumentError, match="post_nms_topn can't be 0 or less"):
        _run(*good, post_nms_topn=0)


def _reference(scores, deltas, info, anchors, threshold, pre, min_size, post):
    """Per image: decode every box, then take the top `pre` by score (stable), filter,
    and suppress with an IoU matrix."""
    n, h, w, a = scores.shape
    rois = np.zeros((n, post, 4), np.float32)
    probs = np.zeros((n, post), np.float32)
    clip = np.float32(math.log(1000 / 16))
    for i in range(n):
        flat = scores[i].ravel()
        order = sorted(range(flat.size), key=lambda k: -flat[k])[:min(pre, flat.size)]
        anc = anchors.reshape(-1, 4)[order]
        d = deltas[i].reshape(-1, 4)[order]
        hgt, wid = anc[:, 2] - anc[:, 0], anc[:, 3] - anc[:, 1]
        cy = anc[:, 0] + np.float32(0.5) * hgt + hgt * d[:, 0]
        cx = anc[:, 1] + np.float32(0.5) * wid + wid * d[:, 1]
        nh = hgt * np.exp(np.minimum(d[:, 2], clip))
        nw = wid * np.exp(np.minimum(d[:, 3], clip))
        y1 = np.clip(cy - np.float32(0.5) * nh, 0, info[i, 0])
        y2 = np.clip(cy + np.float32(0.5) * nh, 0, info[i, 0])
        x1 = np.clip(cx - np.float32(0.5) * nw, 0, info[i, 1])
        x2 = np.clip(cx + np.float32(0.5) * nw, 0, info[i, 1])
        ok = np.minimum(x2 - x1, y2 - y1) >= min_size * info[i, 2]
        boxes = np.stack([y1, x1, y2, x2], 1)[ok].astype(np.float32)
        kept_scores = flat[order][ok]
        area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        keep = []
        for j in range(len(boxes)):
            if len(keep) == post:
                break
            clear = True
            for k in keep:
                if area[j] == 0 or area[k] == 0:
                    continue
                inter = (max(min(boxes[j, 2], boxes[k, 2]) - max(boxes[j, 0], boxes[k, 0]), 0)
                         * max(min(boxes[j, 3], boxes[k, 3]) - max(boxes[j, 1], boxes[k, 1]),
                               0))
                if inter > (area[j] + area[k] - inter) * threshold:
                    clear = False
                    break
            if clear:
                keep.append(j)
        rois[i, :len(keep)] = boxes[keep]
        probs[i, :len(keep)] = kept_scores[keep]
    return rois, probs


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 2), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 3), st.sampled_from([0.3, 0.5, 0.7]), st.integers(1, 12),
       st.integers(1, 6))
def test_matches_a_numpy_reference(seed, n, h, w, a, threshold, pre, post):
    rng = np.random.default_rng(seed)
    scores = rng.random((n, h, w, a)).astype(np.float32)
    deltas = (rng.random((n, h, w, 4 * a)) - 0.5).astype(np.float32)
    corner = (rng.random((h, w, a, 2)) * 20).astype(np.float32)
    size = (rng.random((h, w, a, 2)) * 15 + 1).astype(np.float32)
    anchors = np.concatenate([corner, corner + size], -1).reshape(h, w, 4 * a)
    info = np.tile(np.float32([[25, 30, 1, 0, 0]]), (n, 1))
    got = _run(scores, deltas, info, anchors, nms_threshold=threshold, pre_nms_topn=pre,
               min_size=2, post_nms_topn=post)
    want = _reference(scores, deltas, info, anchors, np.float32(threshold), pre,
                      np.float32(2), post)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[1], want[1])
