"""`tf.train.do_quantize_training_on_graphdef`: a GraphDef whose MatMul and Conv2D inputs
go through QuantizeAndDequantizeV2 with moving or fixed ranges (core/passes/
quantize_training.py says how), as TensorFlow's deprecated rewriter.

    quantized = tf.train.do_quantize_training_on_graphdef(graph.as_graph_def(), 8)
    tf.import_graph_def(quantized, name="")
"""

from __future__ import annotations

from typing import Any

from tfx.core.api.logging_compat_api import get_logger
from tfx.core.passes.quantize_training import quantize_training
from tfx.protos import graph_pb2

__all__ = ["do_quantize_training_on_graphdef"]

_warned = False


def do_quantize_training_on_graphdef(input_graph: Any, num_bits: int) -> graph_pb2.GraphDef:
    """The quantized-training rewrite of `input_graph`.

    Args:
        input_graph: a GraphDef (tfx's, or any with SerializeToString, as TensorFlow's).
        num_bits: the quantization bits, 1 to 63.

    Returns:
        The rewritten GraphDef (the input is not changed).

    Raises:
        IndexError: num_bits outside [1, 63], as TensorFlow.
        NotImplementedError: more than 2 inputs from ops of no known range, as TensorFlow.
        ValueError: several SaveV2 ops, or one without its restore_all NoOp.

    Example:
        >>> q = tf.train.do_quantize_training_on_graphdef(g.as_graph_def(), 8)
        >>> [n.name for n in q.node if n.op == "QuantizeAndDequantizeV2"]
        ['x/QuantizeAndDequantizeV2', 'w/read/QuantizeAndDequantizeV2']
    """
    global _warned
    if not _warned:
        _warned = True
        get_logger().warning(
            "do_quantize_training_on_graphdef (from tensorflow.python.training."
            "quantize_training) is deprecated and will be removed in a future version.\n"
            "Instructions for updating:\nGraphDef quantized training rewriter is deprecated "
            "in the long term.")
    graph_def = input_graph
    if not isinstance(graph_def, graph_pb2.GraphDef):
        graph_def = graph_pb2.GraphDef.FromString(input_graph.SerializeToString())
    return quantize_training(graph_def, int(num_bits))
