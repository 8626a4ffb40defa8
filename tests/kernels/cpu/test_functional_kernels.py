"""Function-calling kernels against TensorFlow: PartitionedCall, StatefulPartitionedCall,
If/StatelessIf, While/StatelessWhile, Case/StatelessCase and TF1 Defun calls.

The GraphDefs and TensorFlow's outputs in tests/data/functions/ were recorded with
TensorFlow 2.21 by tests/data/functions/generate.py; each case is run with a Session
(optimized and not) and with `tfx run`, and compared to them. Hand-written graphs
check the kernels' edges: truth of non-boolean predicates, out-of-range Case
indices, loops stopped by the step's deadline, signatures that do not match.
"""

# ruff: noqa: E501 - the GraphDefs and FunctionDefs are written as protobuf text, a node a line

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from google.protobuf import text_format
from hypothesis import given, settings
from hypothesis import strategies as st

from tfx.cli.main import main as tfx_main
from tfx.core import functions
from tfx.core.errors import DeadlineExceededError, InvalidArgumentError
from tfx.core.graph import Graph
from tfx.core.graph_io import load_graph
from tfx.core.op_registry import get_op
from tfx.core.session import Session
from tfx.core.shapes import ShapeContext
from tfx.kernels.cpu.functional import to_bool
from tfx.protos import graph_pb2

DATA = Path(__file__).parents[2] / "data" / "functions"
# The call ops each recorded graph holds (TensorFlow 2.21 chose them).
CALL_OPS = {
    "nested": "PartitionedCall", "cond_true": "StatelessIf", "cond_false": "StatelessIf",
    "if_stateful": "If", "while": "StatelessWhile", "case_0": "StatelessCase",
    "case_1": "StatelessCase", "case_2": "StatelessCase", "case_7": "StatelessCase",
    "variable": "StatefulPartitionedCall", "defun": "scaled_add_Hm5sXN0PXMU",
}
CASES = sorted(CALL_OPS)


def load_case(name: str) -> tuple[dict, dict, list]:
    data = np.load(DATA / f"{name}.npz")
    feeds = {k[5:]: data[k] for k in data.files if k.startswith("feed:")}
    fetches = {k[6:]: data[k] for k in data.files if k.startswith("fetch:")}
    targets = [k[7:] for k in data.files if k.startswith("target:")]
    return feeds, fetches, targets


def test_each_case_holds_its_call_op() -> None:
    for name, op in CALL_OPS.items():
        assert op in {n.op for n in load_graph(str(DATA / f"{name}.pb")).node}, name


@pytest.mark.parametrize("optimize", ["none", "basic"])
@pytest.mark.parametrize("name", CASES)
def test_session_matches_tensorflow(name: str, optimize: str) -> None:
    feeds, expected, targets = load_case(name)
    with Session(str(DATA / f"{name}.pb"), optimize=optimize) as sess:
        if targets:
            sess.run(targets)
        got = sess.run(list(expected), feeds)
        again = sess.run(list(expected), feeds)  # the compiled functions are reused
    for value, repeat, (fetch, want) in zip(got, again, expected.items()):
        assert value.dtype == want.dtype, fetch
        np.testing.assert_allclose(value, want, rtol=1e-6)
        np.testing.assert_array_equal(value, repeat)


@pytest.mark.parametrize("name", CASES)
def test_tfx_run_matches_tensorflow(name: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    feeds, expected, targets = load_case(name)
    argv = ["run", str(DATA / f"{name}.pb"), "-o", str(tmp_path / "out.npz")]
    for k, (tensor, value) in enumerate(feeds.items()):
        np.save(tmp_path / f"feed{k}.npy", value)
        argv += ["--feed", f"{tensor}={tmp_path / f'feed{k}.npy'}"]
    for tensor in expected:
        argv += ["--fetch", tensor]
    for target in targets:
        argv += ["--init", target]
    assert tfx_main(argv) == 0, capsys.readouterr().err
    out = np.load(tmp_path / "out.npz")
    assert len(out.files) == len(expected)
    for key, want in zip(out.files, expected.values()):
        np.testing.assert_allclose(out[key], want, rtol=1e-6)


def test_if_stateful_runs_its_print_only_when_taken(capfd: pytest.CaptureFixture[str]) -> None:
    feeds, expected, _ = load_case("if_stateful")
    x = next(k for k in feeds if feeds[k].dtype == np.float32)
    p = next(k for k in feeds if feeds[k].dtype == bool)
    fetch = next(iter(expected))
    with Session(str(DATA / "if_stateful.pb")) as sess:
        np.testing.assert_array_equal(sess.run(fetch, {x: feeds[x], p: True}), [3.0, 6.0])
        assert "taken" in capfd.readouterr().err
        sess.run(fetch, {x: feeds[x], p: False})
        assert "taken" not in capfd.readouterr().err


# --- hand-written graphs -------------------------------------------------------------------

def const(name: str, value: str, dtype: str = "DT_FLOAT", field: str = "float_val") -> str:
    return (f'node_def {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: {dtype} }} }} '
            f'attr {{ key: "value" value {{ tensor {{ dtype: {dtype} tensor_shape {{}} '
            f'{field}: {value} }} }} }} }}')


LIBRARY = """
library {
  function {
    signature { name: "plus_one" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    %ONE%
    node_def { name: "add" op: "AddV2" input: "x" input: "one:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "add:z:0" }
  }
  function {
    signature { name: "negate" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "neg" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "neg:y:0" }
  }
  function {
    signature { name: "always" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "b" type: DT_BOOL } }
    %TRUE%
    ret { key: "b" value: "t:output:0" }
  }
  function {
    signature { name: "below_ten" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "b" type: DT_FLOAT } }
    %TEN%
    node_def { name: "d" op: "Sub" input: "ten:output:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "r" op: "Relu" input: "d:z:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "b" value: "r:activations:0" }
  }
  function {
    signature { name: "two_outputs" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "a" type: DT_BOOL } output_arg { name: "b" type: DT_BOOL } }
    %TRUE%
    ret { key: "a" value: "t:output:0" } ret { key: "b" value: "t:output:0" }
  }
}
""".replace("%ONE%", const("one", "1")).replace("%TRUE%", const("t", "true", "DT_BOOL", "bool_val")).replace(
    "%TEN%", const("ten", "10"))


def graph_with(nodes: str) -> Graph:
    text = ('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
            + nodes + LIBRARY)
    return Graph.from_graph_def(text_format.Parse(text, graph_pb2.GraphDef()))


def if_node(cond_type: str, op: str = "StatelessIf") -> str:
    return (f'node {{ name: "p" op: "Placeholder" attr {{ key: "dtype" value {{ type: {cond_type} }} }} }}\n'
            f'node {{ name: "c" op: "{op}" input: "p" input: "x" '
            f'attr {{ key: "Tcond" value {{ type: {cond_type} }} }} '
            'attr { key: "Tin" value { list { type: DT_FLOAT } } } '
            'attr { key: "Tout" value { list { type: DT_FLOAT } } } '
            'attr { key: "then_branch" value { func { name: "plus_one" } } } '
            'attr { key: "else_branch" value { func { name: "negate" } } } }\n')


@pytest.mark.parametrize("cond_type, value, taken", [
    ("DT_INT32", np.int32(0), False), ("DT_INT32", np.int32(-3), True),
    ("DT_FLOAT", np.zeros([0, 2], np.float32), False), ("DT_FLOAT", np.zeros([2], np.float32), True),
    ("DT_STRING", np.array(b""), False), ("DT_STRING", np.array(b"a"), True),
])
def test_if_predicate_truth(cond_type: str, value: np.ndarray, taken: bool) -> None:
    with Session(graph_with(if_node(cond_type, "If"))) as sess:
        out = sess.run("c:0", {"x:0": np.float32(2), "p:0": value})
    assert float(out) == (3.0 if taken else -2.0)


def case_node(branches: list[str]) -> str:
    funcs = " ".join(f'func {{ name: "{b}" }}' for b in branches)
    return ('node { name: "k" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }\n'
            'node { name: "c" op: "Case" input: "k" input: "x" '
            'attr { key: "Tin" value { list { type: DT_FLOAT } } } '
            'attr { key: "Tout" value { list { type: DT_FLOAT } } } '
            f'attr {{ key: "branches" value {{ list {{ {funcs} }} }} }} }}\n')


def test_case_index_out_of_range_runs_the_last_branch() -> None:
    with Session(graph_with(case_node(["plus_one", "negate"]))) as sess:
        results = [float(sess.run("c:0", {"x:0": np.float32(5), "k:0": np.int32(k)}))
                   for k in (-1, 0, 1, 2, 100)]
        assert results == [-5.0, 6.0, -5.0, -5.0, -5.0]
        with pytest.raises(InvalidArgumentError, match="node 'c'.*branch_index must be a scalar"):
            sess.run("c:0", {"x:0": np.float32(5), "k:0": np.zeros([1], np.int32)})


def while_node(cond: str, body: str = "plus_one", op: str = "While") -> str:
    return (f'node {{ name: "w" op: "{op}" input: "x" '
            'attr { key: "T" value { list { type: DT_FLOAT } } } '
            f'attr {{ key: "cond" value {{ func {{ name: "{cond}" }} }} }} '
            f'attr {{ key: "body" value {{ func {{ name: "{body}" }} }} }} '
            'attr { key: "output_shapes" value { list { shape {} } } } }\n')


@settings(deadline=None, max_examples=15)
@given(st.integers(-5, 12))
def test_while_counts_up_to_ten(start: int) -> None:
    # cond is a float (10 - x, clipped at 0): nonzero is true, as TensorFlow converts it.
    with Session(graph_with(while_node("below_ten"))) as sess:
        out = sess.run("w:0", {"x:0": np.float32(start)})
    assert float(out) == float(max(start, 10))


def test_endless_while_stops_at_the_deadline() -> None:
    with Session(graph_with(while_node("always")), timeout=0.3) as sess, \
            pytest.raises(DeadlineExceededError, match="node 'w'"):
        sess.run("w:0", {"x:0": np.float32(0)})


@pytest.mark.parametrize("cond, body, why", [
    ("two_outputs", "plus_one", "the cond function 'two_outputs' must return one tensor"),
    ("always", "always", "output types [float32] do not match the signature of function 'always'"),
])
def test_while_signature_mismatch(cond: str, body: str, why: str) -> None:
    with Session(graph_with(while_node(cond, body))) as sess, \
            pytest.raises(InvalidArgumentError, match="node 'w' \\(op While\\)") as info:
        sess.run("w:0", {"x:0": np.float32(0)})
    assert why in str(info.value)


def test_shapes_come_from_output_shapes() -> None:
    schema = get_op("StatelessWhile")
    ctx = ShapeContext("w", "StatelessWhile", {"output_shapes": [(2,), None]}, [None, None],
                       num_outputs=2)
    assert schema.shape_fn(ctx) == [(2,), None]
    ctx = ShapeContext("w", "StatelessWhile", {"output_shapes": []}, [None], num_outputs=1)
    assert schema.shape_fn(ctx) == [None]
    call = ShapeContext("c", "PartitionedCall", {}, [(3,)], num_outputs=1)
    assert get_op("PartitionedCall").shape_fn(call) == [None]


@settings(deadline=None, max_examples=40)
@given(st.one_of(
    st.integers(-3, 3).map(np.int64), st.floats(allow_nan=False, width=32).map(np.float32),
    st.booleans().map(np.bool_), st.binary(max_size=2).map(np.array),
    st.lists(st.integers(0, 1), max_size=3).map(lambda v: np.array(v, np.int32)),
))
def test_to_bool_matches_numpy(value: np.ndarray) -> None:
    array = np.asarray(value)
    want = array.size > 0 if array.ndim else (len(array.item()) > 0 if array.dtype.kind == "S"
                                               else bool(array != 0))
    assert to_bool(value) == want


# --- hostile GraphDefs through `tfx run` -----------------------------------------------------

def call_node(func: str, op: str = "PartitionedCall", tout: str = "DT_FLOAT", func_attrs: str = "") -> str:
    return (f'node {{ name: "c" op: "{op}" input: "x" attr {{ key: "f" value {{ func {{ name: "{func}" {func_attrs} }} }} }} '
            'attr { key: "Tin" value { list { type: DT_FLOAT } } } '
            f'attr {{ key: "Tout" value {{ list {{ type: {tout} }} }} }} }}\n')


def unary(name: str, body: str, ret: str, extra: str = "") -> str:
    return (f'function {{ signature {{ name: "{name}" input_arg {{ name: "x" type: DT_FLOAT }} '
            f'output_arg {{ name: "y" type: DT_FLOAT }} }} {body} ret {{ key: "y" value: "{ret}" }} {extra} }}\n')


NEG = 'node_def { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }'
CHAIN = "".join(unary(f"f{i}", call_node(f"f{i + 1}").replace("node {", "node_def {"), "c:output:0")
                for i in range(4999)) + unary("f4999", NEG, "n:y:0")
HOSTILE = {
    "deep": (call_node("f0"), CHAIN, "function 'f0': calls nest deeper than 64 functions"),
    "case_without_branches": (
        'node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } '
        'attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }\n'
        'node { name: "c" op: "Case" input: "k" input: "x" attr { key: "Tin" value { list { type: DT_FLOAT } } } '
        'attr { key: "Tout" value { list { type: DT_FLOAT } } } attr { key: "branches" value { list { } } } }\n',
        "", "attr 'branches': 0 is below the minimum 1"),
    "if_branch_type": (
        'node { name: "p" op: "Const" attr { key: "dtype" value { type: DT_BOOL } } '
        'attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: true } } } }\n'
        'node { name: "c" op: "If" input: "p" input: "x" attr { key: "Tcond" value { type: DT_BOOL } } '
        'attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_INT32 } } } '
        'attr { key: "then_branch" value { func { name: "g" } } } attr { key: "else_branch" value { func { name: "g" } } } }\n',
        unary("g", NEG, "n:y:0"),
        "output types [int32] do not match the signature of function 'g': [float32]"),
    "while_body_arity": (
        'node { name: "c" op: "While" input: "x" attr { key: "T" value { list { type: DT_FLOAT } } } '
        'attr { key: "cond" value { func { name: "always" } } } attr { key: "body" value { func { name: "two_outputs" } } } }\n',
        "", "output types [float32] do not match the signature of function 'two_outputs': [bool, bool]"),
    "duplicate_function": (call_node("g"), unary("g", NEG, "n:y:0") * 2,
                           "the function library defines 'g' twice"),
    "function_named_like_op": (call_node("Relu"), unary("Relu", NEG, "n:y:0"),
                               "the function library defines 'Relu', the name of a registered op"),
    "missing_control_ret": (call_node("g"), unary("g", NEG, "n:y:0",
                                                  'control_ret { key: "k" value: "ghost" }'),
                            "function 'g': control_ret 'k' names no body node 'ghost'"),
    "missing_output_index": (call_node("g"), unary("g", NEG, "n:y:1"),
                             "function 'g', ret 'y': malformed input reference 'n:y:1'"),
    "unfilled_placeholder": (call_node("g"), unary("g", NEG.replace(
        "type: DT_FLOAT", 'placeholder: "T"'), "n:y:0"),
        "function 'g', node 'n': attr placeholder 'T' names no attr of the call"),
    "huge_number_attr": (
        'node { name: "c" op: "outs" input: "x" attr { key: "N" value { i: 9223372036854775807 } } }\n',
        'function { signature { name: "outs" input_arg { name: "x" type: DT_FLOAT } '
        'output_arg { name: "ys" type: DT_FLOAT number_attr: "N" } attr { name: "N" type: "int" } } '
        + NEG + ' ret { key: "ys" value: "n:y:0" } }',
        "absurd argument count 9223372036854775807"),
}


def write_graph(path: Path, nodes: str, functions: str) -> Path:
    # The helper functions of LIBRARY (always, two_outputs, ...) plus this case's own.
    text = ('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
            + nodes + LIBRARY.replace("library {", "library {" + functions, 1))
    path.write_bytes(text_format.Parse(text, graph_pb2.GraphDef()).SerializeToString())
    return path


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_tfx_run_refuses_hostile_libraries_in_one_line(case: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    nodes, functions, why = HOSTILE[case]
    graph = write_graph(tmp_path / "bad.pb", nodes, functions)
    np.save(tmp_path / "x.npy", np.float32(1))
    code = tfx_main(["run", str(graph), "--fetch", "c:0", "--feed", f"x:0={tmp_path / 'x.npy'}"])
    err = capsys.readouterr().err
    assert code == 2, err
    # a bad library is refused when the graph is checked (as TF does on import), naming
    # the library; the rest name the calling node
    where = ("error: the function library " if why.startswith("the function library")
             else "error: node 'c' (op ")
    assert len(err.strip().splitlines()) == 1 and err.startswith(where), err
    assert why in err


def test_tfx_run_stops_an_endless_loop_inside_a_call_at_the_timeout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loop = while_node("always", "plus_one").replace("node {", "node_def {")
    graph = write_graph(tmp_path / "loop.pb", call_node("outer"), unary("outer", loop, "w:output:0"))
    np.save(tmp_path / "x.npy", np.float32(1))
    code = tfx_main(["run", str(graph), "--fetch", "c:0", "--feed", f"x:0={tmp_path / 'x.npy'}",
                     "--timeout", "0.3"])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1 and "timed out" in err, err
    with Session(str(graph), timeout=0.3) as sess, pytest.raises(DeadlineExceededError):
        sess.run("c:0", {"x:0": np.float32(1)})


def counting_instantiations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = functions.instantiate

    def counted(library: Any, name: str, *args: Any) -> Any:
        calls.append(name)
        return real(library, name, *args)

    monkeypatch.setattr(functions, "instantiate", counted)
    return calls


def test_shared_callees_compile_once_per_function(monkeypatch: pytest.MonkeyPatch) -> None:
    # f_i = f_{i+1}(f_{i+1}(x)) through two call nodes: each function once compiled 2**i
    # times, so that a few kilobytes of library never finished preparing at depth 30.
    depth = 12
    levels = "".join(unary(f"f{i}", f'node_def {{ name: "a" op: "f{i + 1}" input: "x" }} '
                           f'node_def {{ name: "b" op: "f{i + 1}" input: "a:y:0" }}', "b:y:0")
                     for i in range(depth))
    calls = counting_instantiations(monkeypatch)
    text = ('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
            'node { name: "c" op: "f0" input: "x" }\n'
            + LIBRARY.replace("library {", "library {" + levels + unary(f"f{depth}", NEG, "n:y:0"), 1))
    with Session(Graph.from_graph_def(text_format.Parse(text, graph_pb2.GraphDef()))) as sess:
        assert float(sess.run("c:0", {"x:0": np.float32(4)})) == 4.0  # 2**12 negations
    assert sorted(calls) == sorted(f"f{i}" for i in range(depth + 1))


def test_case_compiles_a_repeated_branch_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting_instantiations(monkeypatch)
    with Session(graph_with(case_node(["negate"] * 1000 + ["plus_one"]))) as sess:
        results = [float(sess.run("c:0", {"x:0": np.float32(5), "k:0": np.int32(k)}))
                   for k in (0, 999, 1000, 5000)]
    assert results == [-5.0, -5.0, 6.0, 6.0]
    assert sorted(calls) == ["negate", "plus_one"]
