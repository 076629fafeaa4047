"""Finding 6 of docs/findings.md: Opacus' DP-SGD Gaussian noise on a float32 gradient, secure_mode or not.

Library: opacus 1.6.0 with torch 2.13 on the CPU (found at those versions).  Release audited:
``g + opacus.optimizers.optimizer._generate_noise(1.0, g, secure_mode=...)`` for a 0-d float32
tensor g in {0, 1}, which is what ``DPOptimizer.add_noise`` releases (std = noise_multiplier *
max_grad_norm = 1, max_grad_norm = 1).  Claimed: 1/2-zCDP (the Gaussian mechanism, sigma = 1).

Event E: ``o < 0.5`` and ``o * 2**24`` is not an integer.  At g = 1 such an output is the float32
sum ``1 + noise`` with noise < -1/2, a multiple of 2^-24; at g = 0 it is the noise itself, whose
low bits are kept.  E is fixed here, before any draw, so each count is a plain binomial and its
exact Clopper-Pearson bounds hold; an event picked after looking at the draws would not allow that.

The claim is put as (epsilon, delta): rho-zCDP gives delta(eps) <= exp(-(eps - rho)^2 / (4 rho)).
That conversion is loose near eps = rho (0.88 at eps = 1, not violated there), so the final line is
at --epsilon (default 3, where the claimed delta is 0.044); the eps = 1 line is printed as well.
Usage: python opacus_generate_noise.py [--draws N] [--secure-mode] [--epsilon EPS] [--seed S]
"""

import argparse
import math

import torch
from opacus.optimizers.optimizer import _generate_noise
from scipy.stats import beta

RHO = 0.5
ALPHA = 1e-6  # joint confidence 1 - ALPHA: each of the two one-sided bounds at ALPHA / 2


def in_event(o: float) -> bool:
    return o < 0.5 and not (o * 2**24).is_integer()


def release(x: int, secure_mode: bool) -> float:
    g = torch.tensor(float(x), dtype=torch.float32)
    return (g + _generate_noise(1.0, g, secure_mode=secure_mode)).item()


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Exact one-sided Clopper-Pearson bounds on a binomial proportion, each at confidence 1 - alpha."""
    lower = 0.0 if k == 0 else float(beta.ppf(alpha, k, n - k + 1))
    upper = 1.0 if k == n else float(beta.ppf(1 - alpha, k + 1, n - k))
    return lower, upper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20000, help="draws per input (default 20000)")
    parser.add_argument("--secure-mode", action="store_true", help="secure_mode=True")
    parser.add_argument("--epsilon", type=float, default=3.0, help="epsilon of the final line (default 3)")
    parser.add_argument("--seed", type=int, default=None, help="torch.manual_seed (default: OS entropy)")
    args = parser.parse_args()
    n = args.draws
    if args.seed is None:
        torch.seed()  # torch's default generator starts from a fixed seed: reseed it from the OS
    else:
        torch.manual_seed(args.seed)
    counts = {x: sum(in_event(release(x, args.secure_mode)) for _ in range(n)) for x in (0, 1)}
    low0, _ = clopper_pearson(counts[0], n, ALPHA / 2)
    _, up1 = clopper_pearson(counts[1], n, ALPHA / 2)
    print(f"event E: o < 0.5 and o * 2**24 not an integer; secure_mode={args.secure_mode}, {n} draws per input")
    print(f"confidence 1 - {ALPHA:g}; claimed {RHO}-zCDP, as delta(eps) <= exp(-(eps - rho)^2 / (4 rho))")
    print(f"g = 0: {counts[0]} in E, P(E | 0) >= {low0:.5f}")
    print(f"g = 1: {counts[1]} in E, P(E | 1) <= {up1:.5f}")
    for eps in dict.fromkeys((1.0, args.epsilon)):
        certified = max(0.0, low0 - math.exp(eps) * up1)
        claimed = math.exp(-((eps - RHO) ** 2) / (4 * RHO))
        print(f"certified delta >= {certified:.4g} at epsilon = {eps:g} (claimed delta = {claimed:.4g})")


if __name__ == "__main__":
    main()
