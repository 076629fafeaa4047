"""diffprivlib 0.4.1's Laplace mechanism releases values whose low bits give its input away
(IBM/differential-privacy-library#19: Mironov's floating-point attack on the Laplace mechanism).

Library: diffprivlib 0.4.1.  Release: Laplace(epsilon=1, sensitivity=1).randomise(x) at x = 0 and
x = 1, claimed 1-DP; 0.4.1 computes x - scale * sign(u) * log(1 - 2|u|) from one u = random() - 0.5.
Event: the output o is below 0.5 and o * 2^53 is not an integer.  At x = 1 it is impossible: an output
o < 0.5 there is 1 + y rounded, with y < -0.5 a double of ulp >= 2^-53, so the exact sum is a multiple
of 2^-53 and so is its rounding.  At x = 0 the noise itself is released and is finer near 0.  The
event is fixed in advance, so all draws bound it: exact Clopper-Pearson intervals at confidence
1 - 10^-6 in all give a certified lower bound on delta at the claimed epsilon.  diffprivlib draws from
secrets.SystemRandom (not seedable), so counts vary from run to run.

diffprivlib 0.4.1's package __init__ imports diffprivlib.models, which imports private scikit-learn
names removed in scikit-learn 1.1 (no installable scikit-learn has them); the mechanisms never use the
models, so an empty module stands in for diffprivlib.models (a stated assumption of this script).
Usage: python diffprivlib_041_laplace.py [--draws N]
"""

import argparse
import math
import sys
import types

from scipy.stats import beta

# diffprivlib/__init__.py imports diffprivlib.models, whose sklearn imports fail; the mechanism does not use it
sys.modules.setdefault("diffprivlib.models", types.ModuleType("diffprivlib.models"))

from diffprivlib.mechanisms import Laplace  # noqa: E402

EPSILON = 1.0
ALPHA = 1e-6 / 2  # two one-sided bounds


def event(o: float) -> bool:
    return o < 0.5 and (o * 2.0**53) != math.floor(o * 2.0**53)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=100000)
    args = parser.parse_args()
    n = args.draws
    mechanism = Laplace(epsilon=EPSILON, sensitivity=1)
    k0 = sum(event(float(mechanism.randomise(0.0))) for _ in range(n))
    k1 = sum(event(float(mechanism.randomise(1.0))) for _ in range(n))
    low0 = float(beta.ppf(ALPHA, k0, n - k0 + 1)) if k0 else 0.0
    high1 = 1.0 if k1 == n else float(beta.ppf(1 - ALPHA, k1 + 1, n - k1))
    delta = low0 - math.exp(EPSILON) * high1
    epsilon = math.log(low0 / high1) if low0 > 0 else 0.0
    print(
        f"event o < 0.5 and o * 2^53 not an integer: {k0}/{n} draws at x = 0 (P >= {low0:.4g}), "
        f"{k1}/{n} at x = 1 (P <= {high1:.3g})"
    )
    print(f"certified: epsilon >= {epsilon:.4g}, delta >= {delta:.4g} at epsilon = {EPSILON:g} (confidence 1 - 1e-6)")
    print(f"claimed {EPSILON:g}-DP violated: {delta > 0}")


if __name__ == "__main__":
    main()
