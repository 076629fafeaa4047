"""The process that owns a ``dpverify`` run's exit code: it runs no user code.

Samplers, specs and the libraries they import are buggy code that dpverify runs, not code it
trusts: they may exit, kill their process, ignore signals, cancel timers or close streams.  So
every command runs in a child process (``python -m dpverify`` with a channel, see
:mod:`dpverify._channel`), in a session of its own, and this parent:

- shows the child's own output, which reaches it down the channel, on its stdout and stderr;
  what user code writes to the child's file descriptors 1 and 2 goes to stderr only, so a JSON
  document or a report on stdout is dpverify's alone;
- keeps the wall-clock bound from outside: when the child (or one of its forked workers)
  announces user code under a bound of ``S`` seconds, and that code is still running
  ``S + grace(S)`` seconds later, the process is killed with SIGKILL, which no handler can
  ignore;
- ends with exit 0 only when the child said it was done with exit code 0, exited with status
  0, and decided every case it planned, each meeting its expectation.  Anything else is exit 1
  with a one-line verdict naming what was running: "the sampler exited the process with status
  0", "the sampler's process was killed by SIGKILL", "the sampler disabled the time bound";
- answers Ctrl-C (SIGINT) and SIGTERM by killing the child's whole session: exit 130 or 143.

When the child of ``dpverify check`` ends without its reports, the parent writes them itself: a
JSON document and a JUnit file whose one repository check, ``supervision``, is inconclusive with
the reason, so a CI that reads them sees the failure.  Only the standard library is imported.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from dpverify._channel import CHANNEL_ENV, TTY_ENV
from dpverify._check_schema import CHECK_SCHEMA
from dpverify._junit import FAILURE, JunitCase, JunitSuite, junit_xml

__all__ = ["GATE_COMMANDS", "check_failure_reports", "ended", "grace", "option_path", "supervise", "write_reports"]

#: The commands whose exit code is a gate's verdict: one whose reader stopped reading reached no verdict.
GATE_COMMANDS = frozenset({"check", "mutate", "prove"})
#: Exit codes of a run stopped by SIGINT and SIGTERM (128 + the signal, as a shell reports it).
INTERRUPTED, TERMINATED = 130, 143
#: Seconds the parent waits, after the child has ended, for its forked workers' last lines.
_DRAIN_S = 1.0
#: Seconds a child stopped by the user (Ctrl-C, SIGTERM) has to clean up before it is killed.
_STOP_S = 5.0
#: Seconds a child that said it is done may take to exit (a thread user code left running keeps
#: an interpreter from exiting); then it is killed, and its verdict stands.
_LINGER_S = 5.0


def grace(seconds: float) -> float:
    """How long past its own bound user code may run before the parent kills it: the child's
    in-process bound needs time to unwind and report, and a single call into C ends first."""
    return max(2.0, seconds / 4)


@dataclass
class _Region:
    label: str
    seconds: float | None
    started: float


@dataclass
class _Run:
    """What the parent has learnt from the channel."""

    child: int
    regions: dict[int, list[_Region]] = field(default_factory=dict)
    planned: int | None = None
    verdicts: int = 0
    missed: int = 0
    done: int | None = None
    done_at: float | None = None
    lingered: bool = False
    crash: str | None = None
    killed: str | None = None
    last_label: str = ""

    def deadline(self) -> tuple[float, int, _Region] | None:
        """The earliest kill time over the processes running bounded user code."""
        due = [
            (stack[0].started + stack[0].seconds + grace(stack[0].seconds), pid, stack[0])
            for pid, stack in self.regions.items()
            if stack and stack[0].seconds is not None
        ]
        return min(due, key=lambda d: d[0]) if due else None

    def running(self) -> str:
        """What was running when the run ended: the child's innermost region, else what a worker
        was running (a worker that died leaves its region open), else the child's last label."""
        stack = self.regions.get(self.child) or []
        workers = [regions[-1].label for pid, regions in self.regions.items() if pid != self.child and regions]
        if stack and stack[-1].label:
            return f"while running {stack[-1].label}"
        if workers:
            return f"while running {' and '.join(dict.fromkeys(workers))} (in a worker process)"
        return (
            f"while running {self.last_label}"
            if self.last_label
            else "while it ran no user code dpverify had announced"
        )


def supervise(argv: Sequence[str]) -> int:
    """Run ``dpverify ARGV`` in a child process and return the exit code it has earned."""
    arguments = list(argv)
    read_fd, write_fd = os.pipe()
    environment = dict(os.environ, **{CHANNEL_ENV: str(write_fd)}, **_terminal())
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "dpverify", *arguments],
            env=environment,
            pass_fds=(write_fd,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    finally:
        os.close(write_fd)
    channel = os.fdopen(read_fd, "rb", buffering=0)
    run = _Run(process.pid)
    out = _Output(_human_on_stderr(arguments))
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        status = _watch(process, channel, run, out)
    except (KeyboardInterrupt, _Terminated) as stop:
        _stop_session(process)
        out.err("dpverify: interrupted\n")
        return INTERRUPTED if isinstance(stop, KeyboardInterrupt) else TERMINATED
    finally:
        signal.signal(signal.SIGTERM, previous)
        channel.close()
    return _decide(arguments, run, status, out)


def _terminal() -> dict[str, str]:
    """What the child needs to know of the parent's terminal: which of stdout and stderr are one
    (a progress bar is drawn only there), and its size."""
    streams = "".join(letter for letter, stream in (("o", sys.stdout), ("e", sys.stderr)) if _isatty(stream))
    if not streams:
        return {}
    size = os.get_terminal_size(sys.stderr.fileno() if "e" in streams else sys.stdout.fileno())
    return {TTY_ENV: streams, "COLUMNS": str(size.columns), "LINES": str(size.lines)}


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class _Terminated(Exception):
    pass


def _terminate(signum: int, frame: Any) -> None:
    raise _Terminated


class _Output:
    """The parent's stdout and stderr; a reader that stops reading stdout ends nothing here."""

    def __init__(self, human_on_stderr: bool) -> None:
        self.human_on_stderr = human_on_stderr
        self.broken = False

    def _write(self, stream: Any, text: str) -> None:
        try:
            stream.write(text)
            stream.flush()
        except BrokenPipeError:
            self.broken = True
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (OSError, ValueError):
            self.broken = True

    def out(self, text: str) -> None:
        self._write(sys.stdout, text)

    def err(self, text: str) -> None:
        self._write(sys.stderr, text)

    def human(self, text: str) -> None:
        (self.err if self.human_on_stderr else self.out)(text)

    def raw_err(self, data: bytes) -> None:
        """What user code wrote to the child's stdout or stderr: the parent's stderr, as bytes."""
        try:
            sys.stderr.flush()
            os.write(sys.stderr.fileno(), data)
        except (OSError, ValueError):
            pass


def _watch(process: subprocess.Popen[bytes], channel: BinaryIO, run: _Run, out: _Output) -> int:
    """Relay the child's output and events until it exits; kill what outlives its bound.
    Returns the child's ``returncode``."""
    selector = selectors.DefaultSelector()
    pending = {channel: b""}
    selector.register(channel, selectors.EVENT_READ)
    for stream in (process.stdout, process.stderr):
        assert stream is not None
        os.set_blocking(stream.fileno(), False)
        selector.register(stream, selectors.EVENT_READ)
    open_streams = 3
    ended_at: float | None = None
    while open_streams:
        now = time.monotonic()
        if ended_at is None and process.poll() is not None:
            ended_at = now
        if ended_at is None and run.done_at is not None and now - run.done_at > _LINGER_S:
            run.lingered = True
            _kill_session(process)
            continue
        if ended_at is not None and now - ended_at > _DRAIN_S:
            _kill_session(process)  # forked workers that outlive the child hold the pipes open
            break
        due = run.deadline()
        if due is not None and now >= due[0]:
            _kill_overdue(process, run, *due)
            continue
        timeout = 0.2 if due is None else max(0.0, min(0.2, due[0] - now))
        for key, _ in selector.select(timeout):
            try:
                data = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if not data:
                selector.unregister(key.fileobj)
                open_streams -= 1
                continue
            if key.fileobj is channel:
                pending[channel] += data
                *lines, pending[channel] = pending[channel].split(b"\n")
                for line in lines:
                    _event(line, run, out)
            else:
                out.raw_err(data)
    selector.close()
    return process.wait()


def _event(line: bytes, run: _Run, out: _Output) -> None:
    try:
        event = json.loads(line)
        kind, pid = event["t"], int(event["pid"])
    except (ValueError, KeyError, TypeError):
        return  # not a line the child wrote: the parent decides without it
    if kind == "out":
        out.out(str(event.get("s", "")))
    elif kind == "err":
        out.err(str(event.get("s", "")))
    elif kind == "begin":
        seconds = event.get("seconds")
        region = _Region(
            str(event.get("label", "")), float(seconds) if isinstance(seconds, (int, float)) else None, time.monotonic()
        )
        run.regions.setdefault(pid, []).append(region)
        if region.label and pid == run.child:
            run.last_label = region.label
    elif kind == "end":
        stack = run.regions.get(pid)
        if stack:
            stack.pop()
    elif kind == "plan" and pid == run.child:
        run.planned = int(event["cases"])
    elif kind == "verdict" and pid == run.child:
        run.verdicts += 1
        run.missed += not event.get("met")
    elif kind == "crash" and pid == run.child:
        run.crash = str(event.get("s", ""))
    elif kind == "done" and pid == run.child:
        run.done = int(event["code"])
        run.done_at = time.monotonic()


def _kill_overdue(process: subprocess.Popen[bytes], run: _Run, due: float, pid: int, region: _Region) -> None:
    """SIGKILL a process whose user code outlived its bound: the child's whole session when it is
    the child, else that worker alone (the child then sees its worker die, and reports it)."""
    what = region.label or "user code"
    reason = (
        f"the sampler disabled the time bound: {what} ran past its bound of {region.seconds:g} s and "
        f"{grace(region.seconds or 0):g} s of grace without ending, so its process was killed with SIGKILL"
    )
    run.regions.pop(pid, None)
    if pid == run.child:
        run.killed = reason
        _kill_session(process)
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return  # it had ended: its parent reaped it before saying so
    run.killed = run.killed or reason


def _stop_session(process: subprocess.Popen[bytes]) -> None:
    """The user stopped the run: SIGTERM to the child's session, so that a command that cleans up
    (``mutate`` stops its gate processes and removes its copies) can, then SIGKILL after
    :data:`_STOP_S` seconds.  Never SIGINT: in the child a KeyboardInterrupt is user code's."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=_STOP_S)
    except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
        pass  # gone already, or deaf to SIGTERM: SIGKILL below
    _kill_session(process)


def _kill_session(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _decide(arguments: list[str], run: _Run, status: int, out: _Output) -> int:
    """The exit code the run has earned, and, when the child could not say so, the verdict line."""
    command = next((a for a in arguments if not a.startswith("-")), "")
    if run.done is not None and (status == run.done or run.lingered) and run.killed is None:
        if run.done != 0:
            return run.done
        if run.planned is None or (run.verdicts == run.planned and not run.missed):
            return 1 if out.broken and command in GATE_COMMANDS else 0
        reason = (
            f"only {run.verdicts} of the {run.planned} planned cases sent a verdict"
            if run.verdicts != run.planned
            else f"{run.missed} case(s) missed their expectation"
        )
        summary = f"the checking process asked for exit 0, but {reason}"
    elif run.killed is not None:
        summary = run.killed
    elif run.crash is not None:
        summary = f"the checking process stopped {run.running()}: {run.crash}"
    else:
        summary = f"{ended(status)} {run.running()}"
        summary += "" if status < 0 else ", before every verdict was in"
    not_decided = (
        f"; {run.planned - run.verdicts} of {run.planned} planned case(s) got no verdict"
        if run.planned is not None and run.verdicts < run.planned
        else ""
    )
    out.human(f"FAIL supervision: inconclusive: {summary}{not_decided}\n")
    if command == "check":
        _check_reports(arguments, summary + not_decided, out)
    elif any(a.split("=")[0] in ("--json", "--junit", "--sarif", "--out") for a in arguments):
        out.err("dpverify: the reports asked for may be missing or incomplete: the run did not finish\n")
    return 1


def ended(status: int) -> str:
    """How a process that owed a verdict ended, from its exit status (negative: the signal)."""
    if status < 0:
        name = signal.Signals(-status).name if -status in signal.valid_signals() else f"signal {-status}"
        return f"the sampler's process was killed by {name}"
    return f"the sampler exited the process with status {status}"


def _check_reports(arguments: list[str], summary: str, out: _Output) -> None:
    """``check``'s JSON and JUnit when its child ended without writing them: one inconclusive
    repository check, ``supervision``."""
    reason = "the process that ran user code ended before it had reported every verdict"
    reports = check_failure_reports(arguments[1:], "supervision", "inconclusive", summary, reason, {"summary": summary})
    write_reports(reports, out.out, out.err)


def write_reports(reports: list[tuple[str, str, str]], stdout: Any, stderr: Any) -> bool:
    """Write each ``(option, path, text)``: ``-`` through ``stdout(text)``, a path to its file; a
    file that cannot be written is one line through ``stderr``.  Whether every one was written."""
    written = True
    for option, path, text in reports:
        if path == "-":
            stdout(text)
            continue
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as problem:
            stderr(f"dpverify: error: {option} could not be written: {option}={path!r}: {problem.strerror}\n")
            written = False
    return written


def check_failure_reports(
    options: list[str], check: str, verdict: str, summary: str, reason: str, evidence: dict[str, Any]
) -> list[tuple[str, str, str]]:
    """``(option, path, text)`` for each of ``check``'s ``--json`` and ``--junit`` among
    ``options``: a run that failed before any case, as the one repository check ``check``."""
    json_path, junit_path = option_path(options, "--json"), option_path(options, "--junit")
    reports = []
    if json_path is not None:
        result = {"check": check, "verdict": verdict, "summary": summary, "reason": reason, "evidence": evidence}
        document = {
            "schema": CHECK_SCHEMA,
            "passed": False,
            "broken_specs": 0,
            "seed": None,
            "samples": None,
            "entries": [],
            "repository": [result],
        }
        reports.append(("--json", json_path, json.dumps(document, indent=2) + "\n"))
    if junit_path is not None:
        case = JunitCase(
            "repository",
            check,
            status=FAILURE,
            message=f"{check} {verdict}: {summary}",
            type=f"expected proved, got {verdict}",
            details=f"FAIL {check}: {verdict}: {summary}\n{reason}",
        )
        reports.append(("--junit", junit_path, junit_xml([JunitSuite("repository", (case,))], name="dpverify check")))
    return reports


def _human_on_stderr(arguments: list[str]) -> bool:
    """Whether the human report goes to stderr: a machine-readable output owns stdout."""
    options = arguments[1:]
    return "-" in (option_path(options, "--json"), option_path(options, "--junit"), option_path(options, "--sarif"))


def option_path(options: list[str], option: str) -> str | None:
    """The value of ``option`` (``--json``, ``--junit``, ``--sarif``) among a command's options, or
    None; ``--json`` with no value is stdout, as the parser reads it."""
    for index, given in enumerate(options):
        if given == option:
            following = options[index + 1] if index + 1 < len(options) else None
            if following is None or (following.startswith("-") and following != "-"):
                return "-" if option == "--json" else None
            return following
        if given.startswith(f"{option}="):
            return given.removeprefix(f"{option}=")
    return None
