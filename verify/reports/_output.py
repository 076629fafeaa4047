"""One meaning of ``--json`` (and ``--junit``) in every command, and output paths checked before the work.

``--json PATH`` writes the command's JSON document to ``PATH`` and keeps the human report on
stdout; ``--json`` alone, or ``--json -``, writes the JSON to stdout and moves the human report
to stderr, so a pipe always receives exactly one JSON document.  Without ``--json`` only the
human report is printed.  ``--junit PATH`` (``dpverify check``) writes JUnit XML the same way;
``--junit -`` writes it to stdout, which then only one of the two may claim.

Every JSON document carries ``"schema": "dpverify.<name>/<version>"``, declared with the option
(``add_json_option(..., schema=...)``) and published as ``schemas/<name>-<version>.schema.json``:
a command's ``--json`` help names its schema, and :func:`emit_json` refuses a document whose
``schema`` is not the one declared.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any, TextIO

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown

__all__ = [
    "JsonOption",
    "add_json_option",
    "add_junit_option",
    "check_output_path",
    "check_output_paths",
    "emit_json",
    "emit_junit",
    "human_stream",
    "write_text",
]

#: What ``--json`` holds when given without a path: stdout.
STDOUT = "-"
#: ``dpverify.<name>/<version>``: the form of every document's ``schema`` field.
SCHEMA_ID = re.compile(r"dpverify\.[a-z][a-z0-9]*(?:-[a-z0-9]+)*/[1-9][0-9]*")


class JsonOption(argparse.Action):
    """``--json [PATH]``, which also records the ``schema`` of the document it writes."""

    def __init__(self, option_strings: list[str], dest: str, schema: str | None = None, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.schema = schema

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)


def add_json_option(parser: argparse.ArgumentParser, what: str = "the results", *, schema: str | None = None) -> None:
    """Declare ``--json [PATH]`` on ``parser``; ``schema`` (``"dpverify.<name>/<version>"``) is the
    ``schema`` field of the document the command writes, published as
    ``schemas/<name>-<version>.schema.json``.  Every command must declare one (the tests check)."""
    assert schema is None or SCHEMA_ID.fullmatch(schema), f"not a schema id: {schema!r}"
    named = f" (schema {schema})" if schema else ""
    parser.add_argument(
        "--json",
        nargs="?",
        const=STDOUT,
        metavar="PATH",
        action=JsonOption,
        schema=schema,
        help=f'write {what} as JSON{named} to PATH; "--json" alone (or "--json -") writes it to '
        "stdout and the human report to stderr",
    )
    parser.set_defaults(json_schema=schema)


def add_junit_option(parser: argparse.ArgumentParser, what: str = "the results") -> None:
    parser.add_argument(
        "--junit", metavar="PATH", help=f'write {what} as JUnit XML to PATH ("-": stdout, the human report to stderr)'
    )


def human_stream(args: argparse.Namespace) -> TextIO:
    """Where the human report goes: stderr when the JSON or the JUnit XML owns stdout."""
    owned = STDOUT in (getattr(args, "json", None), getattr(args, "junit", None), getattr(args, "sarif", None))
    return sys.stderr if owned else sys.stdout


def check_output_path(option: str, path: str | None) -> None:
    """Refuse an output path that cannot be written before the work, not after it."""
    if path is None or path == STDOUT:
        return
    if not path.strip():
        raise DpverifyError(
            f"{option} must name a file; got an empty path (give a PATH, or the bare option for stdout)."
        )
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise DpverifyError(f"{option} must be a file path; got {option}={shown(path)}, which is a directory.")
    if not os.path.isdir(directory):
        raise DpverifyError(f"{option} must be in an existing directory; got {option}={shown(path)}.")
    if not os.access(directory, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise DpverifyError(f"{option} must be a writable path; got {option}={shown(path)}, which is not writable.")
    try:  # a trial that leaves the file as it was: a pseudo-file (/proc, /sys) passes the checks above
        if not os.path.lexists(path):
            with open(path, "x", encoding="utf-8"):
                pass
            os.remove(path)
        elif os.path.isfile(path):
            with open(path, "a", encoding="utf-8"):
                pass
    except OSError as error:
        raise DpverifyError(
            f"{option} cannot be written: {error.strerror or error}; got {option}={shown(path)}."
        ) from None


def check_output_paths(args: argparse.Namespace) -> None:
    """Every machine-readable output of a command (``--json``, ``--junit``, ``--sarif``) checked
    before its work: each path writable, at most one of them on stdout, and no two the same file."""
    chosen = {
        option: path
        for option, path in (
            ("--json", getattr(args, "json", None)),
            ("--junit", getattr(args, "junit", None)),
            ("--sarif", getattr(args, "sarif", None)),
        )
        if path is not None
    }
    for option, path in chosen.items():
        check_output_path(option, path)
    pairs = [(a, b) for i, a in enumerate(chosen.items()) for b in list(chosen.items())[i + 1 :]]
    for (first, one), (second, other) in pairs:
        if one == other == STDOUT:
            raise DpverifyError(f"only one of {first} and {second} can write to stdout; give the other a PATH.")
        if STDOUT not in (one, other) and os.path.abspath(one) == os.path.abspath(other):
            raise DpverifyError(
                f"{first} and {second} must be different files; got {first}={shown(one)} and {second}={shown(other)}."
            )


def write_text(option: str, path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise DpverifyError(f"could not write {option}={shown(path)}: {error.strerror or error}.") from None


def emit_json(args: argparse.Namespace, document: Any) -> None:
    """Write ``document`` where ``--json`` says (nothing without it)."""
    path = getattr(args, "json", None)
    if path is None:
        return
    declared = getattr(args, "json_schema", None)
    assert declared is None or document.get("schema") == declared, (
        f"the document's schema {document.get('schema')!r} is not the declared {declared!r}"
    )
    if path == STDOUT:
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    write_text("--json", path, json.dumps(document, indent=2) + "\n")
    print(f"JSON written to {path}", file=human_stream(args))


def emit_junit(args: argparse.Namespace, text: str) -> None:
    """Write the JUnit XML ``text`` where ``--junit`` says (nothing without it)."""
    path = getattr(args, "junit", None)
    if path is None:
        return
    if path == STDOUT:
        sys.stdout.write(text)
        return
    write_text("--junit", path, text)
    print(f"JUnit XML written to {path}", file=human_stream(args))
