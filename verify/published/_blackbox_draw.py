"""Black-box outputs and how they are drawn: the outcome kinds (:class:`Raised`, :class:`Garbage`),
:func:`normalise`, and :func:`draw`, which runs a sampler in forked worker processes under a time
bound.  Its own module: both tests and the audit read these outcomes; the audit and the
benchmark draw with it.
"""

from __future__ import annotations

import importlib.util
import math
import multiprocessing
import operator
import random
import signal
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeGuard

__all__ = [
    "Draws",
    "Garbage",
    "Raised",
    "draw",
    "normalise",
]

#: Draws a worker sends back at a time (partial results survive a hang).
_CHUNK = 20_000


@dataclass(frozen=True, slots=True)
class Raised:
    """A draw that raised: the exception's type and (clipped) message stand for the output."""

    error: str
    message: str

    def __str__(self) -> str:
        return f"raised {self.error}: {self.message}"


@dataclass(frozen=True, slots=True)
class Garbage:
    """A draw that returned something other than a finite number: its type and (clipped) repr."""

    type: str
    text: str

    def __str__(self) -> str:
        return f"{self.type} {self.text}"


@dataclass(frozen=True, slots=True)
class Draws:
    """The outputs of one input, in draw order; ``complete`` false when the time bound cut them
    short (``timed_out``) or the process died (a crash in native code: ``exit_code``)."""

    outputs: tuple[Hashable, ...]
    seconds: float
    complete: bool
    seed: int
    timed_out: bool = False
    exit_code: int | None = None


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def normalise(value: object) -> Hashable:
    """A draw as the tests see it: an ``int`` (bools refused), a finite ``float``, a ``Fraction``,
    a *vector* (a tuple of those), or a :class:`Garbage`.  Scalars of array libraries
    (``numpy.int64``, ``numpy.float32``) are converted exactly through ``__index__`` or ``item()``.
    A tuple or list of numbers, or a numpy array of any shape (flattened in row-major order),
    becomes a vector; one with a coordinate that is not a finite number, or a nested list, is
    garbage as a whole: a vector is only comparable coordinate by coordinate."""
    if isinstance(value, bool):
        return Garbage("bool", repr(value))
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else Garbage("float", repr(float(value)))
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (tuple, list)):
        return _vector(value, value)
    if type(value).__module__.startswith("numpy") and getattr(value, "ndim", 0) >= 1:
        return _vector(value.ravel().tolist(), value)  # type: ignore[attr-defined]  # a numpy array: numpy is optional
    if hasattr(value, "__index__") and type(value).__module__.startswith("numpy"):
        return normalise(operator.index(value))
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__.startswith("numpy"):
        try:
            return normalise(item())
        except Exception:  # noqa: BLE001 - an array, say: garbage either way
            pass
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a repr that raises is garbage too
        text = "<unprintable>"
    return Garbage(type(value).__name__, _clip(text, 60))


def _vector(items: Sequence[object], value: object) -> Hashable:
    coordinates = tuple(_scalar(item) for item in items)
    if all(_numeric(c) for c in coordinates):
        return coordinates
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a repr that raises is garbage too
        text = "<unprintable>"
    return Garbage(type(value).__name__, _clip(text, 60))


def _scalar(item: object) -> Hashable:
    # a coordinate never nests: a list inside a vector makes the whole vector garbage
    return None if isinstance(item, (tuple, list)) else normalise(item)


def _numeric(output: Hashable) -> TypeGuard[int | float | Fraction]:
    return isinstance(output, (int, float, Fraction)) and not isinstance(output, bool)


def _is_vector(output: Hashable) -> TypeGuard[tuple[int | float | Fraction, ...]]:
    """A vector output (:func:`normalise` makes every vector a tuple of numbers, and nothing else a tuple)."""
    return isinstance(output, tuple)


# --- drawing, in worker processes under a time bound -----------------------------------------------


def _seed_generators(seed: int) -> None:
    random.seed(seed)
    if importlib.util.find_spec("numpy") is not None:
        import numpy as np

        np.random.seed(seed % 2**32)


def _worker(connection: Any, call: Callable[[], object], samples: int, seed: int) -> None:
    # Ctrl-C reaches the whole process group: the parent reports it once and kills this process,
    # which must not print a KeyboardInterrupt traceback of its own.  SIGINT was blocked across
    # the fork, so none slips in before it is ignored.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _seed_generators(seed)
    chunk: list[Hashable] = []
    for _ in range(samples):
        try:
            output = normalise(call())
        except Exception as error:  # noqa: BLE001 - an exception is an output of the black box
            output = Raised(type(error).__name__, _clip(str(error)))
        chunk.append(output)
        if len(chunk) >= _CHUNK:
            connection.send(chunk)
            chunk = []
    connection.send(chunk)
    connection.send(None)
    connection.close()


def draw(calls: Sequence[Callable[[], object]], samples: int, *, seed: int, time_limit: float) -> list[Draws]:
    """``samples`` draws of each ``call()``, each call in its own forked process, all at once,
    within ``time_limit`` seconds in all.  Draw ``i`` of call ``c`` runs after ``random`` and
    ``numpy.random`` are seeded with ``seed + c``.  Exceptions become :class:`Raised` outputs and
    everything else passes through :func:`normalise`; a process still running at the deadline is
    killed and its draws so far are kept (``complete=False``)."""
    context = multiprocessing.get_context("fork")
    started = time.monotonic()
    deadline = started + time_limit
    running: list[tuple[BaseProcess, Connection, list[Hashable], int]] = []
    try:
        for index, call in enumerate(calls):
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_worker, args=(send, call, samples, seed + index), daemon=True)
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                process.start()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # a Ctrl-C held back arrives here
            send.close()
            running.append((process, receive, [], seed + index))
        return [
            _collect(process, receive, outputs, worker_seed, started, deadline)
            for process, receive, outputs, worker_seed in running
        ]
    finally:
        for worker, pipe, _, _ in running:  # on an interrupt, nothing is left drawing
            if worker.is_alive():
                worker.kill()
                worker.join(5)
            pipe.close()


def _collect(
    process: Any, receive: Any, outputs: list[Hashable], worker_seed: int, started: float, deadline: float
) -> Draws:
    complete = died = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not receive.poll(left):
            break
        try:
            chunk = receive.recv()
        except (EOFError, OSError):  # the process died (a crash in native code)
            died = True
            break
        if chunk is None:
            complete = True
            break
        outputs.extend(chunk)
    if died:  # its pipe closes a moment before it can be reaped: wait for its exit code
        process.join(5)
    timed_out = process.is_alive() and not complete
    if process.is_alive():
        process.join(1 if complete else 0)
    if process.is_alive():
        process.kill()
    process.join(5)
    receive.close()
    return Draws(
        tuple(outputs),
        time.monotonic() - started,
        complete,
        worker_seed,
        timed_out,
        None if complete or timed_out else process.exitcode,
    )
