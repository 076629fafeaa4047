"""A case's time bound: :func:`time_bound` raises :class:`CaseTimeUp` in the running thread after a
number of seconds, by a ``SIGALRM`` timer in the main thread and a timer thread anywhere else.
Its own module: the diff and the audit bound their own work with it, not only a case's run."""

from __future__ import annotations

import ctypes
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["CaseTimeUp", "IMPORT_GRACE_S", "importing", "time_bound"]

#: Seconds a bound that expires during an import waits before it looks again.
IMPORT_GRACE_S = 0.05


def importing(frame: Any) -> bool:
    """Whether ``frame`` (a thread's innermost frame) is inside an import."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        frame = frame.f_back
    return False


class CaseTimeUp(BaseException):
    """The case's time bound expired.  A BaseException, so a sampler's ``except Exception``
    cannot swallow it."""


@contextmanager
def time_bound(seconds: float | None, expired: Callable[[], BaseException] = CaseTimeUp) -> Iterator[None]:
    """Raise ``expired()`` (:class:`CaseTimeUp` by default) in this thread after ``seconds`` (None: no bound).

    In the main thread of a POSIX process the bound is a ``SIGALRM`` timer.  An enclosing timer
    (a caller's own bound) is respected: if it is due first this one is not set, and otherwise
    it is re-armed with what is left of it on the way out.

    In any other thread (a Dask worker's, a thread pool's), or where there is no ``setitimer``,
    a :class:`threading.Timer` raises the exception in this thread through
    ``PyThreadState_SetAsyncExc``, and is cancelled on the way out; an enclosing bound of the
    same thread that is due first is respected the same way.  Its exception is of a class of its
    own, derived from ``expired()``'s, so that an enclosing bound's passes through this one, and
    it is turned into ``expired()`` on the way out.

    Neither is ever raised inside an import: a module half executed when its import is cut off
    leaves its package without the submodules it had bound (``asyncio`` then fails with
    ``NameError: base_events`` on its next import, for the rest of the process), so while the
    thread is importing (a frame of ``importlib._bootstrap`` on its stack) the bound waits
    :data:`IMPORT_GRACE_S` at a time until the import is done.  A signal that arrives as the
    block finishes is dropped: the block ended in time.

    Either way the exception is raised between two steps of Python code: a single long call
    into C (a huge integer operation, a solver call) finishes first.  Off the main thread a
    blocking call (``time.sleep``, I/O, waiting on a lock) is not interrupted either, as a
    signal would interrupt it in the main thread.  Without ``ctypes.pythonapi`` (not CPython)
    only the main thread of a POSIX process is bounded.
    """
    if seconds is None:
        yield
        return
    main = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    with (_alarm_bound if main else _thread_bound)(seconds, expired):
        yield


@contextmanager
def _alarm_bound(seconds: float, expired: Callable[[], BaseException]) -> Iterator[None]:
    """The main thread's bound: ``SIGALRM`` after ``seconds``."""
    enclosing = signal.getitimer(signal.ITIMER_REAL)[0]
    if enclosing and enclosing <= seconds:
        yield
        return

    active = [True]

    def expire(signum: int, frame: Any) -> None:
        if not active[0]:
            return  # delivered as the block finished: it has ended in time
        if importing(frame):
            signal.setitimer(signal.ITIMER_REAL, IMPORT_GRACE_S)  # never interrupt an import (docstring)
            return
        raise expired()

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        active[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if enclosing:
            signal.setitimer(signal.ITIMER_REAL, max(enclosing - (time.monotonic() - started), 0.001))


def _async_exception_setters() -> tuple[Callable[[int, type], int], Callable[[int, None], int]] | None:
    """``PyThreadState_SetAsyncExc`` typed twice, to send a class and to clear (NULL); private
    prototypes, so that no other user of ``ctypes.pythonapi`` sees its argument types change."""
    try:
        api = ctypes.pythonapi
    except AttributeError:  # not CPython
        return None
    send = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(("PyThreadState_SetAsyncExc", api))
    clear = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(("PyThreadState_SetAsyncExc", api))
    return send, clear


_SET_ASYNC_EXC = _async_exception_setters()
#: Per thread, the deadlines (``time.monotonic()``) of the thread bounds it is inside.
_DEADLINES = threading.local()


@contextmanager
def _thread_bound(seconds: float, expired: Callable[[], BaseException]) -> Iterator[None]:
    """Any other thread's bound: a timer thread raises an exception in this one after ``seconds``."""
    deadlines: list[float] = _DEADLINES.__dict__.setdefault("deadlines", [])
    deadline = time.monotonic() + seconds
    if _SET_ASYNC_EXC is None or (deadlines and min(deadlines) <= deadline):
        yield
        return
    send, clear = _SET_ASYNC_EXC
    kind = expired if isinstance(expired, type) else type(expired())
    # The interpreter raises a class, built with no arguments, and it may surface just outside
    # the block: a subclass of the expected class is caught where that one would be.
    time_up = type(kind.__name__, (kind,), {"__init__": lambda self, *args: BaseException.__init__(self, *args)})
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"armed": True, "sent": False}

    def expire() -> None:
        with lock:
            if not state["armed"]:
                return
            if importing(sys._current_frames().get(target)):
                later = threading.Timer(IMPORT_GRACE_S, expire)  # never interrupt an import (docstring)
                later.daemon = True
                timers.append(later)
                later.start()
                return
            state["sent"] = True
            send(target, time_up)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timers = [timer]
    deadlines.append(deadline)
    delivered = False
    try:
        try:
            timer.start()
            yield
        except time_up:
            delivered = True
            raise
        finally:
            with lock:
                state["armed"] = False
            for pending in timers:
                pending.cancel()
            deadlines.pop()
            # Sent as the block finished, and not raised yet: drop it.  Never clear one already
            # raised: on CPython 3.11 clearing also leaves the interpreter's pending-exception flag
            # set, and a later profiled call (the audit's tracing) then never returns.
            if state["sent"] and not delivered:
                clear(target, None)
    except time_up:
        raise expired() from None
