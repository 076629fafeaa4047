"""Argument checks at the engine's public entry points.

Every public function of :mod:`dpverify.verify` checks its arguments here before any work, so
a wrong type or a value outside its domain is refused with one
:class:`~dpverify.samplers.InvalidArgument` line (``name=value``, the constraint, the fix)
instead of surfacing later as an AttributeError or a TypeError from deep inside the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from dpverify.samplers import InvalidArgument, as_fraction, as_int, fresh_seed
from dpverify.samplers._rational import shown

T = TypeVar("T")

#: The default bound, in seconds, on one gate case's running time (``dpverify check --time-limit``).
DEFAULT_TIME_LIMIT = 120

#: The largest seed: 64 bits, as :func:`~dpverify.samplers.fresh_seed` draws them and ``--seed``
#: takes them, so that every result's replay line can be printed and run again from the command line.
MAX_SEED = 2**64 - 1

#: The smallest positive mass budget (``min_mass``) of an enumeration: the finest this repository
#: uses (tests/test_procedure_summaries.py proves the published discrete Laplace within 10^-12 with
#: it).  A finer budget cuts a loop only at depth about ``log(1/min_mass)``, each path run again
#: from the start, and under about 10^-308 the float that steers the cut is 0, so nothing is cut
#: before ``max_depth``: at 10^-5000 a fair coin's loop took minutes instead of milliseconds.
MIN_MASS = Fraction(1, 10**14)
_MIN_MASS_TEXT = "1/10^14"

__all__ = [
    "MAX_SEED",
    "MIN_MASS",
    "need_callable",
    "need_count",
    "need_instance",
    "need_member",
    "need_min_mass",
    "need_neighbours",
    "need_seed",
    "need_table",
    "shown",
]


def _kind(value: object) -> str:
    return type(value).__name__


def need_instance(name: str, value: object, kind: type[T] | tuple[type, ...], what: str) -> T:
    """``value`` if it is a ``kind``; else InvalidArgument ``name must be WHAT; got name=... (TYPE)``."""
    if not isinstance(value, kind):
        raise InvalidArgument(f"{name} must be {what}; got {name}={shown(value)} ({_kind(value)}).")
    return value  # type: ignore[return-value]  # a kind (isinstance above); mypy cannot narrow to T


def need_callable(name: str, value: object, what: str = "a callable") -> Callable[..., Any]:
    if not callable(value):
        raise InvalidArgument(f"{name} must be {what}; got {name}={shown(value)} ({_kind(value)}).")
    return value


def need_count(name: str, value: object, *, low: int = 0, high: int | None = None) -> int:
    """An int in ``[low, high]`` (bools, floats and strings that are not integers refused)."""
    if isinstance(value, bool):
        raise InvalidArgument(f"{name} must be an integer >= {low}; got {name}={shown(value)} (bool).")
    return as_int(name, value, low=low, high=high)


def need_seed(seed: object) -> int:
    """``seed``, an int in ``[0, MAX_SEED]``; a fresh seed for None."""
    return fresh_seed() if seed is None else need_count("seed", seed, low=0, high=MAX_SEED)


def need_min_mass(value: object, *, zero: bool) -> Fraction:
    """A mass budget in ``[MIN_MASS, 1)``, or 0 (no mass budget) where ``zero`` allows it."""
    budget = as_fraction("min_mass", value)
    if not ((zero and budget == 0) or MIN_MASS <= budget < 1):
        allowed = f"a rational in [{_MIN_MASS_TEXT}, 1){', or 0 for no mass budget' if zero else ''}"
        why = " A finer budget walks every loop to max_depth, path after path." if 0 <= budget < MIN_MASS else ""
        raise InvalidArgument(f'min_mass must be {allowed}; got min_mass={shown(budget)}.{why} Pass e.g. "1/10^9".')
    return budget


def need_member(name: str, value: object, choices: Sequence[T], what: str) -> T:
    """The element of ``choices`` equal to ``value`` (the caller's own, e.g. 2 for Fraction(2)); else
    InvalidArgument ``name must be WHAT; got name=... (TYPE)``.  A bool is no number here, and a
    comparison that raises (a signalling NaN, a hostile ``__eq__``) is no match."""
    if not isinstance(value, bool):
        for choice in choices:
            try:
                if choice == value:
                    return choice
            except Exception:  # noqa: BLE001, S112 - what cannot be compared is not among the choices
                continue
    raise InvalidArgument(f"{name} must be {what}; got {name}={shown(value)} ({_kind(value)}).")


def need_table(name: str, table: object) -> Mapping[Hashable, Any]:
    """A mapping from inputs to :class:`~dpverify.specs.ExactPmf` rows."""
    from dpverify.specs import ExactPmf

    if not isinstance(table, Mapping):
        raise InvalidArgument(
            f"{name} must be a mapping from inputs to ExactPmf rows; got {name}={shown(table)} ({_kind(table)})."
        )
    for q, row in table.items():
        if not isinstance(row, ExactPmf):
            raise InvalidArgument(
                f"{name}[{shown(q)}] must be an ExactPmf; got {shown(row)} ({_kind(row)}). "
                "Build rows with ExactPmf or spec.pmf(q)."
            )
    return table


def need_neighbours(
    name: str, neighbours: object, table: Mapping[Hashable, Any] | None = None
) -> tuple[tuple[Hashable, Hashable], ...]:
    """A finite iterable of pairs ``(q, q')``, each an input of ``table`` when one is given."""
    if isinstance(neighbours, (str, bytes)) or not isinstance(neighbours, Iterable):
        raise InvalidArgument(
            f"{name} must be an iterable of pairs (q, q'); got {name}={shown(neighbours)} ({_kind(neighbours)})."
        )
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
                    raise InvalidArgument(
                        f"{name} names an input with no row in the table: q={shown(q)}; "
                        "every neighbour must be a key of the table."
                    )
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
        raise InvalidArgument(
            f"{name} must be {allowed}a list or tuple of outputs; got {name}={shown(outputs)} "
            f"({type(outputs).__name__})."
        )
    if nonempty and not outputs:
        raise InvalidArgument(f"{name} must name at least one output to check; got an empty sequence.")
    if not isinstance(outputs, range):  # a range holds ints; a list may hold what no table can look up
        for output in outputs:
            if not _hashable(output):
                raise InvalidArgument(
                    f"each of {name} must be a hashable output; got {shown(output)} ({_kind(output)})."
                )
    return outputs


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except Exception:  # noqa: BLE001 - a list, a signalling NaN, a hostile __hash__
        return False
    return True


def elided(text: str, limit: int = 120) -> str:
    """``text`` itself, or its first characters and its length when longer than ``limit``."""
    return text if len(text) <= limit else f"{text[: limit - 25]}... ({len(text)} characters)"
