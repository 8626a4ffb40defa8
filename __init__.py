"""tfx: a TensorFlow-1.x-style dataflow system.

Run a graph file:

    import tfx as tf
    graph_def = tf.load_graph("model.pb")
    with tf.Session(graph_def) as sess:
        probs = sess.run("softmax:0", {"input:0": images})

or build one with TensorFlow 1.x's graph API (`tfx.core.api`):

    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.random_uniform([784, 10], -1, 1))
    y = tf.nn.softmax(tf.matmul(x, W))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(y, {x: images})

The package maps `tfx.core`, `tfx.kernels`, `tfx.cli`, `tfx.protos` and
`tfx.graphs` onto the repository's top-level folders (see pyproject.toml).

The API is loaded on first use: the first name asked of the package (or the
first `import tfx.<namespace>`) imports `tfx.core.api.exports` and copies its
public names here, so the command line and the subpackages start without
building TensorFlow's whole surface.
"""

import sys as _sys
import threading as _threading
from importlib.abc import Loader as _Loader
from importlib.abc import MetaPathFinder as _MetaPathFinder
from importlib.machinery import ModuleSpec as _ModuleSpec

__version__ = "0.1.0"

_load_lock = _threading.RLock()
_loaded = False


def _load_api() -> None:
    """Import the API once and make its public names the package's own."""
    global _loaded
    with _load_lock:
        if _loaded:
            return
        from tfx.core.api import exports

        names = {k: v for k, v in vars(exports).items() if not k.startswith("_")}
        globals().update(names)
        globals()["__all__"] = exports.__all__
        _loaded = True


def __getattr__(name: str) -> object:
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module 'tfx' has no attribute {name!r}")
    _load_api()
    try:
        return globals()[name]
    except KeyError:
        raise AttributeError(f"module 'tfx' has no attribute {name!r}") from None


def __dir__() -> list[str]:
    _load_api()
    return sorted(globals())


_SUBPACKAGES = {"cli", "core", "graphs", "kernels", "protos"}


class _NamespaceFinder(_MetaPathFinder, _Loader):
    """Finds `tfx.<namespace>` (tfx.nn, tfx.compat.v1, ...) once no folder holds it: the
    namespaces are modules the API builds, so loading the API is what imports them."""

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        parts = fullname.split(".")
        if parts[0] != "tfx" or len(parts) < 2 or parts[1] in _SUBPACKAGES:
            return None
        _load_api()
        module = _sys.modules.get(fullname)
        if module is None:
            return None
        return _ModuleSpec(fullname, self, is_package=hasattr(module, "__path__"))

    def create_module(self, spec: _ModuleSpec):
        return _sys.modules[spec.name]

    def exec_module(self, module: object) -> None:
        pass  # built by the API already


# Last in line: real subpackages (tfx.core, tfx.cli, ...) are found by the usual finders.
if not any(isinstance(f, _NamespaceFinder) for f in _sys.meta_path):
    _sys.meta_path.append(_NamespaceFinder())
