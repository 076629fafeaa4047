"""The fingerprint of a function: SHA-256 of its normalised syntax tree.

A certificate records, for every sampler and spec function it covers, a fingerprint of that
function; ``dpverify check`` recomputes them and calls the proof *stale* when one differs
(STYLE.md item 4: keep each proof next to the code it proves, and make drift visible).

What is hashed.  The function's node from :func:`ast.parse` of its file, serialised like
``ast.dump(node, annotate_fields=True, include_attributes=False)``, after removing the
docstring of the function and of every function and class nested in it.  So:

- **formatting, comments and docstrings do not count**: the tree has no comments, no
  whitespace and (with ``include_attributes=False``) no line or column numbers, and
  docstrings are removed.  Re-wrapping a line, reflowing a docstring, adding a comment or
  moving the function within its file keeps the proof;
- **every change to what the code does counts**: a comparison ``<=`` becoming ``<`` (``LtE``
  becomes ``Lt``), a constant, a name, a default, a decorator (``@lru_cache``), an annotation.
  Hashing the tree rather than the bytes removes only what cannot change behaviour; hashing
  the *compiled* code instead would be tied to one interpreter's byte code, and a semantic
  normal form would be a proof obligation of its own.  The tree is the smallest thing that
  keeps every behavioural change visible, so a reviewer can trust "not stale" to mean "the
  same code".

Why a serialiser of our own instead of calling :func:`ast.dump`.  ``ast.dump`` prints empty
lists and ``None`` fields up to Python 3.12 and omits them from 3.13 (``show_empty=False``);
3.12 also added ``type_params=[]`` to every function.  The same source would then hash
differently on the Python versions the project supports (3.11 and later), and every
certificate would look stale after an interpreter upgrade.  :func:`normalised_dump` prints
the same ``Name(field=value, ...)`` text as ``ast.dump(annotate_fields=True,
include_attributes=False)`` but always omits empty lists and ``None``, exactly as 3.13's
``show_empty=False`` does, so the text is the same on every supported version.

What is not hashed.  Only the functions a certificate names: a change in a helper it calls
but does not list, a module-level constant or an import is not seen (``check --base`` adds what
a function reads, :mod:`dpverify.verify.changes._reads`).  A certificate's
``covers`` must therefore name every function whose code its obligation depends on.

Functions are found by *parsing source files under a root directory*, never by importing
them, so the check works on any copy of the tree (CI checkout, a mutated copy in a test) and
never runs the code it fingerprints.
"""

from __future__ import annotations

import ast
import copy
import hashlib
from pathlib import Path

from dpverify.samplers._errors import DpverifyError

__all__ = [
    "FINGERPRINT_SCHEME",
    "FingerprintError",
    "fingerprint",
    "find_definition",
    "fingerprint_in_file",
    "module_code",
    "normalised_dump",
    "resolve",
    "without_docstrings",
]

#: The installed package whose parts the covered names live in.
PACKAGE = "dpverify"

#: Names the hashing rule above; a manifest made under another scheme is stale as a whole.
FINGERPRINT_SCHEME = "dpverify.ast-sha256/1"

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Nodes whose ``value`` field is required, so ``None`` there is the literal None, printed as
# ``ast.dump`` prints it (``return None`` and ``return`` differ).
_NONE_IS_A_VALUE = (ast.Constant, ast.MatchSingleton)


class FingerprintError(DpverifyError):
    """A covered name does not resolve to a definition in the source tree."""


def resolve(qualified_name: str, root: Path | str) -> tuple[Path, str]:
    """The file under ``root`` that defines ``qualified_name`` and the name inside that file.

    ``"dpverify.specs.gtm.GtmSpec.pmf"`` resolves to ``(root/specs/gtm.py, "GtmSpec.pmf")``:
    the package's parts (``dpverify.samplers``, ``dpverify.specs``, ...) are the folders under
    ``root``, and the longest prefix that names a module file (``a/b.py`` or
    ``a/b/__init__.py``) wins.
    """
    root = Path(root)
    package, _, inside = qualified_name.partition(".")
    parts = inside.split(".") if package == PACKAGE else []
    for cut in range(len(parts) - 1, 0, -1):
        module = root.joinpath(*parts[:cut])
        for candidate in (module.with_suffix(".py"), module / "__init__.py"):
            if candidate.is_file():
                return candidate, ".".join(parts[cut:])
    raise FingerprintError(
        f"covered name {qualified_name!r} names no module under root={str(root)!r}; a covered "
        'name is "dpverify.part.module.function" or "dpverify.part.module.Class.method".'
    )


def fingerprint(qualified_name: str, root: Path | str) -> str:
    """SHA-256 (hex) of the normalised tree of ``qualified_name``, read from source under ``root``."""
    path, inner = resolve(qualified_name, root)
    return fingerprint_in_file(path, inner, label=qualified_name)


def fingerprint_in_file(path: Path | str, name: str, *, label: str | None = None) -> str:
    """SHA-256 (hex) of the normalised tree of ``name`` (``"f"`` or ``"Class.method"``) in ``path``."""
    path = Path(path)
    shown = label or f"{path}:{name}"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, ValueError) as error:
        raise FingerprintError(f"cannot parse {str(path)!r} to fingerprint {shown}: {error}") from None
    node = find_definition(tree, name.split("."))
    if node is None:
        raise FingerprintError(
            f"{shown} is not defined in {str(path)!r}; was it renamed or removed? Update the "
            "certificate's covers and run `dpverify prove`."
        )
    return hashlib.sha256(normalised_dump(without_docstrings(node)).encode("utf-8")).hexdigest()


def module_code(path: Path | str) -> str | None:
    """The normalised tree of the whole module at ``path``, every docstring removed (its own
    too), so two files with the same code give the same text; None where it does not parse."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    if tree.body and _is_docstring(tree.body[0]):
        tree.body = tree.body[1:]
    return normalised_dump(without_docstrings(tree))


def find_definition(scope: ast.AST, names: list[str]) -> ast.AST | None:
    """The *last* definition of ``names[0]`` in ``scope``'s body (the one in effect after the
    module or class body has run), descending into classes for the remaining names.  Module-
    and class-level assignments to a plain name (constants) resolve too."""
    found: ast.AST | None = None
    for statement in getattr(scope, "body", ()):
        if (
            (isinstance(statement, _DEFINITIONS) and statement.name == names[0])
            or (
                isinstance(statement, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == names[0] for t in statement.targets)
            )
            or (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and statement.target.id == names[0]
            )
        ):
            found = statement
    if found is None or len(names) == 1:
        return found
    return find_definition(found, names[1:]) if isinstance(found, ast.ClassDef) else None


def without_docstrings(node: ast.AST) -> ast.AST:
    """A copy of ``node`` with the docstring of it and of every nested function or class removed
    (an emptied body gets ``pass``, so the tree stays well formed)."""
    node = copy.deepcopy(node)
    for inner in ast.walk(node):
        if isinstance(inner, _DEFINITIONS) and inner.body and _is_docstring(inner.body[0]):
            inner.body = inner.body[1:] or [ast.Pass()]
    return node


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def normalised_dump(node: object) -> str:
    """``ast.dump(node, annotate_fields=True, include_attributes=False)`` with empty lists and
    ``None`` fields always omitted (Python 3.13's ``show_empty=False``), the same text on every
    supported Python version.

    >>> normalised_dump(ast.parse("x <= 1").body[0])
    "Expr(value=Compare(left=Name(id='x', ctx=Load()), ops=[LtE()], comparators=[Constant(value=1)]))"
    """
    if isinstance(node, ast.AST):
        fields = []
        for name in node._fields:
            value = getattr(node, name, None)
            literal_none = name == "value" and isinstance(node, _NONE_IS_A_VALUE)
            if value == [] or (value is None and not literal_none):
                continue
            fields.append(f"{name}={normalised_dump(value)}")
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return f"[{', '.join(normalised_dump(item) for item in node)}]"
    return repr(node)
