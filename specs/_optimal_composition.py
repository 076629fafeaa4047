"""The optimal (KOV) composition: the exact ``eps'`` of the k-fold composition of
``(eps, delta)``-DP mechanisms at a target, and its ``delta(eps')`` (Kairouz, Oh, Viswanath 2017,
Theorem 3.3; the mathematics in :mod:`dpverify.specs._composition_math`).  Its own module: the
one bound that is tight, not a theorem's sufficient condition like the others in ``_accountants``.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import mpmath
from mpmath import iv

from dpverify.samplers import InvalidArgument, as_fraction
from dpverify.samplers._rational import shown
from dpverify.specs._account_objects import (
    DPS,
    Bound,
    _bound,
    _delta,
    _dps,
    _epsilon,
    _k,
    _Setting,
    _setting,
)
from dpverify.specs._composition_math import kov_epsilon_interval, kov_extra_bits, kov_target_interval
from dpverify.specs._enclosure import enclose, iv_rational, one_minus_exp_neg
from dpverify.specs._interval_tools import clamp_nonnegative

__all__ = ["kov_composition", "kov_delta"]

_CITE_KOV = "Kairouz, Oh, Viswanath 2017, The Composition Theorem for Differential Privacy, Theorem 3.3"


# --- KOV -------------------------------------------------------------------------------------------------


def _kov(s: _Setting) -> Bound:
    formula = (
        "eps' = the root of 1 - (1-delta)^k (1 - delta_RR(eps')) = delta_total, "
        "delta_RR(eps') = sum_i C(k,i) max(0, e^((k-i)eps) - e^eps' e^(i eps)) / (1+e^eps)^k"
    )
    conditions = "each step (eps, delta)-DP; the optimal bound over all such mechanisms (exact for randomized response)"
    if s.dp_reason is not None:
        return _bound("kov", "optimal composition (KOV)", _CITE_KOV, formula, conditions, s.target, reason=s.dp_reason)
    if s.target >= 1:
        return _bound("kov", "optimal composition (KOV)", _CITE_KOV, formula, conditions, s.target)

    def compute() -> iv.mpf:
        return kov_epsilon_interval(s.epsilon, s.k, kov_target_interval(s.delta, s.k, s.target))

    value = enclose(compute, DPS, extra_bits=kov_extra_bits(s.delta_prime, s.k))
    return _bound("kov", "optimal composition (KOV)", _CITE_KOV, formula, conditions, s.target, value=value)


def kov_delta(
    epsilon: object, delta: object, k: object, epsilon_prime: object, dps: object = DPS
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """An enclosure of the exact ``delta(eps')`` of the optimal k-fold composition of
    ``(eps, delta)``-DP mechanisms (KOV 2017 Theorem 3.3):
    ``1 - (1-delta)^k (1 - delta_RR(eps'))`` with
    ``delta_RR(eps') = sum_(i: x_i > 0) P_i (1 - e^(-x_i))``, ``x_i = (k-2i) eps - eps'``,
    ``P_i = C(k,i) e^((k-i) eps) / (1+e^eps)^k`` (each term without cancellation).
    ``epsilon_prime >= 0`` is an exact rational.

    >>> low, high = kov_delta(1, 0, 1, 0, dps=15)   # one step of RR: total variation (e-1)/(e+1)
    >>> mpmath.nstr(low, 10)
    '0.4621171573'
    """
    eps, slack, count = _epsilon(epsilon), _delta(delta), _k(k)
    prime = as_fraction("epsilon_prime", epsilon_prime)
    if prime < 0:
        raise InvalidArgument(f"epsilon_prime must be a rational >= 0; got epsilon_prime={shown(prime)}.")
    digits = _dps(dps)
    if eps == 0 or prime >= count * eps:
        rr: Callable[[], iv.mpf] = lambda: iv.mpf(0)  # noqa: E731 - no positive term
    else:

        def rr() -> iv.mpf:
            w_inv = iv.exp(-iv_rational(eps))
            term, total = (1 / (1 + w_inv)) ** count, iv.mpf(0)
            for i in range(count + 1):
                x = (count - 2 * i) * eps - prime
                if x <= 0:
                    break
                total += term * one_minus_exp_neg(x)
                term = term * iv_rational(Fraction(count - i, i + 1)) * w_inv if i < count else term
            return total

    def compute() -> iv.mpf:
        keep = iv_rational(1 - slack) ** count
        return clamp_nonnegative(1 - keep * (1 - rr()))

    bits = prime.denominator.bit_length() + count.bit_length()
    low, high = enclose(compute, digits, extra_bits=bits)
    return low, high


def kov_composition(epsilon: object, delta: object, k: object, delta_prime: object) -> Bound:
    """The optimal composition (KOV 2017 Theorem 3.3) at ``delta_total = k delta + delta'``.

    >>> kov_composition(1, 0, 1, "1/10").epsilon   # one step of RR: ln(e - (1+e)/10)
    '0.852905101365'
    """
    return _kov(_setting(epsilon, delta, k, delta_prime))
