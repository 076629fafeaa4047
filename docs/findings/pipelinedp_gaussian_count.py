"""Finding 2 of docs/findings.md: PipelineDP's Gaussian additive mechanism leaks a count's low bits.

Library: pipeline-dp 0.3.1 (found at that version, over python-dp 1.1.5).  Public call:
``pipeline_dp.dp_computations.create_additive_mechanism(spec, Sensitivities(l0=1, linf=1))``
with ``spec = pipeline_dp.budget_accounting.MechanismSpec(MechanismType.GAUSSIAN)`` and
``spec.set_eps_delta(1.0, 1e-5)``, then ``.add_noise(count)`` at the counts 0 and 1; claimed
(1, 1e-5)-DP.  ``add_noise`` calls python-dp on ``1.0 * count``, the double path of finding 1.

Event E: ``0 < o < 0.5`` and ``o * 2**53`` is not an integer (as in finding 1).  E is fixed here,
before any draw, so each count of E is a plain binomial and its exact Clopper-Pearson bounds
hold; an event picked after looking at the draws would not allow that.

The noise comes from the operating system's entropy: counts differ between runs, the bound holds.
Usage: python pipelinedp_gaussian_count.py [--draws N]
"""

import argparse
import math

from pipeline_dp import aggregate_params, budget_accounting, dp_computations
from scipy.stats import beta

EPSILON, DELTA = 1.0, 1e-5
ALPHA = 1e-6  # joint confidence 1 - ALPHA: each of the two one-sided bounds at ALPHA / 2


def in_event(o: float) -> bool:
    return 0.0 < o < 0.5 and not (o * 2**53).is_integer()


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Exact one-sided Clopper-Pearson bounds on a binomial proportion, each at confidence 1 - alpha."""
    lower = 0.0 if k == 0 else float(beta.ppf(alpha, k, n - k + 1))
    upper = 1.0 if k == n else float(beta.ppf(1 - alpha, k + 1, n - k))
    return lower, upper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20000, help="draws per input (default 20000)")
    n = parser.parse_args().draws
    spec = budget_accounting.MechanismSpec(aggregate_params.MechanismType.GAUSSIAN)
    spec.set_eps_delta(EPSILON, DELTA)
    mechanism = dp_computations.create_additive_mechanism(spec, dp_computations.Sensitivities(l0=1, linf=1))
    counts = {x: sum(in_event(mechanism.add_noise(x)) for _ in range(n)) for x in (0, 1)}
    low0, _ = clopper_pearson(counts[0], n, ALPHA / 2)
    _, up1 = clopper_pearson(counts[1], n, ALPHA / 2)
    print(f"event E: 0 < o < 0.5 and o * 2**53 not an integer; {n} draws per count, confidence 1 - {ALPHA:g}")
    print(f"count 0: {counts[0]} in E, P(E | 0) >= {low0:.5f}")
    print(f"count 1: {counts[1]} in E, P(E | 1) <= {up1:.5f}")
    certified = max(0.0, low0 - math.exp(EPSILON) * up1)
    print(f"certified delta >= {certified:.4g} at epsilon = {EPSILON:g} (claimed delta = {DELTA:g})")


if __name__ == "__main__":
    main()
