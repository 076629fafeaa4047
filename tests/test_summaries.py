"""Summarised loops and subroutines: the intervals stay sound and get tight; batch forms and
public entry points are verified by the engine."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.samplers import RandomSource, discrete_gaussian, discrete_laplace
from dpverify.samplers._loops import subroutine, until_accepted
from dpverify.specs import Case
from dpverify.verify import Verdict, enumerate_outputs
from dpverify.verify.engine._enumerate import LoopNeverAccepts
from dpverify.verify.engine._intervals import check_intervals
from dpverify.verify.gate._catalogue import DISCRETE_GAUSSIAN, DISCRETE_LAPLACE, GRID_LAPLACE, SPECS
from dpverify.verify.gate._entry_points import check_entry_points, public_entry_points
from dpverify.verify.gate._spec_run import run_case

SEED = 20261123


def _attempt_third(rng: RandomSource) -> int | None:
    """Uniform on {0, 1, 2} by rejection from {0..3}."""
    z = rng.randbelow(4)
    return None if z == 3 else z


_third = until_accepted(_attempt_third)


@subroutine
def _two_coins(rng: RandomSource) -> int:
    return rng.bernoulli(1, 3) + rng.bernoulli(1, 2)


def test_a_summarised_loop_is_exact_where_its_attempt_is_finite() -> None:
    found = enumerate_outputs(lambda rng: (_third(rng), _third(rng)), summarise=True)
    assert found.exhausted and found.masses == {(a, b): Fraction(1, 9) for a in range(3) for b in range(3)}
    # As it runs, the same code leaves a remainder that only shrinks with depth.
    as_run = enumerate_outputs(lambda rng: (_third(rng), _third(rng)), max_depth=12)
    assert not as_run.exhausted and all(m < Fraction(1, 9) for m in as_run.masses.values())


def test_a_summarised_subroutine_has_the_law_of_its_code() -> None:
    summarised = enumerate_outputs(lambda rng: _two_coins(rng) * 10 + _two_coins(rng), summarise=True)
    walked = enumerate_outputs(lambda rng: _two_coins(rng) * 10 + _two_coins(rng))
    assert summarised.masses == walked.masses and summarised.exhausted
    assert summarised.paths < walked.paths


def test_a_loop_that_never_accepts_is_a_finding_not_a_hang() -> None:
    never = until_accepted(lambda rng: None if rng.randbelow(2) < 2 else 0)
    with pytest.raises(LoopNeverAccepts):
        enumerate_outputs(lambda rng: never(rng), summarise=True)
    result = check_intervals(lambda rng: never(rng), lambda o, dps: (Fraction(1), Fraction(1)), (0,))
    assert result.verdict is Verdict.VIOLATED and "never ends" in result.summary


@pytest.mark.parametrize(("sigma2", "bound"), [("1", Fraction(1, 10**6)), ("5/2", Fraction(1, 10**6))])
def test_the_discrete_gaussian_is_proved_within_one_millionth(sigma2: str, bound: Fraction) -> None:
    case = Case({"sigma2": sigma2, "sensitivity": 1})
    outcome = run_case(DISCRETE_GAUSSIAN, case, seed=SEED, samples=2_000)
    intervals = next(c for c in outcome.checks if c.check == "intervals")
    assert intervals.verdict is Verdict.PROVED and Fraction(intervals.evidence["unexplored"]) <= bound


def _acceptance_one_unit_off(n: int, d: int, rng: RandomSource) -> int | None:
    """The Gaussian attempt with its acceptance exponent's denominator off by one (a change of
    the output law of order 1e-4 at sigma2 = 5/2, which the old restart-by-restart bound of 0.01
    missed).  (A numerator off by one scales every acceptance by the same factor, which the
    loop's normalisation cancels: that mutant is equivalent.)"""
    from math import isqrt

    from dpverify.samplers.bernoulli import _bernoulli_exp_ratio

    t = isqrt(n // d) + 1
    y = discrete_laplace._sample_scaled(1, t, rng)
    numerator = (abs(y) * t * d - n) ** 2
    return y if _bernoulli_exp_ratio(numerator, 2 * n * t * t * d + 1, rng) else None


def test_a_one_unit_error_in_a_gaussian_acceptance_coin_is_caught() -> None:
    loop = until_accepted(_acceptance_one_unit_off)
    mutant = replace(
        DISCRETE_GAUSSIAN,
        sampler=lambda sigma2, rng: loop(sigma2.numerator, sigma2.denominator, rng),
        batch=None,
        refuses=(),
        checks=(),
        timing=False,
    )
    outcome = run_case(mutant, Case({"sigma2": "5/2", "sensitivity": 1}), seed=SEED, samples=2_000)
    intervals = next(c for c in outcome.checks if c.check == "intervals")
    assert intervals.verdict is Verdict.VIOLATED and not outcome.met


def test_a_batch_form_that_repeats_its_first_draw_is_violated() -> None:
    def repeats(scale: Fraction, k: int, rng: RandomSource) -> list[int]:
        first = discrete_laplace.sample(scale, rng)
        return [first] * k

    outcome = run_case(replace(DISCRETE_LAPLACE, batch=repeats), DISCRETE_LAPLACE.cases[0], seed=SEED, samples=2_000)
    batch = next(c for c in outcome.checks if c.check == "batch")
    assert batch.verdict is Verdict.VIOLATED and not outcome.met


def test_a_case_asked_to_stop_at_a_violation_starts_no_later_check() -> None:
    def repeats(scale: Fraction, k: int, rng: RandomSource) -> list[int]:
        return [discrete_laplace.sample(scale, rng)] * k

    spec, case = replace(DISCRETE_LAPLACE, batch=repeats), DISCRETE_LAPLACE.cases[0]
    full = run_case(spec, case, seed=SEED, samples=2_000)
    stopped = run_case(spec, case, seed=SEED, samples=2_000, stop_at_violation=True)
    ran = [c.check for c in stopped.checks]
    assert {"refuses", "statistical"} <= {c.check for c in full.checks} and not full.met
    assert "batch" in ran and "refuses" not in ran and "statistical" not in ran and not stopped.met
    assert stopped.problems[0] == full.problems[0]  # the same violation decides


def test_a_batch_form_that_returns_one_draw_too_few_is_violated() -> None:
    def short(q: Fraction, scale: Fraction, step: Fraction, k: int, rng: RandomSource) -> list[Fraction]:
        from dpverify.samplers import grid_laplace

        return grid_laplace.sample_many(q, scale, step, k - 1, rng)

    outcome = run_case(replace(GRID_LAPLACE, batch=short, checks=()), GRID_LAPLACE.cases[0], seed=SEED, samples=2_000)
    assert next(c for c in outcome.checks if c.check == "batch").verdict is Verdict.VIOLATED


def test_a_batch_form_that_draws_more_than_its_runs_ends_in_the_path_budget() -> None:
    from dpverify.verify.gate._spec_checks import BATCH_PATHS_FLOOR

    def idles(scale: Fraction, k: int, rng: RandomSource) -> list[int]:
        # the right law, but 5000 idle branches per release: more paths than two runs can have
        draws = []
        for _ in range(k):
            rng.randbelow(5000)
            draws.append(discrete_laplace.sample(scale, rng))
        return draws

    outcome = run_case(replace(DISCRETE_LAPLACE, batch=idles), DISCRETE_LAPLACE.cases[0], seed=SEED, samples=2_000)
    batch = next(c for c in outcome.checks if c.check == "batch")
    assert batch.verdict is Verdict.INCONCLUSIVE and not outcome.met
    budget = batch.evidence["max_paths"]
    assert batch.evidence["paths"] == budget and BATCH_PATHS_FLOOR <= budget < DISCRETE_LAPLACE.enumeration.max_paths
    assert "draws otherwise than its single form run 2 times" in batch.summary


@given(st.integers(2, 6), st.integers(1, 5), st.integers(4, 40))
@settings(max_examples=25, deadline=None)
def test_two_runs_walk_at_most_the_square_of_one_runs_paths(n: int, num: int, inverse_mass: int) -> None:
    # the bound the batch check's path budget rests on, on samplers whose branches differ in mass
    def one(rng: RandomSource) -> tuple[int, int]:
        first = rng.randbelow(n)
        flips = 0
        while flips < first + 3 and rng.bernoulli(num, num + first + 1):
            flips += 1
        return first, flips

    min_mass = Fraction(1, inverse_mass**2)
    single = enumerate_outputs(one, min_mass=min_mass, summarise=True)
    joint = enumerate_outputs(lambda rng: (one(rng), one(rng)), min_mass=min_mass, summarise=True)
    assert joint.paths <= single.paths**2


def test_an_output_outside_the_listed_ones_is_violated() -> None:
    def far(sigma2: Fraction, rng: RandomSource) -> int:
        z = discrete_gaussian.sample(sigma2, rng)
        return 10**6 if z == 0 and rng.bernoulli(1, 1000) else z

    outcome = run_case(
        replace(DISCRETE_GAUSSIAN, sampler=far, batch=None, refuses=(), checks=(), timing=False),
        Case({"sigma2": 1, "sensitivity": 1}),
        seed=SEED,
        samples=2_000,
    )
    intervals = next(c for c in outcome.checks if c.check == "intervals")
    assert intervals.verdict is Verdict.VIOLATED and intervals.evidence["output"] == 10**6


def test_the_first_case_of_each_spec_also_samples_the_production_source() -> None:
    outcome = run_case(DISCRETE_LAPLACE, DISCRETE_LAPLACE.cases[0], seed=SEED, samples=2_000, production=True)
    production = next(c for c in outcome.checks if c.check == "statistical_production")
    assert production.verdict is Verdict.PROVED and production.evidence["seed"] is None
    assert "not replayable" in production.summary


def test_every_public_entry_point_is_run_by_a_catalogue_spec() -> None:
    assert check_entry_points(SPECS).verdict is Verdict.PROVED
    assert {"discrete_gaussian.sample_many", "bernoulli.bernoulli", "gtm.sample"} <= set(public_entry_points())


def test_an_entry_point_no_spec_runs_is_reported_by_name() -> None:
    without_batch = [replace(spec, batch=None, refuses=()) if spec.name == "dgauss" else spec for spec in SPECS]
    result = check_entry_points(without_batch)
    assert result.verdict is Verdict.VIOLATED and "discrete_gaussian.sample_many" in result.summary


def test_a_sampler_that_lets_bad_input_through_fails_refuses() -> None:
    def lenient(scale: Fraction | int, rng: RandomSource) -> int:
        return 0 if scale == 0 else discrete_laplace.sample(scale, rng)

    outcome = run_case(
        replace(DISCRETE_LAPLACE, sampler=lenient, batch=None, refuses=({"scale": 0},), timing=False),
        DISCRETE_LAPLACE.cases[0],
        seed=SEED,
        samples=2_000,
    )
    refuses = next(c for c in outcome.checks if c.check == "refuses")
    assert refuses.verdict is Verdict.VIOLATED and "scale=0 was accepted (returned 0)" in refuses.summary
    assert not outcome.met


def test_a_batch_form_that_refuses_k_zero_fails_refuses() -> None:
    def strict(scale: Fraction, k: int, rng: RandomSource) -> list[int]:
        if k < 1:
            raise discrete_laplace.InvalidArgument("k must be >= 1")
        return discrete_laplace.sample_many(scale, k, rng)

    outcome = run_case(
        replace(DISCRETE_LAPLACE, batch=strict, timing=False), DISCRETE_LAPLACE.cases[0], seed=SEED, samples=2_000
    )
    refuses = next(c for c in outcome.checks if c.check == "refuses")
    assert refuses.verdict is Verdict.VIOLATED and "k=0 was refused" in refuses.summary


def test_refuses_must_name_declared_parameters() -> None:
    from dpverify.specs import SpecError

    with pytest.raises(SpecError, match="refuses must be"):
        replace(DISCRETE_LAPLACE, refuses=({"width": 0},))
    with pytest.raises(SpecError, match="declares no batch form"):
        replace(DISCRETE_LAPLACE, batch=None, refuses=({"k": -1},))


def test_a_draw_the_source_refuses_is_a_crash_with_its_draws() -> None:
    from dpverify.verify.engine._enumeration import SamplerCrashed

    def zero_den(rng: RandomSource) -> bool:
        return rng.randbelow(2) == 1 and rng.bernoulli(1, 0)

    with pytest.raises(SamplerCrashed) as crashed:
        enumerate_outputs(zero_den)
    assert crashed.value.draws == [1] and "bernoulli" in str(crashed.value)


def test_fail_fast_stops_at_the_first_unmet_case() -> None:
    from dpverify.verify.gate._discovery import FoundSpec
    from dpverify.verify.gate._gate import run_gate

    lenient = replace(DISCRETE_LAPLACE, refuses=({"scale": "1/2"},), timing=False)
    found = [FoundSpec(lenient, "test", builtin=False)]
    outcomes = run_gate(found, seed=SEED, samples=500, fail_fast=True)
    assert len(outcomes) == 1 and not outcomes[0].met
    assert len(run_gate(found, seed=SEED, samples=500)) == len(lenient.cases)


def test_refuses_wants_the_error_to_name_the_parameter() -> None:
    def vague(scale: Fraction | int, rng: RandomSource) -> int:
        if scale == 0:
            raise discrete_laplace.InvalidArgument("randbelow needs an int n >= 1; got n=0.")
        return discrete_laplace.sample(scale, rng)

    outcome = run_case(
        replace(DISCRETE_LAPLACE, sampler=vague, batch=None, refuses=({"scale": 0},), timing=False),
        DISCRETE_LAPLACE.cases[0],
        seed=SEED,
        samples=2_000,
    )
    refuses = next(c for c in outcome.checks if c.check == "refuses")
    assert refuses.verdict is Verdict.VIOLATED and "does not name scale" in refuses.summary


def test_a_case_bound_inside_an_enclosing_bound_keeps_the_enclosing_one() -> None:
    import signal

    from dpverify.verify.gate._time_bound import time_bound

    signal.setitimer(signal.ITIMER_REAL, 50)
    try:
        with time_bound(5):
            assert 4 < signal.getitimer(signal.ITIMER_REAL)[0] <= 5
        assert 45 < signal.getitimer(signal.ITIMER_REAL)[0] <= 50  # re-armed with what was left
        with time_bound(100):  # the enclosing bound is due first: nothing is set
            assert signal.getitimer(signal.ITIMER_REAL)[0] <= 50
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def test_a_sampler_that_turns_away_the_domain_edge_fails_accepts() -> None:
    def narrow(scale: Fraction | int, rng: RandomSource) -> int:
        if scale >= 100:
            raise discrete_laplace.InvalidArgument(f"scale is too large: scale={scale}.")
        return discrete_laplace.sample(scale, rng)

    edge = replace(DISCRETE_LAPLACE, sampler=narrow, batch=None, refuses=(), accepts=({"scale": 100},), timing=False)
    outcome = run_case(edge, DISCRETE_LAPLACE.cases[0], seed=SEED, samples=2_000)
    accepts = next(c for c in outcome.checks if c.check == "accepts")
    assert accepts.verdict is Verdict.VIOLATED and "scale=100 was refused" in accepts.summary
    assert not outcome.met
    fine = run_case(replace(edge, sampler=discrete_laplace.sample), DISCRETE_LAPLACE.cases[0], seed=SEED, samples=2_000)
    assert next(c for c in fine.checks if c.check == "accepts").verdict is Verdict.PROVED


def test_accepts_must_name_declared_parameters() -> None:
    from dpverify.specs import SpecError

    with pytest.raises(SpecError, match="accepts must be"):
        replace(DISCRETE_LAPLACE, accepts=({"width": 0},))
