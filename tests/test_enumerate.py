"""Exhaustive enumeration and bisection over a sampler's draws."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpverify.samplers import RandomSource, SamplerContractError, gtm
from dpverify.verify import bisect_outputs, enumerate_outputs
from dpverify.verify.engine._enumeration import SamplerCrashed


def _geometric(rng: RandomSource) -> int:
    """Count fair-coin heads before the first tail: P(k) = 2^-(k+1), an unbounded loop."""
    k = 0
    while rng.bernoulli(1, 2):
        k += 1
    return k


def test_depth_budget_reports_the_exact_remainder() -> None:
    found = enumerate_outputs(_geometric, max_depth=10)
    assert found.masses == {k: Fraction(1, 2 ** (k + 1)) for k in range(10)}
    assert found.unexplored == Fraction(1, 2**10)
    assert not found.exhausted


def test_path_budget_reports_the_exact_remainder() -> None:
    found = enumerate_outputs(lambda rng: rng.randbelow(10), max_paths=4)
    assert sum(found.masses.values()) == Fraction(4, 10)
    assert found.unexplored == Fraction(6, 10)


def test_nested_choices_are_weighted_by_their_product() -> None:
    def two_stage(rng: RandomSource) -> int:
        return rng.randbelow(3) if rng.bernoulli(1, 4) else 10 + rng.randbelow(2)

    found = enumerate_outputs(two_stage)
    assert found.masses == {
        0: Fraction(1, 12),
        1: Fraction(1, 12),
        2: Fraction(1, 12),
        10: Fraction(3, 8),
        11: Fraction(3, 8),
    }


@pytest.mark.parametrize("T", [1, 2, 7, 100, 997])
def test_bisection_equals_exhaustive_enumeration(T: int) -> None:
    def sampler(rng: RandomSource) -> int:
        return gtm.sample("2/5", 4, 1, T, rng)

    assert bisect_outputs(sampler, T).masses == enumerate_outputs(sampler).masses


def test_bisection_runs_log_T_times_per_output() -> None:
    T = 10**100
    found = bisect_outputs(lambda rng: gtm.sample("1/3", 5, 2, T, rng), T)
    assert sum(found.masses.values()) == 1
    assert found.executions <= 6 * (T.bit_length() + 2)


def test_bisection_refuses_a_second_draw() -> None:
    with pytest.raises(SamplerContractError, match="exactly one draw"):
        bisect_outputs(lambda rng: rng.randbelow(8) + rng.randbelow(8), 8)


def test_bisection_detects_a_non_monotone_sampler() -> None:
    with pytest.raises(SamplerContractError, match="not monotone"):
        bisect_outputs(lambda rng: rng.randbelow(64) % 2, 64)


def test_a_crashing_sampler_is_reported_with_its_draws() -> None:
    def crashes_on_three(rng: RandomSource) -> int:
        value = rng.randbelow(5)
        if value == 3:
            raise ZeroDivisionError("boom")
        return value

    with pytest.raises(SamplerCrashed) as crashed:
        enumerate_outputs(crashes_on_three)
    assert crashed.value.draws == [3]


def test_a_sampler_whose_choices_change_on_replay_is_refused() -> None:
    calls = iter(range(1000))

    def unstable(rng: RandomSource) -> int:
        return rng.randbelow(2 if next(calls) == 0 else 1)

    with pytest.raises(SamplerContractError, match="replayed path"):
        enumerate_outputs(unstable)
