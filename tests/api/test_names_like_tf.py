"""Graph-building functions name and shape their nodes as TensorFlow 1.x does.

The (function, node name, op type) triples were recorded with TensorFlow 2.21
(tf.compat.v1, graph mode), each built in one fresh graph in this order.
"""

import tfx as tf

_RECORDED = [
    ("add", "Add", "AddV2"), ("floordiv", "floordiv", "FloorDiv"),
    ("zeros_like", "zeros_like", "Const"), ("ones_like", "ones_like", "Fill"),
    ("matmul_op", "matmul", "MatMul"), ("add_op", "add_1", "AddV2"),
    ("floordiv_op", "floordiv_1", "FloorDiv"), ("math_add", "Add_2", "AddV2"),
]


def test_node_names_and_types_equal_tensorflows():
    with tf.Graph().as_default():
        a = tf.constant([1.0, 2.0])
        b = tf.constant([3.0, 4.0])
        m = tf.reshape(a, [1, 2])
        built = {
            "add": tf.add(a, b), "floordiv": tf.floordiv(a, b),
            "zeros_like": tf.zeros_like(a), "ones_like": tf.ones_like(a),
            "matmul_op": m @ tf.reshape(b, [2, 1]), "add_op": a + b, "floordiv_op": a // b,
            "math_add": tf.math.add(a, b),
        }
        got = [(key, built[key].op.name, built[key].op.type) for key, _, _ in _RECORDED]
    assert got == _RECORDED


def test_like_functions_follow_tensorflows_cases():
    with tf.Graph().as_default():
        unknown = tf.placeholder(tf.float32, [None, 3])
        z = tf.zeros_like(unknown)
        o = tf.ones_like(unknown, dtype=tf.int32)
        z_cast = tf.zeros_like(tf.constant([1, 2]), dtype=tf.float32)
        z_kept = tf.zeros_like(tf.constant([1.0]), optimize=False)
        assert (z.op.type, o.op.type, z_cast.op.type, z_kept.op.type) == (
            "ZerosLike", "Fill", "Const", "ZerosLike")
        assert o.shape.as_list() == [None, 3] and o.dtype == tf.int32
        with tf.Session() as sess:
            zv, ov = sess.run([z, o], {unknown: [[1, 2, 3], [4, 5, 6]]})
        assert zv.tolist() == [[0.0] * 3] * 2 and ov.tolist() == [[1] * 3] * 2
        assert z_cast.dtype == tf.float32


def test_tensors_and_variables_compare_by_identity_as_in_tensorflow_graphs():
    # TensorFlow 2.21 (tf.compat.v1, graph mode), with or without enable_tensor_equality:
    # False True True False True False True False False False.
    with tf.Graph().as_default():
        a, b = tf.constant(1.0), tf.constant(1.0)
        v, w = tf.Variable(1.0), tf.Variable(1.0, use_resource=True)
        got = [a == b, a == a, a != b, a in [b], v == v, v == a, w == w, w != w, v == 1.0,
               a == 1.0]
        assert got == [False, True, True, False, True, False, True, False, False, False]
        assert {a: 1, b: 2}[b] == 2 and [a, b].index(b) == 1


def test_variable_enums_and_version_constants():
    # TensorFlow 2.21's enum members and values; the GraphDef minimums are TF's (0, 0).
    assert [(m.name, m.value) for m in tf.VariableAggregation] == [
        ("NONE", 0), ("SUM", 1), ("MEAN", 2), ("ONLY_FIRST_REPLICA", 3)]
    assert [(m.name, m.value) for m in tf.VariableSynchronization] == [
        ("AUTO", 0), ("NONE", 1), ("ON_WRITE", 2), ("ON_READ", 3)]
    assert (tf.GRAPH_DEF_VERSION_MIN_CONSUMER, tf.GRAPH_DEF_VERSION_MIN_PRODUCER) == (0, 0)
    assert tf.version.GIT_VERSION == tf.GIT_VERSION and isinstance(tf.COMPILER_VERSION, str)
    assert (tf.CXX11_ABI_FLAG, tf.sysconfig.MONOLITHIC_BUILD) == (0, 0)
    with tf.Graph().as_default():
        v = tf.get_variable("v", [2], aggregation=tf.VariableAggregation.MEAN,
                            synchronization=tf.VariableSynchronization.ON_READ)
        assert v.shape.as_list() == [2]
