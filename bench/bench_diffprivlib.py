"""Benchmark: the exact PMF of diffprivlib's Geometric, run unmodified, against a plain loop.

At ``k`` bits (default 20) and ``epsilon = 1``, ``q = 0``, this script times, in one run:

- **baseline**: diffprivlib's formula written out (``mechanisms/geometric.py``, 0.6.6) and
  evaluated in a plain loop on all ``2^k`` grid points, counting the outputs: the least work
  any exhaustive method does, with no engine and no library object;
- **enumerate**: :func:`dpverify.verify.published._diffprivlib_pmf.output_pmf` with ``method="enumerate"``,
  the real ``Geometric.randomise`` on every execution, drawn through ``RandomCompat`` from the
  engine's enumerating source (no assumption);
- **bisect**: the same PMF with ``method="bisect"`` (assumption L, ``np.log`` monotone), at
  ``k`` and at 53 bits.

The three PMFs at ``k`` bits must be equal (exit 1 otherwise); each time is the best of
``--repeat`` runs; the ratios are against the baseline of the same run.

Usage: ``python bench/bench_diffprivlib.py [--bits 20] [--repeat 3]`` (needs
``pip install 'dpverify[diffprivlib]'``).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import TypeVar

R = TypeVar("R")


def best_of(repeat: int, run: Callable[[], R]) -> tuple[float, R]:
    best, result = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result  # type: ignore[return-value]


def baseline(k: int, q: int = 0, epsilon: float = 1.0) -> dict[object, Fraction]:
    import numpy as np

    scale = -epsilon / 1
    counts: Counter[object] = Counter()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(1 << k):
            v = (j / (1 << k) - 0.5) * (1 + np.exp(scale))
            sgn = -1 if v < 0 else 1
            noisy = np.round(q + sgn * np.floor(np.log(sgn * v) / scale))
            counts[int(noisy) if math.isfinite(noisy) else "raised OverflowError"] += 1
    return {y: Fraction(c, 1 << k) for y, c in counts.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bits", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not 4 <= args.bits <= 24 or args.repeat < 1:
        parser.error("--bits must be in [4, 24] and --repeat >= 1")
    try:
        import diffprivlib  # noqa: F401
    except ImportError:
        print("needs diffprivlib: pip install 'dpverify[diffprivlib]'", file=sys.stderr)
        return 2
    from dpverify.verify.published._diffprivlib_pmf import diffprivlib_mechanism, output_pmf

    k = args.bits
    mechanism = diffprivlib_mechanism("geometric", epsilon=1)
    print(f"diffprivlib Geometric(epsilon=1), q=0, k={k}; {os.cpu_count()} cores, Python {platform.python_version()}")
    t_base, pmf_base = best_of(args.repeat, lambda: baseline(k))
    t_enum, found = best_of(args.repeat, lambda: output_pmf(mechanism, 0, k, method="enumerate"))
    t_bis, bisected = best_of(args.repeat, lambda: output_pmf(mechanism, 0, k, method="bisect"))
    t_53, at_53 = best_of(args.repeat, lambda: output_pmf(mechanism, 0, 53, method="bisect"))
    print(f"  baseline (formula in a loop, 2^{k} points): {t_base:8.3f} s")
    print(f"  enumerate (real code, every execution):    {t_enum:8.3f} s  ({t_enum / t_base:.2f} x baseline)")
    print(f"  bisect at {k} bits ({bisected.executions} executions): {t_bis:8.4f} s  ({t_bis / t_base:.4f} x baseline)")
    print(f"  bisect at 53 bits ({at_53.executions} executions): {t_53:8.4f} s  ({t_53 / t_base:.4f} x baseline)")
    agree = found.masses == pmf_base == bisected.masses
    print(
        f"  the three PMFs at {k} bits agree: {agree}; outputs at 53 bits: {len(at_53.masses)}, "
        f"total {sum(at_53.masses.values())}"
    )
    return 0 if agree and sum(at_53.masses.values()) == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
