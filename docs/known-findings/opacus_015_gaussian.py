"""Opacus 0.15.0's DP-SGD noise leaks the clipped gradient through float32 rounding (Jin et al., "Are
We There Yet? Timing and Floating-Point Attacks on Differential Privacy Systems", IEEE S&P 2022;
pytorch/opacus PR #260 "Fix for floating point representation attack", which added secure_mode).

Library: opacus 0.15.0 (torch 2.13).  A PrivacyEngine (noise_multiplier 1, max_grad_norm 1, sample
rate 1, loss_reduction "sum", secure_rng False: the default) is attached to SGD on a one-weight
linear model; one training step runs on the one-record batch [[x]], x in {0, 1} (the per-example
gradient of w * x is x, clipped to norm 1).  Released: p.grad = clipped gradient + torch.normal(0, 1),
rounded to float32, claimed 1/2-zCDP (the Gaussian mechanism, sensitivity max_grad_norm).

Shown: the event "|p.grad| < 1/2 and p.grad * 2^24 is not an integer", fixed in advance, has
probability about 0.26 at x = 0 and 0 at x = 1 (near 0, g + noise with g close to 1 is exact and a
multiple of 2^-24).  Exact Clopper-Pearson bounds at confidence 1 - 10^-6 in all bound both
probabilities; the Renyi divergence of the two Bernoulli laws bounds rho from below (data processing).
Usage: python opacus_015_gaussian.py [--draws N] [--seed S]
"""

import argparse
import math
import warnings

import torch
from opacus import PrivacyEngine
from scipy.stats import beta

ALPHA = 1e-6 / 2  # two one-sided bounds
CLAIMED_RHO = 0.5


def releases(x: int, n: int, seed: int) -> list[float]:
    model = torch.nn.Linear(1, 1, bias=False)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Secure RNG turned off", and torch's hook notices
        engine = PrivacyEngine(model, sample_rate=1.0, noise_multiplier=1.0, max_grad_norm=1.0, loss_reduction="sum")
        engine.attach(optimizer)
        engine.random_number_generator = engine._set_seed(seed)  # opacus's own seeding, for a replayable run
        out = []
        for _ in range(n):
            optimizer.zero_grad()
            model(torch.tensor([[float(x)]])).sum().backward()
            optimizer.step()
            out.append(model.weight.grad.item())
    return out


def in_event(o: float) -> bool:
    return abs(o) < 0.5 and not (o * 2**24).is_integer()


def rho_lower(low: float, high: float) -> float:
    """max over orders a of D_a(Bern(low) || Bern(high)) / a, a lower bound on rho when low > high."""
    best = 0.0
    for a in [1 + k / 10 for k in range(1, 10)] + list(range(2, 41)):
        d = math.log(low**a * high ** (1 - a) + (1 - low) ** a * (1 - high) ** (1 - a)) / (a - 1)
        best = max(best, d / a)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    n = args.draws
    k0 = sum(map(in_event, releases(0, n, 2 * args.seed + 1)))
    k1 = sum(map(in_event, releases(1, n, 2 * args.seed + 2)))
    low = float(beta.ppf(ALPHA, k0, n - k0 + 1)) if k0 else 0.0
    high = float(beta.ppf(1 - ALPHA, k1 + 1, n - k1)) if k1 < n else 1.0
    print(
        f"|p.grad| < 1/2 and p.grad * 2^24 not an integer: "
        f"x=0 {k0}/{n} (P >= {low:.4g}), x=1 {k1}/{n} (P <= {high:.4g})"
    )
    rho = rho_lower(low, high) if low > high else 0.0
    print(f"certified rho >= {rho:.4f} > claimed {CLAIMED_RHO}: {rho > CLAIMED_RHO}")


if __name__ == "__main__":
    main()
