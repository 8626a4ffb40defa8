"""`tfx partition`: cut a placed graph into one graph per device, joined by Send/Recv."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from tfx.cli import common

if TYPE_CHECKING:
    from tfx.core.graph import Graph

HELP = """Cut PLACED (a graph whose nodes all have full device names, e.g. from `tfx place`)
into one graph per device, written to DIR with an index.json of devices and rendezvous keys.

Every edge between devices becomes a _Send/_Recv pair named as TensorFlow names them
(one Recv per tensor and destination device); control edges between devices travel as a
small dummy tensor.

Examples:

```
tfx place model.pb --devices cpu:0,cpu:1 -o placed.pb
tfx partition placed.pb -o parts/
tfx partition placed.pb -o parts/ --json
```
"""


def partition(
    graph: Annotated[
        str, typer.Argument(metavar="PLACED",
                            help="Placed graph file (.pb or .pbtxt), or - for stdin.")
    ],
    output: Annotated[
        str, typer.Option("--output", "-o", metavar="DIR",
                          help="Directory for the per-device .pb files and index.json.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the index as JSON.")] = False,
) -> None:
    import json
    from pathlib import Path

    from tfx.core import fileio
    from tfx.core.graph_io import save_graph
    from tfx.core.partitioner import file_name
    from tfx.core.partitioner import partition as partition_graph

    ir = common.load_graph_ir(graph)
    ir.validate()
    parts = partition_graph(ir)
    directory = Path(output)
    directory.mkdir(parents=True, exist_ok=True)
    files = {device: file_name(device) for device in parts.graphs}
    for device, part in parts.graphs.items():
        save_graph(part.to_graph_def(), directory / files[device])
    index = parts.index_json(files)
    fileio.atomic_write_bytes(directory / "index.json",
                              (json.dumps(index, indent=1) + "\n").encode())
    if as_json:
        common.print_json(index)
        return
    _print_index(common.graph_label(graph), str(directory), index)


def _print_index(label: str, directory: str, index: dict) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{label}: partitions in {directory}", title_justify="left")
    for column in ("device", "nodes", "sends", "recvs", "file"):
        table.add_column(column, overflow="fold",
                         justify="right" if column in ("nodes", "sends", "recvs") else "left")
    transfers = index["transfers"]
    for entry in index["devices"]:
        device = entry["device"]
        sends = sum(1 for t in transfers if t["send_device"] == device)
        recvs = sum(1 for t in transfers if t["recv_device"] == device)
        table.add_row(Text(device), str(entry["nodes"]), str(sends), str(recvs),
                      Text(entry["file"]))
    common.console.print(table)
    common.console.print(f"{len(transfers)} Send/Recv pair(s); index: {directory}/index.json",
                         highlight=False, markup=False)


def load_placed(path: str) -> Graph:
    """A placed graph: a graph file, or a folder `tfx partition` wrote (joined back).

    The folder's index.json names the partition files; without one, every .pb/.pbtxt
    in the folder is a partition.
    """
    import json
    from pathlib import Path

    from tfx.core.errors import InvalidArgumentError
    from tfx.core.partitioner import merge

    folder = Path(path)
    if path == "-" or not folder.is_dir():
        return common.load_graph_ir(path)
    index = folder / "index.json"
    if index.exists():
        try:
            files = [entry["file"] for entry in json.loads(index.read_text())["devices"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidArgumentError(f"{index}: not a tfx partition index ({exc})") from None
    else:
        files = sorted(p.name for p in folder.iterdir() if p.suffix in (".pb", ".pbtxt"))
    if not files:
        raise InvalidArgumentError(f"{path}: a folder, but it holds no partition graphs")
    try:
        return merge([common.load_graph_ir(str(folder / name)) for name in files])
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"{path}: {exc}") from None
