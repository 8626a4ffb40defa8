"""`tf.data.experimental.copy_to_device` and `prefetch_to_device`: a dataset's elements
produced on another device, built as TensorFlow 2.21 builds them in a graph.

The copy is a GeneratorDataset placed on the target device whose functions iterate the
input on the source device: `init_func` makes an anonymous iterator over the input
dataset, `next_func` reads its next element, and `finalize_func` lets it go. The
elements are the input's, with its element_spec; the cardinality is unknown (-2), as
TensorFlow reports it. On tfx's devices (the local CPU and the session's virtual devices)
the copy changes where the elements are produced, not their values. A device string that
does not parse is TensorFlow's ValueError when the transformation is made; a device the
session does not have is its error when the iterator runs.

TensorFlow's graph differs in plumbing only: it wraps the input's variant
(WrapDatasetVariant), passes the iterator between the functions as a string handle and
destroys it in `finalize_func`, all through RemoteCall to the source device. tfx passes
the iterator's own handle (tfx's anonymous iterators live as long as their handle, so
dropping it is the destruction) and captures the input directly.

    dataset = dataset.apply(tf.data.experimental.prefetch_to_device("/cpu:0"))
"""

from __future__ import annotations

from typing import Any

from tfx.core import dtypes
from tfx.core.api.data_api import AUTOTUNE, DatasetV1, DatasetV2, _func, _signature
from tfx.core.api.data_experimental_api import Transformation
from tfx.core.api.device_spec_api import DeviceSpec
from tfx.core.api.function_tracing import FuncGraph, trace_with
from tfx.core.api.graph_builder import Tensor, TensorShape, control_dependencies, device
from tfx.core.api.ops_api import apply_op, constant

__all__ = ["copy_to_device", "prefetch_to_device"]


def copy_to_device(target_device: str, source_device: str = "/cpu:0") -> Transformation:
    """The input's elements, produced on `target_device` (for `Dataset.apply`).

    Args:
        target_device: where the elements are produced, e.g. "/cpu:0".
        source_device: where the input is iterated (TensorFlow's default "/cpu:0").

    Returns:
        A function from a dataset to the copied dataset.
    """
    def apply(dataset: DatasetV2) -> DatasetV1:
        return _copy(dataset, target_device, source_device)

    return apply


def prefetch_to_device(device: str, buffer_size: Any = None) -> Transformation:
    """`copy_to_device(device)` followed by a prefetch of `buffer_size` elements (AUTOTUNE
    when None) on `device`, as TensorFlow composes them.

    Args:
        device: where the elements are produced and buffered.
        buffer_size: the number of elements to buffer; None autotunes.

    Returns:
        A function from a dataset to the prefetched dataset.
    """
    def apply(dataset: DatasetV2) -> DatasetV1:
        copied = _copy(dataset, device, "/cpu:0")
        with _on(device):
            return copied.prefetch(AUTOTUNE if buffer_size is None else buffer_size)

    return apply


def _on(device_name: str) -> Any:
    return device(DeviceSpec.from_string(device_name).to_string())


def _copy(dataset: DatasetV2, target_device: str, source_device: str) -> DatasetV1:
    target = DeviceSpec.from_string(target_device).to_string()  # TF's ValueError if bad
    source = DeviceSpec.from_string(source_device).to_string()
    spec = dataset.element_spec
    signature = _signature(spec)
    variant = dataset._variant_tensor

    def handle_input(func_graph: FuncGraph) -> Tensor:
        return func_graph.add_input_placeholder(dtypes.resource, TensorShape([]), "iterator")

    def init(func_graph: FuncGraph) -> Tensor:
        with device(source):
            resource = apply_op("AnonymousIterator", **signature)
            with control_dependencies([apply_op("MakeIterator", dataset=variant,
                                                iterator=resource)]):
                return apply_op("Identity", input=resource)

    def step(func_graph: FuncGraph) -> Any:
        resource = handle_input(func_graph)
        with device(source):
            outputs = apply_op("IteratorGetNext", iterator=resource, **signature)
        return tuple(outputs) if isinstance(outputs, (list, tuple)) else (outputs,)

    def finalize(func_graph: FuncGraph) -> Tensor:
        handle_input(func_graph)  # the iterator goes with its last handle: nothing to do
        return constant(0, dtypes.int64)

    init_fn = trace_with(init, "_remote_init_func")
    next_fn = trace_with(step, "_remote_next_func")
    final_fn = trace_with(finalize, "_remote_finalize_func")
    with device(target):
        out = apply_op("GeneratorDataset", init_func_other_args=init_fn.captured_inputs,
                       next_func_other_args=next_fn.captured_inputs,
                       finalize_func_other_args=final_fn.captured_inputs,
                       init_func=_func(init_fn), next_func=_func(next_fn),
                       finalize_func=_func(final_fn), **signature)
    return DatasetV1(out, spec)
