"""Single-site mutants of a Python module: what ``dpverify mutate`` runs the gate on.

A mutant is the module with one syntax node changed.  The module is parsed with :mod:`ast`,
one site is transformed, and the change is written back into the original text at that
node's exact position (comments, labels and line numbers stay as they were); the result is
parsed again and must have exactly the transformed syntax tree, else the whole module is
written by :func:`ast.unparse` instead.  Generation is deterministic: the same text gives the
same mutants in the same order (by line, column, then operator).

Operators (the name each mutant records):

``compare``    ``<`` to ``<=`` and ``>=``; ``<=`` to ``<`` and ``>``; ``>`` to ``>=`` and
               ``<=``; ``>=`` to ``>`` and ``<``; ``==``/``!=``, ``is``/``is not``,
               ``in``/``not in`` swapped (each comparison of a chain on its own)
``arith``      ``+``/``-`` swapped, ``*`` to ``//``, ``//`` and ``/`` to ``*``, ``%`` to
               ``//``, ``**`` to ``*``, ``<<``/``>>`` swapped, ``&``/``|`` swapped, ``^`` to
               ``&``; in expressions and in augmented assignments (``k += 1``)
``unary``      unary ``-`` and ``~`` removed
``constant``   an integer constant ``n`` to ``n + 1`` and ``n - 1`` (``-1`` counts as one constant)
``boolean``    ``True``/``False`` swapped
``not``        ``not`` inserted before the test of ``if``, ``while``, a conditional expression
               and a returned truth value, or removed where it is written
``boolop``     ``and``/``or`` swapped
``args``       two neighbouring positional arguments of a call swapped
``randbelow``  ``randbelow(n)`` to ``randbelow(n + 1)`` and ``randbelow(n - 1)``
``bernoulli``  ``bernoulli(a, b)``: ``a`` or ``b`` one more or one less
``builtin``    ``abs(x)`` to ``x``; ``min``/``max`` swapped
``range``      ``range(n)`` to ``range(n + 1)`` and ``range(n - 1)``
``return``     ``return x`` to ``return None``
``loop``       ``break``/``continue`` swapped
``delete``     a statement of a loop body replaced by ``pass`` (not ``break`` or ``continue``)

Never mutated: docstrings and other strings, f-strings, ``__all__``, imports, type
annotations and type aliases (``int | Fraction | str``), decorators, class bases,
``if TYPE_CHECKING:`` blocks, ``assert`` statements, ``raise`` statements, and the body of an
``if`` that ends in ``raise`` (it only builds an error for invalid input, so a mutant there
could change nothing but a message).  The *test* of such an ``if`` is mutated: those mutants
are marked ``input_check``.  One that makes the check refuse a valid input changes what a
public entry point does, and the gate's cases should see it; one that only lets an invalid
input through changes nothing on the domain the spec declares, and is reviewed like an
equivalent mutant, with a reason that names the input it lets through.

Each mutant's id, ``MODULE:FUNCTION:HASH``, survives edits elsewhere: ``HASH`` covers the
module, the function's qualified name (``<module>`` for code outside functions), the
operator, the original and mutated text of the changed node (normalised by
:func:`ast.unparse`, so formatting does not matter) and the mutant's index among identical
changes in that function, never a line number.
"""

from __future__ import annotations

import ast
import hashlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

__all__ = ["MODULE_SCOPE", "OPERATORS", "Mutant", "mutants_of", "verified_source"]

#: The function name of code outside any function or class.
MODULE_SCOPE = "<module>"

OPERATORS = (
    "compare",
    "arith",
    "unary",
    "constant",
    "boolean",
    "not",
    "boolop",
    "args",
    "randbelow",
    "bernoulli",
    "builtin",
    "range",
    "return",
    "loop",
    "delete",
)

_COMPARE: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE, ast.GtE),
    ast.LtE: (ast.Lt, ast.Gt),
    ast.Gt: (ast.GtE, ast.LtE),
    ast.GtE: (ast.Gt, ast.Lt),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
}
_ARITH: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitAnd,
}
#: Calls whose arguments are not worth swapping: the swap is a TypeError on every call.
_NO_SWAP = frozenset({"isinstance", "issubclass", "getattr", "setattr", "hasattr", "print"})
#: Statements never mutated: nothing to mutate, or only the raising of an error (``assert`` is
#: for programmer errors).
_SKIPPED_STATEMENTS = (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Pass, ast.Raise, ast.Assert)
_SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)
_TYPE_NAMES = frozenset(
    {
        "int",
        "str",
        "bytes",
        "bool",
        "float",
        "complex",
        "object",
        "type",
        "list",
        "dict",
        "tuple",
        "set",
        "frozenset",
        "None",
    }
)


@dataclass(frozen=True, slots=True)
class Mutant:
    """One single-site change of a module: where, what, and the whole mutated text."""

    id: str
    module: str
    function: str
    operator: str
    line: int
    original: str
    mutated: str
    input_check: bool
    source: str = field(repr=False, compare=False)
    index: int = field(default=0, repr=False, compare=False)  # position in the module's mutants
    at_import: bool = field(default=False, compare=False)  # the changed code runs when the module is imported
    #: a default value of ``function``: evaluated at import, and seen only where the function runs
    in_default: bool = field(default=False, compare=False)

    @property
    def description(self) -> str:
        """``line N: OPERATOR: `before` -> `after``` (clipped), marked when it is in an input check."""
        check = " (input check)" if self.input_check else ""
        return f"line {self.line}: {self.operator}: `{_clip(self.original)}` -> `{_clip(self.mutated)}`{check}"

    @property
    def mutated_line(self) -> str:
        """The mutant's text at :attr:`line`, stripped (the first line of a longer change)."""
        lines = self.source.splitlines()
        return lines[self.line - 1].strip() if 0 < self.line <= len(lines) else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "module": self.module,
            "function": self.function,
            "line": self.line,
            "operator": self.operator,
            "description": self.description,
            "original": self.original,
            "mutated": self.mutated,
            "mutated_line": self.mutated_line,
            "input_check": self.input_check,
            "at_import": self.at_import,
        }


def _clip(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(slots=True)
class _Site:
    """A node to replace: its parent's field (and list index), the new node, and the text shown."""

    parent: ast.AST
    name: str
    index: int | None
    old: ast.expr | ast.stmt
    new: ast.AST
    operator: str
    function: str
    input_check: bool
    at_import: bool
    shown: ast.AST  # the node whose text before and after identifies the change
    in_default: bool = False

    def swap(self, node: ast.AST) -> None:
        if self.index is None:
            setattr(self.parent, self.name, node)
        else:
            getattr(self.parent, self.name)[self.index] = node


#: Where a node sits: its parent, the parent's field, and the index in that field's list (or None).
_Where = tuple[ast.AST, str, int | None]


@dataclass(frozen=True, slots=True)
class _Context:
    function: str = MODULE_SCOPE
    returns_bool: bool = False
    generator: bool = False
    input_check: bool = False
    at_import: bool = True  # the code runs when the module is imported, not when a function is called
    in_default: bool = False  # a default value of ``function``


def _qualified(context: _Context, name: str) -> str:
    return name if context.function == MODULE_SCOPE else f"{context.function}.{name}"


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_type_expression(node: ast.AST) -> bool:
    """``int | Fraction | str``, ``Callable[..., T] | None``: a union of names that look like types."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_type_expression(node.left) and _is_type_expression(node.right)
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.Subscript):
        return _is_type_expression(node.value)
    if isinstance(node, ast.Attribute):
        return node.attr[:1].isupper()
    if isinstance(node, ast.Name):
        return node.id in _TYPE_NAMES or node.id[:1].isupper()
    return False


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _assigns_all(node: ast.AST) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def _is_generator(function: ast.AST) -> bool:
    def inside(node: ast.AST) -> Iterator[ast.AST]:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                yield child
                yield from inside(child)

    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in inside(function))


def _ends_in_raise(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Raise)


def _call_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _plus(node: ast.expr, step: int) -> ast.expr:
    return ast.BinOp(node, ast.Add() if step > 0 else ast.Sub(), ast.Constant(abs(step)))


def _integer(value: int) -> ast.expr:
    return ast.Constant(value) if value >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-value))


class _Finder:
    """Walks a module in source order and collects every mutation site.

    Statements and expressions are dispatched on their node type (:attr:`STATEMENTS`,
    :attr:`EXPRESSIONS`); a statement type not listed has its expressions visited, and an
    expression type not listed only its children.
    """

    def __init__(self) -> None:
        self.sites: list[_Site] = []

    # -- statements -----------------------------------------------------------------------------

    def module(self, tree: ast.Module) -> None:
        self.body(tree, "body", _Context(), in_loop=False)

    def body(self, parent: ast.AST, name: str, context: _Context, *, in_loop: bool) -> None:
        for index, statement in enumerate(getattr(parent, name)):
            self.statement(statement, parent, name, index, context, in_loop=in_loop)

    def statement(
        self, node: ast.stmt, parent: ast.AST, name: str, index: int, context: _Context, *, in_loop: bool
    ) -> None:
        if _is_docstring(node) or isinstance(node, _SKIPPED_STATEMENTS):
            return
        if in_loop and not isinstance(node, (ast.Break, ast.Continue)):  # those two are swapped instead
            self.add(parent, name, index, node, ast.Pass(), "delete", context, shown=node)
        handler = self.STATEMENTS.get(type(node))
        if handler is not None:
            handler(self, node, (parent, name, index), context)
        else:  # match statements and anything newer: their expressions, in field order
            for child_name, value in ast.iter_fields(node):
                if isinstance(value, ast.expr):
                    self.expression(value, node, child_name, None, context)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, here: _Where, context: _Context) -> None:
        """The defaults (counted as the function's own) and the body; never the annotations or decorators."""
        returns = node.returns
        inner = _Context(
            _qualified(context, node.name),
            isinstance(returns, ast.Name) and returns.id == "bool",
            _is_generator(node),
            at_import=False,
        )
        arguments = node.args
        for name in ("defaults", "kw_defaults"):
            for index, default in enumerate(getattr(arguments, name)):
                if default is not None:  # evaluated where the function is defined
                    self.expression(
                        default, arguments, name, index, replace(inner, at_import=context.at_import, in_default=True)
                    )
        self.body(node, "body", inner, in_loop=False)

    def class_(self, node: ast.ClassDef, here: _Where, context: _Context) -> None:
        self.body(node, "body", _Context(_qualified(context, node.name), at_import=context.at_import), in_loop=False)

    def assign(self, node: ast.Assign | ast.AnnAssign, here: _Where, context: _Context) -> None:
        if node.value is None or _assigns_all(node):
            return
        if context.function == MODULE_SCOPE and _is_type_expression(node.value):
            return
        self.expression(node.value, node, "value", None, context)

    def augmented(self, node: ast.AugAssign, here: _Where, context: _Context) -> None:
        replacement = _ARITH.get(type(node.op))
        if replacement is not None:
            self.add(*here, node, ast.AugAssign(node.target, replacement(), node.value), "arith", context, shown=node)
        self.expression(node.value, node, "value", None, context)

    def return_(self, node: ast.Return, here: _Where, context: _Context) -> None:
        value = node.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            return
        negated = isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)
        constant = isinstance(value, ast.Constant) and isinstance(value.value, bool)
        if not negated and not constant and (context.returns_bool or isinstance(value, (ast.Compare, ast.BoolOp))):
            self.add(node, "value", None, value, ast.UnaryOp(ast.Not(), value), "not", context, shown=node)
        if not context.generator and not isinstance(value, ast.Constant):
            self.add(*here, node, ast.Return(ast.Constant(None)), "return", context, shown=node)
        self.expression(value, node, "value", None, context)

    def if_(self, node: ast.If, here: _Where, context: _Context) -> None:
        if _is_type_checking(node.test):
            return
        guard = _ends_in_raise(node.body)
        self.condition(node, replace(context, input_check=True) if guard else context)
        if not guard:
            self.body(node, "body", context, in_loop=False)
        self.body(node, "orelse", context, in_loop=False)

    def while_(self, node: ast.While, here: _Where, context: _Context) -> None:
        self.condition(node, context)
        self.body(node, "body", context, in_loop=True)
        self.body(node, "orelse", context, in_loop=False)

    def for_(self, node: ast.For | ast.AsyncFor, here: _Where, context: _Context) -> None:
        self.expression(node.iter, node, "iter", None, context)
        self.body(node, "body", context, in_loop=True)
        self.body(node, "orelse", context, in_loop=False)

    def with_(self, node: ast.With | ast.AsyncWith, here: _Where, context: _Context) -> None:
        for item in node.items:
            self.expression(item.context_expr, item, "context_expr", None, context)
        self.body(node, "body", context, in_loop=False)

    def try_(self, node: ast.Try, here: _Where, context: _Context) -> None:
        self.body(node, "body", context, in_loop=False)
        for handler in node.handlers:
            self.body(handler, "body", context, in_loop=False)
        self.body(node, "orelse", context, in_loop=False)
        self.body(node, "finalbody", context, in_loop=False)

    def break_(self, node: ast.Break, here: _Where, context: _Context) -> None:
        self.add(*here, node, ast.Continue(), "loop", context, shown=node)

    def continue_(self, node: ast.Continue, here: _Where, context: _Context) -> None:
        self.add(*here, node, ast.Break(), "loop", context, shown=node)

    def expression_statement(self, node: ast.Expr, here: _Where, context: _Context) -> None:
        self.expression(node.value, node, "value", None, context)

    def condition(self, node: ast.If | ast.While | ast.IfExp, context: _Context) -> None:
        test = node.test
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        if not negated and not (isinstance(test, ast.Constant) and isinstance(test.value, bool)):
            self.add(node, "test", None, test, ast.UnaryOp(ast.Not(), test), "not", context)
        self.expression(test, node, "test", None, context)

    STATEMENTS: dict[type[ast.stmt], Callable[[Any, Any, _Where, _Context], None]] = {
        ast.FunctionDef: function,
        ast.AsyncFunctionDef: function,
        ast.ClassDef: class_,
        ast.Assign: assign,
        ast.AnnAssign: assign,
        ast.AugAssign: augmented,
        ast.Return: return_,
        ast.If: if_,
        ast.While: while_,
        ast.For: for_,
        ast.AsyncFor: for_,
        ast.With: with_,
        ast.AsyncWith: with_,
        ast.Try: try_,
        ast.Break: break_,
        ast.Continue: continue_,
        ast.Expr: expression_statement,
        ast.Delete: lambda *_: None,
    }

    # -- expressions ----------------------------------------------------------------------------

    def expression(
        self,
        node: ast.expr,
        parent: ast.AST,
        name: str,
        index: int | None,
        context: _Context,
        *,
        context_node: ast.AST | None = None,
    ) -> None:
        """Every site in the expression ``node`` (``parent.name[index]``), then in its children;
        ``context_node`` is what a constant is shown within when ``parent`` is not an expression."""
        handler = self.EXPRESSIONS.get(type(node))
        if handler is not None and handler(
            self, node, (parent, name, index), context, context_node if context_node is not None else parent
        ):
            return  # the handler visited what is to be visited
        for child_name, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                self.expression(value, node, child_name, None, context)
            elif isinstance(value, list):
                for child_index, item in enumerate(value):
                    if isinstance(item, ast.expr):
                        self.expression(item, node, child_name, child_index, context)
                    elif isinstance(item, ast.keyword):
                        self.expression(item.value, item, "value", None, context, context_node=node)
                    elif isinstance(item, ast.comprehension):
                        self.expression(item.iter, item, "iter", None, context, context_node=node)
                        for if_index, test in enumerate(item.ifs):
                            self.expression(test, item, "ifs", if_index, context, context_node=node)

    def compare(self, node: ast.Compare, here: _Where, context: _Context, around: ast.AST) -> bool:
        for position, op in enumerate(node.ops):
            for replacement in _COMPARE.get(type(op), ()):
                ops = [*node.ops]
                ops[position] = replacement()
                self.add(*here, node, ast.Compare(node.left, ops, node.comparators), "compare", context)
        return False

    def binary(self, node: ast.BinOp, here: _Where, context: _Context, around: ast.AST) -> bool:
        if _is_type_expression(node) or _is_text(node):
            return True
        replacement = _ARITH.get(type(node.op))
        if replacement is not None:
            self.add(*here, node, ast.BinOp(node.left, replacement(), node.right), "arith", context)
        return False

    def unary(self, node: ast.UnaryOp, here: _Where, context: _Context, around: ast.AST) -> bool:
        if isinstance(node.op, ast.Not):
            self.add(*here, node, node.operand, "not", context)
        elif isinstance(node.op, ast.USub) and (operand := _integer_value(node.operand)) is not None:
            value = -operand  # -1 is one constant
            for step in (1, -1):
                self.add(*here, node, _integer(value + step), "constant", context, shown=_shown(around, node))
            self.add(*here, node, node.operand, "unary", context, shown=_shown(around, node))
            return True
        elif isinstance(node.op, (ast.USub, ast.Invert)):
            self.add(*here, node, node.operand, "unary", context)
        return False

    def boolean_operation(self, node: ast.BoolOp, here: _Where, context: _Context, around: ast.AST) -> bool:
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self.add(*here, node, ast.BoolOp(other, node.values), "boolop", context)
        return False

    def constant(self, node: ast.Constant, here: _Where, context: _Context, around: ast.AST) -> bool:
        if isinstance(node.value, bool):
            self.add(*here, node, ast.Constant(not node.value), "boolean", context, shown=_shown(around, node))
        elif (value := _integer_value(node)) is not None:
            for step in (1, -1):
                self.add(*here, node, _integer(value + step), "constant", context, shown=_shown(around, node))
        return True

    def conditional(self, node: ast.IfExp, here: _Where, context: _Context, around: ast.AST) -> bool:
        self.condition(node, context)
        self.expression(node.body, node, "body", None, context)
        self.expression(node.orelse, node, "orelse", None, context)
        return True

    def call(self, node: ast.Call, here: _Where, context: _Context, around: ast.AST) -> bool:
        name = _call_name(node)
        positional = node.args
        plain = not any(isinstance(a, ast.Starred) for a in positional)
        single = plain and len(positional) == 1 and not node.keywords
        if name == "randbelow" and single:
            for step in (1, -1):
                self.add(*here, node, ast.Call(node.func, [_plus(positional[0], step)], []), "randbelow", context)
        if name == "bernoulli" and plain and len(positional) == 2 and not node.keywords:
            for position in (0, 1):
                for step in (1, -1):
                    args = [*positional]
                    args[position] = _plus(args[position], step)
                    self.add(*here, node, ast.Call(node.func, args, []), "bernoulli", context)
        if isinstance(node.func, ast.Name):
            if name == "abs" and single:
                self.add(*here, node, positional[0], "builtin", context)
            if name in ("min", "max"):
                other = ast.Name("max" if name == "min" else "min", ast.Load())
                self.add(*here, node, ast.Call(other, positional, node.keywords), "builtin", context)
            if name == "range" and single:
                for step in (1, -1):
                    self.add(*here, node, ast.Call(node.func, [_plus(positional[0], step)], []), "range", context)
        if plain and len(positional) >= 2 and name not in _NO_SWAP:
            for position in range(len(positional) - 1):
                first, second = positional[position], positional[position + 1]
                if ast.unparse(first) == ast.unparse(second):
                    continue
                args = [*positional]
                args[position], args[position + 1] = second, first
                self.add(*here, node, ast.Call(node.func, args, node.keywords), "args", context)
        return False

    EXPRESSIONS: dict[type[ast.expr], Callable[[Any, Any, _Where, _Context, ast.AST], bool]] = {
        ast.Compare: compare,
        ast.BinOp: binary,
        ast.UnaryOp: unary,
        ast.BoolOp: boolean_operation,
        ast.Constant: constant,
        ast.IfExp: conditional,
        ast.Call: call,
        ast.JoinedStr: lambda *_: True,
    }

    def add(
        self,
        parent: ast.AST,
        name: str,
        index: int | None,
        old: ast.expr | ast.stmt,
        new: ast.AST,
        operator: str,
        context: _Context,
        *,
        shown: ast.AST | None = None,
    ) -> None:
        """A site: ``parent.name[index]`` (``old``) becomes ``new``; ``shown`` is ``old`` or an ancestor."""
        self.sites.append(
            _Site(
                parent,
                name,
                index,
                old,
                new,
                operator,
                context.function,
                context.input_check,
                context.at_import,
                old if shown is None else shown,
                context.in_default,
            )
        )


def _integer_value(node: ast.AST) -> int | None:
    """The value of an integer literal (not a bool); None for any other node."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def _is_text(node: ast.BinOp) -> bool:
    """``"a" + b`` or ``"%d" % n``: string building, not arithmetic."""
    return any(
        isinstance(side, ast.JoinedStr) or (isinstance(side, ast.Constant) and isinstance(side.value, (str, bytes)))
        for side in (node.left, node.right)
    )


def _shown(around: ast.AST, node: ast.AST) -> ast.AST:
    """What a small change (a constant) is shown within: the enclosing expression or simple statement."""
    return around if isinstance(around, (ast.expr, *_SIMPLE_STATEMENTS)) else node


class _Text:
    """The module's text as UTF-8 bytes with line offsets: ``ast`` columns count bytes."""

    def __init__(self, source: str) -> None:
        self.data = source.encode()
        self.offsets = [0]
        for line in self.data.splitlines(keepends=True):
            self.offsets.append(self.offsets[-1] + len(line))

    def splice(self, old: ast.expr | ast.stmt, text: str) -> str:
        """The module with the text of ``old`` replaced by ``text``, parenthesised for an
        expression; the line count is kept, so every other line keeps its number."""
        assert old.end_lineno is not None and old.end_col_offset is not None  # ast.parse sets them
        start = self.offsets[old.lineno - 1] + old.col_offset
        end = self.offsets[old.end_lineno - 1] + old.end_col_offset
        spanned = "\n" * (old.end_lineno - old.lineno)
        replacement = f"({text}{spanned})" if isinstance(old, ast.expr) else text + spanned
        return (self.data[:start] + replacement.encode() + self.data[end:]).decode()


def _hash(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:10]


def _sites(tree: ast.Module) -> list[_Site]:
    """Every site of ``tree``, in the order mutants are numbered: line, column, then discovery."""
    finder = _Finder()
    finder.module(tree)
    return sorted(finder.sites, key=lambda s: (s.old.lineno, s.old.col_offset))


@lru_cache(maxsize=64)
def mutants_of(module: str, source: str) -> tuple[Mutant, ...]:
    """Every single-site mutant of ``source`` (the text of the module named ``module``), in a
    stable order.  Raises SyntaxError when ``source`` does not parse."""
    tree = ast.parse(source)
    text = _Text(source)
    seen: dict[tuple[str, str, str, str], int] = {}
    found: list[Mutant] = []
    for index, site in enumerate(_sites(tree)):
        before = ast.unparse(site.shown)
        site.swap(site.new)
        try:
            after = ast.unparse(site.shown if site.shown is not site.old else site.new)
        finally:
            site.swap(site.old)
        key = (site.function, site.operator, before, after)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        digest = _hash(module, site.function, site.operator, before, after, str(occurrence))
        found.append(
            Mutant(
                f"{module}:{site.function}:{digest}",
                module,
                site.function,
                site.operator,
                site.old.lineno,
                before,
                after,
                site.input_check,
                text.splice(site.old, ast.unparse(site.new)),
                index,
                site.at_import,
                site.in_default,
            )
        )
    return tuple(found)


def verified_source(mutant: Mutant, original: str) -> str:
    """The mutant's text, checked: it must parse to the original syntax tree with exactly the
    one change.  Where the splice into the original text does not (it never has), the whole
    module is written by :func:`ast.unparse` instead (comments lost, lines renumbered)."""
    # `dpverify mutate` copies mutants from several threads at once, and CPython 3.11 keeps the
    # AST converter's recursion counter per interpreter, not per thread, so two parses at once
    # can fail with "AST constructor recursion depth mismatch" (python/cpython#106905).
    with _AST_LOCK:
        return _verified_source(mutant, original)


_AST_LOCK = threading.Lock()


def _verified_source(mutant: Mutant, original: str) -> str:
    tree = ast.parse(original)
    sites = _sites(tree)
    if not 0 <= mutant.index < len(sites):
        raise ValueError(f"mutant {mutant.id} is not a mutant of this text")
    site = sites[mutant.index]
    site.swap(site.new)
    expected = ast.dump(tree)
    try:
        if ast.dump(ast.parse(mutant.source)) == expected:
            return mutant.source
    except SyntaxError:
        pass
    return ast.unparse(tree)
