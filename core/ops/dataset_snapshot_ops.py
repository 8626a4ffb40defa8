"""Op schema: SnapshotDatasetV2 (`tf.data.Dataset.snapshot`), with TensorFlow 2.21's
argument and attr names, order and defaults.
"""

from __future__ import annotations

from tfx.core import shapes
from tfx.core.op_registry import register_op

(register_op("SnapshotDatasetV2").input("input_dataset: variant").input("path: string")
 .input("reader_func_other_args: Treader_func_args")
 .input("shard_func_other_args: Tshard_func_args").output("handle: variant")
 .attr("output_types: list(type) >= 1").attr("output_shapes: list(shape) >= 1")
 .attr("compression: string = ''").attr("reader_prefix: string = ''")
 .attr("writer_prefix: string = ''").attr("hash_valid: bool = false").attr("hash: int = 0")
 .attr("reader_func: func").attr("shard_func: func")
 .attr("Treader_func_args: list(type) >= 0").attr("Tshard_func_args: list(type) >= 0")
 .attr("metadata: string = ''").shape(shapes.scalar)
 .doc("The input, written under `path` by the first complete pass (each element to the "
      "shard shard_func names) and read back by later ones through reader_func."))
