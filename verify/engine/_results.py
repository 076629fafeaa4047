"""Verdicts and the evidence they carry.

Every check returns a :class:`CheckResult` whose verdict comes from a closed vocabulary:
``proved``, ``violated`` (with a counterexample) or ``inconclusive`` (with the reason).
``evidence`` holds JSON-ready values only (exact rationals as ``"num/den"`` strings), so a
result serialises without loss.

A proof is either exact (the code's law equals the stated one where the check looks) or, from a
bounded enumeration, a proof *within a tolerance*: ``within = U`` says
``|P_code(o) - P_ideal(o)| <= U`` at every checked output, and the human verdict reads
``proved within U = ...`` (:attr:`CheckResult.verdict_text`).  The verdict itself stays
``proved``, so exit codes do not change; the tolerance is what a reader must not miss.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

from dpverify.samplers import InvalidArgument
from dpverify.samplers._rational import shown
from dpverify.specs._fields import check_fields
from dpverify.specs._interval_tools import decimal_text
from dpverify.specs._pmf import exact_text

#: Significant digits of a tolerance in a verdict's text, rounded up (a tolerance is never understated).
TOLERANCE_DIGITS = 3


class Verdict(StrEnum):
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
    return exact_text(value)


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

    def __post_init__(self) -> None:
        check_fields(self)
        if not (0 <= self.p <= 1 and 0 <= self.p_prime <= 1):
            raise InvalidArgument(
                f"p and p_prime must be probabilities in [0, 1]; got p={shown(self.p)}, p_prime={shown(self.p_prime)}."
            )

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
    """One check's verdict, a one-line summary, and its evidence.

    ``within`` is None for an exact proof (and for every verdict but ``proved``); for a proof
    from a bounded enumeration it is the exact bound ``U`` on ``|P_code(o) - P_ideal(o)|`` at
    every checked output (``dpverify.verify.engine._intervals``), which the verdict's text,
    its JSON and every report state beside the word ``proved``.
    """

    check: str
    verdict: Verdict
    summary: str
    reason: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    within: Fraction | None = None

    def __post_init__(self) -> None:
        check_fields(self)
        within = self.within
        if within is None:
            return
        if not isinstance(within, Fraction) or within < 0 or self.verdict is not Verdict.PROVED:
            raise InvalidArgument(
                f"within must be None, or a Fraction >= 0 on a proved verdict; got within={shown(within)} "
                f"with verdict={shown(self.verdict)}."
            )

    @property
    def verdict_text(self) -> str:
        """The verdict as a reader sees it: ``proved within U = 3.02e-9`` for a proof within a
        tolerance (``U`` rounded up), the verdict's own word otherwise.

        >>> CheckResult("intervals", Verdict.PROVED, "", within=Fraction(13, 1250)).verdict_text
        'proved within U = 0.0104'
        >>> CheckResult("exactness", Verdict.PROVED, "").verdict_text
        'proved'
        """
        if self.within is None:
            return self.verdict.value
        return f"{self.verdict.value} within U = {tolerance_text(self.within)}"

    def to_json(self) -> dict[str, Any]:
        """The result as JSON; ``within`` and ``within_decimal`` (rounded up) appear only on a
        proof within a tolerance, so an exact proof's document is unchanged."""
        document = {
            "check": self.check,
            "verdict": self.verdict.value,
            "summary": self.summary,
            "reason": self.reason,
            "evidence": self.evidence,
        }
        if self.within is not None:
            document["within"] = fraction_text(self.within)
            document["within_decimal"] = tolerance_text(self.within)
        return document


def tolerance_text(value: Fraction) -> str:
    """A tolerance for the eye: :data:`TOLERANCE_DIGITS` significant digits, rounded up.

    >>> tolerance_text(Fraction(1, 3)), tolerance_text(Fraction(0)), tolerance_text(Fraction(23, 10**7))
    ('0.334', '0', '2.3e-6')
    """
    text = decimal_text(Fraction(value), TOLERANCE_DIGITS, up=True)
    if not text.startswith("0.000"):
        return text
    digits = text[2:].lstrip("0")  # below 10^-3: d.dde-X reads better than a run of zeros
    exponent = len(digits) - len(text[2:]) - 1
    return f"{digits[0]}{'.' + digits[1:] if digits[1:] else ''}e{exponent}"


def loosest_tolerance(checks: Iterable[CheckResult]) -> Fraction | None:
    """The largest ``within`` among ``checks`` that are proofs within a tolerance; None when
    every proof among them is exact.

    >>> loosest_tolerance([CheckResult("a", Verdict.PROVED, "", within=Fraction(1, 10)),
    ...                    CheckResult("b", Verdict.PROVED, "")])
    Fraction(1, 10)
    """
    tolerances = [check.within for check in checks if check.within is not None]
    return max(tolerances) if tolerances else None
