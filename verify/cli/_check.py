"""``dpverify check``, the CI gate: every spec found, case by case, then the source tree's own
checks (static rules, entry points, proof staleness), with its JSON and JUnit reports and the
command line that replays a run."""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from dpverify import _channel
from dpverify._check_schema import CHECK_SCHEMA
from dpverify.samplers import DpverifyError, InvalidArgument, fresh_seed
from dpverify.verify.cli._common import MAX_SAMPLES, MAX_SEED, MAX_TIMEOUT, _clip, _count
from dpverify.verify.cli._diff import add_diff_options, run_check_base
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT
from dpverify.verify.engine._results import CheckResult, Verdict
from dpverify.verify.gate._sweep import MAX_JOBS as MAX_SWEEP_JOBS
from dpverify.verify.gate._sweep import need_scheduler
from dpverify.verify.reports._output import add_json_option, add_junit_option, emit_json, emit_junit, human_stream
from dpverify.verify.reports._sarif import add_sarif_option

if TYPE_CHECKING:
    from dpverify.verify.gate._spec_run import CaseOutcome

__all__ = ["add_check_parser"]


def _check(args: argparse.Namespace) -> int:
    # Imported here so that pmf and privacy start without loading Z3.
    from dpverify.specs import SpecError
    from dpverify.verify.gate._discovery import BuiltinUnloadable, discover
    from dpverify.verify.gate._gate import gate_json, gate_junit, run_gate, specs_error_junit
    from dpverify.verify.gate._spec_run import ERROR

    if args.allow_uncompared and args.base is None:
        raise InvalidArgument(
            "--allow-uncompared applies to check --base REV only (specs whose change was not compared)."
        )
    if args.scheduler:
        need_scheduler(args.scheduler, "--scheduler")  # before any work: a bad address, or no dask here
    if args.spec_module:
        sys.path.insert(0, os.getcwd())  # a project's own modules, as pytest finds them
    try:
        found = discover(args.spec_module or (), names=args.spec or ())
    except BuiltinUnloadable as error:
        if args.list:
            raise
        return _unloadable_catalogue(args, error)
    except SpecError as error:
        # Like a test runner's collection error: the report shows it; the exit code is 2.
        if args.junit and not args.list:
            emit_junit(args, specs_error_junit(str(error), timestamp=_timestamp()))
        if args.sarif and not args.list:
            _emit_sarif(args, (), (), exit_code=2, broken=str(error))
        raise
    if args.list:
        _print_specs(found)
        return 0
    if args.base is not None:
        return run_check_base(args, found)
    if not found:
        raise DpverifyError(
            "no spec found: install a package that registers the dpverify.specs entry point, "
            "or pass --spec-module MODULE."
        )
    seed = fresh_seed() if args.seed is None else args.seed
    timestamp = _timestamp()
    human = human_stream(args)
    cases = sum(len(item.spec.cases) for item in found)
    # One case at a time unless asked: the gate's default output and timing stay as they were.
    jobs = args.jobs if args.jobs is not None else None if args.scheduler else 1
    where = (
        f"; on the Dask cluster at {args.scheduler}"
        if args.scheduler
        else f"; {jobs} cases at a time"
        if jobs != 1
        else ""
    )
    print(
        f"dpverify check: {len(found)} specs, {cases} cases, statistical seed {seed} "
        f"(replay: dpverify check --seed {seed}){where}",
        file=human,
    )
    _channel.planned(cases)
    outcomes = run_gate(
        found,
        seed=seed,
        samples=args.samples,
        time_limit=args.time_limit,
        report=lambda o: _report_outcome(o, human),
        fail_fast=args.fail_fast,
        jobs=jobs,
        scheduler=args.scheduler,
        spec_modules=args.spec_module or (),
    )
    stopped = args.fail_fast and not all(o.met for o in outcomes)
    if stopped:
        # in parallel, cases after the first miss may have run; they are left out, as a serial run never ran them
        print(
            f"stopped at the first case that missed its expectation (--fail-fast); {cases - len(outcomes)} "
            f"case(s) not {'run' if jobs == 1 and not args.scheduler else 'reported'}, nor the source tree checks",
            file=human,
        )
    seconds: dict[str, float] = {}
    # (after a miss under --fail-fast the run has failed whatever they say: a mutation run saves their quarter second)
    repository = (
        _repository_checks(human, stale_proofs=not args.no_stale_proofs, seconds=seconds)
        if any(item.builtin for item in found) and not stopped
        else ()
    )
    met = sum(o.met for o in outcomes)
    broken = sum(o.outcome == ERROR for o in outcomes)
    clean = all(check.verdict is Verdict.PROVED for check in repository)
    passed = met == len(outcomes) and clean
    tree = f"; source tree checks {'clean' if clean else 'FAILED'}" if repository else ""
    spec_errors = f"; {broken} broken spec case(s)" if broken else ""
    print(
        f"{met} of {len(outcomes)} cases met their expectation{spec_errors}{tree}: {'PASS' if passed else 'FAIL'}",
        file=human,
    )
    if args.json:
        emit_json(args, gate_json(outcomes, seed=seed, samples=args.samples, repository=repository))
    if args.junit:
        ran = {(o.spec.name, o.case.describe()) for o in outcomes}
        not_run = [
            (item.spec.name, case.describe())
            for item in found
            for case in item.spec.cases
            if (item.spec.name, case.describe()) not in ran
        ]
        emit_junit(
            args,
            gate_junit(
                outcomes,
                seed=seed,
                samples=args.samples,
                replay=_replay(args, seed),
                repository=repository,
                repository_seconds=seconds,
                not_run=not_run,
                time_limit=args.time_limit,
                timestamp=timestamp,
            ),
        )
    code = 0 if passed else 2 if broken else 1
    if args.sarif:
        _emit_sarif(args, outcomes, repository, exit_code=code, seed=seed)
    return code


def _emit_sarif(
    args: argparse.Namespace,
    outcomes: Sequence[CaseOutcome],
    repository: Sequence[CheckResult],
    *,
    exit_code: int,
    seed: int | None = None,
    broken: str | None = None,
) -> None:
    from dpverify.verify.gate._spec_instance import replay_command
    from dpverify.verify.reports._sarif import check_results, emit_sarif, spec_error_result

    # A run without a seed (a spec error before any case ran) has no command line that replays it.
    replay: Callable[[CaseOutcome], str] | None = None
    if seed is not None:

        def replay_case(outcome: CaseOutcome) -> str:
            return replay_command(
                outcome.spec.name, outcome.origin, seed=seed, samples=args.samples, time_limit=args.time_limit
            )

        replay = replay_case

    def results(locator: Any) -> list[dict[str, Any]]:
        found = check_results(outcomes, repository, locator, replay=replay)
        return found if broken is None else [*found, spec_error_result(broken, locator)]

    emit_sarif(args, "check", results, exit_code)


def _replay(args: argparse.Namespace, seed: int | None) -> str:
    """The ``dpverify check`` command line that reruns this run with the same statistical draws."""
    words = ["dpverify", "check"]
    for module in args.spec_module or ():
        words += ["--spec-module", module]
    for name in args.spec or ():
        words += ["--spec", name]
    words += [*(() if seed is None else ("--seed", str(seed))), "--samples", str(args.samples)]
    if args.time_limit != DEFAULT_TIME_LIMIT:
        words += ["--time-limit", str(args.time_limit)]
    if args.no_stale_proofs:
        words.append("--no-stale-proofs")
    return " ".join(shlex.quote(word) for word in words)


def _timestamp() -> str:
    """Now, in UTC, as ISO 8601 to the second (JUnit's ``timestamp``)."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _unloadable_catalogue(args: argparse.Namespace, error: Exception) -> int:
    """The gate's verdict when dpverify's own catalogue does not load: violated (exit 1)."""
    from dpverify.verify.gate._gate import gate_json, gate_junit

    human = human_stream(args)
    result = CheckResult(
        "catalogue",
        Verdict.VIOLATED,
        f"the built-in catalogue does not load: {_clip(str(error), 300)}",
        reason="its specs are fixed, so the shipped code that builds them is what broke",
    )
    print(f"FAIL catalogue: violated: {result.summary}", file=human)
    if args.sarif:
        _emit_sarif(args, (), (result,), exit_code=1)
    if args.json:
        emit_json(args, gate_json((), seed=args.seed, samples=args.samples, repository=(result,)))
    if args.junit:
        emit_junit(
            args,
            gate_junit(
                (),
                seed=args.seed,
                samples=args.samples,
                replay=_replay(args, args.seed),
                repository=(result,),
                time_limit=args.time_limit,
                timestamp=_timestamp(),
            ),
        )
    return 1


def _repository_checks(
    human: TextIO, *, stale_proofs: bool = True, seconds: dict[str, float] | None = None
) -> tuple[Any, ...]:
    """The source tree's own checks: static rules, every entry point run by a spec, proof staleness
    (unless ``stale_proofs`` is false: ``dpverify mutate`` changes covered code on purpose).
    ``seconds``, when given, receives each check's running time by name."""
    from dpverify.proofs._certificates import instance_obligations, repository_root, theorem_obligation
    from dpverify.proofs._manifest import check_recorded_verdicts
    from dpverify.proofs._stale import check_manifest
    from dpverify.proofs.registry import THEOREMS
    from dpverify.verify.gate._catalogue import SPECS
    from dpverify.verify.gate._entry_points import check_entry_points
    from dpverify.verify.gate._gate import repository_lines
    from dpverify.verify.gate._static import check_samplers_static

    root = repository_root()
    steps: list[Callable[[], CheckResult]] = [lambda: check_samplers_static(root), lambda: check_entry_points(SPECS)]
    if stale_proofs:
        steps.append(
            lambda: check_manifest(root, current=[*(theorem_obligation(t) for t in THEOREMS), *instance_obligations()])
        )
    steps.append(lambda: check_recorded_verdicts(root))
    checks = []
    for step in steps:
        started = time.monotonic()
        check = step()
        if seconds is not None:
            seconds[check.check] = time.monotonic() - started
        checks.append(check)
        print("\n".join(repository_lines(check)), file=human)
    return tuple(checks)


def _print_specs(found: Sequence[Any]) -> None:
    for item in found:
        spec = item.spec
        print(f"{spec.name}: {len(spec.cases)} case(s), from {item.origin}")
        if spec.description:
            print(f"    {spec.description}")


def _report_outcome(outcome: CaseOutcome, out: TextIO) -> None:
    """One case decided: its lines, and its verdict to the supervisor."""
    from dpverify.verify.gate._gate import outcome_lines

    print("\n".join(outcome_lines(outcome)), file=out)
    _channel.verdict(outcome.name, outcome.met)


def add_check_parser(commands: Any) -> None:
    """Declare ``dpverify check`` on the CLI's subcommands; its handler is :func:`_check`."""
    check = commands.add_parser("check", help="verify every spec found (the CI gate)")
    check.add_argument(
        "--spec-module",
        action="append",
        metavar="MODULE",
        help="check the SPECS of this module instead of the installed entry points (repeatable)",
    )
    check.add_argument(
        "--spec",
        action="append",
        metavar="NAME",
        help="check only the spec with this name (repeatable: the specs run in the order named)",
    )
    check.add_argument("--list", action="store_true", help="list the specs found and where from, and exit")
    add_json_option(check, "the results", schema=CHECK_SCHEMA)
    add_junit_option(check, "the results (one test suite per spec, one test case per case)")
    add_sarif_option(check, "every case that missed its expectation (with --base: every changed law)")
    check.add_argument(
        "--seed", type=_count("seed", 0, MAX_SEED), help="seed of the statistical checks (default: fresh)"
    )
    check.add_argument(
        "--samples",
        type=_count("samples", 1, MAX_SAMPLES),
        default=20_000,
        help="draws per statistical check (default 20000)",
    )
    check.add_argument(
        "--time-limit",
        type=_count("time-limit", 1, MAX_TIMEOUT),
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=f"bound on each case's running time (default {DEFAULT_TIME_LIMIT}); "
        "a case that reaches it is inconclusive",
    )
    check.add_argument(
        "--fail-fast",
        action="store_true",
        help="stop at the first case that misses its expectation (mutation runs use it): no "
        "later case and no source tree check runs, and within a case no exact check or sampling "
        "starts after an exact check is violated; in parallel, nothing is started after it, "
        "and cases after it in the report's order are left out",
    )
    check.add_argument(
        "--jobs",
        type=_count("jobs", 1, MAX_SWEEP_JOBS),
        metavar="N",
        help="cases at a time, in worker processes (default 1: one after the other here; with "
        "--scheduler, the cluster's worker threads); results and report are the same",
    )
    check.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the cases on the Dask cluster whose scheduler is at ADDRESS, e.g. "
        "tcp://10.0.0.5:8786 (pip install 'dpverify[dask]')",
    )
    check.add_argument(
        "--no-stale-proofs",
        action="store_true",
        help="skip the stale-proof check of the source tree (dpverify mutate changes covered code on purpose)",
    )
    check.add_argument(
        "--base",
        metavar="REV",
        help="instead of the checks: compare every spec whose sampler code changed since git revision "
        "REV with its old version (dpverify diff --base REV, which also writes JSON)",
    )
    add_diff_options(check)
    check.set_defaults(run=_check)
