"""Opacus scales the released update by the private dataset's size (Cebere et al., PETS 2026, artifact
MRE test_buggy_private_mean.py, "the dataset size as a scaling factor"; pytorch/opacus#571, open).

Library: opacus 1.6.0 (torch 2.13).  make_private (noise_multiplier 1, max_grad_norm 1, the defaults
loss_reduction "mean" and Poisson sampling) sets expected_batch_size = int(len(dataset) * sample_rate)
and the optimizer divides the noised gradient sum by it.  Neighbouring datasets: 7 records and 8 (one
added); with batch_size 4 both have sample rate 1/2, and expected batch sizes 3 and 4.  Every record
is x = 0 in R^256 and the model is w . x, so every per-example gradient is 0.  Released: the update of
the 256 weights by one optimizer step (SGD, lr 1) from the same initial weights, that is
-noise / expected_batch_size with noise ~ N(0, I): its L2 norm is about 16/3 at 7 records and 16/4 at 8.
Claimed: what the engine states after that step, get_epsilon(delta = 1e-5) (its PRV accountant).

Shown: the event "L2 norm of the update < 16 * (1/3 + 1/4) / 2", fixed in advance, is (nearly) certain
at 8 records and (nearly) impossible at 7.  Exact Clopper-Pearson bounds at confidence 1 - 10^-6 in all
give a certified epsilon at delta = 1e-5, and a certified delta at the claimed epsilon.
Usage: python opacus_571_batchsize.py [--draws N] [--seed S]
"""

import argparse
import math
import warnings

import torch
from opacus import PrivacyEngine
from scipy.stats import beta
from torch.utils.data import DataLoader, TensorDataset

ALPHA = 1e-6 / 2  # two one-sided bounds
DELTA = 1e-5
WIDTH = 256
THRESHOLD = math.sqrt(WIDTH) * (1 / 3 + 1 / 4) / 2


def private_steps(records: int, n: int, seed: int) -> tuple[list[float], int, float]:
    """n one-step updates' L2 norms on ``records`` zero records, the expected batch size, the claimed epsilon."""
    torch.manual_seed(0)  # the same initial weights at both datasets
    model = torch.nn.Linear(WIDTH, 1, bias=False)
    initial = model.weight.detach().clone()
    generator = torch.Generator()
    generator.manual_seed(seed)
    norms = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Secure RNG turned off", and torch's hook notices
        engine = PrivacyEngine()
        private, optimizer, loader = engine.make_private(
            module=model,
            optimizer=torch.optim.SGD(model.parameters(), lr=1.0),
            data_loader=DataLoader(TensorDataset(torch.zeros(records, WIDTH)), batch_size=4),
            noise_multiplier=1.0,
            max_grad_norm=1.0,
            noise_generator=generator,
        )
        for i in range(n):
            with torch.no_grad():
                model.weight.copy_(initial)
            (batch,) = next(iter(loader))
            optimizer.zero_grad()
            private(batch).sum().backward()
            optimizer.step()
            norms.append(float((model.weight.detach() - initial).norm()))
            if i == 0:
                claimed = float(engine.get_epsilon(DELTA))  # the engine's statement after one step
    return norms, int(optimizer.expected_batch_size), claimed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    n = args.draws
    norms7, size7, claim7 = private_steps(7, n, 2 * args.seed + 1)
    norms8, size8, claim8 = private_steps(8, n, 2 * args.seed + 2)
    claimed = max(claim7, claim8)
    k8 = sum(v < THRESHOLD for v in norms8)
    k7 = sum(v < THRESHOLD for v in norms7)
    low = float(beta.ppf(ALPHA, k8, n - k8 + 1)) if k8 else 0.0
    high = float(beta.ppf(1 - ALPHA, k7 + 1, n - k7)) if k7 < n else 1.0
    print(f"expected_batch_size: {size7} at 7 records, {size8} at 8; claimed epsilon {claimed:.4f} at delta {DELTA}")
    print(f"|update|_2 < {THRESHOLD:.4f}: 8 records {k8}/{n} (P >= {low:.4g}), 7 records {k7}/{n} (P <= {high:.4g})")
    epsilon = math.log((low - DELTA) / high) if low > DELTA else float("-inf")
    delta = max(0.0, low - math.exp(claimed) * high)
    print(f"certified epsilon >= {epsilon:.4f} at delta {DELTA}, delta >= {delta:.4f} at the claimed epsilon")
    print(f"claim exceeded: {epsilon > claimed}")


if __name__ == "__main__":
    main()
