"""Every public sampling entry point is verified by some spec of the catalogue.

A public sampling entry point is a function listed in the ``__all__`` of an exact sampler
module (``dpverify.samplers.*``, except the ``*_unsafe`` float samplers under audit) whose
signature takes ``rng``: the functions a user calls to draw.  Each must be run by the engine,
not only by unit tests: it must be the ``sampler``, the ``batch`` form or the ``Attempt`` of a
spec the gate checks.  A function added later without a spec fails this check, so the rule
does not depend on anyone remembering it.  (The random sources' own methods are verified by
their gate entries, ``system-source`` and ``seeded-source``.)
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterable
from typing import Any

from dpverify.specs import Attempt, Spec
from dpverify.verify.engine._results import CheckResult, Verdict

__all__ = ["check_entry_points", "public_entry_points"]


def public_entry_points() -> dict[str, Callable[..., Any]]:
    """``{"module.function": function}`` for every public sampling entry point."""
    import dpverify.samplers as package

    found: dict[str, Callable[..., Any]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_") or "unsafe" in info.name:
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name in getattr(module, "__all__", ()):
            function = getattr(module, name, None)
            if inspect.isfunction(function) and "rng" in inspect.signature(function).parameters:
                found[f"{info.name}.{name}"] = function
    return found


def _run_by(spec: Spec) -> Iterable[Callable[..., Any]]:
    yield from (f for f in (spec.sampler, spec.batch) if f is not None)
    if isinstance(spec.enumeration, Attempt):
        yield spec.enumeration.attempt


def check_entry_points(specs: Iterable[Spec]) -> CheckResult:
    """Proved iff every public sampling entry point is some spec's sampler, batch or attempt."""
    covered = {id(inspect.unwrap(f)) for spec in specs for f in _run_by(spec)}
    entry_points = public_entry_points()
    missing = sorted(name for name, function in entry_points.items() if id(inspect.unwrap(function)) not in covered)
    if missing:
        return CheckResult(
            "entry_points",
            Verdict.VIOLATED,
            f"{len(missing)} public sampling entry point(s) no spec runs: {', '.join(missing)}; declare each as a "
            "spec's sampler or batch form",
            evidence={"findings": [{"message": f"{name}: not run by any spec"} for name in missing]},
        )
    return CheckResult(
        "entry_points",
        Verdict.PROVED,
        f"all {len(entry_points)} public sampling entry points are run by a spec: {', '.join(sorted(entry_points))}",
        evidence={"entry_points": sorted(entry_points)},
    )
