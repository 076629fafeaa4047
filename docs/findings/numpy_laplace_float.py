"""Finding 3 of docs/findings.md: the textbook float Laplace mechanism, ``x + Laplace(1/epsilon)``.

Library: numpy (findings.md names no version; reproduced with numpy 2.4.6).  Public call:
``x + numpy.random.default_rng(seed).laplace(0.0, 1/epsilon)`` in doubles at epsilon = 0.1, inputs
x = 0.0 and x = 1.0; claimed pure 0.1-DP (delta = 0).
Known since Mironov (CCS 2012); not a numpy bug, but a pattern that DP pipelines repeat.

Event E: ``o < 0`` and ``o * 2**52`` is not an integer.  At x = 1 a negative output is ``1 + noise``
with noise < -1, a sum of multiples of 2^-52, so it is one too; at x = 0 the output is the noise,
whose bits below 2^-52 are often set when |noise| < 1.  E is fixed here, before any draw, so each
count is a plain binomial and its exact Clopper-Pearson bounds hold; an event picked after looking
at the draws would not allow that.

Usage: python numpy_laplace_float.py [--draws N] [--seed S]
"""

import argparse
import math

import numpy as np
from scipy.stats import beta

EPSILON = 0.1
ALPHA = 1e-6  # joint confidence 1 - ALPHA: each of the two one-sided bounds at ALPHA / 2


def count_event(o: np.ndarray) -> int:
    return int(np.count_nonzero((o < 0) & (np.mod(o * 2.0**52, 1.0) != 0)))


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Exact one-sided Clopper-Pearson bounds on a binomial proportion, each at confidence 1 - alpha."""
    lower = 0.0 if k == 0 else float(beta.ppf(alpha, k, n - k + 1))
    upper = 1.0 if k == n else float(beta.ppf(1 - alpha, k + 1, n - k))
    return lower, upper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20000, help="draws per input (default 20000)")
    parser.add_argument("--seed", type=int, default=1, help="numpy seed (default 1)")
    args = parser.parse_args()
    n = args.draws
    rng = np.random.default_rng(args.seed)  # one stream: the inputs' draws are disjoint, independent
    counts = {x: count_event(x + rng.laplace(0.0, 1 / EPSILON, size=n)) for x in (0.0, 1.0)}
    low0, _ = clopper_pearson(counts[0.0], n, ALPHA / 2)
    _, up1 = clopper_pearson(counts[1.0], n, ALPHA / 2)
    print(
        f"event E: o < 0 and o * 2**52 not an integer; seed {args.seed}, {n} draws per input, confidence 1 - {ALPHA:g}"
    )
    print(f"x = 0.0: {counts[0.0]} in E, P(E | 0) >= {low0:.5f}")
    print(f"x = 1.0: {counts[1.0]} in E, P(E | 1) <= {up1:.5f}")
    if up1 > 0:
        print(f"certified epsilon >= {math.log(low0 / up1) if low0 > 0 else 0.0:.3f} at delta = 0")
    certified = max(0.0, low0 - math.exp(EPSILON) * up1)
    print(f"certified delta >= {certified:.4g} at epsilon = {EPSILON:g} (claimed delta = 0)")


if __name__ == "__main__":
    main()
