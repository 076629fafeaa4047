"""``dpverify mutate``: how many single-site changes of a sampler the gate catches.

Each mutant (:mod:`dpverify.verify.changes._mutants`) is written into its own temporary copy of the
packages it belongs to, and ``python -m dpverify check --json`` runs on that copy in a
subprocess whose ``PYTHONPATH`` puts the copy first, so the working tree is never modified and
mutants run in parallel.  For a module of dpverify the copy is an importable ``dpverify/``
package assembled from the installed parts (found from their ``__file__``, so an editable and a
regular install both work); for a user's module it is that module's top-level package.  Before
any mutant runs, a probe checks that the copy, not the installed code, is what gets imported,
and the gate runs on the unmodified copy: it must pass, or every mutant would count as killed.

That unmodified run goes one spec at a time under :mod:`cProfile`, which records the functions
each spec's cases execute; a mutant then runs only the specs that executed its function (every
spec for code that runs at import).  A spec that never enters the function runs the same code
with the same seeds as on the unmodified copy, so it would pass again.  (The one exception is the
production-source sample of each spec's first case, drawn from the OS: a mutant of the system
source may be caught by it in one run and not in another, with or without the selection.)

The gate runs with ``--no-stale-proofs``: a mutant changes the syntax tree of functions the
proof certificates cover, and a stale certificate says nothing about the distribution.  (Should
that check still fail, a failure of it alone does not count as a kill.)

The parts of the run are modules of their own: what to mutate and the plan
(:mod:`dpverify.verify.changes._mutate_targets`), the reviewed equivalents file
(:mod:`dpverify.verify.changes._mutate_equivalents`), one gate run in a copy
(:mod:`dpverify.verify.changes._mutate_gate_run`), what a gate run says about a mutant
(:mod:`dpverify.verify.changes._mutate_status`), and the report
(:mod:`dpverify.verify.changes._mutate_report`).  This module runs them: the copies, the probe,
the spec selection, and :func:`measure`.
"""

from __future__ import annotations

import compileall
import contextlib
import hashlib
import json
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dpverify import __version__
from dpverify.samplers import DpverifyError
from dpverify.verify.changes._fork_server import ForkServer, ForkServerUnavailable, preloadable
from dpverify.verify.changes._mutants import Mutant, verified_source
from dpverify.verify.changes._mutate_gate_run import GateOptions, GateRun, _environment, _Processes, run_gate
from dpverify.verify.changes._mutate_status import SURVIVED, Kill, _clip, _last_line, classify
from dpverify.verify.changes._mutate_targets import _IGNORE, Target, assemble_package, locate

__all__ = [
    "CopyTask",
    "Measurement",
    "Result",
    "measure",
    "run_in_copy",
]


#: How many times slower a gate run is under the profiler that records what it executes (the
#: catalogue's specs: 3 to 4 times): the traced unmodified runs' bound on each case is this many
#: times the mutants'.
TRACING_SLOWDOWN = 4


@dataclass(frozen=True, slots=True)
class Result:
    """What became of one mutant."""

    mutant: Mutant
    status: str
    kills: tuple[Kill, ...] = ()
    detail: str = ""
    seconds: float = 0.0
    reason: str | None = None  # the reviewed reason, for a mutant listed as equivalent
    specs: tuple[str, ...] | None = None  # the specs the gate ran on it; None: every spec found

    def to_json(self) -> dict[str, Any]:
        return {
            **self.mutant.to_json(),
            "status": self.status,
            "kills": [k.to_json() for k in self.kills],
            "detail": self.detail or None,
            "equivalence_reason": self.reason,
            "specs": None if self.specs is None else list(self.specs),
            "seconds": round(self.seconds, 2),
        }


@dataclass(frozen=True, slots=True)
class Measurement:
    """Every mutant's result; the seconds of the unmodified run(s); the specs found when the
    unmodified run was traced spec by spec (None: every mutant ran the whole gate)."""

    results: tuple[Result, ...]
    baseline_seconds: float
    specs: tuple[str, ...] | None = None
    runner: str = "fork server"


class _Workspace:
    """A temporary folder with a pristine copy of the packages the targets live in, and one
    fresh copy of it per mutant.

    With ``compiled`` the pristine copy is byte-compiled once, with hash-checked ``.pyc`` files
    (a ``.pyc`` is used only while its source hashes as when it was compiled, whatever the
    files' times), and made read-only; each mutant's copy is then hard links to it (a copy
    where links fail), with the mutated module's file replaced by a new file, never written
    through a link."""

    def __init__(self, targets: Sequence[Target], *, compiled: bool = False) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="dpverify-mutate-"))
        self.base = self.root / "base"
        self.base.mkdir()
        self.targets = {t.module: t for t in targets}
        self.compiled = compiled
        copied: set[str] = set()
        for target in targets:
            if target.top in copied:
                continue
            copied.add(target.top)
            if target.top == "dpverify":
                assemble_package(self.base)
            elif target.top_path.is_dir():
                shutil.copytree(target.top_path, self.base / target.top, ignore=_IGNORE)
            else:
                shutil.copy2(target.top_path, self.base / f"{target.top}.py")
        for target in targets:  # exactly the text the mutants are made from, should the file have changed since
            (self.base / target.relative).write_text(target.source, encoding="utf-8")
        if compiled:
            compileall.compile_dir(self.base, quiet=2, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            for path in self.base.rglob("*"):
                if path.is_file():
                    path.chmod(0o444)

    def copy(self, name: str, mutant: Mutant | None = None) -> Path:
        folder = self.root / name
        shutil.copytree(self.base, folder, copy_function=_link_or_copy if self.compiled else shutil.copy2)
        if mutant is not None:
            target = self.targets[mutant.module]
            mutated = folder / target.relative
            mutated.unlink()
            mutated.write_text(verified_source(mutant, target.source), encoding="utf-8")
        return folder

    def remove(self, folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        for suffix in (".json", ".stderr"):
            with contextlib.suppress(OSError):
                (folder.parent / f"{folder.name}{suffix}").unlink()

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _link_or_copy(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


#: Where each module comes from (one line each), then the modules ``dpverify check`` imports
#: before it runs anything, ``(name, file)`` as one JSON line.
_PROBE = """\
import importlib.util, json, sys
for name in sys.argv[1:]:
    print(importlib.util.find_spec(name).origin)
import dpverify.verify.cli
print(json.dumps(sorted((n, getattr(m, "__file__", None)) for n, m in list(sys.modules.items()))))
"""


def _probe(workspace: _Workspace, targets: Sequence[Target]) -> list[tuple[str, str | None]]:
    """Refuse to run unless the copy's modules are the ones a gate process imports.  Returns the
    modules loaded once ``dpverify check``'s own modules are imported (empty if that failed)."""
    folder = workspace.copy("probe")
    try:
        run = subprocess.run(
            [sys.executable, "-c", _PROBE, *(t.module for t in targets)],
            cwd=folder,
            env=_environment(folder),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        lines = run.stdout.splitlines()
        found = lines[: len(targets)]
        for target, origin in zip(targets, found, strict=False):
            if not Path(origin).resolve().is_relative_to(folder.resolve()):
                raise DpverifyError(
                    f"the mutants' copy is not what Python imports: {target.module} comes from "
                    f"{origin}; is it installed in a way that bypasses PYTHONPATH?"
                )
        if len(found) != len(targets):
            raise DpverifyError(f"cannot import the copy of the modules to mutate: {_last_line(run.stderr)}")
    finally:
        workspace.remove(folder)
    with contextlib.suppress(ValueError, IndexError, TypeError):
        return [(str(name), file) for name, file in json.loads(lines[len(targets)])]
    return []


def _baseline_error(run: GateRun, options: GateOptions, what: str = "") -> str | None:
    status, kills, detail = classify(run, options.timeout)
    if status == SURVIVED:
        return None
    why = "; ".join(str(k) for k in kills[:2]) or detail
    return (
        f"the gate does not pass on the unmodified code{what} ({status}: {_clip(why, 220)}), so no mutant could "
        f"be measured; fix it, or narrow it with --spec or --spec-module."
    )


_NAMES = """\
import json, sys
from dpverify.verify.gate._discovery import discover
print(json.dumps([f.spec.name for f in discover(json.loads(sys.argv[1]), names=json.loads(sys.argv[2]))]))
"""


def _spec_names(workspace: _Workspace, options: GateOptions) -> tuple[str, ...]:
    """The names of the specs the gate finds in the copy (all of them, or those ``--spec`` names)."""
    folder = workspace.copy("names")
    try:
        run = subprocess.run(
            [sys.executable, "-c", _NAMES, json.dumps(options.spec_modules), json.dumps(options.specs)],
            cwd=folder,
            env=_environment(folder),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    finally:
        workspace.remove(folder)
    try:
        names = json.loads(run.stdout)
    except ValueError:
        names = None
    if run.returncode != 0 or not isinstance(names, list) or not names:
        raise DpverifyError(f"the gate finds no spec to run on the unmodified code: {_last_line(run.stderr)}")
    return tuple(map(str, names))


def _function(qualname: str) -> str:
    """A code object's qualified name as mutants name functions: ``f.<locals>.g`` is ``f.g``, and
    a lambda or comprehension counts as the function it is written in."""
    parts = [part for part in qualname.split(".") if part != "<locals>"]
    while len(parts) > 1 and parts[-1].startswith("<"):
        parts.pop()
    return ".".join(parts)


def _read_trace(trace: Path) -> dict[str, Any]:
    with contextlib.suppress(OSError, ValueError):
        document = json.loads(trace.read_text(encoding="utf-8"))
        if isinstance(document, dict):
            return document
    return {}


def _ran(document: dict[str, Any], folder: Path) -> set[tuple[str, str]]:
    """``(file inside the copy, function)`` for every function of the copy in a trace's document
    (:func:`_read_trace`)."""
    root = os.path.realpath(folder)
    found = set()
    with contextlib.suppress(TypeError, ValueError):
        for filename, qualname in document.get("ran", []):
            path = os.path.realpath(os.path.join(folder, filename))
            if path.startswith(root + os.sep):
                found.add((Path(os.path.relpath(path, root)).as_posix(), _function(qualname)))
    return found


def _chosen_specs(mutant: Mutant, target: Target, coverage: dict[str, set[tuple[str, str]]]) -> tuple[str, ...]:
    """The specs whose cases ran the mutated function on the unmodified code; all of them for other
    code that runs at import (module level, class bodies).  A default value is evaluated at import,
    where every run sees it or none does (it raises or not), and otherwise only a call of its
    function that leaves the argument out sees it: so the specs that ran the function, or all of
    them where none did (an import that raises is then still seen)."""
    if mutant.at_import and not mutant.in_default:
        return tuple(coverage)
    key = (target.relative.as_posix(), mutant.function)
    chosen = tuple(name for name, ran in coverage.items() if key in ran)
    return chosen if chosen or not mutant.in_default else tuple(coverage)


@dataclass(frozen=True, slots=True)
class _Job:
    """One gate run: its copy's name, the gate's options, the mutant (None: the unmodified code),
    and whether to trace the functions it runs."""

    name: str
    options: GateOptions
    mutant: Mutant | None = None
    trace: bool = False


class _LocalRunner:
    """Gate runs in copies in a temporary folder of this machine, ``jobs`` at a time: each the
    child of a fork server (:mod:`dpverify.verify.changes._fork_server`) where ``fork`` allows and
    one starts, in a fresh interpreter otherwise.  The servers preload what the probe and the
    traced runs so far imported (outside the ``forbidden`` top-level packages)."""

    def __init__(
        self, targets: Sequence[Target], jobs: int, *, fork: bool = True, forbidden: Sequence[str] = ()
    ) -> None:
        self.targets = tuple(targets)
        self.jobs = jobs
        self.workspace = _Workspace(targets, compiled=fork)
        self.processes = _Processes()
        self.forbidden = ("dpverify", *(t.top for t in targets), *forbidden)
        self.fork_problem: str | None = None if fork else "turned off"
        self._lock = threading.Lock()
        self._imported: set[tuple[str, str | None]] = set()
        self._preload: tuple[str, ...] = ()
        self._idle: list[ForkServer] = []

    @property
    def runner(self) -> str:
        """How the gate runs were made, for the report."""
        if self.fork_problem is None:
            return "fork server"
        return f"fresh interpreters (no fork server: {self.fork_problem})"

    def start(self) -> None:
        self._imported.update(_probe(self.workspace, self.targets))

    def spec_names(self, options: GateOptions) -> tuple[str, ...]:
        return _spec_names(self.workspace, options)

    def _server(self) -> ForkServer | None:
        """An idle server that preloads what is known now, started if need be; None without fork."""
        with self._lock:
            if self.fork_problem is not None:
                return None
            while self._idle:
                server = self._idle.pop()
                if server.preload == self._preload:
                    return server
                server.close()
            preload = self._preload
        try:
            return ForkServer(self.workspace.base, _environment(self.workspace.base), preload, self.forbidden)
        except ForkServerUnavailable as error:
            self._give_up(str(error))
            return None

    def _give_up(self, why: str) -> None:
        with self._lock:
            self.fork_problem = self.fork_problem or why

    def runs(self, jobs: Sequence[_Job]) -> Iterator[tuple[int, GateRun, set[tuple[str, str]]]]:
        """``(position in jobs, run, functions it ran)`` for each job, as each finishes."""
        with self._lock:  # what the traced runs so far imported, preloaded from now on
            self._preload = preloadable(self._imported, self.forbidden)

        def one(position: int, job: _Job) -> tuple[int, GateRun, set[tuple[str, str]]]:
            folder = self.workspace.copy(job.name, job.mutant)
            trace = self.workspace.root / f"{job.name}.trace" if job.trace else None
            try:
                server = self._server()
                try:
                    run = run_gate(folder, job.options, self.processes, trace=trace, server=server)
                except ForkServerUnavailable as error:
                    self._give_up(str(error))
                    if server is not None:  # only a server's run raises it
                        server.close()
                    server = None
                    run = run_gate(folder, job.options, self.processes, trace=trace)
                if server is not None:
                    with self._lock:
                        self._idle.append(server)
                if trace is None:
                    return position, run, set()
                document = _read_trace(trace)
                with contextlib.suppress(TypeError, ValueError), self._lock:
                    self._imported.update((str(n), f) for n, f in document.get("modules", []))
                return position, run, _ran(document, folder)
            finally:
                self.workspace.remove(folder)

        with ThreadPoolExecutor(max_workers=max(1, min(self.jobs, len(jobs)))) as pool:
            futures = [pool.submit(one, position, job) for position, job in enumerate(jobs)]
            try:
                for future in as_completed(futures):
                    yield future.result()
            except BaseException:  # the other runs too, rather than waiting for them
                self.processes.stop_all()
                for future in futures:
                    future.cancel()
                raise

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for server in idle:
            server.close()
        self.workspace.close()


class _ClusterRunner:
    """Gate runs on a Dask cluster: each task carries what its worker needs to build its own copy
    (:class:`CopyTask`), so the workers need only dpverify (and the user's packages) installed."""

    def __init__(self, targets: Sequence[Target], scheduler: str, jobs: int | None) -> None:
        self.targets = {t.module: t for t in targets}
        self.modules = tuple((t.module, _digest(t.source)) for t in targets)
        self.scheduler, self.jobs = scheduler, jobs

    def start(self) -> None:
        """Each worker probes its own copy (:func:`run_in_copy`)."""

    def spec_names(self, options: GateOptions) -> tuple[str, ...]:
        from dpverify.verify.gate._discovery import discover

        try:
            names = tuple(f.spec.name for f in discover(options.spec_modules, names=options.specs))
        except DpverifyError as error:
            raise DpverifyError(f"the gate finds no spec to run on the unmodified code: {error}") from None
        if not names:
            raise DpverifyError("the gate finds no spec to run on the unmodified code.")
        return names

    def runs(self, jobs: Sequence[_Job]) -> Iterator[tuple[int, GateRun, set[tuple[str, str]]]]:
        """``(position in jobs, run, functions it ran)`` for each job, in the order given."""
        from dpverify.verify.gate._sweep import sweep_results

        tasks = [(CopyTask(self.modules, job.options, self._mutated(job.mutant), job.trace),) for job in jobs]
        for position, (run, ran) in enumerate(
            sweep_results(run_in_copy, tasks, jobs=self.jobs, scheduler=self.scheduler)
        ):
            yield position, run, set(ran)

    def _mutated(self, mutant: Mutant | None) -> tuple[str, str] | None:
        if mutant is None:
            return None
        return mutant.module, verified_source(mutant, self.targets[mutant.module].source)

    def close(self) -> None:
        pass


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CopyTask:
    """One gate run for a worker that shares nothing with this machine but installed packages.

    ``modules`` names the modules to copy, each with the SHA-256 of the text the mutants were
    made from (the worker's must be the same); ``mutated`` is ``(module, whole mutated text)``,
    or None for the unmodified code; ``options`` are the gate's options, its specs among them;
    ``trace``: record the functions the run executes; ``version``: dpverify's, which the worker's
    must equal."""

    modules: tuple[tuple[str, str], ...]
    options: GateOptions
    mutated: tuple[str, str] | None = None
    trace: bool = False
    version: str = __version__


#: The module sets whose copies were probed in this process (see :func:`_probe`).
_PROBED: set[tuple[str, ...]] = set()


def run_in_copy(task: CopyTask) -> tuple[GateRun, frozenset[tuple[str, str]]]:
    """Where a cluster's task runs: a temporary copy of the packages built from this machine's
    own installation (dpverify's parts, or the user's package found on this machine's path),
    the mutated text written into it, ``dpverify check`` run on it as :func:`run_gate` runs it,
    the copy removed.  The run and, when traced, ``(file in the copy, function)`` for each
    function it ran."""
    if task.version != __version__:
        raise DpverifyError(
            f"this worker has dpverify {__version__}, the mutants were made with {task.version}; "
            "install the same version on every worker."
        )
    targets = [locate(name) for name, _ in task.modules]
    for target, (name, digest) in zip(targets, task.modules, strict=True):
        if _digest(target.source) != digest:
            raise DpverifyError(
                f"{name} on this worker ({target.file}) is not the text the mutants were made from; "
                "install the same version on every worker."
            )
    workspace = _Workspace(targets)
    try:
        key = tuple(name for name, _ in task.modules)
        if key not in _PROBED:
            _probe(workspace, targets)
            _PROBED.add(key)
        folder = workspace.base
        if task.mutated is not None:
            module, text = task.mutated
            (folder / workspace.targets[module].relative).write_text(text, encoding="utf-8")
        trace = workspace.root / "run.trace" if task.trace else None
        run = run_gate(folder, task.options, trace=trace)
        return run, frozenset() if trace is None else frozenset(_ran(_read_trace(trace), folder))
    finally:
        workspace.close()


def measure(
    targets: Sequence[Target],
    mutants: Sequence[Mutant],
    options: GateOptions,
    *,
    jobs: int | None,
    select_specs: bool = True,
    progress: Callable[[Result, int, int], None] | None = None,
    scheduler: str | None = None,
    fork: bool = True,
) -> Measurement:
    """Run the gate on the unmodified copy, then on every mutant, ``jobs`` at a time.

    With ``select_specs`` the unmodified run is traced one spec at a time, and each mutant runs
    only the specs that executed its function (the others run code identical to the unmodified
    run's, with the same seeds, so they would pass again); a mutant that no spec executes
    survives without a run.  Without it every mutant runs the whole gate.

    With ``scheduler`` every gate run, the unmodified ones too, is a task on that Dask cluster
    (:class:`CopyTask`, :func:`run_in_copy`): the worker builds its own copy from its own
    installation, so nothing of this machine's file system is needed there; ``jobs`` bounds the
    tasks in flight (None: the cluster's worker threads).  Locally ``jobs`` is required."""
    if not mutants:
        return Measurement((), 0.0, runner="none (no mutant to run)")
    if scheduler is not None:
        runner: _LocalRunner | _ClusterRunner = _ClusterRunner(targets, scheduler, jobs)
    else:
        if jobs is None:
            raise DpverifyError("measure needs jobs, the gate runs at a time, unless a scheduler runs them.")
        runner = _LocalRunner(
            targets, jobs, fork=fork, forbidden=[module.partition(".")[0] for module in options.spec_modules]
        )
    targets_by_module = {t.module: t for t in targets}
    try:
        runner.start()
        coverage: dict[str, set[tuple[str, str]]] | None = None
        found: tuple[str, ...] | None = None
        baseline_seconds = 0.0
        if select_specs:
            names = found = runner.spec_names(options)
            ran_by_spec: dict[str, set[tuple[str, str]]] = {}
            # traced runs are slower, so their bound on each case is stretched by as much
            traced = replace(
                options, time_limit=None if options.time_limit is None else options.time_limit * TRACING_SLOWDOWN
            )
            spec_jobs = [_Job(f"spec{i}", replace(traced, specs=(name,)), trace=True) for i, name in enumerate(names)]
            for position, run, ran in runner.runs(spec_jobs):
                error = _baseline_error(run, options, f" (spec {names[position]})")
                if error:
                    raise DpverifyError(error)
                ran_by_spec[names[position]] = ran
                baseline_seconds += run.seconds
            # in the order found, whatever finished first: a gate stops at its first failing case, and which
            # case that is can decide the status (a spec that cannot even build its case makes it broken)
            coverage = {name: ran_by_spec[name] for name in names}
        else:
            for _, baseline, _ in runner.runs([_Job("baseline", options)]):
                error = _baseline_error(baseline, options)
                if error:
                    raise DpverifyError(error)
                baseline_seconds = baseline.seconds

        results: dict[int, Result] = {}
        pending: list[tuple[int, tuple[str, ...] | None, _Job]] = []
        for index, mutant in enumerate(mutants):
            specs: tuple[str, ...] | None = None
            chosen = options
            if coverage is not None:
                specs = _chosen_specs(mutant, targets_by_module[mutant.module], coverage)
                if not specs:
                    results[index] = Result(
                        mutant,
                        SURVIVED,
                        detail=f"no spec runs {mutant.function} on the unmodified code, so no case can see the change",
                        specs=(),
                    )
                    if progress is not None:
                        progress(results[index], len(results), len(mutants))
                    continue
                chosen = replace(options, specs=specs)
            pending.append((index, specs, _Job(f"m{index}", chosen, mutant)))
        for position, run, _ in runner.runs([job for _, _, job in pending]):
            index, specs, _ = pending[position]
            status, kills, detail = classify(run, options.timeout)
            results[index] = Result(mutants[index], status, kills, detail, run.seconds, specs=specs)
            if progress is not None:
                progress(results[index], len(results), len(mutants))
        return Measurement(
            tuple(results[i] for i in range(len(mutants))),
            baseline_seconds,
            found,
            runner.runner if isinstance(runner, _LocalRunner) else "dask",
        )
    finally:
        runner.close()
