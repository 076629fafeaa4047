"""One gate run of ``dpverify mutate``: ``python -m dpverify check --json`` in a subprocess on the
code of a copy, its options, and the processes it starts.  Its own module: it knows processes and
the environment, nothing of mutants."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from dpverify.verify.changes._fork_server import ForkServer

__all__ = [
    "DEFAULT_CASE_TIME_LIMIT",
    "DEFAULT_SAMPLES",
    "DEFAULT_TIMEOUT",
    "GateOptions",
    "GateRun",
    "run_gate",
]

#: Seconds one gate run on one mutant may take.
DEFAULT_TIMEOUT = 300
#: Seconds each case of a mutant's gate run may take (``check --time-limit``): the backstop for
#: what the bounds on real runs (:mod:`dpverify.verify.gate._real_runs`, an eighth of it: 1.875 s)
#: and the exact checks' verdicts on loops and budgets do not end first.  The unmodified catalogue's
#: slowest case takes about 2 s on 2 cores, a seventh of it.
DEFAULT_CASE_TIME_LIMIT = 15
#: Draws per statistical check in a mutant's gate run: the exact checks decide; the sampling is a
#: backstop, and at 5000 draws it still detects any CDF distance above 0.093 (beta = 1e-9).
DEFAULT_SAMPLES = 5000


@dataclass(frozen=True, slots=True)
class GateOptions:
    """What ``dpverify check`` is asked in every copy, and how long it may take."""

    seed: int = 0
    samples: int | None = None
    spec_modules: tuple[str, ...] = ()
    specs: tuple[str, ...] = ()
    timeout: int = DEFAULT_TIMEOUT
    time_limit: int | None = None

    def arguments(self) -> list[str]:
        # --fail-fast: the first unmet case decides a mutant's fate; the rest would only cost time.
        arguments = ["check", "--no-stale-proofs", "--fail-fast", "--seed", str(self.seed)]
        if self.samples is not None:
            arguments += ["--samples", str(self.samples)]
        if self.time_limit is not None:
            arguments += ["--time-limit", str(self.time_limit)]
        for module in self.spec_modules:
            arguments += ["--spec-module", module]
        for name in self.specs:
            arguments += ["--spec", name]
        return arguments

    def command(self) -> str:
        return "dpverify " + " ".join(shlex.quote(a) for a in self.arguments())


@dataclass(frozen=True, slots=True)
class GateRun:
    """How one ``dpverify check`` ended: its exit code (None: timed out), its JSON, stderr's tail."""

    code: int | None
    document: dict[str, Any] | None
    stderr: str
    seconds: float


class _Processes:
    """The gate processes running now, so that an interrupted run can end them (by process group)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self._servers: set[ForkServer] = set()
        self.stopping = False

    def serving(self, server: ForkServer) -> None:
        """``server`` is about to run a gate: its child is ended with the rest on a stop."""
        with self._lock:
            if self.stopping:
                raise _Stopped
            self._servers.add(server)

    def served(self, server: ForkServer) -> None:
        with self._lock:
            self._servers.discard(server)

    def start(
        self, command: list[str], *, cwd: Path, env: dict[str, str], stdin: int, stdout: int, stderr: IO[bytes]
    ) -> subprocess.Popen[bytes]:
        with self._lock:
            if self.stopping:
                raise _Stopped
            process = subprocess.Popen(
                command, cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=True
            )
            self._running.add(process)
            return process

    def done(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.discard(process)

    def stop_all(self) -> None:
        with self._lock:
            self.stopping = True
            running, servers = list(self._running), list(self._servers)
        for process in running:
            _kill_group(process)
        for server in servers:
            server.kill_child()


class _Stopped(Exception):
    """Internal: the run is being interrupted; no new gate starts."""


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        process.wait(timeout=10)


def _environment(copy: Path) -> dict[str, str]:
    """The copy first on the import path, then the working directory (where a user's spec
    module may live), then whatever PYTHONPATH was."""
    environment = dict(os.environ)
    path = [str(copy), os.getcwd(), *filter(None, environment.get("PYTHONPATH", "").split(os.pathsep))]
    environment["PYTHONPATH"] = os.pathsep.join(path)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    environment.pop("PYTHONSAFEPATH", None)
    return environment


#: ``python -c`` program: ``dpverify ARGS`` under cProfile from before the first import, then
#: ``{"ran": [(file, qualified name) of every Python function it ran], "modules": [(name, file)
#: of every module loaded]}`` as JSON to ``argv[1]`` (the fork server's child writes the same).
_TRACED = """\
import cProfile, json, sys
profile = cProfile.Profile()
profile.enable()
code = 2
try:
    from dpverify._launch import main
    code = main(sys.argv[2:])
finally:
    profile.disable()
    ran = sorted({(e.code.co_filename, e.code.co_qualname) for e in profile.getstats() if not isinstance(e.code, str)})
    modules = sorted((n, getattr(m, "__file__", None)) for n, m in list(sys.modules.items()))
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        json.dump({"ran": ran, "modules": modules}, out)
sys.exit(code)
"""


def run_gate(
    copy: Path,
    options: GateOptions,
    processes: _Processes | None = None,
    *,
    trace: Path | None = None,
    server: ForkServer | None = None,
) -> GateRun:
    """``python -m dpverify check --json`` on the code in ``copy`` (its own working directory);
    with ``trace``, under the profiler, which writes the functions that ran to ``trace``.  With
    ``server``, the run is that fork server's child rather than a fresh interpreter; it raises
    :class:`~dpverify.verify.changes._fork_server.ForkServerUnavailable` if the server is gone."""
    processes = processes or _Processes()
    out, errors = copy.parent / f"{copy.name}.json", copy.parent / f"{copy.name}.stderr"
    arguments = [*options.arguments(), "--json", str(out)]
    start = time.monotonic()
    code: int | None
    if server is not None:
        processes.serving(server)
        try:
            code = server.run(copy, arguments, errors, _environment(copy)["PYTHONPATH"], options.timeout, trace)
        finally:
            processes.served(server)
        return _finished(code, out, errors, time.monotonic() - start)
    program = ["-m", "dpverify"] if trace is None else ["-c", _TRACED, str(trace)]
    command = [sys.executable, *program, *arguments]
    with open(errors, "wb") as stderr:
        process = processes.start(
            command,
            cwd=copy,
            env=_environment(copy),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            code = process.wait(timeout=options.timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            code = None
        finally:
            processes.done(process)
    return _finished(code, out, errors, time.monotonic() - start)


def _finished(code: int | None, out: Path, errors: Path, seconds: float) -> GateRun:
    """The run read back from its JSON and stderr files."""
    document = None
    with contextlib.suppress(OSError, ValueError):
        document = json.loads(out.read_text(encoding="utf-8"))
    tail = errors.read_bytes()[-4000:].decode("utf-8", "replace")
    return GateRun(code, document if isinstance(document, dict) else None, tail, seconds)
