"""``build_parser()``: the ``dpverify`` parser, its subcommands in the order ``--help`` lists them,
each declared by its command's module."""

from __future__ import annotations

import argparse

from dpverify import __version__
from dpverify.verify.cli._account import add_account_parser
from dpverify.verify.cli._attack import add_attack_parser
from dpverify.verify.cli._audit import add_audit_parser
from dpverify.verify.cli._check import add_check_parser
from dpverify.verify.cli._common import MAX_JOBS, MAX_SEED, MAX_TIMEOUT, _count, _Parser, _usage
from dpverify.verify.cli._diff import add_diff_parser
from dpverify.verify.cli._mutate import add_mutate_parser
from dpverify.verify.cli._pmf import add_pmf_parser
from dpverify.verify.cli._privacy import add_privacy_parser
from dpverify.verify.cli._prove import add_prove_parser
from dpverify.verify.cli._reproduce import add_reproduce_command
from dpverify.verify.cli._schema import add_schema_parser
from dpverify.verify.cli._survey import add_survey_parser

__all__ = ["build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dpverify", description="Exact verification of differential-privacy samplers.")
    parser.add_argument("--version", action="version", version=f"dpverify {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    parser.set_defaults(run=_usage(parser))
    add_check_parser(commands)
    add_diff_parser(commands, _count, MAX_SEED, MAX_TIMEOUT)
    add_mutate_parser(commands)
    add_audit_parser(commands)
    add_pmf_parser(commands)
    add_privacy_parser(commands)
    add_account_parser(commands)
    add_prove_parser(commands)
    add_reproduce_command(commands, _count, MAX_JOBS)
    add_attack_parser(commands)
    add_schema_parser(commands)
    add_survey_parser(commands)
    return parser
