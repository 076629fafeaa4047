"""Argument checks at the engine's public entry points.

Every public function of :mod:`dpverify.verify` checks its arguments here before any work, so
a wrong type or a value outside its domain is refused with one
:class:`~dpverify.samplers.InvalidArgument` line (``name=value``, the constraint, the fix)
instead of surfacing later as an AttributeError or a TypeError from deep inside the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction
from typing import Any, TypeVar

from dpverify.samplers import InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import shown

T = TypeVar("T")

#: The default bound, in seconds, on one gate case's running time (``dpverify check --time-limit``).
DEFAULT_TIME_LIMIT = 120

__all__ = [
    "need_callable",
    "need_count",
    "need_instance",
    "need_neighbours",
    "need_table",
    "shown",
]


def _kind(value: object) -> str:
    return type(value).__name__


def need_instance(name: str, value: object, kind: type[T] | tuple[type, ...], what: str) -> T:
    """``value`` if it is a ``kind``; else InvalidArgument ``name must be WHAT; got name=... (TYPE)``."""
    if not isinstance(value, kind):
        raise InvalidArgument(f"{name} must be {what}; got {name}={shown(value)} ({_kind(value)}).")
    return value  # type: ignore[return-value]


def need_callable(name: str, value: object, what: str = "a callable") -> Callable[..., Any]:
    if not callable(value):
        raise InvalidArgument(f"{name} must be {what}; got {name}={shown(value)} ({_kind(value)}).")
    return value  # type: ignore[return-value]


def need_count(name: str, value: object, *, low: int = 0, high: int | None = None) -> int:
    """An int in ``[low, high]`` (bools, floats and strings that are not integers refused)."""
    if isinstance(value, bool):
        raise InvalidArgument(f"{name} must be an integer >= {low}; got {name}={shown(value)} (bool).")
    return as_int(name, value, low=low, high=high)


def need_table(name: str, table: object) -> Mapping[Hashable, Any]:
    """A mapping from inputs to :class:`~dpverify.specs.ExactPmf` rows."""
    from dpverify.specs import ExactPmf

    if not isinstance(table, Mapping):
        raise InvalidArgument(f"{name} must be a mapping from inputs to ExactPmf rows; got {name}={shown(table)} "
                              f"({_kind(table)}).")
    for q, row in table.items():
        if not isinstance(row, ExactPmf):
            raise InvalidArgument(f"{name}[{shown(q)}] must be an ExactPmf; got {shown(row)} ({_kind(row)}). "
                                  "Build rows with ExactPmf or spec.pmf(q).")
    return table


def need_neighbours(name: str, neighbours: object, table: Mapping[Hashable, Any] | None = None) -> tuple[tuple[Hashable, Hashable], ...]:
    """A finite iterable of pairs ``(q, q')``, each an input of ``table`` when one is given."""
    if isinstance(neighbours, (str, bytes)) or not isinstance(neighbours, Iterable):
        raise InvalidArgument(f"{name} must be an iterable of pairs (q, q'); got {name}={shown(neighbours)} "
                              f"({_kind(neighbours)}).")
    pairs = []
    for pair in neighbours:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise InvalidArgument(f"each of {name} must be a pair (q, q'); got {shown(pair)} ({_kind(pair)}).")
        if table is not None:
            for q in pair:
                try:
                    known = q in table
                except TypeError:
                    known = False
                if not known:
                    raise InvalidArgument(f"{name} names an input with no row in the table: q={shown(q)}; "
                                          "every neighbour must be a key of the table.")
        pairs.append(pair)
    return tuple(pairs)


def need_rational(name: str, value: object) -> Fraction:
    return as_fraction(name, value)


def need_dps(dps: object) -> int:
    """Working digits: an int in ``[1, MAX_DPS]``."""
    from dpverify.specs._enclosure import MAX_DPS

    return need_count("dps", dps, low=1, high=MAX_DPS)


def need_outputs(name: str, outputs: object, *, allow_none: bool = False, nonempty: bool = False) -> Any:
    """A finite sequence of outputs (a list or tuple; a string is not one), or None if allowed."""
    if outputs is None and allow_none:
        return None
    if not isinstance(outputs, (list, tuple, range)):
        allowed = "None or " if allow_none else ""
        raise InvalidArgument(f"{name} must be {allowed}a list or tuple of outputs; got {name}={shown(outputs)} "
                              f"({type(outputs).__name__}).")
    if nonempty and not outputs:
        raise InvalidArgument(f"{name} must name at least one output to check; got an empty sequence.")
    return outputs


def elided(text: str, limit: int = 120) -> str:
    """``text`` itself, or its first characters and its length when longer than ``limit``."""
    return text if len(text) <= limit else f"{text[: limit - 25]}... ({len(text)} characters)"
