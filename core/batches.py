"""Mini-batches of a dataset for training steps: `tfx run --data FILE.npz`.

`Batches(arrays, batch_size)` holds arrays that share their first dimension
(the examples: images and labels, say) and gives, for step k (counting from
0), the feeds of that step: epoch k // steps_per_epoch, batch k %
steps_per_epoch. Each epoch visits every example once, in an order shuffled
by a generator seeded with (seed, epoch). The examples are spread evenly over
the epoch's steps, so batch sizes differ by at most one (1347 examples in
batches of 32 make 43 steps of 31 or 32): a tiny last batch would take a
full-size gradient step on a handful of examples (on the 8x8 digits that cost
the Figure 1 MLP five points of held-out accuracy). Because a step's batch
depends on nothing but its number, a run resumed from a checkpoint at step k
sees the batches it would have seen.

Example:
    >>> batches = Batches({"x:0": images, "y:0": labels}, batch_size=32)
    >>> batches.steps_per_epoch
    42
    >>> batches(0)["x:0"].shape
    (31, 64)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tfx.core.errors import InvalidArgumentError


class Batches:
    """Step-indexed mini-batches of aligned arrays (see the module docstring).

    Args:
        arrays: feed name -> array; all with the same, non-zero first dimension.
        batch_size: examples per step (a larger one gives one batch per epoch).
        shuffle: visit the examples in a new seeded order every epoch.
        seed: the shuffling seed.
        source: what to name in errors (the data file).
    """

    def __init__(self, arrays: Mapping[str, Any], batch_size: int, *, shuffle: bool = True,
                 seed: int = 0, source: str = "the data") -> None:
        if not arrays:
            raise InvalidArgumentError(f"{source}: no arrays to batch")
        if batch_size < 1:
            raise InvalidArgumentError(f"batch size must be at least 1, not {batch_size}")
        self.arrays = {name: np.asarray(value) for name, value in arrays.items()}
        lengths = {name: (a.shape[0] if a.ndim else None) for name, a in self.arrays.items()}
        if None in lengths.values():
            scalar = next(n for n, length in lengths.items() if length is None)
            raise InvalidArgumentError(
                f"{source}: {scalar!r} is a scalar; batched arrays need a first dimension")
        if len(set(lengths.values())) != 1:
            shown = ", ".join(f"{name} has {length}" for name, length in lengths.items())
            raise InvalidArgumentError(
                f"{source}: the arrays must have as many examples each: {shown}")
        self.examples = next(iter(lengths.values()))
        if self.examples == 0:
            raise InvalidArgumentError(f"{source}: the arrays hold no examples")
        self.batch_size = min(batch_size, self.examples)
        self.steps_per_epoch = -(-self.examples // self.batch_size)
        self.shuffle = shuffle
        self.seed = seed
        self._epoch = -1
        self._order: np.ndarray | None = None

    def __call__(self, step: int) -> dict[str, np.ndarray]:
        epoch, index = divmod(step, self.steps_per_epoch)
        steps, examples = self.steps_per_epoch, self.examples
        rows = self._epoch_order(epoch)[index * examples // steps:(index + 1) * examples // steps]
        return {name: array[rows] for name, array in self.arrays.items()}

    def _epoch_order(self, epoch: int) -> np.ndarray:
        if epoch != self._epoch:
            if self.shuffle:
                self._order = np.random.default_rng([self.seed, epoch]).permutation(self.examples)
            else:
                self._order = np.arange(self.examples)
            self._epoch = epoch
        return self._order
