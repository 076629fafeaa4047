"""Joint output/timing privacy (verify/privacy/_timing_privacy.py): a sampler whose number of draws
gives its noise away breaks its claim once the time is observed; one whose number of draws is fixed
does not, exactly."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import pytest

from dpverify.samplers import InvalidArgument, RandomSource
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.privacy._timing_privacy import check_timing_privacy, timing_privacy


def _geometric_loop(x: int) -> Callable[[RandomSource], int]:
    """x plus a two-sided geometric noise drawn by a loop: one coin per unit of |noise| (CKS20's shape)."""

    def sample(rng: RandomSource) -> int:
        sign = 1 if rng.randbelow(2) else -1
        k = 0
        while rng.randbelow(3) != 0:  # continue with probability 2/3
            k += 1
        return x + sign * k

    return sample


def _one_draw(x: int) -> Callable[[RandomSource], int]:
    """x plus a noise 0, 1, 2 with probabilities 1/2, 1/4, 1/4, modulo 3: always exactly one draw."""

    def sample(rng: RandomSource) -> int:
        return (x + (0, 0, 1, 2)[rng.randbelow(4)]) % 3

    return sample


def test_a_loop_whose_draw_count_tells_the_noise_breaks_the_claim_once_timed() -> None:
    # the output alone: ratio at most (3/2) * 2 = 3 (k and the sign's duplicated 0), so ln 3 covers it
    result = check_timing_privacy(_geometric_loop, 0, 1, Fraction(11, 10), min_mass=Fraction(1, 10**8))
    assert result.verdict.value == "violated", result.summary
    pair, alone = result.evidence["output_and_draws"], result.evidence["output"]
    # (output, draws) says k = draws - 2 and so the input itself: far beyond ln 3, limited only by U'
    assert float(pair["epsilon_lower_bound"]) > 4
    assert float(alone["epsilon_lower_bound"]) <= math.log(3) + 1e-9
    assert "the running time breaks the claim" in result.summary


def test_a_fixed_number_of_draws_leaks_nothing_more_exactly() -> None:
    result = check_timing_privacy(_one_draw, 0, 1, Fraction(7, 10))  # ln 2 = 0.693... <= 0.7
    assert result.verdict.value == "proved" and result.evidence["exact"]
    pair, alone = result.evidence["output_and_draws"], result.evidence["output"]
    assert pair["ratio_lower_bound"] == alone["ratio_lower_bound"] == "2"  # P(1 | 1) = 1/2 against 1/4
    assert check_timing_privacy(_one_draw, 0, 1, Fraction(69, 100)).verdict.value == "violated"  # ln 2 > 0.69


def test_an_output_one_input_never_gives_has_infinite_epsilon_when_both_trees_are_exhausted() -> None:
    def coin(x: int) -> Callable[[RandomSource], int]:
        return lambda rng: x + rng.randbelow(2)

    found = timing_privacy(enumerate_outputs(coin(0), summarise=False), enumerate_outputs(coin(5), summarise=False))
    assert found.exact and found.output.ratio is None and found.output.epsilon == math.inf


def test_walks_without_draw_counts_are_refused() -> None:
    renewed = enumerate_outputs(_geometric_loop(0), min_mass=Fraction(1, 10**6), renewal=True)
    with pytest.raises(InvalidArgument, match="has no draw counts"):
        timing_privacy(renewed, renewed)


def test_a_sampler_that_raises_on_one_path_is_a_verdict_with_its_draws() -> None:
    def broken(x: int) -> Callable[[RandomSource], int]:
        def sample(rng: RandomSource) -> int:
            k = rng.randbelow(7)
            if k == 6:
                raise ZeroDivisionError("bug")
            return x + k

        return sample

    result = check_timing_privacy(broken, 0, 1, Fraction(1))
    assert result.verdict.value == "violated" and result.evidence["draws"] == [6]
    assert "ZeroDivisionError" in result.evidence["error"]
