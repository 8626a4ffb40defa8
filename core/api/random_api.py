"""Random tensors and seeds, with TensorFlow 1.x's seed rules.

`set_random_seed(s)` sets the graph-level seed; each random op then gets the
pair (graph seed, op seed), where the op seed is the `seed=` argument or, when
absent, the number of ops created so far, so a graph built twice the same way
draws the same numbers. With neither seed the streams are not reproducible.
tfx's streams are its own: the same seeds do not reproduce TensorFlow's values.
"""

from __future__ import annotations

from typing import Any

from tfx.core import dtypes
from tfx.core.api.graph_builder import Tensor, get_default_graph, name_scope
from tfx.core.api.ops_api import apply_op, convert_to_tensor, shape_tensor

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def set_random_seed(seed: int | None) -> None:
    """Set the graph-level seed of the default graph."""
    get_default_graph().seed = seed


def get_seed(op_seed: int | None) -> tuple[int, int]:
    """The (seed, seed2) attrs for a random op, as TensorFlow's `random_seed.get_seed`."""
    graph = get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            op_seed = graph._next_id
        seeds = (int(global_seed), int(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed))
    else:
        return 0, 0
    if seeds == (0, 0):  # (0, 0) means "nondeterministic" to the kernels
        return 0, _MAXINT32
    return seeds


def _float_dtype(dtype: Any) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype).base
    return dtype


def random_uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
                   seed: int | None = None, name: str | None = None) -> Tensor:
    """Values uniformly distributed in [minval, maxval) (`RandomUniform`, or
    `RandomUniformInt` for integer types).

    Example:
        >>> W = Variable(random_uniform([784, 100], -1, 1))
    """
    dtype = _float_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"random_uniform of {dtype} needs maxval")
        maxval = 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape = shape_tensor(shape)
        minval = convert_to_tensor(minval, dtype, name="min")
        maxval = convert_to_tensor(maxval, dtype, name="max")
        seed1, seed2 = get_seed(seed)
        if dtype.is_integer:
            return apply_op("RandomUniformInt", shape=shape, minval=minval, maxval=maxval,
                            seed=seed1, seed2=seed2, name=scope)
        rnd = apply_op("RandomUniform", shape=shape, dtype=dtype, seed=seed1, seed2=seed2)
        scaled = apply_op("Mul", x=rnd, y=apply_op("Sub", x=maxval, y=minval, name="sub"),
                          name="mul")
        return apply_op("AddV2", x=scaled, y=minval, name=scope)


def random_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                  seed: int | None = None, name: str | None = None) -> Tensor:
    """Normally distributed values (`RandomStandardNormal` * stddev + mean)."""
    return _normal("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, seed,
                   name)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                     dtype: Any = dtypes.float32, seed: int | None = None,
                     name: str | None = None) -> Tensor:
    """Normal values redrawn when further than two stddevs from the mean."""
    return _normal("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, seed,
                   name)


def _normal(op_type: str, default_name: str, shape: Any, mean: Any, stddev: Any, dtype: Any,
            seed: int | None, name: str | None) -> Tensor:
    dtype = _float_dtype(dtype)
    with name_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape = shape_tensor(shape)
        mean = convert_to_tensor(mean, dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype, name="stddev")
        seed1, seed2 = get_seed(seed)
        rnd = apply_op(op_type, shape=shape, dtype=dtype, seed=seed1, seed2=seed2)
        mul = apply_op("Mul", x=rnd, y=stddev, name="mul")
        return apply_op("AddV2", x=mul, y=mean, name=scope)


def random_shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    seed1, seed2 = get_seed(seed)
    return apply_op("RandomShuffle", value=value, seed=seed1, seed2=seed2, name=name)


def multinomial(logits: Any, num_samples: Any, seed: int | None = None, name: str | None = None,
                output_dtype: Any = None) -> Tensor:
    """`num_samples` class indices per row of `logits`, drawn from softmax(row); the indices
    are `output_dtype` (int64 when None)."""
    with name_scope(name, "multinomial", [logits]):
        seed1, seed2 = get_seed(seed)
        return apply_op("Multinomial", logits=logits, num_samples=num_samples, seed=seed1,
                        seed2=seed2, output_dtype=dtypes.as_dtype(output_dtype or dtypes.int64))
