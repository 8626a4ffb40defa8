"""tf.data.NumpyIterator and Dataset.as_numpy_iterator in the graph, where TensorFlow 2.21
refuses both (they are eager-mode iterators) with the RuntimeErrors recorded here."""

from __future__ import annotations

import numpy as np
import pytest

import tfx as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_graph_datasets_refuse_numpy_iteration_as_tensorflow():
    dataset = tf.data.Dataset.range(3)
    with pytest.raises(RuntimeError) as caught:
        dataset.as_numpy_iterator()
    assert str(caught.value) == (
        "`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")
    with pytest.raises(RuntimeError) as caught:
        tf.data.NumpyIterator(dataset)
    assert str(caught.value) == ("`tf.data.Dataset` only supports Python-style iteration in "
                                 "eager mode or within tf.function.")
    # TensorFlow checks the mode before the element types
    nested = tf.data.Dataset.from_tensors(dataset)
    with pytest.raises(RuntimeError, match="only supported in eager mode"):
        nested.as_numpy_iterator()


class _Eager:
    """A stand-in for an eager tensor: what NumpyIterator calls on each leaf."""

    def __init__(self, value):
        self._value = value

    def numpy(self):
        return self._value


def test_elements_become_nests_of_read_only_numpy_values():
    elements = [({"a": _Eager(np.int32(1))}, _Eager(np.array([1.0, 2.0], np.float32)))]
    iterator = tf.data.NumpyIterator(elements)
    assert iter(iterator) is iterator
    assert repr(iterator).startswith("NumpyIterator(iterator=<list_iterator")
    first = iterator.next()
    assert first[0] == {"a": 1} and first[1].tolist() == [1.0, 2.0]
    assert not first[1].flags.writeable
    with pytest.raises(StopIteration):
        next(iterator)
