"""The discrete Gaussian mechanism's tight calibration and its check.

For ``N_Z(0, sigma2)`` noise on an integer query (``dims = 1``, integer sensitivity ``s``) the
exact ``delta(eps)`` is CKS20 Theorem 7's (:func:`dpverify.verify.privacy._accounting.dgauss_delta`, a
certified enclosure).  For ``dims > 1`` coordinates, each with independent ``N_Z(0, sigma2)``
noise and an L2 sensitivity ``s``, the Rényi divergences add over the coordinates, so the
mechanism is ``rho``-zCDP with ``rho = s^2 / (2 sigma2)`` (CKS20 Theorem 4, per coordinate
``alpha (x_i - x'_i)^2 / (2 sigma2)``, summed), and ``delta(eps)`` is bounded by the CKS20
conversion (:func:`dpverify.specs.zcdp_delta`; Proposition 12 / Corollary 13), an upper bound.

The classic calibration ``sigma2 = 2 ln(1.25/delta) s^2 / eps^2`` (Dwork–Roth Theorem A.1, for
the continuous Gaussian and ``eps < 1``) is loose; :func:`tight_sigma2` finds the smallest
``sigma2`` on a rational grid that the certified ``delta`` admits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from dpverify.samplers import InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import shown
from dpverify.specs import zcdp_delta
from dpverify.specs._fields import check_fields
from dpverify.specs._interval_tools import (
    decimal_text,
    decimal_up,
    interval_text,
    mpf_compare,
    mpf_decimal,
    mpf_fraction,
)
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.privacy._accounting import dgauss_delta

__all__ = ["GaussianCalibration", "check_gaussian_mechanism", "tight_sigma2"]

#: Largest epsilon, dimension and sensitivity accepted.
MAX_EPSILON = 100
MAX_DIMS = 10**6
MAX_SENSITIVITY = 10**6
#: Largest variance parameter a calibration may return or a check accept.
MAX_SIGMA2 = 10**300
#: Significant digits of the automatic grid: its step is ``10^(E-3)`` for the zCDP bracket
#: ``sigma2_0`` with ``10^E <= sigma2_0 < 10^(E+1)``.
GRID_DIGITS = 4
#: Digits of each certified delta (enough to decide against the claim; more cost time only).
DPS = 20
#: Most doublings of the upper bracket before giving up (never reached for valid inputs).
MAX_DOUBLINGS = 64


@dataclass(frozen=True, slots=True)
class GaussianCalibration:
    """The smallest grid ``sigma2`` certified ``(epsilon, delta)``-DP, with its evidence.

    ``sigma2 = j * step`` is certified: the upper end of its ``delta`` enclosure
    (``delta_interval``) is ``<= delta``.  ``below = (j-1) * step`` is not certified (its
    enclosure's upper end is above ``delta``), so ``sigma2`` is the smallest grid point when the
    certified delta decreases in ``sigma2`` (it does for the zCDP bound; for Theorem 7 the
    search assumes it).  ``method`` says which delta was used.
    """

    sigma2: Fraction
    step: Fraction
    sensitivity: Fraction
    epsilon: Fraction
    delta: Fraction
    dims: int
    method: str
    delta_interval: tuple[str, str]
    below: Fraction | None
    below_delta_interval: tuple[str, str] | None

    def __post_init__(self) -> None:
        check_fields(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "sigma2": fraction_text(self.sigma2),
            "step": fraction_text(self.step),
            "sensitivity": fraction_text(self.sensitivity),
            "epsilon": fraction_text(self.epsilon),
            "delta": fraction_text(self.delta),
            "dims": self.dims,
            "method": self.method,
            "delta_interval": list(self.delta_interval),
            "below": None if self.below is None else fraction_text(self.below),
            "below_delta_interval": None if self.below_delta_interval is None else list(self.below_delta_interval),
        }


def _parse(
    sensitivity: object, epsilon: object, delta: object, dims: object
) -> tuple[Fraction, Fraction, Fraction, int]:
    count = as_int("dims", dims, low=1, high=MAX_DIMS)
    if count == 1:
        scale = Fraction(as_int("sensitivity", sensitivity, low=1, high=MAX_SENSITIVITY))
    else:
        scale = as_fraction("sensitivity", sensitivity)
        if not 0 < scale <= MAX_SENSITIVITY:
            raise InvalidArgument(
                f"sensitivity must be a rational L2 bound with 0 < sensitivity <= 10^6; got sensitivity={shown(scale)}."
            )
    eps = as_fraction("epsilon", epsilon)
    if not 0 < eps <= MAX_EPSILON:
        raise InvalidArgument(f"epsilon must be a rational with 0 < epsilon <= 100; got epsilon={shown(eps)}.")
    slack = as_fraction("delta", delta)
    if not 0 < slack < 1:
        raise InvalidArgument(
            f'delta must be a rational in (0, 1); got delta={shown(slack)}. Pass it as "1/10^6" or "1e-6".'
        )
    return scale, eps, slack, count


def _method(dims: int) -> str:
    if dims == 1:
        return "CKS20 Theorem 7: the exact delta(eps) of the discrete Gaussian, certified enclosure"
    return "zCDP: rho = s^2/(2 sigma2) (CKS20 Theorem 4, summed over coordinates), CKS20 Proposition 12 conversion"


def _certified_delta(sigma2: Fraction, scale: Fraction, eps: Fraction, dims: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    if dims == 1:
        return dgauss_delta(sigma2, eps, int(scale), dps=DPS)
    return zcdp_delta(scale * scale / (2 * sigma2), eps, dps=DPS)


def _zcdp_bracket(scale: Fraction, eps: Fraction, slack: Fraction) -> Fraction:
    """A ``sigma2`` from the Bun–Steinke conversion: ``rho_0 = (sqrt(L + eps) - sqrt(L))^2
    = eps^2 / (sqrt(L + eps) + sqrt(L))^2``, ``L = ln(1/delta)``, solves
    ``rho + 2 sqrt(rho L) = eps``; ``sigma2_0 = s^2 / (2 rho_0)``.  A floating-point starting
    point only: the search certifies every sigma2 it returns.  Refuses a ``sigma2_0`` above
    :data:`MAX_SIGMA2`."""
    with mpmath.workprec(80):
        L = -mpmath.log(mpmath.mpf(slack.numerator) / slack.denominator)
        E = mpmath.mpf(eps.numerator) / eps.denominator
        rho = E**2 / (mpmath.sqrt(L + E) + mpmath.sqrt(L)) ** 2
        value = mpmath.mpf(scale.numerator) ** 2 / scale.denominator**2 / (2 * rho)
        if value > MAX_SIGMA2:
            raise InvalidArgument(
                f"epsilon is too small for a calibration: sigma2 would be about "
                f"{mpmath.nstr(value, 3)} > 10^300; got epsilon={shown(eps)}."
            )
        return mpf_fraction(value)


def _grid_step(sigma2: Fraction) -> Fraction:
    exponent = sigma2.numerator.bit_length() - sigma2.denominator.bit_length()
    e = exponent * 30103 // 100000
    while Fraction(10) ** e > sigma2:
        e -= 1
    while Fraction(10) ** (e + 1) <= sigma2:
        e += 1
    return Fraction(10) ** (e - GRID_DIGITS + 1)


def tight_sigma2(
    sensitivity: object, epsilon: object, delta: object, dims: object = 1, step: object = None
) -> GaussianCalibration:
    """The smallest ``sigma2 = j * step`` (``j >= 1`` an integer) whose certified delta at
    ``epsilon`` is ``<= delta``: for ``dims = 1`` CKS20 Theorem 7's exact delta (integer
    ``sensitivity``), for ``dims > 1`` the zCDP bound with ``rho = s^2/(2 sigma2)`` (``s`` the
    rational L2 sensitivity).  ``step`` defaults to a grid of four significant digits around
    the zCDP calibration.  Found by bisection over ``j`` (see :class:`GaussianCalibration`).

    >>> result = tight_sigma2(1, 1, "1e-6")
    >>> result.sigma2, result.step
    (Fraction(179, 10), Fraction(1, 100))
    """
    scale, eps, slack, count = _parse(sensitivity, epsilon, delta, dims)
    start = _zcdp_bracket(scale, eps, slack)
    if step is None:
        grid = _grid_step(start)
    else:
        grid = as_fraction("step", step)
        if not 0 < grid <= start * 10**6 or grid < start / 10**9:
            raise InvalidArgument(
                f"step must be a rational in [sigma2/10^9, 10^6 sigma2] around sigma2 ~ "
                f"{decimal_text(start, 6, up=True)}; got step={shown(grid)}."
            )
    cache: dict[int, tuple[mpmath.mpf, mpmath.mpf]] = {}

    def certified(j: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        if j not in cache:
            cache[j] = _certified_delta(j * grid, scale, eps, count)
        return cache[j]

    def ok(j: int) -> bool:
        return mpf_compare(certified(j)[1], slack) <= 0

    high = max(1, math.ceil(start / grid))
    for _ in range(MAX_DOUBLINGS):
        if ok(high):
            break
        high *= 2
    else:
        raise InvalidArgument(
            f"could not certify any sigma2 up to {decimal_text(high * grid, 6, up=True)} for "
            f"epsilon={shown(eps)}, delta={shown(slack)}; check the parameters."
        )
    low = 0  # sigma2 = 0 is never enough
    while high - low > 1:
        middle = (low + high) // 2
        if ok(middle):
            high = middle
        else:
            low = middle
    below = below_interval = None
    if high > 1:
        below = (high - 1) * grid
        below_interval = interval_text(*certified(high - 1))
    return GaussianCalibration(
        high * grid,
        grid,
        scale,
        eps,
        slack,
        count,
        _method(count),
        interval_text(*certified(high)),
        below,
        below_interval,
    )


def check_gaussian_mechanism(
    sigma2: object, sensitivity: object, epsilon: object, delta: object, dims: object = 1
) -> CheckResult:
    """Whether the discrete Gaussian mechanism with variance parameter ``sigma2`` is
    ``(epsilon, delta)``-DP.

    ``dims = 1``: CKS20 Theorem 7's certified enclosure of the exact delta: ``proved`` when its
    upper end is ``<= delta``, ``violated`` when its lower end is above, ``inconclusive``
    otherwise.  ``dims > 1``: ``proved`` when the zCDP bound (``rho = s^2/(2 sigma2)``, CKS20
    conversion) is ``<= delta``; ``violated`` when the exact 1-D delta for a query moving ONE
    coordinate by ``floor(s) >= 1`` (an integer shift of L2 norm ``<= s``; the other coordinates
    cancel) is certainly above ``delta``; ``inconclusive`` otherwise (the zCDP bound is an
    upper bound only).
    """
    scale, eps, slack, count = _parse(sensitivity, epsilon, delta, dims)
    variance = as_fraction("sigma2", sigma2)
    if not 0 < variance <= MAX_SIGMA2:
        raise InvalidArgument(f"sigma2 must be a rational with 0 < sigma2 <= 10^300; got sigma2={shown(variance)}.")
    evidence: dict[str, Any] = {
        "sigma2": fraction_text(variance),
        "sensitivity": fraction_text(scale),
        "epsilon": fraction_text(eps),
        "delta": fraction_text(slack),
        "dims": count,
        "method": _method(count),
    }
    low, high = _certified_delta(variance, scale, eps, count)
    evidence["delta_certified"] = list(interval_text(low, high))
    where = f"sigma2={decimal_text(variance, 8, up=False)}, eps={fraction_text(eps)}"
    if mpf_compare(high, slack) <= 0:
        return CheckResult(
            "gaussian-calibration",
            Verdict.PROVED,
            f"{where}: certified delta <= {decimal_up(high, 6)} <= claimed {fraction_text(slack)}",
            evidence=evidence,
        )
    if count == 1:
        if mpf_compare(low, slack) > 0:
            return CheckResult(
                "gaussian-calibration",
                Verdict.VIOLATED,
                f"{where}: exact delta >= {mpf_decimal(low, 6, up=False)} > claimed {fraction_text(slack)}",
                evidence=evidence,
            )
        reason = "the certified enclosure of delta contains the claimed delta"
        return CheckResult(
            "gaussian-calibration", Verdict.INCONCLUSIVE, f"{where}: {reason}", reason=reason, evidence=evidence
        )
    shift = math.floor(scale)
    if shift >= 1:
        one_low, one_high = dgauss_delta(variance, eps, shift, dps=DPS)
        evidence["one_coordinate_shift"] = shift
        evidence["one_coordinate_delta"] = list(interval_text(one_low, one_high))
        if mpf_compare(one_low, slack) > 0:
            return CheckResult(
                "gaussian-calibration",
                Verdict.VIOLATED,
                f"{where}: neighbours differing by {shift} in one coordinate have exact delta >= "
                f"{mpf_decimal(one_low, 6, up=False)} > claimed {fraction_text(slack)}",
                evidence=evidence,
            )
    reason = (
        f"the zCDP bound gives delta <= {decimal_up(high, 6)} > claimed {fraction_text(slack)}; it is an upper "
        "bound only, and no one-coordinate shift shows a violation"
    )
    return CheckResult(
        "gaussian-calibration", Verdict.INCONCLUSIVE, f"{where}: {reason}", reason=reason, evidence=evidence
    )
