"""`tf.image.generate_bounding_box_proposals`: region proposals from per-anchor scores and
box deltas (the GenerateBoundingBoxProposals op; kernels/cpu/box_proposals.py says how,
as TensorFlow's GPU kernel, TensorFlow having no CPU one).

    rois, probabilities = tf.image.generate_bounding_box_proposals(
        scores, bbox_deltas, image_info, anchors, post_nms_topn=100)
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from tfx.core.api.ops_api import apply_op

__all__ = ["generate_bounding_box_proposals"]

GenerateBoundingBoxProposalsOutput = namedtuple("GenerateBoundingBoxProposals",
                                                ["rois", "roi_probabilities"])


def generate_bounding_box_proposals(scores: Any, bbox_deltas: Any, image_info: Any,
                                    anchors: Any, nms_threshold: Any = 0.7,
                                    pre_nms_topn: Any = 6000, min_size: Any = 16,
                                    post_nms_topn: int = 300, name: str | None = None
                                    ) -> GenerateBoundingBoxProposalsOutput:
    """The best boxes of each image after decoding, clipping, size filter and NMS.

    Args:
        scores: float [images, height, width, anchors], the anchors' scores.
        bbox_deltas: float [images, height, width, 4 * anchors]: [dy, dx, dh, dw] each.
        image_info: float [images, 5]: height, width, scale, ...
        anchors: float [height, width, 4 * anchors], boxes [y1, x1, y2, x2] (TensorFlow's
            docstring says [anchors, 4]; its op takes this rank-3 shape).
        nms_threshold: the IoU above which a box is suppressed, in [0, 1].
        pre_nms_topn: the best-scoring boxes decoded, > 0.
        min_size: the smallest side kept, times the image's scale.
        post_nms_topn: the most boxes returned per image.
        name: the op name.

    Returns:
        (rois float [images, post_nms_topn, 4] as [y1, x1, y2, x2], roi_probabilities
        float [images, post_nms_topn]), zeros past the boxes kept.
    """
    rois, probabilities = apply_op(
        "GenerateBoundingBoxProposals", scores=scores, bbox_deltas=bbox_deltas,
        image_info=image_info, anchors=anchors, nms_threshold=nms_threshold,
        pre_nms_topn=pre_nms_topn, min_size=min_size, post_nms_topn=int(post_nms_topn),
        name=name)
    return GenerateBoundingBoxProposalsOutput(rois, probabilities)
