"""The CI gate: run every check on every catalogue entry and compare with its expectation.

An entry meets its expectation when

- the code's exact PMF equals the spec's (exactness ``proved``),
- the exact privacy verdict equals the expected one,
- Z3, run independently on the same exact table, reaches the same verdict, and
- every statistical cross-check of the real sampler passes.

The gate passes only when every entry meets its expectation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from verify._catalogue import CatalogueEntry
from verify._exactness import check_exactness
from verify._privacy import check_pure_dp, tightest_alpha
from verify._results import CheckResult, Verdict, fraction_text
from verify._smt import check_ratio_bound_z3
from verify._statistics import check_empirical

#: Version of the JSON document ``dpverify check --json`` writes (see the README).
CHECK_SCHEMA = "dpverify.check/1"


@dataclass(frozen=True, slots=True)
class EntryOutcome:
    """The checks run on one entry and whether they met its expectation."""

    entry: CatalogueEntry
    checks: tuple[CheckResult, ...]
    problems: tuple[str, ...]

    @property
    def met(self) -> bool:
        return not self.problems

    @property
    def privacy_verdict(self) -> Verdict:
        return next(c.verdict for c in self.checks if c.check == "privacy")

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.entry.name,
            "mechanism": self.entry.spec.name,
            "parameters": self.entry.spec.parameters(),
            "claim_alpha": fraction_text(self.entry.claim().alpha),
            "why": self.entry.why,
            "expect": self.entry.expect.value,
            "outcome": self.privacy_verdict.value,
            "met": self.met,
            "problems": list(self.problems),
            "checks": [c.to_json() for c in self.checks],
        }


def run_entry(entry: CatalogueEntry, *, seed: int, samples: int) -> EntryOutcome:
    """Run exactness, exact privacy, Z3 and the statistical checks on one entry."""
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
    return EntryOutcome(entry, (exactness, privacy, smt, *statistical), tuple(problems))


def run_gate(
    entries: Iterable[CatalogueEntry],
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


def gate_json(outcomes: tuple[EntryOutcome, ...], *, seed: int, samples: int) -> dict[str, Any]:
    return {
        "schema": CHECK_SCHEMA,
        "passed": all(o.met for o in outcomes),
        "seed": seed,
        "samples": samples,
        "entries": [o.to_json() for o in outcomes],
    }
