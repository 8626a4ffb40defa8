"""`tfx viz`: draw a graph (HTML, SVG, DOT, PNG) or print its scope tree."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer

from tfx.cli import common
from tfx.core.errors import InvalidArgumentError

if TYPE_CHECKING:
    from tfx.core.graph import Graph

HELP = """Draw GRAPH (a .pb/.pbtxt file, - for stdin, or a folder of partitions) readably.

Name scopes collapse into boxes with their node count; a scope holding most of the
graph opens by itself. Boxes are colored by device when the graph is placed; a
partitioned graph (a folder of per-device files, or one graph with Send/Recv pairs)
puts each device in its own cluster with the Send/Recv pairs joining them. Control
edges are dashed; edge labels give dtype and static shape.

The format follows the extension of -o: .html (one offline page: pan, zoom, search,
click to open scopes, a side panel), .svg, .dot (Graphviz source) or .png (needs
`pip install 'tfx-dataflow[png]'`). `--terminal` prints the scope tree instead.

Examples:

```
tfx viz model.pb -o model.html
tfx viz model.pb -o model.svg --expand block_3
tfx viz partitions/ -o placed.svg
tfx viz model.pb --terminal --depth 2
```
"""


def viz(
    graph: Annotated[
        str, typer.Argument(metavar="GRAPH",
                            help="Graph file (.pb or .pbtxt), - for stdin, or a folder of "
                                 "partition files.")
    ],
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="OUT",
                     help="Picture to write: .html, .svg, .dot or .png (- for stdout with "
                          "--format)."),
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option("--format", metavar="FORMAT",
                     help="html, svg, dot or png (default: from the extension of OUT)."),
    ] = None,
    expand: Annotated[
        list[str] | None,
        typer.Option("--expand", "-e", metavar="SCOPE",
                     help="Open a scope (and the scopes around it); repeatable."),
    ] = None,
    depth: Annotated[
        int | None,
        typer.Option("--depth", min=0, metavar="N",
                     help="Open every scope down to depth N (1 = top-level scopes)."),
    ] = None,
    expand_all: Annotated[
        bool, typer.Option("--expand-all", help="Open every scope (up to --max-visible).")
    ] = False,
    max_visible: Annotated[
        int,
        typer.Option("--max-visible", min=1, metavar="N",
                     help="Close the deepest scopes while more boxes than this would show."),
    ] = 5000,
    terminal: Annotated[
        bool, typer.Option("--terminal", help="Print the scope tree to the terminal.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print what was drawn as JSON.")
    ] = False,
) -> None:
    from tfx.core import viz as viz_lib

    if output is None and not terminal and not as_json:
        raise InvalidArgumentError(
            "nothing to do: give -o OUT (.html, .svg, .dot or .png) or --terminal"
        )
    chosen = viz_lib.output_format(output, fmt) if output is not None else None
    label = common.graph_label(graph)
    options = viz_lib.VizOptions(expand=expand or (), depth=depth, expand_all=expand_all,
                                 max_visible=max_visible,
                                 title=os.path.basename(label.rstrip("/")) or label)
    ir = _load(graph)
    # Only a file needs the layout; --terminal and --json alone need the scope state.
    picture = (viz_lib.render(ir, chosen, options) if chosen is not None
               else viz_lib.describe(ir, options))
    for warning in picture.warnings:
        common.err_console.print(f"warning: {warning}", style="yellow", highlight=False,
                                 soft_wrap=True)
    if output is not None:
        _write(output, picture.data)
    to_stdout = output == "-"
    if as_json and not to_stdout:
        common.print_json(_summary(label, output, picture))
    elif terminal and not to_stdout:
        from tfx.core.viz.terminal import scope_tree

        common.console.print(scope_tree(picture.tree, picture.expanded, label))
    elif output is not None and not to_stdout:
        common.console.print(
            f"wrote {output}: {picture.visible} boxes for {len(ir)} nodes"
            + (f", {len(picture.tree.devices)} devices" if picture.tree.devices else ""),
            highlight=False, soft_wrap=True,
        )


def _load(path: str) -> Graph:
    """A graph file, or every .pb/.pbtxt in a folder (one partition per device) merged."""
    if path == "-" or not os.path.isdir(path):
        return common.load_graph_ir(path)
    from tfx.core.graph import Graph
    from tfx.core.graph_io import load_graph
    from tfx.protos import graph_pb2

    files = sorted(f for f in os.listdir(path) if f.endswith((".pb", ".pbtxt")))
    if not files:
        raise InvalidArgumentError(f"{path}: a folder, but it holds no .pb or .pbtxt files")
    merged = graph_pb2.GraphDef()
    owner: dict[str, str] = {}
    for name in files:
        part = load_graph(os.path.join(path, name))
        if not merged.HasField("versions"):
            merged.versions.CopyFrom(part.versions)
        for node in part.node:
            if node.name in owner:
                raise InvalidArgumentError(
                    f"{path}: node {node.name!r} is in both {owner[node.name]} and {name}"
                )
            owner[node.name] = name
        merged.node.extend(part.node)
    try:
        return Graph.from_graph_def(merged)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"{path}: {exc}") from None


def _write(path: str, data: bytes) -> None:
    from tfx.core import fileio

    try:
        fileio.atomic_write_bytes(path, data)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, path) from None


def _summary(label: str, output: str | None, picture) -> dict:
    from tfx.core.viz.scopes import Group

    tree = picture.tree
    return {
        "graph": label,
        "output": output,
        "format": picture.format if output is not None else None,
        "nodes": len(tree.nodes),
        "visible_boxes": picture.visible,
        "groups": sum(1 for g in tree.groups.values() if g.kind != "root"),
        "expanded": sorted(g.id for g in picture.expanded if g.kind != "root"),
        "top_level": [c.id if isinstance(c, Group) else c.name for c in tree.root.children],
        "devices": tree.devices,
        "transfers": [{"send": t.send.name, "recv": t.recv.name, "tensor": t.tensor_name}
                      for t in tree.transfers],
        "warnings": picture.warnings,
    }
