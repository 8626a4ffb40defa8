"""The TensorFlow 1.x graph-construction API that `import tfx as tf` exposes.

One module per concern: `graph_builder` (Graph, Operation, Tensor, scopes),
`ops_api` (conversion, constants, placeholders, `apply_op`), the op families
`math_api`, `array_api`, `nn_api`, `state_api` (variables), `random_api`,
`control_flow_api` (cond, while_loop) and `data_flow_api` (queues);
`gradients` with the per-op gradient functions in `*_grad`; `train_api`
(optimizers) and `saver_api`; `session_api`; `importer` (import_graph_def);
`model_builder` (what `tfx build` runs). Every op is created through
`Graph.create_op`, which checks it against its schema and infers its shapes.
"""
