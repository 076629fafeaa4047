"""Exact discrete Laplace sampler.

Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
Algorithm 2.  For a scale ``b = t/s`` (integers ``s, t >= 1``) it returns ``Z`` with

    ``P[Z = z] = (e^(1/b) - 1) / (e^(1/b) + 1) * e^(-|z|/b)``      for every integer z.

One attempt: ``U`` uniform on ``{0..t-1}``; reject unless Bernoulli(exp(-U/t)); ``V`` counts
Bernoulli(exp(-1)) successes before the first failure; ``X = U + t*V`` is then geometric with
``P[X = x] ∝ e^(-x/t)``; ``Y = floor(X/s)`` has ``P[Y = y] ∝ e^(-y*s/t)``; a fair sign ``B``,
rejecting ``B = 1, Y = 0`` so that zero is not counted twice; return ``(1 - 2B) * Y``.

Contract: ``sample`` returns a Python int with exactly that distribution; checked at run time:
``scale`` a rational ``> 0`` (int, Fraction or "num/den"; floats refused) and ``k >= 0`` for
``sample_many``; the caller guarantees a uniform ``rng``.  The expected number of attempts is a constant
(CKS20 Proposition 32).  Lines a proof refers to: ``[DLAP-uniform]``,
``[DLAP-accept]``, ``[DLAP-geometric]``, ``[DLAP-sign]``.
"""

from __future__ import annotations

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._loops import until_accepted
from dpverify.samplers._random_source import RandomSource, as_source
from dpverify.samplers._rational import RationalLike, as_fraction, as_int, shown
from dpverify.samplers.bernoulli import _bernoulli_exp_at_most_one, _bernoulli_exp_ratio

__all__ = ["sample", "sample_many"]


def _scale(scale: RationalLike) -> tuple[int, int]:
    b = as_fraction("scale", scale)
    if b <= 0:
        raise InvalidArgument(f'scale must be a rational > 0; got scale={shown(b)}. Pass it as "num/den".')
    return b.numerator, b.denominator


def sample(scale: RationalLike, rng: RandomSource | None = None) -> int:
    """One draw of the discrete Laplace distribution with ``scale`` (Algorithm 2)."""
    t, s = _scale(scale)
    return _sample_scaled(s, t, as_source(rng))


def sample_many(scale: RationalLike, k: int, rng: RandomSource | None = None) -> list[int]:
    """``k`` independent draws, validating ``scale`` once."""
    t, s = _scale(scale)
    count = as_int("k", k, low=0)
    source = as_source(rng)
    return [_sample_scaled(s, t, source) for _ in range(count)]


def _attempt_scaled(s: int, t: int, rng: RandomSource) -> int | None:
    """One attempt of Algorithm 2's loop, unchecked."""
    u = rng.randbelow(t)  # [DLAP-uniform]
    if not _bernoulli_exp_ratio(u, t, rng):  # [DLAP-accept]  Bernoulli(exp(-U/t))
        return None
    v = 0
    while _bernoulli_exp_at_most_one(1, 1, rng):  # [DLAP-geometric]  Bernoulli(exp(-1))
        v += 1
    y = (u + t * v) // s
    negative = rng.bernoulli(1, 2)  # [DLAP-sign]
    if negative and y == 0:
        return None
    return -y if negative else y


#: Algorithm 2, unchecked: independent :func:`_attempt_scaled` until one returns a value, so the
#: output has the law of one attempt conditioned on not rejecting.  [DLAP-retry]
_sample_scaled = until_accepted(_attempt_scaled)
