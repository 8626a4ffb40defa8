"""Gradients of graph-function calls (PartitionedCall, StatefulPartitionedCall).

TensorFlow differentiates a call by building a backward function from the
forward function's body and calling it. Here the backward function is traced
(`function_tracing.trace_with`) with the call's inputs and the gradients of its
outputs as arguments; inside, it rebuilds the part of the forward body the
outputs depend on (from the library FunctionDef, instantiated as the runtime
does) and differentiates it with `gradients`. Its results are the gradients of
the call's inputs, captured tensors and resource handles of variables included
(a variable read inside a function gets its gradient through the handle, as in
TensorFlow). The backward function is itself a call, so second derivatives and
calls nested in the body work the same way.

Stateful body nodes on that path would give other values if run again (a random
op's mask, a variable read after the function assigned the variable), so, as
TensorFlow rewrites the forward call to return the intermediates its backward
function needs, the call is rewritten once to a function that also outputs those
nodes' values, and the backward function uses them. A variable read is also
rebuilt as a shadow that carries the gradient to the variable (an IdentityN ties
the forward value to it). Calls nested in the body are rebuilt, calling a copy of
the inner function without what it did only for its effects (the forward call
already did it), and differentiated the same way, recursively; their values are
recomputed, which differs from the forward pass only where the inner function
reads state the forward pass changed after the read.

What the forward body did only for its side effects (an assignment no output
depends on) is not repeated: the rebuilt part is what the differentiated
outputs reach through data edges.

A body with TensorFlow 1.x control flow (`cond`, `while_loop`: Switch/Merge,
Enter/Exit/NextIteration) is rebuilt whole construct by construct: a loop with
all its variables, a cond with its predicate and pivots, and the contexts
`gradients` needs are recovered from the ops (core/api/control_flow_structure.py),
so the rebuilt loops and conds are differentiated as TensorFlow 1.x
differentiates them (the loop runs again, pushing what its gradient pops).
Stateful nodes inside them are rebuilt rather than taken from the forward call,
whose outputs cannot carry one iteration's value; a variable read inside a loop
or cond that the function also assigns would then read the value after the
call, not the iteration's, so its gradient is refused (UnimplementedError;
TensorFlow 2's while_v2 accumulates the iteration's values). So is a second
derivative through a loop: the backward function pops what its rebuilt loop
pushed, which a rebuild of it would not push again. What the FunctionDef does
not record about a loop (a shape invariant, back_prop=False) comes from the
trace (function_tracing.loop_facts).
"""

from __future__ import annotations

import contextlib
import heapq
import weakref
from typing import Any

from tfx.core import dtypes
from tfx.core.api.control_flow_structure import ContextRebuilder, Structure, infer_structure
from tfx.core.api.function_tracing import (
    FuncGraph,
    LoopFacts,
    _output_arg_names,
    _unique_function_name,
    call,
    loop_facts,
    trace_with,
)
from tfx.core.api.gradients import RegisterGradient, gradients, is_trainable
from tfx.core.api.graph_builder import Operation, Tensor
from tfx.core.errors import InvalidArgumentError, UnimplementedError
from tfx.core.functions import Instance, instantiate
from tfx.protos import graph_pb2

__all__: list[str] = []

_CALLS = frozenset({"PartitionedCall", "StatefulPartitionedCall"})
# Stateful only in making a new resource each run, which the ops using it reach through data
# edges (a TensorArray's writes pass its flow on): rebuilt with them, in a new resource.
_FRESH = frozenset({"TensorArray", "TensorArrayV2", "TensorArrayV3"})

# A rewritten forward call -> (its original output count, {(node, index): its output}).
_exposed: weakref.WeakKeyDictionary[Operation, tuple[int, dict[tuple[str, int], Tensor]]] = (
    weakref.WeakKeyDictionary())


def _flows_back(dtype: dtypes.DType) -> bool:
    base = dtype.base
    return base.is_floating or base.is_complex or base in (dtypes.resource, dtypes.variant)


def _instance(op: Operation) -> Instance:
    func = op.get_attr("f")
    return instantiate(op.graph._ir.function_library, func.name, dict(func.attr),
                       f"node {op.name!r} (op {op.type})")


def _needed(instance: Instance, outputs: list[int],
            structure: Structure) -> tuple[set[str], list[str]]:
    """The body nodes the given outputs reach through data edges, and among them the
    stateful ones whose values the backward pass takes from the forward call.

    A node inside a v1 loop or cond brings in the construct's skeleton (a loop's every
    variable, a cond's predicate and pivots), which the rebuilt copy needs to run and to
    be differentiated. Stateful nodes inside a loop or a cond are rebuilt too: the forward
    call's value of one iteration or of an untaken branch is no output it can have; and so
    is a new TensorArray, which the rebuilt writes fill again."""
    body = instance.graph
    feeds = {f.split(":")[0] for f in instance.feeds}
    needed: set[str] = set()
    frozen: list[str] = []
    constructs: set[int] = set()
    stack = [instance.fetches[i].rsplit(":", 1)[0] for i in outputs]
    while stack:
        name = stack.pop()
        if name in needed or name in feeds:
            continue
        needed.add(name)
        node = body.node(name)
        for construct in structure.constructs(name):
            if id(construct) not in constructs:
                constructs.add(id(construct))
                stack.extend(construct.skeleton())
        if node.is_stateful and node.op not in _CALLS | _FRESH and (
                structure.context(name) is None):
            frozen.append(name)
            if not any(_flows_back(t) for t in node.input_types):
                continue  # nothing to rebuild: no gradient passes through it
        stack.extend(o.node.name for o in node.inputs)
    return needed, frozen


def _expose(op: Operation, instance: Instance, frozen: list[str]) -> dict[tuple[str, int],
                                                                         Tensor]:
    """Rewrite `op` to call a copy of its function that also outputs every output of the
    `frozen` nodes; returns those new outputs of `op`."""
    original, exposed = _exposed.get(op, (len(op.outputs), {}))
    missing = [(name, k) for name in frozen
               for k in range(instance.graph.node(name).num_outputs) if (name, k) not in exposed]
    if not missing:
        return exposed
    func = op.get_attr("f")
    library = op.graph._ir.library
    fdef = graph_pb2.FunctionDef()
    fdef.CopyFrom(next(f for f in library.function if f.signature.name == func.name))
    fdef.signature.name = _unique_function_name(op.graph, f"{func.name}_forward")
    _origins[fdef.signature.name] = _origins.get(func.name, func.name)
    types = []
    for name, k in missing:
        node = instance.graph.node(name)
        arg, index = _output_arg_names(node)[k]
        out_name = f"forward_{len(fdef.signature.output_arg)}"
        dtype = node.output_types[k].base
        fdef.signature.output_arg.add(name=out_name, type=dtype.enum)
        fdef.ret[out_name] = f"{name}:{arg}:{index}"
        types.append(dtype)
    library.function.append(fdef)
    new_func = graph_pb2.AttrValue()
    new_func.func.name = fdef.signature.name
    for key, value in func.attr.items():
        new_func.func.attr[key].CopyFrom(value)
    tout = graph_pb2.AttrValue()
    tout.list.type.extend([t.base.enum for t in op._node.output_types] + [t.enum for t in types])
    op._set_attr("f", new_func)
    op._set_attr("Tout", tout)
    start = len(op.outputs)
    op._add_outputs(types)
    exposed = {**exposed, **{key: op.outputs[start + i] for i, key in enumerate(missing)}}
    _exposed[op] = (original, exposed)
    return exposed


def _check_rebuilt_reads(op: Operation, instance: Instance, structure: Structure,
                         needed: set[str]) -> None:
    """Refuse a variable read inside a loop or cond of the body that the body also assigns:
    rebuilt, the read would see the value after the call instead of its own iteration's."""
    body = instance.graph

    def root(output: Any) -> tuple[str, int]:
        while output.node.op in _ROUTING:
            output = output.node.inputs[0]
        return output.node.name, output.index

    writers: dict[tuple[str, int], str] = {}
    for node in body:
        if node.is_stateful and node.op not in _READS:
            for o in node.inputs:
                if o.dtype.base is dtypes.resource:
                    writers.setdefault(root(o), node.name)
    for name in sorted(needed):
        node = body.node(name)
        if node.op == "StackPopV2":
            raise UnimplementedError(
                f"gradient of node {op.name!r} (op {op.type}): function {instance.name!r} "
                f"holds the gradient of a v1 while loop ({name!r} pops what the loop pushed); "
                "differentiating it again, a second derivative through the loop, is not "
                "supported inside a function")
        if node.op not in _READS or structure.context(name) is None:
            continue
        written = [writers[root(o)] for o in node.inputs if root(o) in writers]
        if written:
            raise UnimplementedError(
                f"gradient of node {op.name!r} (op {op.type}): {node.op} {name!r} inside a "
                f"v1 loop or cond of function {instance.name!r} reads a variable the function "
                f"also changes ({written[0]!r}); the backward pass would read it again after "
                "the call instead of taking each iteration's value")


_ROUTING = frozenset({"Enter", "RefEnter", "Switch", "RefSwitch", "Identity", "RefIdentity"})
# Stateful ops that only read a resource variable.
_READS = frozenset({"ReadVariableOp", "ResourceGather", "ResourceGatherNd", "VariableShape"})

# A forward copy made by `_expose` -> the function it copies.
_origins: dict[str, str] = {}


def _loop_facts(op: Operation) -> LoopFacts:
    """What the FunctionDef of the function `op` calls does not say about its loops."""
    name = op.get_attr("f").name
    return loop_facts(_origins.get(name, name))


def _rebuild_body(func_graph: FuncGraph, instance: Instance, structure: Structure,
                  needed: set[str], given: dict[tuple[str, int], Tensor],
                  inputs: list[Tensor], outputs: list[int], loops: LoopFacts) -> list[Tensor]:
    """The needed part of the forward body, built again in `func_graph` on `inputs`;
    returns the body outputs `outputs`.

    The `given` node outputs (the forward call's values of stateful nodes) are used as
    they are. A given node that gradients pass through (a variable read) is also built
    again, as a shadow: its given values are tied to the shadow's outputs by an IdentityN
    whose gradient goes to the shadow, so the values are the forward pass's and the
    gradients reach the variable.

    v1 loops and conds get their contexts back (`ContextRebuilder`); a loop variable's
    Enter whose shape a shape invariant loosened gets that shape again, and a loop built
    with back_prop=False passes no gradient again (`loops`)."""
    from tfx.core.api.ops_api import apply_op

    values = {key: t for key, t in given.items()}
    for feed, t in zip(instance.feeds, inputs):
        values[(feed.split(":")[0], 0)] = t
    frozen_names = {name for name, _ in given}
    contexts = (ContextRebuilder(func_graph, structure, loops.no_gradient)
                if structure.has_control_flow else None)
    built: dict[str, Operation] = {}
    back_edges: list[tuple[Operation, int, str, int]] = []
    for node in _rebuild_order(instance.graph, needed, structure):
        shadowed = node.name in frozen_names
        if shadowed and not any(_flows_back(t) for t in node.input_types):
            continue
        node_inputs: list[Tensor | None] = []
        for o in node.inputs:
            key = (o.node.name, o.index)
            node_inputs.append(values[key] if key in values else
                               built[o.node.name].outputs[o.index] if o.node.name in built
                               else None)  # a loop's back edge, made later
        pending = [k for k, t in enumerate(node_inputs) if t is None]
        for k in pending:  # a loop's Merge starts as while_loop makes it: Merge(enter, enter)
            node_inputs[k] = next(t for t in node_inputs if t is not None)
        controls = [built[c.name] for c in node.control_inputs if c.name in built]
        attrs = dict(node.attr)
        if node.op in _CALLS:  # the inner function's side effects ran in the forward pass
            attrs["f"] = _without_side_effects(func_graph, attrs["f"])
        with contexts.creating(node) if contexts is not None else contextlib.nullcontext():
            op = func_graph.create_op(node.op, node_inputs, attrs, name=node.name,
                                      control_inputs=controls)
        if contexts is not None:
            contexts.adopt(node, op)
        built[node.name] = op
        back_edges += [(op, k, node.inputs[k].node.name, node.inputs[k].index)
                       for k in pending]
        if node.name in loops.shapes:
            op.outputs[0]._shape = loops.shapes[node.name]
        if shadowed:
            fixed = [values[(node.name, k)] for k in range(len(op.outputs))]
            with func_graph.gradient_override_map({"IdentityN": _TIE}):
                tied = apply_op("IdentityN", input=[*fixed, *op.outputs],
                                name=f"{node.name}/forward_value")
            for k in range(len(op.outputs)):
                values[(node.name, k)] = tied[k]
    for op, k, name, index in back_edges:
        op._update_input(k, built[name].outputs[index])
    if contexts is not None:
        contexts.finish()
    result = []
    for i in outputs:
        name, index = instance.fetches[i].rsplit(":", 1)
        key = (name, int(index))
        result.append(values[key] if key in values else built[name].outputs[int(index)])
    return result


def _rebuild_order(body: Any, needed: set[str], structure: Structure) -> list[Any]:
    """The needed nodes, producers first (loop back edges aside), each node of a cond's
    branch after the branch's predicate and pivot, which its context is made of."""
    nodes = [n for n in body.topological_order() if n.name in needed]
    if not structure.has_control_flow:
        return nodes
    position = {n.name: i for i, n in enumerate(nodes)}
    waits: dict[str, set[str]] = {}
    users: dict[str, list[Any]] = {n.name: [] for n in nodes}
    for n in nodes:
        before = {o.node.name for o in n.inputs if o.node.op not in _BACK_EDGES}
        before |= {c.name for c in n.control_inputs}
        before |= set(structure.gate(n))
        waits[n.name] = {p for p in before if p in position and p != n.name}
        for p in waits[n.name]:
            users[p].append(n)
    ready = [(position[n.name], n.name) for n in nodes if not waits[n.name]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, name = heapq.heappop(ready)
        node = nodes[position[name]]
        order.append(node)
        for user in users[name]:
            waits[user.name].discard(name)
            if not waits[user.name]:
                heapq.heappush(ready, (position[user.name], user.name))
    if len(order) != len(nodes):
        stuck = sorted(name for name, w in waits.items() if w)[:5]
        raise InvalidArgumentError(
            f"gradient of a function call: cannot order the rebuilt body's v1 control flow "
            f"(nodes {stuck} wait on each other)")
    return order


_BACK_EDGES = frozenset({"NextIteration", "RefNextIteration"})


def _without_side_effects(graph: Any, func: graph_pb2.AttrValue) -> graph_pb2.AttrValue:
    """A copy of the called function keeping only what its outputs reach through data
    edges (an assignment made for its effect is dropped), for a nested call rebuilt by a
    backward pass: the forward call already had the effects."""
    library = graph._ir.library
    name = func.func.name
    key = (id(library), name)
    pure = _pure_names.get(key)
    if pure is None or all(f.signature.name != pure for f in library.function):
        source = next(f for f in library.function if f.signature.name == name)
        keep: set[str] = set()
        by_name = {n.name: n for n in source.node_def}
        stack = [ref.split(":")[0] for ref in source.ret.values()]
        while stack:
            node_name = stack.pop()
            if node_name in keep or node_name not in by_name:
                continue  # an argument, or already kept
            keep.add(node_name)
            stack.extend(i.split(":")[0] for i in by_name[node_name].input
                         if not i.startswith("^"))
        fdef = graph_pb2.FunctionDef()
        fdef.CopyFrom(source)
        pure = _unique_function_name(graph, f"{name}_pure")
        fdef.signature.name = pure
        del fdef.node_def[:]
        for node_def in source.node_def:
            if node_def.name in keep:
                copy = fdef.node_def.add()
                copy.CopyFrom(node_def)
                del copy.input[:]
                copy.input.extend(i for i in node_def.input
                                  if not i.startswith("^") or i[1:] in keep)
        fdef.ClearField("control_ret")
        del fdef.signature.control_output[:]
        library.function.append(fdef)
        _pure_names[key] = pure
    out = graph_pb2.AttrValue()
    out.CopyFrom(func)
    out.func.name = pure
    return out


_pure_names: dict[tuple[int, str], str] = {}

_TIE = "TfxForwardValue"


@RegisterGradient(_TIE)
def _forward_value_grad(op: Operation, *grads: Any) -> list:
    """IdentityN(fixed..., shadow...): the gradients of the fixed values go to the shadow."""
    half = len(grads) // 2  # the shadow's own outputs (the second half) have no users
    return [None] * half + list(grads[:half])


def _call_grad(op: Operation, *grads: Any) -> list:
    from tfx.core.api.ops_api import convert_to_tensor

    original = _exposed[op][0] if op in _exposed else len(op.outputs)
    present = [i for i in range(original)
               if grads[i] is not None and is_trainable(op.outputs[i])]
    if not present:
        return [None] * len(op.inputs)
    grads = tuple(convert_to_tensor(g) if g is not None else None for g in grads)
    instance = _instance(op)
    structure = infer_structure(instance.graph)
    needed, frozen = _needed(instance, present, structure)
    _check_rebuilt_reads(op, instance, structure, needed)
    exposed = _expose(op, instance, frozen) if frozen else {}
    keys = [key for key in exposed if key[0] in frozen]

    def build(func_graph: FuncGraph) -> list:
        inputs = [func_graph.add_input_placeholder(t.dtype.base, t.shape, f"input_{i}")
                  for i, t in enumerate(op.inputs)]
        seeds = [func_graph.add_input_placeholder(grads[i].dtype.base, grads[i].shape,
                                                  f"grad_{i}") for i in present]
        given = {key: func_graph.add_input_placeholder(exposed[key].dtype.base,
                                                       exposed[key].shape, f"forward_{j}")
                 for j, key in enumerate(keys)}
        outputs = _rebuild_body(func_graph, instance, structure, needed, given, inputs,
                                present, _loop_facts(op))
        result = gradients(outputs, inputs, grad_ys=seeds)
        return [None if g is None or not _flows_back(t.dtype) else convert_to_tensor(g)
                for g, t in zip(result, op.inputs)]

    func = op.get_attr("f")
    traced = trace_with(build, f"{func.name}_grad", graph=op.graph)
    result = call(traced, [*op.inputs, *(grads[i] for i in present),
                           *(exposed[key] for key in keys)])
    return list(result) if isinstance(result, (list, tuple)) else [None] * len(op.inputs)


RegisterGradient("PartitionedCall")(_call_grad)
RegisterGradient("StatefulPartitionedCall")(_call_grad)
