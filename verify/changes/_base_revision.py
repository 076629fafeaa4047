"""A git revision of the repository, extracted beside the working tree, and its modules imported
from there: the old code of a diff.

:class:`BaseRevision` runs ``git archive REV`` into a temporary directory (removed by
:meth:`BaseRevision.close`, on every exit path of a ``with`` block) and imports a module *as it
was at REV* under a distinct name, ``_dpverify_base_<commit>.<module>``, so the working tree's
module of the same name, already imported or not, is never replaced in :data:`sys.modules`.

Which modules the old code sees.  An old module is executed with an ``__import__`` of its own:
each module it imports whose file lies in the repository and is *stale* is the old copy
(loaded the same way, recursively): its code differs at REV (docstrings, comments and formatting
do not count, as for a certificate's fingerprint), or a module it imports is stale (so an
unchanged module over a changed helper is old too); every other module, an unchanged file of the
repository whose imports are unchanged, the standard library, an installed
package, is the one already in use.  So the old code runs
against its own changed helpers while sharing every unchanged class (a ``RandomSource``, an
error type) with the new code.  What the hook cannot redirect is reported as a limit, not
hidden: ``import a.b`` followed by ``a.b.f()`` reaches the working tree's ``a.b``, since the
statement binds the package ``a``; ``from a import b`` and ``from a.b import f`` are redirected;
a package's ``__init__`` is stale only when its own file changed, so a function it re-exports
from a changed module (``from a import f`` with ``f`` defined in ``a.b``) is the new one.
"""

from __future__ import annotations

import builtins
import importlib.util
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from dpverify.samplers import DpverifyError, InvalidArgument
from dpverify.proofs._fingerprint import module_code
from dpverify.samplers._rational import shown

__all__ = ["BaseRevision", "module_file_of", "repository_root"]

#: How long a git command may take before the revision is called unreadable.
GIT_TIMEOUT_S = 120


def _git(arguments: list[str], cwd: Path, *, text: bool = True) -> subprocess.CompletedProcess[Any]:
    try:
        return subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, text=text, timeout=GIT_TIMEOUT_S,
                              check=False)
    except FileNotFoundError:
        raise InvalidArgument("--base needs git on the PATH; it was not found.") from None
    except subprocess.TimeoutExpired:
        raise DpverifyError(f"git {arguments[0]} took more than {GIT_TIMEOUT_S} s in {cwd}.") from None


def repository_root(where: Path | str | None = None) -> Path:
    """The top of the git working tree that holds ``where`` (default: the current directory)."""
    where = Path.cwd() if where is None else Path(where)
    found = _git(["rev-parse", "--show-toplevel"], where)
    if found.returncode != 0:
        raise InvalidArgument(f"--base needs a git repository; the directory {shown(str(where))} is not in one "
                              "(run dpverify from the repository's checkout).")
    return Path(found.stdout.strip()).resolve()


class BaseRevision:
    """The repository at ``revision``: its files in a temporary directory, its modules importable
    from there (see the module docstring).  Use it in a ``with`` block, or call :meth:`close`."""

    def __init__(self, revision: str, root: Path | str | None = None) -> None:
        if not isinstance(revision, str) or not revision or revision.startswith("-") or len(revision) > 200:
            raise InvalidArgument(f"base must name a git revision, such as HEAD~1 or a commit; got base={shown(revision)}.")
        self.root = repository_root(root)
        found = _git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], self.root)
        if found.returncode != 0:
            hint = (" A CI checkout needs history: fetch-depth: 0 (or at least 2 for HEAD~1)."
                    if "~" in revision or "^" in revision else "")
            raise InvalidArgument(f"base must name a commit of the repository at {self.root}; got base={shown(revision)}, "
                                  f"which git does not know.{hint}")
        self.revision = revision
        self.commit = found.stdout.strip()
        self.token = f"_dpverify_base_{self.commit[:12]}"
        self.directory = Path(tempfile.mkdtemp(prefix="dpverify-base-"))
        self._loaded: dict[str, ModuleType] = {}
        self._changed: dict[str, ModuleType | None] = {}
        self._stale_cache: dict[str, bool] = {}
        try:
            archive = _git(["archive", "--format=tar", self.commit], self.root, text=False)
            if archive.returncode != 0:
                raise DpverifyError(f"git archive {self.commit[:12]} failed: "
                                    f"{archive.stderr.decode(errors='replace').strip()[:200]}")
            with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
                tar.extractall(self.directory, filter="data")
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> BaseRevision:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Forget the old modules and remove the extracted tree (safe to call twice)."""
        for name in [n for n in sys.modules if n == self.token or n.startswith(self.token + ".")]:
            del sys.modules[name]
        self._loaded.clear()
        self._changed.clear()
        self._stale_cache.clear()
        shutil.rmtree(self.directory, ignore_errors=True)

    # --- files --------------------------------------------------------------------------------

    def relative(self, path: Path | str) -> Path | None:
        """``path`` relative to the working tree's root, or None when it lies outside it."""
        try:
            return Path(path).resolve().relative_to(self.root)
        except ValueError:
            return None

    def old_file(self, path: Path | str) -> Path | None:
        """The file at REV that stands where ``path`` (a working-tree file) stands; None if none."""
        relative = self.relative(path)
        if relative is None:
            return None
        old = self.directory / relative
        return old if old.is_file() else None

    # --- modules ------------------------------------------------------------------------------

    def module(self, name: str) -> ModuleType:
        """The module ``name`` as it was at REV (unchanged modules too: the old file is executed)."""
        path = module_file_of(name)
        if path is None:
            raise InvalidArgument(f"module {shown(name)} cannot be found in the working tree, so it cannot be read "
                                  "at the base revision either.")
        old = self.old_file(path)
        if old is None:
            where = "is not a file of the repository" if self.relative(path) is None else f"did not exist at {self.revision}"
            raise InvalidArgument(f"module {shown(name)} ({path}) {where}; nothing to compare it with.")
        return self._load(name, old)

    def _load(self, name: str, path: Path) -> ModuleType:
        if name in self._loaded:
            return self._loaded[name]
        package = path.name == "__init__.py"
        spec = importlib.util.spec_from_file_location(
            f"{self.token}.{name}", path, submodule_search_locations=[str(path.parent)] if package else None)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        module.__dict__["__builtins__"] = {**builtins.__dict__, "__import__": self._importer(name, package)}
        self._loaded[name] = module
        sys.modules[spec.name] = module  # under the distinct name only: dataclasses and pickling look it up
        try:
            spec.loader.exec_module(module)
        except BaseException as error:
            del self._loaded[name]
            sys.modules.pop(spec.name, None)
            if isinstance(error, Exception):
                raise InvalidArgument(f"module {shown(name)} at {self.revision} does not import: "
                                      f"{type(error).__name__}: {str(error)[:200]}") from None
            raise
        return module

    def _changed_module(self, name: str) -> ModuleType | None:
        """The old copy of ``name`` when it is stale at REV (:meth:`_stale`), else None."""
        if name not in self._changed:
            self._changed[name] = None
            if self._stale(name, set()):
                path = module_file_of(name)
                self._changed[name] = self._load(name, self.old_file(path))  # type: ignore[arg-type]
        return self._changed[name]

    def _stale(self, name: str, visiting: set[str]) -> bool:
        """Whether the old code must get its own copy of ``name``: its code in the repository
        differs at REV (an edited docstring does not make an old copy, whose classes would differ
        from the new code's), or (for a module, not a package) one it imports at REV is stale.
        Sharing an unchanged module whose imports changed would run the *new* helpers under the old name
        (an unchanged ``discrete_gaussian`` over a changed ``discrete_laplace``), and the diff
        would compare the new code with itself.  A package's ``__init__`` counts only by its own
        file, since it mostly re-exports: see the module docstring's limits."""
        if name in self._stale_cache:
            return self._stale_cache[name]
        path = module_file_of(name)
        old = None if path is None else self.old_file(path)
        if old is None:
            return False
        if name in visiting:  # an import cycle: decided by the other modules on it
            return False
        visiting.add(name)
        stale = old.read_bytes() != path.read_bytes() and (  # type: ignore[union-attr]
            module_code(old) is None or module_code(old) != module_code(path))  # type: ignore[arg-type]
        if not stale and old.name != "__init__.py":
            stale = any(self._stale(imported, visiting) for imported in _imports(old, name))
        visiting.discard(name)
        self._stale_cache[name] = stale
        return stale

    def _importer(self, own: str, package: bool) -> Any:
        """The ``__import__`` of the old module ``own``."""
        token = self.token
        own_package = own if package else own.rpartition(".")[0]

        def old_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
            if level:
                absolute = importlib.util.resolve_name("." * level + name, own_package)
            else:
                absolute = name
            if absolute.startswith(token):
                return builtins.__import__(absolute, globals, locals, fromlist, 0)
            if fromlist or "." not in absolute:
                old = self._changed_module(absolute)
                if old is None and fromlist:
                    current = builtins.__import__(absolute, None, None, fromlist, 0)
                    parts = {item: self._changed_module(f"{absolute}.{item}") for item in fromlist if item != "*"}
                    parts = {item: module for item, module in parts.items() if module is not None}
                    if not parts:
                        return current
                    # ``from package import changed_submodule``: a private view of the package
                    view = ModuleType(current.__name__)
                    view.__dict__.update(current.__dict__)
                    view.__dict__.update(parts)
                    return view
                if old is not None:
                    return old
            return builtins.__import__(absolute, globals, locals, fromlist, 0)

        return old_import


def _imports(path: Path, name: str) -> set[str]:
    """The absolute names of the modules the file ``path`` (module ``name``) imports: each
    ``import a.b`` and ``from a import b`` names ``a.b``; ``from a import f`` names ``a``."""
    import ast

    package = name.rpartition(".")[0]
    found: set[str] = set()
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            try:
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level \
                    else node.module or ""
            except ImportError:
                continue
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return {module for module in found if module and module_file_of(module) is not None}


def module_file_of(name: str) -> Path | None:
    """The source file of the importable module ``name`` in the working tree's environment."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)
