"""The draw-count (timing) channel: exact joint law of (output, draws) and its information."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

from dpverify.samplers import RandomSource, discrete_laplace
from dpverify.verify import enumerate_outputs
from dpverify.verify.privacy._timing import check_timing, timing_channel


def _laplace_scale_1(rng: RandomSource) -> int:
    return discrete_laplace._sample_scaled(1, 1, rng)


def test_discrete_laplace_leaks_its_magnitude_through_the_draw_count() -> None:
    found = enumerate_outputs(_laplace_scale_1, min_mass=Fraction(1, 10**7))
    channel = timing_channel(found, outputs=range(0, 6))
    assert channel.verdict.value == "violated"
    assert channel.information_lower > mpmath.mpf("1.2")  # bits, rigorous despite U = 7.5e-4
    assert channel.information_lower <= channel.information_explored[1]
    assert channel.information_upper is None  # the tree is not exhausted
    # More Bernoulli(exp(-1)) coins for a larger |z| (CKS20 Algorithm 2, [DLAP-geometric]).
    means = [channel.mean_draws[z] for z in range(0, 6)]
    assert means == sorted(means) and means[0] < 9 < 11 < means[1]
    witness = channel.witness
    assert witness is not None and witness.gap > 0 and (witness.output, witness.draws) == (0, 5)


def test_timing_report_is_a_finding_not_a_privacy_violation() -> None:
    result = check_timing(lambda rng: discrete_laplace._sample_scaled(2, 3, rng), min_mass=Fraction(1, 10**5))
    assert result.check == "timing_channel" and result.verdict.value == "violated"
    assert "not a violation of the privacy claim" in result.summary
    evidence = json.loads(json.dumps(result.to_json()))["evidence"]
    assert evidence["claim"] == "the number of draws is independent of the output"
    assert float(evidence["information_lower_bits"]) > 0 and evidence["information_upper_bits"] is None
    assert "conditional on the explored paths" in evidence["information_explored_is"]


def test_a_constant_draw_count_carries_no_information() -> None:
    result = check_timing(lambda rng: rng.randbelow(3) + 10 * rng.bernoulli(1, 3) + 100 * rng.bernoulli(0, 2))
    assert result.verdict.value == "proved", result.summary
    assert result.evidence["information_explored_bits"] == ["0.0", "0.0"]
    assert result.evidence["information_upper_bits"] == "0.0"


def test_independence_on_a_pruned_tree_is_only_inconclusive() -> None:
    result = check_timing(lambda rng: rng.randbelow(3) + 10 * rng.bernoulli(1, 3), min_mass=Fraction(1, 5))
    assert result.verdict.value == "inconclusive" and "unexplored" in result.reason


def test_exhausted_information_is_enclosed_exactly() -> None:
    # True after 1 draw (1/2) or 2 draws (1/4); False after 2 draws (1/4):
    # I(O; D) = H(O) - H(O | D) = h(1/4) - 1/2 bits.
    channel = timing_channel(enumerate_outputs(lambda rng: rng.bernoulli(1, 2) or rng.bernoulli(1, 2)), dps=40)
    with mpmath.workdps(40):
        expected = -(mpmath.mpf(1) / 4 * mpmath.log(0.25, 2) + mpmath.mpf(3) / 4 * mpmath.log(0.75, 2)) - 0.5
    low, high = channel.information_explored
    assert low <= expected <= high and high - low < mpmath.mpf(10) ** -30
    assert channel.information_upper == high and channel.information_lower == low
    assert channel.verdict.value == "violated"


def _truncated_geometric_mod_3(rng: RandomSource) -> int:
    k = 0
    while k < 9 and rng.bernoulli(2, 5):
        k += 1
    return k % 3


@pytest.mark.parametrize("min_mass", [Fraction(1, 20), Fraction(1, 100), Fraction(1, 1000)])
def test_the_lower_bound_never_exceeds_the_exact_information(min_mass: Fraction) -> None:
    exact = timing_channel(enumerate_outputs(_truncated_geometric_mod_3))
    assert exact.information_upper is not None
    bound = timing_channel(enumerate_outputs(_truncated_geometric_mod_3, min_mass=min_mass))
    assert bound.information_lower <= exact.information_explored[0]
