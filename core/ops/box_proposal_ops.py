"""Op schema: GenerateBoundingBoxProposals (TensorFlow's image_ops.cc).

Region proposals from a detector's per-anchor scores and box deltas: for each image the
`pre_nms_topn` best-scoring anchors are decoded into boxes, clipped to the image, those
smaller than `min_size` dropped, and non-maximum suppression keeps at most
`post_nms_topn`: rois float [images, post_nms_topn, 4] as [y1, x1, y2, x2] and
roi_probabilities float [images, post_nms_topn], zero past the boxes kept.
"""

from __future__ import annotations

from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext


def _proposals_shape(ctx: ShapeContext) -> list[Shape]:
    ranks = (("scores", 4), ("bbox_deltas", 4), ("image_info", 2), ("anchors", 3),
             ("nms_threshold", 0), ("pre_nms_topn", 0), ("min_size", 0))
    for (what, rank), shape in zip(ranks, ctx.input_shapes):
        if shape is not None and len(shape) != rank:
            raise ctx.error(f"Shape must be rank {rank} but is rank {len(shape)} ({what})")
    scores = ctx.input_shapes[0]
    images = None if scores is None else scores[0]
    top = ctx.attrs["post_nms_topn"]
    return [(images, top, 4), (images, top)]


(register_op("GenerateBoundingBoxProposals")
    .input("scores: float").input("bbox_deltas: float").input("image_info: float")
    .input("anchors: float").input("nms_threshold: float").input("pre_nms_topn: int32")
    .input("min_size: float")
    .output("rois: float").output("roi_probabilities: float")
    .attr("post_nms_topn: int = 300")
    .shape(_proposals_shape)
    .doc("Decode anchors' box deltas, keep the best-scoring boxes after non-maximum "
         "suppression."))
