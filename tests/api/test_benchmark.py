"""tf.test.Benchmark, benchmark_config, is_cpu_target_available, test_src_dir_path and
tf.test.experimental.sync_devices, against TensorFlow 2.21.

The reports below are what TensorFlow 2.21's tf.test.Benchmark printed and wrote for the
same benchmark class (scratch run); tests/data/benchmark/step_stats.json holds TensorFlow's
StepStats of three traced runs with the allocator peaks its timeline found in them
(generate.py beside it).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

import tfx as tf
from tfx.core.api import test_benchmark_api
from tfx.protos import config_pb2, test_log_pb2

TF_PRINTED = '''entry {
  name: "MyBench.benchmark_report"
  iters: 3
  cpu_time: 0.25
  wall_time: 0.5
  throughput: 7
  extras { key: "c" value { string_value: "[1, 2]" } }
  extras { key: "b" value { string_value: "text" } }
  extras { key: "a" value { double_value: 1 } }
  metrics { name: "acc" value: 0.9 min_value { value: 0.5 } }
  metrics { name: "loss" value: 1.5 max_value { value: 2 } }
}
'''
TF_CUSTOM = 'entry {\n  name: "MyBench.custom/name"\n  iters: 1\n}\n\n'
TF_FILE_BYTES = (
    b'\n\x9a\x01\n\x18MyBench.benchmark_report\x10\x03\x19\x00\x00\x00\x00\x00\x00\xd0?!\x00'
    b'\x00\x00\x00\x00\x00\xe0?)\x00\x00\x00\x00\x00\x00\x1c@2\r\n\x01c\x12\x08\x12\x06[1, 2]2'
    b'\x0b\n\x01b\x12\x06\x12\x04text2\x0e\n\x01a\x12\t\t\x00\x00\x00\x00\x00\x00\xf0?:\x19\n'
    b'\x03acc\x11\xcd\xcc\xcc\xcc\xcc\xcc\xec?\x1a\t\t\x00\x00\x00\x00\x00\x00\xe0?:\x1a\n\x04'
    b'loss\x11\x00\x00\x00\x00\x00\x00\xf8?"\t\t\x00\x00\x00\x00\x00\x00\x00@')


class MyBench(tf.test.Benchmark):
    def benchmark_report(self):
        self.report_benchmark(iters=3, wall_time=0.5, cpu_time=0.25, throughput=7.0,
                              extras={"a": 1, "b": "text", "c": [1, 2]},
                              metrics=[{"name": "acc", "value": 0.9, "min_value": 0.5},
                                       {"name": "loss", "value": 1.5, "max_value": 2.0}])
        self.helper()

    def helper(self):
        self.report_benchmark(iters=1, name="custom/name")

    def benchmark_ops(self):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [100])
            z = x * 2.0 + 1.0
            with tf.Session(config=tf.test.benchmark_config()) as sess:
                return self.run_op_benchmark(sess, z, feed_dict={x: np.ones(100, np.float32)},
                                             min_iters=3, mbs=5, name="ops", extras={"k": 1},
                                             store_trace=True)


def _entries(text: str) -> test_log_pb2.BenchmarkEntries:
    return text_format.Parse(text, test_log_pb2.BenchmarkEntries())


def test_report_prints_tensorflows_entries(capsys, monkeypatch):
    monkeypatch.delenv("TEST_REPORT_FILE_PREFIX", raising=False)
    MyBench().benchmark_report()
    first, second, rest = capsys.readouterr().out.split("\n\n", 2)
    assert _entries(first) == _entries(TF_PRINTED) and rest == ""
    assert second + "\n\n" == TF_CUSTOM


def test_report_writes_tensorflows_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_REPORT_FILE_PREFIX", f"{tmp_path}/p_")
    bench = MyBench()
    bench.benchmark_report()
    written = tmp_path / "p_MyBench.benchmark_report"
    got = test_log_pb2.BenchmarkEntries.FromString(written.read_bytes())
    assert got == test_log_pb2.BenchmarkEntries.FromString(TF_FILE_BYTES)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "p_MyBench.benchmark_report", "p_MyBench.custom__name"]
    with pytest.raises(OSError, match=f"^File already exists: {written}$"):
        bench.benchmark_report()


@pytest.mark.parametrize("bad, message", [
    ({"extras": [1]}, "extras must be a dict"),
    ({"metrics": {}}, "metrics must be a list"),
    ({"metrics": [{"value": 1}]}, "metric must has a 'name' field"),
    ({"metrics": [{"name": "x"}]}, "metric must has a 'value' field"),
])
def test_report_rejects_what_tensorflow_rejects(bad, message):
    with pytest.raises(TypeError, match=f"^{message}$"):
        MyBench().report_benchmark(**bad)


def test_run_op_benchmark_reports_median_and_memory(capsys, monkeypatch):
    monkeypatch.delenv("TEST_REPORT_FILE_PREFIX", raising=False)
    result = MyBench().benchmark_ops()
    assert sorted(result) == ["extras", "iters", "name", "throughput", "wall_time"]
    assert (result["iters"], result["name"]) == (3, "ops")
    assert result["throughput"] == pytest.approx(5 / result["wall_time"])
    extras = result["extras"]
    assert sorted(extras) == ["allocator_maximum_num_bytes_cpu", "full_trace_chrome_format",
                              "k", "wall_time_mean", "wall_time_stdev"]
    # x*2 (400 bytes) lives while +1 (400 bytes) runs; the scalar constants add 4
    assert 400 <= extras["allocator_maximum_num_bytes_cpu"] <= 804
    ops = {e["name"] for e in json.loads(extras["full_trace_chrome_format"])["traceEvents"]
           if e["ph"] == "X"}
    assert {"Mul", "AddV2"} <= ops
    (printed,) = _entries(capsys.readouterr().out).entry
    assert printed.name == "MyBench.ops" and sorted(printed.extras) == [
        "allocator_maximum_num_bytes_cpu", "k"]  # the mean/stdev/trace are not reported


CASES = json.loads((Path(__file__).resolve().parents[1] / "data" / "benchmark" /
                    "step_stats.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_allocator_maximums_of_tensorflows_step_stats(case):
    stats = config_pb2.StepStats.FromString(bytes.fromhex(case["step_stats"]))
    assert test_benchmark_api.allocator_maximums(stats) == case["allocator_maximums"]


def test_benchmarks_register_and_small_helpers(monkeypatch):
    assert MyBench in test_benchmark_api.GLOBAL_BENCHMARK_REGISTRY
    assert tf.test.Benchmark.is_abstract() and not MyBench.is_abstract()
    assert tf.test.benchmark_config().SerializeToString() == b"R\x04R\x02@\x02"  # TF's
    assert not tf.test.is_cpu_target_available("x86_64")
    assert not tf.test.is_cpu_target_available("aarch64")
    with pytest.raises(AssertionError, match="^Unknown CPU target: mips$"):
        tf.test.is_cpu_target_available("mips")
    monkeypatch.delenv("TEST_SRCDIR", raising=False)
    with pytest.raises(KeyError, match="TEST_SRCDIR"):
        tf.test.test_src_dir_path("core/platform")
    monkeypatch.setenv("TEST_SRCDIR", "/src")
    monkeypatch.setenv("TEST_WORKSPACE", "ws")
    assert tf.test.test_src_dir_path("core/platform") == "/src/ws/tensorflow/core/platform"
    with pytest.raises(RuntimeError, match="must only be called in Eager mode"):
        tf.test.experimental.sync_devices()
    with pytest.raises(AttributeError, match="cached_session"):
        MyBench().evaluate(tf.constant(1))
