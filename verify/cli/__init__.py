"""``dpverify``: the command-line interface (a stable interface; see the README).

Exit codes, the same in every command: 0 every expectation met (``check``: every case met its
expectation and the source tree is clean; ``privacy``: the claim holds); 1 a gate that did not
pass: a claim violated, a proof stale, a cross-check that disagrees (each command's meaning of 1
is in the README's table); 2 bad usage or a broken spec (one line on stderr, no traceback).
Every ``--json`` document names its schema, ``dpverify.<name>/<version>``, published as
``schemas/<name>-<version>.schema.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from dpverify._check_schema import CHECK_SCHEMA
from dpverify.samplers import DpverifyError, as_fraction, as_int, fresh_seed
from dpverify.samplers._rational import shown
from dpverify.specs import ACCOUNT_SCHEMA, GtmSpec
from dpverify.verify.privacy._accounting import PRIVACY_DGAUSS_SCHEMA
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT
from dpverify.verify.cli._common import parameter_pairs
from dpverify.verify.cli._diff import add_diff_options, add_diff_parser, run_check_base
from dpverify.verify.engine._exactness import code_distribution
from dpverify.verify.precision._float_attack import LAPLACE_FLOAT_ATTACK_SCHEMA
from dpverify.verify.precision._gazeau import PRIVACY_GAZEAU_SCHEMA
from dpverify.verify.changes._mutate import DEFAULT_CASE_TIME_LIMIT
from dpverify.verify.changes._mutate import DEFAULT_SAMPLES as DEFAULT_MUTANT_SAMPLES
from dpverify.verify.changes._mutate import DEFAULT_TIMEOUT as DEFAULT_MUTANT_TIMEOUT
from dpverify.verify.changes._mutate import EQUIVALENTS_FILE, MUTATE_SCHEMA
from dpverify.verify.privacy._gtm_privacy import PRIVACY_GTM_SCHEMA, gtm_privacy, gtm_table
from dpverify.verify.reports._output import (
    add_json_option,
    add_junit_option,
    check_output_path,
    check_output_paths,
    emit_json,
    emit_junit,
    human_stream,
    write_text,
)
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.gate._sweep import MAX_JOBS as MAX_SWEEP_JOBS
from dpverify.verify.gate._sweep import need_scheduler
from dpverify.verify.engine._text import short_rational

if TYPE_CHECKING:
    from dpverify.verify.gate._spec_run import CaseOutcome


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr, with the one prefix every error has,
    and exit code 2; and a value such as ``-1e-3`` or ``-1/3`` is a value, not an option."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # argparse takes only -1 and -1.5 for numbers; a dash followed by a digit or a point
        # is never one of our options, so it is always a (negative) value
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"dpverify: error: {_clip(message)} (see '{self.prog} --help')\n")


def _clip(text: str, limit: int = 200) -> str:
    """One short line: control characters escaped, a long text cut."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _usage(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    """A bare command (``dpverify``, ``dpverify pmf``): its usage and subcommands, exit 2."""

    def show(args: argparse.Namespace) -> int:
        sys.stderr.write(parser.format_help())
        return 2

    return show


def _gtm_arguments(parser: argparse.ArgumentParser, *, with_q: bool) -> None:
    parser.add_argument("--alpha", required=True, help='privacy ratio in (0, 1), e.g. "1/3"')
    parser.add_argument("--n", required=True, help="outputs are 0..n (n >= 1)")
    parser.add_argument("--T", required=True, help='size of the uniform (>= 1); "10^100" works')
    if with_q:
        parser.add_argument("--q", required=True, help="the query answer, 0 <= q <= n")


#: The ``schema`` field of ``dpverify pmf gtm --json``.
PMF_GTM_SCHEMA = "dpverify.pmf-gtm/1"


#: The exact table has (n+1)^2 big-integer entries; past this n a query would run for minutes
#: and gigabytes, so it is refused up front instead.
MAX_N = 5000


#: The ideal table's common denominator is (a+b)*b^n for alpha = a/b; past this many bits its
#: exact probabilities could no longer be printed (CPython prints at most 4300 digits).
MAX_TABLE_BITS = 12_000


def _gtm_spec(args: argparse.Namespace) -> GtmSpec:
    n = as_int("n", args.n, low=1, high=MAX_N)
    spec = GtmSpec.create(args.alpha, n, args.T)
    bits = n * spec.alpha.denominator.bit_length()
    if bits > MAX_TABLE_BITS:
        raise DpverifyError(
            f"n={n} with alpha={shown(spec.alpha)} makes exact probabilities of about {bits * 3 // 10} digits; "
            f"the limit is {MAX_TABLE_BITS * 3 // 10}: lower n, or give alpha a smaller denominator."
        )
    return spec


# --- pmf ---------------------------------------------------------------------------------


def _pmf(args: argparse.Namespace) -> int:
    spec = _gtm_spec(args)
    q = spec.check_input(args.q)
    if args.from_code:
        found = code_distribution(spec, q)
        masses = {x: found.masses.get(x, Fraction(0)) for x in spec.outputs()}
        source = f"sampler code ({found.method}, {found.executions} executions)"
    else:
        masses = spec.pmf(q).as_dict()
        source = "spec closed form"
    pmf = [fraction_text(masses[x]) for x in spec.outputs()]
    human = human_stream(args)
    print(f"GTM {_describe(spec)}, q={q}: exact PMF from the {source}", file=human)
    for x in spec.outputs():
        print(f"  P({x}) = {short_rational(masses[x])}", file=human)
    emit_json(args, {"schema": PMF_GTM_SCHEMA, "mechanism": spec.name, "parameters": spec.parameters(), "q": q,
                     "source": source, "pmf": pmf})
    return 0


# --- privacy -----------------------------------------------------------------------------


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
        print(f"  witness         q={w['q']}, q'={w['q_prime']}, output={w['output']}: "
              f"P={short_rational(Fraction(w['p']))}, P'={short_rational(Fraction(w['p_prime']))}")
    print(f"  support         T >= {short_rational(Fraction(report['support_bound']))}: "
          f"{_yes(report['full_support'])}; every output possible: {_yes(report['every_output_possible'])}")
    alpha_prime = Fraction(report["thm62_alpha_prime"])
    # A bound alpha' <= 0 says nothing, so "holds" would overstate it.
    verdict = ("vacuous (T <= 1/D), nothing to hold" if alpha_prime <= 0
               else "holds" if report["thm62_holds"] else "FAILS")
    print(f"  Theorem 6.2     alpha' = {short_rational(alpha_prime)}: {verdict}")
    print(f"  Theorem 7.1     {'instance (exact)' if report['thm71_instance'] else 'not an instance'}")
    print(f"  claim           alpha >= {short_rational(Fraction(report['claim_alpha']))}: "
          f"{'holds' if report['claim_holds'] else 'VIOLATED'}")
    if "z3" in report:
        print(f"  Z3              {report['z3']['verdict']}: {report['z3']['summary']}")


def _privacy_dgauss(args: argparse.Namespace) -> int:
    from dpverify.verify.privacy._accounting import dgauss_privacy

    report = dgauss_privacy(args.sigma2, args.epsilon, args.sensitivity)
    with contextlib.redirect_stdout(human_stream(args)):
        p = report["parameters"]
        print(f"discrete Gaussian sigma2={short_rational(Fraction(p['sigma2']))}, sensitivity={p['sensitivity']}")
        print(f"  rho-zCDP        rho = {report['rho']}  (CKS20 Theorem 4)")
        print(f"  (eps, delta)    eps = {p['epsilon']}: delta = {report['delta']}  (CKS20 Theorem 7, "
              f"{report['delta_digits']} certified digits)")
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
        args.scale, args.q, args.q_prime, args.bits, args.lower, args.upper, args.step,
        epsilon=args.epsilon, delta_0=args.delta_0, delta_n=args.delta_n, sensitivity=args.sensitivity,
    )
    with contextlib.redirect_stdout(human_stream(args)):
        p, w = report["parameters"], report["witness"]
        print(f"Gazeau-Miller-Palamidessi Mechanisms 2+3 over the UNSAFE float Laplace: scale={p['scale']}, "
              f"q={p['q']}, q'={p['q_prime']}, {p['bits']} bits, [{p['lower']}, {p['upper']}], step={p['step']}")
        print(f"  mechanism eps   {report['mechanism_epsilon']}  (Delta_f/b, Delta_f={p['sensitivity']})")
        print(f"  exact eps       {report['exact_epsilon']}  (ratio {report['exact_ratio']}, over {report['draws']} draws)")
        print(f"  witness         output={w['output']}, j={w['j']}, more likely from {w['from_input']}, "
              f"counts q/q'={w['counts'][0]}/{w['counts'][1]}")
        print(f"  delta_t         {report['delta_t']}  (k={report['lipschitz']}, delta_0={p['delta_0']}, "
              f"delta_n={float(Fraction(p['delta_n']))})")
        for name, label in (("definition_5", "definition (5)"), ("section_5", "section 5 value")):
            bound = report["bounds"][name]
            print(f"  eps' {label:<16} {bound['epsilon_prime']}  (R={bound['robustness']}): {bound['verdict']}")
        failed = [name for name, ok in report["conditions"].items() if not ok and name != "all_hold"]
        print(f"  conditions      {'all hold' if not failed else 'NOT met: ' + ', '.join(failed)}")
    emit_json(args, report)
    return 1 if report["theorem_4_5_contradicted"] else 0


# --- account -----------------------------------------------------------------------------


def _account(args: argparse.Namespace) -> int:
    from dpverify.specs import account

    result = account(args.epsilon, args.delta, args.k, args.delta_prime, rho=args.rho, mechanism=args.mechanism,
                     sensitivity=args.sensitivity)
    with contextlib.redirect_stdout(human_stream(args)):
        _print_account(args, result)
    emit_json(args, result.to_json())
    return 0


def _print_account(args: argparse.Namespace, result: Any) -> None:
    rho = f", rho-zCDP with rho <= {result.rho} ({result.rho_source})" if result.rho is not None else ""
    print(f"dpverify account: {result.k}-fold composition of {args.mechanism} steps, each "
          f"(eps={short_rational(result.epsilon)}, delta={short_rational(result.delta)})-DP{rho}")
    noise = result.noise
    if "laplace_scale" in noise:
        print(f"  noise           Laplace scale b = s/eps = {noise['laplace_scale']} (s = {noise['sensitivity']})")
    elif "gaussian_sigma2" in noise:
        print(f"  noise           sigma^2 = {noise['gaussian_sigma2_formula']} <= {noise['gaussian_sigma2']} "
              f"(s = {noise['sensitivity']})")
    print(f"  target          delta_total = k*delta + delta' = {short_rational(result.delta_total)}"
          f"{'  VACUOUS (>= 1): no bound can say anything' if result.vacuous else ''}")
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
        print(f"  chosen          {chosen.name}: ({chosen.epsilon}, {short_rational(result.delta_total)})-DP "
              f"[{chosen.citation}]")
    extra = result.zcdp_at_delta_prime
    if extra is not None and extra.guarantee:
        print(f"  also            zCDP alone: ({extra.epsilon}, {short_rational(extra.delta_total)})-DP, "
              "at delta' without k*delta (CKS20 conversion)")


def _prove(args: argparse.Namespace) -> int:
    # The CLI is the one place that composes the layers: proofs/ builds on verify/, so
    # verify/ never imports it except here, lazily.
    from dpverify.proofs._certificates import (
        cvc5_version,
        instance_obligations,
        prove_result,
        recheck_certificates,
        repository_root,
        write_certificates,
    )
    from dpverify.proofs.registry import THEOREMS

    if args.recheck and cvc5_version() is None:
        raise DpverifyError("--recheck needs the cvc5 solver, which is not installed; install it with "
                            "pip install 'dpverify[recheck]'.")
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
        recheck = recheck_certificates(root, timeout_ms=timeout_ms,
                                       report=lambda row: print(f"  {row['outcome']:<9} {row['message']}"))
        print(f"recheck: {recheck.verdict.value}: {recheck.summary}")
        failed |= recheck.verdict is Verdict.VIOLATED  # unknown answers are reported, not failures
    return 1 if failed else 0


def _repository_checks(human: TextIO, *, stale_proofs: bool = True,
                       seconds: dict[str, float] | None = None) -> tuple[Any, ...]:
    """The source tree's own checks: static rules, every entry point run by a spec, proof staleness
    (unless ``stale_proofs`` is false: ``dpverify mutate`` changes covered code on purpose).
    ``seconds``, when given, receives each check's running time by name."""
    from dpverify.proofs._certificates import (
        check_manifest,
        check_recorded_verdicts,
        instance_obligations,
        repository_root,
        theorem_obligation,
    )
    from dpverify.proofs.registry import THEOREMS
    from dpverify.verify.gate._catalogue import SPECS
    from dpverify.verify.gate._entry_points import check_entry_points
    from dpverify.verify.gate._static import check_samplers_static

    from dpverify.verify.gate._gate import repository_lines

    root = repository_root()
    steps: list[Callable[[], CheckResult]] = [lambda: check_samplers_static(root), lambda: check_entry_points(SPECS)]
    if stale_proofs:
        steps.append(lambda: check_manifest(
            root, current=[*(theorem_obligation(t) for t in THEOREMS), *instance_obligations()]))
    steps.append(lambda: check_recorded_verdicts(root))
    checks = []
    for step in steps:
        started = time.monotonic()
        check = step()
        if seconds is not None:
            seconds[check.check] = time.monotonic() - started
        checks.append(check)
        print("\n".join(repository_lines(check)), file=human)
    return tuple(checks)


def _attack_laplace_float(args: argparse.Namespace) -> int:
    from dpverify.verify.precision._float_attack import attack_text, laplace_float_attack

    document = laplace_float_attack(args.scale, args.q, args.q_prime, args.bits, samples=args.samples, seed=args.seed)
    print(attack_text(document), file=human_stream(args))
    emit_json(args, document)
    return 0


def _describe(spec: GtmSpec) -> str:
    return ", ".join(f"{k}={short_rational(Fraction(v))}" for k, v in spec.parameters().items())


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


# --- check -------------------------------------------------------------------------------


def _check(args: argparse.Namespace) -> int:
    # Imported here so that pmf and privacy start without loading Z3.
    from dpverify.verify.gate._discovery import BuiltinUnloadable, discover
    from dpverify.specs import SpecError
    from dpverify.verify.gate._gate import gate_json, gate_junit, run_gate, specs_error_junit
    from dpverify.verify.gate._spec_run import ERROR

    if args.scheduler:
        need_scheduler(args.scheduler, "--scheduler")  # before any work: a bad address, or no dask here
    if args.spec_module:
        sys.path.insert(0, os.getcwd())  # a project's own modules, as pytest finds them
    try:
        found = discover(args.spec_module or (), names=args.spec or ())
    except BuiltinUnloadable as error:
        if args.list:
            raise
        return _unloadable_catalogue(args, error)
    except SpecError as error:
        # Like a test runner's collection error: the report shows it; the exit code is 2.
        if args.junit and not args.list:
            emit_junit(args, specs_error_junit(str(error), timestamp=_timestamp()))
        raise
    if args.list:
        _print_specs(found)
        return 0
    if args.base is not None:
        return run_check_base(args, found)
    if not found:
        raise DpverifyError("no spec found: install a package that registers the dpverify.specs entry point, "
                            "or pass --spec-module MODULE.")
    seed = fresh_seed() if args.seed is None else args.seed
    timestamp = _timestamp()
    human = human_stream(args)
    cases = sum(len(item.spec.cases) for item in found)
    # One case at a time unless asked: the gate's default output and timing stay as they were.
    jobs = args.jobs if args.jobs is not None else None if args.scheduler else 1
    where = (f"; on the Dask cluster at {args.scheduler}" if args.scheduler else
             f"; {jobs} cases at a time" if jobs != 1 else "")
    print(f"dpverify check: {len(found)} specs, {cases} cases, statistical seed {seed} "
          f"(replay: dpverify check --seed {seed}){where}", file=human)
    outcomes = run_gate(found, seed=seed, samples=args.samples, time_limit=args.time_limit,
                        report=lambda o: _print_outcome(o, human), fail_fast=args.fail_fast, jobs=jobs,
                        scheduler=args.scheduler, spec_modules=args.spec_module or ())
    if args.fail_fast and len(outcomes) < cases:
        # in parallel, cases after the first miss may have run; they are left out, as a serial run never ran them
        print(f"stopped at the first case that missed its expectation (--fail-fast); {cases - len(outcomes)} "
              f"case(s) not {'run' if jobs == 1 and not args.scheduler else 'reported'}", file=human)
    seconds: dict[str, float] = {}
    repository = (_repository_checks(human, stale_proofs=not args.no_stale_proofs, seconds=seconds)
                  if any(item.builtin for item in found) else ())
    met = sum(o.met for o in outcomes)
    broken = sum(o.outcome == ERROR for o in outcomes)
    clean = all(check.verdict is Verdict.PROVED for check in repository)
    passed = met == len(outcomes) and clean
    tree = f"; source tree checks {'clean' if clean else 'FAILED'}" if repository else ""
    spec_errors = f"; {broken} broken spec case(s)" if broken else ""
    print(f"{met} of {len(outcomes)} cases met their expectation{spec_errors}{tree}: {'PASS' if passed else 'FAIL'}",
          file=human)
    if args.json:
        emit_json(args, gate_json(outcomes, seed=seed, samples=args.samples, repository=repository))
    if args.junit:
        ran = {(o.spec.name, o.case.describe()) for o in outcomes}
        not_run = [(item.spec.name, case.describe()) for item in found for case in item.spec.cases
                   if (item.spec.name, case.describe()) not in ran]
        emit_junit(args, gate_junit(outcomes, seed=seed, samples=args.samples, replay=_replay(args, seed),
                                    repository=repository, repository_seconds=seconds, not_run=not_run,
                                    time_limit=args.time_limit, timestamp=timestamp))
    return 0 if passed else 2 if broken else 1


def _replay(args: argparse.Namespace, seed: int | None) -> str:
    """The ``dpverify check`` command line that reruns this run with the same statistical draws."""
    words = ["dpverify", "check"]
    for module in args.spec_module or ():
        words += ["--spec-module", module]
    for name in args.spec or ():
        words += ["--spec", name]
    words += [*(() if seed is None else ("--seed", str(seed))), "--samples", str(args.samples)]
    if args.time_limit != DEFAULT_TIME_LIMIT:
        words += ["--time-limit", str(args.time_limit)]
    if args.no_stale_proofs:
        words.append("--no-stale-proofs")
    return " ".join(shlex.quote(word) for word in words)


def _timestamp() -> str:
    """Now, in UTC, as ISO 8601 to the second (JUnit's ``timestamp``)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# --- audit -------------------------------------------------------------------------------


def _audit(args: argparse.Namespace) -> int:
    from dpverify.verify.reports._audit import audit_spec, parameters_case, read_mutants
    from dpverify.verify.reports._audit_report import write_report
    from dpverify.verify.gate._discovery import discover

    if args.black_box:
        from dpverify.verify.cli._blackbox import audit_black_box_command

        return audit_black_box_command(args)
    if args.confidence is not None:
        raise DpverifyError("--confidence applies only to an audit with --black-box.")

    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise DpverifyError(f"--out must be a directory; got --out={shown(args.out)}, which is a file.")
    parent = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(parent):
        raise DpverifyError(f"--out must be in an existing directory; got --out={shown(args.out)}.")
    mutants = None if args.mutants is None else read_mutants(args.mutants)
    if args.spec_module:
        sys.path.insert(0, os.getcwd())  # a project's own modules, as check --spec-module finds them
    (found,) = discover(args.spec_module or (), names=[args.spec])
    pairs = parameter_pairs(args.parameters)
    cases = [parameters_case(found.spec, pairs)] if pairs else list(found.spec.cases)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as error:
        raise DpverifyError(f"--out={shown(args.out)} cannot be created: {error.strerror or error}.") from None
    if not os.access(args.out, os.W_OK):
        raise DpverifyError(f"--out must be a writable directory; got --out={shown(args.out)}.")
    seed = fresh_seed() if args.seed is None else args.seed
    human = human_stream(args)
    parameters = "".join(f" --{name} {value}" for name, value in pairs)
    module = "".join(f" --spec-module {m}" for m in args.spec_module or ())
    command = (f"dpverify audit {found.spec.name}{parameters}{module} --seed {seed} --samples {args.samples} "
               f"--time-limit {args.time_limit} --out {args.out}")
    print(f"dpverify audit: {found.spec.name} from {found.origin}, {len(cases)} case(s), statistical seed {seed}",
          file=human)
    with _progress(len(cases)) as step:
        try:
            audit = audit_spec(found, cases, seed=seed, samples=args.samples, time_limit=args.time_limit,
                               mutants=mutants, mutants_path=args.mutants, command=command, progress=step)
            step("writing the report")
            paths = write_report(audit, args.out)
        except (DpverifyError, KeyboardInterrupt):
            raise
        except Exception as error:  # noqa: BLE001 - a fault of the audit itself: one line, never a traceback
            raise DpverifyError(f"the audit of {found.spec.name} stopped on {type(error).__name__}: "
                                f"{_clip(str(error), 200)}; this is a fault in dpverify, please report it") from None
    for case in audit.document["cases"]:
        mark = "ok  " if case["met"] else "ERROR" if case["outcome"] == "error" else "FAIL"
        print(f"{mark:<4} {found.spec.name}/{case['label']}: expect {case['expect']}, got {case['outcome']}", file=human)
        for problem in case["problems"] or ([case["error"]] if case["error"] else []):
            print(f"       {_clip(problem, 300)}", file=human)
    print(f"{audit.document['verdict']['summary']}: {'PASS' if audit.exit_code == 0 else 'FAIL'}", file=human)
    print(f"report: {paths['html']}, {paths['markdown']}, {paths['json']}", file=human)
    emit_json(args, audit.document)
    return audit.exit_code


@contextlib.contextmanager
def _progress(cases: int) -> Any:
    """A progress bar on stderr when it is a terminal (``step(stage)`` advances it); silent otherwise."""
    if not sys.stderr.isatty():
        yield lambda stage: None
        return
    try:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    except ImportError:  # a dependency; an install without it still audits, without a bar
        yield lambda stage: None
        return
    # every case: checks, then tables; then certificates and the report itself
    total = 2 * cases + 2
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("auditing", total=total)
        seen = {"n": 0}

        def step(stage: str) -> None:
            if seen["n"]:
                bar.advance(task)
            seen["n"] += 1
            bar.update(task, description=_clip(stage, 60))

        yield step
        bar.update(task, completed=total)


def _mutate(args: argparse.Namespace) -> int:
    from dpverify.verify.changes import _mutate as mutate

    if args.scheduler:
        need_scheduler(args.scheduler, "--scheduler")  # before any work: a bad address, or no dask here
    jobs = args.jobs if args.jobs is not None or args.scheduler else os.cpu_count() or 1
    sys.path.insert(0, os.getcwd())  # a project's own modules, as check --spec-module finds them
    targets = [mutate.locate(name) for name in dict.fromkeys(args.modules or mutate.default_modules())]
    equivalents = args.equivalents or (EQUIVALENTS_FILE if os.path.isfile(EQUIVALENTS_FILE) else None)
    reviewed = mutate.read_reviewed(equivalents)
    work = mutate.plan(targets, reviewed)
    chosen = mutate.select(work.mutants, only=args.only or (), limit=args.limit)
    if args.list:
        for line in mutate.list_text(work, chosen, reviewed):
            print(line)
        return 0
    options = mutate.GateOptions(seed=args.seed, samples=args.samples, spec_modules=tuple(args.spec_module or ()),
                                 specs=tuple(args.spec or ()), timeout=args.timeout, time_limit=args.time_limit)
    human = human_stream(args)
    where = f"on the Dask cluster at {args.scheduler}" if args.scheduler else f"{jobs} at a time"
    print(f"dpverify mutate: {len(chosen)} mutants of {len(targets)} module(s), {where}; first the "
          f"gate on the unmodified code{'' if args.all_specs else ', spec by spec'}: {options.command()}",
          file=human, flush=True)

    # Terminated, the run stops its gate processes and removes its copies as an interrupted one does.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))

    def progress(result: mutate.Result, done: int, total: int) -> None:
        print(f"[{done}/{total}] {result.status:<10} {result.mutant.id} (line {result.mutant.line}, "
              f"{result.seconds:.0f} s)", file=sys.stderr, flush=True)

    measured = mutate.measure(targets, chosen, options, jobs=jobs, select_specs=not args.all_specs,
                              progress=progress, scheduler=args.scheduler)
    results = mutate.reviewed_results(measured.results, reviewed)
    document = mutate.report_json(work, results, reviewed, options, baseline_seconds=measured.baseline_seconds,
                                  jobs=jobs, specs=measured.specs, scheduler=args.scheduler)
    print(mutate.report_text(document), file=human)
    emit_json(args, document)
    return 0 if document["passed"] else 1


def _print_specs(found: Sequence[Any]) -> None:
    for item in found:
        spec = item.spec
        print(f"{spec.name}: {len(spec.cases)} case(s), from {item.origin}")
        if spec.description:
            print(f"    {spec.description}")


def _print_outcome(outcome: CaseOutcome, out: TextIO) -> None:
    from dpverify.verify.gate._gate import outcome_lines

    print("\n".join(outcome_lines(outcome)), file=out)


# --- entry point -------------------------------------------------------------------------


#: The commands whose exit code is a gate's verdict: stopped before the end, they did not pass.
GATES = frozenset({"check", "mutate", "prove"})
#: The exit code of a run interrupted with Ctrl-C (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130


#: Upper limits of the CLI's counts, so that no option asks for work without end.
MAX_SEED = 2**64 - 1  # fresh seeds are 64-bit
MAX_SAMPLES = 10**7
MAX_TIMEOUT = 86_400
MAX_JOBS = 1024
MAX_MUTANTS = 10**6
MAX_COMPOSITIONS = 10**6


#: An option's count: digits, or a power such as ``10^4``.  Read here, not by the samplers'
#: parsers, so that the gate starts (and reports) when the code it checks, those parsers among
#: it, is broken.
_COUNT = re.compile(r"\+?(\d{1,30})(?:\s*(?:\^|\*\*)\s*(\d{1,2}))?")


def _count(name: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer in ``[low, high]``, with the project's one-line message."""

    def parse(text: str) -> int:
        match = _COUNT.fullmatch(text.strip())
        value = int(match[1]) ** int(match[2] or 1) if match else None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be an integer with {name} >= {low} and {name} <= {high}, "
                                             f'such as "1000" or "10^4"; got {name}={shown(text)}.')
        return value

    parse.__name__ = name  # argparse names the type in its message
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dpverify", description="Exact verification of differential-privacy samplers.")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    parser.set_defaults(run=_usage(parser))

    check = commands.add_parser("check", help="verify every spec found (the CI gate)")
    check.add_argument("--spec-module", action="append", metavar="MODULE",
                       help="check the SPECS of this module instead of the installed entry points (repeatable)")
    check.add_argument("--spec", action="append", metavar="NAME", help="check only the spec with this name (repeatable)")
    check.add_argument("--list", action="store_true", help="list the specs found and where from, and exit")
    add_json_option(check, "the results", schema=CHECK_SCHEMA)
    add_junit_option(check, "the results (one test suite per spec, one test case per case)")
    check.add_argument("--seed", type=_count("seed", 0, MAX_SEED), help="seed of the statistical checks (default: fresh)")
    check.add_argument("--samples", type=_count("samples", 1, MAX_SAMPLES), default=20_000, help="draws per statistical check")
    check.add_argument("--time-limit", type=_count("time-limit", 1, MAX_TIMEOUT), default=DEFAULT_TIME_LIMIT,
                       metavar="SECONDS", help=f"bound on each case's running time (default {DEFAULT_TIME_LIMIT}); "
                                               "a case that reaches it is inconclusive")
    check.add_argument("--fail-fast", action="store_true",
                       help="stop at the first case that misses its expectation (mutation runs use it); in "
                            "parallel, nothing is started after it, and cases after it in the report's order "
                            "are left out")
    check.add_argument("--jobs", type=_count("jobs", 1, MAX_SWEEP_JOBS), metavar="N",
                       help="cases at a time, in worker processes (default 1: one after the other here; with "
                            "--scheduler, the cluster's worker threads); results and report are the same")
    check.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the cases on the Dask cluster whose scheduler is at ADDRESS, e.g. "
                            "tcp://10.0.0.5:8786 (pip install 'dpverify[dask]')")
    check.add_argument("--no-stale-proofs", action="store_true",
                       help="skip the stale-proof check of the source tree (dpverify mutate changes covered code on purpose)")
    check.add_argument("--base", metavar="REV",
                       help="instead of the checks: compare every spec whose sampler code changed since git revision "
                            "REV with its old version (dpverify diff --base REV, which also writes JSON)")
    add_diff_options(check)
    check.set_defaults(run=_check)

    add_diff_parser(commands, _count, MAX_SEED, MAX_TIMEOUT)

    mutate = commands.add_parser("mutate", help="run the gate on single-site mutants of sampler modules: what does it catch?")
    mutate.add_argument("modules", nargs="*", metavar="MODULE",
                        help="dotted module names (default: dpverify's exact sampler modules)")
    mutate.add_argument("--list", action="store_true", help="list the mutants and their ids, and exit")
    mutate.add_argument("--only", action="append", metavar="ID", help="run only mutants whose id starts with ID (repeatable)")
    mutate.add_argument("--limit", type=_count("limit", 1, MAX_MUTANTS), help="run at most this many mutants")
    mutate.add_argument("--jobs", type=_count("jobs", 1, MAX_JOBS),
                        help="gate runs at a time (default: the number of CPUs; with --scheduler, the cluster's "
                             "worker threads)")
    mutate.add_argument("--scheduler", metavar="ADDRESS",
                        help="run every gate run on the Dask cluster whose scheduler is at ADDRESS, each worker in "
                             "its own copy of its installed packages (pip install 'dpverify[dask]')")
    mutate.add_argument("--timeout", type=_count("timeout", 1, MAX_TIMEOUT), default=DEFAULT_MUTANT_TIMEOUT,
                        metavar="SECONDS", help=f"seconds one gate run may take (default {DEFAULT_MUTANT_TIMEOUT})")
    mutate.add_argument("--equivalents", metavar="PATH",
                        help=f"the reviewed equivalent mutants (default: {EQUIVALENTS_FILE}, if it exists)")
    add_json_option(mutate, "every mutant's result", schema=MUTATE_SCHEMA)
    mutate.add_argument("--spec-module", action="append", metavar="MODULE", help="passed to check: the specs to run")
    mutate.add_argument("--spec", action="append", metavar="NAME", help="passed to check: only this spec (repeatable)")
    mutate.add_argument("--all-specs", action="store_true",
                        help="run every spec on every mutant, not only the specs that run the mutated function")
    mutate.add_argument("--seed", type=_count("seed", 0, MAX_SEED), default=0, help="passed to check (default 0)")
    mutate.add_argument("--samples", type=_count("samples", 1, MAX_SAMPLES), default=DEFAULT_MUTANT_SAMPLES,
                        help=f"passed to check: draws per statistical check (default {DEFAULT_MUTANT_SAMPLES})")
    mutate.add_argument("--time-limit", type=_count("time-limit", 1, MAX_TIMEOUT), default=DEFAULT_CASE_TIME_LIMIT,
                        metavar="SECONDS", help=f"passed to check: seconds per case (default {DEFAULT_CASE_TIME_LIMIT})")
    mutate.set_defaults(run=_mutate)

    audit = commands.add_parser(
        "audit", help="one report on one spec: exact PMFs, privacy, proofs, statistics, plots (HTML, Markdown, JSON)",
        allow_abbrev=False, usage="dpverify audit SPEC [--PARAM VALUE ...] --out DIR [options]",
        description="Audit SPEC at the parameters --PARAM VALUE (every declared parameter), or every case the spec "
                    "lists when none is given; write DIR/report.html, DIR/report.md (plots in DIR/plots/) and "
                    "DIR/report.json. Exit 0 every expectation met, 1 a claim violated or a check not met, 2 bad "
                    "usage or a broken spec.")
    audit.add_argument("spec", metavar="SPEC", help="the spec's name, as dpverify check --list shows it")
    audit.add_argument("--out", required=True, metavar="DIR", help="the report's directory (created if missing)")
    audit.add_argument("--spec-module", action="append", metavar="MODULE",
                       help="find SPEC in this module's SPECS instead of the installed entry points (repeatable)")
    audit.add_argument("--seed", type=_count("seed", 0, MAX_SEED), help="seed of the statistical checks (default: fresh)")
    audit.add_argument("--samples", type=_count("samples", 1, MAX_SAMPLES), default=20_000,
                       help="draws per statistical check (default 20000)")
    audit.add_argument("--time-limit", type=_count("time-limit", 1, MAX_TIMEOUT), default=DEFAULT_TIME_LIMIT,
                       metavar="SECONDS", help=f"bound on each case's running time (default {DEFAULT_TIME_LIMIT})")
    audit.add_argument("--mutants", metavar="PATH", help="a `dpverify mutate --json` document: its rows for this spec's modules")
    audit.add_argument("--black-box", action="store_true",
                       help="SPEC draws its own randomness (OpenDP, numpy): a distribution test and a held-out privacy "
                            "test instead of exact checks; SPEC may also be module:attribute; writes DIR/blackbox.json")
    audit.add_argument("--confidence", metavar="C",
                       help="with --black-box: the confidence of the privacy test's epsilon bound (default 1 - 10^-6)")
    add_json_option(audit, "the report (DIR/report.json is written in any case)", schema="dpverify.audit/1")
    audit.set_defaults(run=_audit, parameters=[])

    pmf = commands.add_parser("pmf", help="print the exact output PMF of one instance")
    pmf_mechanisms = pmf.add_subparsers(dest="mechanism", parser_class=_Parser, metavar="MECHANISM")
    pmf.set_defaults(run=_usage(pmf))
    pmf_gtm = pmf_mechanisms.add_parser("gtm", help="Geometric Truncated Mechanism")
    _gtm_arguments(pmf_gtm, with_q=True)
    pmf_gtm.add_argument("--from-code", action="store_true", help="derive it from the sampler code, not the spec")
    add_json_option(pmf_gtm, "the PMF", schema=PMF_GTM_SCHEMA)
    pmf_gtm.set_defaults(run=_pmf)

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
    privacy_dgauss.add_argument("--sigma2", required=True, help='variance parameter > 0, e.g. "7/3" or "10^100"')
    privacy_dgauss.add_argument("--epsilon", required=True, help='epsilon >= 0, e.g. "1" or "1/2"')
    privacy_dgauss.add_argument("--sensitivity", default="1", help="integer sensitivity >= 1 (default 1)")
    add_json_option(privacy_dgauss, "the report", schema=PRIVACY_DGAUSS_SCHEMA)
    privacy_dgauss.set_defaults(run=_privacy_dgauss)
    privacy_gazeau = privacy_mechanisms.add_parser(
        "gazeau", help="UNSAFE float Laplace, truncated and rounded (Gazeau et al.): exact eps vs Theorem 4.5")
    privacy_gazeau.add_argument("--scale", required=True, help="Laplace scale b (a double), e.g. 1.0")
    privacy_gazeau.add_argument("--q", required=True, help="query answer (a double)")
    privacy_gazeau.add_argument("--q-prime", required=True, help="neighbouring query answer (a double)")
    privacy_gazeau.add_argument("--bits", required=True, help="bits k of the uniform draw, 2..24")
    privacy_gazeau.add_argument("--lower", required=True, help="truncation set lower end m (a double)")
    privacy_gazeau.add_argument("--upper", required=True, help="truncation set upper end M (a double)")
    privacy_gazeau.add_argument("--step", required=True, help="rounding step L; must divide M - m exactly")
    privacy_gazeau.add_argument("--epsilon", help="Condition 1's eps (default Delta_f/b), e.g. \"1\"")
    privacy_gazeau.add_argument("--sensitivity", help="Delta_f (default |q - q'|), e.g. \"1\"")
    privacy_gazeau.add_argument("--delta-0", help="uniform error delta_0 (default 2^-bits), e.g. \"1/65536\"")
    privacy_gazeau.add_argument("--delta-n", help="computation error delta_n (default: measured), e.g. \"1/10^12\"")
    add_json_option(privacy_gazeau, "the report", schema=PRIVACY_GAZEAU_SCHEMA)
    privacy_gazeau.set_defaults(run=_privacy_gazeau)

    account_ = commands.add_parser("account", help="composition bounds for k steps: basic, DRV, zCDP, optimal (KOV)")
    account_.add_argument("--mechanism", required=True, choices=("gaussian", "laplace", "pure", "approx"),
                          help="gaussian: classic calibration (eps < 1); laplace/pure: pure eps-DP; approx: (eps, delta)-DP")
    account_.add_argument("--epsilon", required=True, help='per-step epsilon, an exact decimal or rational, e.g. "0.1"')
    account_.add_argument("--delta", default="0", help='per-step delta in [0, 1) (default 0), e.g. "1e-6"')
    account_.add_argument("--k", required=True, type=_count("k", 1, MAX_COMPOSITIONS), help="number of compositions")
    account_.add_argument("--delta-prime", required=True, help="slack delta' in (0, 1): delta_total = k*delta + delta'")
    account_.add_argument("--rho", help="per-step rho-zCDP the mechanism also has (not with gaussian)")
    account_.add_argument("--sensitivity", default="1", help="sensitivity s for the noise scale shown (default 1)")
    add_json_option(account_, "the report", schema=ACCOUNT_SCHEMA)
    account_.set_defaults(run=_account)

    prove = commands.add_parser("prove", help="prove every theorem; write proofs/certificates and proofs/manifest.json")
    prove.add_argument("--recheck", action="store_true",
                       help="recheck every certificate with cvc5 (pip install 'dpverify[recheck]')")
    prove.add_argument("--timeout", type=_count("timeout", 1, MAX_TIMEOUT), default=60, help="seconds per obligation and solver")
    prove.set_defaults(run=_prove)

    from dpverify.verify.reports.reproduce._run import add_reproduce_command

    add_reproduce_command(commands, _count, MAX_JOBS)

    attack = commands.add_parser("attack", help="exact attacks on UNSAFE floating-point samplers")
    attack_mechanisms = attack.add_subparsers(dest="mechanism", parser_class=_Parser, metavar="MECHANISM")
    attack.set_defaults(run=_usage(attack))
    laplace_float = attack_mechanisms.add_parser(
        "laplace-float", help="the textbook float Laplace (Mironov 2012): exact epsilon at K bits"
    )
    laplace_float.add_argument("--scale", required=True, help="noise scale b > 0 (a float is fine here)")
    laplace_float.add_argument("--q", required=True, help="true value (write --q=-1.5 for negatives)")
    laplace_float.add_argument("--q-prime", required=True, help="neighbouring true value")
    laplace_float.add_argument("--bits", type=_count("bits", 2, 24), required=True, help="draw bits K, 2..24, enumerated exhaustively")
    laplace_float.add_argument("--samples", type=_count("samples", 0, MAX_SAMPLES), default=1000,
                               help="53-bit outputs tested for reachability (0 skips)")
    laplace_float.add_argument("--seed", type=_count("seed", 0, MAX_SEED), help="seed of those samples (default: fresh)")
    add_json_option(laplace_float, "the report", schema=LAPLACE_FLOAT_ATTACK_SCHEMA)
    laplace_float.set_defaults(run=_attack_laplace_float)
    return parser


def _unloadable_catalogue(args: argparse.Namespace, error: Exception) -> int:
    """The gate's verdict when dpverify's own catalogue does not load: violated (exit 1)."""
    from dpverify.verify.gate._gate import gate_json, gate_junit

    human = human_stream(args)
    result = CheckResult("catalogue", Verdict.VIOLATED, f"the built-in catalogue does not load: {_clip(str(error), 300)}",
                         reason="its specs are fixed, so the shipped code that builds them is what broke")
    print(f"FAIL catalogue: violated: {result.summary}", file=human)
    if args.json:
        emit_json(args, gate_json((), seed=args.seed, samples=args.samples, repository=(result,)))
    if args.junit:
        emit_junit(args, gate_junit((), seed=args.seed, samples=args.samples, replay=_replay(args, args.seed),
                                    repository=(result,), time_limit=args.time_limit, timestamp=_timestamp()))
    return 1


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
    if unknown and args.run is not _audit:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if unknown:
        args.parameters = unknown  # an audit's --PARAM VALUE pairs, read against the spec's parameters
    for dest, value in vars(args).items():
        # argparse reads "--seed=--" as an empty list and skips the type check
        if value == [] and dest in (options := _options(parser)):
            parser.error(f"{options[dest]} needs a value")
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
