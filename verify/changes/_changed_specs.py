"""``check --base``: which specs' samplers run code that changed since the base revision, each
such spec diffed against its old version.  Tracing and fingerprinting the code is its own work,
apart from comparing two versions once chosen.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from dpverify import _channel
from dpverify.proofs._fingerprint import FingerprintError
from dpverify.samplers import DpverifyError, SeededRandomSource
from dpverify.specs._api import Attempt, Randomness, Spec
from dpverify.verify import engine as engine_package
from dpverify.verify.changes._diff import DiffOptions, SpecDiff, diff_sides
from dpverify.verify.changes._diff_versions import Side, _current_enumeration, new_of, old_of
from dpverify.verify.changes._reads import function_reads
from dpverify.verify.changes._source_layout import module_file_of
from dpverify.verify.engine._arguments import elided
from dpverify.verify.engine._program_state import driver_files
from dpverify.verify.gate import _time_bound as time_bound_module
from dpverify.verify.gate._spec_checks import _Instance
from dpverify.verify.gate._time_bound import CaseTimeUp, time_bound

__all__ = ["TRACE_SEEDS", "changed_functions", "diff_changed_specs", "functions_run"]


# --- check --base: which specs changed ------------------------------------------------------------------


@contextmanager
def _profiled(called: set[tuple[str, str]]) -> Iterator[None]:
    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            called.add((code.co_filename, code.co_qualname))

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        yield
    finally:
        sys.setprofile(previous)


#: Seeds each case's sampler is traced with, so branches taken only on some draws are seen too.
TRACE_SEEDS = 8


def functions_run(spec: Spec, base: Any) -> set[tuple[str, str]]:
    """``(repository path, qualified name)`` of the repository's functions that ``spec``'s sampler
    (and its declared attempt) enter on its cases, each case run with :data:`TRACE_SEEDS` seeds,
    plus the sampler and attempt themselves (a sampler that fails before entering anything is
    still compared).  A file the interpreter ran counts by its path in the repository, also when
    it ran from an installed copy.  A nested function counts as its enclosing function, whose
    tree covers it."""
    called: set[tuple[str, str]] = set()
    enumeration = spec.enumeration_for()
    attempt = enumeration.attempt if isinstance(enumeration, Attempt) else None
    for case in spec.cases:
        try:
            instance = _Instance(spec, spec.bind(case), spec.name, seed=0, samples=1)
        except Exception:  # noqa: BLE001 - a broken case is check's to report
            continue
        q = None if instance.inputs is None else instance.inputs[0]
        for function in (None, attempt) if attempt is not None else (None,):
            for seed in range(TRACE_SEEDS):
                with _profiled(called):
                    try:
                        with time_bound(10):
                            instance.run(q, SeededRandomSource(seed), function)
                    except (Exception, CaseTimeUp):  # noqa: BLE001 - tracing is best effort
                        pass
    for function in (spec.sampler, attempt):
        code = getattr(function, "__code__", None)
        if code is not None:
            called.add((code.co_filename, code.co_qualname))
    harness = _harness_files()
    found = set()
    for filename, qualname in called:
        outer = qualname.split(".<locals>", 1)[0]
        if "<" in outer or os.path.realpath(filename) in harness:
            continue
        relative = base.relative(filename)
        if relative is not None:
            found.add((str(relative), outer))
    return found


def _harness_files() -> frozenset[str]:
    """The files of the code that runs a sampler, not the sampler's: the engine package, the
    drivers suspended around every execution, the time bound, the supervisor's channel it reports
    to, and this tracer.  A change there is the engine's (the gate checks it), and is no reason to
    run the old sampler code."""
    engine = Path(engine_package.__file__).resolve().parent
    harness = (*driver_files(), time_bound_module.__file__, _channel.__file__, __file__)
    return frozenset(os.path.realpath(f) for f in (*harness, *map(str, engine.glob("*.py"))))


def changed_functions(spec: Spec, base: Any) -> tuple[str, ...]:
    """The functions ``spec``'s sampler runs whose code, or what it reads (module constants,
    class attributes, imported and re-exported names: :mod:`~dpverify.verify.changes._reads`),
    differs between the working tree and ``base``, both read from the repository (comments,
    docstrings and formatting do not count)."""
    changed = []
    for key in sorted(functions_run(spec, base)):
        if key not in base.function_changes:
            base.function_changes[key] = _function_change(*key, base)
        if base.function_changes[key] is not None:
            changed.append(base.function_changes[key])
    return tuple(changed)


def _function_change(relative: str, qualname: str, base: Any) -> str | None:
    """How function ``qualname`` of file ``relative`` changed between ``base`` and the working
    tree (``file:function``, with what it reads when only that moved), or None."""
    where = f"{relative}:{qualname}"
    old, new = base.old.file(relative), base.new.file(relative)
    if old is None:
        return f"{where} (new file)"
    if new is None:
        return None  # ran, but not a file of the working tree (removed since): its module is what is compared
    try:
        before = function_reads(old, qualname, base.old.directory, base.old.file_of)
    except FingerprintError:
        return f"{where} (new function)"
    try:
        after = function_reads(new, qualname, base.new.directory, base.new.file_of)
    except FingerprintError:
        return None  # defined dynamically (a wrapper's name): its enclosing code is traced too
    if before.get(qualname) != after.get(qualname):
        return where
    if before != after:
        moved = sorted(label for label in {*before, *after} if before.get(label) != after.get(label))
        return f"{where} (reads {elided(', '.join(moved), 160)})"
    return None


def diff_changed_specs(found: Sequence[Any], base: Any, options: DiffOptions) -> list[SpecDiff]:
    """``check --base``: each found spec whose sampler's code changed since ``base``, compared
    with its old version on its cases; the others listed as unchanged, or as not compared (with
    the reason and what to do)."""
    return [_changed_spec(item.spec, base, options) for item in found]


def _changed_spec(spec: Spec, base: Any, options: DiffOptions) -> SpecDiff:
    at = f"{spec.name} at {base.revision}"
    if spec.sampler is None:
        return SpecDiff(
            spec.name,
            "",
            "",
            status="no sampler",
            reason="the spec declares no sampler, so no sampler code can have changed (dpverify check "
            "runs its declared checks)",
        )
    module = getattr(spec.sampler, "__module__", "") or ""
    if base.layout.relative_path(module) is None:
        where = module_file_of(module)
        return SpecDiff(
            spec.name,
            "",
            spec.name,
            status="outside",
            reason=f"its sampler's module {module or '?'} ({where or 'no source file'}) is not a file of the "
            f"repository at {base.root}, by where it is imported from or by the project's source "
            "layout (pyproject.toml package-dir, src/, the root), so its change cannot be seen: run "
            "from the checkout of the repository that holds it, or check only your repository's "
            "specs (--spec-module M, --spec NAME)",
        )
    installed = _side_of(spec)
    try:
        new = new_of(installed, base)
    except DpverifyError as error:
        return SpecDiff(
            spec.name,
            at,
            spec.name,
            status="unreadable",
            reason=f"its sampler cannot be read from the working tree: {error}",
        )
    changed = changed_functions(
        replace(spec, sampler=new.sampler, enumeration=new.enumeration or spec.enumeration), base
    )
    if not changed:
        return SpecDiff(
            spec.name,
            at,
            spec.name,
            status="unchanged",
            reason="no function its sampler runs changed, nor anything those functions read",
        )
    if Randomness(spec.randomness) is Randomness.NONE:
        return SpecDiff(
            spec.name,
            "",
            spec.name,
            changed=changed,
            status="not comparable",
            reason="its sampler's code changed, but it is a black box (randomness='none'): its draws "
            "cannot be enumerated, so the two laws cannot be compared; dpverify check tests the "
            "new code statistically",
        )
    if base.old.file_of(module) is None:
        return SpecDiff(
            spec.name,
            "",
            spec.name,
            changed=changed,
            status="new",
            reason=f"its sampler's module did not exist at {base.revision}: there is no old version to "
            "compare (dpverify check verifies the new one against its spec)",
        )
    try:
        old = old_of(installed, base, at)
    except DpverifyError as error:
        return SpecDiff(spec.name, at, spec.name, changed=changed, status="unreadable", reason=str(error))
    if (old.sampler, _attempt(old)) == (new.sampler, _attempt(new)):
        return SpecDiff(
            spec.name,
            at,
            spec.name,
            changed=changed,
            status="unreadable",
            reason=f"its code changed, but the sampler read at {base.revision} is the working tree's own "
            "function (the change is reached in a way the old code's imports cannot redirect, such "
            "as import a.b then a.b.f()): comparing it with itself would prove nothing",
        )
    return diff_sides(old, new, options=replace(options, search_examples=0), changed=changed)


def _attempt(side: Side) -> Any:
    return side.enumeration.attempt if isinstance(side.enumeration, Attempt) else None


def _side_of(spec: Spec) -> Side:
    """The spec as one version of itself, black boxes included (their code is traced, not enumerated)."""
    assert spec.sampler is not None  # _changed_spec answers a spec without one before
    enumeration = spec.enumeration if Randomness(spec.randomness) is not Randomness.NONE else None
    return Side(spec.name, spec, spec.sampler, _current_enumeration(enumeration))
