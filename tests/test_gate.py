"""The gate on the built-in catalogue, and on deliberately broken samplers declared as specs."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from dpverify.samplers import RandomSource, discrete_laplace, gtm
from dpverify.specs import Attempt, Case, GtmSpec, Spec
from dpverify.verify import Verdict
from dpverify.verify.gate._catalogue import DISCRETE_LAPLACE, GTM, SPECS
from dpverify.verify.gate._spec_run import run_case

SEED = 20261123
CASES = [(spec, case) for spec in SPECS for case in spec.cases]


def _after_smoke(outcome: Any) -> list[Any]:
    """The case's checks after the smoke run (every case with a sampler opens with it)."""
    return [c for c in outcome.checks if c.check != "smoke"]


@pytest.mark.parametrize(("spec", "case"), CASES, ids=[f"{s.name}/{c.describe()}" for s, c in CASES])
def test_every_catalogue_case_meets_its_expectation(spec: Spec, case: Case) -> None:
    outcome = run_case(spec, case, seed=SEED, samples=5_000)
    print(f"{outcome.name}: statistical seed {SEED}")
    assert outcome.met, outcome.problems or outcome.error
    assert outcome.outcome == case.expect


def test_catalogue_has_a_proof_a_refutation_and_general_instances() -> None:
    instances = [(GtmSpec.create(**{k: c.parameters[k] for k in ("alpha", "n", "T")}), c) for c in GTM.cases]
    assert any(c.expect == "proved" and s.is_theorem_7_1_instance() for s, c in instances)
    assert any(c.expect == "violated" and s.T < s.support_bound() for s, c in instances)
    assert sum(not s.is_theorem_7_1_instance() for s, _ in instances) >= 3


def test_the_catalogue_uses_every_kind_of_claim_and_enumeration() -> None:
    kinds = {type(spec.enumeration).__name__ for spec in SPECS}
    assert {"Bisection", "Bounded", "NoneType"} <= kinds
    assert len({spec.name for spec in SPECS}) == len(SPECS)


def _mutant_find_strict(u: int, T: int, cdf: tuple[Fraction, ...]) -> int:
    """The inverse transform with ``<`` where the paper has ``<=`` (falls back to n)."""
    for x, c in enumerate(cdf):
        if u * c.denominator < T * c.numerator:
            return x
    return len(cdf) - 1


def strict_inequality_gtm(alpha: Fraction, n: int, q: int, T: int, rng: RandomSource) -> int:
    """A sampler whose comparison is ``u < CDF`` instead of ``u <= CDF``."""
    u = rng.randbelow(T) + 1
    return _mutant_find_strict(u, T, gtm.cdf_vector(alpha, n, q))


def off_by_one_cdf_gtm(alpha: Fraction, n: int, q: int, T: int, rng: RandomSource) -> int:
    """A sampler whose CDF sums gtpmf up to x - 1 (last entry 1)."""
    u = rng.randbelow(T) + 1
    shifted = (*(sum((gtm.gtpmf(alpha, n, q, y) for y in range(x)), Fraction(0)) for x in range(n)), Fraction(1))
    return gtm.inverse_transform(u, T, shifted)


@pytest.mark.parametrize("mutant", [strict_inequality_gtm, off_by_one_cdf_gtm])
@pytest.mark.parametrize(("alpha", "n", "T"), [("1/3", 4, 4 * 3**4), ("1/4", 3, 5 * 4**3 * 10**30)])
def test_a_broken_gtm_fails_the_gate_with_a_counterexample(mutant: object, alpha: str, n: int, T: int) -> None:
    spec = replace(GTM, sampler=mutant)
    outcome = run_case(spec, Case({"alpha": alpha, "n": n, "T": T}), seed=SEED, samples=5_000)
    assert not outcome.met and outcome.error is None
    exactness = _after_smoke(outcome)[0]
    assert exactness.check == "exactness" and exactness.verdict is Verdict.VIOLATED
    evidence, table = exactness.evidence, GtmSpec.create(alpha, n, T)
    q, output = evidence["q"], evidence["output"]
    assert Fraction(evidence["code_p"]) != table.pmf(q).probability(output)
    assert Fraction(evidence["spec_p"]) == table.pmf(q).probability(output)
    assert any(problem.startswith("exactness violated") for problem in outcome.problems)


def test_the_real_sampler_passes_where_the_mutants_fail() -> None:
    outcome = run_case(GTM, Case({"alpha": "1/3", "n": 4, "T": 4 * 3**4}), seed=SEED, samples=5_000)
    assert outcome.met, outcome.problems


def test_a_passing_smoke_run_is_a_proved_check_in_the_report() -> None:
    from dpverify.verify.gate._gate import outcome_lines

    case = Case({"alpha": "1/3", "n": 4, "T": 4 * 3**4})
    outcome = run_case(GTM, case, seed=SEED, samples=500)
    smoke = outcome.checks[0]
    assert smoke.check == "smoke" and smoke.verdict is Verdict.PROVED
    assert smoke.evidence["inputs_run"] == 5 and smoke.evidence["seed"] == SEED
    assert any(line.split()[:2] == ["smoke", "proved"] for line in outcome_lines(outcome))


def test_an_expectation_that_is_not_met_fails_the_gate() -> None:
    outcome = run_case(GTM, Case({"alpha": "1/2", "n": 5, "T": 10}, "proved"), seed=SEED, samples=1_000)
    assert not outcome.met and outcome.outcome == "violated"
    assert any(problem.startswith("expected privacy proved, got violated") for problem in outcome.problems)
    assert any(problem.startswith("expected z3 proved, got violated") for problem in outcome.problems)


class _ThresholdOffByOne(RandomSource):
    """Every Bernoulli coin ``num/den`` becomes ``(num + 1)/den``: a one-unit threshold error."""

    def __init__(self, inner: RandomSource) -> None:
        self.inner = inner

    def randbelow(self, n: int) -> int:
        return self.inner.randbelow(n)

    def bernoulli(self, num: int, den: int) -> bool:
        return self.inner.bernoulli(num + 1 if 0 < num < den else num, den)


def test_a_noise_sampler_with_a_threshold_bug_fails_the_gate() -> None:
    spec = replace(
        DISCRETE_LAPLACE,
        sampler=lambda scale, rng: discrete_laplace._sample_scaled(
            scale.denominator, scale.numerator, _ThresholdOffByOne(rng)
        ),
        enumeration=Attempt(
            lambda scale, rng: discrete_laplace._attempt_scaled(
                scale.denominator, scale.numerator, _ThresholdOffByOne(rng)
            ),
            min_mass=Fraction(1, 10**6),
        ),
    )
    outcome = run_case(spec, Case({"scale": "3/2", "sensitivity": 1}), seed=SEED, samples=5_000)
    assert not outcome.met
    intervals = _after_smoke(outcome)[0]
    assert intervals.check == "intervals" and intervals.verdict is Verdict.VIOLATED
    assert Fraction(intervals.evidence["gap"]) > 0 and "output" in intervals.evidence
