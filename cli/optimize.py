"""`tfx optimize`: rewrite a graph to be smaller and faster, with the same results."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from tfx.cli import common

if TYPE_CHECKING:
    from tfx.core.passes import OptimizeReport

HELP = """Optimize GRAPH (a .pb/.pbtxt file, or - for stdin) and write the result with -o.

Levels: `all` (default) prunes dead nodes, removes identities, folds constants and
static shapes, simplifies arithmetic, merges common subexpressions, drops redundant
control edges, folds batch norms and constant scales into Conv2D/MatMul weights and
fuses Conv2D/DepthwiseConv2dNative/MatMul + BiasAdd + activation into TensorFlow's
_Fused* ops; `basic` does only the passes that keep every result bit-for-bit;
`none` does nothing. --passes runs the named passes in the given order instead.

What must be kept: --inputs (default: the placeholders) and --outputs (default: the
likely outputs, as `tfx inspect` shows them). A fed tensor is never folded away.
The output format follows the file name (.pbtxt is text); - writes binary to stdout.

Examples:

```
tfx optimize model.pb -o model.opt.pb
tfx optimize model.pb -o model.opt.pb --outputs probs --level basic --json
tfx optimize model.pb --passes pruning,constant_folding,cse --dump-dir passes/
```
"""


def _split(values: list[str] | None) -> list[str] | None:
    """`--x a,b --x c` -> ['a', 'b', 'c']; None when the option was not given."""
    if not values:
        return None
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def optimize(
    graph: Annotated[
        str, typer.Argument(metavar="GRAPH", help="Graph file (.pb or .pbtxt), or - for stdin.")
    ],
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="OUT",
                     help="Write the optimized graph: out.pb, out.pbtxt, or - (binary, stdout)."),
    ] = None,
    level: Annotated[
        str, typer.Option("--level", metavar="LEVEL", help="none, basic or all.")
    ] = "all",
    passes: Annotated[
        list[str] | None,
        typer.Option("--passes", metavar="A,B,...",
                     help="Run these passes in this order instead of a level."),
    ] = None,
    inputs: Annotated[
        list[str] | None,
        typer.Option("--inputs", metavar="NAMES",
                     help="Fed tensors or nodes to keep as inputs (comma-separated)."),
    ] = None,
    outputs: Annotated[
        list[str] | None,
        typer.Option("--outputs", metavar="NAMES",
                     help="Fetched tensors or target nodes to keep (comma-separated)."),
    ] = None,
    dump_dir: Annotated[
        str | None,
        typer.Option("--dump-dir", metavar="DIR",
                     help="Write the graph after every pass to DIR (00-input.pb, 01-...)."),
    ] = None,
    max_constant_bytes: Annotated[
        int | None,
        typer.Option("--max-constant-bytes", metavar="N", min=1,
                     help="Never fold into a constant larger than N bytes (default 10 MiB)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON.")
    ] = False,
) -> None:
    from tfx.core.graph_io import save_graph
    from tfx.core.passes import DEFAULT_MAX_CONSTANT_BYTES
    from tfx.core.passes import optimize as run_passes

    if output == "-" and as_json:
        raise typer.BadParameter("--json and -o - both write to stdout; choose one",
                                 param_hint="'-o'")
    pass_list = _split(passes)
    ir = common.load_graph_ir(graph)
    result = run_passes(
        ir,
        inputs=_split(inputs),
        outputs=_split(outputs),
        level=level,
        passes=pass_list,
        max_constant_bytes=max_constant_bytes or DEFAULT_MAX_CONSTANT_BYTES,
        dump_dir=dump_dir,
        copy=False,
    )
    result.graph.validate()
    if output is not None:
        try:
            save_graph(result.graph.to_graph_def(), output)
        except OSError as exc:  # name the file asked for, not the temporary one
            raise OSError(exc.errno, exc.strerror, output) from None
    label = common.graph_label(graph)
    if as_json:
        common.print_json({"graph": label, "output": output, **result.report.to_dict()})
        return
    _print_report(label, output, result.report)


def _print_report(label: str, output: str | None, report: OptimizeReport) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # With the graph on stdout, the report goes to stderr.
    console: Console = common.err_console if output == "-" else common.console
    before, after = report.before, report.after
    console.print(Text(f"{label}: optimized ({report.level})", style="bold"))
    summary = Table()
    for column in ("", "before", "after", "change"):
        summary.add_column(column, justify="left" if not column else "right")
    rows = [
        ("nodes", before.nodes, after.nodes),
        ("op types", len(before.op_counts), len(after.op_counts)),
        ("parameters", before.parameters, after.parameters),
        ("est. FLOPs", before.flops, after.flops),
    ]
    for name, was, now in rows:
        summary.add_row(name, f"{was:,}", f"{now:,}", _change(was, now))
    console.print(summary)

    passes = Table(title="passes", title_justify="left")
    for column in ("pass", "ms", "nodes", "what changed"):
        passes.add_column(column, justify="right" if column == "ms" else "left",
                          overflow="fold")
    for record in report.passes:
        changes = ", ".join(f"{k} {v}" for k, v in record.counts.items()) or "-"
        passes.add_row(record.name, f"{record.seconds * 1000:.1f}",
                       f"{record.nodes_before} -> {record.nodes_after}", Text(changes))
    if report.passes:
        console.print(passes)

    ops = Table(title="op types", title_justify="left")
    for column in ("op", "before", "after"):
        ops.add_column(column, justify="left" if column == "op" else "right")
    names = list(dict.fromkeys([*before.op_counts, *after.op_counts]))
    for op in names:
        was, now = before.op_counts.get(op, 0), after.op_counts.get(op, 0)
        ops.add_row(Text(op), str(was), str(now), style=None if was == now else "bold")
    console.print(ops)
    kept = (f"kept: inputs {common.join(report.inputs, 'none')}; "
            f"outputs {common.join(report.outputs)}")
    console.print(Text(kept, style="dim"))
    if output is not None and output != "-":
        console.print(f"wrote {output} in {report.seconds:.2f} s", highlight=False, markup=False,
                      soft_wrap=True)


def _change(before: int, after: int) -> str:
    if before == after:
        return "-"
    if before == 0:
        return f"+{after:,}"
    return f"{(after - before) / before:+.1%}"
