"""CPU kernels: candidate samplers and accidental hits, with TensorFlow's samples.

Each sampler kernel owns a `GuardedStream` (kernels/cpu/philox.py) and, like
TensorFlow's, reserves 512 Philox blocks (2048 words) per sampled candidate at every
run, then reads the stream one 32-bit word at a time from the run's first block on (a
rejection loop that needs more words simply reads on, as TensorFlow's does). Per sample:

- uniform: a 64-bit word (low word first) modulo range_max;
- log-uniform: floor(exp(u * log(range_max + 1))) - 1 modulo range_max, u a double
  from two words; P(k) = log((k + 2) / (k + 1)) / log(range_max + 1);
- fixed unigram: Walker's alias table over the weights unigram^distortion (reserved ids
  weigh 0), built as TensorFlow builds it; one float word picks the coin, the next word
  modulo n the bucket;
- learned unigram: weights start at 1 and each true class seen adds 1 after the run;
  an unbiased uniform integer below the total weight (words below 2^32 mod n rejected,
  a power of two masked) picks the id by cumulative weight.

With `unique` a drawn id already picked is drawn again; the expected counts are then
1 - (1 - p)^tries, else p * num_sampled.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import threading
from functools import lru_cache
from typing import Any

import numpy as np

from tfx.core.errors import InvalidArgumentError, NotFoundError
from tfx.kernels.base import OpKernel, register_kernel
from tfx.kernels.cpu import philox

_WORDS_RESERVED_PER_SAMPLE = 2048
_CHUNK_BLOCKS = 64


class _WordReader:
    """TensorFlow's SimplePhilox: the words of a stream, one at a time, from a counter on."""

    __slots__ = ("_key", "_counter", "_words", "_next")

    def __init__(self, key: tuple[int, int], counter: int) -> None:
        self._key, self._counter = key, counter
        self._words: list[int] = []
        self._next = 0

    def rand32(self) -> int:
        if self._next == len(self._words):
            self._words = philox.philox_blocks(self._key, self._counter, _CHUNK_BLOCKS) \
                .reshape(-1).tolist()
            self._counter = (self._counter + _CHUNK_BLOCKS) % (1 << 128)
            self._next = 0
        word = self._words[self._next]
        self._next += 1
        return word

    def rand64(self) -> int:
        low = self.rand32()
        return low | (self.rand32() << 32)

    def rand_float(self) -> float:
        return float(philox.uniform_float32(np.array([self.rand32()], dtype=np.uint32))[0])

    def rand_double(self) -> float:
        high = self.rand32()
        low = self.rand32()
        mantissa = ((high & 0xFFFFF) << 32) | low
        return float(np.array([mantissa | 0x3FF0000000000000], dtype=np.uint64)
                     .view(np.float64)[0]) - 1.0


class _Sampler:
    """A distribution over [0, range): `sample` one id, `probability` of ids (float32)."""

    learns = False  # whether `update` changes the distribution

    def __init__(self, range_max: int) -> None:
        self.range = range_max

    def sample(self, reader: _WordReader) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def probability(self, ids: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def update(self, true_ids: np.ndarray) -> None:
        """Learn from a run's true classes (only the learned unigram sampler does)."""


class _Uniform(_Sampler):
    def sample(self, reader: _WordReader) -> int:
        return reader.rand64() % self.range

    def probability(self, ids: np.ndarray) -> np.ndarray:
        return np.full(ids.shape, np.float32(1.0) / np.float32(self.range), dtype=np.float32)


class _LogUniform(_Sampler):
    def __init__(self, range_max: int) -> None:
        super().__init__(range_max)
        self._log_range = math.log1p(range_max)

    def sample(self, reader: _WordReader) -> int:
        return (int(math.exp(reader.rand_double() * self._log_range)) - 1) % self.range

    def probability(self, ids: np.ndarray) -> np.ndarray:
        ids = ids.astype(np.float64)
        return (np.log((ids + 2.0) / (ids + 1.0)) / self._log_range).astype(np.float32)


class _All(_Sampler):
    """Not drawn at random: the kernel returns every id in order, each expected once."""

    def probability(self, ids: np.ndarray) -> np.ndarray:
        return np.full(ids.shape, np.float32(1.0) / np.float32(self.range), dtype=np.float32)


class _LearnedUnigram(_Sampler):
    learns = True

    def __init__(self, range_max: int) -> None:
        super().__init__(range_max)
        self._weights = np.ones(range_max, dtype=np.int64)
        self._cumulative = np.cumsum(self._weights)

    def sample(self, reader: _WordReader) -> int:
        total = int(self._cumulative[-1])
        if total & (total - 1) == 0:
            point = reader.rand32() & (total - 1)
        else:
            rejected_below = (0xFFFFFFFF % total) + 1
            word = reader.rand32()
            while word < rejected_below:
                word = reader.rand32()
            point = word % total
        return int(np.searchsorted(self._cumulative, point, side="right"))

    def probability(self, ids: np.ndarray) -> np.ndarray:
        inside = (ids >= 0) & (ids < self.range)
        weights = np.where(inside, self._weights[np.clip(ids, 0, self.range - 1)], 0)
        return (weights.astype(np.float32) / np.float32(self._cumulative[-1])).astype(np.float32)

    def update(self, true_ids: np.ndarray) -> None:
        # The total weight stays an int32 in TensorFlow: updates stop below 2**31.
        room = max(0, 0x7FFFFFFF - int(self._cumulative[-1]))
        for value in true_ids.reshape(-1)[:room].tolist():
            if 0 <= value < self.range:
                self._weights[value] += 1
        self._cumulative = np.cumsum(self._weights)


class _FixedUnigram(_Sampler):
    def __init__(self, range_max: int, weights: np.ndarray) -> None:
        super().__init__(range_max)
        self._weights = weights.astype(np.float32)
        # a float32 running sum, as TensorFlow's total weight
        self._total = np.cumsum(self._weights, dtype=np.float32)[-1]
        self._prob, self._alt = _alias_table(self._weights)

    def sample(self, reader: _WordReader) -> int:
        coin = reader.rand_float()
        bucket = reader.rand32() % len(self._prob)
        return bucket if coin < self._prob[bucket] else self._alt[bucket]

    def probability(self, ids: np.ndarray) -> np.ndarray:
        inside = (ids >= 0) & (ids < len(self._weights))
        weights = np.where(inside, self._weights[np.clip(ids, 0, len(self._weights) - 1)], 0)
        return weights.astype(np.float32) / self._total


def _alias_table(weights: np.ndarray) -> tuple[list[float], list[int]]:
    """Walker's alias table, paired as TensorFlow's DistributionSampler pairs it: the
    last short bucket with the last long one, the long one's rest going back on a stack."""
    n = len(weights)
    total = float(np.sum(weights.astype(np.float64)))
    scaled = [float(w) * n / total for w in weights.tolist()]
    alt = [-1] * n
    low = [i for i, p in enumerate(scaled) if p < 1.0]
    high = [i for i, p in enumerate(scaled) if p >= 1.0]
    while low and high:
        short, long = low.pop(), high.pop()
        alt[short] = long
        scaled[long] -= 1.0 - scaled[short]
        (low if scaled[long] < 1.0 else high).append(long)
    prob = np.asarray(scaled, dtype=np.float32).tolist()
    for idx in high + low:  # left over by rounding: keep themselves
        prob[idx], alt[idx] = 1.0, idx
    return prob, alt


def _unigram_weights(attrs: dict[str, Any], range_max: int) -> np.ndarray:
    shards, shard = int(attrs.get("num_shards", 1)), int(attrs.get("shard", 0))
    distortion = np.float32(attrs.get("distortion", 1.0))
    weights = [0.0 for word in range(int(attrs.get("num_reserved_ids", 0)))
               if word % shards == shard]
    vocab_file = attrs.get("vocab_file", "") or ""
    if isinstance(vocab_file, bytes):
        vocab_file = vocab_file.decode()
    if vocab_file:
        counts = _read_vocab_counts(vocab_file)
    else:
        counts = [float(u) for u in attrs.get("unigrams", [])]
    word = len(weights)
    for count in counts:
        if word % shards == shard:
            weights.append(_powf(count, distortion))
        word += 1
    if len(weights) != range_max:
        raise InvalidArgumentError(
            f"range is {range_max} must be equal to weights size  {len(weights)}")
    return np.asarray(weights, dtype=np.float32)


def _read_vocab_counts(path: str) -> list[float]:
    """The last comma-separated field of each line of a vocabulary file, as a count."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise NotFoundError(f"vocab_file {path!r} could not be read: {e}") from None
    counts = []
    for number, line in enumerate(lines, 1):
        if not line:
            continue
        field = line.rsplit(",", 1)[-1]
        try:
            counts.append(float(field))
        except ValueError:
            raise InvalidArgumentError(
                f"Wrong vocabulary format at line: {number}: {line!r}") from None
    return counts


class _CandidateSamplerKernel(OpKernel):
    __slots__ = ("_stream", "_sampler", "_num_true", "_num_sampled", "_unique", "_lock")

    def make_sampler(self, attrs: dict[str, Any]) -> _Sampler:  # pragma: no cover
        raise NotImplementedError

    def setup(self, seed: int = 0, seed2: int = 0, **attrs: Any) -> None:
        self._stream = philox.GuardedStream(int(seed), int(seed2))
        self._num_true = int(attrs["num_true"])
        self._num_sampled = int(attrs["num_sampled"])
        self._unique = bool(attrs["unique"])
        self._sampler = self.make_sampler(attrs)
        self._lock = threading.Lock()

    def compute(self, true_classes):
        true_classes = np.asarray(true_classes, dtype=np.int64)
        if true_classes.ndim != 2:
            raise InvalidArgumentError("true_classes must be a matrix")
        if true_classes.shape[1] != self._num_true:
            raise InvalidArgumentError(
                f"true_classes must have num_true columns, expected: "
                f"{true_classes.shape[1]} was: {self._num_true}")
        sampler = self._sampler
        if ((true_classes < 0) | (true_classes >= sampler.range)).any():
            bad = true_classes[(true_classes < 0) | (true_classes >= sampler.range)][0]
            raise InvalidArgumentError(
                f"`true_candidate` out of range [0, {sampler.range}), received {bad}")
        if self._unique and self._num_sampled > sampler.range:
            raise InvalidArgumentError("Sampler's range is too small.")
        if not sampler.learns:
            return self._sample(true_classes)
        # The kernel is shared by the session's steps, which may run at once: a run samples
        # and counts from one state of the learned weights and adds its classes alone.
        with self._lock:
            return self._sample(true_classes)

    def _sample(self, true_classes: np.ndarray) -> tuple:
        sampler = self._sampler
        sampled, tries = self._draw()
        count = self._num_sampled
        true_expected = _expected_count(sampler.probability(true_classes), count, tries)
        sampled_expected = _expected_count(sampler.probability(sampled), count, tries)
        sampler.update(true_classes)
        return sampled, true_expected, sampled_expected

    def _draw(self) -> tuple[np.ndarray, int]:
        count = self._num_sampled
        counter = self._stream.reserve(-(-count * _WORDS_RESERVED_PER_SAMPLE // 4))
        reader = _WordReader(self._stream.key, counter)
        sample = self._sampler.sample
        if not self._unique:
            return np.asarray([sample(reader) for _ in range(count)], dtype=np.int64), count
        picked: list[int] = []
        seen: set[int] = set()
        tries = 0
        while len(picked) < count:
            tries += 1
            value = sample(reader)
            if value not in seen:
                seen.add(value)
                picked.append(value)
        return np.asarray(picked, dtype=np.int64), tries


def _expected_count(p: np.ndarray, count: int, tries: int) -> np.ndarray:
    if tries == count:
        return (p * np.float32(count)).astype(np.float32)
    # 1 - (1 - p)^tries, without losing small p, in float32 through the C library's
    # log1pf and expm1f as TensorFlow computes it (numpy's round differently at times)
    lib = _libm()
    if lib is None:
        return -np.expm1(np.float32(tries) * np.log1p(-p.astype(np.float32)))
    flat = [-lib.expm1f(float(np.float32(tries) * np.float32(lib.log1pf(-v))))
            for v in p.reshape(-1).tolist()]
    return np.asarray(flat, dtype=np.float32).reshape(p.shape)


@lru_cache(maxsize=1)
def _libm() -> ctypes.CDLL | None:
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("m"))
        for fn in (lib.log1pf, lib.expm1f):
            fn.argtypes = [ctypes.c_float]
            fn.restype = ctypes.c_float
        lib.powf.argtypes = [ctypes.c_float, ctypes.c_float]
        lib.powf.restype = ctypes.c_float
    except (OSError, AttributeError, TypeError):
        return None
    return lib


def _powf(base: float, exponent: np.float32) -> float:
    """float32 base ** exponent, rounded as the C library's powf (as TensorFlow's)."""
    lib = _libm()
    if lib is None:
        return float(np.power(np.float32(base), exponent, dtype=np.float32))
    return float(np.float32(lib.powf(float(np.float32(base)), float(exponent))))


@register_kernel("UniformCandidateSampler", "CPU")
class UniformCandidateSampler(_CandidateSamplerKernel):
    def make_sampler(self, attrs: dict[str, Any]) -> _Sampler:
        return _Uniform(int(attrs["range_max"]))


@register_kernel("LogUniformCandidateSampler", "CPU")
class LogUniformCandidateSampler(_CandidateSamplerKernel):
    def make_sampler(self, attrs: dict[str, Any]) -> _Sampler:
        return _LogUniform(int(attrs["range_max"]))


@register_kernel("LearnedUnigramCandidateSampler", "CPU")
class LearnedUnigramCandidateSampler(_CandidateSamplerKernel):
    def make_sampler(self, attrs: dict[str, Any]) -> _Sampler:
        return _LearnedUnigram(int(attrs["range_max"]))


@register_kernel("ThreadUnsafeUnigramCandidateSampler", "CPU")
class ThreadUnsafeUnigramCandidateSampler(LearnedUnigramCandidateSampler):
    pass


@register_kernel("FixedUnigramCandidateSampler", "CPU")
class FixedUnigramCandidateSampler(_CandidateSamplerKernel):
    def make_sampler(self, attrs: dict[str, Any]) -> _Sampler:
        range_max = int(attrs["range_max"])
        return _FixedUnigram(range_max, _unigram_weights(attrs, range_max))


@register_kernel("AllCandidateSampler", "CPU")
class AllCandidateSampler(_CandidateSamplerKernel):
    def make_sampler(self, attrs: dict[str, Any]) -> _Sampler:
        return _All(int(attrs["num_sampled"]))

    def compute(self, true_classes):
        sampled, true_expected, sampled_expected = super().compute(true_classes)
        return sampled, np.ones_like(true_expected), np.ones_like(sampled_expected)

    def _draw(self) -> tuple[np.ndarray, int]:
        return np.arange(self._num_sampled, dtype=np.int64), self._num_sampled


@register_kernel("ComputeAccidentalHits", "CPU")
class ComputeAccidentalHits(OpKernel):
    __slots__ = ("_num_true",)

    def setup(self, num_true: int = 1, **attrs: Any) -> None:
        self._num_true = int(num_true)

    def compute(self, true_classes, sampled_candidates):
        true_classes = np.asarray(true_classes, dtype=np.int64)
        sampled = np.asarray(sampled_candidates, dtype=np.int64)
        if true_classes.ndim != 2:
            raise InvalidArgumentError(
                f"true_classes must be a matrix, got shape {list(true_classes.shape)}")
        if sampled.ndim != 1:
            raise InvalidArgumentError(
                f"sampled_candidates must be a vector, got shape {list(sampled.shape)}")
        if true_classes.shape[1] != self._num_true:
            raise InvalidArgumentError(
                f"true_classes must have num_true columns, expected: "
                f"{true_classes.shape[1]} was: {self._num_true}")
        position = {value: i for i, value in enumerate(sampled.tolist())}  # the last wins
        rows, ids = [], []
        for (row, _), value in np.ndenumerate(true_classes):
            hit = position.get(int(value))
            if hit is not None:
                rows.append(row)
                ids.append(hit)
        weights = np.full(len(rows), -np.finfo(np.float32).max, dtype=np.float32)
        return (np.asarray(rows, dtype=np.int32), np.asarray(ids, dtype=np.int64), weights)
