"""The timing of diffprivlib's GaussianDiscrete gives its input away (Jin et al., S&P 2022, Section V).

Library: diffprivlib 0.6.6 (no fixed version).  Release: GaussianDiscrete(epsilon=0.5, delta=1e-5,
sensitivity=1).randomise(x) at x = 0 and x = 1, claimed (0.5, 1e-5)-DP.  It is Canonne, Kamath and
Steinke's rejection sampler, so the number of random() calls it makes depends on its noise: an attacker
who times the call sees (output, number of random() calls).  The fastest runs make |noise| + 4 calls, so
the count reveals |output - x|.  Releases per input are split in halves: the set S of pairs
(output, calls) seen more than e^0.5 times as often at one input as at the other is chosen on the first
halves; on the second halves exact Clopper-Pearson intervals (confidence 1 - 10^-6 in all) bound P(S | x)
from below and P(S | x') from above, so delta >= P(S | x) - e^0.5 P(S | x') is certified.  The same test
on the output alone finds nothing.  (The exact joint law over every run of at most 14 calls, walked by
the known-findings bench, gives delta >= 0.608.)
Usage: python diffprivlib_gaussdiscrete_timing.py [--draws N] [--seed S]
"""

import argparse
import math
import random
import warnings
from collections import Counter

from diffprivlib.mechanisms import GaussianDiscrete
from scipy.stats import beta

ALPHA = 1e-6 / 4  # four one-sided bounds
EPSILON, DELTA = 0.5, 1e-5


class Counting(random.SystemRandom):
    """diffprivlib takes a secrets.SystemRandom; this one is seeded (for reproducibility) and counts random()."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.inner = random.Random(seed)
        self.calls = 0

    def random(self) -> float:
        self.calls += 1
        return self.inner.random()


def releases(x: int, n: int, rng: Counting) -> list[tuple[int, int]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mechanism = GaussianDiscrete(epsilon=EPSILON, delta=DELTA, sensitivity=1, random_state=rng)
    out = []
    for _ in range(n):
        rng.calls = 0
        out.append((mechanism.randomise(x), rng.calls))
    return out


def certified_delta(runs: dict[int, list], half: int) -> tuple[float, int, int, int]:
    """max over directions of low(P(S | a)) - e^eps high(P(S | b)), S chosen on the first halves."""
    best = (-math.inf, 0, 0, 0)
    for a, b in ((0, 1), (1, 0)):
        seen_a, seen_b = Counter(runs[a][:half]), Counter(runs[b][:half])
        chosen = {e for e, k in seen_a.items() if k > math.exp(EPSILON) * seen_b[e]}
        k_a = sum(1 for r in runs[a][half:] if r in chosen)
        k_b = sum(1 for r in runs[b][half:] if r in chosen)
        low = float(beta.ppf(ALPHA, k_a, half - k_a + 1)) if k_a else 0.0
        high = 1.0 if k_b == half else float(beta.ppf(1 - ALPHA, k_b + 1, half - k_b))
        best = max(best, (low - math.exp(EPSILON) * high, a, k_a, k_b))
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=40000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = Counting(args.seed)
    half = args.draws // 2
    runs = {x: releases(x, args.draws, rng) for x in (0, 1)}
    fastest = Counter(r for r in runs[0] if r[1] == abs(r[0]) + 4)
    print(f"x = 0: {sum(fastest.values())}/{args.draws} releases made exactly |output| + 4 random() calls")
    pair, a, k_a, k_b = certified_delta(runs, half)
    print(f"(output, calls): S holds {k_a}/{half} held-out releases at x = {a}, {k_b}/{half} at x = {1 - a}")
    alone, *_ = certified_delta({x: [o for o, _ in r] for x, r in runs.items()}, half)
    print(f"output alone: certified delta >= {max(alone, 0.0):.3g} at epsilon 0.5 (claimed delta 1e-05)")
    print(f"(output, time): certified delta >= {pair:.4g} at epsilon 0.5 (claimed delta 1e-05)")
    print(f"timing breaks (0.5, 1e-05)-DP: {pair > DELTA}")


if __name__ == "__main__":
    main()
