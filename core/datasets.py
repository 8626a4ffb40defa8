"""tf.data in the graph: datasets as values, iterators as per-session resources.

A dataset is an immutable description of a sequence of elements, each element a list of
tensors (its components) of fixed dtypes and compatible shapes. A dataset op's output is a
scalar DT_VARIANT tensor holding a `Dataset` object; transformation ops wrap the datasets
they are given in new ones, so building a pipeline computes nothing.

Iterating is the iterator's business. An `IteratorResource` lives in the session's
resource manager (IteratorV2, OneShotIterator, the anonymous iterators) and holds the
position of one pass over a dataset: MakeIterator starts a pass, IteratorGetNext advances
it under the resource's lock, and the end of the sequence is OutOfRangeError("End of
sequence") as in TensorFlow, raised again by every later get_next until the iterator is
re-initialized. A pass is a Python generator of elements (`Dataset.elements`); the
generator reads the running step from an `IterationContext` that each get_next updates,
so functions a dataset calls (map, filter...) run on the step that asked for the element
(its resources, deadline and cancellation).

An error in a function a dataset calls (map, filter, flat_map...) fails that one element
as in TensorFlow: the dataset yields a `Failure` in its place, transformations pass it
on (a batch being gathered is dropped with it, as TensorFlow drops it; take, repeat and
assert_cardinality do not count it), and the get_next that meets it raises its error;
the next get_next carries on with the next element. Other errors (a corrupt file, a
step's deadline) end the pass: later get_next calls see the end of the sequence.

Checkpointing an iterator (SerializeIterator, DeserializeIterator) records where its pass
stands rather than what its datasets hold: the number of elements asked of the pass, and
the state each random source of the dataset (a shuffle's seed generator, anything with
`checkpoint_state`/`restore_state`) had when the pass began. Restoring starts a new pass
over the dataset the iterator was initialized with, puts the random sources back as they
were, and pulls that many elements again; the pass then continues exactly as the
uninterrupted pass would have (seeded shuffles, and unseeded ones too: the seeds drawn
from the OS are part of the state), which is what TensorFlow's restored iterator gives
(tests/data/iterator_checkpoint records it; one TensorFlow quirk is noted there). What
this cannot replay is a function with effects outside the dataset (a stateful op in a map
function: refused, logged or ignored by the save's ExternalStatePolicy, as in TensorFlow)
or a source whose files changed since the save. The replay costs as much as reading the
elements again, and runs under the restoring step's deadline and cancellation. The
state's bytes are tfx's own ("tfx::IteratorState"): TensorFlow's iterator state holds
its datasets' buffers instead, and neither restores the other's.

An `OptionalValue` (DT_VARIANT) holds an element or nothing (IteratorGetNextAsOptional,
OptionalFromValue, OptionalNone).

Cardinality follows TensorFlow: a count of elements, INFINITE (-1) or UNKNOWN (-2).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tfx.core import dtypes, tensor_util
from tfx.core.checkpoint import variants
from tfx.core.errors import (
    CancelledError,
    DataLossError,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    OutOfRangeError,
    TfxError,
)
from tfx.protos import tensor_pb2

INFINITE = -1
UNKNOWN = -2

# TensorFlow's ExternalStatePolicy: what saving an iterator does about stateful functions.
POLICY_WARN, POLICY_IGNORE, POLICY_FAIL = 0, 1, 2

Element = list  # the components of one element: numpy arrays (0-d object arrays for variants)
Shape = tuple | None  # dims with None for unknown ones, or None for an unknown rank


class IterationContext:
    """What a running pass over a dataset needs from the get_next call driving it."""

    __slots__ = ("step",)

    def __init__(self, step: Any = None) -> None:
        self.step = step

    def check_cancelled(self) -> None:
        """Raise if the step was cancelled or timed out: loops that may run long without
        producing (a filter rejecting everything, a skip of 2**60) call it per element."""
        if self.step is not None:
            self.step.check_cancelled()


class Dataset:
    """An immutable dataset: its element signature, cardinality and passes over it.

    Subclasses define `elements(ctx)`, a generator of elements, and, where it is known,
    `cardinality()`.
    """

    def __init__(self, output_types: Sequence[dtypes.DType], output_shapes: Sequence[Shape]
                 ) -> None:
        self.output_types = tuple(dtypes.as_dtype(t).base for t in output_types)
        self.output_shapes = tuple(output_shapes)

    def elements(self, ctx: IterationContext) -> Iterator[Element]:  # pragma: no cover
        raise NotImplementedError

    def cardinality(self) -> int:
        return UNKNOWN

    def __repr__(self) -> str:
        types = ", ".join(t.name for t in self.output_types)
        return f"<{type(self).__name__} ({types})>"


class Failure:
    """An element that could not be made: its error, raised by whoever takes it."""

    __slots__ = ("error",)

    def __init__(self, error: TfxError) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"<Failure {type(self.error).__name__}>"


def calling(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)`, or a Failure holding the error it raised. Cancellation and deadlines
    are no element's failure, and an OutOfRangeError ends a pass (a generator's, or a
    map function's as in TensorFlow): they propagate."""
    try:
        return fn(*args)
    except (CancelledError, DeadlineExceededError, OutOfRangeError):
        raise
    except TfxError as exc:
        return Failure(exc)


def variant(value: Any) -> np.ndarray:
    """A scalar DT_VARIANT tensor holding `value`."""
    tensor = np.empty((), dtype=object)
    tensor[()] = value
    return tensor


def dataset_from_tensor(tensor: Any, what: str = "input_dataset") -> Dataset:
    """The Dataset in a scalar variant tensor; InvalidArgumentError if there is none."""
    value = tensor[()] if isinstance(tensor, np.ndarray) and tensor.shape == () else tensor
    if not isinstance(value, Dataset):
        shape = f" of shape {list(tensor.shape)}" if isinstance(tensor, np.ndarray) else ""
        raise InvalidArgumentError(
            f"{what} must be a scalar variant tensor holding a dataset, got a "
            f"{type(value).__name__}{shape}")
    return value


def shape_string(shape: Shape) -> str:
    """TensorFlow's text for a (partial) shape: [2,?] or <unknown>."""
    if shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"


def check_element(element: Sequence[Any], types: Sequence[dtypes.DType],
                  shapes: Sequence[Shape] | None, what: str) -> None:
    """Refuse an element whose component count, dtypes or shapes differ from the given
    signature, in TensorFlow's words."""
    if len(element) != len(types):
        raise InvalidArgumentError(
            f"{what}: Number of components does not match: expected {len(types)} types "
            f"but got {len(element)}.")
    for i, (value, dtype) in enumerate(zip(element, types)):
        got = dtype_of(value)
        if got is not dtype and not (got in _OBJECT_TYPES and dtype in _OBJECT_TYPES):
            raise InvalidArgumentError(
                f"{what}: Data type mismatch at component {i}: expected {dtype.name} but got "
                f"{got.name}.")
    if shapes:
        if len(shapes) != len(types):
            raise InvalidArgumentError(
                f"{what}: {len(types)} output types but {len(shapes)} output shapes")
        for i, (value, shape) in enumerate(zip(element, shapes)):
            if not shape_compatible(np.shape(value), shape):
                raise InvalidArgumentError(
                    f"{what}: Incompatible shapes at component {i}: expected "
                    f"{shape_string(shape)} but got {shape_string(np.shape(value))}.")


_OBJECT_TYPES = frozenset({dtypes.string, dtypes.variant, dtypes.resource})


def dtype_of(value: Any) -> dtypes.DType:
    """The dtype of a component value (objects: a string unless they are handles)."""
    array = np.asarray(value)
    if array.dtype == object:
        first = array.flat[0] if array.size else b""
        return dtypes.string if isinstance(first, bytes | str) else dtypes.variant
    return dtypes.as_dtype(array.dtype)


def shape_compatible(shape: Sequence[int], want: Shape) -> bool:
    """Whether a concrete shape fits a partial one."""
    if want is None:
        return True
    return len(shape) == len(want) and all(w is None or w < 0 or w == d
                                          for d, w in zip(shape, want))


def check_signatures(dataset: Dataset, types: Sequence[dtypes.DType],
                     shapes: Sequence[Shape], what: str) -> None:
    """Refuse a dataset whose element signature does not fit an iterator's."""
    if len(dataset.output_types) != len(types):
        raise InvalidArgumentError(
            f"{what}: Number of components does not match: expected {len(types)} types "
            f"but got {len(dataset.output_types)}.")
    for i, (got, want) in enumerate(zip(dataset.output_types, types)):
        if got is not dtypes.as_dtype(want).base:
            raise InvalidArgumentError(
                f"{what}: Data type mismatch at component {i}: expected "
                f"{dtypes.as_dtype(want).name} but got {got.name}.")
    for i, (got, want) in enumerate(zip(dataset.output_shapes, shapes)):
        if want is None or got is None:
            continue
        if len(got) != len(want) or any(
                g is not None and w is not None and g >= 0 and w >= 0 and g != w
                for g, w in zip(got, want)):
            raise InvalidArgumentError(
                f"{what}: Incompatible shapes at component {i}: expected "
                f"{shape_string(want)} but got {shape_string(got)}.")


# --- iterators --------------------------------------------------------------------------

_NOT_INITIALIZED = (
    "GetNext() failed because the iterator has not been initialized. Ensure that you have "
    "run the initializer operation for this iterator before getting the next element.")


class IteratorResource:
    """The state of one iterator: its element signature and the pass in progress.

    Thread-safe: get_next calls on one iterator are serialized, as TensorFlow's are.
    """

    kind = "iterator"

    def __init__(self, name: str, output_types: Sequence[dtypes.DType],
                 output_shapes: Sequence[Shape]) -> None:
        self.name = name
        self.output_types = tuple(dtypes.as_dtype(t).base for t in output_types)
        self.output_shapes = tuple(output_shapes)
        self._lock = threading.Lock()
        self._once = threading.Lock()
        self._context = IterationContext()
        self._pass: Iterator[Element] | None = None
        self._ended = False
        self._dataset: Dataset | None = None
        self._random: list[Any] = []
        self._random_start: list[list[int]] = []
        self._pulls = 0  # elements asked of the pass (failed ones too)
        self.deleted = False

    def check_matches(self, output_types: Sequence[dtypes.DType],
                      output_shapes: Sequence[Shape], what: str) -> None:
        """Refuse a second op naming this iterator with another element signature."""
        types = tuple(dtypes.as_dtype(t).base for t in output_types)
        if types != self.output_types:
            raise InvalidArgumentError(
                f"{what}: iterator {self.name!r} exists with output types "
                f"{[t.name for t in self.output_types]}, not {[t.name for t in types]}")

    def initialize(self, dataset: Dataset, what: str) -> None:
        """Start a new pass over `dataset` (MakeIterator), dropping any pass in progress."""
        check_signatures(dataset, self.output_types, self.output_shapes, what)
        with self._lock:
            self._start(dataset)

    def _start(self, dataset: Dataset) -> None:
        if self._pass is not None:
            self._pass.close()  # let the old pass clean up (a file cache's lock file)
        self._dataset = dataset
        self._random = random_sources(dataset)
        # Nothing is drawn before the pass's first element is asked for: this is the
        # state the pass starts from.
        self._random_start = [source.checkpoint_state() for source in self._random]
        self._context = IterationContext()
        self._pass = dataset.elements(self._context)
        self._ended = False
        self._pulls = 0

    def initialize_once(self, make: Callable[[], Dataset], what: str) -> None:
        """Start the one pass of a one-shot iterator over `make()`, unless started."""
        with self._once:
            if self._pass is None:
                self.initialize(make(), what)

    @property
    def initialized(self) -> bool:
        return self._pass is not None

    def get_next(self, step: Any) -> Element | None:
        """The next element, or None at the end of the sequence (and at every later call).

        Raises:
            FailedPreconditionError: the iterator was never initialized.
        """
        with self._lock:
            if self._pass is None:
                raise FailedPreconditionError(_NOT_INITIALIZED)
            if self._ended:
                return None
            self._context.step = step
            self._pulls += 1
            try:
                element = next(self._pass)
            except StopIteration:
                self._ended = True
                return None
            finally:
                self._context.step = None
        if isinstance(element, Failure):
            raise element.error
        return element

    def save(self, external_state_policy: int = POLICY_FAIL) -> IteratorState:
        """Where the pass stands (SerializeIterator). A function of the pipeline with
        effects outside it (a stateful op) cannot be replayed: as TensorFlow, the policy
        POLICY_FAIL refuses to save, POLICY_WARN logs it and POLICY_IGNORE saves.

        Raises:
            FailedPreconditionError: the iterator was never initialized, or (POLICY_FAIL)
                a function of its pipeline is stateful.
        """
        with self._lock:
            if self._pass is None or self._dataset is None:
                raise FailedPreconditionError(
                    "SerializeIterator: the iterator has not been initialized. Ensure that "
                    "you have run the initializer operation for this iterator before saving "
                    "it.")
            if external_state_policy != POLICY_IGNORE:
                stateful = external_state(self._dataset)
                if stateful and external_state_policy == POLICY_FAIL:
                    raise FailedPreconditionError(f"{stateful[0]} is stateful.")
                if stateful:
                    logging.getLogger("tfx").warning("%s is stateful.", stateful[0])
            return IteratorState(self._pulls, self._ended, self._random_start)

    def restore(self, state: IteratorState, step: Any) -> None:
        """Put the pass where `state` says, over the dataset this iterator was last
        initialized with (DeserializeIterator); the pass in progress is dropped.

        Raises:
            FailedPreconditionError: the iterator was never initialized (TensorFlow too
                restores into the dataset of the initialized iterator).
            InvalidArgumentError: the state is of a pipeline with other random sources.
        """
        with self._lock:
            if self._pass is None or self._dataset is None:
                raise FailedPreconditionError(
                    "Failed to restore dataset iterator from checkpoint: Restore() failed "
                    "because the iterator has not been initialized. Ensure that you have run "
                    "the initializer operation for this iterator before restoring it.")
            if len(state.random) != len(self._random):
                raise InvalidArgumentError(
                    f"Failed to restore dataset iterator from checkpoint: the saved state "
                    f"has {len(state.random)} random sources (shuffles, random datasets) but "
                    f"the iterator's dataset has {len(self._random)}")
            for source, saved in zip(self._random, state.random):
                source.restore_state(saved)
            self._start(self._dataset)
            self._replay(state.pulls, step)
            self._ended = self._ended or state.ended

    def _replay(self, pulls: int, step: Any) -> None:
        """Ask the fresh pass for `pulls` elements, as get_next did before the save."""
        elements = self._pass or iter(())
        self._context.step = step
        try:
            while self._pulls < pulls:
                self._context.check_cancelled()
                self._pulls += 1
                try:
                    next(elements)
                except StopIteration:
                    self._ended = True
                    break
                except (CancelledError, DeadlineExceededError):
                    raise
                except TfxError:
                    continue  # it ended the pass then as now: the next pull stops
        finally:
            self._context.step = None

    def close(self) -> None:
        with self._lock:
            self.deleted = True
            if self._pass is not None:
                self._pass.close()


def random_sources(dataset: Dataset) -> list[Any]:
    """The random sources a pass over `dataset` draws from, in a fixed order: objects with
    `checkpoint_state()`/`restore_state(state)` among the datasets' attributes."""
    return _find(dataset, "checkpoint_state")


def external_state(dataset: Dataset) -> list[str]:
    """The ops with effects outside the pipeline that `dataset`'s functions run (objects
    with `external_state()` among the datasets' attributes: the dataset functions)."""
    return [op for fn in _find(dataset, "external_state") for op in fn.external_state()]


def _find(dataset: Dataset, method: str) -> list[Any]:
    """The objects with `method` reached by walking the datasets, their inputs (lists of
    them, variant tensors holding them), what they hold and what their functions
    captured, depth first in attribute order. Walking the attributes keeps every dataset
    class free of checkpoint code; an order that only depends on the pipeline's structure
    lets a state saved by one process restore in another."""
    found: list[Any] = []
    seen: set[int] = set()
    stack: list[Any] = [dataset]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if callable(getattr(item, method, None)):
            found.append(item)
        if isinstance(item, Dataset):
            stack.extend(reversed(list(vars(item).values())))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif isinstance(item, np.ndarray) and item.dtype == object and item.size < 1024:
            stack.extend(reversed(list(item.flat)))
        elif isinstance(getattr(item, "captured", None), list):  # a dataset function
            stack.extend(reversed(item.captured))
    return found


class IteratorState:
    """What SerializeIterator outputs (inside a variant): how many elements the pass was
    asked for, whether it had ended, and its random sources' states when it began.

    It encodes itself for a tensor bundle as a VariantTensorDataProto of type
    "tfx::IteratorState" with JSON metadata. TensorFlow's iterator state (type
    "tensorflow::Iterator") holds the datasets' buffers instead; neither reads the other's.
    """

    TYPE_NAME = "tfx::IteratorState"

    def __init__(self, pulls: int, ended: bool, random: Sequence[Sequence[int]]) -> None:
        self.pulls = pulls
        self.ended = ended
        self.random = [list(state) for state in random]

    def encode(self) -> tensor_pb2.VariantTensorDataProto:
        metadata = json.dumps({"version": 1, "pulls": self.pulls, "ended": self.ended,
                               "random": self.random}, sort_keys=True)
        return tensor_pb2.VariantTensorDataProto(type_name=self.TYPE_NAME,
                                                 metadata=metadata.encode())

    @classmethod
    def decode(cls, proto: tensor_pb2.VariantTensorDataProto) -> IteratorState:
        try:
            data = json.loads(proto.metadata)
            pulls, ended, random = data["pulls"], data["ended"], data["random"]
            valid = (data.get("version") == 1 and isinstance(pulls, int) and pulls >= 0
                     and isinstance(ended, bool) and isinstance(random, list)
                     and all(isinstance(s, list) and all(isinstance(v, int) for v in s)
                             for s in random))
        except (ValueError, TypeError, KeyError):
            valid = False
        if not valid:
            raise DataLossError("the iterator state in the checkpoint is malformed")
        return cls(pulls, ended, random)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IteratorState) and (
            (self.pulls, self.ended, self.random) == (other.pulls, other.ended, other.random))

    __hash__ = None  # type: ignore[assignment]  # equal by value, and mutable

    def __repr__(self) -> str:
        return f"<IteratorState pulls={self.pulls} ended={self.ended}>"


variants.register(IteratorState.TYPE_NAME, IteratorState.decode)


def end_of_sequence() -> OutOfRangeError:
    return OutOfRangeError("End of sequence")


class OptionalValue:
    """What an optional variant holds: an element, or None for an empty optional."""

    __slots__ = ("element",)

    def __init__(self, element: Element | None) -> None:
        self.element = None if element is None else list(element)

    @property
    def has_value(self) -> bool:
        return self.element is not None

    def __repr__(self) -> str:
        return "<Optional empty>" if self.element is None else f"<Optional {self.element}>"

    TYPE_NAME = "tensorflow::data::Optional"

    def encode(self) -> tensor_pb2.VariantTensorDataProto:
        """TensorFlow's encoding of an optional (OptionalVariant::Encode), as it crosses
        between tasks: one metadata byte, 1 if it holds an element, whose components are
        the proto's tensors."""
        proto = tensor_pb2.VariantTensorDataProto(
            type_name=self.TYPE_NAME, metadata=b"\x01" if self.has_value else b"\x00")
        for component in self.element or ():
            is_variant = (isinstance(component, np.ndarray) and component.dtype == object
                          and component.size and all(
                              callable(getattr(v, "encode", None)) and not isinstance(v, str)
                              for v in component.flat))
            tensor_util.from_ndarray(component, dtypes.variant if is_variant else None,
                                     proto.tensors.add())
        return proto

    @classmethod
    def decode(cls, proto: tensor_pb2.VariantTensorDataProto) -> OptionalValue:
        """The optional `encode` (or TensorFlow) encoded; DataLossError if it is malformed
        (it comes from a peer or a file: untrusted)."""
        if proto.metadata not in (b"\x00", b"\x01") or (
                proto.metadata == b"\x00" and proto.tensors):
            raise DataLossError("a malformed Optional: its metadata must be one byte, 0 "
                                "(empty, with no tensors) or 1")
        if proto.metadata == b"\x00":
            return cls(None)
        return cls([tensor_util.to_ndarray(t, "Optional component") for t in proto.tensors])


variants.register(OptionalValue.TYPE_NAME, OptionalValue.decode)


def optional_from_tensor(tensor: Any, what: str = "optional") -> OptionalValue:
    value = tensor[()] if isinstance(tensor, np.ndarray) and tensor.shape == () else tensor
    if not isinstance(value, OptionalValue):
        raise InvalidArgumentError(
            f"{what} must be a scalar variant tensor holding an Optional, got a "
            f"{type(value).__name__}")
    return value
