"""Run many independent pieces of work in parallel: the one place sweeps are scheduled.

A sweep is ``function(*arguments)`` for each tuple in a list, where ``function`` is a
module-level callable (so a worker process can import it) and each result is picklable.  The
results come back in the order of the arguments, whatever order the work finished in, so a
sweep's output never depends on how it was scheduled.  ``jobs = 1`` runs everything in this
process, one after the other (no pickling, the easiest to debug).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from dpverify.verify._arguments import need_callable, need_count

__all__ = ["default_jobs", "sweep"]

R = TypeVar("R")

#: The most worker processes a local sweep starts.
MAX_JOBS = 256


def default_jobs() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def sweep(
    function: Callable[..., R],
    arguments: Sequence[tuple[Any, ...]],
    *,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[R]:
    """``[function(*a) for a in arguments]``, computed by ``jobs`` worker processes (default: one
    per core); ``progress(done, total)`` is called as results arrive."""
    function = need_callable("function", function)
    arguments = [tuple(a) for a in arguments]
    jobs = default_jobs() if jobs is None else need_count("jobs", jobs, low=1, high=MAX_JOBS)
    total = len(arguments)
    if jobs == 1 or total <= 1:
        results = []
        for done, a in enumerate(arguments, 1):
            results.append(function(*a))
            if progress is not None:
                progress(done, total)
        return results
    with ProcessPoolExecutor(max_workers=min(jobs, total)) as pool:
        futures = [pool.submit(function, *a) for a in arguments]
        results = []
        for done, future in enumerate(futures, 1):
            results.append(future.result())
            if progress is not None:
                progress(done, total)
        return results
