"""What ``dpverify check`` verifies about :mod:`own_sampler.sampler`: copy this file and adapt it.

A spec is a second, independent statement about a sampler.  ``dpverify`` runs the real code on
an enumerating source, derives its exact output distribution, checks that it equals the spec's
closed form, and checks the privacy claim on that closed form; where the code departs from it,
the claim is checked on the code's own exact distribution too, which names two inputs, an
output and both exact probabilities.  The fields used here:

``name``
    how reports and ``dpverify check --spec NAME`` refer to the spec; unique across every
    installed package.
``sampler``
    the production function itself, not a copy.  The engine calls it with keyword arguments:
    each declared parameter its signature names (``k``, ``alpha``), the input (``q``) and the
    randomness (``rng``).
``parameters``
    the domain of each parameter: ``Integer(low, high)``, ``Rational(low, high, ...)``.  A
    case outside its domain is a broken spec (exit code 2), never a verdict.  ``search`` and
    ``max_denominator`` bound where a property-based search draws further parameter sets.
``input``
    the value the privacy claim protects: the sampler's argument ``q``, its values for given
    parameters, and which pairs of values are neighbours.  ``"all"`` makes every two values
    neighbours: local DP, where the input is one person's own answer.
``claim``
    what the sampler guarantees, here ``PureDp(alpha=...)``: ``alpha <= P(x|q)/P(x|q') <=
    1/alpha`` for all neighbours and outputs, i.e. ``epsilon = -ln(alpha)``, checked in exact
    arithmetic and by Z3.  A callable ``claim(p)`` lets the claim depend on the parameters.
``pmf``
    ``pmf(p, q) -> {output: Fraction}``: the distribution the sampler is meant to have, written
    from the math, never by calling the sampler (a PMF computed by the code would agree with any
    bug in it).  ``p`` is the case's validated parameters (``int`` and ``Fraction`` values).
``enumeration``
    how the engine derives the code's exact distribution.  The sampler makes one draw
    ``randbelow(N)``; up to 4096 draws every one is run, above that ``Bisection()`` finds each
    output's range of draws in ``O(k log N)`` runs, so ``N`` in the millions (or ``10^100``)
    stays exact.  Bisection relies on each output's draws forming one interval, as they do here
    (``q`` on ``[0, b)``, then each other value on a block of ``a``); the engine spot-checks it.
``cases``
    the parameter sets the gate checks, each with the verdict it must reach and why.  A case
    that misses its expectation fails the gate (exit code 1).  Include a large denominator:
    that is where sampling is blind and only exact checks see a one-draw error.

``accepts``
    parameter values at the edges of the domain that the code must not refuse (``alpha = 1``, a
    uniform output): the sampler runs up to its first draw on each, so a check that turns valid
    input away is found.
``checks``
    further checks, each ``check(p) -> CheckResult``, that gate like the engine's own.  Here one
    check, ``refusals``, runs the sampler on the invalid arguments of :data:`INVALID_ARGUMENTS`
    (each laid over the case's parameters) and requires a ``ValueError`` naming the argument
    before any draw, so a check that lets bad input through is found.  (dpverify's own
    ``refuses`` field counts only its own ``DpverifyError`` as a refusal; this sampler raises
    ``ValueError`` and imports nothing from dpverify, so its refusals are a check of its own.)

``SPECS`` is what the ``dpverify.specs`` entry point in ``pyproject.toml`` points at, and what
``dpverify check --spec-module own_sampler.specs`` reads.

The second spec, ``randomized-response-off-by-one``, declares the same distribution and claim
for :func:`~own_sampler.sampler.randomized_response_off_by_one`, which has a one-character bug.
Its cases expect ``proved``, as the maintainer who wrote the bug would; the gate fails on them,
which is the point of the walkthrough.  In your own package, declare only the correct one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction

from dpverify.specs import Bisection, Case, Input, Integer, Params, PureDp, Rational, Spec
from dpverify.verify import CheckResult, Verdict
from own_sampler.sampler import randomized_response, randomized_response_off_by_one

__all__ = [
    "BROKEN_RANDOMIZED_RESPONSE",
    "INVALID_ARGUMENTS",
    "RANDOMIZED_RESPONSE",
    "SPECS",
    "randomized_response_pmf",
    "refusals",
]


def randomized_response_pmf(p: Params, q: Hashable) -> dict[int, Fraction]:
    """``P(x | q)`` from the definition of k-ary randomized response with ratio ``alpha``:
    the true value is ``1/alpha`` times as likely as each of the ``k-1`` others, so
    ``P(q | q) = 1 / (1 + (k-1) alpha)`` and ``P(x | q) = alpha / (1 + (k-1) alpha)``."""
    k, alpha = p["k"], p["alpha"]
    keep = 1 / (1 + (k - 1) * alpha)
    return {x: keep if x == q else alpha * keep for x in range(k)}


PARAMETERS = {
    "k": Integer(2, 100, search=(2, 6)),
    # alpha = 0 would be no privacy claim at all; alpha = 1 is a uniform output (allowed).
    "alpha": Rational(0, 1, low_open=True, search=(Fraction(1, 100), 1), max_denominator=1000),
}
INPUT = Input("q", values=lambda p: range(p["k"]), neighbours="all")


def _claim(p: Params) -> PureDp:
    return PureDp(alpha=p["alpha"])


#: Valid edges of the domain, each laid over a case's parameters.  (Not ``k``: in ``accepts``
#: and ``refuses`` that name is a batch form's number of draws.)
EDGES = ({"alpha": 1},)

#: Arguments the samplers must refuse, each laid over a case's parameters and the input 0: the
#: edges just outside the domain, and values of the wrong type that Python would compute with.
INVALID_ARGUMENTS = (
    {"k": 1},
    {"q": -1},
    {"k": 3, "q": 3},
    {"q": False},
    {"alpha": 0},
    {"alpha": 2},
    {"alpha": "1/2"},
)


class _FirstDraw:
    """A source that stops the sampler at its first draw: it got that far, so it accepted its arguments."""

    class Reached(Exception):
        pass

    def randbelow(self, n: int) -> int:
        raise _FirstDraw.Reached


def refusals(sampler: Callable[..., Hashable]) -> Callable[[Params], CheckResult]:
    """The check that ``sampler`` refuses each of :data:`INVALID_ARGUMENTS` with a ValueError
    whose message names the argument (``k=1``), before it draws."""

    def check(p: Params) -> CheckResult:
        problems = []
        for invalid in INVALID_ARGUMENTS:
            shown = ", ".join(f"{name}={value!r}" for name, value in invalid.items())
            try:
                output = sampler(**{"q": 0, "k": p["k"], "alpha": p["alpha"], **invalid}, rng=_FirstDraw())
            except _FirstDraw.Reached:
                problems.append(f"{shown} was accepted (the sampler drew)")
            except ValueError as error:
                if not any(f"{name}=" in str(error) for name in invalid):
                    problems.append(f"{shown} was refused, but the message does not name it: {error}")
            except Exception as error:  # noqa: BLE001 - the code under test
                problems.append(f"{shown} raised {type(error).__name__}, not ValueError: {error}")
            else:
                problems.append(f"{shown} was accepted (returned {output!r})")
        if problems:
            return CheckResult("refusals", Verdict.VIOLATED, "; ".join(problems))
        return CheckResult(
            "refusals",
            Verdict.PROVED,
            f"refuses {len(INVALID_ARGUMENTS)} invalid argument sets with a ValueError naming the argument",
        )

    return check


RANDOMIZED_RESPONSE = Spec(
    name="randomized-response",
    sampler=randomized_response,
    parameters=PARAMETERS,
    input=INPUT,
    claim=_claim,
    pmf=randomized_response_pmf,
    enumeration=Bisection(),
    accepts=EDGES,
    checks=(refusals(randomized_response),),
    description="k-ary randomized response with exact ratio alpha (own_sampler.sampler.randomized_response)",
    cases=(
        Case(
            {"k": 2, "alpha": "1/3"},
            "proved",
            "binary randomized response at epsilon = ln 3: the truth with probability 3/4",
        ),
        Case(
            {"k": 5, "alpha": "2/7"},
            "proved",
            "k = 5 with a non-unit numerator: each other value takes a block of a = 2 draws of 15",
        ),
        Case(
            {"k": 4, "alpha": "999999/1000000"},
            "proved",
            "a large denominator: one draw of 3,999,997, its PMF found by bisection, exactly",
        ),
    ),
)

BROKEN_RANDOMIZED_RESPONSE = Spec(
    name="randomized-response-off-by-one",
    sampler=randomized_response_off_by_one,
    parameters=PARAMETERS,
    input=INPUT,
    claim=_claim,
    pmf=randomized_response_pmf,
    enumeration=Bisection(),
    accepts=EDGES,
    checks=(refusals(randomized_response_off_by_one),),
    description="the same, with u <= b for u < b (own_sampler.sampler.randomized_response_off_by_one)",
    # The maintainer believes these hold; the bug makes every one of them fail the gate.
    cases=(
        Case({"k": 3, "alpha": "2/5"}, "proved", "ternary randomized response at epsilon = ln(5/2)"),
        Case(
            {"k": 4, "alpha": "999999/1000000"},
            "proved",
            "a large denominator, where 20,000 samples cannot see a one-draw error",
        ),
        Case({"k": 2, "alpha": "1/3"}, "proved", "binary randomized response at epsilon = ln 3"),
    ),
)

SPECS = (RANDOMIZED_RESPONSE, BROKEN_RANDOMIZED_RESPONSE)
