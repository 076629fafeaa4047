"""Benchmark: the full GTM privacy verdict against a straightforward SymPy baseline.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers":
the ideal PMF ``gtpmf`` (§2), the inverse-transform implementation with a uniform of size
``T`` (§3, §5), the support condition ``T >= (1+alpha)/((1-alpha)*alpha**n)`` (§5),
Theorem 6.2's degraded bound ``alpha'`` and Theorem 7.1 (``alpha = 1/D``,
``T = (D+1)*D**n`` keeps alpha-DP exactly).

For each ``n`` this times, in the same run (the machine is noisy, so only ratios mean
anything):

- measured: ``dpverify.verify.gtm_privacy(specs.GtmSpec.create(f"1/{D}", n, (D+1)*D**n))``, which
  reads the table through its ``O(n)`` distinct neighbour pairs
  (``dpverify.verify.privacy._gtm_fast``);
- full-table baseline (``n <= --full-max``): the previous path, the same verdict from the whole
  ``(n+1) x (n+1)`` table scanned entry by entry (``gtm_privacy(spec, table=gtm_table(spec))``);
  the two documents must be equal field by field, witness included;
- SymPy baseline (``n <= --sympy-max``): the same verdict computed the obvious way over
  ``sympy.Rational`` (see :func:`sympy_baseline`), under a wall-clock budget.  A baseline that
  runs out of budget is abandoned, never extrapolated: the ratio is then printed as a lower
  bound ``>= B / t``.

All are timed cold (best of ``--repeat``): the spec's ``lru_cache`` and SymPy's cache are
cleared before each run.  They must agree exactly (full table: every field of the document;
SymPy: tightest alpha, ``alpha'``, support condition); the exit code is 1 if they do not, or if
the target is missed, 0 otherwise.  Target: the measured path at ``n = 10^4`` in under 10 s on
the 2-core machine (and ``n = 2*10^4`` reported).

Usage: ``python bench/bench_gtm_privacy.py [--D 3] [--n 200 1000 2000 10000 20000] [--repeat 3]
[--full-max 2000] [--sympy-max 200] [--baseline-budget SECONDS]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import sympy
from sympy.core.cache import clear_cache

from dpverify import specs, verify
from dpverify.specs import gtm as specs_gtm

R = TypeVar("R")
TARGET_N = 10_000
TARGET_SECONDS = 10.0


class BudgetExceeded(Exception):
    """The baseline ran past its wall-clock budget and was abandoned."""


@dataclass(frozen=True)
class BaselineVerdict:
    """What the baseline computes; compared field by field with the measured verdict."""

    alpha_exact: sympy.Rational
    thm62_alpha_prime: sympy.Rational
    full_support: bool
    every_output_possible: bool


def sympy_baseline(D: int, n: int, deadline: float) -> BaselineVerdict:
    """The privacy verdict the straightforward way, over ``sympy.Rational``.

    Ideal table from the §2 formula, each row's CDF by cumulative sums, the finite-T PMF
    ``(floor(T*CDF(x)) - floor(T*CDF(x-1)))/T`` (§3, §5), then the tightest
    ``alpha = min P(x|q)/P(x|q')`` over neighbours ``(q, q+1)`` in both orders and all
    outputs.  Raises :class:`BudgetExceeded` once ``time.perf_counter()`` passes
    ``deadline`` (checked between rows).
    """

    def check_budget() -> None:
        if time.perf_counter() > deadline:
            raise BudgetExceeded

    alpha = sympy.Rational(1, D)
    T = sympy.Integer((D + 1) * D**n)

    def gtpmf(q: int, x: int) -> sympy.Rational:  # paper §2
        if x == 0:
            return alpha**q / (1 + alpha)
        if x == n:
            return alpha ** (n - q) / (1 + alpha)
        return (1 - alpha) / (1 + alpha) * alpha ** abs(x - q)

    pmf: list[list[sympy.Rational]] = []
    for q in range(n + 1):
        cdf, total = [], sympy.Integer(0)
        for x in range(n + 1):
            total += gtpmf(q, x)
            cdf.append(total)
        floors = [sympy.floor(T * c) for c in cdf]
        pmf.append([(floors[x] - (floors[x - 1] if x else 0)) / T for x in range(n + 1)])
        check_budget()

    best: sympy.Rational = sympy.Integer(1)
    for q in range(n):
        for first, second in ((pmf[q], pmf[q + 1]), (pmf[q + 1], pmf[q])):
            for p, p_prime in zip(first, second, strict=True):
                if p_prime != 0:
                    best = min(best, p / p_prime)
        check_budget()

    base = (1 - alpha) / (1 + alpha)
    d, d_prime = base * alpha**n, base * alpha ** (n - 1)
    return BaselineVerdict(
        alpha_exact=best,
        thm62_alpha_prime=(d - 1 / T) / (d_prime + 1 / T),
        full_support=T >= (1 + alpha) / ((1 - alpha) * alpha**n),
        every_output_possible=all(p != 0 for row in pmf for p in row),
    )


def measured(D: int, n: int) -> dict[str, Any]:
    """The path under test: the full verdict of ``dpverify.verify.gtm_privacy``."""
    return verify.gtm_privacy(specs.GtmSpec.create(f"1/{D}", n, (D + 1) * D**n))


def full_table(D: int, n: int) -> dict[str, Any]:
    """The previous path: the same verdict from the whole table, scanned entry by entry."""
    spec = specs.GtmSpec.create(f"1/{D}", n, (D + 1) * D**n)
    return verify.gtm_privacy(spec, table=verify.gtm_table(spec))


def best_of(repeat: int, run: Callable[[], R]) -> tuple[float, R]:
    """Smallest wall-clock time of ``repeat`` cold runs of ``run()``, and its result.

    Caches are cleared before each run, so the time is the work, not a cache hit.  A run
    that raises :class:`BudgetExceeded` ends the series: the best completed run is returned
    if there is one, otherwise the exception propagates.
    """
    best: tuple[float, R] | None = None
    for _ in range(repeat):
        specs_gtm._offset_tables.cache_clear()  # GtmSpec's per-(alpha, n, T) tables
        clear_cache()  # SymPy's cache (Rational construction, floor)
        start = time.perf_counter()
        try:
            result = run()
        except BudgetExceeded:
            if best is None:
                raise
            break
        elapsed = time.perf_counter() - start
        if best is None or elapsed < best[0]:
            best = (elapsed, result)
    assert best is not None
    return best


def disagreements(got: dict[str, Any], want: BaselineVerdict) -> list[str]:
    """Fields where the measured verdict and the baseline differ (compared as exact rationals)."""

    def as_fraction(r: sympy.Rational) -> Fraction:
        return Fraction(int(r.p), int(r.q))

    pairs = {
        "alpha_exact": (Fraction(got["alpha_exact"]), as_fraction(want.alpha_exact)),
        "thm62_alpha_prime": (Fraction(got["thm62_alpha_prime"]), as_fraction(want.thm62_alpha_prime)),
        "full_support": (got["full_support"], bool(want.full_support)),
        "every_output_possible": (got["every_output_possible"], want.every_output_possible),
    }
    return [f"{k}: measured {a} != baseline {b}" for k, (a, b) in pairs.items() if a != b]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--D", type=int, default=3, help="alpha = 1/D (default 3)")
    parser.add_argument(
        "--n",
        type=int,
        nargs="+",
        default=[200, 1000, 2000, 10_000, 20_000],
        help="sizes (default 200 1000 2000 10000 20000)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--full-max", type=int, default=2000, help="full-table baseline up to this n (default 2000)")
    parser.add_argument("--sympy-max", type=int, default=200, help="SymPy baseline up to this n (default 200)")
    parser.add_argument(
        "--baseline-budget", type=float, default=120.0, help="seconds per SymPy baseline run (default 120)"
    )
    args = parser.parse_args(argv)
    if args.D < 2 or args.repeat < 1 or args.baseline_budget <= 0 or min(args.n) < 1:
        parser.error("need --D >= 2, --repeat >= 1, --baseline-budget > 0, every --n >= 1")

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"cores: {os.cpu_count()}  load (1 min): {load:.2f}  "
        f"python: {platform.python_version()} ({platform.python_implementation()})"
    )
    print(f"sympy {sympy.__version__}, ground types {sympy.external.gmpy.GROUND_TYPES}")
    print(
        f"alpha = 1/{args.D}, T = ({args.D}+1)*{args.D}**n, best of {args.repeat}; full-table baseline "
        f"for n <= {args.full_max}, SymPy baseline for n <= {args.sympy_max} "
        f"(budget {args.baseline_budget:g} s per run)"
    )
    failed, target_met = False, None
    for n in args.n:
        t_measured, verdict = best_of(args.repeat, lambda n=n: measured(args.D, n))
        w = verdict["witness"]
        where = "none" if w is None else f"q={w['q']}, q'={w['q_prime']}, output={w['output']}"
        print(f"\nn = {n}: verdict {verdict['verdict']}, alpha_exact = {verdict['alpha_exact']}, witness {where}")
        print(f"  measured  {t_measured:10.3f} s")
        if n <= args.full_max:
            t_full, whole = best_of(args.repeat, lambda n=n: full_table(args.D, n))
            print(f"  full table{t_full:10.3f} s   ratio {t_full / t_measured:8.1f}x  (full table / measured)")
            wrong = [k for k in sorted(set(whole) | set(verdict)) if whole.get(k) != verdict.get(k)]
            for key in wrong:
                print(f"  DISAGREEMENT {key}: measured {verdict.get(key)} != full table {whole.get(key)}")
            failed |= bool(wrong)
            if not wrong:
                print("  agree     every field with the full table (alpha_exact, witness, alpha', support, ...)")
        if n <= args.sympy_max:
            try:
                t_baseline, want = best_of(
                    args.repeat,
                    lambda n=n: sympy_baseline(args.D, n, time.perf_counter() + args.baseline_budget),
                )
            except BudgetExceeded:
                print(f"  sympy     did not finish within {args.baseline_budget:g} s")
                print(f"  ratio     >= {args.baseline_budget / t_measured:.1f}x  (lower bound: B / t_measured)")
            else:
                print(f"  sympy     {t_baseline:10.3f} s   ratio {t_baseline / t_measured:8.1f}x  (SymPy / measured)")
                wrong = disagreements(verdict, want)
                for line in wrong:
                    print(f"  DISAGREEMENT {line}")
                failed |= bool(wrong)
                if not wrong:
                    print("  agree     alpha_exact, thm62_alpha_prime, full_support, every_output_possible")
        if n == TARGET_N:
            target_met = t_measured < TARGET_SECONDS
            print(f"  target    n = {TARGET_N} under {TARGET_SECONDS:g} s: {'met' if target_met else 'NOT met'}")
    if target_met is None:
        print(f"\ntarget    n = {TARGET_N} under {TARGET_SECONDS:g} s: not measured (add --n {TARGET_N})")
    return 1 if failed or target_met is False else 0


if __name__ == "__main__":
    sys.exit(main())
