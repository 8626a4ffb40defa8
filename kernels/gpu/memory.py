"""Where a GPU kernel's tensors live, and the copies between host and GPU memory.

A GPU kernel here is a CPU kernel class run on CuPy arrays: the CPU kernels
compute through numpy's functions and ufuncs, which CuPy arrays take over
(`__array_ufunc__`, `__array_function__`), so one implementation serves both
devices where it only uses what CuPy provides. `OnGPU` is the mixin that
makes such a class a GPU kernel. Around the CPU kernel's `compute` it

* moves each input to the memory its argument lives in: GPU memory, or host
  memory for the arguments TensorFlow keeps on the host (`HOST_TYPES`: int32,
  strings and handles, TensorFlow's rule for GPU kernels; and the shape-like
  arguments in `HOST_MEMORY_INPUTS`, whatever their type), so a kernel never
  mixes host and device arrays in one operation;
* makes the GPU current (`cupy.cuda.Device(i)`) while the kernel runs;
* moves each output to the memory its type lives in, so int32 results (and
  shapes and sizes, `HOST_MEMORY_OUTPUTS`) stay on the host and everything
  else is in GPU memory for the next kernel.

A value already where it belongs is not copied. Dead values and other
non-arrays pass through. CuPy is imported when the first GPU kernel is
built (through `tfx.core.devices.local_gpu`), never when this module loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfx.core import dtypes
from tfx.core.devices import local_gpu
from tfx.core.ops.training_ops import OPTIMIZERS, RESOURCE_SPARSE, SPARSE

# TensorFlow registers GPU kernels with int32 (and string, resource, variant) arguments in
# host memory: such tensors are shapes, indices and sizes that the host reads.
HOST_TYPES = frozenset({dtypes.int32, dtypes.string, dtypes.resource, dtypes.variant})

# Shape-like arguments kept in host memory whatever their integer type (HostMemory in
# TensorFlow's GPU kernel registrations). Negative positions count from the end.
_REDUCTION = {1}
HOST_MEMORY_INPUTS: dict[str, frozenset[int]] = {
    op: frozenset(slots) for op, slots in {
        "Reshape": {1}, "ExpandDims": {1}, "Transpose": {1}, "Tile": {1}, "Fill": {0},
        "ConcatV2": {-1}, "Concat": {0}, "Pad": {1}, "PadV2": {1}, "MirrorPad": {1},
        "Slice": {1, 2}, "StridedSlice": {1, 2, 3}, "BroadcastTo": {1},
        "Sum": _REDUCTION, "Mean": _REDUCTION, "Max": _REDUCTION, "Min": _REDUCTION,
        "Prod": _REDUCTION, "All": _REDUCTION, "Any": _REDUCTION,
        "ArgMax": {1}, "ArgMin": {1}, "Cumsum": {1}, "Cumprod": {1},
        "Split": {0}, "SplitV": {1, 2}, "ReverseV2": {1}, "Range": {0, 1, 2}, "Switch": {1},
        "_SwitchN": {1},
        "LoopCond": {0}, "TopKV2": {1}, "InTopKV2": {2}, "Bincount": {1}, "DenseBincount": {1},
        "ScatterNd": {2}, "UnsortedSegmentSum": {2}, "BroadcastGradientArgs": {0, 1},
    }.items()
}
# Integer arguments a GPU kernel reads on the device, int32 included: a gather's or a
# scatter's indices and the values it moves, segment ids and the data they sort, partitions,
# labels and targets, the values counted, and a one-hot's indices and its on and off values,
# so that no kernel mixes host and device arrays. DynamicStitch reads its indices on the
# host, as TensorFlow's GPU kernel does.
_SCATTER_MODES = ("Update", "Add", "Sub", "Mul", "Div", "Max", "Min")
DEVICE_MEMORY_INPUTS: dict[str, frozenset[int]] = {
    op: frozenset(slots) for op, slots in {
        "GatherV2": {1}, "Gather": {1}, "OneHot": {0, 2, 3}, "GatherNd": {0, 1},
        "ResourceGather": {1}, "ResourceGatherNd": {1}, "ScatterNd": {0, 1},
        **{f"TensorScatter{mode}": {0, 1, 2} for mode in ("Update", "Add", "Sub", "Max", "Min")},
        "SegmentSum": {0, 1}, "SegmentMean": {0, 1}, "UnsortedSegmentSum": {0, 1},
        "DynamicPartition": {0, 1}, "Where": {0}, "Unique": {0}, "UniqueWithCounts": {0},
        "Bincount": {0, 2}, "DenseBincount": {0, 2}, "InTopKV2": {1},
        "SparseSoftmaxCrossEntropyWithLogits": {1},
        **{f"{prefix}{mode}": {1, 2} for prefix in ("Scatter", "ResourceScatter", "ScatterNd",
                                                     "ResourceScatterNd")
           for mode in _SCATTER_MODES},
        # a sparse optimizer update's indices
        **{optimizer.op_name(form): {optimizer.input_names(form).index("indices")}
           for optimizer in OPTIMIZERS.values() for form in optimizer.forms
           if form in (SPARSE, RESOURCE_SPARSE)},
    }.items()
}
# Ops whose outputs are shapes and sizes, or a loop's predicate: on the host whatever their
# type.
HOST_MEMORY_OUTPUTS = frozenset({"Shape", "ShapeN", "Size", "Rank", "LoopCond", "VariableShape",
                                 "BroadcastGradientArgs"})


class OnGPU:
    """Mixin: run the CPU kernel class it precedes on one GPU's memory.

    Subclasses may set `inputs_on_host` to keep every input in host memory (a Send).
    """

    inputs_on_host = False

    def __init__(self, name: str, op: str, attrs: dict[str, Any],
                 input_types: list[dtypes.DType], output_types: list[dtypes.DType],
                 device: str = "") -> None:
        super().__init__(name, op, attrs, input_types, output_types, device)
        self._gpu = local_gpu(device)
        slots = HOST_MEMORY_INPUTS.get(op, frozenset())
        on_device = DEVICE_MEMORY_INPUTS.get(op, frozenset())
        count = len(input_types)
        self._input_on_host = tuple(
            self.inputs_on_host or i in slots or i - count in slots
            or (t.base in HOST_TYPES and i not in on_device)
            for i, t in enumerate(input_types)
        )
        self._output_on_host = tuple(op in HOST_MEMORY_OUTPUTS or t.base in HOST_TYPES
                                     for t in output_types)

    def synchronize(self) -> None:
        """Wait until the GPU has done the work queued so far (for timing a kernel)."""
        self._gpu.context.synchronize()

    def compute(self, *args: Any) -> tuple:
        gpu = self._gpu
        context = args[:1] if self.needs_context else ()
        inputs = args[len(context):]
        moved = [gpu.copy_to_host(x) if host else gpu.copy_from_host(x)
                 for x, host in zip(inputs, self._input_on_host)]
        with gpu.context:
            return self.placed_outputs(super().compute(*context, *moved))

    def placed_outputs(self, outputs: Sequence[Any]) -> tuple:
        """Each output in the memory it lives in: host memory or this GPU's."""
        gpu = self._gpu
        with gpu.context:
            return tuple(gpu.copy_to_host(y) if host else gpu.copy_from_host(y)
                         for y, host in zip(outputs, self._output_on_host))
