"""diffprivlib 0.6.6: the running time of ``GaussianDiscrete`` and the label set of ``LogisticRegression``.

- ``jin-timing-diffprivlib-gaussdiscrete`` (Jin et al., S&P 2022, Section V): diffprivlib's
  ``GaussianDiscrete.randomise`` is Canonne, Kamath and Steinke's rejection sampler, so the number of
  ``random()`` calls it makes depends on its noise.  Its own code runs on dpverify's enumerating source: every
  ``random()`` is one uniform draw on CPython's grid ``j / 2^53``, answered by the single comparison the code
  makes with it (``random() <= gamma / counter``, ``random() < 0.5``) as one exact coin of the source.  Every
  run of at most :data:`DEPTH` draws is walked, so the joint law of (output, draws) is exact on those events,
  and the hockey-stick divergence of the pair at the claimed epsilon is bounded below exactly.
- ``cebere-diffprivlib-106-labels`` (Cebere et al., PETS 2026; IBM/differential-privacy-library#106):
  ``LogisticRegression.fit`` sets ``classes_ = np.unique(y)`` from the private labels, so removing the only
  record of a label changes the released model's classes and the shape of ``coef_``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from typing import Any

#: The grid of CPython's ``random()``: ``j / 2^53`` for a uniform 53-bit ``j``.
GRID = 1 << 53
#: The most draws a walked run of ``GaussianDiscrete`` may make: every run of at most this many is walked.
DEPTH = 14
#: An event of the timed release: (output, number of draws).
Event = tuple[Hashable, int]


class _Draw:
    """One ``random()``, ``j / 2^53`` with ``j`` uniform, that the code compares once with a float: the
    comparison is one coin of the source with the exact probability ``#{j : j / 2^53 <op> t} / 2^53``, and it
    counts as one draw.  Any other use (or a second question) raises, so nothing unmodelled passes."""

    __slots__ = ("asked", "source")

    def __init__(self, source: Any) -> None:
        self.source, self.asked = source, False

    def _below(self, count: int) -> bool:
        """``j < count`` for the uniform ``j`` in ``[0, 2^53)``."""
        if self.asked:
            raise RuntimeError("a random() was used twice: the audit models one comparison per draw")
        self.asked = True
        return bool(self.source.bernoulli(max(0, min(GRID, count)), GRID))

    @staticmethod
    def _scaled(t: object) -> Fraction:
        if not isinstance(t, (int, float)):  # numpy's float64 is a float
            raise TypeError(f"random() compared with {type(t).__name__}: not modelled")
        return Fraction(float(t)) * GRID  # exact: j / 2^53 <op> t  <=>  j <op> t * 2^53

    def __le__(self, t: object) -> bool:
        return self._below(math.floor(self._scaled(t)) + 1)

    def __lt__(self, t: object) -> bool:
        return self._below(math.ceil(self._scaled(t)))

    def __gt__(self, t: object) -> bool:
        return not self.__le__(t)

    def __ge__(self, t: object) -> bool:
        return not self.__lt__(t)


def _random_53(source: Any) -> Any:
    """A ``secrets.SystemRandom`` (what diffprivlib accepts as ``random_state``) whose ``random()`` is a
    :class:`_Draw` of ``source``; dpverify's ``RandomCompat`` otherwise."""
    from dpverify.verify.engine._random_compat import RandomCompat

    class Random53(RandomCompat):
        def random(self) -> Any:
            return _Draw(self.source)

    return Random53(source)


def _exp_above(epsilon: Fraction) -> Fraction:
    """A rational upper bound on ``e^epsilon`` (an ``mpmath`` interval's upper end)."""
    import mpmath

    with mpmath.workprec(120):
        upper = mpmath.iv.exp(mpmath.iv.mpf(epsilon.numerator) / epsilon.denominator).b
        mantissa, exponent = mpmath.mpf(upper).man_exp
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _hockey_stick(
    first: Mapping[Event, Fraction], second: Mapping[Event, Fraction], e_above: Fraction
) -> tuple[Fraction, Fraction, Event | None, Fraction]:
    """``sum_e (P(e) - e^eps P'(e))^+`` (a lower bound, ``e_above >= e^eps``), the mass of the events that
    ``second`` never gives, and the heaviest of them with its mass."""
    delta = Fraction(0)
    disjoint = Fraction(0)
    heaviest: Event | None = None
    heaviest_mass = Fraction(0)
    for event, mass in first.items():
        other = second.get(event, Fraction(0))
        delta += max(Fraction(0), mass - e_above * other)
        if other == 0:
            disjoint += mass
            if mass > heaviest_mass:
                heaviest, heaviest_mass = event, mass
    return delta, disjoint, heaviest, heaviest_mass


def _ideal_delta(sigma: float, epsilon: float) -> float:
    """``delta(epsilon)`` of the ideal discrete Gaussian of scale ``sigma`` between inputs 0 and 1 (reference)."""
    import mpmath

    with mpmath.workdps(30):
        span = range(-int(40 * sigma) - 2, int(40 * sigma) + 3)
        weight = {y: mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * mpmath.mpf(sigma) ** 2)) for y in span}
        total = mpmath.fsum(weight.values())
        e = mpmath.exp(mpmath.mpf(epsilon))
        delta = mpmath.fsum(max(0, weight[y] - e * weight.get(y - 1, 0)) for y in span) / total
    return float(delta)


def _gaussian_discrete_timing(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``GaussianDiscrete(epsilon=0.5, delta=1e-5, sensitivity=1).randomise(x)`` at x = 0 and 1, claimed
    (0.5, 1e-5)-DP: the exact joint law of (output, draws) over every run of at most :data:`DEPTH` draws."""
    import warnings

    from diffprivlib.mechanisms import GaussianDiscrete

    from dpverify.verify.engine._enumerate import enumerate_outputs

    epsilon, delta = 0.5, 1e-5

    def mechanism(random_state: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return GaussianDiscrete(epsilon=epsilon, delta=delta, sensitivity=1, random_state=random_state)

    def sampler_at(x: int) -> Callable[[Any], Hashable]:
        def run(source: Any) -> Hashable:
            return int(mechanism(_random_53(source)).randomise(x))

        return run

    walks = [enumerate_outputs(sampler_at(x), max_depth=DEPTH, max_paths=1_000_000) for x in (0, 1)]
    if any(w.stopped == "max_paths" for w in walks):
        return {
            "verdict": "inconclusive",
            "method": "timing",
            "evidence": f"the walk of the runs of <= {DEPTH} draws ran out of paths",
            "magnitude": "-",
        }
    # Every run of <= DEPTH draws was walked (only the (DEPTH+1)-th draw is ever cut), so joint[(o, d)] is
    # P(output o after d draws) exactly for every d <= DEPTH.
    e_above = _exp_above(Fraction(epsilon))
    forward = _hockey_stick(walks[0].joint, walks[1].joint, e_above)
    backward = _hockey_stick(walks[1].joint, walks[0].joint, e_above)
    (lower, disjoint, event, mass), at = max((forward, 0), (backward, 1), key=lambda t: t[0][0])
    other = 1 - at
    claimed_delta = Fraction(delta)
    reference = _ideal_delta(float(mechanism(None)._scale), epsilon)
    violated = lower > claimed_delta
    if event is None:  # no event of one input is impossible at the other (within <= DEPTH draws)
        shown, pure = "no (output, draws) of one input is impossible at the other", "-"
    else:
        shown = (
            f"randomise({at}) gives (output, draws) = {event} with P = {float(mass):.4g}, randomise({other}) never "
            f"(exact); such events carry {float(disjoint):.3g} of x={at}'s mass"
        )
        pure = "epsilon of (output, draws) = infinity"
    return {
        "verdict": "violated" if violated else "inconclusive",
        "method": f"timing: exact joint law of (output, draws) over every run of <= {DEPTH} draws "
        "(diffprivlib's code; random() on the 2^-53 grid)",
        "evidence": f"{shown}; sum (P - e^0.5 P')^+ = {float(lower):.4g} {'>' if violated else '<='} claimed "
        "delta 1e-5"[:300],
        "magnitude": f"{pure}; delta >= {float(lower):.4g} at epsilon 0.5 (exact lower bound); the output alone: "
        f"delta(0.5) = {reference:.3g} for the ideal discrete Gaussian it samples",
    }


def _logistic_regression_labels(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``LogisticRegression(epsilon=1.0, data_norm=1.0).fit(X, y)`` on D and on D' = D minus the only record of
    label 2, with the library's own randomness (``random_state`` = 20 seeds): the released ``classes_`` and the
    shape of ``coef_``."""
    import inspect
    import warnings

    import numpy as np
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.models import LogisticRegression

    x = np.array([[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4], [0.5, 0.5], [-0.4, -0.3], [0.2, -0.6], [-0.4, 0.1]])
    y = np.array([0, 1, 0, 1, 0, 1, 2])
    neighbour_x, neighbour_y = x[:-1], y[:-1]
    # A fixed version would let the user declare the labels (as its trees' `classes`): use it where it exists.
    declared = "classes" in inspect.signature(LogisticRegression.__init__).parameters
    options: dict[str, Any] = {"classes": [0, 1, 2]} if declared else {}
    seeds = range(seed, seed + 20)

    def released(features: Any, labels: Any, at: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = LogisticRegression(
                epsilon=1.0, data_norm=1.0, random_state=at, accountant=BudgetAccountant(), **options
            ).fit(features, labels)
        return tuple(int(c) for c in model.classes_), tuple(int(s) for s in model.coef_.shape)

    at_d = {released(x, y, s) for s in seeds}
    at_neighbour = {released(neighbour_x, neighbour_y, s) for s in seeds}
    source = inspect.getsource(LogisticRegression.fit)
    deterministic = "self.classes_ = np.unique(y)" in source
    shown = (
        f"D: 7 records, labels {','.join(map(str, y.tolist()))}; D' drops the label-2 one; 20 seeds each: "
        f"(classes_, coef_.shape) = {', '.join(map(str, sorted(at_d)))} at D, "
        f"{', '.join(map(str, sorted(at_neighbour)))} at D'"
    )
    if at_d & at_neighbour:
        return {
            "verdict": "not refuted",
            "method": "record-replay",
            "evidence": f"{shown}: the released classes agree"[:300],
            "magnitude": "-",
        }
    if not deterministic:
        return {
            "verdict": "inconclusive",
            "method": "record-replay",
            "evidence": f"{shown}: they differ, but fit no longer sets classes_ = np.unique(y)"[:300],
            "magnitude": "-",
        }
    return {
        "verdict": "violated",
        "method": "record-replay: the released model's classes are a deterministic function of the private labels",
        "evidence": f"{shown}; fit sets classes_ = np.unique(y) before any noise; no classes parameter, and the "
        "docs never say labels are public"[:300],
        "magnitude": "epsilon = infinity (disjoint supports)",
    }


AUDITS: dict[str, Callable[[str, int, int], dict[str, Any]]] = {
    "jin-timing-diffprivlib-gaussdiscrete": _gaussian_discrete_timing,
    "cebere-diffprivlib-106-labels": _logistic_regression_labels,
}
