"""The timing of CKS20's reference discrete Laplace gives its input away (Jin et al., S&P 2022, Section V).

Code: the authors' discretegauss.py, unmodified (examples/published/cks20/discretegauss.py in this
repository).  Release: x + sample_dlaplace(1) at x = 0 and x = 1, claimed 1-DP; an attacker who times
the call sees (output, number of randrange calls).  Draws per input are split in halves: the pair
(output, calls) with the largest count ratio is chosen on the first halves, and its probabilities
are bounded on the second with exact Clopper-Pearson intervals at confidence 1 - 10^-6 in all.
Usage: python cks20_dlaplace_timing.py [--draws N] [--seed S]
"""

import argparse
import importlib.util
import math
import random
from collections import Counter
from pathlib import Path

from scipy.stats import beta

CODE = Path(__file__).resolve().parents[2] / "examples" / "published" / "cks20" / "discretegauss.py"
ALPHA = 1e-6 / 2  # two one-sided bounds


class Counting(random.Random):
    calls = 0

    def randrange(self, *args, **kwargs):  # type: ignore[override]
        self.calls += 1
        return super().randrange(*args, **kwargs)


def releases(sample, x: int, n: int, rng: Counting) -> list[tuple[int, int]]:
    out = []
    for _ in range(n):
        rng.calls = 0
        out.append((x + sample(1, rng=rng), rng.calls))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=40000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("discretegauss", CODE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = Counting(args.seed)
    half = args.draws // 2
    runs = {x: releases(module.sample_dlaplace, x, args.draws, rng) for x in (0, 1)}
    select = {x: Counter(r[:half]) for x, r in runs.items()}
    event, a, b = max(
        ((e, a, b) for a, b in ((0, 1), (1, 0)) for e in select[a]),
        key=lambda t: (select[t[1]][t[0]] + 1) / (select[t[2]][t[0]] + 1),
    )
    k_a = sum(1 for r in runs[a][half:] if r == event)
    k_b = sum(1 for r in runs[b][half:] if r == event)
    low = float(beta.ppf(ALPHA, k_a, half - k_a + 1)) if k_a else 0.0
    high = 1.0 if k_b == half else float(beta.ppf(1 - ALPHA, k_b + 1, half - k_b))
    print(f"event (output, calls) = {event}: {k_a}/{half} held-out draws at x = {a}, {k_b}/{half} at x = {b}")
    print(f"output alone claimed 1-DP; (output, time): certified epsilon >= {math.log(low / high):.4g} (claimed 1)")


if __name__ == "__main__":
    main()
