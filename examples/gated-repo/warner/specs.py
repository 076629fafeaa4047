"""What ``dpverify check`` verifies about :mod:`warner.sampler`: the exact distribution, written
from the definition of the mechanism (never by calling the sampler), and the privacy claim.
``SPECS`` is what the ``dpverify.specs`` entry point in ``pyproject.toml`` points at."""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

from dpverify.specs import Bisection, Case, Input, Params, PureDp, Rational, Spec
from warner.sampler import respond

__all__ = ["SPECS", "WARNER", "warner_pmf"]


def warner_pmf(p: Params, q: Hashable) -> dict[int, Fraction]:
    """The truth ``1/alpha`` times as likely as the lie: ``P(q | q) = 1/(1 + alpha)``."""
    truth = 1 / (1 + p["alpha"])
    return {q: truth, 1 - q: 1 - truth}  # type: ignore[operator]


WARNER = Spec(
    name="warner",
    sampler=respond,
    parameters={"alpha": Rational(0, 1, low_open=True, search=(Fraction(1, 100), 1), max_denominator=1000)},
    input=Input("bit", values=lambda p: (0, 1), neighbours="all"),
    claim=lambda p: PureDp(alpha=p["alpha"]),
    pmf=warner_pmf,
    enumeration=Bisection(),
    description="Warner's randomized response on one bit (warner.sampler.respond)",
    cases=(
        Case({"alpha": "1/3"}, "proved", "epsilon = ln 3: the truth with probability 3/4"),
        Case(
            {"alpha": "999999/1000000"},
            "proved",
            "a large denominator, where one draw of 1,999,999 is invisible to sampling",
        ),
    ),
)

SPECS = [WARNER]
