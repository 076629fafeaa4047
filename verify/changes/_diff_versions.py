"""The two versions a diff compares, and its parameter sets: references resolved to a sampler
(now, or at a base revision) and ``--param`` text parsed; no law is computed here.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import Any

from dpverify.samplers import InvalidArgument
from dpverify.samplers._rational import shown
from dpverify.specs import Integer, Rational, SamplesPmf
from dpverify.specs._api import Attempt, Bisection, Bounded, Case, Exhaustive, Randomness, Spec, SpecError
from dpverify.verify.engine._arguments import elided

__all__ = [
    "BARE_MIN_MASS",
    "Side",
    "interface_change",
    "new_of",
    "old_of",
    "parse_parameter_set",
    "resolve_reference",
    "version_in",
]

#: Names under which a source tree's modules are imported apart (:mod:`~dpverify.verify.changes._repository_tree`).
PRIVATE_PREFIX = "_dpverify_"

#: The enumeration of a bare sampler (no spec): exact for a finite sampler whose every path
#: weighs at least this much, exact intervals otherwise.
BARE_MIN_MASS = Fraction(1, 10**9)


# --- the two versions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One version: its label, the spec it came with (None for a bare sampler), the sampler,
    and how to enumerate it (the spec's declaration, rebuilt with this dpverify's classes).
    ``unrunnable``: why this version cannot run on the engine's enumerating sources (it reaches
    its own copy of the engine's interface, :func:`interface_change`), or None."""

    label: str
    spec: Spec | None
    sampler: Callable[..., Hashable]
    enumeration: Any = None
    unrunnable: str | None = None


def _attribute(module: Any, path: str, reference: str) -> Any:
    value = module
    for part in path.split("."):
        if not hasattr(value, part):
            raise InvalidArgument(
                f"reference {shown(reference)} names no attribute {elided(repr(part), 60)} in "
                f"{elided(str(getattr(value, '__name__', '?')), 60)}; a reference is module:attribute."
            )
        value = getattr(value, part)
    return value


def _current_enumeration(declared: Any) -> Any:
    """``declared`` (possibly built from an old copy of the spec API) as this dpverify's class."""
    for kind in (Exhaustive, Bisection, Bounded, Attempt):
        if type(declared).__name__ == kind.__name__:
            return (
                declared
                if isinstance(declared, kind)
                else kind(**{f.name: getattr(declared, f.name) for f in fields(kind)})
            )
    return None


def _side(value: Any, label: str) -> Side:
    """A Side from a resolved reference: a Spec (of this or an old copy of the API) or a callable."""
    if isinstance(value, Spec) or (type(value).__name__ == "Spec" and hasattr(value, "sampler")):
        sampler = value.sampler
        if sampler is None:
            raise InvalidArgument(f"reference {shown(label)} is a spec without a sampler; there is no code to compare.")
        if Randomness(value.randomness) is Randomness.NONE:
            raise InvalidArgument(
                f"reference {shown(label)} is a black-box spec (randomness='none'): its draws "
                "cannot be enumerated, so its law cannot be compared exactly."
            )
        return Side(label, value if isinstance(value, Spec) else None, sampler, _current_enumeration(value.enumeration))
    if isinstance(value, (list, tuple)) and value and all(type(v).__name__ == "Spec" for v in value):
        names = ", ".join(v.name for v in value)
        raise InvalidArgument(
            f"reference {shown(label)} holds {len(value)} specs ({elided(names, 80)}); name one: "
            "module:attribute of a Spec, or its spec name."
        )
    if callable(value):
        return Side(label, None, value)
    raise InvalidArgument(f"reference {shown(label)} is {type(value).__name__}, not a Spec or a sampler callable.")


def resolve_reference(reference: str, base: Any = None, *, tree: Any = None) -> Side:
    """``module:attribute`` (a Spec, or a sampler taking ``rng``) or a spec name found by
    :func:`~dpverify.verify.gate._discovery.discover`; with ``base`` (a
    :class:`~dpverify.verify.changes._base_revision.BaseRevision`), the version at that revision;
    with ``tree`` (its working tree, :attr:`BaseRevision.new`), the version there rather than the
    one installed."""
    if not isinstance(reference, str) or not reference.strip():
        raise InvalidArgument(f"a reference is module:attribute or a spec name; got {shown(reference)}.")
    label = reference if base is None else f"{reference} at {base.revision}"
    if ":" not in reference:
        from dpverify.verify.gate._discovery import discover

        try:
            (found,) = discover((), names=[reference])
        except SpecError as error:
            raise InvalidArgument(
                f"reference {shown(reference)} is no module:attribute, and as a spec name: {elided(str(error), 150)}"
            ) from None
        new = _side(found.spec, label)
        if tree is not None:
            return version_in(tree, new, label)
        return new if base is None else old_of(new, base, label)
    module_name, _, path = reference.partition(":")
    if not module_name or not path:
        raise InvalidArgument(f"a reference is module:attribute; got {shown(reference)}.")
    if base is not None or tree is not None:
        where = tree if tree is not None else base.old
        side = _side(_attribute(where.module(module_name), path, reference), label)
        return replace(side, unrunnable=interface_change(where, side))
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001 - the user's module: whatever stops its import is reported
        raise InvalidArgument(
            f"reference {shown(reference)}: module {elided(repr(module_name), 60)} does not "
            f"import: {type(error).__name__}: {elided(str(error), 80)}"
        ) from None
    return _side(_attribute(module, path, reference), label)


def _function_at(tree: Any, function: Callable[..., Any], what: str) -> Callable[..., Any]:
    """``function`` as it is in ``tree`` (a :class:`~dpverify.verify.changes._repository_tree.RepositoryTree`)."""
    module, qualname = _module_of(function), getattr(function, "__qualname__", "")
    if module and tree.layout.relative_path(module) is not None and tree.module(module) is sys.modules.get(module):
        return function  # the tree's module is the one in use: the function is the tree's, lambda or not
    if not module or "<" in qualname:
        raise InvalidArgument(
            f"the {what} {shown(function, 60)} is not a module-level function or method "
            f"({qualname or '?'}), so it cannot be found in {tree.label}."
        )
    # the qualname of a function names the tree's version of it
    found: Callable[..., Any] = _attribute(tree.module(module), qualname, f"{module}:{qualname}")
    return found


def version_in(tree: Any, side: Side, label: str) -> Side:
    """``side``'s sampler (and its attempt) as they are in ``tree``: same spec, that tree's code.
    A sampler that is a lambda or a nested function is found through the spec of the same name
    that the tree's module defines."""
    enumeration = side.enumeration
    try:
        sampler = _function_at(tree, side.sampler, "sampler")
        if isinstance(enumeration, Attempt):
            enumeration = replace(enumeration, attempt=_function_at(tree, enumeration.attempt, "attempt"))
    except InvalidArgument:
        found = None if side.spec is None else _spec_in(tree, side.spec.name, side.sampler)
        if found is None:
            raise
        sampler, declared = found.sampler, _current_enumeration(found.enumeration)
        if isinstance(enumeration, Attempt) and isinstance(declared, Attempt):
            enumeration = replace(enumeration, attempt=declared.attempt)
    version = Side(label, side.spec, sampler, enumeration)
    return replace(version, unrunnable=interface_change(tree, version))


def _module_of(function: Any) -> str:
    """The module that defines ``function``, a tree's private copy named as the module it is a version of."""
    module = getattr(function, "__module__", None) or ""
    return module.partition(".")[2] if module.startswith(PRIVATE_PREFIX) else module


def interface_change(tree: Any, side: Side) -> str | None:
    """Why ``side``'s code, read from ``tree``, cannot run on the engine's enumerating sources, or
    None.  It cannot when its module reaches the tree's own copy of a module of the engine's
    interface whose code changed (:meth:`~dpverify.verify.changes._repository_tree.RepositoryTree.interface_reached`):
    its ``RandomSource`` is then another class than the one the engine's sources derive from, so
    the code would refuse them, and its error classes are not those the engine catches.  Comparing
    laws is then impossible, which is no evidence that they differ."""
    functions = [side.sampler]
    if isinstance(side.enumeration, Attempt):
        functions.append(side.enumeration.attempt)
    for function in functions:
        module = _module_of(function)
        if not module or tree.layout.relative_path(module) is None:
            continue
        reached = tree.interface_reached(module)
        if reached is not None:
            where = tree.layout.relative_path(reached)
            return (
                f"{where}, the engine's interface (RandomSource, the error classes), has other code in "
                f"{tree.label} than in the dpverify running: the code read there checks rng against its own "
                "RandomSource class, which the engine's enumerating sources are not instances of, so it cannot "
                "run on them and the two laws cannot be compared (dpverify check verifies the working tree's "
                f"code against its spec; a base revision with the same {where} can be compared)"
            )
    return None


def _spec_in(tree: Any, name: str, sampler: Any) -> Any:
    """The spec called ``name`` among the module-level values (or tuples and lists of them) of
    the tree's module that defines ``sampler``; None when there is none."""
    module = _module_of(sampler)
    try:
        values = vars(tree.module(module)).values()
    except (InvalidArgument, TypeError):
        return None
    for value in values:
        for candidate in value if isinstance(value, (list, tuple)) else (value,):
            if (
                type(candidate).__name__ == "Spec"
                and getattr(candidate, "name", None) == name
                and getattr(candidate, "sampler", None) is not None
            ):
                return candidate
    return None


def old_of(new: Side, base: Any, label: str | None = None) -> Side:
    """The version at ``base`` of ``new``'s sampler (and of its attempt): same spec, old code."""
    return version_in(base.old, new, label or f"{new.label} at {base.revision}")


def new_of(side: Side, base: Any, label: str | None = None) -> Side:
    """``side``'s sampler as it is in the repository's working tree (:attr:`base.new`), whatever
    copy of it is installed."""
    return version_in(base.new, side, label or side.label)


# --- parameter sets ----------------------------------------------------------------------------------


def parse_parameter_set(text: str) -> dict[str, str]:
    """``"scale=3/2,sensitivity=1"`` as ``{"scale": "3/2", "sensitivity": "1"}`` (values stay
    text: the spec's domains parse them exactly)."""
    pairs: dict[str, str] = {}
    for item in str(text).split(","):
        name, equals, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not name.isidentifier() or not value:
            raise InvalidArgument(
                f"--param must be name=value pairs separated by commas, such as scale=3/2,sensitivity=1; "
                f"got --param={shown(text)}."
            )
        if name in pairs:
            raise InvalidArgument(f"--param names {name} twice; got --param={shown(text)}.")
        pairs[name] = value
    return pairs


def _bare_frame(sampler: Callable[..., Any], sets: Sequence[Mapping[str, str]], label: str) -> Spec:
    """A spec for two bare samplers: their parameters from the caller's sets, no search."""
    if not sets:
        raise InvalidArgument(
            f"neither reference is a spec, so there are no declared parameter sets; give one with "
            f"--param name=value,... (comparing {label})."
        )
    names = list(sets[0])
    if any(list(s) != names for s in sets):
        raise InvalidArgument("every --param set must name the same parameters when neither reference is a spec.")
    domains = {n: Integer(-(10**100)) if all(_is_integer(s[n]) for s in sets) else Rational() for n in names}
    return Spec(
        name="diff",
        sampler=sampler,
        parameters=domains,
        cases=[Case(dict(s)) for s in sets],
        claim=SamplesPmf(),
        enumeration=Bounded(min_mass=BARE_MIN_MASS),
    )


def _is_integer(text: str) -> bool:
    return text.strip().lstrip("+-").isdigit()
