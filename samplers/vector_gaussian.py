"""The Gaussian mechanism on a vector, with exact discrete Gaussian noise on a grid.

For a query answer ``v = (v_1, ..., v_n)`` on the grid ``L*Z`` (exact rationals, ``L > 0``) and
a rational variance ``sigma2 > 0`` it releases

    y_i = v_i + L * Z_i,    Z_1, ..., Z_n  i.i.d. N_Z(0, sigma2 / L^2)  in grid units,

the exact discrete Gaussian of Canonne, Kamath, Steinke, "The Discrete Gaussian for
Differential Privacy", NeurIPS 2020 (CKS20), Algorithm 3: for every ``y`` in ``(L*Z)^n``

    P(y | v) = prod_i e^(-(y_i - v_i)^2 / (2 sigma2)) / N,    N = sum_{z in Z} e^(-z^2 L^2 / (2 sigma2)).

**Privacy of the discrete version: rho-zCDP** with ``rho = ||v - v'||_2^2 / (2 sigma2)``, so
``rho <= s^2 / (2 sigma2)`` for inputs with ``||v - v'||_2 <= s``.  Per coordinate, the shift
``(v_i - v'_i)/L`` is an integer (both inputs lie on the grid), and CKS20 Theorem 4 gives
``D_a(N_Z(mu, t) || N_Z(mu', t)) <= a (mu - mu')^2 / (2t)`` for every order ``a > 1``, which in
grid units is ``a (v_i - v'_i)^2 / (2 sigma2)``; the coordinates are independent, so the
divergences add (Bun, Steinke 2016, Lemma 2.3) to ``a ||v - v'||_2^2 / (2 sigma2)``.

**The classic calibration** (Dwork, Roth, "The Algorithmic Foundations of Differential
Privacy", Theorem A.1; paper 003's "Gaussian Mechanism"): for ``0 < epsilon < 1`` and
``0 < delta < 1``, ``sigma^2 = 2 ln(1.25/delta) s^2 / epsilon^2``.  That value is irrational, so
:func:`classic_sigma2` defines it exactly as the smallest multiple of ``2^-32`` at or above it,

    sigma2 = ceil(2 ln(1.25/delta) s^2 / epsilon^2 * 2^32) / 2^32,

computed with integer arithmetic only (``_ln_scaled``).  With it the discrete mechanism is
``(epsilon, delta)``-DP: it is ``rho``-zCDP with ``rho = s^2/(2 sigma2) <= epsilon^2 / (4 l)``,
``l = ln(1.25/delta)``, and CKS20 Corollary 13 (the conversion from zCDP to approximate DP,
arXiv:2004.00010v3 p. 13) turns ``rho``-zCDP into ``(epsilon, delta')``-DP with
``delta' = e^((a-1)(a rho - epsilon)) (1 - 1/a)^a / (a - 1)`` for any ``a > 1``.  At
``rho = epsilon^2/(4 l)`` and ``a = 1 + 2l/epsilon`` (so ``a - 1 = b = 2l/epsilon``) the exponent
is ``epsilon/2 - l`` and

    ln delta' - ln delta = epsilon/2 - ln(1.25) - g(b),   g(b) = (1+b) ln(1+b) - b ln b,

where ``g`` increases (``g'(b) = ln(1 + 1/b) > 0``) and ``b > 2 ln(1.25)`` (as ``l > ln 1.25``
and ``epsilon < 1``), so ``ln delta' - ln delta < 1/2 - ln(1.25) - g(2 ln 1.25) < -0.61``: the
classic pair holds with room to spare (a larger ``sigma2`` only lowers ``rho``).

Contract: :func:`sample` and :func:`sample_sigma2` return a tuple of ``n`` Fractions with exactly
the distribution above; checked at run time: ``values`` a non-empty sequence of exact
rationals on ``step*Z`` (floats refused; snap the query first), ``sensitivity``, ``sigma2`` and
``step`` rationals ``> 0``, ``epsilon`` and ``delta`` in (0, 1), ``k >= 0``; the caller guarantees a
uniform ``rng`` and the sensitivity bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._random_source import RandomSource, as_source
from dpverify.samplers._rational import RationalLike, as_fraction, as_int, as_open_unit_interval, shown
from dpverify.samplers.discrete_gaussian import _sample as _dgauss
from dpverify.samplers.vector_laplace import _grid_indices, _positive

__all__ = ["SIGMA2_GRID_BITS", "classic_sigma2", "sample", "sample_many", "sample_sigma2", "sample_sigma2_many"]

#: :func:`classic_sigma2` rounds up to a multiple of ``2^-SIGMA2_GRID_BITS``.
SIGMA2_GRID_BITS = 32


def _atanh_scaled(p: int, q: int, bits: int) -> tuple[int, int]:
    """``(lo, hi)`` with ``lo <= 2^bits * atanh(p/q) <= hi``, for integers ``0 <= p`` and ``3p <= q``.

    ``atanh z = sum_{j>=0} z^(2j+1) / (2j+1)``.  ``power`` brackets ``2^bits z^(2j+1)`` from
    below (floors) and above (ceilings), each term is rounded the same way, and the series is
    cut at the first ``j`` with a ceiling power of at most 1: the rest is at most
    ``z^(2j+1) / ((2j+1)(1 - z^2))`` (a geometric series of ratio ``z^2``), added above."""
    p2, q2 = p * p, q * q
    low_power, high_power = (p << bits) // q, -((-p << bits) // q)
    low = high = 0
    j = 0
    while high_power > 1:
        low += low_power // (2 * j + 1)
        high += -(-high_power // (2 * j + 1))
        low_power, high_power = low_power * p2 // q2, -(-high_power * p2 // q2)
        j += 1
    return low, high + -(-high_power * q2 // ((2 * j + 1) * (q2 - p2)))


def _ln_scaled(y: Fraction, bits: int) -> tuple[int, int]:
    """``(lo, hi)`` with ``lo <= 2^bits * ln(y) <= hi``, for a rational ``y >= 1``.

    With ``y = 2^k m``, ``1 <= m < 2``: ``ln y = 2k atanh(1/3) + 2 atanh((m-1)/(m+1))``, both
    arguments in ``[0, 1/3]`` (``ln 2 = 2 atanh(1/3)``, ``ln m = 2 atanh((m-1)/(m+1))``)."""
    k = y.numerator.bit_length() - y.denominator.bit_length()  # 2^(k-1) < y < 2^(k+1), and k >= 0 as y >= 1
    m = y / (1 << k)
    if m < 1:
        k, m = k - 1, 2 * m
    ln2_low, ln2_high = _atanh_scaled(1, 3, bits)
    m_low, m_high = _atanh_scaled(m.numerator - m.denominator, m.numerator + m.denominator, bits)
    return 2 * (k * ln2_low + m_low), 2 * (k * ln2_high + m_high)


def classic_sigma2(sensitivity: RationalLike, epsilon: RationalLike, delta: RationalLike) -> Fraction:
    """``ceil(2 ln(1.25/delta) s^2 / epsilon^2 * 2^32) / 2^32``: Dwork–Roth Theorem A.1's
    variance, rounded up to the grid ``2^-32``, for ``0 < epsilon < 1``, ``0 < delta < 1``, ``s > 0``.

    >>> classic_sigma2(1, "1/2", "1/10^5")
    Fraction(403248260869, 4294967296)
    """
    s = _positive("sensitivity", sensitivity)
    eps = as_fraction("epsilon", epsilon)
    if not 0 < eps < 1:
        raise InvalidArgument(
            f"epsilon must be a rational in (0, 1) for the classic Gaussian calibration (Dwork-Roth "
            f"Theorem A.1 holds only there); got epsilon={shown(eps)}. For other epsilon pass a "
            "sigma2 of your own to sample_sigma2."
        )
    return _classic_sigma2(s, eps, as_open_unit_interval("delta", delta))


@lru_cache(maxsize=256)
def _classic_sigma2(s: Fraction, eps: Fraction, delta: Fraction) -> Fraction:
    """:func:`classic_sigma2` for validated parameters.  ``ln(1.25/delta)`` is irrational
    (Lindemann), so ``K ln(1.25/delta)`` with ``K = 2^33 s^2 / epsilon^2`` is never an integer: its
    ceiling is decided as soon as the bounds on the logarithm share one floor, and the
    precision doubles until they do."""
    K = 2 * s * s * (1 << SIGMA2_GRID_BITS) / (eps * eps)
    y = Fraction(5, 4) / delta
    bits = K.numerator.bit_length() + 64  # at least 64 bits beyond K's size: most cases need no refinement
    while True:
        low, high = _ln_scaled(y, bits)
        scale = K.denominator << bits
        floor_low, floor_high = K.numerator * low // scale, K.numerator * high // scale
        if floor_low == floor_high:
            return Fraction(floor_low + 1, 1 << SIGMA2_GRID_BITS)
        bits *= 2


def _sigma2(sigma2: RationalLike) -> Fraction:
    return _positive("sigma2", sigma2)


def _grid_variance(values: object, sigma2: Fraction, step: RationalLike) -> tuple[tuple[int, ...], Fraction, int, int]:
    """The grid indices, the step ``L`` and the variance in grid units ``sigma2/L^2 = n/d`` as ``(n, d)``."""
    L = _positive("step", step)
    variance = sigma2 / (L * L)
    return _grid_indices(values, L), L, variance.numerator, variance.denominator


def _release(indices: tuple[int, ...], L: Fraction, n: int, d: int, rng: RandomSource) -> tuple[Fraction, ...]:
    """``L * (m_i + Z_i)`` with ``Z_i ~ N_Z(0, n/d)``, drawn in coordinate order."""
    return tuple(L * (m + _dgauss(n, d, rng)) for m in indices)


def sample(
    values: Sequence[RationalLike],
    sensitivity: RationalLike,
    epsilon: RationalLike,
    delta: RationalLike,
    step: RationalLike = 1,
    rng: RandomSource | None = None,
) -> tuple[Fraction, ...]:
    """One release with the classic ``sigma2`` (:func:`classic_sigma2`) for L2 sensitivity ``s``."""
    indices, L, n, d = _grid_variance(values, classic_sigma2(sensitivity, epsilon, delta), step)
    return _release(indices, L, n, d, as_source(rng))


def sample_many(
    values: Sequence[RationalLike],
    sensitivity: RationalLike,
    epsilon: RationalLike,
    delta: RationalLike,
    step: RationalLike,
    k: int,
    rng: RandomSource | None = None,
) -> list[tuple[Fraction, ...]]:
    """``k`` independent releases with the classic ``sigma2``, validating the parameters once."""
    indices, L, n, d = _grid_variance(values, classic_sigma2(sensitivity, epsilon, delta), step)
    count = as_int("k", k, low=0)
    source = as_source(rng)
    return [_release(indices, L, n, d, source) for _ in range(count)]


def sample_sigma2(
    values: Sequence[RationalLike], sigma2: RationalLike, step: RationalLike = 1, rng: RandomSource | None = None
) -> tuple[Fraction, ...]:
    """One release with a given rational ``sigma2`` (e.g. a tight one from CKS20 Theorem 7)."""
    indices, L, n, d = _grid_variance(values, _sigma2(sigma2), step)
    return _release(indices, L, n, d, as_source(rng))


def sample_sigma2_many(
    values: Sequence[RationalLike], sigma2: RationalLike, step: RationalLike, k: int, rng: RandomSource | None = None
) -> list[tuple[Fraction, ...]]:
    """``k`` independent releases with a given ``sigma2``, validating the parameters once."""
    indices, L, n, d = _grid_variance(values, _sigma2(sigma2), step)
    count = as_int("k", k, low=0)
    source = as_source(rng)
    return [_release(indices, L, n, d, source) for _ in range(count)]
