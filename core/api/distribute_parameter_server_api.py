"""tf.compat.v1.distribute.experimental.ParameterServerStrategy: TensorFlow 1.x's
between-graph parameter-server training, in graph mode.

Every worker runs the same program with its own strategy; the parameter servers only
run a `tf.train.Server`. A worker's strategy, made from a cluster resolver that names
the cluster, this task's type and index (`SimpleClusterResolver(spec, task_type=
"worker", task_id=i)` or TF_CONFIG), decides where things go, as TensorFlow's does:

* variables created in `strategy.scope()` are resource variables placed on the ps
  tasks by `tf.train.replica_device_setter` (round robin in creation order: `w` on
  "/job:ps/task:0", `b` on "/job:ps/task:1", ...); a variable created next to another
  (an optimizer's slot, `extended.colocate_vars_with`) sits with it; the replicas read
  them from there;
* everything else built in the scope goes to the worker ("/job:worker/task:i"), and the
  replica code of `run`/`call_for_each_replica` to the worker's compute devices, one
  replica per GPU the resolver reports, else one on the worker's CPU
  ("/job:worker/replica:0/task:i/device:CPU:0");
* `extended.update(var, fn)` builds `fn(var)` colocated with `var` (on its ps task),
  so the TF1 optimizer's `minimize` inside `run` applies the gradients there;
* updates of different workers are not synchronized (each worker's session runs its
  own steps); the chief (worker 0 without a "chief" job) is the one that should
  initialize and checkpoint (`extended.experimental_should_init`).

Without a cluster (no resolver and an empty TF_CONFIG) the strategy is local: the
replicas on this process's CPU, the variables there too (TensorFlow's
CentralStorageStrategy is this case).

As TensorFlow 2.21's, `run` (and `experimental_run`, `experimental_run_v2`),
`experimental_distribute_dataset` and `(experimental_)distribute_datasets_from_function`
build what they build and return None (TensorFlow's overrides of this class drop the
superclass's result), so `reduce` with an `axis`, which reduces `run`'s result, fails as
TensorFlow's does; TF1 code reaches the results through `extended.call_for_each_replica`,
`make_dataset_iterator` and `make_input_fn_iterator`.
The iterators give a worker with one replica the element itself, not a PerReplica of
one value (as tfx's other strategies).

    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        cluster, task_type="worker", task_id=0)
    strategy = tf.compat.v1.distribute.experimental.ParameterServerStrategy(resolver)
    with strategy.scope():
        w = tf.get_variable("w", [2, 1])          # on /job:ps/task:0
        loss = strategy.extended.call_for_each_replica(step)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from tfx.core.api import distribute_context as ctx
from tfx.core.api import distribute_lib, math_api
from tfx.core.api import distribute_values as values_lib
from tfx.core.api.device_setter_api import replica_device_setter
from tfx.core.api.distribute_cluster_resolver_api import (
    ClusterResolver,
    SimpleClusterResolver,
    TFConfigClusterResolver,
)
from tfx.core.api.distribute_context import ReduceOp
from tfx.core.api.distribute_lib import (
    InputContext,
    InputReplicationMode,
    ReplicaContext,
    Strategy,
    StrategyExtended,
    _StrategyScope,
)
from tfx.core.api.graph_builder import GraphKeys, IndexedSlices, get_default_graph
from tfx.core.api.ops_api import convert_to_tensor, identity
from tfx.core.api.state_api import ResourceVariable, Variable, VariableAggregation
from tfx.core.cluster import ClusterSpec
from tfx.core.devices import DeviceName

__all__ = ["ParameterServerStrategy"]

_LOCAL_CPU = "/device:CPU:0"
_TASK_TYPES = ("chief", "worker", "evaluator", "ps", None)


def canonicalize(device: str) -> str:
    """`device` with what it leaves out filled in as TensorFlow's strategies fill it:
    replica 0, task 0, CPU:0 ("/job:worker/task:1" -> "/job:worker/replica:0/task:1/
    device:CPU:0"; no job is added)."""
    spec = DeviceName.parse(device)
    job = f"/job:{spec.job}" if spec.job else ""
    replica = 0 if spec.replica is None else spec.replica
    task = 0 if spec.task is None else spec.task
    dev_type = spec.type or "CPU"
    index = 0 if spec.id is None else spec.id
    return f"{job}/replica:{replica}/task:{task}/device:{dev_type}:{index}"


# --- the cluster, as TensorFlow's multi_worker_util reads it ------------------------------


def _task_count(spec: ClusterSpec, job: str) -> int:
    return spec.num_tasks(job) if job in spec.jobs else 0


def validate_cluster_spec(spec: ClusterSpec, task_type: str | None, task_id: int | None
                          ) -> None:
    """ValueError, with TensorFlow's messages, when this task cannot be in `spec`."""
    if any(job not in _TASK_TYPES for job in spec.jobs):
        raise ValueError(f"Disallowed task type found in cluster spec. Allowed types are "
                         f"{_TASK_TYPES} and the cluster spec is {spec}.")
    if task_type not in _TASK_TYPES:
        raise ValueError(f"Unrecognized task_type: {task_type}, valid task types are: "
                         f"{_TASK_TYPES}")
    if task_type and task_type not in spec.jobs and task_type != "evaluator":
        raise ValueError(f"`task_type` {task_type!r} not found in cluster_spec.")
    if _task_count(spec, "chief") > 1:
        raise ValueError("There must be at most one 'chief' job.")
    if _task_count(spec, "evaluator") > 1:
        raise ValueError("There must be at most one 'evaluator' job.")
    if task_type in spec.jobs and task_id >= _task_count(spec, task_type):
        raise ValueError(f"The `task_id` {task_id} exceeds the maximum id of {task_type}.")


def is_chief(spec: ClusterSpec, task_type: str, task_id: int) -> bool:
    """The chief: the "chief" task, an evaluator, or worker 0 when there is no chief job."""
    validate_cluster_spec(spec, task_type, task_id)
    if task_type in ("chief", "evaluator"):
        return True
    return "chief" not in spec.jobs and task_type == "worker" and task_id == 0


def _input_pipeline(spec: ClusterSpec | None, task_type: str | None,
                    task_id: int | None) -> tuple[int, int]:
    """(this task's input pipeline id, the number of pipelines): the chief and the
    workers share pipelines (the chief is id 0); an evaluator's job has its own."""
    if spec is None:
        return 0, 1
    chiefs = _task_count(spec, "chief")
    count = chiefs + _task_count(spec, "worker")
    if task_type == "chief":
        return 0, count
    if task_type == "worker":
        return task_id + chiefs, count
    if task_type == "evaluator":
        return task_id, _task_count(spec, "evaluator")
    raise ValueError(f"There is no id for task_type {task_type!r}")


# --- the extended strategy ---------------------------------------------------------------


class ParameterServerExtended(StrategyExtended):
    """ParameterServerStrategy's operations (see the module doc).

    Args:
        cluster_resolver: where the cluster is; None or an empty cluster: local.
    """

    def __init__(self, cluster_resolver: ClusterResolver | None) -> None:
        super().__init__()
        self._cluster_resolver = cluster_resolver
        self._num_gpus_per_worker = 0
        if cluster_resolver is not None and cluster_resolver.cluster_spec():
            self._initialize_multi_worker(cluster_resolver)
        else:
            self._initialize_local(cluster_resolver)

    def _initialize_multi_worker(self, resolver: ClusterResolver) -> None:
        if isinstance(resolver, TFConfigClusterResolver):
            num_gpus = _local_gpu_count()
        else:
            num_gpus = resolver.num_accelerators().get("GPU", 0)
        self._num_gpus_per_worker = num_gpus
        spec = resolver.cluster_spec()
        task_type, task_id = resolver.task_type, resolver.task_id
        if not task_type or task_id is None:
            raise ValueError("When `cluster_spec` is given, you must also specify "
                             "`task_type` and `task_id`")
        worker = f"/job:{task_type}/task:{task_id}"
        devices = ([f"{worker}/device:GPU:{i}" for i in range(num_gpus)] if num_gpus
                   else [worker])
        self._compute_devices = tuple(canonicalize(d) for d in devices)
        num_ps = _task_count(spec, "ps")
        if num_ps == 0:
            raise ValueError("The cluster spec needs to have `ps` jobs.")
        self._worker_device = worker
        self._variable_device: Any = replica_device_setter(
            ps_tasks=num_ps, worker_device=worker, merge_devices=True, cluster=spec)
        self._parameter_devices = tuple(f"/job:ps/task:{i}" for i in range(num_ps))
        self._default_device: str | None = worker
        self._is_chief = is_chief(spec, task_type, task_id)
        self._cluster_spec: ClusterSpec | None = spec
        self._task_type: str | None = task_type
        self._task_id: int | None = task_id

    def _initialize_local(self, resolver: ClusterResolver | None) -> None:
        num_gpus = (_local_gpu_count() if resolver is None
                    else resolver.num_accelerators().get("GPU", 0))
        self._num_gpus_per_worker = num_gpus
        devices = ([f"/device:GPU:{i}" for i in range(num_gpus)] if num_gpus
                   else [_LOCAL_CPU])
        self._compute_devices = tuple(canonicalize(d) for d in devices)
        parameter_device = (self._compute_devices[0] if len(self._compute_devices) == 1
                            else _LOCAL_CPU)
        self._worker_device = canonicalize(_LOCAL_CPU)
        self._variable_device = parameter_device
        self._parameter_devices = (parameter_device,)
        self._default_device = None
        self._is_chief = True
        self._cluster_spec = None
        self._task_type = None
        self._task_id = None

    # --- properties ---------------------------------------------------------------------
    @property
    def _num_replicas_in_sync(self) -> int:
        return len(self._compute_devices)

    @property
    def worker_devices(self) -> tuple[str, ...]:
        return self._compute_devices

    @property
    def worker_devices_by_replica(self) -> list[list[str]]:
        return [[d] for d in self._compute_devices]

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        return self._parameter_devices

    _between_graph = True

    @property
    def experimental_should_init(self) -> bool:
        return self._is_chief

    # --- variables ----------------------------------------------------------------------
    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        kwargs["use_resource"] = True  # as TensorFlow's strategies make them
        creator = self._aggregating_creator(next_creator, kwargs)
        colocate_with = kwargs.pop("colocate_with", None)
        graph = get_default_graph()
        if colocate_with is not None:
            with graph.device(None), graph.colocate_with(_variable_op(colocate_with)):
                return creator(**kwargs)
        if graph._colocation_stack:
            # Made inside a colocation (an optimizer's slot or power next to its variable):
            # it stays there, as TensorFlow's slot creator asks with colocate_vars_with.
            return creator(**kwargs)
        with graph.colocate_with(None, ignore_existing=True), \
                graph.device(self._variable_device):
            return creator(**kwargs)

    def _aggregating_creator(self, next_creator: Callable[..., Any],
                             kwargs: dict[str, Any]) -> Callable[..., Any]:
        """With several replicas a variable is wrapped so that replicas share it."""
        if self._num_replicas_in_sync == 1:
            return next_creator
        aggregation = kwargs.pop("aggregation", None) or VariableAggregation.NONE
        if aggregation not in VariableAggregation:
            raise ValueError(f"Invalid variable aggregation mode: {aggregation} for "
                             f"variable: {kwargs.get('name')}")
        strategy = self._container_strategy()

        def create(**kw: Any) -> Any:
            collections = kw.pop("collections", None)
            collections = (list(collections) if collections is not None
                           else [GraphKeys.GLOBAL_VARIABLES])
            kw["collections"] = []
            var = next_creator(**kw)
            wrapped = values_lib.AggregatingVariable(strategy, [var], aggregation)
            graph = get_default_graph()
            if kw.get("trainable") is None or kw.get("trainable"):
                collections.append(GraphKeys.TRAINABLE_VARIABLES)
                listed = graph.get_collection_ref(GraphKeys.TRAINABLE_VARIABLES)
                listed[:] = [v for v in listed if v is not var]
            graph.add_to_collections(set(collections), wrapped)
            return wrapped

        return create

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        """Variables created inside sit with `colocate_with_variable`."""
        from tfx.core.api.variable_creator_api import variable_creator_scope

        def creator(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
            kwargs["colocate_with"] = colocate_with_variable
            return next_creator(**kwargs)

        return variable_creator_scope(creator)

    def value_container(self, value: Any) -> Any:
        container = getattr(value, "_distributed_container", None)
        return container if container is not None else value

    def read_var(self, v: Any) -> Any:
        return identity(v)

    # --- running the replicas -----------------------------------------------------------
    def _call_for_each_replica(self, fn: Callable[..., Any], args: tuple,
                               kwargs: dict) -> Any:
        if self._num_replicas_in_sync > 1:
            from tfx.core.api.distribute_mirrored_api import _ReplicaRun

            return _ReplicaRun(self._container_strategy(), self._compute_devices).run(
                fn, args, kwargs)
        graph = get_default_graph()
        with graph.device(self._compute_devices[0]), ReplicaContext(
                self._container_strategy(), 0):
            return fn(*values_lib.select_replica(0, args),
                      **values_lib.select_replica(0, kwargs))

    # --- reductions ---------------------------------------------------------------------
    def _check_destinations(self, destinations: Any) -> None:
        """ValueError when `destinations` is another worker (TensorFlow's check)."""
        if self._cluster_spec is None or destinations is None:
            return
        for device in _devices_of(destinations):
            spec = DeviceName.parse(device)
            if spec.job == self._task_type and spec.task != self._task_id:
                raise ValueError(f"Cannot reduce to another worker: {device!r}, current "
                                 f"worker is {self._worker_device!r}")

    def _reduce_to(self, reduce_op: ReduceOp, value: Any, destinations: Any) -> Any:
        self._check_destinations(destinations)
        devices = _devices_of(destinations) or self._compute_devices[:1]
        if not isinstance(value, values_lib.DistributedValues):
            if reduce_op is ReduceOp.MEAN or self._num_replicas_in_sync == 1:
                return _copy_to(value, devices)
            raise ValueError(f"A non-DistributedValues value {value!r} cannot be reduced "
                             f"with the given reduce op {reduce_op}.")
        parts = list(value.values)
        with get_default_graph().device(_LOCAL_CPU):
            if any(isinstance(p, IndexedSlices) for p in parts):
                from tfx.core.api.array_api import indexed_slices_to_tensor

                parts = [indexed_slices_to_tensor(p) if isinstance(p, IndexedSlices) else p
                         for p in parts]
            reduced = parts[0] if len(parts) == 1 else math_api.add_n(parts)
            if reduce_op is ReduceOp.MEAN and len(parts) > 1:
                reduced = math_api.truediv(reduced, len(parts))
        return _copy_to(reduced, devices)

    def _reduce(self, reduce_op: ReduceOp, value: Any) -> Any:
        destination = (get_default_graph()._current_device(None) or self._default_device
                       or _LOCAL_CPU)
        return self._local_results(self._reduce_to(reduce_op, value, destination))[0]

    def broadcast_to(self, tensor: Any, destinations: Any) -> Any:
        distribute_lib.require_cross_replica_or_default(self)
        if isinstance(tensor, (float, int)):
            return tensor
        devices = _devices_of(destinations) or self._compute_devices
        return _copy_to(tensor, devices)

    # --- updates ------------------------------------------------------------------------
    def _update(self, var: Any, fn: Callable[..., Any], args: tuple, kwargs: dict,
                group: bool) -> Any:
        if isinstance(var, values_lib.AggregatingVariable):
            var = var.primary
        if not isinstance(var, (Variable, ResourceVariable)):
            raise ValueError(f"You can not update `var` {var!r}. It must be a Variable.")
        with get_default_graph().colocate_with(var.op), ctx.update_context(0):
            result = fn(var, *_select_single(args), **_select_single(kwargs))
        return result if group else values_lib.map_structure(self._local_results, result)

    def _update_non_slot(self, colocate_with: Any, fn: Callable[..., Any], args: tuple,
                         kwargs: dict, group: bool) -> Any:
        with get_default_graph().device(colocate_with.device), ctx.update_context(0):
            result = fn(*args, **kwargs)
        return result if group else values_lib.map_structure(self._local_results, result)

    def non_slot_devices(self, var_list: Sequence[Any]) -> Any:
        return min(var_list, key=lambda v: v.name)

    # --- scope and configuration --------------------------------------------------------
    def _scope(self, strategy: Strategy) -> Any:
        return _ParameterServerScope(strategy, self._default_device)

    def _configure(self, session_config: Any = None, cluster_spec: Any = None,
                   task_type: str | None = None, task_id: int | None = None) -> None:
        if cluster_spec:
            spec = cluster_spec if isinstance(cluster_spec, ClusterSpec) else ClusterSpec(
                cluster_spec)
            self._initialize_multi_worker(SimpleClusterResolver(
                spec, task_type=task_type, task_id=task_id,
                num_accelerators={"GPU": self._num_gpus_per_worker}))
        if session_config is not None:
            session_config.CopyFrom(self._update_config_proto(session_config))

    def _update_config_proto(self, config_proto: Any) -> Any:
        updated = type(config_proto)()
        updated.CopyFrom(config_proto)
        if self._cluster_spec is None:
            updated.isolate_session_state = True
            return updated
        updated.isolate_session_state = False
        del updated.device_filters[:]
        if self._task_type in ("chief", "worker"):
            updated.device_filters.extend([f"/job:{self._task_type}/task:{self._task_id}",
                                           "/job:ps"])
        elif self._task_type == "evaluator":
            updated.device_filters.append(f"/job:{self._task_type}/task:{self._task_id}")
        return updated

    def input_context(self) -> InputContext:
        """The InputContext of this worker's input pipeline."""
        pipeline_id, pipelines = _input_pipeline(self._cluster_spec, self._task_type,
                                                 self._task_id)
        return InputContext(pipelines, pipeline_id, self._num_replicas_in_sync)


class _ParameterServerScope(_StrategyScope):
    """The strategy's scope; with a cluster the worker is the default device."""

    def __init__(self, strategy: Strategy, device: str | None) -> None:
        super().__init__(strategy)
        self._device = device
        self._device_scopes: list[Any] = []

    def __enter__(self) -> Strategy:
        strategy = super().__enter__()
        scope: Any = (get_default_graph().device(self._device) if self._device
                      else contextlib.nullcontext())
        scope.__enter__()
        self._device_scopes.append(scope)
        return strategy

    def __exit__(self, *exc: Any) -> None:
        self._device_scopes.pop().__exit__(None, None, None)
        super().__exit__(*exc)


def _local_gpu_count() -> int:
    from tfx.core.api.config_api import list_logical_devices

    return len(list_logical_devices("GPU"))


def _variable_op(value: Any) -> Any:
    if isinstance(value, values_lib.MirroredVariable):
        return value.primary.op
    return getattr(value, "op", value)


def _devices_of(destinations: Any) -> tuple[str, ...]:
    """The canonical devices that `destinations` names (strings, lists, values)."""
    if isinstance(destinations, str):
        return (canonicalize(destinations),) if destinations else ()
    if isinstance(destinations, (values_lib.DistributedValues, values_lib.MirroredVariable)):
        return tuple(canonicalize(v.device) for v in destinations.values if v.device)
    if isinstance(destinations, (list, tuple)):
        return tuple(d for item in destinations for d in _devices_of(item))
    device = getattr(destinations, "device", None)
    if isinstance(device, str):
        return (canonicalize(device),) if device else ()
    raise ValueError(f"destinations can not be {destinations!r}: give a device name, a list "
                     "of them, a per-replica value or a variable")


def _copy_to(value: Any, devices: Sequence[str]) -> Any:
    graph = get_default_graph()
    copies = []
    for device in devices:
        with graph.device(device):
            if isinstance(value, IndexedSlices):
                copies.append(IndexedSlices(identity(value.values), identity(value.indices),
                                            value.dense_shape))
            else:
                copies.append(identity(convert_to_tensor(value)))
    return copies[0] if len(copies) == 1 else values_lib.Mirrored(copies)


def _select_single(structure: Any) -> Any:
    """Any one replica's part of `structure` (the first)."""
    return values_lib.select_replica(0, structure)


class _IteratorOnDevice:
    """A distributed iterator whose `get_next` reads on the worker's input device."""

    def __init__(self, iterator: Any, device: str) -> None:
        self._iterator = iterator
        self._device = device

    def get_next(self, name: str | None = None) -> Any:
        with get_default_graph().device(self._device):
            return self._iterator.get_next(name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._iterator, name)


# --- the strategy ---------------------------------------------------------------------------


class ParameterServerStrategy(Strategy):
    """Between-graph parameter-server training (see the module doc).

    Args:
        cluster_resolver: the cluster and this task (default: TFConfigClusterResolver()).

    Raises:
        ValueError: the cluster has no "ps" job, or the resolver names no task.

    Example:
        >>> strategy = ParameterServerStrategy(SimpleClusterResolver(
        ...     cluster, task_type="worker", task_id=0))
        >>> strategy.extended.parameter_devices
        ('/job:ps/task:0', '/job:ps/task:1')
    """

    def __init__(self, cluster_resolver: ClusterResolver | None = None) -> None:
        if cluster_resolver is None:
            cluster_resolver = TFConfigClusterResolver()
        super().__init__(ParameterServerExtended(cluster_resolver))

    @property
    def cluster_resolver(self) -> ClusterResolver | None:
        return self._extended._cluster_resolver

    def run(self, fn: Callable[..., Any], args: Sequence[Any] = (),
            kwargs: dict[str, Any] | None = None, options: Any = None) -> None:
        """Build `fn(*args, **kwargs)` on each replica, as `Strategy.run` does, and return
        None, as TensorFlow's `run` of this class does (its result is dropped; use
        `extended.call_for_each_replica` for it).

        Example:
            >>> strategy.run(train_step, args=(x, y))   # builds the step; None
        """
        super().run(fn, args, kwargs, options)

    experimental_run_v2 = run

    def reduce(self, reduce_op: Any, value: Any, axis: int | Sequence[int] | None = None
               ) -> Any:
        """`Strategy.reduce`; with an `axis` it reduces `run`'s result, which is None here,
        and fails as TensorFlow's does (SUM: ValueError, MEAN: TypeError)."""
        if axis is None:
            return super().reduce(reduce_op, value, axis)
        op = ctx.as_reduce_op(reduce_op.upper() if isinstance(reduce_op, str) else reduce_op)
        if op is ReduceOp.SUM:
            distribute_lib.require_cross_replica_or_default(self._extended)
            self.run(lambda v: math_api.reduce_sum(v, axis=axis), args=(value,))
            raise ValueError("Tried to convert 'input' to a tensor and failed. Error: None "
                             "values not supported.")
        return super().reduce(op, value, axis)

    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> None:
        """Build `dataset`'s batches split over this worker's replicas and return None, as
        TensorFlow's override of this class does (`make_dataset_iterator` gives an
        iterator)."""
        if options is not None and getattr(options, "experimental_replication_mode",
                                           None) is InputReplicationMode.PER_REPLICA:
            raise NotImplementedError("InputReplicationMode.PER_REPLICA is only supported in "
                                      "`experimental_distribute_datasets_from_function`.")
        super().experimental_distribute_dataset(dataset, options)

    def experimental_distribute_datasets_from_function(
            self, dataset_fn: Callable[[InputContext], Any], options: Any = None) -> None:
        """Call `dataset_fn(input_context)` with this worker's pipeline and return None, as
        TensorFlow's override of this class does (`make_input_fn_iterator` gives an
        iterator)."""
        from tfx.core.api.distribute_input import DistributedDataset

        if options is not None and getattr(options, "experimental_replication_mode",
                                           None) is InputReplicationMode.PER_REPLICA:
            raise NotImplementedError(
                "InputReplicationMode.PER_REPLICA is only supported in "
                "`experimental_distribute_datasets_from_function` of "
                "tf.distribute.MirroredStrategy")
        DistributedDataset(dataset_fn(self._extended.input_context()), self,
                           split_batches=False)

    distribute_datasets_from_function = experimental_distribute_datasets_from_function

    def make_dataset_iterator(self, dataset: Any) -> Any:
        """An initializable iterator over `dataset`'s batches, on this worker (split over
        its replicas)."""
        # On the worker's host, as TF's input workers are: its replicas' GPUs (when it has
        # them) have no dataset kernels, and their batches are copied there.
        device = canonicalize(self._extended._worker_device)
        with get_default_graph().device(device):
            # Strategy's, as this class's experimental_distribute_dataset returns None.
            iterator = Strategy.experimental_distribute_dataset(
                self, dataset).make_initializable_iterator()
        return _IteratorOnDevice(iterator, device)

    def make_input_fn_iterator(self, input_fn: Callable[[InputContext], Any],
                               replication_mode: InputReplicationMode = (
                                   InputReplicationMode.PER_WORKER)) -> Any:
        """An iterator over `input_fn(input_context)` with this worker's input context."""
        from tfx.core.api.distribute_input import DistributedDataset

        if replication_mode is not InputReplicationMode.PER_WORKER:
            raise ValueError(f"Input replication mode not supported: {replication_mode!r}")
        return DistributedDataset(input_fn(self._extended.input_context()), self,
                                  split_batches=False).make_initializable_iterator()

    def configure(self, session_config: Any = None, cluster_spec: Any = None,
                  task_type: str | None = None, task_id: int | None = None) -> None:
        """Re-initialize for `cluster_spec` (this task: `task_type`, `task_id`) and write
        the session config this strategy needs into `session_config`."""
        self._extended._configure(session_config, cluster_spec, task_type, task_id)

    def update_config_proto(self, config_proto: Any) -> Any:
        """A copy of `config_proto` with what this strategy needs: with a cluster, device
        filters for this task and the ps job, shared session state; else isolated."""
        return self._extended._update_config_proto(config_proto)

    def __repr__(self) -> str:
        return (f"<ParameterServerStrategy parameter_devices="
                f"{self._extended.parameter_devices}>")
