"""The CI gate: every case of every spec found, compared with its expectation.

What runs on a case is chosen by :mod:`dpverify.verify._spec_run` from the spec's declaration.
The gate passes only when every case meets its expectation and the source tree's own checks
(static rules on samplers/, stale proofs) prove; a spec that cannot be checked as written is a
broken spec, which the command line reports with exit code 2.

Cases can run in parallel (:func:`~dpverify.verify._sweep.sweep`: local worker processes, or a
Dask cluster).  A case's result never depends on where it ran: every case gets the same seed
(its statistical seeds are ``seed``, ``seed + 1``, ... within it), the same samples and time
bound, and the outcomes come back in the catalogue's order.  A worker finds the spec again by its
name (from the spec modules, or the installed entry points), so it needs the same packages.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from dpverify.samplers import DpverifyError
from dpverify.specs import Spec
from dpverify.specs._api import Case
from dpverify.verify._arguments import DEFAULT_TIME_LIMIT
from dpverify._launch import CHECK_SCHEMA
from dpverify.verify._discovery import FoundSpec, discover
from dpverify.verify._results import CheckResult, Verdict
from dpverify.verify._spec_run import ERROR, CaseOutcome, run_case
from dpverify.verify._sweep import sweep_results

__all__ = ["CHECK_SCHEMA", "gate_json", "run_gate"]



def run_gate(
    found: Iterable[FoundSpec],
    *,
    seed: int,
    samples: int,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    report: Callable[[CaseOutcome], None] | None = None,
    fail_fast: bool = False,
    jobs: int | None = 1,
    scheduler: str | None = None,
    spec_modules: Sequence[str] = (),
) -> tuple[CaseOutcome, ...]:
    """Run every case of every spec, calling ``report`` as each finishes (in the order found).

    Statistical seeds are ``seed``, ``seed + 1``, ... within a case, so one printed seed
    replays the whole run.  Each spec's first case also samples once from the production
    source (``statistical_production``), the path real users take.  ``time_limit`` bounds each
    case (seconds).  ``fail_fast`` stops after the first case that misses its expectation.

    ``jobs = 1`` (the default) runs the cases here, one after the other.  Otherwise they run
    through :func:`~dpverify.verify._sweep.sweep`, ``jobs`` at a time (None: one per core, or
    the cluster's worker threads), on local worker processes or, with ``scheduler``, on that
    Dask cluster; each worker finds the spec by name in ``spec_modules`` (the entry points when
    empty), as ``found`` was found.  The outcomes are those of the serial run: with
    ``fail_fast``, nothing is submitted after the first miss, cases already running finish, and
    the outcomes after the first miss in the order found are dropped.
    """
    found = tuple(found)
    if jobs == 1 and scheduler is None:
        return _serial(found, seed=seed, samples=samples, time_limit=time_limit, report=report, fail_fast=fail_fast)
    cases = [(item, index, case) for item in found for index, case in enumerate(item.spec.cases)]
    tasks = [(tuple(spec_modules), item.spec.name, index, case.describe(), item.origin, seed, samples, time_limit)
             for item, index, case in cases]
    ran = sweep_results(_case_on_worker, tasks, jobs=jobs, scheduler=scheduler,
                        stop=(lambda result: not result.met) if fail_fast else None)
    outcomes = []
    for (item, _, case), result in zip(cases, ran):
        outcome = result.outcome_of(item.spec, case, item.origin)
        if report is not None:
            report(outcome)
        outcomes.append(outcome)
    return tuple(outcomes)


def _serial(found: tuple[FoundSpec, ...], *, seed: int, samples: int, time_limit: float | None,
            report: Callable[[CaseOutcome], None] | None, fail_fast: bool) -> tuple[CaseOutcome, ...]:
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


@dataclass(frozen=True, slots=True)
class _CaseRun:
    """What a worker sends back: a :class:`CaseOutcome` less its spec and case, which hold the
    spec's callables (lambdas among them) and so may not pickle."""

    outcome: str
    checks: tuple[CheckResult, ...]
    problems: tuple[str, ...]
    claim_text: str
    claim_alpha: str | None
    error: str | None

    @property
    def met(self) -> bool:
        return self.error is None and not self.problems

    def outcome_of(self, spec: Spec, case: Case, origin: str) -> CaseOutcome:
        return CaseOutcome(spec, case, origin, self.outcome, self.checks, self.problems, self.claim_text,
                           self.claim_alpha, self.error)


#: mpmath's working precision is one per process, so two cases in threads of one worker could
#: change each other's enclosures: a worker process runs one case at a time.
_ONE_CASE_AT_A_TIME = threading.Lock()


def _case_on_worker(spec_modules: tuple[str, ...], name: str, index: int, described: str, origin: str, seed: int,
                    samples: int, time_limit: float | None) -> _CaseRun:
    """Case ``index`` of the spec ``name``, found here as the gate found it, run as the serial gate runs it."""
    spec = _spec_here(spec_modules, name)
    if not index < len(spec.cases) or spec.cases[index].describe() != described:
        raise DpverifyError(f"spec {name!r} on this worker has no case {described!r} at position {index + 1}: it "
                            "differs from the one the gate found; install the same version on every worker.")
    with _ONE_CASE_AT_A_TIME:
        outcome = run_case(spec, spec.cases[index], seed=seed, samples=samples, origin=origin, production=index == 0,
                           time_limit=time_limit)
    return _CaseRun(outcome.outcome, outcome.checks, outcome.problems, outcome.claim_text, outcome.claim_alpha,
                    outcome.error)


@functools.lru_cache(maxsize=256)
def _spec_here(spec_modules: tuple[str, ...], name: str) -> Spec:
    try:
        return discover(spec_modules, names=(name,))[0].spec
    except DpverifyError as error:
        where = f"the spec modules {', '.join(spec_modules)}" if spec_modules else "the installed entry points"
        raise DpverifyError(f"a worker cannot find spec {name!r} in {where}: {error}; install the same packages "
                            "on every worker.") from None


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
