"""Bomb-like constants: a 100-byte splat that stands for a gigabyte.

TensorFlow's compact encoding (fewer values than elements: repeat the last one)
lets a tiny untrusted file describe a huge Const. Decoding a one-value splat
must cost no memory (a broadcast view), the commands that need only shapes
(inspect, optimize, place, partition) must stay small, constant folding must
not expand such a constant, and running it must go through the allocation
limits with one clear error naming the node.
"""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from tfx.cli.main import main
from tfx.core import dtypes, limits, tensor_util
from tfx.core.cost_model import infer_shapes
from tfx.core.errors import InvalidArgumentError, ResourceExhaustedError
from tfx.core.graph import Graph
from tfx.core.graph_io import load_graph
from tfx.core.passes import PassContext
from tfx.core.passes.constant_folding import fold_constants
from tfx.core.passes.pipeline import optimize
from tfx.protos import graph_pb2, tensor_pb2

BIG = [16384, 16384]  # float32: 1 GiB
GIB = 1 << 30
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
# Peak traced allocations allowed where decoding would take 1 GiB.
SMALL_PEAK = 4 << 20


def splat(dims: list[int], values: list, dtype: dtypes.DType = dtypes.float32):
    proto = tensor_pb2.TensorProto(dtype=dtype.enum)
    for dim in dims:
        proto.tensor_shape.dim.add().size = dim
    field = {"float32": "float_val", "int32": "int_val", "string": "string_val"}[dtype.name]
    getattr(proto, field).extend(values)
    return proto


def const_node(name: str, proto: tensor_pb2.TensorProto, device: str = "") -> graph_pb2.NodeDef:
    node = graph_pb2.NodeDef(name=name, op="Const", device=device)
    node.attr["dtype"].type = proto.dtype
    node.attr["value"].tensor.CopyFrom(proto)
    return node


def op_node(name: str, op: str, inputs: list[str], device: str = "", **types) -> graph_pb2.NodeDef:
    node = graph_pb2.NodeDef(name=name, op=op, input=inputs, device=device)
    for key, dtype in {"T": dtypes.float32, **types}.items():
        node.attr[key].type = dtype.enum
    return node


def bomb_graph(device: str = "", values: tuple[float, ...] = (1.5,)) -> graph_pb2.GraphDef:
    """y = big + one, with big a 1 GiB splat (of one value unless told)."""
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend(
        [
            const_node("big", splat(BIG, list(values)), device),
            const_node("one", splat([], [1.0]), device),
            op_node("y", "AddV2", ["big", "one"], device),
        ]
    )
    return graph_def


def write(path: Path, graph_def: graph_pb2.GraphDef) -> str:
    path.write_bytes(graph_def.SerializeToString())
    return str(path)


def peak_of(fn: Callable[[], object]) -> tuple[object, int]:
    """fn's result and the peak of the memory it allocated (numpy arrays included)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def tfx(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small_expansion_limit() -> Iterator[None]:
    previous = limits.set_max_expanded_bytes(1 << 20)
    yield
    limits.set_max_expanded_bytes(previous)


# --- decoding -----------------------------------------------------------------------------


def test_a_one_value_splat_decodes_to_a_view_without_memory() -> None:
    array, peak = peak_of(lambda: tensor_util.to_ndarray(splat(BIG, [1.5])))
    assert peak < 1 << 20
    assert array.shape == tuple(BIG) and array.dtype == np.float32
    assert tensor_util.is_splat(array) and not array.flags.writeable
    assert array[0, 0] == array[-1, -1] == 1.5
    assert array.nbytes == GIB  # still a tensor of its full size for whoever sizes it


def test_empty_and_equal_value_splats_are_views_too() -> None:
    zeros = tensor_util.to_ndarray(splat(BIG, []))
    assert tensor_util.is_splat(zeros) and zeros[3, 4] == 0.0
    same = tensor_util.to_ndarray(splat(BIG, [2.0, 2.0, 2.0]))
    assert tensor_util.is_splat(same) and same[-1, -1] == 2.0
    words = tensor_util.to_ndarray(splat([1000, 1000], [b"a"], dtypes.string))
    assert tensor_util.is_splat(words) and words[999, 999] == b"a"
    empty_words = tensor_util.to_ndarray(splat([3], [], dtypes.string))
    assert list(empty_words) == [b"", b"", b""]


def test_small_values_decode_as_before() -> None:
    array = tensor_util.to_ndarray(splat([5], [1.0, 2.0]))
    np.testing.assert_array_equal(array, [1.0, 2.0, 2.0, 2.0, 2.0])
    assert array.flags.writeable and array.flags.c_contiguous
    dense = tensor_util.to_ndarray(tensor_util.from_ndarray(np.arange(6, dtype=np.int32)))
    assert dense.flags.writeable and not tensor_util.is_splat(dense)


def test_a_splat_view_encodes_back_to_one_value() -> None:
    array = tensor_util.to_ndarray(splat(BIG, [1.5]))
    proto, peak = peak_of(lambda: tensor_util.from_ndarray(array))
    assert peak < 1 << 20
    assert list(proto.float_val) == [1.5] and not proto.tensor_content
    assert [d.size for d in proto.tensor_shape.dim] == BIG


def test_proto_helpers_read_dtype_and_shape_without_decoding() -> None:
    proto = splat(BIG, [1.5])
    assert tensor_util.proto_dtype(proto) is dtypes.float32
    assert tensor_util.proto_shape(proto) == tuple(BIG)
    assert tensor_util.proto_nbytes(proto) == GIB
    assert tensor_util.is_compact(proto)
    dense = tensor_util.from_ndarray(np.arange(4, dtype=np.float32))
    assert not tensor_util.is_compact(dense)
    assert not tensor_util.is_compact(splat([2], [1.0, 2.0]))


def test_the_per_tensor_limit_names_shape_dtype_and_sizes() -> None:
    previous = limits.set_max_tensor_bytes(512 << 20)
    try:
        with pytest.raises(ResourceExhaustedError) as info:
            tensor_util.to_ndarray(splat(BIG, [1.5]), "node 'big' (op Const)")
    finally:
        limits.set_max_tensor_bytes(previous)
    message = str(info.value)
    assert message.startswith("node 'big' (op Const): a tensor of shape [16384, 16384] float32")
    assert "1.0 GiB" in message and "512.0 MiB" in message


def test_expanded_splats_count_against_a_total_while_alive(small_expansion_limit) -> None:
    before = limits.expanded_bytes()
    first = tensor_util.to_ndarray(splat([100_000], [1.0, 2.0]))  # 400 KB, expanded
    np.testing.assert_array_equal(first[:3], [1.0, 2.0, 2.0])
    assert limits.expanded_bytes() == before + 400_000
    second = tensor_util.to_ndarray(splat([100_000], [3.0, 4.0]))
    with pytest.raises(ResourceExhaustedError, match=r"node 'c': .*TFX_MAX_EXPANDED_BYTES"):
        tensor_util.to_ndarray(splat([100_000], [5.0, 6.0]), "node 'c'")
    del first, second
    gc.collect()
    assert limits.expanded_bytes() == before  # freed arrays give their bytes back
    tensor_util.to_ndarray(splat([100_000], [5.0, 6.0]))


def test_many_large_splats_load_in_little_memory() -> None:
    graph_def = graph_pb2.GraphDef()
    for i in range(1000):  # 100 GiB if each were decoded
        graph_def.node.append(const_node(f"c{i}", splat([25_000_000], [float(i)])))

    def load() -> Graph:
        graph = Graph.from_graph_def(graph_def)
        graph.validate()
        return graph

    graph, peak = peak_of(load)
    assert peak < SMALL_PEAK
    assert graph.node("c999").attrs["value"].value[-1] == 999.0


# --- binding: tensor attrs stay encoded until read ----------------------------------------


def test_binding_leaves_a_two_value_splat_encoded() -> None:
    graph = Graph.from_graph_def(bomb_graph(values=(5.0, 0.0)))

    def bind() -> tensor_util.TensorValue:
        graph.validate()
        assert graph.node("y").output_types == [dtypes.float32]
        return graph.node("big").attrs["value"]

    value, peak = peak_of(bind)
    assert peak < SMALL_PEAK and limits.expanded_bytes() == 0
    assert isinstance(value, tensor_util.TensorValue)
    assert (value.dtype, value.shape, value.nbytes, value.ndim) == (dtypes.float32, tuple(BIG),
                                                                   GIB, 2)
    assert np.shape(value) == tuple(BIG)  # what the Const shape function reads


def test_reading_the_value_decodes_once_under_the_limits(small_expansion_limit) -> None:
    graph = Graph.from_graph_def(bomb_graph(values=(5.0, 0.0)))
    graph.validate()
    with pytest.raises(ResourceExhaustedError, match="node 'big' \\(op Const\\), attr 'value'"):
        _ = graph.node("big").attrs["value"].value  # 1 GiB over the 1 MiB total
    small = tensor_util.TensorValue(splat([4, 4], [5.0, 0.0]), "small")
    first = small.value
    assert first is small.value  # cached: kernels and passes share one array
    np.testing.assert_array_equal(first.reshape(-1)[:3], [5.0, 0.0, 0.0])


def test_a_const_over_the_tensor_limit_binds_and_fails_when_run(
    capsys, tmp_path: Path, half_gib_tensor_limit
) -> None:
    graph = Graph.from_graph_def(bomb_graph())
    graph.validate()  # dtype and shape are all binding needs
    with pytest.raises(ResourceExhaustedError, match="over the limit of 536870912 bytes"):
        _ = graph.node("big").attrs["value"].value
    code, _, err = tfx(capsys, "run", write(tmp_path / "g.pb", bomb_graph()), "--fetch", "y")
    assert code == 1 and err.count("node 'big' (op Const)") == 1, err


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: setattr(t, "tensor_content", b"\0" * 12), "tensor_content holds 12 bytes"),
        (lambda t: t.float_val.extend([1.0] * 5), "5 values given for shape"),
        (lambda t: t.tensor_shape.dim.add().CopyFrom(tensor_pb2.TensorShapeProto.Dim(size=-1)),
         "fully known shape"),
        (lambda t: setattr(t, "dtype", 0), "no dtype"),
    ],
    ids=["content-size", "too-many-values", "unknown-dim", "no-dtype"],
)
def test_malformed_constants_still_fail_when_bound(edit, message: str) -> None:
    proto = splat([2, 2], [])
    edit(proto)
    graph_def = graph_pb2.GraphDef()
    graph_def.node.append(const_node("bad", proto))
    graph_def.node[0].attr["dtype"].type = dtypes.float32.enum
    with pytest.raises(InvalidArgumentError, match=message):
        Graph.from_graph_def(graph_def).validate()


# --- the shape-only commands --------------------------------------------------------------


@pytest.fixture
def half_gib_tensor_limit() -> Iterator[None]:
    previous = limits.set_max_tensor_bytes(512 << 20)
    yield
    limits.set_max_tensor_bytes(previous)


@pytest.mark.parametrize(
    "values, limit",
    [
        ((1.5,), None),  # a view when decoded, but never decoded
        ((5.0, 0.0), None),  # would be expanded to 1 GiB if decoded
        ((1.5,), "half_gib_tensor_limit"),  # over the per-tensor limit: fine to transform
    ],
    ids=["one-value", "two-values", "over-the-limit"],
)
def test_inspect_optimize_place_and_partition_stay_small(
    capsys, tmp_path: Path, request: pytest.FixtureRequest, values: tuple, limit: str | None
) -> None:
    if limit:
        request.getfixturevalue(limit)
    graph = write(tmp_path / "bomb.pb", bomb_graph(values=values))
    placed_input = write(tmp_path / "bomb_placed.pb", bomb_graph(CPU0, values))
    commands = {
        "inspect": ["inspect", graph, "--json"],
        "optimize": ["optimize", graph, "-o", str(tmp_path / "opt.pb")],
        "place": ["place", graph, "--devices", "cpu:0,cpu:1", "-o", str(tmp_path / "placed.pb")],
        "partition": ["partition", placed_input, "-o", str(tmp_path / "parts")],
    }
    for name, argv in commands.items():
        tfx(capsys, *argv)  # warm up: imports and caches are not what is measured
        (code, out, err), peak = peak_of(lambda argv=argv: tfx(capsys, *argv))
        assert code == 0, (name, err)
        assert peak < SMALL_PEAK, (name, peak)
        if name == "inspect":
            summary = json.loads(out)
            assert summary["const_parameters"] == 16384 * 16384 + 1
    for path in [
        tmp_path / "opt.pb",
        tmp_path / "placed.pb",
        *sorted((tmp_path / "parts").glob("*.pb")),
    ]:
        assert path.stat().st_size < 4096  # the constant stays a splat
        nodes = {n.name: n for n in load_graph(str(path)).node}
        value = nodes["big"].attr["value"].tensor
        assert [d.size for d in value.tensor_shape.dim] == BIG
        assert list(value.float_val) == list(values)
        assert nodes["y"].op == "AddV2"


def test_run_over_the_limit_is_one_clear_error(capsys, tmp_path: Path) -> None:
    graph = write(tmp_path / "bomb.pb", bomb_graph())
    (code, _, err), peak = peak_of(
        lambda: tfx(capsys, "run", graph, "--fetch", "y", "--max-tensor-bytes", str(512 << 20))
    )
    assert code == 1  # a resource limit, as for Fill: raising it makes the graph run
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert "node 'big' (op Const)" in err
    assert "[16384, 16384] float32 needs 1073741824 bytes (1.0 GiB)" in err
    assert "limit of 536870912 bytes (512.0 MiB)" in err
    assert peak < SMALL_PEAK


def test_run_of_a_splat_computes_the_right_values(capsys, tmp_path: Path) -> None:
    graph_def = graph_pb2.GraphDef()
    graph_def.node.extend(
        [
            const_node("big", splat([1000, 1000], [1.5])),
            const_node("one", splat([], [1.0])),
            op_node("y", "AddV2", ["big", "one"]),
        ]
    )
    code, out, err = tfx(
        capsys,
        "run",
        write(tmp_path / "g.pb", graph_def),
        "--fetch",
        "y",
        "-o",
        str(tmp_path / "y.npz"),
    )
    assert code == 0, err
    with np.load(tmp_path / "y.npz") as archive:
        (y,) = archive.values()
    assert y.shape == (1000, 1000) and (y == 2.5).all()


# --- constant folding and the other passes ------------------------------------------------


def big_fold_graph() -> Graph:
    """Reductions and shapes of the 1 GiB splat, and a small splat that does fold."""
    graph_def = bomb_graph()
    axes = tensor_util.from_ndarray(np.array([0, 1], np.int32))
    graph_def.node.extend(
        [
            const_node("axes", axes),
            op_node("total", "Sum", ["big", "axes"], Tidx=dtypes.int32),
            op_node("shape", "Shape", ["big"], out_type=dtypes.int32),
            const_node("small", splat([100, 100], [2.0])),
            op_node("small_y", "AddV2", ["small", "one"]),
        ]
    )
    return Graph.from_graph_def(graph_def)


def test_folding_never_expands_a_large_splat() -> None:
    ctx = PassContext(outputs=frozenset({"y", "total", "shape", "small_y"}))
    (result, peak) = peak_of(lambda: fold_constants(big_fold_graph(), ctx))
    graph, changed = result
    graph.validate()
    assert changed and peak < SMALL_PEAK
    ops = {n.name: n.op for n in graph}
    assert ops["y"] == "AddV2" and ops["total"] == "Sum"  # would read all of big: left to run
    assert ops["shape"] == "Const"  # a static shape needs no value
    np.testing.assert_array_equal(graph.node("shape").attrs["value"].value, BIG)
    small_y = graph.node("small_y")
    assert small_y.op == "Const"
    assert list(small_y.attr["value"].tensor.float_val) == [3.0]  # folded small, still a splat


def test_the_full_pipeline_leaves_a_large_splat_alone() -> None:
    graph = big_fold_graph()
    outputs = ["y", "total", "shape", "small_y"]
    result, peak = peak_of(lambda: optimize(graph, outputs=outputs, level="all"))
    assert peak < SMALL_PEAK
    nodes = {n.name: n for n in result.graph}
    assert nodes["big"].op == "Const" and nodes["y"].op == "AddV2"
    assert list(nodes["big"].attr["value"].tensor.float_val) == [1.5]


def test_weight_folding_does_not_rewrite_a_large_splat_filter() -> None:
    graph_def = graph_pb2.GraphDef()
    x = graph_pb2.NodeDef(name="x", op="Placeholder")
    x.attr["dtype"].type = dtypes.float32.enum
    graph_def.node.extend(
        [
            x,
            const_node("w", splat([16384, 16384], [0.5])),
            op_node("mm", "MatMul", ["x", "w"]),
            const_node("s", splat([], [3.0])),
            op_node("scaled", "Mul", ["mm", "s"]),
        ]
    )
    result, peak = peak_of(lambda: optimize(graph_def, outputs=["scaled"], level="all"))
    assert peak < SMALL_PEAK
    nodes = {n.name: n for n in result.graph}
    assert list(nodes["w"].attr["value"].tensor.float_val) == [0.5]
    assert nodes["scaled"].op == "Mul"


def test_cost_model_shapes_come_from_the_proto() -> None:
    graph_def = bomb_graph()
    graph_def.node[0].attr["value"].tensor.float_val.append(2.5)  # two values: no view
    graph = Graph.from_graph_def(graph_def)
    shapes, peak = peak_of(lambda: infer_shapes(graph))
    assert peak < SMALL_PEAK
    assert shapes[graph.tensor("big:0")] == tuple(BIG)
    assert shapes[graph.tensor("y:0")] == tuple(BIG)
