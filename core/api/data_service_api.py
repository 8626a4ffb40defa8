"""`tf.data.experimental.service`: a dataset's elements produced by tf.data service workers.

As TensorFlow 2.21's: a `DispatchServer` (core/api/data_service_dispatcher.py) keeps the
datasets and jobs, `WorkerServer`s (core/api/data_service_worker.py) run the pipelines,
and a client reads from the workers over gRPC (core/api/data_service_wire.py):

    dispatcher = DispatchServer()
    worker = WorkerServer(WorkerConfig(dispatcher.target.split("://")[1]))
    dataset = tf.data.Dataset.range(5).apply(distribute("parallel_epochs", dispatcher.target))

`distribute` registers the dataset when it is applied (`register_dataset`) and reads it
with `from_dataset_id`. Processing modes: a `ShardingPolicy`, or TensorFlow's legacy
strings "parallel_epochs" (OFF: every worker produces the whole dataset) and
"distributed_epoch" (DYNAMIC: the dataset's elements are split between the workers, each
produced once). A `job_name` shares a job between the clients that name it: they split
its elements instead of each getting them all. `num_consumers` and `consumer_index` read
in rounds (round `r` is served by one worker, one element per consumer), and a
`CrossTrainerCache` lets trainers with different ids each read every element of a job.

Elements are nests of tensors and sparse tensors (others, such as ragged tensors, are
refused when the dataset is made). The registered dataset travels as its graph (a
GraphDef with its functions); a dataset whose graph holds py_funcs (`from_generator`)
runs only on workers in the process that built it, as every py_func graph. Each pass
over the returned dataset (each iterator initialization) reads a new job unless it is
named. The client side is a generator dataset (core/api/data_generator.py): an error met
while reading reaches the session as py_func errors do, as UnknownError whose message
holds the error's class and TensorFlow's message. Argument errors are raised when
the dataset is made, where TensorFlow raises them in eager mode; registering, like
TensorFlow's eager `register_dataset`, happens at once (tfx's graphs run in the process
that built them).
`data_transfer_protocol` (None, "grpc" or "local"), `compression` and
`max_outstanding_requests` are checked and otherwise unused (elements travel
uncompressed over the worker's gRPC service, one request at a time).
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterator
from typing import Any

from tfx.core import dtypes
from tfx.core.api import data_service_wire as wire
from tfx.core.api import data_structure as structure
from tfx.core.api.data_service_dispatcher import DispatcherConfig, DispatchServer
from tfx.core.api.data_service_worker import LOCAL_WORKERS, WorkerConfig, WorkerServer
from tfx.core.api.graph_builder import Tensor
from tfx.core.errors import (
    InvalidArgumentError,
    NotFoundError,
    TfxError,
    UnavailableError,
    UnimplementedError,
)
from tfx.core.wire_format import write_varint
from tfx.protos import data_service_pb2 as pb

__all__ = ["CrossTrainerCache", "DispatchServer", "DispatcherConfig", "ShardingPolicy",
           "WorkerConfig", "WorkerServer", "distribute", "from_dataset_id",
           "register_dataset"]

_COMPRESSIONS = ["AUTO", None, "SNAPPY"]
_WORKER_POLL_SECONDS = 0.1
# What a worker serves elements over; tfx's workers answer on their gRPC service for each.
_TRANSFER_PROTOCOLS = (None, "", "grpc", "local")


class ShardingPolicy(enum.IntEnum):
    """How a job's dataset is split between the workers (see data_service_worker.py).

    OFF: every worker produces the whole dataset. DYNAMIC: the sources' elements are
    handed out one at a time. FILE, DATA, FILE_OR_DATA, HINT: static sharding by file,
    by element, by file else element, or at `shard(SHARD_HINT, SHARD_HINT)`; they need
    `DispatcherConfig.worker_addresses`.
    """

    OFF = 0
    DYNAMIC = 1
    FILE = 2
    DATA = 3
    FILE_OR_DATA = 4
    HINT = 5


class CrossTrainerCache:
    """Lets trainers read every element of a shared job: the id of one trainer.

    Args:
        trainer_id: a non-empty id; each trainer of a job gives its own.

    Example:
        distribute("parallel_epochs", service, job_name="job",
                   cross_trainer_cache=CrossTrainerCache(trainer_id="trainer 1"))
    """

    def __init__(self, trainer_id: Any) -> None:
        if not trainer_id:
            raise ValueError("tf.data service cross-trainer cache requires a non-empty "
                             "trainer ID.")
        self.trainer_id = trainer_id


def _policy(processing_mode: Any) -> ShardingPolicy:
    if isinstance(processing_mode, ShardingPolicy):
        return processing_mode
    if isinstance(processing_mode, str):
        legacy = {"parallel_epochs": ShardingPolicy.OFF,
                  "distributed_epoch": ShardingPolicy.DYNAMIC}.get(processing_mode)
        if legacy is not None:
            return legacy
    raise ValueError("tf.data service processing mode should be a "
                     "`tf.data.experimental.service.ShardingPolicy`, `\"parallel_epochs\"`, "
                     f"or `\"distributed_epoch\"`. Got {processing_mode!r}.")


def _check_compression(compression: Any) -> None:
    if compression not in _COMPRESSIONS:
        raise ValueError(f"Invalid `compression` argument: {compression}. Must be one of "
                         f"{_COMPRESSIONS}.")


class _ReadOptions:
    """The checked arguments of a read (`from_dataset_id`, `distribute`)."""

    def __init__(self, processing_mode: Any, service: Any, job_name: Any,
                 consumer_index: Any, num_consumers: Any, max_outstanding_requests: Any,
                 cross_trainer_cache: Any, target_workers: Any,
                 data_transfer_protocol: Any) -> None:
        self.policy = _policy(processing_mode)
        _, self.address = wire.parse_service(service)
        if job_name is not None:
            if not isinstance(job_name, str):
                raise ValueError(f"`job_name` must be a string, but `job_name` was of type "
                                 f"{type(job_name)}. job_name={job_name}")
            if not job_name:
                raise ValueError("`job_name` must not be empty")
        if num_consumers is not None and job_name is None:
            raise ValueError(f"`job_name` must be set when setting `num_consumers`. "
                             f"num_consumers was set to {num_consumers}.")
        if max_outstanding_requests is not None and (
                max_outstanding_requests <= 0 and max_outstanding_requests != -1):
            raise InvalidArgumentError("max_outstanding_requests must be positive or -1")
        target = str(target_workers).upper()
        if target not in wire.TARGET_WORKERS:
            raise InvalidArgumentError(f"Unrecognized target workers: {target_workers}")
        if cross_trainer_cache is not None and job_name is None:
            raise InvalidArgumentError("Cross-trainer caching requires named jobs. Got empty "
                                       "`job_name`.")
        self.job_name = job_name or ""
        self.max_outstanding_requests = (-1 if max_outstanding_requests is None
                                         else int(max_outstanding_requests))
        self.num_consumers = int(num_consumers) if num_consumers is not None else 0
        self.consumer_index = int(consumer_index) if self.num_consumers else -1
        self.trainer_id = (str(cross_trainer_cache.trainer_id)
                           if cross_trainer_cache is not None else "")
        self.target = target
        self.data_transfer_protocol = data_transfer_protocol

    def job_request(self, dataset_id: str) -> pb.GetOrCreateJobRequest:
        return pb.GetOrCreateJobRequest(
            dataset_id=dataset_id, sharding_policy=int(self.policy), job_name=self.job_name,
            num_consumers=self.num_consumers, target_workers=self.target,
            local_workers=sorted(LOCAL_WORKERS), cross_trainer_cache=bool(self.trainer_id))


def _read(options: _ReadOptions, dataset_id: str, element_spec: Any) -> Iterator[Any]:
    """One pass: the job's elements, read from its workers, packed as `element_spec`."""
    components = read_components(options, dataset_id)
    try:
        for flat in components:
            yield structure.pack(element_spec, flat)
    finally:
        components.close()


def read_components(options: _ReadOptions, dataset_id: str) -> Iterator[list[Any]]:
    """One pass: the components of the job's elements, read from its workers (the
    DataServiceDataset kernels' reads, kernels/cpu/data_service.py)."""
    dispatcher = wire.DispatcherClient(options.address)
    workers: dict[str, wire.WorkerClient] = {}
    tasks: list[pb.DataServiceTask] = []
    try:
        job = wire.call_with_retries(
            lambda: dispatcher.get_or_create_job(options.job_request(dataset_id)))

        def current_tasks() -> list[pb.DataServiceTask]:
            found = wire.call_with_retries(lambda: dispatcher.get_or_create_job(
                pb.GetOrCreateJobRequest(job_id=job.job_id))).tasks
            for task in found:
                if options.data_transfer_protocol not in _TRANSFER_PROTOCOLS:
                    raise NotFoundError(f"Protocol '{options.data_transfer_protocol}' is "
                                        f"not available for worker '{task.worker_address}'.")
                if task.worker_address not in workers:
                    workers[task.worker_address] = wire.WorkerClient(task.worker_address)
            return list(found)

        tasks = current_tasks()
        waited = 0.0
        while not tasks:  # as TensorFlow's client, wait for a worker to register
            if waited >= wire.RETRY_SECONDS:
                raise UnavailableError(f"No tf.data service workers registered with the "
                                       f"dispatcher at {options.address} for job "
                                       f"{job.job_id} in {waited:.0f} s")
            time.sleep(_WORKER_POLL_SECONDS)
            waited += _WORKER_POLL_SECONDS
            tasks = current_tasks()

        def element(task: pb.DataServiceTask, round_index: int = 0) -> Any:
            request = pb.GetElementRequest(
                task_id=task.task_id, consumer_index=options.consumer_index,
                round_index=round_index, trainer_id=options.trainer_id)
            try:
                response = workers[task.worker_address].get_element(request)
            except TfxError as exc:  # TensorFlow's client says which worker failed
                raise type(exc)(f"Failed to get element from worker {task.worker_address}: "
                                "Failed to get an element, with a nonretryable error: "
                                f"{exc}") from None
            if response.end_of_sequence:
                return None
            return wire.decode_element(response, f"element of job {job.job_id}")

        if options.num_consumers:
            for global_round in range(2**62):
                value = element(tasks[global_round % len(tasks)],
                                global_round // len(tasks))
                if value is None:
                    return
                yield value
        active = tasks
        ended: set[int] = set()
        turn = 0
        while active:
            task = active[turn % len(active)]
            value = element(task)
            if value is None:
                ended.add(task.task_id)
                active = [t for t in active if t is not task]
                if not active:  # workers that registered since have joined the job
                    tasks = current_tasks()
                    active = [t for t in tasks if t.task_id not in ended]
                continue
            turn += 1
            yield value
    finally:
        if not options.job_name:  # nobody else reads this job: free its workers' passes
            for task in tasks:
                _release(workers.get(task.worker_address), task.task_id)
        for client in workers.values():
            client.close()
        dispatcher.close()


def _release(worker: wire.WorkerClient | None, task_id: int) -> None:
    if worker is None:
        return
    try:
        worker.release_task(pb.ReleaseTaskRequest(task_id=task_id), timeout=5.0)
    except TfxError:
        pass  # a worker gone has nothing to free


def _constant_id(dataset_id: Any) -> str | None:
    """The dataset id as a string when it is known now (a Python value or a Const)."""
    if isinstance(dataset_id, bytes):
        return dataset_id.decode()
    if isinstance(dataset_id, str):
        return dataset_id
    if isinstance(dataset_id, Tensor) and dataset_id.op.type == "Const":
        from tfx.core.tensor_util import to_ndarray

        value = to_ndarray(dataset_id.op.node_def.attr["value"].tensor, dataset_id.op.name)
        value = value[()] if value.shape == () else value
        return value.decode() if isinstance(value, bytes) else str(value)
    if isinstance(dataset_id, int):
        return str(dataset_id)
    return None


def register_dataset(service: Any, dataset: Any, compression: Any = "AUTO",
                     dataset_id: Any = None) -> Tensor:
    """Register `dataset` with the dispatcher at `service`; its id as a string tensor.

    Args:
        service: "grpc://host:port", "host:port" or ("grpc", "host:port").
        dataset: the dataset.
        compression: "AUTO", "SNAPPY" or None.
        dataset_id: an id to register it under (registering an id again keeps the first
            dataset), else the dispatcher numbers it ("1000", "1001", ...).

    Returns:
        A scalar tf.string tensor of the dataset id.

    Example:
        dataset_id = register_dataset(dispatcher.target, tf.data.Dataset.range(5))
    """
    from tfx.core.api.ops_api import constant

    return constant(_register(service, dataset, compression, dataset_id), name="dataset_id")


def dataset_definition(dataset: Any) -> pb.DataServiceDatasetDef:
    """What workers need to make `dataset`: the part of its graph that makes it (with the
    functions it calls) and the name of its variant tensor."""
    from tfx.core.api.graph_util_api import extract_sub_graph

    variant = dataset._variant_tensor
    graph = extract_sub_graph(variant.graph.as_graph_def(), [variant.op.name])
    return pb.DataServiceDatasetDef(graph=graph, output=variant.name,
                                    element_spec=wire.spec_to_json(dataset.element_spec))


def _register(service: Any, dataset: Any, compression: Any, dataset_id: Any) -> str:
    _, address = wire.parse_service(service)
    _check_compression(compression)
    if dataset_id is not None and not isinstance(dataset_id, str):
        raise TypeError(f"Expected string for argument 'requested_dataset_id' not "
                        f"{dataset_id!r}.")
    request = pb.RegisterDatasetRequest(dataset=dataset_definition(dataset),
                                        requested_dataset_id=dataset_id or "")
    dispatcher = wire.DispatcherClient(address)
    try:
        return wire.call_with_retries(lambda: dispatcher.register_dataset(request)).dataset_id
    finally:
        dispatcher.close()


def from_dataset_id(processing_mode: Any, service: Any, dataset_id: Any,
                    element_spec: Any = None, job_name: str | None = None,
                    consumer_index: int | None = None, num_consumers: int | None = None,
                    max_outstanding_requests: int | None = None,
                    data_transfer_protocol: str | None = None,
                    cross_trainer_cache: CrossTrainerCache | None = None,
                    target_workers: str = "AUTO") -> Any:
    """The dataset registered as `dataset_id`, its elements read from the service.

    Args:
        processing_mode: a `ShardingPolicy`, "parallel_epochs" or "distributed_epoch".
        service: the dispatcher, as for `register_dataset`.
        dataset_id: the id `register_dataset` gave (a string or a string tensor).
        element_spec: the elements' spec; asked of the dispatcher when None.
        job_name: share the job with the other readers of this name.
        consumer_index, num_consumers: read in rounds as consumer `consumer_index` of
            `num_consumers` (needs `job_name`).
        max_outstanding_requests: positive or -1 (checked; one request at a time).
        data_transfer_protocol: None, "grpc" or "local" (elements travel over gRPC);
            another is TensorFlow's NotFoundError when reading.
        cross_trainer_cache: a `CrossTrainerCache`: read every element of the job.
        target_workers: "AUTO", "ANY" or "LOCAL" (workers in this process).

    Returns:
        A dataset of `element_spec`.

    Example:
        dataset = from_dataset_id("parallel_epochs", dispatcher.target, dataset_id,
                                  element_spec=tf.TensorSpec([], tf.int64))
    """
    options = _ReadOptions(processing_mode, service, job_name, consumer_index, num_consumers,
                           max_outstanding_requests, cross_trainer_cache, target_workers,
                           data_transfer_protocol)
    known = _constant_id(dataset_id)
    if known is not None:
        dispatcher = wire.DispatcherClient(options.address)
        try:
            spec_text = wire.call_with_retries(lambda: dispatcher.get_element_spec(
                pb.GetElementSpecRequest(dataset_id=known))).element_spec
        except NotFoundError:
            if element_spec is None:
                raise _no_spec(known) from None
            raise
        finally:
            dispatcher.close()
        if element_spec is None:
            if not spec_text:
                raise _no_spec(known)
            element_spec = wire.spec_from_json(spec_text)
    elif element_spec is None:
        raise _no_spec(dataset_id)
    return _reading_dataset(options, dataset_id, known, element_spec)


def _no_spec(dataset_id: Any) -> ValueError:
    return ValueError(f"Failed to fetch element spec for dataset id {dataset_id} from tf.data "
                      "service. If the dataset was registered in graph mode or inside a "
                      "tf.function, the `element_spec` must be specified as an argument to "
                      "`from_dataset_id`.")


def _reading_dataset(options: _ReadOptions, dataset_id: Any, known: str | None,
                     element_spec: Any) -> Any:
    """The DataServiceDatasetV4 TensorFlow's graph mode builds (kernels/cpu/data_service.py
    reads): its elements uncompressed through an UncompressElement function when the
    registered dataset compresses them, as TensorFlow's."""
    from tfx.core.api.data_api import DatasetV1
    from tfx.core.api.ops_api import apply_op, convert_to_tensor
    from tfx.core.api.type_spec_api import SparseTensorSpec, TensorSpec

    for leaf in structure.flatten(element_spec):
        if type(leaf) not in (TensorSpec, SparseTensorSpec):
            raise UnimplementedError(
                "tfx's tf.data service carries elements of tensors and sparse tensors; "
                f"this element spec holds {leaf!r}")
    if isinstance(dataset_id, Tensor) and dataset_id.dtype != dtypes.string:
        dataset_id = apply_op("AsString", input=dataset_id)
    policy = int(options.policy)
    trainer = options.trainer_id.encode()
    variant = apply_op(
        "DataServiceDatasetV4",
        dataset_id=convert_to_tensor(known if known is not None else dataset_id,
                                     dtype=dtypes.string, name="dataset_id"),
        processing_mode=convert_to_tensor(
            write_varint(1 << 3) + write_varint(policy) if policy else b"", dtype=dtypes.string,
            name="processing_mode"),
        address=convert_to_tensor(options.address, dtype=dtypes.string, name="address"),
        protocol=convert_to_tensor("grpc", dtype=dtypes.string, name="protocol"),
        job_name=convert_to_tensor(options.job_name, dtype=dtypes.string, name="job_name"),
        consumer_index=convert_to_tensor(
            options.consumer_index if options.num_consumers else -1, dtype=dtypes.int64,
            name="consumer_index"),
        num_consumers=convert_to_tensor(options.num_consumers or -1, dtype=dtypes.int64,
                                        name="num_consumers"),
        max_outstanding_requests=convert_to_tensor(
            options.max_outstanding_requests, dtype=dtypes.int64,
            name="max_outstanding_requests"),
        iteration_counter=apply_op("DummyIterationCounter"),
        output_types=structure.flat_types(element_spec),
        output_shapes=structure.flat_shapes(element_spec),
        data_transfer_protocol=options.data_transfer_protocol or "",
        target_workers=options.target, uncompress=True,
        uncompress_fn=_uncompress_function(element_spec),
        # TensorFlow's CrossTrainerCacheOptions: trainer_id, field 1.
        cross_trainer_cache_options=(write_varint(1 << 3 | 2) + write_varint(len(trainer)) + trainer
                                     if trainer else b""))
    return DatasetV1(variant, element_spec)


def _uncompress_function(element_spec: Any) -> Any:
    """The uncompress_fn of TensorFlow's DataServiceDatasetV4: UncompressElement of a
    compressed element into the element's components."""
    from tfx.core.api.data_api import _func
    from tfx.core.api.function_tracing import FuncGraph, trace_with
    from tfx.core.api.graph_builder import TensorShape
    from tfx.core.api.ops_api import apply_op

    def build(func_graph: FuncGraph) -> tuple:
        compressed = func_graph.add_input_placeholder(dtypes.variant, TensorShape([]),
                                                      "args_0")
        out = apply_op("UncompressElement", compressed=compressed,
                       output_types=structure.flat_types(element_spec),
                       output_shapes=structure.flat_shapes(element_spec))
        return tuple(out) if isinstance(out, list) else (out,)

    return _func(trace_with(build, "DataServiceDataset_uncompress_lambda"))


def distribute(processing_mode: Any, service: Any, job_name: str | None = None,
               consumer_index: int | None = None, num_consumers: int | None = None,
               max_outstanding_requests: int | None = None,
               data_transfer_protocol: str | None = None, compression: Any = "AUTO",
               cross_trainer_cache: CrossTrainerCache | None = None,
               target_workers: str = "AUTO") -> Callable[[Any], Any]:
    """A transformation reading its input dataset from the tf.data service.

    Args:
        processing_mode, service, job_name, consumer_index, num_consumers,
        max_outstanding_requests, data_transfer_protocol, cross_trainer_cache,
        target_workers: as for `from_dataset_id`.
        compression: "AUTO", "SNAPPY" or None, as for `register_dataset`.

    Returns:
        A function for `Dataset.apply`: it registers the dataset and returns the dataset
        read from the service.

    Example:
        dataset = tf.data.Dataset.range(10).apply(
            distribute("distributed_epoch", dispatcher.target))
    """
    options = _ReadOptions(processing_mode, service, job_name, consumer_index, num_consumers,
                           max_outstanding_requests, cross_trainer_cache, target_workers,
                           data_transfer_protocol)
    _check_compression(compression)

    def apply(dataset: Any) -> Any:
        dataset_id = _register(service, dataset, compression, None)
        return _reading_dataset(options, dataset_id, dataset_id, dataset.element_spec)

    return apply
