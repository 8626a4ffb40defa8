"""TensorFlow 1.x's `tf.layers` base: `Layer`, `InputSpec`, and the Dense, Flatten and Dropout
layers (convolutions and pooling: layers_conv_api.py; BatchNormalization:
layers_norm_api.py; the functional forms and the namespace: layers_api.py).

A layer creates its variables the first time it is called, in a variable scope named after
it: an unnamed `Dense` gets the first free one of "dense", "dense_1", ... (a named layer
uses its name, so a second layer of that name is an error unless `reuse=True`), and its
ops are built in that scope's original name scope:

    y = dense(x, 10, activation=relu)          # dense/kernel, dense/bias, dense/Relu
    y2 = dense(x2, 10, name="dense", reuse=True)   # the same variables, ops in dense_1/

The rules, as TensorFlow's legacy layers:

- `Layer.__call__` (also `apply`) opens the layer's variable scope (reusing it once the
  layer is built), builds the layer on the first call from the input's static shape, and
  calls `call`. Calling a layer again adds ops with suffixed names ("dense/MatMul_1").
- `add_weight` is `get_variable` in that scope; the default initializer is the scope's,
  else glorot_uniform for floats and zeros otherwise. A regularizer's loss is built under
  "<layer scope>/<weight>/Regularizer/" once per variable and joins the layer's `losses`
  and REGULARIZATION_LOSSES.
- Updates a layer makes (BatchNormalization's moving averages) join `updates` and
  GraphKeys.UPDATE_OPS when the layer is called.
- A layer's dtype is its first input's unless given.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from typing import Any

from tfx.core import dtypes
from tfx.core.api import array_api, control_flow_api, math_api, nn_api, random_api
from tfx.core.api.graph_builder import (
    GraphKeys,
    Tensor,
    TensorShape,
    as_shape,
    constant_value,
    get_default_graph,
)
from tfx.core.api.init_ops_api import GlorotUniform, Ones, Zeros
from tfx.core.api.linalg_api import tensordot
from tfx.core.api.ops_api import constant, convert_to_tensor, identity
from tfx.core.api.partitioned_variables_api import PartitionedVariable
from tfx.core.api.variable_scope_api import get_variable, variable_scope

# --- the Layer base ------------------------------------------------------------------------

# Per graph, how many layers of each snake-case class name exist (Layer.name is "dense_1",
# "dense_2"... as in TensorFlow, while the variable scopes count from "dense").
_layer_name_counts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _to_snake_case(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    snake = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return snake if snake[0] != "_" else "private" + snake


def _unique_layer_name(base: str) -> str:
    counts = _layer_name_counts.setdefault(get_default_graph(), {})
    counts[base] = counts.get(base, 0) + 1
    return f"{base}_{counts[base]}"


def _add_to_collection(values: list, key: str) -> None:
    graph = get_default_graph()
    present = {id(v) for v in graph.get_collection(key)}
    for value in values:
        if id(value) not in present:
            graph.add_to_collection(key, value)
            present.add(id(value))


class InputSpec:
    """What a layer accepts: `dtype`, a `shape` or rank bounds, and known `axes` sizes.

    Example:
        >>> InputSpec(min_ndim=2, axes={-1: 4})
    """

    def __init__(self, dtype: Any = None, shape: Any = None, ndim: int | None = None,
                 max_ndim: int | None = None, min_ndim: int | None = None,
                 axes: dict[int, int] | None = None) -> None:
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})

    def __repr__(self) -> str:
        fields = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                                          ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                          ("min_ndim", self.min_ndim), ("axes", self.axes))
                  if v]
        return f"InputSpec({', '.join(fields)})"

    def check(self, layer_name: str, x: Tensor) -> None:
        """Raise ValueError as TensorFlow does when `x` does not fit this spec."""
        rank = x.shape.ndims
        where = f"Input 0 of layer \"{layer_name}\" is incompatible with the layer: "
        if self.ndim is not None and rank is not None and rank != self.ndim:
            raise ValueError(f"{where}expected ndim={self.ndim}, found ndim={rank}. "
                             f"Full shape received: {x.shape}")
        if self.max_ndim is not None and rank is not None and rank > self.max_ndim:
            raise ValueError(f"{where}expected max_ndim={self.max_ndim}, found ndim={rank}")
        if self.min_ndim is not None and rank is not None and rank < self.min_ndim:
            raise ValueError(f"{where}expected min_ndim={self.min_ndim}, found ndim={rank}. "
                             f"Full shape received: {x.shape}")
        if rank is None:
            return
        dims = x.shape.as_list()
        for axis, size in self.axes.items():
            dim = dims[axis] if -rank <= axis < rank else None
            if size is not None and dim not in (None, size):
                raise ValueError(f"{where}expected axis {axis} of input shape to have value "
                                 f"{size}, but received input with shape {x.shape}")


class Layer:
    """The base of tf.layers: owns variables in a variable scope; `build` creates them from
    the first input's shape, `call` maps inputs to outputs.

    Args:
        trainable: whether the weights join TRAINABLE_VARIABLES.
        name: the layer's name, also its variable scope's (default: from the class name).
        dtype: the variables' dtype (default: the first input's).
        activity_regularizer: a function of the output whose result, divided by the batch
            size, joins `losses`.
        _scope: a variable scope (name or VariableScope) to use instead of the name.
        _reuse: reuse the variables of the scope.

    Example:
        >>> class Scale(Layer):
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight("w", [int(input_shape[-1])])
        ...         super().build(input_shape)
        ...     def call(self, inputs):
        ...         return inputs * self.w
        >>> y = Scale()(x)                  # scale/w, op scale/mul
    """

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None,
                 activity_regularizer: Callable[[Tensor], Tensor] | None = None,
                 **kwargs: Any) -> None:
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        kwargs.pop("autocast", None)
        input_shape = kwargs.pop("input_shape", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {next(iter(kwargs))}")
        del input_shape, batch_input_shape  # Keras model-building hints; no use in a graph
        self.trainable = trainable
        self.built = False
        self._dtype = dtypes.as_dtype(dtype).base if dtype is not None else None
        self._activity_regularizer = activity_regularizer
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._losses: list = []
        self._updates: list = []
        self.input_spec: InputSpec | None = None
        self._base_name = _to_snake_case(type(self).__name__)
        if name:
            self._name = name
            self._base_name = name
        else:
            self._name = _unique_layer_name(self._base_name)
        self._scope = None
        self._current_scope = None
        self._graph = None
        if scope:
            with variable_scope(scope) as captured:
                self._scope = captured

    # --- properties ---
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> str | None:
        return self._dtype.name if self._dtype is not None else None

    @property
    def scope_name(self) -> str:
        if not self._scope:
            raise ValueError(f'No name available for layer scope because the layer "{self._name}"'
                             " has not been used yet. The scope name  is determined the first "
                             "time the layer instance is called. You must therefore call the "
                             "layer before querying `scope_name`.")
        return self._scope.name

    @property
    def graph(self) -> Any:
        return self._graph

    @property
    def activity_regularizer(self) -> Callable[[Tensor], Tensor] | None:
        return self._activity_regularizer

    @property
    def trainable_weights(self) -> list:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self) -> list:
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def losses(self) -> list:
        return list(self._losses)

    @property
    def updates(self) -> list:
        return list(self._updates) if self.trainable else []

    def get_losses_for(self, inputs: Any) -> list:
        return self.losses if inputs is None else []

    def get_updates_for(self, inputs: Any) -> list:
        return self.updates if inputs is None else []

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """Record loss tensors on the layer (and in REGULARIZATION_LOSSES, as TF1 layers do)."""
        new = [convert_to_tensor(loss) for loss in
               (losses if isinstance(losses, (list, tuple)) else [losses]) if loss is not None]
        self._losses.extend(new)
        _add_to_collection(new, GraphKeys.REGULARIZATION_LOSSES)

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        """Record update ops (a tensor counts as its op); they join UPDATE_OPS when the layer
        is called."""
        for update in updates if isinstance(updates, (list, tuple)) else [updates]:
            update = update() if callable(update) else update
            self._updates.append(update.op if isinstance(update, Tensor) else update)

    # --- scopes ---
    def _set_scope(self, scope: Any = None) -> None:
        if self._scope is not None:
            return
        if self._reuse:
            with variable_scope(scope if scope is not None else self._base_name) as captured:
                self._scope = captured
        else:
            with variable_scope(scope, default_name=self._base_name) as captured:
                self._scope = captured

    # --- weights ---
    def add_weight(self, name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                   regularizer: Callable[[Any], Any] | None = None, trainable: bool | None = None,
                   constraint: Any = None, partitioner: Any = None,
                   use_resource: bool | None = None, synchronization: Any = None,
                   aggregation: Any = None, getter: Any = None) -> Any:
        """`get_variable(name, ...)` in the layer's scope, tracked by the layer.

        Returns the variable (existing when the layer reuses its scope).
        """
        graph = get_default_graph()
        existing = {id(v) for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES)}
        trainable = True if trainable is None else trainable
        dtype = dtypes.as_dtype(dtype if dtype is not None else (self._dtype or dtypes.float32))
        self._set_scope(None)
        reuse = self.built or self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with graph.name_scope(scope.original_name_scope):
                if initializer is None and scope.initializer is None:
                    if dtype.is_floating:
                        initializer = GlorotUniform()
                    elif dtype.is_integer or dtype.is_bool:
                        initializer = Zeros()
                    else:
                        raise ValueError(f"An initializer for variable {name} of type "
                                         f"{dtype.base.name} is required for layer {self._name}")
                variable = get_variable(
                    name, shape=shape, dtype=dtype, initializer=initializer,
                    trainable=trainable and self.trainable, constraint=constraint,
                    partitioner=partitioner, use_resource=use_resource)
                # A PartitionedVariable counts as its parts: each is tracked and
                # regularized on its own, as TensorFlow's layers do.
                parts = (list(variable) if isinstance(variable, PartitionedVariable)
                         else [variable])
                if regularizer is not None and all(id(v) not in existing for v in parts):
                    for part in parts:
                        with graph.name_scope(f"{name}/Regularizer"):
                            self.add_loss(regularizer(part))
        # TensorFlow files the weights as trainable only when the returned variable is in
        # TRAINABLE_VARIABLES (a custom getter or scope may have overridden `trainable`).
        # That collection holds a PartitionedVariable's parts, never the object itself, so
        # TF 2.21 lists its parts under non_trainable_weights; tfx does the same.
        trainables = {id(v) for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)}
        if trainable and self.trainable and id(variable) in trainables:
            self._trainable_weights.extend(parts)
        else:
            self._non_trainable_weights.extend(parts)
        return variable

    add_variable = add_weight

    # --- calling ---
    def build(self, input_shape: TensorShape) -> None:
        """Create the variables for inputs of `input_shape`; subclasses call super().build."""
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        raise NotImplementedError(f"{type(self).__name__}.compute_output_shape")

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Build on the first call, then `call(inputs, ...)` in the layer's scope."""
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        graph = get_default_graph()
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as vscope:
            self._current_scope = vscope
            with graph.name_scope(vscope.original_name_scope):
                first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
                if isinstance(inputs, (list, tuple)):
                    inputs = type(inputs)(convert_to_tensor(v) for v in inputs)
                    first = inputs[0]
                else:
                    inputs = first = convert_to_tensor(inputs)
                if self.input_spec is not None:
                    self.input_spec.check(self._name, first)
                if not self.built:
                    self._graph = graph
                    if self._dtype is None:
                        self._dtype = first.dtype.base
                    shapes = ([v.shape for v in inputs] if isinstance(inputs, (list, tuple))
                              else inputs.shape)
                    self.build(shapes)
                    self.built = True
                outputs = self.call(inputs, *args, **kwargs)
                if self._activity_regularizer is not None:
                    with graph.name_scope("ActivityRegularizer"):
                        loss = self._activity_regularizer(outputs)
                        batch = math_api.cast(array_api.shape(outputs)[0], loss.dtype)
                        self.add_loss(math_api.truediv(loss, batch))
        _add_to_collection(self.updates, GraphKeys.UPDATE_OPS)
        return outputs

    def apply(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return self(inputs, *args, **kwargs)

    def count_params(self) -> int:
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self._name}, but the "
                             "layer isn't built. You can build it manually via: "
                             f"`{self._name}.build(batch_input_shape)`.")
        total = 0
        for w in self.weights:
            size = 1
            for d in w.shape.as_list():
                size *= d
            total += size
        return total

    def get_config(self) -> dict[str, Any]:
        return {"name": self._name, "trainable": self.trainable, "dtype": self.dtype}

    def __repr__(self) -> str:
        return f"<tfx.layers.{type(self).__name__} {self._name!r}>"


# --- helpers shared with layers_conv_api ------------------------------------------------

_ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "relu": nn_api.relu, "sigmoid": math_api.sigmoid, "tanh": math_api.tanh,
    "softmax": nn_api.softmax, "elu": nn_api.elu, "selu": nn_api.selu,
    "softplus": nn_api.softplus, "relu6": nn_api.relu6,
}


def get_activation(activation: Any) -> Callable[[Tensor], Tensor] | None:
    """A callable, None, or a Keras activation name ("relu", "linear", ...)."""
    if activation is None or callable(activation):
        return activation
    if activation == "linear":
        return None
    if activation in _ACTIVATIONS:
        return _ACTIVATIONS[activation]
    raise ValueError(f"Unknown activation function: {activation!r}")


def get_initializer(initializer: Any) -> Any:
    """A tfx initializer, callable, None, or a name: "zeros", "ones", "glorot_uniform"."""
    if isinstance(initializer, str):
        table = {"zeros": Zeros, "ones": Ones, "glorot_uniform": GlorotUniform}
        if initializer not in table:
            raise ValueError(f"Unknown initializer: {initializer!r}")
        return table[initializer]()
    return initializer


def normalize_data_format(value: str | None) -> str:
    value = "channels_last" if value is None else value.lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of \"channels_first\", "
                         f"\"channels_last\". Received: {value}")
    return value


def normalize_padding(value: str, allow_causal: bool = False) -> str:
    padding = value.lower() if isinstance(value, str) else value
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    if padding not in allowed:
        raise ValueError("The `padding` argument must be a list/tuple or one of \"valid\", "
                         f"\"same\" (or \"causal\", only for `Conv1D). Received: {padding}")
    return padding


def normalize_tuple(value: Any, n: int, name: str) -> tuple[int, ...]:
    """An int or n ints as a tuple of n ints (TensorFlow's message otherwise)."""
    if isinstance(value, int):
        return (value,) * n
    try:
        values = tuple(value)
    except TypeError:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}") from None
    if len(values) != n or not all(isinstance(v, int) for v in values):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}")
    return values


def smart_cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any],
               name: str | None = None) -> Any:
    """`true_fn()` or `false_fn()` now when `pred` is a bool or a constant, else a `cond`."""
    value = pred
    if isinstance(pred, Tensor):
        value = constant_value(pred)
        if value is None:
            return control_flow_api.cond(pred, true_fn, false_fn, name=name)
    return true_fn() if bool(value) else false_fn()


def _static_bool(pred: Any) -> bool | None:
    if isinstance(pred, Tensor):
        value = constant_value(pred)
        return None if value is None else bool(value)
    return bool(pred)


# --- Dense, Flatten, Dropout -----------------------------------------------------------------


class Dense(Layer):
    """`activation(inputs @ kernel + bias)` over the last axis of `inputs`.

    Args:
        units: the output size.
        activation: a function (or Keras name), None for linear.
        use_bias: add a bias.
        kernel_initializer, bias_initializer: default glorot_uniform and zeros.
        kernel_regularizer, bias_regularizer, activity_regularizer: loss functions.
        kernel_constraint, bias_constraint: projections passed to the variables.
        trainable, name: as for Layer.

    Example:
        >>> Dense(10, activation=relu)(x)          # x: [batch, 784] -> [batch, 10]
    """

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = Zeros(),
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        if self.units < 0:
            raise ValueError("Received an invalid value for `units`, expected a positive "
                             f"integer. Received: units={units}")
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        dtype = self._dtype or dtypes.float32
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError("A Dense layer can only be built with a floating-point dtype. "
                            f"Received: dtype={dtype.name}")
        input_shape = as_shape(input_shape)
        last = input_shape[-1] if input_shape.ndims is not None else None
        if last is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be "
                             f"defined. Found None. Full input shape received: {input_shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = self.add_weight("kernel", [last, self.units], dtype=dtype,
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = (self.add_weight("bias", [self.units], dtype=dtype,
                                     initializer=self.bias_initializer,
                                     regularizer=self.bias_regularizer,
                                     constraint=self.bias_constraint)
                     if self.use_bias else None)
        self.built = True

    def call(self, inputs: Tensor) -> Tensor:
        rank = inputs.shape.ndims
        if rank == 2 or rank is None:
            outputs = math_api.matmul(inputs, self.kernel)
        else:
            outputs = tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        if self.use_bias:
            outputs = nn_api.bias_add(outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = as_shape(input_shape).with_rank_at_least(2).as_list()
        return TensorShape([*dims[:-1], self.units])


class Flatten(Layer):
    """Reshape to [batch, everything else]; channels_first inputs are made channels_last first.

    Example:
        >>> Flatten()(x)              # [batch, 4, 4, 8] -> [batch, 128]
    """

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs: Tensor) -> Tensor:
        rank = inputs.shape.ndims
        if self.data_format == "channels_first" and rank is not None and rank > 1:
            inputs = array_api.transpose(inputs, [0, *range(2, rank), 1])
        if rank == 1:
            return array_api.expand_dims(inputs, 1)
        dims = inputs.shape.as_list() if rank is not None else None
        if dims is not None and all(d is not None for d in dims[1:]):
            size = 1
            for d in dims[1:]:
                size *= d
            return array_api.reshape(inputs, constant([-1, size]))
        if dims is not None and dims[0] is not None:
            return array_api.reshape(inputs, constant([dims[0], -1]))
        return array_api.reshape(inputs, [array_api.shape(inputs)[0], -1])

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = as_shape(input_shape).as_list()
        rest = dims[1:]
        size = None if any(d is None for d in rest) else int(_prod(rest))
        return TensorShape([dims[0], size])


def _prod(values: list[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


class Dropout(Layer):
    """In training, zero each element with probability `rate` and scale the rest by
    1 / (1 - rate); otherwise the identity.

    Args:
        rate: the fraction dropped, in [0, 1).
        noise_shape: the shape of the keep/drop mask, broadcast over the input (None
            entries take the input's size).
        seed: the op seed of the random mask.

    Example:
        >>> Dropout(0.5)(x, training=is_training)      # a bool or a bool tensor
    """

    def __init__(self, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
                 name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value "
                             "between 0 and 1.")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def _noise_shape(self, inputs: Tensor) -> Any:
        if self.noise_shape is None:
            return None
        dynamic = array_api.shape(inputs)
        dims = [dynamic[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        if all(isinstance(d, int) for d in dims):
            return dims
        return array_api.stack(dims)

    def _dropped(self, inputs: Tensor) -> Tensor:
        with get_default_graph().name_scope("dropout"):
            rate = self.rate
            scale = constant(1.0 / (1.0 - rate), dtype=inputs.dtype.base)
            scaled = math_api.mul(inputs, scale, name="Mul")
            noise = self._noise_shape(inputs)
            shape = noise if noise is not None else array_api.shape(inputs)
            uniform = random_api.random_uniform(shape, seed=self.seed, dtype=inputs.dtype.base)
            keep = math_api.greater_equal(uniform, constant(rate, dtype=inputs.dtype.base))
            out = array_api.where_v2(keep, scaled, constant(0.0, dtype=inputs.dtype.base))
            out.set_shape(inputs.shape)
            return out

    def call(self, inputs: Tensor, training: Any = False) -> Tensor:
        if isinstance(self.rate, (int, float)) and self.rate == 0:
            return identity(inputs)
        return smart_cond(training, lambda: self._dropped(inputs), lambda: identity(inputs))

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return as_shape(input_shape)
