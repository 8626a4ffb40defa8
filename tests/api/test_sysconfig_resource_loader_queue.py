"""tf.sysconfig, tf.resource_loader and the tf.queue namespace.

TensorFlow 2.21's `tf.compat.v1.queue` holds FIFOQueue, PaddingFIFOQueue, PriorityQueue,
QueueBase and RandomShuffleQueue; its `tf.compat.v1.resource_loader` gives the caller's
directory from get_data_files_path, joins get_path_to_datafile's argument to it, returns
readahead_file_path's argument unchanged ('/a/b') and raises FileNotFoundError from
load_resource for a missing file.
"""

from __future__ import annotations

import os

import pytest

import tfx as tf
from tfx.core.api import queue_namespace, resource_loader_api, sysconfig_api

HERE = os.path.dirname(os.path.abspath(__file__))


def test_sysconfig_points_at_the_tfx_package():
    lib = sysconfig_api.get_lib()
    assert os.path.samefile(os.path.join(lib, "__init__.py"), tf.__file__)
    include = sysconfig_api.get_include()
    assert os.path.isfile(os.path.join(include, "graph.proto"))
    assert sysconfig_api.get_compile_flags() == [f"-I{include}"]
    assert sysconfig_api.get_link_flags() == []


def test_sysconfig_build_info():
    info = sysconfig_api.get_build_info()
    assert list(info) == ["is_cuda_build", "is_rocm_build", "is_tensorrt_build", "version",
                          "graph_def_version"]
    assert info["is_cuda_build"] is False and info["is_rocm_build"] is False
    assert info["version"] == tf.__version__
    assert info["graph_def_version"] == tf.Graph().as_graph_def().versions.producer


def test_resource_loader_paths_are_relative_to_the_caller():
    assert resource_loader_api.get_data_files_path() == HERE
    assert resource_loader_api.get_path_to_datafile("x/y") == os.path.join(HERE, "x/y")
    assert resource_loader_api.get_root_dir_with_all_resources() == HERE
    assert resource_loader_api.readahead_file_path("/a/b") == "/a/b"
    assert resource_loader_api.readahead_file_path("/a/b", "256M") == "/a/b"


def test_root_dir_inside_a_runfiles_tree(tmp_path):
    module_dir = tmp_path / "app.runfiles" / "workspace" / "pkg"
    module_dir.mkdir(parents=True)
    script = module_dir / "probe.py"
    script.write_text("from tfx.core.api import resource_loader_api as r\n"
                      "ROOT = r.get_root_dir_with_all_resources()\n")
    namespace: dict = {}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    assert namespace["ROOT"] == str(tmp_path / "app.runfiles" / "workspace")


def test_load_resource_reads_from_the_package():
    data = resource_loader_api.load_resource("protos/graph.proto")
    assert b"message GraphDef" in data
    with pytest.raises(FileNotFoundError):
        resource_loader_api.load_resource("protos/no_such_file.proto")


def test_queue_namespace_holds_tensorflows_names():
    assert queue_namespace.__all__ == ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue",
                                       "QueueBase", "RandomShuffleQueue"]
    assert queue_namespace.FIFOQueue is tf.FIFOQueue
    assert issubclass(queue_namespace.RandomShuffleQueue, queue_namespace.QueueBase)
    with tf.Graph().as_default():
        q = queue_namespace.FIFOQueue(2, [tf.int32], shapes=[[]])
        enqueue = q.enqueue([7])
        with tf.Session() as sess:
            sess.run(enqueue)
            assert sess.run(q.dequeue()) == 7
