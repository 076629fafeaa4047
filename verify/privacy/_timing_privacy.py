"""The privacy of a release whose running time is observed too: the output alone against the pair
(output, number of draws) between two neighbouring inputs.

A sampler that loops until it accepts makes a number of draws ``D`` that depends on its noise, so an
attacker who times one release sees ``(O, D)``, not ``O`` alone (the timing attacks of Jin, McMurtry,
Rubinstein and Ohrimenko, "Are We There Yet?", IEEE S&P 2022, Section V).  Joint output/timing
privacy (Ratliff and Vadhan, "A Framework for Differential Privacy Against Timing Attacks", 2024)
asks the DP inequality of that pair.  ``dpverify.verify.privacy._timing`` measures how much
``D`` tells about ``O`` at one input; this module compares two inputs.

The data.  Each input's code is walked as it runs (no renewal, no summaries: they merge paths and
forget their draw counts) to a mass budget, which gives the exact mass ``J(o, d)`` of the explored
paths that return ``o`` after ``d`` draws, and the unexplored mass ``U``.  The true probability of any
event ``e`` lies in ``[J(e), J(e) + U]``.

What is established.  For an event ``e`` (an output, or an output with its draw count) and inputs
``q``, ``q'``: ``P(e | q) / P(e | q') >= J(e) / (J'(e) + U')``, so ``epsilon >= ln`` of the largest such
ratio, both directions, over the explored events; infinite where ``J'(e) + U' = 0`` (the walk of
``q'`` exhausted its tree and never gave ``e``).  These are certified *lower* bounds, for the output
alone and for the pair, with the event that attains each.  When both walks exhausted their trees
(``U = U' = 0``) the ratios are exact and so is each epsilon.  The verdict judges the claim on the
pair: ``violated`` when the pair's lower bound exceeds the claimed epsilon, ``proved`` when both trees
were exhausted and the pair's exact epsilon is at most the claim, ``inconclusive`` otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from dpverify.samplers import InvalidArgument, RandomSource, SamplerContractError
from dpverify.verify.engine._arguments import need_callable
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._enumeration import Enumeration, SamplerCrashed
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text

__all__ = ["RatioBound", "TimingPrivacy", "check_timing_privacy", "timing_privacy"]


@dataclass(frozen=True, slots=True)
class RatioBound:
    """The largest certified ratio ``J(e) / (J'(e) + U')`` over the explored events, with its event and
    direction (``forward``: from the first input to the second); ``ratio`` None is infinite."""

    ratio: Fraction | None
    event: Hashable
    forward: bool
    mass: Fraction
    other_mass: Fraction

    @property
    def epsilon(self) -> float:
        """``ln ratio`` rounded down (so still a lower bound), ``inf`` for an impossible event."""
        if self.ratio is None:
            return float("inf")
        with mpmath.workprec(80):
            value = float(mpmath.log(mpmath.mpf(self.ratio.numerator) / self.ratio.denominator))
        return max(0.0, math.nextafter(value, -math.inf))  # one ulp down: the float stays below the log

    def to_json(self) -> dict[str, Any]:
        return {
            "epsilon_lower_bound": "Infinity" if self.ratio is None else f"{self.epsilon:.9g}",
            "ratio_lower_bound": None if self.ratio is None else fraction_text(self.ratio),
            "event": repr(self.event),
            "direction": "first to second input" if self.forward else "second to first input",
            "mass": fraction_text(self.mass),
            "other_mass": fraction_text(self.other_mass),
        }


@dataclass(frozen=True, slots=True)
class TimingPrivacy:
    """The output's and the pair's certified epsilon lower bounds between two inputs."""

    output: RatioBound
    pair: RatioBound
    unexplored: tuple[Fraction, Fraction]

    @property
    def exact(self) -> bool:
        """Whether both trees were exhausted, so the bounds are the exact epsilons."""
        return self.unexplored == (Fraction(0), Fraction(0))


def _largest_ratio(
    first: Mapping[Any, Fraction], second: Mapping[Any, Fraction], unexplored: tuple[Fraction, Fraction]
) -> RatioBound:
    best: RatioBound | None = None
    for forward, (mine, other, other_unexplored) in (
        (True, (first, second, unexplored[1])),
        (False, (second, first, unexplored[0])),
    ):
        for event, mass in mine.items():
            if mass <= 0:
                continue
            other_mass = other.get(event, Fraction(0))
            bound = other_mass + other_unexplored
            ratio = None if bound == 0 else mass / bound
            candidate = RatioBound(ratio, event, forward, mass, other_mass)
            if best is None or (best.ratio is not None and (ratio is None or ratio > best.ratio)):
                best = candidate
    if best is None:
        raise InvalidArgument("the walks explored no output at either input: there is nothing to compare")
    return best


def timing_privacy(first: Enumeration, second: Enumeration) -> TimingPrivacy:
    """The certified epsilons of the output alone and of (output, draws) between two walks as the
    code runs (module docstring); each walk must keep its draw counts (``joint``)."""
    for name, found in (("first", first), ("second", second)):
        if not found.joint and found.masses:
            raise InvalidArgument(
                f"{name} has no draw counts (joint is empty): walk the code as it runs, without renewal or summaries"
            )
    unexplored = (first.unexplored, second.unexplored)
    return TimingPrivacy(
        _largest_ratio(first.masses, second.masses, unexplored),
        _largest_ratio(first.joint, second.joint, unexplored),
        unexplored,
    )


def check_timing_privacy(
    sampler_at: Callable[[Hashable], Callable[[RandomSource], Hashable]],
    q: Hashable,
    q_prime: Hashable,
    claimed_epsilon: Fraction,
    *,
    min_mass: Fraction = Fraction(1, 10**9),
    max_paths: int = 1_000_000,
) -> CheckResult:
    """Judge the claim ``claimed_epsilon``-DP on the pair (output, draws) of ``sampler_at(q)`` and
    ``sampler_at(q_prime)``, each walked as it runs to ``min_mass`` (module docstring)."""
    need_callable("sampler_at", sampler_at, "a function of the input returning a sampler, e.g. lambda q: ...")
    claimed = Fraction(claimed_epsilon)
    try:
        walks = [
            enumerate_outputs(sampler_at(x), min_mass=min_mass, max_paths=max_paths, summarise=False)
            for x in (q, q_prime)
        ]
    except SamplerCrashed as crash:  # the code's failure is a finding, with the draws that reach it
        return CheckResult(
            "timing_privacy", Verdict.VIOLATED, str(crash), evidence={"draws": crash.draws, "error": repr(crash.error)}
        )
    except SamplerContractError as error:
        return CheckResult("timing_privacy", Verdict.INCONCLUSIVE, str(error), reason=str(error))
    found = timing_privacy(*walks)
    evidence = {
        "inputs": [repr(q), repr(q_prime)],
        "claimed_epsilon": fraction_text(claimed),
        "output": found.output.to_json(),
        "output_and_draws": found.pair.to_json(),
        "unexplored": [fraction_text(u) for u in found.unexplored],
        "exact": found.exact,
    }
    pair, alone = found.pair.epsilon, found.output.epsilon
    shown = f"epsilon of (output, draws) >= {pair:.6g} (event {found.pair.event!r}); of the output alone >= {alone:.6g}"
    with mpmath.workprec(120):  # e^claimed enclosed: a ratio inside the enclosure decides nothing
        e = mpmath.iv.exp(mpmath.iv.mpf(claimed.numerator) / claimed.denominator)
        ratio = found.pair.ratio
        enclosed = None if ratio is None else mpmath.iv.mpf(ratio.numerator) / ratio.denominator
        above = enclosed is None or enclosed.a > e.b
        within = enclosed is not None and enclosed.b <= e.a
    if above:
        return CheckResult(
            "timing_privacy",
            Verdict.VIOLATED,
            f"the running time breaks the claim: {shown} > claimed epsilon = {fraction_text(claimed)}",
            evidence=evidence,
        )
    if found.exact and within:
        return CheckResult(
            "timing_privacy",
            Verdict.PROVED,
            f"exact: {shown.replace('>=', '=')} <= claimed epsilon = {fraction_text(claimed)}",
            evidence=evidence,
        )
    reason = (
        f"{shown}, within the claim, but the walks left U = {float(found.unexplored[0]):.3g} and "
        f"{float(found.unexplored[1]):.3g} unexplored, so no upper bound follows"
    )
    return CheckResult("timing_privacy", Verdict.INCONCLUSIVE, reason, reason=reason, evidence=evidence)
