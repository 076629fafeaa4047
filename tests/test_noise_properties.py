"""Hypothesis cross-checks of the real noise samplers against their ideal PMFs.

Statistical bound (DKW with Massart's constant): with N = 20 000 draws and beta = 1e-9, a
correct sampler is rejected with probability at most 1e-9 whatever its parameters, and any
sampler whose CDF is more than 2t ~ 0.046 away from every CDF in the ideal enclosure is
rejected with probability >= 1 - 1e-9.  Seeds come from Hypothesis (derandomised in CI) and
are printed and carried in every failure message.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.samplers import RandomSource, discrete_laplace
from dpverify.specs import BernoulliExpSpec, DiscreteGaussianSpec, DiscreteLaplaceSpec
from dpverify.verify import Verdict, check_empirical_ideal, check_intervals

rationals = st.builds(Fraction, st.integers(1, 40), st.integers(1, 7))
seeds = st.integers(0, 2**64 - 1)


@settings(max_examples=6)
@given(rationals, seeds)
def test_discrete_laplace_matches_its_ideal_pmf(scale: Fraction, seed: int) -> None:
    result = check_empirical_ideal(DiscreteLaplaceSpec.create(scale), seed=seed)
    print(f"discrete Laplace scale={scale}: {result.summary}")
    assert result.verdict is Verdict.PROVED, result.summary


@settings(max_examples=6)
@given(rationals, seeds)
def test_discrete_gaussian_matches_its_ideal_pmf(sigma2: Fraction, seed: int) -> None:
    result = check_empirical_ideal(DiscreteGaussianSpec.create(sigma2), seed=seed)
    print(f"discrete Gaussian sigma2={sigma2}: {result.summary}")
    assert result.verdict is Verdict.PROVED, result.summary


@settings(max_examples=6)
@given(st.builds(Fraction, st.integers(0, 30), st.integers(1, 7)), seeds)
def test_bernoulli_exp_matches_exp_minus_gamma(gamma: Fraction, seed: int) -> None:
    result = check_empirical_ideal(BernoulliExpSpec.create(gamma), seed=seed)
    print(f"Bernoulli(exp(-{gamma})): {result.summary}")
    assert result.verdict is Verdict.PROVED, result.summary


@settings(max_examples=8)
@given(st.builds(Fraction, st.integers(1, 6), st.integers(1, 4)))
def test_discrete_laplace_code_is_inside_exact_intervals(scale: Fraction) -> None:
    """The bounded enumeration of the real code never contradicts the ideal PMF."""
    spec = DiscreteLaplaceSpec.create(scale)
    s, t = scale.denominator, scale.numerator  # the sampler's scale t/s

    def attempt(rng: RandomSource) -> int | None:
        return discrete_laplace._attempt_scaled(s, t, rng)

    result = check_intervals(
        attempt, spec.ideal_probability, spec.outputs_for_check()[:9], min_mass=Fraction(1, 10**5), attempt=True
    )
    assert result.verdict is Verdict.PROVED, result.summary
