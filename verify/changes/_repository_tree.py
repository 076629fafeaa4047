"""One source tree of the repository (the working tree, or a revision extracted beside it), its
modules imported under private names next to the ones in use.

:meth:`RepositoryTree.module` gives module ``name`` as it is in the tree's directory, under a
distinct name (``<token>.<name>``), so the module of the same name in use (imported, possibly
from an installed copy in ``site-packages``) is never replaced in :data:`sys.modules`.

Which modules the tree's code sees.  A module of the tree is executed with an ``__import__`` of
its own: each module it imports that is a file of the repository and is *stale* is the tree's
copy (loaded the same way, recursively): its code in the tree differs from the module in use
(docstrings, comments and formatting do not count, as for a certificate's fingerprint), or a
module it imports is stale (so an unchanged module over a changed helper is the tree's too).
Every other module, one whose code and imports are those in use, the standard library, a
package from outside the repository, is the one in use.  So the tree's code runs against its own
changed helpers while sharing every unchanged class (a ``RandomSource``, an error type) with the
code in use; and when the module in use *is* the tree's (an editable install and the working
tree), nothing is loaded twice.

The engine's interface.  The modules that define the classes the engine's own objects are
instances of or that it catches by class (:data:`ENGINE_CLASSES`: ``RandomSource``, which its
enumerating sources derive from, and the error classes) are stale by their own code only, never
through what they import.  A change to a helper they import (``samplers/_rational.py``, whose
``shown`` builds their error texts) would otherwise make them private copies, whose
``RandomSource`` is not the engine's: the tree's samplers would refuse every enumerating source
(``rng must be a RandomSource``) and a diff would report that as the old code failing, where
nothing in the distribution changed.  Shared, they run the helper in use, which only moves
their error texts.  When an interface module's own code did change (an edited docstring does
not count, any statement does: what the tree's code reaches in it is not traced), its copy is
the tree's, and :meth:`RepositoryTree.interface_reached` names it for every module that reaches
it through its imports, so that a diff reports that code as not comparable, never as violated.

Re-exports.  ``from package import f``, where the package's ``__init__`` re-exports ``f`` from a
stale submodule (``from .b import f``), gives the tree's ``f``: a private view of the package with
that name replaced (the package itself, mostly re-exports, is a copy only when its own file
changed).  A module with such an import is stale too.  What the hook cannot redirect is a limit,
stated where reported: ``import a.b`` followed by ``a.b.f()`` reaches the ``a.b`` in use, since
the statement binds the package ``a``.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from dpverify.proofs._fingerprint import module_code
from dpverify.samplers import DpverifyError, InvalidArgument, RandomSource, SamplerContractError
from dpverify.samplers._rational import shown
from dpverify.verify.changes._reads import top_level_statements
from dpverify.verify.changes._source_layout import SourceLayout, module_file_of

__all__ = ["RepositoryTree"]

_SERIAL = itertools.count()

#: The classes the engine's objects are instances of (its enumerating sources are RandomSources)
#: or that it catches by class (a refusal, a broken contract): their modules are shared with the
#: running dpverify whenever their own code allows (module docstring).
ENGINE_CLASSES = (RandomSource, DpverifyError, InvalidArgument, SamplerContractError)


class RepositoryTree:
    """The repository's modules as they are in ``directory`` (the root for the working tree, an
    extracted copy for a revision), ``label`` naming it in messages."""

    def __init__(self, layout: SourceLayout, directory: Path, label: str, token: str | None = None) -> None:
        self.layout, self.directory, self.label = layout, Path(directory), label
        self.token = token or f"_dpverify_tree_{next(_SERIAL)}"
        self._loaded: dict[str, ModuleType] = {}
        self._changed: dict[str, ModuleType | None] = {}
        self._stale_cache: dict[str, bool] = {}
        #: The repository's modules that define :data:`ENGINE_CLASSES` (none in a project that
        #: only uses dpverify).
        self.interfaces = frozenset(
            name
            for name in {kind.__module__ for cls in ENGINE_CLASSES for kind in cls.__mro__}
            if layout.relative_path(name) is not None
        )

    def close(self) -> None:
        """Forget the tree's modules (safe to call twice)."""
        for name in [n for n in sys.modules if n == self.token or n.startswith(self.token + ".")]:
            del sys.modules[name]
        self._loaded.clear()
        self._changed.clear()
        self._stale_cache.clear()

    # --- files --------------------------------------------------------------------------------

    def file(self, relative: Any) -> Path | None:
        """The tree's file at repository path ``relative``, or None where it has none."""
        if relative is None:
            return None
        found = self.directory / str(relative)
        return found if found.is_file() else None

    def file_of(self, name: str) -> Path | None:
        """The tree's source of module ``name``, or None (not in the repository, or not in this tree)."""
        return self.file(self.layout.relative_path(name))

    # --- modules ------------------------------------------------------------------------------

    def module(self, name: str) -> ModuleType:
        """Module ``name`` as it is in this tree: the module in use when its code is the same
        (and so are the modules it imports), else the tree's own copy."""
        relative = self.layout.relative_path(name)
        path = self.file(relative)
        if path is None:
            where = (
                "is not a file of the repository"
                if relative is None
                else f"({relative}) does not exist in {self.label}"
            )
            raise InvalidArgument(f"module {shown(name)} {where}; nothing to compare it with.")
        if self._stale(name, set()):
            return self._load(name, path)
        try:
            return importlib.import_module(name)
        except Exception:  # noqa: BLE001 - not importable as installed: the tree's own copy then
            return self._load(name, path)

    def _load(self, name: str, path: Path) -> ModuleType:
        if name in self._loaded:
            return self._loaded[name]
        package = path.name == "__init__.py"
        spec = importlib.util.spec_from_file_location(
            f"{self.token}.{name}", path, submodule_search_locations=[str(path.parent)] if package else None
        )
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
                raise InvalidArgument(
                    f"module {shown(name)} in {self.label} does not import: {type(error).__name__}: {str(error)[:200]}"
                ) from None
            raise
        return module

    def changed_module(self, name: str) -> ModuleType | None:
        """The tree's copy of ``name`` when it is stale (:meth:`_stale`), else None."""
        if name not in self._changed:
            self._changed[name] = None
            path = self.file_of(name)
            if path is not None and self._stale(name, set()):  # a module with no file is never stale
                self._changed[name] = self._load(name, path)
        return self._changed[name]

    def _stale(self, name: str, visiting: set[str]) -> bool:
        """Whether the tree's code needs its own copy of ``name``: its code in the tree differs from
        the module in use (an edited docstring does not make a copy, whose classes would differ
        from those in use), or (for a module, not a package) one it imports is stale.  Sharing an
        unchanged module whose imports changed would run the helpers in use under the tree's name,
        and a diff would compare one version with itself.  A package's ``__init__`` counts by its
        own file; what it re-exports is redirected name by name, and an interface module of the engine
        counts by its own code only (module docstring)."""
        if name in self._stale_cache:
            return self._stale_cache[name]
        path = self.file_of(name)
        if path is None:
            return False
        if name in visiting:  # an import cycle: decided by the other modules on it
            return False
        visiting.add(name)
        in_use = module_file_of(name)
        stale = in_use is None or (
            path.read_bytes() != _read(in_use)
            and (module_code(path) is None or module_code(path) != module_code(in_use))
        )
        if not stale and path.name != "__init__.py" and name not in self.interfaces:
            stale = any(self._stale(imported, visiting) for imported in self._imports(path, name))
        visiting.discard(name)
        self._stale_cache[name] = stale
        return stale

    def interface_reached(self, name: str) -> str | None:
        """The engine interface module (module docstring) whose own code differs in this tree and
        that the tree's module ``name`` imports, directly or through other stale modules; None
        when the tree's ``name`` runs on the interface in use, as the engine's sources need."""
        pending, seen = [name], set()
        while pending:
            current = pending.pop()
            if current in seen or not self._stale(current, set()):
                continue  # a module in use imports the interface in use
            seen.add(current)
            if current in self.interfaces:
                return current
            path = self.file_of(current)
            if path is not None:
                pending.extend(sorted(self._imports(path, current), reverse=True))
        return None

    def _imports(self, path: Path, name: str) -> set[str]:
        """The repository modules the tree's file ``path`` (module ``name``) imports: each ``import
        a.b`` and ``from a import b`` names ``a.b``; ``from a import f`` names ``a`` and, when ``a``'s
        ``__init__`` re-exports ``f``, the module ``f`` comes from."""
        package = name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(_parse(path) or ast.Module(body=[], type_ignores=[])):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package if path.name != "__init__.py" else name)
                if base is None:
                    continue
                found.add(base)
                for alias in node.names:
                    if alias.name != "*":
                        found.add(f"{base}.{alias.name}")
                        source = self.reexported(base, alias.name)
                        if source is not None:
                            found.add(source[0])
        return {module for module in found if module and self.layout.relative_path(module) is not None}

    def reexported(self, package: str, item: str, depth: int = 0) -> tuple[str, str] | None:
        """``(module, name)`` where the tree's package ``package`` takes ``item`` from by a
        ``from ... import`` in its ``__init__`` (followed through packages); None otherwise."""
        path = self.file_of(package)
        if path is None or path.name != "__init__.py" or depth > 8:
            return None
        found = None
        for statement in top_level_statements(_parse(path)):
            if isinstance(statement, ast.ImportFrom):
                for alias in statement.names:
                    if (alias.asname or alias.name) == item and alias.name != "*":
                        source = _absolute(statement, package)
                        if source is not None:
                            found = (source, alias.name)
        if found is None:
            return None
        deeper = self.reexported(found[0], found[1], depth + 1)
        return deeper or found

    def _importer(self, own: str, package: bool) -> Any:
        """The ``__import__`` of the tree's module ``own``."""
        token = self.token
        own_package = own if package else own.rpartition(".")[0]

        def tree_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
            absolute = importlib.util.resolve_name("." * level + name, own_package) if level else name
            if absolute.startswith(token):
                return builtins.__import__(absolute, globals, locals, fromlist, 0)
            if fromlist or "." not in absolute:
                changed = self.changed_module(absolute)
                if changed is not None:
                    self._submodules(changed, absolute, fromlist)
                    return changed
                if fromlist:
                    return self._view(absolute, fromlist)
            return builtins.__import__(absolute, globals, locals, fromlist, 0)

        return tree_import

    def _submodules(self, package: ModuleType, absolute: str, fromlist: Any) -> None:
        """``from package import submodule`` on the tree's copy of a package: the import system binds
        a submodule on the package it imports, and the copy is imported by no one, so each name of
        ``fromlist`` the copy lacks is bound here, to the tree's submodule if it is stale, else to
        the one in use."""
        if not hasattr(package, "__path__"):
            return
        for item in fromlist or ():
            if item == "*" or hasattr(package, item):
                continue
            name = f"{absolute}.{item}"
            if importlib.util.find_spec(name) is None:
                continue  # not a submodule either: the import raises ImportError, as it would
            setattr(package, item, self.changed_module(name) or importlib.import_module(name))

    def _view(self, absolute: str, fromlist: Any) -> Any:
        """``from absolute import items`` where ``absolute`` is in use: the module in use, or a
        private view of it with the tree's changed submodules and re-exported names laid over."""
        current = builtins.__import__(absolute, None, None, fromlist, 0)
        parts: dict[str, Any] = {}
        for item in fromlist:
            if item == "*":
                continue
            submodule = self.changed_module(f"{absolute}.{item}")
            if submodule is not None:
                parts[item] = submodule
                continue
            source = self.reexported(absolute, item)
            if source is not None:
                changed = self.changed_module(source[0])
                if changed is not None and hasattr(changed, source[1]):
                    parts[item] = getattr(changed, source[1])
        if not parts:
            return current
        view = ModuleType(current.__name__)
        view.__dict__.update(current.__dict__)
        view.__dict__.update(parts)
        return view


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    """The absolute module a ``from ... import`` names, ``package`` being the importing file's."""
    if not node.level:
        return node.module or None
    try:
        return importlib.util.resolve_name("." * node.level + (node.module or ""), package)
    except (ImportError, ValueError):
        return None
