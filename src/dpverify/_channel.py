"""The checking process's line to its supervisor: what it prints, which user code it is running
and under what bound, what it planned and decided, and that it finished.

``dpverify`` runs every command in a child process (see :mod:`dpverify._supervisor`).  The
child's own output does not go to its file descriptors 1 and 2, which the sampler shares: it
goes, as JSON lines, down a pipe whose number the supervisor passes in ``DPVERIFY_CHANNEL_FD``.
Each line is one ``os.write`` of at most :data:`PIPE_ATOMIC` bytes, so the lines of forked
workers, which inherit the pipe, never interleave.  The events:

- ``{"t": "out"|"err", "s": TEXT}``: dpverify's own stdout or stderr;
- ``{"t": "begin", "label": L, "seconds": S}`` and ``{"t": "end"}``: user code starts running
  under a bound of ``S`` seconds (the supervisor kills the process if it outlives it) or ends;
- ``{"t": "plan", "cases": N}`` and ``{"t": "verdict", "label": L, "met": bool}``: the cases a
  gate will decide, and each decision;
- ``{"t": "crash", "s": TEXT}``: the child stops on an error of its own;
- ``{"t": "done", "code": N}``: every verdict is in and every report written; ``N`` is the
  exit code the child asks for.

Every event carries the sender's ``pid``.  Without a channel (dpverify used as a library, or a
command run in-process by a test), every function here is a no-op or writes where Python would.

Only the standard library is imported: the engine's bottom layer and the launcher use it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

__all__ = [
    "CHANNEL_ENV",
    "PIPE_ATOMIC",
    "TTY_ENV",
    "attach",
    "begin",
    "crashed",
    "end",
    "finished",
    "isolate",
    "label",
    "labelled",
    "planned",
    "supervised",
    "user_code_ran",
    "verdict",
]

#: The environment variable that carries the channel's file descriptor to the child.
CHANNEL_ENV = "DPVERIFY_CHANNEL_FD"
#: Which of the supervisor's stdout (``o``) and stderr (``e``) are a terminal.
TTY_ENV = "DPVERIFY_TTY"
#: POSIX guarantees that a pipe write of at most PIPE_BUF bytes (4096 on Linux) is not interleaved.
PIPE_ATOMIC = 4096
#: Characters of text per ``out``/``err`` line: JSON escapes at most 6 bytes a character.
_TEXT_CHUNK = 600

_fd: int | None = None
_owner: int | None = None
_lock = threading.Lock()
#: How deep this process is inside user code (``begin`` without its ``end``).
_depth = 0
#: What this process is working on, for the supervisor's verdict should the process die.
_label = ""
#: Whether user code has run in this process yet (before it, a SystemExit is dpverify's own: argparse's).
_user_code_ran = False


#: Whether this process is one whose parent watches it without a channel (``pytest --dpverify``'s items).
_isolated = False


def supervised() -> bool:
    """Whether this process runs under a supervisor (a child of ``dpverify``, or an isolated
    run of ``pytest --dpverify``): then a KeyboardInterrupt in it is user code's, since the
    user's Ctrl-C is the supervisor's to handle."""
    return _fd is not None or _isolated


def isolate() -> None:
    """Mark this process as a forked run that its parent watches (:func:`supervised`)."""
    global _isolated
    _isolated = True


def attach() -> bool:
    """Take the channel named in the environment, if any; remove the name from the environment,
    so that a ``dpverify`` that user code starts is supervised on its own; point ``sys.stdout``
    and ``sys.stderr`` at the channel.  Returns whether a channel was found."""
    global _fd, _owner
    value = os.environ.pop(CHANNEL_ENV, None)
    if value is None:
        return False
    _fd, _owner = int(value), os.getpid()
    os.set_inheritable(_fd, False)  # forked workers keep it; a program that user code execs does not
    terminals = os.environ.pop(TTY_ENV, "")
    sys.stdout = _ChannelStream("out", sys.__stdout__, tty="o" in terminals)
    sys.stderr = _ChannelStream("err", sys.__stderr__, tty="e" in terminals)
    return True


def _send(event: dict[str, Any]) -> None:
    if _fd is None:
        return
    event["pid"] = os.getpid()
    data = (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8", "replace")
    assert len(data) <= PIPE_ATOMIC, "an event line must fit one atomic pipe write"
    # OSError: the supervisor is gone or the sampler closed the pipe: it decides without us
    with _lock, contextlib.suppress(OSError):
        os.write(_fd, data)


def _send_text(kind: str, text: str) -> None:
    for start in range(0, len(text), _TEXT_CHUNK):
        _send({"t": kind, "s": text[start : start + _TEXT_CHUNK]})


class _ChannelStream(io.TextIOBase):
    """dpverify's stdout or stderr in a supervised child.  Outside user code it writes to the
    channel; while user code runs (between ``begin`` and ``end``) it writes to the real file
    descriptor, which the supervisor shows on its stderr: what a sampler prints never lands in
    the report or in a JSON document on stdout.  A sampler that closes it is noted, not obeyed."""

    def __init__(self, kind: str, raw: Any, *, tty: bool = False) -> None:
        super().__init__()
        self.kind, self.raw, self.tty = kind, raw, tty
        self.closed_by_user = False

    @property
    def encoding(self) -> str:  # type: ignore[override]  # a property on TextIOBase
        return "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if _depth and self.raw is not None:
            with contextlib.suppress(Exception):
                self.raw.write(text)
                self.raw.flush()
        else:
            _send_text(self.kind, text)
        return len(text)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed_by_user = True

    def isatty(self) -> bool:
        return self.tty


def user_code_ran() -> bool:
    """Whether this process has entered user code (a spec module's import, a case's run) yet."""
    return _user_code_ran


def label(text: str) -> None:
    """Name what this process works on now (``spec 'rr', case alpha=1/3``)."""
    global _label
    _label = text


@contextlib.contextmanager
def labelled(text: str) -> Iterator[None]:
    """:func:`label` for the duration of a block, then the previous one again."""
    previous = _label
    label(text)
    try:
        yield
    finally:
        label(previous)


def begin(seconds: float | None) -> None:
    """User code starts, bounded at ``seconds`` (None: by an enclosing bound only)."""
    global _depth, _user_code_ran
    _depth += 1
    _user_code_ran = True
    _send({"t": "begin", "label": _label[:300], "seconds": seconds})


def end() -> None:
    """The user code :func:`begin` announced has ended."""
    global _depth
    _depth = max(0, _depth - 1)
    _send({"t": "end"})


def planned(cases: int) -> None:
    """The gate will decide ``cases`` cases."""
    _send({"t": "plan", "cases": cases})


def verdict(name: str, met: bool) -> None:
    """One planned case is decided."""
    _send({"t": "verdict", "label": name[:300], "met": bool(met)})


def crashed(text: str) -> None:
    """The child stops on an error of its own (one line)."""
    _send({"t": "crash", "s": text[:2000]})


def finished(code: int) -> None:
    """Every verdict is in and every report written: the child asks for exit code ``code``."""
    if _fd is not None and os.getpid() == _owner:
        _send({"t": "done", "code": code})
