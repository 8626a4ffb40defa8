"""`tf.sysconfig`: where tfx is installed and how it was built.

TensorFlow's answers describe its C++ library (headers, `libtensorflow_framework`, the
compiler flags a custom op needs). tfx is pure Python with no C++ library, so its
answers describe what it does have:

- `get_lib()`: the directory of the `tfx` package.
- `get_include()`: the directory of tfx's `.proto` files (GraphDef, ConfigProto,
  Example, ...), the only interface files other builds can include.
- `get_compile_flags()`: `-I` of that directory, for `protoc` and C++ builds that
  compile those protos.
- `get_link_flags()`: empty: there is no library to link.
- `get_build_info()`: TensorFlow's keys that apply (no CUDA, ROCm or TensorRT build:
  tfx's GPU kernels load CuPy at run time) plus tfx's version.
- `CXX11_ABI_FLAG`, `CXX_VERSION`, `MONOLITHIC_BUILD`: 0, there being no C++ build.

    flags = get_compile_flags()     # ['-I/.../tfx/protos']
"""

from __future__ import annotations

import collections
import os

__all__ = ["CXX11_ABI_FLAG", "CXX_VERSION", "MONOLITHIC_BUILD", "get_build_info",
           "get_compile_flags", "get_include", "get_lib", "get_link_flags"]

# TensorFlow's describe its C++ build (ABI, language standard, one shared library or
# two); tfx has no C++ build, so all are 0.
CXX11_ABI_FLAG = 0
CXX_VERSION = 0
MONOLITHIC_BUILD = 0

# core/api/sysconfig_api.py -> the package root, two folders up from core/.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def get_lib() -> str:
    """The directory of the installed `tfx` package.

    Example:
        >>> os.path.isfile(os.path.join(get_lib(), "__init__.py"))
        True
    """
    return _PACKAGE_DIR


def get_include() -> str:
    """The directory of tfx's `.proto` files (tfx has no C/C++ headers)."""
    return os.path.join(_PACKAGE_DIR, "protos")


def get_compile_flags() -> list[str]:
    """Flags to compile against tfx's interface files: the proto include directory."""
    return [f"-I{get_include()}"]


def get_link_flags() -> list[str]:
    """Flags to link against tfx: none, as tfx has no compiled library."""
    return []


def get_build_info() -> collections.OrderedDict:
    """Facts about this build of tfx, under TensorFlow's keys where they apply.

    Returns:
        An OrderedDict: `is_cuda_build`, `is_rocm_build`, `is_tensorrt_build` (all
        False: nothing is compiled; GPU kernels use CuPy when it is installed) and
        `version` (tfx's version).
    """
    from tfx.core.api.compat_api import GRAPH_DEF_VERSION

    return collections.OrderedDict([
        ("is_cuda_build", False),
        ("is_rocm_build", False),
        ("is_tensorrt_build", False),
        ("version", _version()),
        ("graph_def_version", GRAPH_DEF_VERSION),
    ])


def _version() -> str:
    import tfx

    return tfx.__version__
