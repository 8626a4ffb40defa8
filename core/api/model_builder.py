"""Build a model definition into a graph: what `tfx build` runs.

A model is a Python module with a `build(**params)` function that creates its
ops in the default graph and returns a dict naming the important nodes:
`inputs` (a list of placeholders), `loss`, `train`, `init`, `predictions`,
`accuracy`, ... Each named node ends up in the graph under exactly that name:
a tensor or op with another name gets an `Identity` (tensors) or a `NoOp`
depending on it (ops) called by the key, so `tfx run model.pb --target train`
and `tfx inspect` find them (a model should leave `train` to be such a NoOp:
`tfx inspect` does not list assignments such as a global step's AssignAdd).

A model is named by a module in `tfx.graphs` (`mlp`, `lenet`, ...) or by a
path to a `.py` file. `--param key=value` values are Python literals when they
parse as one (`hidden=128`, `lr=0.1`, `sizes=[64,32]`), else strings, and must
name parameters of `build`.

    graph, names = build_model("mlp", {"hidden": 64})
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import os
import pkgutil
import traceback
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from tfx.core.errors import InvalidArgumentError, NotFoundError, closest

__all__ = ["build_model", "list_models", "load_model", "parse_params", "ModelError"]


class ModelError(InvalidArgumentError):
    """The model's own code failed; the message points at its file and line."""


def list_models() -> list[str]:
    """The model names in `tfx.graphs` (modules with a `build` function)."""
    import tfx.graphs

    names = []
    for info in pkgutil.iter_modules(tfx.graphs.__path__):
        if not info.name.startswith("_"):
            names.append(info.name)
    return sorted(names)


def load_model(spec: str) -> ModuleType:
    """The module of a model: a name in `tfx.graphs` or a path to a `.py` file."""
    if spec.endswith(".py") or os.sep in spec or "/" in spec:
        if not os.path.isfile(spec):
            raise NotFoundError(f"model file {spec!r} does not exist")
        name = "tfx_model_" + os.path.splitext(os.path.basename(spec))[0]
        module_spec = importlib.util.spec_from_file_location(name, spec)
        if module_spec is None or module_spec.loader is None:
            raise InvalidArgumentError(f"cannot load {spec!r} as a Python module")
        module = importlib.util.module_from_spec(module_spec)
        try:
            module_spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - reported with the model's own line
            raise _model_error(spec, "loading", exc) from None
    else:
        models = list_models()
        if spec not in models:
            raise NotFoundError(f"no model named {spec!r}{closest(spec, models)}; "
                                f"models: {', '.join(models)} (or a path to a .py file)")
        module = importlib.import_module(f"tfx.graphs.{spec}")
    if not callable(getattr(module, "build", None)):
        raise InvalidArgumentError(f"model {spec!r} has no build() function")
    return module


def parse_params(items: Sequence[str]) -> dict[str, Any]:
    """`["hidden=64", "optimizer=adam"]` -> {"hidden": 64, "optimizer": "adam"}."""
    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise InvalidArgumentError(f"--param {item!r}: expected key=value")
        try:
            params[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            params[key] = text
    return params


def build_model(spec: str, params: Mapping[str, Any] | None = None) -> tuple[Any, dict[str, str]]:
    """Build model `spec` with `params` into a new Graph.

    Args:
        spec: a model name in `tfx.graphs` or a path to a `.py` file with `build()`.
        params: keyword arguments for `build` (checked against its signature).

    Returns:
        (the Graph, {role: node name}) where each role ("loss", "train", ...) is a node
        of that name, and "inputs" is a comma-separated list of placeholder names.

    Example:
        >>> graph, names = build_model("mlp", {"hidden": 32})
        >>> names["train"]
        'train'
    """
    from tfx.core.api.graph_builder import Graph

    module = load_model(spec)
    params = dict(params or {})
    _check_params(spec, module.build, params)
    graph = Graph()
    with graph.as_default():
        try:
            nodes = module.build(**params)
        except Exception as exc:  # noqa: BLE001 - reported with the model's own line
            raise _model_error(getattr(module, "__file__", spec), "build", exc) from None
        if not isinstance(nodes, Mapping):
            raise InvalidArgumentError(
                f"model {spec!r}: build() must return a dict of named nodes, got "
                f"{type(nodes).__name__}")
        names = _name_nodes(graph, nodes)
    return graph, names


def _check_params(spec: str, build: Any, params: Mapping[str, Any]) -> None:
    signature = inspect.signature(build)
    if any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        return
    known = list(signature.parameters)
    for key in params:
        if key not in known:
            raise InvalidArgumentError(
                f"model {spec!r} has no parameter {key!r}{closest(key, known)}; "
                f"parameters: {', '.join(known) or 'none'}")


def _model_error(path: str, where: str, exc: BaseException) -> ModelError:
    """The model's error with the innermost line of the model's own file."""
    frames = traceback.extract_tb(exc.__traceback__)
    path = os.path.abspath(path)
    own = [f for f in frames if os.path.abspath(f.filename) == path]
    frame = own[-1] if own else (frames[-1] if frames else None)
    at = f"{frame.filename}:{frame.lineno}: " if frame is not None else ""
    line = f"\n    {frame.line}" if frame is not None and frame.line else ""
    return ModelError(f"{at}{type(exc).__name__} in the model's {where}: {exc}{line}")


def _name_nodes(graph: Any, nodes: Mapping[str, Any]) -> dict[str, str]:
    from tfx.core.api.graph_builder import Operation, Tensor
    from tfx.core.api.ops_api import group, identity

    names: dict[str, str] = {}
    for role, value in nodes.items():
        if role == "inputs":
            items = list(value) if isinstance(value, (list, tuple)) else [value]
            names[role] = ",".join(_element(graph, v).name for v in items)
            continue
        element = _element(graph, value)
        with graph.name_scope(None):
            if isinstance(element, Tensor):
                if element.name != f"{role}:0":
                    element = identity(element, name=role)
                names[role] = element.op.name
            elif isinstance(element, Operation):
                if element.name != role:
                    element = group(element, name=role)
                names[role] = element.name
            else:
                raise InvalidArgumentError(f"build() returned {value!r} for {role!r}: not a "
                                           "tensor or operation")
        if names[role] != role:
            raise InvalidArgumentError(
                f"build() returned {role!r}, but the graph already has another node named "
                f"{role!r}; rename that node")
    return names


def _element(graph: Any, value: Any) -> Any:
    element = getattr(value, "_as_graph_element", None)
    if element is not None:
        value = element()
    return value if not isinstance(value, str) else graph.as_graph_element(value)
