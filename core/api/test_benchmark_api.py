"""`tf.test.Benchmark` and the small tf.test helpers around benchmarks and test sources.

A Benchmark subclass's `benchmark*` methods time graph runs and report them:

    class MatMulBenchmark(tf.test.Benchmark):
        def benchmark_matmul(self):
            with tf.Session(config=tf.test.benchmark_config()) as sess:
                x = tf.random_normal([256, 256])
                self.run_op_benchmark(sess, tf.matmul(x, x), min_iters=20)

As TensorFlow's (`tensorflow/python/platform/benchmark.py`): `report_benchmark` names
the entry `Class.method` after the outermost Benchmark method on the stack (or
`Class.name`), logs it, and without `$TEST_REPORT_FILE_PREFIX` prints a
BenchmarkEntries text proto, with it writes the serialized proto to that prefix plus
the name ('/' as '__'; an existing file is an IOError). `run_op_benchmark` runs
`burn_iters` untimed, then `min_iters` timed runs, and reports their median wall time
and `mbs / median` throughput; an extra FULL_TRACE run adds, per allocator, the peak
bytes of live tensors (`allocator_maximum_num_bytes_<allocator>`, from the step stats'
node outputs and their consumers, as TensorFlow's timeline) and with `store_trace`
the run's Chrome trace. Every subclass is registered as TensorFlow registers them.

`benchmark_config()` is TensorFlow's ConfigProto with grappler's dependency optimizer
off; `is_cpu_target_available` answers for XLA's CPU code generators (tfx has none);
`test_src_dir_path` joins `$TEST_SRCDIR/$TEST_WORKSPACE/tensorflow/<path>`;
`sync_devices` (tf.test.experimental) needs eager mode, which tfx does not run.
"""

from __future__ import annotations

import logging
import math
import numbers
import os
import sys
import time
from typing import Any

from tfx.core.api.profiler_hook_api import chrome_trace
from tfx.core.api.session_api import get_default_session
from tfx.protos import config_pb2, rewriter_config_pb2, test_log_pb2

__all__ = ["Benchmark", "benchmark_config", "is_cpu_target_available", "test_src_dir_path"]

TEST_REPORTER_TEST_ENV = "TEST_REPORT_FILE_PREFIX"
OVERRIDE_GLOBAL_THREADPOOL = "TF_OVERRIDE_GLOBAL_THREADPOOL"

# Every concrete Benchmark subclass, as TensorFlow's GLOBAL_BENCHMARK_REGISTRY.
GLOBAL_BENCHMARK_REGISTRY: set[type] = set()

_log = logging.getLogger("tensorflow")


def _report(name: str, iters: int | None = None, cpu_time: float | None = None,
            wall_time: float | None = None, throughput: float | None = None,
            extras: dict | None = None, metrics: list | None = None) -> None:
    """Record one BenchmarkEntry: printed, or written under $TEST_REPORT_FILE_PREFIX."""
    _log.info("Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g,throughput: %g, "
              "extras: %s, metrics: %s", name, -1 if iters is None else iters,
              -1 if wall_time is None else wall_time, -1 if cpu_time is None else cpu_time,
              -1 if throughput is None else throughput, str(extras) if extras else "None",
              str(metrics) if metrics else "None")
    entries = test_log_pb2.BenchmarkEntries()
    entry = entries.entry.add(name=name)
    for field, value in (("iters", iters), ("cpu_time", cpu_time), ("wall_time", wall_time),
                         ("throughput", throughput)):
        if value is not None:
            setattr(entry, field, value)
    if extras is not None:
        if not isinstance(extras, dict):
            raise TypeError("extras must be a dict")
        for key, value in extras.items():
            if isinstance(value, numbers.Number):
                entry.extras[key].double_value = value
            else:
                entry.extras[key].string_value = str(value)
    if metrics is not None:
        if not isinstance(metrics, list):
            raise TypeError("metrics must be a list")
        for metric in metrics:
            if "name" not in metric:
                raise TypeError("metric must has a 'name' field")
            if "value" not in metric:
                raise TypeError("metric must has a 'value' field")
            added = entry.metrics.add(name=metric["name"], value=metric["value"])
            if "min_value" in metric:
                added.min_value.value = metric["min_value"]
            if "max_value" in metric:
                added.max_value.value = metric["max_value"]
    prefix = os.environ.get(TEST_REPORTER_TEST_ENV)
    if prefix is None:
        print(str(entries))
        return
    path = prefix + name.replace("/", "__")
    if os.path.exists(path):
        raise OSError(f"File already exists: {path}")
    with open(path, "wb") as out:
        out.write(entries.SerializeToString())


class _Registrar(type):
    """Registers each concrete Benchmark subclass in GLOBAL_BENCHMARK_REGISTRY."""

    def __new__(mcs, name: str, bases: tuple, attrs: dict) -> type:
        cls = super().__new__(mcs, name, bases, attrs)
        if not cls.is_abstract():
            GLOBAL_BENCHMARK_REGISTRY.add(cls)
        return cls


class Benchmark(metaclass=_Registrar):
    """The base of TensorFlow benchmarks: methods named `benchmark*` time and report.

    Example:
        >>> class AddBenchmark(tf.test.Benchmark):
        ...     def benchmark_add(self):
        ...         with tf.Session() as sess:
        ...             self.run_op_benchmark(sess, tf.add(1.0, 2.0), min_iters=5)
    """

    def __init__(self) -> None:
        # TensorFlow lets each benchmark have its own thread pool; kept for its tools.
        os.environ[OVERRIDE_GLOBAL_THREADPOOL] = "1"
        super().__init__()

    @classmethod
    def is_abstract(cls) -> bool:
        return cls.__module__ == __name__ and cls.__name__ == "Benchmark"

    def _get_name(self, overwrite_name: str | None = None) -> str:
        """`Class.method` of the outermost Benchmark method on the stack."""
        frame, found = sys._getframe(1), None
        while frame is not None:
            if isinstance(frame.f_locals.get("self"), Benchmark):
                found = frame
            frame = frame.f_back
        if found is None:
            raise ValueError("Unable to determine calling Benchmark class.")
        name = overwrite_name or found.f_code.co_name
        return f"{type(found.f_locals['self']).__name__}.{name}"

    def report_benchmark(self, iters: int | None = None, cpu_time: float | None = None,
                         wall_time: float | None = None, throughput: float | None = None,
                         extras: dict | None = None, name: str | None = None,
                         metrics: list | None = None) -> None:
        """Report one benchmark result (see the module docstring).

        Args:
            iters: iterations run.
            cpu_time, wall_time: median or mean seconds.
            throughput: MB/s.
            extras: name -> a number or anything `str` turns into text.
            name: the entry's name after the class (default: the calling method's).
            metrics: dicts with 'name' and 'value', optionally 'min_value', 'max_value'.

        Raises:
            TypeError: extras is not a dict, metrics not a list of such dicts.
            OSError: the report file exists.
        """
        _report(self._get_name(overwrite_name=name), iters, cpu_time, wall_time, throughput,
                extras, metrics)

    def run_op_benchmark(self, sess: Any, op_or_tensor: Any, feed_dict: dict | None = None,
                         burn_iters: int = 2, min_iters: int = 10, store_trace: bool = False,
                         store_memory_usage: bool = True, name: str | None = None,
                         extras: dict | None = None, mbs: float = 0) -> dict[str, Any]:
        """Time `op_or_tensor` in `sess` and report it.

        Returns:
            What was reported (iters, wall_time: the median, extras, name,
            throughput), the extras gaining `wall_time_mean` and `wall_time_stdev` (and
            `full_trace_chrome_format` with `store_trace`), which are not reported.
        """
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        extras = {} if extras is None else extras
        unreported: dict[str, Any] = {}
        if store_trace or store_memory_usage:
            metadata = config_pb2.RunMetadata()
            sess.run(op_or_tensor, feed_dict=feed_dict, run_metadata=metadata,
                     options=config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE))
            if store_trace:
                unreported["full_trace_chrome_format"] = chrome_trace(metadata.step_stats)
            if store_memory_usage:
                for allocator, peak in allocator_maximums(metadata.step_stats).items():
                    extras[f"allocator_maximum_num_bytes_{allocator}"] = peak
        median = _median(deltas)
        values = {"iters": min_iters, "wall_time": median, "extras": extras, "name": name,
                  "throughput": mbs / median}
        self.report_benchmark(**values)
        mean, stdev = _mean_and_stdev(deltas)
        unreported["wall_time_mean"] = mean
        unreported["wall_time_stdev"] = stdev
        values["extras"].update(unreported)
        return values

    def evaluate(self, tensors: Any) -> Any:
        """The values of `tensors` in the default session.

        Raises:
            AttributeError: there is no default session (TensorFlow's Benchmark falls
                back to a `cached_session` it does not have).
        """
        sess = get_default_session()
        if sess is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 "'cached_session': evaluate needs a default session")
        return sess.run(tensors)


def _median(values: list[float]) -> float:
    if not values:
        return -1
    ordered = sorted(values)
    return (ordered[len(values) // 2] + ordered[(len(values) - 1) // 2]) / 2.0


def _mean_and_stdev(values: list[float]) -> tuple[float, float]:
    if not values:
        return -1, -1
    mean = sum(values) / len(values)
    if len(values) == 1:
        return mean, -1
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(variance)


def allocator_maximums(step_stats: Any) -> dict[str, int]:
    """allocator name -> the most bytes its tensors held at once in `step_stats`.

    As TensorFlow's timeline: each node output is a tensor of its requested bytes, live
    from its node's start to the latest of its node's end and, for each node naming it
    as an input in its timeline label (`name = Op(a, b:1)`), that node's end less 1.
    """
    tensors: dict[str, list] = {}  # name -> [allocator, bytes, created, last unref]
    for device in step_stats.dev_stats:
        for stats in device.node_stats:
            start = stats.all_start_micros
            end = start + stats.all_end_rel_micros
            for index, output in enumerate(stats.output):
                allocation = output.tensor_description.allocation_description
                name = f"{stats.node_name}:{index}" if index else stats.node_name
                tensors[name] = [allocation.allocator_name, allocation.requested_bytes,
                                 start, end]
    for device in step_stats.dev_stats:
        gpu_trace = "/stream:" in device.device or "/memcpy" in device.device
        for stats in device.node_stats:
            if gpu_trace or stats.node_name == "RecvTensor":
                continue
            end = stats.all_start_micros + stats.all_end_rel_micros
            for name in _label_inputs(stats.timeline_label):
                if name not in tensors:  # a Send/Recv suffix: credit the original node
                    cut = name.rfind("/_")
                    name = name[:cut] if cut > 0 else name
                if name in tensors:
                    tensors[name][3] = max(tensors[name][3], end - 1)
    events: dict[str, list[tuple[int, int]]] = {}
    for allocator, size, created, freed in tensors.values():
        events.setdefault(allocator, []).extend([(created, size), (freed, -size)])
    peaks = {}
    for allocator, changes in events.items():
        live = peak = 0
        # as TensorFlow's: by time, and at one time frees before allocations
        for _, change in sorted(changes):
            live += change
            peak = max(peak, live)
        peaks[allocator] = peak
    return peaks


def _label_inputs(label: str) -> list[str]:
    _, sep, rest = label.partition(" = ")
    if not sep or "(" not in rest or not rest.endswith(")"):
        return []
    inputs = rest[rest.index("(") + 1:-1]
    return inputs.split(", ") if inputs else []


def benchmark_config() -> config_pb2.ConfigProto:
    """A ConfigProto turning grappler's dependency optimizer off, as TensorFlow's (so a
    benchmark's no-op control dependencies are not pruned)."""
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = (
        rewriter_config_pb2.RewriterConfig.OFF)
    return config


_CPU_TARGET_PREFIXES = ("arm", "aarch64", "ppc", "powerpc", "x86", "s390x")


def is_cpu_target_available(target: str) -> bool:
    """Whether tfx can compile (XLA) code for CPU `target` ('x86', 'aarch64', 'arm',
    'ppc'/'powerpc', 's390x' and names starting so): always False, tfx has no XLA code
    generators (TensorFlow answers for the LLVM targets it was built with).

    Raises:
        AssertionError: an unknown target, as TensorFlow.
    """
    if target.startswith(_CPU_TARGET_PREFIXES):
        return False
    raise AssertionError(f"Unknown CPU target: {target}")


def test_src_dir_path(relative_path: str) -> str:
    """`$TEST_SRCDIR/$TEST_WORKSPACE/tensorflow/<relative_path>`, as TensorFlow's (a
    KeyError names a variable that is not set)."""
    return os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"],
                        "tensorflow", relative_path)


def sync_devices() -> None:
    """Wait for the devices' pending work (tf.test.experimental.sync_devices).

    Raises:
        RuntimeError: always, as TensorFlow outside eager mode: tfx runs graphs only, and
            a session's `run` returns when its work is done.
    """
    raise RuntimeError("sync_devices() must only be called in Eager mode, outside "
                       "tf.functions")

