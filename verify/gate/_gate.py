"""The CI gate: every case of every spec found, compared with its expectation.

What runs on a case is chosen by :mod:`dpverify.verify.gate._spec_run` from the spec's declaration.
The gate passes only when every case meets its expectation and the source tree's own checks
(static rules on samplers/, stale proofs) prove; a spec that cannot be checked as written is a
broken spec, which the command line reports with exit code 2.

Its reports: the human one (:func:`outcome_lines`, :func:`repository_lines`), the JSON document
(:func:`gate_json`, schema ``dpverify.check/3``) and JUnit XML (:func:`gate_junit`).

Cases can run in parallel (:func:`~dpverify.verify.gate._sweep.sweep`: local worker processes, or a
Dask cluster).  A case's result never depends on where it ran: every case gets the same seed
(its statistical seeds are ``seed``, ``seed + 1``, ... within it), the same samples and time
bound, and the outcomes come back in the catalogue's order.  A worker finds the spec again by its
name (from the spec modules, or the installed entry points), so it needs the same packages.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dpverify._check_schema import CHECK_SCHEMA
from dpverify._junit import ERROR as JUNIT_ERROR
from dpverify._junit import FAILURE, PASSED, SKIPPED, JunitCase, JunitSuite, junit_xml, one_line
from dpverify.samplers import DpverifyError
from dpverify.specs import Spec
from dpverify.specs._api import Case
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT
from dpverify.verify.engine._results import CheckResult, Verdict, loosest_tolerance
from dpverify.verify.gate._discovery import FoundSpec, discover
from dpverify.verify.gate._spec_instance import replay_command
from dpverify.verify.gate._spec_run import ERROR, CaseOutcome, run_case
from dpverify.verify.gate._sweep import sweep_results

__all__ = [
    "CHECK_SCHEMA",
    "REPOSITORY_SUITE",
    "SPECS_SUITE",
    "gate_json",
    "gate_junit",
    "outcome_lines",
    "repository_lines",
    "run_gate",
    "specs_error_junit",
]

#: The JUnit suite of the source tree's own checks.
REPOSITORY_SUITE = "repository"
#: The JUnit suite that reports specs that could not be loaded at all.
SPECS_SUITE = "specs"


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
    case (seconds).  ``fail_fast`` stops after the first case that misses its expectation, and
    within a case after its first violated exact check (``run_case``'s ``stop_at_violation``).

    ``jobs = 1`` (the default) runs the cases here, one after the other.  Otherwise they run
    through :func:`~dpverify.verify.gate._sweep.sweep`, ``jobs`` at a time (None: one per core, or
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
    tasks = [
        (tuple(spec_modules), item.spec.name, index, case.describe(), item.origin, seed, samples, time_limit, fail_fast)
        for item, index, case in cases
    ]
    ran = sweep_results(
        _case_on_worker,
        tasks,
        jobs=jobs,
        scheduler=scheduler,
        stop=(lambda result: not result.met) if fail_fast else None,
    )
    outcomes = []
    for (item, _, case), result in zip(cases, ran, strict=False):  # a fail-fast sweep stops early
        outcome = result.outcome_of(item.spec, case, item.origin)
        if report is not None:
            report(outcome)
        outcomes.append(outcome)
    return tuple(outcomes)


def _serial(
    found: tuple[FoundSpec, ...],
    *,
    seed: int,
    samples: int,
    time_limit: float | None,
    report: Callable[[CaseOutcome], None] | None,
    fail_fast: bool,
) -> tuple[CaseOutcome, ...]:
    outcomes = []
    for item in found:
        for index, case in enumerate(item.spec.cases):
            outcome = run_case(
                item.spec,
                case,
                seed=seed,
                samples=samples,
                origin=item.origin,
                production=index == 0,
                time_limit=time_limit,
                stop_at_violation=fail_fast,
            )
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
        return CaseOutcome(
            spec, case, origin, self.outcome, self.checks, self.problems, self.claim_text, self.claim_alpha, self.error
        )


#: mpmath's working precision is one per process, so two cases in threads of one worker could
#: change each other's enclosures: a worker process runs one case at a time.
_ONE_CASE_AT_A_TIME = threading.Lock()


def _case_on_worker(
    spec_modules: tuple[str, ...],
    name: str,
    index: int,
    described: str,
    origin: str,
    seed: int,
    samples: int,
    time_limit: float | None,
    stop_at_violation: bool = False,
) -> _CaseRun:
    """Case ``index`` of the spec ``name``, found here as the gate found it, run as the serial gate runs it."""
    spec = _spec_here(spec_modules, name)
    if not index < len(spec.cases) or spec.cases[index].describe() != described:
        raise DpverifyError(
            f"spec {name!r} on this worker has no case {described!r} at position {index + 1}: it "
            "differs from the one the gate found; install the same version on every worker."
        )
    with _ONE_CASE_AT_A_TIME:
        outcome = run_case(
            spec,
            spec.cases[index],
            seed=seed,
            samples=samples,
            origin=origin,
            production=index == 0,
            time_limit=time_limit,
            stop_at_violation=stop_at_violation,
        )
    return _CaseRun(
        outcome.outcome, outcome.checks, outcome.problems, outcome.claim_text, outcome.claim_alpha, outcome.error
    )


@functools.lru_cache(maxsize=256)
def _spec_here(spec_modules: tuple[str, ...], name: str) -> Spec:
    try:
        return discover(spec_modules, names=(name,))[0].spec
    except DpverifyError as error:
        where = f"the spec modules {', '.join(spec_modules)}" if spec_modules else "the installed entry points"
        raise DpverifyError(
            f"a worker cannot find spec {name!r} in {where}: {error}; install the same packages on every worker."
        ) from None


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


def outcome_lines(outcome: CaseOutcome) -> list[str]:
    """The human report of one case: the verdict line, then every check's verdict and summary and
    every problem (or the broken spec's message).  A proof within a tolerance reads ``proved
    within U = ...`` (:attr:`CheckResult.verdict_text`), and a case proved with such checks says so."""
    mark = "ok  " if outcome.met else "ERROR" if outcome.error else "FAIL"
    within = ""
    if outcome.outcome == Verdict.PROVED.value and loosest_tolerance(outcome.checks) is not None:
        within = " (interval proofs, each within the U it states: not exact equality)"
    lines = [f"{mark:<4} {outcome.name}: expect {outcome.case.expect}, got {outcome.outcome}{within}"]
    if outcome.error:
        return [*lines, f"       broken spec: {outcome.error}"]
    if outcome.case.why:
        lines.append(f"       {outcome.case.why}")
    lines += [
        f"       {check.check:<14} {check.verdict_text + (':' if check.within is not None else ''):<12} {check.summary}"
        for check in outcome.checks
    ]
    lines += [f"       problem: {problem}" for problem in outcome.problems]
    return lines


def repository_lines(check: CheckResult) -> list[str]:
    """The human report of one source-tree check: its verdict, then each finding."""
    mark = "ok  " if check.verdict is Verdict.PROVED else "FAIL"
    lines = [f"{mark} {check.check}: {check.verdict_text}: {check.summary}"]
    for finding in check.evidence.get("findings", []):
        where = (
            f"{finding['file']}:{finding['line']}: {finding['rule']}: {finding['snippet']}"
            if "line" in finding
            else finding.get("message", str(finding))
        )
        lines.append(f"       {where}")
    return lines


def gate_junit(
    outcomes: Sequence[CaseOutcome],
    *,
    seed: int | None,
    samples: int | None,
    replay: str,
    repository: Sequence[CheckResult] = (),
    repository_seconds: Mapping[str, float] | None = None,
    not_run: Sequence[tuple[str, str]] = (),
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    timestamp: str | None = None,
) -> str:
    """The ``dpverify check --junit`` document: one ``<testsuite>`` per spec (in the order run) with
    one ``<testcase>`` per case, and a ``repository`` suite of the source-tree checks.

    A case that missed its expectation is a ``<failure>`` whose ``message`` is its first problem
    on one line (for a violated claim: the inputs, the output and both exact probabilities) and
    whose text is the case's whole human report (every check's verdict and summary, every
    problem) and its replay command; a broken spec is an ``<error>`` with the spec's message;
    ``not_run`` (spec, case) pairs, stopped by ``--fail-fast``, are ``<skipped>``.  Each spec's
    suite has the properties ``seed``, ``samples``, ``time_limit``, ``origin`` and ``replay`` (that
    spec alone); the repository suite's ``replay`` is ``replay``, the whole run.
    """
    by_spec: dict[str, list[JunitCase]] = {}
    origins: dict[str, str] = {}
    for outcome in outcomes:
        origins.setdefault(outcome.spec.name, outcome.origin)
        by_spec.setdefault(outcome.spec.name, []).append(_junit_case(outcome, seed, samples, time_limit))
    for spec, case in not_run:
        by_spec.setdefault(spec, []).append(
            JunitCase(
                spec,
                case,
                status=SKIPPED,
                message=("not run: --fail-fast stopped the gate at the first case that missed its expectation"),
            )
        )
    run = (
        ("seed", "" if seed is None else str(seed)),
        ("samples", "" if samples is None else str(samples)),
        ("time_limit", "" if time_limit is None else str(time_limit)),
    )
    suites = []
    for spec, cases in by_spec.items():
        origin = origins.get(spec, "")
        properties = [*run, ("origin", origin)]
        if seed is not None and samples is not None:
            properties.append(
                ("replay", replay_command(spec, origin, seed=seed, samples=samples, time_limit=time_limit))
            )
        suites.append(JunitSuite(spec, tuple(cases), tuple(properties), timestamp))
    if repository:
        seconds = repository_seconds or {}
        checks = tuple(_repository_case(check, seconds.get(check.check, 0.0)) for check in repository)
        suites.append(JunitSuite(REPOSITORY_SUITE, checks, (*run, ("replay", replay)), timestamp))
    return junit_xml(suites, name="dpverify check")


def _junit_case(outcome: CaseOutcome, seed: int | None, samples: int | None, time_limit: float | None) -> JunitCase:
    spec, label = outcome.spec.name, outcome.case.describe()
    report = "\n".join(outcome_lines(outcome))
    if outcome.met:
        return JunitCase(spec, label, outcome.seconds, PASSED, output=report)
    if seed is not None and samples is not None:
        replay = replay_command(spec, outcome.origin, seed=seed, samples=samples, time_limit=time_limit)
        report += f"\nreplay: {replay}"
    if outcome.error is not None:
        return JunitCase(spec, label, outcome.seconds, JUNIT_ERROR, one_line(outcome.error), "broken spec", report)
    return JunitCase(
        spec,
        label,
        outcome.seconds,
        FAILURE,
        one_line(outcome.problems[0]),
        f"expected {outcome.case.expect}, got {outcome.outcome}",
        report,
    )


def _repository_case(check: CheckResult, seconds: float) -> JunitCase:
    report = "\n".join(repository_lines(check))
    if check.verdict is Verdict.PROVED:
        return JunitCase(REPOSITORY_SUITE, check.check, seconds, PASSED, output=report)
    return JunitCase(
        REPOSITORY_SUITE,
        check.check,
        seconds,
        FAILURE,
        one_line(f"{check.check} {check.verdict.value}: {check.summary}"),
        f"expected proved, got {check.verdict.value}",
        report,
    )


def specs_error_junit(message: str, *, timestamp: str | None = None) -> str:
    """The ``--junit`` report of a run whose specs could not be loaded (a spec module that does not
    import, a case outside its spec's domain, an unknown ``--spec``): one ``<error>``, as a test
    runner reports a collection error.  The command exits 2 with the same message."""
    case = JunitCase(
        SPECS_SUITE, "load", status=JUNIT_ERROR, message=one_line(message), type="broken spec", details=message
    )
    return junit_xml([JunitSuite(SPECS_SUITE, (case,), (), timestamp)], name="dpverify check")
