"""smartnoise-synth's DPcovariance adds noise for the clipped data but releases the covariance of the
unclipped data (Cebere et al., PETS 2026, Re:cord-play; opendp/smartnoise-sdk#622, fixed by PR #624 in
1.0.6).  Library: smartnoise-synth 1.0.5.

Release: ``DPcovariance(4, ['a', 'b'], rng, global_eps=1).release(df)`` with both columns declared in
[0, 1] (``rng``); the release is [var a, cov ab, var b], each with epsilon 1/3 and Laplace noise for the
declared sensitivity (2/n) * 1 * 1 = 0.5.  Neighbours: column ``a`` is [0, 0, 0, 1] in D and [0, 0, 0, 100]
in D' (one record replaced; ``b`` is all zeros).  Clipped to [0, 1], D' is D, so a correct release has the
same law on both.  First, the same numpy seed before each release (the same noise): the two released
variances of ``a`` differ by the shift of the statistic itself.  Then, fresh draws: the event "released
variance of a > 100", fixed in advance, bounded with exact Clopper-Pearson intervals at confidence
1 - 10^-6 in all.  At 1.0.6 both lines show no difference.  Usage: python snsynth_622_covariance.py [--draws N]
"""

import argparse
import importlib.util
import math
from pathlib import Path

import numpy as np
import pandas as pd
import snsynth

ALPHA = 1e-6 / 2  # two one-sided bounds
D = [0.0, 0.0, 0.0, 1.0]
D_PRIME = [0.0, 0.0, 0.0, 100.0]


def dp_covariance() -> type:
    try:
        from snsynth.models.dp_covariance import DPcovariance
    except ImportError:  # 1.0.5: snsynth.models imports a removed scikit-learn module; this file does not
        path = Path(snsynth.__file__).parent / "models" / "dp_covariance.py"
        spec = importlib.util.spec_from_file_location("snsynth_dp_covariance", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        DPcovariance = module.DPcovariance  # noqa: N806 - the library's class name
    return DPcovariance


def release(model_class: type, a: list[float]) -> float:
    """The released variance of ``a`` (the first entry of the release)."""
    bounds = pd.DataFrame({"a": [0.0, 1.0], "b": [0.0, 1.0]})
    model = model_class(len(a), ["a", "b"], bounds, 1.0)
    return float(model.release(pd.DataFrame({"a": a, "b": [0.0] * len(a)}))[0])


def tail(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) >= k)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def lower(k: int, n: int) -> float:
    """Clopper-Pearson lower bound of p at level ALPHA (closed form at k = n, else bisection)."""
    if k == 0:
        return 0.0
    if k == n:
        return ALPHA ** (1 / n)
    lo, hi = 0.0, k / n
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tail(k, n, mid) < ALPHA else (lo, mid)
    return lo


def upper(k: int, n: int) -> float:
    """Clopper-Pearson upper bound of p at level ALPHA."""
    return 1 - lower(n - k, n)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=1000)
    args = parser.parse_args()
    model_class = dp_covariance()
    np.random.seed(0)
    before = release(model_class, D)
    np.random.seed(0)
    after = release(model_class, D_PRIME)
    print(f"same noise: released var(a) {before!r} on D, {after!r} on D': shift {after - before:.6g}")
    print("declared sensitivity of var(a): 2/n = 0.5; Laplace scale 0.5 / (1/3) = 1.5")
    n = args.draws
    np.random.seed(1)
    k_prime = sum(release(model_class, D_PRIME) > 100 for _ in range(n))
    k = sum(release(model_class, D) > 100 for _ in range(n))
    p_prime, p = lower(k_prime, n), upper(k, n)
    print(f"event var(a) > 100: {k_prime}/{n} releases on D' (P >= {p_prime:.4f}), {k}/{n} on D (P <= {p:.4f})")
    bound = math.log(p_prime / p) if p_prime > 0 else 0.0
    print(f"certified epsilon >= {bound:.3f} {'>' if bound > 1 else '<='} claimed epsilon 1")


if __name__ == "__main__":
    main()
