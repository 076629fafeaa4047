"""``dpverify reproduce PAPER``: the command line over :mod:`dpverify.verify.reports.reproduce._run`,
which recomputes the papers' rows; here the paper is resolved, ``--out`` checked before the
work, and the table, the figures and the JSON written where the options say."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify.cli._common import progress_bar
from dpverify.verify.gate._sweep import need_scheduler
from dpverify.verify.reports._output import add_json_option, emit_json, human_stream
from dpverify.verify.reports.reproduce._rows import REPRODUCE_SCHEMA, Options
from dpverify.verify.reports.reproduce._run import reproduce, reproduction_text, resolve_papers

__all__ = ["add_reproduce_command"]


def _prepare_out(path: str | None) -> str | None:
    """``--out DIR``: checked (and created) before the work; needs matplotlib for the figures."""
    if path is None:
        return None
    if not path.strip():
        raise DpverifyError("--out must name a directory; got an empty path.")
    if os.path.exists(path) and not os.path.isdir(path):
        raise DpverifyError(f"--out must be a directory; got --out={shown(path)}, which is a file.")
    parent = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(parent):
        raise DpverifyError(f"--out must be in an existing directory; got --out={shown(path)}.")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise DpverifyError(
            "--out writes the recomputed figures and needs matplotlib; install it with pip install 'dpverify[plot]'."
        ) from None
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as error:  # an immutable folder, a pseudo-filesystem such as /proc or /sys
        raise DpverifyError(f"--out cannot be created: {error.strerror or error}; got --out={shown(path)}.") from None
    if not os.access(path, os.W_OK):
        raise DpverifyError(f"--out must be a writable directory; got --out={shown(path)}.")
    return path


def _run(args: argparse.Namespace) -> int:
    selected = resolve_papers(args.paper)
    out = _prepare_out(args.out)
    human = human_stream(args)
    names = ", ".join(p.id for p in selected)
    print(f"dpverify reproduce {args.paper}: paper(s) {names}", file=human, flush=True)
    if args.scheduler:
        need_scheduler(args.scheduler, "--scheduler")  # before any work: a bad address, or no dask here
    with progress_bar("reproducing") as show:

        def report(line: str) -> None:
            print(f"  {line}", file=human, flush=True)

        reproduction = reproduce(
            selected,
            jobs=args.jobs,
            options=Options(measure=not args.no_timing),
            scheduler=args.scheduler,
            report=report,
            progress=lambda done, total: show(f"{done}/{total} computations", done, total),
        )
    print(reproduction_text(reproduction, commands=args.commands), file=human)
    if out is not None:
        from dpverify.verify.reports.reproduce._plots import write_figures

        written = write_figures([f for r in reproduction.results for f in r.figures], out)
        print(f"figures written to {out}: {', '.join(written) or 'none for these papers'}", file=human)
    emit_json(args, reproduction.to_json())
    return 0 if reproduction.passed else 1


def add_reproduce_command(commands: Any, count: Callable[[str, int, int], Callable[[str], int]], max_jobs: int) -> None:
    """Declare ``dpverify reproduce`` on the CLI's subcommands (``count`` parses ``--jobs``)."""
    reproduce_ = commands.add_parser(
        "reproduce",
        help="recompute every number the seed papers state; flag what does not hold",
        description="Recompute each seed paper's numbers, examples and theorem instances, side by side with the "
        "published values; every statement that is vacuous, false without a condition or inconsistent "
        "is flagged with the reason. Exit 0: every row reproduced or flagged; 1: a value not reproduced.",
    )
    reproduce_.add_argument(
        "paper", metavar="PAPER", help="000 (gazeau), 001 (cks20), 002 (notes), 003 (typechecker), 004 (gtm), or all"
    )
    reproduce_.add_argument(
        "--out",
        metavar="DIR",
        help="write the recomputed figures (PNG and CSV) to DIR (needs matplotlib: pip install 'dpverify[plot]')",
    )
    reproduce_.add_argument(
        "--jobs", type=count("jobs", 1, max_jobs), default=None, help="worker processes (default: one per core)"
    )
    reproduce_.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the recomputations on the Dask cluster at ADDRESS (needs dpverify[dask])",
    )
    reproduce_.add_argument("--commands", action="store_true", help="also print, per row, how to recompute it alone")
    reproduce_.add_argument(
        "--no-timing",
        action="store_true",
        help="leave out the measured rows (the sampling speed), so that two runs give the same rows",
    )
    add_json_option(reproduce_, "the table", schema=REPRODUCE_SCHEMA)
    reproduce_.set_defaults(run=_run)
