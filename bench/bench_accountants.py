"""Benchmark: the optimal (KOV) composition bound against a certified-bisection baseline.

Kairouz, Oh, Viswanath 2017, Theorem 3.3: the k-fold composition of eps-DP steps is
``(eps', delta_RR(eps'))``-DP.  For each ``k`` this times, in the same run (the machine is noisy,
so only ratios mean anything):

- measured: ``dpverify.specs.kov_composition(eps, 0, k, delta')``: one scan over the privacy-loss
  grid with directed rounding, then the root on the segment found;
- baseline: a certified bisection on ``eps'`` in ``[0, k eps]``, each step one enclosure of
  ``delta_RR`` by :func:`dpverify.specs.kov_delta` (``O(k)`` interval terms), until the bracket is
  ``10^-12`` wide relative, under a wall-clock budget.  A baseline that runs out of budget is
  abandoned, never extrapolated: the ratio is then printed as a lower bound ``>= B / t``.

The two must agree (the measured enclosure meets the baseline's bracket); the exit code is 1 if
they do not, 0 otherwise.

Usage: ``python bench/bench_accountants.py [--epsilon 1/100] [--delta-prime 1e-6]
[--k 100 1000 10000 100000] [--repeat 3] [--baseline-budget SECONDS]``
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from fractions import Fraction

from dpverify.specs import kov_composition, kov_delta
from dpverify.specs._interval_tools import mpf_compare


class BudgetExceeded(Exception):
    """The baseline ran past its wall-clock budget and was abandoned."""


def measured(eps: Fraction, k: int, delta_prime: Fraction) -> tuple[Fraction, Fraction]:
    bound = kov_composition(eps, 0, k, delta_prime)
    assert bound.epsilon_interval is not None
    return Fraction(bound.epsilon_interval[0]), Fraction(bound.epsilon)


def baseline(eps: Fraction, k: int, delta_prime: Fraction, budget: float) -> tuple[Fraction, Fraction]:
    """``[low, high]`` with ``delta_RR(high) <= delta'`` and ``delta_RR(low) > delta'`` certified."""
    start = time.perf_counter()
    low, high = Fraction(0), k * eps
    while high - low > high / 10**12:
        if time.perf_counter() - start > budget:
            raise BudgetExceeded
        middle = (low + high) / 2
        middle = Fraction(round(middle * 10**15), 10**15) or middle  # keep the rationals short
        below, above = kov_delta(eps, 0, k, middle, dps=20)
        if mpf_compare(above, delta_prime) <= 0:
            high = middle
        elif mpf_compare(below, delta_prime) > 0:
            low = middle
        else:
            break  # the enclosure straddles delta': the bracket is as narrow as 20 digits allow
    return low, high


def best_of(repeat: int, run: object) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = run()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", default="1/100")
    parser.add_argument("--delta-prime", default="1e-6")
    parser.add_argument("--k", type=int, nargs="+", default=[100, 1000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-budget", type=float, default=60.0)
    args = parser.parse_args(argv)
    eps, delta_prime = Fraction(args.epsilon), Fraction(args.delta_prime)
    print(
        f"KOV composition, eps={eps}, delta'={delta_prime}; Python {platform.python_version()} on {platform.machine()}"
    )
    print(f"{'k':>8} {'measured s':>11} {'baseline s':>11} {'ratio':>9}  eps'")
    failed = False
    for k in args.k:
        seconds, (low, high) = best_of(args.repeat, lambda k=k: measured(eps, k, delta_prime))  # type: ignore[misc]
        try:
            start = time.perf_counter()
            base_low, base_high = baseline(eps, k, delta_prime, args.baseline_budget)
            base_seconds = time.perf_counter() - start
            agree = low <= base_high and base_low <= high
            failed |= not agree
            ratio = f"{base_seconds / seconds:9.1f}"
            base = f"{base_seconds:11.3f}"
        except BudgetExceeded:
            agree, ratio, base = True, f">= {args.baseline_budget / seconds:.0f}", f"> {args.baseline_budget:.0f}"
        print(f"{k:>8} {seconds:11.4f} {base:>11} {ratio:>9}  {float(high):.12g}{'' if agree else '  DISAGREE'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
