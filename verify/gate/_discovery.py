"""Finding specs: the ``dpverify.specs`` entry points, and modules named on the command line.

A user's package declares its specs the way the built-in catalogue does: a module exposing
``SPECS`` (a sequence of :class:`~dpverify.specs.Spec`), registered in its ``pyproject.toml``::

    [project.entry-points."dpverify.specs"]
    own-sampler = "own_sampler.specs"

An entry point may name a module (its ``SPECS`` is read), a sequence of specs, or one spec.
Every failure to find or read specs is a :class:`~dpverify.specs.SpecError` naming where.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from dpverify import _channel
from dpverify.samplers import InvalidArgument
from dpverify.specs import Spec, SpecError
from dpverify.specs._fields import check_fields
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT, elided, shown
from dpverify.verify.gate._time_bound import running_user_code

__all__ = [
    "ENTRY_POINT_GROUP",
    "BuiltinUnloadable",
    "FoundSpec",
    "discover",
    "specs_from_entry_points",
    "specs_from_module",
]

ENTRY_POINT_GROUP = "dpverify.specs"


@dataclass(frozen=True, slots=True)
class FoundSpec:
    """A spec and where it was found (``entry point NAME (DIST)`` or ``module NAME``)."""

    spec: Spec
    origin: str
    builtin: bool = False

    def __post_init__(self) -> None:
        check_fields(self)


def _specs_in(value: Any, origin: str) -> tuple[Spec, ...]:
    if isinstance(value, ModuleType):
        if not hasattr(value, "SPECS"):
            raise SpecError(f"{origin} has no SPECS; define SPECS = (Spec(...), ...) in it.")
        value = value.SPECS
    if isinstance(value, Spec):
        return (value,)
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        items = tuple(value)
        wrong = [item for item in items if not isinstance(item, Spec)]
        if not wrong:
            return items
        value = wrong[0]
    raise SpecError(f"{origin}: SPECS must hold dpverify.specs.Spec objects; found {_short_repr(value)}.")


def _short_repr(value: Any) -> str:
    text = shown(value, 80)
    return (text if len(text) <= 80 else text[:77] + "...") + f" ({type(value).__name__})"


#: Seconds a spec module's import may take before the supervisor kills it (an import is never cut
#: off from inside: see :func:`~dpverify.verify.gate._time_bound.time_bound`).
IMPORT_SECONDS = DEFAULT_TIME_LIMIT


def specs_from_module(name: str) -> tuple[FoundSpec, ...]:
    """The ``SPECS`` of the module ``name`` (imported; the current directory is searched too)."""
    if not isinstance(name, str):
        raise SpecError(f"a spec module is named by a str; got {shown(name)} ({type(name).__name__}).")
    origin = f"module {elided(name, 60)}"
    try:
        with _channel.labelled(f"the import of spec module {elided(name, 60)}"), running_user_code(IMPORT_SECONDS):
            module = importlib.import_module(name)
    except SpecError as error:
        raise SpecError(f"{origin}: {error}") from None
    except KeyboardInterrupt:
        if not _channel.supervised():
            raise  # in-process, the user's Ctrl-C; supervised, the module's own
        raise SpecError(f"cannot import spec module {shown(name)}: it raised KeyboardInterrupt") from None
    except BaseException as error:  # noqa: BLE001 - an import can raise anything, SystemExit too; report it as the module's
        raise SpecError(
            f"cannot import spec module {shown(name)}: {type(error).__name__}: {elided(str(error), 120)}"
        ) from None
    return tuple(FoundSpec(spec, origin) for spec in _specs_in(module, origin))


class BuiltinUnloadable(SpecError):
    """dpverify's own catalogue does not load: its specs are fixed, so the shipped code that
    builds them (parsing, domains, samplers at import) is what broke, a finding about dpverify."""


def specs_from_entry_points() -> tuple[FoundSpec, ...]:
    """Every spec registered under :data:`ENTRY_POINT_GROUP`, the built-in catalogue included."""
    found = []
    for point in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        dist = point.dist.name if point.dist is not None else "?"
        origin = f"entry point {point.name} ({dist})"
        failure = BuiltinUnloadable if (point.name, dist) == ("builtin", "dpverify") else SpecError
        try:
            value = point.load()
        except SpecError as error:
            raise failure(f"{origin}: {error}") from None
        except Exception as error:  # noqa: BLE001
            raise failure(f"cannot load {origin} = {point.value}: {type(error).__name__}: {error}") from None
        builtin = dist == "dpverify"
        found += [FoundSpec(spec, origin, builtin) for spec in _specs_in(value, origin)]
    return tuple(found)


def _names(name: str, value: object) -> tuple[str, ...]:
    """A list, tuple or set of strings (a lone str would be read as its characters)."""
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(isinstance(v, str) for v in value):
        raise InvalidArgument(
            f"{name} must be a list or tuple of strings; got {name}={shown(value)} ({type(value).__name__})."
        )
    return tuple(value)


def discover(modules: Sequence[str] = (), *, names: Sequence[str] = ()) -> tuple[FoundSpec, ...]:
    """The specs of ``modules`` if any are given, else of every entry point; only those named in
    ``names`` when given, in the order they are named.  Two specs with one name are an error."""
    modules, names = _names("modules", modules), _names("names", names)
    found = [f for name in modules for f in specs_from_module(name)] if modules else list(specs_from_entry_points())
    seen: dict[str, str] = {}
    for item in found:
        if item.spec.name in seen:
            raise SpecError(
                f"spec name {shown(item.spec.name)} is declared twice: in {seen[item.spec.name]} and in "
                f"{item.origin}; spec names must be unique."
            )
        seen[item.spec.name] = item.origin
    if names:
        unknown = [n for n in names if n not in seen]
        if unknown:
            raise SpecError(
                f"no spec named {elided(', '.join(map(repr, unknown)))}; found: {elided(', '.join(seen)) or '(none)'}."
            )
        order = {name: position for position, name in reversed(list(enumerate(names)))}
        found = sorted((f for f in found if f.spec.name in order), key=lambda f: order[f.spec.name])
    return tuple(found)
