"""``dpverify reproduce PAPER``: every number the seed papers state, recomputed, each place
where a paper is vacuous, false without an unstated condition or inconsistent with itself
flagged with the reason.

The papers: 000 Gazeau, Miller, Palamidessi; 001 Canonne, Kamath, Steinke (CKS20); 002 the
lecture notes "Provable Privacy"; 003 the documentation of a DP type checker; 004 Amorim,
Gaboardi, Rindisbacher (GTM).  One module per paper (``_<name>.py`` beside this one) states its rows;
this module runs them and prints or serialises the table (the command line, parsing and
checking the options, is :mod:`dpverify.verify.cli._reproduce`).

**Rows.**  A :class:`Row` is one quantity the paper states (a number, an example, an instance
of a theorem, a formula): where it is, the value as the paper states it (text), the value
recomputed (exact where possible: a rational, a certified decimal, a proof verdict), and
``match``: ``yes`` (recomputed and the paper agree), ``no`` (they disagree and nothing explains
it: a reproduction failure), or ``flagged`` (the paper's statement is vacuous, false without a
condition it does not state, or inconsistent with its own definitions; ``reason`` says which
and why).  ``command`` tells how to recompute the row alone.

**Scheduling.**  Each paper's :class:`Plan` lists independent tasks, each a module-level
function and its (picklable) arguments returning a :class:`Part`; all tasks of all the papers
asked for run through :func:`dpverify.verify.gate._sweep.sweep` (``jobs`` worker processes), so the
rows never depend on the order or the number of workers: every task is deterministic and the
results come back in the order given.  The paper's ``assemble`` then builds its rows in this
process (the CKS20 curve is a hundred tasks, one per number of queries, and two rows).  A
measurement (the sampling speed CKS20 reports) is no task: it runs afterwards in this process,
alone, and its row says ``kind = "measured"``.
"""

from __future__ import annotations

import itertools
import os
import platform
import textwrap
import time
from collections.abc import Callable, Sequence
from typing import Any

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify.engine._arguments import need_count
from dpverify.verify.gate._sweep import MAX_JOBS, default_jobs, need_scheduler, sweep
from dpverify.verify.reports.reproduce._rows import Options, Paper, PaperResult, Part, Reproduction, Row, Task

__all__ = ["papers", "reproduce", "reproduction_text", "resolve_papers"]

# --- the papers ---------------------------------------------------------------------------------


def papers() -> tuple[Paper, ...]:
    """The five seed papers, in the order of their numbers (imported here: each module loads
    only what its rows need, when they run)."""
    from dpverify.verify.reports.reproduce import _cks20, _gazeau, _gtm, _notes, _typechecker

    return (_gazeau.PAPER, _cks20.PAPER, _notes.PAPER, _typechecker.PAPER, _gtm.PAPER)


def resolve_papers(name: object) -> tuple[Paper, ...]:
    """The papers ``name`` denotes: a number (``"004"``, ``"4"``), ``"all"``, or a short name
    or first author (``"gtm"``, ``"amorim"``, ``"cks20"``, ...), case-insensitive."""
    known = papers()
    if isinstance(name, str):
        key = name.strip().lower()
        if key == "all":
            return known
        for paper in known:
            if key in (paper.id, paper.id.lstrip("0") or "0", *paper.aliases):
                return (paper,)
    names = ", ".join(f"{p.id} ({'/'.join(p.aliases)})" for p in known)
    raise DpverifyError(f"paper must be one of {names}, or all; got paper={shown(name)}.")


def _machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "cpus": os.cpu_count(),
        "usable_cpus": default_jobs(),
    }


def _call(task: Task) -> Part:
    """Run one task (module level, so a worker process can import it)."""
    part = task.function(*task.arguments)
    if not isinstance(part, Part):
        raise AssertionError(f"{task.function.__qualname__} returned {type(part).__name__}, not a Part")
    return part


def reproduce(
    selected: Sequence[Paper],
    *,
    jobs: int | None = None,
    options: Options = Options(),  # noqa: B008 - frozen, so one shared default is safe
    progress: Callable[[int, int], None] | None = None,
    scheduler: str | None = None,
    report: Callable[[str], None] | None = None,
) -> Reproduction:
    """Recompute the tables of ``selected``: every paper's tasks in one sweep over ``jobs``
    worker processes (default: one per core) or, with ``scheduler``, on that Dask cluster (at
    most ``jobs`` tasks at once; default: its worker threads); then each paper's measurements
    here, on this machine.  ``progress(done, total)`` follows the tasks; ``report(line)`` gets
    one line as each paper's tasks are all done and as each paper's measurement starts."""
    if (
        isinstance(selected, (str, bytes))
        or not isinstance(selected, Sequence)
        or not all(isinstance(paper, Paper) for paper in selected)
    ):
        raise DpverifyError(
            f"selected must be a sequence of Papers (see resolve_papers); got selected={shown(selected)}."
        )
    if not isinstance(options, Options):
        raise DpverifyError(f"options must be an Options; got options={shown(options)} ({type(options).__name__}).")
    if progress is not None and not callable(progress):
        raise DpverifyError(f"progress must be a callable (done, total) or None; got progress={shown(progress)}.")
    if report is not None and not callable(report):
        raise DpverifyError(f"report must be a callable (line) or None; got report={shown(report)}.")
    # The sweep checks them too, but only after the plans are made and the line announcing it is
    # printed with both: check them before any work.
    if jobs is not None:
        jobs = need_count("jobs", jobs, low=1, high=MAX_JOBS)
    if scheduler is not None:
        scheduler = need_scheduler(scheduler)
    say = report or (lambda line: None)
    start = time.perf_counter()
    plans = [paper.plan(options) for paper in selected]
    tasks = [(task,) for plan in plans for task in plan.tasks]
    workers = jobs if scheduler is not None else default_jobs() if jobs is None else jobs
    # the task count at which each paper's last task is in (results come back in the order given)
    ends = {
        end: paper
        for end, paper, plan in zip(itertools.accumulate(len(p.tasks) for p in plans), selected, plans, strict=True)
        if plan.tasks
    }

    def advance(done: int, total: int) -> None:
        if progress is not None:
            progress(done, total)
        if done in ends:
            say(
                f"paper {ends[done].id}: computed ({done} of {total} computations, {time.perf_counter() - start:.1f} s)"
            )

    where = (
        f"the Dask cluster at {scheduler}"
        if scheduler is not None
        else "this process"
        if workers == 1 or len(tasks) <= 1
        else f"{workers} worker processes"
    )
    say(f"{len(tasks)} computations {'in' if where == 'this process' else 'on'} {where}")
    parts = sweep(_call, tasks, jobs=workers, progress=advance, scheduler=scheduler)
    results, offset = [], 0
    for paper, plan in zip(selected, plans, strict=True):
        combined = plan.assemble(parts[offset : offset + len(plan.tasks)])
        offset += len(plan.tasks)
        measured: tuple[Row, ...] = ()
        if plan.measure is not None and options.measure:
            say(f"paper {paper.id}: timing on this machine")
            measured = plan.measure()
        ids = [row.id for row in (*combined.rows, *measured)]
        if len(set(ids)) != len(ids):
            raise AssertionError(f"paper {paper.id}: duplicate row ids {sorted({i for i in ids if ids.count(i) > 1})}")
        results.append(PaperResult(paper, (*combined.rows, *measured), combined.figures))
    return Reproduction(tuple(results), workers, time.perf_counter() - start, _machine())


# --- the human table ----------------------------------------------------------------------------

#: Column widths of the table: #, match, where, quantity, paper, recomputed.
_WIDTHS = (3, 7, 16, 34, 28, 40)
_HEADER = ("#", "match", "where", "quantity", "paper", "recomputed")


def _cells(values: Sequence[str]) -> list[str]:
    wrapped = [
        textwrap.wrap(v, width, break_long_words=True, break_on_hyphens=False) or [""]
        for v, width in zip(values, _WIDTHS, strict=True)
    ]
    lines = []
    for i in range(max(len(w) for w in wrapped)):
        cells = [(w[i] if i < len(w) else "").ljust(width) for w, width in zip(wrapped, _WIDTHS, strict=True)]
        lines.append("  " + " ".join(cells).rstrip())
    return lines


def paper_text(result: PaperResult) -> list[str]:
    """One paper's table, then its notes (every flag and non-match with its reason, every note
    of a matching row, and the command that recomputes the row)."""
    lines = [f"Paper {result.paper.id}: {result.paper.title}", *_cells(_HEADER)]
    notes = []
    for number, row in enumerate(result.rows, 1):
        mark = row.match.upper() if row.match == "no" else row.match
        lines += _cells((str(number), mark, row.where, row.quantity, row.paper, row.recomputed))
        if row.reason:
            label = {"yes": "note", "no": "NOT REPRODUCED", "flagged": "flag"}[row.match]
            notes.append(f"  [{number}] {label}: {row.reason}")
    counts = result.counts()
    lines.append(
        f"  paper {result.paper.id}: {len(result.rows)} rows, {counts['yes']} yes, {counts['no']} no, "
        f"{counts['flagged']} flagged"
    )
    if notes:
        lines += ["", *notes]
    return lines


def reproduction_text(reproduction: Reproduction, *, commands: bool = False) -> str:
    lines: list[str] = []
    for result in reproduction.results:
        lines += [*paper_text(result), ""]
        if commands:
            for number, row in enumerate(result.rows, 1):
                if row.command:
                    lines.append(f"  [{number}] $ {row.command}")
            lines.append("")
    c = reproduction.counts()
    verdict = "PASS" if reproduction.passed else "FAIL: a value the paper states was not reproduced"
    lines.append(
        f"reproduce: {len(reproduction.rows())} rows, {c['yes']} yes, {c['no']} no, {c['flagged']} flagged, "
        f"{reproduction.seconds:.1f} s with {reproduction.jobs or 'the cluster'} job(s): {verdict}"
    )
    return "\n".join(lines)
