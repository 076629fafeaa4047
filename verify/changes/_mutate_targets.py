"""What ``dpverify mutate`` mutates: each module located and laid out as its copy holds it (dpverify's
parts assembled into one package), and the plan of their mutants.  Its own module: the copies, the
report and the layers test (which lints such an assembled package) all start from it."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify.changes._mutants import Mutant, mutants_of
from dpverify.verify.changes._mutate_equivalents import Equivalent, Reviewed, Skip

__all__ = [
    "Plan",
    "Target",
    "assemble_package",
    "default_modules",
    "locate",
    "plan",
    "select",
]

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
    return tuple(
        f"dpverify.samplers.{path.stem}"
        for path in sorted(folder.glob("*.py"))
        if path.name not in _NOT_MUTATED and not path.stem.endswith("_unsafe")
    )


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
        raise DpverifyError(
            f"cannot find module {shown(name)}: {type(error).__name__}: {shown(str(error), 120)}"
        ) from None
    if spec is None:
        raise DpverifyError(f"no module named {shown(name)}; MODULE must be importable from the current directory.")
    if spec.origin is None or not spec.origin.endswith(".py") or not os.path.isfile(spec.origin):
        raise DpverifyError(f"MODULE must be a Python source file; {shown(name)} is {shown(spec.origin)}.")
    file = Path(spec.origin).resolve()
    top = name.split(".")[0]
    if top == "dpverify":
        parts = _dpverify_parts()
        part = max(
            (p for p, folder in parts.items() if file.is_relative_to(folder)),
            key=lambda p: len(parts[p].parts),
            default=None,
        )
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
    stale += [
        s
        for s in reviewed.skips
        if s.module in modules
        and not any(
            module == s.module and (function == s.function or function.startswith(f"{s.function}."))
            for module, function in functions
        )
    ]
    return Plan(tuple(targets), tuple(kept), len(every) - len(kept), tuple(stale))


def select(mutants: Sequence[Mutant], *, only: Sequence[str] = (), limit: int | None = None) -> tuple[Mutant, ...]:
    """The mutants whose id starts with one of ``only`` (all when empty), at most ``limit`` of them."""
    chosen = [m for m in mutants if not only or any(m.id.startswith(prefix) for prefix in only)]
    unmatched = [prefix for prefix in only if not any(m.id.startswith(prefix) for m in mutants)]
    if unmatched:
        raise DpverifyError(f"no mutant id starts with {shown(unmatched[0])}; dpverify mutate --list shows the ids.")
    return tuple(chosen if limit is None else chosen[:limit])
