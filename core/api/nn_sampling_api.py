"""Candidate sampling, sampled losses and sparse embedding lookups (TensorFlow's tf.nn).

The candidate samplers build the stateful ops of core/ops/candidate_sampling_ops.py,
seeded like the random ops (`get_seed`), so a seeded sampler gives TensorFlow's ids.
Their outputs carry no gradient. `nce_loss` and `sampled_softmax_loss` score the true
classes against `num_sampled` sampled ones (log-uniform by default) with logits
`inputs . w + b`, less the log of each class's expected count; `embedding_lookup_sparse`
combines the rows named by a SparseTensor's ids per row of the batch.

Example:
    >>> loss = nce_loss(weights, biases, labels, inputs, num_sampled=64, num_classes=10000)
"""

from __future__ import annotations

import collections
from typing import Any

from tfx.core import dtypes
from tfx.core.api import array_api, math_api, nn_api, sparse_api
from tfx.core.api.graph_builder import Tensor, name_scope
from tfx.core.api.ops_api import apply_op, convert_to_tensor, stop_gradient
from tfx.core.api.partitioned_variables_api import PartitionedVariable
from tfx.core.api.random_api import get_seed

__all__ = [
    "all_candidate_sampler",
    "compute_accidental_hits",
    "embedding_lookup_sparse",
    "fixed_unigram_candidate_sampler",
    "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "nce_loss",
    "safe_embedding_lookup_sparse",
    "sampled_softmax_loss",
    "uniform_candidate_sampler",
]


def _seeds(seed: int | None) -> dict[str, int]:
    seed1, seed2 = get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


# As in TensorFlow, each sampler returns a namedtuple named after its op.
_SAMPLED_FIELDS = ("sampled_candidates", "true_expected_count", "sampled_expected_count")
UniformCandidateSampler = collections.namedtuple("UniformCandidateSampler", _SAMPLED_FIELDS)
LogUniformCandidateSampler = collections.namedtuple("LogUniformCandidateSampler",
                                                    _SAMPLED_FIELDS)
LearnedUnigramCandidateSampler = collections.namedtuple("LearnedUnigramCandidateSampler",
                                                        _SAMPLED_FIELDS)
FixedUnigramCandidateSampler = collections.namedtuple("FixedUnigramCandidateSampler",
                                                      _SAMPLED_FIELDS)
AllCandidateSampler = collections.namedtuple("AllCandidateSampler", _SAMPLED_FIELDS)
ComputeAccidentalHits = collections.namedtuple("ComputeAccidentalHits",
                                               ["indices", "ids", "weights"])
_RESULTS = {cls.__name__: cls for cls in (
    UniformCandidateSampler, LogUniformCandidateSampler, LearnedUnigramCandidateSampler,
    FixedUnigramCandidateSampler, AllCandidateSampler)}


def _sample(op_type: str, true_classes: Any, name: str | None, seed: int | None,
            **attrs: Any) -> tuple[Tensor, Tensor, Tensor]:
    true_classes = math_api.cast(true_classes, dtypes.int64)
    outputs = apply_op(op_type, name=name, true_classes=true_classes, **attrs, **_seeds(seed))
    return _RESULTS[op_type](*outputs)


def uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                              range_max: int, seed: int | None = None,
                              name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Samples `num_sampled` ids uniformly from [0, range_max).

    Args:
        true_classes: int64 [batch, num_true], the target classes.
        num_true: the number of target classes per example.
        num_sampled: how many ids to sample.
        unique: whether the sampled ids are all different (drawn again until they are).
        range_max: the number of classes.
        seed: the op-level seed (see `get_seed`).
        name: the op's name.

    Returns:
        The namedtuple `UniformCandidateSampler` (each sampler's is named after its op, as
        in TensorFlow) of sampled_candidates [num_sampled] int64, true_expected_count
        [batch, num_true] float32 and sampled_expected_count [num_sampled] float32: the
        expected counts are how often each id would be drawn in `num_sampled` draws
        (tries, with `unique`).

    Example:
        >>> ids, true_count, sampled_count = uniform_candidate_sampler(labels, 1, 8, True, 100)
    """
    return _sample("UniformCandidateSampler", true_classes, name, seed, num_true=num_true,
                   num_sampled=num_sampled, unique=unique, range_max=range_max)


def log_uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                  unique: bool, range_max: int, seed: int | None = None,
                                  name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Samples ids from the log-uniform (Zipfian) distribution over [0, range_max):
    P(k) = log((k + 2) / (k + 1)) / log(range_max + 1), for ids sorted by falling frequency.

    Arguments and returns as `uniform_candidate_sampler`.
    """
    return _sample("LogUniformCandidateSampler", true_classes, name, seed, num_true=num_true,
                   num_sampled=num_sampled, unique=unique, range_max=range_max)


def learned_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                      unique: bool, range_max: int, seed: int | None = None,
                                      name: str | None = None
                                      ) -> tuple[Tensor, Tensor, Tensor]:
    """Samples ids in proportion to 1 + the number of times each was a true class in the
    op's earlier runs (the counts live in the op's kernel, one per session).

    Arguments and returns as `uniform_candidate_sampler`.
    """
    return _sample("LearnedUnigramCandidateSampler", true_classes, name, seed,
                   num_true=num_true, num_sampled=num_sampled, unique=unique,
                   range_max=range_max)


def fixed_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                    unique: bool, range_max: int, vocab_file: str = "",
                                    distortion: float = 1.0, num_reserved_ids: int = 0,
                                    num_shards: int = 1, shard: int = 0,
                                    unigrams: Any = (), seed: int | None = None,
                                    name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Samples ids in proportion to given counts raised to `distortion`.

    Args:
        vocab_file: a file whose lines end in ",COUNT" (the count of the line's id);
            used instead of `unigrams` when given.
        distortion: the power applied to each count (1: the unigram distribution, 0:
            uniform).
        num_reserved_ids: ids [0, num_reserved_ids) come first with weight 0.
        num_shards, shard: keep only the ids equal to `shard` modulo `num_shards`.
        unigrams: the counts, one per id after the reserved ones.
        (others as `uniform_candidate_sampler`; the weights must number `range_max`.)

    Example:
        >>> fixed_unigram_candidate_sampler(labels, 1, 4, True, 3, unigrams=[5., 1., 2.])
    """
    return _sample("FixedUnigramCandidateSampler", true_classes, name, seed,
                   num_true=num_true, num_sampled=num_sampled, unique=unique,
                   range_max=range_max, vocab_file=vocab_file, distortion=distortion,
                   num_reserved_ids=num_reserved_ids, num_shards=num_shards, shard=shard,
                   unigrams=[float(u) for u in unigrams])


def all_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                          seed: int | None = None,
                          name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Every id of [0, num_sampled) once, with expected counts of 1 (for testing).

    Example:
        >>> all_candidate_sampler(labels, 1, 10, True)[0]   # [0, 1, ..., 9]
    """
    return _sample("AllCandidateSampler", true_classes, name, seed, num_true=num_true,
                   num_sampled=num_sampled, unique=unique)


def compute_accidental_hits(true_classes: Any, sampled_candidates: Any, num_true: int,
                            seed: int | None = None,
                            name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """The positions where a sampled id equals one of a row's true classes.

    Args:
        true_classes: int64 [batch, num_true].
        sampled_candidates: int64 [num_sampled], from a candidate sampler.
        num_true: the number of true classes per row.

    Returns:
        The namedtuple `ComputeAccidentalHits` of indices int32, ids int64 and weights
        float32, one entry per (row, true class) whose class was sampled, in row-major
        order: the row, the position in `sampled_candidates` (the last one, if sampled
        twice) and -FLT_MAX, to add to that sampled logit.

    Example:
        >>> rows, positions, weights = compute_accidental_hits(labels, sampled, 1)
    """
    return ComputeAccidentalHits(*apply_op(
        "ComputeAccidentalHits", name=name,
        true_classes=math_api.cast(true_classes, dtypes.int64),
        sampled_candidates=math_api.cast(sampled_candidates, dtypes.int64),
        num_true=num_true, **_seeds(seed)))


def _compute_sampled_logits(weights: Any, biases: Any, labels: Any, inputs: Any,
                            num_sampled: int, num_classes: int, num_true: int = 1,
                            sampled_values: Any = None, subtract_log_q: bool = True,
                            remove_accidental_hits: bool = False,
                            partition_strategy: str = "mod", name: str | None = None,
                            seed: int | None = None) -> tuple[Tensor, Tensor]:
    """Logits [batch, num_true + num_sampled] of the true then the sampled classes, and
    their labels (1/num_true for the true classes, 0 for the sampled ones)."""
    if isinstance(weights, PartitionedVariable):
        weights = list(weights)  # as TF: the parts are the shards
    if isinstance(biases, PartitionedVariable):
        biases = list(biases)
    if not isinstance(weights, (list, tuple)):
        weights = [weights]
    if not isinstance(biases, (list, tuple)):
        biases = [biases]
    with name_scope(name, "compute_sampled_logits", list(weights) + list(biases)
                    + [inputs, labels]):
        labels = convert_to_tensor(labels)
        if labels.dtype != dtypes.int64:
            labels = math_api.cast(labels, dtypes.int64)
        inputs = convert_to_tensor(inputs)
        labels_flat = array_api.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                labels, num_true, num_sampled, True, num_classes, seed=seed)
        sampled, true_expected_count, sampled_expected_count = (
            stop_gradient(s) for s in sampled_values)
        sampled = math_api.cast(sampled, dtypes.int64)
        num_labels = array_api.shape(labels_flat)[:1]
        all_ids = array_api.concat([labels_flat, sampled], 0)
        all_w = nn_api.embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = math_api.cast(all_w, inputs.dtype)
        true_w = array_api.slice(all_w, [0, 0], array_api.concat([num_labels, [-1]], 0))
        sampled_w = array_api.slice(all_w, array_api.concat([num_labels, [0]], 0), [-1, -1])
        sampled_logits = math_api.matmul(inputs, sampled_w, transpose_b=True)
        all_b = nn_api.embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = math_api.cast(all_b, inputs.dtype)
        true_b = array_api.reshape(array_api.slice(all_b, [0], num_labels), [-1, num_true])
        sampled_b = array_api.slice(all_b, num_labels, [-1])
        dim = array_api.shape(true_w)[1:2]
        true_w = array_api.reshape(true_w, array_api.concat([[-1, num_true], dim], 0))
        products = math_api.multiply(array_api.expand_dims(inputs, 1), true_w)
        true_logits = math_api.add(math_api.reduce_sum(products, 2), true_b)
        sampled_logits = math_api.add(sampled_logits, sampled_b)
        if remove_accidental_hits:
            rows, positions, hit_weights = compute_accidental_hits(labels, sampled, num_true)
            hits = array_api.stack([rows, math_api.cast(positions, dtypes.int32)], 1)
            logits_shape = array_api.concat([array_api.shape(labels)[:1], [num_sampled]], 0)
            if hit_weights.dtype != sampled_logits.dtype:
                hit_weights = math_api.cast(hit_weights, sampled_logits.dtype)
            sampled_logits = math_api.add(sampled_logits, array_api.sparse_to_dense(
                hits, logits_shape, hit_weights, default_value=0.0, validate_indices=False))
        if subtract_log_q:
            true_logits = math_api.subtract(
                true_logits, math_api.cast(math_api.log(true_expected_count), inputs.dtype))
            sampled_logits = math_api.subtract(
                sampled_logits,
                math_api.cast(math_api.log(sampled_expected_count), inputs.dtype))
        logits = array_api.concat([true_logits, sampled_logits], 1)
        targets = array_api.concat([
            math_api.truediv(array_api.ones_like(true_logits),
                             math_api.cast(num_true, true_logits.dtype)),
            array_api.zeros_like(sampled_logits)], 1)
        return logits, targets


def nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
             num_classes: int, num_true: int = 1, sampled_values: Any = None,
             remove_accidental_hits: bool = False, partition_strategy: str = "mod",
             name: str = "nce_loss", seed: int | None = None) -> Tensor:
    """Noise-contrastive estimation loss per example (Gutmann and Hyvarinen, 2010).

    Each of the true classes and `num_sampled` sampled classes is scored with a logistic
    loss on `inputs . w + b - log(expected count)`, the true ones as 1/num_true and the
    sampled ones as 0, summed over the classes.

    Args:
        weights: [num_classes, dim] (or a list of its shards, split by
            `partition_strategy`).
        biases: [num_classes].
        labels: int [batch, num_true].
        inputs: [batch, dim].
        num_sampled: the number of classes sampled per batch.
        num_classes: the number of classes.
        num_true: true classes per example.
        sampled_values: a candidate sampler's output to use; by default a
            log-uniform sampler with unique ids.
        remove_accidental_hits: whether sampled classes equal to a true class get
            -FLT_MAX added to their logits.
        partition_strategy: "mod" or "div" (see `embedding_lookup`).
        seed: the sampler's op-level seed.

    Returns:
        A [batch] loss.

    Example:
        >>> loss = tf.reduce_mean(nce_loss(w, b, labels, embed, 64, vocabulary_size))
    """
    logits, targets = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name, seed=seed)
    losses = nn_api.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits,
                                                      name="sampled_losses")
    return math_api.reduce_sum(losses, 1)


def sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
                         num_classes: int, num_true: int = 1, sampled_values: Any = None,
                         remove_accidental_hits: bool = True, partition_strategy: str = "mod",
                         name: str = "sampled_softmax_loss",
                         seed: int | None = None) -> Tensor:
    """Softmax cross-entropy over the true and `num_sampled` sampled classes only (Jean
    et al., 2014), a cheap estimate of the full softmax loss for training.

    Arguments as `nce_loss`, except that accidental hits are removed by default.

    Returns:
        A [batch] loss.

    Example:
        >>> loss = tf.reduce_mean(sampled_softmax_loss(w, b, labels, h, 64, 10000))
    """
    logits, targets = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name, seed=seed)
    return nn_api.softmax_cross_entropy_with_logits_v2(labels=stop_gradient(targets),
                                                       logits=logits)


def _lookup(params: Any, ids: Any, partition_strategy: str, max_norm: Any) -> Tensor:
    rows = nn_api.embedding_lookup(params, ids, partition_strategy=partition_strategy)
    if max_norm is None:
        return rows
    # Each looked-up row (all axes after the id's) is scaled down to norm max_norm.
    axes = list(range(1, rows.shape.ndims)) if rows.shape.ndims is not None else [1]
    return math_api.clip_by_norm(rows, max_norm, axes=axes)


def embedding_lookup_sparse(params: Any, sp_ids: Any, sp_weights: Any,
                            partition_strategy: str = "mod", name: str | None = None,
                            combiner: str | None = None, max_norm: Any = None,
                            allow_fast_lookup: bool = False) -> Tensor:
    """Combined embeddings of the ids in each row of a SparseTensor.

    Args:
        params: [vocabulary, ...] embeddings, or a list of their shards.
        sp_ids: a [batch, ...] SparseTensor of int ids; its rows are the first index.
        sp_weights: a SparseTensor of float weights with the ids' indices, or None for
            weight 1 everywhere.
        partition_strategy: "mod" or "div" (see `embedding_lookup`).
        combiner: "sum" (the weighted sum), "mean" (over the sum of weights, the default)
            or "sqrtn" (over the root of the sum of squared weights).
        max_norm: rows with a larger L2 norm are scaled down to it before combining.
        allow_fast_lookup: accepted for TensorFlow's signature; the lookup is the same.

    Returns:
        [rows, ...] where rows is the largest row index present plus one; rows without
        ids are zero.

    Example:
        >>> ids = SparseTensor([[0, 0], [0, 1], [2, 0]], [3, 1, 4], [3, 2])
        >>> embedding_lookup_sparse(params, ids, None, combiner="sum")
    """
    del allow_fast_lookup
    if combiner is None:
        combiner = "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
    if isinstance(params, PartitionedVariable):
        params = list(params)  # as TF: the parts are the shards
    if not isinstance(params, (list, tuple)):
        params = [params]
    if not isinstance(sp_ids, sparse_api.SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids).__name__}")
    ignore_weights = sp_weights is None
    if not ignore_weights and not isinstance(sp_weights, sparse_api.SparseTensor):
        raise TypeError(f"sp_weights must be either None or SparseTensor, "
                        f"got {type(sp_weights).__name__}")
    with name_scope(name, "embedding_lookup_sparse", list(params) + [sp_ids]) as scope:
        segment_ids = math_api.cast(sp_ids.indices[:, 0], dtypes.int32)
        ids, idx = array_api.unique(sp_ids.values)
        embeddings = _lookup(params, ids, partition_strategy, max_norm)
        if ignore_weights:
            reduce = {"sum": sparse_api.sparse_segment_sum,
                      "mean": sparse_api.sparse_segment_mean,
                      "sqrtn": sparse_api.sparse_segment_sqrt_n}[combiner]
            return reduce(embeddings, idx, segment_ids, name=scope)
        weights = sp_weights.values
        embeddings = array_api.gather(embeddings, idx)
        if embeddings.dtype != weights.dtype:
            embeddings = math_api.cast(embeddings, weights.dtype)
        # weights [n] broadcast over each row's trailing axes
        ones = array_api.ones_like(array_api.shape(embeddings)[1:])
        weights_shape = array_api.concat([array_api.shape(weights), ones], 0)
        weights_b = array_api.reshape(weights, weights_shape)
        embeddings = math_api.segment_sum(math_api.multiply(embeddings, weights_b), segment_ids)
        if combiner == "sum":
            return array_api.identity(embeddings, name=scope)
        if combiner == "mean":
            total = math_api.segment_sum(weights, segment_ids)
        else:
            total = math_api.sqrt(math_api.segment_sum(math_api.square(weights), segment_ids))
        total = array_api.reshape(
            total, array_api.concat([array_api.shape(total), ones], 0))
        return math_api.div_no_nan(embeddings, total, name=scope)


def safe_embedding_lookup_sparse(embedding_weights: Any, sparse_ids: Any,
                                 sparse_weights: Any = None, combiner: str = "mean",
                                 default_id: int | None = None, name: str | None = None,
                                 partition_strategy: str = "div", max_norm: Any = None,
                                 allow_fast_lookup: bool = False) -> Tensor:
    """`embedding_lookup_sparse` that drops invalid ids and fills empty rows.

    Ids below 0 (and, with weights, entries whose weight is not positive) are dropped;
    rows left without ids get `default_id`'s embedding, or zeros when it is None. Ids of
    rank above 2 are looked up over their leading axes.

    Args:
        embedding_weights: [vocabulary, ...] embeddings, a list of their shards or a
            PartitionedVariable (its parts are the shards).
        sparse_ids: a [d0, ..., dn] SparseTensor of int ids.
        sparse_weights: a SparseTensor of float weights like `sparse_ids`, or None.
        combiner: "sum", "mean" or "sqrtn" (see `embedding_lookup_sparse`).
        default_id: the id whose embedding fills empty rows, or None for zeros.
        partition_strategy: "div" (the default here) or "mod".
        max_norm: see `embedding_lookup_sparse`.

    Returns:
        [d0, ..., dn-1, ...embedding shape].

    Example:
        >>> safe_embedding_lookup_sparse(params, ids, default_id=0)
    """
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if isinstance(embedding_weights, PartitionedVariable):
        # Its parts are the shards, split by partition_strategy (only a bare
        # PartitionedVariable: inside a list it is one shard, its concatenated value).
        embedding_weights = list(embedding_weights)
    if not isinstance(embedding_weights, (list, tuple)):
        embedding_weights = [embedding_weights]
    embedding_weights = [convert_to_tensor(w) for w in embedding_weights]
    if not embedding_weights:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [w if dtype is None or w.dtype == dtype else math_api.cast(w, dtype)
                         for w in embedding_weights]
    with name_scope(name, "embedding_lookup", embedding_weights + [sparse_ids]) as scope:
        dense_shape = sparse_ids.dense_shape
        original_rank = array_api.size(dense_shape)
        batch_dims = array_api.slice(dense_shape, [0], array_api.expand_dims(
            math_api.subtract(original_rank, 1), 0))
        rows = math_api.reduce_prod(batch_dims)
        flat_shape = array_api.stack([rows, dense_shape[original_rank - 1]])
        sparse_ids = sparse_api.sparse_reshape(sparse_ids, flat_shape)
        if sparse_weights is not None:
            sparse_weights = sparse_api.SparseTensor(sparse_ids.indices, sparse_weights.values,
                                                     sparse_ids.dense_shape)
        sparse_ids, sparse_weights = _prune_invalid(sparse_ids, sparse_weights)
        sparse_ids, is_empty = sparse_api.sparse_fill_empty_rows(
            sparse_ids, default_id if default_id is not None else 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_api.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
            partition_strategy=partition_strategy,
            max_norm=max_norm)
        if default_id is None:
            # rows that had no valid id are zeros rather than id 0's embedding
            empty_shape = array_api.concat(
                [array_api.shape(is_empty), array_api.ones_like(array_api.shape(result)[1:])], 0)
            result = array_api.where_v2(array_api.reshape(is_empty, empty_shape),
                                        array_api.zeros_like(result), result)
        final_shape = array_api.concat(
            [batch_dims, array_api.shape(result, out_type=dtypes.int64)[1:]], 0)
        return array_api.reshape(result, final_shape, name=scope)


def _prune_invalid(sparse_ids: Any, sparse_weights: Any) -> tuple[Any, Any]:
    """Drop ids below 0 and entries with non-positive weights."""
    keep = math_api.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        keep = math_api.logical_and(keep, math_api.greater(sparse_weights.values, 0))
    sparse_ids = sparse_api.sparse_retain(sparse_ids, keep)
    if sparse_weights is not None:
        sparse_weights = sparse_api.sparse_retain(sparse_weights, keep)
    return sparse_ids, sparse_weights
