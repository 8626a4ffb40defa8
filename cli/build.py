"""`tfx build`: turn a model definition into a graph file."""

from __future__ import annotations

from typing import Annotated

import typer

from tfx.cli import common

HELP = """Build MODEL into a graph file: a model name from tfx's graphs/ or a .py file
with a `build()` function that creates the graph with `import tfx as tf` and returns
its important nodes ({"inputs": [...], "loss": ..., "train": ..., "init": ...}).
Those nodes get exactly those names in the graph.

Models: mlp (the seed paper's Figure 1), lenet (a small CNN), embedding (Figure 4,
a sharded embedding table), lstm (a language model whose steps are a while loop),
pipeline (Figure 2: input queue, preprocessing, training, periodic checkpoints),
sync_replicas (Figure 5: synchronous replicas, m of n gradient aggregation).
`--param key=value` sets an argument of `build` (values are Python literals, else
strings). The format follows the file name
(.pbtxt is text) unless --text is given.

Examples:

```
tfx build mlp -o mlp.pb
tfx build lenet -o lenet.pbtxt --param learning_rate=0.01 --param opt=adam
tfx build my_model.py -o model.pb --text
tfx build --list
```
"""


def build(
    model: Annotated[
        str | None,
        typer.Argument(metavar="MODEL", help="A model name from graphs/, or a .py file."),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="OUT", help="Write the graph: out.pb or out.pbtxt."),
    ] = None,
    params: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", metavar="KEY=VALUE", help="An argument of build()."),
    ] = None,
    text: Annotated[bool, typer.Option("--text", help="Write text format (pbtxt).")] = False,
    list_models: Annotated[
        bool, typer.Option("--list", help="List the bundled models and exit.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    from tfx.core.api.model_builder import build_model, parse_params
    from tfx.core.api.model_builder import list_models as bundled

    if list_models:
        names = bundled()
        if as_json:
            common.print_json({"models": names})
        else:
            for name in names:
                common.console.print(name, highlight=False)
        return
    if model is None:
        raise typer.BadParameter("give a MODEL (or --list)", param_hint="'MODEL'")
    if output is None:
        raise typer.BadParameter("give the output file with -o", param_hint="'-o'")
    from tfx.core.graph_io import save_graph

    graph, names = build_model(model, parse_params(params or []))
    graph_def = graph.as_graph_def()
    save_graph(graph_def, output, text=True if text else None)
    if as_json:
        common.print_json({"model": model, "output": output, "nodes": len(graph_def.node),
                           "names": names})
        return
    common.console.print(f"wrote {output}: {len(graph_def.node)} nodes", highlight=False,
                         soft_wrap=True)
    for role, name in names.items():
        common.console.print(f"  {role:<12} {name}", highlight=False)
