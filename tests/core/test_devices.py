"""Device names (full, partial, legacy, wildcards), device sets, spec files, runtime devices."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tfx.core.devices import (
    LOCAL_LINK,
    CPUDevice,
    DeviceName,
    DeviceSet,
    canonical_name,
    create_device,
)
from tfx.core.errors import InvalidArgumentError, NotFoundError, UnimplementedError

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


@pytest.mark.parametrize(("text", "parts", "canonical"), [
    ("/job:worker/replica:0/task:1/device:GPU:3", ("worker", 0, 1, "GPU", 3),
     "/job:worker/replica:0/task:1/device:GPU:3"),
    ("/cpu:0", (None, None, None, "CPU", 0), "/device:CPU:0"),
    ("gpu:1", (None, None, None, "GPU", 1), "/device:GPU:1"),
    ("/job:ps/task:0", ("ps", None, 0, None, None), "/job:ps/task:0"),
    ("/device:GPU:*", (None, None, None, "GPU", None), "/device:GPU:*"),
    ("/job:*/device:cpu:2", (None, None, None, "CPU", 2), "/device:CPU:2"),
    ("/replica:1/task:*/device:CPU", (None, 1, None, "CPU", None), "/replica:1/device:CPU:*"),
    ("", (None, None, None, None, None), ""),
])
def test_parse_full_partial_legacy_and_wildcard_names(text: str, parts: tuple,
                                                       canonical: str) -> None:
    name = DeviceName.parse(text)
    assert (name.job, name.replica, name.task, name.type, name.id) == parts
    assert str(name) == canonical
    assert DeviceName.parse(str(name)) == name
    assert name.is_full == (None not in parts)


@pytest.mark.parametrize(("text", "message"), [
    ("/job:1bad", "bad job '1bad'"),
    ("/device:CPU:x", "bad device index 'x'"),
    ("/task:-1", "bad task '-1'"),
    ("/job:a/job:b", "gives the job twice"),
    ("/cpu:0/gpu:0", "gives the type twice"),
    ("/what", "cannot read 'what'"),
])
def test_malformed_names_are_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        DeviceName.parse(text)


def test_matching_compatibility_and_merge() -> None:
    full = DeviceName.parse(CPU1)
    assert DeviceName.parse("/device:CPU:*").matches(full)
    assert DeviceName.parse("/job:localhost/task:0").matches(full)
    assert DeviceName.parse("").matches(full)
    assert not DeviceName.parse("/gpu:1").matches(full)
    assert not DeviceName.parse("/job:ps").matches(full)

    gpu_any, task1 = DeviceName.parse("/device:GPU:*"), DeviceName.parse("/job:w/task:1")
    assert gpu_any.compatible(task1)
    assert str(gpu_any.merge(task1)) == "/job:w/task:1/device:GPU:*"
    assert not DeviceName.parse("/cpu:0").compatible(DeviceName.parse("/gpu:0"))
    with pytest.raises(InvalidArgumentError, match="conflict"):
        DeviceName.parse("/cpu:0").merge(DeviceName.parse("/gpu:0"))
    soft = DeviceName.parse("/job:w/cpu:0").merge(DeviceName.parse("/job:w/cpu:1"), soft=True)
    assert str(soft) == "/job:w/device:CPU:*"
    assert canonical_name("/GPU:2") == "/device:GPU:2"


def test_device_set_from_names_and_counts() -> None:
    two = DeviceSet.from_names("cpu:0,cpu:1")
    assert two.names == [CPU0, CPU1]
    assert all(d.local for d in two) and two.all_local
    assert two.client == CPU0
    assert two.link(CPU0, CPU1) == LOCAL_LINK
    assert two.transfer_time(CPU0, CPU0, 1e9) == 0.0

    gpus = DeviceSet.from_names("gpu:4")
    assert [d.parsed.id for d in gpus] == [0, 1, 2, 3]
    assert not any(d.local for d in gpus)  # simulated: placed for, not run on
    assert all(d.flops > two.devices[0].flops for d in gpus)

    mixed = DeviceSet.from_names("cpu:0,gpu:2")  # gpu:2 alone is a count
    assert [d.device_type for d in mixed] == ["CPU", "GPU", "GPU"]
    assert mixed.client == CPU0
    # Full names are names, never counts.
    named = DeviceSet.from_names(["/job:localhost/replica:0/task:0/device:CPU:3"])
    assert named.names == ["/job:localhost/replica:0/task:0/device:CPU:3"]
    assert DeviceSet.local(3).names[-1].endswith("CPU:2")


def test_device_set_matching_and_lookup_errors() -> None:
    devices = DeviceSet.from_names("cpu:0,gpu:2")
    assert [d.name for d in devices.matching("/device:GPU:*")] == [
        "/job:localhost/replica:0/task:0/device:GPU:0",
        "/job:localhost/replica:0/task:0/device:GPU:1",
    ]
    assert [d.name for d in devices.matching("/cpu:0")] == [CPU0]
    assert devices.matching("/job:ps") == []
    with pytest.raises(NotFoundError, match="unknown device .*devices: /job:localhost"):
        devices.get("/job:localhost/replica:0/task:0/device:GPU:7")
    with pytest.raises(InvalidArgumentError, match="listed twice"):
        DeviceSet.from_names("cpu:0,/job:localhost/replica:0/task:0/device:CPU:0")
    with pytest.raises(InvalidArgumentError, match="--devices is empty"):
        DeviceSet.from_names(" , ")
    with pytest.raises(InvalidArgumentError, match="does not name a device type"):
        DeviceSet.from_names("/job:ps")


def _spec(tmp_path: Path, spec: dict) -> Path:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(spec))
    return path


CLUSTER = {
    "devices": [
        {"job": "worker", "type": "CPU", "count": 1, "memory": "8GiB"},
        {"job": "worker", "type": "GPU", "count": 2, "flops": 1e13, "memory": "16GB",
         "unsupported_ops": ["Where"]},
        {"name": "/job:ps/replica:0/task:0/device:CPU:0", "flops": 1e10},
    ],
    "links": [
        {"between": ["/job:worker", "/job:worker"], "bandwidth": 1.2e10, "latency": 1e-5},
        {"between": ["/job:ps", "/job:worker"], "bandwidth": 1.25e9, "latency": 5e-5},
    ],
    "client": "/job:worker/device:CPU:0",
}


def test_spec_file_describes_a_simulated_cluster(tmp_path: Path) -> None:
    devices = DeviceSet.from_spec_file(_spec(tmp_path, CLUSTER))
    assert devices.names == [
        "/job:worker/replica:0/task:0/device:CPU:0",
        "/job:worker/replica:0/task:0/device:GPU:0",
        "/job:worker/replica:0/task:0/device:GPU:1",
        "/job:ps/replica:0/task:0/device:CPU:0",
    ]
    cpu, gpu0, gpu1, ps = devices.devices
    assert cpu.memory == 8 * 2**30 and gpu0.memory == 16e9
    assert gpu1.flops == 1e13 and ps.flops == 1e10
    assert not any(d.local for d in devices)
    assert devices.client == cpu.name
    assert devices.link(gpu0.name, gpu1.name).bandwidth == 1.2e10
    # Rules apply in both directions.
    assert devices.transfer_time(ps.name, gpu0.name, 1.25e9) == pytest.approx(1 + 5e-5)
    assert devices.transfer_time(gpu0.name, ps.name, 0) == pytest.approx(5e-5)
    assert gpu0.supports("MatMul") and not gpu0.supports("Where") and cpu.supports("Where")
    assert gpu0.incarnation != gpu1.incarnation and gpu0.incarnation > 0


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s["devices"][1].update(flops=-1), r"devices\[1\]: 'flops' must be positive"),
    (lambda s: s["links"][0].update(bandwidth=0), r"links\[0\]: 'bandwidth' must be positive"),
    (lambda s: s["links"][0].update(latency=-1e-5), "'latency' must be non-negative"),
    (lambda s: s["links"].pop(1),
     "no link between /job:ps/replica:0/task:0/device:CPU:0 <-> /job:worker"),
    (lambda s: s["devices"][0].update(memroy=1), "unknown key 'memroy'.*memory"),
    (lambda s: s["devices"][0].update(memory="lots"), "cannot read memory 'lots'"),
    (lambda s: s["devices"][0].update(count=0), "'count' must be an integer"),
    (lambda s: s.update(client="/job:chief"), "client '/job:chief' matches no device"),
    (lambda s: s["devices"].append({"job": "ps", "type": "CPU"}), "described twice"),
])
def test_bad_spec_files_name_the_entry(tmp_path: Path, change, message: str) -> None:
    spec = json.loads(json.dumps(CLUSTER))
    change(spec)
    with pytest.raises(InvalidArgumentError, match=message):
        DeviceSet.from_spec_file(_spec(tmp_path, spec))


def test_spec_file_not_found_or_not_json(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no such device spec file"):
        DeviceSet.from_spec_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{devices")
    with pytest.raises(InvalidArgumentError, match="not valid JSON"):
        DeviceSet.from_spec_file(bad)


def test_runtime_devices() -> None:
    local = DeviceSet.from_names("cpu:0,cpu:1")
    device = create_device(local.devices[1])
    assert isinstance(device, CPUDevice) and device.name == CPU1
    buffer = device.allocate((2, 3), np.float32)
    assert buffer.shape == (2, 3) and buffer.dtype == np.float32
    value = np.arange(3.0)
    assert device.copy_from_host(value) is value and device.copy_to_host(value) is value
    simulated = DeviceSet.from_names("gpu:1").devices[0]
    with pytest.raises(UnimplementedError, match="is simulated"):
        create_device(simulated)


@pytest.mark.gpu
def test_gpu_device_copies_to_and_from_host() -> None:
    cupy = pytest.importorskip("cupy")
    if cupy.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("no CUDA GPU")
    from dataclasses import replace

    from tfx.core.devices import GPUDevice

    device = create_device(replace(DeviceSet.from_names("gpu:0").devices[0], local=True))
    assert isinstance(device, GPUDevice)
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    on_gpu = device.copy_from_host(value)
    assert isinstance(on_gpu, cupy.ndarray)
    np.testing.assert_array_equal(device.copy_to_host(on_gpu * 2), value * 2)
    assert device.allocate((4,), np.float32).shape == (4,)


def test_this_machines_gpus_are_planned_with_their_gpu_kernels() -> None:
    # So `tfx place --devices cpu:0,gpu:0` places on the GPU only what can run there; a GPU
    # of another job stands in for TensorFlow's, which runs nearly every op.
    local, remote = DeviceSet.from_names("gpu:0,/job:worker/task:0/gpu:0").devices
    assert local.kernels == "GPU" and not local.supports("FIFOQueueV2")
    assert remote.kernels == "CPU" and remote.supports("FIFOQueueV2")
    assert local.supports("MatMul") and not local.local  # planned, not runnable, until runnable()
