"""Record what TensorFlow's master and workers send a tfx worker: tf_master/NN_Method.bin.

Run with TensorFlow installed (`python tests/data/distributed/generate_tf_master.py`).
A two-task cluster is made of a TensorFlow server (task 0, whose master the client
uses) and a tfx server (task 1). TensorFlow 2.21's client runs y = (2x on task 1) + 1
on task 0 for two values of x. Every WorkerService request the tfx worker receives is
recorded (NN_Method.bin), and so is every RecvTensor answer it gets from TensorFlow's
worker (recv_NN.bin: x, which task 0 holds); worker.json holds the tfx devices'
incarnations (TensorFlow planned with them) and TensorFlow's results.
tests/core/distributed/test_tf_master_wire.py replays them against a tfx worker.

`--program loop` records into tf_master_loop/ a while loop that TensorFlow's master
splits across the two tasks (the loop on task 0, its body's multiply on task 1):
TensorFlow adds a control loop to task 1's piece, and the tensors of every iteration
cross in keys that carry TensorFlow's frame id, the last iteration's dead. There
recv_NN.bin are listed by "STEP_ID KEY" in worker.json ("answers"), and so are the
tensors the tfx worker handed TensorFlow's RecvTensor ("handed", handed_NN.bin),
which gave TensorFlow's results.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

TF_SERVER = r"""
import json, sys
import tensorflow as tf
server = tf.distribute.Server(json.loads(sys.argv[1]), job_name="worker", task_index=0)
print(server.target, flush=True)
sys.stdin.read()
"""

CLIENT = r"""
import json, sys
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
with tf.Graph().as_default():
    x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
    with tf.device("/job:worker/task:1"):
        doubled = tf.multiply(x, 2.0, name="doubled")
    with tf.device("/job:worker/task:0"):
        y = tf.add(doubled, 1.0, name="y")
    with tf.compat.v1.Session(sys.argv[1]) as sess:
        out = [sess.run(y, {x: [1.0, 2.0]}).tolist(), sess.run(y, {x: [-3.0, 0.5]}).tolist()]
print("RESULT" + json.dumps(out))
"""

LOOP_CLIENT = r"""
import json, sys
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
with tf.Graph().as_default():
    x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
    with tf.device("/job:worker/task:1"):
        doubled = tf.multiply(x, 2.0, name="doubled")
        v = tf.compat.v1.Variable([1.0, 2.0], name="v", use_resource=True)
    with tf.device("/job:worker/task:0"):
        y = tf.add(doubled, v, name="y")

    def body(i, a):
        with tf.device("/job:worker/task:1"):
            b = a * 2.0
        return i + 1, b + 1.0

    with tf.device("/job:worker/task:0"):
        _, looped = tf.compat.v1.while_loop(lambda i, a: i < 3, body, [0, y])
    init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(sys.argv[1]) as sess:
        sess.run(init)
        out = [[t.tolist() for t in sess.run([y, looped], {x: value})]
               for value in ([1.0, 2.0], [-3.0, 0.5])]
print("RESULT" + json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--program", choices=["double", "loop"], default="double")
    loop = parser.parse_args().program == "loop"
    out = HERE / ("tf_master_loop" if loop else "tf_master")

    from tfx.core.distributed import rpc
    from tfx.core.distributed.server import Server, _free_ports
    from tfx.core.distributed.worker import Worker

    requests: list[tuple[str, bytes]] = []
    answers: list[tuple[str, bytes]] = []  # (key, TensorFlow's RecvTensor answer)
    handed: list[tuple[str, bytes]] = []  # (key, the tfx worker's answer to TensorFlow)
    handler, bind, recv_tensor = rpc.method_handler, rpc.ServiceClient._bind, Worker.recv_tensor

    def recording(implementation, method, request_type, response_type):
        if implementation.__class__.__name__ == "Worker":
            def parse(data: bytes, method=method, request_type=request_type):
                requests.append((method, data))
                return request_type.FromString(data)
            request_type = type(request_type.__name__, (), {"FromString": staticmethod(parse)})
        return handler(implementation, method, request_type, response_type)

    def recording_bind(self, name, waits):
        invoke = bind(self, name, waits)
        if name != "RecvTensor":
            return invoke

        def recorded(request, *args, **kwargs):
            response = invoke(request, *args, **kwargs)
            answers.append((f"{request.step_id} {request.rendezvous_key}",
                            response.SerializeToString()))
            return response
        return recorded

    def recording_recv_tensor(self, request, caller=None):
        response = recv_tensor(self, request, caller)
        handed.append((f"{request.step_id} {request.rendezvous_key}",
                       response.SerializeToString()))
        return response

    rpc.method_handler, rpc.ServiceClient._bind = recording, recording_bind
    Worker.recv_tensor = recording_recv_tensor
    ports = _free_ports(2)
    cluster = {"worker": [f"localhost:{port}" for port in ports]}
    tf_server = subprocess.Popen([sys.executable, "-c", TF_SERVER, json.dumps(cluster)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
    target = tf_server.stdout.readline().strip()
    ours = Server(cluster, job_name="worker", task_index=1)
    try:
        done = subprocess.run([sys.executable, "-c", LOOP_CLIENT if loop else CLIENT, target],
                              check=True, capture_output=True, text=True, timeout=300)
    finally:
        ours.stop(0)
        tf_server.stdin.close()
        tf_server.wait(timeout=60)
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("RESULT"))
    out.mkdir(exist_ok=True)
    for old in out.glob("*.bin"):
        old.unlink()
    for i, (method, data) in enumerate(requests):
        (out / f"{i:02d}_{method}.bin").write_bytes(data)
    for i, (_, data) in enumerate(answers):
        (out / f"recv_{i:02d}.bin").write_bytes(data)
    info = {"incarnations": {d.name: d.incarnation for d in ours.worker.devices},
            "results": json.loads(line[len("RESULT"):])}
    if loop:
        for i, (_, data) in enumerate(handed):
            (out / f"handed_{i:02d}.bin").write_bytes(data)
        info["answers"] = {key: f"recv_{i:02d}.bin" for i, (key, _) in enumerate(answers)}
        info["handed"] = {key: f"handed_{i:02d}.bin" for i, (key, _) in enumerate(handed)}
    (out / "worker.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"{len(requests)} requests and {len(answers)} answers recorded in {out}")


if __name__ == "__main__":
    main()
