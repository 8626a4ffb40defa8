"""variable_scope / get_variable with TensorFlow 1.x's semantics.

Every name, error message and value here was recorded with TensorFlow 2.21's
tf.compat.v1 in graph mode (disable_v2_behavior) running the same code.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf
from tfx.core.api.init_ops_api import (
    constant_initializer,
    ones_initializer,
    zeros_initializer,
)
from tfx.core.api.variable_scope_api import (
    AUTO_REUSE,
    VariableScope,
    get_local_variable,
    get_variable,
    get_variable_scope,
    no_regularizer,
    variable_op_scope,
    variable_scope,
)


def op_names(graph: tf.Graph) -> list[str]:
    return [op.name for op in graph.get_operations()]


def glorot_ops(name: str) -> list[str]:
    """The ops of get_variable(name) with the default glorot_uniform initializer, in TF."""
    init = f"{name}/Initializer/random_uniform"
    return [f"{init}/shape", f"{init}/min", f"{init}/max", f"{init}/RandomUniform",
            f"{init}/sub", f"{init}/mul", init, name, f"{name}/Assign", f"{name}/read"]


# --- names (TF 2.21) ----------------------------------------------------------------------

def test_reentering_opens_a_new_name_scope(graph: tf.Graph) -> None:
    with variable_scope("foo"):
        v = get_variable("v", [1])
        c = tf.constant(1.0, name="c")
    with variable_scope("foo", reuse=True):
        v2 = get_variable("v", [1])
        c2 = tf.constant(1.0, name="c")
    assert (v.name, c.name, c2.name) == ("foo/v:0", "foo/c:0", "foo_1/c:0")
    assert v2 is v
    assert v.dtype.name == "float32_ref" and v.op.type == "VariableV2"
    assert sorted(op_names(graph)) == sorted(glorot_ops("foo/v") + ["foo/c", "foo_1/c"])


def test_nested_scopes(graph: tf.Graph) -> None:
    with variable_scope("a"):
        with variable_scope("b") as s:
            w = get_variable("w", [2], dtype=tf.int32)
            c = tf.constant(1, name="c")
            assert (w.name, c.name, s.name, s.original_name_scope) == (
                "a/b/w:0", "a/b/c:0", "a/b", "a/b/")
    with variable_scope("a"):
        with variable_scope("b", reuse=True) as s:
            assert get_variable("w", [2], dtype=tf.int32) is w
            assert tf.constant(1, name="c").name == "a_1/b/c:0"
            assert (s.name, s.original_name_scope) == ("a/b", "a_1/b/")
    assert op_names(graph) == ["a/b/w/Initializer/zeros", "a/b/w", "a/b/w/Assign",
                               "a/b/w/read", "a/b/c", "a_1/b/c"]


def test_default_names_are_made_unique() -> None:
    got = []
    for _ in range(2):
        with variable_scope(None, default_name="layer") as s:
            got += [get_variable("w", [2]).name, tf.constant(1.0, name="c").name, s.name,
                    s.original_name_scope]
    assert got == ["layer/w:0", "layer/c:0", "layer", "layer/",
                   "layer_1/w:0", "layer_1/c:0", "layer_1", "layer_1/"]
    got = []
    with variable_scope("outer"):
        with variable_scope(None, default_name="d") as s:
            got += [s.name, tf.constant(1.0, name="c").name]
    with variable_scope("outer"):  # closing "outer" forgot its sub-scopes
        with variable_scope(None, default_name="d") as s:
            got += [s.name, tf.constant(1.0, name="c").name]
        with variable_scope(None, default_name="d") as s:
            got += [s.name, tf.constant(1.0, name="c").name]
    with variable_scope("a"):
        pass
    with variable_scope(None, default_name="a") as s:
        got += [s.name, tf.constant(1.0, name="c").name]
    assert got == ["outer/d", "outer/d/c:0", "outer/d", "outer_1/d/c:0", "outer/d_1",
                   "outer_1/d_1/c:0", "a_1", "a_1/c:0"]


def test_reentering_a_scope_object() -> None:
    with variable_scope("s") as s:
        pass
    with variable_scope(s) as s2:
        x = get_variable("x", [1])
        assert (x.name, tf.constant(1.0, name="c").name) == ("s/x:0", "s_1/c:0")
        assert (s2.name, s2.original_name_scope) == ("s", "s/")
        assert s2 is not s
    with variable_scope("outer"):
        with variable_scope(s, reuse=True) as s3:
            assert get_variable("x", [1]) is x
            assert tf.constant(1.0, name="c").name == "outer/s/c:0"
            assert (s3.name, s3.original_name_scope, s3.reuse) == ("s", "s/", True)
            with variable_scope("in") as s4:
                assert (s4.name, s4.original_name_scope) == ("s/in", "outer/s/in/")
                assert tf.constant(1.0, name="c").name == "outer/s/in/c:0"


def test_name_scope_outside_and_tf_variable_inside() -> None:
    with tf.name_scope("ns"):
        with variable_scope("vs") as s:
            v = get_variable("v", [1])
            c = tf.constant(1.0, name="c")
            u = tf.Variable(1.0)
    assert (v.name, c.name, s.original_name_scope, u.name) == (
        "vs/v:0", "ns/vs/c:0", "ns/vs/", "ns/vs/Variable:0")
    with variable_scope("foo"):
        a = tf.Variable(1.0)
    with variable_scope("foo"):
        b = tf.Variable(1.0, name="b")
        w = get_variable("w", [])
    assert (a.name, b.name, w.name) == ("foo/Variable:0", "foo_1/b:0", "foo/w:0")


def test_auxiliary_name_scope() -> None:
    with variable_scope("aux", auxiliary_name_scope=False) as s:
        v = get_variable("v", [1])
        assert (v.name, tf.constant(1.0, name="c").name) == ("aux/v:0", "c:0")
        assert (s.name, s.original_name_scope) == ("aux", "")
    with tf.name_scope("ns"):
        with variable_scope(s, auxiliary_name_scope=False) as s2:
            assert tf.constant(1.0, name="c").name == "ns/c:0"
            assert s2.original_name_scope == ""
        with variable_scope("aux2", auxiliary_name_scope=False) as s3:
            assert tf.constant(1.0, name="c").name == "ns/c_1:0"
            assert s3.original_name_scope == "ns/"
    with variable_scope(s, auxiliary_name_scope=True) as s4:
        assert tf.constant(1.0, name="c").name == "aux/c:0"
        assert s4.original_name_scope == ""


def test_values_pick_the_graph_and_variable_op_scope() -> None:
    other = tf.Graph()
    with other.as_default():
        t = tf.constant(1.0)
    with variable_scope("v1", values=[t]) as s:
        assert s.name == "v1"
        assert get_variable("w", [1]).graph is other
    assert not op_names(tf.get_default_graph())
    with variable_op_scope([], "vo") as s:
        assert (s.name, tf.constant(1.0, name="c").name) == ("vo", "vo/c:0")
    with variable_op_scope([], None, default_name="dflt") as s:
        assert (s.name, tf.constant(1.0, name="c").name) == ("dflt", "dflt/c:0")
    root = get_variable_scope()
    assert isinstance(root, VariableScope)
    assert (root.name, root.original_name_scope, root.dtype, root.initializer,
            root.use_resource, root.reuse) == ("", "", tf.float32, None, None, False)


# --- reuse ----------------------------------------------------------------------------

def test_reuse_inheritance_and_auto_reuse() -> None:
    with variable_scope("r", reuse=True):
        assert get_variable_scope().reuse is True
        with variable_scope("inner", reuse=False):  # cannot stop reusing
            assert get_variable_scope().reuse is True
    with variable_scope("au", reuse=AUTO_REUSE):
        a = get_variable("a", [1])
        with variable_scope("in"):
            assert get_variable_scope().reuse is AUTO_REUSE
        with variable_scope("in", reuse=True):
            assert get_variable_scope().reuse is True
    with variable_scope("au", reuse=AUTO_REUSE):
        assert get_variable("a", [1]) is a
    with variable_scope("sc") as sc:
        x = get_variable("x", [1])
        sc.reuse_variables()
        assert get_variable("x", [1]) is x
        assert get_variable_scope().reuse is True
    with variable_scope("fresh") as fresh:
        pass
    with variable_scope("r3", reuse=True):
        with variable_scope(fresh) as s:  # a scope object keeps its own reuse
            assert s.reuse is False


def test_errors() -> None:
    with variable_scope("e"):
        get_variable("v", [2, 3])
        with pytest.raises(ValueError, match=r"^Variable e/v already exists, disallowed\. Did "
                                             r"you mean to set reuse=True or "
                                             r"reuse=tf\.AUTO_REUSE in VarScope\?"):
            get_variable("v", [2, 3])
    with variable_scope("e", reuse=True):
        with pytest.raises(ValueError, match=r"^Variable e/nope does not exist, or was not "
                                             r"created with tf\.get_variable\(\)\. Did you "
                                             r"mean to set reuse=tf\.AUTO_REUSE in VarScope\?$"):
            get_variable("nope", [1])
        with pytest.raises(ValueError, match=r"^Trying to share variable e/v, but specified "
                                             r"shape \(3, 2\) and found shape \(2, 3\)\.$"):
            get_variable("v", [3, 2])
        with pytest.raises(ValueError, match=r"^Trying to share variable e/v, but specified "
                                             r"dtype int32 and found dtype float32_ref\.$"):
            get_variable("v", [2, 3], dtype=tf.int32)
        assert get_variable("v").shape.as_list() == [2, 3]  # no shape: any shape
        assert get_variable("v", [None, 3]).name == "e/v:0"
    with pytest.raises(ValueError, match=r"^If initializer is a constant, do not specify "
                                         r"shape\.$"):
        get_variable("c", [2], initializer=tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"^Initializer type 'float32' and explicit dtype "
                                         r"'int32' don't match\.$"):
        get_variable("c2", initializer=tf.constant([1.0, 2.0]), dtype=tf.int32)
    with pytest.raises(ValueError, match=r"^Variable noshape did not get an initializer, so its"
                                         r" `shape` argument must be specified\.$"):
        get_variable("noshape")
    with pytest.raises(ValueError, match=r"^The initializer passed is not valid\. It should be "
                                         r"a callable with no arguments"):
        get_variable("partial", [None, 2])
    with pytest.raises(ValueError, match=r"^An initializer for variable cplx of complex64 is "
                                         r"required$"):
        get_variable("cplx", [2], dtype=tf.complex64)
    with pytest.raises(ValueError, match=r"^Passed a custom_getter which is not callable: 3$"):
        get_variable("cg", [1], custom_getter=3)


def test_scope_argument_errors() -> None:
    with pytest.raises(TypeError, match=r"^If default_name is None then name_or_scope is "
                                        r"required$"):
        variable_scope(None)
    with pytest.raises(ValueError, match=r"^The reuse parameter must be True or False or "
                                         r"None\.$"):
        variable_scope("x", reuse=1)
    with pytest.raises(ValueError, match=r"^reuse=True cannot be used without a "
                                         r"name_or_scope$"):
        with variable_scope(None, default_name="d", reuse=True):
            pass
    with pytest.raises(TypeError, match=r"^VariableScope: name_or_scope must be a string or "
                                        r"VariableScope\.$"):
        with variable_scope(3):
            pass
    with pytest.raises(TypeError, match=r"^The auxiliary_name_scope must be `True` or `False`,"
                                        r" while get 1$"):
        variable_scope("x", auxiliary_name_scope=1)
    # A failed entry leaves the scopes as they were.
    assert get_variable_scope().name == "" and tf.get_default_graph().get_name_scope() == ""


# --- initializers, dtypes, collections ---------------------------------------------------

def test_initial_values(graph: tf.Graph) -> None:
    t = get_variable("t", initializer=tf.constant([1.0, 2.0]))
    ints = get_variable("l", initializer=[[1, 2], [3, 4]])
    f = get_variable("f", initializer=lambda: tf.ones([3]))
    assert (t.name, t.shape.as_list()) == ("t:0", [2])
    assert (ints.name, ints.dtype.name, ints.shape.as_list()) == ("l:0", "int32_ref", [2, 2])
    assert (f.name, f.shape.as_list()) == ("f:0", [3])
    assert op_names(graph) == ["Const", "t", "t/Assign", "t/read", "l/initial_value", "l",
                               "l/Assign", "l/read", "f/Initializer/ones", "f", "f/Assign",
                               "f/read"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([t, ints, f])
    assert [g.tolist() for g in got] == [[1.0, 2.0], [[1, 2], [3, 4]], [1.0, 1.0, 1.0]]


def test_default_initializers_by_dtype(graph: tf.Graph) -> None:
    i = get_variable("i", [2], dtype=tf.int32)
    b = get_variable("b", [2], dtype=tf.bool)
    big = get_variable("big", [40, 30], dtype=tf.int64)
    s = get_variable("s", [2], dtype=tf.string)
    w = get_variable("w", [20, 30])
    assert [n for n in op_names(graph) if "Initializer" in n][:6] == [
        "i/Initializer/zeros", "b/Initializer/zeros", "big/Initializer/zeros/shape_as_tensor",
        "big/Initializer/zeros/Const", "big/Initializer/zeros", "s/Initializer/zeros"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        gi, gb, gbig, gs, gw = sess.run([i, b, big, s, w])
    assert gi.tolist() == [0, 0] and gb.tolist() == [False, False]
    assert gbig.dtype == np.int64 and not gbig.any() and gs.tolist() == [b"", b""]
    limit = np.sqrt(6.0 / 50)
    assert gw.dtype == np.float32 and np.abs(gw).max() <= limit and gw.std() > 0.4 * limit


def test_scope_defaults_initializer_dtype_class_initializer() -> None:
    with variable_scope("k", initializer=constant_initializer(3.0), dtype=tf.float64):
        a = get_variable("a", [2])
        b = get_variable("b", [2], initializer=zeros_initializer)  # a class is instantiated
        with variable_scope("in"):
            c = get_variable("c", [1])
    assert (a.dtype.base, c.dtype.base) == (tf.float64, tf.float64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [x.tolist() for x in sess.run([a, b, c])] == [[3.0, 3.0], [0.0, 0.0], [3.0]]


def test_regularizer_losses() -> None:
    with variable_scope("foo", regularizer=lambda w: tf.reduce_sum(w, name="l")):
        v = get_variable("v", [2], initializer=ones_initializer())
        get_variable("n", [2], regularizer=lambda w: None)
    with variable_scope("foo"):
        w = get_variable("w", [2], regularizer=no_regularizer)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["foo/v/Regularizer/l:0"]  # as TF's collection
    assert w.name == "foo/w:0"
    assert losses[0].op.colocation_groups() == [b"loc:@foo/v"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(losses[0]) == 2.0
    assert v.name == "foo/v:0"


def test_local_variables_and_scope_collections() -> None:
    with variable_scope("loc"):
        get_local_variable("l", [2])
        get_local_variable("m", [2], collections=["extra"])
    assert [v.name for v in tf.local_variables()] == ["loc/l:0", "loc/m:0"]
    assert tf.global_variables() == [] and tf.trainable_variables() == []
    assert [v.name for v in tf.get_collection("extra")] == ["loc/m:0"]
    with variable_scope("top") as top:
        get_variable("a", [1])
        get_variable("b", [1], trainable=False)
        with variable_scope("sub"):
            get_variable("c", [1])
    get_variable("topx", [1])
    assert [v.name for v in top.global_variables()] == ["top/a:0", "top/b:0", "top/sub/c:0"]
    assert [v.name for v in top.trainable_variables()] == ["top/a:0", "top/sub/c:0"]
    assert [v.name for v in top.local_variables()] == []


def test_custom_getters_compose() -> None:
    calls = []

    def g1(getter, name, *args, **kwargs):
        calls.append(("g1", name, sorted(kwargs)))
        return getter(name + "_g1", *args, **kwargs)

    def g2(getter, name, *args, **kwargs):
        calls.append(("g2", name))
        return getter(name + "_g2", *args, **kwargs)

    with variable_scope("cg", custom_getter=g1):
        with variable_scope("in", custom_getter=g2):
            v = get_variable("v", [1])
    w = get_variable("w", [1], custom_getter=g2)
    assert (v.name, w.name) == ("cg/in/v_g2_g1:0", "w_g2:0")
    assert calls == [("g2", "cg/in/v"),
                     ("g1", "cg/in/v_g2", ["aggregation", "caching_device", "collections",
                                           "constraint", "dtype", "initializer",
                                           "partitioner", "regularizer", "reuse", "shape",
                                           "synchronization", "trainable", "use_resource",
                                           "validate_shape"]),
                     ("g2", "w")]


def test_resource_variables_and_constraints(graph: tf.Graph) -> None:
    with variable_scope("res", use_resource=True):
        r = get_variable("r", [2])
    assert r.name == "res/r:0" and type(r).__name__ == "ResourceVariable"
    assert op_names(graph)[7:] == ["res/r", "res/r/IsInitialized/VarIsInitializedOp",
                                   "res/r/Assign", "res/r/Read/ReadVariableOp"]

    def double(x):
        return x * 2

    with variable_scope("c", constraint=double):
        v = get_variable("v", [1])
    assert v.constraint is double and get_variable("w", [1]).constraint is None


def test_initializer_ignores_control_dependencies() -> None:
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.control_dependencies([x.op]):
        v = get_variable("v", [3])
    assert all(not op.control_inputs for op in tf.get_default_graph().get_operations())
    assert v.initializer.control_inputs == []


def test_each_graph_has_its_own_store() -> None:
    v = get_variable("v", [1])
    with tf.Graph().as_default():
        with variable_scope("s"):
            assert get_variable_scope().name == "s"
        w = get_variable("v", [1])
    assert w is not v and w.graph is not v.graph
    assert get_variable_scope().name == ""


# --- a model end to end: TF 2.21's losses and values ---------------------------------------

X = np.array([[1., 2.], [0.5, -1.], [-1.5, 0.25], [2., 1.]], np.float32)
Y = np.array([[1.], [0.], [-1.], [2.]], np.float32)


def dense(x, units, activation=None):
    rows = int(x.shape[1])
    w = get_variable("w", [rows, units], initializer=constant_initializer(
        np.linspace(-0.5, 0.5, rows * units).reshape(rows, units)))
    b = get_variable("b", [units], initializer=constant_initializer(0.1))
    y = tf.matmul(x, w) + b
    return activation(y) if activation else y


def model(x):
    with variable_scope("l1"):
        h = dense(x, 3, tf.tanh)
    with variable_scope("l2"):
        return dense(h, 1)


def test_two_layer_model_trains_shares_and_saves(tmp_path) -> None:
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    with variable_scope("model"):
        pred = model(x)
    with variable_scope("model", reuse=True):
        pred2 = model(x * 2.0)
    names = ["model/l1/w:0", "model/l1/b:0", "model/l2/w:0", "model/l2/b:0"]
    assert [v.name for v in tf.global_variables()] == names
    assert [v.name for v in tf.trainable_variables()] == names
    assert (pred.name, pred2.name) == ("model/l2/add:0", "model_1/l2/add:0")
    graph = tf.get_default_graph()
    shared = graph.get_operation_by_name("model_1/l1/MatMul")
    assert [t.name for t in shared.inputs] == ["model_1/mul:0", "model/l1/w/read:0"]
    loss = tf.reduce_mean(tf.square(pred - y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(5):
            losses.append(sess.run(loss, {x: X, y: Y}))
            sess.run(train, {x: X, y: Y})
        np.testing.assert_allclose(losses, [0.733904242515564, 0.4984739422798157,
                                            0.34703201055526733, 0.24616476893424988,
                                            0.17841768264770508], rtol=1e-5)
        np.testing.assert_allclose(
            sess.run(pred2, {x: X}).ravel(),
            [1.4441921710968018, 0.24201765656471252, -0.8876329064369202, 1.676891803741455],
            rtol=1e-5)
        w1 = sess.run(tf.global_variables()[0])
        np.testing.assert_allclose(
            w1, [[-0.6959161162376404, -0.32928916811943054, 0.2046196013689041],
                 [0.002054317854344845, 0.28861090540885925, 0.5874970555305481]], rtol=1e-5)
        path = saver.save(sess, str(tmp_path / "model.ckpt"))
    with tf.Session() as sess:
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(tf.global_variables()[0]), w1)
