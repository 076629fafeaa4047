"""``dpverify mutate``: the gate run on single-site mutants of sampler modules, in parallel or on
a Dask cluster, against the reviewed equivalent mutants."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from dpverify.verify.changes._mutate_equivalents import EQUIVALENTS_FILE
from dpverify.verify.changes._mutate_gate_run import DEFAULT_CASE_TIME_LIMIT
from dpverify.verify.changes._mutate_gate_run import DEFAULT_SAMPLES as DEFAULT_MUTANT_SAMPLES
from dpverify.verify.changes._mutate_gate_run import DEFAULT_TIMEOUT as DEFAULT_MUTANT_TIMEOUT
from dpverify.verify.changes._mutate_report import MUTATE_SCHEMA
from dpverify.verify.cli._common import MAX_JOBS, MAX_MUTANTS, MAX_SAMPLES, MAX_SEED, MAX_TIMEOUT, _count
from dpverify.verify.gate._sweep import need_scheduler
from dpverify.verify.reports._output import add_json_option, emit_json, human_stream
from dpverify.verify.reports._sarif import add_sarif_option, emit_sarif, mutate_results

if TYPE_CHECKING:
    from dpverify.verify.changes._mutate_gate_run import GateOptions

__all__ = ["add_mutate_parser"]


def _mutate(args: argparse.Namespace) -> int:
    from dpverify.verify.changes._mutate_equivalents import default_equivalents, read_reviewed
    from dpverify.verify.changes._mutate_gate_run import GateOptions
    from dpverify.verify.changes._mutate_report import list_text
    from dpverify.verify.changes._mutate_targets import default_modules, locate, plan, select

    if args.scheduler:
        need_scheduler(args.scheduler, "--scheduler")  # before any work: a bad address, or no dask here
    jobs = args.jobs if args.jobs is not None or args.scheduler else os.cpu_count() or 1
    sys.path.insert(0, os.getcwd())  # a project's own modules, as check --spec-module finds them
    targets = [locate(name) for name in dict.fromkeys(args.modules or default_modules())]
    if args.equivalents:
        equivalents, found = args.equivalents, f"reviewed equivalents: {args.equivalents} (--equivalents)"
    else:
        equivalents, found = default_equivalents([target.file for target in targets])
    reviewed = read_reviewed(equivalents)
    work = plan(targets, reviewed)
    chosen = select(work.mutants, only=args.only or (), limit=args.limit)
    if args.list:
        print(found)
        for line in list_text(work, chosen, reviewed):
            print(line)
        return 0
    options = GateOptions(
        seed=args.seed,
        samples=args.samples,
        spec_modules=tuple(args.spec_module or ()),
        specs=tuple(args.spec or ()),
        timeout=args.timeout,
        time_limit=args.time_limit,
    )
    human = human_stream(args)
    where = f"on the Dask cluster at {args.scheduler}" if args.scheduler else f"{jobs} at a time"
    print(
        f"dpverify mutate: {len(chosen)} mutants of {len(targets)} module(s), {where}; first the "
        f"gate on the unmodified code{'' if args.all_specs else ', spec by spec'}: {options.command()}",
        file=human,
        flush=True,
    )
    print(found, file=human, flush=True)

    with _terminated_as_interrupted():
        return _measure_and_report(args, targets, chosen, reviewed, options, jobs, work, human)


@contextlib.contextmanager
def _terminated_as_interrupted() -> Iterator[None]:
    """Terminated (SIGTERM), the run stops its gate processes and removes its copies as an
    interrupted one does; the handler before it is put back on the way out."""
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _measure_and_report(
    args: argparse.Namespace,
    targets: Any,
    chosen: Any,
    reviewed: Any,
    options: GateOptions,
    jobs: int,
    work: Any,
    human: TextIO,
) -> int:
    from dpverify.verify.changes import _mutate as mutate
    from dpverify.verify.changes._mutate_report import report_json, report_text, reviewed_results

    def progress(result: mutate.Result, done: int, total: int) -> None:
        print(
            f"[{done}/{total}] {result.status:<10} {result.mutant.id} (line {result.mutant.line}, "
            f"{result.seconds:.0f} s)",
            file=sys.stderr,
            flush=True,
        )

    measured = mutate.measure(
        targets,
        chosen,
        options,
        jobs=jobs,
        select_specs=not args.all_specs,
        progress=progress,
        scheduler=args.scheduler,
        fork=not args.no_fork,
    )
    print(f"gate runs: {measured.runner}", file=human, flush=True)
    results = reviewed_results(measured.results, reviewed)
    document = report_json(
        work,
        results,
        reviewed,
        options,
        baseline_seconds=measured.baseline_seconds,
        jobs=jobs,
        specs=measured.specs,
        scheduler=args.scheduler,
    )
    print(report_text(document), file=human)
    emit_json(args, document)
    code = 0 if document["passed"] else 1
    emit_sarif(args, "mutate", lambda locator: mutate_results(document, locator), code)
    return code


def add_mutate_parser(commands: Any) -> None:
    """Declare ``dpverify mutate`` on the CLI's subcommands; its handler is :func:`_mutate`."""
    mutate = commands.add_parser(
        "mutate", help="run the gate on single-site mutants of sampler modules: what does it catch?"
    )
    mutate.add_argument(
        "modules", nargs="*", metavar="MODULE", help="dotted module names (default: dpverify's exact sampler modules)"
    )
    mutate.add_argument("--list", action="store_true", help="list the mutants and their ids, and exit")
    mutate.add_argument(
        "--only", action="append", metavar="ID", help="run only mutants whose id starts with ID (repeatable)"
    )
    mutate.add_argument("--limit", type=_count("limit", 1, MAX_MUTANTS), help="run at most this many mutants")
    mutate.add_argument(
        "--jobs",
        type=_count("jobs", 1, MAX_JOBS),
        help="gate runs at a time (default: the number of CPUs; with --scheduler, the cluster's worker threads)",
    )
    mutate.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run every gate run on the Dask cluster whose scheduler is at ADDRESS, each worker in "
        "its own copy of its installed packages (pip install 'dpverify[dask]')",
    )
    mutate.add_argument(
        "--no-fork",
        action="store_true",
        help="start a fresh interpreter for every gate run, instead of forking each from one that "
        "imported the libraries once (the default where os.fork exists)",
    )
    mutate.add_argument(
        "--timeout",
        type=_count("timeout", 1, MAX_TIMEOUT),
        default=DEFAULT_MUTANT_TIMEOUT,
        metavar="SECONDS",
        help=f"seconds one gate run may take (default {DEFAULT_MUTANT_TIMEOUT})",
    )
    mutate.add_argument(
        "--equivalents",
        metavar="PATH",
        help=f"the reviewed equivalent mutants (default: the first {EQUIVALENTS_FILE} in the working directory "
        "or above it, or above a mutated module's file; the run says which)",
    )
    add_json_option(mutate, "every mutant's result", schema=MUTATE_SCHEMA)
    add_sarif_option(mutate, "every surviving mutant (and every stale or refuted reviewed equivalent)")
    mutate.add_argument("--spec-module", action="append", metavar="MODULE", help="passed to check: the specs to run")
    mutate.add_argument("--spec", action="append", metavar="NAME", help="passed to check: only this spec (repeatable)")
    mutate.add_argument(
        "--all-specs",
        action="store_true",
        help="run every spec on every mutant, not only the specs that run the mutated function",
    )
    mutate.add_argument("--seed", type=_count("seed", 0, MAX_SEED), default=0, help="passed to check (default 0)")
    mutate.add_argument(
        "--samples",
        type=_count("samples", 1, MAX_SAMPLES),
        default=DEFAULT_MUTANT_SAMPLES,
        help=f"passed to check: draws per statistical check (default {DEFAULT_MUTANT_SAMPLES})",
    )
    mutate.add_argument(
        "--time-limit",
        type=_count("time-limit", 1, MAX_TIMEOUT),
        default=DEFAULT_CASE_TIME_LIMIT,
        metavar="SECONDS",
        help=f"passed to check: seconds per case (default {DEFAULT_CASE_TIME_LIMIT})",
    )
    mutate.set_defaults(run=_mutate)
