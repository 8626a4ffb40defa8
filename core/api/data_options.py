"""`tf.data.Options` and its option groups (TensorFlow 2.21's `tf.data.experimental`
AutotuneOptions, DistributeOptions, OptimizationOptions, ServiceOptions, ThreadingOptions
and the enums AutoShardPolicy, AutotuneAlgorithm, ExternalStatePolicy).

The contract is TensorFlow's options objects:

- each option is a typed property, None (or its group, or AUTO for `auto_shard_policy`)
  until set; setting a value of another type is a TypeError naming the property, setting
  a name that is not an option an AttributeError;
- `==` compares the options either side has touched;
- `Options.merge` (and `merge_options`) gives a new object: later settings win over
  earlier ones, a setting equal to the default changes nothing, groups merge member by
  member, `framework_type` lists concatenate;
- the options a dataset reports (`Dataset.options()`) are frozen: mutating them is the
  ValueError TensorFlow raises, since it would have no effect.

What tfx's runtime does with them: nothing changes the elements, which is TensorFlow's
contract too. Threading, autotune, optimization (graph rewrites of the pipeline),
slack, service and distribute options are recorded and merged only: tfx runs a pipeline
on the thread of the get_next asking, without tf.data's rewrites or a tf.data service,
and always in the deterministic order (which `deterministic=False` allows but never
requires). `experimental_external_state_policy` is recorded; checkpointing an iterator
takes its policy from the saver's argument (data_checkpoint_api), as in TF 1.x graphs.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from typing import Any

from tfx.core.wire_format import write_varint

__all__ = ["AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions",
           "ExternalStatePolicy", "OptimizationOptions", "Options", "OptionsBase",
           "ServiceOptions", "ThreadingOptions", "merge_options"]

_LOG = logging.getLogger("tfx.data")


class AutoShardPolicy(enum.IntEnum):
    """How a distribution strategy shards a dataset: OFF, AUTO (files if it can, else
    data), FILE, DATA, HINT (where `shard(SHARD_HINT, SHARD_HINT)` says)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class AutotuneAlgorithm(enum.Enum):
    """The algorithm tf.data's autotuner uses to share out CPU and memory."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class ExternalStatePolicy(enum.Enum):
    """What saving an iterator does when its functions touch state outside the dataset:
    WARN (save, log), IGNORE (save), FAIL (FailedPreconditionError)."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class OptionsBase:
    """A group of typed options (see the module docstring)."""

    def __init__(self) -> None:
        object.__setattr__(self, "_options", {})
        object.__setattr__(self, "_mutable", True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, self.__class__):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name)
                   for name in set(self._options) | set(other._options))

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, self.__class__):
            return NotImplemented
        return not self.__eq__(other)

    __hash__ = object.__hash__  # mutable: identity, as TensorFlow's

    def __setattr__(self, name: str, value: Any) -> None:
        if not self._mutable:
            raise ValueError("Mutating `tf.data.Options()` returned by "
                             "`tf.data.Dataset.options()` has no effect. Use "
                             "`tf.data.Dataset.with_options(options)` to set or update "
                             "dataset options.")
        if not hasattr(self, name):
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def _set_mutable(self, mutable: bool) -> None:
        object.__setattr__(self, "_mutable", mutable)
        for value in self._options.values():
            if isinstance(value, OptionsBase):
                value._set_mutable(mutable)


def _option(name: str, ty: type | tuple[type, ...], doc: str,
            default: Callable[[], Any] = lambda: None) -> property:
    """A property checking the type of what it is set to; its default is made (and kept)
    on first read, so a group read once can be changed in place."""
    def get(self: OptionsBase) -> Any:
        if name not in self._options:
            self._options[name] = default()
        return self._options[name]

    def set_(self: OptionsBase, value: Any) -> None:
        if not isinstance(value, ty):
            raise TypeError(f'Property "{name}" must be of type {ty}, got: {value} '
                            f"(type: {type(value)})")
        self._options[name] = value

    return property(get, set_, None, doc)


def merge_options(*options_list: OptionsBase) -> OptionsBase:
    """A new options object: the settings of `options_list`, later ones winning.

    Args:
        *options_list: options objects of one type.

    Returns:
        Their merge (groups merged member by member, framework_type lists joined).

    Raises:
        ValueError: no options given. TypeError: options of different types.
    """
    if not options_list:
        raise ValueError("At least one options should be provided")
    result_type = type(options_list[0])
    for options in options_list:
        if not isinstance(options, result_type):
            raise TypeError(f"Could not merge incompatible options of type {type(options)} "
                            f"and {result_type}.")
    if not isinstance(options_list[0], OptionsBase):
        raise TypeError(f"All options to be merged should inherit from `OptionsBase` but "
                        f"found option of type {result_type} which does not.")
    defaults = result_type()
    result = result_type()
    for options in options_list:
        for name in list(options._options):
            this, that = getattr(result, name), getattr(options, name)
            default = getattr(defaults, name)
            if that == default:
                continue
            if this == default:
                setattr(result, name, that)
            elif isinstance(this, OptionsBase):
                setattr(result, name, merge_options(this, that))
            elif name == "framework_type":
                setattr(result, name, this + that)
            elif this != that:
                _LOG.warning("Changing the value of option %s from %r to %r.", name, this,
                             that)
                setattr(result, name, that)
    return result


class AutotuneOptions(OptionsBase):
    """`Options.autotune`: tf.data's autotuner (accepted; tfx does not autotune)."""

    enabled = _option("enabled", bool, "Whether to autotune (TensorFlow: default True).")
    cpu_budget = _option("cpu_budget", int, "CPU cores the autotuner may use.")
    ram_budget = _option("ram_budget", int, "Bytes of RAM the autotuner may use.")
    autotune_algorithm = _option("autotune_algorithm", AutotuneAlgorithm,
                                 "The autotuning algorithm.")
    initial_parallelism = _option("initial_parallelism", int,
                                  "The parallelism autotuned ops start with.")
    min_parallelism = _option("min_parallelism", int,
                              "The least parallelism autotuned ops use.")


class DistributeOptions(OptionsBase):
    """`Options.experimental_distribute`: how a distribution strategy shards the input."""

    auto_shard_policy = _option("auto_shard_policy", AutoShardPolicy,
                                "The sharding policy (default AUTO).",
                                default=lambda: AutoShardPolicy.AUTO)
    num_devices = _option("num_devices", int, "The number of devices the input feeds.")


class OptimizationOptions(OptionsBase):
    """`Options.experimental_optimization`: tf.data's static pipeline rewrites (accepted;
    tfx runs the pipeline as written, which gives the same elements)."""

    apply_default_optimizations = _option("apply_default_optimizations", bool,
                                          "Whether to apply the default rewrites.")
    filter_fusion = _option("filter_fusion", bool, "Fuse consecutive filters.")
    filter_parallelization = _option("filter_parallelization", bool,
                                     "Run filter predicates in parallel.")
    inject_prefetch = _option("inject_prefetch", bool, "Prefetch after the last op.")
    seq_interleave_prefetch = _option("seq_interleave_prefetch", bool,
                                      "Prefetch the inputs of sequential interleaves.")
    map_and_batch_fusion = _option("map_and_batch_fusion", bool, "Fuse map and batch.")
    map_and_filter_fusion = _option("map_and_filter_fusion", bool,
                                    "Fuse map and filter.")
    map_fusion = _option("map_fusion", bool, "Fuse consecutive maps.")
    map_parallelization = _option("map_parallelization", bool,
                                  "Run stateless maps in parallel.")
    noop_elimination = _option("noop_elimination", bool,
                               "Drop transformations that change nothing.")
    parallel_batch = _option("parallel_batch", bool, "Copy batches in parallel.")
    shuffle_and_repeat_fusion = _option("shuffle_and_repeat_fusion", bool,
                                        "Fuse shuffle and repeat.")


class ServiceOptions(OptionsBase):
    """`Options.experimental_service`: the tf.data service (accepted; tfx has none)."""

    pinned = _option("pinned", bool, "Use pinned memory for service transfers.")


class ThreadingOptions(OptionsBase):
    """`Options.threading`: thread pool sizes (accepted; a tfx pipeline runs on the thread
    of the get_next asking for the element)."""

    max_intra_op_parallelism = _option("max_intra_op_parallelism", int,
                                       "The most threads one op may use.")
    private_threadpool_size = _option("private_threadpool_size", int,
                                      "The size of the pipeline's own thread pool.")


class Options(OptionsBase):
    """`tf.data.Options`: settings for running a pipeline that never change its elements.

        options = tf.data.Options()
        options.experimental_optimization.map_fusion = True
        dataset = dataset.with_options(options)
    """

    autotune = _option("autotune", AutotuneOptions, "The autotuner's options.",
                       default=AutotuneOptions)
    dataset_name = _option("dataset_name", str, "A name for the dataset's metrics.")
    deterministic = _option("deterministic", bool,
                            "Whether elements must come in the deterministic order.")
    experimental_distribute = _option("experimental_distribute", DistributeOptions,
                                      "Distribution options.", default=DistributeOptions)
    experimental_external_state_policy = _option(
        "experimental_external_state_policy", ExternalStatePolicy,
        "What checkpointing does with external state.")
    experimental_optimization = _option("experimental_optimization", OptimizationOptions,
                                        "Pipeline rewrite options.",
                                        default=OptimizationOptions)
    experimental_service = _option("experimental_service", ServiceOptions,
                                   "tf.data service options.", default=ServiceOptions)
    experimental_slack = _option("experimental_slack", bool,
                                 "Whether to leave slack for the consumer.")
    experimental_symbolic_checkpoint = _option("experimental_symbolic_checkpoint", bool,
                                               "Checkpoint positions, not buffers.")
    experimental_warm_start = _option("experimental_warm_start", bool,
                                      "Start background threads before get_next.")
    framework_type = _option("framework_type", list, "The frameworks using the dataset.")
    threading = _option("threading", ThreadingOptions, "Thread pool options.",
                        default=ThreadingOptions)

    # TensorFlow's older names for two options: the same settings under either name.
    _ALIASES = {"experimental_deterministic": "deterministic",
                "experimental_threading": "threading"}

    def __getattr__(self, name: str) -> Any:
        if name in Options._ALIASES:
            return getattr(self, Options._ALIASES[name])
        raise AttributeError(f"'Options' object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(Options._ALIASES.get(name, name), value)

    def merge(self, options: Options) -> Options:
        """These options with the ones `options` sets (which win where both set one).

        Args:
            options: a tf.data.Options.

        Returns:
            A new Options.
        """
        return merge_options(self, options)  # type: ignore[return-value]


# --- wire format -------------------------------------------------------------------------
# TensorFlow's dataset_options.proto (the bytes of OptionsDataset's `serialized_options`):
# a group's set options by field number; oneof-wrapped scalars are written whenever set.

def _field(number: int, value: Any) -> bytes:
    if isinstance(value, (bytes, str)):
        data = value.encode() if isinstance(value, str) else value
        return write_varint(number << 3 | 2) + write_varint(len(data)) + data
    if isinstance(value, enum.Enum):
        value = value.value
    return write_varint(number << 3) + write_varint(int(value))


def _fields(options: OptionsBase, numbers: dict[str, int]) -> bytes:
    out = b""
    for name, number in sorted(numbers.items(), key=lambda item: item[1]):
        value = options._options.get(name)
        if value is not None:
            out += _field(number, value)
    return out


_GROUP_FIELDS: dict[type, dict[str, int]] = {
    AutotuneOptions: {"enabled": 1, "cpu_budget": 2, "ram_budget": 3,
                      "autotune_algorithm": 4, "initial_parallelism": 5,
                      "min_parallelism": 6},
    DistributeOptions: {"num_devices": 2},
    OptimizationOptions: {"apply_default_optimizations": 1, "filter_fusion": 6,
                          "map_and_batch_fusion": 9, "map_and_filter_fusion": 10,
                          "map_fusion": 11, "map_parallelization": 12, "noop_elimination": 14,
                          "parallel_batch": 15, "shuffle_and_repeat_fusion": 17,
                          "filter_parallelization": 18, "inject_prefetch": 19,
                          "seq_interleave_prefetch": 21},
    ServiceOptions: {"pinned": 1},
    ThreadingOptions: {"max_intra_op_parallelism": 1, "private_threadpool_size": 2},
}


def _group(options: OptionsBase) -> bytes:
    out = b""
    if isinstance(options, DistributeOptions) and options.auto_shard_policy.value != 0:
        out += _field(1, options.auto_shard_policy)  # proto3: AUTO (0) is not written
    return out + _fields(options, _GROUP_FIELDS[type(options)])


def serialize_options(options: Options) -> bytes:
    """`options` in TensorFlow's dataset_options.proto `Options` encoding (what
    OptionsDataset's `serialized_options` holds); every group is written, empty or not.

    Args:
        options: a tf.data.Options.

    Returns:
        The serialized message.
    """
    parts = {
        1: options._options.get("deterministic"),
        2: _group(options.experimental_distribute),
        3: _group(options.experimental_optimization),
        4: options._options.get("experimental_slack"),
        5: _group(options.threading),
        6: options._options.get("experimental_external_state_policy"),
        7: _group(options.autotune),
        8: options._options.get("experimental_symbolic_checkpoint"),
        9: options._options.get("experimental_warm_start"),
        10: options._options.get("dataset_name"),
        12: _group(options.experimental_service),
    }
    out = b""
    for number in sorted(parts):
        if number == 12:
            for framework in options._options.get("framework_type") or []:
                out += _field(11, framework)
        if parts[number] is not None:
            out += _field(number, parts[number])
    return out
