"""The rows, tables and plans every paper module of ``dpverify reproduce`` builds (see
:mod:`dpverify.verify.reports.reproduce._run` for what they mean and how they are run)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

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
    "certified_text",
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
        return {
            "id": self.id,
            "quantity": self.quantity,
            "where": self.where,
            "paper": self.paper,
            "recomputed": self.recomputed,
            "match": self.match,
            "reason": self.reason,
            "command": self.command,
            "kind": self.kind,
        }


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
    jobs: int | None  # None: on a Dask cluster with its own worker threads
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
                {
                    "id": r.paper.id,
                    "file": r.paper.file,
                    "title": r.paper.title,
                    "summary": r.counts(),
                    "rows": [row.to_json() for row in r.rows],
                    "figures": [figure.name for figure in r.figures],
                }
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
            return str(mpmath.nstr(middle, digits, min_fixed=-5, max_fixed=16))  # mpmath is untyped
    if low < 0:
        return f"[{mpmath.nstr(low, digits)}, {mpmath.nstr(high, digits)}]"
    return f"[{mpf_decimal(low, digits, up=False)}, {mpf_decimal(high, digits, up=True)}]"
