"""Published samplers verified as published: the CKS20 reference code, and code drawing from ``random``.

``dpverify check --spec-module examples.published.cks20_specs`` (from the repository root) reads
:data:`SPECS`.  Nothing here changes a line of the code under test.

- ``cks20-reference-dlaplace`` and ``cks20-reference-dgauss`` run ``sample_dlaplace`` and
  ``sample_dgauss`` of Canonne, Kamath, Steinke's own reference implementation
  (``cks20/discretegauss.py``, vendored unmodified with its Apache-2.0 licence) with
  ``rng=RandomCompat(source)`` (``randomness="random"``): every ``rng.randrange(m)`` is one exact
  uniform choice of the enumerating source, branched on only by the comparisons the code makes
  (:mod:`dpverify.verify.engine._lazy_uniform`), so ``sample_bernoulli``'s ``randrange(d) < n`` is one
  two-way branch.  The ``while True`` loops are enumerated to ``min_mass``, renewing each loop where
  the execution comes back to a program state it was in before on its path, and each call of a
  subroutine that draws is summarised once per distinct arguments (``Bounded(renewal=True)``,
  :mod:`dpverify.verify.engine._program_state`, :mod:`dpverify.verify.engine._summaries`), which gives
  exact intervals ``E(o) <= P_code(o) <= E(o) + U`` judged against the ideal PMFs stated
  independently in :class:`~dpverify.specs.DiscreteLaplaceSpec` (``P(z) = tanh(1/(2b))
  e^(-|z|/b)``) and :class:`~dpverify.specs.DiscreteGaussianSpec` (``P(z) = e^(-z^2/(2 sigma2)) /
  N``), CKS20 Definition 1 and Algorithms 2-3.  A proof here is a proof within ``U`` (below 10^-12
  at this budget, :data:`MAX_UNEXPLORED` at most), not of equality: every verdict reads
  ``proved within U = ...``.  ``cks20-reference-bernoulli-exp`` checks ``sample_bernoulli_exp`` the
  same way against :class:`~dpverify.specs.BernoulliExpSpec`, and ``REWRITE_*`` are copies with a
  law-preserving change for ``dpverify diff``.
- ``cks20-bug-*`` are the same files with one token changed, built from the source text when this
  module is imported (:func:`mutated`; nothing is written to disk): ``k=k+2`` for ``k=k+1`` in
  ``sample_geometric_exp_slow`` (magnitudes doubled), ``2*sigma2+1`` for ``2*sigma2`` in
  ``sample_dgauss``'s bias (a flatter acceptance coin), and ``2*sigma2*1001/1000`` there (a coin
  0.1% off, far below what a width of 10^-2 could see).  Each is expected ``violated``, with the
  output and both exact sides as the counterexample.
- ``module-randomized-response`` is a sampler that takes no ``rng`` at all: it calls
  ``secrets.randbelow``, ``random.randrange`` and a ``random.SystemRandom()`` it creates, all
  redirected to the engine's source for each execution (``randomness="module"``,
  :func:`dpverify.verify.engine._patched_random.patched_random`); its exact PMF and ``3``-ratio local DP
  claim are proved.  A one-token variant (``<= 3``) samples the law stated for it exactly, and
  that law breaks the claim: violated, with two inputs, an output and both exact probabilities.

The CKS20 specs live here rather than in the built-in catalogue because the vendored file is an
example, not part of the installed package (``dpverify check`` must not depend on it), and it
is loaded from its path beside this module.
"""

from __future__ import annotations

import random
import secrets
import types
from collections.abc import Hashable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from dpverify.samplers import InvalidArgument
from dpverify.specs import (
    BernoulliExpSpec,
    Bounded,
    Case,
    DiscreteGaussianSpec,
    DiscreteLaplaceSpec,
    Exhaustive,
    Input,
    Integer,
    Params,
    PureDp,
    Rational,
    SamplesPmf,
    Spec,
)

__all__ = ["REFERENCE", "SOURCE", "SPECS", "mutated", "randomized_response", "randomized_response_off_by_one"]

#: The vendored reference implementation's text, exactly as published.
SOURCE = (Path(__file__).resolve().parent / "cks20" / "discretegauss.py").read_text(encoding="utf-8")


def mutated(old: str, new: str, *, name: str = "cks20_mutant") -> types.ModuleType:
    """The reference module with the one occurrence of ``old`` in its text replaced by ``new``
    (``old == new`` gives the reference itself), executed as a fresh in-memory module."""
    count = SOURCE.count(old)
    if count != 1:
        raise InvalidArgument(
            f"old must occur exactly once in the reference source; got old={old!r}, which occurs {count} times."
        )
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(SOURCE.replace(old, new), module.__file__, "exec"), module.__dict__)  # noqa: S102
    return module


#: The reference implementation, unmodified.
REFERENCE = mutated("def sample_dgauss(", "def sample_dgauss(", name="cks20_discretegauss")

#: The one-token bugs: the geometric loop counts by two; the Gaussian's bias divides by 2 sigma2 + 1.
_GEOMETRIC = "            k=k+1\n        else:\n            return k"
_BIAS = "**2)/(2*sigma2)"
GEOMETRIC_BY_TWO = mutated(_GEOMETRIC, _GEOMETRIC.replace("k=k+1", "k=k+2"), name="cks20_geometric_by_two")
BIAS_PLUS_ONE = mutated(_BIAS, "**2)/(2*sigma2+1)", name="cks20_bias_plus_one")
#: A slip far below what a width of 10^-2 could see: the bias divided by 2.002 sigma2, not 2 sigma2.
BIAS_TENTH_PERCENT = mutated(_BIAS, "**2)/(2*sigma2*1001/1000)", name="cks20_bias_tenth_percent")

#: Branches lighter than this are not entered; the unexplored mass ``U`` is in every verdict.
MIN_MASS = Fraction(1, 10**13)
#: A proof must bound ``|P_code - P_ideal|`` by this at every checked output, else it is inconclusive.
#: Tighter than the default tolerance (:data:`dpverify.specs.DEFAULT_MAX_UNEXPLORED`, 10^-6): the calls of
#: the published subroutines are summarised (procedure summaries), so every case here reaches ``U``
#: below 10^-11 (``bench/bench_published_samplers.py``).
MAX_UNEXPLORED = Fraction(1, 10**10)


def _cks20(name: str, sampler: Any, key: str, cls: type, cases: tuple[Case, ...], what: str, citation: str) -> Spec:
    return Spec(
        name=name,
        sampler=sampler,
        parameters={key: Rational(0, low_open=True, search=(Fraction(1, 2), 2))},
        claim=SamplesPmf(),
        ideal=lambda p, output, dps: cls.create(p[key]).ideal_probability(output, dps),
        outputs=lambda p: cls.create(p[key]).outputs_for_check(),
        randomness="random",
        enumeration=Bounded(min_mass=MIN_MASS, renewal=True, max_unexplored=MAX_UNEXPLORED),
        description=what,
        citation=f"Canonne, Kamath, Steinke 2020, {citation}; reference implementation discretegauss.py",
        cases=cases,
    )


def _dlaplace(name: str, module: types.ModuleType, cases: tuple[Case, ...], what: str) -> Spec:
    return _cks20(name, module.sample_dlaplace, "scale", DiscreteLaplaceSpec, cases, what, "Algorithm 2")


def _dgauss(name: str, module: types.ModuleType, cases: tuple[Case, ...], what: str) -> Spec:
    return _cks20(
        name, module.sample_dgauss, "sigma2", DiscreteGaussianSpec, cases, what, "Definition 1 and Algorithm 3"
    )


REFERENCE_DLAPLACE = _dlaplace(
    "cks20-reference-dlaplace",
    REFERENCE,
    (
        Case({"scale": 1}, "proved", "the published sample_dlaplace samples Lap_Z(1)", label="scale=1"),
        Case(
            {"scale": "3/2"},
            "proved",
            "a non-integer scale: the geometric's fast path draws u < t = 2",
            label="scale=3/2",
            sample_inputs=(),
        ),
    ),
    "CKS20's reference sample_dlaplace(scale, rng), unmodified, on RandomCompat",
)

REFERENCE_DGAUSS = _dgauss(
    "cks20-reference-dgauss",
    REFERENCE,
    (
        Case({"sigma2": 1}, "proved", "the published sample_dgauss samples N_Z(0, 1)", label="sigma2=1"),
        Case(
            {"sigma2": "1/2"},
            "proved",
            "below sigma = 1, t = floor(sqrt(1/2)) + 1 = 1",
            label="sigma2=1/2",
            sample_inputs=(),
        ),
    ),
    "CKS20's reference sample_dgauss(sigma2, rng), unmodified, on RandomCompat",
)

BUG_DLAPLACE = _dlaplace(
    "cks20-bug-geometric-by-two",
    GEOMETRIC_BY_TWO,
    (
        Case(
            {"scale": 1},
            "violated",
            "k=k+2 in sample_geometric_exp_slow: only even magnitudes at t = 1, so P(+-1) = 0 where Lap_Z(1) has 0.18",
            label="scale=1",
            sample_inputs=(),
        ),
    ),
    "the reference with k=k+1 -> k=k+2 in sample_geometric_exp_slow",
)

BUG_DGAUSS = _dgauss(
    "cks20-bug-bias-plus-one",
    BIAS_PLUS_ONE,
    (
        Case(
            {"sigma2": 1},
            "violated",
            "(2*sigma2+1) in the bias accepts far candidates too often: the code "
            "puts too little mass on 0 (at most 0.3822 where N_Z(0, 1) has 0.3989)",
            label="sigma2=1",
            sample_inputs=(),
        ),
    ),
    "the reference with 2*sigma2 -> 2*sigma2+1 in sample_dgauss's bias",
)


REFERENCE_BERNOULLI_EXP = Spec(
    name="cks20-reference-bernoulli-exp",
    sampler=REFERENCE.sample_bernoulli_exp,
    parameters={"x": Rational(0, search=(0, 3))},
    claim=SamplesPmf(),
    ideal=lambda p, output, dps: BernoulliExpSpec.create(p["x"]).ideal_probability(output == 1, dps),
    outputs=lambda p: (0, 1),
    randomness="random",
    enumeration=Bounded(min_mass=MIN_MASS, renewal=True, max_unexplored=MAX_UNEXPLORED),
    description="CKS20's reference sample_bernoulli_exp(x, rng), unmodified, on RandomCompat",
    citation="Canonne, Kamath, Steinke 2020, Algorithm 1; reference implementation discretegauss.py",
    cases=(
        Case({"x": "1/3"}, "proved", "x <= 1: one sample_bernoulli_exp1 loop", label="x=1/3"),
        Case(
            {"x": "5/2"},
            "proved",
            "x > 1: two Bernoulli(exp(-1)) coins, then exp(-1/2)",
            label="x=5/2",
            sample_inputs=(),
        ),
    ),
)


BUG_DGAUSS_SUBTLE = _dgauss(
    "cks20-bug-bias-tenth-percent",
    BIAS_TENTH_PERCENT,
    (
        Case(
            {"sigma2": 1},
            "violated",
            "2*sigma2*1001/1000 in the bias: the acceptance coin is off by 0.1% of its "
            "exponent, and the code's mass at 0 leaves the ideal's by far more than U",
            label="sigma2=1",
            sample_inputs=(),
        ),
    ),
    "the reference with 2*sigma2 -> 2*sigma2*1001/1000 in sample_dgauss's bias",
)


# --- rewrites that keep the law, for dpverify diff ------------------------------------------------

#: CKS20 Algorithm 3 samples N_Z(0, sigma2) for every proposal scale t > 0; the reference takes
#: ``floorsqrt(sigma2)+1``, this copy one more.
PROPOSAL_PLUS_TWO = mutated("t = floorsqrt(sigma2)+1", "t = floorsqrt(sigma2)+2", name="cks20_proposal_plus_two")
#: ``while x>=1`` for ``while x>1`` in ``sample_bernoulli_exp``: at an integer x the loop takes one more
#: Bernoulli(exp(-1)) coin and leaves ``sample_bernoulli_exp1(0)``, which always returns 1.
LOOP_AT_ONE = mutated("while x>1:", "while x>=1:", name="cks20_loop_at_one")

REWRITE_DGAUSS = _dgauss(
    "cks20-rewrite-dgauss-proposal-plus-two",
    PROPOSAL_PLUS_TWO,
    (Case({"sigma2": 1}, "proved", "t = 3 instead of 2: the same law", label="sigma2=1", sample_inputs=()),),
    "the reference with the proposal scale t = floorsqrt(sigma2)+2 in sample_dgauss (the same law for every t > 0)",
)
REWRITE_BERNOULLI_EXP = replace(
    REFERENCE_BERNOULLI_EXP,
    name="cks20-rewrite-bernoulli-exp-loop-at-one",
    sampler=LOOP_AT_ONE.sample_bernoulli_exp,
    description="the reference with while x>=1 for while x>1 in sample_bernoulli_exp (the same law)",
    cases=(Case({"x": 2}, "proved", "an integer x: the rewritten loop runs once more", label="x=2"),),
)


# --- code that draws from the random module itself ------------------------------------------------


def randomized_response(q: int, k: int) -> int:
    """k-ary randomized response: ``q`` with probability ``3/(k+2)``, each other value ``1/(k+2)``.

    The coin is ``secrets.randbelow``; the other value comes from ``random.randrange`` or, for
    odd ``q``, from a ``random.SystemRandom()`` made here: all three are what the engine redirects.
    """
    if secrets.randbelow(k + 2) < 3:
        return q
    others = [v for v in range(k) if v != q]
    if q % 2:
        return random.SystemRandom().choice(others)
    return others[random.randrange(k - 1)]


def randomized_response_off_by_one(q: int, k: int) -> int:
    """The same with ``<= 3``: ``q`` gets ``4/(k+2)`` and each other value ``(k-2)/((k+2)(k-1))``."""
    if secrets.randbelow(k + 2) <= 3:
        return q
    others = [v for v in range(k) if v != q]
    if q % 2:
        return random.SystemRandom().choice(others)
    return others[random.randrange(k - 1)]


def _rr_pmf(p: Params, q: Hashable) -> dict[Hashable, Fraction]:
    k = p["k"]
    return {v: Fraction(3 if v == q else 1, k + 2) for v in range(k)}


def _rr_off_by_one_pmf(p: Params, q: Hashable) -> dict[Hashable, Fraction]:
    k = p["k"]
    return {v: Fraction(4, k + 2) if v == q else Fraction(k - 2, (k + 2) * (k - 1)) for v in range(k)}


def _module_spec(name: str, sampler: Any, pmf: Any, cases: tuple[Case, ...], what: str) -> Spec:
    return Spec(
        name=name,
        sampler=sampler,
        parameters={"k": Integer(2, 64, search=(2, 8))},
        input=Input("q", values=lambda p: range(p["k"]), neighbours="all"),
        claim=PureDp(alpha=Fraction(1, 3)),
        pmf=pmf,
        randomness="module",
        enumeration=Exhaustive(),
        description=what,
        citation="Warner 1965 (randomized response); k-ary form with ratio e^epsilon = 3",
        cases=cases,
    )


MODULE_RR = _module_spec(
    "module-randomized-response",
    randomized_response,
    _rr_pmf,
    (
        Case(
            {"k": 4},
            "proved",
            "every module-level draw redirected: the exact PMF, ratio 3",
            label="k=4",
            sample_inputs=(0, 1),
        ),
        Case({"k": 37}, "proved", "a coin of 39 outcomes is one two-way branch", label="k=37", sample_inputs=()),
    ),
    "k-ary randomized response drawing from secrets, random and a SystemRandom it creates",
)

MODULE_RR_BUG = _module_spec(
    "module-randomized-response-off-by-one",
    randomized_response_off_by_one,
    _rr_off_by_one_pmf,
    (
        Case(
            {"k": 4},
            "violated",
            "<= 3 for < 3: the code samples its own stated law exactly, and that law has "
            "P(0|0)/P(0|1) = (2/3)/(1/9) = 6 > 3",
            label="k=4",
            sample_inputs=(),
        ),
    ),
    "the same with secrets.randbelow(k + 2) <= 3, its law stated exactly, checked against the claimed ratio 3",
)

SPECS = (
    REFERENCE_DLAPLACE,
    REFERENCE_DGAUSS,
    REFERENCE_BERNOULLI_EXP,
    BUG_DLAPLACE,
    BUG_DGAUSS,
    BUG_DGAUSS_SUBTLE,
    MODULE_RR,
    MODULE_RR_BUG,
)
