"""TensorFlow's `tf_decorator` (as `tf.flags.tf_decorator` exposes it): decorators that
keep the decorated function's name, docstring and signature, and can be unwrapped.

    def logged(fn):
        def wrapper(*args, **kwargs):
            print("calling", fn.__name__)
            return fn(*args, **kwargs)
        return make_decorator(fn, wrapper)

    decorators, target = unwrap(logged(f))     # ([TFDecorator('logged', f)], f)

`make_decorator` gives the wrapper the target's `__name__`, `__qualname__`,
`__module__`, docstring, `__dict__` entries and signature, `__wrapped__`, and a
`_tf_decorator` TFDecorator recording the decorator's name and target; `rewrap`
swaps the innermost target of a chain of such decorators.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["TFDecorator", "fullargspec_to_signature", "make_decorator", "rewrap", "unwrap"]


def fullargspec_to_signature(fullargspec: inspect.FullArgSpec) -> inspect.Signature:
    """The inspect.Signature of an inspect.FullArgSpec (defaults and kinds kept)."""
    defaults: dict[str, Any] = {}
    if fullargspec.defaults:
        defaults.update(zip(fullargspec.args[-len(fullargspec.defaults):],
                            fullargspec.defaults))
    defaults.update(fullargspec.kwonlydefaults or {})
    kind = inspect.Parameter
    params = [kind(a, kind.POSITIONAL_OR_KEYWORD, default=defaults.get(a, kind.empty))
              for a in fullargspec.args]
    if fullargspec.varargs is not None:
        params.append(kind(fullargspec.varargs, kind.VAR_POSITIONAL))
    params += [kind(a, kind.KEYWORD_ONLY, default=defaults.get(a, kind.empty))
               for a in fullargspec.kwonlyargs]
    if fullargspec.varkw is not None:
        params.append(kind(fullargspec.varkw, kind.VAR_KEYWORD))
    return inspect.Signature(params)


def _signature_of(target: Any, argspec: inspect.FullArgSpec | None) -> inspect.Signature | None:
    if argspec:
        return fullargspec_to_signature(argspec)
    if callable(target):
        try:
            return inspect.signature(target)
        except (TypeError, ValueError):  # builtins may have none
            return None
    return None


class TFDecorator:
    """The record of one decoration: the decorator's name, doc and argspec, and the target.

    Calling it calls the target; as a descriptor it binds as the target does.
    """

    def __init__(self, decorator_name: str, target: Any, decorator_doc: str = "",
                 decorator_argspec: inspect.FullArgSpec | None = None) -> None:
        self._decorated_target = target
        self._decorator_name = decorator_name
        self._decorator_doc = decorator_doc
        self._decorator_argspec = decorator_argspec
        for attr in ("__name__", "__qualname__"):
            if hasattr(target, attr):
                setattr(self, attr, getattr(target, attr))
        self.__doc__ = decorator_doc or getattr(target, "__doc__", None) or ""
        signature = _signature_of(target, decorator_argspec)
        if signature is not None:
            self.__signature__ = signature

    def __get__(self, instance: Any, owner: Any) -> Any:
        return self._decorated_target.__get__(instance, owner)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._decorated_target(*args, **kwargs)

    @property
    def decorated_target(self) -> Any:
        return self._decorated_target

    @decorated_target.setter
    def decorated_target(self, decorated_target: Any) -> None:
        self._decorated_target = decorated_target

    @property
    def decorator_name(self) -> str:
        return self._decorator_name

    @property
    def decorator_doc(self) -> str:
        return self._decorator_doc

    @property
    def decorator_argspec(self) -> inspect.FullArgSpec | None:
        return self._decorator_argspec


def _is_decorated(obj: Any) -> bool:
    return isinstance(getattr(obj, "_tf_decorator", None), TFDecorator)


def unwrap(maybe_tf_decorator: Any) -> tuple[list[TFDecorator], Any]:
    """(the TFDecorators from the outermost in, the innermost undecorated target)."""
    decorators: list[TFDecorator] = []
    current = maybe_tf_decorator
    while True:
        if isinstance(current, TFDecorator):
            decorators.append(current)
        elif _is_decorated(current):
            decorators.append(current._tf_decorator)
        else:
            break
        current = decorators[-1].decorated_target
    return decorators, current


def _bound_instance(target: Any) -> Any:
    decorators, _ = unwrap(target)
    for decorator in decorators:
        if inspect.ismethod(decorator.decorated_target):
            return decorator.decorated_target.__self__
    return None


def make_decorator(target: Any, decorator_func: Callable, decorator_name: str | None = None,
                   decorator_doc: str = "",
                   decorator_argspec: inspect.FullArgSpec | None = None) -> Callable:
    """`decorator_func`, dressed as `target`, with a `_tf_decorator` record of both.

    Args:
        target: the decorated callable.
        decorator_func: the function that calls it (returned, changed in place).
        decorator_name: the decorator's name (default: the calling function's name).
        decorator_doc: a docstring replacing the target's.
        decorator_argspec: an inspect.FullArgSpec replacing the target's signature.
    """
    if decorator_name is None:
        caller = inspect.currentframe().f_back  # type: ignore[union-attr]
        decorator_name = caller.f_code.co_name if caller is not None else ""
    record = TFDecorator(decorator_name, target, decorator_doc, decorator_argspec)
    decorator_func._tf_decorator = record  # type: ignore[attr-defined]
    for attr in ("__name__", "__qualname__", "__module__"):
        if hasattr(target, attr):
            setattr(decorator_func, attr, getattr(target, attr))
    for name, value in getattr(target, "__dict__", {}).items():
        decorator_func.__dict__.setdefault(name, value)
    if hasattr(target, "__doc__"):
        decorator_func.__doc__ = record.__doc__
    decorator_func.__wrapped__ = target  # type: ignore[attr-defined]
    decorator_func.__original_wrapped__ = target  # type: ignore[attr-defined]
    if decorator_argspec:
        decorator_func.__signature__ = fullargspec_to_signature(  # type: ignore[attr-defined]
            decorator_argspec)
    elif callable(target):
        signature = _signature_of(target, None)
        if signature is not None:
            bound = _bound_instance(target)
            # a decorated bound method shows the method's signature, without self
            if bound is not None and "self" in signature.parameters:
                signature = inspect.Signature(list(signature.parameters.values())[1:])
                decorator_func.__self__ = bound  # type: ignore[attr-defined]
            decorator_func.__signature__ = signature  # type: ignore[attr-defined]
    return decorator_func


def rewrap(decorator_func: Any, previous_target: Any, new_target: Any) -> Any:
    """Make the decorator of `decorator_func`'s chain that wraps `previous_target` wrap
    `new_target` instead (`new_target` itself when `decorator_func` is undecorated).

    Raises:
        ValueError: `decorator_func` is undecorated and is not `previous_target`.
    """
    current, innermost, record = decorator_func, None, None
    while _is_decorated(current):
        innermost, record = current, current._tf_decorator
        if record.decorated_target is previous_target:
            break
        current = record.decorated_target
    if innermost is None or record is None:
        if decorator_func is not previous_target:
            raise ValueError("rewrap: previous_target must be what unwrap(decorator_func) "
                             "returned")
        return new_target
    record.decorated_target = new_target
    holder = getattr(innermost, "__func__", innermost) if inspect.ismethod(innermost) else (
        innermost)
    holder.__wrapped__ = new_target
    return decorator_func
