"""Op schemas: session tensor handles (`tfx.core.session_tensors`).

A tensor persisted with GetSessionHandle stays in the session between steps under a
string handle; GetSessionTensor reads it back in a later step from a fed handle and
DeleteSessionTensor frees it. All three are stateful, so they are never folded,
merged or pruned away as pure functions of their inputs.
"""

from __future__ import annotations

from tfx.core import shapes
from tfx.core.op_registry import register_op

(register_op("GetSessionHandle")
    .input("value: T").output("handle: string").attr("T: type")
    .stateful().shape(shapes.scalar)
    .doc("Keeps `value` in the session; outputs its handle."))

(register_op("GetSessionTensor")
    .input("handle: string").output("value: dtype").attr("dtype: type")
    .stateful().shape(shapes.unknown)
    .doc("The tensor the session keeps under `handle`."))

(register_op("DeleteSessionTensor")
    .input("handle: string")
    .stateful().shape(shapes.unknown)
    .doc("Frees the tensor the session keeps under `handle`."))
