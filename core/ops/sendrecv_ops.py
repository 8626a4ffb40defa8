"""Op schemas: the transfer ops the partitioner puts on cut edges (TensorFlow's sendrecv_ops.cc).

`_Send` leaves its input in the step's rendezvous under a key built from its
attrs; `_Recv` on the destination device takes it out. `_HostSend` and
`_HostRecv` are the same pair for tensors kept in host memory. Both are
stateful, so no pass merges or removes them, and their shapes are unknown
statically, as in TensorFlow.
"""

from __future__ import annotations

from tfx.core import shapes
from tfx.core.op_registry import register_op

_TRANSFER_ATTRS = (
    "tensor_name: string",
    "send_device: string",
    "send_device_incarnation: int",
    "recv_device: string",
    "client_terminated: bool = false",
)

for _name in ("_Send", "_HostSend"):
    _schema = register_op(_name).input("tensor: T").attr("T: type")
    for _attr in _TRANSFER_ATTRS:
        _schema.attr(_attr)
    _schema.stateful().shape(shapes.unknown).doc(
        "Sends the input tensor from send_device to recv_device under tensor_name."
    )

for _name in ("_Recv", "_HostRecv"):
    _schema = register_op(_name).output("tensor: tensor_type").attr("tensor_type: type")
    for _attr in _TRANSFER_ATTRS:
        _schema.attr(_attr)
    _schema.stateful().shape(shapes.unknown).doc(
        "Receives the named tensor from send_device on recv_device."
    )
