"""The op cases of the legacy ops, built the same way by TensorFlow (generate.py, which
records TF's values) and by tfx (tests/kernels/cpu/test_math_legacy.py, which compares):
both load this file by path and pass their own `tf`.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def op_cases(tf: Any) -> dict[str, Any]:
    """Each op on fixed inputs: case name -> its output tensor(s), in the default graph."""
    R = tf.raw_ops  # noqa: N806 - as TensorFlow's users write it
    l = tf.constant([[2., 0.], [1., 3.]])  # noqa: E741 - the Cholesky factor
    full = tf.constant([[1., 5.], [2., 1.]])
    bands = tf.constant([[2., 3., 4.], [1., 2., 3.]])
    rhs3 = tf.constant([[1., 2.], [0., 1.], [3., -1.]])
    general = tf.constant([[1., 2., 0.], [0., 3., 1.], [1., 0., 2.]])
    rows = tf.constant([[3., 1., 2., 2., 5.], [1., 2., 3., 4., 5.], [5., 4., 4., 1., 0.]])
    x = tf.constant([[1., 5., 3.], [4., 2., 6.]])
    return {
        "CholeskyGrad": R.CholeskyGrad(l=l, grad=full),
        "BandedTriangularSolve_lower": R.BandedTriangularSolve(matrix=bands, rhs=rhs3),
        "BandedTriangularSolve_upper_adjoint": R.BandedTriangularSolve(
            matrix=bands, rhs=rhs3, lower=False, adjoint=True),
        "Eig": R.Eig(input=general, Tout=tf.complex64),
        "Eig_values": R.Eig(input=general, Tout=tf.complex64, compute_v=False)[0],
        "IsotonicRegression": R.IsotonicRegression(input=rows),
        "IsotonicRegression_int": R.IsotonicRegression(
            input=tf.constant([[1, 3, 2, 7]]), output_dtype=tf.float64),
        "QuantizeAndDequantizeV3": R.QuantizeAndDequantizeV3(
            input=x, input_min=0., input_max=6., num_bits=4),
        "QuantizeAndDequantizeV3_computed": R.QuantizeAndDequantizeV3(
            input=x - 3., input_min=0., input_max=0., num_bits=3, range_given=False,
            narrow_range=True),
        "SparseBincount_matrix": R.SparseBincount(
            indices=tf.constant([[0, 0], [0, 2], [1, 1], [1, 3]], tf.int64),
            values=[1, 1, 3, 7], dense_shape=tf.constant([2, 4], tf.int64), size=5,
            weights=tf.constant([], tf.float32)),
        "SparseBincount_weighted": R.SparseBincount(
            indices=tf.constant([[0], [2], [3]], tf.int64), values=[2, 2, 0],
            dense_shape=tf.constant([4], tf.int64), size=3,
            weights=tf.constant([0.5, 1.5, 2.])),
        "SparseBincount_binary": R.SparseBincount(
            indices=tf.constant([[0], [2], [3]], tf.int64), values=[2, 2, 0],
            dense_shape=tf.constant([4], tf.int64), size=4,
            weights=tf.constant([], tf.int32), binary_output=True),
        "SparseSliceGrad": R.SparseSliceGrad(
            backprop_val_grad=[1., 2.],
            input_indices=tf.constant([[0, 0], [1, 1], [2, 2]], tf.int64),
            input_start=tf.constant([1, 0], tf.int64),
            output_indices=tf.constant([[0, 1], [1, 2]], tf.int64)),
        "SparseCrossHashed": R.SparseCrossHashed(
            indices=[tf.constant([[0, 0], [1, 0], [1, 1]], tf.int64)],
            values=[tf.constant(["x", "y", "z"])],
            shapes=[tf.constant([2, 2], tf.int64)],
            dense_inputs=[tf.constant([["a"], ["b"]]), tf.constant([[1], [2]], tf.int64)],
            num_buckets=100, strong_hash=False, salt=[1, 2]),
        "SparseCrossHashed_strong": R.SparseCrossHashed(
            indices=[tf.constant([[0, 0], [1, 0], [1, 1]], tf.int64),
                     tf.constant([[0, 0], [1, 0]], tf.int64)],
            values=[tf.constant(["x", "y", "z"]), tf.constant([5, 1 << 40], tf.int64)],
            shapes=[tf.constant([2, 2], tf.int64), tf.constant([2, 1], tf.int64)],
            dense_inputs=[tf.constant([["a"], ["b"]])], num_buckets=0, strong_hash=True,
            salt=[11, 23]),
        "DecodePaddedRaw": R.DecodePaddedRaw(
            input_bytes=[b"\x01\x00\x02", b"\x03", b"\x04\x00\x05\x00\x06\x00"],
            fixed_length=4, out_type=tf.int16),
        "DecodePaddedRaw_big": R.DecodePaddedRaw(
            input_bytes=[b"\x01\x00\x02"], fixed_length=4, out_type=tf.uint16,
            little_endian=False),
        "ScatterNdNonAliasingAdd": R.ScatterNdNonAliasingAdd(
            input=x, indices=[[0, 1], [0, 1], [1, 2]], updates=[10., 1., -6.]),
        "SpaceToBatch": R.SpaceToBatch(
            input=tf.reshape(tf.range(8.), [1, 2, 4, 1]), paddings=[[1, 1], [0, 0]],
            block_size=2),
        "BatchToSpace": R.BatchToSpace(
            input=tf.reshape(tf.range(16.), [4, 2, 2, 1]), crops=[[0, 1], [1, 0]],
            block_size=2),
        "DeepCopy": R.DeepCopy(x=x),
        "AccumulateNV2": R.AccumulateNV2(inputs=[x, x * 2., x - 1.], shape=[2, 3]),
        "TensorSummary": R.TensorSummary(tensor=x),
        "TensorSummary_described": R.TensorSummary(
            tensor=tf.constant(["a", "b"]), description="words", labels=["l1"],
            display_name="shown", name="named"),
        "SampleDistortedBoundingBox": R.SampleDistortedBoundingBox(
            image_size=[40, 50, 3], bounding_boxes=[[[0.1, 0.2, 0.5, 0.9]]], seed=3,
            seed2=7, min_object_covered=0.3),
    }


def no_kernel_cases(tf: Any) -> dict[str, Any]:
    """Ops TF 2.21 has no CPU kernel for, built for their static shapes: case name -> its
    output tensor(s), in the default graph (the Batch* FFTs imported into an old graph)."""
    R = tf.raw_ops  # noqa: N806 - as TensorFlow's users write it
    x = tf.constant(np.ones((4, 5), np.float32))
    cases = {
        "SegmentSumV2": R.SegmentSumV2(data=x, segment_ids=[0, 0, 1, 3], num_segments=6),
        "SegmentMaxV2": R.SegmentMaxV2(data=x, segment_ids=[0, 0, 1, 3],
                                       num_segments=tf.compat.v1.placeholder(tf.int32, [])),
        "MaxPoolGradGradWithArgmax": R.MaxPoolGradGradWithArgmax(
            input=tf.ones([1, 4, 4, 1]), grad=tf.ones([1, 4, 4, 1]),
            argmax=tf.zeros([1, 2, 2, 1], tf.int64), ksize=[1, 2, 2, 1],
            strides=[1, 2, 2, 1], padding="VALID"),
        "CTCLossV2": R.CTCLossV2(inputs=tf.zeros([7, 2, 3]),
                                 labels_indices=tf.zeros([3, 2], tf.int64),
                                 labels_values=[1, 2, 1], sequence_length=[7, 5]),
    }
    old = tf.Graph().as_graph_def()
    old.versions.producer = 1
    tf.import_graph_def(old, name="")  # the Batch* ops exist only in old graphs
    for kind in ("FFT", "IFFT"):
        for rank in ("", "2D", "3D"):
            op = f"Batch{kind}{rank}"
            cases[op] = getattr(R, op)(input=tf.zeros([3, 4, 5], tf.complex64))
    return cases
