"""`tfx place`: give every node of a graph a device and report the simulated step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from tfx.cli import common

if TYPE_CHECKING:
    from tfx.core.devices import DeviceSet
    from tfx.core.placer import Placement

HELP = """Place GRAPH (a .pb/.pbtxt file, or - for stdin) on devices and report the simulated step.

Devices come from --devices (names such as cpu:0,cpu:1, or counts such as gpu:4) or
from a JSON --device-spec describing a cluster (types, counts, rates, memory, links).
Node device fields are constraints (partial specs allowed; --soft-placement relaxes
those no device satisfies); state stays with its users, `_class` groups and while loops
stay together. The greedy placer simulates the step and puts each node where it would
finish earliest; the report compares it with two baselines (everything on the best
single device, and TensorFlow's default placer) and the greedy result is never worse.

Examples:

```
tfx place model.pb --devices cpu:0,cpu:1 -o placed.pb
tfx place model.pb --device-spec cluster.json --input-shape x:0=32,784 --json
tfx place model.pb --devices cpu:0,gpu:2 --profile prof.json
```
"""


def place(
    graph: Annotated[
        str, typer.Argument(metavar="GRAPH", help="Graph file (.pb or .pbtxt), or - for stdin.")
    ],
    devices: Annotated[
        str | None,
        typer.Option("--devices", "-d", metavar="LIST",
                     help="Devices: names (cpu:0,cpu:1) or counts (gpu:4)."),
    ] = None,
    device_spec: Annotated[
        str | None,
        typer.Option("--device-spec", metavar="FILE",
                     help="JSON file describing devices, rates, memory and links."),
    ] = None,
    input_shape: Annotated[
        list[str] | None,
        typer.Option("--input-shape", metavar="NAME=DIMS",
                     help="Pin a tensor's shape for the cost model: x:0=32,784."),
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option("--profile", metavar="FILE",
                     help="Measured per-node costs (a tfx profile) instead of estimates."),
    ] = None,
    soft_placement: Annotated[
        bool, typer.Option("--soft-placement",
                           help="Relax device constraints that no device satisfies.")
    ] = False,
    strategy: Annotated[
        str, typer.Option("--strategy", metavar="NAME",
                          help="greedy (default), single (best single device) or default "
                               "(TensorFlow's placer).")
    ] = "greedy",
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="OUT",
                     help="Write the placed graph: .pb, .pbtxt, or - (binary, stdout)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    from tfx.core.cost_model import CostModel, Profile
    from tfx.core.errors import InvalidArgumentError, ResourceExhaustedError
    from tfx.core.graph_io import save_graph
    from tfx.core.placer import place as place_graph

    if output == "-" and as_json:
        raise typer.BadParameter("--json and -o - both write to stdout; choose one",
                                 param_hint="'-o'")
    device_set = load_devices(devices, device_spec)
    ir = common.load_graph_ir(graph)
    shapes = parse_shapes(input_shape or [])
    measured = Profile.load(profile) if profile else None
    cost_model = CostModel(ir, input_shapes=shapes, profile=measured)
    try:
        placement = place_graph(ir, device_set, cost_model=cost_model,
                                soft_placement=soft_placement, strategy=strategy)
    except ResourceExhaustedError as exc:
        # Too big for these devices is a fact about the input, not a failure at run time.
        raise InvalidArgumentError(str(exc)) from None
    if output is not None:
        save_graph(ir.to_graph_def(), output)
        if output == "-":
            return
    label = common.graph_label(graph)
    if as_json:
        common.print_json({"graph": label, "output": output, "devices": device_set.names,
                           **placement.to_json()})
        return
    _print_report(label, placement, device_set)
    if output is not None:
        common.err_console.print(f"wrote the placed graph to {output}", highlight=False,
                                 soft_wrap=True)


def load_devices(devices: str | None, device_spec: str | None) -> DeviceSet:
    """The device set from --devices or --device-spec (exactly one)."""
    from tfx.core.devices import DeviceSet

    if (devices is None) == (device_spec is None):
        raise typer.BadParameter("give either --devices or --device-spec",
                                 param_hint="'--devices'")
    if device_spec is not None:
        return DeviceSet.from_spec_file(device_spec)
    return DeviceSet.from_names(devices or "")


def parse_shapes(specs: list[str]) -> dict[str, tuple[int | None, ...]]:
    """`x:0=32,784` -> {"x:0": (32, 784)}; `?` or -1 leaves a dim unknown, `x=` is a scalar."""
    from tfx.core.errors import InvalidArgumentError

    shapes: dict[str, tuple[int | None, ...]] = {}
    for spec in specs:
        name, sep, dims = spec.partition("=")
        if not sep or not name.strip():
            raise InvalidArgumentError(f"--input-shape {spec!r}: expected NAME=DIMS, "
                                       "e.g. x:0=32,784")
        parsed: list[int | None] = []
        for dim in (d.strip() for d in dims.split(",") if d.strip()):
            if dim in ("?", "-1"):
                parsed.append(None)
            elif dim.isdigit():
                parsed.append(int(dim))
            else:
                raise InvalidArgumentError(f"--input-shape {spec!r}: bad dimension {dim!r}")
        shapes[common.tensor_name(name.strip())] = tuple(parsed)
    return shapes


def _print_report(label: str, placement: Placement, device_set: DeviceSet) -> None:
    from rich.table import Table
    from rich.text import Text

    console = common.console
    single = placement.baselines["single"]
    best = single.strategy.partition(":")[2]
    rows = [("greedy", placement.greedy)] if placement.greedy else []
    rows += [(f"best single device ({_short(best)})", single),
             ("TensorFlow default", placement.baselines["default"])]
    summary = Table(title=f"{label}: simulated step", title_justify="left")
    for column in ("placement", "makespan", "vs bound", "send/recv pairs", "bytes moved",
                   "fits memory"):
        summary.add_column(column, justify="left" if column == "placement" else "right")
    bound = placement.lower_bound
    for name, report in rows:
        mark = " (chosen)" if report is placement.chosen else ""
        ratio = f"{report.makespan / bound:.2f}x" if bound > 0 else "-"
        summary.add_row(Text(name + mark), _seconds(report.makespan), ratio,
                        str(report.transfers), _bytes(report.bytes_moved),
                        "no" if report.over_memory else "yes")
    summary.add_row(Text("lower bound"), _seconds(bound), "1.00x", "", "", "")
    console.print(summary)

    table = Table(title="per device: busy time / peak memory", title_justify="left")
    table.add_column("device", overflow="fold")
    table.add_column("nodes (chosen)", justify="right")
    for name, _ in rows:
        table.add_column(name.split(" (")[0], justify="right")
    table.add_column("capacity", justify="right")
    for device in device_set:
        cells = [f"{_seconds(r.busy[device.name])} / {_bytes(r.peak_memory[device.name])}"
                 for _, r in rows]
        table.add_row(Text(device.name), str(placement.chosen.nodes[device.name]), *cells,
                      _bytes(device.memory))
    console.print(table)
    if placement.note:
        console.print(Text(placement.note))


def _short(device: str) -> str:
    """'/job:localhost/replica:0/task:0/device:CPU:1' -> 'CPU:1' (job and task if not local)."""
    head, _, tail = device.partition("/device:")
    return tail if head in ("", "/job:localhost/replica:0/task:0") else f"{head}/{tail}"


def _seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.3f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.3f} ms"
    return f"{value * 1e6:.1f} µs"


def _bytes(value: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(value) < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"
