"""``dpverify prove``: prove every theorem, write the certificates and the manifest, and
optionally recheck them with cvc5; the one command that calls into ``dpverify.proofs`` to write."""

from __future__ import annotations

import argparse
from typing import Any

from dpverify.samplers import DpverifyError
from dpverify.verify.cli._common import MAX_TIMEOUT, _count
from dpverify.verify.engine._results import Verdict

__all__ = ["add_prove_parser"]


def _prove(args: argparse.Namespace) -> int:
    # The CLI is the one place that composes the layers: proofs/ builds on verify/, so
    # verify/ never imports it except here, lazily.
    from dpverify.proofs._certificates import instance_obligations, repository_root
    from dpverify.proofs._manifest import prove_result, write_certificates
    from dpverify.proofs._recheck import recheck_certificates
    from dpverify.proofs._solvers import cvc5_version
    from dpverify.proofs.registry import THEOREMS

    if args.recheck and cvc5_version() is None:
        raise DpverifyError(
            "--recheck needs the cvc5 solver, which is not installed; install it with pip install 'dpverify[recheck]'."
        )
    root, timeout_ms = repository_root(), args.timeout * 1000

    def show(record: Any) -> None:
        met = record.verdict is record.expect
        expected = "" if met else f" (expected {record.expect.value})"
        reason = f" ({record.reason})" if record.reason else ""
        print(f"{'ok  ' if met else 'FAIL'} {record.name}: {record.verdict.value}{expected}{reason}")

    manifest = write_certificates(root, THEOREMS, instance_obligations(), timeout_ms=timeout_ms, report=show)
    outcome = prove_result(manifest)
    print(f"prove: {outcome.verdict.value}: {outcome.summary}")
    failed = outcome.verdict is not Verdict.PROVED
    if args.recheck:
        recheck = recheck_certificates(
            root, timeout_ms=timeout_ms, report=lambda row: print(f"  {row['outcome']:<9} {row['message']}")
        )
        print(f"recheck: {recheck.verdict.value}: {recheck.summary}")
        failed |= recheck.verdict is Verdict.VIOLATED  # unknown answers are reported, not failures
    return 1 if failed else 0


def add_prove_parser(commands: Any) -> None:
    """Declare ``dpverify prove`` on the CLI's subcommands; its handler is :func:`_prove`."""
    prove = commands.add_parser("prove", help="prove every theorem; write proofs/certificates and proofs/manifest.json")
    prove.add_argument(
        "--recheck", action="store_true", help="recheck every certificate with cvc5 (pip install 'dpverify[recheck]')"
    )
    prove.add_argument(
        "--timeout", type=_count("timeout", 1, MAX_TIMEOUT), default=60, help="seconds per obligation and solver"
    )
    prove.set_defaults(run=_prove)
