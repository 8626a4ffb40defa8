"""`tf.train.SyncReplicasOptimizer`: synchronous data-parallel training (TensorFlow 1.x).

Each replica's train op puts its gradients into one ConditionalAccumulator per
variable (`<var>/grad_accum`, shared by name), stamped with the replica's local step,
then takes a token from the `sync_token_q` queue and makes the token its local step. A
chief thread (the chief queue runner) waits until every accumulator holds
`replicas_to_aggregate` gradients, applies their mean with the wrapped optimizer (which
advances the global step) and puts `max(total_num_replicas, replicas_to_aggregate)`
tokens stamped with the new global step into the queue. An accumulator drops a
gradient whose local step is older than its global step, so stale replicas do not
count.

It runs in one process as in many: with `replicas_to_aggregate` = n, one worker's n
train steps make one update. The session must run, once: `chief_init_op` on the chief
(or `local_step_init_op` on workers), the init tokens (`get_init_tokens_op()`) and the
chief queue runner: `make_session_run_hook(is_chief)` does all three for a
MonitoredSession.

    opt = SyncReplicasOptimizer(GradientDescentOptimizer(0.1), replicas_to_aggregate=2)
    train = opt.minimize(loss, global_step=step)
    with MonitoredTrainingSession(hooks=[opt.make_session_run_hook(is_chief=True)]) as sess:
        sess.run(train)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tfx.core import dtypes
from tfx.core.api import array_api, math_api
from tfx.core.api.accumulator_api import ConditionalAccumulator, SparseConditionalAccumulator
from tfx.core.api.data_flow_api import FIFOQueue
from tfx.core.api.graph_builder import GraphKeys, IndexedSlices, Operation, name_scope
from tfx.core.api.hooks_api import SessionRunHook
from tfx.core.api.monitored_session_api import _ready
from tfx.core.api.ops_api import group, no_op
from tfx.core.api.queue_runner_api import QueueRunner
from tfx.core.api.state_api import Variable, global_variables, report_uninitialized_variables
from tfx.core.api.train_api import Optimizer

__all__ = ["SyncReplicasOptimizer"]


class SyncReplicasOptimizer(Optimizer):
    """Aggregates `replicas_to_aggregate` replicas' gradients per update.

    Args:
        opt: the optimizer that applies the aggregated gradients.
        replicas_to_aggregate: gradients per variable per update.
        total_num_replicas: the replicas taking part (default replicas_to_aggregate).
        variable_averages: an ExponentialMovingAverage updated after each update.
        variables_to_average: the variables it averages.
        use_locking, name: as for any optimizer.

    Raises:
        ValueError (apply_gradients): no global step, or no gradients.
    """

    def __init__(self, opt: Optimizer, replicas_to_aggregate: int,
                 total_num_replicas: int | None = None, variable_averages: Any = None,
                 variables_to_average: Iterable[Variable] | None = None,
                 use_locking: bool = False, name: str = "sync_replicas") -> None:
        super().__init__(use_locking, name)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._total_num_replicas = (replicas_to_aggregate if total_num_replicas is None
                                    else total_num_replicas)
        self._tokens_per_step = max(self._total_num_replicas, replicas_to_aggregate)
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._gradients_applied = False
        self._global_step: Any = None
        self._sync_token_queue: FIFOQueue | None = None
        self._chief_queue_runner: QueueRunner | None = None
        self._accumulators: list[tuple[Any, str]] = []
        self.local_step_init_op: Operation | None = None
        self.chief_init_op: Operation | None = None
        self.ready_for_local_init_op: Any = None

    def compute_gradients(self, *args: Any, **kwargs: Any) -> list[tuple[Any, Variable]]:
        """The wrapped optimizer's gradients."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Variable]],
                        global_step: Variable | None = None,
                        name: str | None = None) -> Operation:
        """The replica's train op (see the module docstring); builds the chief's ops too."""
        pairs = list(grads_and_vars)
        if not pairs:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        graph = global_step.graph
        step_dtype = global_step.dtype.base
        with graph.as_default():
            # The local step is this worker's, as in TensorFlow: it is colocated with an
            # op made under the worker's device scope, out of a ps device setter's reach
            # (on a ps task every worker's graph would share one local step).
            local_anchor = no_op()
            with graph.colocate_with(local_anchor), name_scope(""), \
                    graph.control_dependencies(None):
                self._local_step = Variable(0, trainable=False, dtype=step_dtype,
                                            collections=[GraphKeys.LOCAL_VARIABLES],
                                            name="sync_rep_local_step")
            self.local_step_init_op = self._local_step.assign(_value(global_step))
            chief_init_ops = [self.local_step_init_op]
            self.ready_for_local_init_op = report_uninitialized_variables(global_variables())
            train_ops, aggregated = [], []
            with name_scope(None, self._name):
                for grad, var in pairs:
                    if grad is None:
                        aggregated.append((None, var))
                        continue
                    with graph.device(var.device):
                        accumulator, apply_op, taken = self._accumulate(grad, var)
                    train_ops.append(apply_op)
                    aggregated.append((taken, var))
                    self._accumulators.append((accumulator, var.device))
                # The update, the token queue and the tokens live with the global step, as
                # in TensorFlow: the tokens then read the step after the update, on its own
                # device (a copy sent to a worker would be the step's value at its start).
                with graph.device(global_step.device):
                    update_op = self._opt.apply_gradients(aggregated, global_step)
                with graph.device(global_step.device), name_scope(""):
                    queue = FIFOQueue(-1, [step_dtype], shapes=[()], name="sync_token_q",
                                      shared_name="sync_token_q")
                self._sync_token_queue = queue
                with graph.device(global_step.device), graph.control_dependencies(train_ops):
                    token = queue.dequeue()
                    train_op = self._local_step.assign(token)
                with graph.device(global_step.device), \
                        graph.control_dependencies([update_op]):
                    tokens = array_api.fill([self._tokens_per_step], _value(global_step))
                    sync_op = queue.enqueue_many((tokens,))
                if self._variable_averages is not None:
                    with graph.control_dependencies([sync_op]), name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                with graph.device(global_step.device), name_scope(""):
                    # The runner gets a queue of its own: closing it on stop must not close
                    # the token queue.
                    dummy = FIFOQueue(1, ["int32"], shapes=[()], name="dummy_queue",
                                      shared_name="dummy_queue")
                self._chief_queue_runner = QueueRunner(dummy, [sync_op])
            for accumulator, device in self._accumulators:
                with graph.device(device):
                    chief_init_ops.append(accumulator.set_global_step(global_step,
                                                                      name="SetGlobalStep"))
            self.chief_init_op = group(*chief_init_ops)
        self._gradients_applied = True
        return train_op

    def _accumulate(self, grad: Any, var: Variable) -> tuple[Any, Operation, Any]:
        shared_name = var.name + "/grad_accum"
        if isinstance(grad, IndexedSlices):
            if grad.dense_shape is not None and grad.dense_shape.dtype.base != dtypes.int64:
                # The accumulator takes an int64 shape; tfx's gather gradient has int32.
                grad = IndexedSlices(grad.values, grad.indices,
                                     math_api.cast(grad.dense_shape, dtypes.int64))
            accumulator = SparseConditionalAccumulator(grad.dtype, shape=var.get_shape(),
                                                       shared_name=shared_name)
            apply_op = accumulator.apply_indexed_slices_grad(
                grad, local_step=_value(self._local_step))
            taken = accumulator.take_indexed_slices_grad(self._replicas_to_aggregate)
        else:
            accumulator = ConditionalAccumulator(grad.dtype, shape=var.get_shape(),
                                                 shared_name=shared_name)
            apply_op = accumulator.apply_grad(grad, local_step=_value(self._local_step))
            taken = accumulator.take_grad(self._replicas_to_aggregate)
        return accumulator, apply_op, taken

    def get_chief_queue_runner(self) -> QueueRunner:
        """The QueueRunner that runs the updates; the chief starts it."""
        if not self._gradients_applied:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_init_tokens_op(self, num_tokens: int = -1) -> Operation:
        """The op that puts `num_tokens` tokens (default replicas_to_aggregate) into the
        queue, so that the first steps can run.

        Raises:
            ValueError: called before apply_gradients, or too few tokens for the replicas
                to finish the first step.
        """
        if not self._gradients_applied:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < needed:
            raise ValueError(f"Too few tokens to finish the first step: {num_tokens} (given) vs "
                             f"{needed} (needed)")
        graph = self._global_step.graph
        with graph.as_default():
            if num_tokens <= 0:
                return no_op(name="no_init_tokens")
            with graph.device(self._global_step.device), name_scope(""):
                tokens = array_api.fill([num_tokens], _value(self._global_step))
                return self._sync_token_queue.enqueue_many((tokens,))

    def make_session_run_hook(self, is_chief: bool, num_tokens: int = -1) -> SessionRunHook:
        """A hook that runs the init ops, the init tokens and the chief queue runner."""
        return _SyncReplicasHook(self, is_chief, num_tokens)

    def get_slot(self, *args: Any, **kwargs: Any) -> Variable | None:
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args: Any, **kwargs: Any) -> list[str]:
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self) -> list[Variable]:
        return self._opt.variables()


def _value(variable: Any) -> Any:
    return variable.value() if hasattr(variable, "handle") else variable._ref()


class _SyncReplicasHook(SessionRunHook):
    def __init__(self, optimizer: SyncReplicasOptimizer, is_chief: bool,
                 num_tokens: int) -> None:
        self._optimizer = optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self) -> None:
        opt = self._optimizer
        if not opt._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before "
                             "using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._queue_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._queue_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session: Any, coord: Any) -> None:
        ready, message = _ready(self._ready_for_local_init_op, session,
                                "Model is not ready for SyncReplicasOptimizer local init.")
        if not ready:
            raise RuntimeError("Init operations did not make model ready for "
                               "SyncReplicasOptimizer local_init. Init op: "
                               f"{self._local_init_op.name}, error: {message}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._queue_runner is not None:
            self._queue_runner.create_threads(session, coord=coord, daemon=True, start=True)
