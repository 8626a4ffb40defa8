"""CPU kernels (numpy), one module per op family.

Imported lazily by the kernel registry the first time a CPU kernel is looked up.
"""

from tfx.kernels.cpu import (  # noqa: F401 - imported for their registrations
    accumulators,
    array,
    candidate_sampling,
    control_flow,
    ctc,
    data_flow,
    einsum,
    feature,
    fused,
    image_boxes,
    image_codecs,
    image_color,
    image_patches,
    image_resize,
    indexing,
    io,
    linalg,
    logging,
    lookup,
    manip,
    math,
    misc,
    nn,
    nn_more,
    parsing,
    random,
    random_index,
    random_more,
    readers,
    reduction,
    script,
    segment,
    sendrecv,
    session_handles,
    sets,
    sparse,
    sparse_serialization,
    special,
    spectral,
    state,
    strings,
    summary,
    text,
    training,
)
from tfx.kernels.cpu.blas import configure_blas_threads

configure_blas_threads()
