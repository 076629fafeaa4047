"""Finding 8 of docs/findings.md: autodp's characteristic-function accountant (AFA) gives epsilon <= 0.

Library: autodp 0.2.3.1 (found at that version, with SciPy >= 1.10).  Public call:
``autodp.transformer_zoo.ComposeAFA()([GaussianMechanism(5, phi_off=False, RDP_off=True,
approxDP_off=True)], [10]).get_approxDP(1e-6)``: autodp's own README example, sigma = 5, k = 10,
delta = 1e-6.  Not a privacy finding about a release but an accountant's error, so nothing is
sampled and no event is needed: the script compares autodp's value with the exact one.

Exact value: k Gaussians with sigma and sensitivity 1 compose to one Gaussian with s = sigma /
sqrt(k), whose delta(eps) = Phi(-eps s + 1/(2 s)) - e^eps Phi(-eps s - 1/(2 s)); it falls with
eps, and is inverted by bisection.  ``converter.cdf_to_approxdp`` searches e^eps within [0, 1],
a bracket that ``scipy.optimize.minimize_scalar(bounds=...)`` respects from SciPy 1.10 on: the
SciPy version is printed because the error depends on it.
Usage: python autodp_afa.py
"""

import contextlib
import io
import math
import warnings

import scipy
from autodp import mechanism_zoo, transformer_zoo
from scipy.stats import norm

SIGMA, K, DELTA = 5.0, 10, 1e-6


def exact_delta(eps: float, s: float) -> float:
    return float(norm.cdf(-eps * s + 1 / (2 * s)) - math.exp(eps) * norm.cdf(-eps * s - 1 / (2 * s)))


def exact_epsilon(delta: float, s: float) -> float:
    low, high = 0.0, 100.0
    for _ in range(200):  # delta(eps) is decreasing: keep delta(low) > delta >= delta(high)
        middle = (low + high) / 2
        low, high = (middle, high) if exact_delta(middle, s) > delta else (low, middle)
    return high


def main() -> None:
    one = mechanism_zoo.GaussianMechanism(SIGMA, phi_off=False, RDP_off=True, approxDP_off=True)
    composed = transformer_zoo.ComposeAFA()([one], [K])
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the AFA prints its search, and SciPy warns about its tolerance
        autodp_eps = float(composed.get_approxDP(DELTA))
    exact = exact_epsilon(DELTA, SIGMA / math.sqrt(K))
    print(f"ComposeAFA, Gaussian sigma = {SIGMA:g}, k = {K}, delta = {DELTA:g}; scipy {scipy.__version__}")
    print(f"exact delta at the exact epsilon: {exact_delta(exact, SIGMA / math.sqrt(K)):.6g}")
    print(
        f"autodp epsilon = {autodp_eps:.6g}, exact epsilon = {exact:.6g} (scipy {scipy.__version__}): "
        f"autodp is off by {exact - autodp_eps:.4g}"
    )


if __name__ == "__main__":
    main()
