"""The number of draws Tumult Core's AddGeometricNoise makes gives its input away (the timing attack of Jin
et al., S&P 2022, Section V, applied to Tumult Core; joint output/timing privacy in the sense of Ratliff
and Vadhan, 2024).  Not in the published record: a new observation.

Library: tmlt-core 0.20.0.  Release: ``AddGeometricNoise(alpha=1)(x)`` at x = 0 and x = 1, claimed 1-DP
for inputs at distance 1.  At alpha < 10 the noise is the difference of two of Tumult's
``_sample_geometric_exp_slow(1)``, loops that draw once more for each unit of their result, so the number
of uniform draws (``tmlt.core.random.discrete_gaussian._sample_uniform``, replaced here by a counting one
over a seeded ``random.Random``: the same uniform integers, only counted) grows with the noise's parts.
An attacker who times the call sees (output, draws).  Draws per input are split in halves: the pair
(output, draws) with the largest count ratio is chosen on the first halves, and its probabilities are
bounded on the second with exact Clopper-Pearson intervals at confidence 1 - 10^-6 in all.
Usage: python tmlt_geometric_timing.py [--draws N] [--seed S]
"""

import argparse
import math
import random
from collections import Counter

import numpy as np
import tmlt.core.random.discrete_gaussian as tumult_random
from scipy.stats import beta
from tmlt.core.measurements.noise_mechanisms import AddGeometricNoise

ALPHA = 1e-6 / 2  # two one-sided bounds


def releases(x: int, n: int, rng: random.Random) -> list[tuple[int, int]]:
    calls = 0

    def counting_uniform(m: int) -> int:
        nonlocal calls
        calls += 1
        return rng.randrange(m)

    tumult_random._sample_uniform = counting_uniform
    measurement = AddGeometricNoise(alpha=1)
    out = []
    for _ in range(n):
        calls = 0
        out.append((int(measurement(np.int64(x))), calls))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=40000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    half = args.draws // 2
    runs = {x: releases(x, args.draws, rng) for x in (0, 1)}
    select = {x: Counter(r[:half]) for x, r in runs.items()}
    event, a, b = max(
        ((e, a, b) for a, b in ((0, 1), (1, 0)) for e in select[a]),
        key=lambda t: (select[t[1]][t[0]] + 1) / (select[t[2]][t[0]] + 1),
    )
    k_a = sum(1 for r in runs[a][half:] if r == event)
    k_b = sum(1 for r in runs[b][half:] if r == event)
    low = float(beta.ppf(ALPHA, k_a, half - k_a + 1)) if k_a else 0.0
    high = 1.0 if k_b == half else float(beta.ppf(1 - ALPHA, k_b + 1, half - k_b))
    print(f"event (output, draws) = {event}: {k_a}/{half} held-out draws at x = {a}, {k_b}/{half} at x = {b}")
    bound = math.log(low / high) if low > 0 else 0.0
    print(f"output alone claimed 1-DP; (output, draws): certified epsilon >= {bound:.4g} (claimed 1)")


if __name__ == "__main__":
    main()
