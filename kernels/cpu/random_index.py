"""CPU kernel: RandomIndexShuffle, TensorFlow's cycle-walking Simon cipher, bit for bit.

The permutation of [0, max_index] encrypts an index with a Simon-style Feistel cipher
whose block is the even number of bits ceil(log2(max_index)) rounded up to even (at least
16) and re-encrypts until the result is <= max_index; a cipher is a bijection of its
block, so walking the cycle lands on a permutation of the range. A block is two words of
w = block / 2 bits. The round keys are the three seed words (cast to uint32 and cut to w
bits) followed by rounds - 3 keys of Simon's schedule (constant c = 0xfffffffc and the bit
sequence 0x7369f885192c0ef5, both cut to w bits); each pair of rounds is
left ^= f(right) ^ k1, right ^= f(left) ^ k2 with f(x) = (rotl1 x & rotl8 x) ^ rotl2 x.

TensorFlow 2.21 does not check `rounds`; an odd number or one below 4 makes its kernel read
past its round keys (garbage results or an endless walk), so it is rejected here, and so is
one above 1024 (an attr from an untrusted graph: every encryption costs `rounds`, and the
round keys alone of rounds = 2**40 would not fit in memory).

The smallest block, 16 bits, serves every max_index up to 65536, so a small max_index
walks long cycles (about 32768 encryptions an index for max_index 1). There the whole
block is encrypted once, in numpy, and the walks follow that table.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfx.core.errors import InvalidArgumentError
from tfx.kernels.base import OpKernel, register_kernel
from tfx.kernels.cpu.manip import shape_string

_MIN_BLOCK_BITS = 16
_MAX_ROUNDS = 1024
# Below this max_index a walk in the 16-bit block is long enough that tabulating the block
# (65536 encryptions in numpy) beats encrypting one value at a time in Python.
_TABLE_BELOW = 32
_C = 0xFFFFFFFC
_Z = 0x7369F885192C0EF5


def _block_bits(max_index: int) -> int:
    # As TensorFlow: log2 of the index converted to double, so huge values round first.
    bits = math.ceil(math.log2(float(max_index)))
    return max(bits + bits % 2, _MIN_BLOCK_BITS)


def _round_keys(key: tuple[int, int, int], rounds: int, w: int) -> list[int]:
    mask = (1 << w) - 1

    def rotr(x: int, r: int) -> int:
        return ((x >> r) | (x << (w - r))) & mask

    keys = [k & mask for k in key]
    z = _Z & mask
    for i in range(3, rounds):
        keys.append((_C & mask) ^ (z & 1) ^ keys[i - 3] ^ rotr(keys[i - 1], 3)
                    ^ rotr(keys[i - 1], 4))
        z >>= 1
    return keys


def _encrypt(value: int, keys: list[int], w: int) -> int:
    mask = (1 << w) - 1

    def f(x: int) -> int:
        def rotl(r: int) -> int:
            return ((x << r) | (x >> (w - r))) & mask
        return (rotl(1) & rotl(8)) ^ rotl(2)

    left, right = (value >> w) & mask, value & mask
    for i in range(0, len(keys), 2):
        left ^= f(right) ^ keys[i]
        right ^= f(left) ^ keys[i + 1]
    return (left << w) | right


def _encrypt_many(values: np.ndarray, keys: list[int], w: int) -> np.ndarray:
    """`_encrypt` of every uint64 in `values` at once (w <= 32, so nothing overflows)."""
    mask = np.uint64((1 << w) - 1)

    def f(x: np.ndarray) -> np.ndarray:
        def rotl(r: int) -> np.ndarray:
            return ((x << np.uint64(r)) | (x >> np.uint64(w - r))) & mask
        return (rotl(1) & rotl(8)) ^ rotl(2)

    left, right = (values >> np.uint64(w)) & mask, values & mask
    for i in range(0, len(keys), 2):
        left ^= f(right) ^ np.uint64(keys[i])
        right ^= f(left) ^ np.uint64(keys[i + 1])
    return (left << np.uint64(w)) | right


def _block_table(key: tuple[int, int, int], rounds: int) -> list[int]:
    """The encryption of every value of the 16-bit block under `key`."""
    w = _MIN_BLOCK_BITS // 2
    values = np.arange(1 << _MIN_BLOCK_BITS, dtype=np.uint64)
    return _encrypt_many(values, _round_keys(key, rounds, w), w).tolist()


def _walk_table(index: int, table: list[int], max_index: int) -> int:
    """`index_shuffle` through a block table (index <= max_index < 65536)."""
    value = table[index]
    while value > max_index:
        value = table[value]
    return value


def shuffle_many(indices: np.ndarray, key: tuple[int, int, int], max_index: int,
                 rounds: int) -> np.ndarray:
    """`index_shuffle` of every index in a uint64 array under one key and max_index."""
    if max_index == 0:
        return np.zeros_like(indices)
    w = _block_bits(max_index) // 2
    if 2 * w == _MIN_BLOCK_BITS and max_index < 1 << _MIN_BLOCK_BITS:
        table = _block_table(key, rounds)
        return np.array([_walk_table(i, table, max_index) for i in indices.tolist()],
                        np.uint64).reshape(indices.shape)
    keys = _round_keys(key, rounds, w)
    values = indices.copy()
    pending = np.ones(values.shape, bool)
    while pending.any():
        values[pending] = _encrypt_many(values[pending], keys, w)
        pending = values > np.uint64(max_index)
    return values


def index_shuffle(index: int, key: tuple[int, int, int], max_index: int, rounds: int) -> int:
    """The position of `index` in the permutation of [0, max_index] chosen by `key`."""
    if max_index == 0:
        return 0
    w = _block_bits(max_index) // 2
    keys = _round_keys(key, rounds, w)
    value = index
    while True:
        value = _encrypt(value, keys, w)
        if value <= max_index:
            return value


@register_kernel("RandomIndexShuffle", "CPU")
class RandomIndexShuffle(OpKernel):
    """Each index's place in the seeded permutation of [0, max_index]."""

    def setup(self, rounds: int = 4, **attrs: Any) -> None:
        if rounds < 4 or rounds % 2 or rounds > _MAX_ROUNDS:
            raise InvalidArgumentError(
                f"rounds must be an even number >= 4 and <= {_MAX_ROUNDS}, but got {rounds}")
        self._rounds = rounds

    def compute(self, index, seed, max_index):
        index, seed, max_index = np.asarray(index), np.asarray(seed), np.asarray(max_index)
        n = max(index.size, max_index.size, seed.size // 3)
        if not (index.ndim == 0 or (index.ndim == 1 and index.shape[0] == n)):
            raise InvalidArgumentError("Index bust be a scalar or vector.")
        if not ((seed.ndim == 1 and seed.shape[0] == 3)
                or (seed.ndim == 2 and seed.shape == (n, 3))):
            raise InvalidArgumentError(
                f"Seed must be a vector of size [3] or a matrix of size [{n}, 3] but got "
                f"{shape_string(seed.shape)}.")
        if not (max_index.ndim == 0 or (max_index.ndim == 1 and max_index.shape[0] == n)):
            raise InvalidArgumentError(
                "Maxval must be a scalar or a vector of the same size as index but got "
                f"{shape_string(max_index.shape)}")
        all_scalar = index.ndim == 0 and seed.ndim == 1 and max_index.ndim == 0
        indices = np.broadcast_to(index, (n,)).tolist()
        maxima = np.broadcast_to(max_index, (n,)).tolist()
        keys = (seed.reshape(-1, 3).astype(np.int64) & 0xFFFFFFFF).tolist()
        for idx, top in zip(indices, maxima):
            if idx < 0:
                raise InvalidArgumentError(f"index must be >= 0 but was {idx}")
            if top < 0:
                raise InvalidArgumentError(f"max_index must be >= 0 but was {top}")
            if top < idx:
                raise InvalidArgumentError(f"max_index must be >= index, but {top} < {idx}")
        if seed.ndim == 1 and max_index.ndim == 0:
            # One permutation for every index: encrypt them together.
            out = shuffle_many(np.array(indices, np.uint64), tuple(keys[0]),
                               int(max_index), self._rounds).astype(index.dtype)
        else:
            out = np.empty(n, index.dtype)
            tables: dict[tuple[int, ...], list[int]] = {}
            for i in range(n):
                key = tuple(keys[0] if seed.ndim == 1 else keys[i])
                top = int(maxima[i])
                if 0 < top < _TABLE_BELOW:
                    if key not in tables:
                        tables[key] = _block_table(key, self._rounds)
                    out[i] = _walk_table(int(indices[i]), tables[key], top)
                else:
                    out[i] = index_shuffle(int(indices[i]), key, top, self._rounds)
        return (out.reshape(()) if all_scalar else out,)
