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

from dpverify.samplers import DpverifyError, SeededRandomSource
from dpverify.specs._api import Attempt, Randomness, Spec
from dpverify.verify.changes._base_revision import module_file_of
from dpverify.verify.changes._diff import DiffOptions, SpecDiff, diff_sides
from dpverify.verify.changes._diff_versions import _side, old_of
from dpverify.verify import engine as engine_package
from dpverify.verify.engine._program_state import driver_files
from dpverify.verify.gate._spec_checks import _Instance
from dpverify.verify.gate import _time_bound as time_bound_module
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
    """``(file, qualified name)`` of the repository's functions that ``spec``'s sampler (and its
    declared attempt) enter on its cases, each case run with :data:`TRACE_SEEDS` seeds.  A nested
    function counts as its enclosing function, whose fingerprint covers it."""
    called: set[tuple[str, str]] = set()
    enumeration = spec.enumeration_for()
    for case in spec.cases:
        try:
            instance = _Instance(spec, spec.bind(case), spec.name, seed=0, samples=1)
        except Exception:  # noqa: BLE001 - a broken case is check's to report
            continue
        q = None if instance.inputs is None else instance.inputs[0]
        functions = [None, enumeration.attempt] if isinstance(enumeration, Attempt) else [None]
        for function in functions:
            for seed in range(TRACE_SEEDS):
                with _profiled(called):
                    try:
                        with time_bound(10):
                            instance.run(q, SeededRandomSource(seed), function)
                    except (Exception, CaseTimeUp):  # noqa: BLE001 - tracing is best effort
                        pass
    harness = _harness_files()
    found = set()
    for filename, qualname in called:
        outer = qualname.split(".<locals>", 1)[0]
        if "<" not in outer and os.path.isabs(filename) and os.path.isfile(filename) \
                and base.relative(filename) is not None and os.path.abspath(filename) not in harness:
            found.add((filename, outer))
    return found


def _harness_files() -> frozenset[str]:
    """The files of the code that runs a sampler, not the sampler's: the engine package, the
    drivers suspended around every execution, the time bound and this tracer.  A change there is
    the engine's (the gate checks it), and is no reason to run the old sampler code."""
    engine = Path(engine_package.__file__).resolve().parent
    return frozenset(os.path.abspath(f) for f in (
        *driver_files(), time_bound_module.__file__, __file__, *map(str, engine.glob("*.py"))))


def changed_functions(spec: Spec, base: Any) -> tuple[str, ...]:
    """The functions ``spec``'s sampler runs whose normalised syntax tree differs at ``base``
    (:mod:`dpverify.proofs._fingerprint`: comments, docstrings and formatting do not count)."""
    # proofs/ builds on verify/; only the application layer reads it, and lazily.
    from dpverify.proofs._fingerprint import FingerprintError, fingerprint_in_file

    changed = []
    for filename, qualname in sorted(functions_run(spec, base)):
        where = f"{base.relative(filename)}:{qualname}"
        old = base.old_file(filename)
        if old is None:
            changed.append(f"{where} (new file)")
            continue
        try:
            before = fingerprint_in_file(old, qualname)
        except FingerprintError:
            changed.append(f"{where} (new function)")
            continue
        try:
            if fingerprint_in_file(filename, qualname) != before:
                changed.append(where)
        except FingerprintError:
            continue  # defined dynamically (a wrapper's name): its enclosing code is traced too
    return tuple(changed)


def diff_changed_specs(found: Sequence[Any], base: Any, options: DiffOptions) -> list[SpecDiff]:
    """``check --base``: each found spec whose sampler's code changed since ``base``, compared
    with its old version on its cases; the others listed as unchanged."""
    results = []
    for item in found:
        spec = item.spec
        if spec.sampler is None or Randomness(spec.randomness) is Randomness.NONE:
            results.append(SpecDiff(spec.name, "", "", status="not comparable",
                                    reason="no sampler whose draws can be enumerated"))
            continue
        module_file = module_file_of(getattr(spec.sampler, "__module__", "") or "")
        if module_file is None or base.relative(module_file) is None:
            results.append(SpecDiff(spec.name, "", spec.name, status="outside",
                                    reason=f"its sampler's module ({module_file or '?'}) is not a file of the repository at "
                                           f"{base.root} (an installed package; install this checkout with pip install -e .)"))
            continue
        changed = changed_functions(spec, base)
        new = _side(spec, spec.name)
        if not changed:
            results.append(SpecDiff(spec.name, f"{spec.name} at {base.revision}", spec.name, status="unchanged",
                                    reason="no function its sampler runs changed"))
            continue
        if base.old_file(module_file) is None:
            results.append(SpecDiff(spec.name, "", spec.name, changed=changed, status="new",
                                    reason=f"its sampler's module did not exist at {base.revision}; nothing to compare"))
            continue
        try:
            old = old_of(new, base, f"{spec.name} at {base.revision}")
        except DpverifyError as error:
            results.append(SpecDiff(spec.name, f"{spec.name} at {base.revision}", spec.name, changed=changed,
                                    status="unreadable", reason=str(error)))
            continue
        results.append(diff_sides(old, new, options=replace(options, search_examples=0), changed=changed))
    return results
