"""tfx: a TensorFlow-1.x-style dataflow system.

Run a graph file:

    import tfx as tf
    graph_def = tf.load_graph("model.pb")
    with tf.Session(graph_def) as sess:
        probs = sess.run("softmax:0", {"input:0": images})

or build one with TensorFlow 1.x's graph API (`tfx.core.api`):

    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.random_uniform([784, 10], -1, 1))
    y = tf.nn.softmax(tf.matmul(x, W))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(y, {x: images})

The package maps `tfx.core`, `tfx.kernels`, `tfx.cli`, `tfx.protos` and
`tfx.graphs` onto the repository's top-level folders (see pyproject.toml).
"""

from __future__ import annotations

import sys as _sys
from types import ModuleType as _ModuleType

from tfx.core import dtypes
from tfx.core.api import linalg_api as _linalg_api
from tfx.core.api import math_api as _math_api
from tfx.core.api import nn_api as _nn_api
from tfx.core.api import train_api as train
from tfx.core.api.array_api import (
    boolean_mask,
    broadcast_to,
    concat,
    dynamic_partition,
    dynamic_stitch,
    expand_dims,
    fill,
    gather,
    gather_nd,
    invert_permutation,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
    matrix_transpose,
    newaxis,
    one_hot,
    ones,
    ones_like,
    pad,
    range,  # noqa: A004 - TensorFlow's name
    rank,
    reshape,
    reverse,
    scatter_nd,
    sequence_mask,
    shape,
    size,
    slice,  # noqa: A004 - TensorFlow's name
    split,
    squeeze,
    stack,
    strided_slice,
    tile,
    transpose,
    unique,
    unstack,
    where,
    zeros,
    zeros_like,
)
from tfx.core.api.control_flow_api import cond, while_loop
from tfx.core.api.data_flow_api import FIFOQueue, QueueBase, RandomShuffleQueue
from tfx.core.api.gradients import NotDifferentiable, RegisterGradient, gradients
from tfx.core.api.graph_builder import (
    Graph,
    GraphKeys,
    IndexedSlices,
    Operation,
    Tensor,
    TensorShape,
    add_to_collection,
    colocate_with,
    control_dependencies,
    device,
    get_collection,
    get_default_graph,
    name_scope,
    reset_default_graph,
)
from tfx.core.api.importer import import_graph_def
from tfx.core.api.math_api import (
    abs,  # noqa: A004 - TensorFlow's name
    add,
    add_n,
    angle,
    argmax,
    argmin,
    cast,
    clip_by_value,
    complex,  # noqa: A004 - TensorFlow's name
    conj,
    cos,
    cumsum,
    divide,
    equal,
    exp,
    greater,
    greater_equal,
    imag,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    matmul,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,  # noqa: A004 - TensorFlow's name
    real,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    round,  # noqa: A004 - TensorFlow's name
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    subtract,
    tanh,
    to_float,
    to_int32,
    to_int64,
    truediv,
)
from tfx.core.api.ops_api import (
    constant,
    convert_to_tensor,
    group,
    identity,
    no_op,
    placeholder,
    placeholder_with_default,
    stop_gradient,
)
from tfx.core.api.ops_api import tuple_ as tuple  # noqa: A004 - TensorFlow's name
from tfx.core.api.random_api import (
    random_normal,
    random_shuffle,
    random_uniform,
    set_random_seed,
    truncated_normal,
)
from tfx.core.api.session_api import InteractiveSession, Session, get_default_session
from tfx.core.api.state_api import (
    Variable,
    assign,
    assign_add,
    assign_sub,
    global_variables,
    global_variables_initializer,
    initialize_all_variables,
    local_variables,
    local_variables_initializer,
    trainable_variables,
    variables_initializer,
)
from tfx.core.api.train_api import clip_by_global_norm, global_norm
from tfx.core.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from tfx.core.dtypes import bool_ as bool  # noqa: A004 - TensorFlow's name
from tfx.core.errors import (
    CancelledError,
    DataLossError,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    OutOfRangeError,
    ResourceExhaustedError,
    TfxError,
    UnimplementedError,
)
from tfx.core.graph_io import load_graph, save_graph

__version__ = "0.1.0"


def _namespace(name: str, doc: str, modules: list[_ModuleType], *extra: object) -> _ModuleType:
    """The module `tfx.<name>`: the `__all__` of each of `modules`, and the functions in
    `extra` (by their `__name__`), nothing else, so that its public names are TensorFlow's.
    It is in `sys.modules`, so `from tfx.<name> import f` works too."""
    namespace = _ModuleType(f"tfx.{name}", doc)
    for module in modules:
        for attr in module.__all__:
            setattr(namespace, attr, getattr(module, attr))
    for fn in extra:
        setattr(namespace, fn.__name__, fn)
    namespace.__all__ = sorted(n for n in vars(namespace) if not n.startswith("_"))
    _sys.modules[namespace.__name__] = namespace
    return namespace


math = _namespace(
    "math", "TensorFlow 1.x's tf.math: elementwise math, reductions, scans, top_k.",
    [_math_api], _nn_api.in_top_k, _nn_api.log_softmax, _nn_api.softmax, _nn_api.softplus,
    _nn_api.softsign, _nn_api.top_k, invert_permutation)
nn = _namespace("nn", _nn_api.__doc__, [_nn_api])
linalg = _namespace("linalg", _linalg_api.__doc__, [_linalg_api])

__all__ = [
    "CancelledError",
    "DType",
    "DataLossError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "FIFOQueue",
    "Graph",
    "QueueBase",
    "RandomShuffleQueue",
    "GraphKeys",
    "IndexedSlices",
    "InteractiveSession",
    "InvalidArgumentError",
    "NotDifferentiable",
    "NotFoundError",
    "Operation",
    "OutOfRangeError",
    "RegisterGradient",
    "ResourceExhaustedError",
    "Session",
    "Tensor",
    "TensorShape",
    "TfxError",
    "UnimplementedError",
    "Variable",
    "abs",
    "add",
    "add_n",
    "add_to_collection",
    "angle",
    "argmax",
    "argmin",
    "as_dtype",
    "assign",
    "assign_add",
    "assign_sub",
    "bfloat16",
    "bool",
    "bool_",
    "boolean_mask",
    "broadcast_to",
    "cast",
    "clip_by_value",
    "colocate_with",
    "complex128",
    "complex",
    "complex64",
    "concat",
    "cond",
    "conj",
    "constant",
    "control_dependencies",
    "convert_to_tensor",
    "cos",
    "cumsum",
    "device",
    "divide",
    "dtypes",
    "dynamic_partition",
    "dynamic_stitch",
    "equal",
    "exp",
    "expand_dims",
    "fill",
    "float16",
    "float32",
    "float64",
    "gather",
    "gather_nd",
    "get_collection",
    "get_default_graph",
    "get_default_session",
    "global_variables",
    "global_variables_initializer",
    "gradients",
    "greater",
    "greater_equal",
    "group",
    "identity",
    "imag",
    "invert_permutation",
    "import_graph_def",
    "initialize_all_variables",
    "int16",
    "int32",
    "int64",
    "int8",
    "less",
    "less_equal",
    "linalg",
    "load_graph",
    "matrix_diag",
    "matrix_diag_part",
    "matrix_set_diag",
    "matrix_transpose",
    "local_variables",
    "local_variables_initializer",
    "log",
    "logical_and",
    "logical_not",
    "logical_or",
    "math",
    "matmul",
    "maximum",
    "minimum",
    "multiply",
    "name_scope",
    "negative",
    "newaxis",
    "nn",
    "no_op",
    "not_equal",
    "one_hot",
    "ones",
    "ones_like",
    "pad",
    "placeholder",
    "placeholder_with_default",
    "pow",
    "random_normal",
    "random_shuffle",
    "random_uniform",
    "range",
    "rank",
    "real",
    "reduce_all",
    "reduce_any",
    "reduce_logsumexp",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "reset_default_graph",
    "reshape",
    "reverse",
    "round",
    "rsqrt",
    "save_graph",
    "scatter_nd",
    "sequence_mask",
    "set_random_seed",
    "shape",
    "sigmoid",
    "sign",
    "sin",
    "size",
    "slice",
    "split",
    "sqrt",
    "square",
    "squared_difference",
    "squeeze",
    "stack",
    "stop_gradient",
    "strided_slice",
    "string",
    "subtract",
    "tanh",
    "tile",
    "to_float",
    "to_int32",
    "to_int64",
    "trainable_variables",
    "transpose",
    "truediv",
    "truncated_normal",
    "train",
    "tuple",
    "clip_by_global_norm",
    "global_norm",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "unique",
    "unstack",
    "variables_initializer",
    "where",
    "while_loop",
    "zeros",
    "zeros_like",
]
