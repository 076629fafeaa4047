"""Property tests of the GTM sampler and spec against the paper and independent oracles.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers":
§2 (``gtpmf``), §5 (support condition), Theorems 6.1, 6.2 and 7.1.  Parameters are exact
rationals drawn by Hypothesis (never floats); ``T`` ranges from 1 to 10**6 and sometimes to
10**100, where the code's exact PMF comes from bisection instead of enumeration.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpverify.samplers import gtm
from dpverify.specs import GtmSpec
from dpverify.specs.gtm import ALPHA, FINITE_PMF, IDEAL_CDF, IDEAL_PMF, T_SYMBOL, N, Q, X
from dpverify.verify import Verdict, code_distribution, tightest_alpha
from dpverify.verify.engine._exactness import EXHAUSTIVE_DRAW_LIMIT
from dpverify.verify.engine._statistics import check_empirical

# --- strategies --------------------------------------------------------------------------------


@st.composite
def alphas(draw: st.DrawFn, max_denominator: int = 64) -> Fraction:
    """An exact rational in (0, 1), from an integer numerator and denominator."""
    denominator = draw(st.integers(2, max_denominator))
    return Fraction(draw(st.integers(1, denominator - 1)), denominator)


_enumerable = st.integers(1, EXHAUSTIVE_DRAW_LIMIT)
_bisected = st.integers(EXHAUSTIVE_DRAW_LIMIT + 1, 10**6)
_huge = st.integers(30, 99).flatmap(lambda e: st.integers(10**e, 10 ** (e + 1)))  # 10**30..10**100

#: Sizes of the uniform: 40% exhaustively enumerable, 40% bisected up to 10**6, 20% huge.
sizes = st.integers(0, 9).flatmap(lambda k: _enumerable if k < 4 else _bisected if k < 8 else _huge)


@st.composite
def gtm_cases(draw: st.DrawFn, max_n: int = 8, T: st.SearchStrategy[int] = sizes) -> tuple[GtmSpec, int]:
    """A GTM spec ``(alpha, n, T)`` and an input ``q`` in ``[0, n]``."""
    spec = GtmSpec.create(draw(alphas()), draw(st.integers(1, max_n)), draw(T))
    return spec, draw(st.integers(0, spec.n))


@st.composite
def gtm_at_or_above_support_bound(draw: st.DrawFn) -> GtmSpec:
    """A GTM whose ``T`` is at least the §5 support bound (so Theorem 6.2's alpha' > 0)."""
    alpha, n = draw(alphas()), draw(st.integers(1, 8))
    bound = GtmSpec.create(alpha, n, 1).support_bound()
    extra = draw(st.one_of(st.just(0), st.integers(0, 10**6), st.integers(10**30, 10**60)))
    return GtmSpec.create(alpha, n, math.ceil(bound) + extra)


def _case(alpha: str, n: int, T: int, q: int) -> tuple[GtmSpec, int]:
    return GtmSpec.create(alpha, n, T), q


def _nonzero(masses: dict) -> dict:
    return {x: p for x, p in masses.items() if p}


# --- the code's PMF is the spec's PMF --------------------------------------------------------


@settings(max_examples=150)
@given(gtm_cases())
@example(_case("1/3", 2, 36, 0))  # Theorem 7.1 instance
@example(_case("1/2", 3, 1, 3))  # T = 1: a point mass
@example(_case("1/2", 3, EXHAUSTIVE_DRAW_LIMIT, 1))  # the last enumerated size
@example(_case("1/2", 3, EXHAUSTIVE_DRAW_LIMIT + 1, 1))  # the first bisected size
@example(_case("63/64", 8, 10**100, 4))
def test_code_pmf_equals_spec_pmf_exactly(case: tuple[GtmSpec, int]) -> None:
    spec, q = case
    found = code_distribution(spec, q)
    assert found.exhausted
    assert found.method == ("exhaustive" if spec.T <= EXHAUSTIVE_DRAW_LIMIT else "bisection")
    assert all(p > 0 for p in found.masses.values())
    assert found.masses == _nonzero(spec.pmf(q).as_dict()), (spec, q)
    assert sum(found.masses.values()) == 1
    assert spec.pmf(q).total() == 1
    assert spec.ideal_pmf(q).total() == 1


# --- the spec's integer tables agree with the SymPy closed forms ------------------------------


def _sympy_value(expression: sympy.Expr, values: dict) -> Fraction:
    value = expression.subs(values)
    assert value.is_Rational, (expression, values, value)
    return Fraction(int(value.p), int(value.q))


@settings(max_examples=20)
@given(gtm_cases(max_n=5))
@example(_case("1/3", 2, 10, 0))
@example(_case("2/7", 3, 10**100, 3))
def test_spec_pmfs_agree_with_the_sympy_closed_forms(case: tuple[GtmSpec, int]) -> None:
    spec, q = case
    a = sympy.Rational(spec.alpha.numerator, spec.alpha.denominator)
    pmf, ideal = spec.pmf(q), spec.ideal_pmf(q)
    running = Fraction(0)
    for x in range(-1, spec.n + 2):
        values = {ALPHA: a, N: spec.n, Q: q, X: x, T_SYMBOL: spec.T}
        ideal_x = _sympy_value(IDEAL_PMF, values)
        assert _sympy_value(FINITE_PMF, values) == pmf.probability(x), (spec, q, x)
        assert ideal_x == ideal.probability(x), (spec, q, x)
        running += ideal_x
        assert _sympy_value(IDEAL_CDF, values) == running, (spec, q, x)
    assert running == 1


# --- Theorem 7.1: alpha = 1/D, T = (D+1) D**n gives the ideal PMF exactly ----------------------


@pytest.mark.parametrize("D", range(2, 13))
@pytest.mark.parametrize("n", range(1, 9))
def test_theorem_7_1_implementation_is_exactly_ideal_and_alpha_private(D: int, n: int) -> None:
    spec = GtmSpec.create(Fraction(1, D), n, (D + 1) * D**n)
    assert spec.is_theorem_7_1_instance()
    table = {q: spec.pmf(q) for q in spec.inputs()}
    for q in spec.inputs():
        ideal = spec.ideal_pmf(q).as_dict()
        assert table[q].as_dict() == ideal, (D, n, q)
        assert {x: gtm.gtpmf(spec.alpha, n, q, x) for x in spec.outputs()} == ideal
    # the code itself, not only the spec's table (enumerated or bisected, depending on T)
    for q in {0, n // 2, n}:
        assert code_distribution(spec, q).masses == spec.ideal_pmf(q).as_dict(), (D, n, q)
    assert tightest_alpha(table, spec.neighbours()).alpha == Fraction(1, D)
    # Control: one more draw breaks exactness (gcd(T, T + 1) = 1, and 0 < gtpmf < 1).
    off_by_one = GtmSpec.create(Fraction(1, D), n, (D + 1) * D**n + 1)
    assert not off_by_one.is_theorem_7_1_instance()
    assert all(off_by_one.pmf(q).as_dict() != spec.ideal_pmf(q).as_dict() for q in spec.inputs())


# --- Theorem 6.1: |P_T(x|q) - gtpmf(q, x)| < 1/T ---------------------------------------------


@settings(max_examples=200)
@given(gtm_cases())
def test_theorem_6_1_each_probability_is_within_1_over_T_of_ideal(case: tuple[GtmSpec, int]) -> None:
    spec, _ = case
    for q in spec.inputs():
        pmf, ideal = spec.pmf(q), spec.ideal_pmf(q)
        for x in spec.outputs():
            gtpmf = gtm.gtpmf(spec.alpha, spec.n, q, x)  # the sampler's own formula, an oracle
            assert ideal.probability(x) == gtpmf
            # The paper states <= 1/T; the floor argument gives strict < (frac differences).
            assert abs(pmf.probability(x) - gtpmf) < Fraction(1, spec.T), (spec, q, x)


# --- Theorem 6.2: the implementation is alpha'-private ----------------------------------------


@settings(max_examples=100)
@given(st.one_of(gtm_cases().map(lambda case: case[0]), gtm_at_or_above_support_bound()))
@example(GtmSpec.create("1/2", 5, 10))  # below the support bound: alpha' <= 0, loss infinite
@example(GtmSpec.create("1/3", 1, 8))
def test_theorem_6_2_tightest_alpha_is_at_least_alpha_prime(spec: GtmSpec) -> None:
    table = {q: spec.pmf(q) for q in spec.inputs()}
    loss = tightest_alpha(table, spec.neighbours())
    alpha_prime = spec.theorem_6_2_alpha_prime()
    assert alpha_prime < spec.alpha
    assert loss.alpha >= alpha_prime, (spec, loss, alpha_prime)
    # support_bound() is exactly 1/D, so the bound is non-vacuous exactly when T > 1/D.
    assert (alpha_prime > 0) == (spec.T > spec.support_bound())


# --- §5: T >= (1+alpha) / ((1-alpha) alpha**n) gives full support ------------------------------


@settings(max_examples=100)
@given(st.one_of(gtm_at_or_above_support_bound(), gtm_cases().map(lambda case: case[0])))
@example(GtmSpec.create("1/2", 5, 96))  # exactly the bound (1+1/2)/((1/2)(1/32)) = 96
def test_support_condition_gives_every_output_positive_probability(spec: GtmSpec) -> None:
    full = all(all(spec.pmf(q).weights) for q in spec.inputs())
    if spec.T >= spec.support_bound():
        assert full, spec
    else:
        # Sufficient, not necessary: nothing is claimed; check the table is still a distribution.
        assert all(spec.pmf(q).total() == 1 for q in spec.inputs())


def test_support_condition_is_not_vacuous() -> None:
    """Below the bound an output can be impossible, so the property above can fail."""
    spec = GtmSpec.create("1/2", 5, 10)
    assert spec.T < spec.support_bound()
    assert not all(all(spec.pmf(q).weights) for q in spec.inputs())


# --- the real sampler on the CSPRNG agrees with the exact PMF ----------------------------------


@settings(max_examples=5)
@given(gtm_cases(), st.integers(0, 2**64 - 1))
def test_real_sampler_passes_the_statistical_check(case: tuple[GtmSpec, int], seed: int) -> None:
    """The real sampler on the CSPRNG agrees with the exact PMF (DKW with Massart's constant).

    Bound: P(sup|F_N - F| > t) <= 2 exp(-2 N t^2) = beta = 1e-9 for a correct sampler, with
    N = 20 000 and t = sqrt(ln(2/beta) / 2N) ~ 0.0231, for every N (no asymptotics).
    Power: a sampler whose CDF is more than 2t ~ 0.0463 away from the exact one at some output
    fails with probability >= 1 - 1e-9.  The seed is printed and in the failure message.
    """
    spec, q = case
    result = check_empirical(spec, q, samples=20_000, seed=seed)
    print(f"check_empirical seed={seed}: {result.summary}")
    assert result.evidence["seed"] == seed
    assert result.verdict is Verdict.PROVED, result.summary
