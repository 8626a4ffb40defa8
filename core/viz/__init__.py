"""Pictures of graphs: scopes collapsed, devices colored, as HTML, SVG, DOT or PNG.

`render(graph, "html")` draws a graph readably at any size: name scopes
collapse into boxes with their node count (`scopes.py`), each group's interior
is laid out by igraph's layered (Sugiyama) engine (`layout.py`), boxes are
sized and placed on the layout's grid (`place.py`), and a writer turns the
picture into a format:

* `svg`: a standalone SVG (`svg.py`);
* `png`: that SVG rasterized (needs the `png` extra: `pip install 'tfx-dataflow[png]'`);
* `dot`: Graphviz source with nested clusters (`dot.py`), for Graphviz's own layout;
* `html`: one offline page with pan, zoom, search, expand/collapse and a side panel
  (`html.py`, `viewer.js`).

Edge labels carry dtype and static shape (`annotate.py`); placed graphs color
boxes by device with a legend; partitioned graphs put each device in a cluster
and join Send/Recv pairs. A state that would draw more than `max_visible` boxes
is collapsed, with a warning, instead of hanging.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tfx.core.errors import FailedPreconditionError, InvalidArgumentError
from tfx.core.graph import Graph
from tfx.core.viz.scopes import (
    DEFAULT_MAX_VISIBLE,
    Group,
    ScopeTree,
    default_expansion,
    expand,
    limit_expansion,
    visible_boxes,
)

FORMATS = ("html", "svg", "dot", "png")
PNG_HINT = "pip install 'tfx-dataflow[png]' (or: pip install resvg-py)"


@dataclass
class VizOptions:
    """What to draw.

    Attributes:
        expand: scopes to open (their enclosing scopes open too).
        depth: open every scope up to this depth (1 = top-level scopes).
        expand_all: open every scope.
        max_visible: close the deepest scopes while more boxes than this would show.
        by_device: cluster by device (default: when the graph has Send/Recv pairs).
        title: the picture's title.
    """

    expand: Sequence[str] = ()
    depth: int | None = None
    expand_all: bool = False
    max_visible: int = DEFAULT_MAX_VISIBLE
    by_device: bool | None = None
    title: str = ""


@dataclass
class Rendering:
    """A rendered picture and what it shows."""

    data: bytes
    format: str
    tree: ScopeTree
    expanded: set[Group]
    visible: int  # boxes drawn (nodes, collapsed and expanded groups)
    warnings: list[str] = field(default_factory=list)


def output_format(path: str, fmt: str | None = None) -> str:
    """The format for an output path (`fmt` wins; `-` needs `fmt`); lists the supported ones."""
    supported = ", ".join("." + f for f in FORMATS)
    if fmt:
        chosen = fmt.lower().lstrip(".")
        if chosen not in FORMATS:
            raise InvalidArgumentError(f"unknown format {fmt!r}; supported: {supported}")
        return chosen
    if path == "-":
        raise InvalidArgumentError(f"-o -: name the format with --format ({supported})")
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if suffix not in FORMATS:
        shown = f"'.{suffix}'" if suffix else "no extension"
        raise InvalidArgumentError(
            f"-o {path}: unknown output format ({shown}); supported: {supported}"
        )
    return suffix


def expansion(tree: ScopeTree, options: VizOptions) -> set[Group]:
    """The state to draw: the default, the user's expansions, then the box limit."""
    state = expand(tree, default_expansion(tree), options.expand, options.depth,
                   options.expand_all)
    keep = {tree.root} | {g for g in tree.root.children
                          if isinstance(g, Group) and g.kind == "device"}
    return limit_expansion(tree, state, keep, options.max_visible)


def describe(graph: Graph, options: VizOptions | None = None) -> Rendering:
    """What `render` would draw, without laying it out or drawing it (`data` is empty).

    Example:
        >>> state = describe(graph, VizOptions(depth=2))
        >>> print(state.visible, "boxes")
    """
    options = options or VizOptions()
    tree = ScopeTree(graph, by_device=options.by_device, max_visible=options.max_visible)
    state = expansion(tree, options)
    return Rendering(b"", "", tree, state, len(visible_boxes(tree, state)), list(tree.warnings))


def render(graph: Graph, fmt: str, options: VizOptions | None = None) -> Rendering:
    """Draw `graph` in format `fmt` (one of `FORMATS`).

    Args:
        graph: the graph IR; it need not be valid (unknown ops are drawn too).
        fmt: "html", "svg", "dot" or "png".
        options: what to expand, the box limit, the title.

    Returns:
        A `Rendering` with the file's bytes, the state drawn and any warnings.

    Example:
        >>> picture = render(graph, "svg", VizOptions(expand=["block_3"]))
        >>> Path("model.svg").write_bytes(picture.data)
    """
    from tfx.core.viz import style
    from tfx.core.viz.annotate import tensor_infos
    from tfx.core.viz.layout import layout_all

    if fmt not in FORMATS:
        raise InvalidArgumentError(
            f"unknown format {fmt!r}; supported: {', '.join('.' + f for f in FORMATS)}"
        )
    options = options or VizOptions()
    tree = ScopeTree(graph, by_device=options.by_device, max_visible=options.max_visible)
    state = expansion(tree, options)
    infos = tensor_infos(graph)
    palette = style.Palette(tuple(tree.devices))
    if fmt == "dot":
        from tfx.core.viz.dot import render_dot

        text = render_dot(tree, state, infos, palette, options.title)
    elif fmt == "html":
        from tfx.core.viz.html import render_html

        layouts = layout_all(tree)
        text = render_html(tree, layouts, state, infos, palette, options.title,
                           options.max_visible)
    else:
        from tfx.core.viz.place import place
        from tfx.core.viz.svg import render_svg

        layouts = layout_all(tree, [g for g in tree.groups.values() if g in state])
        text = render_svg(place(tree, layouts, state, infos), infos, palette, options.title)
    data = svg_to_png(text) if fmt == "png" else text.encode("utf-8")
    return Rendering(data, fmt, tree, state, len(visible_boxes(tree, state)),
                     list(tree.warnings))


def svg_to_png(svg: str) -> bytes:
    """Rasterize SVG text with resvg (the `png` extra), or CairoSVG when that is installed."""
    try:
        import resvg_py
    except ImportError:
        resvg_py = None
    if resvg_py is not None:
        return bytes(resvg_py.svg_to_bytes(svg_string=svg, background="#ffffff"))
    try:
        import cairosvg
    except (ImportError, OSError):  # OSError: the package is there but libcairo is not
        raise FailedPreconditionError(
            f"writing .png needs an SVG rasterizer: {PNG_HINT}; or write .svg or .html"
        ) from None
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), background_color="white")


__all__ = ["FORMATS", "Rendering", "VizOptions", "describe", "expansion", "output_format",
           "render", "svg_to_png"]
