"""TopKV2 with sorted=False: the order TensorFlow's CPU kernel leaves the k entries in.

Every expected index list below is TensorFlow 2.21's `tf.math.top_k(x, k, sorted=False)`
output, written down literally. k == 1 and k == n come back sorted; for 1 < k < n the
order is the layout of TensorFlow's heap of the k best (see the kernel's docstring).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from kernel_checks import run

TIES = np.array([2, 0, 2, 1, 2, 0, 1, 2, 2, 1], np.float32)
MOD50 = ((np.arange(50) * 37) % 23).astype(np.int32)
# 10000 columns: more than one screening block of the kernel.
BIG = ((np.arange(10000) * 7919) % 10007).astype(np.float32)

# fmt: off
CASES = {
    "random": (np.array([-0.12853466, 1.3664634, -0.6651947, 0.35151008, 0.90347016],
                        np.float32), 3, [3, 1, 4]),
    "ascending": (np.arange(8, dtype=np.float32), 3, [5, 6, 7]),
    "ascending_k4": (np.arange(8, dtype=np.float32), 4, [4, 5, 6, 7]),
    "descending": (np.arange(8, dtype=np.float32)[::-1].copy(), 3, [2, 1, 0]),
    "ties_k1": (TIES, 1, [0]),
    "ties_k2": (TIES, 2, [2, 0]),
    "ties_k3": (TIES, 3, [4, 0, 2]),
    "ties_k4": (TIES, 4, [7, 4, 2, 0]),
    "ties_k6": (TIES, 6, [3, 4, 8, 0, 2, 7]),
    "ties_k9": (TIES, 9, [1, 9, 6, 3, 4, 2, 0, 7, 8]),
    "ties_k_is_n": (TIES, 10, [0, 2, 4, 7, 8, 3, 6, 9, 1, 5]),
    "constant_int32": (np.ones(6, np.int32), 3, [2, 1, 0]),
    "mod50_int32": (MOD50, 10, [21, 49, 26, 8, 3, 31, 18, 13, 41, 36]),
    "nan": (np.array([1, np.nan, 3, 0, np.nan, 5, 2], np.float32), 3, [2, 1, 5]),
    "big": (BIG, 20, [786, 9753, 4553, 5593, 8713, 9360, 3513, 393, 2473, 7673, 6240, 3120,
                      8320, 2080, 1433, 4160, 5200, 7280, 1040, 6633]),
    "ascending_9000_int64": (np.arange(9000, dtype=np.int64), 5,
                             [8995, 8996, 8998, 8997, 8999]),
}
# fmt: on


@pytest.mark.parametrize("name", CASES)
def test_unsorted_order_matches_tensorflow(name):
    x, k, want = CASES[name]
    values, indices = run("TopKV2", x, np.int32(k), sorted=False)
    assert np.asarray(indices).tolist() == want
    np.testing.assert_array_equal(values, x[want])


def test_unsorted_rows_are_independent():
    x = np.array([[5, 1, 4, 2, 3, 0], [0, 1, 2, 3, 4, 5]], np.float64)
    values, indices = run("TopKV2", x, np.int32(3), sorted=False)
    assert np.asarray(indices).tolist() == [[4, 0, 2], [3, 4, 5]]
    np.testing.assert_array_equal(values, [[3, 5, 4], [3, 4, 5]])
    _, v1_indices = run("TopK", x, k=3, sorted=False)
    assert np.asarray(v1_indices).tolist() == [[4, 0, 2], [3, 4, 5]]


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.int32,
        hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=30),
        elements=st.integers(-4, 4),
    ),
    st.data(),
)
def test_unsorted_holds_the_sorted_entries(x, data):
    k = data.draw(st.integers(0, x.shape[-1]))
    values, indices = run("TopKV2", x, np.int32(k), sorted=False)
    sorted_values, sorted_indices = run("TopKV2", x, np.int32(k))
    np.testing.assert_array_equal(np.sort(indices, axis=-1), np.sort(sorted_indices, axis=-1))
    np.testing.assert_array_equal(values, np.take_along_axis(x, np.asarray(indices), axis=-1))
