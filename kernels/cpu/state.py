"""CPU kernels: ref and resource variables, assignments, scatter updates.

A ref kernel receives the `Variable` object on its ref input and outputs it
again; a resource kernel receives a DT_RESOURCE handle and finds the variable
in the session's resource manager (`OpContext.resources`). Either way the
update runs under the variable's lock and stores a new array
(`tfx.core.variables`): arrays already handed out are never written into.
Indices are checked before anything is stored, so a bad index leaves the
variable unchanged.
"""

from __future__ import annotations

import numpy as np

from tfx.core import dtypes
from tfx.core.arrays import namespace, ufunc_at
from tfx.core.errors import InvalidArgumentError, NotFoundError, OutOfRangeError
from tfx.core.resources import handle_from_tensor
from tfx.core.variables import (
    Variable,
    as_variable,
    create_from_handle,
    get_or_create,
    shape_str,
    variable_from_handle,
    variable_handle,
)
from tfx.kernels.base import OpContext, OpKernel, register_kernel

_MIN_MAX = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32,
            dtypes.int64)


# --- ref variables ---------------------------------------------------------------------


@register_kernel(["VariableV2", "Variable"], "CPU")
class VariableV2(OpKernel):
    """Looks up (or creates, uninitialized) the variable and outputs it as a reference."""

    needs_context = True

    def setup(self, shape, dtype, container, shared_name, **_):
        if self.op == "Variable" and not shape:
            shape = None  # the legacy op's scalar shape means "unknown"
        self.shape = shape
        self.container = container
        self.var_name = shared_name or self.name

    def compute(self, ctx: OpContext):
        dtype = self.attrs["dtype"]
        var = get_or_create(ctx.resources, self.container, self.var_name, dtype, self.shape)
        return (var,)


@register_kernel("Assign", "CPU")
class Assign(OpKernel):
    def compute(self, ref, value):
        var = as_variable(ref)
        var.assign(value, self.attrs["validate_shape"])
        return (var,)


def _same_shape(var: Variable, current: np.ndarray, value: np.ndarray) -> None:
    if current.shape != value.shape:
        raise InvalidArgumentError(
            f"cannot update variable {var.name} with shape {shape_str(current.shape)} "
            f"using a tensor with shape {shape_str(value.shape)}: shapes must be equal"
        )


def _add_to(var: Variable, value: np.ndarray, subtract: bool) -> None:
    with var.lock:
        current = var.read()
        _same_shape(var, current, value)
        var.store(current - value if subtract else current + value)


@register_kernel(["AssignAdd", "AssignSub"], "CPU", T=dtypes.NUMBERS)
class AssignAdd(OpKernel):
    def compute(self, ref, value):
        var = as_variable(ref)
        _add_to(var, value, subtract=self.op == "AssignSub")
        return (var,)


@register_kernel("IsVariableInitialized", "CPU")
class IsVariableInitialized(OpKernel):
    def compute(self, ref):
        return (np.array(as_variable(ref).is_initialized),)


def _count_up_to(var: Variable, limit: int) -> np.ndarray:
    with var.lock:
        current = var.read()
        if current.shape != ():
            raise InvalidArgumentError(
                f"CountUpTo needs a scalar variable; {var.name} has shape "
                f"{shape_str(current.shape)}"
            )
        if current >= limit:
            raise OutOfRangeError(f"Reached limit of {limit}")
        var.store(current + 1)
        return current


@register_kernel("CountUpTo", "CPU")
class CountUpTo(OpKernel):
    def compute(self, ref):
        return (_count_up_to(as_variable(ref), self.attrs["limit"]),)


def _temporary_key(ctx: OpContext) -> str:
    # Temporaries are per step: two concurrent steps each get their own.
    return f"_tmp/step{ctx.step.step_id}"


@register_kernel("TemporaryVariable", "CPU")
class TemporaryVariable(OpKernel):
    needs_context = True

    def compute(self, ctx: OpContext):
        name = self.attrs["var_name"] or self.name
        var = get_or_create(ctx.resources, _temporary_key(ctx), name, self.attrs["dtype"],
                            self.attrs["shape"])
        return (var,)


@register_kernel("DestroyTemporaryVariable", "CPU")
class DestroyTemporaryVariable(OpKernel):
    needs_context = True

    def compute(self, ctx: OpContext, ref):
        var = as_variable(ref)
        value = var.read()
        name = self.attrs["var_name"]
        if not ctx.resources.delete(_temporary_key(ctx), name):
            raise NotFoundError(f"temporary variable {name!r} does not exist in this step")
        return (value,)


# --- scatter updates -------------------------------------------------------------------


def _trunc_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division rounding toward zero, as C++ (and TensorFlow) divide ints."""
    if np.any(b == 0):
        raise InvalidArgumentError("integer division by zero")
    q = a // b
    inexact = (q * b != a) & ((a < 0) != (b < 0))
    return q + inexact.astype(q.dtype)


def _combine_at(mode: str, target: np.ndarray, index: tuple, values: np.ndarray) -> None:
    """target[index] op= values for every index entry in order (duplicates accumulate).

    `target` is a fresh copy owned by the caller, never a stored array.
    """
    if mode == "update":
        target[index] = values  # with duplicates, the last update wins
    elif mode == "add":
        ufunc_at(np.add, target, index, values)
    elif mode == "sub":
        ufunc_at(np.subtract, target, index, values)
    elif mode == "mul":
        np.multiply.at(target, index, values)
    elif mode == "div":
        if target.dtype.kind in "iu":
            rows = np.arange(len(values))
            for i in rows:  # integer division does not commute with itself; keep the order
                where = tuple(ix[i] for ix in index)
                target[where] = _trunc_divide(target[where], values[i])
        else:
            np.divide.at(target, index, values)
    elif mode == "max":
        ufunc_at(np.maximum, target, index, values)
    elif mode == "min":
        ufunc_at(np.minimum, target, index, values)
    else:  # pragma: no cover - modes are fixed by the registrations below
        raise InvalidArgumentError(f"unknown scatter mode {mode}")


def scatter_rows(var: Variable, indices: np.ndarray, updates: np.ndarray, mode: str) -> None:
    """var[indices[...], ...] op= updates, checked, under the variable's lock."""
    with var.lock:
        params = var.read()
        if params.ndim == 0:
            raise InvalidArgumentError(
                f"params must be at least 1-D, got shape {shape_str(params.shape)}"
            )
        expected = indices.shape + params.shape[1:]
        if updates.ndim != 0 and updates.shape != expected:
            raise InvalidArgumentError(
                "Must have updates.shape = indices.shape + params.shape[1:] or "
                f"updates.shape = [], got updates.shape {shape_str(updates.shape)}, "
                f"indices.shape {shape_str(indices.shape)}, "
                f"params.shape {shape_str(params.shape)}"
            )
        flat = indices.reshape(-1).astype(np.int64, copy=False)
        limit = params.shape[0]
        bad = (flat < 0) | (flat >= limit)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidArgumentError(f"indices[{i}] = {int(flat[i])} is not in [0, {limit})")
        rows = np.broadcast_to(updates, (flat.size,) + params.shape[1:])
        result = params.copy()
        _combine_at(mode, result, (flat,), rows)
        var.store(result)


def scatter_nd(var: Variable, indices: np.ndarray, updates: np.ndarray, mode: str,
               bad_indices_policy: str = "") -> None:
    """var[indices[..., :]] op= updates (TensorFlow's ScatterNd* on a variable)."""
    with var.lock:
        params = var.read()
        if indices.ndim < 1:
            raise InvalidArgumentError(
                f"indices must be at least 1-D, got shape {shape_str(indices.shape)}"
            )
        depth = indices.shape[-1]
        if depth > params.ndim:
            raise InvalidArgumentError(
                f"indices.shape[-1] must be <= params.rank, got indices.shape "
                f"{shape_str(indices.shape)} and params.shape {shape_str(params.shape)}"
            )
        expected = indices.shape[:-1] + params.shape[depth:]
        if updates.shape != expected:
            raise InvalidArgumentError(
                "updates.shape must be indices.shape[:-1] + params.shape[indices.shape[-1]:], "
                f"got updates.shape {shape_str(updates.shape)}, indices.shape "
                f"{shape_str(indices.shape)}, params.shape {shape_str(params.shape)}"
            )
        flat = indices.reshape(-1, depth).astype(np.int64, copy=False)
        slices = updates.reshape((flat.shape[0],) + params.shape[depth:])
        xp = namespace(params)
        limits = xp.asarray(np.array(params.shape[:depth], dtype=np.int64))
        bad = ((flat < 0) | (flat >= limits)).any(axis=1)
        if bad.any():
            if bad_indices_policy.upper() != "IGNORE":
                i = int(np.argmax(bad))
                raise InvalidArgumentError(
                    f"indices[{i}] = {flat[i].tolist()} does not index into param shape "
                    f"{shape_str(params.shape)}"
                )
            flat, slices = flat[~bad], slices[~bad]
        result = params.copy()
        if depth == 0:
            for piece in slices:  # every index addresses the whole tensor
                _combine_at(mode, result[np.newaxis], (xp.zeros(1, np.int64),), piece[None])
        else:
            _combine_at(mode, result, tuple(flat.T), slices)
        var.store(result)


_SCATTER_MODES = {"Update": "update", "Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div",
                  "Max": "max", "Min": "min"}


def _mode_of(op: str, prefix: str) -> str:
    return _SCATTER_MODES[op.removeprefix(prefix)]


@register_kernel("ScatterUpdate", "CPU")
@register_kernel(["ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv"], "CPU",
                 T=dtypes.NUMBERS)
@register_kernel(["ScatterMax", "ScatterMin"], "CPU", T=_MIN_MAX)
class Scatter(OpKernel):
    """ScatterUpdate/Add/Sub/Mul/Div/Max/Min on a ref variable."""

    def setup(self, **_):
        self.mode = _mode_of(self.op, "Scatter")

    def compute(self, ref, indices, updates):
        var = as_variable(ref)
        scatter_rows(var, indices, updates, self.mode)
        return (var,)


@register_kernel(
    ["ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub", "ScatterNdMax", "ScatterNdMin"], "CPU"
)
class ScatterNd(OpKernel):
    """ScatterNdUpdate/Add/Sub/Max/Min on a ref variable."""

    def setup(self, **_):
        self.mode = _mode_of(self.op, "ScatterNd")

    def compute(self, ref, indices, updates):
        var = as_variable(ref)
        scatter_nd(var, indices, updates, self.mode, self.attrs["bad_indices_policy"])
        return (var,)


# --- resource variables ----------------------------------------------------------------


@register_kernel("VarHandleOp", "CPU")
class VarHandleOp(OpKernel):
    """Outputs the handle; the variable is created, uninitialized, the first time."""

    needs_context = True

    def setup(self, container, shared_name, **_):
        self.container = container
        self.var_name = shared_name or self.name
        self.handle = variable_handle(container, self.var_name)

    def compute(self, ctx: OpContext):
        get_or_create(ctx.resources, self.container, self.var_name, self.attrs["dtype"],
                      self.attrs["shape"])
        return (self.handle,)


class _ResourceKernel(OpKernel):
    needs_context = True

    def variable(self, ctx: OpContext, handle) -> Variable:
        return variable_from_handle(ctx.resources, handle, self.attrs.get("dtype"))


@register_kernel("ReadVariableOp", "CPU")
class ReadVariableOp(_ResourceKernel):
    def compute(self, ctx: OpContext, handle):
        return (self.variable(ctx, handle).read(),)


@register_kernel("AssignVariableOp", "CPU")
class AssignVariableOp(OpKernel):
    needs_context = True

    def compute(self, ctx: OpContext, handle, value):
        var = create_from_handle(ctx.resources, handle, self.attrs["dtype"])
        var.assign(value, self.attrs["validate_shape"])
        return ()


@register_kernel(["AssignAddVariableOp", "AssignSubVariableOp"], "CPU", dtype=dtypes.NUMBERS)
class AssignAddVariableOp(_ResourceKernel):
    def compute(self, ctx: OpContext, handle, value):
        _add_to(self.variable(ctx, handle), value, subtract=self.op == "AssignSubVariableOp")
        return ()


@register_kernel("VarIsInitializedOp", "CPU")
class VarIsInitializedOp(OpKernel):
    needs_context = True

    def compute(self, ctx: OpContext, handle):
        h = handle_from_tensor(handle)
        var = ctx.resources.get(h.container, h.name)
        return (np.array(isinstance(var, Variable) and var.is_initialized),)


@register_kernel("DestroyResourceOp", "CPU")
class DestroyResourceOp(OpKernel):
    needs_context = True

    def compute(self, ctx: OpContext, handle):
        h = handle_from_tensor(handle)
        if not ctx.resources.delete(h.container, h.name) and not self.attrs["ignore_lookup_error"]:
            where = f"{h.container}/{h.name}" if h.container else h.name
            raise NotFoundError(f"resource {where!r} does not exist")
        return ()


@register_kernel("VariableShape", "CPU")
class VariableShape(_ResourceKernel):
    def compute(self, ctx: OpContext, handle):
        value = self.variable(ctx, handle).read()
        return (np.array(value.shape, dtype=self.attrs["out_type"].np),)


def _check_gather_indices(indices: np.ndarray, limit: int) -> None:
    bad = (indices < 0) | (indices >= limit)
    if bad.any():
        where = np.unravel_index(int(np.argmax(bad)), indices.shape)
        position = ",".join(str(int(i)) for i in where)
        raise InvalidArgumentError(
            f"indices[{position}] = {int(indices[where])} is not in [0, {limit})"
        )


def gather(params: np.ndarray, indices: np.ndarray, batch_dims: int = 0) -> np.ndarray:
    """params gathered on axis `batch_dims` by indices batched over the leading dims."""
    if batch_dims < 0:
        batch_dims += indices.ndim
    if not 0 <= batch_dims <= indices.ndim or batch_dims >= params.ndim:
        raise InvalidArgumentError(
            f"batch_dims = {batch_dims} must be in [0, {indices.ndim}] and less than the rank "
            f"{params.ndim} of params"
        )
    if params.shape[:batch_dims] != indices.shape[:batch_dims]:
        raise InvalidArgumentError(
            f"params.shape[:{batch_dims}] = {shape_str(params.shape[:batch_dims])} must equal "
            f"indices.shape[:{batch_dims}] = {shape_str(indices.shape[:batch_dims])}"
        )
    _check_gather_indices(indices, params.shape[batch_dims])
    if batch_dims == 0:
        return np.take(params, indices, axis=0)
    batch = params.shape[:batch_dims]
    count = int(np.prod(batch, dtype=np.int64))
    p = params.reshape((count,) + params.shape[batch_dims:])
    i = indices.reshape((count,) + indices.shape[batch_dims:])
    out = np.stack([np.take(p[k], i[k], axis=0) for k in range(count)]) if count else (
        namespace(params).empty((0,) + indices.shape[batch_dims:] + params.shape[batch_dims + 1:],
                                params.dtype))
    return out.reshape(batch + indices.shape[batch_dims:] + params.shape[batch_dims + 1:])


@register_kernel("ResourceGather", "CPU")
class ResourceGather(_ResourceKernel):
    def compute(self, ctx: OpContext, handle, indices):
        params = self.variable(ctx, handle).read()
        if params.ndim == 0:
            raise InvalidArgumentError("params must be at least 1-D")
        return (gather(params, indices, self.attrs["batch_dims"]),)


@register_kernel("ResourceGatherNd", "CPU")
class ResourceGatherNd(_ResourceKernel):
    def compute(self, ctx: OpContext, handle, indices):
        params = self.variable(ctx, handle).read()
        if indices.ndim < 1 or indices.shape[-1] > params.ndim:
            raise InvalidArgumentError(
                f"indices.shape[-1] must be <= params.rank, got indices.shape "
                f"{shape_str(indices.shape)} and params.shape {shape_str(params.shape)}"
            )
        depth = indices.shape[-1]
        flat = indices.reshape(-1, depth).astype(np.int64, copy=False)
        limits = namespace(params).asarray(np.array(params.shape[:depth], np.int64))
        bad = ((flat < 0) | (flat >= limits)).any(axis=1)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidArgumentError(
                f"indices[{i}] = {flat[i].tolist()} does not index into param shape "
                f"{shape_str(params.shape)}"
            )
        picked = params[tuple(flat.T)] if depth else np.broadcast_to(
            params, (flat.shape[0],) + params.shape)
        out = namespace(params).ascontiguousarray(picked)
        return (out.reshape(indices.shape[:-1] + params.shape[depth:]),)


@register_kernel("ResourceScatterUpdate", "CPU")
@register_kernel(["ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul",
                  "ResourceScatterDiv"], "CPU", dtype=dtypes.NUMBERS)
@register_kernel(["ResourceScatterMax", "ResourceScatterMin"], "CPU", dtype=dtypes.REALS)
class ResourceScatter(_ResourceKernel):
    """ResourceScatterUpdate/Add/Sub/Mul/Div/Max/Min."""

    def setup(self, **_):
        self.mode = _mode_of(self.op, "ResourceScatter")

    def compute(self, ctx: OpContext, handle, indices, updates):
        scatter_rows(self.variable(ctx, handle), indices, updates, self.mode)
        return ()


@register_kernel(["ResourceScatterNdUpdate", "ResourceScatterNdAdd", "ResourceScatterNdSub",
                  "ResourceScatterNdMin", "ResourceScatterNdMax"], "CPU")
class ResourceScatterNd(OpKernel):
    """ResourceScatterNdUpdate/Add/Sub/Min/Max."""

    needs_context = True

    def setup(self, **_):
        self.mode = _mode_of(self.op, "ResourceScatterNd")

    def compute(self, ctx: OpContext, handle, indices, updates):
        var = variable_from_handle(ctx.resources, handle, self.attrs["T"])
        scatter_nd(var, indices, updates, self.mode, self.attrs["bad_indices_policy"])
        return ()


@register_kernel("ResourceCountUpTo", "CPU")
class ResourceCountUpTo(OpKernel):
    needs_context = True

    def compute(self, ctx: OpContext, handle):
        var = variable_from_handle(ctx.resources, handle, self.attrs["T"])
        return (_count_up_to(var, self.attrs["limit"]),)
