"""RandomIndexShuffle (core/ops/random_index_ops.py, kernels/cpu/random_index.py) and
tf.random_index_shuffle (core/api/random_index_api.py) against TensorFlow 2.21's values,
recorded in tf.compat.v1 graph mode with the same inputs (every 64-bit and 32-bit block
size class, three seeds, 4, 6 and 8 rounds), its error messages and static shapes, and
the permutation property. These tests need no TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api.random_index_api import random_index_shuffle
from tfx.kernels.cpu.random_index import index_shuffle

# (max_index, seed, rounds, index, TensorFlow 2.21's output); int64 when max_index >= 2**31
# fmt: off
CASES = [
    (0, [0, 0, 0], 4, [0], [0]),
    (0, [1, 2, 3], 4, [0], [0]),
    (0, [-1, 7, 2147483647], 4, [0], [0]),
    (1, [0, 0, 0], 4, [0, 1], [0, 1]),
    (1, [1, 2, 3], 4, [0, 1], [1, 0]),
    (1, [-1, 7, 2147483647], 4, [0, 1], [0, 1]),
    (2, [0, 0, 0], 4, [0, 1, 2], [0, 1, 2]),
    (2, [1, 2, 3], 4, [0, 1, 2], [2, 0, 1]),
    (2, [-1, 7, 2147483647], 4, [0, 1, 2], [2, 1, 0]),
    (5, [0, 0, 0], 4, [0, 1, 2, 4, 5], [0, 1, 2, 4, 5]),
    (5, [1, 2, 3], 4, [0, 1, 2, 5], [2, 0, 3, 1]),
    (5, [-1, 7, 2147483647], 4, [0, 1, 2, 3, 5], [2, 3, 0, 1, 5]),
    (9, [0, 0, 0], 4, [0, 3, 4, 6, 9], [0, 3, 4, 6, 9]),
    (9, [1, 2, 3], 4, [0, 3, 4, 5, 7, 9], [2, 4, 8, 1, 9, 3]),
    (9, [-1, 7, 2147483647], 4, [0, 3, 4, 5, 9], [2, 1, 6, 7, 9]),
    (100, [0, 0, 0], 4, [0, 33, 42, 50, 77, 98, 100], [69, 33, 42, 50, 27, 98, 100]),
    (100, [1, 2, 3], 4, [0, 2, 23, 33, 50, 59, 100], [63, 82, 15, 28, 8, 26, 37]),
    (100, [-1, 7, 2147483647], 4, [0, 20, 33, 46, 50, 99, 100], [2, 22, 35, 44, 48, 97, 100]),
    (1000, [0, 0, 0], 4,
     [0, 36, 333, 500, 705, 778, 1000],
     [253, 909, 297, 269, 564, 778, 795]),
    (1000, [1, 2, 3], 4,
     [0, 32, 80, 182, 333, 500, 1000],
     [724, 929, 502, 251, 773, 838, 895]),
    (1000, [-1, 7, 2147483647], 4,
     [0, 184, 333, 444, 488, 500, 1000],
     [2, 58, 980, 442, 615, 498, 728]),
    (65535, [0, 0, 0], 4,
     [0, 8286, 21845, 32767, 38763, 44258, 65535],
     [253, 27231, 22013, 63166, 25544, 15755, 65282]),
    (65535, [1, 2, 3], 4,
     [0, 3912, 6594, 21845, 32767, 50586, 65535],
     [7886, 16278, 44944, 19906, 60591, 55297, 58889]),
    (65535, [-1, 7, 2147483647], 4,
     [0, 15620, 21845, 32767, 40800, 40899, 65535],
     [6781, 36604, 18805, 25641, 7566, 53878, 60545]),
    (65536, [0, 0, 0], 4,
     [0, 17340, 19608, 21845, 32768, 42512, 65536],
     [253, 62549, 22522, 22013, 35037, 54628, 253]),
    (65536, [1, 2, 3], 4,
     [0, 15588, 21845, 32768, 38395, 60155, 65536],
     [7886, 9009, 19906, 38647, 30668, 29380, 7886]),
    (65536, [-1, 7, 2147483647], 4,
     [0, 15115, 15912, 21845, 28086, 32768, 65536],
     [6781, 52946, 62942, 18805, 45728, 37580, 6781]),
    (65537, [0, 0, 0], 4,
     [0, 1740, 5103, 21845, 32768, 35050, 65537],
     [509, 56079, 59856, 4990, 34293, 52022, 19730]),
    (65537, [1, 2, 3], 4,
     [0, 21845, 28651, 32768, 33930, 46774, 65537],
     [13622, 13459, 5545, 45854, 17062, 46897, 986]),
    (65537, [-1, 7, 2147483647], 4,
     [0, 17582, 21845, 29844, 32768, 38429, 65537],
     [15473, 9338, 12133, 38764, 56362, 63309, 40730]),
    (1048579, [0, 0, 0], 4,
     [0, 43349, 207650, 349526, 524289, 1043500, 1048579],
     [2045, 190717, 934173, 547021, 657132, 588479, 99674]),
    (1048579, [1, 2, 3], 4,
     [0, 263038, 349526, 432257, 524289, 587701, 1048579],
     [54546, 67912, 721899, 715777, 710179, 494372, 743325]),
    (1048579, [-1, 7, 2147483647], 4,
     [0, 349526, 524289, 566809, 741699, 843623, 1048579],
     [57461, 536441, 624718, 948959, 499413, 259698, 802674]),
    (2147483647, [0, 0, 0], 4,
     [0, 298816044, 715827882, 939521381, 1073741823, 1908564876, 2147483647],
     [65533, 1131151315, 715325405, 1035956831, 1076383173, 1765811003, 1721529292]),
    (2147483647, [1, 2, 3], 4,
     [0, 249233355, 366341671, 715827882, 1073741823, 1092452775, 2147483647],
     [1748882, 1008816990, 1356854495, 783331250, 795527019, 706745808, 480521044]),
    (2147483647, [-1, 7, 2147483647], 4,
     [0, 505336915, 715827882, 1073741823, 1622431787, 2046141276, 2147483647],
     [1835125, 1258319497, 749865152, 1005025135, 1119034167, 1141961814, 2061628735]),
    (1099511627783, [0, 0, 0], 4,
     [0, 274475975696, 366503875927, 452988041146, 455855890596, 549755813891, 1099511627783],
     [2097149, 1022249484271, 347487016833, 288474567441, 953216987001, 550164757702,
      733682157602]),
    (1099511627783, [1, 2, 3], 4,
     [0, 59637071162, 350812411000, 366503875927, 549755813891, 948280415140, 1099511627783],
     [55967634, 897435811104, 415152389056, 345285135864, 550210239625, 84161558741,
      211938320266]),
    (1099511627783, [-1, 7, 2147483647], 4,
     [0, 230851289904, 366503875927, 406869526587, 533474267299, 549755813891, 1099511627783],
     [58720373, 970795047007, 1029367896757, 111318583288, 627744746534, 579952762066,
      883366749664]),
    (9223372036854775807, [0, 0, 0], 4,
     [0, 1179766422502127577, 2406339685000636759, 3074457345618258602, 4274140591039552370,
      4611686018427387903, 9223372036854775807],
     [4294967293, 6810749873516164981, 642102344256544676, 3074457312690175965,
      4177717416321372562, 4611474293732314400, 9223230152618741310]),
    (9223372036854775807, [1, 2, 3], 4,
     [0, 208798371029409918, 1804912196312335140, 3074457345618258602, 4137918737247314497,
      4611686018427387903, 9223372036854775807],
     [114621939602, 2389132159482083961, 5472047787401921130, 3074461769523789746,
      4781524307122782282, 4611192794344887929, 9222948653231314791]),
    (9223372036854775807, [-1, 7, 2147483647], 4,
     [0, 1466923583986519937, 1652884223648521344, 2710687094182976740, 3074457345618258602,
      4611686018427387903, 9223372036854775807],
     [2167142788890788, 3184308974281134238, 470777317437858527, 470652912286560624,
      6788517512194505240, 4492483824711606118, 6005017567905538151]),
]
# fmt: on


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_values_match_tensorflow():
    outs, wants = [], []
    for max_index, seed, rounds, index, want in CASES:
        dtype = tf.int64 if max_index >= 2**31 else tf.int32
        outs.append(random_index_shuffle(tf.constant(index, dtype), tf.constant(seed, tf.int64),
                                         tf.constant(max_index, dtype), rounds=rounds))
        wants.append(want)
    for got, want in zip(_run(outs), wants):
        assert got.tolist() == want


def test_more_values_match_tensorflow():
    assert _run(random_index_shuffle(tf.range(10), [1, 2, 3], 9)).tolist() == [
        2, 0, 6, 4, 8, 1, 7, 9, 5, 3]
    unsigned = random_index_shuffle(np.arange(10, dtype=np.uint32),
                                    np.array([1, 2, 3], np.uint32), np.uint32(9))
    assert unsigned.dtype == tf.uint32
    assert _run(unsigned).tolist() == [2, 0, 6, 4, 8, 1, 7, 9, 5, 3]
    top = np.uint64(2**64 - 1)
    assert _run(random_index_shuffle(np.array([0, 12345], np.uint64),
                                     np.array([5, 6, 7], np.uint64), top)).tolist() == [
        319706627778, 4375001592079211]
    assert _run(random_index_shuffle(np.array([2**63 + 5], np.uint64),
                                     np.array([1, 2, 3], np.uint64), top)).tolist() == [
        9223373491506509927]
    # one seed row per index; a scalar index with seed rows gives a vector
    rows = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert _run(random_index_shuffle([3, 3, 3], rows, [10, 20, 30])).tolist() == [4, 19, 7]
    assert _run(random_index_shuffle(3, rows[:2], 10)).tolist() == [4, 7]
    # seeds are cast to uint32: int64 words keep their low 32 bits, -1 is 2**32 - 1
    assert _run(random_index_shuffle(np.int64(5), np.array([2**40 + 1, -2**33 - 3, 9]),
                                     np.int64(99))) == 79
    assert _run(random_index_shuffle(np.uint32(3), np.array([2**32 - 1, 0, 5], np.uint32),
                                     np.uint32(100000))) == 20827
    assert _run(random_index_shuffle(3, [-1, 0, 5], 100000)) == 20827


def test_static_shapes_match_tensorflow():
    assert random_index_shuffle(3, [1, 2, 3], 9).shape.as_list() == []
    assert random_index_shuffle([3, 4], [1, 2, 3], 9).shape.as_list() == [2]
    assert random_index_shuffle(3, [[1, 2, 3]], 9).shape.as_list() == [1]
    assert random_index_shuffle(tf.placeholder(tf.int32), [1, 2, 3], 9).shape.ndims is None
    out = random_index_shuffle(3, [1, 2, 3], 9, name="shuffled")
    assert out.op.type == "RandomIndexShuffle" and out.name == "shuffled:0"
    assert out.op.get_attr("rounds") == 4


@pytest.mark.parametrize("args, message", [
    ((3, [1, 2], 9), "Seed must have shape [3] or [n, 3] but got [2]."),
    (([1, 2, 3], [[1, 2, 3], [1, 2, 3]], 9),
     "Seed has shape [2, 3] but must have shape [3, 3]. since index had shape [3]."),
    (([[1, 2]], [1, 2, 3], 9), "Shape must be at most rank 1 but is rank 2"),
    (([1, 2, 3], [1, 2, 3], [9, 9]), "Max index has shape [2] but must have shape [3]."),
])
def test_shape_errors_match_tensorflow(args, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        random_index_shuffle(*args)
    assert message in str(info.value)


# (index, seed, max_index fed through placeholders) -> TensorFlow 2.21's error
RUN_ERRORS = [
    ([[1, 2]], [1, 2, 3], 9, "Index bust be a scalar or vector."),
    (1, [1, 2], 9, "Seed must be a vector of size [3] or a matrix of size [1, 3] but got [2]."),
    ([1, 2, 3], [[1, 2, 3], [1, 2, 3]], 9,
     "Seed must be a vector of size [3] or a matrix of size [3, 3] but got [2,3]."),
    ([1, 2, 3], [1, 2, 3], [9, 9],
     "Maxval must be a scalar or a vector of the same size as index but got [2]"),
    ([1, 2, 3], [1, 2, 3], [[9, 9, 9]],
     "Maxval must be a scalar or a vector of the same size as index but got [1,3]"),
    (50, [1, 2, 3], 9, "max_index must be >= index, but 9 < 50"),
    ([1, 7], [1, 2, 3], [5, 6], "max_index must be >= index, but 6 < 7"),
    (3, [1, 2, 3], -5, "max_index must be >= 0 but was -5"),
    (-3, [1, 2, 3], 5, "index must be >= 0 but was -3"),
]


@pytest.mark.parametrize("index, seed, max_index, message", RUN_ERRORS)
def test_run_errors_match_tensorflow(index, seed, max_index, message):
    phs = [tf.placeholder(tf.int32) for _ in range(3)]
    out = random_index_shuffle(*phs)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(out, dict(zip(phs, [index, seed, max_index])))
    assert message in str(info.value)


@pytest.mark.parametrize("rounds", [0, 2, 3, 5, 1026, 2**40])
def test_rounds_must_be_even_and_at_least_4(rounds):
    # rounds above 1024 (tfx's bound: TensorFlow 2.21 has none) would cost that much per
    # encryption, and 2**40 round keys would not fit in memory
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"rounds must be an even number >= 4 and <= 1024, but got "
                             f"{rounds}"):
        _run(random_index_shuffle(3, [1, 2, 3], 9, rounds=rounds))


def test_most_rounds_allowed():
    assert _run(random_index_shuffle(3, [1, 2, 3], 70000, rounds=1024)) == index_shuffle(
        3, (1, 2, 3), 70000, 1024)


def test_small_max_index_per_row_matches_tensorflow():
    # The per-row path (a vector max_index) walks a tabulated block below max_index 32.
    for max_index, seed, rounds, index, want in CASES:
        if max_index < 32:
            got = random_index_shuffle(index, seed, [max_index] * len(index), rounds=rounds)
            assert _run(got).tolist() == want


def test_long_walks_are_fast():
    # max_index 1 in the 16-bit block: about 32768 encryptions an index; 100 rows under
    # two seeds took the pure-Python walk about 25 s, a table per seed takes milliseconds.
    rows = [[1, 2, 3], [4, 5, 6]] * 50
    got = _run(random_index_shuffle([0, 1] * 50, rows, 1, rounds=16)).tolist()
    assert got == [index_shuffle(0, (1, 2, 3), 1, 16), index_shuffle(1, (4, 5, 6), 1, 16)] * 50
    shared = _run(random_index_shuffle([0, 1] * 500, [1, 2, 3], 1, rounds=16)).tolist()
    assert sorted(shared[:2]) == [0, 1] and shared == shared[:2] * 500


def test_not_differentiable():
    x = tf.constant(3)
    assert tf.gradients(random_index_shuffle(x, [1, 2, 3], 9), x) == [None]


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 300), st.lists(st.integers(0, 2**32 - 1), min_size=3, max_size=3),
       st.sampled_from([4, 6, 8]))
def test_each_range_is_permuted(max_index, seed, rounds):
    got = sorted(index_shuffle(i, tuple(seed), max_index, rounds)
                 for i in range(max_index + 1))
    assert got == list(range(max_index + 1))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**40), st.lists(st.integers(0, 2**32 - 1), min_size=3, max_size=3))
def test_kernel_equals_the_scalar_function(max_index, seed):
    index = np.array([0, max_index // 2, max_index], np.int64)
    with tf.Graph().as_default():
        got = _run(random_index_shuffle(index, np.array(seed, np.uint32), np.int64(max_index)))
    assert got.tolist() == [index_shuffle(int(i), tuple(seed), max_index, 4) for i in index]
