"""tf.data.experimental.copy_to_device and prefetch_to_device on the CPU: the input's
elements and element_spec, a GeneratorDataset (and PrefetchDataset) on the target device,
unknown cardinality and TensorFlow's ValueError for a device string that does not parse;
all as TensorFlow 2.21 gives them for the same pipelines in a TF1 graph."""

from __future__ import annotations

import pytest

import tfx as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _dataset():
    return tf.data.Dataset.from_tensor_slices(({"a": [1, 2, 3]}, [[1.0], [2.0], [3.0]]))


def _as_lists(element):
    return ({"a": element[0]["a"].tolist()}, element[1].tolist())


TRANSFORMS = {
    "copy": (lambda: tf.data.experimental.copy_to_device("/cpu:0"), ["GeneratorDataset"]),
    "copy_with_source": (
        lambda: tf.data.experimental.copy_to_device("/cpu:0", source_device="/cpu:0"),
        ["GeneratorDataset"]),
    "prefetch": (lambda: tf.data.experimental.prefetch_to_device("/cpu:0"),
                 ["GeneratorDataset", "PrefetchDataset"]),
    "prefetch_buffer": (lambda: tf.data.experimental.prefetch_to_device("/device:CPU:0", 2),
                        ["GeneratorDataset", "PrefetchDataset"]),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_elements_spec_and_placement_are_tensorflows(name):
    make, placed = TRANSFORMS[name]
    out = _dataset().apply(make())
    assert out.element_spec == ({"a": tf.TensorSpec([], tf.int32)}, tf.TensorSpec([1]))
    assert tf.data.get_output_shapes(out) == ({"a": tf.TensorShape([])}, tf.TensorShape([1]))
    graph = tf.get_default_graph().as_graph_def()
    assert sorted({n.op for n in graph.node}) == sorted(
        ["Const", "TensorSliceDataset", *placed])
    assert [(n.op, n.device) for n in graph.node if n.op in placed] == [
        (op, "/device:CPU:0") for op in placed]
    iterator = tf.data.make_initializable_iterator(out)
    element = iterator.get_next()
    with tf.Session() as sess:
        for _ in range(2):  # a second pass starts over
            sess.run(iterator.initializer)
            assert [_as_lists(sess.run(element)) for _ in range(3)] == [
                ({"a": 1}, [1.0]), ({"a": 2}, [2.0]), ({"a": 3}, [3.0])]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(element)
        sess.run(iterator.initializer)
        sess.run(element)  # a pass dropped halfway is let go when the session closes
        assert sess.run(tf.data.experimental.cardinality(out)) == -2  # TF's: unknown


def test_one_shot_iterator_and_bad_device():
    copied = tf.data.Dataset.range(3).apply(tf.data.experimental.copy_to_device("/cpu:0"))
    element = tf.data.make_one_shot_iterator(copied).get_next()
    with tf.Session() as sess:
        assert [sess.run(element) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError) as caught:
        tf.data.experimental.copy_to_device("bogus")(tf.data.Dataset.range(3))
    assert str(caught.value) == ("Unknown attribute 'bogus' is encountered while parsing the "
                                 "device spec: 'bogus'.")
    with pytest.raises(ValueError, match="Unknown attribute 'bogus'"):
        tf.data.experimental.prefetch_to_device("bogus")(tf.data.Dataset.range(3))


def test_prefetch_to_a_virtual_cpu():
    dataset = tf.data.Dataset.range(3).apply(tf.data.experimental.prefetch_to_device("/cpu:1"))
    element = tf.data.make_one_shot_iterator(dataset).get_next()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        assert [sess.run(element) for _ in range(3)] == [0, 1, 2]  # TF 2.21's
    placed = [(n.op, n.device) for n in tf.get_default_graph().as_graph_def().node
              if n.op.endswith("Dataset")]
    # TF 2.21 also has WrapDatasetVariant (unplaced) between the range and the copy
    assert placed == [("RangeDataset", ""), ("GeneratorDataset", "/device:CPU:1"),
                      ("PrefetchDataset", "/device:CPU:1")]
