"""Finding 1 of docs/findings.md: python-dp's GaussianMechanism.add_noise on doubles leaks its input.

Library: python-dp 1.1.5 (found at that version).  Public call:
``pydp.algorithms.numerical_mechanisms.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
.add_noise(x)`` at the neighbouring inputs x = 0.0 and x = 1.0; claimed (1, 1e-5)-DP.

Event E: ``0 < o < 0.5`` and ``o * 2**53`` is not an integer.  At x = 1 every output in (0, 1/2) is
``1 + noise`` rounded to a multiple of 2^-53; at x = 0 the output is the noise itself, often an odd
multiple of 2^-54.  E is fixed here, before any draw, so each count is a plain binomial and its
exact Clopper-Pearson bounds hold; an event picked after looking at the draws would not allow that.

The noise comes from the operating system's entropy: counts differ between runs, the bound holds.
Usage: python pydp_gaussian_double.py [--draws N]
"""

import argparse
import math

from pydp.algorithms.numerical_mechanisms import GaussianMechanism
from scipy.stats import beta

EPSILON, DELTA = 1.0, 1e-5
ALPHA = 1e-6  # joint confidence 1 - ALPHA: each of the two one-sided bounds at ALPHA / 2


def in_event(o: float) -> bool:
    return 0.0 < o < 0.5 and not (o * 2**53).is_integer()


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Exact one-sided Clopper-Pearson bounds on a binomial proportion, each at confidence 1 - alpha."""
    lower = 0.0 if k == 0 else float(beta.ppf(alpha, k, n - k + 1))
    upper = 1.0 if k == n else float(beta.ppf(1 - alpha, k + 1, n - k))
    return lower, upper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20000, help="draws per input (default 20000)")
    n = parser.parse_args().draws
    mechanism = GaussianMechanism(epsilon=EPSILON, delta=DELTA, sensitivity=1.0)
    counts = {x: sum(in_event(mechanism.add_noise(x)) for _ in range(n)) for x in (0.0, 1.0)}
    low0, _ = clopper_pearson(counts[0.0], n, ALPHA / 2)
    _, up1 = clopper_pearson(counts[1.0], n, ALPHA / 2)
    print(f"event E: 0 < o < 0.5 and o * 2**53 not an integer; {n} draws per input, confidence 1 - {ALPHA:g}")
    print(f"x = 0.0: {counts[0.0]} in E, P(E | 0) >= {low0:.5f}")
    print(f"x = 1.0: {counts[1.0]} in E, P(E | 1) <= {up1:.5f}")
    certified = max(0.0, low0 - math.exp(EPSILON) * up1)
    print(f"certified delta >= {certified:.4g} at epsilon = {EPSILON:g} (claimed delta = {DELTA:g})")


if __name__ == "__main__":
    main()
