"""Finding 4 of docs/findings.md: diffprivlib's Geometric has an output that only one input gives.

Library: diffprivlib 0.6.6 (found at that version).  Public call:
``diffprivlib.mechanisms.Geometric(epsilon=1, sensitivity=1, random_state=...).randomise(x)`` at
x = 0 and x = 1; claimed pure 1-DP (delta = 0).  It draws one ``u = random()``, a multiple j / 2^53.

Event E: the output -36, fixed before anything is computed (it is the edge of the support of
randomise(0)).  Nothing is sampled: every u is j / 2^53, so P(E | x) is a count of j over 2^53,
found by bisection on the library's own arithmetic, which is monotone in j on u < 1/2 provided
np.log is non-decreasing (the finding's stated assumption).  The real randomise is then run,
with a random_state whose random() returns a chosen u (diffprivlib hands any
secrets.SystemRandom back unchanged), on the edge draws and on a window around them.
Usage: python diffprivlib_geometric.py
"""

import math
import secrets

import numpy as np
from diffprivlib.mechanisms import Geometric

EPSILON, TARGET, HALF, WINDOW = 1.0, -36, 2**52, 64  # u = j / 2^53 < 1/2 for j < HALF


class ChosenRandom(secrets.SystemRandom):
    """A random_state whose random() returns the value last put in ``u``."""

    u = 0.0

    def random(self) -> float:
        return self.u


def formula(x: int, u: float, scale: float) -> int:
    """Geometric.randomise's arithmetic (diffprivlib/mechanisms/geometric.py), for a given random()."""
    unif_rv = u - 0.5
    unif_rv *= 1 + np.exp(scale)
    sgn = -1 if unif_rv < 0 else 1
    return int(np.round(x + sgn * np.floor(np.log(sgn * unif_rv) / scale)))


def main() -> None:
    source = ChosenRandom()
    mechanism = Geometric(epsilon=EPSILON, sensitivity=1, random_state=source)
    scale = -float(EPSILON) / 1  # Geometric._scale: -epsilon / sensitivity

    def real(x: int, j: int) -> int:
        source.u = j / 2**53
        return mechanism.randomise(x)

    def replica(x: int, j: int) -> int:
        return formula(x, j / 2**53, scale)

    low, high = 0, HALF - 1  # on u < 1/2 the output falls as j grows: the smallest j giving <= TARGET
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if replica(0, middle) <= TARGET else (middle + 1, high)
    first, count = low, HALF - low
    edge = {x: replica(x, HALF - 1) for x in (0, 1)}  # the smallest output of x on u < 1/2
    top = {x: replica(x, 2**53 - 1) for x in (0, 1)}  # the smallest on u > 1/2, where outputs are >= x
    window = sorted({*range(max(0, first - WINDOW), min(HALF, first + WINDOW)), *range(HALF - WINDOW, HALF)})
    agrees = all(real(x, j) == replica(x, j) for x in (0, 1) for j in window)
    monotone = all(replica(x, a) >= replica(x, b) for x in (0, 1) for a, b in zip(window, window[1:], strict=False))
    exact = replica(0, first) == TARGET and (first == 0 or replica(0, first - 1) > TARGET)
    alone = edge[1] > TARGET and min(top.values()) >= 0
    print(f"randomise(0) = {TARGET} for random() = j / 2**53, j in [{first}, {HALF - 1}]: u = {first / 2**53!r}")
    print(f"smallest outputs: u < 1/2: randomise(0) -> {edge[0]}, randomise(1) -> {edge[1]}; u > 1/2: {top}")
    print(f"replica = real randomise on {len(window)} draws per input: {agrees}; monotone there: {monotone}")
    print(f"the run of {TARGET} is exact: {exact}; no random() gives randomise(1) = {TARGET}: {alone}")
    print(f"P(randomise(0) = {TARGET}) = {count}/2^53 = {count / 2**53:.6g}; P(randomise(1) = {TARGET}) = 0")
    delta = count / 2**53 - math.exp(EPSILON) * 0
    print(f"certified delta >= {delta:.6g} at epsilon = {EPSILON:g} (claimed delta = 0)")


if __name__ == "__main__":
    main()
