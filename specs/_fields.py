"""Field checks for the public record dataclasses, read from their own annotations.

A record (a check's result, an account, a bound) is built by the engine with the right types,
but it is also a public constructor: built by hand with a wrong type, it would fail later, in
its ``to_json`` or ``summary``, as a TypeError from deep inside.  :func:`check_fields` refuses
such a record where it is built, with one line naming the field, its value and the type it
needs, so a record built directly is as checked as one the engine returns.

Only the shape is checked (an ``int`` where ``int`` is declared, a tuple of ``str`` where
``tuple[str, ...]`` is), not the values' ranges, which the engine's own arithmetic sets; an
``int`` is accepted where a ``Fraction`` is declared (every exact operation takes both).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Pair:
...     name: str
...     sides: tuple[int, int]
...     def __post_init__(self) -> None:
...         check_fields(self)
>>> Pair("a", (1, 2)).sides
(1, 2)
>>> Pair("a", (1, "2"))
Traceback (most recent call last):
...
dpverify.samplers._errors.InvalidArgument: sides must be tuple[int, int]; got sides=(1, '2') (tuple).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import sys
import types
import typing
from fractions import Fraction
from functools import cache
from typing import Any

from dpverify.samplers import InvalidArgument
from dpverify.samplers._rational import shown

__all__ = ["check_fields"]

#: How many items of a container are checked: enough for a record built by hand, and a record
#: the engine built (thousands of evidence entries) costs no more than this to build.
MAX_CHECKED_ITEMS = 64


def check_fields(record: object) -> None:
    """Raise InvalidArgument naming the first init field of the dataclass ``record`` whose value
    does not have its annotated type."""
    # typed as plain ``type``: mypy checks ``type[object]`` against Hashable through object's
    # unbound ``__hash__`` and rejects it
    cls: type = type(record)
    for name, hint in _hints(cls):
        value = getattr(record, name)
        if not _matches(value, hint):
            raise InvalidArgument(
                f"{name} must be {_describe(hint)}; got {name}={shown(value)} ({type(value).__name__})."
            )


@cache
def _hints(cls: type) -> tuple[tuple[str, Any], ...]:
    """The init fields of ``cls`` and their resolved annotations (Any where one cannot be
    resolved, such as a name imported only for type checkers)."""
    namespace = vars(sys.modules[cls.__module__])
    found = []
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        hint = field.type
        if isinstance(hint, str):
            try:
                hint = eval(hint, dict(namespace), {})  # noqa: S307 - the class's own annotation text
            except Exception:  # noqa: BLE001 - an unresolvable annotation checks nothing
                hint = Any
        found.append((field.name, hint))
    return tuple(found)


def _matches(value: object, hint: Any) -> bool:  # noqa: C901 - one case per kind of annotation
    if hint is Any or isinstance(hint, (typing.TypeVar, typing.ForwardRef, str)):
        return True
    if hint is None or hint is type(None):
        return value is None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or isinstance(hint, types.UnionType):
        return any(_matches(value, arg) for arg in args)
    if origin is typing.Literal:
        return any(value == arg and type(value) is type(arg) for arg in args)
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(item, args[0]) for item in value[:MAX_CHECKED_ITEMS])
        return not args or (len(value) == len(args) and all(_matches(v, a) for v, a in zip(value, args, strict=True)))
    if origin in (dict, collections.abc.Mapping):
        if not isinstance(value, dict if origin is dict else collections.abc.Mapping):
            return False
        key, item = args or (Any, Any)
        return all(_matches(k, key) and _matches(v, item) for k, v in list(value.items())[:MAX_CHECKED_ITEMS])
    if origin in (list, collections.abc.Sequence):
        if not isinstance(value, (list, tuple)) or (origin is list and not isinstance(value, list)):
            return False
        return not args or all(_matches(item, args[0]) for item in value[:MAX_CHECKED_ITEMS])
    if origin is collections.abc.Callable or hint is collections.abc.Callable:
        return callable(value)
    if hint is collections.abc.Hashable:
        try:
            hash(value)
        except Exception:  # noqa: BLE001 - an unhashable or hostile value
            return False
        return True
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is Fraction:
        return isinstance(value, (int, Fraction)) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # an annotation of another kind: nothing to check


def _describe(hint: Any) -> str:
    if isinstance(hint, type) and not typing.get_args(hint):
        return {Fraction: "an int or Fraction", type(None): "None"}.get(hint, f"a {hint.__name__}")
    text = str(hint).replace("typing.", "").replace("collections.abc.", "").replace("fractions.", "")
    return text.replace("NoneType", "None")
