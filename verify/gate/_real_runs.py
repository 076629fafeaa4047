"""Runs of the code on real randomness (the smoke run, the statistical sampling) under a watchdog,
so that a run that never returns is reported as what it is, in seconds, and never keeps a case
from its exact verdict.  Its own module: how long a real run may take, apart from what a check does.

The exact checks enumerate the code's draws, and a walk reports a loop that never ends (every
attempt rejects, or every path comes back to where it was) as a violation with its evidence.  A
run on a real source has no such view: it just does not return.  So every such run here gets a
bound of its own, a small share of the case's: :func:`run_seconds` for one run (the smoke run's
second chance, each batch of the statistical sampling) and :func:`quick_seconds` for the smoke
run's first pass, which comes before any enumeration.  When it expires the run is abandoned and
:class:`NoOutput` says how many runs had returned and how long the last one was given.

Why a short bound is safe: a correct sampler's run takes microseconds to milliseconds (the
built-in ones take at most 2 ms for a whole smoke run of 16 inputs), so a run that gives no
output for a quarter of a second is a hundred times past its expected time, and one that gives
none for 5 s thousands of times.  A first pass that ends in its bound costs nothing but the
bound: the exact checks run next, and a sampler that is merely slow passes on the second chance.
It is still no proof (a
correct rejection sampler's run is unbounded with positive probability, and a loaded machine
stalls), which is why a hang alone never makes a case violated (:mod:`~dpverify.verify.gate._spec_run`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from dpverify.verify.gate._time_bound import time_bound

__all__ = [
    "BATCH_SECONDS",
    "QUICK_SECONDS",
    "RUN_SECONDS",
    "NoOutput",
    "once",
    "quick_seconds",
    "run_seconds",
    "watched",
]

T = TypeVar("T")

#: Seconds one run on real randomness may go without an output before it counts as hung.
RUN_SECONDS = 5
#: Seconds each input's run may take in the smoke run's first pass, before the exact checks.
QUICK_SECONDS = 0.25
#: The statistical sampling runs in batches sized to take about this long (seconds), each under
#: one bound: the bound's own cost is then negligible, and a batch that ends in the bound differs
#: from "one run gave no output" by at most this.
BATCH_SECONDS = 0.05


def run_seconds(time_limit: float | None) -> float:
    """The bound on one run on real randomness: :data:`RUN_SECONDS`, or an eighth of the case's
    ``time_limit`` where that is shorter (None, an unbounded case: still :data:`RUN_SECONDS`,
    since a hang would otherwise never end)."""
    return RUN_SECONDS if time_limit is None else min(RUN_SECONDS, time_limit / 8)


def quick_seconds(time_limit: float | None) -> float:
    """The bound on each input's run in the smoke run's first pass: :data:`QUICK_SECONDS`, or a
    sixteenth of the case's ``time_limit`` where that is shorter."""
    return QUICK_SECONDS if time_limit is None else min(QUICK_SECONDS, time_limit / 16)


class NoOutput(Exception):
    """Runs on real randomness stopped giving outputs: ``done`` had returned, then the bound of
    ``seconds`` on the next ``batch`` runs expired with no output in its last ``silent`` seconds
    (all of it for a single run)."""

    def __init__(self, done: int, batch: int, seconds: float, silent: float) -> None:
        super().__init__(f"no output in {_seconds_text(silent)} of real draws after {done} run(s) returned")
        self.done, self.batch, self.seconds, self.silent = done, batch, seconds, silent

    @property
    def within(self) -> str:
        """``"5 s"``: how long the last run went without an output, as the reports show it."""
        return _seconds_text(self.silent)


class _Late(BaseException):
    """A batch's bound expired (a BaseException, so that the sampler's ``except Exception`` cannot
    swallow it; the enclosing case bound's own exception is another class and passes through)."""


def once(run: Callable[[], T], seconds: float, done: int = 0) -> T:
    """``run()``, or :class:`NoOutput` if it gives no output within ``seconds``."""
    try:
        with time_bound(seconds, _Late):
            return run()
    except _Late:
        raise NoOutput(done, 1, seconds, seconds) from None


def watched(run: Callable[[], T], count: int, seconds: float) -> list[T]:
    """``count`` outputs of ``run()``, in batches each bounded by ``seconds``; :class:`NoOutput`
    when a batch does not finish in time, with how long it had gone since its last output.
    Batches start at one run and double while a batch takes under half of :data:`BATCH_SECONDS`,
    so the bounds cost nothing measurable and a run that hangs is abandoned within ``seconds``
    (give or take one batch) of its start."""
    outputs: list[T] = []
    size = 1
    while len(outputs) < count:
        size = min(size, count - len(outputs))
        started = last = time.monotonic()
        before = len(outputs)
        try:
            with time_bound(seconds, _Late):
                for _ in range(size):
                    outputs.append(run())
                    last = time.monotonic()
        except _Late:
            late = time.monotonic()
            raise NoOutput(len(outputs), size - (len(outputs) - before), seconds, late - last) from None
        if last - started < BATCH_SECONDS / 2:
            size *= 2
    return outputs


def _seconds_text(seconds: float) -> str:
    return f"{seconds:.3g} s"
