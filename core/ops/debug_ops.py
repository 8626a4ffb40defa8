"""Op schemas: tfdbg v2's graph instrumentation (TensorFlow's debug_ops.cc), with TensorFlow
2.21's argument and attr names, order and defaults.
"""

from __future__ import annotations

from tfx.core import shapes
from tfx.core.op_registry import register_op

# The length of DebugNumericSummaryV2's summary per tensor_debug_mode (TensorDebugMode):
# CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH, SHAPE, REDUCE_INF_NAN_THREE_SLOTS.
SUMMARY_SIZES = {2: 2, 3: 5, 4: 11, 5: 10, 8: 3}

(register_op("DebugIdentityV2").input("input: T").output("output: T").attr("T: type")
 .attr("tfdbg_context_id: string = ''").attr("op_name: string = ''")
 .attr("output_slot: int = -1").attr("tensor_debug_mode: int = -1")
 .attr("debug_urls: list(string) = []").attr("circular_buffer_size: int = 1000")
 .attr("tfdbg_run_id: string = ''").stateful().shape(shapes.unchanged)
 .doc("`input`, recorded as a GraphExecutionTrace in the tfdbg event files of each "
      "file:// debug URL."))
(register_op("DebugNumericSummaryV2").input("input: T").output("output: output_dtype")
 .attr("output_dtype: {float, double} = DT_FLOAT").attr("T: type")
 .attr("tensor_debug_mode: int = -1").attr("tensor_id: int = -1")
 .shape(lambda ctx: [(SUMMARY_SIZES.get(ctx.attrs.get("tensor_debug_mode", -1)),)])
 .doc("A summary of `input` for a tfdbg tensor debug mode (CURT_HEALTH, CONCISE_HEALTH, "
      "FULL_HEALTH, SHAPE, REDUCE_INF_NAN_THREE_SLOTS)."))
