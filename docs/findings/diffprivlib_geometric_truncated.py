"""Finding 4b of docs/findings.md: diffprivlib's GeometricTruncated exceeds its epsilon at 53 bits.

Library: diffprivlib 0.6.6.  Public call:
``diffprivlib.mechanisms.GeometricTruncated(epsilon=1, sensitivity=1, lower=0, upper=5,
random_state=...).randomise(x)`` at x = 0 and x = 1; claimed pure 1-DP (delta = 0).  It draws one
``u = random()``, a multiple j / 2^53 (secrets.SystemRandom), and clamps the geometric output to [0, 5].

Nothing is sampled: P(output = v | x) is a count of j over 2^53, found by bisection on the library's
own call, which is non-increasing in j on each half (u < 1/2, u > 1/2) provided np.log is
non-decreasing (the stated assumption).  Usage: python diffprivlib_geometric_truncated.py
"""

import secrets
import warnings
from decimal import Decimal, getcontext
from fractions import Fraction

from diffprivlib.mechanisms import GeometricTruncated

HALF, LOWER, UPPER = 2**52, 0, 5
getcontext().prec = 50
warnings.simplefilter("ignore", RuntimeWarning)  # numpy's log(0) at u = 1/2, raised below


class ChosenRandom(secrets.SystemRandom):  # diffprivlib hands a SystemRandom back unchanged
    u = 0.0

    def random(self) -> float:
        return self.u


def law(x: int) -> dict[int, Fraction]:
    source = ChosenRandom()
    mechanism = GeometricTruncated(epsilon=1, sensitivity=1, lower=LOWER, upper=UPPER, random_state=source)

    def out(j: int) -> int:
        source.u = j / 2**53
        return mechanism.randomise(x)

    def at_most(v: int, low: int, high: int) -> int:
        """How many j in [low, high] give an output <= v, the output non-increasing on the range."""
        a, b = low, high + 1  # the first j with out(j) <= v
        while a < b:
            m = (a + b) // 2
            a, b = (a, m) if out(m) <= v else (m + 1, b)
        return high + 1 - a

    counts: dict[int, int] = {}
    for low, high in ((1, HALF - 1), (HALF + 1, 2**53 - 1)):  # j = 0 and j = 2^52 are counted below
        for v in range(LOWER, UPPER + 1):
            counts[v] = counts.get(v, 0) + at_most(v, low, high) - at_most(v - 1, low, high)
    counts[out(0)] += 1
    counts[-1] = 1  # u = 1/2 takes log(0), and int(round(inf)) raises at every input alike: no ratio changes
    assert sum(counts.values()) == 2**53
    return {v: Fraction(c, 2**53) for v, c in counts.items()}


def main() -> None:
    p = {x: law(x) for x in (0, 1)}
    e = Decimal(1).exp()
    pairs = [(v, a, b) for v in p[0] for a, b in ((0, 1), (1, 0))]
    worst = max(pairs, key=lambda t: p[t[1]][t[0]] / p[t[2]][t[0]])
    v, a, b = worst
    ratio = p[a][v] / p[b][v]
    excess = (Decimal(ratio.numerator) / Decimal(ratio.denominator)).ln() - 1
    print(f"P(output = {v} | x = {a}) = {p[a][v]}, P(output = {v} | x = {b}) = {p[b][v]}")
    print(f"exact epsilon at 53 bits = 1 + {float(excess):.3g} (claimed 1)")

    def dec(f: Fraction) -> Decimal:
        return Decimal(f.numerator) / f.denominator

    delta = max(sum(max(Decimal(0), dec(p[s][w]) - e * dec(p[t][w])) for w in p[s]) for s, t in ((0, 1), (1, 0)))
    print(f"certified delta >= {float(delta):.6g} at epsilon = 1 (claimed delta = 0)")


if __name__ == "__main__":
    main()
