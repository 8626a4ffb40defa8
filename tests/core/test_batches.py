"""tfx.core.batches: step-indexed, seeded, evenly sized mini-batches."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfx.core.batches import Batches
from tfx.core.errors import InvalidArgumentError


@settings(max_examples=60, deadline=None)
@given(examples=st.integers(1, 200), batch_size=st.integers(1, 64), seed=st.integers(0, 9),
       shuffle=st.booleans())
def test_each_epoch_visits_every_example_once_in_near_equal_batches(
        examples: int, batch_size: int, seed: int, shuffle: bool) -> None:
    ids = np.arange(examples)
    batches = Batches({"x:0": ids, "y:0": ids * 10}, batch_size, shuffle=shuffle, seed=seed)
    assert batches.steps_per_epoch == -(-examples // min(batch_size, examples))
    for epoch in range(2):
        seen = []
        sizes = set()
        for index in range(batches.steps_per_epoch):
            batch = batches(epoch * batches.steps_per_epoch + index)
            assert np.array_equal(batch["y:0"], batch["x:0"] * 10)  # rows stay aligned
            seen.extend(batch["x:0"].tolist())
            sizes.add(len(batch["x:0"]))
        assert sorted(seen) == ids.tolist()
        assert max(sizes) - min(sizes) <= 1 and max(sizes) <= batch_size
        if not shuffle:
            assert seen == ids.tolist()


def test_a_step_depends_only_on_its_number_and_epochs_reshuffle() -> None:
    data = {"x:0": np.arange(100)}
    first, second = Batches(data, 10, seed=3), Batches(data, 10, seed=3)
    late = second(25)  # a resumed run starts in the middle
    assert np.array_equal(first(25)["x:0"], late["x:0"])
    assert not np.array_equal(first(0)["x:0"], first(10)["x:0"])  # epoch 1 has a new order
    assert not np.array_equal(Batches(data, 10, seed=4)(0)["x:0"], first(0)["x:0"])


def test_the_digits_case_has_no_tiny_last_batch() -> None:
    batches = Batches({"x:0": np.zeros((1347, 64))}, 32)
    sizes = {len(batches(i)["x:0"]) for i in range(batches.steps_per_epoch)}
    assert batches.steps_per_epoch == 43 and sizes == {31, 32}


@pytest.mark.parametrize("arrays, batch_size, message", [
    ({}, 4, "no arrays"),
    ({"x:0": np.zeros(3)}, 0, "at least 1"),
    ({"x:0": np.zeros(3), "y:0": np.zeros(4)}, 2, "x:0 has 3, y:0 has 4"),
    ({"x:0": np.float32(1)}, 2, "'x:0' is a scalar"),
    ({"x:0": np.zeros((0, 2))}, 2, "no examples"),
])
def test_bad_data_is_one_clear_error(arrays, batch_size, message) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        Batches(arrays, batch_size, source="--data d.npz")
