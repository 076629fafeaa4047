"""``dpverify audit SPEC``: one spec's report (exact PMFs, privacy, proofs, statistics, plots) in
HTML, Markdown and JSON, with a progress bar on a terminal; ``--black-box`` hands over to
:mod:`dpverify.verify.cli._blackbox`."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any

from dpverify.samplers import DpverifyError, fresh_seed
from dpverify.samplers._rational import shown
from dpverify.verify.cli._common import MAX_SAMPLES, MAX_SEED, MAX_TIMEOUT, _clip, _count, parameter_pairs, progress_bar
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT
from dpverify.verify.reports._output import add_json_option, emit_json, human_stream

__all__ = ["add_audit_parser"]


def _audit(args: argparse.Namespace) -> int:
    from dpverify.verify.gate._discovery import discover
    from dpverify.verify.reports._audit import audit_spec, parameters_case
    from dpverify.verify.reports._audit_per_spec import read_mutants
    from dpverify.verify.reports._audit_report import write_report

    if args.black_box:
        from dpverify.verify.cli._blackbox import audit_black_box_command

        return audit_black_box_command(args)
    if args.confidence is not None:
        raise DpverifyError("--confidence applies only to an audit with --black-box.")

    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise DpverifyError(f"--out must be a directory; got --out={shown(args.out)}, which is a file.")
    parent = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(parent):
        raise DpverifyError(f"--out must be in an existing directory; got --out={shown(args.out)}.")
    mutants = None if args.mutants is None else read_mutants(args.mutants)
    if args.spec_module:
        sys.path.insert(0, os.getcwd())  # a project's own modules, as check --spec-module finds them
    (found,) = discover(args.spec_module or (), names=[args.spec])
    pairs = parameter_pairs(args.parameters)
    cases = [parameters_case(found.spec, pairs)] if pairs else list(found.spec.cases)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as error:
        raise DpverifyError(f"--out={shown(args.out)} cannot be created: {error.strerror or error}.") from None
    if not os.access(args.out, os.W_OK):
        raise DpverifyError(f"--out must be a writable directory; got --out={shown(args.out)}.")
    seed = fresh_seed() if args.seed is None else args.seed
    human = human_stream(args)
    parameters = "".join(f" --{name} {value}" for name, value in pairs)
    module = "".join(f" --spec-module {m}" for m in args.spec_module or ())
    command = (
        f"dpverify audit {found.spec.name}{parameters}{module} --seed {seed} --samples {args.samples} "
        f"--time-limit {args.time_limit} --out {args.out}"
    )
    print(
        f"dpverify audit: {found.spec.name} from {found.origin}, {len(cases)} case(s), statistical seed {seed}",
        file=human,
    )
    with _progress(len(cases)) as step:
        try:
            audit = audit_spec(
                found,
                cases,
                seed=seed,
                samples=args.samples,
                time_limit=args.time_limit,
                mutants=mutants,
                mutants_path=args.mutants,
                command=command,
                progress=step,
            )
            step("writing the report")
            paths = write_report(audit, args.out)
        except (DpverifyError, KeyboardInterrupt):
            raise
        except Exception as error:  # noqa: BLE001 - a fault of the audit itself: one line, never a traceback
            raise DpverifyError(
                f"the audit of {found.spec.name} stopped on {type(error).__name__}: "
                f"{_clip(str(error), 200)}; this is a fault in dpverify, please report it"
            ) from None
    for case in audit.document["cases"]:
        mark = "ok  " if case["met"] else "ERROR" if case["outcome"] == "error" else "FAIL"
        print(
            f"{mark:<4} {found.spec.name}/{case['label']}: expect {case['expect']}, got {case['outcome']}", file=human
        )
        for problem in case["problems"] or ([case["error"]] if case["error"] else []):
            print(f"       {_clip(problem, 300)}", file=human)
    print(f"{audit.document['verdict']['summary']}: {'PASS' if audit.exit_code == 0 else 'FAIL'}", file=human)
    print(f"report: {paths['html']}, {paths['markdown']}, {paths['json']}", file=human)
    emit_json(args, audit.document)
    return audit.exit_code


@contextlib.contextmanager
def _progress(cases: int) -> Any:
    """A progress bar on stderr when it is a terminal (``step(stage)`` advances it); silent otherwise."""
    # every case: checks, then tables; then certificates and the report itself
    total = 2 * cases + 2
    with progress_bar("auditing") as show:
        seen = {"n": 0}

        def step(stage: str) -> None:
            show(stage, seen["n"], total)
            seen["n"] += 1

        yield step
        show(None, total, total)


def add_audit_parser(commands: Any) -> None:
    """Declare ``dpverify audit`` on the CLI's subcommands; its handler is :func:`_audit`."""
    audit = commands.add_parser(
        "audit",
        help="one report on one spec: exact PMFs, privacy, proofs, statistics, plots (HTML, Markdown, JSON)",
        allow_abbrev=False,
        usage="dpverify audit SPEC [--PARAM VALUE ...] --out DIR [options]",
        description="Audit SPEC at the parameters --PARAM VALUE (every declared parameter), or every case the spec "
        "lists when none is given; write DIR/report.html, DIR/report.md (plots in DIR/plots/) and "
        "DIR/report.json. Exit 0 every expectation met, 1 a claim violated or a check not met, 2 bad "
        "usage or a broken spec.",
    )
    audit.add_argument("spec", metavar="SPEC", help="the spec's name, as dpverify check --list shows it")
    audit.add_argument("--out", required=True, metavar="DIR", help="the report's directory (created if missing)")
    audit.add_argument(
        "--spec-module",
        action="append",
        metavar="MODULE",
        help="find SPEC in this module's SPECS instead of the installed entry points (repeatable)",
    )
    audit.add_argument(
        "--seed", type=_count("seed", 0, MAX_SEED), help="seed of the statistical checks (default: fresh)"
    )
    audit.add_argument(
        "--samples",
        type=_count("samples", 1, MAX_SAMPLES),
        default=20_000,
        help="draws per statistical check (default 20000)",
    )
    audit.add_argument(
        "--time-limit",
        type=_count("time-limit", 1, MAX_TIMEOUT),
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=f"bound on each case's running time (default {DEFAULT_TIME_LIMIT})",
    )
    audit.add_argument(
        "--mutants", metavar="PATH", help="a `dpverify mutate --json` document: its rows for this spec's modules"
    )
    audit.add_argument(
        "--black-box",
        action="store_true",
        help="SPEC draws its own randomness (OpenDP, numpy): a distribution test and a held-out privacy "
        "test instead of exact checks; SPEC may also be module:attribute; writes DIR/blackbox.json",
    )
    audit.add_argument(
        "--confidence",
        metavar="C",
        help="with --black-box: the confidence of the privacy test's epsilon bound (default 1 - 10^-6)",
    )
    add_json_option(audit, "the report (DIR/report.json is written in any case)", schema="dpverify.audit/2")
    audit.set_defaults(run=_audit, parameters=[])
