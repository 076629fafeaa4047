"""Privacy accountants: sound, certified upper bounds on the privacy of a k-fold composition.

A mechanism is ``(eps, delta)``-DP per step; ``k`` such steps run (adaptively) one after the
other.  Each bound below states an ``eps'`` with which the composition is
``(eps', delta_total)``-DP, all at the same target ``delta_total = k*delta + delta'``
(``delta'`` in (0, 1) is the slack the caller grants).  ``eps'`` is an UPPER bound: the value
reported is the upper end of a rigorous enclosure (``mpmath.iv``, outward rounding; see
:mod:`dpverify.specs._enclosure`), written as a decimal rounded up; rational values are also
given exactly.  A bound whose target is ``delta_total >= 1`` says nothing and is *vacuous*: it
is reported as such and never as a guarantee.

``L = ln(1/delta')``, ``L_t = ln(1/delta_total)``.

* **basic** (Dwork–Roth, *The Algorithmic Foundations of Differential Privacy*, Theorem 3.16):
  ``eps' = k*eps`` at ``k*delta`` (so also at the larger target).
* **drv** (Dwork, Rothblum, Vadhan 2010, *Boosting and Differential Privacy*, Theorem III.3;
  Dwork–Roth Theorem 3.20): ``eps' = sqrt(2k L)*eps + k*eps*(e^eps - 1)``.
* **advanced**, paper 003's form (its "Advanced Composition", citing the Privacybook's
  Theorem 3.1): ``eps' = 2*eps*sqrt(2k L)``.  The paper states it for every ``delta'`` in
  (0, 1] and every ``eps``; that is false for large ``eps`` (``eps = 2, k = 1000,
  delta' = 10^-6`` gives 664, while the mean privacy loss of 1000-fold randomized response
  alone is ``k*eps*tanh(eps/2) = 1523``).  Dwork–Roth Corollary 3.21 derives it from
  Theorem 3.20 assuming ``eps' < 1``.  Here it is *justified only where it is certified to be
  >= the DRV bound* (then it holds because DRV does, for every ``eps``), i.e. where
  ``2L/k >= (e^eps - 1)^2``; otherwise it is not applicable, with that reason.
* **zcdp-bs16** (Bun–Steinke 2016, *Concentrated Differential Privacy: Simplifications,
  Extensions, and Lower Bounds*): per-step ``rho`` (given, or ``rho = eps^2/2`` from pure
  ``eps``-DP, Proposition 1.4; ``(eps, delta > 0)``-DP alone gives no zCDP), composed to
  ``k*rho`` (Lemma 2.3), converted by Proposition 1.3:
  ``eps' = k*rho + 2*sqrt(k*rho*L_t)``.
* **zcdp-cks20** (Canonne, Kamath, Steinke 2020, *The Discrete Gaussian for Differential
  Privacy*, Proposition 12 / Corollary 13): ``rho``-zCDP implies ``(eps, delta)``-DP with
  ``delta = exp((a-1)(a*rho - eps)) / (a-1) * (1 - 1/a)^a`` for EVERY ``a > 1``; solved for
  ``eps``: ``eps(a) = a*rho + (L_t + (a-1) ln(1 - 1/a) - ln a) / (a-1)`` (the form of
  dp-accounting's ``rdp_privacy_accountant.compute_epsilon`` with RDP ``a*rho``, and of
  OpenDP's ``cdp_epsilon``).  The ``a`` is chosen by a floating-point root search of
  ``d eps/da = 0``, i.e. ``(a-1)^2 rho = L_t - ln a``; it is then fixed as an exact rational and
  ``eps(a)`` is enclosed rigorously, so the optimiser affects tightness only, never soundness.
  Also (Bretagnolle–Huber): ``TV <= sqrt(1 - e^(-KL))`` and ``KL <= rho`` for ``rho``-zCDP
  (``D_1 <= D_a <= a*rho`` for all ``a > 1``), so ``delta_total >= sqrt(1 - e^(-k*rho))``
  gives ``eps' = 0``.
* **kov** (Kairouz, Oh, Viswanath 2017, *The Composition Theorem for Differential Privacy*,
  Theorem 3.3, homogeneous case): the k-fold composition of ``(eps, delta)``-DP mechanisms is
  ``(eps', 1 - (1-delta)^k (1 - delta_RR(eps')))``-DP with
  ``delta_RR(eps') = sum_{i=0..k} C(k,i) max(0, e^((k-i)eps) - e^eps' e^(i eps)) / (1+e^eps)^k``,
  the hockey-stick divergence of k-fold randomized response, and no better bound holds for
  all such mechanisms (for pure ``eps``-DP randomized response attains it).  The ``eps'``
  reported is the exact root of ``delta_RR(eps') = t``, ``t = 1 - (1-delta_total)/(1-delta)^k``,
  enclosed as described in :func:`kov_epsilon_interval`; it is the tightest general bound.

The :func:`account` accountant states every bound at the target, picks the tightest that
applies and is not vacuous, and says why each other one was not used.

This module holds the bounds up to zCDP and :func:`account`; the result objects, the parsing
and the per-step ``rho`` are in :mod:`dpverify.specs._account_objects`, the optimal (KOV)
composition in :mod:`dpverify.specs._optimal_composition`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from dpverify.samplers import InvalidArgument, as_fraction
from dpverify.samplers._rational import shown
from dpverify.specs._account_objects import (
    DPS,
    Account,
    Bound,
    _bound,
    _delta_prime,
    _dps,
    _epsilon,
    _exact_rho,
    _fraction_text,
    _gaussian_rho_interval,
    _mechanism,
    _required_rho,
    _Rho,
    _Setting,
    _setting,
)
from dpverify.specs._composition_math import (
    approx_log_inverse,
    bretagnolle_huber,
    bs16_epsilon_interval,
    cks_delta_order,
    cks_epsilon_interval,
    cks_epsilon_order,
    cks_log_delta_interval,
)
from dpverify.specs._enclosure import enclose, interval_precision, iv_rational, one_minus_exp_neg
from dpverify.specs._interval_tools import (
    clamp_nonnegative,
    decimal_text,
    decimal_up,
    expm1_rational,
    interval_text,
    iv_lower,
    iv_upper,
    log_inverse,
    mpf_decimal,
)
from dpverify.specs._optimal_composition import _kov

__all__ = [
    "account",
    "advanced_composition",
    "basic_composition",
    "drv_composition",
    "zcdp_bs16_composition",
    "zcdp_cks20_composition",
    "zcdp_delta",
    "zcdp_epsilon",
]

_CITE_BASIC = "Dwork–Roth, The Algorithmic Foundations of Differential Privacy, Theorem 3.16"
_CITE_DRV = "Dwork, Rothblum, Vadhan 2010, Theorem III.3 (Dwork–Roth Theorem 3.20)"
_CITE_ADVANCED = (
    "paper 003, 'Advanced Composition' (its Theorem 3.1 of the Privacybook); "
    "Dwork–Roth Corollary 3.21; justified here through Theorem 3.20 (DRV)"
)
_CITE_BS16 = "Bun–Steinke 2016, Proposition 1.3 (conversion), Lemma 2.3 (composition), Proposition 1.4 (pure DP)"
_CITE_CKS20 = (
    "Canonne–Kamath–Steinke 2020, Proposition 12 / Corollary 13 (conversion); "
    "Bun–Steinke 2016 Lemma 2.3 (composition); Bretagnolle–Huber (TV <= sqrt(1 - e^-KL))"
)
_CITE_GAUSSIAN = (
    "Dwork–Roth Theorem A.1 (classic calibration, eps in (0, 1)); "
    "rho = s^2/(2 sigma^2): Bun–Steinke 2016 Proposition 1.6"
)

#: Preference among equally tight bounds (ties are rare): the sharper theorem first.
_ORDER = ("kov", "zcdp-cks20", "zcdp-bs16", "drv", "advanced", "basic")


# --- basic, DRV, advanced -------------------------------------------------------------------------------


def _basic(s: _Setting) -> Bound:
    own = s.k * s.delta
    return _bound(
        "basic",
        "basic composition",
        _CITE_BASIC,
        "eps' = k*eps (at delta = k*delta)",
        "each step (eps, delta)-DP; holds already at delta = k*delta",
        s.target,
        reason=s.dp_reason,
        exact=s.k * s.epsilon,
        notes=(f"holds at delta = k*delta = {_fraction_text(own)} <= delta_total",),
    )


def _drv_interval(s: _Setting) -> iv.mpf:
    L = log_inverse(s.delta_prime)
    eps = iv_rational(s.epsilon)
    return iv.sqrt(2 * s.k * L) * eps + s.k * eps * expm1_rational(s.epsilon)


def _drv(s: _Setting) -> Bound:
    formula = "eps' = sqrt(2k ln(1/delta'))*eps + k*eps*(e^eps - 1)"
    conditions = "each step (eps, delta)-DP, any eps >= 0; delta_total = k*delta + delta'"
    if s.dp_reason is not None:
        return _bound("drv", "advanced composition (DRV)", _CITE_DRV, formula, conditions, s.target, reason=s.dp_reason)
    return _bound(
        "drv",
        "advanced composition (DRV)",
        _CITE_DRV,
        formula,
        conditions,
        s.target,
        value=None if s.target >= 1 else enclose(lambda: _drv_interval(s), DPS),
    )


def _advanced_vs_drv(s: _Setting) -> bool | None:
    """Whether ``2 eps sqrt(2k L) >= DRV``, i.e. ``2L/k >= (e^eps - 1)^2``: True / False when
    certified, None when the enclosures still overlap at 4096 bits (a tie)."""
    bits = 64
    while bits <= 4096:
        with interval_precision(bits):
            left = 2 * log_inverse(s.delta_prime) / s.k
            right = expm1_rational(s.epsilon) ** 2
            if iv_lower(left) >= iv_upper(right):
                return True
            if iv_upper(left) < iv_lower(right):
                return False
        bits *= 2
    return None


def _advanced(s: _Setting) -> Bound:
    title, formula = "advanced composition, paper 003's form", "eps' = 2*eps*sqrt(2k ln(1/delta'))"
    conditions = (
        "each step (eps, delta)-DP; proved only where it is >= the DRV bound, "
        "i.e. 2 ln(1/delta')/k >= (e^eps - 1)^2 (paper 003 states it for all eps: false for large eps)"
    )
    if s.dp_reason is not None:
        return _bound("advanced", title, _CITE_ADVANCED, formula, conditions, s.target, reason=s.dp_reason)

    def value() -> iv.mpf:
        return 2 * iv_rational(s.epsilon) * iv.sqrt(2 * s.k * log_inverse(s.delta_prime))

    verdict = _advanced_vs_drv(s)
    if verdict is not True:
        low, high = enclose(value, DPS)
        drv_low, _ = enclose(lambda: _drv_interval(s), DPS)
        how = "is below" if verdict is False else "could not be certified >="
        return _bound(
            "advanced",
            title,
            _CITE_ADVANCED,
            formula,
            conditions,
            s.target,
            reason=(
                f"not proved for eps={shown(s.epsilon)}: its value {decimal_up(high, 6)} {how} the DRV "
                f"bound {mpf_decimal(drv_low, 6, up=False)}, and paper 003's statement "
                "is false without a condition on eps (Dwork–Roth Corollary 3.21 assumes eps' < 1)"
            ),
        )
    return _bound(
        "advanced",
        title,
        _CITE_ADVANCED,
        formula,
        conditions,
        s.target,
        value=None if s.target >= 1 else enclose(value, DPS),
        notes=("certified >= the DRV bound, hence valid",),
    )


# --- zCDP -------------------------------------------------------------------------------------------------


def _cks_enclosure(
    rho: _Rho, k: int, target: Fraction, dps: int = DPS
) -> tuple[tuple[mpmath.mpf, mpmath.mpf], tuple[str, ...]]:
    """The CKS20 ``eps'`` of ``k*rho``-zCDP at ``target``: ``(low, high)`` and notes."""
    if rho.exact == 0:
        return (mpmath.mpf(0), mpmath.mpf(0)), ("rho = 0: the output distributions are equal",)
    with interval_precision(128):
        if bretagnolle_huber(k * rho.interval(), target):
            return (mpmath.mpf(0), mpmath.mpf(0)), (
                "eps' = 0: delta_total >= sqrt(1 - e^(-k rho)) (Bretagnolle–Huber)",
            )
    beta = cks_epsilon_order(k * rho.midpoint(), approx_log_inverse(target))

    def compute() -> iv.mpf:
        return clamp_nonnegative(cks_epsilon_interval(k * rho.interval(), target, beta))

    low, high = enclose(compute, dps, extra_bits=max(0, beta.denominator.bit_length() - beta.numerator.bit_length()))
    return (low, high), (
        f"order a = 1 + {decimal_text(beta, 8, up=False)} (any a > 1 is valid; this one is near optimal)",
    )


def _zcdp(s: _Setting, which: str, target: Fraction | None = None) -> Bound:
    target = s.target if target is None else target
    if which == "zcdp-bs16":
        title, citation = "zCDP composition, Bun–Steinke conversion", _CITE_BS16
        formula = "eps' = k*rho + 2*sqrt(k*rho*ln(1/delta_total))"
    else:
        title, citation = "zCDP composition, Canonne–Kamath–Steinke conversion", _CITE_CKS20
        formula = (
            "eps' = min over a > 1 of a*k*rho + (ln(1/delta_total) + (a-1) ln(1-1/a) - ln a)/(a-1); "
            "0 if delta_total >= sqrt(1 - e^(-k*rho))"
        )
    conditions = "each step rho-zCDP (given, or rho = eps^2/2 from pure eps-DP); any rho > 0"
    if s.rho is None:
        return _bound(which, title, citation, formula, conditions, target, reason=s.rho_reason)
    rho_note = (f"per-step rho = {_rho_text(s.rho)} ({s.rho.source})",)
    if target >= 1:
        return _bound(which, title, citation, formula, conditions, target, notes=rho_note)
    rho = s.rho
    if which == "zcdp-bs16":
        value = enclose(lambda: bs16_epsilon_interval(s.k * rho.interval(), target), DPS)
        return _bound(which, title, citation, formula, conditions, target, value=value, notes=rho_note)
    value, notes = _cks_enclosure(rho, s.k, target)
    return _bound(which, title, citation, formula, conditions, target, value=value, notes=rho_note + notes)


def _rho_text(rho: _Rho) -> str:
    """``"num/den"`` when exact, else the enclosure's upper end rounded up."""
    if rho.exact is not None:
        return _fraction_text(rho.exact)
    _, high = enclose(rho.interval, DPS)
    return decimal_up(high)


def zcdp_epsilon(rho: object, delta: object, dps: object = DPS) -> tuple[mpmath.mpf, mpmath.mpf]:
    """An enclosure of the CKS20 conversion's ``eps`` (Proposition 12 / Corollary 13, with the
    near-optimal order found as in the module docstring): a ``rho``-zCDP mechanism is
    ``(eps, delta)``-DP for every ``eps >=`` the upper end.  ``rho > 0``, ``delta`` in (0, 1).

    >>> low, high = zcdp_epsilon("1/2", "1e-6", dps=15)
    >>> mpmath.nstr(high, 6)
    '5.22153'
    """
    value, prime, digits = _required_rho(rho), _delta_prime(delta), _dps(dps)
    enclosure, _ = _cks_enclosure(_exact_rho(value, "given"), 1, prime, digits)
    return enclosure


def zcdp_delta(rho: object, epsilon: object, dps: object = DPS) -> tuple[mpmath.mpf, mpmath.mpf]:
    """An enclosure of a certified upper bound on the ``delta(eps)`` of a ``rho``-zCDP
    mechanism: ``min(1, sqrt(1 - e^(-rho)), exp((a-1)(a rho - eps)) / (a-1) * (1 - 1/a)^a)`` at a
    near-optimal order ``a`` (CKS20 Proposition 12 / Corollary 13, any ``a > 1`` is valid;
    Bretagnolle–Huber with ``KL <= rho``).  ``rho > 0``, ``epsilon >= 0`` rationals.

    >>> low, high = zcdp_delta("1/2", 3, dps=15)
    >>> mpmath.nstr(high, 6)
    '0.00514318'
    """
    value, eps, digits = _required_rho(rho), _epsilon(epsilon), _dps(dps)
    beta = cks_delta_order(mpmath.mpf(value.numerator) / value.denominator, mpmath.mpf(eps.numerator) / eps.denominator)

    def compute() -> iv.mpf:
        R = iv_rational(value)
        bound = iv.exp(cks_log_delta_interval(R, eps, beta))
        huber = iv.sqrt(one_minus_exp_neg(value))
        low = min(iv_lower(bound), iv_lower(huber), mpmath.mpf(1))
        high = min(iv_upper(bound), iv_upper(huber), mpmath.mpf(1))
        return iv.mpf([low, high])

    return enclose(compute, digits)


# --- the public bounds and the accountant ------------------------------------------------------------------


def basic_composition(epsilon: object, delta: object, k: object, delta_prime: object) -> Bound:
    """Basic composition (Dwork–Roth Theorem 3.16): ``(k eps, k delta)``, stated at
    ``delta_total = k delta + delta'``.

    >>> basic_composition("1/10", "1e-6", 5, "1e-6").epsilon
    '0.5'
    """
    return _basic(_setting(epsilon, delta, k, delta_prime))


def advanced_composition(epsilon: object, delta: object, k: object, delta_prime: object) -> Bound:
    """Paper 003's advanced composition ``eps' = 2 eps sqrt(2k ln(1/delta'))``, justified only
    where certified ``>=`` the DRV bound (see the module docstring).

    >>> advanced_composition(2, 0, 1000, "1e-6").applies
    False
    """
    return _advanced(_setting(epsilon, delta, k, delta_prime))


def drv_composition(epsilon: object, delta: object, k: object, delta_prime: object) -> Bound:
    """DRV advanced composition: ``eps' = sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1)``.

    >>> drv_composition("1/10", 0, 100, "1e-6").epsilon
    '6.30823095052'
    """
    return _drv(_setting(epsilon, delta, k, delta_prime))


def zcdp_bs16_composition(epsilon: object, delta: object, k: object, delta_prime: object, rho: object = None) -> Bound:
    """zCDP composition with the Bun–Steinke conversion, at ``delta_total = k delta + delta'``."""
    return _zcdp(_setting(epsilon, delta, k, delta_prime, rho), "zcdp-bs16")


def zcdp_cks20_composition(epsilon: object, delta: object, k: object, delta_prime: object, rho: object = None) -> Bound:
    """zCDP composition with the Canonne–Kamath–Steinke conversion, at ``k delta + delta'``."""
    return _zcdp(_setting(epsilon, delta, k, delta_prime, rho), "zcdp-cks20")


def _mechanism_setting(
    mechanism: str, epsilon: object, delta: object, k: object, delta_prime: object, rho: object
) -> tuple[_Setting, tuple[str, ...]]:
    if mechanism != "gaussian":
        s = _setting(epsilon, delta, k, delta_prime, rho)
        if mechanism in ("pure", "laplace") and s.delta != 0:
            raise InvalidArgument(
                f"delta must be 0 for mechanism={mechanism} (pure eps-DP); got delta={shown(s.delta)}."
            )
        if mechanism == "laplace" and s.epsilon == 0:
            raise InvalidArgument("epsilon must be > 0 for mechanism=laplace (its scale is s/eps); got epsilon=0.")
        return s, ()
    if rho is not None:
        raise InvalidArgument(
            f"rho must not be given for mechanism=gaussian: it follows from the calibration; got rho={shown(rho)}."
        )
    s = _setting(epsilon, delta, k, delta_prime)
    if s.epsilon == 0 or s.delta == 0:
        raise InvalidArgument(
            f"epsilon and delta must be > 0 for mechanism=gaussian (sigma^2 = 2 ln(1.25/delta) s^2/eps^2); "
            f"got epsilon={shown(s.epsilon)}, delta={shown(s.delta)}."
        )
    eps, slack = s.epsilon, s.delta
    rho_value = _Rho(
        None,
        lambda: _gaussian_rho_interval(eps, slack),
        "eps^2/(4 ln(1.25/delta)) of the classic calibration (Bun–Steinke 2016 Proposition 1.6)",
    )
    reason = None
    if eps >= 1:
        reason = (
            "the classic Gaussian calibration is proved (eps, delta)-DP only for eps in (0, 1) "
            f"(Dwork–Roth Theorem A.1); got epsilon={shown(eps)}"
        )
    s = _Setting(eps, slack, s.k, s.delta_prime, rho_value, "", reason)
    notes = (
        "per step: (eps, delta)-DP by Dwork–Roth Theorem A.1 (continuous Gaussian, eps < 1) and rho-zCDP "
        "(the discrete Gaussian with the same sigma^2 is rho-zCDP too, CKS20 Theorem 4)",
    )
    return s, notes


def _noise(mechanism: str, s: _Setting, sensitivity: Fraction) -> dict[str, Any]:
    if mechanism == "laplace":
        return {"sensitivity": _fraction_text(sensitivity), "laplace_scale": _fraction_text(sensitivity / s.epsilon)}
    if mechanism == "gaussian":
        ratio = sensitivity * sensitivity / (s.epsilon * s.epsilon)
        low, high = enclose(lambda: 2 * iv.log(iv_rational(Fraction(5, 4) / s.delta)) * iv_rational(ratio), DPS)
        return {
            "sensitivity": _fraction_text(sensitivity),
            "gaussian_sigma2": decimal_up(high),
            "gaussian_sigma2_interval": list(interval_text(low, high)),
            "gaussian_sigma2_formula": "2 ln(1.25/delta) s^2 / eps^2",
        }
    return {}


def account(
    epsilon: object,
    delta: object,
    k: object,
    delta_prime: object,
    rho: object = None,
    mechanism: object = "approx",
    sensitivity: object = 1,
) -> Account:
    """Every bound for ``k`` compositions of a per-step ``(epsilon, delta)``-DP mechanism at
    ``delta_total = k*delta + delta_prime``, and the tightest that is a guarantee.

    ``mechanism``: ``"approx"`` (general ``(eps, delta)``-DP; with ``delta = 0`` also
    ``rho = eps^2/2``), ``"pure"`` and ``"laplace"`` (``delta`` must be 0), ``"gaussian"``
    (the classic calibration: per step ``(eps, delta)``-DP for ``eps < 1`` and
    ``rho = eps^2/(4 ln(1.25/delta))``; ``rho`` must not be given).  ``rho``: a per-step zCDP
    parameter the mechanism also has.  ``sensitivity`` only sets the noise scale reported.
    Inputs are exact rationals (``"0.1"``, ``"1e-6"``, ``"1/3"``); floats are refused.

    >>> result = account("0.1", 0, 10, "1e-6")
    >>> result.chosen, result.bound("kov").epsilon
    ('kov', '0.999370905722')
    """
    kind = _mechanism(mechanism)
    s, notes = _mechanism_setting(kind, epsilon, delta, k, delta_prime, rho)
    scale = as_fraction("sensitivity", sensitivity)
    if not 0 < scale <= 10**12:
        raise InvalidArgument(
            f"sensitivity must be a rational with 0 < sensitivity <= 10^12; got sensitivity={shown(scale)}."
        )
    bounds = (_basic(s), _advanced(s), _drv(s), _zcdp(s, "zcdp-bs16"), _zcdp(s, "zcdp-cks20"), _kov(s))
    usable = [b for b in bounds if b.guarantee]
    chosen = min(usable, key=lambda b: (b.epsilon_value(), _ORDER.index(b.name))) if usable else None
    why: dict[str, str] = {}
    for bound in bounds:
        if bound is chosen:
            why[bound.name] = (
                f"chosen: the smallest eps' among the bounds that apply and are not vacuous ({bound.epsilon})"
            )
        elif not bound.applies:
            why[bound.name] = f"not applicable: {bound.reason}"
        elif bound.vacuous:
            why[bound.name] = bound.reason or "vacuous"
        else:
            assert chosen is not None
            why[bound.name] = f"looser: eps' <= {bound.epsilon}, above {chosen.name}'s {chosen.epsilon}"
    extra = None
    if s.rho is not None and s.k * s.delta > 0:
        extra = _zcdp(s, "zcdp-cks20", target=s.delta_prime)
    rho_text = rho_interval = None
    if s.rho is not None:
        rho_text = _rho_text(s.rho)
        if s.rho.exact is None:
            low, high = enclose(s.rho.interval, DPS)
            rho_interval = interval_text(low, high)
    return Account(
        mechanism=kind,
        epsilon=s.epsilon,
        delta=s.delta,
        k=s.k,
        delta_prime=s.delta_prime,
        delta_total=s.target,
        rho=rho_text,
        rho_interval=rho_interval,
        rho_source=s.rho.source if s.rho is not None else s.rho_reason,
        bounds=bounds,
        chosen=None if chosen is None else chosen.name,
        why=why,
        zcdp_at_delta_prime=extra,
        noise=_noise(kind, s, scale),
        notes=notes,
    )
