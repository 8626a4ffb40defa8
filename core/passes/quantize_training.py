"""Quantized training: fake-quantize the inputs of every MatMul and Conv2D in a GraphDef.

GraphDef in, GraphDef out, as TensorFlow's `DoQuantizeTrainingOnGraphDef`
(common_runtime/quantize_training.cc) with QuantizeAndDequantizeV2, the op TensorFlow's
`tf.train.do_quantize_training_on_graphdef` asks for:

* every data input of a MatMul or Conv2D whose name does not start with "gradients"
  goes through `<source>/QuantizeAndDequantizeV2` (num_bits bits, range_given), one per
  source node, reading the source's output 0 (as TensorFlow's, whichever output the
  edge read);
* the range comes from the source's op ("the range rule"): Relu6 [0, 6], Sigmoid [0, 1]
  and Tanh [-1, 1] are given as `<source>/InputMin` and `/InputMax` constants (Sigmoid's
  and Relu6's unsigned); Identity and the pools take their input's rule, Reshape and
  ConcatV2 their first input's; anything else (Relu unsigned, the rest signed) gets an
  exponential moving average (decay 0.999) of the input's min and max in two new
  float variables `<source>/Min/Variable` and `/Max/Variable`, initialized from the
  first batch through Switch/Merge on IsVariableInitialized;
* an op the rule does not know (not Const, Variable(V2), Relu, Relu6, Sigmoid, Tanh,
  Reshape, ConcatV2, Identity or a pool) is taken for a model input, and only 2 such
  edges are allowed;
* a graph saved by one SaveV2 (a tf.train.Saver's) saves and restores the new
  variables too: the SaveV2 is rebuilt (at the end of the graph) with them appended, and
  each gets `<scope>/RestoreV2/_N_qt` and `<scope>/Assign/_N+1_qt` run by
  `<scope>/restore_all`.

New nodes follow the originals in creation order, attrs as TensorFlow writes them
(defaults included; a constant of one element by value field, more as
`tensor_content`), and each node's control inputs are sorted by name as TensorFlow's
`Graph::ToGraphDef` writes them.
"""

from __future__ import annotations

import numpy as np

from tfx.core import tensor_util
from tfx.core.graph import Graph, Node, Output
from tfx.core.wire_format import write_varint
from tfx.protos import graph_pb2, tensor_pb2, types_pb2

__all__ = ["quantize_training"]

TARGET_OPS = frozenset({"MatMul", "Conv2D"})
ALLOWED_UNKNOWN_INPUTS = 2
EMA_DECAY = np.float32(0.999)

_FLOAT = types_pb2.DT_FLOAT
_INT32 = types_pb2.DT_INT32
_STRING = types_pb2.DT_STRING


class _Rule:
    """How one input is quantized: signed or not, and a given range or a moving one."""

    def __init__(self) -> None:
        self.signed = True
        self.range_given = False
        self.low = 0.0
        self.high = 0.0


def _find_type(node: Node, rule: _Rule) -> bool:
    """Fill `rule` for `node`'s op; False for an op the rule does not know."""
    op = node.op
    if op in ("Const", "Variable", "VariableV2"):
        rule.signed, rule.range_given = True, False
    elif op == "Relu":
        rule.signed, rule.range_given = False, False
    elif op in ("Relu6", "Sigmoid", "Tanh"):
        rule.signed = op == "Tanh"
        rule.range_given = True
        rule.low, rule.high = {"Relu6": (0.0, 6.0), "Sigmoid": (0.0, 1.0),
                               "Tanh": (-1.0, 1.0)}[op]
    elif op in ("Reshape", "ConcatV2"):
        if node.inputs:
            _find_type(node.inputs[0].node, rule)
    elif op in ("Identity", "MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D"):
        for source in node.inputs:  # the last input's rule wins, as TensorFlow's
            _find_type(source.node, rule)
    else:
        rule.signed, rule.range_given = True, False
        return False
    return True


def _type_attr(dtype: int) -> graph_pb2.AttrValue:
    return graph_pb2.AttrValue(type=dtype)


def _tensor_attr(values: np.ndarray, dtype: int) -> graph_pb2.AttrValue:
    """A constant's value as TensorFlow's SetAttrValue(Tensor) writes it: one element in
    its typed field, more as tensor_content."""
    proto = tensor_pb2.TensorProto(dtype=dtype)
    proto.tensor_shape.SetInParent()  # a scalar's shape is written, empty
    for size in values.shape:
        proto.tensor_shape.dim.add(size=size)
    if values.size > 1:
        if dtype == _STRING:
            items = [bytes(v) for v in values.ravel()]
            proto.tensor_content = b"".join(write_varint(len(v)) for v in items) + b"".join(items)
        else:
            proto.tensor_content = values.tobytes()
    elif values.size == 1:
        item = values.ravel()[0]
        if dtype == _STRING:
            proto.string_val.append(bytes(item))
        elif dtype == _FLOAT:
            proto.float_val.append(float(item))
        else:
            proto.int_val.append(int(item))
    return graph_pb2.AttrValue(tensor=proto)


def _const(graph: Graph, name: str, value: np.ndarray, dtype: int) -> Node:
    return graph.add_node(name, "Const", attr={"dtype": _type_attr(dtype),
                                               "value": _tensor_attr(value, dtype)})


def _base_enum(output: Output) -> int:
    return output.node.output_types[output.index].base.as_datatype_enum


class _Rewriter:
    def __init__(self, graph: Graph, num_bits: int) -> None:
        self.graph = graph
        self.num_bits = num_bits
        self.variables: list[Node] = []
        self.name_counter = 0  # Graph::NewName's

    def add(self, name: str, op: str, inputs: list[Output], **attrs: graph_pb2.AttrValue
            ) -> Node:
        return self.graph.add_node(name, op, inputs, attr=attrs)

    def ema_variable(self, name: str, decay: Node, initial: Node, dtype: int) -> Node:
        """`name`/Variable, set to `initial` on the first run and to its moving average
        after; returns the assignment (its output is the new value)."""
        b = {"T": _type_attr(dtype)}  # what the input's reductions are
        f = {"T": _type_attr(_FLOAT)}  # what the variable is
        variable = self.add(f"{name}/Variable", "VariableV2", [],
                            shared_name=graph_pb2.AttrValue(s=b""),
                            shape=graph_pb2.AttrValue(shape={}), dtype=_type_attr(_FLOAT),
                            container=graph_pb2.AttrValue(s=b""))
        self.variables.append(variable)
        ready = self.add(f"{name}/IsInitialized", "IsVariableInitialized",
                         [variable.output(0)], dtype=_type_attr(_FLOAT))
        switch = self.add(f"{name}/Switch", "Switch", [initial.output(0), ready.output(0)],
                          **b)
        one = _const(self.graph, f"{name}/EMA/OneConst", np.array(1.0, np.float32), _FLOAT)
        complement = self.add(f"{name}/EMA/DecayComplement", "Sub",
                              [one.output(0), decay.output(0)], **f)
        diff = self.add(f"{name}/EMA/ValueDiff", "Sub",
                        [variable.output(0), switch.output(1)], **f)
        update = self.add(f"{name}/EMA/UpdateValue", "Mul",
                          [diff.output(0), complement.output(0)], **f)
        average = self.add(f"{name}/EMA/EMAValue", "Sub",
                           [variable.output(0), update.output(0)], **f)
        merged = self.add(f"{name}/Merge", "Merge", [switch.output(0), average.output(0)],
                          N=graph_pb2.AttrValue(i=2), **b)
        return self.add(f"{name}/AssignValue", "Assign",
                        [variable.output(0), merged.output(0)],
                        validate_shape=graph_pb2.AttrValue(b=True),
                        use_locking=graph_pb2.AttrValue(b=True), **f)

    def min_max(self, prefix: str, source: Node, rule: _Rule) -> tuple[Node, Node]:
        if rule.range_given:
            low = _const(self.graph, f"{prefix}/InputMin", np.array(rule.low, np.float32),
                         _FLOAT)
            high = _const(self.graph, f"{prefix}/InputMax", np.array(rule.high, np.float32),
                          _FLOAT)
            return low, high
        dtype = _base_enum(source.output(0))
        decay = _const(self.graph, f"{prefix}/Decay", np.array(EMA_DECAY), _FLOAT)
        axes = f"{prefix}/ReductionAxes"
        start = _const(self.graph, f"{axes}/RangeStart", np.array(0, np.int32), _INT32)
        delta = _const(self.graph, f"{axes}/RangeDelta", np.array(1, np.int32), _INT32)
        rank = self.add(f"{axes}/InputRank", "Rank", [source.output(0)], T=_type_attr(dtype))
        reduction = self.add(f"{axes}/ReductionAxes", "Range",
                             [start.output(0), rank.output(0), delta.output(0)],
                             Tidx=_type_attr(_INT32))
        reduced = {}
        for kind in ("Min", "Max"):
            reduced[kind] = self.add(f"{prefix}/{kind}", kind,
                                     [source.output(0), reduction.output(0)],
                                     keep_dims=graph_pb2.AttrValue(b=False),
                                     T=_type_attr(dtype), Tidx=_type_attr(_INT32))
        low = self.ema_variable(f"{prefix}/Min", decay, reduced["Min"], dtype)
        high = self.ema_variable(f"{prefix}/Max", decay, reduced["Max"], dtype)
        return low, high

    def quantize(self, source: Node, rule: _Rule) -> Node:
        prefix = source.name
        low, high = self.min_max(prefix, source, rule)
        return self.add(f"{prefix}/QuantizeAndDequantizeV2", "QuantizeAndDequantizeV2",
                        [source.output(0), low.output(0), high.output(0)],
                        signed_input=graph_pb2.AttrValue(b=rule.signed),
                        round_mode=graph_pb2.AttrValue(s=b"HALF_TO_EVEN"),
                        range_given=graph_pb2.AttrValue(b=True),
                        num_bits=graph_pb2.AttrValue(i=self.num_bits),
                        narrow_range=graph_pb2.AttrValue(b=False),
                        axis=graph_pb2.AttrValue(i=-1),
                        T=_type_attr(_base_enum(source.output(0))))

    def new_name(self, prefix: str) -> str:
        name = f"{prefix}/_{self.name_counter}"
        self.name_counter += 1
        return name

    def save_and_restore(self) -> None:
        saves = [n for n in self.graph if n.op == "SaveV2"]
        if len(saves) > 1:
            raise ValueError("Input graph has multiple SaveV2 ops.")
        if not saves:
            return
        save = saves[0]
        inputs = list(save.inputs)
        scope = save.name[:save.name.rfind("/")] if "/" in save.name else save.name
        if f"{scope}/restore_all" not in self.graph:
            raise ValueError("graph has SaveOp, but no restore_all NoOp")
        restore_all = self.graph.node(f"{scope}/restore_all")
        prefix = inputs[0].node
        for variable in self.variables:
            restore_name = self.new_name(f"{scope}/RestoreV2") + "_qt"
            assign_name = self.new_name(f"{scope}/Assign") + "_qt"
            names = _const(self.graph, f"{restore_name}/tensor_names",
                           np.array([variable.name.encode()], object), _STRING)
            slices = _const(self.graph, f"{restore_name}/shape_and_slices",
                            np.array([b""], object), _STRING)
            restore = self.add(restore_name, "RestoreV2",
                               [prefix.output(0), names.output(0), slices.output(0)],
                               dtypes=graph_pb2.AttrValue(
                                   list=graph_pb2.AttrValue.ListValue(type=[_FLOAT])))
            assign = self.add(assign_name, "Assign", [variable.output(0), restore.output(0)],
                              T=_type_attr(_FLOAT), use_locking=graph_pb2.AttrValue(b=True),
                              validate_shape=graph_pb2.AttrValue(b=True))
            self.graph.add_control_input(restore_all, assign)
        self._rebuild_save(save, inputs)

    def _rebuild_save(self, save: Node, inputs: list[Output]) -> None:
        names_node, slices_node = inputs[1].node, inputs[2].node
        names = _const_strings(names_node) + [v.name.encode() for v in self.variables]
        slices = _const_strings(slices_node) + [b""] * len(self.variables)
        names_node.set_attr("value", _tensor_attr(np.array(names, object), _STRING))
        slices_node.set_attr("value", _tensor_attr(np.array(slices, object), _STRING))
        # the saved tensors are read at output 0 of their nodes, as TensorFlow's rebuild
        tensors = [Output(o.node, 0) for o in inputs[3:]] + [v.output(0) for v in
                                                              self.variables]
        readers = list(save.users)  # by control edges only: SaveV2 has no outputs
        for reader in readers:
            self.graph.remove_control_input(reader, save)
        device = save.device
        self.graph.remove_node(save)
        rebuilt = self.graph.add_node(
            save.name, "SaveV2", [Output(o.node, 0) for o in inputs[:3]] + tensors,
            attr={"dtypes": graph_pb2.AttrValue(list=graph_pb2.AttrValue.ListValue(
                type=[_base_enum(t) for t in tensors]))}, device=device)
        for reader in readers:
            self.graph.add_control_input(reader, rebuilt)


def _const_strings(node: Node) -> list[bytes]:
    value = tensor_util.to_ndarray(node.attr["value"].tensor, f"node {node.name!r}")
    return [bytes(v) for v in np.asarray(value, dtype=object).ravel()]


def quantize_training(graph_def: graph_pb2.GraphDef, num_bits: int) -> graph_pb2.GraphDef:
    """`graph_def` with the inputs of its MatMul and Conv2D nodes quantized to `num_bits`.

    Raises:
        IndexError: num_bits outside [1, 63] (TensorFlow's OutOfRange, as Python sees it).
        NotImplementedError: a third input from an op the range rule does not know.
        ValueError: several SaveV2 ops, or a SaveV2 without its restore_all NoOp.
    """
    if not 1 <= num_bits <= 63:
        raise IndexError(f"num_bits should be in range [1, 63] but is: {num_bits}")
    graph = Graph.from_graph_def(graph_def)
    edges: list[tuple[Node, int, _Rule]] = []
    unknown = 0
    for node in graph:
        if node.op not in TARGET_OPS or node.name.startswith("gradients"):
            continue
        for index, source in enumerate(node.inputs):
            rule = _Rule()
            if not _find_type(source.node, rule):
                unknown += 1
                if unknown > ALLOWED_UNKNOWN_INPUTS:
                    raise NotImplementedError(
                        f"Found an unknown op: {source.node.name} with type: "
                        f"{source.node.op}; Unknown ops are considered as model input for "
                        f"now and only {ALLOWED_UNKNOWN_INPUTS} inputs are supported "
                        "currently.")
            edges.append((node, index, rule))
    rewriter = _Rewriter(graph, num_bits)
    made: dict[str, Node] = {}
    for node, index, rule in edges:
        source = node.inputs[index].node
        convert = made.get(source.name)
        if convert is None:
            convert = made[source.name] = rewriter.quantize(source, rule)
        graph.set_input(node, index, convert.output(0))
    rewriter.save_and_restore()
    out = graph.to_graph_def()
    for node_def in out.node:
        control = sorted(i for i in node_def.input if i.startswith("^"))
        if len(control) > 1:
            data = [i for i in node_def.input if not i.startswith("^")]
            del node_def.input[:]
            node_def.input.extend(data + control)
    return out

