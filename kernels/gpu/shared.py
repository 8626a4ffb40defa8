"""GPU kernels written once: the CPU kernels of ops whose numpy code CuPy runs as is.

For each op in `SHARED_OPS`, every CPU registration gets a GPU twin: the same
class with `OnGPU` in front (`tfx.kernels.gpu.memory`), registered for "GPU"
with its dtype constraints narrowed to `GPU_TYPES`. An op is listed only when
its CPU kernel uses nothing CuPy lacks (no `np.asarray` on inputs, no Python
loops over elements, no numpy-only functions: such kernels make their arrays
through `tfx.core.arrays.namespace`); the GPU tests run each listed op on an
emulation of CuPy's rules, and on a real GPU when one is present.
Everything else runs on the CPU: the placer sees no GPU kernel for it.
"""

from __future__ import annotations

from tfx.core import dtypes
from tfx.core.kernel_registry import kernels_for, register_kernel
from tfx.core.ops.training_ops import DENSE_FORMS, OPTIMIZERS
from tfx.kernels.gpu.memory import OnGPU

# The dtypes CuPy arrays hold (no bfloat16, quantized, string or handle types).
GPU_TYPES = frozenset({
    dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128,
    dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
    dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64, dtypes.bool_,
})

# The dense optimizer updates (ApplyAdam, ResourceApplyMomentum, ...): elementwise rules.
TRAINING_OPS = tuple(optimizer.op_name(form) for optimizer in OPTIMIZERS.values()
                     for form in optimizer.forms if form in DENSE_FORMS)
# The sparse updates TensorFlow has GPU kernels for (training_ops_gpu.cu.cc): the others
# (SparseApplyMomentum, SparseApplyRMSProp, ...) run on the CPU there, and here.
_SPARSE_ON_GPU = ("Adagrad", "AdagradV2", "ProximalAdagrad", "Ftrl", "FtrlV2", "KerasMomentum")
SPARSE_TRAINING_OPS = tuple(OPTIMIZERS[name].op_name(form) for name in _SPARSE_ON_GPU
                            for form in OPTIMIZERS[name].forms if form not in DENSE_FORMS)

# Scatter updates of ref and resource variables (scatter_op.cc, scatter_nd_op.cc).
# Mul and Div stay on the CPU: CuPy has `ufunc.at` only for add, subtract, maximum and
# minimum (and the bitwise ones), not for multiply or divide.
_SCATTER_MODES = ("Update", "Add", "Sub", "Max", "Min")
_SCATTER_ND_MODES = ("Update", "Add", "Sub", "Max", "Min")
SCATTER_OPS = (*(f"Scatter{mode}" for mode in _SCATTER_MODES),
               *(f"ResourceScatter{mode}" for mode in _SCATTER_MODES),
               *(f"ScatterNd{mode}" for mode in _SCATTER_ND_MODES),
               *(f"ResourceScatterNd{mode}" for mode in _SCATTER_ND_MODES))

# Ops driven by index tensors (ids, partitions, labels, k) that the CPU kernels read with
# array functions CuPy has, so their indices stay on the device (`DEVICE_MEMORY_INPUTS`);
# their outputs sized by index values (Where, Unique, DynamicPartition, ...) cost a host sync.
INDEXED_OPS = (
    "TopK", "TopKV2", "InTopKV2", "SparseSoftmaxCrossEntropyWithLogits",
    # Segment Max, Min and Prod stay on the CPU: their kernels reduce with `reduceat`, which
    # CuPy has for add only.
    "SegmentSum", "SegmentMean", "UnsortedSegmentSum",
    "DynamicPartition", "DynamicStitch", "ParallelDynamicStitch",
    "GatherNd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
    "TensorScatterMax", "TensorScatterMin", "ResourceGather", "ResourceGatherNd",
    "Bincount", "DenseBincount", "Where", "Unique", "UniqueWithCounts",
    *SCATTER_OPS, *SPARSE_TRAINING_OPS,
)

SHARED_OPS = (
    # elementwise math
    "Abs", "Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Reciprocal", "Sign", "Floor",
    "Ceil", "Tanh", "Sigmoid", "Sin", "Cos", "Log1p", "Expm1",
    "Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow",
    "SquaredDifference", "FloorDiv", "FloorMod", "AddN",
    "Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual",
    "LogicalAnd", "LogicalOr", "LogicalNot", "Select", "SelectV2",
    # neural network
    "Relu", "Relu6", "Elu", "LeakyRelu", "Softplus", "BiasAdd", "Softmax", "LogSoftmax",
    "ReluGrad", "SoftmaxCrossEntropyWithLogits", "MatMul", "BatchMatMulV2", "Conv2D",
    "DepthwiseConv2dNative", "MaxPool", "AvgPool",
    # reductions
    "Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "ArgMax", "ArgMin", "Cumsum", "Cumprod",
    # shapes and copies
    "Placeholder", "PlaceholderV2", "PlaceholderWithDefault",
    "Identity", "StopGradient", "PreventGradient", "Reshape", "ExpandDims", "Squeeze",
    "Transpose", "ConcatV2", "Pack", "Unpack", "Cast", "Shape", "Size", "Rank", "Fill",
    "Tile", "Pad", "Slice", "StridedSlice", "Split", "ReverseV2", "ZerosLike", "OnesLike",
    "Gather", "GatherV2", "Range", "OneHot", "Einsum", "BroadcastGradientArgs",
    # control
    "NoOp", "ControlTrigger", "Switch", "_SwitchN", "Merge", "Enter", "Exit", "NextIteration",
    "LoopCond",
    # variables and their updates (the value lives on the variable's device)
    "VariableV2", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized",
    "VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
    "AssignSubVariableOp", "VarIsInitializedOp", "VariableShape",
    *TRAINING_OPS, *INDEXED_OPS,
)


def _register_twins(ops: tuple[str, ...]) -> None:
    for op in ops:
        for reg in kernels_for(op):
            if reg.device_type != "CPU":
                continue
            constraints = {attr: allowed & GPU_TYPES for attr, allowed in reg.constraints}
            if any(not allowed for allowed in constraints.values()):
                continue
            cpu_class = reg.kernel_class
            twin = type(cpu_class.__name__, (OnGPU, cpu_class), {
                "__module__": __name__,
                "__doc__": f"{op} on a GPU: the CPU kernel {cpu_class.__qualname__} on CuPy.",
            })
            register_kernel(op, "GPU", **constraints)(twin)


_register_twins(SHARED_OPS)
