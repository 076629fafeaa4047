"""``dpverify attack laplace-float``: the exact attack on the textbook floating-point Laplace
(Mironov 2012) at K bits of randomness."""

from __future__ import annotations

import argparse
from typing import Any

from dpverify.verify.cli._common import MAX_SAMPLES, MAX_SEED, _count, _Parser, _usage
from dpverify.verify.precision._float_attack import LAPLACE_FLOAT_ATTACK_SCHEMA
from dpverify.verify.reports._output import add_json_option, emit_json, human_stream

__all__ = ["add_attack_parser"]


def _attack_laplace_float(args: argparse.Namespace) -> int:
    from dpverify.verify.precision._float_attack import attack_text, laplace_float_attack

    document = laplace_float_attack(args.scale, args.q, args.q_prime, args.bits, samples=args.samples, seed=args.seed)
    print(attack_text(document), file=human_stream(args))
    emit_json(args, document)
    return 0


def add_attack_parser(commands: Any) -> None:
    """Declare ``dpverify attack`` on the CLI's subcommands; its handler is :func:`_attack_laplace_float`."""
    attack = commands.add_parser("attack", help="exact attacks on UNSAFE floating-point samplers")
    attack_mechanisms = attack.add_subparsers(dest="mechanism", parser_class=_Parser, metavar="MECHANISM")
    attack.set_defaults(run=_usage(attack))
    laplace_float = attack_mechanisms.add_parser(
        "laplace-float", help="the textbook float Laplace (Mironov 2012): exact epsilon at K bits"
    )
    laplace_float.add_argument("--scale", required=True, help="noise scale b > 0 (a float is fine here)")
    laplace_float.add_argument("--q", required=True, help="true value (write --q=-1.5 for negatives)")
    laplace_float.add_argument("--q-prime", required=True, help="neighbouring true value")
    laplace_float.add_argument(
        "--bits", type=_count("bits", 2, 24), required=True, help="draw bits K, 2..24, enumerated exhaustively"
    )
    laplace_float.add_argument(
        "--samples",
        type=_count("samples", 0, MAX_SAMPLES),
        default=1000,
        help="53-bit outputs tested for reachability (0 skips)",
    )
    laplace_float.add_argument(
        "--seed", type=_count("seed", 0, MAX_SEED), help="seed of those samples (default: fresh)"
    )
    add_json_option(laplace_float, "the report", schema=LAPLACE_FLOAT_ATTACK_SCHEMA)
    laplace_float.set_defaults(run=_attack_laplace_float)
