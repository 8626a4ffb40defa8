"""`tfx inspect`: what a graph takes, gives and holds, without running it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from tfx.cli import common

if TYPE_CHECKING:
    from tfx.core.graph import Graph
    from tfx.core.summarize import GraphSummary

HELP = """Summarize GRAPH (a .pb/.pbtxt file, or - for stdin) without running it.

Shows the likely inputs (placeholders with dtype and shape), the likely outputs,
the op histogram, the parameter count, the devices, and the ops tfx cannot run
(unknown ops, ops without a CPU kernel). Works on graphs with unknown ops.
`--tree` prints the name-scope tree instead, collapsed as `tfx viz` draws it.

Examples:

```
tfx inspect model.pb
tfx inspect graphs/default.pbtxt --json
tfx inspect model.pb --tree
```
"""

_HISTOGRAM_ROWS = 25


def inspect(
    graph: Annotated[
        str, typer.Argument(metavar="GRAPH", help="Graph file (.pb or .pbtxt), or - for stdin.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    tree: Annotated[
        bool, typer.Option("--tree", help="Print the name-scope tree (as tfx viz --terminal).")
    ] = False,
) -> None:
    from tfx.core.summarize import summarize_graph

    if tree and as_json:
        raise typer.BadParameter("--tree prints a tree; for JSON use tfx viz --json",
                                 param_hint="'--tree'")
    ir = common.load_graph_ir(graph)
    if tree:
        _print_tree(common.graph_label(graph), ir)
        return
    summary = summarize_graph(ir)
    if as_json:
        common.print_json({"graph": common.graph_label(graph), **summary.to_dict()})
    else:
        _print_summary(common.graph_label(graph), summary)


def _print_tree(label: str, ir: Graph) -> None:
    from tfx.core.viz import describe
    from tfx.core.viz.terminal import scope_tree

    state = describe(ir)
    for warning in state.warnings:
        common.err_console.print(f"warning: {warning}", style="yellow", highlight=False,
                                 soft_wrap=True)
    common.console.print(scope_tree(state.tree, state.expanded, label))


def _print_summary(label: str, summary: GraphSummary) -> None:
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = common.console
    overview = Table.grid(padding=(0, 2))
    overview.add_column(style="bold")
    overview.add_column()
    rows = [
        ("nodes", f"{summary.node_count} ({len(summary.op_counts)} op types)"),
        ("parameters", f"{summary.parameter_count:,} ({summary.const_parameters:,} in "
                       f"constants, {summary.variable_parameters:,} in "
                       f"{summary.variable_count} variable(s))"),
        ("control edges", str(summary.control_edge_count)),
        ("devices", common.join(summary.devices, "none named")),
        ("producer", str(summary.producer_version)),
    ]
    if summary.function_count:
        rows.append(("functions", str(summary.function_count)))
    for key, value in rows:
        overview.add_row(key, Text(value))
    console.print(Panel(overview, title=Text(label), title_align="left", expand=False))

    inputs = Table(title="likely inputs", title_justify="left")
    for column in ("tensor", "op", "dtype", "shape"):
        inputs.add_column(column, overflow="fold")
    for info in summary.inputs:
        op = info.op + (" (has default)" if info.has_default else "")
        inputs.add_row(*(Text(c) for c in (info.tensor, op, info.dtype or "?",
                                           common.dims_text(info.shape))))
    console.print(inputs if summary.inputs else Text("likely inputs: none"))

    outputs = Table(title="likely outputs", title_justify="left")
    for column in ("node", "op", "tensors"):
        outputs.add_column(column, overflow="fold")
    for out in summary.outputs:
        tensors = ("?" if out.tensors is None
                   else common.join((f"{n} ({t})" for n, t in out.tensors), "none (a target)"))
        outputs.add_row(Text(out.name), Text(out.op), Text(tensors))
    console.print(outputs if summary.outputs else Text("likely outputs: none"))

    histogram = Table(title="ops", title_justify="left")
    histogram.add_column("op", overflow="fold")
    histogram.add_column("count", justify="right")
    for op, count in summary.op_counts[:_HISTOGRAM_ROWS]:
        histogram.add_row(Text(op), str(count))
    rest = summary.op_counts[_HISTOGRAM_ROWS:]
    if rest:
        histogram.add_row(Text(f"({len(rest)} more op types)"), str(sum(n for _, n in rest)))
    console.print(histogram)

    if summary.unknown_ops:
        console.print(Text("unknown ops: " + ", ".join(summary.unknown_ops), style="bold red"))
    if summary.ops_without_cpu_kernel:
        console.print(Text("ops without a CPU kernel: "
                           + ", ".join(summary.ops_without_cpu_kernel), style="yellow"))
    for issue in summary.issues:
        console.print(Text(f"issue: {issue}", style="yellow"))
    if summary.inputs or summary.outputs:
        console.print(Text("run it: " + _run_hint(label, summary), style="dim"))


def _run_hint(label: str, summary: GraphSummary) -> str:
    """A `tfx run` command line for this graph, as summarize_graph suggests one."""
    parts = ["tfx run", "-" if label == "<stdin>" else label]
    for info in summary.inputs:
        if not info.has_default:
            parts.append(f"--feed {info.tensor}={info.name.replace('/', '_')}.npy")
    for out in summary.outputs:
        for name, _ in out.tensors or []:
            parts.append(f"--fetch {name}")
    return " ".join(parts)
