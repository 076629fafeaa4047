"""The discrete Gaussian's tight calibration and its check.

Oracles: the direct hockey-stick sum over the integers (independent of Theorem 7's tail formula)
and the classic calibration ``sigma^2 = 2 ln(1.25/delta) s^2 / eps^2``, which the tight one must
not exceed; optionally dp-accounting's PLD of the discrete Gaussian.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from dpverify.samplers import InvalidArgument
from dpverify.specs._interval_tools import mpf_fraction
from dpverify.verify import Verdict, check_gaussian_mechanism, dgauss_delta_hockey_stick, tight_sigma2


@pytest.mark.parametrize(
    ("sensitivity", "epsilon", "delta"), [(1, 1, "1e-6"), (1, "1/10", "1e-6"), (2, "1/2", "1e-5"), (3, "0.9", "1e-9")]
)
def test_tight_sigma2_is_certified_and_smallest_on_its_grid(sensitivity: int, epsilon: str, delta: str) -> None:
    result = tight_sigma2(sensitivity, epsilon, delta)
    claimed = Fraction(delta)
    assert check_gaussian_mechanism(result.sigma2, sensitivity, epsilon, delta).verdict is Verdict.PROVED
    assert result.below == result.sigma2 - result.step
    assert check_gaussian_mechanism(result.below, sensitivity, epsilon, delta).verdict is Verdict.VIOLATED
    assert Fraction(result.delta_interval[1]) <= claimed < Fraction(result.below_delta_interval[0])
    # the independent hockey-stick sum agrees on both sides
    low, high = dgauss_delta_hockey_stick(result.sigma2, epsilon, sensitivity, dps=20)
    assert mpf_fraction(high) <= claimed
    low, _ = dgauss_delta_hockey_stick(result.below, epsilon, sensitivity, dps=20)
    assert mpf_fraction(low) > claimed
    # never above the classic calibration (eps < 1 there)
    if Fraction(epsilon) < 1:
        with mpmath.workdps(30):
            classic = (
                2
                * mpmath.log(1.25 / mpmath.mpf(Fraction(delta).numerator) * Fraction(delta).denominator)
                * sensitivity**2
                / mpmath.mpf(float(Fraction(epsilon))) ** 2
            )
        assert float(result.sigma2) <= classic
        print(
            f"s={sensitivity} eps={epsilon} delta={delta}: tight sigma2 = {float(result.sigma2)}, "
            f"classic = {mpmath.nstr(classic, 8)}, ratio {float(result.sigma2) / float(classic):.3f}"
        )


def test_more_dimensions_use_zcdp_and_cost_more() -> None:
    one = tight_sigma2(2, "1/2", "1e-5")
    many = tight_sigma2(2, "1/2", "1e-5", dims=4)
    assert many.sigma2 >= one.sigma2 and "zCDP" in many.method
    assert check_gaussian_mechanism(many.sigma2, 2, "1/2", "1e-5", dims=4).verdict is Verdict.PROVED
    below = check_gaussian_mechanism(many.below, 2, "1/2", "1e-5", dims=4)
    assert below.verdict is not Verdict.PROVED  # an upper bound only: inconclusive, or violated via one coordinate
    rational = tight_sigma2("3/2", "1/2", "1e-5", dims=4)  # an L2 sensitivity need not be an integer
    assert rational.sigma2 < many.sigma2


def test_one_coordinate_shift_shows_a_violation() -> None:
    result = check_gaussian_mechanism(10, 2, 1, "1e-6", dims=3)
    assert result.verdict is Verdict.VIOLATED and result.evidence["one_coordinate_shift"] == 2
    assert Fraction(result.evidence["one_coordinate_delta"][0]) > Fraction(1, 10**6)


def test_astronomically_small_deltas_are_compared_and_printed_without_expanding_them() -> None:
    """delta ~ 10^-(10^58): compared with the claim exactly, printed through an interval."""
    result = check_gaussian_mechanism(50, "1/10^50", "0.1", "1/3", dims=5)
    assert result.verdict is Verdict.PROVED
    low, high = result.evidence["delta_certified"]  # Fraction() of these would compute 10^(10^58)
    (low_mantissa, low_exponent), (high_mantissa, high_exponent) = low.split("e"), high.split("e")
    assert low_exponent == high_exponent and int(high_exponent) < -(10**58)
    assert Fraction(low_mantissa) <= Fraction(high_mantissa) <= Fraction(low_mantissa) * (1 + Fraction(1, 10**18))


def test_a_given_step() -> None:
    result = tight_sigma2(1, 1, "1e-6", step="1/1000")
    assert result.step == Fraction(1, 1000) and (result.sigma2 * 1000).denominator == 1
    coarse = tight_sigma2(1, 1, "1e-6", step=1)
    assert coarse.sigma2 == 18 and result.sigma2 <= coarse.sigma2


def test_matches_dp_accounting_discrete_gaussian_pld() -> None:
    """dp-accounting's optimistic and pessimistic PLDs of the discrete Gaussian bracket our exact delta."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    result = tight_sigma2(1, 1, "1e-6")
    sigma = float(result.sigma2) ** 0.5
    low, high = (
        pld.from_discrete_gaussian_mechanism(
            sigma, sensitivity=1, pessimistic_estimate=pessimistic
        ).get_delta_for_epsilon(1.0)
        for pessimistic in (False, True)
    )
    ours = float(Fraction(result.delta_interval[1]))
    print(f"discrete Gaussian sigma2={result.sigma2}: dp-accounting PLD [{low}, {high}], ours {ours}")
    assert low * (1 - 1e-9) <= ours <= high * (1 + 1e-9)  # the two discretisations bracket the truth


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: tight_sigma2(1, 0, "1e-6"), "epsilon must be a rational with 0 < epsilon"),
        (lambda: tight_sigma2(1, 1, 0), r"delta must be a rational in \(0, 1\)"),
        (lambda: tight_sigma2("1/2", 1, "1e-6"), "sensitivity must be"),
        (lambda: tight_sigma2(1, 1, "1e-6", dims=0), "dims must be"),
        (lambda: tight_sigma2(1, 1, "1e-6", step="1e-30"), "step must be"),
        (lambda: check_gaussian_mechanism(0, 1, 1, "1e-6"), "sigma2 must be"),
        (lambda: check_gaussian_mechanism(1.5, 1, 1, "1e-6"), "sigma2 must be an exact rational"),
    ],
)
def test_bad_input_is_one_line(call: object, match: str) -> None:
    with pytest.raises(InvalidArgument, match=match) as caught:
        call()  # type: ignore[operator]
    assert "\n" not in str(caught.value)
