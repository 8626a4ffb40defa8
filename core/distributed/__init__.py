"""The distributed runtime: a master and workers that run one graph across tasks over gRPC.

TensorFlow's design, in TensorFlow's words on the wire (`protos/distributed.proto`):

* `worker.Worker` is a task's WorkerService: the master registers graph pieces
  with it (RegisterGraph), runs them step by step (RunGraph, with the step's
  feeds in and fetches out by rendezvous key) and cleans each step up
  (CleanupGraph); other workers pull the tensors its Sends leave (RecvTensor).
  A piece runs exactly as a local multi-device step does
  (`tfx.core.multi_device.run_partitions`): only its rendezvous differs.
* `rendezvous.WorkerRendezvous` is that rendezvous: a LocalRendezvous for the
  step whose receives of a tensor another task sends go out as RecvTensor calls.
* `master.Master` is the MasterService: it holds each client session's graph,
  places it on the devices of every task of the cluster, cuts it per step
  (`tfx.core.multi_device.cut_step`), registers each task's piece with its
  worker once per step signature, and runs a step as one RunGraph per task.
* `rpc` binds both services to TensorFlow's gRPC method paths, checks the
  shared secret a server may require, and is the client side of both.
* `server.Server` is `tf.train.Server`: one process's master and worker behind
  one gRPC port; `tfx serve-worker` runs one.
* `client.GrpcSession` is the client: `tf.Session("grpc://host:port")`.

Workers of other tasks are reached through a `WorkerCache` (task name -> a
worker interface): the task's own worker is called in-process, others over
gRPC, so the master and the rendezvous do not care which is which.
"""
