"""``dpverify account``: the composition bounds of k steps (basic, DRV, zCDP, optimal), printed
one per line with the one chosen."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from dpverify.samplers import InvalidArgument
from dpverify.specs import ACCOUNT_SCHEMA
from dpverify.verify.cli._common import MAX_COMPOSITIONS, _count, explain_number_limit
from dpverify.verify.engine._text import short_rational
from dpverify.verify.reports._output import add_json_option, emit_json, human_stream

__all__ = ["add_account_parser"]


def _account(args: argparse.Namespace) -> int:
    from dpverify.specs import account

    try:
        result = account(
            args.epsilon,
            args.delta,
            args.k,
            args.delta_prime,
            rho=args.rho,
            mechanism=args.mechanism,
            sensitivity=args.sensitivity,
        )
    except InvalidArgument as error:
        raise explain_number_limit(
            error,
            {
                "epsilon": args.epsilon,
                "delta": args.delta,
                "delta_prime": args.delta_prime,
                "rho": args.rho,
                "sensitivity": args.sensitivity,
            },
        ) from None
    with contextlib.redirect_stdout(human_stream(args)):
        _print_account(args, result)
    emit_json(args, result.to_json())
    return 0


def _print_account(args: argparse.Namespace, result: Any) -> None:
    rho = f", rho-zCDP with rho <= {result.rho} ({result.rho_source})" if result.rho is not None else ""
    print(
        f"dpverify account: {result.k}-fold composition of {args.mechanism} steps, each "
        f"(eps={short_rational(result.epsilon)}, delta={short_rational(result.delta)})-DP{rho}"
    )
    noise = result.noise
    if "laplace_scale" in noise:
        print(f"  noise           Laplace scale b = s/eps = {noise['laplace_scale']} (s = {noise['sensitivity']})")
    elif "gaussian_sigma2" in noise:
        print(
            f"  noise           sigma^2 = {noise['gaussian_sigma2_formula']} <= {noise['gaussian_sigma2']} "
            f"(s = {noise['sensitivity']})"
        )
    print(
        f"  target          delta_total = k*delta + delta' = {short_rational(result.delta_total)}"
        f"{'  VACUOUS (>= 1): no bound can say anything' if result.vacuous else ''}"
    )
    for bound in result.bounds:
        if not bound.applies:
            state = f"not applicable: {bound.reason}"
        elif bound.vacuous:
            state = f"VACUOUS, no guarantee ({bound.reason})"
        else:
            state = f"eps' <= {bound.epsilon}  {bound.title}"
        print(f"  {bound.name:<15} {state}")
    chosen = result.chosen_bound()
    if chosen is None:
        print("  chosen          none: every bound is vacuous or not applicable")
    else:
        print(
            f"  chosen          {chosen.name}: ({chosen.epsilon}, {short_rational(result.delta_total)})-DP "
            f"[{chosen.citation}]"
        )
    extra = result.zcdp_at_delta_prime
    if extra is not None and extra.guarantee:
        print(
            f"  also            zCDP alone: ({extra.epsilon}, {short_rational(extra.delta_total)})-DP, "
            "at delta' without k*delta (CKS20 conversion)"
        )


def add_account_parser(commands: Any) -> None:
    """Declare ``dpverify account`` on the CLI's subcommands; its handler is :func:`_account`."""
    account_ = commands.add_parser("account", help="composition bounds for k steps: basic, DRV, zCDP, optimal (KOV)")
    account_.add_argument(
        "--mechanism",
        required=True,
        choices=("gaussian", "laplace", "pure", "approx"),
        help="gaussian: classic calibration (eps < 1); laplace/pure: pure eps-DP; approx: (eps, delta)-DP",
    )
    account_.add_argument("--epsilon", required=True, help='per-step epsilon, an exact decimal or rational, e.g. "0.1"')
    account_.add_argument("--delta", default="0", help='per-step delta in [0, 1) (default 0), e.g. "1e-6"')
    account_.add_argument("--k", required=True, type=_count("k", 1, MAX_COMPOSITIONS), help="number of compositions")
    account_.add_argument("--delta-prime", required=True, help="slack delta' in (0, 1): delta_total = k*delta + delta'")
    account_.add_argument("--rho", help="per-step rho-zCDP the mechanism also has (not with gaussian)")
    account_.add_argument("--sensitivity", default="1", help="sensitivity s for the noise scale shown (default 1)")
    add_json_option(account_, "the report", schema=ACCOUNT_SCHEMA)
    account_.set_defaults(run=_account)
