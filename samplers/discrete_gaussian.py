"""Exact discrete Gaussian sampler.

Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
Algorithm 3.  For a rational ``sigma2 > 0`` it returns ``Z`` with

    P[Z = z] = e^(-z^2 / (2 sigma2)) / sum_y e^(-y^2 / (2 sigma2))      for every integer z.

With ``t = floor(sigma) + 1``: draw ``Y`` from the discrete Laplace with scale ``t``
(Algorithm 2) and accept it with probability ``exp(-(|Y| - sigma2/t)^2 / (2 sigma2))``
(Algorithm 1); the accepted ``Y`` has the discrete Gaussian distribution.

Contract: ``sample`` returns a Python int (exact at any scale, never a saturated float);
checked at run time: ``sigma2`` a rational ``> 0`` (floats refused), ``k >= 0``; the caller
guarantees a uniform ``rng``.  The acceptance probability is an exact rational exponent:
``(|Y| t d - n)^2 / (2 n t^2 d)`` for ``sigma2 = n/d``.  Line a proof refers to: ``[DGAUSS-accept]``.
"""

from __future__ import annotations

from math import isqrt

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._loops import until_accepted
from dpverify.samplers._random_source import RandomSource, as_source
from dpverify.samplers._rational import RationalLike, as_fraction, as_int, shown
from dpverify.samplers.bernoulli import _bernoulli_exp_ratio
from dpverify.samplers.discrete_laplace import _sample_scaled as _laplace

__all__ = ["sample", "sample_many"]


def _sigma2(sigma2: RationalLike) -> tuple[int, int]:
    value = as_fraction("sigma2", sigma2)
    if value <= 0:
        raise InvalidArgument(f'sigma2 must be a rational > 0; got sigma2={shown(value)}. Pass it as "num/den".')
    return value.numerator, value.denominator


def sample(sigma2: RationalLike, rng: RandomSource | None = None) -> int:
    """One draw of the discrete Gaussian with variance parameter ``sigma2`` (Algorithm 3)."""
    n, d = _sigma2(sigma2)
    return _sample(n, d, as_source(rng))


def sample_many(sigma2: RationalLike, k: int, rng: RandomSource | None = None) -> list[int]:
    """``k`` independent draws, validating ``sigma2`` once."""
    n, d = _sigma2(sigma2)
    count = as_int("k", k, low=0)
    source = as_source(rng)
    return [_sample(n, d, source) for _ in range(count)]


def _attempt(n: int, d: int, rng: RandomSource) -> int | None:
    """One attempt, unchecked.  ``t = floor(sigma) + 1`` with ``floor(sqrt(n/d)) = isqrt(n // d)``."""
    t = isqrt(n // d) + 1
    y = _laplace(1, t, rng)
    numerator = (abs(y) * t * d - n) ** 2
    if _bernoulli_exp_ratio(numerator, 2 * n * t * t * d, rng):  # [DGAUSS-accept]
        return y
    return None


#: Algorithm 3 for ``sigma2 = n/d``: independent :func:`_attempt` until one accepts.  [DGAUSS-retry]
_sample = until_accepted(_attempt)
