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
  enclosed as described in :func:`_kov_epsilon_interval`; it is the tightest general bound.

The :func:`account` accountant states every bound at the target, picks the tightest that
applies and is not vacuous, and says why each other one was not used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv, libmp

from dpverify.samplers import InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import shown
from dpverify.specs._enclosure import bits_for_digits, enclose, interval_precision, iv_rational, one_minus_exp_neg

__all__ = [
    "ACCOUNT_SCHEMA",
    "MECHANISMS",
    "Account",
    "Bound",
    "account",
    "advanced_composition",
    "basic_composition",
    "drv_composition",
    "gaussian_rho",
    "kov_composition",
    "kov_delta",
    "zcdp_bs16_composition",
    "zcdp_cks20_composition",
    "zcdp_delta",
    "zcdp_epsilon",
]

#: The ``schema`` field of :meth:`Account.to_json` (and of ``dpverify account --json``).
ACCOUNT_SCHEMA = "dpverify.account/1"
#: What ``mechanism`` may be: general ``(eps, delta)``-DP steps, pure ``eps``-DP steps, the
#: Laplace mechanism (pure, scale ``s/eps``), the Gaussian mechanism with the classic
#: calibration ``sigma^2 = 2 ln(1.25/delta) s^2 / eps^2``.
MECHANISMS = ("approx", "pure", "laplace", "gaussian")
#: Largest per-step epsilon, rho and number of compositions accepted (beyond them the bounds
#: are astronomically large, or the k-term sums slow).
MAX_EPSILON = 10**4
MAX_RHO = 10**8
MAX_K = 10**6
#: Decimal digits of the enclosures computed; significant digits of the rounded-up ``eps'``
#: and of the enclosure's endpoints as printed.
DPS = 30
EPSILON_DIGITS = 12
INTERVAL_DIGITS = 20

_CITE_BASIC = "Dwork–Roth, The Algorithmic Foundations of Differential Privacy, Theorem 3.16"
_CITE_DRV = "Dwork, Rothblum, Vadhan 2010, Theorem III.3 (Dwork–Roth Theorem 3.20)"
_CITE_ADVANCED = ("paper 003, 'Advanced Composition' (its Theorem 3.1 of the Privacybook); "
                  "Dwork–Roth Corollary 3.21; justified here through Theorem 3.20 (DRV)")
_CITE_BS16 = "Bun–Steinke 2016, Proposition 1.3 (conversion), Lemma 2.3 (composition), Proposition 1.4 (pure DP)"
_CITE_CKS20 = ("Canonne–Kamath–Steinke 2020, Proposition 12 / Corollary 13 (conversion); "
               "Bun–Steinke 2016 Lemma 2.3 (composition); Bretagnolle–Huber (TV <= sqrt(1 - e^-KL))")
_CITE_KOV = "Kairouz, Oh, Viswanath 2017, The Composition Theorem for Differential Privacy, Theorem 3.3"
_CITE_GAUSSIAN = "Dwork–Roth Theorem A.1 (classic calibration, eps in (0, 1)); rho = s^2/(2 sigma^2): Bun–Steinke 2016 Proposition 1.6"

#: Preference among equally tight bounds (ties are rare): the sharper theorem first.
_ORDER = ("kov", "zcdp-cks20", "zcdp-bs16", "drv", "advanced", "basic")


# --- result objects ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bound:
    """One composition bound at one target ``delta_total``.

    ``epsilon`` is the guarantee ``eps' <= epsilon`` as a decimal string rounded UP from the
    enclosure's upper end (None when the bound does not apply or is vacuous);
    ``epsilon_interval`` is the certified enclosure ``[low, high]`` of the bound's value
    (decimal strings rounded outward), ``epsilon_exact`` the exact value where it is rational.
    ``applies`` says whether its conditions hold (``reason`` says why not); ``vacuous`` that it
    says nothing (``delta_total >= 1`` or ``eps'`` infinite).  Only a bound that applies and is
    not vacuous is a guarantee (:attr:`guarantee`).
    """

    name: str
    title: str
    citation: str
    formula: str
    conditions: str
    delta_total: Fraction
    applies: bool
    reason: str | None = None
    vacuous: bool = False
    epsilon: str | None = None
    epsilon_exact: Fraction | None = None
    epsilon_interval: tuple[str, str] | None = None
    notes: tuple[str, ...] = ()

    @property
    def guarantee(self) -> bool:
        """Whether this bound is a guarantee: it applies, is not vacuous and has a value."""
        return self.applies and not self.vacuous and self.epsilon is not None

    def epsilon_value(self) -> Fraction | None:
        """``epsilon`` as an exact rational (the decimal's value), or None."""
        return None if self.epsilon is None else Fraction(self.epsilon)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "citation": self.citation,
            "formula": self.formula,
            "conditions": self.conditions,
            "applies": self.applies,
            "reason": self.reason,
            "vacuous": self.vacuous,
            "guarantee": self.guarantee,
            "epsilon": self.epsilon,
            "epsilon_exact": None if self.epsilon_exact is None else _fraction_text(self.epsilon_exact),
            "epsilon_interval": None if self.epsilon_interval is None else list(self.epsilon_interval),
            "delta_total": _fraction_text(self.delta_total),
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class Account:
    """Every bound for ``k`` compositions at ``delta_total = k*delta + delta'``, and the choice.

    ``chosen`` names the tightest bound that is a guarantee (None when none is: everything
    vacuous or inapplicable), ``why`` gives, for every bound, why it was or was not used.
    ``zcdp_at_delta_prime`` is, where a per-step ``rho`` is known and ``k*delta > 0``, the
    CKS20 conversion at ``delta'`` alone: a stronger statement in delta (zCDP needs no
    per-step delta), reported beside the comparison, not in it.
    """

    mechanism: str
    epsilon: Fraction
    delta: Fraction
    k: int
    delta_prime: Fraction
    delta_total: Fraction
    rho: str | None
    rho_interval: tuple[str, str] | None
    rho_source: str
    bounds: tuple[Bound, ...]
    chosen: str | None
    why: dict[str, str] = field(default_factory=dict)
    zcdp_at_delta_prime: Bound | None = None
    noise: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def vacuous(self) -> bool:
        """The target ``delta_total >= 1``: no bound says anything."""
        return self.delta_total >= 1

    def bound(self, name: str) -> Bound:
        """The bound called ``name`` (InvalidArgument if there is none)."""
        for bound in self.bounds:
            if bound.name == name:
                return bound
        raise InvalidArgument(f"name must be one of {', '.join(b.name for b in self.bounds)}; got name={shown(name)}.")

    def chosen_bound(self) -> Bound | None:
        return None if self.chosen is None else self.bound(self.chosen)

    def to_json(self) -> dict[str, Any]:
        chosen = self.chosen_bound()
        return {
            "schema": ACCOUNT_SCHEMA,
            "mechanism": self.mechanism,
            "parameters": {
                "epsilon": _fraction_text(self.epsilon),
                "delta": _fraction_text(self.delta),
                "k": self.k,
                "delta_prime": _fraction_text(self.delta_prime),
            },
            "rho": self.rho,
            "rho_interval": None if self.rho_interval is None else list(self.rho_interval),
            "rho_source": self.rho_source,
            "noise": self.noise,
            "delta_total": _fraction_text(self.delta_total),
            "vacuous": self.vacuous,
            "bounds": [bound.to_json() for bound in self.bounds],
            "chosen": self.chosen,
            "chosen_epsilon": None if chosen is None else chosen.epsilon,
            "why": dict(self.why),
            "zcdp_at_delta_prime": None if self.zcdp_at_delta_prime is None else self.zcdp_at_delta_prime.to_json(),
            "notes": list(self.notes),
        }


def _fraction_text(value: Fraction | int) -> str:
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


# --- parsing ----------------------------------------------------------------------------------------


def _epsilon(value: object) -> Fraction:
    eps = as_fraction("epsilon", value)
    if not 0 <= eps <= MAX_EPSILON:
        raise InvalidArgument(f"epsilon must be a rational with 0 <= epsilon <= 10^4; got epsilon={shown(eps)}.")
    return eps


def _delta(value: object) -> Fraction:
    delta = as_fraction("delta", value)
    if not 0 <= delta < 1:
        raise InvalidArgument(f'delta must be a rational in [0, 1); got delta={shown(delta)}. Pass it as "1/10^6" or "1e-6".')
    return delta


def _delta_prime(value: object) -> Fraction:
    slack = as_fraction("delta_prime", value)
    if not 0 < slack < 1:
        raise InvalidArgument(
            f'delta_prime must be a rational in (0, 1); got delta_prime={shown(slack)}. Pass it as "1/10^6" or "1e-6".'
        )
    return slack


def _k(value: object) -> int:
    return as_int("k", value, low=1, high=MAX_K)


def _rho(value: object) -> Fraction | None:
    if value is None:
        return None
    rho = as_fraction("rho", value)
    if not 0 < rho <= MAX_RHO:
        raise InvalidArgument(f"rho must be a rational with 0 < rho <= 10^8; got rho={shown(rho)}.")
    return rho


def _mechanism(value: object) -> str:
    if not isinstance(value, str) or value not in MECHANISMS:
        raise InvalidArgument(f"mechanism must be one of {', '.join(MECHANISMS)}; got mechanism={shown(value)}.")
    return value


# --- interval helpers -----------------------------------------------------------------------------------


def _lower(value: iv.mpf) -> mpmath.mpf:
    return mpmath.mp.make_mpf(value._mpi_[0])


def _upper(value: iv.mpf) -> mpmath.mpf:
    return mpmath.mp.make_mpf(value._mpi_[1])


def _clamp_nonnegative(value: iv.mpf) -> iv.mpf:
    """``value`` intersected with ``[0, oo)`` (for a quantity known to be >= 0)."""
    if _upper(value) <= 0:
        return iv.mpf(0)
    if _lower(value) < 0:
        return iv.mpf([0, _upper(value)])
    return value


def _log1p(x: Fraction) -> iv.mpf:
    """``ln(1 + x)`` for a rational ``0 <= x``: for ``x < 1/2`` the alternating series
    ``sum_{n>=1} (-1)^(n+1) x^n / n`` (terms decrease, so the value lies within the first omitted
    term of any partial sum), without the cancellation of ``log(1 + x)`` for tiny ``x``."""
    if x >= Fraction(1, 2):
        return iv.log(iv_rational(1 + x))
    if x == 0:
        return iv.mpf(0)
    X = iv_rational(x)
    threshold = mpmath.mpf(x.numerator) / x.denominator * mpmath.mpf(2) ** (-iv.prec - 4)
    total, power, n = iv.mpf(0), iv.mpf(1), 0
    while True:
        n += 1
        power = power * X
        total = total + power / n if n % 2 else total - power / n
        following = power * X / (n + 1)
        if _upper(following) <= threshold:
            return total + following * iv.mpf([-1, 1])


def _log_inverse(x: Fraction) -> iv.mpf:
    """``ln(1/x) > 0`` for a rational ``0 < x < 1``: ``-ln x`` for ``x <= 1/2``; otherwise, with
    ``y = 1 - x < 1/2``, the positive series ``sum_{n>=1} y^n / n``, whose tail after ``n = N`` is
    at most ``y^(N+1) / ((N+1)(1-y)) <= 2 y^(N+1) / (N+1)`` (no cancellation for ``x`` near 1)."""
    if x <= Fraction(1, 2):
        return -iv.log(iv_rational(x))
    y = 1 - x
    Y = iv_rational(y)
    threshold = mpmath.mpf(y.numerator) / y.denominator * mpmath.mpf(2) ** (-iv.prec - 4)
    total, power, n = iv.mpf(0), iv.mpf(1), 0
    while True:
        n += 1
        power = power * Y
        total = total + power / n
        tail = 2 * power * Y / (n + 1)
        if _upper(tail) <= threshold:
            return total + tail * iv.mpf([0, 1])


def _expm1(x: Fraction) -> iv.mpf:
    """``e^x - 1`` for a rational ``x >= 0``, as ``e^x (1 - e^(-x))`` (no cancellation)."""
    return iv.exp(iv_rational(x)) * one_minus_exp_neg(x)


def mpf_fraction(x: mpmath.mpf) -> Fraction:
    """The exact rational value of a finite mpf (its parts have as many bits as its exponent:
    use :func:`mpf_compare` and :func:`mpf_decimal` for values such as ``10^-(10^15)``)."""
    sign, man, exp, _ = x._mpf_
    value = Fraction(int(man) << exp) if exp >= 0 else Fraction(int(man), 1 << -exp)
    return -value if sign else value


def mpf_compare(x: mpmath.mpf, q: Fraction) -> int:
    """The sign of ``x - q`` for a finite mpf and a rational, exactly and for any exponent:
    ``x * den(q)`` is formed exactly (libmp multiplies without rounding at precision 0)."""
    q = Fraction(q)
    return int(libmp.mpf_cmp(libmp.mpf_mul(x._mpf_, libmp.from_int(q.denominator)), libmp.from_int(q.numerator)))


#: Past this binary exponent an mpf is not turned into a Fraction to be printed.
_EXACT_EXPONENT_BITS = 4096


def _greater_or_equal_power(n: int, d: int, e: int) -> bool:
    """``n/d >= 10^e`` for positive integers ``n, d``."""
    return n >= d * 10**e if e >= 0 else n * 10 ** (-e) >= d


def _format_decimal(mantissa: int, e: int, digits: int) -> str:
    """``mantissa * 10^(e - digits + 1)`` for a ``digits``-digit mantissa, as decimal text."""
    if mantissa == 10**digits:
        mantissa, e = 10 ** (digits - 1), e + 1
    text = str(mantissa).rstrip("0") or "0"
    if -6 <= e <= 15:
        if e >= len(text) - 1:
            return text + "0" * (e - len(text) + 1)
        if e >= 0:
            return f"{text[: e + 1]}.{text[e + 1:]}"
        return "0." + "0" * (-e - 1) + text
    return f"{text[0]}.{text[1:]}e{e}" if len(text) > 1 else f"{text}e{e}"


def decimal_text(value: Fraction, digits: int, *, up: bool) -> str:
    """``value >= 0`` rounded to ``digits`` significant digits, up (ceiling) or down (floor),
    as an exact decimal string (plain for moderate exponents, ``d.ddde-X`` otherwise).

    >>> decimal_text(Fraction(1, 3), 4, up=True), decimal_text(Fraction(1, 3), 4, up=False)
    ('0.3334', '0.3333')
    >>> decimal_text(Fraction(10**30 + 1), 3, up=True), decimal_text(Fraction(1, 2), 12, up=True)
    ('1.01e30', '0.5')
    """
    if value <= 0:
        return "0"
    n, d = value.numerator, value.denominator
    e = (n.bit_length() - d.bit_length()) * 30103 // 100000
    while not _greater_or_equal_power(n, d, e):
        e -= 1
    while _greater_or_equal_power(n, d, e + 1):
        e += 1  # now 10^e <= value < 10^(e+1)
    shift = digits - 1 - e
    numerator, denominator = (n * 10**shift, d) if shift >= 0 else (n, d * 10 ** (-shift))
    mantissa, remainder = divmod(numerator, denominator)
    if up and remainder:
        mantissa += 1
    return _format_decimal(mantissa, e, digits)


def mpf_decimal(x: mpmath.mpf, digits: int, *, up: bool) -> str:
    """A finite mpf ``x`` rounded to ``digits`` significant digits, up or down (``"0"`` for
    ``x <= 0``).  Exact through a Fraction for moderate exponents; otherwise
    ``x * 10^(digits-1-e)`` is enclosed in an interval at a precision that carries the exponent,
    and its upper end rounded up (or lower end down), so the text is still a certified bound.

    >>> mpf_decimal(mpmath.mpf(2) ** -100000, 5, up=True), mpf_decimal(mpmath.mpf(2) ** -100000, 5, up=False)
    ('1.001e-30103', '1.0009e-30103')
    """
    if not x > 0:
        return "0"
    _, _, exp, bc = x._mpf_
    if abs(exp) <= _EXACT_EXPONENT_BITS:
        return decimal_text(mpf_fraction(x), digits, up=up)
    bits = bits_for_digits(digits) + 64 + (abs(exp) + bc).bit_length()
    with interval_precision(bits):
        X = iv.mpf(x)
        guess = libmp.to_int((iv.log(X) / iv.log(10))._mpi_[0], "f")
        low_limit, high_limit = 10 ** (digits - 1), 10**digits
        for e in (guess, guess - 1, guess + 1, guess - 2, guess + 2):
            scaled = X * iv.mpf(10) ** (digits - 1 - e)
            if _lower(scaled) >= low_limit and _upper(scaled) < high_limit:
                break
        else:
            raise AssertionError(f"could not place {x} between two powers of ten")
        mantissa = libmp.to_int(scaled._mpi_[1], "c") if up else libmp.to_int(scaled._mpi_[0], "f")
    return _format_decimal(mantissa, e, digits)


def decimal_up(value: mpmath.mpf, digits: int = EPSILON_DIGITS) -> str:
    """``value`` rounded up to ``digits`` significant digits (a certified upper bound)."""
    return mpf_decimal(value, digits, up=True)


def interval_text(low: mpmath.mpf, high: mpmath.mpf) -> tuple[str, str]:
    """An enclosure's ends as decimal text, rounded outward (a negative low end shows as 0: every
    quantity enclosed here is >= 0)."""
    return mpf_decimal(low, INTERVAL_DIGITS, up=False), mpf_decimal(high, INTERVAL_DIGITS, up=True)


# --- per-step rho ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Rho:
    """A per-step zCDP parameter: exact where rational, else an enclosure at the current
    ``mpmath.iv`` precision; ``source`` says where it comes from."""

    exact: Fraction | None
    interval: Callable[[], iv.mpf]
    source: str

    def midpoint(self) -> mpmath.mpf:
        with interval_precision(64):
            value = self.interval()
        return (_lower(value) + _upper(value)) / 2


def _exact_rho(rho: Fraction, source: str) -> _Rho:
    return _Rho(rho, lambda: iv_rational(rho), source)


def _gaussian_rho_interval(eps: Fraction, delta: Fraction) -> iv.mpf:
    return iv_rational(eps * eps) / (4 * iv.log(iv_rational(Fraction(5, 4) / delta)))


def gaussian_rho(epsilon: object, delta: object, dps: object = DPS) -> tuple[mpmath.mpf, mpmath.mpf]:
    """An enclosure of the per-step ``rho`` of the Gaussian mechanism with the classic
    calibration ``sigma^2 = 2 ln(1.25/delta) s^2 / eps^2`` (Dwork–Roth Theorem A.1; paper 003):
    ``rho = s^2 / (2 sigma^2) = eps^2 / (4 ln(1.25/delta))`` (Bun–Steinke 2016 Proposition 1.6;
    the discrete Gaussian has the same ``rho``, CKS20 Theorem 4).  ``epsilon > 0``, ``delta`` in
    (0, 1), exact rationals.

    >>> low, high = gaussian_rho("1/10", "1e-6", dps=15)
    >>> mpmath.nstr(low, 10)
    '0.000178079749'
    """
    eps, slack = _epsilon(epsilon), _delta(delta)
    if eps == 0 or slack == 0:
        raise InvalidArgument(
            f"epsilon and delta must be > 0 for the Gaussian calibration; got epsilon={shown(eps)}, delta={shown(slack)}."
        )
    digits = as_int("dps", dps, low=1, high=1000)
    return enclose(lambda: _gaussian_rho_interval(eps, slack), digits)


# --- the setting --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Setting:
    """Parsed inputs: the per-step DP claim (``dp_reason`` is None when it holds) and rho."""

    epsilon: Fraction
    delta: Fraction
    k: int
    delta_prime: Fraction
    rho: _Rho | None
    rho_reason: str
    dp_reason: str | None = None

    @property
    def target(self) -> Fraction:
        return self.k * self.delta + self.delta_prime


def _setting(epsilon: object, delta: object, k: object, delta_prime: object, rho: object = None) -> _Setting:
    eps, slack, count, prime, given = _epsilon(epsilon), _delta(delta), _k(k), _delta_prime(delta_prime), _rho(rho)
    if given is not None:
        return _Setting(eps, slack, count, prime, _exact_rho(given, "given"), "")
    if slack == 0:
        return _Setting(eps, slack, count, prime, _exact_rho(eps * eps / 2, "eps^2/2 from pure eps-DP (Bun–Steinke 2016 Proposition 1.4)"), "")
    return _Setting(eps, slack, count, prime, None,
                    "no per-step rho: (eps, delta)-DP with delta > 0 implies no zCDP bound; pass rho if the mechanism has one")


def _bound(name: str, title: str, citation: str, formula: str, conditions: str, target: Fraction, *,
           reason: str | None = None, value: tuple[mpmath.mpf, mpmath.mpf] | None = None,
           exact: Fraction | None = None, notes: tuple[str, ...] = ()) -> Bound:
    """A Bound from an enclosure (or an exact value); vacuous when ``target >= 1``."""
    base = dict(name=name, title=title, citation=citation, formula=formula, conditions=conditions,
                delta_total=target, notes=notes)
    if reason is not None:
        return Bound(**base, applies=False, reason=reason)
    if target >= 1:
        return Bound(**base, applies=True, vacuous=True,
                     reason=f"vacuous: delta_total = {_fraction_text(target)} >= 1, so the bound says nothing")
    if exact is not None:
        text = decimal_text(exact, EPSILON_DIGITS, up=True)
        interval = (decimal_text(exact, INTERVAL_DIGITS, up=False), decimal_text(exact, INTERVAL_DIGITS, up=True))
        return Bound(**base, applies=True, epsilon=text, epsilon_exact=exact, epsilon_interval=interval)
    assert value is not None
    low, high = value
    if mpmath.isinf(high) or mpmath.isnan(high):
        return Bound(**base, applies=True, vacuous=True, reason="vacuous: eps' is infinite")
    exact_value = mpf_fraction(low) if low == high and abs(low._mpf_[2]) <= _EXACT_EXPONENT_BITS else None
    return Bound(**base, applies=True, epsilon=decimal_up(high), epsilon_interval=interval_text(low, high),
                 epsilon_exact=exact_value)


# --- basic, DRV, advanced -------------------------------------------------------------------------------


def _basic(s: _Setting) -> Bound:
    own = s.k * s.delta
    return _bound("basic", "basic composition", _CITE_BASIC, "eps' = k*eps (at delta = k*delta)",
                  "each step (eps, delta)-DP; holds already at delta = k*delta", s.target,
                  reason=s.dp_reason, exact=s.k * s.epsilon,
                  notes=(f"holds at delta = k*delta = {_fraction_text(own)} <= delta_total",))


def _drv_interval(s: _Setting) -> iv.mpf:
    L = _log_inverse(s.delta_prime)
    eps = iv_rational(s.epsilon)
    return iv.sqrt(2 * s.k * L) * eps + s.k * eps * _expm1(s.epsilon)


def _drv(s: _Setting) -> Bound:
    formula = "eps' = sqrt(2k ln(1/delta'))*eps + k*eps*(e^eps - 1)"
    conditions = "each step (eps, delta)-DP, any eps >= 0; delta_total = k*delta + delta'"
    if s.dp_reason is not None:
        return _bound("drv", "advanced composition (DRV)", _CITE_DRV, formula, conditions, s.target, reason=s.dp_reason)
    return _bound("drv", "advanced composition (DRV)", _CITE_DRV, formula, conditions, s.target,
                  value=None if s.target >= 1 else enclose(lambda: _drv_interval(s), DPS))


def _advanced_vs_drv(s: _Setting) -> bool | None:
    """Whether ``2 eps sqrt(2k L) >= DRV``, i.e. ``2L/k >= (e^eps - 1)^2``: True / False when
    certified, None when the enclosures still overlap at 4096 bits (a tie)."""
    bits = 64
    while bits <= 4096:
        with interval_precision(bits):
            left = 2 * _log_inverse(s.delta_prime) / s.k
            right = _expm1(s.epsilon) ** 2
            if _lower(left) >= _upper(right):
                return True
            if _upper(left) < _lower(right):
                return False
        bits *= 2
    return None


def _advanced(s: _Setting) -> Bound:
    title, formula = "advanced composition, paper 003's form", "eps' = 2*eps*sqrt(2k ln(1/delta'))"
    conditions = ("each step (eps, delta)-DP; proved only where it is >= the DRV bound, "
                  "i.e. 2 ln(1/delta')/k >= (e^eps - 1)^2 (paper 003 states it for all eps: false for large eps)")
    if s.dp_reason is not None:
        return _bound("advanced", title, _CITE_ADVANCED, formula, conditions, s.target, reason=s.dp_reason)

    def value() -> iv.mpf:
        return 2 * iv_rational(s.epsilon) * iv.sqrt(2 * s.k * _log_inverse(s.delta_prime))

    verdict = _advanced_vs_drv(s)
    if verdict is not True:
        low, high = enclose(value, DPS)
        drv_low, _ = enclose(lambda: _drv_interval(s), DPS)
        how = "is below" if verdict is False else "could not be certified >="
        return _bound("advanced", title, _CITE_ADVANCED, formula, conditions, s.target,
                      reason=(f"not proved for eps={shown(s.epsilon)}: its value {decimal_up(high, 6)} {how} the DRV "
                              f"bound {mpf_decimal(drv_low, 6, up=False)}, and paper 003's statement "
                              "is false without a condition on eps (Dwork–Roth Corollary 3.21 assumes eps' < 1)"))
    return _bound("advanced", title, _CITE_ADVANCED, formula, conditions, s.target,
                  value=None if s.target >= 1 else enclose(value, DPS),
                  notes=("certified >= the DRV bound, hence valid",))


# --- zCDP -------------------------------------------------------------------------------------------------


def _bs16_interval(rho_total: iv.mpf, target: Fraction) -> iv.mpf:
    return rho_total + 2 * iv.sqrt(rho_total * _log_inverse(target))


def _cks_beta(rho: mpmath.mpf, L: mpmath.mpf) -> Fraction:
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


def _cks_epsilon_interval(rho: iv.mpf, target: Fraction, beta: Fraction) -> iv.mpf:
    """``eps(a)`` for ``a = 1 + beta``: ``a rho + L/beta + ln beta - ln(1+beta) (1 + 1/beta)``,
    the CKS20 form ``a rho + (L + (a-1) ln(1 - 1/a) - ln a)/(a-1)`` rearranged so that no term
    cancels for small ``beta``."""
    L = _log_inverse(target)
    B = iv_rational(beta)
    log1p = _log1p(beta)
    return (1 + B) * rho + L / B + iv.log(B) - log1p - log1p / B


def _bretagnolle_huber(rho: iv.mpf, target: Fraction) -> bool:
    """``target >= sqrt(1 - e^(-rho))`` certified (then ``(0, target)``-DP)."""
    return bool(_lower(iv.exp(-rho)) >= _upper(iv_rational(1 - target * target)))


def _approx_log_inverse(x: Fraction) -> mpmath.mpf:
    """``ln(1/x)`` to about 90 bits (for the optimiser only)."""
    with interval_precision(96):
        value = _log_inverse(x)
    return (_lower(value) + _upper(value)) / 2


def _cks_enclosure(rho: _Rho, k: int, target: Fraction, dps: int = DPS) -> tuple[tuple[mpmath.mpf, mpmath.mpf], tuple[str, ...]]:
    """The CKS20 ``eps'`` of ``k*rho``-zCDP at ``target``: ``(low, high)`` and notes."""
    if rho.exact == 0:
        return (mpmath.mpf(0), mpmath.mpf(0)), ("rho = 0: the output distributions are equal",)
    with interval_precision(128):
        if _bretagnolle_huber(k * rho.interval(), target):
            return (mpmath.mpf(0), mpmath.mpf(0)), ("eps' = 0: delta_total >= sqrt(1 - e^(-k rho)) (Bretagnolle–Huber)",)
    beta = _cks_beta(k * rho.midpoint(), _approx_log_inverse(target))

    def compute() -> iv.mpf:
        return _clamp_nonnegative(_cks_epsilon_interval(k * rho.interval(), target, beta))

    low, high = enclose(compute, dps, extra_bits=max(0, beta.denominator.bit_length() - beta.numerator.bit_length()))
    return (low, high), (f"order a = 1 + {decimal_text(beta, 8, up=False)} (any a > 1 is valid; this one is near optimal)",)


def _zcdp(s: _Setting, which: str, target: Fraction | None = None) -> Bound:
    target = s.target if target is None else target
    if which == "zcdp-bs16":
        title, citation = "zCDP composition, Bun–Steinke conversion", _CITE_BS16
        formula = "eps' = k*rho + 2*sqrt(k*rho*ln(1/delta_total))"
    else:
        title, citation = "zCDP composition, Canonne–Kamath–Steinke conversion", _CITE_CKS20
        formula = ("eps' = min over a > 1 of a*k*rho + (ln(1/delta_total) + (a-1) ln(1-1/a) - ln a)/(a-1); "
                   "0 if delta_total >= sqrt(1 - e^(-k*rho))")
    conditions = "each step rho-zCDP (given, or rho = eps^2/2 from pure eps-DP); any rho > 0"
    if s.rho is None:
        return _bound(which, title, citation, formula, conditions, target, reason=s.rho_reason)
    rho_note = (f"per-step rho = {_rho_text(s.rho)} ({s.rho.source})",)
    if target >= 1:
        return _bound(which, title, citation, formula, conditions, target, notes=rho_note)
    rho = s.rho
    if which == "zcdp-bs16":
        value = enclose(lambda: _bs16_interval(s.k * rho.interval(), target), DPS)
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
    value, prime = _rho(rho), _delta_prime(delta)
    if value is None:
        raise InvalidArgument("rho must be a rational with 0 < rho <= 10^8; got rho=None.")
    digits = as_int("dps", dps, low=1, high=1000)
    enclosure, _ = _cks_enclosure(_exact_rho(value, "given"), 1, prime, digits)
    return enclosure


def _cks_delta_beta(rho: mpmath.mpf, eps: mpmath.mpf) -> Fraction:
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


def _cks_log_delta_interval(rho: iv.mpf, eps: Fraction, beta: Fraction) -> iv.mpf:
    """``ln delta(a)``, ``a = 1 + beta``: ``beta ((1+beta) rho - eps) + (1+beta)(ln beta - ln(1+beta)) - ln beta``."""
    B = iv_rational(beta)
    log_beta = iv.log(B)
    return B * ((1 + B) * rho - iv_rational(eps)) + (1 + B) * (log_beta - _log1p(beta)) - log_beta


def zcdp_delta(rho: object, epsilon: object, dps: object = DPS) -> tuple[mpmath.mpf, mpmath.mpf]:
    """An enclosure of a certified upper bound on the ``delta(eps)`` of a ``rho``-zCDP
    mechanism: ``min(1, sqrt(1 - e^(-rho)), exp((a-1)(a rho - eps)) / (a-1) * (1 - 1/a)^a)`` at a
    near-optimal order ``a`` (CKS20 Proposition 12 / Corollary 13, any ``a > 1`` is valid;
    Bretagnolle–Huber with ``KL <= rho``).  ``rho > 0``, ``epsilon >= 0`` rationals.

    >>> low, high = zcdp_delta("1/2", 3, dps=15)
    >>> mpmath.nstr(high, 6)
    '0.00514318'
    """
    value, eps = _rho(rho), _epsilon(epsilon)
    if value is None:
        raise InvalidArgument("rho must be a rational with 0 < rho <= 10^8; got rho=None.")
    digits = as_int("dps", dps, low=1, high=1000)
    beta = _cks_delta_beta(mpmath.mpf(value.numerator) / value.denominator, mpmath.mpf(eps.numerator) / eps.denominator)

    def compute() -> iv.mpf:
        R = iv_rational(value)
        bound = iv.exp(_cks_log_delta_interval(R, eps, beta))
        huber = iv.sqrt(one_minus_exp_neg(value))
        low = min(_lower(bound), _lower(huber), mpmath.mpf(1))
        high = min(_upper(bound), _upper(huber), mpmath.mpf(1))
        return iv.mpf([low, high])

    return enclose(compute, digits)


# --- KOV -------------------------------------------------------------------------------------------------


_F, _C = "f", "c"  # libmp rounding: floor, ceiling


def _pair(value: iv.mpf) -> tuple[Any, Any]:
    return value._mpi_


def _kov_target_interval(delta: Fraction, k: int, target: Fraction) -> iv.mpf:
    """``t = 1 - (1 - delta_total) / (1 - delta)^k``, known to be ``>= delta'``... here ``>= 0``."""
    if delta == 0:
        return iv_rational(target)
    t = 1 - (1 - iv_rational(target)) / iv_rational(1 - delta) ** k
    return _clamp_nonnegative(t)


def _kov_epsilon_interval(eps: Fraction, k: int, t: iv.mpf) -> iv.mpf:
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
        high = _upper(g + iv.log(iv.mpf(mpmath.mp.make_mpf(gap_high)) / iv.mpf(mpmath.mp.make_mpf(c_low))))
        gap_low = libmp.mpf_sub(a_low, t_high, p, _F)
        low = mpmath.mpf("-inf")
        if libmp.mpf_gt(gap_low, libmp.fzero):
            low = _lower(g + iv.log(iv.mpf(mpmath.mp.make_mpf(gap_low)) / iv.mpf(mpmath.mp.make_mpf(c_high))))
        best_low, best_high = max(best_low, low), max(best_high, high)
    upper_cap = _upper(iv_rational((k - 2 * last_below) * eps))
    high = min(best_high, upper_cap)
    if found_above is not None:
        best_low = max(best_low, _lower(iv_rational((k - 2 * found_above) * eps)))
    if high <= 0:
        return iv.mpf(0)
    return iv.mpf([max(best_low, mpmath.mpf(0)), high])


def _kov_bits(s_delta_prime: Fraction, k: int) -> int:
    """Extra working bits: the absolute errors of the k-term sums must stay far below ``t >= delta'``."""
    return max(0, s_delta_prime.denominator.bit_length() - s_delta_prime.numerator.bit_length()) + k.bit_length() + 8


def _kov(s: _Setting) -> Bound:
    formula = ("eps' = the root of 1 - (1-delta)^k (1 - delta_RR(eps')) = delta_total, "
               "delta_RR(eps') = sum_i C(k,i) max(0, e^((k-i)eps) - e^eps' e^(i eps)) / (1+e^eps)^k")
    conditions = "each step (eps, delta)-DP; the optimal bound over all such mechanisms (exact for randomized response)"
    if s.dp_reason is not None:
        return _bound("kov", "optimal composition (KOV)", _CITE_KOV, formula, conditions, s.target, reason=s.dp_reason)
    if s.target >= 1:
        return _bound("kov", "optimal composition (KOV)", _CITE_KOV, formula, conditions, s.target)

    def compute() -> iv.mpf:
        return _kov_epsilon_interval(s.epsilon, s.k, _kov_target_interval(s.delta, s.k, s.target))

    value = enclose(compute, DPS, extra_bits=_kov_bits(s.delta_prime, s.k))
    return _bound("kov", "optimal composition (KOV)", _CITE_KOV, formula, conditions, s.target, value=value)


def kov_delta(epsilon: object, delta: object, k: object, epsilon_prime: object, dps: object = DPS) -> tuple[mpmath.mpf, mpmath.mpf]:
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
    digits = as_int("dps", dps, low=1, high=1000)
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
        return _clamp_nonnegative(1 - keep * (1 - rr()))

    bits = prime.denominator.bit_length() + count.bit_length()
    low, high = enclose(compute, digits, extra_bits=bits)
    return low, high


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


def kov_composition(epsilon: object, delta: object, k: object, delta_prime: object) -> Bound:
    """The optimal composition (KOV 2017 Theorem 3.3) at ``delta_total = k delta + delta'``.

    >>> kov_composition(1, 0, 1, "1/10").epsilon   # one step of RR: ln(e - (1+e)/10)
    '0.852905101365'
    """
    return _kov(_setting(epsilon, delta, k, delta_prime))


def _mechanism_setting(mechanism: str, epsilon: object, delta: object, k: object, delta_prime: object,
                       rho: object) -> tuple[_Setting, tuple[str, ...]]:
    if mechanism != "gaussian":
        s = _setting(epsilon, delta, k, delta_prime, rho)
        if mechanism in ("pure", "laplace") and s.delta != 0:
            raise InvalidArgument(f"delta must be 0 for mechanism={mechanism} (pure eps-DP); got delta={shown(s.delta)}.")
        if mechanism == "laplace" and s.epsilon == 0:
            raise InvalidArgument("epsilon must be > 0 for mechanism=laplace (its scale is s/eps); got epsilon=0.")
        if s.rho is not None and s.rho.exact is not None and s.delta == 0 and rho is not None:
            pure = s.epsilon * s.epsilon / 2
            if pure < s.rho.exact:  # both hold: keep the smaller
                s = _Setting(s.epsilon, s.delta, s.k, s.delta_prime,
                             _exact_rho(pure, "eps^2/2 from pure eps-DP (Bun–Steinke 2016 Proposition 1.4), below the rho given"), "")
        return s, ()
    if rho is not None:
        raise InvalidArgument("rho must not be given for mechanism=gaussian: it follows from the calibration; "
                              f"got rho={shown(rho)}.")
    s = _setting(epsilon, delta, k, delta_prime)
    if s.epsilon == 0 or s.delta == 0:
        raise InvalidArgument(f"epsilon and delta must be > 0 for mechanism=gaussian (sigma^2 = 2 ln(1.25/delta) s^2/eps^2); "
                              f"got epsilon={shown(s.epsilon)}, delta={shown(s.delta)}.")
    eps, slack = s.epsilon, s.delta
    rho_value = _Rho(None, lambda: _gaussian_rho_interval(eps, slack),
                     "eps^2/(4 ln(1.25/delta)) of the classic calibration (Bun–Steinke 2016 Proposition 1.6)")
    reason = None
    if eps >= 1:
        reason = ("the classic Gaussian calibration is proved (eps, delta)-DP only for eps in (0, 1) "
                  f"(Dwork–Roth Theorem A.1); got epsilon={shown(eps)}")
    s = _Setting(eps, slack, s.k, s.delta_prime, rho_value, "", reason)
    notes = ("per step: (eps, delta)-DP by Dwork–Roth Theorem A.1 (continuous Gaussian, eps < 1) and rho-zCDP "
             "(the discrete Gaussian with the same sigma^2 is rho-zCDP too, CKS20 Theorem 4)",)
    return s, notes


def _noise(mechanism: str, s: _Setting, sensitivity: Fraction) -> dict[str, Any]:
    if mechanism == "laplace":
        return {"sensitivity": _fraction_text(sensitivity), "laplace_scale": _fraction_text(sensitivity / s.epsilon)}
    if mechanism == "gaussian":
        ratio = sensitivity * sensitivity / (s.epsilon * s.epsilon)
        low, high = enclose(lambda: 2 * iv.log(iv_rational(Fraction(5, 4) / s.delta)) * iv_rational(ratio), DPS)
        return {"sensitivity": _fraction_text(sensitivity), "gaussian_sigma2": decimal_up(high),
                "gaussian_sigma2_interval": list(interval_text(low, high)),
                "gaussian_sigma2_formula": "2 ln(1.25/delta) s^2 / eps^2"}
    return {}


def account(epsilon: object, delta: object, k: object, delta_prime: object, rho: object = None,
            mechanism: object = "approx", sensitivity: object = 1) -> Account:
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
        raise InvalidArgument(f"sensitivity must be a rational with 0 < sensitivity <= 10^12; got sensitivity={shown(scale)}.")
    bounds = (_basic(s), _advanced(s), _drv(s), _zcdp(s, "zcdp-bs16"), _zcdp(s, "zcdp-cks20"), _kov(s))
    usable = [b for b in bounds if b.guarantee]
    chosen = min(usable, key=lambda b: (b.epsilon_value(), _ORDER.index(b.name))) if usable else None
    why: dict[str, str] = {}
    for bound in bounds:
        if bound is chosen:
            why[bound.name] = f"chosen: the smallest eps' among the bounds that apply and are not vacuous ({bound.epsilon})"
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
        mechanism=kind, epsilon=s.epsilon, delta=s.delta, k=s.k, delta_prime=s.delta_prime, delta_total=s.target,
        rho=rho_text, rho_interval=rho_interval, rho_source=s.rho.source if s.rho is not None else s.rho_reason,
        bounds=bounds, chosen=None if chosen is None else chosen.name, why=why, zcdp_at_delta_prime=extra,
        noise=_noise(kind, s, scale), notes=notes,
    )
