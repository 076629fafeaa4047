"""SmartNoise Core's Laplace mechanism gives its input away through the precision of its output (Haney,
Desfontaines, Hartman, Shrestha, Hay, "Precision-based attacks and interval refining", 2022, which names
SmartNoise Core as vulnerable).  Library: opendp-smartnoise-core 0.2.3 (with protobuf 3.20.3).

Release: ``dp_sum`` of one record x clamped to [0, 1] (sensitivity 1), ``mechanism='Laplace'``,
``privacy_usage={'epsilon': 1.0}``, inside ``sn.Analysis(protect_floating_point=False)``, at x = 0 and
x = 1.  (The library's default, ``protect_floating_point=True``, refuses this mechanism with "The laplace
mechanism is susceptible to floating-point attacks" and uses the snapping mechanism instead; with the
protection off the analysis is still charged epsilon = 1.)  Event, fixed in advance: the output o is
below 0.5 and o * 2^53 is not an integer.  At x = 1 the output is 1 + noise rounded to a double, and
such a sum below 0.5 is always a multiple of 2^-53; at x = 0 the output is the noise itself, which has
finer bits about a quarter of the time.  The probabilities are bounded with exact Clopper-Pearson
intervals at confidence 1 - 10^-6 in all.  Usage: python smartnoise_core_laplace.py [--draws N]
"""

import argparse
import math
import warnings

import numpy as np
import opendp.smartnoise.core as sn

ALPHA = 1e-6 / 2  # two one-sided bounds


def release(x: float) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with sn.Analysis(protect_floating_point=False) as analysis:
            data = sn.Dataset(value=[[x]], value_format="array")
            column = sn.impute(
                sn.clamp(
                    sn.resize(sn.to_float(data), number_columns=1, number_rows=1, lower=0.0, upper=1.0),
                    lower=0.0,
                    upper=1.0,
                )
            )
            noisy = sn.dp_sum(column, mechanism="Laplace", privacy_usage={"epsilon": 1.0})
        analysis.release()
    return float(np.asarray(noisy.value, dtype=float).ravel()[0])


def event(o: float) -> bool:
    return o < 0.5 and not (o * 2.0**53).is_integer()


def tail(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) >= k)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def lower(k: int, n: int) -> float:
    """Clopper-Pearson lower bound of p at level ALPHA, by bisection."""
    if k == 0:
        return 0.0
    lo, hi = 0.0, k / n
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tail(k, n, mid) < ALPHA else (lo, mid)
    return lo


def upper(k: int, n: int) -> float:
    """Clopper-Pearson upper bound of p at level ALPHA (closed form at k = 0)."""
    if k == 0:
        return 1 - ALPHA ** (1 / n)
    return 1 - lower(n - k, n)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=800)
    args = parser.parse_args()
    n = args.draws
    k0 = sum(event(release(0.0)) for _ in range(n))
    k1 = sum(event(release(1.0)) for _ in range(n))
    p0, p1 = lower(k0, n), upper(k1, n)
    print(f"event o < 0.5 and o * 2^53 not an integer: {k0}/{n} releases at x = 0 (P >= {p0:.4f}),")
    print(f"{k1}/{n} at x = 1 (P <= {p1:.4f})")
    bound = math.log(p0 / p1) if p0 > 0 else 0.0
    verdict = ">" if bound > 1 else "<="
    print(f"certified epsilon >= {bound:.3f} {verdict} claimed epsilon 1")


if __name__ == "__main__":
    main()
