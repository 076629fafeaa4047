"""The CI gate: every case of every spec found, compared with its expectation.

What runs on a case is chosen by :mod:`dpverify.verify._spec_run` from the spec's declaration.
The gate passes only when every case meets its expectation and the source tree's own checks
(static rules on samplers/, stale proofs) prove; a spec that cannot be checked as written is a
broken spec, which the command line reports with exit code 2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from dpverify.verify._arguments import DEFAULT_TIME_LIMIT
from dpverify._launch import CHECK_SCHEMA
from dpverify.verify._discovery import FoundSpec
from dpverify.verify._results import CheckResult, Verdict
from dpverify.verify._spec_run import ERROR, CaseOutcome, run_case

__all__ = ["CHECK_SCHEMA", "gate_json", "run_gate"]



def run_gate(
    found: Iterable[FoundSpec],
    *,
    seed: int,
    samples: int,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    report: Callable[[CaseOutcome], None] | None = None,
    fail_fast: bool = False,
) -> tuple[CaseOutcome, ...]:
    """Run every case of every spec, calling ``report`` as each finishes.

    Statistical seeds are ``seed``, ``seed + 1``, ... within a case, so one printed seed
    replays the whole run.  Each spec's first case also samples once from the production
    source (``statistical_production``), the path real users take.  ``time_limit`` bounds each
    case (seconds).  ``fail_fast`` stops after the first case that misses its expectation.
    """
    outcomes = []
    for item in found:
        for index, case in enumerate(item.spec.cases):
            outcome = run_case(item.spec, case, seed=seed, samples=samples, origin=item.origin,
                               production=index == 0, time_limit=time_limit)
            if report is not None:
                report(outcome)
            outcomes.append(outcome)
            if fail_fast and not outcome.met:
                return tuple(outcomes)
    return tuple(outcomes)


def gate_json(
    outcomes: tuple[CaseOutcome, ...], *, seed: int, samples: int, repository: tuple[CheckResult, ...] = ()
) -> dict[str, Any]:
    """The ``dpverify check --json`` document; ``repository`` holds the source-tree checks
    (static rules on samplers/, stale proofs), which must all prove."""
    return {
        "schema": CHECK_SCHEMA,
        "passed": all(o.met for o in outcomes) and all(r.verdict is Verdict.PROVED for r in repository),
        "broken_specs": sum(o.outcome == ERROR for o in outcomes),
        "seed": seed,
        "samples": samples,
        "entries": [o.to_json() for o in outcomes],
        "repository": [r.to_json() for r in repository],
    }
