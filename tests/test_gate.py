"""The gate on the built-in catalogue, and on deliberately broken GTM samplers."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpverify.samplers import RandomSource, discrete_laplace, gtm
from dpverify.specs import DiscreteLaplaceSpec, GtmSpec
from dpverify.verify import Verdict
from dpverify.verify._catalogue import CatalogueEntry, NoiseEntry, builtin_catalogue
from dpverify.verify._gate import run_entry

SEED = 20261123


def _mutant_find_strict(u: int, T: int, cdf: tuple[Fraction, ...]) -> int:
    """The inverse transform with ``<`` where the paper has ``<=`` (falls back to n)."""
    for x, c in enumerate(cdf):
        if u * c.denominator < T * c.numerator:
            return x
    return len(cdf) - 1


class StrictInequalityGtm(GtmSpec):
    """The real spec, paired with a sampler whose comparison is ``u < CDF`` instead of ``u <= CDF``."""

    def run(self, q: int, rng: RandomSource) -> int:
        u = rng.randbelow(self.T) + 1
        return _mutant_find_strict(u, self.T, gtm.cdf_vector(self.alpha, self.n, q))


class OffByOneCdfGtm(GtmSpec):
    """The real spec, paired with a sampler whose CDF sums gtpmf up to x - 1 (last entry 1)."""

    def run(self, q: int, rng: RandomSource) -> int:
        u = rng.randbelow(self.T) + 1
        shifted = (*(sum((gtm.gtpmf(self.alpha, self.n, q, y) for y in range(x)), Fraction(0))
                     for x in range(self.n)), Fraction(1))
        return gtm.inverse_transform(u, self.T, shifted)


@pytest.mark.parametrize("entry", builtin_catalogue(), ids=lambda entry: entry.name)
def test_every_catalogue_entry_meets_its_expectation(entry: CatalogueEntry | NoiseEntry) -> None:
    outcome = run_entry(entry, seed=SEED, samples=5_000)
    print(f"{entry.name}: statistical seed {SEED}")
    assert outcome.met, outcome.problems
    assert outcome.outcome is entry.expect


def test_catalogue_has_a_proof_a_refutation_and_general_instances() -> None:
    entries = [e for e in builtin_catalogue() if isinstance(e, CatalogueEntry)]
    assert any(e.expect is Verdict.PROVED and e.spec.is_theorem_7_1_instance() for e in entries)
    assert any(e.expect is Verdict.VIOLATED and e.spec.T < e.spec.support_bound() for e in entries)
    assert sum(not e.spec.is_theorem_7_1_instance() for e in entries) >= 3


@pytest.mark.parametrize("mutant", [StrictInequalityGtm, OffByOneCdfGtm])
@pytest.mark.parametrize(("alpha", "n", "T"), [("1/3", 4, 4 * 3**4), ("1/4", 3, 5 * 4**3 * 10**30)])
def test_a_broken_gtm_fails_the_gate_with_a_counterexample(mutant: type[GtmSpec], alpha: str, n: int, T: int) -> None:
    spec = mutant.create(alpha, n, T)
    entry = CatalogueEntry("mutant", spec, Verdict.PROVED, "a broken sampler must not pass")
    outcome = run_entry(entry, seed=SEED, samples=5_000)
    assert not outcome.met
    exactness = outcome.checks[0]
    assert exactness.check == "exactness" and exactness.verdict is Verdict.VIOLATED
    evidence = exactness.evidence
    q, output = evidence["q"], evidence["output"]
    assert Fraction(evidence["code_p"]) != spec.pmf(q).probability(output)
    assert Fraction(evidence["spec_p"]) == spec.pmf(q).probability(output)
    assert any("exactness violated" in problem for problem in outcome.problems)


def test_the_real_sampler_passes_where_the_mutants_fail() -> None:
    spec = GtmSpec.create("1/3", 4, 4 * 3**4)
    outcome = run_entry(CatalogueEntry("real", spec, Verdict.PROVED, "control"), seed=SEED, samples=5_000)
    assert outcome.met, outcome.problems


def test_an_expectation_that_is_not_met_fails_the_gate() -> None:
    spec = GtmSpec.create("1/2", 5, 10)
    outcome = run_entry(CatalogueEntry("wrong expectation", spec, Verdict.PROVED, "x"), seed=SEED, samples=1_000)
    assert not outcome.met
    assert "expected privacy proved, got violated" in outcome.problems


class _ThresholdOffByOne(RandomSource):
    """Every Bernoulli coin ``num/den`` becomes ``(num + 1)/den``: a one-unit threshold error."""

    def __init__(self, inner: RandomSource) -> None:
        self.inner = inner

    def randbelow(self, n: int) -> int:
        return self.inner.randbelow(n)

    def bernoulli(self, num: int, den: int) -> bool:
        return self.inner.bernoulli(num + 1 if 0 < num < den else num, den)


class ThresholdMutantLaplace(DiscreteLaplaceSpec):
    """The real discrete Laplace code with every Bernoulli threshold one unit too high."""

    def run(self, rng: RandomSource) -> int:
        return discrete_laplace.sample_scaled(self.scale.denominator, self.scale.numerator, _ThresholdOffByOne(rng))

    def run_attempt(self, rng: RandomSource) -> int | None:
        return discrete_laplace.attempt_scaled(self.scale.denominator, self.scale.numerator, _ThresholdOffByOne(rng))


def test_a_noise_sampler_with_a_threshold_bug_fails_the_gate() -> None:
    entry = NoiseEntry("mutant", ThresholdMutantLaplace.create("3/2"), "must fail", min_mass=Fraction(1, 10**6))
    outcome = run_entry(entry, seed=SEED, samples=5_000)
    assert not outcome.met
    intervals = outcome.checks[0]
    assert intervals.check == "intervals" and intervals.verdict is Verdict.VIOLATED
    assert Fraction(intervals.evidence["gap"]) > 0 and "output" in intervals.evidence
