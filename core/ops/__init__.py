"""Op schemas, one module per family (as TensorFlow's `core/ops/`).

Importing this package registers every op; `tfx.core.op_registry` does so
lazily on first lookup.
"""

from tfx.core.ops import (  # noqa: F401 - imported for their registrations
    accumulator_ops,
    approx_topk_ops,
    array_ops,
    candidate_sampling_ops,
    control_flow_ops,
    ctc_ops,
    data_flow_ops,
    feature_ops,
    fused_ops,
    image_codec_ops,
    image_ops,
    io_ops,
    jpeg_ops,
    linalg_ops,
    logging_ops,
    lookup_ops,
    math_ops,
    misc_ops,
    nn_ops,
    parsing_ops,
    random_index_ops,
    random_ops,
    reader_ops,
    script_ops,
    sendrecv_ops,
    session_ops,
    set_ops,
    sparse_ops,
    sparse_serialization_ops,
    spectral_ops,
    state_ops,
    string_ops,
    summary_ops,
    text_ops,
    training_ops,
    volume_patches_ops,
)
