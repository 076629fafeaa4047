"""The ``dpverify`` command's first step: import the package, and answer with one line, not a
traceback, when the installed tree itself does not import (a syntax or name error in a module).

Only the standard library is imported before that import succeeds.  For ``dpverify check`` a
package that does not import is a failed gate: the repository check ``imports`` is violated
(exit 1, and the ``--json`` document and the ``--junit`` report say so), because no sampler in
it can run.  Every other command reports it as an error (exit 2).
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Sequence

from dpverify._check_schema import CHECK_SCHEMA
from dpverify._junit import FAILURE, JunitCase, JunitSuite, junit_xml


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
    json_path, junit_path = _option_path(arguments[1:], "--json"), _option_path(arguments[1:], "--junit")
    stdout_taken = "-" in (json_path, junit_path)
    print(f"FAIL imports: violated: {summary}", file=sys.stderr if stdout_taken else sys.stdout)
    reason = "no sampler or spec of a package that does not import can run"
    outputs = []
    if json_path is not None:
        result = {"check": "imports", "verdict": "violated", "summary": summary, "reason": reason,
                  "evidence": {"error": type(error).__name__, "message": message, "where": where}}
        document = {"schema": CHECK_SCHEMA, "passed": False, "broken_specs": 0, "seed": None, "samples": None,
                    "entries": [], "repository": [result]}
        outputs.append(("--json", json_path, json.dumps(document, indent=2) + "\n"))
    if junit_path is not None:
        case = JunitCase("repository", "imports", status=FAILURE, message=f"imports violated: {summary}",
                         type="expected proved, got violated", details=f"FAIL imports: violated: {summary}\n{reason}")
        outputs.append(("--junit", junit_path, junit_xml([JunitSuite("repository", (case,))], name="dpverify check")))
    for option, path, text in outputs:
        if path == "-":
            sys.stdout.write(text)
            continue
        try:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as problem:
            print(f"dpverify: error: {option} could not be written: {option}={path!r}: {problem.strerror}",
                  file=sys.stderr)
            return 2
    return 1


def _option_path(options: list[str], option: str) -> str | None:
    """The value of ``option`` (``--json``, ``--junit``) among ``check``'s options, or None;
    ``--json`` with no value is stdout, as the parser reads it."""
    for index, given in enumerate(options):
        if given == option:
            following = options[index + 1] if index + 1 < len(options) else None
            if following is None or (following.startswith("-") and following != "-"):
                return "-" if option == "--json" else None
            return following
        if given.startswith(f"{option}="):
            return given.removeprefix(f"{option}=")
    return None
