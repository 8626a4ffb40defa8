"""Function libraries: instantiation (FunctionDef naming, attr placeholders, list
arguments, control_ret), calls by op type (TF1 Defun), refusal of bad libraries
(unknown, recursive, ill-matched functions, malformed references), and how graph
passes, the placer and the partitioner treat calls. GraphDefs are written as text."""

# ruff: noqa: E501 - the GraphDefs and FunctionDefs are written as protobuf text, a node a line

from __future__ import annotations

import re
import sys

import numpy as np
import pytest
from google.protobuf import text_format

from tfx.core.devices import DeviceSet
from tfx.core.errors import InvalidArgumentError, NotFoundError, ResourceExhaustedError
from tfx.core.functions import FunctionLibrary, instantiate, signature_schema
from tfx.core.graph import Graph
from tfx.core.passes import optimize
from tfx.core.placer import place
from tfx.core.session import Session
from tfx.protos import graph_pb2

# scale(x: T, factor attr) = x * x (T from the call), with an attr placeholder in Mul.
SQUARE = """
function {
  signature { name: "square" input_arg { name: "x" type_attr: "T" }
              output_arg { name: "y" type_attr: "T" } attr { name: "T" type: "type" } }
  node_def { name: "m" op: "Mul" input: "x" input: "x" attr { key: "T" value { placeholder: "T" } } }
  ret { key: "y" value: "m:z:0" }
}
"""

# total(xs: N * float) = AddN(xs) + 1, calling `square` on the sum's copy (nested call).
TOTAL = SQUARE + """
function {
  signature { name: "total" input_arg { name: "xs" type: DT_FLOAT number_attr: "N" }
              output_arg { name: "s" type: DT_FLOAT } output_arg { name: "sq" type: DT_FLOAT }
              attr { name: "N" type: "int" has_minimum: true minimum: 1 } }
  node_def { name: "add" op: "AddN" input: "xs"
             attr { key: "N" value { placeholder: "N" } } attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  node_def { name: "plus" op: "AddV2" input: "add:sum:0" input: "one:output:0"
             attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "call" op: "square" input: "plus:z:0" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "s" value: "plus:z:0" }
  ret { key: "sq" value: "call:y:0" }
}
"""


def graph_of(text: str) -> Graph:
    return Graph.from_graph_def(text_format.Parse(text, graph_pb2.GraphDef()))


def placeholder(name: str, dtype: str = "DT_FLOAT") -> str:
    return f'node {{ name: "{name}" op: "Placeholder" attr {{ key: "dtype" value {{ type: {dtype} }} }} }}\n'


def call(name: str, func: str, inputs: list[str], tin: list[str], tout: list[str],
         op: str = "PartitionedCall", func_attrs: str = "") -> str:
    ins = "".join(f'input: "{i}" ' for i in inputs)
    return (f'node {{ name: "{name}" op: "{op}" {ins}'
            f'attr {{ key: "f" value {{ func {{ name: "{func}" {func_attrs} }} }} }} '
            f'attr {{ key: "Tin" value {{ list {{ {" ".join(f"type: {t}" for t in tin)} }} }} }} '
            f'attr {{ key: "Tout" value {{ list {{ {" ".join(f"type: {t}" for t in tout)} }} }} }} }}\n')


def library_of(text: str) -> FunctionLibrary:
    return FunctionLibrary(text_format.Parse(text, graph_pb2.GraphDef()).library)


def test_attr_placeholders_resolve_from_the_call() -> None:
    text = (placeholder("x", "DT_DOUBLE")
            + call("c", "square", ["x"], ["DT_DOUBLE"], ["DT_DOUBLE"],
                   func_attrs='attr { key: "T" value { type: DT_DOUBLE } }') + "library {" + SQUARE + "}")
    with Session(graph_of(text)) as sess:
        out = sess.run("c:0", {"x:0": np.array([1.5, -2.0])})
    np.testing.assert_array_equal(out, [2.25, 4.0])
    assert out.dtype == np.float64


def test_list_argument_nested_call_and_function_named_op() -> None:
    # `total` called by op type, with the number attr N = 3 from the node.
    text = (placeholder("a") + placeholder("b") + placeholder("c")
            + 'node { name: "t" op: "total" input: "a" input: "b" input: "c" '
              'attr { key: "N" value { i: 3 } } }\n' + "library {" + TOTAL + "}")
    graph = graph_of(text)
    node = graph.node("t")
    assert [t.name for t in node.input_types] == ["float32"] * 3
    assert node.num_outputs == 2
    with Session(graph) as sess:
        s, sq = sess.run(["t:0", "t:1"], {"a:0": np.float32(1), "b:0": np.float32(2),
                                          "c:0": np.float32(-0.5)})
    assert (float(s), float(sq)) == (3.5, 12.25)


def test_instance_names_list_elements_and_outputs() -> None:
    attrs = {"N": graph_pb2.AttrValue(i=2)}
    instance = instantiate(library_of("library {" + TOTAL + "}"), "total", attrs, "test")
    assert instance.feeds == ("xs/_0:0", "xs/_1:0")
    assert instance.fetches == ("plus:0", "call:0")
    assert [t.name for t in instance.output_types] == ["float32", "float32"]


def test_signature_schema_reads_args_and_attrs() -> None:
    fdef = library_of("library {" + TOTAL + "}").lookup("total", "test")
    schema = signature_schema(fdef.signature)
    assert [a.name for a in schema.inputs] == ["xs"] and schema.inputs[0].number_attr == "N"
    assert schema.attrs["N"].minimum == 1


COUNTER = """
function {
  signature { name: "bump" input_arg { name: "v" type: DT_RESOURCE }
              output_arg { name: "k" type: DT_INT32 } is_stateful: true }
  node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  node_def { name: "add" op: "AssignAddVariableOp" input: "v" input: "one:output:0"
             attr { key: "dtype" value { type: DT_FLOAT } } }
  node_def { name: "k" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
             attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 7 } } } }
  ret { key: "k" value: "k:output:0" }
  control_ret { key: "add" value: "add" }
}
"""


def test_control_ret_runs_on_the_callers_variables() -> None:
    text = """
    node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape {} } } attr { key: "shared_name" value { s: "v" } } }
    node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
    node { name: "init" op: "AssignVariableOp" input: "v" input: "zero"
           attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "read" op: "ReadVariableOp" input: "v" attr { key: "dtype" value { type: DT_FLOAT } } }
    """ + call("c", "bump", ["v"], ["DT_RESOURCE"], ["DT_INT32"], op="StatefulPartitionedCall") + (
        "library {" + COUNTER + "}")
    with Session(graph_of(text)) as sess:
        sess.run(["init"])
        assert int(sess.run("c:0")) == 7
        sess.run(["c"])
        assert float(sess.run("read:0")) == 2.0


def run_error(text: str, fetch: str = "c:0", feeds: dict | None = None) -> str:
    with pytest.raises(InvalidArgumentError) as info, Session(graph_of(text)) as sess:
        sess.run(fetch, feeds or {"x:0": np.float32(1)})
    return str(info.value)


def test_unknown_function_is_named() -> None:
    message = run_error(placeholder("x") + call("c", "sqare", ["x"], ["DT_FLOAT"], ["DT_FLOAT"],
                        func_attrs='attr { key: "T" value { type: DT_FLOAT } }')
                        + "library {" + SQUARE + "}")
    assert "node 'c'" in message and "'sqare' is not in the graph's function library" in message
    assert "square" in message  # the nearest name


def test_unknown_op_type_without_function_is_not_found() -> None:
    with pytest.raises(NotFoundError, match="op type 'nosuch' is not registered"):
        graph_of(placeholder("x") + 'node { name: "c" op: "nosuch" input: "x" }').validate()


RECURSIVE = """
function {
  signature { name: "f" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
  node_def { name: "g" op: "g" input: "x" }
  ret { key: "y" value: "g:y:0" }
}
function {
  signature { name: "g" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
  node_def { name: "f" op: "PartitionedCall" input: "x"
             attr { key: "f" value { func { name: "f" } } }
             attr { key: "Tin" value { list { type: DT_FLOAT } } }
             attr { key: "Tout" value { list { type: DT_FLOAT } } } }
  ret { key: "y" value: "f:output:0" }
}
function {
  signature { name: "self" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
  node_def { name: "again" op: "self" input: "x" }
  ret { key: "y" value: "again:y:0" }
}
"""


def test_mutual_recursion_is_refused() -> None:
    message = run_error(placeholder("x") + call("c", "f", ["x"], ["DT_FLOAT"], ["DT_FLOAT"])
                        + "library {" + RECURSIVE + "}")
    assert "node 'c'" in message and "calls itself (f -> g -> f)" in message


def test_direct_recursion_through_op_type_is_refused() -> None:
    message = run_error(placeholder("x") + 'node { name: "c" op: "self" input: "x" }'
                        + "library {" + RECURSIVE + "}")
    assert "function 'self' calls itself (self -> self)" in message


def test_arity_and_dtype_mismatch() -> None:
    lib = "library {" + SQUARE + "}"
    t = 'attr { key: "T" value { type: DT_FLOAT } }'
    two = run_error(placeholder("x") + call("c", "square", ["x", "x"], ["DT_FLOAT"] * 2,
                                            ["DT_FLOAT"], func_attrs=t) + lib)
    assert "node 'c'" in two and "input types [float32, float32] do not match the " \
        "signature of function 'square': [float32]" in two
    wrong = run_error(placeholder("x") + call("c", "square", ["x"], ["DT_FLOAT"], ["DT_INT32"],
                                              func_attrs=t) + lib)
    assert "output types [int32] do not match" in wrong
    missing = run_error(placeholder("x") + call("c", "square", ["x"], ["DT_FLOAT"], ["DT_FLOAT"])
                        + lib)
    assert "function 'square': the call gives no value for attr 'T'" in missing


@pytest.mark.parametrize("ref, why", [
    ("m:nope:0", "node 'm' has no output argument 'nope'"),
    ("m:z:3", "malformed input reference 'm:z:3'"),
    ("ghost:z:0", "malformed input reference 'ghost:z:0'"),
    ("a:b:c:d", "malformed input reference 'a:b:c:d'"),
])
def test_malformed_references(ref: str, why: str) -> None:
    bad = SQUARE.replace('value: "m:z:0"', f'value: "{ref}"')
    message = run_error(placeholder("x") + call("c", "square", ["x"], ["DT_FLOAT"], ["DT_FLOAT"],
                        func_attrs='attr { key: "T" value { type: DT_FLOAT } }')
                        + "library {" + bad + "}")
    assert "node 'c'" in message and "function 'square'" in message and why in message


def test_missing_ret_and_bad_control_input() -> None:
    t = 'attr { key: "T" value { type: DT_FLOAT } }'
    head = placeholder("x") + call("c", "square", ["x"], ["DT_FLOAT"], ["DT_FLOAT"], func_attrs=t)
    no_ret = SQUARE.replace('ret { key: "y" value: "m:z:0" }', "")
    assert "output 'y' has no ret entry" in run_error(head + "library {" + no_ret + "}")
    ctrl = SQUARE.replace('input: "x" input: "x"', 'input: "x" input: "x" input: "^ghost"')
    assert "control input '^ghost' names no node or argument" in run_error(
        head + "library {" + ctrl + "}")


@pytest.mark.parametrize("n, why", [
    (0, "attr 'N' is 0, below its minimum 1"),
    (-2, "attr 'N' is -2, below its minimum 1"),
])
def test_number_attr_out_of_range(n: int, why: str) -> None:
    with pytest.raises(InvalidArgumentError, match=why):
        instantiate(library_of("library {" + TOTAL + "}"), "total",
                    {"N": graph_pb2.AttrValue(i=n)}, "node 'c'")


def test_absurd_list_length_is_refused() -> None:
    unbounded = TOTAL.replace("has_minimum: true minimum: 1", "")
    with pytest.raises(InvalidArgumentError, match="invalid count 10000000 .attr 'N'. for argument 'xs'"):
        instantiate(library_of("library {" + unbounded + "}"), "total",
                    {"N": graph_pb2.AttrValue(i=10**7)}, "node 'c'")


def test_duplicate_function_names_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="defines 'square' twice"):
        library_of("library {" + SQUARE + SQUARE + "}")


# --- passes, placement, partitioning -------------------------------------------------------

def defun_graph() -> Graph:
    text = (placeholder("x") + placeholder("y")
            + 'node { name: "t" op: "total" input: "x" input: "y" attr { key: "N" value { i: 2 } } }\n'
            + 'node { name: "out" op: "Identity" input: "t:1" attr { key: "T" value { type: DT_FLOAT } } }\n'
            + "library {" + TOTAL + "}")
    return graph_of(text)


def test_optimized_graph_keeps_the_library_and_calls() -> None:
    result = optimize(defun_graph(), level="all", outputs=["out:0"], inputs=["x:0", "y:0"],
                      validate_each=True)
    graph = result.graph
    assert sorted(f.signature.name for f in graph.library.function) == ["square", "total"]
    assert graph.node("t").op == "total"
    feeds = {"x:0": np.float32(1), "y:0": np.float32(2)}
    with Session(graph, optimize="none") as a, Session(defun_graph(), optimize="all") as b:
        assert float(a.run("out:0", feeds)) == float(b.run("out:0", feeds)) == 16.0


def test_constant_inputs_do_not_fold_the_call() -> None:
    text = ('node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } '
            'attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }\n'
            + call("c", "square", ["x"], ["DT_FLOAT"], ["DT_FLOAT"],
                   func_attrs='attr { key: "T" value { type: DT_FLOAT } }') + "library {" + SQUARE + "}")
    graph = optimize(graph_of(text), level="basic", outputs=["c:0"], validate_each=True).graph
    assert graph.node("c").op == "PartitionedCall"
    with Session(graph) as sess:
        assert float(sess.run("c:0")) == 9.0


@pytest.mark.parametrize("devices", ["cpu:0,cpu:1", "cpu:0,gpu:0"])
def test_placer_puts_a_call_on_one_cpu(devices: str) -> None:
    graph = defun_graph()
    place(graph, DeviceSet.from_names(devices))
    assert "CPU" in graph.node("t").device
    graph.validate()


# --- hostile libraries ---------------------------------------------------------------------

NEG = 'node_def { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }'


def unary(name: str, body: str, ret: str) -> str:
    return (f'function {{ signature {{ name: "{name}" input_arg {{ name: "x" type: DT_FLOAT }} '
            f'output_arg {{ name: "y" type: DT_FLOAT }} }} {body} ret {{ key: "y" value: "{ret}" }} }}\n')


def chain_graph(depth: int, by_op_type: bool) -> Graph:
    """f0 calls f1 ... calls f{depth-1}, which negates its input."""
    functions = []
    for i in range(depth - 1):
        if by_op_type:
            functions.append(unary(f"f{i}", f'node_def {{ name: "n" op: "f{i + 1}" input: "x" }}', "n:y:0"))
        else:
            functions.append(unary(f"f{i}", call("n", f"f{i + 1}", ["x"], ["DT_FLOAT"], ["DT_FLOAT"]).replace("node {", "node_def {", 1),
                                   "n:output:0"))
    functions.append(unary(f"f{depth - 1}", NEG, "n:y:0"))
    head = ('node { name: "c" op: "f0" input: "x" }\n' if by_op_type
            else call("c", "f0", ["x"], ["DT_FLOAT"], ["DT_FLOAT"]))
    return graph_of(placeholder("x") + head + "library {" + "".join(functions) + "}")


@pytest.mark.parametrize("by_op_type", [False, True])
def test_deep_nesting_is_refused_without_recursion_error(by_op_type: bool) -> None:
    # 5,000 nested calls once overflowed the Python stack (a RecursionError, not a tfx error).
    with pytest.raises(InvalidArgumentError) as info, Session(chain_graph(5000, by_op_type)) as sess:
        sess.run("c:0", {"x:0": np.float32(1)})
    message = str(info.value)
    assert message.startswith("node 'c' (op ") and message.count("node '") == 1
    assert message.endswith("function 'f0': calls nest deeper than 64 functions "
                            "(f0 -> f1 -> ... -> f63 -> f64)")


@pytest.mark.parametrize("by_op_type", [False, True])
def test_nesting_up_to_the_limit_runs(by_op_type: bool) -> None:
    with Session(chain_graph(64, by_op_type), optimize="all") as sess:
        assert float(sess.run("c:0", {"x:0": np.float32(2)})) == -2.0


def test_caller_deep_in_the_python_stack_gets_a_tfx_error() -> None:
    graph = chain_graph(40, True)

    def at_depth(depth: int) -> None:
        if depth > 0:
            at_depth(depth - 1)
            return
        with Session(graph) as sess:
            sess.run("c:0", {"x:0": np.float32(1)})

    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    # Leave room for the session to start, not for 40 nested calls.
    with pytest.raises(ResourceExhaustedError, match="node 'c' .*function 'f0': calls nest too "
                       "deeply for the Python stack"):
        at_depth(sys.getrecursionlimit() - depth - 150)


def test_function_named_like_a_registered_op_is_refused() -> None:
    # TensorFlow refuses such a library too: a node of op type 'Neg' could mean either.
    lib = "library {" + unary("Neg", NEG.replace('"Neg"', '"Square"'), "n:y:0") + "}"
    message = run_error(placeholder("x") + call("c", "Neg", ["x"], ["DT_FLOAT"], ["DT_FLOAT"]) + lib)
    # refused when the graph is checked, before any node runs: the message names the library
    assert message == "the function library defines 'Neg', the name of a registered op"


def if_call(name: str, then: str, other: str, cond: str, tag: str = "node") -> str:
    return (f'{tag} {{ name: "{name}" op: "If" input: "{cond}" input: "x" '
            'attr { key: "Tcond" value { type: DT_BOOL } } attr { key: "Tin" value { list { type: DT_FLOAT } } } '
            'attr { key: "Tout" value { list { type: DT_FLOAT } } } '
            f'attr {{ key: "then_branch" value {{ func {{ name: "{then}" }} }} }} '
            f'attr {{ key: "else_branch" value {{ func {{ name: "{other}" }} }} }} }}\n')


def test_recursion_through_if_and_while_branches_is_refused() -> None:
    # f -If-> g -While body-> f: the cycle runs through func attrs, not op types.
    bool_const = ('node_def { name: "p" op: "Const" attr { key: "dtype" value { type: DT_BOOL } } '
                  'attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } } }')
    loop = ('node_def { name: "w" op: "While" input: "x" attr { key: "T" value { list { type: DT_FLOAT } } } '
            'attr { key: "cond" value { func { name: "no" } } } attr { key: "body" value { func { name: "f" } } } }')
    lib = ("library {" + unary("f", bool_const + if_call("i", "g", "neg", "p:output:0", "node_def"), "i:output:0")
           + unary("g", loop, "w:output:0") + unary("neg", NEG, "n:y:0")
           + 'function { signature { name: "no" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_BOOL } } '
           + bool_const + ' ret { key: "y" value: "p:output:0" } } }')
    message = run_error(placeholder("x") + call("c", "f", ["x"], ["DT_FLOAT"], ["DT_FLOAT"]) + lib)
    assert message.startswith("node 'c' (op PartitionedCall): function 'f': node 'i' (op If)")
    assert "function 'f' calls itself (f -> g -> f)" in message


def test_control_ret_naming_an_argument_is_refused() -> None:
    lib = "library {" + unary("f", NEG + ' control_ret { key: "k" value: "x" }', "n:y:0") + "}"
    message = run_error(placeholder("x") + call("c", "f", ["x"], ["DT_FLOAT"], ["DT_FLOAT"]) + lib)
    assert "node 'c'" in message and "function 'f': control_ret 'k' names no body node 'x'" in message


def test_runtime_error_names_each_function_and_inner_node() -> None:
    check = ('node_def { name: "chk" op: "CheckNumerics" input: "x" attr { key: "T" value { type: DT_FLOAT } } '
             'attr { key: "message" value { s: "boom" } } }')
    lib = ("library {" + unary("inner", check, "chk:output:0")
           + unary("outer", call("ic", "inner", ["x"], ["DT_FLOAT"], ["DT_FLOAT"]).replace("node {", "node_def {", 1),
                   "ic:output:0") + "}")
    graph = graph_of(placeholder("x") + call("c", "outer", ["x"], ["DT_FLOAT"], ["DT_FLOAT"]) + lib)
    with Session(graph) as sess:
        assert float(sess.run("c:0", {"x:0": np.float32(1)})) == 1.0
        with pytest.raises(InvalidArgumentError) as info:
            sess.run("c:0", {"x:0": np.float32("nan")})
    assert re.fullmatch(r"node 'c' \(op PartitionedCall, device [^)]*\): function 'outer': "
                        r"node 'ic' \(op PartitionedCall, device [^)]*\): function 'inner': "
                        r"node 'chk' \(op CheckNumerics, device [^)]*\): boom : Tensor had NaN values",
                        str(info.value))


def test_dead_output_of_a_body_names_the_function() -> None:
    # As TensorFlow ("Retval does not have value"): a ret on an untaken Switch output is an error.
    switch = ('node_def { name: "p" op: "Const" attr { key: "dtype" value { type: DT_BOOL } } '
              'attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } } } '
              'node_def { name: "sw" op: "Switch" input: "x" input: "p:output:0" attr { key: "T" value { type: DT_FLOAT } } }')
    message = run_error(placeholder("x") + call("c", "f", ["x"], ["DT_FLOAT"], ["DT_FLOAT"])
                        + "library {" + unary("f", switch, "sw:output_true:0") + "}")
    assert "node 'c'" in message and "function 'f': fetch 'sw:1' has no value: its value is dead" in message


BUMP = """
function {
  signature { name: "bump" input_arg { name: "v" type: DT_RESOURCE } is_stateful: true }
  node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  node_def { name: "add" op: "AssignAddVariableOp" input: "v" input: "one:output:0"
             attr { key: "dtype" value { type: DT_FLOAT } } }
}
"""


@pytest.mark.parametrize("level", ["none", "basic", "all"])
def test_optimizer_keeps_stateful_calls_without_outputs(level: str) -> None:
    # Two identical output-less calls, one reached only by a control edge: neither is
    # pruned, folded or merged into the other.
    text = """
    node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape {} } } attr { key: "shared_name" value { s: "v" } } }
    node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
    node { name: "init" op: "AssignVariableOp" input: "v" input: "zero" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "after" op: "ReadVariableOp" input: "v" input: "^c" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "read" op: "ReadVariableOp" input: "v" attr { key: "dtype" value { type: DT_FLOAT } } }
    """ + "".join(call(n, "bump", ["v"], ["DT_RESOURCE"], [], op="StatefulPartitionedCall") for n in ("c", "d"))
    with Session(graph_of(text + "library {" + BUMP + "}"), optimize=level) as sess:
        sess.run(["init"])
        assert [float(sess.run("after:0")) for _ in range(2)] == [1.0, 2.0]
        sess.run(["c", "d"])
        assert float(sess.run("read:0")) == 4.0


def test_a_huge_type_list_is_not_spelled_out_in_the_error() -> None:
    # A Tout of 100,000 types once produced a message of 900,000 characters.
    graph_def = text_format.Parse(placeholder("x") + call("c", "f", ["x"], ["DT_FLOAT"], ["DT_FLOAT"])
                                  + "library {" + unary("f", NEG, "n:y:0") + "}", graph_pb2.GraphDef())
    graph_def.node[1].attr["Tout"].list.type.extend([3] * 99_999)  # DT_INT32
    with pytest.raises(InvalidArgumentError) as info, Session(Graph.from_graph_def(graph_def)) as sess:
        sess.run("c:0", {"x:0": np.float32(1)})
    assert str(info.value) == (
        "node 'c' (op PartitionedCall): the call's output types [float32, int32, int32, int32, "
        "int32, int32, int32, int32, ... (100000 types)] do not match the signature of function "
        "'f': [float32]")


def test_unknown_ret_keys_are_listed_briefly() -> None:
    graph_def = text_format.Parse(placeholder("x") + call("c", "f", ["x"], ["DT_FLOAT"], ["DT_FLOAT"])
                                  + "library {" + unary("f", NEG, "n:y:0") + "}", graph_pb2.GraphDef())
    for k in range(10_000):
        graph_def.library.function[0].ret[f"r{k:05d}"] = "n:y:0"
    with pytest.raises(InvalidArgumentError) as info, Session(Graph.from_graph_def(graph_def)) as sess:
        sess.run("c:0", {"x:0": np.float32(1)})
    assert str(info.value) == ("node 'c' (op PartitionedCall): function 'f': ret names no output "
                               "argument: ['r00000', 'r00001', 'r00002', 'r00003', 'r00004'] and 9995 more")


@pytest.mark.parametrize("signature, why", [
    ('input_arg { name: "x" type: DT_FLOAT } input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT }',
     "two input arguments are named 'x'"),
    # Once accepted, both outputs reading the one ret entry.
    ('input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT }',
     "two output arguments are named 'y'"),
    ('input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } '
     'attr { name: "T" type: "type" } attr { name: "T" type: "int" }', "two attrs are named 'T'"),
])
def test_duplicate_signature_names_are_refused(signature: str, why: str) -> None:
    fdef = f'function {{ signature {{ name: "f" {signature} }} {NEG} ret {{ key: "y" value: "n:y:0" }} }}'
    with pytest.raises(InvalidArgumentError, match=f"^function 'f': {why}$"):
        signature_schema(library_of("library {" + fdef + "}").lookup("f", "test").signature)
    message = run_error(placeholder("x") + call("c", "f", ["x"], ["DT_FLOAT"], ["DT_FLOAT"])
                        + "library {" + fdef + "}")
    assert message == f"node 'c' (op PartitionedCall): function 'f': {why}"


def test_a_body_node_without_a_name_names_the_function() -> None:
    message = run_error(placeholder("x") + call("c", "f", ["x"], ["DT_FLOAT"], ["DT_FLOAT"])
                        + "library {" + unary("f", NEG.replace('name: "n"', 'name: ""'), ":y:0") + "}")
    assert message == "node 'c' (op PartitionedCall): function 'f': a node of op 'Neg' has an empty name"


def test_a_bad_library_is_refused_even_when_nothing_calls_it() -> None:
    # TensorFlow checks the library on import; a graph that never calls it still fails.
    graph = graph_of(placeholder("x") + "library {" + SQUARE + SQUARE + "}")
    with pytest.raises(InvalidArgumentError, match="defines 'square' twice"):
        graph.validate()
    with pytest.raises(InvalidArgumentError, match="defines 'square' twice"):
        Session(graph.to_graph_def()).run("x:0", {"x:0": 1.0})
