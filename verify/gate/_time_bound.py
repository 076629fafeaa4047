"""A case's time bound: :func:`time_bound` raises :class:`CaseTimeUp` in the running thread after a
number of seconds, by a ``SIGALRM`` timer in the main thread and a timer thread anywhere else.
Its own module: the diff and the audit bound their own work with it, not only a case's run.

The bound is also where user code meets the process it runs in.  :func:`running_user_code`
(which every bound enters) tells the supervisor that user code runs, and under what bound, so
that a sampler which defeats the in-process bound is killed from outside; and on the way out it
checks that the user code left the engine's hooks as they were (the ``SIGALRM`` handler and
timer, the trace and profile functions, the standard streams, the working directory, the
signal handlers, dpverify's own modules).  It puts back what was changed and raises
:class:`EnvironmentChanged`, which a case reports as ``inconclusive``, never as proved.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import dpverify
import dpverify.samplers
import dpverify.specs
from dpverify import _channel
from dpverify.verify.engine._hooks import EnvironmentChanged

__all__ = [
    "CaseTimeUp",
    "EnvironmentChanged",
    "IMPORT_GRACE_S",
    "importing",
    "running_user_code",
    "time_bound",
    "user_code_stopped",
]

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


#: The signals whose handlers user code must leave as it found them.
_WATCHED_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Snapshot:
    """What user code must leave as it found it, taken before it runs."""

    def __init__(self) -> None:
        self.trace, self.profile = sys.gettrace(), sys.getprofile()
        self.stdout, self.stderr = sys.stdout, sys.stderr
        self.cwd = _cwd()
        self.handlers = {number: signal.getsignal(number) for number in _WATCHED_SIGNALS}
        self.modules = {name: module for name, module in sys.modules.items() if name.partition(".")[0] == "dpverify"}

    def restore(self) -> list[str]:
        """Put back what changed; what it was, in words."""
        changes = []
        if sys.gettrace() is not self.trace:
            changes.append("replaced the engine's trace function" if self.trace else "set a trace function")
            sys.settrace(self.trace)
        if sys.getprofile() is not self.profile:
            changes.append("replaced the engine's profile function" if self.profile else "set a profile function")
            sys.setprofile(self.profile)
        for name, saved in (("stdout", self.stdout), ("stderr", self.stderr)):
            if getattr(sys, name) is not saved:
                changes.append(f"replaced sys.{name}")
                setattr(sys, name, saved)
            if getattr(saved, "closed_by_user", False) or getattr(saved, "closed", False):
                changes.append(f"closed sys.{name}")
                if hasattr(saved, "closed_by_user"):
                    saved.closed_by_user = False
        if self.cwd is not None and _cwd() != self.cwd:
            changes.append(f"changed the working directory to {_cwd()!r}")
            os.chdir(self.cwd)
        main = threading.current_thread() is threading.main_thread()
        for number, handler in self.handlers.items():
            if signal.getsignal(number) is not handler:
                changes.append(f"changed the handler of {signal.Signals(number).name}")
                if main:
                    signal.signal(number, handler)
        for name, module in self.modules.items():
            if sys.modules.get(name) is not module:
                changes.append(f"removed or replaced dpverify's module {name}")
                sys.modules[name] = module
        return changes


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


@contextmanager
def running_user_code(seconds: float | None) -> Iterator[None]:
    """Run a block of user code: the supervisor is told (and kills the process if the block
    outlives ``seconds`` and its grace); on the way out the engine's hooks are checked and put
    back, and :class:`EnvironmentChanged` is raised if the block changed one (unless the block
    was cut off by a time bound, whose report stands)."""
    snapshot = _Snapshot()
    _channel.begin(seconds)
    try:
        yield
    except BaseException as error:
        _channel.end()
        changes = snapshot.restore()
        if changes and not isinstance(error, (CaseTimeUp, EnvironmentChanged)):
            raise EnvironmentChanged(f"the sampler {_listed(changes)}") from error
        raise
    _channel.end()
    changes = snapshot.restore()
    if changes:
        raise EnvironmentChanged(f"the sampler {_listed(changes)}")


def user_code_stopped(error: BaseException) -> str:
    """``the sampler exited the process with status 0 (SystemExit) at file:line: ...``: what user
    code raised that is no ordinary error, and where (the innermost frame outside dpverify, else
    the innermost)."""
    if isinstance(error, EnvironmentChanged):
        return str(error)
    frames = traceback.extract_tb(error.__traceback__)
    outside = [f for f in frames if not os.path.abspath(f.filename).startswith(_PACKAGE_ROOTS)]
    frame = outside[-1] if outside else frames[-1] if frames else None
    at = f" at {frame.filename}:{frame.lineno}" if frame is not None else ""
    if isinstance(error, SystemExit):
        return (
            f"the sampler exited the process with status {_short(error.code or 0)} (SystemExit){at}: "
            "it was stopped there"
        )
    text = _short(error)
    return f"the sampler raised {type(error).__name__}{f'({text})' if text else ''}{at}: it was stopped there"


def _short(value: object) -> str:
    text = " ".join(str(value).split()) if not isinstance(value, int) or value.bit_length() < 64 else "a huge integer"
    return text if len(text) <= 120 else text[:117] + "..."


#: The folders of dpverify's own code: installed, one package; in the repository, the top-level
#: folders and src/dpverify.
_PACKAGE_ROOTS = tuple(
    os.path.dirname(os.path.abspath(module.__file__ or "")) + os.sep
    for module in (dpverify, dpverify.samplers, dpverify.specs)
)
_PACKAGE_ROOTS += (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,)  # verify/


def _listed(changes: list[str]) -> str:
    unique = list(dict.fromkeys(changes))
    return unique[0] if len(unique) == 1 else ", ".join(unique[:-1]) + " and " + unique[-1]


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
    with running_user_code(seconds), (_alarm_bound if main else _thread_bound)(seconds, expired):
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
    disabled = ""
    try:
        yield
    finally:
        active[0] = False
        if signal.getsignal(signal.SIGALRM) is not expire:
            disabled = "replaced the SIGALRM handler"
        elif signal.getitimer(signal.ITIMER_REAL)[0] == 0 and time.monotonic() - started < seconds:
            disabled = "cancelled the interval timer"
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if enclosing:
            signal.setitimer(signal.ITIMER_REAL, max(enclosing - (time.monotonic() - started), 0.001))
    if disabled:
        raise EnvironmentChanged(f"the sampler disabled the time bound (it {disabled})")


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
    kind: type[BaseException] = expired if isinstance(expired, type) else type(expired())
    # The interpreter raises a class, built with no arguments, and it may surface just outside
    # the block: a subclass of the expected class is caught where that one would be.
    # type() is typed to return a plain type; with kind as its base this one is a BaseException class.
    time_up = cast(
        "type[BaseException]",
        type(kind.__name__, (kind,), {"__init__": lambda self, *args: BaseException.__init__(self, *args)}),
    )
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
