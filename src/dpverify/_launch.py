"""The ``dpverify`` command's first step: import the package, and answer with one line, not a
traceback, when the installed tree itself does not import (a syntax or name error in a module).

Only the standard library is imported before that import succeeds.  For ``dpverify check`` a
package that does not import is a failed gate: the repository check ``imports`` is violated
(exit 1, and the ``--json`` document says so), because no sampler in it can run.  Every other
command reports it as an error (exit 2).
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Sequence

#: Version of the JSON document ``dpverify check --json`` writes (see the README).
CHECK_SCHEMA = "dpverify.check/2"


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        from dpverify.verify.cli import main as run
    except Exception as error:  # noqa: BLE001 - any failure to import is the tree's, reported in one line
        return _unimportable(error, arguments)
    return run(arguments)


def _where(error: BaseException) -> str:
    """``file:line`` of the innermost frame inside dpverify (the line whose import failed)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "dpverify" in f.filename.replace("\\", "/")]
    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}:{error.lineno}"
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "unknown place"


def _unimportable(error: Exception, arguments: list[str]) -> int:
    where = _where(error)
    message = " ".join(f"{type(error).__name__}: {error}".split())[:300]
    summary = f"the dpverify package does not import: {message} (at {where})"
    if not arguments or arguments[0] != "check":
        print(f"dpverify: error: {summary}", file=sys.stderr)
        return 2
    path = _json_path(arguments[1:])
    print(f"FAIL imports: violated: {summary}", file=sys.stderr if path == "-" else sys.stdout)
    if path is not None:
        result = {"check": "imports", "verdict": "violated", "summary": summary,
                  "reason": "no sampler or spec of a package that does not import can run",
                  "evidence": {"error": type(error).__name__, "message": message, "where": where}}
        document = {"schema": CHECK_SCHEMA, "passed": False, "broken_specs": 0, "seed": None, "samples": None,
                    "entries": [], "repository": [result]}
        text = json.dumps(document, indent=2) + "\n"
        if path == "-":
            sys.stdout.write(text)
        else:
            try:
                with open(path, "w", encoding="utf-8") as out:
                    out.write(text)
            except OSError as problem:
                print(f"dpverify: error: --json could not be written: --json={path!r}: {problem.strerror}",
                      file=sys.stderr)
                return 2
    return 1


def _json_path(options: list[str]) -> str | None:
    """The value of ``--json`` among ``check``'s options, or None."""
    for index, option in enumerate(options):
        if option == "--json" and index + 1 < len(options):
            return options[index + 1]
        if option.startswith("--json="):
            return option.removeprefix("--json=")
    return None
