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

What the gate says about a mutant becomes its status:

``killed``      exit 1 with a verdict: the JSON names each failing case and check
``broken``      exit 2: a case could not be checked (an ``error`` outcome) or the gate refused to
                run; the mutant was caught, but not by a verdict
``crashed``     any other ending: no JSON, a traceback, a signal; the tail of stderr is kept
``timeout``     no answer within ``--timeout`` seconds (the whole process group is killed)
``survived``    exit 0: no check saw the change
``equivalent``  survived, and listed in the reviewed equivalents file with its reason

The reviewed equivalents file (``mutants/equivalent.toml`` by default) holds
``[[equivalent]]`` entries (``id``, ``module``, ``reason``; ``line`` and ``description`` for
the reader) and ``[[skip]]`` entries (``module``, ``function``, ``reason``) for functions whose
only effect is an error message.  An entry that matches no mutant of a module being mutated is
*stale*, and a listed mutant that the gate catches is *refuted*: both fail the run, so the list
cannot silently rot or pad the score.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from dpverify import __version__
from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify.changes._mutants import Mutant, mutants_of, verified_source

__all__ = [
    "BROKEN",
    "CRASHED",
    "CopyTask",
    "DEFAULT_TIMEOUT",
    "EQUIVALENT",
    "EQUIVALENTS_FILE",
    "KILLED",
    "MUTATE_SCHEMA",
    "STATUSES",
    "SURVIVED",
    "TIMEOUT",
    "Equivalent",
    "GateOptions",
    "GateRun",
    "Kill",
    "Measurement",
    "Plan",
    "Result",
    "Reviewed",
    "Skip",
    "Target",
    "classify",
    "default_modules",
    "list_text",
    "locate",
    "measure",
    "plan",
    "read_reviewed",
    "report_json",
    "report_text",
    "reviewed_results",
    "run_gate",
    "run_in_copy",
    "select",
]

#: Version of the JSON document ``dpverify mutate --json`` writes (see the README).
MUTATE_SCHEMA = "dpverify.mutate/2"
#: The reviewed equivalents file, relative to the working directory.
EQUIVALENTS_FILE = "mutants/equivalent.toml"
#: Seconds one gate run on one mutant may take.
DEFAULT_TIMEOUT = 300
#: Seconds each case of a mutant's gate run may take (``check --time-limit``): a mutant that
#: makes a sampler loop ends its case as inconclusive long before the whole run's timeout.
DEFAULT_CASE_TIME_LIMIT = 60
#: Draws per statistical check in a mutant's gate run: the exact checks decide; the sampling is a
#: backstop, and at 5000 draws it still detects any CDF distance above 0.093 (beta = 1e-9).
DEFAULT_SAMPLES = 5000

KILLED, BROKEN, CRASHED, TIMEOUT, SURVIVED, EQUIVALENT = (
    "killed", "broken", "crashed", "timeout", "survived", "equivalent")
STATUSES = (KILLED, EQUIVALENT, SURVIVED, BROKEN, CRASHED, TIMEOUT)
#: Statuses that are neither a kill with a verdict nor a survivor: the "other" column.
OTHER = (BROKEN, CRASHED, TIMEOUT)

#: The parts of the dpverify package, each a folder of the repository.
_PARTS = ("samplers", "specs", "verify", "proofs")
#: Sampler modules that are not mutated by default: re-exports, the exception classes.
_NOT_MUTATED = frozenset({"__init__.py", "_errors.py"})
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


# --- what to mutate --------------------------------------------------------------------------


def default_modules() -> tuple[str, ...]:
    """dpverify's exact sampler modules: every ``samplers/*.py`` but ``*_unsafe.py`` (floating
    point by design, under audit), ``__init__.py`` and ``_errors.py``."""
    folder = _package_folder("dpverify.samplers")
    return tuple(f"dpverify.samplers.{path.stem}" for path in sorted(folder.glob("*.py"))
                 if path.name not in _NOT_MUTATED and not path.stem.endswith("_unsafe"))


@dataclass(frozen=True, slots=True)
class Target:
    """A module to mutate: its file, its text, and where its file lies in a copy."""

    module: str
    file: Path
    top: str  # the top-level package (or module) the copy holds
    top_path: Path  # its folder, or its file for a top-level module
    relative: PurePosixPath  # the module's file inside the copy
    source: str = field(repr=False)


def _package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise DpverifyError(f"cannot find the package {name}; is dpverify installed?")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def _dpverify_parts() -> dict[str, Path]:
    """``{"": the package top, "samplers": ..., ...}``: the folders a copy of dpverify is made of."""
    return {"": _package_folder("dpverify"), **{part: _package_folder(f"dpverify.{part}") for part in _PARTS}}


def assemble_package(folder: Path) -> Path:
    """Copy the installed dpverify into ``folder`` as one importable ``dpverify/`` tree, the
    layout a wheel installs, whatever the parts' folders (an editable install keeps them apart).
    Returns the copy's ``dpverify`` folder."""
    parts = _dpverify_parts()
    top, copy = parts[""], folder / "dpverify"
    shutil.copytree(top, copy, ignore=lambda at, names: {*_IGNORE(at, names), *(_PARTS if Path(at) == top else ())})
    for part in _PARTS:
        shutil.copytree(parts[part], copy / part, ignore=_IGNORE, dirs_exist_ok=True)
    return copy


def locate(name: str) -> Target:
    """The module named ``name`` (dotted, importable from here), ready to be copied and mutated."""
    if not isinstance(name, str) or not _DOTTED.fullmatch(name):
        raise DpverifyError(f"MODULE must be a dotted module name such as dpverify.samplers.gtm; got {shown(name)}.")
    try:
        spec = importlib.util.find_spec(name)
    except Exception as error:  # noqa: BLE001 - importing a parent package can raise anything
        raise DpverifyError(f"cannot find module {shown(name)}: {type(error).__name__}: {shown(str(error), 120)}") from None
    if spec is None:
        raise DpverifyError(f"no module named {shown(name)}; MODULE must be importable from the current directory.")
    if spec.origin is None or not spec.origin.endswith(".py") or not os.path.isfile(spec.origin):
        raise DpverifyError(f"MODULE must be a Python source file; {shown(name)} is {shown(spec.origin)}.")
    file = Path(spec.origin).resolve()
    top = name.split(".")[0]
    if top == "dpverify":
        parts = _dpverify_parts()
        part = max((p for p, folder in parts.items() if file.is_relative_to(folder)), key=lambda p: len(parts[p].parts),
                   default=None)
        if part is None:
            raise DpverifyError(f"module {name} lies outside dpverify's folders ({file}).")
        relative = PurePosixPath("dpverify", part, file.relative_to(parts[part]).as_posix())
        top_path = parts[""]
    else:
        top_spec = importlib.util.find_spec(top)
        assert top_spec is not None  # found above, as the parent of name
        locations = list(top_spec.submodule_search_locations or ())
        if top_spec.submodule_search_locations is None:
            top_path, relative = file, PurePosixPath(f"{top}.py")
        elif len(locations) == 1:
            top_path = Path(locations[0]).resolve()
            relative = PurePosixPath(top, file.relative_to(top_path).as_posix())
        else:
            raise DpverifyError(f"cannot copy {top}: a namespace package spread over {len(locations)} folders.")
    try:
        source = file.read_text(encoding="utf-8")
        ast.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        raise DpverifyError(f"cannot read module {name} ({file}): {type(error).__name__}: {error}.") from None
    return Target(name, file, top, top_path, relative, source)


# --- the reviewed equivalents ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Equivalent:
    """A mutant reviewed as unable to change any public entry point's distribution, and why."""

    id: str
    module: str
    reason: str
    line: int | None = None
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "module": self.module, "line": self.line, "description": self.description,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Skip:
    """A function whose mutants are not generated (it only builds error messages), and why."""

    module: str
    function: str
    reason: str

    def covers(self, mutant: Mutant) -> bool:
        return mutant.module == self.module and (
            mutant.function == self.function or mutant.function.startswith(f"{self.function}."))

    def to_json(self) -> dict[str, Any]:
        return {"module": self.module, "function": self.function, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Reviewed:
    """The reviewed equivalents file: its path (None when there is none) and its entries."""

    path: str | None = None
    equivalents: tuple[Equivalent, ...] = ()
    skips: tuple[Skip, ...] = ()

    def reason(self, mutant_id: str) -> str | None:
        return next((e.reason for e in self.equivalents if e.id == mutant_id), None)


_MAX_REVIEWED_BYTES = 10_000_000
_EQUIVALENT_KEYS = {"id": str, "module": str, "reason": str, "line": int, "description": str}
_SKIP_KEYS = {"module": str, "function": str, "reason": str}


def read_reviewed(path: str | None) -> Reviewed:
    """Read the reviewed equivalents file at ``path``; ``None`` reads nothing."""
    if path is None:
        return Reviewed()
    if not os.path.isfile(path):
        raise DpverifyError(f"--equivalents must be a file; got --equivalents={shown(path)}.")
    if os.path.getsize(path) > _MAX_REVIEWED_BYTES:
        raise DpverifyError(f"--equivalents={shown(path)} is larger than {_MAX_REVIEWED_BYTES} bytes.")
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as error:
        raise DpverifyError(f"cannot read --equivalents={shown(path)}: {error.strerror or error}.") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise DpverifyError(f"{path} is not valid TOML: {shown(str(error), 120)}.") from None
    unknown = set(document) - {"equivalent", "skip"}
    if unknown:
        raise DpverifyError(f"{path}: unknown table {shown(sorted(unknown)[0])}; the file holds [[equivalent]] and "
                            f"[[skip]] entries.")
    equivalents = tuple(Equivalent(**_entry(path, "equivalent", i, e, _EQUIVALENT_KEYS, ("id", "module", "reason")))
                        for i, e in enumerate(_array(path, document, "equivalent")))
    skips = tuple(Skip(**_entry(path, "skip", i, e, _SKIP_KEYS, ("module", "function", "reason")))
                  for i, e in enumerate(_array(path, document, "skip")))
    seen: set[str] = set()
    for equivalent in equivalents:
        if equivalent.id in seen:
            raise DpverifyError(f"{path}: mutant {shown(equivalent.id)} is listed twice.")
        seen.add(equivalent.id)
        if not equivalent.id.startswith(f"{equivalent.module}:"):
            raise DpverifyError(f"{path}: mutant {shown(equivalent.id)} is not in module {shown(equivalent.module)}; "
                                f"an id starts with its module.")
    return Reviewed(path, equivalents, skips)


def _array(path: str, document: dict[str, Any], name: str) -> list[Any]:
    value = document.get(name, [])
    if not isinstance(value, list):
        raise DpverifyError(f"{path}: {name} must be an array of tables, written [[{name}]].")
    return value


def _entry(path: str, table: str, index: int, entry: object, keys: dict[str, type], required: Sequence[str]
           ) -> dict[str, Any]:
    where = f"{path}: [[{table}]] number {index + 1}"
    if not isinstance(entry, dict):
        raise DpverifyError(f"{where} must be a table.")
    for key, value in entry.items():
        if key not in keys:
            raise DpverifyError(f"{where}: unknown key {shown(key)}; allowed: {', '.join(keys)}.")
        if not isinstance(value, keys[key]) or isinstance(value, bool):
            raise DpverifyError(f"{where}: {key} must be a {keys[key].__name__}; got {key}={shown(value)}.")
    for key in required:
        if not str(entry.get(key, "")).strip():
            raise DpverifyError(f"{where}: {key} is required and must not be empty.")
    return dict(entry)


# --- the plan ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """Every mutant of the targets (those in skipped functions left out), and the reviewed
    entries about these modules that match nothing."""

    targets: tuple[Target, ...]
    mutants: tuple[Mutant, ...]
    skipped: int
    stale: tuple[Equivalent | Skip, ...]


def plan(targets: Sequence[Target], reviewed: Reviewed) -> Plan:
    every = [m for target in targets for m in mutants_of(target.module, target.source)]
    modules = {target.module for target in targets}
    kept = [m for m in every if not any(skip.covers(m) for skip in reviewed.skips)]
    ids = {m.id for m in kept}
    functions = {(m.module, m.function) for m in every}
    stale: list[Equivalent | Skip] = [e for e in reviewed.equivalents if e.module in modules and e.id not in ids]
    stale += [s for s in reviewed.skips if s.module in modules and not any(
        module == s.module and (function == s.function or function.startswith(f"{s.function}."))
        for module, function in functions)]
    return Plan(tuple(targets), tuple(kept), len(every) - len(kept), tuple(stale))


def select(mutants: Sequence[Mutant], *, only: Sequence[str] = (), limit: int | None = None) -> tuple[Mutant, ...]:
    """The mutants whose id starts with one of ``only`` (all when empty), at most ``limit`` of them."""
    chosen = [m for m in mutants if not only or any(m.id.startswith(prefix) for prefix in only)]
    unmatched = [prefix for prefix in only if not any(m.id.startswith(prefix) for m in mutants)]
    if unmatched:
        raise DpverifyError(f"no mutant id starts with {shown(unmatched[0])}; dpverify mutate --list shows the ids.")
    return tuple(chosen if limit is None else chosen[:limit])


# --- one gate run in a copy ----------------------------------------------------------------------


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
        self.stopping = False

    def start(self, *args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        with self._lock:
            if self.stopping:
                raise _Stopped
            process = subprocess.Popen(*args, start_new_session=True, **kwargs)
            self._running.add(process)
            return process

    def done(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.discard(process)

    def stop_all(self) -> None:
        with self._lock:
            self.stopping = True
            running = list(self._running)
        for process in running:
            _kill_group(process)


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


#: ``python -c`` program: ``dpverify ARGS`` under cProfile from before the first import, then the
#: ``(file, qualified name)`` of every Python function it ran, as JSON to ``argv[1]``.
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
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        json.dump(ran, out)
sys.exit(code)
"""


def run_gate(copy: Path, options: GateOptions, processes: _Processes | None = None, *,
             trace: Path | None = None) -> GateRun:
    """``python -m dpverify check --json`` on the code in ``copy`` (its own working directory);
    with ``trace``, under the profiler, which writes the functions that ran to ``trace``."""
    processes = processes or _Processes()
    out, errors = copy.parent / f"{copy.name}.json", copy.parent / f"{copy.name}.stderr"
    program = ["-m", "dpverify"] if trace is None else ["-c", _TRACED, str(trace)]
    command = [sys.executable, *program, *options.arguments(), "--json", str(out)]
    start = time.monotonic()
    with open(errors, "wb") as stderr:
        process = processes.start(command, cwd=copy, env=_environment(copy), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            code: int | None = process.wait(timeout=options.timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            code = None
        finally:
            processes.done(process)
    seconds = time.monotonic() - start
    document = None
    with contextlib.suppress(OSError, ValueError):
        document = json.loads(out.read_text(encoding="utf-8"))
    tail = errors.read_bytes()[-4000:].decode("utf-8", "replace")
    return GateRun(code, document if isinstance(document, dict) else None, tail, seconds)


# --- what a gate run says about a mutant ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Kill:
    """One failing check in the gate's JSON: the case (``repository`` for a source-tree check)."""

    entry: str
    check: str
    verdict: str
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.entry, "check": self.check, "verdict": self.verdict, "summary": self.summary}

    def __str__(self) -> str:
        return f"{self.entry}: {self.check} {self.verdict}: {_clip(self.summary, 160)}"


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return _clip(lines[-1]) if lines else "(nothing on stderr)"


def _kills(document: dict[str, Any]) -> list[Kill]:
    """Every check that made the gate fail: for each unmet case, the checks its problems name."""
    kills: list[Kill] = []
    for entry in document.get("entries", []):
        if entry.get("met", True):
            continue
        name, problems = str(entry.get("name")), [str(p) for p in entry.get("problems") or []]
        if entry.get("error"):
            kills.append(Kill(name, "error", "error", _clip(entry["error"])))
            continue
        named = [c for c in entry.get("checks", [])
                 if any(p.startswith((f"{c.get('check')} ", f"expected {c.get('check')} ")) for p in problems)]
        kills += [Kill(name, str(c.get("check")), str(c.get("verdict")), _clip(c.get("summary", ""))) for c in named]
        if not named:
            kills.append(Kill(name, "outcome", str(entry.get("outcome")), _clip("; ".join(problems))))
    for check in document.get("repository", []):
        if check.get("verdict") != "proved":
            kills.append(Kill("repository", str(check.get("check")), str(check.get("verdict")),
                              _clip(check.get("summary", ""))))
    return kills


def classify(run: GateRun, timeout: int = DEFAULT_TIMEOUT) -> tuple[str, tuple[Kill, ...], str]:
    """``(status, kills, detail)`` for one gate run on a mutant."""
    if run.code is None:
        return TIMEOUT, (), f"no answer within {timeout} s"
    document = run.document
    traceback = "Traceback (most recent call last)" in run.stderr
    if run.code == 0 and document is not None and document.get("passed") is True:
        return SURVIVED, (), ""
    if run.code == 2 and not traceback:
        kills = tuple(k for k in _kills(document) if k.check == "error") if document else ()
        return BROKEN, kills, kills[0].summary if kills else _last_line(run.stderr)
    if run.code == 1 and document is not None:
        kills = _kills(document)
        if kills and all(k.entry == "repository" and k.check == "stale_proofs" for k in kills):
            return SURVIVED, (), "only the stale-proof check failed, which every change of covered code fails"
        if kills:
            return KILLED, tuple(kills), ""
    ending = f"exit code {run.code}" if run.code >= 0 else f"killed by signal {-run.code}"
    return CRASHED, (), f"{ending}{'' if document else ', no JSON'}: {_last_line(run.stderr)}"


# --- the whole run -------------------------------------------------------------------------------


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
        return {**self.mutant.to_json(), "status": self.status, "kills": [k.to_json() for k in self.kills],
                "detail": self.detail or None, "equivalence_reason": self.reason,
                "specs": None if self.specs is None else list(self.specs), "seconds": round(self.seconds, 2)}


@dataclass(frozen=True, slots=True)
class Measurement:
    """Every mutant's result; the seconds of the unmodified run(s); the specs found when the
    unmodified run was traced spec by spec (None: every mutant ran the whole gate)."""

    results: tuple[Result, ...]
    baseline_seconds: float
    specs: tuple[str, ...] | None = None


class _Workspace:
    """A temporary folder with a pristine copy of the packages the targets live in, and one
    fresh copy of it per mutant."""

    def __init__(self, targets: Sequence[Target]) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="dpverify-mutate-"))
        self.base = self.root / "base"
        self.base.mkdir()
        self.targets = {t.module: t for t in targets}
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

    def copy(self, name: str, mutant: Mutant | None = None) -> Path:
        folder = self.root / name
        shutil.copytree(self.base, folder)
        if mutant is not None:
            target = self.targets[mutant.module]
            (folder / target.relative).write_text(verified_source(mutant, target.source), encoding="utf-8")
        return folder

    def remove(self, folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        for suffix in (".json", ".stderr"):
            with contextlib.suppress(OSError):
                (folder.parent / f"{folder.name}{suffix}").unlink()

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


_PROBE = "import importlib.util, sys\nfor name in sys.argv[1:]:\n    print(importlib.util.find_spec(name).origin)\n"


def _probe(workspace: _Workspace, targets: Sequence[Target]) -> None:
    """Refuse to run unless the copy's modules are the ones a gate process imports."""
    folder = workspace.copy("probe")
    try:
        run = subprocess.run([sys.executable, "-c", _PROBE, *(t.module for t in targets)], cwd=folder,
                             env=_environment(folder), capture_output=True, text=True, timeout=120, check=False)
        found = run.stdout.split()
        for target, origin in zip(targets, found, strict=False):
            if not Path(origin).resolve().is_relative_to(folder.resolve()):
                raise DpverifyError(f"the mutants' copy is not what Python imports: {target.module} comes from "
                                    f"{origin}; is it installed in a way that bypasses PYTHONPATH?")
        if run.returncode != 0 or len(found) != len(targets):
            raise DpverifyError(f"cannot import the copy of the modules to mutate: {_last_line(run.stderr)}")
    finally:
        workspace.remove(folder)


def _baseline_error(run: GateRun, options: GateOptions, what: str = "") -> str | None:
    status, kills, detail = classify(run, options.timeout)
    if status == SURVIVED:
        return None
    why = "; ".join(str(k) for k in kills[:2]) or detail
    return (f"the gate does not pass on the unmodified code{what} ({status}: {_clip(why, 220)}), so no mutant could "
            f"be measured; fix it, or narrow it with --spec or --spec-module.")


_NAMES = """\
import json, sys
from dpverify.verify.gate._discovery import discover
print(json.dumps([f.spec.name for f in discover(json.loads(sys.argv[1]), names=json.loads(sys.argv[2]))]))
"""


def _spec_names(workspace: _Workspace, options: GateOptions) -> tuple[str, ...]:
    """The names of the specs the gate finds in the copy (all of them, or those ``--spec`` names)."""
    folder = workspace.copy("names")
    try:
        run = subprocess.run([sys.executable, "-c", _NAMES, json.dumps(options.spec_modules), json.dumps(options.specs)],
                             cwd=folder, env=_environment(folder), capture_output=True, text=True, timeout=600,
                             check=False)
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


def _ran(trace: Path, folder: Path) -> set[tuple[str, str]]:
    """``(file inside the copy, function)`` for every function of the copy in the trace."""
    root = os.path.realpath(folder)
    found = set()
    with contextlib.suppress(OSError, ValueError):
        for filename, qualname in json.loads(trace.read_text(encoding="utf-8")):
            path = os.path.realpath(os.path.join(folder, filename))
            if path.startswith(root + os.sep):
                found.add((Path(os.path.relpath(path, root)).as_posix(), _function(qualname)))
    return found


def _chosen_specs(mutant: Mutant, target: Target, coverage: dict[str, set[tuple[str, str]]]) -> tuple[str, ...]:
    """The specs whose cases ran the mutated function on the unmodified code; all of them for code
    that runs at import (module level, class bodies, default values)."""
    if mutant.at_import:
        return tuple(coverage)
    key = (target.relative.as_posix(), mutant.function)
    return tuple(name for name, ran in coverage.items() if key in ran)


@dataclass(frozen=True, slots=True)
class _Job:
    """One gate run: its copy's name, the gate's options, the mutant (None: the unmodified code),
    and whether to trace the functions it runs."""

    name: str
    options: GateOptions
    mutant: Mutant | None = None
    trace: bool = False


class _LocalRunner:
    """Gate runs in copies in a temporary folder of this machine, ``jobs`` at a time."""

    def __init__(self, targets: Sequence[Target], jobs: int) -> None:
        self.targets = tuple(targets)
        self.jobs = jobs
        self.workspace = _Workspace(targets)
        self.processes = _Processes()

    def start(self) -> None:
        _probe(self.workspace, self.targets)

    def spec_names(self, options: GateOptions) -> tuple[str, ...]:
        return _spec_names(self.workspace, options)

    def runs(self, jobs: Sequence[_Job]) -> Iterator[tuple[int, GateRun, set[tuple[str, str]]]]:
        """``(position in jobs, run, functions it ran)`` for each job, as each finishes."""

        def one(position: int, job: _Job) -> tuple[int, GateRun, set[tuple[str, str]]]:
            folder = self.workspace.copy(job.name, job.mutant)
            trace = self.workspace.root / f"{job.name}.trace" if job.trace else None
            try:
                run = run_gate(folder, job.options, self.processes, trace=trace)
                return position, run, set() if trace is None else _ran(trace, folder)
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
        for position, (run, ran) in enumerate(sweep_results(run_in_copy, tasks, jobs=self.jobs,
                                                            scheduler=self.scheduler)):
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
        raise DpverifyError(f"this worker has dpverify {__version__}, the mutants were made with {task.version}; "
                            "install the same version on every worker.")
    targets = [locate(name) for name, _ in task.modules]
    for target, (name, digest) in zip(targets, task.modules, strict=True):
        if _digest(target.source) != digest:
            raise DpverifyError(f"{name} on this worker ({target.file}) is not the text the mutants were made from; "
                                "install the same version on every worker.")
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
        return run, frozenset() if trace is None else frozenset(_ran(trace, folder))
    finally:
        workspace.close()


def measure(targets: Sequence[Target], mutants: Sequence[Mutant], options: GateOptions, *, jobs: int | None,
            select_specs: bool = True, progress: Callable[[Result, int, int], None] | None = None,
            scheduler: str | None = None) -> Measurement:
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
        return Measurement((), 0.0)
    if scheduler is not None:
        runner: _LocalRunner | _ClusterRunner = _ClusterRunner(targets, scheduler, jobs)
    else:
        if jobs is None:
            raise DpverifyError("measure needs jobs, the gate runs at a time, unless a scheduler runs them.")
        runner = _LocalRunner(targets, jobs)
    targets_by_module = {t.module: t for t in targets}
    try:
        runner.start()
        coverage: dict[str, set[tuple[str, str]]] | None = None
        baseline_seconds = 0.0
        if select_specs:
            names = runner.spec_names(options)
            ran_by_spec: dict[str, set[tuple[str, str]]] = {}
            spec_jobs = [_Job(f"spec{i}", replace(options, specs=(name,)), trace=True) for i, name in enumerate(names)]
            for position, run, ran in runner.runs(spec_jobs):
                error = _baseline_error(run, options, f" (spec {names[position]})")
                if error:
                    raise DpverifyError(error)
                ran_by_spec[names[position]] = ran
                baseline_seconds += run.seconds
            coverage = {name: ran_by_spec[name] for name in names}  # in the order found, whatever finished first
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
                    results[index] = Result(mutant, SURVIVED, detail=f"no spec runs {mutant.function} on the "
                                            "unmodified code, so no case can see the change", specs=())
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
        return Measurement(tuple(results[i] for i in range(len(mutants))), baseline_seconds,
                           None if coverage is None else tuple(coverage))
    finally:
        runner.close()


# --- the report ----------------------------------------------------------------------------------


def reviewed_results(results: Sequence[Result], reviewed: Reviewed) -> tuple[Result, ...]:
    """Survivors listed in the reviewed file become ``equivalent``, with their reason; a listed
    mutant with another status keeps it and the reason, so the report can show the claim refuted."""
    return tuple(replace(r, status=EQUIVALENT if r.status == SURVIVED else r.status, reason=reason)
                 if (reason := reviewed.reason(r.mutant.id)) is not None else r for r in results)


def _counts(results: Sequence[Result]) -> dict[str, int]:
    counts = {status: sum(r.status == status for r in results) for status in STATUSES}
    return {"mutants": len(results), **counts}


def report_json(work: Plan, results: Sequence[Result], reviewed: Reviewed, options: GateOptions, *,
                baseline_seconds: float, jobs: int | None, specs: Sequence[str] | None = None,
                scheduler: str | None = None) -> dict[str, Any]:
    """The ``dpverify mutate --json`` document (schema ``dpverify.mutate/2``); ``jobs`` is None
    when a Dask cluster (at ``scheduler``) decided how many ran at a time."""
    refuted = [r for r in results if r.reason is not None and r.status != EQUIVALENT]
    problems = [r for r in results if r.status in (SURVIVED, *OTHER)]
    by_check: dict[str, int] = {}
    for result in results:
        for check in sorted({k.check for k in result.kills if result.status == KILLED}):
            by_check[check] = by_check.get(check, 0) + 1
    return {
        "schema": MUTATE_SCHEMA,
        "passed": not problems and not refuted and not work.stale,
        "gate": {"command": options.command(), "seed": options.seed, "timeout": options.timeout,
                 "baseline_seconds": round(baseline_seconds, 2), "jobs": jobs, "scheduler": scheduler,
                 "specs_per_mutant": "every spec" if specs is None else "the specs that run the mutated function",
                 "specs": None if specs is None else list(specs)},
        "modules": [{"module": t.module, "file": str(t.file), "generated": sum(m.module == t.module for m in work.mutants),
                     **_counts([r for r in results if r.mutant.module == t.module])} for t in work.targets],
        "totals": {"generated": len(work.mutants), "skipped_in_reviewed_functions": work.skipped, **_counts(results)},
        "killed_by_check": dict(sorted(by_check.items(), key=lambda item: (-item[1], item[0]))),
        "equivalents": {
            "file": reviewed.path,
            "stale": [entry.to_json() for entry in work.stale],
            "refuted": [{"id": r.mutant.id, "status": r.status, "reason": r.reason} for r in refuted],
            "skips": [skip.to_json() for skip in reviewed.skips],
        },
        "mutants": [r.to_json() for r in results],
    }


def report_text(document: dict[str, Any]) -> str:
    """The human report: the table per module, then what needs attention."""
    totals, gate = document["totals"], document["gate"]
    scope = ("" if gate["specs"] is None else
             f"; each mutant runs the specs that run its function, of {len(gate['specs'])}")
    where = (f"on the Dask cluster at {gate['scheduler']}" if gate.get("scheduler") else f"{gate['jobs']} at a time")
    lines = [f"dpverify mutate: {len(document['modules'])} module(s), {totals['mutants']} of {totals['generated']} "
             f"mutants run ({where}); gate: {gate['command']}{scope} "
             f"(unmodified code: {gate['baseline_seconds']:.1f} s)"]
    width = max([len("total"), *(len(m["module"]) for m in document["modules"])])
    lines.append(f"{'module':<{width}}  mutants  killed  equivalent  survived  other")
    for row in [*document["modules"], {"module": "total", **totals}]:
        other = sum(row[s] for s in OTHER)
        lines.append(f"{row['module']:<{width}}  {row['mutants']:>7}  {row[KILLED]:>6}  {row[EQUIVALENT]:>10}  "
                     f"{row[SURVIVED]:>8}  {other:>5}")
    if document["killed_by_check"]:
        lines.append("killed by: " + ", ".join(f"{check} {n}" for check, n in document["killed_by_check"].items()))
    mutants = document["mutants"]
    survivors = [m for m in mutants if m["status"] == SURVIVED]
    if survivors:
        lines.append(f"\nsurvived ({len(survivors)}): no check saw the change; add a case or a check that does, or "
                     f"review it as equivalent in {document['equivalents']['file'] or EQUIVALENTS_FILE}")
        for m in survivors:
            lines += [f"  {m['id']}", f"      {m['description']}", f"      mutated: {m['mutated_line']}"]
            if m["detail"]:
                lines.append(f"      {m['detail']}")
    others = [m for m in mutants if m["status"] in OTHER]
    if others:
        lines.append(f"\ncaught without a verdict ({len(others)}): broken (exit 2), crashed or timed out")
        for m in others:
            lines += [f"  {m['id']}", f"      {m['description']}", f"      {m['status']}: {m['detail']}"]
    equivalents = document["equivalents"]
    for entry in equivalents["stale"]:
        what = entry.get("id") or f"{entry['module']}:{entry['function']}"
        lines.append(f"stale entry in {equivalents['file']}: {what} matches no mutant of {entry['module']}; "
                     f"remove or update it")
    for entry in equivalents["refuted"]:
        lines.append(f"listed as equivalent in {equivalents['file']} but {entry['status']}: {entry['id']}")
    counts = [f"{totals[s]} {s}" for s in (SURVIVED, *OTHER) if totals[s]]
    counts += [f"{len(equivalents[k])} {k} entries" for k in ("stale", "refuted") if equivalents[k]]
    verdict = "PASS" if document["passed"] else "FAIL"
    lines.append(f"\n{totals[KILLED]} killed, {totals[EQUIVALENT]} reviewed equivalent"
                 f"{'; ' + ', '.join(counts) if counts else ''}: {verdict}")
    return "\n".join(lines)


def list_text(work: Plan, chosen: Sequence[Mutant], reviewed: Reviewed) -> Iterator[str]:
    """``dpverify mutate --list``: one line per mutant, then the count."""
    for mutant in chosen:
        listed = " [reviewed equivalent]" if reviewed.reason(mutant.id) is not None else ""
        yield f"{mutant.id}  {mutant.description}{listed}"
    skipped = f"; {work.skipped} more in functions the reviewed file skips" if work.skipped else ""
    yield f"{len(chosen)} of {len(work.mutants)} mutants in {len(work.targets)} module(s){skipped}"
