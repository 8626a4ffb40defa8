"""Devices: TensorFlow's device names, device sets, and the local devices that run kernels.

A device name is `/job:NAME/replica:R/task:T/device:TYPE:I`. Any part may be
missing (a *partial* spec such as `/device:GPU:*` or `/job:ps`), `*` stands for
any value, and the legacy short forms `/cpu:0`, `/gpu:1` (also without the
slash) mean `/device:CPU:0`, `/device:GPU:1`. `DeviceName.parse` reads all of
them; `spec.matches(full_name)` says whether a full name satisfies a spec, and
`merge` combines the specs of nodes that must share a device.

A `DeviceSet` is what placement works on: the devices (type, compute rate,
memory bandwidth and capacity, per-op overhead, which kernels they have), the
link between every pair (latency and bandwidth), and the client's device
(where feeds and fetches live). It comes from a `--devices` list (names such as
`cpu:0,cpu:1`, or counts such as `gpu:4`) or from a JSON spec file describing a
cluster you do not have (`DeviceSet.from_spec_file`). Local CPU devices, as many
as you like, run kernels in this process, so multi-device execution is testable
on any machine. A set is *simulated* until `runnable()` readies it to run: then
the GPUs of this process run their GPU kernels through CuPy (`tfx.kernels.gpu`),
and devices of other tasks are refused. Placement can plan for any device.

A `Device` is the runtime side (the seed paper's device interface): it
allocates memory, runs a kernel, and copies tensors to and from the host.
`CPUDevice` is numpy; `GPUDevice` imports CuPy only when it is created
(`local_gpu`), so tfx needs CuPy only on machines that use a GPU.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from tfx.core.errors import InvalidArgumentError, NotFoundError, UnimplementedError, closest

LOCAL_JOB = "localhost"
# The most devices one set may hold: the placer simulates the step once per device and
# keeps a link per ordered pair, so `--devices cpu:100000` would never finish.
MAX_DEVICES = 1024

# --- device names -------------------------------------------------------------------------

_JOB_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_TYPE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class DeviceName:
    """A full or partial device name; None marks a part that is not specified.

    Example:
        >>> DeviceName.parse("/gpu:1")
        DeviceName(job=None, replica=None, task=None, type='GPU', id=1)
        >>> str(DeviceName.parse("/job:ps/task:0/device:CPU:0"))
        '/job:ps/task:0/device:CPU:0'
    """

    job: str | None = None
    replica: int | None = None
    task: int | None = None
    type: str | None = None
    id: int | None = None

    @classmethod
    def parse(cls, text: str) -> DeviceName:
        """Parse a full, partial or legacy device name; InvalidArgumentError if malformed."""
        parts: dict[str, Any] = {}

        def put(key: str, value: Any) -> None:
            if key in parts:
                raise InvalidArgumentError(f"device name {text!r} gives the {key} twice")
            parts[key] = value

        for piece in text.strip().split("/"):
            if not piece:
                continue
            head, _, rest = piece.partition(":")
            head_lower = head.lower()
            if head_lower == "job" and rest:
                put("job", None if rest == "*" else _checked(_JOB_RE, rest, "job", text))
            elif head_lower in ("replica", "task") and rest:
                put(head_lower, _index(rest, head_lower, text))
            elif head_lower == "device" and rest:
                dev_type, _, dev_id = rest.partition(":")
                if dev_type == "*":
                    put("type", None)
                else:
                    put("type", _checked(_TYPE_RE, dev_type, "device type", text).upper())
                put("id", _index(dev_id, "device index", text) if dev_id else None)
            elif head and _TYPE_RE.fullmatch(head) and rest:  # legacy /cpu:0, /gpu:*
                put("type", head.upper())
                put("id", _index(rest, "device index", text))
            else:
                raise InvalidArgumentError(
                    f"malformed device name {text!r}: cannot read {piece!r} (expected "
                    "/job:NAME/replica:R/task:T/device:TYPE:I, or a short form like /cpu:0)"
                )
        return cls(**parts)

    @property
    def is_full(self) -> bool:
        return None not in (self.job, self.replica, self.task, self.type, self.id)

    def __str__(self) -> str:
        out = []
        if self.job is not None:
            out.append(f"/job:{self.job}")
        if self.replica is not None:
            out.append(f"/replica:{self.replica}")
        if self.task is not None:
            out.append(f"/task:{self.task}")
        if self.type is not None or self.id is not None:
            index = "*" if self.id is None else str(self.id)
            out.append(f"/device:{self.type or '*'}:{index}")
        return "".join(out)

    def matches(self, name: DeviceName) -> bool:
        """Whether `name` satisfies this spec (every part given here is equal there)."""
        return all(
            mine is None or mine == theirs
            for mine, theirs in zip(self._parts(), name._parts())
        )

    def compatible(self, other: DeviceName) -> bool:
        """Whether some device could satisfy both specs."""
        return all(a is None or b is None or a == b for a, b in zip(self._parts(), other._parts()))

    def merge(self, other: DeviceName, soft: bool = False) -> DeviceName:
        """The spec asking for both; with `soft`, parts that conflict become unspecified.

        Raises InvalidArgumentError on a conflict unless `soft`.
        """
        merged = []
        for key, a, b in zip(("job", "replica", "task", "type", "id"), self._parts(),
                             other._parts()):
            if a is not None and b is not None and a != b:
                if not soft:
                    raise InvalidArgumentError(f"device specs {self} and {other} conflict ({key})")
                merged.append(None)
            else:
                merged.append(a if a is not None else b)
        return DeviceName(*merged)

    def with_defaults(self, job: str = LOCAL_JOB, replica: int = 0, task: int = 0,
                      index: int = 0) -> DeviceName:
        """Fill the missing job, replica, task and index (the type must be given)."""
        if self.type is None:
            raise InvalidArgumentError(f"device name {str(self)!r} does not give a device type")
        return DeviceName(
            self.job if self.job is not None else job,
            self.replica if self.replica is not None else replica,
            self.task if self.task is not None else task,
            self.type,
            self.id if self.id is not None else index,
        )

    def _parts(self) -> tuple:
        return (self.job, self.replica, self.task, self.type, self.id)


def _checked(pattern: re.Pattern, value: str, what: str, text: str) -> str:
    if not pattern.fullmatch(value):
        raise InvalidArgumentError(f"malformed device name {text!r}: bad {what} {value!r}")
    return value


def _index(value: str, what: str, text: str) -> int | None:
    if value == "*":
        return None
    if not value.isdigit() or len(value) > 9:
        raise InvalidArgumentError(f"malformed device name {text!r}: bad {what} {value!r}")
    return int(value)


def canonical_name(text: str) -> str:
    """A device string in TensorFlow's canonical spelling ('/cpu:0' -> '/device:CPU:0')."""
    return str(DeviceName.parse(text))


# --- device attributes and sets --------------------------------------------------------

# Defaults by device type: FLOP/s, memory bandwidth (bytes/s), per-op overhead (s), memory.
_TYPE_DEFAULTS: dict[str, dict[str, float]] = {
    "CPU": {"flops": 2e10, "mem_bandwidth": 1e10, "op_overhead": 1e-5, "memory": 64e9},
    "GPU": {"flops": 1e13, "mem_bandwidth": 9e11, "op_overhead": 1e-5, "memory": 16e9},
}
_OTHER_DEFAULTS = {"flops": 1e11, "mem_bandwidth": 1e11, "op_overhead": 1e-5, "memory": 16e9}
# The device types with kernels of their own (`tfx.kernels.cpu`, `tfx.kernels.gpu`).
KERNEL_TYPES = ("CPU", "GPU")
# Type priority when TensorFlow's default placer picks among feasible devices.
TYPE_PRIORITY = {"GPU": 210, "CPU": 50}


@dataclass(frozen=True)
class DeviceAttributes:
    """One device as placement sees it.

    Attributes:
        name: the full device name.
        device_type: "CPU", "GPU", ...
        flops: compute rate in FLOP/s.
        mem_bandwidth: bytes/s the device's memory moves (bounds memory-bound ops).
        memory: capacity in bytes.
        op_overhead: seconds added to every node run here (dispatch, launch).
        kernels: the device type whose registered kernels decide what may run here.
        unsupported_ops: op types this device cannot run even so.
        incarnation: tells a restarted device apart (`send_device_incarnation`).
        local: whether this process can run kernels on it.
    """

    name: str
    device_type: str
    flops: float
    mem_bandwidth: float
    memory: float
    op_overhead: float
    kernels: str
    unsupported_ops: frozenset[str] = frozenset()
    incarnation: int = 0
    local: bool = False

    @cached_property
    def parsed(self) -> DeviceName:
        return DeviceName.parse(self.name)

    def supports(self, op: str) -> bool:
        """Whether this device has a kernel for `op`."""
        from tfx.core.kernel_registry import has_kernel
        from tfx.core.op_registry import has_op

        # In a validated graph an op type that is no registered op names a library function,
        # whose call runs as a PartitionedCall (tfx.kernels.cpu.functional).
        kernel_op = op if has_op(op) else "PartitionedCall"
        return op not in self.unsupported_ops and has_kernel(kernel_op, self.kernels)


@dataclass(frozen=True)
class Link:
    """The path between two devices: latency (s) plus bytes / bandwidth (bytes/s)."""

    bandwidth: float
    latency: float

    def time(self, nbytes: float) -> float:
        return self.latency + nbytes / self.bandwidth


_LOOPBACK = Link(math.inf, 0.0)
# Between virtual CPU devices of this process a tensor is handed over, not copied.
LOCAL_LINK = Link(5e10, 2e-5)
_SAME_TASK_LINK = Link(1.2e10, 1e-5)  # host <-> accelerator (PCIe-class)
_NETWORK_LINK = Link(1.25e9, 5e-5)  # between tasks (10 Gbit/s)


def incarnation_of(name: str) -> int:
    """A stable incarnation number for a device name (a positive int64)."""
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1 or 1


@dataclass
class DeviceSet:
    """The devices a graph may be placed on, and the links between them.

    Example:
        >>> devices = DeviceSet.from_names("cpu:0,cpu:1")
        >>> [d.name for d in devices.matching("/device:CPU:1")]
        ['/job:localhost/replica:0/task:0/device:CPU:1']
    """

    devices: list[DeviceAttributes]
    links: dict[tuple[str, str], Link] = field(default_factory=dict)
    client: str = ""

    def __post_init__(self) -> None:
        if not self.devices:
            raise InvalidArgumentError("a device set needs at least one device")
        self._by_name = {d.name: d for d in self.devices}
        if len(self._by_name) != len(self.devices):
            names = [d.name for d in self.devices]
            dup = next(n for n in names if names.count(n) > 1)
            raise InvalidArgumentError(f"device {dup} is listed twice")
        self._parsed = [(d, d.parsed) for d in self.devices]
        if not self.client:
            cpus = [d.name for d in self.devices if d.device_type == "CPU"]
            self.client = cpus[0] if cpus else self.devices[0].name
        elif self.client not in self._by_name:
            raise InvalidArgumentError(f"client device {self.client} is not in the device set")

    def __len__(self) -> int:
        return len(self.devices)

    def __iter__(self):
        return iter(self.devices)

    @property
    def names(self) -> list[str]:
        return [d.name for d in self.devices]

    def get(self, name: str) -> DeviceAttributes:
        """The device with this full name, or NotFoundError listing the devices."""
        device = self._by_name.get(name)
        if device is None:
            raise NotFoundError(
                f"unknown device {name!r}{closest(name, self._by_name)}; devices: "
                + ", ".join(self.names)
            )
        return device

    def matching(self, spec: str | DeviceName) -> list[DeviceAttributes]:
        """The devices a (partial) spec matches, in set order."""
        parsed = DeviceName.parse(spec) if isinstance(spec, str) else spec
        return [d for d, name in self._parsed if parsed.matches(name)]

    def link(self, a: str, b: str) -> Link:
        if a == b:
            return _LOOPBACK
        return self.links[(a, b)]

    def transfer_time(self, a: str, b: str, nbytes: float) -> float:
        return 0.0 if a == b else self.links[(a, b)].time(nbytes)

    @property
    def all_local(self) -> bool:
        return all(d.local for d in self.devices)

    def runnable(self) -> DeviceSet:
        """This set, ready to run steps in this process.

        The GPUs of the local task become local devices with their GPU kernels
        (CuPy); a CPU:0 joins a set without a CPU, as TensorFlow always has one,
        for the ops no GPU kernel serves and as the client. Links already given
        are kept.

        Raises:
            UnimplementedError: a device of another task or of a type tfx cannot
                run, or CuPy missing for a GPU.
            InvalidArgumentError: a GPU index this machine does not have.
        """
        task = (LOCAL_JOB, 0, 0)
        others = [d.name for d in self.devices
                  if (d.parsed.job, d.parsed.replica, d.parsed.task) != task
                  or d.device_type not in ("CPU", "GPU")]
        if others:
            raise UnimplementedError(
                f"cannot run on {', '.join(others)}: tfx runs steps on this process's CPU "
                "and GPU devices (/job:localhost/replica:0/task:0); other devices can be "
                "planned for with tfx place"
            )
        gpus = [d for d in self.devices if d.device_type == "GPU" and not d.local]
        if gpus:
            count = gpu_count(gpus[0].name)
            missing = [d.name for d in gpus if (d.parsed.id or 0) >= count]
            if missing:
                have = ", ".join(f"GPU:{i}" for i in range(count)) or "none"
                raise InvalidArgumentError(
                    f"no such GPU: {', '.join(missing)}; CuPy sees {count} GPU(s) ({have})"
                )
        devices = list(self.devices)
        if not any(d.device_type == "CPU" for d in devices):
            devices.insert(0, _default_device(DeviceName.parse("cpu:0").with_defaults()))
        links = {**_default_links(devices), **self.links}
        # A GPU's memory is what it has: placement keeps each GPU's peak within it.
        ready = [replace(d, local=True, kernels="GPU", memory=gpu_memory(d.name))
                 if d in gpus else d for d in devices]
        return DeviceSet(ready, links, self.client if len(devices) == len(self) else "")

    # --- construction -------------------------------------------------------------------
    @classmethod
    def from_names(cls, text: str | Sequence[str]) -> DeviceSet:
        """Devices from a `--devices` list: names (`cpu:0,cpu:1`) or counts (`gpu:4`).

        `TYPE:N` is a count (devices TYPE:0 .. TYPE:N-1) when that type appears once
        and N > 0; otherwise entries are names. Local CPU devices run in this
        process; other devices are simulated with default rates and links.
        """
        entries = [e.strip() for e in (text.split(",") if isinstance(text, str) else text)]
        entries = [e for e in entries if e]
        if not entries:
            raise InvalidArgumentError("--devices is empty; give names like cpu:0,cpu:1")
        parsed = [(e, DeviceName.parse(e)) for e in entries]
        type_counts: dict[str | None, int] = {}
        for _, name in parsed:
            type_counts[name.type] = type_counts.get(name.type, 0) + 1
        names: list[DeviceName] = []
        for entry, name in parsed:
            if name.type is None:
                raise InvalidArgumentError(f"--devices entry {entry!r} does not name a device type")
            short = "/" not in entry.strip("/") and "device:" not in entry.lower()
            if short and type_counts[name.type] == 1 and name.id not in (None, 0):
                _check_device_count(len(names) + name.id, f"--devices entry {entry!r}")
                names += [replace(name, id=i).with_defaults() for i in range(name.id)]
            elif name.id is None:
                names.append(name.with_defaults(index=0))
            else:
                names.append(name.with_defaults())
        _check_device_count(len(names), "--devices")
        devices = [_default_device(n) for n in names]
        return cls(devices, _default_links(devices))

    @classmethod
    def local(cls, count: int = 1) -> DeviceSet:
        """`count` virtual CPU devices of this process."""
        return cls.from_names([f"cpu:{i}" for i in range(count)] if count > 1 else ["cpu:0"])

    @classmethod
    def from_spec(cls, spec: dict, label: str = "device spec") -> DeviceSet:
        """A simulated device set from a parsed spec (see `from_spec_file`)."""
        return _parse_spec(spec, label)

    @classmethod
    def from_spec_file(cls, path: str | Path) -> DeviceSet:
        """A simulated device set from a JSON file.

        The file holds `devices` (each a full `name`, or `job`/`replica`/`task`/`type`
        with a `count`; optional `flops`, `mem_bandwidth`, `memory`, `op_overhead`,
        `kernels` (default: the type's own for CPU and GPU devices of job localhost, else
        "CPU", standing in for TensorFlow's near-complete op sets), `unsupported_ops`),
        `links` (each `between`: two device specs, with `bandwidth` in bytes/s and
        `latency` in s; the first rule matching a pair wins, and every pair of
        devices must be covered), and optionally `client` (the client's device).
        Memory may be a number of bytes or a string such as "16GB" or "8GiB".

        Example file:
            {"devices": [{"job": "worker", "type": "CPU", "count": 1},
                         {"job": "worker", "type": "GPU", "count": 2, "flops": 1e13}],
             "links": [{"between": ["/job:worker", "/job:worker"],
                        "bandwidth": 1.2e10, "latency": 1e-5}]}
        """
        label = str(path)
        try:
            text = Path(path).read_text()
        except FileNotFoundError:
            raise NotFoundError(f"{label}: no such device spec file") from None
        try:
            spec = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidArgumentError(f"{label}: not valid JSON: {exc}") from None
        return _parse_spec(spec, label)


def _default_device(name: DeviceName, **overrides: Any) -> DeviceAttributes:
    full = str(name)
    local = name.job == LOCAL_JOB and name.replica == 0 and name.task == 0 and name.type == "CPU"
    rates = dict(_TYPE_DEFAULTS.get(name.type or "", _OTHER_DEFAULTS))
    rates.update({k: v for k, v in overrides.items() if k in rates})
    # This machine's devices (job localhost) are planned with tfx's kernels of their type, so
    # a placement for its GPU runs as placed. A device of another job, or of a type tfx has
    # no kernels for, borrows the CPU's op set: a stand-in for TensorFlow's, whose GPUs run
    # nearly every op.
    own = name.type in KERNEL_TYPES and name.job == LOCAL_JOB
    kernels = overrides.get("kernels") or (name.type if own else "CPU")
    return DeviceAttributes(
        name=full,
        device_type=name.type or "",
        flops=rates["flops"],
        mem_bandwidth=rates["mem_bandwidth"],
        memory=rates["memory"],
        op_overhead=rates["op_overhead"],
        kernels=str(kernels).upper(),
        unsupported_ops=frozenset(overrides.get("unsupported_ops") or ()),
        incarnation=incarnation_of(full),
        local=local and not overrides.get("simulated", False),
    )


def _check_device_count(count: int, what: str) -> None:
    if count > MAX_DEVICES:
        raise InvalidArgumentError(
            f"{what}: asks for {count} devices; tfx places on at most {MAX_DEVICES}"
        )


def _default_links(devices: list[DeviceAttributes]) -> dict[tuple[str, str], Link]:
    links: dict[tuple[str, str], Link] = {}
    for a in devices:
        pa = a.parsed
        for b in devices:
            if a is b:
                continue
            pb = b.parsed
            if a.local and b.local:
                link = LOCAL_LINK
            elif (pa.job, pa.replica, pa.task) == (pb.job, pb.replica, pb.task):
                link = _SAME_TASK_LINK
            else:
                link = _NETWORK_LINK
            links[(a.name, b.name)] = link
    return links


# --- spec files ---------------------------------------------------------------------------

_DEVICE_KEYS = {"name", "job", "replica", "task", "type", "count", "flops", "mem_bandwidth",
                "memory", "op_overhead", "kernels", "unsupported_ops"}
_LINK_KEYS = {"between", "bandwidth", "latency"}
_UNITS = {"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}


def _parse_spec(spec: Any, label: str) -> DeviceSet:
    if not isinstance(spec, dict):
        raise InvalidArgumentError(f"{label}: expected a JSON object with 'devices' and 'links'")
    _check_keys(spec, {"devices", "links", "client"}, label)
    entries = spec.get("devices")
    if not isinstance(entries, list) or not entries:
        raise InvalidArgumentError(f"{label}: 'devices' must be a non-empty list")
    devices: list[DeviceAttributes] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        where = f"{label}: devices[{i}]"
        devices += _spec_devices(entry, where)
        _check_device_count(len(devices), where)
        for device in devices[len(seen):]:
            if device.name in seen:
                raise InvalidArgumentError(f"{label}: device {device.name} is described twice")
            seen.add(device.name)
    rules = _spec_links(spec.get("links", []), label)
    links: dict[tuple[str, str], Link] = {}
    missing: list[str] = []
    # Bit r of side_a[k] (side_b[k]): rule r's first (second) spec matches device k. The
    # first rule matching a pair either way round is the lowest bit of the pair's mask, so
    # the pairs cost big-int operations, not a scan of the rules each.
    side_a = [sum(1 << r for r, (sa, _, _) in enumerate(rules) if sa.matches(d.parsed))
              for d in devices]
    side_b = [sum(1 << r for r, (_, sb, _) in enumerate(rules) if sb.matches(d.parsed))
              for d in devices]
    for i, a in enumerate(devices):
        for j, b in enumerate(devices):
            if i == j:
                continue
            mask = (side_a[i] & side_b[j]) | (side_a[j] & side_b[i])
            if not mask:
                if a.name < b.name:
                    missing.append(f"{a.name} <-> {b.name}")
                continue
            links[(a.name, b.name)] = rules[(mask & -mask).bit_length() - 1][2]
    if missing:
        shown = "; ".join(missing[:4]) + (f" (and {len(missing) - 4} more)" if len(missing) > 4
                                          else "")
        raise InvalidArgumentError(
            f"{label}: no link between {shown}; add a 'links' entry such as "
            '{"between": ["/job:a", "/job:b"], "bandwidth": 1.25e9, "latency": 5e-5}'
        )
    client = spec.get("client", "")
    if client:
        matches = [d.name for d in devices if DeviceName.parse(client).matches(d.parsed)]
        if not matches:
            raise InvalidArgumentError(f"{label}: client {client!r} matches no device")
        client = matches[0]
    return DeviceSet(devices, links, client)


def _spec_devices(entry: Any, where: str) -> list[DeviceAttributes]:
    if not isinstance(entry, dict):
        raise InvalidArgumentError(f"{where}: expected an object")
    _check_keys(entry, _DEVICE_KEYS, where)
    overrides: dict[str, Any] = {"simulated": True}
    for key in ("flops", "mem_bandwidth", "op_overhead"):
        if key in entry:
            overrides[key] = _number(entry[key], key, where, allow_zero=key == "op_overhead")
    if "memory" in entry:
        overrides["memory"] = _memory(entry["memory"], where)
    if "kernels" in entry:
        if not isinstance(entry["kernels"], str):
            raise InvalidArgumentError(f"{where}: 'kernels' must be a device type such as 'CPU'")
        overrides["kernels"] = entry["kernels"]
    unsupported = entry.get("unsupported_ops", [])
    if not isinstance(unsupported, list) or not all(isinstance(o, str) for o in unsupported):
        raise InvalidArgumentError(f"{where}: 'unsupported_ops' must be a list of op names")
    overrides["unsupported_ops"] = unsupported
    if "name" in entry:
        if any(k in entry for k in ("job", "replica", "task", "type", "count")):
            raise InvalidArgumentError(
                f"{where}: give either 'name' or job/replica/task/type/count, not both"
            )
        name = DeviceName.parse(str(entry["name"]))
        if not name.is_full:
            name = name.with_defaults()
        return [_default_device(name, **overrides)]
    if "type" not in entry:
        raise InvalidArgumentError(f"{where}: needs 'name' or 'type'")
    count = entry.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_DEVICES:
        raise InvalidArgumentError(f"{where}: 'count' must be an integer from 1 to {MAX_DEVICES}")
    base = DeviceName(
        job=str(entry.get("job", LOCAL_JOB)),
        replica=_int_field(entry, "replica", where),
        task=_int_field(entry, "task", where),
        type=str(entry["type"]).upper(),
    )
    _checked(_JOB_RE, base.job or "", "job", where)
    _checked(_TYPE_RE, base.type or "", "device type", where)
    return [_default_device(replace(base, id=i), **overrides) for i in range(count)]


def _spec_links(rules: Any, label: str) -> list[tuple[DeviceName, DeviceName, Link]]:
    if not isinstance(rules, list):
        raise InvalidArgumentError(f"{label}: 'links' must be a list")
    parsed = []
    for i, rule in enumerate(rules):
        where = f"{label}: links[{i}]"
        if not isinstance(rule, dict):
            raise InvalidArgumentError(f"{where}: expected an object")
        _check_keys(rule, _LINK_KEYS, where)
        between = rule.get("between")
        if not (isinstance(between, list) and len(between) == 2
                and all(isinstance(s, str) for s in between)):
            raise InvalidArgumentError(f"{where}: 'between' must be two device specs")
        for key in ("bandwidth", "latency"):
            if key not in rule:
                raise InvalidArgumentError(f"{where}: missing '{key}'")
        link = Link(_number(rule["bandwidth"], "bandwidth", where),
                    _number(rule["latency"], "latency", where, allow_zero=True))
        parsed.append((DeviceName.parse(between[0]), DeviceName.parse(between[1]), link))
    return parsed


def _check_keys(obj: dict, allowed: set[str], where: str) -> None:
    for key in obj:
        if key not in allowed:
            raise InvalidArgumentError(
                f"{where}: unknown key {key!r}{closest(str(key), allowed)}; "
                f"allowed: {', '.join(sorted(allowed))}"
            )


def _number(value: Any, key: str, where: str, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise InvalidArgumentError(f"{where}: '{key}' must be a number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero) or math.isinf(value):
        raise InvalidArgumentError(
            f"{where}: '{key}' must be {'non-negative' if allow_zero else 'positive'} and "
            f"finite, got {value!r}"
        )
    return float(value)


def _memory(value: Any, where: str) -> float:
    if isinstance(value, str):
        match = re.fullmatch(r"\s*([0-9.]+(?:e[0-9]+)?)\s*([A-Za-z]*)\s*", value)
        unit = match.group(2).upper() if match else None
        if not match or unit not in _UNITS:
            raise InvalidArgumentError(f"{where}: cannot read memory {value!r} (e.g. '16GB')")
        value = float(match.group(1)) * _UNITS[unit]
    return _number(value, "memory", where)


def _int_field(entry: dict, key: str, where: str) -> int:
    value = entry.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidArgumentError(f"{where}: '{key}' must be a non-negative integer")
    return value


# --- runtime devices ----------------------------------------------------------------------


class Device:
    """The runtime interface of a device: allocate, run a kernel, copy to and from host."""

    def __init__(self, attributes: DeviceAttributes) -> None:
        self.attributes = attributes

    @property
    def name(self) -> str:
        return self.attributes.name

    def allocate(self, shape: Sequence[int], dtype: Any) -> Any:
        raise NotImplementedError

    def compute(self, kernel: Any, *inputs: Any) -> tuple:
        """Run a kernel on inputs already in this device's memory."""
        return kernel.compute(*inputs)

    def copy_to_host(self, value: Any) -> np.ndarray:
        raise NotImplementedError

    def copy_from_host(self, value: np.ndarray) -> Any:
        raise NotImplementedError


class CPUDevice(Device):
    """A (virtual) CPU device of this process: numpy arrays in host memory."""

    def allocate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        return np.empty(tuple(shape), dtype=dtype)

    def copy_to_host(self, value: Any) -> Any:
        return value  # already host memory; tensors are never written after they are made

    def copy_from_host(self, value: Any) -> Any:
        return value


class GPUDevice(Device):
    """A CUDA GPU of this process through CuPy (see `local_gpu`).

    `context` makes the GPU current while a kernel runs. Copies to the device
    take numpy arrays and scalars of numeric and bool types; strings and
    handles stay on the host (they have no device form).
    """

    def __init__(self, attributes: DeviceAttributes) -> None:
        super().__init__(attributes)
        self._cupy = _import_cupy(attributes.name)
        self.context = self._cupy.cuda.Device(attributes.parsed.id or 0)

    def allocate(self, shape: Sequence[int], dtype: Any) -> Any:
        with self.context:
            return self._cupy.empty(tuple(shape), dtype=dtype)

    def copy_to_host(self, value: Any) -> Any:
        return self._cupy.asnumpy(value) if isinstance(value, self._cupy.ndarray) else value

    def copy_from_host(self, value: Any) -> Any:
        if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biufc":
            with self.context:
                return self._cupy.asarray(value)
        return value


def _import_cupy(device: str) -> Any:
    try:
        import cupy
    except ImportError:
        raise UnimplementedError(
            f"device {device} needs CuPy, which is not installed "
            "(pip install 'tfx-dataflow[gpu]')"
        ) from None
    return cupy


def gpu_count(device: str = "GPU") -> int:
    """How many CUDA GPUs CuPy sees (0 when the CUDA runtime finds none).

    Raises UnimplementedError naming `device` when CuPy is not installed.
    """
    cupy = _import_cupy(device)
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - CUDARuntimeError, or a driver missing altogether
        return 0


def gpu_memory(device: str) -> float:
    """The total memory in bytes of this machine's GPU `device`, as CUDA reports it."""
    return float(local_gpu(device).context.mem_info[1])


_GPUS: dict[str, GPUDevice] = {}
_GPUS_LOCK = threading.Lock()


def local_gpu(name: str) -> GPUDevice:
    """The runtime device of the local GPU `name` (a full or legacy name), made once.

    Kernels of every step on that GPU share it, so CuPy is imported and the
    CUDA device opened once per process.
    """
    parsed = DeviceName.parse(name).with_defaults()
    full = str(parsed)
    device = _GPUS.get(full)
    if device is None:
        with _GPUS_LOCK:
            device = _GPUS.get(full)
            if device is None:
                attributes = replace(_default_device(parsed), local=True, kernels="GPU")
                device = _GPUS[full] = GPUDevice(attributes)
    return device


def create_device(attributes: DeviceAttributes) -> Device:
    """The runtime device for a device of the set; simulated devices cannot run."""
    if not attributes.local:
        raise UnimplementedError(
            f"device {attributes.name} is simulated: tfx can place for it but not run on it"
        )
    if attributes.device_type == "CPU":
        return CPUDevice(attributes)
    if attributes.device_type == "GPU":
        return local_gpu(attributes.name)
    raise UnimplementedError(f"device {attributes.name}: no runtime for type "
                             f"{attributes.device_type}")


def describe(devices: Iterable[DeviceAttributes]) -> str:
    return ", ".join(d.name for d in devices)
