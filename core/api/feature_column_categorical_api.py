"""Feature columns, part one: the column protocol, the categorical and sequence columns.

A feature column says how one raw feature of a `features` dict (name -> Tensor or
SparseTensor) becomes model input. Columns are immutable and compare by value,
so they can key dicts (`cols_to_vars`) as TensorFlow's namedtuple columns do.
`FeatureBuilder` (TensorFlow's `_LazyBuilder`) transforms each column once per
layer call and caches the result, so a column shared by two others is built once.

A categorical column turns its feature into a SparseTensor of int64 ids in
[0, num_buckets) (and optional weights): identity, vocabulary list or file,
hash bucket (FarmHash Fingerprint64, as TensorFlow's StringToHashBucketFast),
crossed (SparseCross with TensorFlow's FingerprintCat64 chain, so bucket ids are
TensorFlow's) and weighted. Dense inputs become sparse by dropping the ignore
value ("" for strings, -1 for integers). A sequence categorical column gives
ids of rank 3 ([batch, step, id]). `sequence_numeric_column`, as TensorFlow
2.21's tf.compat.v1 one, is no `_FeatureColumn`: it is for sequence layers, which
tf.feature_column does not have, and the layers refuse it. `feature_column_api`
builds the dense columns and the layers on these.

    ids = categorical_column_with_hash_bucket("city", 100)
    crossed = crossed_column(["city", "country"], 1000)
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, NamedTuple

import numpy as np

from tfx.core import dtypes
from tfx.core.api import array_api as A
from tfx.core.api import check_ops_api as C
from tfx.core.api import control_flow_api as CF
from tfx.core.api import math_api as M
from tfx.core.api import sparse_api as SP
from tfx.core.api import string_api as S
from tfx.core.api.graph_builder import Tensor, control_dependencies, name_scope
from tfx.core.api.lookup_api import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)
from tfx.core.api.ops_api import apply_op, convert_to_tensor, identity
from tfx.core.api.parsing_api import VarLenFeature
from tfx.core.api.sparse_api import SparseTensor

__all__ = [
    "FeatureColumn", "CategoricalColumn", "DenseColumn", "FeatureBuilder",
    "CategoricalSparseTensors", "IdentityCategoricalColumn",
    "VocabularyListCategoricalColumn", "VocabularyFileCategoricalColumn",
    "HashedCategoricalColumn", "CrossedColumn", "WeightedCategoricalColumn",
    "categorical_column_with_identity", "categorical_column_with_vocabulary_list",
    "categorical_column_with_vocabulary_file", "categorical_column_with_hash_bucket",
    "crossed_column", "weighted_categorical_column", "SequenceCategoricalColumn",
    "sequence_categorical_column_with_identity", "sequence_categorical_column_with_hash_bucket",
    "sequence_categorical_column_with_vocabulary_file",
    "sequence_categorical_column_with_vocabulary_list", "SequenceNumericColumn",
    "sequence_numeric_column",
]

# TensorFlow's sparse_ops._DEFAULT_HASH_KEY: the start of every cross's hash chain.
DEFAULT_HASH_KEY = 0xDECAFCAFFE


class CategoricalSparseTensors(NamedTuple):
    """A categorical column's ids and their weights (None for weight 1)."""

    id_tensor: SparseTensor
    weight_tensor: SparseTensor | None


class FeatureColumn:
    """The protocol every column follows (TensorFlow's `_FeatureColumn`)."""

    @property
    def name(self) -> str:
        raise NotImplementedError

    @property
    def parse_example_spec(self) -> dict:
        """feature key -> FixedLenFeature / VarLenFeature, for `parse_example`."""
        raise NotImplementedError

    @property
    def var_scope_name(self) -> str:
        """The variable scope a layer builds this column's variables in."""
        return self.name

    def transform_feature(self, inputs: FeatureBuilder) -> Any:
        raise NotImplementedError


class CategoricalColumn(FeatureColumn):
    """A column of int64 ids in [0, num_buckets)."""

    @property
    def num_buckets(self) -> int:
        raise NotImplementedError

    def get_sparse_tensors(self, inputs: FeatureBuilder, weight_collections: Any = None,
                           trainable: Any = None) -> CategoricalSparseTensors:
        return CategoricalSparseTensors(inputs.get(self), None)


class DenseColumn(FeatureColumn):
    """A column giving a dense float tensor of `variable_shape` per example."""

    @property
    def variable_shape(self) -> tuple[int, ...]:
        raise NotImplementedError

    def get_dense_tensor(self, inputs: FeatureBuilder, weight_collections: Any = None,
                         trainable: Any = None) -> Tensor:
        return inputs.get(self)


class FeatureBuilder:
    """Transforms columns on demand, caching each result (TensorFlow's `_LazyBuilder`).

    A string key gives the raw feature as a Tensor or SparseTensor; a rank-1 feature
    gets a trailing dimension of 1 so each example is a row.
    """

    def __init__(self, features: dict) -> None:
        self._features = dict(features)
        self._cache: dict[Any, Any] = {}

    def get(self, key: str | FeatureColumn) -> Any:
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str):
            value = self._raw_feature(key)
        elif isinstance(key, FeatureColumn):
            value = key.transform_feature(self)
            if value is None:
                raise ValueError(f"Column {key} is not supported.")
        else:
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". '
                            f"Provided: {key}")
        self._cache[key] = value
        return value

    def _raw_feature(self, key: str) -> Any:
        if key not in self._features:
            raise ValueError(f"Feature {key} is not in features dictionary.")
        feature = SP.convert_to_tensor_or_sparse_tensor(self._features[key])
        if isinstance(feature, SparseTensor):
            rank = feature.dense_shape.shape.as_list()[0] \
                if feature.dense_shape.shape.ndims else None
        else:
            rank = feature.shape.ndims
        if rank is None:
            if isinstance(feature, SparseTensor):
                raise ValueError(f"Feature (key: {key}) is a SparseTensor of unknown rank. "
                                 f"Given: {feature}")
            return self._dynamic_rank_feature(key, feature)
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {feature}")
        if rank != 1:
            return feature
        if isinstance(feature, SparseTensor):
            return SP.sparse_reshape(feature, A.stack([feature.dense_shape[0], np.int64(1)]))
        return A.expand_dims(feature, -1)


    @staticmethod
    def _dynamic_rank_feature(key: str, feature: Tensor) -> Tensor:
        """A dense feature of unknown rank: checked and expanded at run time."""
        rank = A.rank(feature)
        check = C.assert_positive(rank, message=f"Feature (key: {key}) cannot have rank 0. "
                                                f"Given: {feature}")
        with control_dependencies([check]):
            return CF.cond(M.equal(1, rank), lambda: A.expand_dims(feature, -1),
                           lambda: identity(feature))


# --- shared checks ---------------------------------------------------------------------


def assert_key_is_string(key: Any) -> None:
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}")


def assert_string_or_int(dtype: dtypes.DType, prefix: str) -> None:
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype!r}.")


def check_shape(shape: Any, key: str) -> tuple[int, ...]:
    shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    for dim in shape:
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dim < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, "
                             f"key: {key}")
    return tuple(int(d) for d in shape)


def to_sparse_input(value: Any, ignore_value: Any = None) -> SparseTensor:
    """A SparseTensor as is; a dense tensor without its `ignore_value` entries
    ("" for strings, -1 for integers, 0 for floats when None)."""
    value = SP.convert_to_tensor_or_sparse_tensor(value)
    if isinstance(value, SparseTensor):
        return value
    with name_scope(None, "to_sparse_input", [value]):
        if ignore_value is None:
            ignore_value = "" if value.dtype == dtypes.string else \
                -1 if value.dtype.is_integer else 0
        ignore = M.cast(ignore_value, value.dtype, name="ignore_value") \
            if value.dtype != dtypes.string else convert_to_tensor(ignore_value, dtypes.string,
                                                                   name="ignore_value")
        indices = A.where(M.not_equal(value, ignore), name="indices")
        return SparseTensor(indices, A.gather_nd(value, indices, name="values"),
                            A.shape(value, out_type=dtypes.int64, name="dense_shape"))


def _check_input_dtype(column: Any, tensor: SparseTensor) -> None:
    if column.dtype.is_integer != tensor.dtype.is_integer:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: "
                         f"{column.key}, column dtype: {column.dtype!r}, tensor dtype: "
                         f"{tensor.dtype!r}")
    assert_string_or_int(tensor.dtype, f"column_name: {column.key} input_tensor")


def _lookup_keys(column: Any, inputs: FeatureBuilder) -> tuple[SparseTensor, dtypes.DType]:
    """The column's feature as sparse keys (integers as int64) and the table key type."""
    tensor = to_sparse_input(inputs.get(column.key))
    _check_input_dtype(column, tensor)
    if tensor.dtype.is_integer:
        tensor = SparseTensor(tensor.indices, M.cast(tensor.values, dtypes.int64),
                              tensor.dense_shape)
        return tensor, dtypes.int64
    return tensor, column.dtype


def _lookup(table: Any, tensor: SparseTensor) -> SparseTensor:
    return SparseTensor(tensor.indices, table.lookup(tensor.values), tensor.dense_shape)


# --- identity --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class IdentityCategoricalColumn(CategoricalColumn):
    """Integer features used as their own ids."""

    key: str
    number_buckets: int
    default_value: int | None = None

    @property
    def name(self) -> str:
        return self.key

    @property
    def parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(dtypes.int64)}

    @property
    def num_buckets(self) -> int:
        return self.number_buckets

    def transform_feature(self, inputs: FeatureBuilder) -> SparseTensor:
        tensor = to_sparse_input(inputs.get(self.key))
        if not tensor.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: "
                             f"{tensor.dtype!r}")
        values = M.cast(tensor.values, dtypes.int64, name="values")
        buckets = M.cast(self.number_buckets, dtypes.int64, name="num_buckets")
        zero = M.cast(0, dtypes.int64, name="zero")
        if self.default_value is None:
            # Out-of-range ids are an error at run time.
            less = C.assert_less(values, buckets, data=(values, buckets),
                                 name="assert_less_than_num_buckets")
            greater = C.assert_greater_equal(values, zero, data=(values,),
                                             name="assert_greater_or_equal_0")
            with control_dependencies([less, greater]):
                values = identity(values)
        else:
            out_of_range = M.logical_or(M.less(values, zero), M.greater_equal(values, buckets),
                                        name="out_of_range")
            defaults = A.fill(A.shape(values), M.cast(self.default_value, dtypes.int64),
                              name="default_values")
            values = A.where(out_of_range, defaults, values)
        return SparseTensor(tensor.indices, values, tensor.dense_shape)


def categorical_column_with_identity(key: str, num_buckets: int,
                                     default_value: int | None = None
                                     ) -> IdentityCategoricalColumn:
    """A column whose integer features are ids in [0, num_buckets).

    Args:
        key: the feature's key.
        num_buckets: the number of ids.
        default_value: the id of out-of-range features; None makes them a run-time error.

    Returns:
        An `IdentityCategoricalColumn`.

    Example:
        >>> video_id = categorical_column_with_identity("video_id", 1000, default_value=0)
    """
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    assert_key_is_string(key)
    return IdentityCategoricalColumn(key, num_buckets, default_value)


# --- vocabulary list and file ----------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class VocabularyListCategoricalColumn(CategoricalColumn):
    """Features mapped to their position in an in-memory vocabulary."""

    key: str
    vocabulary_list: tuple
    dtype: dtypes.DType
    default_value: int = -1
    num_oov_buckets: int = 0

    @property
    def name(self) -> str:
        return self.key

    @property
    def parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets

    def transform_feature(self, inputs: FeatureBuilder) -> SparseTensor:
        tensor, key_dtype = _lookup_keys(self, inputs)
        with name_scope(None, f"{self.key}_lookup"):
            keys = convert_to_tensor(np.asarray(self.vocabulary_list), key_dtype, name="keys")
            ids = convert_to_tensor(np.arange(len(self.vocabulary_list), dtype=np.int64),
                                    dtypes.int64, name="values")
            init = KeyValueTensorInitializer(keys, ids)
            if self.num_oov_buckets:
                table = StaticVocabularyTable(init, self.num_oov_buckets)
            else:
                table = StaticHashTable(init, self.default_value)
        return _lookup(table, tensor)


def categorical_column_with_vocabulary_list(key: str, vocabulary_list: Any, dtype: Any = None,
                                            default_value: int = -1, num_oov_buckets: int = 0
                                            ) -> VocabularyListCategoricalColumn:
    """A column mapping each feature to its index in `vocabulary_list`.

    Args:
        key: the feature's key.
        vocabulary_list: the distinct strings or integers.
        dtype: the feature's type (default: the vocabulary's).
        default_value: the id of unknown features when there are no OOV buckets.
        num_oov_buckets: unknown features hash into ids [len(vocabulary_list),
            len(vocabulary_list) + num_oov_buckets).

    Returns:
        A `VocabularyListCategoricalColumn`.

    Example:
        >>> colors = categorical_column_with_vocabulary_list("color", ["R", "G", "B"])
    """
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, "
                         f"column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, "
                         f"column_name: {key}")
    array = np.asarray(vocabulary_list)
    vocabulary_dtype = dtypes.string if array.dtype.kind in "USO" else dtypes.as_dtype(array.dtype)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    assert_string_or_int(vocabulary_dtype, f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocabulary_dtype.is_integer:
            raise ValueError(f"dtype {dtype!r} and vocabulary dtype {vocabulary_dtype!r} do not "
                             f"match, column_name: {key}")
    assert_string_or_int(dtype, f"column_name: {key}")
    assert_key_is_string(key)
    return VocabularyListCategoricalColumn(key, tuple(vocabulary_list), dtype, default_value,
                                           num_oov_buckets)


@dataclasses.dataclass(frozen=True)
class VocabularyFileCategoricalColumn(CategoricalColumn):
    """Features mapped to their line number in a vocabulary file."""

    key: str
    vocabulary_file: str
    vocabulary_size: int
    num_oov_buckets: int
    dtype: dtypes.DType
    default_value: int = -1

    @property
    def name(self) -> str:
        return self.key

    @property
    def parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def num_buckets(self) -> int:
        return self.vocabulary_size + self.num_oov_buckets

    def transform_feature(self, inputs: FeatureBuilder) -> SparseTensor:
        tensor, key_dtype = _lookup_keys(self, inputs)
        with name_scope(None, f"{self.key}_lookup"):
            init = TextFileInitializer(self.vocabulary_file, key_dtype, TextFileIndex.WHOLE_LINE,
                                       dtypes.int64, TextFileIndex.LINE_NUMBER,
                                       vocab_size=self.vocabulary_size)
            if self.num_oov_buckets:
                table = StaticVocabularyTable(init, self.num_oov_buckets)
            else:
                table = StaticHashTable(init, self.default_value)
        return _lookup(table, tensor)


def categorical_column_with_vocabulary_file(key: str, vocabulary_file: str,
                                            vocabulary_size: int | None = None,
                                            num_oov_buckets: int = 0,
                                            default_value: int | None = None,
                                            dtype: Any = dtypes.string
                                            ) -> VocabularyFileCategoricalColumn:
    """A column mapping each feature to its line number in `vocabulary_file`.

    Args:
        key: the feature's key.
        vocabulary_file: a text file with one vocabulary entry per line.
        vocabulary_size: how many lines to use (default: all of them, counted now).
        num_oov_buckets: unknown features hash into ids after the vocabulary's.
        default_value: the id of unknown features without OOV buckets (None: -1).
        dtype: the feature's type (string or integer).

    Returns:
        A `VocabularyFileCategoricalColumn`.

    Example:
        >>> states = categorical_column_with_vocabulary_file("state", "/tmp/states.txt")
    """
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        if not os.path.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with open(vocabulary_file, "rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes.as_dtype(dtype)
    assert_string_or_int(dtype, f"column_name: {key} vocabulary")
    assert_key_is_string(key)
    return VocabularyFileCategoricalColumn(key, vocabulary_file, vocabulary_size,
                                           num_oov_buckets, dtype,
                                           -1 if default_value is None else default_value)


# --- hash bucket and cross -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class HashedCategoricalColumn(CategoricalColumn):
    """Features hashed into buckets by Fingerprint64 (integers by their decimal text)."""

    key: str
    hash_bucket_size: int
    dtype: dtypes.DType

    @property
    def name(self) -> str:
        return self.key

    @property
    def parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    def transform_feature(self, inputs: FeatureBuilder) -> SparseTensor:
        tensor = to_sparse_input(inputs.get(self.key))
        assert_string_or_int(tensor.dtype, f"column_name: {self.key} input_tensor")
        _check_input_dtype(self, tensor)
        values = tensor.values if self.dtype == dtypes.string else S.as_string(tensor.values)
        ids = S.to_hash_bucket_fast(values, self.hash_bucket_size, name="lookup")
        return SparseTensor(tensor.indices, ids, tensor.dense_shape)


def categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                        dtype: Any = dtypes.string) -> HashedCategoricalColumn:
    """A column hashing each feature into one of `hash_bucket_size` ids.

    Args:
        key: the feature's key.
        hash_bucket_size: the number of buckets (>= 1).
        dtype: the feature's type (string or integer).

    Returns:
        A `HashedCategoricalColumn`; its ids are TensorFlow's.

    Example:
        >>> keywords = categorical_column_with_hash_bucket("keywords", 10000)
    """
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    assert_key_is_string(key)
    dtype = dtypes.as_dtype(dtype)
    assert_string_or_int(dtype, f"column_name: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


def _leaf_keys(column: CrossedColumn) -> list:
    keys: list = []
    for key in column.keys:
        keys.extend(_leaf_keys(key) if isinstance(key, CrossedColumn) else [key])
    return keys


def sparse_cross_hashed(inputs: list, num_buckets: int, hash_key: int) -> SparseTensor:
    """The hashed crosses of each row's features (sparse inputs first, then dense)."""
    sparse = [x for x in inputs if isinstance(x, SparseTensor)]
    dense = [x for x in inputs if not isinstance(x, SparseTensor)]

    def int64_or_string(tensor: Tensor) -> Tensor:
        return tensor if tensor.dtype == dtypes.string else M.cast(tensor, dtypes.int64)

    values = [int64_or_string(x.values) for x in sparse]
    dense = [int64_or_string(x) for x in dense]
    internal = dtypes.string if all(t.dtype == dtypes.string for t in values + dense) \
        else dtypes.int64
    indices, ids, shape = apply_op(
        "SparseCross", indices=[x.indices for x in sparse], values=values,
        shapes=[x.dense_shape for x in sparse], dense_inputs=dense, N=len(sparse),
        hashed_output=True, num_buckets=num_buckets, hash_key=hash_key,
        sparse_types=[v.dtype for v in values], dense_types=[d.dtype for d in dense],
        out_type=dtypes.int64, internal_type=internal)
    return SparseTensor(indices, ids, shape)


@dataclasses.dataclass(frozen=True)
class CrossedColumn(CategoricalColumn):
    """The hashed conjunctions of several features' values."""

    keys: tuple
    hash_bucket_size: int
    hash_key: int | None = None

    @property
    def name(self) -> str:
        names = [k.name if isinstance(k, FeatureColumn) else k for k in _leaf_keys(self)]
        return "_X_".join(sorted(names))

    @property
    def parse_example_spec(self) -> dict:
        spec: dict = {}
        for key in self.keys:
            if isinstance(key, FeatureColumn):
                spec.update(key.parse_example_spec)
            else:
                spec[key] = VarLenFeature(dtypes.string)
        return spec

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    def transform_feature(self, inputs: FeatureBuilder) -> SparseTensor:
        tensors = []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                tensors.append(inputs.get(key))
            else:
                tensors.append(key.get_sparse_tensors(inputs).id_tensor)
        hash_key = DEFAULT_HASH_KEY if self.hash_key is None else self.hash_key
        return sparse_cross_hashed(tensors, self.hash_bucket_size, hash_key)


def crossed_column(keys: Any, hash_bucket_size: int, hash_key: int | None = None
                   ) -> CrossedColumn:
    """A column of the crosses of several features, hashed into `hash_bucket_size` ids.

    Each example's ids are `FingerprintCat64` chains over one feature from each key,
    for every combination, modulo `hash_bucket_size`: TensorFlow's ids.

    Args:
        keys: feature keys (strings) and categorical columns, at least two; a
            hash-bucket column is refused (hash the raw feature instead).
        hash_bucket_size: the number of buckets.
        hash_key: the chain's start (default TensorFlow's 0xDECAFCAFFE).

    Returns:
        A `CrossedColumn` named by its leaf keys, sorted and joined with "_X_".

    Example:
        >>> crossed_column(["latitude_bucket", "longitude_bucket"], 5000)
    """
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or "
                             f"categorical column except HashedCategoricalColumn. Given: {key}")
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for "
                             f"crossing. Hashing before crossing will increase probability of "
                             f"collision. Instead, use the feature name as a string. Given: {key}")
    return CrossedColumn(tuple(keys), hash_bucket_size, hash_key)


# --- weighted --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class WeightedCategoricalColumn(CategoricalColumn):
    """A categorical column whose ids carry weights from another feature."""

    categorical_column: CategoricalColumn
    weight_feature_key: str
    dtype: dtypes.DType

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def parse_example_spec(self) -> dict:
        spec = dict(self.categorical_column.parse_example_spec)
        if self.weight_feature_key in spec:
            raise ValueError(f"Parse config {spec[self.weight_feature_key]} already exists for "
                             f"{self.weight_feature_key}.")
        spec[self.weight_feature_key] = VarLenFeature(self.dtype)
        return spec

    @property
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    def transform_feature(self, inputs: FeatureBuilder) -> tuple:
        weights = inputs.get(self.weight_feature_key)
        if weights is None:
            raise ValueError(f"Missing weights {self.weight_feature_key}.")
        weights = SP.convert_to_tensor_or_sparse_tensor(weights)
        if self.dtype != weights.dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype!r}, but got {weights.dtype!r}.")
        if not isinstance(weights, SparseTensor):
            weights = to_sparse_input(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = SparseTensor(weights.indices, M.cast(weights.values, dtypes.float32),
                                   weights.dense_shape)
        return inputs.get(self.categorical_column), weights

    def get_sparse_tensors(self, inputs: FeatureBuilder, weight_collections: Any = None,
                           trainable: Any = None) -> CategoricalSparseTensors:
        ids, weights = inputs.get(self)
        return CategoricalSparseTensors(ids, weights)


def weighted_categorical_column(categorical_column: CategoricalColumn, weight_feature_key: str,
                                dtype: Any = dtypes.float32) -> WeightedCategoricalColumn:
    """`categorical_column` with a weight per id, from the feature `weight_feature_key`.

    Args:
        categorical_column: the ids.
        weight_feature_key: the feature holding one weight per id (same indices).
        dtype: the weights' type (integer or floating; cast to float32 if integer).

    Returns:
        A `WeightedCategoricalColumn` named "<ids>_weighted_by_<key>".

    Example:
        >>> weighted_categorical_column(categorical_column_with_identity("ids", 10), "w")
    """
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype!r} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)



# --- sequence categorical --------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SequenceCategoricalColumn(CategoricalColumn):
    """A categorical column over a sequence: ids of rank 3, [batch, step, id].

    Its embedding and indicator columns are refused by `input_layer` (their examples'
    ids are not combined); `linear_model` takes it, as TensorFlow's does.
    """

    categorical_column: CategoricalColumn

    @property
    def name(self) -> str:
        return self.categorical_column.name

    @property
    def parse_example_spec(self) -> dict:
        return self.categorical_column.parse_example_spec

    @property
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    def transform_feature(self, inputs: FeatureBuilder) -> Any:
        return self.categorical_column.transform_feature(inputs)

    def get_sparse_tensors(self, inputs: FeatureBuilder, weight_collections: Any = None,
                           trainable: Any = None) -> CategoricalSparseTensors:
        ids, weights = self.categorical_column.get_sparse_tensors(inputs)
        # A third dimension keeps each step's ids apart (an already 3-D shape is kept).
        shape = ids.dense_shape
        target = A.stack([shape[0], shape[1], M.reduce_prod(shape[2:])])
        ids = SP.sparse_reshape(ids, target)
        if weights is not None:
            weights = SP.sparse_reshape(weights, target)
        return CategoricalSparseTensors(ids, weights)


def sequence_categorical_column_with_identity(key: str, num_buckets: int,
                                              default_value: int | None = None
                                              ) -> SequenceCategoricalColumn:
    """`categorical_column_with_identity` over a sequence feature.

    Example:
        >>> watches = sequence_categorical_column_with_identity("watches", 1000)
    """
    return SequenceCategoricalColumn(
        categorical_column_with_identity(key, num_buckets, default_value))


def sequence_categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                                 dtype: Any = dtypes.string
                                                 ) -> SequenceCategoricalColumn:
    """`categorical_column_with_hash_bucket` over a sequence feature.

    Example:
        >>> tokens = sequence_categorical_column_with_hash_bucket("tokens", 1000)
    """
    return SequenceCategoricalColumn(
        categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


def sequence_categorical_column_with_vocabulary_file(
        key: str, vocabulary_file: str, vocabulary_size: int | None = None,
        num_oov_buckets: int = 0, default_value: int | None = None,
        dtype: Any = dtypes.string) -> SequenceCategoricalColumn:
    """`categorical_column_with_vocabulary_file` over a sequence feature.

    Example:
        >>> states = sequence_categorical_column_with_vocabulary_file("s", "/tmp/states")
    """
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size, num_oov_buckets, default_value, dtype))


def sequence_categorical_column_with_vocabulary_list(
        key: str, vocabulary_list: Any, dtype: Any = None, default_value: int = -1,
        num_oov_buckets: int = 0) -> SequenceCategoricalColumn:
    """`categorical_column_with_vocabulary_list` over a sequence feature.

    Example:
        >>> colors = sequence_categorical_column_with_vocabulary_list("c", ["R", "G"])
    """
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_list(
        key, vocabulary_list, dtype, default_value, num_oov_buckets))


# --- sequence numeric ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SequenceNumericColumn:
    """A real-valued sequence feature. As in TensorFlow 2.21's tf.compat.v1, it is no
    `_FeatureColumn`: input_layer, linear_model and make_parse_example_spec refuse it;
    its `parse_example_spec` is a VarLenFeature."""

    key: str
    shape: tuple[int, ...] = (1,)
    default_value: Any = 0.0
    dtype: dtypes.DType = dtypes.float32
    normalizer_fn: Any = None

    @property
    def name(self) -> str:
        return self.key

    @property
    def parse_example_spec(self) -> dict:
        return {self.key: VarLenFeature(self.dtype)}


def sequence_numeric_column(key: str, shape: Any = (1,), default_value: Any = 0.0,
                            dtype: Any = dtypes.float32, normalizer_fn: Any = None
                            ) -> SequenceNumericColumn:
    """A column of real values of `shape` per step of a sequence feature.

    Args:
        key: the feature's key.
        shape: the shape of one step's values.
        default_value: the value that pads shorter sequences.
        dtype: the feature's type (integer or floating).
        normalizer_fn: applied to the feature first.

    Returns:
        A `SequenceNumericColumn`.

    Example:
        >>> temperature = sequence_numeric_column("temperature")
    """
    shape = check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype!r}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, shape, default_value, dtype, normalizer_fn)
