"""Layered layouts of each group's interior, from igraph's Sugiyama engine.

Every group (the root, each scope, series or device cluster) is laid out on its
own, with its children collapsed, as TensorBoard lays out each level with
dagre: what an edge from outside the group looks like inside it is an *in
port*, what leaves it an *out port*. The result is a grid: each child sits in
a (column, row) cell, and an edge spanning several rows bends through cells of
its own. `place.py` turns cells into pixels given the sizes of the boxes, so
expanding a child only widens its column and heightens its row; the browser
viewer does the same, which is why expand and collapse work offline without a
layout engine in the page.

The layering is longest-path from the sources with sources pulled down to just
above their first consumer (a weight sits next to its convolution, not at the
top of the picture), after breaking cycles (while loops) at DFS back edges.
igraph orders each layer to minimize crossings and assigns the x coordinates.
igraph is imported only when a layout is computed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tfx.core.errors import FailedPreconditionError, InternalError
from tfx.core.graph import Node, Output
from tfx.core.viz.scopes import Group, ScopeTree

IN, OUT = "in", "out"


@dataclass(eq=False)
class Port:
    """Where edges from outside a group enter it (IN) or leave it (OUT)."""

    group: Group
    direction: str

    def __repr__(self) -> str:
        return f"<Port {self.direction} of {self.group.id!r}>"


Item = Group | Node | Port


@dataclass(eq=False)
class LevelEdge:
    """The node-level edges between two items of one level, merged."""

    src: int  # index into LevelLayout.items
    dst: int
    control: bool
    tensors: list[Output] = field(default_factory=list)  # distinct tensors carried
    count: int = 0  # node-level edges merged
    cells: list[tuple[int, int]] = field(default_factory=list)  # bends: (column, row)


@dataclass(eq=False)
class LevelLayout:
    """One group's interior: a cell per item and a route per edge."""

    group: Group
    items: list[Item]
    cells: list[tuple[int, int]]
    columns: int
    rows: int
    edges: list[LevelEdge]


def level_edges(tree: ScopeTree) -> dict[Group, list[tuple[Item, Item, bool, Output | None]]]:
    """Each group's edges between its children and ports.

    A node-level edge u -> v appears once in the innermost group holding both ends
    (between the children that hold them), and, for data edges, as a port edge in
    every group between there and u (to the OUT port) or v (from the IN port).
    """
    ports: dict[tuple[Group, str], Port] = {}

    def port(group: Group, direction: str) -> Port:
        key = (group, direction)
        if key not in ports:
            ports[key] = Port(group, direction)
        return ports[key]

    result: dict[Group, list[tuple[Item, Item, bool, Output | None]]] = {}
    for node in tree.nodes:
        sources: list[tuple[Node, bool, Output | None]] = [
            (o.node, False, o) for o in node.inputs
        ] + [(c, True, None) for c in node.control_inputs]
        if not sources:
            continue
        chain_v = [node, *tree.ancestors(node)]
        position_v = {id(g): i for i, g in enumerate(chain_v)}
        for producer, control, tensor in sources:
            chain_u = [producer, *tree.ancestors(producer)]
            # The innermost group holding both ends: chain_u[i] is chain_v[j].
            i = next(k for k in range(1, len(chain_u)) if id(chain_u[k]) in position_v)
            j = position_v[id(chain_u[i])]
            group = chain_u[i]
            src, dst = chain_u[i - 1], chain_v[j - 1]
            result.setdefault(group, []).append((src, dst, control, tensor))
            if control:
                # Inside a group, a control edge to or from outside is left out: the
                # level holding both ends draws it, dashed. (A model's NoOp reading
                # every variable would otherwise pull long edges through every block.)
                continue
            for k in range(1, i):  # producer side: out through each enclosing group
                inner = chain_u[k]
                result.setdefault(inner, []).append(
                    (chain_u[k - 1], port(inner, OUT), control, tensor))
            for k in range(1, j):  # consumer side: in through each enclosing group
                inner = chain_v[k]
                result.setdefault(inner, []).append(
                    (port(inner, IN), chain_v[k - 1], control, tensor))
    return result


def layout_group(group: Group, edges: list[tuple[Item, Item, bool, Output | None]]
                 ) -> LevelLayout:
    """Lay out one group's children (collapsed) and its ports on a grid."""
    items: list[Item] = list(group.children)
    index = {id(item): i for i, item in enumerate(items)}
    merged: dict[tuple[int, int, bool], LevelEdge] = {}
    for src, dst, control, tensor in edges:
        for end in (src, dst):
            if id(end) not in index:
                index[id(end)] = len(items)
                items.append(end)
        key = (index[id(src)], index[id(dst)], control)
        edge = merged.get(key)
        if edge is None:
            edge = merged[key] = LevelEdge(key[0], key[1], control)
        edge.count += 1
        if tensor is not None and tensor not in edge.tensors:
            edge.tensors.append(tensor)
    level = LevelLayout(group, items, [], 0, 0, list(merged.values()))
    _place_cells(level)
    return level


def _place_cells(level: LevelLayout) -> None:
    count = len(level.items)
    pairs = list({(e.src, e.dst) for e in level.edges})
    if count <= 1:
        level.cells = [(0, 0)] * count
        level.columns = level.rows = count
        return
    layers = _layers(count, pairs)
    engine = _igraph()
    graph = engine.Graph(n=count, edges=pairs, directed=True)
    layout, extended = graph.layout_sugiyama(
        layers=layers, hgap=1, vgap=1, maxiter=40, return_extended_graph=True)
    coords = [tuple(c) for c in layout.coords[:count]]
    # Rows past `count` are the dummy nodes bending long edges; the extended
    # graph names, per edge, the original edge it was cut from.
    bends: list[set[int]] = [set() for _ in pairs]
    for piece in extended.es:
        for vertex in (piece.source, piece.target):
            if vertex >= count:
                bends[piece["_original_eid"]].add(vertex)
    routes = {pair: [tuple(layout.coords[v]) for v in sorted(bends[i])]
              for i, pair in enumerate(pairs)}
    _check_coordinates(level, coords, routes.values())
    xs = sorted({round(x, 3) for x, _ in coords}
                | {round(x, 3) for route in routes.values() for x, _ in route})
    column = {x: i for i, x in enumerate(xs)}
    level.cells = [(column[round(x, 3)], int(round(y))) for x, y in coords]
    level.columns = len(xs)
    level.rows = max(r for _, r in level.cells) + 1
    for edge in level.edges:
        route = routes[(edge.src, edge.dst)]
        cells = [(column[round(x, 3)], int(round(y))) for x, y in route]
        if level.cells[edge.src][1] > level.cells[edge.dst][1]:
            cells.sort(key=lambda cell: -cell[1])  # an upward (loop) edge
        else:
            cells.sort(key=lambda cell: cell[1])
        edge.cells = cells
        if cells:
            level.rows = max(level.rows, max(r for _, r in cells) + 1)


def _check_coordinates(level: LevelLayout, coords: list[tuple[float, float]],
                       routes: Any) -> None:
    """Refuse a layout whose coordinates cannot be grid cells (a broken igraph build)."""
    # Every x and y of a layered layout with unit gaps lies within the item and
    # dummy-node counts; anything else is memory garbage, never a real picture.
    bound = 4 * (len(level.items) + sum(len(r) for r in routes)) + 4
    points = list(coords) + [p for route in routes for p in route]
    if any(not (-bound <= c <= bound) for point in points for c in point):
        raise InternalError(
            f"igraph returned an impossible layout for scope {level.group.label!r}; "
            "igraph 1.0.0 is known to do this: pip install 'igraph<1.0'"
        )


def _layers(count: int, pairs: list[tuple[int, int]]) -> list[int]:
    """Longest-path layers on the graph without its DFS back edges; sources sink."""
    successors: list[list[int]] = [[] for _ in range(count)]
    for src, dst in pairs:
        successors[src].append(dst)
    # Iterative DFS: an edge to a node still on the stack closes a cycle.
    state = [0] * count  # 0 new, 1 on stack, 2 done
    forward: list[list[int]] = [[] for _ in range(count)]
    order: list[int] = []
    for start in range(count):
        if state[start]:
            continue
        stack = [(start, iter(successors[start]))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            for child in children:
                if state[child] == 1:
                    continue  # a back edge
                forward[node].append(child)
                if state[child] == 0:
                    state[child] = 1
                    stack.append((child, iter(successors[child])))
                    break
            else:
                stack.pop()
                state[node] = 2
                order.append(node)
    order.reverse()  # a topological order of the forward edges
    layer = [0] * count
    has_input = [False] * count
    for node in order:
        for child in forward[node]:
            has_input[child] = True
            layer[child] = max(layer[child], layer[node] + 1)
    for node in order:
        if not has_input[node] and forward[node]:
            layer[node] = min(layer[c] for c in forward[node]) - 1
    return layer


def _igraph() -> Any:
    try:
        import igraph
    except ImportError:  # pragma: no cover - a dependency of the package
        raise FailedPreconditionError(
            "tfx viz needs the igraph package for layouts: pip install igraph"
        ) from None
    return igraph


def layout_all(tree: ScopeTree, groups: list[Group] | None = None) -> dict[Group, LevelLayout]:
    """Layouts of `groups` (default: every group with children)."""
    edges = level_edges(tree)
    chosen = groups if groups is not None else [g for g in tree.groups.values() if g.children]
    return {g: layout_group(g, edges.get(g, [])) for g in chosen}
