"""Graph functions: a GraphDef's FunctionDefLibrary, instantiated into runnable graphs.

A `FunctionDef` is a small graph with a signature (TensorFlow's OpDef: typed input
and output arguments, attrs). Nodes call it through PartitionedCall and its kin,
the v2 control-flow ops (If, While, Case), or by naming it as their op type
(TF1 `Defun`). This module holds what the calling kernels share:

* `FunctionLibrary`: the library by name; `schema(name)` gives a function's
  signature as an `OpSchema`, so a node whose op type is a function binds,
  validates and infers (unknown) shapes like any other node;
* `instantiate(library, name, attrs, where)`: the function body as a `Graph`
  with one Placeholder per input element, body inputs rewritten from
  FunctionDef naming (`arg`, `node:output_arg:index`, `^node`) to graph
  naming, attr placeholders (`$T`) replaced by the call's attrs, and the
  tensors that `ret` names as the outputs;
* `CompiledFunction`: an instance with its executor plan, built once, run per
  call on the caller's step (its resources, deadline and cancellation).

A library is untrusted input. Unknown function names, a function reaching
itself through its calls (refused: TensorFlow's runtime would instantiate it
without end), call attrs or arities that do not match the signature, and
malformed input references each raise InvalidArgumentError naming the
function and, where there is one, the calling node; so do a library function
named like a registered op and calls nested deeper than `MAX_NESTING`
functions (each level is a few Python frames when built and when run). An
error raised while a function runs names the function and its inner node.

Example:
    >>> library = FunctionLibrary(graph_def.library)
    >>> fn = CompiledFunction(library, "add_one", {}, where="node 'call'")
    >>> fn(StepState(), [np.float32(1.0)])
    [2.0]
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tfx.core import dtypes
from tfx.core.errors import InvalidArgumentError, ResourceExhaustedError, TfxError, closest
from tfx.core.op_registry import (
    NO_DEFAULT,
    ArgSpec,
    AttrSpec,
    OpSchema,
    attr_value_to_python,
    has_op,
    resolve_node,
)
from tfx.protos import graph_pb2

_ATTR_TYPES = frozenset({"type", "int", "float", "bool", "string", "shape", "tensor", "func"})


class FunctionLibrary:
    """The functions of a FunctionDefLibrary, by signature name (read-only)."""

    def __init__(self, proto: graph_pb2.FunctionDefLibrary) -> None:
        self.proto = proto
        self._defs: dict[str, graph_pb2.FunctionDef] = {}
        for fdef in proto.function:
            name = fdef.signature.name
            if not name:
                raise InvalidArgumentError("the function library holds a function without a name")
            if name in self._defs:
                raise InvalidArgumentError(f"the function library defines {name!r} twice")
            if has_op(name):
                # As TensorFlow: a node of that op type could mean either.
                raise InvalidArgumentError(
                    f"the function library defines {name!r}, the name of a registered op")
            self._defs[name] = fdef
        self._schemas: dict[str, OpSchema] = {}
        self._lock = threading.Lock()

    def __contains__(self, name: str) -> bool:
        return name in self._defs

    def __len__(self) -> int:
        return len(self._defs)

    @property
    def names(self) -> list[str]:
        return sorted(self._defs)

    def lookup(self, name: str, where: str) -> graph_pb2.FunctionDef:
        """The FunctionDef called `name`, or InvalidArgumentError listing near names."""
        fdef = self._defs.get(name)
        if fdef is None:
            raise InvalidArgumentError(
                f"{where}: function {name!r} is not in the graph's function library"
                f"{closest(name, self._defs)}"
            )
        return fdef

    def schema(self, name: str) -> OpSchema | None:
        """The signature of function `name` as an op schema, or None if there is none."""
        fdef = self._defs.get(name)
        if fdef is None:
            return None
        with self._lock:
            schema = self._schemas.get(name)
            if schema is None:
                schema = self._schemas[name] = signature_schema(fdef.signature)
        return schema


def signature_schema(signature: graph_pb2.OpDef) -> OpSchema:
    """An OpSchema for a function's signature (its args, attrs and statefulness)."""
    where = f"function {signature.name!r}"
    for kind, items in (("attrs", signature.attr), ("input arguments", signature.input_arg),
                        ("output arguments", signature.output_arg)):
        seen: set[str] = set()
        for item in items:
            if item.name in seen:
                raise InvalidArgumentError(f"{where}: two {kind} are named {item.name!r}")
            seen.add(item.name)
    attrs: dict[str, AttrSpec] = {}
    for attr_def in signature.attr:
        if attr_def.type not in _ATTR_TYPES and not (
            attr_def.type.startswith("list(") and attr_def.type[5:-1] in _ATTR_TYPES
        ):
            raise InvalidArgumentError(
                f"{where}: attr {attr_def.name!r} has unsupported type {attr_def.type!r}"
            )
        default = NO_DEFAULT
        if attr_def.HasField("default_value"):
            default = attr_value_to_python(attr_def.default_value, attr_def.type,
                                           f"{where}, default of attr {attr_def.name!r}")
        minimum = int(attr_def.minimum) if attr_def.has_minimum else None
        attrs[attr_def.name] = AttrSpec(attr_def.name, attr_def.type, default, None, minimum)
    schema = OpSchema(signature.name, attrs=attrs, is_stateful=signature.is_stateful)
    schema.inputs = [_arg_spec(arg, attrs, where) for arg in signature.input_arg]
    schema.outputs = [_arg_spec(arg, attrs, where) for arg in signature.output_arg]
    return schema


def _arg_spec(arg: graph_pb2.OpDef.ArgDef, attrs: Mapping[str, AttrSpec], where: str) -> ArgSpec:
    what = f"{where}: argument {arg.name!r}"
    if not arg.name:
        raise InvalidArgumentError(f"{where}: an argument has no name")
    if arg.number_attr and attrs.get(arg.number_attr, AttrSpec("", "")).type != "int":
        raise InvalidArgumentError(f"{what}: number_attr {arg.number_attr!r} is no int attr")
    if arg.type_list_attr:
        if attrs.get(arg.type_list_attr, AttrSpec("", "")).type != "list(type)":
            raise InvalidArgumentError(
                f"{what}: type_list_attr {arg.type_list_attr!r} is no list(type) attr")
        return ArgSpec(arg.name, type_list_attr=arg.type_list_attr, is_ref=arg.is_ref)
    if arg.type_attr:
        if attrs.get(arg.type_attr, AttrSpec("", "")).type != "type":
            raise InvalidArgumentError(f"{what}: type_attr {arg.type_attr!r} is no type attr")
        return ArgSpec(arg.name, type_attr=arg.type_attr, number_attr=arg.number_attr,
                       is_ref=arg.is_ref)
    if not arg.type:
        raise InvalidArgumentError(f"{what}: no type, type_attr or type_list_attr")
    try:
        dtype = dtypes.as_dtype(arg.type)
    except TfxError as exc:
        raise InvalidArgumentError(f"{what}: {exc}") from None
    return ArgSpec(arg.name, dtype=dtype, number_attr=arg.number_attr, is_ref=arg.is_ref)


def _arg_types(arg: ArgSpec, attrs: Mapping[str, Any], where: str = "") -> list[dtypes.DType]:
    if arg.type_list_attr:
        types = list(attrs[arg.type_list_attr])
    else:
        base = arg.dtype if arg.dtype is not None else attrs[arg.type_attr]
        count = attrs[arg.number_attr] if arg.number_attr else 1
        if not 0 <= count <= _MAX_ARG_COUNT:
            raise InvalidArgumentError(
                f"{where}: invalid count {count} (attr {arg.number_attr!r}) for argument "
                f"{arg.name!r}")
        types = [base] * count
    return [t.as_ref for t in types] if arg.is_ref else types


_MAX_ARG_COUNT = 1_000_000  # as op binding: a larger list is an attack, not a graph


# --- instantiation ---------------------------------------------------------------------


@dataclass(frozen=True)
class Instance:
    """A function body as a graph, with the tensors that are its inputs and outputs."""

    name: str
    graph: Any  # tfx.core.graph.Graph
    feeds: tuple[str, ...]  # one Placeholder tensor per input element
    fetches: tuple[str, ...]  # one tensor per output element
    targets: tuple[str, ...]  # nodes run for their effects (control_ret, stateful nodes)
    input_types: tuple[dtypes.DType, ...]
    output_types: tuple[dtypes.DType, ...]


# The functions being instantiated on this thread, outermost first: instantiating a
# body builds its plan, whose call kernels instantiate their functions in turn.
_active = threading.local()


def instantiate(library: FunctionLibrary, name: str, attrs: Mapping[str, graph_pb2.AttrValue],
                where: str) -> Instance:
    """Build the body of function `name` as a Graph for a call with `attrs`.

    Args:
        library: the caller's function library.
        name: the function's signature name.
        attrs: the call's attr values for the signature's attrs (a NameAttrList's `attr`,
            or the attrs of a node whose op is the function).
        where: the calling node, for error messages ("node 'x' (op If)").

    Returns:
        The Instance.

    Raises:
        InvalidArgumentError: an unknown function, a missing or ill-typed attr, a
            malformed body or input reference.
    """
    from tfx.core.graph import Graph  # graph.py imports this module lazily, and so here

    fdef = library.lookup(name, where)
    what = f"{where}: function {name!r}"
    schema = library.schema(name) or signature_schema(fdef.signature)
    values = _call_attrs(fdef.signature, attrs, what)
    py_attrs = {key: attr_value_to_python(value, schema.attrs[key].type, f"{what}, attr {key!r}")
                for key, value in values.items()}
    for key, value in py_attrs.items():
        minimum = schema.attrs[key].minimum
        measure = len(value) if isinstance(value, list) else value
        if minimum is not None and measure < minimum:
            raise InvalidArgumentError(
                f"{what}: attr {key!r} is {measure}, below its minimum {minimum}")

    graph_def = graph_pb2.GraphDef()
    refs: dict[str, list[str]] = {}  # an input arg's name -> its element tensors
    feeds: list[str] = []
    input_types: list[dtypes.DType] = []
    names = {nd.name for nd in fdef.node_def}
    if len(names) != len(fdef.node_def):
        raise InvalidArgumentError(f"{what}: two body nodes share a name")
    for arg in schema.inputs:
        types = _arg_types(arg, py_attrs, what)
        elements = []
        for i, dtype in enumerate(types):
            node_name = arg.name if len(types) == 1 else f"{arg.name}/_{i}"
            if node_name in names:
                raise InvalidArgumentError(
                    f"{what}: argument {arg.name!r} has the name of a body node")
            names.add(node_name)
            placeholder = graph_def.node.add(name=node_name, op="Placeholder")
            placeholder.attr["dtype"].type = dtype.base.enum
            elements.append(f"{node_name}:0")
            input_types.append(dtype)
        refs[arg.name] = elements
        feeds += elements

    bodies = []
    ranges: dict[str, dict[str, tuple[int, int]]] = {}
    for node_def in fdef.node_def:
        body = graph_pb2.NodeDef(name=node_def.name, op=node_def.op)
        for key, value in node_def.attr.items():
            body.attr[key].CopyFrom(_substitute(value, values, f"{what}, node {node_def.name!r}"))
        ranges[node_def.name] = _output_ranges(body, library, what)
        bodies.append((node_def, body))
    for node_def, body in bodies:
        node_where = f"{what}, node {node_def.name!r}"
        seen_control = False
        for text in node_def.input:
            if text.startswith("^"):
                seen_control = True
                control = text[1:]
                if control in refs:
                    body.input.extend("^" + t.split(":")[0] for t in refs[control])
                elif control in ranges:
                    body.input.append(text)
                else:
                    raise InvalidArgumentError(
                        f"{node_where}: control input {text!r} names no node or argument")
                continue
            if seen_control:
                raise InvalidArgumentError(f"{node_where}: data input {text!r} after a control")
            body.input.extend(_resolve_ref(text, refs, ranges, node_where))
        graph_def.node.append(body)

    fetches: list[str] = []
    output_types: list[dtypes.DType] = []
    for arg in schema.outputs:
        types = _arg_types(arg, py_attrs, what)
        if arg.name not in fdef.ret:
            raise InvalidArgumentError(f"{what}: output {arg.name!r} has no ret entry")
        tensors = _resolve_ref(fdef.ret[arg.name], refs, ranges, f"{what}, ret {arg.name!r}")
        if len(tensors) != len(types):
            raise InvalidArgumentError(
                f"{what}: output {arg.name!r} has {len(types)} element(s), its ret "
                f"{fdef.ret[arg.name]!r} names {len(tensors)}")
        fetches += tensors
        output_types += types
    unknown_rets = sorted(set(fdef.ret) - {a.name for a in schema.outputs})
    if unknown_rets:
        more = f" and {len(unknown_rets) - 5} more" if len(unknown_rets) > 5 else ""
        raise InvalidArgumentError(
            f"{what}: ret names no output argument: {unknown_rets[:5]}{more}")

    try:
        graph = Graph.from_graph_def(graph_def)
    except TfxError as exc:
        raise type(exc)(f"{what}: {exc}") from None
    graph.set_function_library(library)  # shared, read-only: nested calls resolve against it
    try:
        graph.validate()
    except TfxError as exc:
        raise type(exc)(f"{what}: {exc}") from None
    for k, (tensor, want) in enumerate(zip(fetches, output_types)):
        got = graph.tensor(tensor).dtype
        if got.base is not want.base:
            raise InvalidArgumentError(
                f"{what}: output {k} is declared {want.base} but {tensor!r} is {got.base}")
    targets = []
    for key in sorted(fdef.control_ret):
        node = fdef.control_ret[key]
        if node not in ranges:
            raise InvalidArgumentError(f"{what}: control_ret {key!r} names no body node {node!r}")
        targets.append(node)
    # As TensorFlow's function runtime: stateful body nodes run even when no output needs them.
    targets += [n.name for n in graph if n.op != "Placeholder" and n.is_stateful
                and n.name not in targets]
    return Instance(name, graph, tuple(feeds), tuple(fetches), tuple(targets),
                    tuple(input_types), tuple(output_types))


def _call_attrs(signature: graph_pb2.OpDef, attrs: Mapping[str, graph_pb2.AttrValue],
                what: str) -> dict[str, graph_pb2.AttrValue]:
    """The signature's attr values for this call, defaults filled in (as protos, for the
    substitution of attr placeholders in the body)."""
    values: dict[str, graph_pb2.AttrValue] = {}
    for attr_def in signature.attr:
        if attr_def.name in attrs:
            values[attr_def.name] = attrs[attr_def.name]
        elif attr_def.HasField("default_value"):
            values[attr_def.name] = attr_def.default_value
        else:
            raise InvalidArgumentError(
                f"{what}: the call gives no value for attr {attr_def.name!r}")
    return values


def _substitute(value: graph_pb2.AttrValue, attrs: Mapping[str, graph_pb2.AttrValue],
                where: str) -> graph_pb2.AttrValue:
    """`value` with attr placeholders ($T) replaced by the call's attrs, also inside funcs."""
    kind = value.WhichOneof("value")
    if kind == "placeholder":
        found = attrs.get(value.placeholder)
        if found is None:
            raise InvalidArgumentError(
                f"{where}: attr placeholder {value.placeholder!r} names no attr of the call")
        return found
    if kind == "func":
        out = graph_pb2.AttrValue()
        out.func.name = value.func.name
        for key, inner in value.func.attr.items():
            out.func.attr[key].CopyFrom(_substitute(inner, attrs, where))
        return out
    if kind == "list" and len(value.list.func):
        out = graph_pb2.AttrValue()
        out.list.CopyFrom(value.list)
        del out.list.func[:]
        for func in value.list.func:
            item = out.list.func.add(name=func.name)
            for key, inner in func.attr.items():
                item.attr[key].CopyFrom(_substitute(inner, attrs, where))
        return out
    return value


def _output_ranges(body: graph_pb2.NodeDef, library: FunctionLibrary,
                   what: str) -> dict[str, tuple[int, int]]:
    """Output argument name -> (first output index, count) for one body node."""
    try:
        bound = resolve_node(body, library.schema)
    except TfxError as exc:
        raise type(exc)(f"{what}: {exc}") from None
    ranges = {}
    start = 0
    for arg in bound.schema.outputs:
        count = len(_arg_types(arg, bound.attrs))
        ranges[arg.name] = (start, count)
        start += count
    return ranges


def _resolve_ref(text: str, refs: Mapping[str, list[str]],
                 ranges: Mapping[str, Mapping[str, tuple[int, int]]], where: str) -> list[str]:
    """Graph tensor names for one FunctionDef reference (`arg`, `node:out`, `node:out:i`)."""
    parts = text.split(":")
    if len(parts) == 1 and text in refs:
        return list(refs[text])
    if len(parts) == 2 and parts[0] in refs and parts[1].isdigit():
        elements = refs[parts[0]]
        if int(parts[1]) < len(elements):
            return [elements[int(parts[1])]]
    if len(parts) in (2, 3) and parts[0] in ranges:
        node, out = parts[0], parts[1]
        span = ranges[node].get(out)
        if span is None:
            raise InvalidArgumentError(
                f"{where}: input {text!r}: node {node!r} has no output argument {out!r}"
                f"{closest(out, ranges[node])}")
        start, count = span
        if len(parts) == 2:
            return [f"{node}:{start + i}" for i in range(count)]
        if parts[2].isdigit() and int(parts[2]) < count:
            return [f"{node}:{start + int(parts[2])}"]
    raise InvalidArgumentError(
        f"{where}: malformed input reference {text!r} (expected an argument name or "
        f"node:output_arg:index naming an existing output)")


# --- compiled functions ------------------------------------------------------------------

MAX_NESTING = 64  # function calls inside function calls; TensorFlow graphs nest a few


class CompiledFunction:
    """A function instantiated once and compiled into an executor plan.

    Build it when the calling kernel is built (through `compile_function`); call it
    per step with the caller's step state and the argument values.
    """

    def __init__(self, library: FunctionLibrary, name: str,
                 attrs: Mapping[str, graph_pb2.AttrValue], where: str) -> None:
        from tfx.core.plan_builder import build_plan

        stack: list[str] = getattr(_active, "stack", None) or []
        if name in stack:
            cycle = " -> ".join([*stack[stack.index(name):], name])
            raise InvalidArgumentError(
                f"{where}: function {name!r} calls itself ({cycle}); recursive functions "
                f"are not supported")
        if len(stack) >= MAX_NESTING:
            # Raised deep down, re-raised by every level on the way out: the outermost
            # call reports it once, without the chain of node prefixes.
            _active.too_deep = (f"calls nest deeper than {MAX_NESTING} functions "
                                f"({stack[0]} -> {stack[1]} -> ... -> {stack[-1]} -> {name})")
            raise InvalidArgumentError(f"{where}: {_active.too_deep}")
        if not stack:
            _active.cache = {}
        _active.stack = [*stack, name]
        try:
            self.instance = instantiate(library, name, attrs, where)
            try:
                self.prepared = build_plan(self.instance.graph, self.instance.feeds,
                                           self.instance.fetches, self.instance.targets)
            except TfxError as exc:
                raise type(exc)(f"{where}: function {name!r}: {exc}") from None
        except (TfxError, RecursionError) as exc:
            if stack:
                raise
            too_deep, _active.too_deep = getattr(_active, "too_deep", None), None
            if isinstance(exc, RecursionError):  # a caller already deep in the Python stack
                raise ResourceExhaustedError(
                    f"{where}: function {name!r}: calls nest too deeply for the Python "
                    f"stack") from None
            if too_deep is None:
                raise
            raise InvalidArgumentError(f"{where}: function {name!r}: {too_deep}") from None
        finally:
            _active.stack = stack
            if not stack:
                _active.cache = None
        self.name = name

    @property
    def input_types(self) -> tuple[dtypes.DType, ...]:
        return self.instance.input_types

    @property
    def output_types(self) -> tuple[dtypes.DType, ...]:
        return self.instance.output_types

    def check_signature(self, inputs: Sequence[dtypes.DType], outputs: Sequence[dtypes.DType]
                        | None, where: str) -> None:
        """Refuse a call whose argument (or result) types differ from the signature's."""
        for what, got, want in (("input", inputs, self.input_types),
                                ("output", outputs, self.output_types)):
            if got is None:
                continue
            got_names = [t.base.name for t in got]
            want_names = [t.base.name for t in want]
            if got_names != want_names:
                raise InvalidArgumentError(
                    f"{where}: the call's {what} types {_type_list(got_names)} do not match "
                    f"the signature of function {self.name!r}: {_type_list(want_names)}")

    def __call__(self, state: Any, args: Sequence[Any]) -> list[Any]:
        from tfx.core.executor import run_plan

        prepared = self.prepared
        try:
            results = run_plan(prepared.plan, args, state)
        except TfxError as exc:  # the executor names the inner node, this the function
            raise type(exc)(f"function {self.name!r}: {exc}") from None
        return [results[k] if kind == "plan" else args[k] for kind, k in prepared.fetch_sources]


def _type_list(names: Sequence[str], shown: int = 8) -> str:
    """`[a, b]`, or for a long list (a hostile Tout) its first types and its length."""
    if len(names) <= shown:
        return f"[{', '.join(names)}]"
    return f"[{', '.join(names[:shown])}, ... ({len(names)} types)]"


def compile_function(library: FunctionLibrary, name: str,
                     attrs: Mapping[str, graph_pb2.AttrValue], where: str) -> CompiledFunction:
    """`CompiledFunction(library, name, attrs, where)`, shared by the calls that compiling
    one outermost call meets with the same function, attrs and nesting depth.

    As TensorFlow's function runtime instantiates a function once per attrs: a body
    that calls `g` twice, each `g` calling `h` twice, and so on, compiles each function
    once instead of 2**depth times (a small hostile library would never finish). The
    depth is part of the key so that every shared instance stays within MAX_NESTING.
    """
    stack = getattr(_active, "stack", None)
    cache = getattr(_active, "cache", None)
    if not stack or cache is None:
        return CompiledFunction(library, name, attrs, where)
    key = (id(library), name, len(stack),
           tuple(sorted((k, v.SerializeToString(deterministic=True)) for k, v in attrs.items())))
    fn = cache.get(key)
    if fn is None:
        fn = cache[key] = CompiledFunction(library, name, attrs, where)
    return fn
