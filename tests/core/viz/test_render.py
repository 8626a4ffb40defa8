"""tfx.core.viz: scope collapsing, layouts, and the SVG, DOT, HTML and PNG writers."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tfx.core.errors import InvalidArgumentError, NotFoundError
from tfx.core.graph import Graph
from tfx.core.graph_io import load_graph
from tfx.core.viz import VizOptions, describe, output_format, render
from tfx.core.viz.layout import layout_all
from tfx.core.viz.scopes import ScopeTree, default_expansion, expand, visible_boxes
from tfx.protos import graph_pb2

CONFORMANCE = Path(__file__).parents[2] / "data" / "conformance"
CORPUS = sorted(CONFORMANCE.glob("*.pb"))


def load(name: str) -> Graph:
    return Graph.from_graph_def(load_graph(CONFORMANCE / f"{name}.pb"))


def node(name: str, op: str, inputs=(), device: str = "", **attrs) -> graph_pb2.NodeDef:
    """A NodeDef with attrs given as AttrValue keyword arguments (any op, registered or not)."""
    node_def = graph_pb2.NodeDef(name=name, op=op, input=list(inputs), device=device)
    for key, value in attrs.items():
        node_def.attr[key].CopyFrom(value)
    return node_def


def f32() -> graph_pb2.AttrValue:
    return graph_pb2.AttrValue(type=1)


def text(value: str) -> graph_pb2.AttrValue:
    return graph_pb2.AttrValue(s=value.encode())


def const(shape: tuple[int, ...]) -> graph_pb2.AttrValue:
    from tfx.core import tensor_util

    value = graph_pb2.AttrValue()
    value.tensor.CopyFrom(tensor_util.from_ndarray(np.ones(shape, np.float32)))
    return value


def shape_attr(*dims: int) -> graph_pb2.AttrValue:
    value = graph_pb2.AttrValue()
    for dim in dims:
        value.shape.dim.add().size = dim
    return value


CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


def placed_graph() -> Graph:
    """x -> layer1 (CPU:0) -> layer2 (CPU:1), a control edge to `init`."""
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend([
        node("x", "Placeholder", device=CPU0, dtype=f32(), shape=shape_attr(2, 3)),
        node("layer1/w", "Const", device=CPU0, dtype=f32(), value=const((3, 4))),
        node("layer1/mm", "MatMul", ["x", "layer1/w"], device=CPU0, T=f32()),
        node("layer1/relu", "Relu", ["layer1/mm"], device=CPU0, T=f32()),
        node("layer2/w", "Const", device=CPU1, dtype=f32(), value=const((4, 5))),
        node("layer2/mm", "MatMul", ["layer1/relu", "layer2/w"], device=CPU1, T=f32()),
        node("init", "NoOp", ["^layer2/mm"], device=CPU0),
    ])
    return Graph.from_graph_def(graph_def)


def partitioned_graph() -> Graph:
    """Two partitions joined by a _Send/_Recv pair, as the partitioner writes them."""
    transfer = {"tensor_name": text("a/relu:0"), "send_device": text(CPU0),
                "recv_device": text(CPU1), "send_device_incarnation": graph_pb2.AttrValue(i=1)}
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend([
        node("x", "Placeholder", device=CPU0, dtype=f32(), shape=shape_attr(2, 3)),
        node("a/relu", "Relu", ["x"], device=CPU0, T=f32()),
        node("a/relu/_send_0", "_Send", ["a/relu"], device=CPU0, T=f32(), **transfer),
        node("b/relu/_recv_0", "_Recv", device=CPU1, tensor_type=f32(), **transfer),
        node("b/relu", "Relu", ["b/relu/_recv_0"], device=CPU1, T=f32()),
    ])
    return Graph.from_graph_def(graph_def)


def svg_boxes(svg: str, kind: str) -> dict[str, str]:
    """data-name -> the box's markup, for boxes of one class (node, scope, frame)."""
    pattern = re.compile(r'<g class="box ' + kind + r'[^"]*" data-name="([^"]*)"(.*?)</g>')
    return {m.group(1): m.group(2) for m in pattern.finditer(svg)}


# --- scopes -------------------------------------------------------------------------------------


def test_mobilenet_top_level_is_a_short_chain_of_blocks() -> None:
    tree = ScopeTree(load("mobilenet_v2_frozen"))
    state = default_expansion(tree)
    boxes = visible_boxes(tree, state)
    assert len(boxes) <= 80
    labels = {getattr(b, "label", None) for b in boxes}
    # The one scope holding the model opened by itself; Keras blocks became series.
    assert "mobilenetv2_0.35_96_1" in {g.path for g in state}
    assert {f"block_{i}*" for i in range(1, 17)} <= labels
    block = tree.find("block_3")[0]
    assert block.kind == "series" and block.size > 40 and len(block.children) >= 8


def test_expand_by_scope_suffix_and_bad_names() -> None:
    tree = ScopeTree(load("mobilenet_v2_frozen"))
    state = expand(tree, default_expansion(tree), ["block_3_expand_BN_1"])
    inner = tree.find("mobilenetv2_0.35_96_1/block_3_expand_BN_1")[0]
    assert inner in state and inner.parent in state  # the series around it opens too
    with pytest.raises(NotFoundError, match=r"no such scope \(did you mean: .*block_3\*"):
        tree.find("blok_3")
    with pytest.raises(NotFoundError, match="that is a node"):
        tree.find("input")


def test_too_many_boxes_collapse_with_a_warning() -> None:
    picture = render(load("mobilenet_v2_frozen"), "dot",
                     VizOptions(expand_all=True, max_visible=300))
    assert picture.visible <= 300
    assert any("limit 300" in w for w in picture.warnings)


def test_describe_is_the_state_render_draws_and_the_same_every_time() -> None:
    graph = load("mobilenet_v2_frozen")
    for options in (VizOptions(), VizOptions(expand=["block_3"]),
                    VizOptions(expand_all=True, max_visible=300)):
        drawn, described = render(graph, "dot", options), describe(graph, options)
        assert described.data == b"" and described.visible == drawn.visible
        assert ({g.id for g in described.expanded} == {g.id for g in drawn.expanded})
        assert described.warnings == drawn.warnings


def test_flat_level_over_the_limit_is_grouped_by_op() -> None:
    graph = Graph()
    for i in range(120):
        graph.add_node(f"c{i}", "NoOp")
    tree = ScopeTree(graph, max_visible=50)
    assert len(tree.root.children) == 1 and tree.root.children[0].label == "NoOp \u00d7120"
    assert tree.warnings


# --- SVG ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_every_corpus_graph_renders(path: Path) -> None:
    graph = Graph.from_graph_def(load_graph(path))
    svg = render(graph, "svg").data.decode()
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg_boxes(svg, "node") or svg_boxes(svg, "scope")
    html = render(graph, "html").data.decode()
    assert '<script type="application/json" id="tfx-data">' in html


def test_svg_shows_scopes_with_counts_edges_and_shapes() -> None:
    svg = render(load("mobilenet_v2_frozen"), "svg").data.decode()
    scopes = svg_boxes(svg, "scope")
    assert 'data-count="61"' in scopes["mobilenetv2_0.35_96_1/block_3*"]
    assert "9 scopes, 61 nodes" in scopes["mobilenetv2_0.35_96_1/block_3*"]
    assert "1050 nodes" in svg_boxes(svg, "frame")["mobilenetv2_0.35_96_1"]
    assert "Placeholder" in svg_boxes(svg, "node")["input"]
    assert svg.count('<path class="edge"') >= 30
    assert "float32 [2,96,96,3]" in svg  # the input edge's label
    assert "float32 [2,10]" in svg


def test_svg_expand_opens_a_scope_in_place() -> None:
    svg = render(load("mobilenet_v2_frozen"), "svg",
                 VizOptions(expand=["block_3_expand_BN_1"])).data.decode()
    frames = svg_boxes(svg, "frame")
    assert "mobilenetv2_0.35_96_1/block_3*" in frames
    assert "mobilenetv2_0.35_96_1/block_3_expand_BN_1" in frames
    assert "mobilenetv2_0.35_96_1/block_3_expand_BN_1/batchnorm" in svg_boxes(svg, "scope")


def test_placed_graph_has_device_colors_legend_and_dashed_control_edges() -> None:
    svg = render(placed_graph(), "svg", VizOptions(depth=1)).data.decode()
    assert '<g class="legend"' in svg and CPU0 in svg and CPU1 in svg
    nodes = svg_boxes(svg, "node")
    color0 = re.search(r'fill="(#[0-9a-f]{6})"', nodes["layer1/mm"]).group(1)
    color1 = re.search(r'fill="(#[0-9a-f]{6})"', nodes["layer2/mm"]).group(1)
    assert color0 != color1 and color0 != "#ffffff"
    assert 'class="edge control"' in svg
    assert ".edge.control{" in svg and "stroke-dasharray" in svg
    assert "Const float32 [3,4]" in nodes["layer1/w"]  # weights summarized, not printed
    assert "float32 [2,4]" in svg  # MatMul's output shape on its edge


def test_partitioned_graph_clusters_devices_and_joins_send_recv() -> None:
    picture = render(partitioned_graph(), "svg")
    svg = picture.data.decode()
    frames = svg_boxes(svg, "frame")
    assert {"@" + CPU0, "@" + CPU1} <= set(frames)
    assert picture.tree.by_device and len(picture.tree.transfers) == 1
    assert '<path class="transfer"' in svg and "a/relu:0" in svg


def test_png_needs_the_extra_or_says_which() -> None:
    try:
        import resvg_py  # noqa: F401
    except ImportError:
        with pytest.raises(Exception, match="pip install"):
            render(placed_graph(), "png")
        return
    data = render(placed_graph(), "png").data
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_unknown_formats_list_the_supported_ones() -> None:
    with pytest.raises(InvalidArgumentError, match=r"\.html, \.svg, \.dot, \.png"):
        output_format("out.jpg")
    with pytest.raises(InvalidArgumentError, match="--format"):
        output_format("-")
    assert output_format("a/b.SVG") == "svg" and output_format("-", "html") == "html"


# --- DOT and HTML ---------------------------------------------------------------------------------


def test_dot_has_clusters_dashed_control_edges_and_transfers() -> None:
    dot = render(placed_graph(), "dot", VizOptions(depth=1)).data.decode()
    assert dot.startswith("digraph tfx {") and "subgraph cluster_" in dot
    assert "style=dashed" in dot and "cluster_legend" in dot
    assert 'label="float32 [2,4]"' in dot
    partitioned = render(partitioned_graph(), "dot").data.decode()
    assert 'label="a/relu:0"' in partitioned and "constraint=false" in partitioned
    if shutil.which("dot"):
        done = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True,
                              timeout=30)
        assert done.returncode == 0, done.stderr.decode()


def test_html_is_self_contained_with_every_layout() -> None:
    import json

    html = render(load("lenet_frozen"), "html", VizOptions(title="lenet")).data.decode()
    assert "<script src" not in html and "http://" not in html.replace(
        "http://www.w3.org/2000/svg", "")
    payload = html.split('id="tfx-data">', 1)[1].split("</script>", 1)[0]
    data = json.loads(payload)
    groups = [i for i, item in enumerate(data["items"]) if item["k"] == "g"]
    with_children = {str(i) for i in groups if data["items"][i]["size"]}
    assert with_children <= set(data["layouts"])
    conv = next(item for item in data["items"] if item["k"] == "n" and item["info"]["op"]
                == "Conv2D")
    assert conv["info"]["outputs"][0][1].startswith("float32 [")
    assert any(key == "strides" for key, _ in conv["info"]["attrs"])


def test_layouts_stay_sane_across_repeated_renders() -> None:
    """Regression: igraph 1.0.0 returned garbage coordinates after a few renders."""
    graph = load("math_elementwise")
    for _ in range(30):
        for level in layout_all(ScopeTree(graph)).values():
            assert 0 <= level.rows < 100_000 and 0 <= level.columns < 100_000
