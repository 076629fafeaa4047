"""Theorem 4.5 of Gazeau, Miller, Palamidessi in two dimensions, against the exact loss.

Paper 000 (QAPL 2013), §6: the planar Laplace (density ``(eps^2/2pi) e^(-eps r)``, drawn as an
angle and a radius ``r = C^-1(u)``, ``C(r) = 1 - (1 + eps r) e^(-eps r)``), truncated to a box
and rounded to the square grid of step ``L``.  Theorem 4.5 bounds the privacy of the rounded
implementation by

    eps' = eps + ln(1 + R e^(eps (L + delta_t) / Delta_f'))

where ``delta_t`` bounds the infinity-Wasserstein distance between the exact noise and the
implemented one.  §6 instantiates it as ``delta_t = k delta_0 + delta_n`` with a Lipschitz
constant ``k`` of the noise; that ``k`` is infinite (``C'(0) = 0``, so ``C^-1`` is not Lipschitz
at 0: ``dpverify.verify.reports.reproduce._gazeau`` flags it).  Theorem 4.5's proof (Appendix B) uses
only ``d(mu, nu) <= delta_t``, and Theorem 4.3 gives that from any coupling that moves no point
by more than ``delta_t``.  So this module instantiates ``delta_t`` directly:

**The quantile coupling.**  The code (:mod:`dpverify.samplers.planar_laplace_unsafe`) draws
``j_a, j_r`` in ``0 .. n-1`` (``n = 2^k``) and uses the angle ``theta_i = 2 pi i/n`` and the
radius ``r_j = C^-1(j/n)``.  Couple the exact draw ``(theta, u)`` uniform on
``[0, 2 pi) x [0, 1)`` with the cell ``(i, j)`` containing it: ``theta in [theta_i,
theta_(i+1))``, ``u in [j/n, (j+1)/n)``, so ``r in [r_j, r_(j+1))``.  The exact point
``r e^(i theta)`` and the implemented ``r_j e^(i theta_i)`` are at most
``(r_(j+1) - r_j) + r_j 2 pi / n`` apart (move the radius, then along the arc).  Cells whose
points all lie farther than ``R + L/2`` from the true location (``R`` the farthest point of the
box) are released as the exception on both sides and are left out (``L/2 >= delta_t`` whenever
the bound is not vacuous); over the others the largest displacement is ``delta_0``, infinite when
the last cell (``r_n = infinity``) is among them.

**The float error** ``delta_n``, measured as in :mod:`dpverify.verify.precision._gazeau`: the code's
radius ``r^_j`` (the sampler's own noise at angle 0) against ``r_j`` from mpmath's Lambert W at
40 digits, the code's ``cos``/``sin`` of its angle against the exact ones, each with a margin of
``10^-30``; per coordinate the product adds ``|r^ c^| 2^-53``, the addition ``M 2^-53`` and the
rounding to the grid ``M 2^-52`` (``M`` the largest box coordinate), and the Euclidean error is
at most ``sqrt(2)`` (bounded by ``3/2``) times the per-coordinate one.  ``delta_t = delta_0 +
delta_n``.

**The robustness ratio** for a square cell ``S`` of side ``L`` with Euclidean neighbourhoods:
``S^{+d}`` is the square with rounded corners, area ``L^2 + 4 L d + pi d^2``, and ``S^{-d}`` the
square of side ``L - 2d``, so definition (5) gives ``R_5 = (8 L d + (pi - 4) d^2)/(L - 2 d)^2``;
§6 states ``R <= ((L + 2d)/(L - 2d))^2``, a valid and looser bound (it divides the whole
``S^{+d}``, not the band ``S^{+d} \\ S^{-d}``).  Both are reported.  In the exponent ``L`` is the
largest diameter of a rounding cell (Theorem 4.5: ``L = max diam S``; Appendix B bounds distances
by ``Delta_f' + L + delta_t``), which for a square of side ``L`` is ``L sqrt(2)``; §6 writes the
side there, and ``epsilon_prime_6_as_written`` keeps that reading for comparison.  ``Delta_f' = d(a, b)``
and ``eps`` the Condition 1 degree ``eps_noise * d(a, b)`` of the planar Laplace
(``eps``-geo-indistinguishability).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from mpmath import iv

from dpverify.samplers import InvalidArgument
from dpverify.samplers.planar_laplace_unsafe import noise_unsafe
from dpverify.specs._enclosure import enclose, iv_rational
from dpverify.verify.precision._planar import PlanarReport, planar_report

__all__ = ["PlanarBound", "planar_theorem_4_5"]

_DIGITS = 40
_MARGIN = Fraction(1, 10**30)
_UNIT = Fraction(1, 2**53)


@dataclass(frozen=True, slots=True)
class PlanarBound:
    """Theorem 4.5's two-dimensional bound next to the exact loss.

    ``delta_0`` (the coupling's largest displacement, None when infinite), ``delta_n`` (float
    error) and ``delta_t`` are exact rational upper bounds; ``epsilon_prime_5`` and
    ``epsilon_prime_6`` are ``(low, high)`` enclosures of ``eps'`` with definition (5)'s and §6's
    robustness ratio and the cell diameter ``L sqrt(2)`` in the exponent (None when vacuous:
    ``L <= 2 delta_t``); ``epsilon_prime_6_as_written`` is §6's formula with the side ``L`` in the
    exponent; ``exact`` is the enclosure of the exact loss of the truncated and rounded release
    (None: infinite).
    """

    report: PlanarReport
    radius_reach: Fraction
    delta_0: Fraction | None
    delta_n: Fraction
    epsilon: Fraction
    sensitivity: Fraction
    epsilon_prime_5: tuple[mpmath.mpf, mpmath.mpf] | None
    epsilon_prime_6: tuple[mpmath.mpf, mpmath.mpf] | None
    exact: tuple[mpmath.mpf, mpmath.mpf] | None
    epsilon_prime_6_as_written: tuple[mpmath.mpf, mpmath.mpf] | None = None

    @property
    def delta_t(self) -> Fraction | None:
        return None if self.delta_0 is None else self.delta_0 + self.delta_n

    def verdict(self, which: str) -> str:
        """``holds``, ``contradicted`` or ``vacuous`` for ``which`` in ``("5", "6")``."""
        bound = self.epsilon_prime_5 if which == "5" else self.epsilon_prime_6
        if bound is None:
            return "vacuous"
        if self.exact is None or self.exact[0] > bound[1]:
            return "contradicted"
        return "holds" if self.exact[1] <= bound[0] else "undecided"


def _fraction(x: mpmath.mpf) -> Fraction:
    numerator, denominator = mpmath.libmp.to_rational(x._mpf_)
    return Fraction(int(numerator), int(denominator))


def _radii(k: int, eps: float, reach: Fraction) -> tuple[list[Fraction], int]:
    """``r_j = C^-1(j/n)`` (40 digits, as Fractions) for the cells that reach within ``reach``,
    plus the next endpoint; and the number of cells kept."""
    n = 1 << k
    radii: list[Fraction] = []
    with mpmath.workdps(_DIGITS):
        e = mpmath.mpf(eps)
        for j in range(n + 1):
            if j == n:
                break
            value = -(mpmath.lambertw((mpmath.mpf(j) / n - 1) / mpmath.e, -1).real + 1) / e
            radii.append(_fraction(value))
            if radii[-1] > reach:
                return radii, j  # cells 0 .. j-1 reach; r_j closes the last of them
    return radii, n


def _trig_error(k: int) -> Fraction:
    """``max_i max(|cos^ - cos|, |sin^ - sin|)`` over the code's angles (plus the margin)."""
    n = 1 << k
    worst = Fraction(0)
    with mpmath.workdps(_DIGITS):
        for i in range(n):
            theta = math.tau * (i / n)  # the code's [PL-angle] expression
            for computed, exact in (
                (math.cos(theta), mpmath.cos(2 * mpmath.pi * i / n)),
                (math.sin(theta), mpmath.sin(2 * mpmath.pi * i / n)),
            ):
                worst = max(worst, abs(Fraction(computed) - _fraction(exact)))
    return worst + _MARGIN


def planar_theorem_4_5(
    k: int = 9,
    eps: float = 1.0,
    a: tuple[float, float] = (0.0, 0.0),
    b: tuple[float, float] = (1.0, 0.0),
    box: tuple[float, float, float, float] = (-2.5, 3.5, -2.5, 2.5),
    L: float = 1.0,
) -> PlanarBound:
    """Theorem 4.5's ``eps'`` (both readings of ``R``) for the planar mechanism of
    :func:`dpverify.verify.precision._planar.planar_report` with the same parameters, and its exact loss."""
    report = planar_report(k, eps, a, b, box, L)
    n = 1 << k
    corners = [(x, y) for x in box[:2] for y in box[2:]]
    far = max(math.dist(p, c) for p in (report.a, report.b) for c in corners)  # a double; margin below
    reach = Fraction(far) + Fraction(1, 10**9) + Fraction(report.L) / 2
    radii, kept = _radii(k, report.eps, reach)
    angle_step = 2 * Fraction(math.pi) + Fraction(1, 10**15)  # > 2 pi; divided by n below
    delta_0: Fraction | None = None
    if kept < n:
        delta_0 = max(radii[j + 1] - radii[j] + radii[j] * angle_step / n for j in range(kept)) + 2 * _MARGIN
    # the float error of the points the code computes, per coordinate
    radius_error = max(abs(Fraction(noise_unsafe(0, j, k, report.eps)[0]) - radii[j]) for j in range(min(kept + 1, n)))
    radius_error += _MARGIN
    largest_radius = radii[min(kept, len(radii) - 1)]
    reach_coordinate = Fraction(max(abs(v) for v in box)) + Fraction(report.L)
    per_coordinate = (
        radius_error + largest_radius * _trig_error(k) + (largest_radius + 1) * _UNIT + reach_coordinate * 3 * _UNIT
    )
    delta_n = Fraction(3, 2) * per_coordinate
    sensitivity = Fraction(math.dist(report.a, report.b))
    if sensitivity == 0:
        raise InvalidArgument(f"a and b must differ; got a={a}, b={b}.")
    epsilon = Fraction(report.eps) * sensitivity
    step = Fraction(report.L)

    def bound(reading: str, diameter: bool = True) -> tuple[mpmath.mpf, mpmath.mpf] | None:
        if delta_0 is None or step <= 2 * (delta_0 + delta_n):
            return None
        d = delta_0 + delta_n

        def compute() -> iv.mpf:
            L_, d_ = iv_rational(step), iv_rational(d)
            if reading == "5":
                R = (8 * L_ * d_ + (iv.pi - 4) * d_ * d_) / (L_ - 2 * d_) ** 2
            else:
                R = ((L_ + 2 * d_) / (L_ - 2 * d_)) ** 2
            length = L_ * iv.sqrt(2) if diameter else L_
            exponent = iv_rational(epsilon) * (length + d_) / iv_rational(sensitivity)
            return iv_rational(epsilon) + iv.log(1 + R * iv.exp(exponent))

        return enclose(compute, 20)

    exact = None
    if report.rounded.ratio is not None:
        ratio = report.rounded.ratio
        exact = enclose(lambda: iv.log(iv_rational(ratio)), 20)
    return PlanarBound(
        report, reach, delta_0, delta_n, epsilon, sensitivity, bound("5"), bound("6"), exact, bound("6", diameter=False)
    )
