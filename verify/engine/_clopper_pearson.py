"""Exact binomial (Clopper–Pearson) confidence bounds, rounded outward, as exact rationals.

C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits illustrated in the case
of the binomial", Biometrika 26(4), 1934.  For ``K ~ Binomial(n, p)`` and ``k`` observed:

- the lower bound ``L(k)`` is the ``p`` solving ``P_p(K >= k) = alpha`` (``L(0) = 0``), so
  ``P(L(K) > p) <= alpha`` for every ``p``;
- the upper bound ``U(k)`` is the ``p`` solving ``P_p(K <= k) = alpha`` (``U(n) = 1``), so
  ``P(U(K) < p) <= alpha`` for every ``p``.

Both tails are regularized incomplete beta functions: ``P_p(K >= k) = I_p(k, n - k + 1)`` and
``P_p(K <= k) = 1 - I_p(k + 1, n - k)``.  No asymptotic approximation is involved: the
guarantee holds for every ``n``.

**Outward rounding.**  A float bisection (Lentz's continued fraction, ``math.lgamma``) only
*proposes* a bound; the bound returned is a dyadic rational that mpmath confirms at 40 significant
digits to lie on the safe side with a relative margin of ``10**-12`` (for ``L``:
``I_L(k, n-k+1) <= alpha (1 - 10**-12)``; for ``U``: ``1 - I_U(k+1, n-k) <= alpha (1 - 10**-12)``).
The margin exceeds the continued fraction's evaluation error at that precision by more than
twenty orders of magnitude, so the returned ``L`` is at most, and ``U`` at least, the exact
Clopper–Pearson bound.  (mpmath's own ``betainc`` sums a hypergeometric series that does not
converge for ``n`` in the millions, so the continued fraction is evaluated here in mpmath.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath

from dpverify.samplers import InvalidArgument, as_int, as_open_unit_interval
from dpverify.samplers._rational import RationalLike, shown
from dpverify.verify.engine._statistics import _mpf_fraction

__all__ = ["clopper_pearson", "clopper_pearson_lower", "clopper_pearson_upper"]

#: Significant digits of the confirming evaluation.
_DPS = 40
#: Relative safety margin of the confirmation (see the module docstring).
_MARGIN = Fraction(1, 10**12)
#: Continued-fraction terms before giving up (it needs about sqrt(max(a, b)) of them).
_MAX_TERMS = 200_000


def _continued_fraction(a: int, b: int, x: Any, tiny: Any, eps: Any) -> Any:
    """Lentz's continued fraction for ``I_x(a, b)`` (Numerical Recipes, 3rd ed., 6.4), in the
    arithmetic of ``x``: floats to propose a bound, mpmath to confirm it."""
    one = x * 0 + 1
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = one, one - qab * x / qap
    d = one / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = one + aa * d
            d = one / (d if abs(d) > tiny else tiny)
            c = one + aa / c
            c = c if abs(c) > tiny else tiny
            delta = d * c
            h *= delta
        if abs(delta - 1) < eps:
            return h
    raise ArithmeticError(f"the incomplete beta's continued fraction did not converge (a={a}, b={b})")


def _betainc_float(a: int, b: int, x: float) -> float:
    """``I_x(a, b)`` in floats: only to propose a bound, never to certify one."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    # _continued_fraction computes in the arithmetic of x: floats here
    if x < (a + 1.0) / (a + b + 2.0):
        fraction: float = _continued_fraction(a, b, x, 1e-300, 1e-15)
        return math.exp(log_front) * fraction / a
    fraction = _continued_fraction(b, a, 1.0 - x, 1e-300, 1e-15)
    return 1.0 - math.exp(log_front) * fraction / b


def _betainc_mp(a: int, b: int, x: Fraction) -> Fraction:
    """``I_x(a, b)`` evaluated by mpmath at ``_DPS`` digits, as a Fraction (then compared with a margin)."""
    with mpmath.workdps(_DPS + 10):
        xm = mpmath.mpf(x.numerator) / x.denominator
        tiny, eps = mpmath.mpf(10) ** (-3 * _DPS), mpmath.mpf(10) ** (-_DPS + 2)
        log_front = (
            mpmath.loggamma(a + b)
            - mpmath.loggamma(a)
            - mpmath.loggamma(b)
            + a * mpmath.log(xm)
            + b * mpmath.log1p(-xm)
        )
        if xm < mpmath.mpf(a + 1) / (a + b + 2):
            value = mpmath.exp(log_front) * _continued_fraction(a, b, xm, tiny, eps) / a
        else:
            value = 1 - mpmath.exp(log_front) * _continued_fraction(b, a, 1 - xm, tiny, eps) / b
        return _mpf_fraction(mpmath.mpf(value))


def _root(tail: Callable[[float], float], alpha: float, increasing: bool) -> float:
    """Bisection in floats for ``tail(p) = alpha`` over (0, 1)."""
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        above = tail(middle) > alpha
        if above == increasing:
            high = middle
        else:
            low = middle
    return low if increasing else high


def _steps() -> list[Fraction]:
    """Relative steps ``0, 2**-40, 2**-39, ..., 1``: the confirmation's retries."""
    return [Fraction(0)] + [Fraction(1, 2**e) for e in range(40, -1, -1)]


def _inputs(successes: object, trials: object, alpha: RationalLike) -> tuple[int, int, Fraction]:
    n = as_int("trials", trials, low=1)
    k = as_int("successes", successes, low=0)
    if k > n:
        raise InvalidArgument(f"successes must be at most trials={n}; got successes={shown(k)}.")
    return k, n, as_open_unit_interval("alpha", alpha)


def clopper_pearson_lower(successes: int, trials: int, alpha: RationalLike) -> Fraction:
    """A rational ``L <= `` the exact one-sided Clopper–Pearson lower bound at level ``alpha``:
    ``P(L(K) > p) <= alpha`` for ``K ~ Binomial(trials, p)``, whatever ``p``.

    >>> clopper_pearson_lower(0, 10, "1/20")
    Fraction(0, 1)
    >>> float(clopper_pearson_lower(10, 10, "1/20")) <= 0.05 ** (1 / 10)  # exact: alpha**(1/n)
    True
    """
    k, n, a = _inputs(successes, trials, alpha)
    if k == 0:
        return Fraction(0)
    target = a * (1 - _MARGIN)
    guess = _root(lambda p: _betainc_float(k, n - k + 1, p), float(target), increasing=True)
    for step in _steps():  # the float proposal may be a hair too high: step down, doubling the step
        candidate = Fraction(guess) * (1 - step)
        if candidate <= 0:
            return Fraction(0)
        if _betainc_mp(k, n - k + 1, candidate) <= target:
            return candidate
    return Fraction(0)


def clopper_pearson_upper(successes: int, trials: int, alpha: RationalLike) -> Fraction:
    """A rational ``U >= `` the exact one-sided Clopper–Pearson upper bound at level ``alpha``:
    ``P(U(K) < p) <= alpha`` for ``K ~ Binomial(trials, p)``, whatever ``p``.

    With no success, ``U = 1 - alpha**(1/n)``, about ``ln(1/alpha) / n``:

    >>> 2.99e-6 < float(clopper_pearson_upper(0, 10**6, "1/20")) < 3.0e-6
    True
    """
    k, n, a = _inputs(successes, trials, alpha)
    if k == n:
        return Fraction(1)
    target = a * (1 - _MARGIN)
    # P_p(K <= k) = 1 - I_p(k + 1, n - k), decreasing in p
    guess = _root(lambda p: 1.0 - _betainc_float(k + 1, n - k, p), float(target), increasing=False)
    for step in _steps():  # a hair too low: step up, doubling the step
        candidate = Fraction(guess) * (1 + step)
        if candidate >= 1:
            return Fraction(1)
        if 1 - _betainc_mp(k + 1, n - k, candidate) <= target:
            return candidate
    return Fraction(1)


def clopper_pearson(successes: int, trials: int, alpha: RationalLike) -> tuple[Fraction, Fraction]:
    """``(L, U)``, each one-sided at level ``alpha`` (so the pair covers ``p`` with probability
    at least ``1 - 2 alpha``), rounded outward as the module docstring states.

    >>> low, high = clopper_pearson(50, 100, "1/40")
    >>> 0.39 < float(low) < 0.5 < float(high) < 0.61
    True
    """
    return clopper_pearson_lower(successes, trials, alpha), clopper_pearson_upper(successes, trials, alpha)
