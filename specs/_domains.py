"""Parameter domains: the exact set of values a spec's parameter may take.

A domain validates a value the way the samplers do (exact rationals only, floats refused) and
says where a search may look for more parameter sets: Hypothesis draws from
:meth:`Rational.strategy` and :meth:`Integer.strategy`, which stay inside the domain and inside
its ``search`` window (a domain may be unbounded; a search must not be).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dpverify.samplers import InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import shown as _shown

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["Domain", "Integer", "Rational"]


def _bound_text(
    low: Fraction | int | str | None, high: Fraction | int | str | None, low_open: bool, high_open: bool
) -> str:
    left = "(" if low is None or low_open else "["
    right = ")" if high is None or high_open else "]"
    return f"{left}{'-inf' if low is None else _shown(low)}, {'inf' if high is None else _shown(high)}{right}"


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidArgument(f"{name} must be True or False; got {name}={_shown(value)} ({type(value).__name__}).")
    return value


def _name(name: object) -> str:
    if not isinstance(name, str):
        raise InvalidArgument(
            f"name must be a str naming the parameter; got name={_shown(name)} ({type(name).__name__})."
        )
    return _shown(name, 40)[1:-1] if len(name) > 40 else name


def _window(kind: str, search: object) -> tuple[object, object]:
    if not isinstance(search, (tuple, list)) or len(search) != 2:
        raise InvalidArgument(
            f"{kind} search must be a pair (low, high); got search={_shown(search)} ({type(search).__name__})."
        )
    return search[0], search[1]


@dataclass(frozen=True, slots=True)
class Rational:
    """A rational parameter in an interval; each end is closed unless marked open, and absent
    for an unbounded side.  ``search`` bounds the window a search draws from (default: the
    domain clipped to ``[-10, 10]``) and ``max_denominator`` the denominators it draws.

    >>> Rational(0, 1, low_open=True, high_open=True).validate("alpha", "1/3")
    Fraction(1, 3)
    >>> Rational(0, 1, low_open=True, high_open=True).describe()
    'a rational in (0, 1)'
    """

    low: Fraction | int | str | None = None
    high: Fraction | int | str | None = None
    low_open: bool = False
    high_open: bool = False
    search: tuple[Fraction | int | str, Fraction | int | str] | None = None
    max_denominator: int = 12

    def __post_init__(self) -> None:
        for name in ("low", "high"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, as_fraction(f"Rational {name}", value))
        _flag("low_open", self.low_open)
        _flag("high_open", self.high_open)
        # the loop above made low and high Fractions (the fields also take an int or a str, parsed there)
        if self.low is not None and self.high is not None and self.low > self.high:  # type: ignore[operator]  # parsed
            raise InvalidArgument(f"Rational domain is empty: low={_shown(self.low)} > high={_shown(self.high)}.")
        if self.search is not None:
            window = tuple(as_fraction("Rational search", v) for v in _window("Rational", self.search))
            if window[0] > window[1]:
                raise InvalidArgument(f"Rational search window is empty: {_shown(window[0])} > {_shown(window[1])}.")
            object.__setattr__(self, "search", window)
        if isinstance(self.max_denominator, bool):
            raise InvalidArgument(
                f"max_denominator must be an integer >= 1; got max_denominator={self.max_denominator}."
            )
        object.__setattr__(self, "max_denominator", as_int("max_denominator", self.max_denominator, low=1))

    def describe(self) -> str:
        return f"a rational in {_bound_text(self.low, self.high, self.low_open, self.high_open)}"

    def contains(self, value: Fraction) -> bool:
        """Whether the rational ``value`` lies in the domain (a value that is no rational is refused)."""
        value = as_fraction("value", value)
        low, high = self.low, self.high
        # low and high are Fractions: __post_init__ parsed them (the fields also take an int or a str)
        if low is not None and (value < low or (self.low_open and value == low)):  # type: ignore[operator]  # parsed
            return False
        return not (
            high is not None  # and then a Fraction, as low above
            and (value > high or (self.high_open and value == high))  # type: ignore[operator]  # parsed
        )

    def validate(self, name: str, value: object) -> Fraction:
        """``value`` as a Fraction in the domain, or InvalidArgument naming ``name``."""
        name = _name(name)
        number = as_fraction(name, value)
        if not self.contains(number):
            raise InvalidArgument(f"{name} must be {self.describe()}; got {name}={_shown(number)}.")
        return number

    def strategy(self) -> SearchStrategy[Fraction]:
        from hypothesis import strategies as st

        low, high = self.search or (
            Fraction(-10) if self.low is None else max(self.low, Fraction(-10)),
            Fraction(10) if self.high is None else min(self.high, Fraction(10)),
        )
        return st.fractions(low, high, max_denominator=self.max_denominator).filter(self.contains)


@dataclass(frozen=True, slots=True)
class Integer:
    """An integer parameter in ``[low, high]`` (``high=None``: unbounded above).  ``search``
    bounds the window a search draws from (default ``[low, min(high, low + 10)]``).

    >>> Integer(1).validate("n", "10^3")
    1000
    >>> Integer(1, 5).describe()
    'an integer in [1, 5]'
    """

    low: int = 0
    high: int | None = None
    search: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        for name in ("low", "high"):
            if isinstance(getattr(self, name), bool):
                raise InvalidArgument(f"Integer {name} must be an integer; got {name}={getattr(self, name)} (bool).")
        object.__setattr__(self, "low", as_int("Integer low", self.low, low=-(10**100)))
        if self.high is not None:
            object.__setattr__(self, "high", as_int("Integer high", self.high, low=self.low))
        if self.search is not None:
            low, high = _window("Integer", self.search)
            low_ = as_int("Integer search low", low, low=-(10**100))
            object.__setattr__(self, "search", (low_, as_int("Integer search high", high, low=low_)))

    def describe(self) -> str:
        return f"an integer in [{_shown(self.low)}, {'inf)' if self.high is None else f'{_shown(self.high)}]'}"

    def contains(self, value: int) -> bool:
        """Whether the integer ``value`` lies in the domain (a non-integer rational does not;
        a value that is no rational is refused)."""
        number = as_fraction("value", value)
        if number.denominator != 1:
            return False
        value = number.numerator
        return value >= self.low and (self.high is None or value <= self.high)

    def validate(self, name: str, value: object) -> int:
        """``value`` as an int in the domain, or InvalidArgument naming ``name``."""
        return as_int(_name(name), value, low=self.low, high=self.high)

    def strategy(self) -> SearchStrategy[int]:
        from hypothesis import strategies as st

        low, high = self.search or (self.low, self.low + 10 if self.high is None else min(self.high, self.low + 10))
        return st.integers(max(low, self.low), high if self.high is None else min(high, self.high))


Domain = Rational | Integer


def is_domain(value: Any) -> bool:
    return isinstance(value, (Rational, Integer))
