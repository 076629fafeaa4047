"""``dpverify reproduce PAPER``: every number the seed papers state, recomputed, each place
where a paper is vacuous, false without an unstated condition or inconsistent with itself
flagged with the reason.

The papers: 000 Gazeau, Miller, Palamidessi; 001 Canonne, Kamath, Steinke (CKS20); 002 the
lecture notes "Provable Privacy"; 003 the documentation of a DP type checker; 004 Amorim,
Gaboardi, Rindisbacher (GTM).  One module per paper (``_reproduce_<name>.py``) states its rows;
this module runs them and prints or serialises the table.

**Rows.**  A :class:`Row` is one quantity the paper states (a number, an example, an instance
of a theorem, a formula): where it is, the value as the paper states it (text), the value
recomputed (exact where possible: a rational, a certified decimal, a proof verdict), and
``match``: ``yes`` (recomputed and the paper agree), ``no`` (they disagree and nothing explains
it: a reproduction failure), or ``flagged`` (the paper's statement is vacuous, false without a
condition it does not state, or inconsistent with its own definitions; ``reason`` says which
and why).  ``command`` tells how to recompute the row alone.

**Scheduling.**  Each paper's :class:`Plan` lists independent tasks, each a module-level
function and its (picklable) arguments returning a :class:`Part`; all tasks of all the papers
asked for run through :func:`dpverify.verify._sweep.sweep` (``jobs`` worker processes), so the
rows never depend on the order or the number of workers: every task is deterministic and the
results come back in the order given.  The paper's ``assemble`` then builds its rows in this
process (the CKS20 curve is a hundred tasks, one per number of queries, and two rows).  A
measurement (the sampling speed CKS20 reports) is no task: it runs afterwards in this process,
alone, and its row says ``kind = "measured"``.
"""

from __future__ import annotations

import argparse
import os
import platform
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify._output import add_json_option, emit_json, human_stream
from dpverify.verify._sweep import default_jobs, need_scheduler, sweep

__all__ = [
    "KINDS",
    "MATCHES",
    "PAPER_IDS",
    "REPRODUCE_SCHEMA",
    "Figure",
    "Options",
    "Paper",
    "PaperResult",
    "Part",
    "Plan",
    "Reproduction",
    "Row",
    "Series",
    "Task",
    "add_reproduce_command",
    "certified_text",
    "papers",
    "reproduce",
    "resolve_papers",
]

#: The ``schema`` field of the JSON document (``schemas/reproduce-1.schema.json``).
REPRODUCE_SCHEMA = "dpverify.reproduce/1"

#: A row's verdict: the paper's value reproduced, not reproduced, or the statement flagged.
MATCHES = ("yes", "no", "flagged")

#: How a row's recomputed value was obtained.
KINDS = (
    "exact",  # rational arithmetic, an exact enumeration of the code or of a closed form
    "certified",  # a rigorous interval enclosure (mpmath.iv), reported as certified decimals
    "symbolic",  # a SymPy derivation (a limit, an integral, a simplification)
    "proof",  # an SMT proof (Z3) for all parameters
    "reading",  # a statement read against its own definitions or its citation (no number)
    "measured",  # a timing on this machine (not deterministic, never a task)
)

PAPER_IDS = ("000", "001", "002", "003", "004")


# --- value objects ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    """One quantity a paper states, recomputed.

    ``id`` is stable (``"004/thm-6.2/alpha=1/3,n=5,T=1000"``) so a test or a script can find
    the row; ``quantity`` says what it is, ``where`` where the paper states it (section,
    theorem, example, page element), ``paper`` the value as the paper states it (text, as
    printed, reconstructed where the extraction garbled it, which the row then says),
    ``recomputed`` the value found here, ``match`` one of :data:`MATCHES`, ``reason`` why a row
    is flagged or does not match (and, on a ``yes`` row, a note worth reading), ``command`` how
    to recompute the row alone, ``kind`` one of :data:`KINDS`.
    """

    id: str
    quantity: str
    where: str
    paper: str
    recomputed: str
    match: str
    reason: str | None = None
    command: str | None = None
    kind: str = "exact"

    def __post_init__(self) -> None:
        if self.match not in MATCHES:
            raise AssertionError(f"row {self.id}: match must be one of {MATCHES}; got {self.match!r}")
        if self.kind not in KINDS:
            raise AssertionError(f"row {self.id}: kind must be one of {KINDS}; got {self.kind!r}")
        if self.match != "yes" and not self.reason:
            raise AssertionError(f"row {self.id}: a {self.match} row needs its reason")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "quantity": self.quantity, "where": self.where, "paper": self.paper,
                "recomputed": self.recomputed, "match": self.match, "reason": self.reason,
                "command": self.command, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class Series:
    """One curve of a figure: ``(x, y)`` points (floats: a plot is for the eye, the rows carry
    the exact values) and its matplotlib format string."""

    label: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    style: str = "-"


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure recomputed from a paper: written as ``<name>.png`` and ``<name>.csv`` with ``--out``."""

    name: str
    title: str
    xlabel: str
    ylabel: str
    series: tuple[Series, ...]
    log_y: bool = False


@dataclass(frozen=True, slots=True)
class Part:
    """What one task returns: rows, figures, and data for the paper's ``assemble``."""

    rows: tuple[Row, ...] = ()
    figures: tuple[Figure, ...] = ()
    data: Any = None


@dataclass(frozen=True, slots=True)
class Task:
    """``function(*arguments)``, a module-level function returning a :class:`Part`."""

    function: Callable[..., Part]
    arguments: tuple[Any, ...] = ()


def _concatenate(parts: Sequence[Part]) -> Part:
    return Part(tuple(r for p in parts for r in p.rows), tuple(f for p in parts for f in p.figures))


@dataclass(frozen=True, slots=True)
class Plan:
    """A paper's tasks, how their parts combine (default: rows and figures concatenated in task
    order) and the measurements run afterwards in this process (``measure()``)."""

    tasks: tuple[Task, ...]
    assemble: Callable[[Sequence[Part]], Part] = _concatenate
    measure: Callable[[], tuple[Row, ...]] | None = None


@dataclass(frozen=True, slots=True)
class Options:
    """What the caller asked for: ``measure`` runs the timings (off in tests comparing runs)."""

    measure: bool = True


@dataclass(frozen=True, slots=True)
class Paper:
    """A seed paper: its number, file, citation, the names it answers to and its plan."""

    id: str
    file: str
    title: str
    aliases: tuple[str, ...]
    plan: Callable[[Options], Plan]


@dataclass(frozen=True, slots=True)
class PaperResult:
    paper: Paper
    rows: tuple[Row, ...]
    figures: tuple[Figure, ...]

    def counts(self) -> dict[str, int]:
        return {match: sum(row.match == match for row in self.rows) for match in MATCHES}


@dataclass(frozen=True, slots=True)
class Reproduction:
    """The recomputed tables of the papers asked for."""

    results: tuple[PaperResult, ...]
    jobs: int
    seconds: float
    machine: dict[str, Any] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        return {match: sum(r.counts()[match] for r in self.results) for match in MATCHES}

    @property
    def passed(self) -> bool:
        """No row is ``no``: every value the paper states is reproduced or flagged."""
        return self.counts()["no"] == 0

    def rows(self) -> tuple[Row, ...]:
        return tuple(row for result in self.results for row in result.rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": REPRODUCE_SCHEMA,
            "papers": [
                {"id": r.paper.id, "file": r.paper.file, "title": r.paper.title, "summary": r.counts(),
                 "rows": [row.to_json() for row in r.rows],
                 "figures": [figure.name for figure in r.figures]}
                for r in self.results
            ],
            "summary": {**self.counts(), "rows": len(self.rows()), "passed": self.passed},
            "jobs": self.jobs,
            "seconds": round(self.seconds, 3),
            "machine": self.machine,
        }


def certified_text(low: Any, high: Any, digits: int = 10) -> str:
    """An enclosure ``[low, high]`` (mpf) for the table: rounded to ``digits`` significant digits
    when it is more than a thousand times narrower than that rounding step (so the text is the
    value rounded, barring a tie), else both ends, rounded outward."""
    import mpmath

    from dpverify.specs._interval_tools import mpf_decimal

    bits = max(mpmath.mpf(low)._mpf_[3], mpmath.mpf(high)._mpf_[3], mpmath.mp.prec)  # the ends' own precision
    with mpmath.workprec(bits + 64):
        middle = (low + high) / 2
        if middle != 0 and abs(high - low) <= abs(middle) * mpmath.mpf(10) ** (-digits - 3):
            return mpmath.nstr(middle, digits, min_fixed=-5, max_fixed=16)
    if low < 0:
        return f"[{mpmath.nstr(low, digits)}, {mpmath.nstr(high, digits)}]"
    return f"[{mpf_decimal(low, digits, up=False)}, {mpf_decimal(high, digits, up=True)}]"


# --- the papers ---------------------------------------------------------------------------------


def papers() -> tuple[Paper, ...]:
    """The five seed papers, in the order of their numbers (imported here: each module loads
    only what its rows need, when they run)."""
    from dpverify.verify import (
        _reproduce_cks20,
        _reproduce_gazeau,
        _reproduce_gtm,
        _reproduce_notes,
        _reproduce_typechecker,
    )

    return (_reproduce_gazeau.PAPER, _reproduce_cks20.PAPER, _reproduce_notes.PAPER,
            _reproduce_typechecker.PAPER, _reproduce_gtm.PAPER)


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
    return {"platform": platform.platform(), "machine": platform.machine(), "processor": platform.processor(),
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "cpus": os.cpu_count(), "usable_cpus": default_jobs()}


def _call(task: Task) -> Part:
    """Run one task (module level, so a worker process can import it)."""
    part = task.function(*task.arguments)
    if not isinstance(part, Part):
        raise AssertionError(f"{task.function.__qualname__} returned {type(part).__name__}, not a Part")
    return part


def reproduce(selected: Sequence[Paper], *, jobs: int | None = None, options: Options = Options(),
              progress: Callable[[int, int], None] | None = None, scheduler: str | None = None) -> Reproduction:
    """Recompute the tables of ``selected``: every paper's tasks in one sweep over ``jobs``
    worker processes (default: one per core) or, with ``scheduler``, on that Dask cluster (at
    most ``jobs`` tasks at once; default: its worker threads); then each paper's measurements
    here, on this machine."""
    if isinstance(selected, (str, bytes)) or not isinstance(selected, Sequence) \
            or not all(isinstance(paper, Paper) for paper in selected):
        raise DpverifyError(f"selected must be a sequence of Papers (see resolve_papers); got selected={shown(selected)}.")
    if not isinstance(options, Options):
        raise DpverifyError(f"options must be an Options; got options={shown(options)} ({type(options).__name__}).")
    if progress is not None and not callable(progress):
        raise DpverifyError(f"progress must be a callable (done, total) or None; got progress={shown(progress)}.")
    start = time.perf_counter()
    plans = [paper.plan(options) for paper in selected]
    tasks = [(task,) for plan in plans for task in plan.tasks]
    workers = jobs if scheduler is not None else default_jobs() if jobs is None else jobs
    parts = sweep(_call, tasks, jobs=workers, progress=progress, scheduler=scheduler)
    results, offset = [], 0
    for paper, plan in zip(selected, plans):
        combined = plan.assemble(parts[offset: offset + len(plan.tasks)])
        offset += len(plan.tasks)
        measured = plan.measure() if (plan.measure is not None and options.measure) else ()
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
    wrapped = [textwrap.wrap(v, width, break_long_words=True, break_on_hyphens=False) or [""]
               for v, width in zip(values, _WIDTHS)]
    lines = []
    for i in range(max(len(w) for w in wrapped)):
        cells = [(w[i] if i < len(w) else "").ljust(width) for w, width in zip(wrapped, _WIDTHS)]
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
    lines.append(f"  paper {result.paper.id}: {len(result.rows)} rows, {counts['yes']} yes, {counts['no']} no, "
                 f"{counts['flagged']} flagged")
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
    lines.append(f"reproduce: {len(reproduction.rows())} rows, {c['yes']} yes, {c['no']} no, {c['flagged']} flagged, "
                 f"{reproduction.seconds:.1f} s with {reproduction.jobs or 'the cluster'} job(s): {verdict}")
    return "\n".join(lines)


# --- the command ---------------------------------------------------------------------------------


def _prepare_out(path: str | None) -> str | None:
    """``--out DIR``: checked (and created) before the work; needs matplotlib for the figures."""
    if path is None:
        return None
    if os.path.exists(path) and not os.path.isdir(path):
        raise DpverifyError(f"--out must be a directory; got --out={shown(path)}, which is a file.")
    parent = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(parent):
        raise DpverifyError(f"--out must be in an existing directory; got --out={shown(path)}.")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise DpverifyError("--out writes the recomputed figures and needs matplotlib; install it with "
                            "pip install 'dpverify[plot]'.") from None
    os.makedirs(path, exist_ok=True)
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
    reproduction = reproduce(selected, jobs=args.jobs, options=Options(measure=not args.no_timing),
                             scheduler=args.scheduler)
    print(reproduction_text(reproduction, commands=args.commands), file=human)
    if out is not None:
        from dpverify.verify._reproduce_plots import write_figures

        written = write_figures([f for r in reproduction.results for f in r.figures], out)
        print(f"figures written to {out}: {', '.join(written) or 'none for these papers'}", file=human)
    emit_json(args, reproduction.to_json())
    return 0 if reproduction.passed else 1


def add_reproduce_command(commands: Any, count: Callable[[str, int, int], Callable[[str], int]],
                          max_jobs: int) -> None:
    """Declare ``dpverify reproduce`` on the CLI's subcommands (``count`` parses ``--jobs``)."""
    reproduce_ = commands.add_parser(
        "reproduce", help="recompute every number the seed papers state; flag what does not hold",
        description="Recompute each seed paper's numbers, examples and theorem instances, side by side with the "
                    "published values; every statement that is vacuous, false without a condition or inconsistent "
                    "is flagged with the reason. Exit 0: every row reproduced or flagged; 1: a value not reproduced.")
    reproduce_.add_argument("paper", metavar="PAPER",
                            help="000 (gazeau), 001 (cks20), 002 (notes), 003 (typechecker), 004 (gtm), or all")
    reproduce_.add_argument("--out", metavar="DIR", help="write the recomputed figures (PNG and CSV) to DIR "
                                                          "(needs matplotlib: pip install 'dpverify[plot]')")
    reproduce_.add_argument("--jobs", type=count("jobs", 1, max_jobs), default=None,
                            help="worker processes (default: one per core)")
    reproduce_.add_argument("--scheduler", metavar="ADDRESS",
                            help="run the recomputations on the Dask cluster at ADDRESS (needs dpverify[dask])")
    reproduce_.add_argument("--commands", action="store_true", help="also print, per row, how to recompute it alone")
    reproduce_.add_argument("--no-timing", action="store_true",
                            help="leave out the measured rows (the sampling speed), so that two runs give the same rows")
    add_json_option(reproduce_, "the table", schema=REPRODUCE_SCHEMA)
    reproduce_.set_defaults(run=_run)

