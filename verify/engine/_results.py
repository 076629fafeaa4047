"""Verdicts and the evidence they carry.

Every check returns a :class:`CheckResult` whose verdict comes from a closed vocabulary:
``proved``, ``violated`` (with a counterexample) or ``inconclusive`` (with the reason).
``evidence`` holds JSON-ready values only (exact rationals as ``"num/den"`` strings), so a
result serialises without loss.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Hashable
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Any


class Verdict(str, Enum):
    PROVED = "proved"
    VIOLATED = "violated"
    INCONCLUSIVE = "inconclusive"


def fraction_text(value: Fraction | int) -> str:
    """``"num/den"``, or ``"num"`` for an integer: the schema's encoding of exact rationals.
    Every digit is written, past the 4300 CPython's ``str`` stops at too (an exact mass of a
    composed sampler, a product of many summarised loops, can have that many).

    >>> len(fraction_text(Fraction(1, 7**6000)))
    5073
    """
    value = Fraction(value)
    if value.denominator == 1:
        return _digits(value.numerator)
    return f"{_digits(value.numerator)}/{_digits(value.denominator)}"


def _digits(number: int) -> str:
    try:
        return str(number)
    except ValueError:  # CPython's limit on int-to-str conversion; decimal converts exactly
        return format(decimal.Decimal(number), "f")


def epsilon_of(alpha: Fraction) -> float:
    """``-ln(alpha)`` as a float, ``inf`` for ``alpha = 0`` (computed from exact integers,
    so it is accurate even when ``alpha`` has thousands of digits)."""
    if alpha <= 0:
        return math.inf
    return math.log(alpha.denominator) - math.log(alpha.numerator)


def json_number(value: float) -> float | str:
    """A float for JSON, with infinity spelled ``"Infinity"`` (JSON has no infinity)."""
    return "Infinity" if math.isinf(value) else value


def json_value(value: Hashable) -> Any:
    """An output or input as JSON: ints and strings stay, Fractions become ``"num/den"``."""
    if isinstance(value, Fraction):
        return fraction_text(value)
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, float):
        return json_number(value)
    if isinstance(value, tuple):
        return [json_value(v) for v in value]
    return repr(value)


@dataclass(frozen=True, slots=True)
class RatioWitness:
    """Neighbouring inputs ``q, q'``, an output, and its exact probabilities under each."""

    q: Hashable
    q_prime: Hashable
    output: Hashable
    p: Fraction
    p_prime: Fraction

    @property
    def ratio(self) -> Fraction | None:
        """``p / p'``; None when ``p' = 0`` (infinite privacy loss if ``p > 0``)."""
        return None if self.p_prime == 0 else self.p / self.p_prime

    def to_json(self) -> dict[str, Any]:
        ratio = self.ratio
        return {
            "q": json_value(self.q),
            "q_prime": json_value(self.q_prime),
            "output": json_value(self.output),
            "p": fraction_text(self.p),
            "p_prime": fraction_text(self.p_prime),
            "ratio": "Infinity" if ratio is None else fraction_text(ratio),
        }


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's verdict, a one-line summary, and its evidence."""

    check: str
    verdict: Verdict
    summary: str
    reason: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "verdict": self.verdict.value,
            "summary": self.summary,
            "reason": self.reason,
            "evidence": self.evidence,
        }
