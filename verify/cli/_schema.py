"""``dpverify schema``: print a published JSON Schema, read from the installed package."""

from __future__ import annotations

import argparse
import re
from importlib import resources
from typing import Any

from dpverify.samplers import DpverifyError

__all__ = ["add_schema_parser", "schema_files"]

_FILE = re.compile(r"(?P<name>[a-z0-9-]+?)-(?P<version>[0-9]+)\.schema\.json")


def schema_files() -> dict[tuple[str, int], Any]:
    """``{(name, version): file}`` of every schema installed with dpverify."""
    found = {}
    for entry in resources.files("dpverify.schemas").iterdir():
        match = _FILE.fullmatch(entry.name)
        if match:
            found[(match["name"], int(match["version"]))] = entry
    return found


def _key(text: str, files: dict[tuple[str, int], Any]) -> tuple[str, int]:
    """NAME (the newest version), NAME-VERSION, NAME/VERSION or the document's id dpverify.NAME/VERSION."""
    match = re.fullmatch(r"(?:dpverify\.)?(?P<name>[a-z0-9-]+?)(?:[-/](?P<version>[0-9]+))?(?:\.schema\.json)?", text)
    if match:
        name = match["name"]
        versions = sorted(v for n, v in files if n == name)
        if versions:
            version = int(match["version"]) if match["version"] else versions[-1]
            if (name, version) in files:
                return name, version
    names = ", ".join(sorted({n for n, _ in files}))
    raise DpverifyError(
        f"schema NAME must be one of {names} (newest version), or NAME-VERSION; got "
        f"NAME={text[:40]!r}. dpverify schema --list shows every version."
    )


def _schema(args: argparse.Namespace) -> int:
    files = schema_files()
    if args.list or args.name is None:
        newest: dict[str, int] = {}
        for name, version in files:
            newest[name] = max(version, newest.get(name, 0))
        for name, version in sorted(files):
            print(f"dpverify.{name}/{version}{'' if newest[name] != version else '   (newest)'}")
        return 0
    print(files[_key(args.name, files)].read_text(encoding="utf-8"), end="")
    return 0


def add_schema_parser(commands: Any) -> None:
    schema = commands.add_parser(
        "schema", help="print the JSON Schema of a --json document (from the installed package)"
    )
    schema.add_argument(
        "name",
        nargs="?",
        metavar="NAME",
        help="check (the newest version), check-2, or dpverify.check/2; without it, the list",
    )
    schema.add_argument("--list", action="store_true", help="list every published schema and version")
    schema.set_defaults(run=_schema)
