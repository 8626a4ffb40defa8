"""AutoGraph's source transformation: a Python function rewritten so control flow on tensors
becomes graph control flow.

`convert(fn)` parses `fn`'s source, rewrites it and returns a new function with the same
globals, closure cells, defaults and signature; the rewritten code calls the runtime
operators of `autograph_operators` (bound to the name `ag__`, with the calls of
`autograph_calls`), which decide *when the code
runs* whether a statement is staged (its condition or iterable is a tensor) or runs as plain
Python. `to_source(fn)` gives the rewritten source text.

The rewrite, one pass per concern and in this order (each pass sees the previous one's
output), as TensorFlow's AutoGraph:

1. loop options: a `set_loop_options(...)` call opening a loop body becomes the loop's
   options;
2. `continue`, then `break`, become flags (`continue_`, `break_`): the statements after one
   that may jump run under `if not flag:`, and a loop with a `break` also tests the flag;
3. `return` inside control flow becomes `do_return = True; retval_ = value` with the rest of
   the function guarded the same way (when one branch of an `if` always returns, the
   statements after the `if` move into the other branch, so both branches define the
   return value), and one `return ag__.retval(retval_)` at the end;
4. calls become `ag__.converted_call(f, args, kwargs)` (the callee is converted in turn when
   it is user code), except `print` unless the BUILTIN_FUNCTIONS feature is asked for;
   `assert` becomes `ag__.assert_stmt` under the ASSERT_STATEMENTS feature (both optional,
   off by default, as TensorFlow's); `a if c else b`, `and`, `or`,
   `not` become lazy `ag__.if_exp`, `ag__.and_`, `ag__.or_`, `ag__.not_`;
5. `if`, `while` and `for` become local functions (the branches, the loop body and test)
   that share the function's variables through `nonlocal`, plus `get_state`/`set_state`
   over the statement's *outputs*: for an `if`, the variables assigned in it that are live
   after it; for a loop, the variables assigned in its body that are live at the loop head.
   A variable assigned in the statement and not possibly defined before it first gets
   `ag__.Undefined('name')`, so that a staged statement can say which variable a branch or
   the loop leaves undefined (and reads of it go through `ag__.ld`).

Nested functions are rewritten with their own analysis; lambdas get the expression rewrites.
"""

from __future__ import annotations

import ast
import copy
import inspect
import itertools
import sys
import textwrap
import types
from collections.abc import Callable, Iterable
from typing import Any

from tfx.core.api.autograph_analysis import (
    FUNCTION_NODES,
    LOOP_NODES,
    SCOPE_NODES,
    block_defs,
    blocks,
    live_in,
    may_define,
    target_names,
    walk_scope,
)

__all__ = ["ConversionError", "convert", "to_source"]

_AG = "ag__"


class ConversionError(Exception):
    """`fn` cannot be converted (no source, a generator, ...); callers run it unconverted."""


# --- small AST helpers ----------------------------------------------------------------------


def _ag(attr: str) -> ast.Attribute:
    return ast.Attribute(value=ast.Name(id=_AG, ctx=ast.Load()), attr=attr, ctx=ast.Load())


def _call(func: ast.expr, *args: ast.expr) -> ast.Call:
    return ast.Call(func=func, args=list(args), keywords=[])


def _name(name: str, store: bool = False) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Store() if store else ast.Load())


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[_name(name, True)], value=value)


def _thunk(expr: ast.expr) -> ast.Lambda:
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                         kw_defaults=[], kwarg=None, defaults=[]), body=expr)


def _guard(flag: str, body: list[ast.stmt]) -> ast.If:
    """`if not flag: body`, the guard of the statements after a jump."""
    return ast.If(test=_call(_ag("not_"), _name(flag)), body=body, orelse=[])


def _is_ag_call(node: ast.AST) -> bool:
    func = getattr(node, "func", None)
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and (
        func.value.id == _AG)


class _Namer:
    """Fresh names that clash with no identifier of the source."""

    def __init__(self, tree: ast.AST) -> None:
        self._taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        self._taken |= {n.name for n in ast.walk(tree) if isinstance(n, FUNCTION_NODES)}
        self._taken |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
                        for a in n.posonlyargs + n.args + n.kwonlyargs}
        self._taken.add(_AG)
        # The get_state/set_state functions made (in this function and nested ones): they
        # pass undefined values around, so their reads are never guarded.
        self.state_functions: set[str] = set()

    def new(self, base: str) -> str:
        for k in itertools.count():
            name = base if k == 0 else f"{base}_{k}"
            if name not in self._taken:
                self._taken.add(name)
                return name
        raise AssertionError("unreachable")


# --- pass 1: loop options -------------------------------------------------------------------


def _is_set_loop_options(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    func = stmt.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name == "set_loop_options"


class _LoopOptions(ast.NodeTransformer):
    """`set_loop_options(k=v)` opening a loop body becomes the loop's `ag_opts` keywords."""

    def _visit_loop(self, node: ast.While | ast.For) -> ast.AST:
        self.generic_visit(node)
        opts: list[ast.keyword] = []
        while node.body and _is_set_loop_options(node.body[0]):
            opts += node.body.pop(0).value.keywords  # type: ignore[attr-defined]
        if not node.body:
            node.body = [ast.Pass()]
        node.ag_opts = opts  # type: ignore[attr-defined]
        return node

    visit_While = _visit_loop
    visit_For = _visit_loop

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # nested functions are converted on their own

    visit_AsyncFunctionDef = visit_FunctionDef


# --- pass 2: continue and break -------------------------------------------------------------


def _jumps(stmts: list[ast.stmt], kind: type) -> bool:
    """Whether `stmts` hold a `kind` (Break or Continue) of the loop they are in."""
    for s in stmts:
        if isinstance(s, kind):
            return True
        if isinstance(s, (*SCOPE_NODES,)):
            continue
        if isinstance(s, LOOP_NODES):  # its jumps are its own
            continue
        if any(_jumps(b, kind) for b in blocks(s)):
            return True
    return False


def _lower_jumps(stmts: list[ast.stmt], kind: type, flag: str) -> list[ast.stmt]:
    """`stmts` with each `kind` jump replaced by `flag = True` and what follows a statement
    that may jump guarded by `if not flag:`."""
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out.append(_assign(flag, ast.Constant(True)))
            return out  # the rest of the block is unreachable
        if not _jumps([s], kind):
            out.append(s)
            continue
        for attr in ("body", "orelse", "finalbody"):
            if getattr(s, attr, None):
                setattr(s, attr, _lower_jumps(getattr(s, attr), kind, flag))
        for h in getattr(s, "handlers", []):
            h.body = _lower_jumps(h.body, kind, flag)
        out.append(s)
        rest = stmts[i + 1:]
        if rest:
            out.append(_guard(flag, _lower_jumps(rest, kind, flag)))
        return out
    return out


class _Jumps(ast.NodeTransformer):
    """`continue` and `break` as flags (the loop's own; nested loops first)."""

    def __init__(self, namer: _Namer) -> None:
        self.namer = namer

    def _visit_loop(self, node: ast.While | ast.For) -> Any:
        self.generic_visit(node)
        if _jumps(node.body, ast.Continue):
            flag = self.namer.new("continue_")
            node.body = [_assign(flag, ast.Constant(False)),
                         *_lower_jumps(node.body, ast.Continue, flag)]
        if not _jumps(node.body, ast.Break):
            return node
        flag = self.namer.new("break_")
        node.body = _lower_jumps(node.body, ast.Break, flag)
        _add_loop_test(node, _call(_ag("not_"), _name(flag)))
        return [_assign(flag, ast.Constant(False)), node]

    visit_While = _visit_loop
    visit_For = _visit_loop

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def _add_loop_test(node: ast.While | ast.For, test: ast.expr) -> None:
    """Make `test` (evaluated first) a condition of the loop: part of a while's test, or
    the extra test a for loop checks before each iteration."""
    if isinstance(node, ast.While):
        node.test = ast.BoolOp(op=ast.And(), values=[test, node.test])
        return
    extra = getattr(node, "ag_extra_test", None)
    node.ag_extra_test = test if extra is None else ast.BoolOp(  # type: ignore[attr-defined]
        op=ast.And(), values=[test, extra])


# --- pass 3: return -----------------------------------------------------------------------


def _returns(stmts: list[ast.stmt]) -> bool:
    for s in stmts:
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, SCOPE_NODES):
            continue
        if any(_returns(b) for b in blocks(s)):
            return True
    return False


def _always_returns(stmts: list[ast.stmt]) -> bool:
    for s in stmts:
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If) and _always_returns(s.body) and _always_returns(s.orelse):
            return True
    return False


class _Returns:
    """Every `return` inside control flow as `do_return`/`retval_` assignments."""

    def __init__(self, namer: _Namer) -> None:
        self.do_return = namer.new("do_return")
        self.retval = namer.new("retval_")

    def function(self, node: ast.FunctionDef) -> None:
        body = node.body
        inner = body[:-1] if body and isinstance(body[-1], ast.Return) else body
        if not _returns(inner):
            return  # at most one return, the last statement: nothing to rewrite
        node.body = [
            _assign(self.do_return, ast.Constant(False)),
            _assign(self.retval, _call(_ag("UndefinedReturnValue"))),
            *self._block(body),
            ast.Return(value=_call(_ag("retval"), _name(self.retval))),
        ]

    def _block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Return):
                out += [_assign(self.do_return, ast.Constant(True)),
                        _assign(self.retval, s.value or ast.Constant(None))]
                return out
            if not _returns([s]):
                out.append(s)
                continue
            rest = stmts[i + 1:]
            if isinstance(s, ast.If) and rest and (
                    _always_returns(s.body) != _always_returns(s.orelse)):
                # One branch returns: the rest of the block belongs to the other one.
                if _always_returns(s.body):
                    s.orelse = s.orelse + rest
                else:
                    s.body = s.body + rest
                rest = []
            self._compound(s)
            out.append(s)
            if rest:
                out.append(_guard(self.do_return, self._block(rest)))
            return out
        return out

    def _compound(self, s: ast.stmt) -> None:
        if isinstance(s, LOOP_NODES) and _returns(s.body):  # the loop stops on a return
            _add_loop_test(s, _call(_ag("not_"), _name(self.do_return)))
        for attr in ("body", "orelse", "finalbody"):
            if getattr(s, attr, None):
                setattr(s, attr, self._block(getattr(s, attr)))
        for h in getattr(s, "handlers", []):
            h.body = self._block(h.body)


# --- pass 4: expressions --------------------------------------------------------------------

_UNCONVERTED_CALLS = frozenset({"super", "locals", "globals", "vars", "eval", "exec"})


class _Expressions(ast.NodeTransformer):
    """Calls, asserts, conditional expressions and `and`/`or`/`not` as runtime operators."""

    def __init__(self, first_arg: str | None, features: frozenset[str]) -> None:
        self.first_arg = first_arg  # of the function being converted: super()'s instance
        self.asserts = bool({"ALL", "ASSERT_STATEMENTS"} & features)
        self.prints = bool({"ALL", "BUILTIN_FUNCTIONS"} & features)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if _is_ag_call(node):
            return node
        if isinstance(func, ast.Name) and func.id == "print" and not self.prints:
            return node  # as TensorFlow: print is converted only when asked for
        if isinstance(func, ast.Name) and func.id in _UNCONVERTED_CALLS:
            if func.id == "super" and not node.args and self.first_arg:
                # Zero-argument super() needs the class cell; name it explicitly.
                node.args = [_name("__class__"), _name(self.first_arg)]
            return node
        positional = ast.Tuple(elts=node.args, ctx=ast.Load())
        keywords: ast.expr
        if node.keywords:  # ag__.kwargs(k=v, **kw): Python's checks of repeated keywords
            keywords = ast.Call(func=_ag("kwargs"), args=[], keywords=node.keywords)
        else:
            keywords = ast.Constant(None)
        return _call(_ag("converted_call"), func, positional, keywords)

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        self.generic_visit(node)
        if not self.asserts:
            return node
        msg = node.msg if node.msg is not None else ast.Constant("Assertion error")
        return ast.Expr(value=_call(_ag("assert_stmt"), node.test, _thunk(msg)))

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        text = _unparse(node.test)  # the user's condition, for messages
        self.generic_visit(node)
        return _call(_ag("if_exp"), node.test, _thunk(node.body), _thunk(node.orelse),
                     ast.Constant(text))

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = _call(_ag(op), _thunk(value), _thunk(result))
        return result

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            op = "eq" if isinstance(node.ops[0], ast.Eq) else "not_eq"
            return _call(_ag(op), node.left, node.comparators[0])
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _call(_ag("not_"), node.operand)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # converted on its own, with its own first argument

    visit_AsyncFunctionDef = visit_FunctionDef


# --- pass 5: control flow -------------------------------------------------------------------


def _declarations(names: set[str], globals_: set[str]) -> list[ast.stmt]:
    """`nonlocal` for the enclosing function's variables, `global` for its global names."""
    out: list[ast.stmt] = []
    if names - globals_:
        out.append(ast.Nonlocal(names=sorted(names - globals_)))
    if names & globals_:
        out.append(ast.Global(names=sorted(names & globals_)))
    return out


def _state_functions(namer: _Namer, outputs: list[str], globals_: set[str]
                     ) -> tuple[str, str, list[ast.stmt]]:
    get_state, set_state = namer.new("get_state"), namer.new("set_state")
    elts = [_name(n) for n in outputs]
    get_def = _def(get_state, [], [ast.Return(value=ast.Tuple(elts=elts, ctx=ast.Load()))])
    vars_ = namer.new("vars_")
    if outputs:
        set_body: list[ast.stmt] = [
            *_declarations(set(outputs), globals_),
            ast.Assign(targets=[ast.Tuple(elts=[_name(n, True) for n in outputs],
                                          ctx=ast.Store())], value=_name(vars_))]
    else:
        set_body = [ast.Pass()]
    set_def = _def(set_state, [vars_], set_body)
    return get_state, set_state, [get_def, set_def]


def _def(name: str, args: list[str], body: list[ast.stmt]) -> ast.FunctionDef:
    return ast.FunctionDef(
        name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in args],
                                      vararg=None, kwonlyargs=[], kw_defaults=[],
                                      kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None)


def _declared(scope: ast.AST, kind: type) -> set[str]:
    return {n for s in walk_scope(scope) if isinstance(s, kind) for n in s.names}


class _ControlFlow:
    """`if`, `while` and `for` as local functions and `ag__.if_stmt`/`while_stmt`/
    `for_stmt` calls (outermost statement first, its blocks after)."""

    def __init__(self, namer: _Namer, globals_: set[str], nonlocals: set[str]) -> None:
        self.namer = namer
        # The function's own `global` and `nonlocal` names are state as its locals are (as
        # TensorFlow), declared `global` in the local functions; they get no Undefined.
        self.globals = globals_
        self.outer_names = globals_ | nonlocals
        self.undefined: set[str] = set()  # names that got an ag__.Undefined

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in stmts:
            if isinstance(s, ast.If):
                out += self._if(s)
            elif isinstance(s, ast.While):
                out += self._while(s)
            elif isinstance(s, ast.For):
                out += self._for(s)
            else:
                for attr in ("body", "orelse", "finalbody"):
                    if isinstance(getattr(s, attr, None), list) and not isinstance(
                            s, SCOPE_NODES):
                        setattr(s, attr, self.block(getattr(s, attr)))
                for h in getattr(s, "handlers", []):
                    h.body = self.block(h.body)
                out.append(s)
        return out

    def _state_functions(self, names: list[str]) -> tuple[str, str, list[ast.stmt]]:
        get_state, set_state, made = _state_functions(self.namer, names, self.globals)
        self.namer.state_functions |= {get_state, set_state}
        return get_state, set_state, made

    def _modified(self, *parts: list[ast.stmt]) -> set[str]:
        names: set[str] = set()
        for b in parts:
            names |= block_defs(b)
        return names

    def _local_def(self, name: str, args: list[str], modified: set[str],
                   body: list[ast.stmt]) -> ast.FunctionDef:
        """A local function running `body` on the enclosing function's variables."""
        return _def(name, args, _declarations(modified, self.globals) + (body or [ast.Pass()]))

    def _undefined_inits(self, node: ast.stmt, names: Iterable[str]) -> list[ast.stmt]:
        defined = getattr(node, "ag_defined_in", set())
        out = []
        for n in sorted(set(names) - defined - self.outer_names):
            self.undefined.add(n)
            out.append(_assign(n, _call(_ag("Undefined"), ast.Constant(n))))
        return out

    def _if(self, node: ast.If) -> list[ast.stmt]:
        modified = self._modified(node.body, node.orelse)
        outputs = sorted(modified & node.ag_live_out)  # type: ignore[attr-defined]
        body, orelse = self.block(node.body), self.block(node.orelse)
        if_body, else_body = self.namer.new("if_body"), self.namer.new("else_body")
        get_state, set_state, state_defs = self._state_functions(outputs)
        call = _call(_ag("if_stmt"), node.test, _name(if_body), _name(else_body),
                     _name(get_state), _name(set_state),
                     ast.Tuple(elts=[ast.Constant(n) for n in outputs], ctx=ast.Load()),
                     ast.Constant(len(outputs)))
        return [*self._undefined_inits(node, modified),
                self._local_def(if_body, [], modified, body),
                self._local_def(else_body, [], modified, orelse),
                *state_defs, ast.Expr(value=call)]

    def _loop_parts(self, node: ast.While | ast.For, extra: set[str]
                    ) -> tuple[set[str], list[str], list[ast.stmt], ast.Dict]:
        modified = self._modified(node.body) | extra
        loop_vars = sorted(modified & node.ag_live_head)  # type: ignore[attr-defined]
        opts = ast.Dict(keys=[ast.Constant(k.arg) for k in node.ag_opts],  # type: ignore
                        values=[k.value for k in node.ag_opts])  # type: ignore[attr-defined]
        return modified, loop_vars, self.block(node.body), opts

    def _while(self, node: ast.While) -> list[ast.stmt]:
        modified, loop_vars, body, opts = self._loop_parts(node, set())
        get_state, set_state, state_defs = self._state_functions(loop_vars)
        loop_body, loop_test = self.namer.new("loop_body"), self.namer.new("loop_test")
        call = _call(_ag("while_stmt"), _name(loop_test), _name(loop_body), _name(get_state),
                     _name(set_state),
                     ast.Tuple(elts=[ast.Constant(n) for n in loop_vars], ctx=ast.Load()),
                     opts)
        return [*self._undefined_inits(node, modified), *state_defs,
                self._local_def(loop_body, [], modified, body),
                _def(loop_test, [], [ast.Return(value=node.test)]),
                ast.Expr(value=call)]

    def _for(self, node: ast.For) -> list[ast.stmt]:
        targets = target_names(node.target)
        modified, loop_vars, body, opts = self._loop_parts(node, targets)
        # The target's name: a staged loop over a range starts it at the range's start.
        opts.keys.append(ast.Constant("iterate_names"))
        opts.values.append(ast.Constant(_unparse(node.target)))
        get_state, set_state, state_defs = self._state_functions(loop_vars)
        loop_body, itr = self.namer.new("loop_body"), self.namer.new("itr")
        target = ast.Assign(targets=[node.target], value=_name(itr))
        local = [*state_defs, self._local_def(loop_body, [itr], modified, [target, *body])]
        extra: ast.expr = ast.Constant(None)
        test = getattr(node, "ag_extra_test", None)
        if test is not None:
            extra_test = self.namer.new("extra_test")
            local.append(_def(extra_test, [], [ast.Return(value=test)]))
            extra = _name(extra_test)
        call = _call(_ag("for_stmt"), node.iter, extra, _name(loop_body), _name(get_state),
                     _name(set_state),
                     ast.Tuple(elts=[ast.Constant(n) for n in loop_vars], ctx=ast.Load()),
                     opts)
        return [*self._undefined_inits(node, modified), *local, ast.Expr(value=call)]


class _GuardedReads(ast.NodeTransformer):
    """Reads of a name that may hold `ag__.Undefined` go through `ag__.ld`, which raises
    Python's error for a variable read before assignment; the state functions (which pass
    undefined values around) and the assignments themselves are left alone."""

    def __init__(self, names: set[str], state_functions: set[str]) -> None:
        self.names = names
        self.state_functions = state_functions

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        if node.name in self.state_functions:
            return node
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.names:
            return _call(_ag("ld"), node)
        return node


# --- one function -------------------------------------------------------------------------


def _convert_function(node: ast.FunctionDef | ast.AsyncFunctionDef, namer: _Namer,
                      features: frozenset[str]) -> None:
    """Rewrite `node` in place (its nested functions first, each with its own analysis)."""
    for child in list(walk_scope(node)):
        if isinstance(child, FUNCTION_NODES):
            _convert_function(child, namer, features)
    node.body = _LoopOptions().visit(ast.Module(body=node.body, type_ignores=[])).body
    node.body = _Jumps(namer).visit(ast.Module(body=node.body, type_ignores=[])).body
    if isinstance(node, ast.FunctionDef):
        _Returns(namer).function(node)
    args = node.args
    params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    first = params[0] if args.posonlyargs or args.args else None
    expressions = _Expressions(first, features)
    node.body = [expressions.visit(s) for s in node.body]
    outer_names = _declared(node, ast.Global) | _declared(node, ast.Nonlocal)
    may_define(node.body, set(params))
    live_in(node.body, outer_names)  # what the function leaves in them is seen outside
    flow = _ControlFlow(namer, _declared(node, ast.Global), _declared(node, ast.Nonlocal))
    node.body = flow.block(node.body)
    if flow.undefined:
        guard = _GuardedReads(flow.undefined, namer.state_functions)
        node.body = [guard.visit(s) for s in node.body]


# --- entities -----------------------------------------------------------------------------


def _source_of(fn: types.FunctionType) -> tuple[str, int]:
    try:
        # The code object: the function itself would be unwrapped to what it decorates.
        lines, first = inspect.getsourcelines(fn.__code__)
    except (OSError, TypeError) as exc:
        raise ConversionError(f"no source for {fn!r}: {exc}") from None
    return textwrap.dedent("".join(lines)), first


def _parse_function(fn: types.FunctionType) -> tuple[ast.AST, int]:
    """The FunctionDef (or Lambda) node of `fn` and its first line in the file."""
    source, first = _source_of(fn)
    code = fn.__code__
    if code.co_name == "<lambda>":
        return _parse_lambda(fn, source), first
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ConversionError(f"cannot parse the source of {fn!r}: {exc}") from None
    for node in ast.walk(tree):
        if isinstance(node, FUNCTION_NODES) and node.name == code.co_name:
            return node, first
    raise ConversionError(f"no definition of {code.co_name!r} in its source")


def _parse_lambda(fn: types.FunctionType, source: str) -> ast.Lambda:
    """The lambda of `fn` in the lines holding it: the one whose parameters match, and the
    only such one (two lambdas alike on one line cannot be told apart)."""
    tree = None
    text = source.strip()
    # The lines may hold part of a larger statement: cut the text down until it parses.
    for start in [0] + [i for i in range(1, len(text)) if text.startswith("lambda", i)]:
        for end in range(len(text), start, -1):
            try:
                tree = ast.parse(text[start:end].strip(), mode="exec")
                break
            except SyntaxError:
                continue
        if tree is not None:
            break
    if tree is None:
        raise ConversionError(f"cannot parse the source of {fn!r}")
    code = fn.__code__
    wanted = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and [
        a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == wanted]
    if len({ast.dump(n) for n in found}) != 1:
        raise ConversionError(f"cannot tell which lambda of its source line {fn!r} is")
    return found[0]


def _transformed(fn: types.FunctionType, name: str, features: frozenset[str]
                 ) -> tuple[ast.FunctionDef, int]:
    """The rewritten FunctionDef of `fn`, named `name` (a lambda becomes a def)."""
    node, first = _parse_function(fn)
    node = copy.deepcopy(node)
    if isinstance(node, ast.Lambda):
        node = ast.FunctionDef(name=name, args=node.args, body=[ast.Return(value=node.body)],
                               decorator_list=[], returns=None, type_comment=None,
                               lineno=node.lineno, col_offset=node.col_offset)
    elif isinstance(node, ast.AsyncFunctionDef):
        raise ConversionError(f"{fn!r} is a coroutine function")
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in walk_scope(node)):
        raise ConversionError(f"{fn!r} is a generator")
    for loop in ast.walk(node):
        if isinstance(loop, LOOP_NODES) and loop.orelse:  # as TensorFlow 2.21
            kind = "for" if isinstance(loop, ast.For) else "while"
            raise ConversionError(f"{kind}/else statement not yet supported")
    node.decorator_list = []
    node.name = name
    _convert_function(node, _Namer(node), features)
    return node, first


_cache: dict[tuple[types.CodeType, str, frozenset[str]], types.CodeType] = {}


def to_source(fn: Callable[..., Any], indentation: str = "    ",
              features: frozenset[str] = frozenset()) -> str:
    """The rewritten source of `fn` (a Python function), as `def tf__<name>(...)`."""
    fn = _function_of(fn)
    node, _ = _transformed(fn, f"tf__{_safe_name(fn)}", features)
    text = _unparse(ast.fix_missing_locations(node))
    if indentation != "    ":
        text = "\n".join(_reindent(line, indentation) for line in text.splitlines())
    return text + "\n"


def _unparse(node: ast.AST) -> str:
    """`ast.unparse`, writing a lambda without arguments as `lambda:` on every Python.

    Python 3.10 writes `lambda :`; 3.11 and later write `lambda:`, and so does this, so
    that `to_code` shows the same text whatever the Python.
    """
    if sys.version_info >= (3, 11):
        return ast.unparse(node)
    return _Unparser310().visit(node)


if sys.version_info < (3, 11):  # pragma: no cover - exercised on Python 3.10 only
    class _Unparser310(ast._Unparser):  # type: ignore[name-defined]
        def visit_Lambda(self, node: ast.Lambda) -> None:
            with self.require_parens(ast._Precedence.TEST, node):  # type: ignore[attr-defined]
                arguments = ast.unparse(node.args)
                self.write(f"lambda {arguments}: " if arguments else "lambda: ")
                self.set_precedence(ast._Precedence.TEST, node.body)  # type: ignore[attr-defined]
                self.traverse(node.body)


def _reindent(line: str, indentation: str) -> str:
    stripped = line.lstrip(" ")
    return indentation * ((len(line) - len(stripped)) // 4) + stripped


def _safe_name(fn: types.FunctionType) -> str:
    return "lam" if fn.__code__.co_name == "<lambda>" else fn.__code__.co_name


def _function_of(fn: Callable[..., Any]) -> types.FunctionType:
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        raise ConversionError(f"{fn!r} is not a Python function")
    return fn


def convert(fn: Callable[..., Any], operators: Any,
            features: frozenset[str] = frozenset()) -> types.FunctionType:
    """`fn` rewritten; it reads its globals and closure cells live, as `fn` does.

    Args:
        fn: a Python function (a bound method: its function, bound the same way).
        operators: what the rewritten code calls as `ag__` (the runtime operators).
        features: the optional conversions asked for (`Feature` names): with
            "ASSERT_STATEMENTS" `assert` is converted, with "BUILTIN_FUNCTIONS" `print` is,
            "ALL" both; without them they stay Python, as in TensorFlow.

    Raises:
        ConversionError: `fn` has no source, is a generator or coroutine, or its
            rewritten code does not compile.
    """
    if isinstance(fn, types.MethodType):
        return types.MethodType(convert(fn.__func__, operators, features), fn.__self__)
    fn = _function_of(fn)
    code = fn.__code__
    key = (code, _safe_name(fn), features)
    if key not in _cache:
        _cache[key] = _compile(fn, features)
    inner = _cache[key]
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    cells[_AG] = types.CellType(operators)
    try:
        closure = tuple(cells[n] for n in inner.co_freevars)
    except KeyError as exc:
        raise ConversionError(f"the rewritten {fn!r} reads {exc} from no cell") from None
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = copy.copy(fn.__kwdefaults__)
    new.__dict__.update(fn.__dict__)
    new.__qualname__, new.__doc__, new.__module__ = fn.__qualname__, fn.__doc__, fn.__module__
    new.__annotations__ = dict(getattr(fn, "__annotations__", {}))
    new.__wrapped__ = fn  # type: ignore[attr-defined]
    return new


def _fix_locations(tree: ast.AST) -> None:
    """Positions for the nodes the rewrite made (their parent's), with each node's end
    not before its start, as `compile` requires."""
    ast.fix_missing_locations(tree)
    for node in ast.walk(tree):
        if not hasattr(node, "lineno"):
            continue
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        if end_line is None or end_line < node.lineno:
            end_line, end_col = node.lineno, node.col_offset
        if end_line == node.lineno and (end_col is None or end_col < node.col_offset):
            end_col = node.col_offset
        node.end_lineno, node.end_col_offset = end_line, end_col


def _compile(fn: types.FunctionType, features: frozenset[str]) -> types.CodeType:
    """The code object of the rewritten `fn`, made inside a factory whose parameters are
    `ag__` and `fn`'s free variables, so that it closes over cells of those names."""
    # Named apart from the original, which the code may call by its global name.
    name = f"tf__{_safe_name(fn)}"
    node, first = _transformed(fn, name, features)
    params = [_AG, *(v for v in fn.__code__.co_freevars if v != _AG)]
    if "__class__" in params or any(
            isinstance(n, ast.Name) and n.id == "__class__" for n in ast.walk(node)):
        params = list(dict.fromkeys([*params, "__class__"]))
    factory = _def("ag__factory", params, [node, ast.Return(value=_name(name))])
    module = ast.Module(body=[factory], type_ignores=[])
    _fix_locations(module)
    # Compiled under the original file name and lines: tracebacks show the user's code.
    ast.increment_lineno(module, first - 1)
    try:
        code = compile(module, fn.__code__.co_filename, "exec")
    except (SyntaxError, ValueError) as exc:
        raise ConversionError(f"the rewritten {fn!r} does not compile: {exc}") from None
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType)
                 and c.co_name == name)
    return inner
