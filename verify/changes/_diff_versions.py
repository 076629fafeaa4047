"""The two versions a diff compares, and its parameter sets: references resolved to a sampler
(now, or at a base revision) and ``--param`` text parsed; no law is computed here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import Any

from dpverify.samplers import InvalidArgument
from dpverify.samplers._rational import shown
from dpverify.specs import Integer, Rational, SamplesPmf
from dpverify.specs._api import Attempt, Bisection, Bounded, Case, Exhaustive, Randomness, Spec, SpecError
from dpverify.verify.engine._arguments import elided

__all__ = ["BARE_MIN_MASS", "Side", "old_of", "parse_parameter_set", "resolve_reference"]

#: The enumeration of a bare sampler (no spec): exact for a finite sampler whose every path
#: weighs at least this much, exact intervals otherwise.
BARE_MIN_MASS = Fraction(1, 10**9)


# --- the two versions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One version: its label, the spec it came with (None for a bare sampler), the sampler,
    and how to enumerate it (the spec's declaration, rebuilt with this dpverify's classes)."""

    label: str
    spec: Spec | None
    sampler: Callable[..., Hashable]
    enumeration: Any = None


def _attribute(module: Any, path: str, reference: str) -> Any:
    value = module
    for part in path.split("."):
        if not hasattr(value, part):
            raise InvalidArgument(f"reference {shown(reference)} names no attribute {elided(repr(part), 60)} in "
                                  f"{elided(str(getattr(value, '__name__', '?')), 60)}; a reference is module:attribute.")
        value = getattr(value, part)
    return value


def _current_enumeration(declared: Any) -> Any:
    """``declared`` (possibly built from an old copy of the spec API) as this dpverify's class."""
    for kind in (Exhaustive, Bisection, Bounded, Attempt):
        if type(declared).__name__ == kind.__name__:
            return declared if isinstance(declared, kind) else kind(**{f.name: getattr(declared, f.name)
                                                                      for f in fields(kind)})
    return None


def _side(value: Any, label: str) -> Side:
    """A Side from a resolved reference: a Spec (of this or an old copy of the API) or a callable."""
    if isinstance(value, Spec) or (type(value).__name__ == "Spec" and hasattr(value, "sampler")):
        sampler = value.sampler
        if sampler is None:
            raise InvalidArgument(f"reference {shown(label)} is a spec without a sampler; there is no code to compare.")
        if Randomness(value.randomness) is Randomness.NONE:
            raise InvalidArgument(f"reference {shown(label)} is a black-box spec (randomness='none'): its draws "
                                  "cannot be enumerated, so its law cannot be compared exactly.")
        return Side(label, value if isinstance(value, Spec) else None, sampler, _current_enumeration(value.enumeration))
    if isinstance(value, (list, tuple)) and value and all(type(v).__name__ == "Spec" for v in value):
        names = ", ".join(v.name for v in value)
        raise InvalidArgument(f"reference {shown(label)} holds {len(value)} specs ({elided(names, 80)}); name one: "
                              "module:attribute of a Spec, or its spec name.")
    if callable(value):
        return Side(label, None, value)
    raise InvalidArgument(f"reference {shown(label)} is {type(value).__name__}, not a Spec or a sampler callable.")


def resolve_reference(reference: str, base: Any = None) -> Side:
    """``module:attribute`` (a Spec, or a sampler taking ``rng``) or a spec name found by
    :func:`~dpverify.verify.gate._discovery.discover`; with ``base`` (a
    :class:`~dpverify.verify.changes._base_revision.BaseRevision`), the version at that revision."""
    if not isinstance(reference, str) or not reference.strip():
        raise InvalidArgument(f"a reference is module:attribute or a spec name; got {shown(reference)}.")
    label = reference if base is None else f"{reference} at {base.revision}"
    if ":" not in reference:
        from dpverify.verify.gate._discovery import discover

        try:
            (found,) = discover((), names=[reference])
        except SpecError as error:
            raise InvalidArgument(f"reference {shown(reference)} is no module:attribute, and as a spec name: "
                                  f"{elided(str(error), 150)}") from None
        new = _side(found.spec, label)
        return new if base is None else old_of(new, base, label)
    module_name, _, path = reference.partition(":")
    if not module_name or not path:
        raise InvalidArgument(f"a reference is module:attribute; got {shown(reference)}.")
    if base is not None:
        module = base.module(module_name)
    else:
        try:
            module = importlib.import_module(module_name)
        except Exception as error:  # noqa: BLE001 - the user's module: whatever stops its import is reported
            raise InvalidArgument(f"reference {shown(reference)}: module {elided(repr(module_name), 60)} does not "
                                  f"import: {type(error).__name__}: {elided(str(error), 80)}") from None
    return _side(_attribute(module, path, reference), label)


def _function_at(base: Any, function: Callable[..., Any], what: str) -> Callable[..., Any]:
    module, qualname = getattr(function, "__module__", None), getattr(function, "__qualname__", "")
    if not module or "<" in qualname:
        raise InvalidArgument(f"the {what} {shown(function, 60)} is not a module-level function or method "
                              f"({qualname or '?'}), so it cannot be found at {base.revision}.")
    return _attribute(base.module(module), qualname, f"{module}:{qualname}")


def old_of(new: Side, base: Any, label: str | None = None) -> Side:
    """The version at ``base`` of ``new``'s sampler (and of its attempt): same spec, old code."""
    sampler = _function_at(base, new.sampler, "sampler")
    enumeration = new.enumeration
    if isinstance(enumeration, Attempt):
        enumeration = replace(enumeration, attempt=_function_at(base, enumeration.attempt, "attempt"))
    return Side(label or f"{new.label} at {base.revision}", new.spec, sampler, enumeration)


# --- parameter sets ----------------------------------------------------------------------------------


def parse_parameter_set(text: str) -> dict[str, str]:
    """``"scale=3/2,sensitivity=1"`` as ``{"scale": "3/2", "sensitivity": "1"}`` (values stay
    text: the spec's domains parse them exactly)."""
    pairs: dict[str, str] = {}
    for item in str(text).split(","):
        name, equals, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not name.isidentifier() or not value:
            raise InvalidArgument(f"--param must be name=value pairs separated by commas, such as scale=3/2,sensitivity=1; "
                                  f"got --param={shown(text)}.")
        if name in pairs:
            raise InvalidArgument(f"--param names {name} twice; got --param={shown(text)}.")
        pairs[name] = value
    return pairs


def _bare_frame(sampler: Callable[..., Any], sets: Sequence[Mapping[str, str]], label: str) -> Spec:
    """A spec for two bare samplers: their parameters from the caller's sets, no search."""
    if not sets:
        raise InvalidArgument(f"neither reference is a spec, so there are no declared parameter sets; give one with "
                              f"--param name=value,... (comparing {label}).")
    names = list(sets[0])
    if any(list(s) != names for s in sets):
        raise InvalidArgument("every --param set must name the same parameters when neither reference is a spec.")
    domains = {n: Integer(-(10**100)) if all(_is_integer(s[n]) for s in sets) else Rational() for n in names}
    return Spec(name="diff", sampler=sampler, parameters=domains, cases=[Case(dict(s)) for s in sets],
                claim=SamplesPmf(), enumeration=Bounded(min_mass=BARE_MIN_MASS))


def _is_integer(text: str) -> bool:
    return text.strip().lstrip("+-").isdigit()
