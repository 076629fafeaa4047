"""Certified enclosures of a ``delta`` or an ``epsilon`` (:class:`Enclosure`), and ``epsilon`` as a
query (:class:`_Eps`) with the floors of irrational losses decided at rising precision.

Its own module because every other part of the PLD engine (the common base, both paths, the
queries of :mod:`dpverify.verify.privacy._pld`) builds on these interval primitives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mpmath import iv, libmp

from dpverify.samplers import DpverifyError, InvalidArgument, as_fraction
from dpverify.samplers._rational import shown
from dpverify.specs._enclosure import enclose, interval_precision, iv_rational
from dpverify.verify.engine._intervals import decimal_text
from dpverify.verify.engine._results import fraction_text
from dpverify.verify.engine._text import short_rational
from dpverify.verify.privacy._claim_checks import _decide

__all__ = ["Enclosure"]

#: Precision cap when deciding on which side of a grid point an irrational loss falls.
_MAX_DECIDE_BITS = 1 << 14


# --- enclosures ---------------------------------------------------------------------------------


def _fraction_of(raw: tuple[Any, ...]) -> Fraction:
    numerator, denominator = libmp.to_rational(raw)
    return Fraction(int(numerator), int(denominator))


def _lower(value: iv.mpf) -> Fraction:
    return _fraction_of(value._mpi_[0])


def _upper(value: iv.mpf) -> Fraction:
    return _fraction_of(value._mpi_[1])


def _optional_fraction(name: str, value: object) -> Fraction | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise InvalidArgument(f"{name} must be a Fraction or None; got {name}={shown(value)} ({type(value).__name__}).")
    return Fraction(value)


@dataclass(frozen=True, slots=True)
class Enclosure:
    """A certified enclosure ``low <= v <= high`` of a real ``v`` (a ``delta`` or an ``epsilon``).

    ``low``/``high`` are exact rationals; ``None`` stands for ``+inf`` (``high=None``: no finite
    upper bound is certified; ``low=None`` too: ``v = +inf`` surely).  When ``v`` is known exactly:
    ``value`` (``v`` is this rational), ``log_argument`` (``v = ln(log_argument)``, an exact
    epsilon) or ``affine`` (``(A, B)`` with ``v = A - e^epsilon * B``, an exact delta at an
    irrational ``e^epsilon``).

    >>> Enclosure(Fraction(1, 4), Fraction(1, 4), value=Fraction(1, 4)).gap
    Fraction(0, 1)
    """

    low: Fraction | None
    high: Fraction | None
    value: Fraction | None = None
    log_argument: Fraction | None = None
    affine: tuple[Fraction, Fraction] | None = None

    def __post_init__(self) -> None:
        low = _optional_fraction("low", self.low)
        high = _optional_fraction("high", self.high)
        if low is not None and high is not None and low > high:
            raise InvalidArgument(f"low must be <= high; got low={shown(low)}, high={shown(high)}.")
        if low is None and high is not None:
            raise InvalidArgument(f"low=None means +infinity, so high must be None too; got high={shown(high)}.")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "value", _optional_fraction("value", self.value))
        argument = _optional_fraction("log_argument", self.log_argument)
        if argument is not None and argument <= 0:
            raise InvalidArgument(f"log_argument must be a rational > 0; got log_argument={shown(argument)}.")
        object.__setattr__(self, "log_argument", argument)
        if self.affine is not None:
            if not isinstance(self.affine, tuple) or len(self.affine) != 2:
                raise InvalidArgument(f"affine must be None or a pair (A, B); got affine={shown(self.affine)}.")
            pair = tuple(_optional_fraction(f"affine[{i}]", x) for i, x in enumerate(self.affine))
            if None in pair:
                raise InvalidArgument(f"affine must be a pair of Fractions (A, B); got affine={shown(self.affine)}.")
            object.__setattr__(self, "affine", pair)

    @property
    def infinite(self) -> bool:
        """True when the value is ``+inf`` for certain."""
        return self.low is None

    @property
    def exact(self) -> bool:
        """True when the value is known exactly (rational, ``ln`` of a rational, or ``A - e^eps B``)."""
        return self.value is not None or self.log_argument is not None or self.affine is not None or self.infinite

    @property
    def gap(self) -> Fraction | None:
        """``high - low``; ``None`` when an end is infinite (0 for a surely infinite value)."""
        if self.low is None:
            return Fraction(0)
        return None if self.high is None else self.high - self.low

    def contains(self, x: Fraction | int) -> bool:
        """``low <= x <= high`` for a finite rational ``x``."""
        x = as_fraction("x", x)
        return self.low is not None and self.low <= x and (self.high is None or x <= self.high)

    def __str__(self) -> str:
        if self.low is None:
            return "+inf"
        if self.value is not None:
            return short_rational(self.value)
        high = "+inf" if self.high is None else decimal_text(self.high, 12)
        return f"[{decimal_text(self.low, 12)}, {high}]"

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: exact ends as ``"num/den"`` (``"Infinity"`` for ``+inf``), decimals for eyes."""

        def text(x: Fraction | None) -> str:
            return "Infinity" if x is None else fraction_text(x)

        def decimal(x: Fraction | None) -> str:
            return "Infinity" if x is None else decimal_text(x, 20)

        return {
            "low": text(self.low),
            "high": text(self.high),
            "low_decimal": decimal(self.low),
            "high_decimal": decimal(self.high),
            "value": None if self.value is None else fraction_text(self.value),
            "log_argument": None if self.log_argument is None else fraction_text(self.log_argument),
            "affine": None if self.affine is None else [fraction_text(x) for x in self.affine],
        }


_INFINITE = Enclosure(None, None)


def _exact_value(x: Fraction) -> Enclosure:
    return Enclosure(x, x, value=x)


def _enclosure_of(compute: Callable[[], iv.mpf], dps: int, **exact: Any) -> Enclosure:
    low, high = enclose(compute, dps)
    return Enclosure(max(Fraction(0), _fraction_of(low._mpf_)), _fraction_of(high._mpf_), **exact)


def _log_enclosure(argument: Fraction, dps: int) -> Enclosure:
    """``ln(argument)`` for a rational ``argument >= 1``, exactly when it is 1."""
    if argument <= 1:
        return Enclosure(Fraction(0), Fraction(0), value=Fraction(0), log_argument=Fraction(1))
    return _enclosure_of(lambda: iv.log(iv_rational(argument)), dps, log_argument=argument)


# --- epsilon as a query -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Eps:
    """An ``epsilon >= 0`` given as a rational, or as ``ln(log_of)`` for a rational ``log_of >= 1``."""

    rational: Fraction | None = None
    log_of: Fraction | None = None

    def exact(self) -> Fraction:
        """``rational``: read only when ``log_of`` is None, and then it is set (one of the two is)."""
        if self.rational is None:
            raise AssertionError("an epsilon is given as a rational or as ln(log_of)")
        return self.rational

    def interval(self) -> iv.mpf:
        return iv_rational(self.exact()) if self.log_of is None else iv.log(iv_rational(self.log_of))

    def exp_exact(self) -> Fraction | None:
        if self.log_of is not None:
            return self.log_of
        return Fraction(1) if self.rational == 0 else None

    def exp_interval(self) -> iv.mpf:
        exact = self.exp_exact()
        return iv_rational(exact) if exact is not None else iv.exp(iv_rational(self.exact()))

    def bits(self) -> int:
        value = self.exact() if self.log_of is None else self.log_of
        return value.numerator.bit_length() + value.denominator.bit_length()

    def describe(self) -> str:
        return (
            f"epsilon={short_rational(self.exact())}"
            if self.log_of is None
            else f"epsilon=ln({short_rational(self.log_of)})"
        )

    def to_json(self) -> dict[str, str]:
        if self.log_of is None:
            return {"epsilon": fraction_text(self.exact())}
        return {"epsilon_ln_of": fraction_text(self.log_of)}


def _at_least(eps: _Eps, value: Fraction) -> bool:
    """``eps >= value`` for a rational ``value`` (False when undecided, the safe answer here)."""
    if eps.log_of is None:
        return eps.exact() >= value
    if value <= 0:
        return True
    return _decide(lambda: iv_rational(value), eps.interval) is True


def _floors(y: iv.mpf) -> tuple[int | None, int | None]:
    """The floors of an interval's ends; None for an infinite end (an interval divided by one
    that still holds 0)."""
    ends = []
    for raw in y._mpi_:
        ends.append(None if raw in (libmp.finf, libmp.fninf, libmp.fnan) else int(libmp.to_int(raw, "f")))
    return ends[0], ends[1]


def _floor_of(compute: Callable[[], iv.mpf], bits: int) -> int:
    """``floor(y)`` for an irrational ``y`` enclosed by ``compute()`` (never an integer, so a
    precise enough enclosure decides it); ``bits``: the starting precision."""
    bits = max(bits, 96)
    most = _MAX_DECIDE_BITS + 4 * bits
    while bits <= most:
        with interval_precision(bits):
            y = compute()
        low, high = _floors(y)
        if low is not None and low == high:
            return low
        bits *= 2
    raise DpverifyError(
        f"could not place a privacy loss between two grid points within {most} bits; "
        "report this as a bug with the PMFs that caused it."
    )


def _floor_ceil(compute: Callable[[], iv.mpf], bits: int) -> tuple[int, int]:
    """``(floor(y), ceil(y))`` for an irrational ``y``; at the precision cap, the floor of the lower
    end and the ceiling of the upper end (further out, so still sound for both sides)."""
    bits = max(bits, 96)
    most = _MAX_DECIDE_BITS + 4 * bits
    while True:
        with interval_precision(bits):
            y = compute()
        low, high = _floors(y)
        if low is not None and low == high:
            return low, low + 1
        if bits >= most and low is not None and high is not None:
            return low, high + 1
        if bits >= 4 * most:
            raise DpverifyError("could not bound a privacy loss within the working precision; report this as a bug.")
        bits *= 2
