"""CPU kernel: GenerateBoundingBoxProposals, as TensorFlow's GPU kernel computes it
(TensorFlow registers no CPU kernel).

Per image, in float32:

* the H * W * A scores (index (h * W + w) * A + a) are sorted descending, equal scores
  keeping their order, and the first min(H * W * A, pre_nms_topn) taken;
* each taken box k decodes anchor k (anchors [H, W, 4 * A] as [y1, x1, y2, x2]) with
  its deltas [dy, dx, dh, dw] (dh, dw capped at log(1000 / 16)): the centre moves by
  size * delta, the size scales by exp(delta); corners are clipped to [0, width] and
  [0, height] of image_info [height, width, scale, ...];
* boxes whose shorter side is under min_size * scale are dropped, the order kept;
* greedy non-maximum suppression keeps a box unless a kept box overlaps it with
  intersection > nms_threshold * union (boxes of zero area never overlap), stopping at
  post_nms_topn boxes;
* rois are the kept boxes as [y1, x1, y2, x2] with their scores, zeros after them.
"""

from __future__ import annotations

import math

import numpy as np

from tfx.core.errors import InvalidArgumentError, OutOfRangeError
from tfx.kernels.base import OpKernel, register_kernel

_XFORM_CLIP = np.float32(math.log(1000.0 / 16.0))


def _scalar(value, index: int):
    value = np.asarray(value)
    if value.ndim != 0:
        raise InvalidArgumentError(f"Expected a scalar in input {index}but got shape "
                                   f"[{','.join(map(str, value.shape))}]")
    return value.item()


def _suppress(boxes: np.ndarray, threshold: np.float32, limit: int) -> list[int]:
    """Greedy NMS over boxes [x1, y1, x2, y2] (float32) in order; the kept indices."""
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    kept: list[int] = []
    for i in range(len(boxes)):
        if len(kept) >= limit:
            break
        box = boxes[i]
        suppressed = False
        for j in kept:
            a, b = boxes[j], box
            if areas[j] == 0 or areas[i] == 0:
                continue
            w = max(np.float32(min(a[2], b[2]) - max(a[0], b[0])), np.float32(0))
            h = max(np.float32(min(a[3], b[3]) - max(a[1], b[1])), np.float32(0))
            inter = np.float32(w * h)
            union = np.float32(areas[j] + areas[i] - inter)
            if inter > np.float32(union * threshold):
                suppressed = True
                break
        if not suppressed:
            kept.append(i)
    return kept


@register_kernel("GenerateBoundingBoxProposals", "CPU")
class GenerateBoundingBoxProposals(OpKernel):
    def setup(self, post_nms_topn: int = 300, **attrs):
        if post_nms_topn <= 0:
            raise InvalidArgumentError("post_nms_topn can't be 0 or less")
        self.post = post_nms_topn

    def compute(self, scores, bbox_deltas, image_info, anchors, nms_threshold, pre_nms_topn,
                min_size):
        scores = np.asarray(scores, np.float32)
        deltas = np.asarray(bbox_deltas, np.float32)
        info = np.asarray(image_info, np.float32)
        anchors = np.asarray(anchors, np.float32)
        images, height, width, num_anchors = scores.shape
        if anchors.ndim != 3 or num_anchors == 0 or anchors.shape[2] // num_anchors != 4:
            raise OutOfRangeError("Box dimensions need to be 4")
        threshold = np.float32(_scalar(nms_threshold, 4))
        if threshold < 0 or threshold > 1.0:
            raise InvalidArgumentError(
                f"nms_threshold should be between 0 and 1. Got {threshold:g}")
        top = int(_scalar(pre_nms_topn, 5))
        if top <= 0:
            raise InvalidArgumentError(f"pre_nms_topn should be greater than 0{top}")
        min_size = np.float32(_scalar(min_size, 6))
        count = height * width * num_anchors
        generate = min(count, top)
        flat_anchors = anchors.reshape(-1, 4)
        rois = np.zeros((images, self.post, 4), np.float32)
        probs = np.zeros((images, self.post), np.float32)
        half = np.float32(0.5)
        for n in range(images):
            image_scores = scores[n].reshape(-1)
            order = np.argsort(-image_scores, kind="stable")[:generate]
            anchor = flat_anchors[order]
            delta = deltas[n].reshape(-1, 4)[order]
            y1, x1, y2, x2 = (anchor[:, i] for i in range(4))
            dy, dx = delta[:, 0], delta[:, 1]
            dh = np.minimum(delta[:, 2], _XFORM_CLIP)
            dw = np.minimum(delta[:, 3], _XFORM_CLIP)
            box_w = x2 - x1
            centre_x = x1 + half * box_w + box_w * dx
            new_w = box_w * np.exp(dw)
            box_h = y2 - y1
            centre_y = y1 + half * box_h + box_h * dy
            new_h = box_h * np.exp(dh)
            img_h, img_w, scale = info[n, 0], info[n, 1], info[n, 2]
            zero = np.float32(0)
            bx1 = np.maximum(np.minimum(centre_x - half * new_w, img_w), zero)
            by1 = np.maximum(np.minimum(centre_y - half * new_h, img_h), zero)
            bx2 = np.maximum(np.minimum(centre_x + half * new_w, img_w), zero)
            by2 = np.maximum(np.minimum(centre_y + half * new_h, img_h), zero)
            keep = np.minimum(bx2 - bx1, by2 - by1) >= np.float32(min_size * scale)
            boxes = np.stack([bx1, by1, bx2, by2], axis=1).astype(np.float32)[keep]
            kept_scores = image_scores[order][keep]
            chosen = _suppress(boxes, threshold, self.post)
            for slot, i in enumerate(chosen):
                rois[n, slot] = boxes[i][[1, 0, 3, 2]]
                probs[n, slot] = kept_scores[i]
        return rois, probs
