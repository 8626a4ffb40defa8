"""CPU kernels: SdcaOptimizer and SdcaOptimizerV2 (stochastic dual coordinate ascent).

One pass over a mini-batch, as TensorFlow's sdca_ops.cc with sdca_internal.cc and its
loss updaters. Each example i has sparse feature groups (ids into that group's
`sparse_indices`, with values or 1.0), dense feature rows, a weight, a label and a state
row [dual, primal loss, dual loss, weight]. In an order (below), each example:

* takes wx = x . shrink(w + delta * num_loss_partitions) and prev_wx = x . shrink(w),
  shrink(v) = sign(v) * max(|v| - l1 / l2, 0) (float32 for dense groups), and its
  normalized squared norm |x|^2 / l2;
* gets a new dual from its loss: squared (closed form), hinge and smooth hinge
  (gamma 1, clipped to [0, label]), logistic and Poisson (10 Newton steps); labels 0/1
  become -1/1 for the classification losses;
* adds x * (new dual - dual) * weight / l2 to the deltas of its features, and writes
  [new dual, primal loss at prev_wx, dual loss at the old dual, weight].

The order is a fresh random permutation, as TensorFlow's (seeded from the system, so a
batch whose examples share features trains differently run to run there too). With
`adaptative` (`adaptive` in V2) examples are drawn by TensorFlow's importance rule:
probability weight * sqrt(|x|^2 + l2 * smoothness) * |dual + loss'(wx)|, a drawn
example kept with probability 0.1 ** (times drawn before), at most N rejections; the
positions left unfilled train example 0, as TensorFlow's sampler leaves them.
Arithmetic follows TensorFlow's types: float32 weights, deltas and state, float64 duals.
"""

from __future__ import annotations

import math

import numpy as np

from tfx.core.errors import InvalidArgumentError
from tfx.kernels.base import OpKernel, register_kernel

_DOUBLE_MAX = np.finfo(np.float64).max


def _exp(x: float) -> float:
    """exp, +inf past float64's range as C's (Python's raises)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _binary_label(label: float) -> float:
    if label == 0.0:
        return -1.0
    if label == 1.0:
        return 1.0
    raise InvalidArgumentError("Only labels of 0.0 or 1.0 are supported right now. Found "
                               f"example with label: {_float_text(label)}")


def _float_text(value: float) -> str:
    """A float as TensorFlow's StrCat prints it (shortest round-trip, no '.0')."""
    return f"{np.float32(value)!r}".removeprefix("np.float32(").removesuffix(")").removesuffix(
        ".0")


class _Squared:
    smoothness = 1.0

    def label(self, y: float) -> float:
        return y

    def new_dual(self, parts: int, y: float, w: float, dual: float, wx: float,
                 norm: float) -> float:
        return dual + (y - dual - wx) / (1 + parts * norm * w)

    def dual_loss(self, dual: float, y: float, w: float) -> float:
        return dual * (0.5 * dual - y) * w

    def primal_loss(self, wx: float, y: float, w: float) -> float:
        return (wx - y) * (wx - y) * w * 0.5

    def derivative(self, wx: float, y: float, w: float) -> float:
        return (wx - y) * w


class _Hinge:
    smoothness = 0.0
    gamma = 0.0

    def label(self, y: float) -> float:
        return _binary_label(y)

    def new_dual(self, parts: int, y: float, w: float, dual: float, wx: float,
                 norm: float) -> float:
        candidate = dual + (y - wx - self.gamma * dual) / (parts * w * norm + self.gamma)
        if y * candidate < 0:
            return 0.0
        if y * candidate > 1.0:
            return y
        return candidate

    def dual_loss(self, dual: float, y: float, w: float) -> float:
        y_alpha = dual * y
        if y_alpha < 0 or y_alpha > 1.0:
            return _DOUBLE_MAX
        return (-y_alpha + 0.5 * self.gamma * dual * dual) * w

    def primal_loss(self, wx: float, y: float, w: float) -> float:
        return max(0.0, 1 - y * wx) * w

    def derivative(self, wx: float, y: float, w: float) -> float:
        return -y * w if y * wx < 1 else 0.0


class _SmoothHinge(_Hinge):
    smoothness = 1.0
    gamma = 1.0

    def primal_loss(self, wx: float, y: float, w: float) -> float:
        y_wx = y * wx
        if y_wx >= 1:
            return 0.0
        if y_wx <= 1 - self.gamma:
            return (1 - y_wx - self.gamma / 2) * w
        return (1 - y_wx) * (1 - y_wx) * w * 0.5 / self.gamma

    def derivative(self, wx: float, y: float, w: float) -> float:
        if y * wx >= 1:
            return 0.0
        if y * wx <= 1 - self.gamma:
            return -y
        return (wx - y) / self.gamma


class _Logistic:
    smoothness = 4.0

    def label(self, y: float) -> float:
        return _binary_label(y)

    def new_dual(self, parts: int, y: float, w: float, dual: float, wx: float,
                 norm: float) -> float:
        x = 0.0
        scale = parts * norm * w
        for _ in range(10):  # Newton on a rescaled dual (TensorFlow's readme)
            t = math.tanh(x)
            numerator = -2 * y * x - wx - scale * (0.5 * (1 + t) / y - dual)
            denominator = -2 * y - scale * (1 - t * t) * 0.5 / y
            x -= numerator / denominator
        return 0.5 * (1 + math.tanh(x)) / y

    def dual_loss(self, dual: float, y: float, w: float) -> float:
        ay = dual * y
        log_ay = math.log(ay) if ay > 0 else 0.0
        rest = 1 - ay
        log_rest = math.log(rest) if rest > 0 else 0.0
        return (ay * log_ay + rest * log_rest) * w

    def primal_loss(self, wx: float, y: float, w: float) -> float:
        y_wx = y * wx
        if y_wx > 0:
            return math.log(1 + _exp(-y_wx)) * w
        return (math.log(1 + _exp(y_wx)) - y_wx) * w

    def derivative(self, wx: float, y: float, w: float) -> float:
        if y * wx > 0:
            inverse = _exp(-y * wx) / (1 + _exp(-y * wx))
        else:
            inverse = 1 / (1 + _exp(y * wx))
        return -inverse * y * w


class _Poisson:
    smoothness = 1.0

    def label(self, y: float) -> float:
        if y < 0.0:
            raise InvalidArgumentError("Only non-negative labels can be used with the Poisson "
                                       f"log loss. Found example with label: {_float_text(y)}")
        return y

    def new_dual(self, parts: int, y: float, w: float, dual: float, wx: float,
                 norm: float) -> float:
        gap = y - dual
        x = math.log(gap) if gap > 0 else 0.0
        scale = parts * norm * w
        for _ in range(10):
            e = _exp(x)
            x -= (x - wx - scale * (y - dual - e)) / (1 + scale * e)
        return y - _exp(x)

    def dual_loss(self, dual: float, y: float, w: float) -> float:
        gap = y - dual
        if gap == 0.0:
            return 0.0
        if gap < 0.0:
            return _DOUBLE_MAX
        return gap * (math.log(gap) - 1) * w

    def primal_loss(self, wx: float, y: float, w: float) -> float:
        return (_exp(wx) - wx * y) * w

    def derivative(self, wx: float, y: float, w: float) -> float:
        return (_exp(wx) - y) * w


_LOSSES = {"squared_loss": _Squared, "hinge_loss": _Hinge, "smooth_hinge_loss": _SmoothHinge,
           "logistic_loss": _Logistic, "poisson_loss": _Poisson}


def _shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


class _Batch:
    """The examples of one call: per example its sparse (weight slot, value) pairs per
    group, its dense rows, weight, label and squared norm."""

    def __init__(self, k: SdcaOptimizer, sparse_example: list, sparse_feature: list,
                 sparse_values: list, dense: list, weights: np.ndarray, labels: np.ndarray,
                 slots: list[dict[int, int]], dense_weights: list) -> None:
        n = weights.size
        if labels.size != n:
            raise InvalidArgumentError(f"Expected {n} example labels but got {labels.size}")
        self.n = n
        self.weights = weights
        self.labels = labels
        # sparse[g][i] = (slot indices, values as float64)
        self.sparse: list[list[tuple[np.ndarray, np.ndarray]]] = []
        for g in range(k.num_sparse):
            examples, features = sparse_example[g].ravel(), sparse_feature[g].ravel()
            if examples.size != features.size:
                raise InvalidArgumentError(
                    f"Found mismatched example_indices and feature_indices "
                    f"[{' '.join(map(str, examples))}] vs [{' '.join(map(str, features))}]")
            values = sparse_values[g].ravel() if g < len(sparse_values) else None
            per_example = []
            end = 0
            for i in range(n):
                start = end
                while end < examples.size and examples[end] == i:
                    end += 1
                ids = features[start:end]
                for feature in ids:
                    if int(feature) not in slots[g]:
                        raise InvalidArgumentError(
                            f"Found sparse feature indices out of valid range: {feature}")
                slot = np.array([slots[g][int(f)] for f in ids], np.int64)
                value = (values[start:end].astype(np.float64) if values is not None
                         else np.ones(end - start))
                per_example.append((slot, value))
            self.sparse.append(per_example)
        self.dense = [np.asarray(d, np.float32).reshape(n, -1) if n else
                      np.zeros((0, 0), np.float32) for d in dense]
        for g, rows in enumerate(self.dense):
            if rows.shape[1] > dense_weights[g].size:
                raise InvalidArgumentError(
                    f"More dense features than we have parameters for: {rows.shape[1]}")
        self.norms = np.zeros(n)
        for i in range(n):
            total = 0.0
            for g in range(k.num_sparse):
                slot, value = self.sparse[g][i]
                if len(set(slot.tolist())) != slot.size:
                    raise InvalidArgumentError("Duplicate index in sparse vector.")
                total += float(np.sum(value * value))
            for rows in self.dense:
                row = rows[i]
                total += float(_float_sum(row * row))
            self.norms[i] = total


def _float_sum(values: np.ndarray) -> np.float32:
    """A float32 sum accumulated in float32, left to right."""
    total = np.float32(0)
    for v in values.astype(np.float32, copy=False):
        total = np.float32(total + v)
    return total


def _shrink32(values: np.ndarray, shrinkage: np.float32) -> np.ndarray:
    magnitude = np.maximum(np.abs(values) - shrinkage, np.float32(0))
    return (np.sign(values) * magnitude).astype(np.float32)


class SdcaOptimizer(OpKernel):
    adaptive_attr = "adaptative"

    def setup(self, **attrs):
        loss = attrs["loss_type"]
        loss = loss.decode() if isinstance(loss, bytes) else loss
        if loss not in _LOSSES:
            raise InvalidArgumentError(f"Unsupported loss type: {loss}")
        self.loss = _LOSSES[loss]()
        self.adaptive = bool(attrs.get(self.adaptive_attr, False))
        self.num_sparse = attrs["num_sparse_features"]
        self.num_values = attrs["num_sparse_features_with_values"]
        self.num_dense = attrs["num_dense_features"]
        if self.num_sparse + self.num_dense <= 0:
            raise InvalidArgumentError("Requires at least one feature to train.")
        self.parts = attrs["num_loss_partitions"]
        self.l1 = np.float32(attrs["l1"])
        self.l2 = np.float32(attrs["l2"])
        with np.errstate(divide="ignore", invalid="ignore"):
            self.shrinkage = np.float32(self.l1 / self.l2)

    def compute(self, *inputs):
        s, v, d = self.num_sparse, self.num_values, self.num_dense
        it = iter(inputs)
        take = lambda count: [np.asarray(next(it)) for _ in range(count)]  # noqa: E731
        sparse_example, sparse_feature = take(s), take(s)
        sparse_values, dense = take(v), take(d)
        weights, labels = (np.asarray(next(it), np.float32).ravel() for _ in range(2))
        sparse_ids, sparse_w, dense_w = take(s), take(s), take(d)
        state_in = np.asarray(next(it), np.float32)
        slots = [{int(f): j for j, f in enumerate(ids.ravel())} for ids in sparse_ids]
        nominal_sparse = [w.astype(np.float32).ravel() for w in sparse_w]
        nominal_dense = [w.astype(np.float32).ravel() for w in dense_w]
        delta_sparse = [np.zeros_like(w) for w in nominal_sparse]
        delta_dense = [np.zeros_like(w) for w in nominal_dense]
        batch = _Batch(self, sparse_example, sparse_feature, sparse_values, dense, weights,
                       labels, slots, dense_w)
        if state_in.shape != (batch.n, 4):
            raise InvalidArgumentError(f"Expected shape {_shape_text((batch.n, 4))} for "
                                       f"example_state_data, got {_shape_text(state_in.shape)}")
        state = state_in.copy()
        model = (nominal_sparse, delta_sparse, nominal_dense, delta_dense)
        order = (self._adaptive_order(batch, model, state) if self.adaptive
                 else np.random.default_rng().permutation(batch.n))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            self._train(batch, order, model, state)
        return (state, *[dw.reshape(w.shape) for dw, w in zip(delta_sparse, sparse_w)],
                *[dw.reshape(w.shape) for dw, w in zip(delta_dense, dense_w)])

    def _train(self, batch: _Batch, order: np.ndarray, model: tuple, state: np.ndarray
               ) -> None:
        """Visit the examples in `order`, updating `state` and the deltas in `model`."""
        delta_sparse, delta_dense = model[1], model[3]
        parts = np.float32(self.parts)
        l2 = np.float64(self.l2)  # numpy division: l2 = 0 gives inf, as C's
        for index in order:
            index = int(index)
            dual = float(state[index, 0])
            weight = float(batch.weights[index])
            label = self.loss.label(float(batch.labels[index]))
            wx, prev_wx = self._wx(batch, index, model, parts)
            norm = batch.norms[index] / l2
            new_dual = self.loss.new_dual(self.parts, label, weight, dual, wx, norm)
            step = float((new_dual - dual) * weight / l2)
            for g in range(self.num_sparse):
                slot, value = batch.sparse[g][index]
                for j, x in zip(slot.tolist(), value.tolist()):
                    delta_sparse[g][j] = np.float32(float(delta_sparse[g][j]) + x * step)
            for g in range(self.num_dense):
                row = batch.dense[g][index]
                delta_dense[g][:row.size] = (delta_dense[g][:row.size]
                                             + row * np.float32(step)).astype(np.float32)
            # an infinite dual loss (outside the loss's domain) is +inf in float32
            state[index] = (new_dual, self.loss.primal_loss(prev_wx, label, weight),
                            self.loss.dual_loss(dual, label, weight), weight)

    def _wx(self, batch: _Batch, index: int, model: tuple, parts: np.float32
            ) -> tuple[float, float]:
        nominal_sparse, delta_sparse, nominal_dense, delta_dense = model
        shrinkage = float(self.shrinkage)
        wx = prev_wx = 0.0
        for g in range(self.num_sparse):
            slot, value = batch.sparse[g][index]
            for j, x in zip(slot.tolist(), value.tolist()):
                nominal = nominal_sparse[g][j]
                current = np.float32(nominal + delta_sparse[g][j] * parts)
                prev_wx += x * _shrink(float(nominal), shrinkage)
                wx += x * _shrink(float(current), shrinkage)
        for g in range(self.num_dense):
            row = batch.dense[g][index]
            nominal = nominal_dense[g][:row.size]
            current = (nominal + delta_dense[g][:row.size] * parts).astype(np.float32)
            prev_wx += float(_float_sum(row * _shrink32(nominal, self.shrinkage)))
            wx += float(_float_sum(row * _shrink32(current, self.shrinkage)))
        return wx, prev_wx

    def _adaptive_order(self, batch: _Batch, model: tuple, state: np.ndarray) -> np.ndarray:
        n = batch.n
        probabilities = np.zeros(n, np.float32)
        for i in range(n):
            label = float(batch.labels[i])
            try:
                label = self.loss.label(label)
            except InvalidArgumentError:
                pass  # TensorFlow ignores the conversion status here; training reports it
            wx, _ = self._wx(batch, i, model, np.float32(self.parts))
            kappa = float(state[i, 0]) + self.loss.derivative(wx, label, 1.0)
            probabilities[i] = float(batch.weights[i]) * math.sqrt(
                batch.norms[i] + float(self.l2) * self.loss.smoothness) * abs(kappa)
        rng = np.random.default_rng()
        total = float(np.sum(probabilities, dtype=np.float64))
        p = (probabilities / total) if total > 0 else np.full(n, 1.0 / max(n, 1))
        order = np.zeros(n, np.int64)  # unfilled positions stay 0, as TensorFlow's
        counts = np.zeros(n, np.int64)
        filled = retries = 0
        while filled < n and retries < n:
            picked = int(rng.choice(n, p=p))
            if rng.random() > 0.1 ** counts[picked]:
                retries += 1
                continue
            counts[picked] += 1
            order[filled] = picked
            filled += 1
        return order


def _shrink(weight: float, shrinkage: float) -> float:
    shrunk = max(abs(weight) - shrinkage, 0.0)
    return math.copysign(shrunk, weight) if shrunk > 0.0 else 0.0


register_kernel("SdcaOptimizer", "CPU")(SdcaOptimizer)


@register_kernel("SdcaOptimizerV2", "CPU")
class SdcaOptimizerV2(SdcaOptimizer):
    adaptive_attr = "adaptive"
