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

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["Domain", "Integer", "Rational"]


def _bound_text(low: Fraction | None, high: Fraction | None, low_open: bool, high_open: bool) -> str:
    left = "(" if low is None or low_open else "["
    right = ")" if high is None or high_open else "]"
    return f"{left}{'-inf' if low is None else low}, {'inf' if high is None else high}{right}"


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
        if self.low is not None and self.high is not None and self.low > self.high:  # type: ignore[operator]
            raise InvalidArgument(f"Rational domain is empty: low={self.low} > high={self.high}.")
        if self.search is not None:
            object.__setattr__(self, "search", tuple(as_fraction("Rational search", v) for v in self.search))
        as_int("max_denominator", self.max_denominator, low=1)

    def describe(self) -> str:
        return f"a rational in {_bound_text(self.low, self.high, self.low_open, self.high_open)}"  # type: ignore[arg-type]

    def contains(self, value: Fraction) -> bool:
        low, high = self.low, self.high
        if low is not None and (value < low or (self.low_open and value == low)):  # type: ignore[operator]
            return False
        return not (high is not None and (value > high or (self.high_open and value == high)))  # type: ignore[operator]

    def validate(self, name: str, value: object) -> Fraction:
        """``value`` as a Fraction in the domain, or InvalidArgument naming ``name``."""
        number = as_fraction(name, value)
        if not self.contains(number):
            raise InvalidArgument(f"{name} must be {self.describe()}; got {name}={number}.")
        return number

    def strategy(self) -> SearchStrategy[Fraction]:
        from hypothesis import strategies as st

        low, high = self.search or (
            Fraction(-10) if self.low is None else max(self.low, Fraction(-10)),  # type: ignore[type-var]
            Fraction(10) if self.high is None else min(self.high, Fraction(10)),  # type: ignore[type-var]
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
        as_int("Integer low", self.low, low=-(10**100))
        if self.high is not None:
            as_int("Integer high", self.high, low=self.low)

    def describe(self) -> str:
        return f"an integer in [{self.low}, {'inf)' if self.high is None else f'{self.high}]'}"

    def contains(self, value: int) -> bool:
        return value >= self.low and (self.high is None or value <= self.high)

    def validate(self, name: str, value: object) -> int:
        """``value`` as an int in the domain, or InvalidArgument naming ``name``."""
        return as_int(name, value, low=self.low, high=self.high)

    def strategy(self) -> SearchStrategy[int]:
        from hypothesis import strategies as st

        low, high = self.search or (self.low, self.low + 10 if self.high is None else min(self.high, self.low + 10))
        return st.integers(max(low, self.low), high if self.high is None else min(high, self.high))


Domain = Rational | Integer


def is_domain(value: Any) -> bool:
    return isinstance(value, (Rational, Integer))
