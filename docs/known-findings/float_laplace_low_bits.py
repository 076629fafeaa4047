"""The low bits of a floating-point Laplace release give its input away (Mironov, CCS 2012; the
precision-based attacks of Haney, Desfontaines, Hartman, Shrestha and Hay, 2022).

Libraries: diffprivlib 0.6.6, ``Laplace(epsilon=1, sensitivity=1).randomise(x)``, and OpenDP 0.4.0,
``opendp.meas.make_base_laplace(scale=1.0)(x)`` (after ``enable_features("contrib", "floating-point")``);
each claims 1-DP for inputs at distance 1.  Inputs x = 0.0 and x = 1.0.

Event E: ``o < 0.5`` and ``o * 2**53`` is not an integer.  At x = 1 such an output is the double
``1 + noise`` with noise < -1/2, a multiple of 2^-53; at x = 0 it is the noise itself, whose low bits
are kept.  E is fixed before any draw, so each count is a plain binomial and its exact one-sided
Clopper-Pearson bounds (computed here with the standard library) hold at confidence 1 - 10^-6 together.
The library's own randomness is used (OS entropy: each run differs, the bound holds for every run).
Usage: python float_laplace_low_bits.py --library {diffprivlib,opendp} [--draws N]
"""

import argparse
import math

ALPHA = 1e-6  # joint confidence 1 - ALPHA: each of the two one-sided bounds at ALPHA / 2
EPSILON = 1.0


def release(library: str):
    if library == "diffprivlib":
        from diffprivlib.mechanisms import Laplace

        mechanism = Laplace(epsilon=1, sensitivity=1)
        return lambda x: float(mechanism.randomise(x))
    from opendp.meas import make_base_laplace
    from opendp.mod import enable_features

    enable_features("contrib", "floating-point")
    measurement = make_base_laplace(scale=1.0)
    return lambda x: float(measurement(x))


def in_event(o: float) -> bool:
    return o < 0.5 and (o * 2.0**53) % 1.0 != 0.0


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(Bin(n, p) >= k), summed in log space."""
    if p <= 0.0:
        return 0.0 if k > 0 else 1.0
    if p >= 1.0:
        return 1.0
    log_n = math.lgamma(n + 1)
    return sum(
        math.exp(log_n - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * math.log(p) + (n - i) * math.log1p(-p))
        for i in range(k, n + 1)
    )


def lower_bound(k: int, n: int, alpha: float) -> float:
    """The exact one-sided Clopper-Pearson lower bound: the p with P(Bin(n, p) >= k) = alpha."""
    if k == 0:
        return 0.0
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if binomial_tail(k, n, middle) < alpha else (low, middle)
    return low


def upper_bound(k: int, n: int, alpha: float) -> float:
    """The exact one-sided Clopper-Pearson upper bound (closed form for k = 0 only, which is the case here)."""
    if k == 0:
        return 1.0 - alpha ** (1.0 / n)
    return 1.0 - lower_bound(n - k, n, alpha)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", choices=("diffprivlib", "opendp"), required=True)
    parser.add_argument("--draws", type=int, default=10000, help="draws per input (default 10000)")
    args = parser.parse_args()
    run, n = release(args.library), args.draws
    counts = {x: sum(in_event(run(x)) for _ in range(n)) for x in (0.0, 1.0)}
    low0, up1 = lower_bound(counts[0.0], n, ALPHA / 2), upper_bound(counts[1.0], n, ALPHA / 2)
    print(f"event E: o < 0.5 and o * 2**53 not an integer; {args.library}, {n} draws per input")
    print(f"confidence 1 - {ALPHA:g}")
    print(f"x = 0.0: {counts[0.0]} in E, P(E | 0) >= {low0:.5f}")
    print(f"x = 1.0: {counts[1.0]} in E, P(E | 1) <= {up1:.5f}")
    print(f"certified epsilon >= {math.log(low0 / up1) if low0 > 0 else 0.0:.3f} at delta = 0 (claimed epsilon = 1)")
    print(f"certified delta >= {max(0.0, low0 - math.exp(EPSILON) * up1):.4g} at epsilon = 1 (claimed delta = 0)")


if __name__ == "__main__":
    main()
