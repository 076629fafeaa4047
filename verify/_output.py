"""One meaning of ``--json`` in every command, and output paths checked before the work.

``--json PATH`` writes the command's JSON document to ``PATH`` and keeps the human report on
stdout; ``--json`` alone, or ``--json -``, writes the JSON to stdout and moves the human report
to stderr, so a pipe always receives exactly one JSON document.  Without ``--json`` only the
human report is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, TextIO

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown

__all__ = ["add_json_option", "check_output_path", "emit_json", "human_stream", "write_text"]

#: What ``--json`` holds when given without a path: stdout.
STDOUT = "-"


def add_json_option(parser: argparse.ArgumentParser, what: str = "the results") -> None:
    parser.add_argument("--json", nargs="?", const=STDOUT, metavar="PATH",
                        help=f'write {what} as JSON to PATH; "--json" alone (or "--json -") writes it to stdout '
                             "and the human report to stderr")


def human_stream(args: argparse.Namespace) -> TextIO:
    """Where the human report goes: stderr when the JSON owns stdout."""
    return sys.stderr if getattr(args, "json", None) == STDOUT else sys.stdout


def check_output_path(option: str, path: str | None) -> None:
    """Refuse an output path that cannot be written before the work, not after it."""
    if path is None or path == STDOUT:
        return
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise DpverifyError(f"{option} must be a file path; got {option}={shown(path)}, which is a directory.")
    if not os.path.isdir(directory):
        raise DpverifyError(f"{option} must be in an existing directory; got {option}={shown(path)}.")
    if not os.access(directory, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise DpverifyError(f"{option} must be a writable path; got {option}={shown(path)}, which is not writable.")


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
    if path == STDOUT:
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    write_text("--json", path, json.dumps(document, indent=2) + "\n")
    print(f"JSON written to {path}", file=human_stream(args))
