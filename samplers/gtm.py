"""The Geometric Truncated Mechanism (GTM), sampled by inverse transform from a finite uniform.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers", §2–§5.
For a query answer ``q`` in ``[0, n]`` and ``alpha`` in (0, 1) the ideal mechanism outputs
``x`` in ``[0, n]`` with probability (§2, ``gtpmf``)::

    gtpmf(q, 0) = alpha**q / (1 + alpha)
    gtpmf(q, n) = alpha**(n - q) / (1 + alpha)
    gtpmf(q, x) = (1 - alpha) / (1 + alpha) * alpha**|x - q|      for 0 < x < n

The implementation (§5, ``gtm``) draws ``u`` uniformly from ``{1/T, 2/T, ..., T/T}`` and returns
the first ``x`` with ``u <= CDF_q(x)``, where ``CDF_q`` is the cumulative sum of ``gtpmf``.
Hence ``P(x | q) = (floor(T*CDF_q(x)) - floor(T*CDF_q(x-1))) / T``, which equals ``gtpmf`` only
for well-chosen ``T`` (Theorem 7.1: ``alpha = 1/D``, ``T = (D+1)*D**n``).

Contract of :func:`sample`:

- returns an int in ``[0, n]`` with exactly the distribution above;
- checked at run time: ``alpha`` an exact rational in (0, 1) (floats refused), ``n >= 1``,
  ``0 <= q <= n``, ``T >= 1``;
- the caller guarantees: ``rng`` is uniform (the production default is the OS CSPRNG).

All arithmetic is on ``int`` and ``Fraction``; the lines a proof refers to are labelled
``[GTM-draw]`` and ``[GTM-find]``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import TypeGuard

from dpverify.samplers._errors import InvalidArgument, SamplerContractError
from dpverify.samplers._random_source import RandomSource, as_source
from dpverify.samplers._rational import RationalLike, as_int, as_open_unit_interval, shown

__all__ = ["MAX_N", "cdf_vector", "gtpmf", "inverse_transform", "sample", "validate"]

#: The largest ``n``: a CDF has ``n + 1`` exact entries whose denominators grow like ``b**n``.
MAX_N = 100_000


def validate(alpha: RationalLike, n: object, q: object, T: object) -> tuple[Fraction, int, int, int]:
    """Check the GTM parameters and return them as ``(alpha, n, q, T)`` exact values."""
    alpha_ = as_open_unit_interval("alpha", alpha)
    n_ = as_int("n", n, low=1, high=MAX_N)
    q_ = as_int("q", q, low=0, high=n_)
    T_ = as_int("T", T, low=1)
    return alpha_, n_, q_, T_


def gtpmf(alpha: Fraction, n: int, q: int, x: int) -> Fraction:
    """The ideal GTM probability of output ``x`` for input ``q`` (paper, §2); the parameters as
    :func:`validate` returns them, ``x`` any int."""
    _require_exact(alpha, n, q, x=x)
    if x < 0 or x > n:
        return Fraction(0)
    if x == 0:
        return alpha**q / (1 + alpha)
    if x == n:
        return alpha ** (n - q) / (1 + alpha)
    return (1 - alpha) / (1 + alpha) * alpha ** abs(x - q)


def cdf_vector(alpha: Fraction, n: int, q: int) -> tuple[Fraction, ...]:
    """``(CDF_q(0), ..., CDF_q(n))``: running sums of :func:`gtpmf`; the last entry is 1
    (``n`` at most :data:`MAX_N`, which bounds its length)."""
    _require_exact(alpha, n, q)
    if n > MAX_N:
        raise InvalidArgument(f"n must be at most MAX_N={MAX_N} for a CDF of n + 1 entries; got n={shown(n, 30)}.")
    return _cdf_vector(alpha, n, q)


@lru_cache(maxsize=256)
def _cdf_vector(alpha: Fraction, n: int, q: int) -> tuple[Fraction, ...]:
    """:func:`cdf_vector` for validated parameters, cached (a sampler calls it on every draw)."""
    total = Fraction(0)
    cdf = []
    for x in range(n + 1):
        total += gtpmf(alpha, n, q, x)
        cdf.append(total)
    return tuple(cdf)


def inverse_transform(u_numerator: int, T: int, cdf: tuple[Fraction, ...]) -> int:
    """The first ``x`` with ``u_numerator/T <= cdf[x]`` (paper §5, ``find (fun x => u <= x)``),
    for ints ``1 <= u_numerator <= T`` and a CDF of Fractions that ends at 1."""
    if (
        not (_is_int(u_numerator) and _is_int(T) and 1 <= u_numerator <= T)
        or not isinstance(cdf, tuple)
        or not all(isinstance(c, Fraction) for c in cdf)
    ):
        raise InvalidArgument(
            f"inverse_transform needs ints 1 <= u_numerator <= T and a tuple of Fractions; got "
            f"u_numerator={shown(u_numerator)}, T={shown(T)}, cdf={shown(cdf)}."
        )
    for x, c in enumerate(cdf):
        if u_numerator * c.denominator <= T * c.numerator:  # [GTM-find]  u <= CDF_q(x)
            return x
    raise SamplerContractError(f"the CDF never reaches u = {shown(u_numerator)}/{shown(T)}: a CDF must end at 1.")


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _require_exact(alpha: object, n: object, q: object, **more: object) -> None:
    """The parameters of the exact helpers are exact values of the kinds :func:`validate` returns.
    ``n`` may pass :data:`MAX_N`: that cap bounds a draw's cost, and is :func:`validate`'s alone."""
    if not (
        isinstance(alpha, Fraction)
        and 0 < alpha < 1
        and _is_int(n)
        and 1 <= n
        and _is_int(q)
        and 0 <= q <= n
        and all(_is_int(v) for v in more.values())
    ):
        extra = "".join(f", {k}={shown(v, 30)}" for k, v in more.items())
        raise InvalidArgument(
            f"gtm's helpers take alpha, n, q as gtm.validate returns them; got alpha={shown(alpha, 30)}, "
            f"n={shown(n, 30)}, q={shown(q, 30)}{extra}."
        )


def sample(alpha: RationalLike, n: int, q: int, T: int, rng: RandomSource | None = None) -> int:
    """Draw one GTM output for query answer ``q``; see the module docstring for the contract."""
    alpha_, n_, q_, T_ = validate(alpha, n, q, T)
    source = as_source(rng)
    u_numerator = source.randbelow(T_) + 1  # [GTM-draw]  u = u_numerator / T in {1/T, ..., T/T}
    return inverse_transform(u_numerator, T_, _cdf_vector(alpha_, n_, q_))
