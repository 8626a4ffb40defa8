"""Run one op on concrete values, outside any graph.

`run_op("MatMul", [a, b], transpose_b=True)` binds the op's schema (type attrs
inferred from the inputs, other attrs from keywords and defaults), picks the
kernel for the device type and returns the tuple of outputs. Tests use it to
check kernels one by one; constant folding and the Python API use it to
evaluate single nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfx.core import dtypes, tensor_util
from tfx.core.errors import InvalidArgumentError
from tfx.core.kernel_registry import find_kernel
from tfx.core.op_registry import get_op, resolve_node
from tfx.protos import graph_pb2


def make_node_def(
    op: str, name: str, inputs: list[str], attrs: dict[str, Any]
) -> graph_pb2.NodeDef:
    """A NodeDef for `op` whose attrs are given as Python values."""
    schema = get_op(op)
    node = graph_pb2.NodeDef(name=name, op=op, input=inputs)
    for key, value in attrs.items():
        spec = schema.attrs.get(key)
        attr_type = spec.type if spec is not None else _guess_attr_type(value)
        set_attr(node.attr[key], value, attr_type)
    return node


def _guess_attr_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dtypes.DType):
        return "type"
    return "tensor"


def set_attr(attr: graph_pb2.AttrValue, value: Any, attr_type: str) -> None:
    """Write a Python value into an AttrValue of the given schema type."""
    if attr_type.startswith("list("):
        inner = attr_type[5:-1]
        lst = attr.list
        attr.list.SetInParent()
        for item in value:
            if inner == "type":
                lst.type.append(dtypes.as_dtype(item).enum)
            elif inner == "int":
                lst.i.append(int(item))
            elif inner == "float":
                lst.f.append(float(item))
            elif inner == "bool":
                lst.b.append(bool(item))
            elif inner == "string":
                lst.s.append(item.encode() if isinstance(item, str) else bytes(item))
            elif inner == "shape":
                tensor_util.shape_to_proto(item, lst.shape.add())
            elif inner == "tensor":
                lst.tensor.add().CopyFrom(tensor_util.from_ndarray(np.asarray(item)))
            else:
                raise InvalidArgumentError(f"cannot set a {attr_type} attr")
        return
    if attr_type == "type":
        attr.type = dtypes.as_dtype(value).enum
    elif attr_type == "int":
        attr.i = int(value)
    elif attr_type == "float":
        attr.f = float(value)
    elif attr_type == "bool":
        attr.b = bool(value)
    elif attr_type == "string":
        attr.s = value.encode() if isinstance(value, str) else bytes(value)
    elif attr_type == "shape":
        tensor_util.shape_to_proto(value, attr.shape)
    elif attr_type == "tensor":
        attr.tensor.CopyFrom(tensor_util.from_ndarray(np.asarray(value)))
    elif attr_type == "func":
        attr.func.name = value if isinstance(value, str) else value.name
    else:
        raise InvalidArgumentError(f"cannot set an attr of type {attr_type}")


def infer_type_attrs(op: str, inputs: list[Any], attrs: dict[str, Any]) -> dict[str, Any]:
    """Fill type and number attrs (T, N, Tidx, list(type)...) from the input values."""
    schema = get_op(op)
    attrs = dict(attrs)
    position = 0
    for arg in schema.inputs:
        if arg.type_list_attr:
            count = len(attrs[arg.type_list_attr]) if arg.type_list_attr in attrs else None
            if count is None:
                count = len(inputs) - position  # a trailing list takes the rest
                attrs[arg.type_list_attr] = [
                    tensor_util.as_ndarray(v).dtype for v in inputs[position:position + count]
                ]
                attrs[arg.type_list_attr] = [dtypes.as_dtype(t) for t in attrs[arg.type_list_attr]]
            position += count
            continue
        count = 1
        if arg.number_attr:
            if arg.number_attr not in attrs:
                fixed_after = sum(1 for a in schema.inputs[schema.inputs.index(arg) + 1:])
                attrs[arg.number_attr] = len(inputs) - position - fixed_after
            count = attrs[arg.number_attr]
        if arg.type_attr and arg.type_attr not in attrs and count > 0:
            value = inputs[position]
            attrs[arg.type_attr] = _dtype_of(value)
        position += count
    return attrs


def _dtype_of(value: Any) -> dtypes.DType:
    return dtypes.as_dtype(tensor_util.as_ndarray(value).dtype)


def run_op(op: str, inputs: list[Any], device_type: str = "CPU", **attrs: Any) -> tuple:
    """Run `op` once on `inputs` (numpy arrays or Python values); return its outputs."""
    attrs = infer_type_attrs(op, inputs, attrs)
    node_def = make_node_def(op, op, [f"in{i}" for i in range(len(inputs))], attrs)
    bound = resolve_node(node_def)
    if len(bound.input_types) != len(inputs):
        raise InvalidArgumentError(
            f"op {op} takes {len(bound.input_types)} inputs, {len(inputs)} given"
        )
    values = [
        tensor_util.as_ndarray(v, t.base) if not isinstance(v, np.ndarray) else v
        for v, t in zip(inputs, bound.input_types)
    ]
    kernel_class = find_kernel(op, device_type, bound.attrs)
    device = f"/job:localhost/replica:0/task:0/device:{device_type.upper()}:0"
    kernel = kernel_class(op, op, bound.attrs, bound.input_types, bound.output_types, device)
    if kernel.needs_context:
        raise InvalidArgumentError(f"op {op} needs a session; run it in a graph")
    return kernel.compute(*values)
