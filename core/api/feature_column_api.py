"""`tf.feature_column` (TensorFlow 1.x): feature columns and the layers built on them.

The dense columns (numeric, bucketized, embedding, shared embedding, indicator)
give each example a float vector; `input_layer` concatenates them and
`linear_model` adds up their weighted sums. The categorical columns live in
`feature_column_categorical_api`. Both layers build columns in order of their
names, each in a variable scope of its own, so variable names are TensorFlow's
and checkpoints interchange: "input_layer/<column>/embedding_weights",
"linear_model/<column>/weights", "linear_model/bias_weights".
`make_parse_example_spec` gives the `parse_example` spec that feeds the columns.

    price = numeric_column("price")
    city = embedding_column(categorical_column_with_hash_bucket("city", 100), 8)
    net = input_layer(features, [price, city])          # [batch, 9]
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from tfx.core import dtypes
from tfx.core.api import array_api as A
from tfx.core.api import math_api as M
from tfx.core.api import nn_api as NN
from tfx.core.api import sparse_api as SP
from tfx.core.api.feature_column_categorical_api import (
    CategoricalColumn,
    CategoricalSparseTensors,
    DenseColumn,
    FeatureBuilder,
    FeatureColumn,
    SequenceCategoricalColumn,
    WeightedCategoricalColumn,
    assert_key_is_string,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
    check_shape,
    crossed_column,
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
    weighted_categorical_column,
)
from tfx.core.api.graph_builder import (
    GraphKeys,
    Tensor,
    add_to_collection,
    get_collection,
)
from tfx.core.api.init_ops_api import (
    constant_initializer,
    truncated_normal_initializer,
    zeros_initializer,
)
from tfx.core.api.nn_sampling_api import embedding_lookup_sparse, safe_embedding_lookup_sparse
from tfx.core.api.ops_api import apply_op
from tfx.core.api.parsing_api import FixedLenFeature
from tfx.core.api.sparse_api import SparseTensor
from tfx.core.api.variable_scope_api import get_variable, get_variable_scope, variable_scope

__all__ = [
    "NumericColumn", "BucketizedColumn", "EmbeddingColumn", "SharedEmbeddingColumn",
    "IndicatorColumn", "numeric_column", "bucketized_column", "embedding_column",
    "shared_embedding_columns", "indicator_column", "input_layer", "linear_model",
    "make_parse_example_spec", "FEATURE_COLUMN_NAMESPACE",
]


# --- numeric and bucketized ------------------------------------------------------------


def _filled(shape: tuple[int, ...], value: Any) -> Any:
    return value if not shape else tuple(_filled(shape[1:], value) for _ in range(shape[0]))


def _as_tuple(value: Any) -> Any:
    return tuple(_as_tuple(v) for v in value) if isinstance(value, (list, tuple)) else value


def _check_default_value(shape: tuple[int, ...], default_value: Any, dtype: dtypes.DType,
                         key: str) -> Any:
    if default_value is None:
        return None
    if isinstance(default_value, (int, np.integer)) and not isinstance(default_value, bool):
        return _filled(shape, int(default_value))
    if isinstance(default_value, float) and dtype.is_floating:
        return _filled(shape, default_value)
    if callable(getattr(default_value, "tolist", None)):
        default_value = default_value.tolist()
    if isinstance(default_value, (list, tuple)):
        array = np.asarray(default_value, dtype=object)
        if array.shape != shape:
            raise ValueError(f"The shape of default_value must be equal to given shape. "
                             f"default_value: {default_value}, shape: {shape}, key: {key}")
        flat = array.reshape(-1).tolist()
        if all(isinstance(v, int) for v in flat) or (
                dtype.is_floating and all(isinstance(v, (int, float)) for v in flat)):
            return _as_tuple(default_value)
    raise TypeError(f"default_value must be compatible with dtype. default_value: "
                    f"{default_value}, dtype: {dtype!r}, key: {key}")


@dataclasses.dataclass(frozen=True)
class NumericColumn(DenseColumn):
    """A real-valued feature of a fixed shape per example."""

    key: str
    shape: tuple[int, ...] = (1,)
    default_value: Any = None
    dtype: dtypes.DType = dtypes.float32
    normalizer_fn: Any = None

    @property
    def name(self) -> str:
        return self.key

    @property
    def parse_example_spec(self) -> dict:
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    @property
    def variable_shape(self) -> tuple[int, ...]:
        return self.shape

    def transform_feature(self, inputs: FeatureBuilder) -> Tensor:
        tensor = inputs.get(self.key)
        if isinstance(tensor, SparseTensor):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            tensor = self.normalizer_fn(tensor)
        return M.cast(tensor, dtypes.float32)


def numeric_column(key: str, shape: Any = (1,), default_value: Any = None,
                   dtype: Any = dtypes.float32, normalizer_fn: Any = None) -> NumericColumn:
    """A column of real values of `shape` per example (cast to float32).

    Args:
        key: the feature's key.
        shape: the shape of one example's values.
        default_value: the value parse_example uses when the feature is missing (a
            number fills the shape).
        dtype: the feature's type (integer or floating).
        normalizer_fn: applied to the feature before the cast, e.g. `lambda x: x / 10`.

    Returns:
        A `NumericColumn`.

    Example:
        >>> price = numeric_column("price", shape=(2,), normalizer_fn=lambda x: x - 3.)
    """
    shape = check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype!r}, key: {key}")
    default_value = _check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    assert_key_is_string(key)
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


@dataclasses.dataclass(frozen=True)
class BucketizedColumn(DenseColumn, CategoricalColumn):
    """A numeric column's values as bucket ids: one-hot when dense, ids when categorical."""

    source_column: NumericColumn
    boundaries: tuple[float, ...]

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def parse_example_spec(self) -> dict:
        return self.source_column.parse_example_spec

    @property
    def variable_shape(self) -> tuple[int, ...]:
        return tuple(self.source_column.shape) + (len(self.boundaries) + 1,)

    @property
    def num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def transform_feature(self, inputs: FeatureBuilder) -> Tensor:
        source = inputs.get(self.source_column)
        return apply_op("Bucketize", input=source, boundaries=list(self.boundaries))

    def get_dense_tensor(self, inputs: FeatureBuilder, weight_collections: Any = None,
                         trainable: Any = None) -> Tensor:
        return A.one_hot(inputs.get(self), depth=len(self.boundaries) + 1, on_value=1.0,
                         off_value=0.0)

    def get_sparse_tensors(self, inputs: FeatureBuilder, weight_collections: Any = None,
                           trainable: Any = None) -> CategoricalSparseTensors:
        # Source dimension d's bucket b becomes id d * (len(boundaries) + 1) + b.
        ids = inputs.get(self)
        batch = A.shape(ids)[0]
        dims = self.source_column.shape[0]
        rows = A.reshape(A.tile(A.expand_dims(A.range(0, batch), 1), [1, dims]), (-1,))
        cols = A.tile(A.range(0, dims), A.expand_dims(batch, 0))
        values = M.add(A.reshape(ids, (-1,)), M.multiply(len(self.boundaries) + 1, cols))
        indices = M.cast(A.transpose(A.stack((rows, cols))), dtypes.int64)
        shape = M.cast(A.stack([batch, dims]), dtypes.int64)
        return CategoricalSparseTensors(SparseTensor(indices, values, shape), None)


def bucketized_column(source_column: NumericColumn, boundaries: Any) -> BucketizedColumn:
    """`source_column`'s values bucketed by sorted `boundaries`.

    Value v falls in bucket i when boundaries[i-1] <= v < boundaries[i]: with
    boundaries [0, 10] the buckets are (-inf, 0), [0, 10) and [10, inf).

    Args:
        source_column: a one-dimensional `numeric_column`.
        boundaries: strictly increasing floats.

    Returns:
        A `BucketizedColumn`: one-hot per source value as a dense column, bucket ids
        as a categorical one.

    Example:
        >>> age_buckets = bucketized_column(numeric_column("age"), [18., 25., 40.])
    """
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: "
                         f"{source_column}")
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for low, high in zip(boundaries[:-1], boundaries[1:], strict=True):
        if low >= high:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(float(b) for b in boundaries))


# --- embedding and indicator -----------------------------------------------------------


def _checkpoint_initializer(ckpt_to_load_from: str | None, tensor_name: str | None,
                            initializer: Any) -> Any:
    """The initializer, or one giving the checkpoint's tensor (read when building)."""
    if ckpt_to_load_from is None:
        return initializer
    from tfx.core.api.checkpoint_utils_api import load_variable

    return constant_initializer(load_variable(ckpt_to_load_from, tensor_name))


def _embed(sparse: CategoricalSparseTensors, weights: Tensor, combiner: str,
           name: str, max_norm: Any, safe: bool) -> Tensor:
    if safe:
        return safe_embedding_lookup_sparse(weights, sparse.id_tensor, sparse.weight_tensor,
                                            combiner=combiner, name=name, max_norm=max_norm)
    return embedding_lookup_sparse(weights, sparse.id_tensor, sparse.weight_tensor,
                                   combiner=combiner, name=name, max_norm=max_norm)


def _refuse_sequence(kind: str, column: DenseColumn, layer: str, sequence_layer: str) -> None:
    categorical = column.categorical_column
    if isinstance(categorical, SequenceCategoricalColumn):
        raise ValueError(f"In {kind}: {column.name}. categorical_column must not be of type "
                         f"_SequenceCategoricalColumn. Suggested fix A: If you wish to use "
                         f"{layer}, use a non-sequence categorical_column_with_*. Suggested fix "
                         f"B: If you wish to create sequence input, use {sequence_layer} "
                         f"instead of {layer}. Given (type {type(categorical)}): {categorical}")


def _default_initializer(dimension: int) -> Any:
    return truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))


@dataclasses.dataclass(frozen=True)
class EmbeddingColumn(DenseColumn):
    """A categorical column's ids combined into a learned `dimension`-vector."""

    categorical_column: CategoricalColumn
    dimension: int
    combiner: str
    initializer: Any
    ckpt_to_load_from: str | None
    tensor_name_in_ckpt: str | None
    max_norm: Any
    trainable: bool
    use_safe_embedding_lookup: bool = True

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"

    @property
    def parse_example_spec(self) -> dict:
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self) -> tuple[int, ...]:
        return (self.dimension,)

    def transform_feature(self, inputs: FeatureBuilder) -> Any:
        return inputs.get(self.categorical_column)

    def get_dense_tensor(self, inputs: FeatureBuilder, weight_collections: Any = None,
                         trainable: Any = None) -> Tensor:
        _refuse_sequence("embedding_column", self, "DenseFeatures", "SequenceFeatures")
        sparse = self.categorical_column.get_sparse_tensors(inputs, weight_collections,
                                                            trainable)
        weights = get_variable(
            "embedding_weights", shape=(self.categorical_column.num_buckets, self.dimension),
            dtype=dtypes.float32,
            initializer=_checkpoint_initializer(self.ckpt_to_load_from,
                                                self.tensor_name_in_ckpt, self.initializer),
            trainable=bool(self.trainable and (trainable is None or trainable)),
            collections=weight_collections)
        return _embed(sparse, weights, self.combiner, f"{self.name}_weights", self.max_norm,
                      self.use_safe_embedding_lookup)


def _check_embedding_args(dimension: Any, combiner: str, initializer: Any,
                          ckpt_to_load_from: Any, tensor_name_in_ckpt: Any,
                          column_name: str) -> None:
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of "
                         f"column_name: {column_name}")
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")


def embedding_column(categorical_column: CategoricalColumn, dimension: int,
                     combiner: str = "mean", initializer: Any = None,
                     ckpt_to_load_from: str | None = None,
                     tensor_name_in_ckpt: str | None = None, max_norm: Any = None,
                     trainable: bool = True, use_safe_embedding_lookup: bool = True
                     ) -> EmbeddingColumn:
    """A dense column embedding `categorical_column`'s ids in `dimension` floats.

    The variable "embedding_weights" ([num_buckets, dimension]) is made in the layer's
    scope for the column; each example's ids are combined by `combiner`.

    Args:
        categorical_column: the ids (and weights) to embed.
        dimension: the embedding size.
        combiner: "mean", "sqrtn" or "sum" over an example's ids.
        initializer: the variable's initializer (default truncated normal with
            standard deviation 1/sqrt(dimension)).
        ckpt_to_load_from, tensor_name_in_ckpt: initialize from this checkpoint tensor.
        max_norm: rows with a larger L2 norm are scaled down to it.
        trainable: whether the variable is trainable.
        use_safe_embedding_lookup: drop invalid ids and give empty examples zeros.

    Returns:
        An `EmbeddingColumn` named "<categorical>_embedding".

    Example:
        >>> embedding_column(categorical_column_with_identity("video", 1000), 16)
    """
    _check_embedding_args(dimension, combiner, initializer, ckpt_to_load_from,
                          tensor_name_in_ckpt, getattr(categorical_column, "name", ""))
    if initializer is None:
        initializer = _default_initializer(dimension)
    return EmbeddingColumn(categorical_column, dimension, combiner, initializer,
                           ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable,
                           use_safe_embedding_lookup)


@dataclasses.dataclass(frozen=True)
class SharedEmbeddingColumn(DenseColumn):
    """An embedding column whose variable is shared with its siblings by a collection."""

    categorical_column: CategoricalColumn
    dimension: int
    combiner: str
    initializer: Any
    shared_embedding_collection_name: str
    ckpt_to_load_from: str | None
    tensor_name_in_ckpt: str | None
    max_norm: Any
    trainable: bool
    use_safe_embedding_lookup: bool = True

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def parse_example_spec(self) -> dict:
        return self.categorical_column.parse_example_spec

    @property
    def var_scope_name(self) -> str:
        return self.shared_embedding_collection_name

    @property
    def variable_shape(self) -> tuple[int, ...]:
        return (self.dimension,)

    def transform_feature(self, inputs: FeatureBuilder) -> Any:
        return inputs.get(self.categorical_column)

    def get_dense_tensor(self, inputs: FeatureBuilder, weight_collections: Any = None,
                         trainable: Any = None) -> Tensor:
        _refuse_sequence("embedding_column", self, "input_layer", "sequence_input_layer")
        sparse = self.categorical_column.get_sparse_tensors(inputs, weight_collections,
                                                            trainable)
        shape = (self.categorical_column.num_buckets, self.dimension)
        shared = get_collection(self.shared_embedding_collection_name)
        if len(shared) > 1:
            raise ValueError(f"Collection {self.shared_embedding_collection_name} can only "
                             f"contain one variable. Suggested fix A: Choose a unique name for "
                             f"this collection. Suggested fix B: Do not add any variables to "
                             f"this collection. The feature_column library already adds a "
                             f"variable under the hood.")
        if shared:
            weights = shared[0]
            if tuple(weights.shape.as_list()) != shape:
                raise ValueError(f"Shared embedding collection "
                                 f"{self.shared_embedding_collection_name} contains variable "
                                 f"{weights.name} of unexpected shape {weights.shape}. Expected "
                                 f"shape is {list(shape)}. Suggested fix A: Choose a unique name "
                                 f"for this collection. Suggested fix B: Do not add any "
                                 f"variables to this collection. The feature_column library "
                                 f"already adds a variable under the hood.")
        else:
            weights = get_variable(
                "embedding_weights", shape=shape, dtype=dtypes.float32,
                initializer=_checkpoint_initializer(self.ckpt_to_load_from,
                                                    self.tensor_name_in_ckpt, self.initializer),
                trainable=bool(self.trainable and (trainable is None or trainable)),
                collections=weight_collections)
            add_to_collection(self.shared_embedding_collection_name, weights)
        return _embed(sparse, weights, self.combiner, f"{self.name}_weights", self.max_norm,
                      self.use_safe_embedding_lookup)


def shared_embedding_columns(categorical_columns: Any, dimension: int, combiner: str = "mean",
                             initializer: Any = None,
                             shared_embedding_collection_name: str | None = None,
                             ckpt_to_load_from: str | None = None,
                             tensor_name_in_ckpt: str | None = None, max_norm: Any = None,
                             trainable: bool = True, use_safe_embedding_lookup: bool = True
                             ) -> list[SharedEmbeddingColumn]:
    """Embedding columns, one per categorical column, that share one variable.

    The columns must be of one type (a weighted column counts as its ids' type) with
    equal bucket counts. The variable is made by the first of them a layer builds,
    in the scope "<collection name>", and kept in the graph collection of that name.

    Args:
        categorical_columns: the categorical columns.
        dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
        max_norm, trainable, use_safe_embedding_lookup: as `embedding_column`'s.
        shared_embedding_collection_name: default the columns' names sorted, joined by
            "_", plus "_shared_embedding".

    Returns:
        A list of `SharedEmbeddingColumn`, in the order given.

    Example:
        >>> watched, impression = shared_embedding_columns([watched_ids, impression_ids], 8)
    """
    columns = list(categorical_columns)
    _check_embedding_args(dimension, combiner, initializer, ckpt_to_load_from,
                          tensor_name_in_ckpt, columns[0].name if columns else "")
    if initializer is None:
        initializer = _default_initializer(dimension)
    ordered = sorted(columns, key=lambda c: c.name)
    first = ordered[0]
    if not isinstance(first, CategoricalColumn):
        raise ValueError(f"All categorical_columns must be subclasses of _CategoricalColumn. "
                         f"Given: {first}, of type: {type(first)}")
    if isinstance(first, WeightedCategoricalColumn):
        first = first.categorical_column
    for column in ordered[1:]:
        base = column.categorical_column if isinstance(column, WeightedCategoricalColumn) \
            else column
        if not isinstance(base, type(first)):
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                             f"have the same type, or be weighted_categorical_column of the "
                             f"same type. Given column: {first} of type: {type(first)} does "
                             f"not match given column: {column} of type: {type(column)}")
        if first.num_buckets != column.num_buckets:
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                             f"have the same number of buckets. Given column: {first} with "
                             f"buckets: {first.num_buckets} does not match column: {column} "
                             f"with buckets: {column.num_buckets}")
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(c.name for c in ordered)
        shared_embedding_collection_name += "_shared_embedding"
    return [SharedEmbeddingColumn(c, dimension, combiner, initializer,
                                  shared_embedding_collection_name, ckpt_to_load_from,
                                  tensor_name_in_ckpt, max_norm, trainable,
                                  use_safe_embedding_lookup) for c in columns]


@dataclasses.dataclass(frozen=True)
class IndicatorColumn(DenseColumn):
    """A categorical column as a multi-hot vector (weights summed when weighted)."""

    categorical_column: CategoricalColumn

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"

    @property
    def parse_example_spec(self) -> dict:
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self) -> tuple[int, ...]:
        return (1, self.categorical_column.num_buckets)

    def get_dense_tensor(self, inputs: FeatureBuilder, weight_collections: Any = None,
                         trainable: Any = None) -> Tensor:
        _refuse_sequence("indicator_column", self, "DenseFeatures", "SequenceFeatures")
        return inputs.get(self)

    def transform_feature(self, inputs: FeatureBuilder) -> Tensor:
        sparse = self.categorical_column.get_sparse_tensors(inputs)
        depth = self.categorical_column.num_buckets
        if sparse.weight_tensor is not None:
            merged = SP.sparse_merge(sp_ids=sparse.id_tensor, sp_values=sparse.weight_tensor,
                                     vocab_size=depth)
            # Drop the entries sparse_merge gives ids of -1.
            merged = SP.sparse_slice(merged, [0, 0], merged.dense_shape)
            return A.scatter_nd(merged.indices, merged.values, merged.dense_shape)
        dense_ids = SP.sparse_tensor_to_dense(sparse.id_tensor, default_value=-1)
        one_hot = A.one_hot(dense_ids, depth=depth, on_value=1.0, off_value=0.0)
        return M.reduce_sum(one_hot, axis=[-2])


def indicator_column(categorical_column: CategoricalColumn) -> IndicatorColumn:
    """A dense column counting each id of `categorical_column` (multi-hot).

    Args:
        categorical_column: the ids; with weights, each id's weights are summed.

    Returns:
        An `IndicatorColumn` of `num_buckets` floats per example.

    Example:
        >>> indicator_column(categorical_column_with_vocabulary_list("c", ["R", "G"]))
    """
    return IndicatorColumn(categorical_column)


# --- layers ----------------------------------------------------------------------------


def _normalize_feature_columns(feature_columns: Any) -> list[FeatureColumn]:
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    feature_columns = list(feature_columns)
    if not feature_columns:
        raise ValueError(f"Expected feature_columns to be non-empty. Given: {feature_columns}")
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given (type "
                             f"{type(column)}): {column}.")
    names: dict[str, FeatureColumn] = {}
    for column in feature_columns:
        if column.name in names:
            raise ValueError(f"Duplicate feature column name found for columns: {column} and "
                             f"{names[column.name]}. This usually means that these columns "
                             f"refer to same base feature. Either one must be discarded or a "
                             f"duplicated but renamed item must be inserted in features dict.")
        names[column.name] = column
    return feature_columns


def _with_model_collections(weight_collections: Any) -> list[str]:
    collections = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in collections:
            collections.append(key)
    return collections


def _check_batch_sizes(tensors: list[Tensor], columns: list[FeatureColumn]) -> None:
    """Columns whose batch sizes are known statically must agree."""
    known: tuple[int, FeatureColumn] | None = None
    for tensor, column in zip(tensors, columns, strict=True):
        dim = tensor.shape.as_list()[0] if tensor.shape.ndims else None
        if dim is None:
            continue
        if known is None:
            known = (dim, column)
        elif known[0] != dim:
            raise ValueError(f"Batch size (first dimension) of each feature must be same. "
                             f"Batch size of columns ({known[1].name}, {column.name}): "
                             f"({known[0]}, {dim})")


def _num_elements(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _flatten_examples(tensor: Tensor, size: int) -> Tensor:
    """[batch, size], keeping a statically known batch size."""
    batch = tensor.shape.as_list()[0] if tensor.shape.ndims else None
    output = A.reshape(tensor, A.stack([A.shape(tensor)[0], size]))
    output.set_shape((batch, size))
    return output


def _scope_variables() -> list:
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope=get_variable_scope().name)


def input_layer(features: dict, feature_columns: Any, weight_collections: Any = None,
                trainable: bool = True, cols_to_vars: dict | None = None,
                cols_to_output_tensors: dict | None = None) -> Tensor:
    """The dense columns' values for each example, concatenated: [batch, total].

    Columns are built in order of their names, each in the variable scope
    "input_layer/<column>" (a shared embedding in "<collection name>").

    Args:
        features: feature key -> Tensor or SparseTensor (rank 1 gets a trailing 1).
        feature_columns: dense columns (numeric, bucketized, embedding, indicator).
        weight_collections: collections for the variables, besides the global and
            model variables.
        trainable: whether the variables are trainable.
        cols_to_vars: if a dict, filled with column -> its variables.
        cols_to_output_tensors: if a dict, filled with column -> its [batch, n] output.

    Returns:
        A float32 [batch, sum of the columns' sizes] tensor.

    Example:
        >>> input_layer({"price": price_t}, [numeric_column("price")])
    """
    columns = _normalize_feature_columns(feature_columns)
    for column in columns:
        if not isinstance(column, DenseColumn):
            raise ValueError(f"Items of feature_columns must be a _DenseColumn. You can wrap a "
                             f"categorical column with an embedding_column or "
                             f"indicator_column. Given: {column}")
    collections = _with_model_collections(weight_collections)
    values = [v for v in features.values()
              if isinstance(v, (Tensor, SparseTensor))]
    with variable_scope(None, default_name="input_layer", values=values):
        builder = FeatureBuilder(features)
        outputs: list[Tensor] = []
        ordered = sorted(columns, key=lambda c: c.name)
        for column in ordered:
            with variable_scope(None, default_name=column.var_scope_name):
                tensor = column.get_dense_tensor(builder, weight_collections=collections,
                                                 trainable=trainable)
                output = _flatten_examples(tensor, _num_elements(column.variable_shape))
                outputs.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = _scope_variables()
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        _check_batch_sizes(outputs, ordered)
        return A.concat(outputs, 1)


def _linear_weighted_sum(column: FeatureColumn, builder: FeatureBuilder, units: int,
                         sparse_combiner: str, collections: list[str],
                         trainable: bool) -> Tensor:
    if isinstance(column, CategoricalColumn):
        sparse = column.get_sparse_tensors(builder, weight_collections=collections,
                                           trainable=trainable)
        ids = sparse.id_tensor
        ids = SP.sparse_reshape(ids, A.stack([ids.dense_shape[0], np.int64(-1)]))
        weights = sparse.weight_tensor
        if weights is not None:
            weights = SP.sparse_reshape(weights, A.stack([weights.dense_shape[0],
                                                          np.int64(-1)]))
        var = get_variable("weights", shape=(column.num_buckets, units), dtype=dtypes.float32,
                           initializer=zeros_initializer(), trainable=trainable,
                           collections=collections)
        return safe_embedding_lookup_sparse(var, ids, sparse_weights=weights,
                                            combiner=sparse_combiner, name="weighted_sum")
    tensor = column.get_dense_tensor(builder, weight_collections=collections,
                                     trainable=trainable)
    n = _num_elements(column.variable_shape)
    tensor = _flatten_examples(tensor, n)
    var = get_variable("weights", shape=(n, units), dtype=dtypes.float32,
                       initializer=zeros_initializer(), trainable=trainable,
                       collections=collections)
    return M.matmul(tensor, var, name="weighted_sum")


def _claim_scope_name(name: str) -> str:
    """`name` made unique among the variable scopes of the current one (and taken)."""
    outer = get_variable_scope().name
    with variable_scope(None, default_name=name) as scope:
        return scope.name[len(outer) + 1:] if outer else scope.name


def linear_model(features: dict, feature_columns: Any, units: int = 1,
                 sparse_combiner: str = "sum", weight_collections: Any = None,
                 trainable: bool = True, cols_to_vars: dict | None = None) -> Tensor:
    """A linear prediction from the columns: the sum of their weighted sums plus a bias.

    Each column gets "linear_model/<column>/weights" (zeros: [num_buckets, units] for
    a categorical column, whose ids' rows are combined by `sparse_combiner`, and
    [size, units] for a dense one) and the model "linear_model/bias_weights" [units].

    Args:
        features: feature key -> Tensor or SparseTensor.
        feature_columns: categorical and dense columns.
        units: the number of outputs.
        sparse_combiner: "sum", "mean" or "sqrtn" over a categorical example's ids.
        weight_collections: collections for the variables, besides the global and
            model variables.
        trainable: whether the variables are trainable.
        cols_to_vars: if a dict, filled with column -> its variables and "bias" -> [bias].

    Returns:
        A float32 [batch, units] tensor.

    Example:
        >>> logits = linear_model(features, [numeric_column("x"), city_ids], units=2)
    """
    columns = _normalize_feature_columns(feature_columns)
    for column in columns:
        if not isinstance(column, (DenseColumn, CategoricalColumn)):
            raise ValueError(f"Items of feature_columns must be either a _DenseColumn or "
                             f"_CategoricalColumn. Given: {column}")
    collections = _with_model_collections(weight_collections)
    with variable_scope(None, default_name="linear_model") as model_scope:
        pass
    ordered = sorted(columns, key=lambda c: c.name)
    # TensorFlow builds each column as a layer whose scope name is made unique where
    # linear_model is called, then used inside the model's scope: a second model in
    # the same scope gets "linear_model_1/<column>_1/weights".
    scope_names = [_claim_scope_name(column.var_scope_name) for column in ordered]
    with variable_scope(model_scope):
        builder = FeatureBuilder(features)
        sums: list[Tensor] = []
        for column, scope_name in zip(ordered, scope_names, strict=True):
            with variable_scope(scope_name):
                sums.append(_linear_weighted_sum(column, builder, units, sparse_combiner,
                                                 collections, trainable))
                if cols_to_vars is not None:
                    cols_to_vars[column] = _scope_variables()
        _check_batch_sizes(sums, ordered)
        no_bias = M.add_n(sums, name="weighted_sum_no_bias")
        bias = get_variable("bias_weights", shape=(units,), dtype=dtypes.float32,
                            initializer=zeros_initializer(), trainable=trainable,
                            collections=collections)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return NN.bias_add(no_bias, bias, name="weighted_sum")


def make_parse_example_spec(feature_columns: Any) -> dict:
    """The `parse_example` features spec all `feature_columns` need, merged.

    Args:
        feature_columns: feature columns.

    Returns:
        feature key -> FixedLenFeature or VarLenFeature.

    Example:
        >>> make_parse_example_spec([numeric_column("x"), indicator_column(ids)])
    """
    result: dict = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: "
                             f"{column}")
        for key, value in column.parse_example_spec.items():
            if key in result and value != result[key]:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. "
                                 f"Given {value} and {result[key]}")
        result.update(column.parse_example_spec)
    return result


# The `tf.feature_column` namespace: TensorFlow 2.21's tf.compat.v1.feature_column.
FEATURE_COLUMN_NAMESPACE = {
    "bucketized_column": bucketized_column,
    "categorical_column_with_hash_bucket": categorical_column_with_hash_bucket,
    "categorical_column_with_identity": categorical_column_with_identity,
    "categorical_column_with_vocabulary_file": categorical_column_with_vocabulary_file,
    "categorical_column_with_vocabulary_list": categorical_column_with_vocabulary_list,
    "crossed_column": crossed_column,
    "embedding_column": embedding_column,
    "indicator_column": indicator_column,
    "input_layer": input_layer,
    "linear_model": linear_model,
    "make_parse_example_spec": make_parse_example_spec,
    "numeric_column": numeric_column,
    "sequence_categorical_column_with_hash_bucket": sequence_categorical_column_with_hash_bucket,
    "sequence_categorical_column_with_identity": sequence_categorical_column_with_identity,
    "sequence_categorical_column_with_vocabulary_file":
        sequence_categorical_column_with_vocabulary_file,
    "sequence_categorical_column_with_vocabulary_list":
        sequence_categorical_column_with_vocabulary_list,
    "sequence_numeric_column": sequence_numeric_column,
    "shared_embedding_columns": shared_embedding_columns,
    "weighted_categorical_column": weighted_categorical_column,
}
