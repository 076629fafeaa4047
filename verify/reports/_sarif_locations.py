"""Where a SARIF result points: a file of the repository and a line in it.

A viewer (GitHub code scanning, an editor's SARIF panel) shows a result on a file of the checked
out repository, named by a path relative to its root.  The code dpverify runs is often not that
file: ``pip install .`` copies a package into ``site-packages``.  :class:`Locator` maps a file
back to the repository's copy by its module path (``own_sampler/sampler.py`` is found as
``src/own_sampler/sampler.py`` or ``own_sampler/sampler.py``), and only when the two files are
byte for byte the same, so that a line number read from the running code is the line of the
repository's file.  A file it cannot map keeps its absolute ``file://`` URI: the result is still
valid SARIF, and no viewer is shown a line of a different file.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

__all__ = ["Locator", "SourceRegion", "changed_lines", "function_region"]

#: Seconds a ``git`` query may take; past it the locator works without git.
GIT_SECONDS = 10
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


@dataclass(frozen=True)
class SourceRegion:
    """Lines ``start``..``end`` (1-based, inclusive) of ``file`` (an absolute path)."""

    file: str
    start: int
    end: int

    def at(self, line: int) -> SourceRegion:
        return SourceRegion(self.file, line, line)


def _git(root: Path, *words: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *words], cwd=root, capture_output=True, text=True, timeout=GIT_SECONDS, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def repository_root(start: Path | None = None) -> Path:
    """The root of the git work tree holding ``start`` (default: the working directory), or
    ``start`` itself outside git."""
    here = (start or Path.cwd()).resolve()
    top = _git(here, "rev-parse", "--show-toplevel")
    return Path(top.strip()).resolve() if top and top.strip() else here


class Locator:
    """Repository-relative URIs for the files and functions a result points at."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = repository_root(root)

    @cached_property
    def _tracked(self) -> frozenset[str]:
        listed = _git(self.root, "ls-files", "-z", "--", "*.py")
        return frozenset(name for name in (listed or "").split("\0") if name)

    def uri(self, file: str, module: str | None = None) -> tuple[str, bool]:
        """``(uri, relative)``: ``file``'s path relative to the root when it is a file of the
        repository (or the same bytes as the repository's copy of ``module``), else its
        absolute ``file://`` URI and False."""
        real = Path(os.path.realpath(file))
        try:
            inside: str | None = real.relative_to(self.root).as_posix()
        except ValueError:
            inside = None
        if inside is not None and (not self._tracked or inside in self._tracked):
            return inside, True
        # outside the work tree, or untracked inside it (a virtual environment in the checkout)
        copy = self._repository_copy(real, module)
        if copy is not None:
            return copy, True
        return (inside, True) if inside is not None else (real.as_uri(), False)

    def _repository_copy(self, real: Path, module: str | None) -> str | None:
        if not module:
            return None
        parts = module.split(".")
        ending = [*parts, "__init__.py"] if real.name == "__init__.py" else [*parts[:-1], f"{parts[-1]}.py"]
        try:
            content = real.read_bytes()
        except OSError:
            return None
        # The longest module path any tracked file ends with (at least a folder and a file, unless
        # the module is top-level); a unique, identical file only.
        for drop in range(max(len(ending) - 1, 1)):
            suffix = "/".join(ending[drop:])
            matches = [name for name in self._tracked if name == suffix or name.endswith("/" + suffix)]
            if matches:
                same = [name for name in matches if _read(self.root / name) == content]
                return same[0] if len(same) == 1 else None
        return None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def changed_lines(root: Path, relative: str, revision: str) -> tuple[int, ...]:
    """Lines of the working tree's file ``relative`` (under ``root``) added or changed since
    ``revision``, from ``git diff -U0``; a deletion counts as the line after it."""
    text = _git(root, "diff", "-U0", "--no-color", "--no-ext-diff", revision, "--", relative)
    lines: list[int] = []
    for match in _HUNK.finditer(text or ""):
        start, count = int(match.group(1)), int(match.group(2) or 1)
        lines.extend(range(start, start + count) if count else (max(start, 1),))
    return tuple(lines)


def function_region(function: Any) -> SourceRegion | None:
    """The lines of ``function``'s definition (decorators included), through any wrappers that
    keep ``__wrapped__``; None for a builtin or code with no source file."""
    try:
        target = inspect.unwrap(function)
        file = inspect.getsourcefile(target)
        lines, start = inspect.getsourcelines(target)
    except (TypeError, OSError, ValueError):
        return None
    if file is None:
        return None
    start = max(start, 1)
    return SourceRegion(os.path.realpath(file), start, start + max(len(lines), 1) - 1)


def definition_region(file: str, qualname: str) -> SourceRegion | None:
    """The lines of the function or class ``qualname`` (``Class.method``, ``f.<locals>.g``)
    defined in ``file``, read from its syntax tree."""
    try:
        tree = ast.parse(Path(file).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    body: list[ast.stmt] = tree.body
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None = None
    for name in (part for part in qualname.split(".") if part != "<locals>"):
        node = next(
            (
                item
                for item in body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and item.name == name
            ),
            None,
        )
        if node is None:
            return None
        body = node.body
    if node is None:
        return None
    decorators = getattr(node, "decorator_list", ())
    start = min([node.lineno, *(d.lineno for d in decorators)])
    return SourceRegion(os.path.realpath(file), start, node.end_lineno or start)


def module_of(file: str) -> str | None:
    """The name of the loaded module whose file is ``file``."""
    real = os.path.realpath(file)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and os.path.realpath(path) == real:
            return name
    return None
