"""tf.Assert, tf.Print, tf.print and the check_ops assertions, built as TensorFlow 1.x builds them.

Messages, node names and printed text were recorded with TensorFlow 2.21
(tf.compat.v1 with v2 behaviour disabled, graph mode) from the same calls.
"""

from __future__ import annotations

import collections
import logging
import sys
from pathlib import Path

import numpy as np
import pytest

import tfx as tf
from tfx.core.api import check_ops_api as checks
from tfx.core.api.check_ops_api import (
    add_check_numerics_ops,
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    assert_same_float_dtype,
    assert_scalar,
    assert_type,
    is_non_decreasing,
    is_numeric_tensor,
    is_strictly_increasing,
    verify_tensor_all_finite,
)
from tfx.core.api.logging_api import Assert, Print, print_v2, string_format
from tfx.core.errors import DTypeError, InvalidArgumentError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from cli_checks import assert_one_line, tfx_cli  # noqa: E402


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _fails(sess, fetch, feed=None) -> str:
    with pytest.raises(InvalidArgumentError) as info:
        sess.run(fetch, feed)
    return str(info.value)


# --- tf.Assert ---------------------------------------------------------------------------


def test_assert_on_floats_is_guarded_by_a_cond(graph) -> None:
    x = tf.placeholder(tf.float32, [None])
    check = Assert(tf.reduce_all(x > 0), ["x must be positive", x], summarize=3)
    # TensorFlow 2.21 returns the Merge of the AssertGuard cond, the Assert in its false branch
    assert (check.name, check.type) == ("Assert/AssertGuard/Merge", "Merge")
    names = {op.name: op.type for op in graph.get_operations()}
    assert names["Assert/AssertGuard/Assert"] == "Assert"
    assert names["Assert/AssertGuard/NoOp"] == "NoOp"
    with tf.Session() as sess:
        sess.run(check, {x: np.ones(3, np.float32)})
        message = _fails(sess, check, {x: np.arange(-5, 5, dtype=np.float32)})
    assert message.startswith("node 'Assert/AssertGuard/Assert' (op Assert")
    assert message.endswith("assertion failed: [x must be positive] [-5 -4 -3...]")


def test_assert_on_strings_and_int32_is_one_node(graph) -> None:
    x = tf.placeholder(tf.int32, [None])
    check = Assert(tf.reduce_all(x > 0), ["int", x, "str"], summarize=20)
    assert (check.name, check.type) == ("Assert/Assert", "Assert")
    with tf.Session() as sess:
        message = _fails(sess, check, {x: np.arange(-5, 50, dtype=np.int32)})
    assert message.endswith("assertion failed: [int] [-5 -4 -3 -2 -1 0 1 2 3 4 5 6 7 8 9 10 11 "
                            "12 13 14...] [str]")


def test_assert_shows_each_dtype_as_tensorflow(graph) -> None:
    check = Assert(False, [tf.constant([[1.5, 2], [3, 4]]), tf.constant(["a", "b"]),
                           tf.constant(True), tf.constant(3.0)])
    with tf.Session() as sess:
        message = _fails(sess, check)
    assert message.endswith("assertion failed: [[1.5 2][3...]...] [a b] [1] [3]")


def test_control_dependencies_on_an_assert(graph) -> None:
    x = tf.placeholder(tf.float32, [None], name="x")
    with tf.control_dependencies([assert_positive(x, message="need x > 0")]):
        y = tf.identity(x * 2.0)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0]}), [2.0, 4.0])
        message = _fails(sess, y, {x: np.array([[1.0, -2.0], [3.0, 4.0]]).reshape(-1)})
    # TensorFlow 2.21 (for a 2x2 x, the values read [[1 -2][3...]...])
    assert message.endswith("assertion failed: [need x > 0.  ] [Condition x > 0 did not hold "
                            "element-wise:] [x (x:0) = ] [1 -2 3...]")


# --- tf.Print and tf.print ---------------------------------------------------------------


def test_print_v1(graph, capsys) -> None:
    x = tf.constant([1, 2, 3, 4, 5, 6, 7], name="x")
    printed = Print(x, [x, "data", tf.constant(2.5)], message="msg: ", first_n=2, summarize=4)
    assert printed.op.type == "Print" and printed.op.name == "Print"
    with tf.Session() as sess:
        for _ in range(3):
            np.testing.assert_array_equal(sess.run(printed), np.arange(1, 8))
    assert capsys.readouterr().err == "msg: [1 2 3 4...][data][2.5]\n" * 2


def test_tf_print_builds_tensorflow_templates(graph, capsys) -> None:
    x = tf.constant([1, 2, 3, 4, 5, 6, 7], name="x")
    p1 = print_v2("x:", x, {"b": x, "a": 2}, [x, "s"], (3.5,), output_stream=sys.stdout,
                  summarize=2)
    assert (p1.name, p1.type) == ("PrintV2", "PrintV2")
    fmt = p1.inputs[0].op
    assert fmt.type == "StringFormat" and fmt.get_attr("summarize") == 2
    assert fmt.get_attr("template") == "x: {} {'a': 2, 'b': {}} [{}, 's'] (3.5,)"
    assert p1.get_attr("output_stream") == "stdout" and p1.get_attr("end") == "\n"
    p2 = print_v2(tf.constant("only"), name="named")
    assert p2.name == "named" and p2.inputs[0].op.type == "Const"
    p3 = print_v2("a", "b", sep="--", end="!\n")
    assert p3.inputs[0].op.get_attr("template") == "a--b"
    p4 = print_v2("{}", x)  # the placeholder grows by seeded random digits: "{}9"
    assert p4.inputs[0].op.get_attr("placeholder") == "{}9"
    p5 = print_v2(tf.constant(["s1", "s2"]), tf.constant(True), 1.5)
    p6 = print_v2(collections.OrderedDict([("z", x), ("a", 1)]), name="od")
    assert p6.inputs[0].op.name == "od_format"
    with tf.Session() as sess:
        for op in (p1, p2, p3, p4, p5, p6):
            sess.run(op)
    out, err = capsys.readouterr()
    # TensorFlow 2.21 prints these lines. An OrderedDict is shown by Python's repr, as TF's
    # template is: "OrderedDict([('a', 1), ...])" before Python 3.12, "OrderedDict({...})" after.
    assert out == "x: [1 2 ... 6 7] {'a': 2, 'b': [1 2 ... 6 7]} [[1 2 ... 6 7], 's'] (3.5,)\n"
    ordered = repr(collections.OrderedDict([("a", 1), ("z", _Shown("[1 2 3 ... 5 6 7]"))]))
    assert err == f'only\na--b!\n{{}} [1 2 3 ... 5 6 7]\n["s1" "s2"] 1 1.5\n{ordered}\n'


class _Shown:
    """A value whose repr is the given text (a tensor as tf.print shows it)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def test_tf_print_streams_and_errors(graph, tmp_path, caplog) -> None:
    path = tmp_path / "out.txt"
    p = print_v2("to file", tf.constant(1.5), output_stream=f"file://{path}")
    assert p.get_attr("output_stream") == f"file://{path}"
    assert print_v2("x", output_stream=logging.WARNING).get_attr("output_stream") == "log(warning)"
    logged = print_v2("logged", output_stream=logging.info)
    assert logged.get_attr("output_stream") == "log(info)"
    with tf.Session() as sess, caplog.at_level(logging.INFO, logger="tfx"):
        sess.run(p)
        sess.run(p)
        sess.run(logged)
    assert path.read_text() == "to file 1.5\n" * 2
    assert [r.getMessage() for r in caplog.records] == ["logged\n"]
    with pytest.raises(ValueError, match=r"Unsupported output stream, logging level, or file\."
                                         r"bogus\. Supported streams are sys\.stdout"):
        print_v2("x", output_stream="bogus")
    with pytest.raises(ValueError, match=r"Unrecognized keyword arguments for tf.print: "
                                         r"\{'foo': 1\}"):
        print_v2("x", foo=1)


def test_string_format(graph) -> None:
    out = string_format("x = {}, y = {}", [tf.constant([1.5, 2.0]), tf.constant("s")])
    with tf.Session() as sess:
        assert sess.run(out) == b'x = [1.5 2], y = "s"'
    # TensorFlow 2.21's message
    with pytest.raises(ValueError, match="The template expects 2 tensors, but the inputs only "
                                         "has 1"):
        string_format("{} {}", [tf.constant(1)])


# --- elementwise checks: static failures ---------------------------------------------------


@pytest.mark.parametrize(("build", "message"), [
    (lambda: assert_equal([1, 2], [1, 3]),
     "Condition x == y did not hold element-wise:\nx (assert_equal_1/x:0) = \n[1 2]\n"
     "y (assert_equal_1/y:0) = \n[1 3]"),
    (lambda: assert_equal(tf.constant([1., 2.]), 2.0, message="hello", summarize=1),
     "hello\nCondition x == y did not hold element-wise:\nx (Const:0) = \n[1. 2.]\n"
     "y (assert_equal_1/y:0) = \n2.0"),
    (lambda: assert_less([1, 5], 3),
     "Condition x < y did not hold element-wise:\nx (assert_less/x:0) = \n[1 5]\n"
     "y (assert_less/y:0) = \n3"),
    (lambda: assert_positive([1, -5]),
     "\nCondition x > 0 did not hold element-wise:\nx (assert_positive/x:0) = \n[ 1 -5]"),
    (lambda: assert_positive([1, -5], message="m"),
     "m.  \nCondition x > 0 did not hold element-wise:\nx (assert_positive/x:0) = \n[ 1 -5]"),
    (lambda: assert_non_negative(tf.constant([-1.5])),
     "\nCondition x >= 0 did not hold element-wise:\nx (Const:0) = \n[-1.5]"),
    (lambda: assert_non_positive(tf.constant([1])),
     "\nCondition x <= 0 did not hold element-wise:x (Const:0) = \n[1]"),
    (lambda: assert_none_equal([1, 2], [3, 2]),
     "Condition x != y did not hold element-wise:\nx (assert_none_equal/x:0) = \n[1 2]\n"
     "y (assert_none_equal/y:0) = \n[3 2]"),
    (lambda: assert_greater_equal([1, 2], [3, 2]),
     "Condition x >= y did not hold element-wise:\nx (assert_greater_equal/x:0) = \n[1 2]\n"
     "y (assert_greater_equal/y:0) = \n[3 2]"),
    (lambda: assert_greater(1, 2),
     "Condition x > y did not hold element-wise:\nx (assert_greater/x:0) = \n1\n"
     "y (assert_greater/y:0) = \n2"),
    (lambda: assert_less_equal(3, 2),
     "Condition x <= y did not hold element-wise:\nx (assert_less_equal/x:0) = \n3\n"
     "y (assert_less_equal/y:0) = \n2"),
    (lambda: assert_equal("a", "b"),
     "Condition x == y did not hold element-wise:\nx (assert_equal_1/x:0) = \nb'a'\n"
     "y (assert_equal_1/y:0) = \nb'b'"),
])
def test_constant_failures_raise_at_construction(graph, build, message) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        build()
    assert str(info.value) == message


def test_constant_passes_still_build_an_assert(graph) -> None:
    # TensorFlow 2.21 returns the Assert (int32 data: unguarded), not a NoOp
    check = assert_equal([1, 2], [1, 2])
    assert (check.name, check.type) == ("assert_equal_1/Assert/Assert", "Assert")
    check = assert_negative([-1])
    assert check.name == "assert_negative/assert_less/Assert/Assert"
    x = tf.constant(1)
    same = assert_equal(x, x)
    assert (same.name, same.type) == ("assert_equal_2/NoOp", "NoOp")
    with tf.Session() as sess:
        sess.run([check, same])


def test_mismatched_inputs_fail_as_op_construction_does(graph) -> None:
    with pytest.raises(TypeError):
        assert_equal(tf.constant([1]), tf.constant([1.0]))
    with pytest.raises(ValueError):
        assert_equal([1, 2], [1, 2, 3])


# --- elementwise checks at run time --------------------------------------------------------


def test_run_time_messages(graph) -> None:
    x = tf.placeholder(tf.int32, name="x")
    y = tf.placeholder(tf.int32, name="y")
    f = tf.placeholder(tf.float32, name="f")
    eq = assert_equal(x, y)
    eq_f = assert_equal(f, 1.0, message="msg", summarize=2)
    near = assert_near(f, [1.0, 2.0])
    with tf.Session() as sess:
        assert eq.name == "assert_equal_1/Assert/Assert"
        message = _fails(sess, eq, {x: np.arange(6), y: np.arange(6)[::-1]})
        assert message.endswith("assertion failed: [Condition x == y did not hold element-wise:] "
                                "[x (x:0) = ] [0 1 2...] [y (y:0) = ] [5 4 3...]")
        message = _fails(sess, eq_f, {f: [1.0, 2.0, 3.0]})
        assert "'assert_equal_3/Assert/AssertGuard/Assert'" in message
        assert message.endswith("assertion failed: [msg] [Condition x == y did not hold "
                                "element-wise:] [x (f:0) = ] [1 2...] [y (assert_equal_3/y:0) = ] "
                                "[1]")
        sess.run(near, {f: [1.0, 2.0]})
        message = _fails(sess, near, {f: [1.0, 2.5]})
        assert "[x (f:0) = ] [1 2.5] [y (assert_near/y:0) = ] [1 2]" in message
        assert "[x and y not equal to tolerance rtol = " in message


# --- ranks ---------------------------------------------------------------------------------


def test_static_ranks(graph) -> None:
    ok = assert_rank([1, 2], 1)
    assert (ok.name, ok.type) == ("assert_rank/static_checks_determined_all_ok", "NoOp")
    assert assert_rank_at_least([[1, 2]], 1).name == (
        "assert_rank_at_least/static_checks_determined_all_ok")
    assert assert_rank_in([1, 2], [0, 1]).name == "assert_rank_in/static_checks_determined_all_ok"
    cases = [
        (lambda: assert_rank([1, 2], 2),
         "Tensor assert_rank_1/x:0 must have rank 2.  Received rank 1, shape (2,)"),
        (lambda: assert_rank([1, 2], 2, message="m"),
         "m.  Tensor assert_rank_2/x:0 must have rank 2.  Received rank 1, shape (2,)"),
        (lambda: assert_rank([1, 2], [2]), "Rank must be a scalar."),
        (lambda: assert_rank_at_least([1, 2], 2),
         "Tensor assert_rank_at_least_1/x:0 must have rank at least 2.  Received rank 1, "
         "shape (2,)"),
        (lambda: assert_rank_in([1, 2], (0, 2), message="m"),
         "m.  Tensor assert_rank_in_1/x:0 must have rank in (0, 2).  Received rank 1, shape (2,)"),
        (lambda: assert_rank(tf.placeholder(tf.float32, [None, 3], name="p"), 1),
         "Tensor p:0 must have rank 1.  Received rank 2, shape (None, 3)"),
    ]
    for build, message in cases:
        with pytest.raises(ValueError) as info:
            build()
        assert str(info.value) == message
    with pytest.raises(TypeError, match="must be of type tf.int32; got tf.float32"):
        assert_rank([1, 2], 1.0)
    with pytest.raises(TypeError, match="must be of type tf.int32; got tf.int64"):
        assert_rank([1, 2], np.int64(1))


def test_dynamic_ranks(graph) -> None:
    x = tf.placeholder(tf.float32, name="x")
    r = tf.placeholder(tf.int32, name="r")
    rank2 = assert_rank(x, 2)
    at_least = assert_rank_at_least(x, 2)
    rank_in = assert_rank_in(x, [0, 2])
    dynamic = assert_rank(x, r)
    ones = np.ones([3], np.float32)
    with tf.Session() as sess:
        sess.run([rank2, at_least, rank_in], {x: np.ones([3, 1], np.float32)})
        assert _fails(sess, rank2, {x: ones}).endswith(
            "assertion failed: [] [Tensor x:0 must have rank] [2] [Received shape: ] [3]")
        assert _fails(sess, at_least, {x: ones}).endswith(
            "assertion failed: [] [Tensor x:0 must have rank at least] [2] [Received shape: ] "
            "[3]")
        assert _fails(sess, rank_in, {x: ones}).endswith(
            "assertion failed: [] [Tensor x:0 must have rank in] [0] [2] [Received shape: ] [3]")
        message = _fails(sess, dynamic, {x: ones, r: np.array([1, 2], np.int32)})
        assert "'assert_rank_1/assert_rank/Assert/Assert'" in message
        assert message.endswith("assertion failed: [Rank must be a scalar. Received rank: ] "
                                "[1 2]")
        sess.run(dynamic, {x: ones, r: np.int32(1)})


# --- dtypes, scalars, iterables ------------------------------------------------------------


def test_dtype_checks(graph) -> None:
    assert assert_integer([1]).name == "assert_integer/statically_determined_was_integer"
    with pytest.raises(DTypeError) as info:
        assert_integer([1.0], message="m")
    assert str(info.value) == ('m.  Expected "x" to be integer type.  Found: assert_integer_1/x:0 '
                               "of dtype <dtype: 'float32'>")
    assert assert_type([1], tf.int32).name == "assert_type/statically_determined_correct_type"
    with pytest.raises(TypeError) as info:
        assert_type([1], tf.float32, message="m")
    assert str(info.value) == "m.  assert_type_1/tensor:0 must be of type tf.float32; got tf.int32"


def test_assert_scalar(graph) -> None:
    scalar = assert_scalar(3)
    assert scalar.name == "assert_scalar:0"
    t = tf.constant(2.0)
    assert assert_scalar(t) is t
    with pytest.raises(ValueError) as info:
        assert_scalar([3], message="m")
    assert str(info.value) == "m.  Expected scalar shape for assert_scalar_2:0, saw shape: (1,)."
    with pytest.raises(ValueError) as info:
        assert_scalar(tf.placeholder(tf.float32))
    assert str(info.value) == "Expected scalar shape for Placeholder:0, saw shape: <unknown>."


def test_assert_same_float_dtype(graph) -> None:
    a, b = tf.constant(1.0), tf.constant(2.0)
    assert assert_same_float_dtype([a, b]) is tf.float32
    assert assert_same_float_dtype() is tf.float32
    assert assert_same_float_dtype(None, tf.float16) is tf.float16
    cases = [
        (lambda: assert_same_float_dtype([tf.constant(1)]),
         "Expected floating point type, got <dtype: 'int32'>."),
        (lambda: assert_same_float_dtype([a, tf.constant(1.0, tf.float64, name="d")]),
         "d:0, type=<dtype: 'float64'>, must be of the same type (<dtype: 'float32'>) as "
         "Const:0."),
        (lambda: assert_same_float_dtype([a], tf.float64),
         "Const:0, type=<dtype: 'float32'>, must be of the same type (<dtype: 'float64'>)."),
        (lambda: assert_same_float_dtype(None, tf.int32),
         "Expected floating point type, got <dtype: 'int32'>."),
    ]
    for build, message in cases:
        with pytest.raises(ValueError) as info:
            build()
        assert str(info.value) == message


def test_proper_iterables_and_numeric_tensors(graph) -> None:
    assert assert_proper_iterable([1]) is None
    assert assert_proper_iterable((tf.constant(1),)) is None
    for bad, found in ((np.ones(2), "<class 'numpy.ndarray'>"), ("ab", "<class 'str'>"),
                       (b"ab", "<class 'bytes'>")):
        with pytest.raises(TypeError) as info:
            assert_proper_iterable(bad)
        assert str(info.value) == ('Expected argument "values" to be a "proper" iterable.  '
                                   f"Found: {found}")
    with pytest.raises(TypeError, match='to be iterable.  Found: <class \'int\'>'):
        assert_proper_iterable(3)
    assert is_numeric_tensor(tf.constant(1)) and is_numeric_tensor(tf.constant(1.0, tf.float16))
    assert not is_numeric_tensor(tf.constant("a"))
    assert not is_numeric_tensor(tf.constant(True))
    assert not is_numeric_tensor(1)


# --- monotonicity and numerics -------------------------------------------------------------


def test_monotonicity(graph) -> None:
    x = tf.placeholder(tf.float32, name="x")
    non_decreasing, increasing = is_non_decreasing(x), is_strictly_increasing(x)
    assert non_decreasing.op.name == "is_non_decreasing/All"
    with tf.Session() as sess:
        for value, expected in (([1, 1, 2], (True, False)), ([1, 2, 3], (True, True)),
                                ([3], (True, True)), ([], (True, True)),
                                ([[1, 2], [2, 3]], (True, False)),
                                ([[1, 2], [0, 3]], (False, False))):
            got = sess.run([non_decreasing, increasing], {x: np.array(value, np.float32)})
            assert tuple(bool(v) for v in got) == expected, value
    with pytest.raises(TypeError, match="Expected x to be numeric, instead found"):
        is_non_decreasing(tf.constant(["a"]))


def test_verify_tensor_all_finite(graph) -> None:
    x = tf.placeholder(tf.float32, name="x")
    checked = verify_tensor_all_finite(x, "bad")
    assert checked.name == "VerifyFinite/control_dependency:0"
    assert checks.assert_all_finite is verify_tensor_all_finite
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(checked, {x: [1.0, 2.0]}), [1.0, 2.0])
        assert _fails(sess, checked, {x: [1.0, np.nan]}).endswith("bad : Tensor had NaN values")
    with pytest.raises(ValueError, match="Cannot specify both 'x' and 't'"):
        verify_tensor_all_finite(t=x, x=x, msg="m")


def test_add_check_numerics_ops(graph) -> None:
    x = tf.placeholder(tf.float32, [2], name="x")
    z = tf.log(x * 2.0)
    check = add_check_numerics_ops()
    # TensorFlow 2.21 adds one chained CheckNumerics per float output, then group_deps
    numerics = [op for op in graph.get_operations() if op.type == "CheckNumerics"]
    assert [op.inputs[0].name for op in numerics] == ["x:0", "mul/y:0", "mul:0", "Log:0"]
    assert [[c.name for c in op.control_inputs] for op in numerics] == [
        [], ["CheckNumerics"], ["CheckNumerics_1"], ["CheckNumerics_2"]]
    assert check.name == "group_deps"
    with tf.Session() as sess:
        sess.run([z, check], {x: [1.0, 2.0]})
        assert _fails(sess, [z, check], {x: [1.0, -1.0]}).endswith(
            "Log:0 : Tensor had NaN values")


def test_add_check_numerics_ops_refuses_control_flow(graph) -> None:
    p = tf.placeholder(tf.bool)
    tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    with pytest.raises(ValueError, match="not compatible with TensorFlow control flow"):
        add_check_numerics_ops()


# --- the CLI -------------------------------------------------------------------------------


def test_a_failing_assert_under_tfx_run(capsys, tmp_path) -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        with tf.control_dependencies([assert_positive(x, message="x must be positive")]):
            tf.identity(x, name="y")
    path = tmp_path / "assert.pb"
    path.write_bytes(g.as_graph_def().SerializeToString())
    code, out, err = tfx_cli(capsys, "run", str(path), "--feed", "x=[1, 2]", "--fetch", "y")
    assert code == 0, err
    code, out, err = tfx_cli(capsys, "run", str(path), "--feed", "x=[1, -2]", "--fetch", "y")
    # An InvalidArgumentError: tfx's exit code for those is 2
    assert code == 2 and out == ""
    assert_one_line(err)
    assert "'assert_positive/assert_less/Assert/AssertGuard/Assert'" in err
    assert err.rstrip().endswith("assertion failed: [x must be positive.  ] [Condition x > 0 did "
                                 "not hold element-wise:] [x (x:0) = ] [1 -2]")
