"""Op schemas that feature columns need: Bucketize and SparseCross.

Bucketize (TF's math_ops.cc) maps each value to the number of `boundaries`
that are <= it, an int32 bucket id in [0, len(boundaries)]. SparseCross (TF's
sparse_ops.cc) crosses the features of each row of N sparse and any number of
dense [batch, k] inputs: every combination of one feature per input, sparse
inputs first, the last input varying fastest. With `hashed_output` each
combination is `FingerprintCat64`-chained from `hash_key` over the features'
hashes (an int64 feature is its own hash, a string its Fingerprint64), taken
modulo `num_buckets` (or int64 max when it is 0); otherwise the features are
joined with "_X_" into a string. The attr syntax here has no typed lists, so
the {int64, string} restriction on the feature types is checked by the kernel.
"""

from __future__ import annotations

from tfx.core.op_registry import register_op
from tfx.core.shapes import Shape, ShapeContext


def _bucketize_shape(ctx: ShapeContext) -> list[Shape]:
    return [ctx.input_shapes[0]]


def _cross_shape(ctx: ShapeContext) -> list[Shape]:
    return [(None, 2), (None,), (2,)]


(register_op("Bucketize")
    .input("input: T").output("output: int32").attr("T: {int32, int64, float, double}")
    .attr("boundaries: list(float)")
    .shape(_bucketize_shape)
    .doc("The index of the bucket of each value: how many boundaries are <= it."))

(register_op("SparseCross")
    .input("indices: N * int64").input("values: sparse_types").input("shapes: N * int64")
    .input("dense_inputs: dense_types").output("output_indices: int64")
    .output("output_values: out_type").output("output_shape: int64")
    .attr("N: int >= 0").attr("hashed_output: bool").attr("num_buckets: int >= 0")
    .attr("hash_key: int").attr("sparse_types: list(type) >= 0")
    .attr("dense_types: list(type) >= 0").attr("out_type: {int64, string}")
    .attr("internal_type: {int64, string}")
    .shape(_cross_shape)
    .doc("The crosses of the features of each row of sparse and dense inputs."))
