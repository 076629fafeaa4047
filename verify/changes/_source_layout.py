"""Where a module's source lives in the repository, however the package is installed.

``check --base`` and ``diff --base`` compare the repository's working tree with a revision, and
both must be read from the repository itself: with ``pip install .`` the interpreter runs a copy
in ``site-packages``, which is not a file of the repository, and may even be older than the
working tree.  :class:`SourceLayout` maps an importable module name to its path in the
repository, in this order:

1. the module's file as imported, when it lies in the repository and git does not ignore it
   (an editable install, or a project's modules next to where dpverify runs);
2. the project's own declaration in ``pyproject.toml``: setuptools' ``package-dir`` (``{"": "src"}``,
   ``{"pkg.part": "part"}``) and ``packages.find``'s ``where``;
3. the usual layouts, ``src/<package>/...`` and ``<package>/...`` at the root.

A candidate counts only if it is a file of the repository: tracked by git, or untracked and not
ignored (``git ls-files --cached --others --exclude-standard``), so a virtual environment inside
the checkout is never taken for the source.  A module none of these find is *outside* the
repository, and its spec is reported as not compared.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = ["SourceLayout", "module_file_of"]

#: How long listing the repository's files may take.
LIST_TIMEOUT_S = 120


def module_file_of(name: str) -> Path | None:
    """The source file of the importable module ``name`` as this interpreter would import it."""
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", None) if module is not None else None
    if origin is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        origin = None if spec is None else spec.origin
    if not origin or not str(origin).endswith(".py"):
        return None
    return Path(origin)


class SourceLayout:
    """The repository at ``root``: its files, and where each module's source is (module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.files = _repository_files(self.root)
        self.mappings = _declared_mappings(self.root)
        self._relative: dict[str, PurePosixPath | None] = {}
        self._installed: dict[str, str | None] = {}

    def is_repository_file(self, relative: PurePosixPath | str) -> bool:
        return str(PurePosixPath(relative)) in self.files

    def inside(self, path: Path | str) -> PurePosixPath | None:
        """``path`` relative to the root when it is a file of the repository, else None."""
        try:
            relative = PurePosixPath(Path(os.path.realpath(path)).relative_to(self.root).as_posix())
        except ValueError:
            return None
        return relative if self.is_repository_file(relative) else None

    def relative_path(self, name: str) -> PurePosixPath | None:
        """The repository path of module ``name``'s source, or None when it is not in the repository."""
        if name not in self._relative:
            self._relative[name] = self._find(name)
        return self._relative[name]

    def _find(self, name: str) -> PurePosixPath | None:
        if not name or name.startswith((".", "_dpverify_")):
            return None  # a source tree's private copy is no module of the repository
        imported = module_file_of(name)
        if imported is not None:
            found = self.inside(imported)
            if found is not None:
                return found
        package = imported is not None and imported.name == "__init__.py"
        for prefix, directory in self.mappings:
            if name != prefix and not name.startswith(prefix + ".") and prefix:
                continue
            rest = [part for part in name[len(prefix) :].split(".") if part] if prefix else name.split(".")
            base = PurePosixPath(directory, *rest) if rest else PurePosixPath(directory)
            candidates = (
                [base / "__init__.py"] if not rest else [base.with_name(base.name + ".py"), base / "__init__.py"]
            )
            if package:
                candidates.reverse()
            for candidate in candidates:
                # through a link (src/dpverify/samplers -> ../../samplers): the file git tracks
                found = self.inside(self.root / os.path.normpath(candidate))
                if found is not None:
                    return found
        return None

    def locate(self, filename: str) -> PurePosixPath | None:
        """The repository path of a file the interpreter ran: a file of the working tree, or an
        installed copy of one (found by the module it belongs to); None for anything else."""
        found = self.inside(filename)
        if found is not None:
            return found
        name = self._module_of(filename)
        return None if name is None else self.relative_path(name)

    def _module_of(self, filename: str) -> str | None:
        key = os.path.realpath(filename)
        if key not in self._installed:
            for name, module in list(sys.modules.items()):
                origin = getattr(module, "__file__", None)
                if isinstance(origin, str) and not name.startswith("_dpverify_"):
                    self._installed.setdefault(os.path.realpath(origin), name)
            self._installed.setdefault(key, None)  # no module's file (frozen, exec'd): not looked up again
        return self._installed[key]


def _repository_files(root: Path) -> frozenset[str]:
    """The repository's files, relative to ``root``: tracked, or untracked and not ignored."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            timeout=LIST_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    if listed.returncode != 0:
        return frozenset()
    return frozenset(name for name in listed.stdout.decode("utf-8", errors="replace").split("\0") if name)


def _declared_mappings(root: Path) -> tuple[tuple[str, str], ...]:
    """``(module prefix, directory)`` pairs, the longest prefix first: the project's own
    ``pyproject.toml`` declaration, then ``src/`` and the root."""
    declared: dict[str, str] = {}
    try:
        project: dict[str, Any] = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        project = {}
    setuptools = project.get("tool", {}).get("setuptools", {})
    package_dir = setuptools.get("package-dir", {})
    if isinstance(package_dir, dict):
        declared.update({str(k): str(v) for k, v in package_dir.items() if isinstance(v, str)})
    packages = setuptools.get("packages", {})
    found = packages.get("find", {}) if isinstance(packages, dict) else {}
    where = found.get("where", []) if isinstance(found, dict) else []
    pairs = sorted(declared.items(), key=lambda item: -len(item[0]))
    pairs += [("", str(w)) for w in (where if isinstance(where, list) else [where]) if isinstance(w, str)]
    pairs += [("", "src"), ("", ".")]
    return tuple(dict.fromkeys((prefix, os.path.normpath(directory)) for prefix, directory in pairs))
