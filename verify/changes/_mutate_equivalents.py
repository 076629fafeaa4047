"""The reviewed equivalents file of ``dpverify mutate`` (``mutants/equivalent.toml``): its entries,
read and checked.  Its own module: a format of its own, read before any mutant is made."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify.changes._mutants import Mutant

__all__ = [
    "EQUIVALENTS_FILE",
    "Equivalent",
    "Reviewed",
    "Skip",
    "read_reviewed",
]

# The reviewed equivalents file (``mutants/equivalent.toml`` by default) holds
# ``[[equivalent]]`` entries (``id``, ``module``, ``reason``; ``line`` and ``description`` for
# the reader) and ``[[skip]]`` entries (``module``, ``function``, ``reason``) for functions whose
# mutants measure nothing: one whose only effect is an error message, or an example's deliberately
# broken copy that no passing spec runs.  An entry that matches no mutant of a module being mutated is
# *stale*, and a listed mutant that the gate catches is *refuted*: both fail the run, so the list
# cannot silently rot or pad the score.


@dataclass(frozen=True, slots=True)
class Equivalent:
    """A mutant reviewed as unable to change any public entry point's distribution, and why."""

    id: str
    module: str
    reason: str
    line: int | None = None
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "module": self.module,
            "line": self.line,
            "description": self.description,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Skip:
    """A function whose mutants are not generated (it only builds error messages, or no passing spec
    runs it), and why."""

    module: str
    function: str
    reason: str

    def covers(self, mutant: Mutant) -> bool:
        return mutant.module == self.module and (
            mutant.function == self.function or mutant.function.startswith(f"{self.function}.")
        )

    def to_json(self) -> dict[str, Any]:
        return {"module": self.module, "function": self.function, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Reviewed:
    """The reviewed equivalents file: its path (None when there is none) and its entries."""

    path: str | None = None
    equivalents: tuple[Equivalent, ...] = ()
    skips: tuple[Skip, ...] = ()

    def reason(self, mutant_id: str) -> str | None:
        return next((e.reason for e in self.equivalents if e.id == mutant_id), None)


#: The reviewed equivalents file, relative to the working directory.
EQUIVALENTS_FILE = "mutants/equivalent.toml"
_MAX_REVIEWED_BYTES = 10_000_000
_EQUIVALENT_KEYS = {"id": str, "module": str, "reason": str, "line": int, "description": str}
_SKIP_KEYS = {"module": str, "function": str, "reason": str}


def default_equivalents(module_files: Sequence[Path], start: Path | None = None) -> tuple[str | None, str]:
    """The reviewed equivalents file a run uses when ``--equivalents`` is not given, and where it was
    looked for: ``mutants/equivalent.toml`` in the working directory, else in the nearest folder
    above it or above a mutated module's file that has one (a repository's root, whatever the
    directory the run starts in).  Returns ``(path or None, a line saying which, or where not)``."""
    start = Path.cwd() if start is None else start
    places = [start, *start.parents]
    for file in module_files:
        places += [folder for folder in file.resolve().parents if folder not in places]
    for folder in places:
        candidate = folder / EQUIVALENTS_FILE
        if candidate.is_file():
            return str(candidate), f"reviewed equivalents: {candidate}"
    return None, (
        f"reviewed equivalents: none ({EQUIVALENTS_FILE} not found from {start} or above the mutated "
        "modules; --equivalents PATH names one)"
    )


def read_reviewed(path: str | None) -> Reviewed:
    """Read the reviewed equivalents file at ``path``; ``None`` reads nothing."""
    if path is None:
        return Reviewed()
    if not os.path.isfile(path):
        raise DpverifyError(f"--equivalents must be a file; got --equivalents={shown(path)}.")
    if os.path.getsize(path) > _MAX_REVIEWED_BYTES:
        raise DpverifyError(f"--equivalents={shown(path)} is larger than {_MAX_REVIEWED_BYTES} bytes.")
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as error:
        raise DpverifyError(f"cannot read --equivalents={shown(path)}: {error.strerror or error}.") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise DpverifyError(f"{path} is not valid TOML: {shown(str(error), 120)}.") from None
    unknown = set(document) - {"equivalent", "skip"}
    if unknown:
        raise DpverifyError(
            f"{path}: unknown table {shown(sorted(unknown)[0])}; the file holds [[equivalent]] and [[skip]] entries."
        )
    equivalents = tuple(
        Equivalent(**_entry(path, "equivalent", i, e, _EQUIVALENT_KEYS, ("id", "module", "reason")))
        for i, e in enumerate(_array(path, document, "equivalent"))
    )
    skips = tuple(
        Skip(**_entry(path, "skip", i, e, _SKIP_KEYS, ("module", "function", "reason")))
        for i, e in enumerate(_array(path, document, "skip"))
    )
    seen: set[str] = set()
    for equivalent in equivalents:
        if equivalent.id in seen:
            raise DpverifyError(f"{path}: mutant {shown(equivalent.id)} is listed twice.")
        seen.add(equivalent.id)
        if not equivalent.id.startswith(f"{equivalent.module}:"):
            raise DpverifyError(
                f"{path}: mutant {shown(equivalent.id)} is not in module {shown(equivalent.module)}; "
                f"an id starts with its module."
            )
    return Reviewed(path, equivalents, skips)


def _array(path: str, document: dict[str, Any], name: str) -> list[Any]:
    value = document.get(name, [])
    if not isinstance(value, list):
        raise DpverifyError(f"{path}: {name} must be an array of tables, written [[{name}]].")
    return value


def _entry(
    path: str, table: str, index: int, entry: object, keys: Mapping[str, type], required: Sequence[str]
) -> dict[str, Any]:
    where = f"{path}: [[{table}]] number {index + 1}"
    if not isinstance(entry, dict):
        raise DpverifyError(f"{where} must be a table.")
    for key, value in entry.items():
        if key not in keys:
            raise DpverifyError(f"{where}: unknown key {shown(key)}; allowed: {', '.join(keys)}.")
        if not isinstance(value, keys[key]) or isinstance(value, bool):
            raise DpverifyError(f"{where}: {key} must be a {keys[key].__name__}; got {key}={shown(value)}.")
    for key in required:
        if not str(entry.get(key, "")).strip():
            raise DpverifyError(f"{where}: {key} is required and must not be empty.")
    return dict(entry)
