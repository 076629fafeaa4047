"""Run many independent pieces of work in parallel: the one place sweeps are scheduled.

A sweep is ``function(*arguments)`` for each tuple in a list, where ``function`` is a
module-level callable (so a worker process can import it) and each result is picklable.  The
results come back in the order of the arguments, whatever order the work finished in, so a
sweep's output never depends on how it was scheduled.  ``jobs = 1`` runs everything in this
process, one after the other (no pickling, the easiest to debug).

Where the work runs:

- locally (the default): ``jobs`` worker processes on this machine (default: one per core);
- on a Dask cluster, ``scheduler="tcp://HOST:PORT"``: a :class:`distributed.Client` connects to
  that scheduler and the same tasks are submitted to its workers (``pip install
  'dpverify[dask]'``; dask is imported only then).  The workers need dpverify, and whatever
  package ``function`` lives in, installed; nothing else of this machine (its files, its
  ``sys.path``) is seen there.  The client is closed on every way out, an exception or an
  interrupted iteration included.

Either way at most ``jobs`` tasks are in flight at once (on a cluster the default is the
cluster's worker threads when the client connects), the next one submitted as one finishes, so
``stop`` can end a sweep early: once a result satisfies ``stop``, or a task raises, nothing more
is submitted; what was already in flight finishes (or is cancelled, if it has not started), and
the sweep returns the results up to and including the first, in the order given, that satisfies
``stop``: exactly what the one-at-a-time run returns.  A task's exception is re-raised at its
place in that order, as the one-at-a-time run would raise it (same type and message; a local
worker's traceback is chained to it).
"""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor
from concurrent.futures import wait as wait_local
from typing import Any, TypeVar

from dpverify.samplers import DpverifyError, InvalidArgument
from dpverify.verify.engine._arguments import need_callable, need_count, shown

__all__ = ["default_jobs", "need_scheduler", "sweep", "sweep_results"]

R = TypeVar("R")

#: The most worker processes a local sweep starts, and the most tasks in flight on a cluster.
MAX_JOBS = 256
#: Seconds to wait for a Dask scheduler to answer before giving up.
CONNECT_TIMEOUT = 30
#: What ``pip install`` needs for ``scheduler``.
DASK_EXTRA = "dpverify[dask]"

#: ``[PROTOCOL://]HOST:PORT``: the TCP-based protocols of distributed, a host name, an IPv4
#: address or a bracketed IPv6 one, a port.
_ADDRESS = re.compile(
    r"(?:(?P<protocol>tcp|tls|ws|wss)://)?"
    r"(?P<host>\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)"
    r":(?P<port>[0-9]{1,5})"
)


def default_jobs() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def need_scheduler(address: object, name: str = "scheduler") -> str:
    """``address`` if it is a Dask scheduler address ``[PROTOCOL://]HOST:PORT`` (PROTOCOL one of
    tcp, tls, ws, wss; PORT in 1..65535) and dask.distributed can be imported here; else one
    :class:`~dpverify.samplers.DpverifyError` line (the address, or the extra to install)."""
    match = _ADDRESS.fullmatch(address) if isinstance(address, str) else None
    if not isinstance(address, str) or match is None or not 1 <= int(match["port"]) <= 65535:
        raise InvalidArgument(
            f"{name} must be a Dask scheduler address [PROTOCOL://]HOST:PORT (PROTOCOL tcp, tls, "
            f"ws or wss; PORT 1..65535), such as tcp://10.0.0.5:8786; got {name}={shown(address)}."
        )
    try:
        import distributed  # noqa: F401 - only whether it imports
    except ImportError:
        raise DpverifyError(
            f"{name} needs dask.distributed, which is not installed here: pip install '{DASK_EXTRA}'."
        ) from None
    return address


def sweep(
    function: Callable[..., R],
    arguments: Sequence[tuple[Any, ...]],
    *,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    scheduler: str | None = None,
    stop: Callable[[R], bool] | None = None,
) -> list[R]:
    """``[function(*a) for a in arguments]``, computed by ``jobs`` local worker processes (default:
    one per core), or on the Dask cluster whose scheduler is at ``scheduler``; with ``stop``, only
    up to the first result (in the order given) that satisfies it.  ``progress(done, total)`` is
    called as results are taken, in the order given."""
    results = []
    total = len(arguments)
    for done, result in enumerate(sweep_results(function, arguments, jobs=jobs, scheduler=scheduler, stop=stop), 1):
        results.append(result)
        if progress is not None:
            progress(done, total)
    return results


def sweep_results(
    function: Callable[..., R],
    arguments: Sequence[tuple[Any, ...]],
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    stop: Callable[[R], bool] | None = None,
) -> Iterator[R]:
    """:func:`sweep`'s results one by one, in the order given, each as soon as it and every one
    before it are done.  The arguments are checked now; the work starts with the first ``next``.
    Closing the iterator early cancels what has not started (and closes a cluster's client)."""
    function = need_callable("function", function)
    arguments = [tuple(a) for a in arguments]
    if jobs is not None:
        jobs = need_count("jobs", jobs, low=1, high=MAX_JOBS)
    if stop is not None:
        stop = need_callable("stop", stop)
    if scheduler is not None:
        return _on_cluster(function, arguments, need_scheduler(scheduler), jobs, stop)
    jobs = default_jobs() if jobs is None else jobs
    if jobs == 1 or len(arguments) <= 1:
        return _here(function, arguments, stop)
    return _local(function, arguments, jobs, stop)


def _here(
    function: Callable[..., R], arguments: list[tuple[Any, ...]], stop: Callable[[R], bool] | None
) -> Iterator[R]:
    for a in arguments:
        result = function(*a)
        yield result
        if stop is not None and stop(result):
            return


def _local(
    function: Callable[..., R], arguments: list[tuple[Any, ...]], jobs: int, stop: Callable[[R], bool] | None
) -> Iterator[R]:
    # fork, named: the workers inherit the supervisor's report pipe and the imported specs (3.14 made
    # forkserver Linux's default, whose workers have neither)
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(arguments)),
        initializer=_ignore_interrupt,
        mp_context=multiprocessing.get_context("fork"),
    )
    try:
        yield from _windowed(
            lambda a: _forking(pool.submit, function, *a),
            lambda running: wait_local(running, return_when=FIRST_COMPLETED).done,
            arguments,
            jobs,
            stop,
        )
    except (KeyboardInterrupt, GeneratorExit):
        # The workers ignore Ctrl-C, so the work in flight would run on to its end: no one will
        # read it, and the user asked to stop now.
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.kill()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _ignore_interrupt() -> None:
    """A worker's start: Ctrl-C reaches the whole process group, and only the parent reports it
    (the workers are killed), so that no worker prints a KeyboardInterrupt traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _forking(submit: Callable[..., Any], *arguments: Any) -> Any:
    """``submit(*arguments)`` with SIGINT blocked: the first submit forks the workers, and a Ctrl-C
    that reached a worker before :func:`_ignore_interrupt` would print a traceback there; the
    parent gets a held-back one as the mask is restored."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return submit(*arguments)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _on_cluster(
    function: Callable[..., R],
    arguments: list[tuple[Any, ...]],
    address: str,
    jobs: int | None,
    stop: Callable[[R], bool] | None,
) -> Iterator[R]:
    from distributed import Client
    from distributed import wait as wait_cluster

    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)  # type: ignore[no-untyped-call]  # distributed leaves Client.__init__ unannotated
    except (OSError, TimeoutError) as error:
        raise DpverifyError(
            f"cannot connect to the Dask scheduler at scheduler={shown(address)} within "
            f"{CONNECT_TIMEOUT} s: {' '.join(str(error).split())[:200]}"
        ) from None

    def wait_any(running: set[Any]) -> set[Any]:
        with client.as_current():  # wait() asks for the current client; this one is no process default
            done: set[Any] = wait_cluster(list(running), return_when="FIRST_COMPLETED").done  # type: ignore[no-untyped-call]  # distributed leaves wait unannotated
            return done

    with client:
        window = jobs
        if window is None:
            threads: dict[str, int] = client.nthreads()  # type: ignore[no-untyped-call]  # distributed leaves nthreads unannotated
            window = min(MAX_JOBS, max(1, sum(threads.values())))
        # pure=False: two equal calls are two tasks, never one shared result
        yield from _windowed(lambda a: client.submit(function, *a, pure=False), wait_any, arguments, window, stop)


def _windowed(
    submit: Callable[[tuple[Any, ...]], Any],
    wait_any: Callable[[set[Any]], set[Any]],
    arguments: list[tuple[Any, ...]],
    window: int,
    stop: Callable[[Any], bool] | None,
) -> Iterator[Any]:
    """Keep ``window`` futures in flight, submitted in order; yield results in order.  After a
    result that satisfies ``stop``, or an exception, nothing more is submitted."""
    futures: dict[int, Any] = {}
    running: set[Any] = set()
    submitted = taken = 0
    halted = False
    try:
        while taken < len(arguments):
            while not halted and submitted < len(arguments) and len(running) < window:
                futures[submitted] = submit(arguments[submitted])
                running.add(futures[submitted])
                submitted += 1
            if taken == submitted:  # halted, and every submitted result taken: stop misbehaved
                return
            head = futures[taken]
            if not head.done():
                for future in wait_any(running):
                    running.discard(future)
                    halted = halted or future.exception() is not None or (stop is not None and stop(future.result()))
                continue
            running.discard(head)
            result = futures.pop(taken).result()  # re-raises the task's exception, here, in order
            taken += 1
            yield result
            if stop is not None and stop(result):
                return
    finally:
        for future in futures.values():
            future.cancel()
