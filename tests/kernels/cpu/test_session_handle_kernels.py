"""The session-handle kernels against a session's resource manager, and the store."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tfx.core import dtypes
from tfx.core.errors import FailedPreconditionError, InternalError, InvalidArgumentError
from tfx.core.executor import StepState
from tfx.core.resources import ResourceManager
from tfx.core.session_tensors import SessionTensorStore, TensorHandle, handle_text, store_of
from tfx.kernels.base import OpContext
from tfx.kernels.cpu.session_handles import (
    DeleteSessionTensor,
    GetSessionHandle,
    GetSessionTensor,
)

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def _kernel(cls, name, attrs, inputs, outputs):
    return cls(name, cls.__name__, attrs, inputs, outputs, CPU)


def _scalar(value) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def test_kernels_keep_read_and_free_a_tensor():
    ctx = OpContext(StepState(ResourceManager()))
    put = _kernel(GetSessionHandle, "keep", {"T": dtypes.float32}, [dtypes.float32],
                  [dtypes.string])
    get = _kernel(GetSessionTensor, "read", {"dtype": dtypes.float32}, [dtypes.string],
                  [dtypes.float32])
    drop = _kernel(DeleteSessionTensor, "drop", {}, [dtypes.string], [])
    value = np.array([1.5, 2.5], np.float32)
    (handle,) = put.compute(ctx, value)
    assert handle.shape == () and isinstance(handle[()], TensorHandle)
    assert handle[()] == f"keep;0;{CPU}".encode()
    (read,) = get.compute(ctx, _scalar(f"keep;0;{CPU}".encode()))
    assert read is value
    assert drop.compute(ctx, handle) == ()
    assert len(store_of(ctx.resources)) == 0
    with pytest.raises(InvalidArgumentError, match="not in the session store"):
        get.compute(ctx, handle)


def test_get_checks_dtype_and_handle_shape():
    ctx = OpContext(StepState(ResourceManager()))
    handle = store_of(ctx.resources).put("n", CPU, np.int64(3))
    get = _kernel(GetSessionTensor, "read", {"dtype": dtypes.int32}, [dtypes.string],
                  [dtypes.int32])
    with pytest.raises(InternalError, match="Output 0 of type int64 does not match declared "
                                            "output type int32"):
        get.compute(ctx, _scalar(handle.encode()))
    with pytest.raises(InvalidArgumentError, match=r"must be a scalar string, got shape \[2\]"):
        get.compute(ctx, np.array([b"a", b"b"], dtype=object))
    with pytest.raises(InvalidArgumentError, match="must be a string, got int"):
        handle_text(_scalar(3))


def test_store_ids_are_unique_across_threads():
    store = SessionTensorStore()
    handles: list[str] = []

    def keep() -> None:
        for _ in range(50):
            handles.append(store.put("n", "", np.zeros(1)))

    threads = [threading.Thread(target=keep) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(handles)) == 200 and len(store) == 200
    assert sorted(int(h.split(";")[1]) for h in handles) == list(range(200))
    assert handles[0].endswith(f";{CPU}")  # no device: the default CPU's name
    store.close()
    with pytest.raises(FailedPreconditionError):
        store.get(handles[0])
