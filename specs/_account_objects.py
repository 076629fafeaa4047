"""The accountants' result objects (:class:`Bound`, :class:`Account`) and the setting they are
computed from: the inputs parsed, the per-step ``rho``, and the builder of a :class:`Bound`.
Its own module because every accountant (:mod:`dpverify.specs._accountants`, the optimal
composition of :mod:`dpverify.specs._optimal_composition`) states its bound through them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypedDict

import mpmath
from mpmath import iv

from dpverify.samplers import InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import shown
from dpverify.specs._enclosure import enclose, interval_precision, iv_rational
from dpverify.specs._fields import check_fields
from dpverify.specs._interval_tools import (
    EPSILON_DIGITS,
    EXACT_EXPONENT_BITS,
    INTERVAL_DIGITS,
    decimal_text,
    decimal_up,
    interval_text,
    iv_lower,
    iv_upper,
    mpf_fraction,
)
from dpverify.specs._pmf import exact_text

__all__ = [
    "ACCOUNT_SCHEMA",
    "DPS",
    "MAX_EPSILON",
    "MAX_K",
    "MAX_RHO",
    "MECHANISMS",
    "Account",
    "Bound",
    "gaussian_rho",
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
#: Decimal digits of the enclosures computed (the digits printed: ``EPSILON_DIGITS``,
#: ``INTERVAL_DIGITS`` of :mod:`dpverify.specs._interval_tools`).
DPS = 30


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

    def __post_init__(self) -> None:
        check_fields(self)
        if self.epsilon is not None:
            as_fraction("epsilon", self.epsilon)

    @property
    def guarantee(self) -> bool:
        """Whether this bound is a guarantee: it applies, is not vacuous and has a value."""
        return self.applies and not self.vacuous and self.epsilon is not None

    def epsilon_value(self) -> Fraction | None:
        """``epsilon`` as an exact rational (the decimal's value), or None."""
        return None if self.epsilon is None else as_fraction("epsilon", self.epsilon)

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

    def __post_init__(self) -> None:
        check_fields(self)
        if self.chosen is not None and all(bound.name != self.chosen for bound in self.bounds):
            raise InvalidArgument(f"chosen must name one of the bounds or be None; got chosen={shown(self.chosen)}.")

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
    return exact_text(value)


# --- parsing ----------------------------------------------------------------------------------------


def _epsilon(value: object) -> Fraction:
    eps = as_fraction("epsilon", value)
    if not 0 <= eps <= MAX_EPSILON:
        raise InvalidArgument(f"epsilon must be a rational with 0 <= epsilon <= 10^4; got epsilon={shown(eps)}.")
    return eps


def _delta(value: object) -> Fraction:
    delta = as_fraction("delta", value)
    if not 0 <= delta < 1:
        raise InvalidArgument(
            f'delta must be a rational in [0, 1); got delta={shown(delta)}. Pass it as "1/10^6" or "1e-6".'
        )
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


def _required_rho(value: object) -> Fraction:
    rho = _rho(value)
    if rho is None:
        raise InvalidArgument("rho must be a rational with 0 < rho <= 10^8; got rho=None.")
    return rho


def _dps(value: object) -> int:
    return as_int("dps", value, low=1, high=1000)


def _mechanism(value: object) -> str:
    if not isinstance(value, str) or value not in MECHANISMS:
        raise InvalidArgument(f"mechanism must be one of {', '.join(MECHANISMS)}; got mechanism={shown(value)}.")
    return value


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
        return (iv_lower(value) + iv_upper(value)) / 2


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
            f"epsilon and delta must be > 0 for the Gaussian calibration; "
            f"got epsilon={shown(eps)}, delta={shown(slack)}."
        )
    return enclose(lambda: _gaussian_rho_interval(eps, slack), _dps(dps))


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
    pure = eps * eps / 2
    if given is not None and (slack > 0 or given <= pure):
        return _Setting(eps, slack, count, prime, _exact_rho(given, "given"), "")
    if slack == 0:  # pure eps-DP: both rho hold, keep the smaller
        below = "" if given is None else ", below the rho given"
        return _Setting(
            eps,
            slack,
            count,
            prime,
            _exact_rho(pure, f"eps^2/2 from pure eps-DP (Bun–Steinke 2016 Proposition 1.4){below}"),
            "",
        )
    return _Setting(
        eps,
        slack,
        count,
        prime,
        None,
        "no per-step rho: (eps, delta)-DP with delta > 0 implies no zCDP bound; pass rho if the mechanism has one",
    )


class _BoundBase(TypedDict):
    """The fields every :class:`Bound` from :func:`_bound` shares, so ``Bound(**base, ...)`` is typed."""

    name: str
    title: str
    citation: str
    formula: str
    conditions: str
    delta_total: Fraction
    notes: tuple[str, ...]


def _bound(
    name: str,
    title: str,
    citation: str,
    formula: str,
    conditions: str,
    target: Fraction,
    *,
    reason: str | None = None,
    value: tuple[mpmath.mpf, mpmath.mpf] | None = None,
    exact: Fraction | None = None,
    notes: tuple[str, ...] = (),
) -> Bound:
    """A Bound from an enclosure (or an exact value); vacuous when ``target >= 1``."""
    base = _BoundBase(
        name=name,
        title=title,
        citation=citation,
        formula=formula,
        conditions=conditions,
        delta_total=target,
        notes=notes,
    )
    if reason is not None:
        return Bound(**base, applies=False, reason=reason)
    if target >= 1:
        return Bound(
            **base,
            applies=True,
            vacuous=True,
            reason=f"vacuous: delta_total = {_fraction_text(target)} >= 1, so the bound says nothing",
        )
    if exact is not None:
        text = decimal_text(exact, EPSILON_DIGITS, up=True)
        interval = (decimal_text(exact, INTERVAL_DIGITS, up=False), decimal_text(exact, INTERVAL_DIGITS, up=True))
        return Bound(**base, applies=True, epsilon=text, epsilon_exact=exact, epsilon_interval=interval)
    assert value is not None
    low, high = value
    if mpmath.isinf(high) or mpmath.isnan(high):
        return Bound(**base, applies=True, vacuous=True, reason="vacuous: eps' is infinite")
    exact_value = mpf_fraction(low) if low == high and abs(low._mpf_[2]) <= EXACT_EXPONENT_BITS else None
    return Bound(
        **base,
        applies=True,
        epsilon=decimal_up(high),
        epsilon_interval=interval_text(low, high),
        epsilon_exact=exact_value,
    )
