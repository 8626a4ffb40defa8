"""Function libraries: instantiation (FunctionDef naming, attr placeholders, list
arguments, control_ret), calls by op type (TF1 Defun), refusal of bad libraries
(unknown, recursive, ill-matched functions, malformed references), and how graph
passes, the placer and the partitioner treat calls. GraphDefs are written as text."""

# ruff: noqa: E501 - the GraphDefs and FunctionDefs are written as protobuf text, a node a line

from __future__ import annotations

import numpy as np
import pytest
from google.protobuf import text_format

from tfx.core.devices import DeviceSet
from tfx.core.errors import InvalidArgumentError, NotFoundError
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
