"""``dpverify``: the command-line interface (a stable interface; see the README).

Exit codes, the same in every command: 0 every expectation met (``check``: every case met its
expectation and the source tree is clean; ``privacy``: the claim holds); 1 a gate that did not
pass: a claim violated, a proof stale, a cross-check that disagrees (each command's meaning of 1
is in the README's table); 2 bad usage or a broken spec (one line on stderr, no traceback).
Every ``--json`` document names its schema, ``dpverify.<name>/<version>``, published as
``schemas/<name>-<version>.schema.json``.

One module per command (``_check``, ``_audit``, ...) declares its options and runs it;
``_parser`` assembles them; this module is the entry point.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from dpverify.samplers import DpverifyError
from dpverify.verify.cli._audit import _audit as _audit_command
from dpverify.verify.cli._common import _clip
from dpverify.verify.cli._parser import build_parser
from dpverify.verify.reports._output import check_output_paths

__all__ = ["build_parser", "main"]


#: The commands whose exit code is a gate's verdict: stopped before the end, they did not pass.
GATES = frozenset({"check", "mutate", "prove"})
#: The exit code of a run interrupted with Ctrl-C (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130


def _options(parser: argparse.ArgumentParser) -> dict[str, str]:
    """``{dest: option string}`` over ``parser`` and every subcommand's parser."""
    found: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _options(sub)
        elif action.option_strings:
            found.setdefault(action.dest, action.option_strings[-1])
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.run is not _audit_command:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if unknown:
        args.parameters = unknown  # an audit's --PARAM VALUE pairs, read against the spec's parameters
    for dest, value in vars(args).items():
        # argparse reads "--seed=--" as an empty list and skips the type check
        if value == [] and dest in (options := _options(parser)):
            parser.error(f"{options[dest]} needs a value")
    args.argv = ["dpverify", *(sys.argv[1:] if argv is None else argv)]  # for the reports that record the command
    command: Callable[[argparse.Namespace], int] = args.run
    try:
        check_output_paths(args)  # before the work, in every command
        return command(args)
    except DpverifyError as error:
        print(f"dpverify: error: {_clip(str(error), 400)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (e.g. `head`) stopped reading; point stdout at devnull so the interpreter's
        # final flush does not raise again (the recipe in Python's signal documentation).  A gate
        # stopped this way reached no verdict, so it did not pass.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1 if args.command in GATES else 0
    except KeyboardInterrupt:
        print("dpverify: interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
