"""What a function's behaviour depends on besides its own code: the module-level bindings it reads.

``check --base`` compares a spec when a function its sampler runs changed.  The function's own
syntax tree (:func:`~dpverify.proofs._fingerprint.fingerprint_in_file`) misses a change that
leaves it alone and changes what it reads: ``MAX_TRIALS = 64`` becoming ``65``, a constant
imported from another module, a class attribute a method reads through ``self``, a helper that
a package's ``__init__`` re-exports pointed at another function.  :func:`function_reads` gives,
for one function in one source tree, the normalised tree of each of these, by label:

- the function itself (its defaults and decorators are part of its tree);
- for a method, each enclosing class's statements other than its functions (class attributes,
  bases, decorators), and the same of every base class found in the repository;
- every module-level binding of a name the function reads (``NAME`` or ``NAME.attribute``):
  an assignment, followed through the names *its* value reads; an import, followed into the
  imported module when it is a file of the tree (``from .constants import LIMIT``, a re-export
  ``from package import f`` through the package's ``__init__``, ``constants.LIMIT`` after
  ``import constants``).  A function or class a constant's value uses is included whole, since
  it ran when the module was imported; one the function *calls* is not, since the trace of the
  run sees it (and fingerprints it) if it runs.

Names are read from the syntax tree, never by running the code, so both trees (the working tree
and a revision) are read the same way; labels name files by their path in the repository, so the
two trees' reads can be compared label by label.  A name bound only dynamically (``globals()``,
``setattr``, ``exec``) is not seen.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from dpverify.proofs._fingerprint import FingerprintError, find_definition, normalised_dump, without_docstrings

__all__ = ["function_reads", "top_level_statements"]

#: Bindings followed at most, so a pathological module graph cannot make the walk unbounded.
MAX_BINDINGS = 2_000

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def function_reads(path: Path, qualname: str, root: Path, module_file: Callable[[str], Path | None]) -> dict[str, str]:
    """``{label: normalised tree}`` of function ``qualname`` in file ``path`` and of everything
    it reads (module docstring).  ``root`` is the tree's directory, ``module_file(name)`` the
    tree's file of an absolute module name (None outside the repository)."""
    walk = _Walk(root, module_file)
    module = walk.parse(path)
    if module is None:
        raise FingerprintError(f"cannot parse {str(path)!r} to read {qualname}")
    node = find_definition(module, qualname.split("."))
    if node is None:
        raise FingerprintError(f"{qualname} is not defined in {str(path)!r}")
    walk.parts[qualname] = normalised_dump(without_docstrings(node))
    scope: ast.AST = module
    for name in qualname.split(".")[:-1]:
        enclosing = find_definition(scope, [name])
        if not isinstance(enclosing, ast.ClassDef):
            break
        walk.class_attributes(path, enclosing)
        scope = enclosing
    walk.follow(path, _reads(node), definitions=False)
    return dict(walk.parts)


class _Walk:
    def __init__(self, root: Path, module_file: Callable[[str], Path | None]) -> None:
        self.root, self.module_file = root, module_file
        self.parts: dict[str, str] = {}
        self._parsed: dict[Path, ast.Module | None] = {}
        self._seen: set[tuple[Path, str, str | None, bool]] = set()

    def parse(self, path: Path) -> ast.Module | None:
        if path not in self._parsed:
            try:
                self._parsed[path] = ast.parse(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                self._parsed[path] = None
        return self._parsed[path]

    def label(self, path: Path, name: str) -> str:
        try:
            where = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            where = path.name
        return f"{where}:{name}"

    def add(self, path: Path, name: str, node: ast.AST) -> None:
        """One part, labelled by file and name (a second binding of the same name gets ``#2``:
        the walk's order is fixed by the code, so equal code gives equal labels)."""
        label = base = self.label(path, name)
        count = 1
        while label in self.parts:
            count += 1
            label = f"{base} #{count}"
        self.parts[label] = normalised_dump(without_docstrings(node))

    def class_attributes(self, path: Path, node: ast.ClassDef) -> None:
        """A class's statements other than its functions, and its bases' found in the tree."""
        key = (path, node.name, "<class>", True)
        if key in self._seen:
            return
        self._seen.add(key)
        skeleton = ast.ClassDef(
            name=node.name,
            bases=node.bases,
            keywords=node.keywords,
            decorator_list=node.decorator_list,
            body=[s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))] or [ast.Pass()],
        )
        if sys.version_info >= (3, 12):  # the field exists from Python 3.12 on
            skeleton.type_params = node.type_params
        self.add(path, f"{node.name} (class attributes)", skeleton)
        reads = _reads(
            ast.Module(
                body=[*skeleton.body, ast.Expr(ast.Tuple([*node.bases, *node.decorator_list], ast.Load()))],
                type_ignores=[],
            )
        )
        self.follow(path, reads, definitions=True, classes=True)

    def follow(
        self, path: Path, reads: set[tuple[str, str | None]], *, definitions: bool, classes: bool = False
    ) -> None:
        for name, attribute in sorted(reads, key=lambda read: (read[0], read[1] or "")):
            if len(self._seen) > MAX_BINDINGS:
                return
            self.binding(path, name, attribute, definitions=definitions, classes=classes)

    def binding(
        self, path: Path, name: str, attribute: str | None, *, definitions: bool, classes: bool = False
    ) -> None:
        """The module-level bindings of ``name`` in ``path`` (``attribute``: read as ``name.attribute``)."""
        key = (path, name, attribute, definitions)
        if key in self._seen:
            return
        self._seen.add(key)
        for statement in top_level_statements(self.parse(path)):
            if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and name in _targets(statement):
                self.add(path, name, statement)
                self.follow(path, _reads(statement), definitions=True)
            elif (
                isinstance(statement, ast.ClassDef) and statement.name == name and (classes or attribute or definitions)
            ):
                if definitions:
                    self.add(path, name, statement)
                self.class_attributes(path, statement)
            elif (
                isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                and statement.name == name
                and definitions
            ):
                self.add(path, name, statement)
                self.follow(path, _reads(statement), definitions=True)
            elif isinstance(statement, ast.Import):
                for alias in statement.names:
                    bound = alias.asname or alias.name.partition(".")[0]
                    if bound == name:
                        self.add(path, f"import {alias.name}", statement)
                        target = alias.name if alias.asname else name
                        self.into_module(target, attribute, definitions=definitions)
            elif isinstance(statement, ast.ImportFrom):
                for alias in statement.names:
                    if (alias.asname or alias.name) != name:
                        continue
                    self.add(path, f"import of {name}", statement)
                    source = self.imported_file(path, statement)
                    if source is None:
                        continue
                    submodule = _submodule(source, alias.name)
                    if submodule is not None:
                        if attribute is not None:
                            self.binding(submodule, attribute, None, definitions=definitions)
                    else:
                        self.binding(source, alias.name, attribute, definitions=definitions, classes=classes)

    def into_module(self, module: str, attribute: str | None, *, definitions: bool) -> None:
        target = self.module_file(module)
        if target is not None and attribute is not None:
            submodule = _submodule(target, attribute)
            if submodule is None:
                self.binding(target, attribute, None, definitions=definitions)

    def imported_file(self, path: Path, statement: ast.ImportFrom) -> Path | None:
        """The tree's file of the module a ``from ... import`` in ``path`` names."""
        if not statement.level:
            return self.module_file(statement.module or "")
        directory = path.parent
        for _ in range(statement.level - 1):
            directory = directory.parent
        base = directory.joinpath(*(statement.module or "").split(".")) if statement.module else directory
        for candidate in (base.with_suffix(".py") if statement.module else None, base / "__init__.py"):
            if candidate is not None and candidate.is_file():
                return candidate
        return None


def _submodule(source: Path, name: str) -> Path | None:
    """The file of submodule ``name`` when ``source`` is a package's ``__init__``."""
    if source.name != "__init__.py":
        return None
    for candidate in (source.parent / f"{name}.py", source.parent / name / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _reads(node: ast.AST) -> set[tuple[str, str | None]]:
    """The names ``node`` reads, each with the attribute read from it (``NAME.attribute``)."""
    found: set[tuple[str, str | None]] = set()
    attributes: set[int] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name):
            found.add((inner.value.id, inner.attr))
            attributes.add(id(inner.value))
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load) and id(inner) not in attributes:
            found.add((inner.id, None))
    return found


def _targets(statement: ast.Assign | ast.AnnAssign | ast.AugAssign) -> set[str]:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}


def top_level_statements(module: ast.Module | None) -> Iterator[ast.stmt]:
    """A module's statements, with those of its top-level ``if``/``try``/``with`` blocks."""
    pending = list(module.body) if module is not None else []
    while pending:
        statement = pending.pop(0)
        yield statement
        if isinstance(statement, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody"):
                pending.extend(getattr(statement, field, None) or [])
            for handler in getattr(statement, "handlers", []):
                pending.extend(handler.body)
