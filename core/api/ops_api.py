"""Creating ops from Python values: conversion to tensors and `apply_op`.

`apply_op("MatMul", a=x, b=w, transpose_b=True)` is what every API function
builds on, as TensorFlow's op_def_library: arguments are matched to the op's
inputs by name, type attrs (`T`, `Tidx`, `N`, list types) are inferred from
the tensors given, Python values are converted to constants of the inferred
type inside the op's name scope (`Sum/reduction_indices`), and ops with
reference inputs are colocated with the variable they update. A dtype
mismatch raises `DTypeError` naming the op, the argument and both types.

The basic ops that do not belong to a family live here too: `constant`,
`placeholder`, `identity`, `no_op`, `group`, `tuple`, `stop_gradient`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tfx.core import dtypes, tensor_util
from tfx.core.api import op_callbacks
from tfx.core.api.graph_builder import (
    DTypeError,
    Graph,
    IndexedSlices,
    Operation,
    Tensor,
    TensorShape,
    as_shape,
    get_default_graph,
)
from tfx.core.dtypes import as_dtype
from tfx.core.errors import InvalidArgumentError, closest
from tfx.core.op_registry import get_op
from tfx.protos import graph_pb2

__all__ = [
    "apply_op", "as_dtype", "convert_to_tensor", "convert_n_to_tensor", "constant", "placeholder",
    "placeholder_with_default", "identity", "no_op", "group", "tuple_", "stop_gradient",
    "register_tensor_conversion_function",
]

_CONVERSION_FUNCTIONS: list[tuple[type, Any]] = []


def register_tensor_conversion_function(base_type: type, conversion_func: Any) -> None:
    """Let `convert_to_tensor` accept instances of `base_type`.

    `conversion_func(value, dtype=None, name=None, as_ref=False)` returns a Tensor.
    """
    _CONVERSION_FUNCTIONS.append((base_type, conversion_func))


def convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None,
                      preferred_dtype: Any = None, dtype_hint: Any = None,
                      as_ref: bool = False) -> Tensor:
    """A Tensor for `value`: tensors pass through, Python and numpy values become constants.

    Args:
        value: a Tensor, Variable, IndexedSlices, numpy array, Python number or (nested) list,
            possibly containing tensors (packed with `Pack`).
        dtype: the required element type; a mismatch raises DTypeError.
        name: the name of a new constant.
        preferred_dtype: the type to use when `value` allows it and `dtype` is None.
        dtype_hint: TensorFlow's newer name for `preferred_dtype`.
        as_ref: return the reference of a variable instead of its value.

    Returns:
        A Tensor.
    """
    if dtype_hint is not None:
        if preferred_dtype is not None:
            raise ValueError("Cannot specify both 'preferred_dtype' and 'dtype_hint'.")
        preferred_dtype = dtype_hint
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype.base is not dtype.base:
            raise DTypeError(
                f"tensor {value.name!r} has type {value.dtype.base}, but {dtype} was expected"
            )
        return value
    for base_type, func in _CONVERSION_FUNCTIONS:
        if isinstance(value, base_type):
            return func(value, dtype=dtype, name=name, as_ref=as_ref)
    if isinstance(value, IndexedSlices):
        from tfx.core.api.array_api import indexed_slices_to_tensor

        return convert_to_tensor(indexed_slices_to_tensor(value), dtype)
    if isinstance(value, Operation):
        raise TypeError(f"cannot convert operation {value.name!r} to a tensor (it has no value)")
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return _autopack(value, dtype or (
            dtypes.as_dtype(preferred_dtype) if preferred_dtype is not None else None),
            name or "packed")
    if dtype is None and preferred_dtype is not None:
        try:
            return constant(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant(value, dtype=dtype, name=name or "Const")


def _autopack(value: list | tuple, dtype: dtypes.DType | None, name: str) -> Tensor:
    """A (nested) list holding tensors as one `Pack`ed tensor, as TensorFlow packs it: of
    `dtype`, its tensors cast to it, or else of its first tensor's type, which its other
    tensors must have (TypeError) and its plain values are made constants of."""
    from tfx.core.api.graph_builder import name_scope

    def tensors_of(items: Any) -> Any:
        if isinstance(items, (list, tuple)):
            return [tensors_of(v) for v in items]
        return convert_to_tensor(items) if _is_tensor_like(items) else items

    def first_dtype(items: list) -> dtypes.DType | None:
        for item in items:
            found = item.dtype.base if isinstance(item, Tensor) else (
                first_dtype(item) if isinstance(item, list) else None)
            if found is not None:
                return found
        return None

    def cast_all(items: Any, to: dtypes.DType) -> Any:
        if isinstance(items, list):
            return [cast_all(v, to) for v in items]
        if isinstance(items, Tensor) and items.dtype.base is not to:
            return apply_op("Cast", x=items, DstT=to, Truncate=False, name="Cast")
        return items

    def pack(items: list, scope_name: str) -> Any:
        with name_scope(scope_name) as scope:
            parts = []
            for i, item in enumerate(items):
                if isinstance(item, Tensor) and item.dtype.base is not dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype "
                                    f"{item.dtype!r} to {dtype!r} (Tensor is: {item!r})")
                parts.append(pack(item, str(i)) if isinstance(item, list) else item)
            if not any(isinstance(p, Tensor) for p in parts):
                return parts
            return apply_op("Pack", values=[
                p if isinstance(p, Tensor) else constant(p, dtype, name=str(i))
                for i, p in enumerate(parts)], name=scope)

    items = tensors_of(value)
    inferred = first_dtype(items)
    if dtype is None:
        dtype = inferred
    elif dtype.base is not inferred:
        dtype = dtype.base
        items = cast_all(items, dtype)
    return pack(items, name)


def _contains_tensor(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return isinstance(value, Tensor) or any(isinstance(value, t) for t, _ in _CONVERSION_FUNCTIONS)


def convert_n_to_tensor(values: Iterable[Any], dtype: Any = None,
                        name: str | None = None) -> list[Tensor]:
    return [convert_to_tensor(v, dtype, name=None if name is None else f"{name}_{i}")
            for i, v in enumerate(values)]


def _to_array(value: Any, dtype: dtypes.DType | None) -> np.ndarray:
    """numpy value of a Python/numpy constant, refusing lossy conversions as TensorFlow."""
    if dtype is None:
        array = tensor_util.as_ndarray(value)
        if array.dtype.kind == "O" and not all(isinstance(v, bytes) for v in array.flat):
            # Strings come back as bytes objects; anything else has no tensor type.
            raise TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider "
                            f"casting elements to a supported type.")
        dtypes.as_dtype(array.dtype)  # refuses types TensorFlow has no name for
        return array
    if dtype is dtypes.string:
        return tensor_util.as_ndarray(value, dtype)
    raw = value if isinstance(value, np.ndarray) else np.asarray(value)
    if raw.dtype.kind in "USO":
        raise TypeError(f"expected {dtype}, got {value!r} of type {type(value).__name__}")
    want = dtype.np
    # An empty value has no element to lose: [] (float64 to numpy) is an empty int32 tensor.
    lossy = raw.size > 0 and (
        (raw.dtype.kind == "c" and not dtype.is_complex)
        or (raw.dtype.kind == "f" and (dtype.is_integer or dtype is dtypes.bool_))
        or (raw.dtype.kind in "iu" and dtype is dtypes.bool_)
    )
    if lossy:
        raise TypeError(
            f"expected {dtype}, got {value!r} of type "
            f"{type(value).__name__ if not isinstance(value, np.ndarray) else raw.dtype}"
        )
    if dtype.is_integer and raw.size and raw.dtype.kind in "iu":
        info = np.iinfo(want)
        if raw.min() < info.min or raw.max() > info.max:
            raise ValueError(f"value {value!r} is out of range for {dtype}")
    return raw.astype(want, copy=False)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> Tensor:
    """A `Const` op holding `value`.

    Args:
        value: a number, list or numpy array.
        dtype: element type (default: inferred; Python floats are float32, ints int32).
        shape: the result's shape; a scalar `value` is repeated to fill it.
        name: op name.
        verify_shape: refuse a value whose shape differs from `shape`.

    Example:
        >>> constant(0.0, shape=[2, 3]).shape.as_list()
        [2, 3]
    """
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    array = _to_array(value, dtype)
    if shape is not None:
        target = tuple(as_shape(shape).as_list())
        if array.shape != target:
            if verify_shape:
                raise TypeError(f"expected shape {list(target)}, got {list(array.shape)}")
            if array.size == 1:
                array = np.full(target, array.reshape(-1)[0], dtype=array.dtype)
            elif array.size == int(np.prod(target, dtype=np.int64)):
                array = array.reshape(target)
            else:
                raise TypeError(
                    f"cannot reshape a value of {array.size} elements to shape {list(target)}"
                )
    out_dtype = dtype or dtypes.as_dtype(array.dtype)
    value_attr = graph_pb2.AttrValue(tensor=tensor_util.from_ndarray(array, out_dtype))
    op = get_default_graph().create_op(
        "Const", [], {"value": value_attr, "dtype": out_dtype}, name=name
    )
    return op_callbacks.instrument(op, op.outputs, in_own_scope=False)[0]


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    """A `Placeholder`: a tensor whose value is fed when the graph runs.

    Example:
        >>> x = placeholder(float32, [None, 784], name="x")
    """
    shape = as_shape(shape).as_tuple() if shape is not None else None
    op = get_default_graph().create_op(
        "Placeholder", [], {"dtype": dtypes.as_dtype(dtype), "shape": shape},
        name=name or "Placeholder",
    )
    return op_callbacks.instrument(op, op.outputs)[0]


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """`input` unless a value is fed; `shape` (None: unknown rank) is what a feed may have.

    Example:
        >>> p = placeholder_with_default([1.0, 2.0], None)  # any shape may be fed
    """
    value = convert_to_tensor(input)
    # Given as an AttrValue: apply_op would drop a None shape as "not given", not unknown rank.
    shape_attr = graph_pb2.AttrValue(
        shape=tensor_util.shape_to_proto(as_shape(shape).as_tuple()))
    return apply_op("PlaceholderWithDefault", input=value, dtype=value.dtype.base,
                    shape=shape_attr, name=name)


def identity(input: Any, name: str | None = None) -> Tensor:
    """The value of `input`, as a new op (reads a variable's current value)."""
    return apply_op("Identity", input=input, name=name)


def stop_gradient(input: Any, name: str | None = None) -> Tensor:
    """`input` unchanged, but gradients do not flow through it."""
    return apply_op("StopGradient", input=input, name=name)


def no_op(name: str | None = None) -> Operation:
    return get_default_graph().create_op("NoOp", [], name=name or "NoOp")


def group(*inputs: Any, **kwargs: Any) -> Operation:
    """A NoOp that runs after all `inputs` (ops or tensors), as `tf.group`.

    Like TensorFlow, the only keyword argument accepted is `name`.

    Example:
        >>> train = group(update_w, update_b, name="train")
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs))
    ops: list[Operation] = []
    for item in _flatten(inputs):
        op = item if isinstance(item, Operation) else getattr(item, "op", None)
        if not isinstance(op, Operation):
            raise TypeError(f"group: {item!r} is not an Operation or Tensor")
        if all(op is not o for o in ops):
            ops.append(op)
    graph = ops[0].graph if ops else get_default_graph()
    with graph.as_default():
        # TensorFlow orders the dependencies by device, then name.
        ops.sort(key=lambda o: (o.device, o.name))
        with graph.control_dependencies(ops):
            return no_op(name=name or "group_deps")


def _flatten(items: Any) -> list:
    out: list = []
    for item in items:
        if isinstance(item, (list, tuple, set)):
            out.extend(_flatten(item))
        elif isinstance(item, dict):
            out.extend(_flatten(item.values()))
        elif item is not None:
            out.append(item)
    return out


def tuple_(tensors: Sequence[Any], name: str | None = None,
           control_inputs: Sequence[Any] | None = None) -> list:
    """The `tensors`, each available only once all of them are computed (`tf.tuple`)."""
    from tfx.core.api.graph_builder import name_scope

    with name_scope(name, "tuple", list(tensors)) as scope:
        present = [t for t in tensors if t is not None]
        gate = group(*present, *(control_inputs or []), name="group_deps")
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
                continue
            with t.graph.control_dependencies([gate]):
                if isinstance(t, IndexedSlices):
                    with t.graph.colocate_with(t.values.op):
                        values = identity(t.values, name="control_dependency")
                    out.append(IndexedSlices(values, t.indices, t.dense_shape))
                else:
                    with t.graph.colocate_with(t.op):
                        out.append(identity(t, name="control_dependency"))
        del scope
        return out


def is_tensor(x: Any) -> bool:
    """Whether `x` is a graph tensor or tensor-like graph value (a Tensor, IndexedSlices or
    Variable), not a Python or numpy value."""
    from tfx.core.api.state_api import Variable

    return isinstance(x, (Tensor, IndexedSlices, Variable))


def add_to_collections(names: Any, value: Any) -> None:
    """Add `value` to each collection of the default graph named in `names` (a str or an
    iterable of them; each collection once)."""
    get_default_graph().add_to_collections(names, value)


def get_collection_ref(key: str) -> list:
    """The default graph's collection `key` itself (created empty if missing): changing the
    list changes the collection."""
    return get_default_graph().get_collection_ref(key)


# --- apply_op --------------------------------------------------------------------------


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, (Tensor, IndexedSlices)) or any(
        isinstance(value, t) for t, _ in _CONVERSION_FUNCTIONS
    )


def _tensor_dtype(value: Any) -> dtypes.DType | None:
    if isinstance(value, (Tensor, IndexedSlices)):
        return value.dtype.base
    dtype = getattr(value, "dtype", None)
    if _is_tensor_like(value) and isinstance(dtype, dtypes.DType):
        return dtype.base
    return None


def _graph_from(values: Iterable[Any]) -> Graph:
    default = get_default_graph()
    if default.building_function:  # a traced function captures outer tensors it reads
        return default
    for v in values:
        items = v if isinstance(v, (list, tuple)) else [v]
        for item in items:
            graph = getattr(item, "graph", None)
            if isinstance(graph, Graph):
                return graph
    return get_default_graph()


def apply_op(op_type: str, name: str | None = None, **kwargs: Any) -> Any:
    """Create an op of `op_type`; return its output, a list of outputs, or the op.

    Keyword arguments named after the op's inputs are the inputs (a list for a
    `N * T` or list-typed input); the others are attrs. Type attrs not given are
    inferred from the tensors passed.

    Example:
        >>> y = apply_op("Sum", input=x, reduction_indices=[0], keep_dims=False)
    """
    op = apply_op_raw(op_type, name, **kwargs)
    outputs = op_callbacks.instrument(op, op.outputs)
    if not outputs:
        return op
    schema = get_op(op_type)
    if len(schema.outputs) == 1 and not (schema.outputs[0].number_attr
                                         or schema.outputs[0].type_list_attr):
        return outputs[0]
    return list(outputs)


def apply_op_raw(op_type: str, name: str | None = None, **kwargs: Any) -> Operation:
    """`apply_op`, returning the Operation itself."""
    schema = get_op(op_type)
    input_names = [a.name for a in schema.inputs]
    where = f"op {op_type}" + (f" ({name!r})" if name else "")
    missing = [n for n in input_names if n not in kwargs]
    if missing:
        raise TypeError(f"{where}: missing input(s) {', '.join(missing)}")
    attrs: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in input_names:
            continue
        if key not in schema.attrs and not key.startswith("_"):
            raise TypeError(f"{where}: no input or attr named {key!r}"
                            f"{closest(key, input_names + list(schema.attrs))}")
        if value is not None:
            attrs[key] = dtypes.as_dtype(value) if schema.attrs.get(key) is not None and (
                schema.attrs[key].type == "type") else value
    graph = _graph_from(kwargs[n] for n in input_names)
    # Type attrs come from the tensors first, so Python values adopt their type (x + 1).
    for arg in schema.inputs:
        if arg.type_attr and arg.type_attr not in attrs:
            value = kwargs[arg.name]
            for item in (value if arg.number_attr else [value]):
                dtype = _tensor_dtype(item)
                if dtype is not None:
                    attrs[arg.type_attr] = dtype
                    break
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        inputs: list[Tensor] = []
        refs: list[Tensor] = []
        for arg in schema.inputs:
            converted = _convert_arg(schema, arg, kwargs[arg.name], attrs, where)
            inputs.extend(converted)
            if arg.is_ref:
                refs.extend(converted)
        if refs:
            with graph.colocate_with(refs[0].op):
                return graph.create_op(op_type, inputs, attrs, name=scope)
        return graph.create_op(op_type, inputs, attrs, name=scope)


def _convert_arg(schema: Any, arg: Any, value: Any, attrs: dict[str, Any],
                 where: str) -> list[Tensor]:
    if arg.type_list_attr:
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        want = attrs.get(arg.type_list_attr)
        tensors = [
            _convert_one(v, want[i] if want else None, arg, f"{arg.name}_{i}", where)
            for i, v in enumerate(values)
        ]
        attrs.setdefault(arg.type_list_attr, [t.dtype.base for t in tensors])
        return tensors
    if arg.number_attr:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{where}: input {arg.name!r} must be a list, got {value!r}")
        count = attrs.setdefault(arg.number_attr, len(value))
        if count != len(value):
            raise TypeError(f"{where}: {arg.number_attr}={count} but {arg.name!r} has "
                            f"{len(value)} element(s)")
        values = list(value)
    else:
        values = [value]
    dtype = arg.dtype
    if dtype is None:
        dtype = attrs.get(arg.type_attr)
        if dtype is None:
            default = schema.attrs[arg.type_attr].default
            preferred = default if isinstance(default, dtypes.DType) else None
            first = _convert_one(values[0], None, arg, _const_name(arg, 0, values), where,
                                 preferred) if values else None
            if first is None:
                return []
            dtype = attrs[arg.type_attr] = first.dtype.base
            return [first] + [
                _convert_one(v, dtype, arg, _const_name(arg, i + 1, values), where)
                for i, v in enumerate(values[1:])
            ]
    return [_convert_one(v, dtype, arg, _const_name(arg, i, values), where)
            for i, v in enumerate(values)]


def _const_name(arg: Any, index: int, values: list) -> str:
    return f"{arg.name}_{index}" if arg.number_attr else arg.name


def _convert_one(value: Any, dtype: dtypes.DType | None, arg: Any, name: str, where: str,
                 preferred: dtypes.DType | None = None) -> Tensor:
    try:
        # A list holding tensors takes their type, as TensorFlow infers it before trying
        # the attr's default (which would cast them).
        if preferred is not None and _contains_tensor(value):
            preferred = None
        tensor = convert_to_tensor(value, None if _is_tensor_like(value) else dtype, name=name,
                                   preferred_dtype=preferred, as_ref=arg.is_ref)
    except (TypeError, ValueError, InvalidArgumentError) as exc:
        raise DTypeError(f"{where}: input {arg.name!r}: {exc}") from None
    if dtype is not None and tensor.dtype.base is not dtype.base:
        raise DTypeError(
            f"{where}: input {arg.name!r} expects {dtype.base}, but {tensor.name!r} is "
            f"{tensor.dtype.base}"
        )
    if arg.is_ref and not tensor.dtype.is_ref:
        raise DTypeError(
            f"{where}: input {arg.name!r} must be a reference (a Variable), got {tensor.name!r}"
        )
    return tensor


def shape_tensor(shape: Any, name: str | None = None) -> Tensor:
    """A 1-D int32 tensor for a shape given as a list, TensorShape or tensor."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and not _contains_tensor(shape):
        return constant(np.asarray(shape, dtype=np.int32).reshape(-1), dtypes.int32,
                        name=name or "shape")
    return convert_to_tensor(shape, name=name or "shape")
