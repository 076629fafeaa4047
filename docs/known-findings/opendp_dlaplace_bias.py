"""OpenDP 0.14.1's integer Laplace is biased: its law is not the discrete Laplace it promises
(opendp/opendp#2638, "Bias in additive noise samplers", caused by a big-integer division bug in
dashu, cmpute/dashu#57; fixed in OpenDP 0.14.2).

Release: ``make_laplace(atom_domain(T=int), absolute_distance(T=int), scale=3.0)(0)``, which the
documentation states is 0 plus discrete Laplace noise of scale 3: P(k) = tanh(1/(2*3)) * exp(-|k|/3).
The empirical CDF of N draws is compared with that law's CDF.  By the Dvoretzky-Kiefer-Wolfowitz
inequality (Massart's constant), a correct sampler's empirical CDF is anywhere more than
t = sqrt(ln(2/alpha) / (2N)) from the true one with probability at most alpha = 5 * 10^-10, so a
larger distance shows that the sampler's law is not the promised one.  About 45 s at N = 200,000.
Usage: python opendp_dlaplace_bias.py [--draws N]
"""

import argparse
import math
from collections import Counter

SCALE = 3.0
ALPHA = 5e-10


def cdf(k: int) -> float:
    """P(noise <= k) for the discrete Laplace of scale SCALE."""
    r = math.exp(-1 / SCALE)
    if k < 0:
        return r ** (-k) / (1 + r)
    return 1 - r ** (k + 1) / (1 + r)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200_000, help="draws (default 200000)")
    args = parser.parse_args()
    import opendp.prelude as dp

    dp.enable_features("contrib")
    measurement = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=SCALE)
    n = args.draws
    counts = Counter(measurement(0) for _ in range(n))
    t = math.sqrt(math.log(2 / ALPHA) / (2 * n))
    below, worst, at = 0, 0.0, 0
    for k in range(min(counts), max(counts) + 1):
        below += counts.get(k, 0)
        distance = abs(below / n - cdf(k))
        if distance > worst:
            worst, at = distance, k
    print(f"{n} draws of make_laplace(scale=3)(0); DKW threshold t = {t:.6f} at false-alarm rate {ALPHA:g}")
    empirical = sum(c for k, c in counts.items() if k <= at) / n
    print(f"largest CDF distance {worst:.6f} at output {at}: empirical {empirical:.6f}, discrete Laplace {cdf(at):.6f}")
    print(f"law differs from the discrete Laplace: {worst > t}")


if __name__ == "__main__":
    main()
