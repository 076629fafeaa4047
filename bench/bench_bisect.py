"""Benchmark: the exact PMF of GTM's sampler code by search over its single draw.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers", §5: the
implementation draws ``randbelow(T)`` once and returns the first ``x`` with ``u <= CDF_q(x)``, so
its output is non-decreasing in the draw and each output's draws form one interval.
``dpverify pmf gtm ... --from-code`` finds those intervals by running the sampler's own code at
chosen draws (:func:`dpverify.verify.engine._bisect.bisect_outputs`).

For each instance this times, in the same run (the machine is noisy, so only ratios mean
anything):

- measured: ``code_distribution(spec, q)``, the CLI's path: each interval's end found by
  galloping from a guess extrapolated from the previous intervals' lengths, then bisecting;
- baseline: the previous path, each interval bisected over every draw right of its start
  (``_bisect_outputs_one_by_one``), ``O(outputs * log2 T)`` executions.

Both are timed cold (the sampler's CDF cache cleared first; best of ``--repeat``) and must give
exactly the same PMF, output by output; the exit code is 1 if they differ or if the target is
missed, 0 otherwise.  Target: the measured path at ``alpha = 1/3, n = 1000, T = 10^100,
q = 500`` in under 2 s on the 2-core machine.

Usage: ``python bench/bench_bisect.py [--repeat 1]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import TypeVar

from dpverify.samplers import gtm
from dpverify.specs import GtmSpec
from dpverify.verify.engine._bisect import _bisect_outputs_one_by_one
from dpverify.verify.engine._enumeration import Enumeration
from dpverify.verify.engine._exactness import code_distribution

R = TypeVar("R")
TARGET_SECONDS = 2.0
#: (alpha, n, T, q); the first is the target instance.
INSTANCES = [
    ("1/3", 1000, 10**100, 500),
    ("1/3", 200, 10**100, 100),
    ("1/2", 1000, 10**30, 0),
    ("9/10", 300, 10**50, 150),
]


def cold(run: Callable[[], R], repeat: int) -> tuple[float, R]:
    """Best wall time of ``repeat`` runs, each after clearing the sampler's CDF cache."""
    best, result = float("inf"), None
    for _ in range(repeat):
        gtm._cdf_vector.cache_clear()
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result  # type: ignore[return-value]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="best of this many cold runs per path")
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, {os.cpu_count()} cores, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(
        f"{'alpha':>5} {'n':>5} {'T':>7} {'q':>4} {'outputs':>7} {'runs old':>9} {'runs new':>8} "
        f"{'old s':>7} {'new s':>6} {'ratio':>6}  PMF"
    )
    ok, target_seconds = True, None
    for alpha, n, T, q in INSTANCES:
        spec = GtmSpec.create(alpha, n, T)
        sampler = lambda rng, spec=spec, q=q: spec.run(q, rng)  # noqa: E731
        old_s, old = cold(lambda sampler=sampler, T=T: _bisect_outputs_one_by_one(sampler, T), args.repeat)
        new_s, new = cold(lambda spec=spec, q=q: code_distribution(spec, q), args.repeat)
        same = _same(old, new)
        ok &= same
        if target_seconds is None:
            target_seconds = new_s
        print(
            f"{alpha:>5} {n:>5} {'1e' + str(len(str(T)) - 1):>7} {q:>4} {len(new.masses):>7} "
            f"{old.executions:>9} {new.executions:>8} {old_s:>7.2f} {new_s:>6.2f} {old_s / new_s:>5.1f}x  "
            f"{'identical' if same else 'DIFFERENT'}"
        )
    assert target_seconds is not None
    met = target_seconds < TARGET_SECONDS
    alpha, n, T, q = INSTANCES[0]
    print(
        f"target: alpha={alpha}, n={n}, T=1e100, q={q} under {TARGET_SECONDS:.0f} s: "
        f"{target_seconds:.2f} s, {'met' if met else 'NOT met'}"
    )
    if not ok:
        print("FAIL: the two paths gave different PMFs", file=sys.stderr)
    return 0 if ok and met else 1


def _same(old: Enumeration, new: Enumeration) -> bool:
    """Exactly the same PMF, outputs in the same (draw) order, and both complete."""
    return (
        old.masses == new.masses
        and list(old.masses) == list(new.masses)
        and new.method == "bisection"
        and sum(new.masses.values()) == 1
        and old.unexplored == new.unexplored == 0
    )


if __name__ == "__main__":
    sys.exit(main())
