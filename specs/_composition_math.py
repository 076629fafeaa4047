"""The numerical cores of the zCDP conversions and of the optimal (KOV) composition.

Pure mathematics on parsed, exact inputs; :mod:`dpverify.specs._account_objects` parses them and
:mod:`dpverify.specs._accountants` states the bounds and cites them.  Every function returning
an interval is a rigorous enclosure at the current ``mpmath.iv`` precision; the order searches
(``cks_*_order``) are plain floating point and only choose a CKS20 order ``a = 1 + beta``, which
is valid whatever its value.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv, libmp

from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.specs._interval_tools import (
    clamp_nonnegative,
    iv_lower,
    iv_upper,
    log1p_rational,
    log_inverse,
    mpf_fraction,
)

__all__ = [
    "approx_log_inverse",
    "bretagnolle_huber",
    "bs16_epsilon_interval",
    "cks_delta_order",
    "cks_epsilon_interval",
    "cks_epsilon_order",
    "cks_log_delta_interval",
    "kov_epsilon_interval",
    "kov_extra_bits",
    "kov_target_interval",
]


def bs16_epsilon_interval(rho_total: iv.mpf, target: Fraction) -> iv.mpf:
    return rho_total + 2 * iv.sqrt(rho_total * log_inverse(target))


def cks_epsilon_order(rho: mpmath.mpf, L: mpmath.mpf) -> Fraction:
    """``a - 1 = beta > 0`` near the minimiser of CKS20's ``eps(a)``: the root of
    ``beta^2 rho + ln(1 + beta) = L``, bracketed in ``[h/2, h]`` with
    ``h = min(sqrt(L/rho), e^L - 1)`` (at ``h`` the left side is ``>= L``, at ``h/2`` it is
    ``<= L/4 + L/2``).  Plain floating point: any ``beta > 0`` gives a valid bound."""
    with mpmath.workprec(96):
        high = min(mpmath.sqrt(L / rho), mpmath.expm1(L))
        low = high / 2
        for _ in range(80):
            mid = (low + high) / 2
            if mid * mid * rho + mpmath.log1p(mid) < L:
                low = mid
            else:
                high = mid
        return mpf_fraction(high) if high > 0 else Fraction(1, 10**6)


def cks_epsilon_interval(rho: iv.mpf, target: Fraction, beta: Fraction) -> iv.mpf:
    """``eps(a)`` for ``a = 1 + beta``: ``a rho + L/beta + ln beta - ln(1+beta) (1 + 1/beta)``,
    the CKS20 form ``a rho + (L + (a-1) ln(1 - 1/a) - ln a)/(a-1)`` rearranged so that no term
    cancels for small ``beta``."""
    L = log_inverse(target)
    B = iv_rational(beta)
    log1p = log1p_rational(beta)
    return (1 + B) * rho + L / B + iv.log(B) - log1p - log1p / B


def bretagnolle_huber(rho: iv.mpf, target: Fraction) -> bool:
    """``target >= sqrt(1 - e^(-rho))`` certified (then ``(0, target)``-DP)."""
    return bool(iv_lower(iv.exp(-rho)) >= iv_upper(iv_rational(1 - target * target)))


def approx_log_inverse(x: Fraction) -> mpmath.mpf:
    """``ln(1/x)`` to about 90 bits (for the optimiser only)."""
    with interval_precision(96):
        value = log_inverse(x)
    return (iv_lower(value) + iv_upper(value)) / 2


def cks_delta_order(rho: mpmath.mpf, eps: mpmath.mpf) -> Fraction:
    """``beta = a - 1`` near the minimiser of CKS20's ``delta(a)``: the root of
    ``(2a - 1) rho - eps + ln(1 - 1/a) = 0`` (increasing in ``a``, from ``-oo`` at ``a = 1+`` to
    ``+oo``).  Floating point; any ``beta > 0`` is valid."""
    with mpmath.workprec(96):

        def slope(beta: mpmath.mpf) -> mpmath.mpf:
            return (2 * beta + 1) * rho - eps + mpmath.log(beta) - mpmath.log1p(beta)

        low = high = mpmath.mpf(1)
        while slope(high) < 0 and high < mpmath.mpf(2) ** 200:
            high *= 2
        while slope(low) > 0 and low > mpmath.mpf(2) ** -2000:
            low /= 2
        for _ in range(120):
            mid = mpmath.sqrt(low * high)
            if slope(mid) < 0:
                low = mid
            else:
                high = mid
        return mpf_fraction(high)


def cks_log_delta_interval(rho: iv.mpf, eps: Fraction, beta: Fraction) -> iv.mpf:
    """``ln delta(a)``, ``a = 1 + beta``: ``beta ((1+beta) rho - eps) + (1+beta)(ln beta - ln(1+beta)) - ln beta``."""
    B = iv_rational(beta)
    log_beta = iv.log(B)
    return B * ((1 + B) * rho - iv_rational(eps)) + (1 + B) * (log_beta - log1p_rational(beta)) - log_beta


_F, _C = "f", "c"  # libmp rounding: floor, ceiling


def _pair(value: iv.mpf) -> tuple[Any, Any]:
    low, high = value._mpi_
    return low, high


def kov_target_interval(delta: Fraction, k: int, target: Fraction) -> iv.mpf:
    """``t = 1 - (1 - delta_total) / (1 - delta)^k``, known to be ``>= delta'``... here ``>= 0``."""
    if delta == 0:
        return iv_rational(target)
    t = 1 - (1 - iv_rational(target)) / iv_rational(1 - delta) ** k
    return clamp_nonnegative(t)


def kov_epsilon_interval(eps: Fraction, k: int, t: iv.mpf) -> iv.mpf:
    """An enclosure of the exact root ``eps* >= 0`` of ``delta_RR(eps*) = t`` (0 when
    ``delta_RR(0) <= t``), at the current ``mpmath.iv`` precision.

    With ``P_i = C(k,i) e^((k-i)eps) / (1+e^eps)^k`` (``P_0 = (1 + e^-eps)^-k``,
    ``P_(i+1) = P_i (k-i) / ((i+1) e^eps)``), the privacy-loss grid ``g_j = (k - 2j) eps``,
    ``A_j = sum_(i<j) P_i`` and ``C_j = sum_(i<j) P_i e^(-2(j-i) eps)``
    (``C_(j+1) = (C_j + P_j) e^(-2 eps)``): on ``[g_j, g_(j-1)]`` exactly the terms ``i < j`` of
    ``delta_RR`` are positive, so ``delta_RR(u) = h_j(u) = A_j - e^(u - g_j) C_j`` there, and
    ``D_j = delta_RR(g_j) = A_j - C_j`` increases with ``j``.  Since
    ``max(0, x) >= x``, ``h_j <= delta_RR`` everywhere, so the root ``u_j = g_j +
    ln((A_j - t)/C_j)`` of ``h_j`` is ``<= eps*`` for every ``j``, with equality on the segment
    holding ``eps*``.  A scan certifies ``a`` (``D_a <= t``: ``eps* <= g_a``) and ``b``
    (``D_b > t``: ``eps* >= g_b``); then ``eps* = max_(a<j<=b) u_j``.  Everything is positive,
    so each lower (upper) end is carried with downward (upward) rounding in raw ``libmp``;
    the scan stops at ``b`` (or at ``ceil(k/2)``, past which ``g_j <= 0``).
    """
    if eps == 0:
        return iv.mpf(0)
    p = iv.prec
    t_low, t_high = _pair(t)
    w_inv = iv.exp(-iv_rational(eps))
    winv_low, winv_high = _pair(w_inv)
    w2_low, w2_high = _pair(w_inv * w_inv)
    p_low, p_high = _pair((1 / (1 + w_inv)) ** k)
    a_low = a_high = c_low = c_high = libmp.fzero
    last_below = 0  # a: the largest j with D_j <= t certified (D_0 = 0)
    candidates: list[tuple[int, Any, Any, Any, Any]] = []
    found_above: int | None = None
    top = (k + 1) // 2
    for j in range(1, top + 1):
        i = j - 1  # fold in P_i
        a_low, a_high = libmp.mpf_add(a_low, p_low, p, _F), libmp.mpf_add(a_high, p_high, p, _C)
        c_low = libmp.mpf_mul(libmp.mpf_add(c_low, p_low, p, _F), w2_low, p, _F)
        c_high = libmp.mpf_mul(libmp.mpf_add(c_high, p_high, p, _C), w2_high, p, _C)
        if k - i > 0:
            factor = libmp.from_rational(k - i, i + 1, p, _F)
            p_low = libmp.mpf_mul(libmp.mpf_mul(p_low, factor, p, _F), winv_low, p, _F)
            factor = libmp.from_rational(k - i, i + 1, p, _C)
            p_high = libmp.mpf_mul(libmp.mpf_mul(p_high, factor, p, _C), winv_high, p, _C)
        d_low, d_high = libmp.mpf_sub(a_low, c_high, p, _F), libmp.mpf_sub(a_high, c_low, p, _C)
        if libmp.mpf_le(d_high, t_low):
            last_below, candidates = j, []
            continue
        candidates.append((j, a_low, a_high, c_low, c_high))
        if libmp.mpf_gt(d_low, t_high):
            found_above = j
            break
    if not candidates:
        return iv.mpf(0)  # D_j <= t up to j = ceil(k/2), where g_j <= 0: eps* <= 0
    best_low = best_high = mpmath.mpf("-inf")
    for j, a_low, a_high, c_low, c_high in candidates:
        gap_high = libmp.mpf_sub(a_high, t_low, p, _C)
        if not libmp.mpf_gt(gap_high, libmp.fzero):
            continue  # A_j <= t: h_j < t everywhere, u_j = -oo
        g = iv_rational((k - 2 * j) * eps)
        high = iv_upper(g + iv.log(iv.mpf(mpmath.mp.make_mpf(gap_high)) / iv.mpf(mpmath.mp.make_mpf(c_low))))
        gap_low = libmp.mpf_sub(a_low, t_high, p, _F)
        low = mpmath.mpf("-inf")
        if libmp.mpf_gt(gap_low, libmp.fzero):
            low = iv_lower(g + iv.log(iv.mpf(mpmath.mp.make_mpf(gap_low)) / iv.mpf(mpmath.mp.make_mpf(c_high))))
        best_low, best_high = max(best_low, low), max(best_high, high)
    upper_cap = iv_upper(iv_rational((k - 2 * last_below) * eps))
    high = min(best_high, upper_cap)
    if found_above is not None:
        best_low = max(best_low, iv_lower(iv_rational((k - 2 * found_above) * eps)))
    if high <= 0:
        return iv.mpf(0)
    return iv.mpf([max(best_low, mpmath.mpf(0)), high])


def kov_extra_bits(s_delta_prime: Fraction, k: int) -> int:
    """Extra working bits: the absolute errors of the k-term sums must stay far below ``t >= delta'``."""
    return max(0, s_delta_prime.denominator.bit_length() - s_delta_prime.numerator.bit_length()) + k.bit_length() + 8
