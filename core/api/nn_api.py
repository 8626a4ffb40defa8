"""`tfx.nn`: activations, convolutions, pooling, losses, dropout and embeddings.

Each function emits TensorFlow's op (`Relu`, `Conv2D`, `MaxPool`,
`SoftmaxCrossEntropyWithLogits`, ...) with TensorFlow's attrs.
`embedding_lookup` over a list of parameter shards is the seed paper's
Figure 4: ids are split by `DynamicPartition`, each shard is gathered where
it lives, and `DynamicStitch` puts the rows back in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from tfx.core import dtypes
from tfx.core.api import array_api, math_api
from tfx.core.api.graph_builder import Tensor, name_scope
from tfx.core.api.ops_api import apply_op, convert_to_tensor, identity, stop_gradient

# The tf.nn names: exactly what `tfx.nn` exposes.
__all__ = [
    "avg_pool",
    "avg_pool3d",
    "batch_normalization",
    "bias_add",
    "conv2d",
    "conv3d",
    "conv3d_transpose",
    "depthwise_conv2d",
    "dropout",
    "elu",
    "embedding_lookup",
    "in_top_k",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "log_softmax",
    "max_pool",
    "max_pool3d",
    "moments",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "softplus",
    "softsign",
    "sparse_softmax_cross_entropy_with_logits",
    "tanh",
    "top_k",
    "xw_plus_b",
]

sigmoid = math_api.sigmoid
tanh = math_api.tanh
l2_normalize = math_api.l2_normalize


def _unary(op_type: str) -> Any:
    def fn(features: Any, name: str | None = None) -> Tensor:
        return apply_op(op_type, features=features, name=name)

    fn.__name__ = op_type.lower()
    fn.__doc__ = f"`{op_type}` of `features`, elementwise."
    return fn


relu = _unary("Relu")
relu6 = _unary("Relu6")
elu = _unary("Elu")
selu = _unary("Selu")
softplus = _unary("Softplus")
softsign = _unary("Softsign")


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    return apply_op("LeakyRelu", features=features, alpha=alpha, name=name)


def _last_axis_op(op_type: str, logits: Any, axis: int | None, name: str | None) -> Tensor:
    logits = convert_to_tensor(logits)
    ndims = logits.shape.ndims
    if axis is None or axis == -1 or (ndims is not None and axis == ndims - 1):
        return apply_op(op_type, logits=logits, name=name)
    if ndims is None:
        raise ValueError(f"{op_type} over axis {axis} needs a known rank")
    perm = list(range(ndims))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    with name_scope(name, op_type) as scope:
        moved = array_api.transpose(logits, perm)
        out = apply_op(op_type, logits=moved)
        return array_api.transpose(out, perm, name=scope)


def softmax(logits: Any, axis: int | None = None, name: str | None = None,
            dim: int | None = None) -> Tensor:
    """exp(logits) normalized over `axis` (the last by default)."""
    return _last_axis_op("Softmax", logits, axis if axis is not None else dim, name)


def log_softmax(logits: Any, axis: int | None = None, name: str | None = None,
                dim: int | None = None) -> Tensor:
    return _last_axis_op("LogSoftmax", logits, axis if axis is not None else dim, name)


def bias_add(value: Any, bias: Any, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """`value + bias` along the channel dim (`BiasAdd`)."""
    return apply_op("BiasAdd", value=value, bias=bias, data_format=data_format or "NHWC",
                    name=name)


def xw_plus_b(x: Any, weights: Any, biases: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        return bias_add(math_api.matmul(x, weights), biases, name=scope)


# --- convolution and pooling -----------------------------------------------------------


def _spatial_list(value: Any, n: int, data_format: str, what: str) -> list[int]:
    """`value` (an int, or 1, n or n + 2 ints) as one int per dim of an n-D `data_format`
    input, 1 for the batch and channel dims."""
    value = [value] if isinstance(value, int) else list(value)
    if len(value) == 1:
        value = value * n
    if len(value) == n:
        value = [1, *value, 1] if data_format.endswith("C") else [1, 1, *value]
    if len(value) != n + 2:
        raise ValueError(f"{what} must have 1, {n} or {n + 2} elements, got {value}")
    return value


def _list4(value: Any, data_format: str, what: str) -> list[int]:
    return _spatial_list(value, 2, data_format, what)


def _list5(value: Any, data_format: str, what: str) -> list[int]:
    return _spatial_list(value, 3, data_format, what)


def _padding(padding: Any, rank: int = 4) -> tuple[Any, list[int]]:
    """The `padding` and `explicit_paddings` attrs for `padding` given as "SAME" or "VALID",
    or as one [before, after] pair per input dim in the data format's order (then EXPLICIT)."""
    if isinstance(padding, str):
        if padding.upper() == "EXPLICIT":
            raise ValueError("'EXPLICIT' is not a valid value for padding: to pad explicitly, "
                             "give padding as a list of [before, after] pairs")
        return padding, []
    if not isinstance(padding, (list, tuple)):
        return padding, []  # left for the attr check to refuse
    explicit: list[int] = []
    for i, pair in enumerate(padding):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"explicit padding must be [before, after] pairs, got {pair!r} at "
                             f"index {i} of {padding!r}")
        explicit.extend(int(p) for p in pair)
    if len(padding) != rank:
        raise ValueError(f"explicit padding needs one pair per dim ({rank}), got "
                         f"{len(padding)}: {padding!r}")
    return "EXPLICIT", explicit


def conv2d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,
           use_cudnn_on_gpu: bool = True, data_format: str = "NHWC", dilations: Any = None,
           name: str | None = None, filters: Any = None) -> Tensor:
    """2-D convolution of NHWC `input` with an HWIO `filter` (`Conv2D`).

    Args:
        padding: "SAME", "VALID", or [before, after] pairs for the 4 dims in `data_format`
            order (the batch and channel pairs zero), which pad explicitly.

    Example:
        >>> y = conv2d(images, w, strides=[1, 1, 1, 1], padding="SAME")
        >>> y = conv2d(images, w, [1, 1, 1, 1], padding=[[0, 0], [1, 0], [0, 2], [0, 0]])
    """
    filter = filter if filter is not None else filters
    padding, explicit = _padding(padding)
    return apply_op("Conv2D", input=input, filter=filter,
                    strides=_list4(strides, data_format, "strides"), padding=padding,
                    explicit_paddings=explicit, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    data_format=data_format,
                    dilations=_list4(dilations or 1, data_format, "dilations"), name=name)


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any, rate: Any = None,
                     name: str | None = None, data_format: str | None = None,
                     dilations: Any = None) -> Tensor:
    """Per-channel convolution (`DepthwiseConv2dNative`); `padding` as in `conv2d`.

    `data_format` None means "NHWC"; `rate` is the deprecated spelling of `dilations`.
    """
    rate = math_api._either("dilations", dilations, "rate", rate)
    data_format = data_format or "NHWC"
    padding, explicit = _padding(padding)
    return apply_op("DepthwiseConv2dNative", input=input, filter=filter,
                    strides=_list4(strides, data_format, "strides"), padding=padding,
                    explicit_paddings=explicit, data_format=data_format,
                    dilations=_list4(rate or 1, data_format, "dilations"),
                    name=name or "depthwise")


def max_pool(value: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> Tensor:
    """Max over windows (`MaxPool`); `padding` as in `conv2d` (explicit pads are skipped)."""
    value = value if value is not None else input
    padding, explicit = _padding(padding)
    return apply_op("MaxPool", input=value, ksize=_list4(ksize, data_format, "ksize"),
                    strides=_list4(strides, data_format, "strides"), padding=padding,
                    explicit_paddings=explicit, data_format=data_format, name=name)


def avg_pool(value: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> Tensor:
    value = value if value is not None else input
    return apply_op("AvgPool", value=value, ksize=_list4(ksize, data_format, "ksize"),
                    strides=_list4(strides, data_format, "strides"), padding=padding,
                    data_format=data_format, name=name)


def conv3d(input: Any, filter: Any = None, strides: Any = None, padding: str | None = None,
           data_format: str = "NDHWC", dilations: Any = None, name: str | None = None,
           filters: Any = None) -> Tensor:
    """3-D convolution of NDHWC `input` with a DHWIO `filter` (`Conv3D`).

    Args:
        strides, dilations: an int or 1, 3 or 5 ints (batch and channel entries 1).
        padding: "SAME" or "VALID".

    Example:
        >>> y = conv3d(volumes, w, strides=[1, 1, 1, 1, 1], padding="SAME")
    """
    filter = filter if filter is not None else filters
    return apply_op("Conv3D", input=input, filter=filter,
                    strides=_list5(strides, data_format, "strides"), padding=padding,
                    data_format=data_format,
                    dilations=_list5(dilations or 1, data_format, "dilations"), name=name)


def conv3d_transpose(value: Any, filter: Any = None, output_shape: Any = None,
                     strides: Any = None, padding: str = "SAME", data_format: str = "NDHWC",
                     name: str | None = None, input: Any = None, filters: Any = None,
                     dilations: Any = None) -> Tensor:
    """The gradient of `conv3d` with respect to its input (`Conv3DBackpropInputV2`).

    `output_shape` is the shape of the result, the input of the `conv3d` it transposes.

    Example:
        >>> y = conv3d_transpose(x, w, [1, 8, 8, 8, 2], strides=2)   # w: DHW, out, in
    """
    value = value if value is not None else input
    filter = filter if filter is not None else filters
    with name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as scope:
        return apply_op("Conv3DBackpropInputV2", input_sizes=output_shape, filter=filter,
                        out_backprop=value, strides=_list5(strides or 1, data_format, "strides"),
                        padding=padding, data_format=data_format,
                        dilations=_list5(dilations or 1, data_format, "dilations"), name=scope)


def max_pool3d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NDHWC",
               name: str | None = None) -> Tensor:
    """Max over 3-D windows (`MaxPool3D`); `ksize` and `strides` as in `conv3d`."""
    return apply_op("MaxPool3D", input=input, ksize=_list5(ksize, data_format, "ksize"),
                    strides=_list5(strides, data_format, "strides"), padding=padding,
                    data_format=data_format, name=name)


def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NDHWC",
               name: str | None = None) -> Tensor:
    """Mean over 3-D windows (`AvgPool3D`), of the in-bounds elements with SAME padding."""
    return apply_op("AvgPool3D", input=input, ksize=_list5(ksize, data_format, "ksize"),
                    strides=_list5(strides, data_format, "strides"), padding=padding,
                    data_format=data_format, name=name)


# --- losses ----------------------------------------------------------------------------


def softmax_cross_entropy_with_logits_v2(labels: Any, logits: Any, axis: int | None = None,
                                         name: str | None = None,
                                         dim: int | None = None) -> Tensor:
    """Per-example cross entropy between `labels` (distributions) and softmax(`logits`).

    Gradients flow into both labels and logits, as TensorFlow's v2. `axis` None means the
    last axis; `dim` is its deprecated spelling.
    """
    axis = math_api._either("axis", axis, "dim", dim)
    axis = -1 if axis is None else axis
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, logits.dtype.base, name="labels")
        ndims = logits.shape.ndims
        if ndims == 2 and axis in (-1, 1):
            return apply_op("SoftmaxCrossEntropyWithLogits", features=logits, labels=labels,
                            name=scope)[0]
        # Other ranks: move `axis` last, flatten to a matrix, and restore the batch shape.
        if ndims is None:
            raise ValueError("softmax_cross_entropy_with_logits needs logits of known rank")
        if axis not in (-1, ndims - 1):
            perm = list(range(ndims))
            perm[axis], perm[-1] = perm[-1], perm[axis]
            logits = array_api.transpose(logits, perm)
            labels = array_api.transpose(labels, perm)
        batch_shape = array_api.slice(array_api.shape(logits), [0], [ndims - 1])
        flat_logits = array_api.reshape(logits, [-1, logits.shape[-1] or -1])
        flat_labels = array_api.reshape(labels, [-1, logits.shape[-1] or -1])
        loss = apply_op("SoftmaxCrossEntropyWithLogits", features=flat_logits,
                        labels=flat_labels)[0]
        return array_api.reshape(loss, batch_shape, name=scope)


def softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                      logits: Any = None, dim: int = -1,
                                      name: str | None = None) -> Tensor:
    """TensorFlow 1.x's version: no gradient flows into `labels`."""
    if _sentinel is not None:
        raise ValueError("pass labels= and logits= by name")
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = stop_gradient(labels, name="labels_stop_gradient")
        return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim,
                                                    name=scope)


def sparse_softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                             logits: Any = None,
                                             name: str | None = None) -> Tensor:
    """Cross entropy with integer class `labels` (`SparseSoftmaxCrossEntropyWithLogits`)."""
    if _sentinel is not None:
        raise ValueError("pass labels= and logits= by name")
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]) as scope:
        logits = convert_to_tensor(logits)
        labels = convert_to_tensor(labels)
        if logits.shape.ndims == 2:
            return apply_op("SparseSoftmaxCrossEntropyWithLogits", features=logits,
                            labels=labels, name=scope)[0]
        if logits.shape.ndims is None:
            raise ValueError("sparse_softmax_cross_entropy_with_logits needs a known rank")
        labels_shape = array_api.shape(labels)
        flat_logits = array_api.reshape(logits, [-1, logits.shape[-1] or -1])
        flat_labels = array_api.reshape(labels, [-1])
        loss = apply_op("SparseSoftmaxCrossEntropyWithLogits", features=flat_logits,
                        labels=flat_labels)[0]
        return array_api.reshape(loss, labels_shape, name=scope)


def sigmoid_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                      logits: Any = None, name: str | None = None) -> Tensor:
    """max(x, 0) - x * z + log(1 + exp(-|x|)), TensorFlow's stable form."""
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, logits.dtype.base, name="labels")
        zeros = array_api.zeros_like(logits)
        cond = math_api.greater_equal(logits, zeros)
        relu_logits = array_api.where(cond, logits, zeros)
        neg_abs_logits = array_api.where(cond, math_api.neg(logits), logits)
        return math_api.add(relu_logits - logits * labels,
                            math_api.log1p(math_api.exp(neg_abs_logits)), name=scope)


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """sum(t ** 2) / 2 (`L2Loss`)."""
    return apply_op("L2Loss", t=t, name=name)


def dropout(x: Any, keep_prob: Any = None, noise_shape: Any = None, seed: int | None = None,
            name: str | None = None, rate: Any = None) -> Tensor:
    """Zero elements with probability 1 - keep_prob and scale the rest by 1 / keep_prob."""
    from tfx.core.api.random_api import random_uniform

    if keep_prob is None:
        if rate is None:
            raise ValueError("dropout needs keep_prob or rate")
        keep_prob = 1 - rate if not isinstance(rate, Tensor) else math_api.sub(1.0, rate)
    with name_scope(name, "dropout", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        keep_prob = convert_to_tensor(keep_prob, x.dtype.base, name="keep_prob")
        shape = noise_shape if noise_shape is not None else array_api.shape(x)
        random_tensor = keep_prob + random_uniform(shape, seed=seed, dtype=x.dtype.base)
        binary_tensor = math_api.floor(random_tensor)
        ret = math_api.mul(math_api.truediv(x, keep_prob), binary_tensor, name=scope)
        ret.set_shape(x.shape)
        return ret


def moments(x: Any, axes: Sequence[int], shift: Any = None, name: str | None = None,
            keep_dims: bool | None = None, keepdims: bool | None = None
            ) -> tuple[Tensor, Tensor]:
    """Mean and variance of `x` over `axes`; `keep_dims` is the deprecated `keepdims`."""
    keep = bool(math_api._either("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "moments", [x, axes]):
        x = convert_to_tensor(x)
        mean = math_api.reduce_mean(x, axes, keepdims=True, name="mean")
        variance = math_api.reduce_mean(
            math_api.squared_difference(x, stop_gradient(mean)), axes, keepdims=True,
            name="variance")
        if not keep:
            mean = array_api.squeeze(mean, list(axes))
            variance = array_api.squeeze(variance, list(axes))
        return mean, variance


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: float, name: str | None = None) -> Tensor:
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]) as scope:
        inv = math_api.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        x = convert_to_tensor(x)
        rest = (offset - mean * inv) if offset is not None else (-mean * inv)
        return math_api.add(x * inv, rest, name=scope)


def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> Tensor:
    return apply_op("InTopKV2", predictions=predictions, targets=targets, k=k, name=name)


class TopKV2(NamedTuple):
    """What `top_k` returns, as in TensorFlow: a (values, indices) pair with those names."""

    values: Tensor
    indices: Tensor


def top_k(input: Any, k: Any = 1, sorted: bool = True, index_type: Any = dtypes.int32,
          name: str | None = None) -> TopKV2:
    """The `k` largest entries of the last axis of `input` and their indices (`TopKV2`).

    Sorted, they run descending (ties by the lower index); with `sorted=False` they come in
    TensorFlow's CPU kernel's order. The indices are `index_type` (int16, int32 or int64).

    Example:
        >>> values, indices = top_k([1.0, 3.0, 2.0], 2)      # [3, 2], [1, 2]
    """
    index_type = dtypes.as_dtype(index_type)
    if index_type not in (dtypes.int16, dtypes.int32, dtypes.int64):
        raise TypeError(f"Value passed to parameter 'index_type' has DataType "
                        f"{index_type.name} not in list of allowed values: int16, int32, int64")
    values, indices = apply_op("TopKV2", input=input, k=k, sorted=sorted,
                               index_type=index_type, name=name)
    return TopKV2(values, indices)


# --- embeddings ------------------------------------------------------------------------


def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod",
                     name: str | None = None, validate_indices: bool = True,
                     max_norm: Any = None) -> Tensor:
    """Rows `ids` of `params`, which may be a list of shards (the seed's Figure 4).

    With several shards, id `i` lives in shard `i % n` at row `i // n` ("mod") or in
    contiguous ranges ("div"); each shard's gather is colocated with it.

    Example:
        >>> shards = [Variable(zeros([50, 8])) for _ in range(2)]
        >>> vectors = embedding_lookup(shards, ids)      # ids.shape + [8]
    """
    if max_norm is not None:
        raise NotImplementedError("embedding_lookup(max_norm=...) is not supported")
    if not isinstance(params, (list, tuple)):
        params = [params]
    params = list(params)
    if not params:
        raise ValueError("embedding_lookup needs at least one parameter shard")
    with name_scope(name, "embedding_lookup", params + [ids]) as scope:
        num = len(params)
        if num == 1:
            param = params[0]
            with _colocate(param):
                result = array_api.gather(param, ids)
            return identity(result, name=scope)
        ids = convert_to_tensor(ids, name="ids")
        flat_ids = array_api.reshape(ids, [-1])
        original_indices = array_api.range(array_api.size(flat_ids))
        assignments, new_ids = _partition_ids(params, flat_ids, partition_strategy)
        assignments = math_api.cast(assignments, dtypes.int32)
        gather_ids = array_api.dynamic_partition(new_ids, assignments, num)
        pindices = array_api.dynamic_partition(original_indices, assignments, num)
        partitioned = []
        for p, param in enumerate(params):
            with _colocate(param):
                partitioned.append(array_api.gather(param, gather_ids[p]))
        stitched = array_api.dynamic_stitch(pindices, partitioned)
        element_shape = params[0].shape[1:]
        if element_shape.is_fully_defined():
            target = array_api.concat([array_api.shape(ids), element_shape.as_list()], 0)
        else:
            rows = array_api.shape(stitched)
            target = array_api.concat([array_api.shape(ids), array_api.slice(rows, [1], [-1])],
                                      0)
        result = array_api.reshape(stitched, target, name=scope)
        result.set_shape(ids.shape.concatenate(element_shape))
        return result


def _colocate(param: Any) -> Any:
    op = getattr(param, "op", None)
    graph = getattr(param, "graph", None)
    return graph.colocate_with(op)


def _partition_ids(params: list, flat_ids: Tensor, strategy: str) -> tuple[Tensor, Tensor]:
    num = len(params)
    if strategy == "mod":
        return math_api.floormod(flat_ids, num), math_api.floordiv(flat_ids, num)
    if strategy != "div":
        raise ValueError(f"unknown partition_strategy {strategy!r} (use 'mod' or 'div')")
    sizes = [p.shape[0] for p in params]
    if any(s is None for s in sizes):
        raise ValueError("the 'div' strategy needs shards with known first dims")
    total = sum(sizes)
    per = total // num
    extras = total % num
    dtype = flat_ids.dtype.base
    assignments = math_api.maximum(
        math_api.floordiv(flat_ids, per + 1),
        math_api.floordiv(flat_ids - extras, per) if per else flat_ids * 0 + num - 1)
    in_extras = math_api.cast(math_api.less(assignments, extras), dtype)
    new_ids = in_extras * math_api.floormod(flat_ids, per + 1) + (1 - in_extras) * (
        math_api.floormod(flat_ids - extras, per) if per else flat_ids * 0)
    return assignments, new_ids
