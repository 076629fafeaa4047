"""A black-box privacy row states the certified delta at the claimed epsilon beside the certified
epsilon at the claimed delta, from the same two held-out Clopper-Pearson bounds."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpverify.verify.published._blackbox_privacy import _delta_lower, _delta_text

probabilities = st.fractions(min_value=0, max_value=1, max_denominator=10**6)


@given(probabilities, probabilities, st.fractions(min_value=0, max_value=20, max_denominator=1000))
def test_the_delta_bound_is_below_the_true_value_and_tight(low: Fraction, high: Fraction, epsilon: Fraction) -> None:
    bound = _delta_lower(low, high, epsilon)
    with mpmath.workdps(60):  # the true value, far more precisely than the bound's 128 bits
        exact = mpmath.mpf(low.numerator) / low.denominator - mpmath.exp(
            mpmath.mpf(epsilon.numerator) / epsilon.denominator
        ) * (mpmath.mpf(high.numerator) / high.denominator)
        gap = exact - mpmath.mpf(bound.numerator) / bound.denominator
        assert gap >= -(mpmath.mpf(10) ** -50)  # a lower bound (up to this computation's own rounding)
        assert gap <= mpmath.mpf(10) ** -30 * max(1, mpmath.exp(20))  # and a tight one


def test_a_claim_given_as_alpha_gives_the_exact_delta() -> None:
    assert _delta_lower(Fraction(1, 2), Fraction(1, 10), None, alpha=Fraction(1, 3)) == Fraction(1, 2) - Fraction(3, 10)


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (Fraction(-1, 5), "0"),
        (Fraction(0), "0"),
        (Fraction(1, 2), "0.5"),
        (Fraction(381459, 10**7), "0.03814"),
        (Fraction(1, 10**9), "0.000000001"),
    ],
)
def test_the_delta_is_shown_rounded_down(delta: Fraction, text: str) -> None:
    assert _delta_text(delta) == text


def test_numpys_float_laplace_row_names_both_bounds() -> None:
    pytest.importorskip("numpy")
    from dpverify.verify.published._blackbox import audit_case
    from dpverify.verify.published._blackbox_specs import NUMPY_LAPLACE

    result = audit_case(NUMPY_LAPLACE, NUMPY_LAPLACE.cases[0], seed=1, samples=20000, time_limit=120)
    [privacy] = [c for c in result.checks if c.check == "blackbox_privacy"]
    assert privacy.verdict.value == "violated"
    evidence = privacy.evidence
    low, high = Fraction(evidence["p_more_likely_lower"]), Fraction(evidence["p_less_likely_upper"])
    delta = Fraction(evidence["delta_lower_bound_at_epsilon"])
    assert 0 < delta <= low - high  # e^epsilon > 1: below the bound with no growth at all
    assert f"delta >= {evidence['delta_lower_bound_at_epsilon_decimal']} at epsilon = " in privacy.summary
