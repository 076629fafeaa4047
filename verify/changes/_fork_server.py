"""Gate runs of ``dpverify mutate`` forked from a warm interpreter instead of started cold.

A gate run in a fresh ``python -m dpverify`` spends most of a killed mutant's second importing
SymPy, Z3, NumPy and the standard library before dpverify's own code runs.  A *fork server* is
one long-lived interpreter, started in the unmodified copy, that imports those third-party and
standard-library modules once (:data:`SERVER`), then forks one child per gate run.  The child
moves into its own copy of the packages (its working directory, the first entry of its import
path and its ``PYTHONPATH``), imports dpverify from there, and runs ``dpverify check`` exactly as
``python -m dpverify`` does; the server waits for it and reports its exit status.

What makes a child's run the run a fresh interpreter would make:

- **Nothing of dpverify or of the user's packages is imported in the server.**  The modules it
  preloads lie in the interpreter's standard library or ``site-packages`` and belong to none of
  the top-level packages the run copies or names (``dpverify``, the mutated modules' packages,
  the spec modules' packages).  A preload that imports one of those anyway (an installed plugin
  that imports dpverify) is taken back out of ``sys.modules`` with everything it brought, so the
  child imports it again from its copy; if one is still there afterwards the server refuses to
  start, and the runner falls back to fresh interpreters (:class:`ForkServerUnavailable`).
- **Every preloaded module is as a fresh import leaves it**: the server runs nothing but imports.
- **A child is its own process group** (``setsid``), so a run past its time is killed whole,
  as a fresh process group is, and its exit status is what ``python -m dpverify`` would return:
  ``main``'s code, ``SystemExit``'s, 1 with a traceback on stderr for an exception, minus the
  signal number when a signal ends it.

The modules to preload come from the runs themselves: a traced run (:data:`TRACED_MODULES_KEY`)
records every module loaded by its end, so the unmodified runs tell what the mutants' runs will
import.  Only POSIX has ``fork``; elsewhere the runner uses fresh interpreters.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "SERVER",
    "TRACED_MODULES_KEY",
    "ForkServer",
    "ForkServerUnavailable",
    "preloadable",
]

#: Key of the module list in a traced run's JSON (beside ``ran``, the functions it executed).
TRACED_MODULES_KEY = "modules"
#: Seconds the server may take to import what it preloads and answer that it is ready.
_START_SECONDS = 300

#: The server: ``python -c SERVER PRELOAD_JSON FORBIDDEN_JSON`` with its working directory and
#: ``PYTHONPATH`` those of the unmodified copy.  One JSON request per line on stdin, one JSON
#: answer per line on stdout: ``{"ready": bool, "leaked": [...]}`` once, then for each request
#: ``{"pid": N}`` at once and ``{"code": N}`` when the child has ended.
SERVER = r"""
import importlib, json, os, sys, traceback, warnings
preload, forbidden = json.loads(sys.argv[1]), set(json.loads(sys.argv[2]))

def forbidden_loaded():
    return sorted(n for n in sys.modules if n.partition(".")[0] in forbidden)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for name in preload:
        before = set(sys.modules)
        try:
            importlib.import_module(name)
        except BaseException:
            pass
        if forbidden_loaded():
            for added in set(sys.modules) - before:
                del sys.modules[added]
leaked = forbidden_loaded()
print(json.dumps({"ready": not leaked, "leaked": leaked[:5]}), flush=True)
if leaked:
    sys.exit(3)
server_path, server_pythonpath = list(sys.path), os.environ.get("PYTHONPATH", "")
pristine = server_pythonpath.split(os.pathsep)[0]

def child(job):
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    errors = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(null, 0), os.dup2(null, 1), os.dup2(errors, 2)
    os.chdir(job["copy"])
    sys.path[:] = [job["copy"] if p == pristine else p for p in server_path]
    os.environ["PYTHONPATH"] = job["pythonpath"]
    importlib.invalidate_caches()
    sys.argv = ["dpverify", *job["arguments"]]
    profile = None
    if job["trace"]:
        import cProfile
        profile = cProfile.Profile()
        profile.enable()
    code = 1
    try:
        from dpverify._launch import main
        code = main(job["arguments"])
    except SystemExit as stop:
        code = stop.code
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        if profile is not None:
            profile.disable()
            ran = sorted({(e.code.co_filename, e.code.co_qualname) for e in profile.getstats()
                          if not isinstance(e.code, str)})
            modules = sorted((n, getattr(m, "__file__", None)) for n, m in list(sys.modules.items()))
            with open(job["trace"], "w", encoding="utf-8") as out:
                json.dump({"ran": ran, "modules": modules}, out)
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    import atexit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(code & 0xFF)

for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            child(job)
        finally:
            os._exit(1)
    print(json.dumps({"pid": pid}), flush=True)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"code": os.waitstatus_to_exitcode(status)}), flush=True)
"""


class ForkServerUnavailable(Exception):
    """The fork server did not start (no ``fork`` here, or a preload imported what it must not)."""


def _library_folders() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    folders = {os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    return tuple(sorted(folder + os.sep for folder in folders))


def preloadable(modules: Iterable[tuple[str, str | None]], forbidden: Iterable[str]) -> tuple[str, ...]:
    """The names among ``(name, file)`` that a server may import: built in (no file) or in the
    standard library or ``site-packages``, and in none of the ``forbidden`` top-level packages."""
    tops, folders = set(forbidden), _library_folders()
    chosen = set()
    for name, file in modules:
        if name == "__main__" or name.partition(".")[0] in tops:
            continue
        if file is None or os.path.realpath(file).startswith(folders):
            chosen.add(name)
    return tuple(sorted(chosen))


class ForkServer:
    """One warm interpreter that runs one gate at a time, each in a forked child.

    ``base`` is the unmodified copy (the server's working directory), ``environment`` its
    environment (the copy first on ``PYTHONPATH``), ``preload`` the modules to import first and
    ``forbidden`` the top-level packages that must not be imported before a child does."""

    def __init__(
        self, base: Path, environment: dict[str, str], preload: Sequence[str], forbidden: Sequence[str]
    ) -> None:
        if not hasattr(os, "fork"):
            raise ForkServerUnavailable("this platform has no fork")
        self._process = subprocess.Popen(
            [sys.executable, "-c", SERVER, json.dumps(list(preload)), json.dumps(sorted(set(forbidden)))],
            cwd=base,
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._buffer = b""
        self.preload = tuple(preload)
        self.child: int | None = None
        answer = self._answer(_START_SECONDS)
        if answer is None or not answer.get("ready"):
            self.close()
            why = "it did not start" if answer is None else f"a preload imported {', '.join(answer.get('leaked', []))}"
            raise ForkServerUnavailable(why)

    def _answer(self, seconds: float | None) -> dict[str, Any] | None:
        """The next line the server writes, as JSON; None past ``seconds`` or once it has ended."""
        deadline = None if seconds is None else time.monotonic() + seconds
        stdout = self._process.stdout
        assert stdout is not None
        while b"\n" not in self._buffer:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            ready, _, _ = select.select([stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(stdout.fileno(), 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        message: dict[str, Any] = json.loads(line)  # the server writes one JSON object a line
        return message

    def run(
        self,
        copy: Path,
        arguments: Sequence[str],
        stderr: Path,
        pythonpath: str,
        timeout: float,
        trace: Path | None = None,
    ) -> int | None:
        """Run ``dpverify ARGUMENTS`` in ``copy``: its exit code, or None past ``timeout`` seconds
        (its process group is killed).  Raises :class:`ForkServerUnavailable` if the server is gone."""
        job = {
            "copy": str(copy),
            "arguments": list(arguments),
            "stderr": str(stderr),
            "pythonpath": pythonpath,
            "trace": None if trace is None else str(trace),
        }
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write((json.dumps(job) + "\n").encode("utf-8"))
            stdin.flush()
        except OSError as error:
            raise ForkServerUnavailable(f"the server is gone: {error}") from None
        started = self._answer(60)
        if started is None:
            raise ForkServerUnavailable("the server did not fork")
        self.child = int(started["pid"])
        try:
            ended = self._answer(timeout)
            if ended is not None:
                return int(ended["code"])
            self.kill_child()
            if self._answer(60) is None:
                raise ForkServerUnavailable("the server did not reap a killed run")
            return None
        finally:
            self.child = None

    def kill_child(self) -> None:
        """Kill the running child's process group (it called ``setsid``), if a child runs."""
        child = self.child
        if child is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(child, signal.SIGKILL)  # should it not have called setsid yet

    def close(self) -> None:
        """Kill the running child, if any, and end the server."""
        self.kill_child()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self._process.wait(timeout=10)
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                with contextlib.suppress(Exception):
                    stream.close()
