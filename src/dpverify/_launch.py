"""The ``dpverify`` command's first step.

Run as the ``dpverify`` script or ``python -m dpverify``, it is the supervisor
(:mod:`dpverify._supervisor`): it runs the command in a child process and owns the exit code.
In that child (the channel named in the environment) it runs the command, reports to the
supervisor and says when it is done.  Called with arguments from Python (``main([...])``, as
``dpverify mutate``'s fork server does, which supervises its runs itself) it runs the command in
this process.

Either way it imports the package and answers with one line, not a traceback, when the
installed tree itself does not import (a syntax or name error in a module); only the standard
library is imported before that import succeeds.  For ``dpverify check`` a package that does
not import is a failed gate: the repository check ``imports`` is violated (exit 1, and the
``--json`` document and the ``--junit`` report say so), because no sampler in it can run.
Every other command reports it as an error (exit 2).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence

from dpverify import _channel
from dpverify._supervisor import check_failure_reports, supervise, write_reports


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if _channel.attach():
        return _child(arguments)
    if argv is None:
        return supervise(arguments)
    return _run(arguments)


def _run(arguments: list[str]) -> int:
    try:
        from dpverify.verify.cli import main as run
    except Exception as error:  # noqa: BLE001 - any failure to import is the tree's, reported in one line
        return _unimportable(error, arguments)
    return run(arguments)


def _child(arguments: list[str]) -> int:
    """The supervised child: the command, then ``done`` with its exit code.  Whatever else ends
    it (a ``SystemExit`` from user code that escaped every case, an error of dpverify's own) is
    told to the supervisor in one line, which decides without a ``done``."""
    try:
        code = _run(arguments)
    except SystemExit as stop:
        if _channel.user_code_ran():
            _channel.crashed(f"SystemExit({stop.code!r}) escaped every case (at {_where(stop, anywhere=True)})")
            return 1
        code = _exit_status(stop)  # argparse's usage error (2), or --help (0): no user code has run
    except BaseException as error:  # noqa: BLE001 - the supervisor decides; no traceback reaches the user
        _channel.crashed(
            f"{type(error).__name__}: {' '.join(str(error).split())[:300]} (at {_where(error, anywhere=True)})"
        )
        return 1
    _channel.finished(code)
    return code


def _exit_status(stop: SystemExit) -> int:
    """The status ``sys.exit(code)`` gives: None is 0, an int itself, anything else printed and 1."""
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr)
    return 1


def _where(error: BaseException, *, anywhere: bool = False) -> str:
    """``file:line`` of the innermost frame inside dpverify (the line whose import failed), or of
    the innermost frame at all (``anywhere``)."""
    frames = [
        f for f in traceback.extract_tb(error.__traceback__) if anywhere or "dpverify" in f.filename.replace("\\", "/")
    ]
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
    from dpverify._supervisor import option_path

    stdout_taken = "-" in (option_path(arguments[1:], "--json"), option_path(arguments[1:], "--junit"))
    print(f"FAIL imports: violated: {summary}", file=sys.stderr if stdout_taken else sys.stdout)
    reason = "no sampler or spec of a package that does not import can run"
    outputs = check_failure_reports(
        arguments[1:],
        "imports",
        "violated",
        summary,
        reason,
        {"error": type(error).__name__, "message": message, "where": where},
    )
    return 1 if write_reports(outputs, sys.stdout.write, sys.stderr.write) else 2
