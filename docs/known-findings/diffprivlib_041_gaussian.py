"""diffprivlib 0.4.1's Gaussian mechanism releases values whose low bits give its input away (Jin,
McMurtry, Rubinstein, Ohrimenko, Are We There Yet? Timing and Floating-Point Attacks on Differential
Privacy Systems, IEEE S&P 2022: the floating-point attack on the Gaussian mechanism).

Library: diffprivlib 0.4.1.  Release: Gaussian(epsilon=0.5, delta=1e-5, sensitivity=1).randomise(x)
at x = 0 and x = 1, claimed (0.5, 1e-5)-DP; 0.4.1 computes x + scale * z, z from Box-Muller on two
random() draws, scale about 9.69.  A mechanism caches the second normal of each pair for its next call,
so each release here comes from a new mechanism (its first release), which keeps the draws independent.
Event: the output o is below 0.5 and o * 2^53 is not an integer.  At x = 1 it is impossible: an output
o < 0.5 there is 1 + y rounded, with y < -0.5 a double of ulp >= 2^-53, so the exact sum is a multiple
of 2^-53 and so is its rounding.  At x = 0 the noise itself is released and is finer near 0.  The
event is fixed in advance, so all draws bound it: exact Clopper-Pearson intervals at confidence
1 - 10^-6 in all give a certified lower bound on delta at the claimed epsilon, to compare with the
claimed delta.  diffprivlib draws from secrets.SystemRandom (not seedable), so counts vary by run.

diffprivlib 0.4.1's package __init__ imports diffprivlib.models, which imports private scikit-learn
names removed in scikit-learn 1.1 (no installable scikit-learn has them); the mechanisms never use the
models, so an empty module stands in for diffprivlib.models (a stated assumption of this script).
Usage: python diffprivlib_041_gaussian.py [--draws N]
"""

import argparse
import math
import sys
import types

from scipy.stats import beta

# diffprivlib/__init__.py imports diffprivlib.models, whose sklearn imports fail; the mechanism does not use it
sys.modules.setdefault("diffprivlib.models", types.ModuleType("diffprivlib.models"))

from diffprivlib.mechanisms import Gaussian  # noqa: E402

EPSILON, DELTA = 0.5, 1e-5
ALPHA = 1e-6 / 2  # two one-sided bounds


def event(o: float) -> bool:
    return o < 0.5 and (o * 2.0**53) != math.floor(o * 2.0**53)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=100000)
    args = parser.parse_args()
    n = args.draws

    def release(x: float) -> float:
        return float(Gaussian(epsilon=EPSILON, delta=DELTA, sensitivity=1).randomise(x))

    k0 = sum(event(release(0.0)) for _ in range(n))
    k1 = sum(event(release(1.0)) for _ in range(n))
    low0 = float(beta.ppf(ALPHA, k0, n - k0 + 1)) if k0 else 0.0
    high1 = 1.0 if k1 == n else float(beta.ppf(1 - ALPHA, k1 + 1, n - k1))
    delta = low0 - math.exp(EPSILON) * high1
    epsilon = math.log((low0 - DELTA) / high1) if low0 > DELTA else 0.0
    print(
        f"event o < 0.5 and o * 2^53 not an integer: {k0}/{n} draws at x = 0 (P >= {low0:.4g}), "
        f"{k1}/{n} at x = 1 (P <= {high1:.3g})"
    )
    print(
        f"certified: epsilon >= {epsilon:.4g} at delta = {DELTA:g}, delta >= {delta:.4g} at epsilon = {EPSILON:g} "
        f"(confidence 1 - 1e-6)"
    )
    print(f"claimed ({EPSILON:g}, {DELTA:g})-DP violated: {delta > DELTA}")


if __name__ == "__main__":
    main()
