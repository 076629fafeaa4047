"""Discrete Gaussian accounting: CKS20 Theorem 7's delta against independent computations.

Oracles: the hockey-stick sum over the integers (our direct implementation), and plain mpmath
at high precision without intervals: Jacobi theta for the normaliser, the hockey-stick sum term
by term, the positive-term form ``sum_{y >= m1} f(y) (1 - e^(-g(y)))`` for ``sigma2 = 10^100``,
and ``erfc`` with two Euler–Maclaurin terms where ``sigma2 = 10^100`` makes the rest negligible.
"""

from __future__ import annotations

import json
from decimal import Decimal, localcontext
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.samplers import InvalidArgument
from dpverify.specs._enclosure import interval_precision
from dpverify.verify.privacy import _accounting
from dpverify.verify.privacy._accounting import (
    decimal_enclosure,
    dgauss_delta,
    dgauss_delta_hockey_stick,
    dgauss_privacy,
    gaussian_upper_integral,
)


def _overlap(a: tuple[mpmath.mpf, mpmath.mpf], b: tuple[mpmath.mpf, mpmath.mpf]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _relative_width(enclosure: tuple[mpmath.mpf, mpmath.mpf]) -> mpmath.mpf:
    with mpmath.workprec(400):
        return (enclosure[1] - enclosure[0]) / enclosure[0]


def _mp(value: Fraction) -> mpmath.mpf:
    return mpmath.mpf(value.numerator) / value.denominator


def _hockey_stick_oracle(sigma2: Fraction, epsilon: Fraction, D: int, radius: int = 400) -> mpmath.mpf:
    """``sum_z max(0, P(z) - e^eps P(z-D))`` in plain mpmath, ``N`` by Jacobi theta."""
    s, eps = _mp(sigma2), _mp(epsilon)
    normaliser = mpmath.jtheta(3, 0, mpmath.exp(-1 / (2 * s)))

    def p(z: int) -> mpmath.mpf:
        return mpmath.exp(-mpmath.mpf(z * z) / (2 * s)) / normaliser

    return mpmath.fsum(max(0, p(z) - mpmath.exp(eps) * p(z - D)) for z in range(-radius, radius + D))


# --- known values ---------------------------------------------------------------------------------------


def test_known_value_sigma2_1_epsilon_1_sensitivity_1() -> None:
    """delta = 0.14135133940562190809954167711568782282614576897994735700104 (mpmath, 60 digits,
    Jacobi theta plus the term-by-term hockey-stick sum)."""
    enclosure = dgauss_delta(1, 1, 1, dps=50)
    with mpmath.workdps(70):
        oracle = _hockey_stick_oracle(Fraction(1), Fraction(1), 1)
        assert (
            abs(oracle - mpmath.mpf("0.14135133940562190809954167711568782282614576897994735700104"))
            < mpmath.mpf(10) ** -58
        )
        assert enclosure[0] <= oracle <= enclosure[1]
    assert _relative_width(enclosure) <= mpmath.mpf(10) ** -50
    report = dgauss_privacy(1, 1, 1)
    assert report["delta"].startswith("1.413513394056219080995416771156878228")
    assert report["rho"] == "1/2"


@pytest.mark.parametrize(
    ("sigma2", "epsilon", "D"),
    [
        (Fraction(7, 3), Fraction(1, 2), 2),
        (Fraction(7, 3), Fraction(0), 1),
        (Fraction(1, 10), Fraction(3), 1),
        (Fraction(25, 2), Fraction(1, 4), 3),
        (Fraction(40), Fraction(2), 5),
        (Fraction(1), Fraction(100), 1),
    ],
)
def test_theorem_7_agrees_with_the_hockey_stick_sum_and_an_mpmath_oracle(
    sigma2: Fraction, epsilon: Fraction, D: int
) -> None:
    theorem = dgauss_delta(sigma2, epsilon, D, dps=40)
    hockey = dgauss_delta_hockey_stick(sigma2, epsilon, D, dps=40)
    assert _overlap(theorem, hockey)
    assert _relative_width(theorem) <= mpmath.mpf(10) ** -40
    assert _relative_width(hockey) <= mpmath.mpf(10) ** -40
    if theorem[0] > mpmath.mpf(10) ** -200:  # the plain-mpmath oracle needs a representable value
        with mpmath.workdps(80):
            oracle = _hockey_stick_oracle(sigma2, epsilon, D)
            assert abs(oracle - theorem[0]) <= mpmath.mpf(10) ** -38 * oracle


@settings(max_examples=15)
@given(
    sigma2=st.fractions(min_value=Fraction(1, 20), max_value=Fraction(300), max_denominator=30),
    epsilon=st.fractions(min_value=0, max_value=4, max_denominator=20),
    D=st.integers(1, 6),
)
def test_theorem_7_agrees_with_the_hockey_stick_sum(sigma2: Fraction, epsilon: Fraction, D: int) -> None:
    assert _overlap(dgauss_delta(sigma2, epsilon, D, dps=30), dgauss_delta_hockey_stick(sigma2, epsilon, D, dps=30))


@settings(max_examples=15)
@given(
    sigma2=st.fractions(min_value=Fraction(1, 10), max_value=Fraction(10**4), max_denominator=10),
    eps=st.lists(st.fractions(min_value=0, max_value=5, max_denominator=100), min_size=2, max_size=2, unique=True),
    D=st.integers(1, 4),
)
def test_delta_is_strictly_decreasing_in_epsilon(sigma2: Fraction, eps: list[Fraction], D: int) -> None:
    small, large = sorted(eps)
    assert dgauss_delta(sigma2, large, D, dps=30)[1] < dgauss_delta(sigma2, small, D, dps=30)[0]


def test_delta_grows_with_the_shift_up_to_the_sensitivity() -> None:
    """Theorem 7's worst case is a shift of exactly D: shifts d < D give a smaller delta."""
    values = [dgauss_delta_hockey_stick("7/3", "1/2", d, dps=30) for d in (1, 2, 3)]
    assert values[0][1] < values[1][0] and values[1][1] < values[2][0]


# --- huge sigma2 ---------------------------------------------------------------------------------------


def test_sigma2_10_to_the_100_epsilon_1_matches_the_positive_term_sum() -> None:
    """delta * N = sum_{y >= m1} f(y) (1 - e^(-g(y))), g(y) = (2y+1)/(2 sigma2) - eps > 0 for
    D = 1: all terms positive, summed in plain mpmath at 300 digits (the exponent m1^2/(2 sigma2)
    is about 5 * 10^99, so 300 digits keep ~200 of the result); 600 terms leave < e^-500."""
    sigma2 = 10**100
    low, high = dgauss_delta(sigma2, 1, 1, dps=40)
    assert 0 < low <= high
    with mpmath.workdps(300):
        s = mpmath.mpf(sigma2)
        m1 = sigma2  # floor(eps*sigma2/D - D/2) + 1 with eps = D = 1
        terms = (
            mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * s)) * -mpmath.expm1(-((2 * mpmath.mpf(y) + 1) / (2 * s) - 1))
            for y in range(m1, m1 + 600)
        )
        oracle = mpmath.fsum(terms) / mpmath.sqrt(2 * mpmath.pi * s)
        assert low <= oracle <= high
    assert _relative_width((low, high)) <= mpmath.mpf(10) ** -40


@pytest.mark.parametrize(
    ("epsilon", "D"), [(Fraction(1, 10**49), 1), (Fraction(3, 10**50), 2), (Fraction(1, 10**52), 3)]
)
def test_sigma2_10_to_the_100_small_epsilon_matches_erfc(epsilon: Fraction, D: int) -> None:
    """T(m) = sigma sqrt(pi/2) erfc(m/(sigma sqrt 2)) + f(m)/2 + (m/sigma2) f(m)/12 + O(sigma^-3 f)
    (Euler–Maclaurin; with sigma = 10^50 the omitted terms are ~10^-150 relative) and N =
    sqrt(2 pi sigma2); mpmath's erfc at 250 digits."""
    sigma2 = 10**100
    low, high = dgauss_delta(sigma2, epsilon, D, dps=40)
    with mpmath.workdps(250):
        s, eps = mpmath.mpf(sigma2), _mp(epsilon)
        sigma = mpmath.sqrt(s)
        m1 = int(mpmath.floor(eps * s / D - mpmath.mpf(D) / 2)) + 1
        m2 = int(mpmath.floor(eps * s / D + mpmath.mpf(D) / 2)) + 1

        def tail(m: int) -> mpmath.mpf:
            f = mpmath.exp(-(mpmath.mpf(m) ** 2) / (2 * s))
            return (
                sigma * mpmath.sqrt(mpmath.pi / 2) * mpmath.erfc(m / (sigma * mpmath.sqrt(2))) + f / 2 + m / s * f / 12
            )

        oracle = (tail(m1) - mpmath.exp(eps) * tail(m2)) / mpmath.sqrt(2 * mpmath.pi * s)
        assert abs(oracle - low) <= mpmath.mpf(10) ** -39 * oracle
    assert _relative_width((low, high)) <= mpmath.mpf(10) ** -40


def test_sigma2_10_to_the_100_privacy_report_is_finite_and_decreasing() -> None:
    report = dgauss_privacy("10^100", "1/10^49", 1)
    assert report["tail_method"] == "euler-maclaurin"
    assert report["normaliser_method"] == "poisson"
    assert report["hockey_stick_skipped"] and report["delta_hockey_stick"] is None
    value = Decimal(report["delta"])
    assert value.is_finite() and 0 < value < 1
    larger_epsilon = Decimal(dgauss_privacy("10^100", "2/10^49", 1)["delta"])
    assert larger_epsilon < value
    huge = dgauss_privacy("10^100", 1, 1)  # about 1.74 * 10^(-2.17 * 10^99): beyond Decimal's range
    mantissa, _, exponent = huge["delta"].partition("e")
    assert 1 <= Decimal(mantissa) < 10 and len(mantissa) - 1 == huge["delta_digits"] >= 15
    assert exponent.startswith("-2171472409516259138255644594583025411471985029018332830572268915829")
    assert len(exponent) == 101


def test_euler_maclaurin_tails_agree_with_direct_tails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Force Euler–Maclaurin where the direct sum also works: the enclosures must overlap."""
    cases = [
        (Fraction(50), Fraction(1, 5), 2),
        (Fraction(10**4), Fraction(1, 50), 1),
        (Fraction(10**4), Fraction(2), 3),
    ]
    direct = [dgauss_delta(*case, dps=40) for case in cases]
    monkeypatch.setattr(_accounting, "DIRECT_MAX_TERMS", 0)
    for case, expected in zip(cases, direct, strict=True):
        forced = dgauss_delta(*case, dps=40)
        assert _overlap(forced, expected)
        assert _relative_width(forced) <= mpmath.mpf(10) ** -40


@pytest.mark.parametrize("x", ["0", "1/1000", "1", "7/2", "9", "12", "40", "10^20"])
def test_gaussian_upper_integral_encloses_erfc(x: str) -> None:
    """G(x) = sqrt(pi/2) erfc(x / sqrt 2): series branch for small x, continued fraction above."""
    value = Fraction(x) if "^" not in x else Fraction(10**20)
    with interval_precision(300):
        enclosure = gaussian_upper_integral(mpmath.iv.mpf(value.numerator) / value.denominator)
    low, high = mpmath.mp.make_mpf(enclosure._mpi_[0]), mpmath.mp.make_mpf(enclosure._mpi_[1])
    with mpmath.workprec(800):  # the exponent x^2/2 = 5 * 10^39 eats 133 bits
        oracle = mpmath.sqrt(mpmath.pi / 2) * mpmath.erfc(_mp(value) / mpmath.sqrt(2))
        assert low <= oracle <= high
        assert (high - low) <= mpmath.mpf(2) ** -280 * oracle


# --- the JSON report ----------------------------------------------------------------------------------


def test_privacy_report_fields() -> None:
    report = dgauss_privacy("7/3", "1/2", 2)
    json.dumps(report)  # JSON-ready
    assert report["parameters"] == {"sigma2": "7/3", "epsilon": "1/2", "sensitivity": "2"}
    assert report["rho"] == "6/7"
    assert report["delta_digits"] >= 15
    with localcontext() as context:
        context.prec = 200
        low, high = (Decimal(t) for t in report["delta_interval"])
        delta = Decimal(report["delta"])
        half_unit = Decimal(5) * Decimal(10) ** (delta.adjusted() - report["delta_digits"])
        assert high - half_unit <= delta <= low + half_unit  # within half a unit of all of [low, high]
    assert report["hockey_stick_agrees"] is True
    assert report["delta_hockey_stick"][:20] == report["delta"][:20]
    assert report["method"].startswith("CKS20 Theorem 7")


def test_decimal_enclosure_rounds_and_certifies() -> None:
    with mpmath.workdps(60):
        low, high = mpmath.mpf("0.123456789012345678901"), mpmath.mpf("0.123456789012345678902")
        text, digits, low_text, high_text = decimal_enclosure(low, high, 30)
        assert (text, digits) == ("1.2345678901234567890e-1", 20)
        assert Decimal(low_text) <= Decimal(str(low)) and Decimal(high_text) >= Decimal(str(high))
        # a run of nines: rounding certifies 1.000..., truncation could not
        low, high = 1 - mpmath.mpf(10) ** -50, mpmath.mpf(1)
        text, digits, _, _ = decimal_enclosure(low, high, 30)
        assert text == "1." + "0" * 29 + "e0" and digits == 30
        # an interval too wide for one digit
        assert decimal_enclosure(mpmath.mpf("0.14"), mpmath.mpf("0.26"), 10)[:2] == ("", 0)


# --- validation -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: dgauss_delta(1, 0.5), r"epsilon must be an exact rational; got epsilon=0\.5 \(a float\)"),
        (lambda: dgauss_delta(1, "-1/2"), r"epsilon must be a rational >= 0; got epsilon=-1/2"),
        (lambda: dgauss_delta(0, 1), r"sigma2 must be a rational > 0; got sigma2=0"),
        (lambda: dgauss_delta(2.0, 1), r"sigma2 must be an exact rational; got sigma2=2\.0"),
        (lambda: dgauss_delta(1, 1, 0), r"sensitivity must be an integer with sensitivity >= 1; got sensitivity=0"),
        (lambda: dgauss_delta(1, 1, "3/2"), r"sensitivity must be an integer with sensitivity >= 1"),
        (lambda: dgauss_delta(1, 1, True), r"sensitivity must be an exact rational; got sensitivity=True"),
        (lambda: dgauss_delta(1, 1, 1, dps=0), r"dps must be an integer with dps >= 1"),
        (lambda: dgauss_privacy(1, "e"), r"epsilon must be a rational such as"),
        (lambda: dgauss_delta_hockey_stick("10^7", 1), r"sigma2 must be <= 10\^6 for a direct hockey-stick sum"),
        (lambda: dgauss_delta_hockey_stick(1, 1, 10**7), r"sensitivity must be at most about"),
    ],
)
def test_bad_input_is_refused_with_one_line(call: object, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message) as raised:
        call()  # type: ignore[operator]
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    "x",
    [
        Fraction(0),
        Fraction(1, 3),
        Fraction(700),
        Fraction(5 * 10**8),
        Fraction(2**4096),
        Fraction(2**4096 + 1),
        Fraction(3 * 2**16607 + 1, 3),
    ],
)
def test_exp_neg_encloses_e_to_the_minus_x(x: Fraction) -> None:
    from mpmath import iv

    from dpverify.specs._enclosure import EXP_NEG_CUTOFF, exp_neg

    enclosure = exp_neg(x)
    if x <= EXP_NEG_CUTOFF:  # computed: the same enclosure as mpmath's
        exact = iv.exp(-iv.mpf(x.numerator) / x.denominator)
        assert enclosure.a == exact.a and enclosure.b == exact.b
    else:  # 0 <= e^-x <= 2^-x <= 2^-floor(x)
        assert enclosure.a == 0 and enclosure.b == mpmath.ldexp(1, -(x.numerator // x.denominator))


def test_dgauss_delta_at_a_vanishing_variance_is_one() -> None:
    """sigma^2 = 3/2^16609: the neighbours' laws are disjoint but for e^(-2^16607)-sized tails."""
    low, high = dgauss_delta(Fraction(3, 2**16609 + 1), 0)
    assert low <= 1 <= high and 1 - low < mpmath.mpf(10) ** -30
