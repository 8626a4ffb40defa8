"""Partitioned variables: TensorFlow 1.x's partitioners and `PartitionedVariable`.

A partitioner is a function `partitioner(shape=TensorShape, dtype=DType)` returning how
many pieces to cut a variable into along each axis (at most one axis above 1). Given one,
`get_variable` creates one variable per piece, named `NAME/part_0`, `NAME/part_1`, ...,
and returns them as a `PartitionedVariable`:

    emb = get_variable("emb", [10, 4], partitioner=fixed_size_partitioner(3))
    [v.name for v in emb]      # ['emb/part_0:0', 'emb/part_1:0', 'emb/part_2:0']
    [v.shape for v in emb]     # [(4, 4), (3, 4), (3, 4)]: the first 10 % 3 get one more
    embedding_lookup(emb, ids) # looks ids up in the shards ("mod" by default)

The pieces are ordinary variables (in GLOBAL_VARIABLES, trained one by one) that each
know where they lie in the full tensor (their SaveSliceInfo), so a Saver writes one
checkpoint key `NAME` holding the full tensor in slices, as TensorFlow does.

The shard counts follow TensorFlow's arithmetic exactly:

- `fixed_size_partitioner(n)`: min(n, dim).
- `variable_axis_size_partitioner(max_shard_bytes)`: shards of at most `max_shard_bytes`
  (at least one slice along the axis each): ceil(dim / max(1, floor(max_bytes /
  bytes_per_slice))), capped by `max_shards`.
- `min_max_variable_partitioner(max_partitions, min_slice_size)`: about one shard per
  `min_slice_size` bytes: max(1, min(dim, max_partitions, ceil(total_bytes /
  min_slice_size))).

Strings count `bytes_per_string_element` bytes per element.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tfx.core import dtypes
from tfx.core.api import array_api
from tfx.core.api.graph_builder import Tensor, TensorShape
from tfx.core.api.ops_api import identity, register_tensor_conversion_function
from tfx.core.api.state_api import Variable

__all__ = [
    "PartitionedVariable", "create_partitioned_variables", "fixed_size_partitioner",
    "min_max_variable_partitioner", "variable_axis_size_partitioner",
]

Partitioner = Callable[..., list[int]]


# --- partitioners ---------------------------------------------------------------------


def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Partitioner:
    """A partitioner cutting `axis` into `num_shards` pieces (fewer if the axis is shorter).

    Example:
        >>> fixed_size_partitioner(3)(shape=TensorShape([10, 4]), dtype=float32)
        [3, 1]
    """

    def partitioner(shape: TensorShape, **_: Any) -> list[int]:
        partitions = [1] * len(shape)
        partitions[axis] = min(num_shards, shape[axis])
        return partitions

    return partitioner


def variable_axis_size_partitioner(max_shard_bytes: int, axis: int = 0,
                                   bytes_per_string_element: int = 16,
                                   max_shards: int | None = None) -> Partitioner:
    """A partitioner keeping each shard under `max_shard_bytes` (whole slices along `axis`;
    a shard holds at least one slice even if that is larger).

    Args:
        max_shard_bytes: the most bytes a shard should hold (positive).
        axis: the axis to cut.
        bytes_per_string_element: the size assumed for one string element.
        max_shards: an upper bound on the number of shards (positive), or None.

    Raises:
        ValueError: a bound that is not positive; later, a shape not fully defined.

    Example:
        >>> variable_axis_size_partitioner(100)(shape=TensorShape([10, 4]), dtype=float32)
        [2, 1]
    """
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(
            "Both max_shard_bytes and bytes_per_string_element must be positive. Currently, "
            f"max_shard_bytes is {max_shard_bytes} and bytes_per_string_element is "
            f"{bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def partitioner(shape: TensorShape, dtype: dtypes.DType) -> list[int]:
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        if not isinstance(dtype, dtypes.DType):
            raise ValueError(f"dtype is not a DType: {dtype}")
        element_size = _element_bytes(dtype, bytes_per_string_element)
        dims = shape.as_list()
        bytes_per_slice = shape.num_elements() / dims[axis] * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(dims[axis] / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions = [1] * len(dims)
        partitions[axis] = axis_shards
        return partitions

    return partitioner


def min_max_variable_partitioner(max_partitions: int = 1, axis: int = 0,
                                 min_slice_size: int = 256 << 10,
                                 bytes_per_string_element: int = 16) -> Partitioner:
    """A partitioner giving each shard at least `min_slice_size` bytes, with at most
    `max_partitions` shards (and no more than the axis is long).

    Example:
        >>> min_max_variable_partitioner(4, min_slice_size=64)(
        ...     shape=TensorShape([10, 4]), dtype=float32)
        [3, 1]
    """

    def partitioner(shape: TensorShape, dtype: dtypes.DType) -> list[int]:
        if axis >= len(shape):
            raise ValueError(f"Can not partition variable along axis {axis} when shape is "
                             f"only {shape}")
        element_size = _element_bytes(dtype, bytes_per_string_element)
        total_bytes = shape.num_elements() * element_size
        partitions = [1] * len(shape)
        partitions[axis] = max(1, min(shape[axis], max_partitions,
                                      int(math.ceil(total_bytes / min_slice_size))))
        return partitions

    return partitioner


def _element_bytes(dtype: dtypes.DType, bytes_per_string_element: int) -> int:
    dtype = dtypes.as_dtype(dtype).base
    return bytes_per_string_element if dtype is dtypes.string else dtype.itemsize


def call_partitioner(partitioner: Partitioner, shape: TensorShape,
                     dtype: dtypes.DType) -> list[int]:
    """The partitioner's answer for a new variable, checked as TensorFlow checks it.

    Raises:
        ValueError: the shape is not fully defined or a scalar, or the answer is not one
            positive count per axis with at most one axis cut.
    """
    if not shape.is_fully_defined():
        raise ValueError("Shape of a new partitioned variable must be fully defined, but "
                         f"instead was {shape}.")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, Sequence) or isinstance(slicing, str):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    slicing = list(slicing)
    if len(slicing) != len(shape):
        raise ValueError("Partitioner returned a partition list that does not match the "
                         f"Variable's rank: {slicing} vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: {shape}, "
                         f"partitioning: {slicing}")
    return slicing


def slice_dim_and_count(partitions: Sequence[int]) -> tuple[int, int]:
    """The axis that is cut and into how many pieces ((0, 1) when none is)."""
    for dim, count in enumerate(partitions):
        if count > 1:
            return dim, count
    return 0, 1


def iter_slices(full_shape: Sequence[int], count: int,
                dim: int) -> Iterator[tuple[list[int], list[int]]]:
    """(offset, shape) of each piece: the first `full_shape[dim] % count` get one extra."""
    with_extra = full_shape[dim] % count
    least = full_shape[dim] // count
    offset = [0] * len(full_shape)
    for i in range(count):
        shape = list(full_shape)
        shape[dim] = least + (1 if i < with_extra else 0)
        yield list(offset), shape
        offset[dim] += shape[dim]


class PartitionInfo:
    """Where one piece lies in the full variable, as initializers receive it
    (`init(shape, dtype=..., partition_info=...)`; TensorFlow's `_PartitionInfo`).

    Args:
        full_shape: the full variable's shape.
        var_offset: the piece's offset in each dimension.
    """

    def __init__(self, full_shape: Sequence[int], var_offset: Sequence[int]) -> None:
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError(f"`full_shape` must be a sequence (like tuple or list) instead of "
                            f"{type(full_shape).__name__}")
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError(f"`var_offset` must be a sequence (like tuple or list) instead of "
                            f"{type(var_offset).__name__}")
        if len(var_offset) != len(full_shape):
            raise ValueError(f"Expected equal length, but `var_offset` is of length "
                             f"{len(var_offset)} while full_shape is of length "
                             f"{len(full_shape)}.")
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, "
                                 f"shape={size} for var_offset={list(var_offset)}, "
                                 f"full_shape={list(full_shape)}")
        self._full_shape = list(full_shape)
        self._var_offset = list(var_offset)

    @property
    def full_shape(self) -> list[int]:
        return self._full_shape

    @property
    def var_offset(self) -> list[int]:
        return self._var_offset

    def single_slice_dim(self, shape: Sequence[int]) -> int | None:
        """The one dimension where a piece of `shape` is narrower than the full variable
        (None when it is the whole variable).

        Raises:
            ValueError: `shape` does not fit at this offset, or is cut in several dims.
        """
        if len(shape) != len(self._full_shape):
            raise ValueError(f"Expected equal length, but received shape={list(shape)} of "
                             f"length {len(shape)} while self.full_shape={self._full_shape} "
                             f"is of length {len(self._full_shape)}.")
        for i, (size, offset, full) in enumerate(zip(shape, self._var_offset,
                                                     self._full_shape)):
            if offset + size > full:
                raise ValueError(f"With self.var_offset={self._var_offset}, a partition of "
                                 f"shape={list(shape)} would exceed self.full_shape="
                                 f"{self._full_shape} in dimension {i}.")
        cut = [i for i, (size, full) in enumerate(zip(shape, self._full_shape)) if size != full]
        if len(cut) > 1:
            raise ValueError(f"Cannot use single_slice_dim() with shape={list(shape)} and "
                             f"self.full_shape={self._full_shape} since slice dim could be "
                             f"either dimension {cut[0]} or {cut[1]}.")
        return cut[0] if cut else None

    def single_offset(self, shape: Sequence[int]) -> int:
        """The piece's offset along its one cut dimension (0 when uncut)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self._var_offset[dim]


# --- PartitionedVariable --------------------------------------------------------------


class PartitionedVariable:
    """The pieces of one partitioned variable, in offset order.

    Iterating gives the piece variables; converting to a tensor (`as_tensor()`, or
    passing it to any op) concatenates them, as the op `NAME` (an Identity of
    `NAME/ConcatPartitions/concat`).

    Args:
        name: the full variable's name ("scope/emb").
        shape: the full shape.
        dtype: the element type.
        variable_list: the pieces, each with a SaveSliceInfo of this variable.
        partitions: the piece count per axis ([3, 1]).

    Example:
        >>> emb = get_variable("emb", [10, 4], partitioner=fixed_size_partitioner(3))
        >>> len(emb), emb.get_partitions()
        (3, [3, 1])
    """

    def __init__(self, name: str, shape: Any, dtype: Any, variable_list: Sequence[Variable],
                 partitions: Sequence[int]) -> None:
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {list(partitions)}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        shape = TensorShape(shape)
        if len(shape) != len(partitions):
            raise ValueError(f"len(shape) != len(partitions): {shape} vs. {list(partitions)}")
        for v in variable_list:
            info = getattr(v, "_save_slice_info", None)
            if info is None:
                raise ValueError("All variables must have a save_slice_info available: "
                                 f"{[u.name for u in variable_list]}")
            if list(info.full_shape) != shape.as_list():
                raise ValueError(f"All variables' full shapes must match shape: {shape}; but "
                                 f"full shapes were: {list(info.full_shape)}")
        self._variable_list = sorted(variable_list,
                                     key=lambda v: tuple(v._save_slice_info.var_offset))
        self._name = name
        self._shape = shape
        self._dtype = dtypes.as_dtype(dtype)
        self._partitions = list(partitions)

    def __iter__(self) -> Iterator[Variable]:
        return iter(self._variable_list)

    def __len__(self) -> int:
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot get a length of {len(axes)} > 1 partition axes")
        return len(self._variable_list)

    def __repr__(self) -> str:
        return (f"<tfx.PartitionedVariable {self._name!r} shape={self._shape} "
                f"dtype={self._dtype.name} parts={len(self._variable_list)}>")

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def graph(self) -> Any:
        return self._variable_list[0].graph

    def get_shape(self) -> TensorShape:
        return self._shape

    def get_variable_list(self) -> list[Variable]:
        """The piece variables, in offset order."""
        return list(self._variable_list)

    def get_partitions(self) -> list[int]:
        """The piece count per axis."""
        return list(self._partitions)

    # TensorFlow's (private) spellings, which user code calls.
    _get_variable_list = get_variable_list
    _get_partitions = get_partitions

    def _partition_axes(self) -> list[int]:
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def as_tensor(self) -> Tensor:
        """The full value: the pieces concatenated (outside any control dependencies)."""
        graph = self.graph
        with graph.control_dependencies(None):
            if len(self._variable_list) == 1:
                with graph.name_scope(None):
                    return identity(self._variable_list[0], name=self._name)
            axes = self._partition_axes()
            if len(axes) > 1:
                raise NotImplementedError(f"Cannot concatenate along more than one dimension: "
                                          f"{axes}.  Multi-axis partition concat is not "
                                          "supported")
            with graph.name_scope(f"{self._name}/ConcatPartitions/"):
                full = array_api.concat(self._variable_list, axes[0])
            with graph.name_scope(None):
                return identity(full, name=self._name)

    def _split(self, value: Any) -> list[Any]:
        """`value` cut into one piece per variable (a list or PartitionedVariable as is)."""
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(f"Cannot do assign action along more than one "
                                      f"dimension: {axes}.  Multi-axis partition assign "
                                      "action is not supported ")
        if isinstance(value, PartitionedVariable):
            value = list(value)
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise ValueError(f"PartitionedVariable {self._name!r} has "
                                 f"{len(self._variable_list)} parts, but {len(value)} values "
                                 "were given")
            return value
        sizes = [v.shape.as_list()[axes[0]] for v in self._variable_list]
        return array_api.split(value, sizes, axis=axes[0])

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None,
               read_value: bool = True) -> list[Any]:
        """Assign each piece its part of `value` (a tensor of the full shape, a list of
        pieces or another PartitionedVariable); the list of the pieces' assignments."""
        return [v.assign(part, use_locking=use_locking, name=name, read_value=read_value)
                for v, part in zip(self._variable_list, self._split(value))]

    def assign_add(self, value: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> list[Any]:
        """`assign`, adding to each piece."""
        return [v.assign_add(part, use_locking=use_locking, name=name, read_value=read_value)
                for v, part in zip(self._variable_list, self._split(value))]

    def assign_sub(self, value: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> list[Any]:
        """`assign`, subtracting from each piece."""
        return [v.assign_sub(part, use_locking=use_locking, name=name, read_value=read_value)
                for v, part in zip(self._variable_list, self._split(value))]


def _partitioned_to_tensor(value: PartitionedVariable, dtype: Any = None,
                           name: str | None = None, as_ref: bool = False) -> Tensor:
    if dtype is not None and dtypes.as_dtype(dtype).base is not value.dtype.base:
        raise ValueError(f"Incompatible type conversion requested to type {dtype!r} for "
                         f"variable of type {value.dtype.name}")
    if as_ref:
        raise NotImplementedError(
            "PartitionedVariable doesn't support being used as a reference.")
    return value.as_tensor()


register_tensor_conversion_function(PartitionedVariable, _partitioned_to_tensor)


# --- create_partitioned_variables ------------------------------------------------------


def create_partitioned_variables(shape: Sequence[int], slicing: Sequence[int],
                                 initializer: Any, dtype: Any = dtypes.float32,
                                 trainable: bool = True, collections: Any = None,
                                 name: str | None = None, reuse: Any = None) -> list[Variable]:
    """Deprecated: the pieces of a variable cut as `slicing` says (use `get_variable`
    with a partitioner instead).

    The variable is named by the variable scope `name` (default "PartitionedVariable",
    made unique), its pieces `NAME/part_0`, ...

    Args:
        shape: the full shape (rank at least 1).
        slicing: the piece count per axis (at most one above 1).
        initializer: an initializer, or a tensor or value of the full shape (sliced).
        dtype, trainable, collections: as for `get_variable`.
        name: the variable scope to name the variable by.
        reuse: reuse the variable of that name.

    Returns:
        The list of piece variables.

    Example:
        >>> parts = create_partitioned_variables([7, 2], [3, 1], zeros_initializer())
        >>> [v.name for v in parts]
        ['PartitionedVariable/part_0:0', 'PartitionedVariable/part_1:0', ...]
    """
    if len(shape) != len(slicing):
        raise ValueError("The 'shape' and 'slicing' of a partitioned Variable must have the "
                         f"length: shape: {list(shape)}, slicing: {list(slicing)}")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: "
                         f"{list(shape)}")
    # variable_scope_api imports this module (for PartitionedVariable); importing it here
    # keeps the two free of an import cycle.
    from tfx.core.api.variable_scope_api import get_partitioned_variable, variable_scope

    slicing = list(slicing)
    with variable_scope(name, "PartitionedVariable", reuse=reuse):
        partitioned = get_partitioned_variable(
            None, shape=shape, dtype=dtype, initializer=initializer, trainable=trainable,
            partitioner=lambda **_: slicing, collections=collections)
    return list(partitioned)
