"""``dpverify privacy gtm | dgauss | gazeau``: one instance's tightest privacy, with its witness
(GTM, optionally cross-checked by Z3), the discrete Gaussian's zCDP and tight delta, and the
UNSAFE float Laplace of Gazeau et al. against its Theorem 4.5."""

from __future__ import annotations

import argparse
import contextlib
from fractions import Fraction
from typing import Any

from dpverify.samplers import DpverifyError, as_fraction
from dpverify.specs import GtmSpec
from dpverify.verify.cli._common import _describe, _gtm_arguments, _gtm_spec, _Parser, _usage
from dpverify.verify.engine._results import Verdict
from dpverify.verify.engine._text import short_rational
from dpverify.verify.precision._gazeau import PRIVACY_GAZEAU_SCHEMA
from dpverify.verify.privacy._accounting import PRIVACY_DGAUSS_SCHEMA
from dpverify.verify.privacy._gtm_privacy import PRIVACY_GTM_SCHEMA, gtm_privacy, gtm_table
from dpverify.verify.reports._output import add_json_option, check_output_path, emit_json, human_stream, write_text

__all__ = ["add_privacy_parser"]


def _privacy(args: argparse.Namespace) -> int:
    spec = _gtm_spec(args)
    claim = None if args.claim_alpha is None else as_fraction("claim-alpha", args.claim_alpha)
    if claim is not None and not 0 < claim <= 1:
        raise DpverifyError(f"claim-alpha must be a rational in (0, 1]; got claim-alpha={claim}.")
    check_output_path("--smtlib", args.smtlib)
    report = gtm_privacy(spec, claim)
    if args.z3 or args.smtlib:
        # Imported here so that the exact answer never waits for Z3 to load.
        from dpverify.specs import PureDpClaim
        from dpverify.verify.privacy._smt import check_ratio_bound_z3, smtlib_obligation

        table = gtm_table(spec)
        stated = PureDpClaim(Fraction(report["claim_alpha"]))
        if args.z3:
            report["z3"] = check_ratio_bound_z3(table, spec.neighbours(), stated).to_json()
        if args.smtlib:
            write_text("--smtlib", args.smtlib, smtlib_obligation(table, spec.neighbours(), stated))
    with contextlib.redirect_stdout(human_stream(args)):
        _print_privacy(spec, report)
    emit_json(args, report)
    # Z3 on the same table is a second computation of the same answer: if it finds a counterexample
    # the exact check missed, the two disagree, and the claim is not established.
    z3_refutes = report.get("z3", {}).get("verdict") == Verdict.VIOLATED.value
    return 0 if report["claim_holds"] and not z3_refutes else 1


def _print_privacy(spec: GtmSpec, report: dict[str, Any]) -> None:
    w = report["witness"]
    print(f"GTM {_describe(spec)}")
    print(f"  tightest alpha  {short_rational(Fraction(report['alpha_exact']))}  (epsilon = {report['epsilon']})")
    if w:
        print(
            f"  witness         q={w['q']}, q'={w['q_prime']}, output={w['output']}: "
            f"P={short_rational(Fraction(w['p']))}, P'={short_rational(Fraction(w['p_prime']))}"
        )
    print(
        f"  support         T >= {short_rational(Fraction(report['support_bound']))}: "
        f"{_yes(report['full_support'])}; every output possible: {_yes(report['every_output_possible'])}"
    )
    alpha_prime = Fraction(report["thm62_alpha_prime"])
    # A bound alpha' <= 0 says nothing, so "holds" would overstate it.
    verdict = (
        "vacuous (T <= 1/D), nothing to hold" if alpha_prime <= 0 else "holds" if report["thm62_holds"] else "FAILS"
    )
    print(f"  Theorem 6.2     alpha' = {short_rational(alpha_prime)}: {verdict}")
    print(f"  Theorem 7.1     {'instance (exact)' if report['thm71_instance'] else 'not an instance'}")
    print(
        f"  claim           alpha >= {short_rational(Fraction(report['claim_alpha']))}: "
        f"{'holds' if report['claim_holds'] else 'VIOLATED'}"
    )
    if "z3" in report:
        print(f"  Z3              {report['z3']['verdict']}: {report['z3']['summary']}")


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _privacy_dgauss(args: argparse.Namespace) -> int:
    from dpverify.verify.privacy._accounting import dgauss_privacy

    report = dgauss_privacy(args.sigma2, args.epsilon, args.sensitivity)
    with contextlib.redirect_stdout(human_stream(args)):
        p = report["parameters"]
        print(f"discrete Gaussian sigma2={short_rational(Fraction(p['sigma2']))}, sensitivity={p['sensitivity']}")
        print(f"  rho-zCDP        rho = {report['rho']}  (CKS20 Theorem 4)")
        print(
            f"  (eps, delta)    eps = {p['epsilon']}: delta = {report['delta']}  (CKS20 Theorem 7, "
            f"{report['delta_digits']} certified digits)"
        )
        if report["hockey_stick_agrees"] is None:
            print(f"  cross-check     skipped: {report['hockey_stick_skipped']}")
        else:
            verdict = "agrees" if report["hockey_stick_agrees"] else "DISAGREES"
            print(f"  cross-check     direct hockey-stick sum {verdict}: {report['delta_hockey_stick']}")
    emit_json(args, report)
    return 1 if report["hockey_stick_agrees"] is False else 0


def _privacy_gazeau(args: argparse.Namespace) -> int:
    from dpverify.verify.precision._gazeau import gazeau_privacy

    report = gazeau_privacy(
        args.scale,
        args.q,
        args.q_prime,
        args.bits,
        args.lower,
        args.upper,
        args.step,
        epsilon=args.epsilon,
        delta_0=args.delta_0,
        delta_n=args.delta_n,
        sensitivity=args.sensitivity,
    )
    with contextlib.redirect_stdout(human_stream(args)):
        p, w = report["parameters"], report["witness"]
        print(
            f"Gazeau-Miller-Palamidessi Mechanisms 2+3 over the UNSAFE float Laplace: scale={p['scale']}, "
            f"q={p['q']}, q'={p['q_prime']}, {p['bits']} bits, [{p['lower']}, {p['upper']}], step={p['step']}"
        )
        print(f"  mechanism eps   {report['mechanism_epsilon']}  (Delta_f/b, Delta_f={p['sensitivity']})")
        print(
            f"  exact eps       {report['exact_epsilon']}  (ratio {report['exact_ratio']}, "
            f"over {report['draws']} draws)"
        )
        print(
            f"  witness         output={w['output']}, j={w['j']}, more likely from {w['from_input']}, "
            f"counts q/q'={w['counts'][0]}/{w['counts'][1]}"
        )
        print(
            f"  delta_t         {report['delta_t']}  (k={report['lipschitz']}, delta_0={p['delta_0']}, "
            f"delta_n={float(Fraction(p['delta_n']))})"
        )
        for name, label in (("definition_5", "definition (5)"), ("section_5", "section 5 value")):
            bound = report["bounds"][name]
            print(f"  eps' {label:<16} {bound['epsilon_prime']}  (R={bound['robustness']}): {bound['verdict']}")
        failed = [name for name, ok in report["conditions"].items() if not ok and name != "all_hold"]
        print(f"  conditions      {'all hold' if not failed else 'NOT met: ' + ', '.join(failed)}")
    emit_json(args, report)
    return 1 if report["theorem_4_5_contradicted"] else 0


def add_privacy_parser(commands: Any) -> None:
    """Declare ``dpverify privacy`` on the CLI's subcommands, one per mechanism: ``gtm``
    (:func:`_privacy`), ``dgauss`` (:func:`_privacy_dgauss`), ``gazeau`` (:func:`_privacy_gazeau`)."""
    privacy = commands.add_parser("privacy", help="tightest privacy of one instance, with its witness")
    privacy_mechanisms = privacy.add_subparsers(dest="mechanism", parser_class=_Parser, metavar="MECHANISM")
    privacy.set_defaults(run=_usage(privacy))
    privacy_gtm = privacy_mechanisms.add_parser("gtm", help="Geometric Truncated Mechanism")
    _gtm_arguments(privacy_gtm, with_q=False)
    privacy_gtm.add_argument("--claim-alpha", help="the alpha to check (default: --alpha)")
    add_json_option(privacy_gtm, "the report", schema=PRIVACY_GTM_SCHEMA)
    privacy_gtm.add_argument("--z3", action="store_true", help="also check the claim with Z3 over the exact table")
    privacy_gtm.add_argument("--smtlib", metavar="PATH", help="write the claim's obligation as SMT-LIB 2 to PATH")
    privacy_gtm.set_defaults(run=_privacy)
    privacy_dgauss = privacy_mechanisms.add_parser("dgauss", help="discrete Gaussian: rho-zCDP and tight delta(eps)")
    privacy_dgauss.add_argument(
        "--sigma2", required=True, help='variance parameter in (0, 10^300], e.g. "7/3" or "10^100"'
    )
    privacy_dgauss.add_argument("--epsilon", required=True, help='epsilon >= 0, e.g. "1" or "1/2"')
    privacy_dgauss.add_argument("--sensitivity", default="1", help="integer sensitivity >= 1 (default 1)")
    add_json_option(privacy_dgauss, "the report", schema=PRIVACY_DGAUSS_SCHEMA)
    privacy_dgauss.set_defaults(run=_privacy_dgauss)
    privacy_gazeau = privacy_mechanisms.add_parser(
        "gazeau", help="UNSAFE float Laplace, truncated and rounded (Gazeau et al.): exact eps vs Theorem 4.5"
    )
    privacy_gazeau.add_argument("--scale", required=True, help="Laplace scale b (a double), e.g. 1.0")
    privacy_gazeau.add_argument("--q", required=True, help="query answer (a double)")
    privacy_gazeau.add_argument("--q-prime", required=True, help="neighbouring query answer (a double)")
    privacy_gazeau.add_argument("--bits", required=True, help="bits k of the uniform draw, 2..24")
    privacy_gazeau.add_argument("--lower", required=True, help="truncation set lower end m (a double)")
    privacy_gazeau.add_argument("--upper", required=True, help="truncation set upper end M (a double)")
    privacy_gazeau.add_argument("--step", required=True, help="rounding step L; must divide M - m exactly")
    privacy_gazeau.add_argument("--epsilon", help='Condition 1\'s eps (default Delta_f/b), e.g. "1"')
    privacy_gazeau.add_argument("--sensitivity", help='Delta_f (default: the distance between q and q\'), e.g. "1"')
    privacy_gazeau.add_argument("--delta-0", help='uniform error delta_0 (default 2^-bits), e.g. "1/65536"')
    privacy_gazeau.add_argument("--delta-n", help='computation error delta_n (default: measured), e.g. "1/10^12"')
    add_json_option(privacy_gazeau, "the report", schema=PRIVACY_GAZEAU_SCHEMA)
    privacy_gazeau.set_defaults(run=_privacy_gazeau)
