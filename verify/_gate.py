"""The CI gate: run every check on every catalogue entry and compare with its expectation.

A finite mechanism (GTM) meets its expectation when

- the code's exact PMF equals the spec's (exactness ``proved``),
- the exact privacy verdict equals the expected one,
- Z3, run independently on the same exact table, reaches the same verdict, and
- every statistical cross-check of the real sampler passes.

A noise sampler (discrete Laplace, discrete Gaussian, Bernoulli(exp(-gamma))) meets it when
its interval proof, its statistical check and its accounting checks all prove; its timing
channel is reported as a finding and does not gate.

The gate passes only when every entry meets its expectation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpverify.verify._accounting import check_dgauss_accounting
from dpverify.verify._catalogue import CatalogueEntry, CheckEntry, Entry, NoiseEntry
from dpverify.specs.grid_laplace import GridLaplaceSpec
from dpverify.verify._exactness import check_exactness
from dpverify.verify._grid import check_grid_laplace_claim
from dpverify.verify._intervals import check_intervals
from dpverify.verify._privacy import check_pure_dp, tightest_alpha
from dpverify.verify._results import CheckResult, Verdict
from dpverify.verify._smt import check_ratio_bound_z3
from dpverify.verify._statistics import check_empirical, check_empirical_ideal
from dpverify.verify._timing import check_timing

#: Version of the JSON document ``dpverify check --json`` writes (see the README).
CHECK_SCHEMA = "dpverify.check/1"


@dataclass(frozen=True, slots=True)
class EntryOutcome:
    """The checks run on one entry, its overall outcome, and why it missed its expectation."""

    entry: Entry
    outcome: Verdict
    checks: tuple[CheckResult, ...]
    problems: tuple[str, ...]

    @property
    def met(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.entry.name,
            "mechanism": self.entry.mechanism,
            "parameters": self.entry.parameters,
            **self.entry.claim_json(),
            "why": self.entry.why,
            "expect": self.entry.expect.value,
            "outcome": self.outcome.value,
            "met": self.met,
            "problems": list(self.problems),
            "checks": [c.to_json() for c in self.checks],
        }


def _mechanism_entry(entry: CatalogueEntry, seed: int, samples: int) -> EntryOutcome:
    """Exactness, exact privacy, Z3 and the statistical checks of a finite mechanism."""
    spec, claim = entry.spec, entry.claim()
    exactness = check_exactness(spec)
    table = {q: spec.pmf(q) for q in spec.inputs()}
    privacy = check_pure_dp(tightest_alpha(table, spec.neighbours()), claim)
    smt = check_ratio_bound_z3(table, spec.neighbours(), claim)
    statistical = tuple(
        check_empirical(spec, q, samples=samples, seed=seed + index)
        for index, q in enumerate(entry.statistical_inputs)
    )
    problems = []
    if exactness.verdict is not Verdict.PROVED:
        problems.append(f"exactness {exactness.verdict.value}: {exactness.summary}")
    if privacy.verdict is not entry.expect:
        problems.append(f"expected privacy {entry.expect.value}, got {privacy.verdict.value}")
    if smt.verdict is not privacy.verdict:
        problems.append(f"z3 says {smt.verdict.value} but the exact engine says {privacy.verdict.value}")
    problems += [f"statistical {c.verdict.value}: {c.summary}" for c in statistical if c.verdict is not Verdict.PROVED]
    return EntryOutcome(entry, privacy.verdict, (exactness, privacy, smt, *statistical), tuple(problems))


#: The timing report enumerates the whole sampler, retries included; this budget keeps it quick.
TIMING_MIN_MASS = Fraction(1, 10**5)


def _noise_entry(entry: NoiseEntry, seed: int, samples: int) -> EntryOutcome:
    """Interval proof, statistical check and accounting must prove; the timing channel is a finding."""
    spec = entry.spec
    sampler, renewal = (spec.run_attempt, True) if spec.has_attempt else (spec.run, False)
    gating = [
        check_intervals(sampler, spec.ideal_probability, spec.outputs_for_check(),
                        min_mass=entry.min_mass, attempt=renewal),
        check_empirical_ideal(spec, samples=samples, seed=seed),
        *(check_dgauss_accounting(spec, epsilon) for epsilon in entry.accounting_epsilons),
        *(check(spec) for kind, check in _CLAIM_PROOFS.items() if isinstance(spec, kind)),
    ]
    timing = check_timing(spec.run, min_mass=TIMING_MIN_MASS, outputs=spec.outputs_for_check())
    problems = [f"{c.check} {c.verdict.value}: {c.summary}" for c in gating if c.verdict is not entry.expect]
    outcome = Verdict.PROVED if all(c.verdict is Verdict.PROVED for c in gating) else next(
        c.verdict for c in gating if c.verdict is not Verdict.PROVED
    )
    return EntryOutcome(entry, outcome, (*gating, timing), tuple(problems))


#: Noise specs whose privacy claim has a proof of its own, run as a gating check.
_CLAIM_PROOFS: dict[type, Callable[[Any], CheckResult]] = {
    GridLaplaceSpec: check_grid_laplace_claim,
}


def _check_entry(entry: CheckEntry, seed: int, samples: int) -> EntryOutcome:
    """A standalone proof or attack: its single check must reach the expected verdict."""
    result = entry.run()
    problems = () if result.verdict is entry.expect else (
        f"expected {entry.expect.value}, got {result.verdict.value}: {result.summary}",)
    return EntryOutcome(entry, result.verdict, (result,), problems)


_RUNNERS: dict[type, Callable[[Any, int, int], EntryOutcome]] = {
    CatalogueEntry: _mechanism_entry,
    NoiseEntry: _noise_entry,
    CheckEntry: _check_entry,
}


def run_entry(entry: Entry, *, seed: int, samples: int) -> EntryOutcome:
    """Run every check that applies to ``entry`` and compare with its expectation."""
    return _RUNNERS[type(entry)](entry, seed, samples)


def run_gate(
    entries: Iterable[Entry],
    *,
    seed: int,
    samples: int,
    report: Callable[[EntryOutcome], None] | None = None,
) -> tuple[EntryOutcome, ...]:
    """Run every entry, calling ``report`` as each finishes.

    Statistical seeds are ``seed``, ``seed + 1``, ... within an entry, so one printed seed
    replays the whole run.
    """
    outcomes = []
    for entry in entries:
        outcome = run_entry(entry, seed=seed, samples=samples)
        if report is not None:
            report(outcome)
        outcomes.append(outcome)
    return tuple(outcomes)


def gate_json(
    outcomes: tuple[EntryOutcome, ...], *, seed: int, samples: int, repository: tuple[CheckResult, ...] = ()
) -> dict[str, Any]:
    """The ``dpverify check --json`` document; ``repository`` holds the source-tree checks
    (static rules on samplers/, stale proofs), which must all prove."""
    return {
        "schema": CHECK_SCHEMA,
        "passed": all(o.met for o in outcomes) and all(r.verdict is Verdict.PROVED for r in repository),
        "seed": seed,
        "samples": samples,
        "entries": [o.to_json() for o in outcomes],
        "repository": [r.to_json() for r in repository],
    }
