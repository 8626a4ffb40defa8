"""`import tfx` is cheap: the API loads on first use, namespaces import as modules.

Each check runs in a fresh interpreter, since this process has loaded the API already.
"""

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_command_line_starts_without_the_api_or_the_kernels():
    out = _run("import sys, tfx.cli.main; "
               "print(sorted(m for m in ('tfx.core.api.exports', 'tfx.core.session', "
               "'tfx.kernels.cpu') if m in sys.modules))")
    assert out == "[]"


def test_first_name_loads_the_api():
    out = _run("import sys, tfx; before = 'tfx.core.api.exports' in sys.modules; "
               "c = tfx.constant(2.0); print(before, 'tfx.core.api.exports' in sys.modules, "
               "type(c).__name__)")
    assert out == "False True Tensor"


@pytest.mark.parametrize("statement, expression", [
    ("import tfx.compat.v1 as tf", "tf is sys.modules['tfx']"),
    ("from tfx.nn import relu", "relu is sys.modules['tfx'].nn.relu"),
    ("import tfx.train", "tfx.train.AdamOptimizer.__name__ == 'AdamOptimizer'"),
    # (a star import brings TensorFlow's `print`, the graph op: report through sys.stdout)
    ("from tfx import *; import builtins; print = builtins.print",
     "Session is sys.modules['tfx'].Session"),
    ("import tfx", "'Session' in dir(tfx) and 'constant' in tfx.__all__"),
])
def test_namespaces_and_star_imports(statement, expression):
    assert _run(f"import sys; {statement}; print({expression})") == "True"


def test_unknown_names_fail_as_for_any_module():
    out = _run("import tfx\n"
               "try:\n    tfx.no_such_name\nexcept AttributeError as e:\n    print(e)\n"
               "try:\n    import tfx.no_such_module\nexcept ModuleNotFoundError as e:\n"
               "    print(type(e).__name__)\n")
    assert out.splitlines() == ["module 'tfx' has no attribute 'no_such_name'",
                                "ModuleNotFoundError"]
