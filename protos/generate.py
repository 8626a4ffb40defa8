"""Regenerate the committed *_pb2.py modules from the .proto files beside this script.

Run `python protos/generate.py` (needs grpcio-tools, the `dev` extra; use
grpcio-tools 1.68, whose protoc writes modules that need only protobuf 5.28.1,
the oldest runtime pyproject.toml allows: a newer protoc's modules refuse older
runtimes). The
generated modules import each other as `tfx.protos.X_pb2`, so protoc is pointed
at a temporary tree where this folder appears as `tfx/protos`.
`tests/protos/test_generated.py` fails when the committed modules are stale.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def generate(out_dir: Path) -> list[Path]:
    """Compile every .proto here into `out_dir`; return the generated files."""
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pkg = root / "tfx" / "protos"
        pkg.mkdir(parents=True)
        protos = sorted(HERE.glob("*.proto"))
        for proto in protos:
            shutil.copy(proto, pkg / proto.name)
        gen = root / "gen"
        gen.mkdir()
        include = Path(protoc.__file__).parent / "_proto"
        args = ["protoc", f"-I{root}", f"-I{include}", f"--python_out={gen}"]
        if any(re.search(r"^\s*service\s", p.read_text(), re.M) for p in protos):
            args.append(f"--grpc_python_out={gen}")
        args += [str(pkg / p.name) for p in protos]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
        written = []
        for path in sorted((gen / "tfx" / "protos").glob("*.py")):
            target = out_dir / path.name
            shutil.copy(path, target)
            written.append(target)
        return written


if __name__ == "__main__":
    for path in generate(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(path)
