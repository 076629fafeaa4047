"""The running time of OpenDP's integer Laplace gives its input away (Jin et al., S&P 2022, Section V).

Jin et al. ("Are We There Yet? Timing and Floating-Point Attacks on Differential Privacy Systems", IEEE
S&P 2022) time the discrete Laplace sampler of Canonne, Kamath and Steinke, whose loops run once per unit
of the noise's magnitude; the attack is quoted for OpenDP's sampler in divviup/libprio-rs#645 and
discussed in opendp/opendp#321 and #1324.  Library: opendp 0.16.0 (no fixed version).  Release:
dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)(x) at x = 0 and x = 1,
claimed 1-DP (epsilon = 1/scale for inputs at distance 1).  The sampler runs in Rust, so what a caller
observes besides the output is the call's wall-clock time (time.perf_counter_ns).

Method: calls at both inputs in one random interleaved order after a warm-up, the garbage collector off.
Each input's calls are split in halves.  On the first (selection) halves: the time-bucket edges (pooled
quantiles, finest among the fast calls), then the event (output, bucket) and the event (output alone)
with the largest smoothed count ratio, each in either direction.  On the second (held-out) halves: exact
Clopper-Pearson bounds, four one-sided bounds at 1e-6/4 each (confidence 1 - 1e-6 in all), and
epsilon >= ln(lower / upper).  Validity assumes the calls are independent given the machine state and
that the state does not depend on which input is called (the random order sees to that); the held-out
halves are then independent of everything chosen on the selection halves.  The output alone is exactly
1-DP, so its bound stays below 1; the pair's exceeds it.
Usage: python opendp_dlaplace_timing.py [--calls N] [--seed S]
"""

import argparse
import bisect
import gc
import math
import random
import time
from collections import Counter

import opendp.prelude as dp

ALPHA = 1e-6 / 4  # four one-sided bounds
MARGIN = 1e-9  # outward, far above the double-precision error of the continued fraction
QUANTILES = (1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 3 / 4)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Lentz's continued fraction of the regularized incomplete beta function."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """I_x(a, b)."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1 - front * _beta_fraction(b, a, 1 - x) / b


def cp_lower(k: int, n: int, alpha: float) -> float:
    """The Clopper-Pearson lower bound: P_p(K >= k) = I_p(k, n - k + 1) = alpha (bisection, kept below)."""
    if k == 0:
        return 0.0
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if betainc(k, n - k + 1, middle) < alpha else (low, middle)
    return low * (1 - MARGIN)


def cp_upper(k: int, n: int, alpha: float) -> float:
    """The Clopper-Pearson upper bound: P_p(K <= k) = I_(1-p)(n - k, k + 1) = alpha (bisection, kept above)."""
    if k == n:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (low, middle) if betainc(n - k, k + 1, 1 - middle) < alpha else (middle, high)
    return min(1.0, high * (1 + MARGIN))


def timed_calls(release, n: int, seed: int) -> dict[int, list[tuple[int, int]]]:
    order = [0] * n + [1] * n
    random.Random(seed).shuffle(order)
    for k in range(2000):  # warm-up
        release(k % 2)
    clock, calls = time.perf_counter_ns, {0: [], 1: []}
    gc.disable()
    for x in order:
        start = clock()
        output = release(x)
        end = clock()
        calls[x].append((output, end - start))
    gc.enable()
    return calls


def score(k_a: int, k_b: int) -> float:
    """A smoothed log-ratio that imitates the held-out bound (events seen rarely score -inf)."""
    level = math.log(1 / ALPHA)
    low = k_a - math.sqrt(2 * k_a * level)
    return -math.inf if low <= 0 else math.log(low) - math.log(k_b + math.sqrt(2 * k_b * level) + level)


def certify(selection: dict[int, list], held_out: dict[int, list]) -> tuple:
    """(event, x_a, x_b, k_a, k_b, epsilon bound): the event chosen on ``selection``, bounded on ``held_out``."""
    counts = {x: Counter(v) for x, v in selection.items()}
    event, a, b = max(
        ((e, a, b) for a, b in ((0, 1), (1, 0)) for e in counts[a]),
        key=lambda t: score(counts[t[1]][t[0]], counts[t[2]][t[0]]),  # halves of equal size
    )
    size = len(held_out[a])
    k_a, k_b = held_out[a].count(event), held_out[b].count(event)
    low, high = cp_lower(k_a, size, ALPHA), cp_upper(k_b, size, ALPHA)
    return event, a, b, k_a, k_b, (math.log(low / high) if low > 0 else -math.inf)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20000, help="timed calls at each input")
    parser.add_argument("--seed", type=int, default=0, help="seeds the order of the calls only")
    args = parser.parse_args()
    dp.enable_features("contrib")
    release = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)
    calls = timed_calls(release, args.calls, args.seed)
    half = args.calls // 2
    pooled = sorted(t for runs in calls.values() for _, t in runs[:half])
    edges = sorted({pooled[int(q * len(pooled))] for q in QUANTILES})
    pairs = {x: [(o, bisect.bisect_right(edges, t)) for o, t in runs] for x, runs in calls.items()}
    outputs = {x: [o for o, _ in runs] for x, runs in calls.items()}
    (o, bucket), a, b, k_a, k_b, eps = certify(
        {x: v[:half] for x, v in pairs.items()}, {x: v[half:] for x, v in pairs.items()}
    )
    span = (
        (f"{edges[bucket - 1] / 1000:.1f}" if bucket else "0")
        + ", "
        + (f"{edges[bucket] / 1000:.1f}" if bucket < len(edges) else "inf")
    )
    alone, a2, b2, k_a2, k_b2, eps_alone = certify(
        {x: v[:half] for x, v in outputs.items()}, {x: v[half:] for x, v in outputs.items()}
    )
    size = args.calls - half
    print(f"event (output, time) = ({o}, [{span}) us): {k_a}/{size} held-out calls at x = {a}, {k_b}/{size} at x = {b}")
    print(f"event output = {alone}: {k_a2}/{size} held-out calls at x = {a2}, {k_b2}/{size} at x = {b2}")
    print(f"output alone: certified epsilon >= {eps_alone:.4g} (claimed 1)")
    print(f"(output, time): certified epsilon >= {eps:.4g} (claimed 1)")


if __name__ == "__main__":
    main()
