"""Specs of the noise samplers (CKS20 Algorithms 1-3) against independent mpmath/SymPy oracles.

The oracles never reuse the spec's arithmetic: plain ``mpmath.mp`` at 110 digits (no intervals,
no Poisson summation, no tail bounds of ours), and SymPy simplification of the closed forms.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.samplers import InvalidArgument, SeededRandomSource, as_fraction
from dpverify.specs.noise import (
    B,
    BernoulliExpSpec,
    DiscreteGaussianApproxDpClaim,
    DiscreteGaussianSpec,
    DiscreteLaplaceSpec,
    PureEpsilonClaim,
    Z,
    ZcdpClaim,
)

ORACLE_DPS = 110


def _mp(value: Fraction) -> mpmath.mpf:
    return mpmath.mpf(value.numerator) / value.denominator


def _contains(enclosure: tuple[mpmath.mpf, mpmath.mpf], value: mpmath.mpf) -> bool:
    low, high = enclosure
    return low <= value <= high


def _relative_width(enclosure: tuple[mpmath.mpf, mpmath.mpf]) -> mpmath.mpf:
    low, high = enclosure
    with mpmath.workprec(400):
        return (high - low) / low


@st.composite
def rationals(draw: st.DrawFn, low: Fraction, high: Fraction, max_denominator: int = 50) -> Fraction:
    """An exact rational in ``[low, high]`` from integers (never a float)."""
    denominator = draw(st.integers(1, max_denominator))
    numerator = draw(st.integers(max(1, int(low * denominator)), int(high * denominator)))
    return Fraction(numerator, denominator)


# --- Bernoulli(exp(-gamma)) ---------------------------------------------------------------------------


@settings(max_examples=25)
@given(gamma=rationals(Fraction(0), Fraction(40)), dps=st.sampled_from([15, 30, 60]))
def test_bernoulli_exp_enclosures_contain_the_oracle_and_are_narrow(gamma: Fraction, dps: int) -> None:
    spec = BernoulliExpSpec.create(gamma)
    with mpmath.workdps(ORACLE_DPS):
        p_true = mpmath.exp(-_mp(gamma))
        p_false = -mpmath.expm1(-_mp(gamma))
        true_enclosure = spec.ideal_probability(True, dps)
        false_enclosure = spec.ideal_probability(False, dps)
        assert _contains(true_enclosure, p_true)
        assert _contains(false_enclosure, p_false)
        assert true_enclosure[0] + false_enclosure[0] <= 1 <= true_enclosure[1] + false_enclosure[1]
    assert _relative_width(true_enclosure) <= mpmath.mpf(10) ** -dps
    assert _relative_width(false_enclosure) <= mpmath.mpf(10) ** -dps


def test_bernoulli_exp_tiny_gamma_has_no_cancellation() -> None:
    """``1 - e^-gamma`` for gamma = 10^-30 keeps 40 digits (a naive 1 - exp loses 30)."""
    gamma = Fraction(1, 10**30)
    enclosure = BernoulliExpSpec.create(gamma).ideal_probability(False, 40)
    with mpmath.workdps(ORACLE_DPS):
        assert _contains(enclosure, -mpmath.expm1(-_mp(gamma)))
    assert _relative_width(enclosure) <= mpmath.mpf(10) ** -40


def test_bernoulli_exp_expression_and_exact_edges() -> None:
    spec = BernoulliExpSpec.create("3/2")
    assert spec.ideal_pmf_expr().subs(B, 1) == sympy.exp(-sympy.Rational(3, 2))
    assert sympy.simplify(spec.ideal_pmf_expr().subs(B, 0) + spec.ideal_pmf_expr().subs(B, 1)) == 1
    zero = BernoulliExpSpec.create(0)
    assert zero.ideal_probability(True) == (1, 1)
    assert zero.ideal_probability(False) == (0, 0)
    assert spec.outputs_for_check() == (False, True)
    assert spec.parameters() == {"gamma": "3/2"}


# --- discrete Laplace ---------------------------------------------------------------------------------


def _laplace_oracle(scale: Fraction, z: int) -> mpmath.mpf:
    t = 1 / _mp(scale)
    return (mpmath.exp(t) - 1) / (mpmath.exp(t) + 1) * mpmath.exp(-abs(z) * t)


@settings(max_examples=30)
@given(scale=rationals(Fraction(1, 20), Fraction(200)), z=st.integers(-300, 300))
def test_laplace_enclosure_contains_the_oracle_and_is_narrow(scale: Fraction, z: int) -> None:
    enclosure = DiscreteLaplaceSpec.create(scale).ideal_probability(z, 40)
    with mpmath.workdps(ORACLE_DPS):
        assert _contains(enclosure, _laplace_oracle(scale, z))
    assert _relative_width(enclosure) <= mpmath.mpf(10) ** -40


@pytest.mark.parametrize("scale", [Fraction(1, 3), Fraction(1), Fraction(7, 2), Fraction(40)])
def test_laplace_pmf_sums_to_one_within_the_enclosures(scale: Fraction) -> None:
    """Over ``|z| <= R`` plus the exact geometric tail ``2 c e^(-(R+1)/b) / (1 - e^(-1/b))``."""
    spec = DiscreteLaplaceSpec.create(scale)
    radius = 800
    lows = highs = mpmath.mpf(0)
    with mpmath.workdps(60):
        for z in range(-radius, radius + 1):
            low, high = spec.ideal_probability(z, 40)
            lows += low
            highs += high
        t = 1 / _mp(scale)
        c = (mpmath.exp(t) - 1) / (mpmath.exp(t) + 1)
        tail = 2 * c * mpmath.exp(-(radius + 1) * t) / (1 - mpmath.exp(-t))
        assert lows <= 1 <= highs + tail * (1 + mpmath.mpf(10) ** -30)
        assert 1 - (lows + tail) < mpmath.mpf(10) ** -35


def test_laplace_ratio_of_neighbouring_outputs_is_exactly_e_to_the_minus_one_over_b() -> None:
    """``P(z+1)/P(z) = e^(-1/b)`` for ``z >= 0`` and ``P(z)/P(z+1) = e^(-1/b)`` for ``z < 0``."""
    k = sympy.Symbol("k", integer=True, nonnegative=True)
    for scale in ("1", "5/2", "1/7"):
        spec = DiscreteLaplaceSpec.create(scale)
        expr = spec.ideal_pmf_expr()
        b = sympy.Rational(scale)
        assert sympy.simplify(expr.subs(Z, k + 1) / expr.subs(Z, k) - sympy.exp(-1 / b)) == 0
        assert sympy.simplify(expr.subs(Z, -k - 1) / expr.subs(Z, -k) - sympy.exp(-1 / b)) == 0


def test_laplace_claim_is_sensitivity_over_scale_and_holds_with_equality() -> None:
    spec = DiscreteLaplaceSpec.create("3/2", sensitivity=2)
    claim = spec.claim()
    assert claim == PureEpsilonClaim(Fraction(4, 3), 2)
    worst = mpmath.mpf(0)
    with mpmath.workdps(50):
        bound = mpmath.exp(_mp(claim.epsilon))
        probabilities = {z: spec.ideal_probability(z, 45) for z in range(-12, 13)}
        for z, (low, high) in probabilities.items():
            for shift in range(1, 3):
                if z + shift in probabilities:
                    low2, high2 = probabilities[z + shift]
                    assert high / low2 <= bound * (1 + mpmath.mpf(10) ** -40)
                    assert high2 / low <= bound * (1 + mpmath.mpf(10) ** -40)
                    worst = max(worst, low / high2, low2 / high)
        assert worst >= bound * (1 - mpmath.mpf(10) ** -40)  # tight: attained away from 0


def test_laplace_outputs_for_check_are_a_capped_symmetric_range() -> None:
    assert DiscreteLaplaceSpec.create("1/10").outputs_for_check() == tuple(range(-3, 4))
    assert DiscreteLaplaceSpec.create(2).outputs_for_check() == tuple(range(-16, 17))
    assert len(DiscreteLaplaceSpec.create(10**9).outputs_for_check()) == 201


# --- discrete Gaussian --------------------------------------------------------------------------------


def _gaussian_oracle(sigma2: Fraction, z: int) -> mpmath.mpf:
    """Direct summation over ``|y| <= 2000`` at 110 digits (the omitted tail is below
    ``e^-(2000^2/100)``, far under 10^-110, for sigma2 <= 50)."""
    s = _mp(sigma2)
    normaliser = mpmath.fsum(mpmath.exp(-mpmath.mpf(y * y) / (2 * s)) for y in range(-2000, 2001))
    return mpmath.exp(-mpmath.mpf(z * z) / (2 * s)) / normaliser


@settings(max_examples=20)
@given(sigma2=rationals(Fraction(1, 30), Fraction(50)), z=st.integers(-40, 40), dps=st.sampled_from([20, 50, 90]))
def test_gaussian_enclosure_contains_a_direct_100_digit_sum_and_is_narrow(sigma2: Fraction, z: int, dps: int) -> None:
    """Covers both normaliser methods: direct (sigma2 <= 1) and Poisson (sigma2 > 1)."""
    enclosure = DiscreteGaussianSpec.create(sigma2).ideal_probability(z, dps)
    with mpmath.workdps(ORACLE_DPS):
        assert _contains(enclosure, _gaussian_oracle(sigma2, z))
    assert _relative_width(enclosure) <= mpmath.mpf(10) ** -dps


def test_gaussian_normaliser_enclosure_at_sigma2_1_matches_jacobi_theta() -> None:
    """``N = theta_3(0, e^(-1/(2 sigma2)))``, evaluated by mpmath's own theta function."""
    spec = DiscreteGaussianSpec.create(1)
    assert spec.normaliser_method() == "direct"
    with mpmath.workdps(ORACLE_DPS):
        assert _contains(spec.normaliser(100), mpmath.jtheta(3, 0, mpmath.exp(-mpmath.mpf(1) / 2)))
    spec = DiscreteGaussianSpec.create("9/4")
    assert spec.normaliser_method() == "poisson"
    with mpmath.workdps(ORACLE_DPS):
        assert _contains(spec.normaliser(100), mpmath.jtheta(3, 0, mpmath.exp(-mpmath.mpf(2) / 9)))


def test_gaussian_normaliser_at_sigma2_10_to_the_100_is_sqrt_2_pi_sigma2() -> None:
    """Poisson: ``N = sqrt(2 pi sigma2) (1 + 2 e^(-2 pi^2 10^100) + ...)``; the correction is
    far below any precision, so ``N`` must enclose ``sqrt(2 pi 10^100)`` tightly."""
    spec = DiscreteGaussianSpec.create("10^100")
    enclosure = spec.normaliser(60)
    with mpmath.workdps(150):
        assert _contains(enclosure, mpmath.sqrt(2 * mpmath.pi * mpmath.mpf(10) ** 100))
    assert _relative_width(enclosure) <= mpmath.mpf(10) ** -60
    low, high = spec.ideal_probability(10**50, 30)  # one standard deviation out
    with mpmath.workdps(150):
        assert low <= mpmath.exp(-mpmath.mpf(1) / 2) / mpmath.sqrt(2 * mpmath.pi * mpmath.mpf(10) ** 100) <= high


@pytest.mark.parametrize("sigma2", [Fraction(1, 5), Fraction(1), Fraction(7, 3), Fraction(30)])
def test_gaussian_pmf_sums_to_one_within_the_enclosures(sigma2: Fraction) -> None:
    """Over ``|z| <= R`` plus the bound ``2 f(R+1) / (1 - e^(-(2R+3)/(2 sigma2))) / N``."""
    spec = DiscreteGaussianSpec.create(sigma2)
    radius = 200
    lows = highs = mpmath.mpf(0)
    with mpmath.workdps(60):
        for z in range(-radius, radius + 1):
            low, high = spec.ideal_probability(z, 40)
            lows += low
            highs += high
        s = _mp(sigma2)
        normaliser_low = spec.normaliser(40)[0]
        tail = (
            2
            * mpmath.exp(-mpmath.mpf((radius + 1) ** 2) / (2 * s))
            / (1 - mpmath.exp(-mpmath.mpf(2 * radius + 3) / (2 * s)))
            / normaliser_low
        )
        assert lows <= 1 <= highs + tail
        assert 1 - lows < mpmath.mpf(10) ** -35


def test_gaussian_expression_ratio_and_normaliser() -> None:
    spec = DiscreteGaussianSpec.create("7/3")
    expr = spec.ideal_pmf_expr()
    assert expr.has(sympy.Sum)
    ratio = sympy.simplify(expr.subs(Z, Z + 1) / expr)
    assert sympy.simplify(ratio - sympy.exp(-(2 * Z + 1) * sympy.Rational(3, 14))) == 0
    (normaliser,) = expr.atoms(sympy.Sum)
    assert expr.subs(Z, 0) == 1 / normaliser
    summand = sympy.lambdify(normaliser.variables, normaliser.function, "mpmath")
    with mpmath.workdps(40):
        value = mpmath.nsum(summand, [-mpmath.inf, mpmath.inf])  # mpmath's own summation
        low, high = spec.normaliser(35)
        assert abs(value - low) <= mpmath.mpf(10) ** -30 * low


def test_gaussian_claims_are_exact() -> None:
    spec = DiscreteGaussianSpec.create("7/3", sensitivity=3)
    assert spec.zcdp_claim() == ZcdpClaim(Fraction(27, 14), 3)
    claim = spec.approx_dp_claim()
    assert claim == DiscreteGaussianApproxDpClaim(Fraction(7, 3), 3)
    for epsilon in (Fraction(0), Fraction(1, 2), Fraction(9, 7), Fraction(5)):
        m1, m2 = claim.thresholds(epsilon)
        a1 = epsilon * Fraction(7, 3) / 3 - Fraction(3, 2)
        a2 = a1 + 3
        assert m1 - 1 <= a1 < m1 and m2 - 1 <= a2 < m2  # the smallest integers above a1, a2
    assert claim.delta_expr().free_symbols == {sympy.Symbol("epsilon", nonnegative=True)}


def test_gaussian_outputs_for_check_are_a_capped_symmetric_range() -> None:
    assert DiscreteGaussianSpec.create("1/100").outputs_for_check() == tuple(range(-6, 7))
    assert DiscreteGaussianSpec.create(4).outputs_for_check() == tuple(range(-12, 13))
    assert len(DiscreteGaussianSpec.create("10^100").outputs_for_check()) == 201


# --- run(), parameters, validation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        (BernoulliExpSpec.create("1/3"), bool),
        (DiscreteLaplaceSpec.create("5/2"), int),
        (DiscreteGaussianSpec.create("7/3"), int),
    ],
)
def test_run_calls_the_sampler_reproducibly(spec: object, kind: type) -> None:
    first = [spec.run(SeededRandomSource(seed)) for seed in range(40)]
    again = [spec.run(SeededRandomSource(seed)) for seed in range(40)]
    assert first == again
    assert all(type(x) is kind for x in first)
    assert len(set(first)) > 1


def test_parameters_are_exact_strings() -> None:
    assert DiscreteLaplaceSpec.create("0.25", 3).parameters() == {"scale": "1/4", "sensitivity": "3"}
    assert DiscreteGaussianSpec.create("10^100").parameters() == {"sigma2": str(10**100), "sensitivity": "1"}
    assert as_fraction("epsilon", "1/10^49") == Fraction(1, 10**49)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: BernoulliExpSpec.create(0.5), r"gamma must be an exact rational; got gamma=0\.5 \(a float\)"),
        (lambda: BernoulliExpSpec.create("-1/2"), r"gamma must be a rational >= 0; got gamma=-1/2"),
        (lambda: DiscreteLaplaceSpec.create(0), r"scale must be a rational > 0; got scale=0"),
        (lambda: DiscreteLaplaceSpec.create(1.5), r"scale must be an exact rational; got scale=1\.5"),
        (lambda: DiscreteLaplaceSpec.create(1, 0), r"sensitivity must be an integer with sensitivity >= 1"),
        (lambda: DiscreteLaplaceSpec.create(1, "1/2"), r"sensitivity must be an integer with sensitivity >= 1"),
        (lambda: DiscreteGaussianSpec.create("-1"), r"sigma2 must be a rational > 0; got sigma2=-1"),
        (lambda: DiscreteGaussianSpec.create(True), r"sigma2 must be an exact rational; got sigma2=True"),
        (lambda: DiscreteGaussianSpec.create("abc"), r"sigma2 must be a rational such as"),
        (lambda: DiscreteGaussianSpec.create("10^x"), r"sigma2 must be a rational such as"),
        (lambda: DiscreteGaussianSpec.create(1, 2.0), r"sensitivity must be an exact rational"),
        (lambda: DiscreteGaussianSpec.create(1).ideal_probability(0.0), r"output must be an integer; got output=0\.0"),
        (lambda: DiscreteGaussianSpec.create(1).ideal_probability(True), r"output must be an integer"),
        (lambda: DiscreteLaplaceSpec.create(1).ideal_probability(1, dps=0), r"dps must be an integer with dps >= 1"),
        (lambda: BernoulliExpSpec.create(1).ideal_probability(1), r"output must be True or False; got output=1"),
        (lambda: DiscreteGaussianApproxDpClaim(Fraction(1), 1).thresholds("-1/2"), r"epsilon must be a rational >= 0"),
        (lambda: ZcdpClaim(Fraction(0), 1), r"rho must be a rational > 0; got rho=0"),
    ],
)
def test_bad_input_is_refused_with_one_line(call: object, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message) as raised:
        call()  # type: ignore[operator]
    assert "\n" not in str(raised.value)
