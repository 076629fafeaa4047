"""UNSAFE, floating-point: the planar (2-D) Laplace mechanism, kept to be audited, not used.

Gazeau, Miller, Palamidessi, "Preserving differential privacy under finite-precision
semantics" (QAPL 2013; paper 000), §6, following Andrés, Bordenabe, Chatzikokolakis,
Palamidessi, "Geo-indistinguishability" (CCS 2013, arXiv:1212.1984).  The noise has density
``D(x, y) = (eps^2 / 2pi) * exp(-eps * sqrt(x^2 + y^2))`` around the true location.  (The
machine-extracted paper prints ``K e^{b sqrt(...)}`` without the minus sign; the form here is
rebuilt from its radial density below.)  In polar coordinates the angle and the radius are
independent:

- the angle ``theta`` is uniform on ``[0, 2pi)`` (the paper writes ``[-pi, pi)``: the same
  distribution of directions);
- the radius has density ``eps^2 r e^{-eps r}`` and CDF ``C(r) = 1 - (1 + eps r) e^{-eps r}``,
  drawn by inverse CDF: ``r = C^-1(p) = -(1/eps) (W_-1((p - 1)/e) + 1)``, where ``W_-1`` is
  the lower real branch of Lambert's W (``W e^W = x``, ``W <= -1``, for ``-1/e <= x < 0``).
  Check: with ``w = -(1 + eps r)``, ``C(r) = p`` reads ``w e^w = (p - 1)/e``.

The released point is ``(x + r cos theta, y + r sin theta)``.  Here ``theta = 2pi * j_a/2^k``
and ``p = j_r/2^k`` for two ``k``-bit draws ``j_a, j_r`` in ``0 .. 2^k - 1`` supplied by the
RandomSource (angle first, then radius), and every operation is an IEEE double operation, as a
naive implementation runs it.  ``p = 0`` gives ``W = -1`` and radius 0; ``p < 1`` always, so
the radius is finite.

The truncated and rounded variant is the paper's Mechanism 2 followed by Mechanism 3 (§4.2,
§4.4; §6 "Rounding the answer"): the computed point is released only when it lies in the
closed box ``[xmin, xmax] x [ymin, ymax]`` (otherwise the exception value ``None``, the
paper's ``infinity``), and is then rounded to the nearest point ``(i L, j L)`` of the square
grid of step ``L`` (each coordinate ``round(v / L)`` in doubles, ties to even), so the set of
values rounding to one output is a square of side ``L``.

Over the reals the planar Laplace is ``eps``-geo-indistinguishable: ``P(S|a) <= e^{eps d(a,b)}
P(S|b)``.  In doubles from finitely many draws it is not: the released points from ``a`` and
from ``b`` are two finite sets that almost never overlap, so nearly every output is possible
from one location only (infinite loss).  :mod:`dpverify.verify.precision._planar` enumerates every draw pair.

Contract: ``sample_unsafe`` returns a pair of floats, ``sample_truncated_rounded_unsafe`` a
pair of floats on the grid or ``None``.  Checked at run time: ``x, y`` finite, ``eps`` finite
and ``> 0``, ``2 <= k <= 53``, the box finite with ``xmin <= xmax`` and ``ymin <= ymax``, ``L``
finite and ``> 0``.  The lines an attack refers to are ``[PL-angle]``, ``[PL-p]``, ``[PL-W]``,
``[PL-radius]``, ``[PL-polar]``, ``[PL-add]``, ``[PL-box]`` and ``[PL-round]``.
"""

from __future__ import annotations

import math

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._random_source import RandomSource, SystemRandomSource
from dpverify.samplers._rational import shown
from dpverify.samplers.laplace_float_unsafe import finite_float

__all__ = [
    "BRANCH_POINT",
    "check_parameters",
    "lambertw_m1",
    "mechanism_unsafe",
    "noise_unsafe",
    "sample_truncated_rounded_unsafe",
    "sample_unsafe",
    "truncate_round_unsafe",
]

# --- Lambert W, lower branch -------------------------------------------------------------------

# e = _E_HI + _E_LO to about 1e-32: _E_HI is the double math.e, _E_LO = e - math.e (from mpmath
# at 50 digits), so 1 + e x can be formed without the cancellation that ruins it near -1/e.
_E_HI = math.e
_E_LO = 1.4456468917292502e-16
# The double nearest -1/e.  It lies about 1.2e-17 *below* -1/e, just outside the real domain;
# it is accepted and mapped to the branch value -1, because it is what (0 - 1)/math.e gives.
BRANCH_POINT = -1.0 / math.e
_SPLIT = 134217729.0  # 2^27 + 1, Veltkamp's constant for doubles
_SERIES_BELOW = 0.25  # t - log1p(t) by its series below this t, directly above it


def _two_product(a: float, b: float) -> tuple[float, float]:
    """``a * b = hi + lo`` exactly (Dekker's product with Veltkamp splitting; no FMA needed)."""
    hi = a * b
    c = _SPLIT * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    c = _SPLIT * b
    b_hi = c - (c - b)
    b_lo = b - b_hi
    lo = ((a_hi * b_hi - hi) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return hi, lo


def _one_plus_e_times(x: float) -> float:
    """``1 + e x`` to about one rounding, for ``-1/e <= x < 0`` (the distance to the branch)."""
    hi, lo = _two_product(_E_HI, x)
    return (1.0 + hi) + (lo + _E_LO * x)  # 1 + hi is exact (Sterbenz) where hi is near -1


def _t_minus_log1p(t: float) -> float:
    """``g(t) = t - ln(1 + t)`` for ``t >= 0`` without cancellation for small ``t``.

    Below 1/4 by the series ``sum_{m>=2} (-1)^m t^m / m``, whose terms fall by a factor ``t``.
    """
    if t >= _SERIES_BELOW:
        return t - math.log1p(t)
    total, power, m = 0.0, t * t, 2
    while True:
        term = power / m
        if term <= total * 1e-17:
            return total
        total += term if m % 2 == 0 else -term
        power *= t
        m += 1


def lambertw_m1(x: float) -> float:
    """The lower real branch ``W_-1(x)`` for ``-1/e <= x < 0``: the ``w <= -1`` with ``w e^w = x``.

    Method.  Put ``w = -1 - t`` with ``t >= 0``.  Then ``w e^w = x`` is
    ``(1 + t) e^{-t} = -e x``, i.e. after taking logarithms

        g(t) = t - ln(1 + t) = s,    s = -ln(-e x) = -ln(1 - q),   q = 1 + e x in [0, 1).

    ``s`` is formed without cancellation: ``-log1p(-q)`` with ``q`` from an exact product
    (Dekker) when ``q < 1/2``, i.e. near the branch point, and ``-1 - ln(-x)`` otherwise.
    ``g`` is increasing and convex on ``t > 0`` (``g' = t/(1+t)``, ``g'' = 1/(1+t)^2``), so
    Newton's iteration ``t <- t - (g(t) - s) (1 + t) / t`` converges from any start: after at
    most one step it lies right of the root and then decreases monotonically to it,
    quadratically.  The start is ``t0 = sqrt(2s) + 2s/3`` for ``s < 1`` (the branch-point
    series ``s = t^2/2 - t^3/3 + ...`` inverted) and ``t0 = s + ln(1 + s + ln(1 + s))`` above
    (from ``t = s + ln(1 + t)``); 3 to 5 steps reach the double nearest the root.  The
    iteration stops when a step no longer moves ``t`` by more than ``2^-50 t``.

    Every ``x`` with ``q <= 0`` (``x`` at or below -1/e by rounding, e.g. :data:`BRANCH_POINT`)
    returns the branch value -1.  Accurate to a few ulps, including near -1/e where ``W`` has
    an infinite derivative (the tests compare with ``mpmath.lambertw(x, -1)``).

    >>> lambertw_m1(-0.25)
    -2.1532923641103494
    >>> lambertw_m1(BRANCH_POINT)
    -1.0
    """
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not BRANCH_POINT <= x < 0:
        raise InvalidArgument(f"x must be a float with -1/e <= x < 0 (W_-1's domain); got x={shown(x)}.")
    x = float(x)
    q = _one_plus_e_times(x)
    if q <= 0.0:
        return -1.0
    s = -math.log1p(-q) if q < 0.5 else -1.0 - math.log(-x)
    t = math.sqrt(2.0 * s) + 2.0 * s / 3.0 if s < 1.0 else s + math.log1p(s + math.log1p(s))
    for _ in range(100):
        step = (_t_minus_log1p(t) - s) * (1.0 + t) / t
        t -= step
        if abs(step) <= t * 2.0**-50:
            return -1.0 - t
    raise AssertionError(f"Newton's iteration for W_-1({x!r}) did not settle")  # pragma: no cover


# --- the mechanism ------------------------------------------------------------------------------

Box = tuple[float, float, float, float]


def _finite(name: str, value: object) -> float:
    return finite_float(name, value)


def check_parameters(x: float, y: float, eps: float, k: int) -> tuple[float, float, float, int]:
    """Validate the float mechanism's parameters (floats are allowed here: it is the subject)."""
    if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= 53:
        raise InvalidArgument(f"bits must be an integer with 2 <= bits <= 53; got bits={shown(k)}.")
    x_, y_, eps_ = _finite("x", x), _finite("y", y), _finite("eps", eps)
    if eps_ <= 0:
        raise InvalidArgument(f"eps must be > 0; got eps={shown(eps)}.")
    return x_, y_, eps_, k


def check_box(box: Box, L: float) -> tuple[Box, float]:
    """Validate the truncation box ``(xmin, xmax, ymin, ymax)`` and the grid step ``L``."""
    if not isinstance(box, tuple) or len(box) != 4:
        raise InvalidArgument(f"box must be a tuple (xmin, xmax, ymin, ymax); got box={shown(box)}.")
    xmin, xmax, ymin, ymax = (_finite(name, v) for name, v in zip(("xmin", "xmax", "ymin", "ymax"), box, strict=True))
    if xmin > xmax or ymin > ymax:
        raise InvalidArgument(f"box must have xmin <= xmax and ymin <= ymax; got box={shown(box)}.")
    L_ = _finite("L", L)
    if L_ <= 0:
        raise InvalidArgument(f"L must be > 0 (the grid step); got L={shown(L)}.")
    return (xmin, xmax, ymin, ymax), L_


def noise_unsafe(j_angle: int, j_radius: int, k: int, eps: float) -> tuple[float, float]:
    """The planar Laplace noise for the draws ``j_angle, j_radius`` in ``0 .. 2^k - 1``, in doubles."""
    theta = math.tau * (j_angle / (1 << k))  # [PL-angle]  j/2^k is exact; the product rounds
    p = j_radius / (1 << k)  # [PL-p]  exact, in [0, 1)
    w = lambertw_m1((p - 1.0) / math.e)  # [PL-W]  p - 1 is exact; the division rounds
    r = -(w + 1.0) / eps  # [PL-radius]
    return r * math.cos(theta), r * math.sin(theta)  # [PL-polar]


def mechanism_unsafe(x: float, y: float, noise: tuple[float, float]) -> tuple[float, float]:
    """The released point ``(x + dx, y + dy)`` for the noise ``(dx, dy)``."""
    return x + noise[0], y + noise[1]  # [PL-add]


def truncate_round_unsafe(point: tuple[float, float], box: Box, L: float) -> tuple[float, float] | None:
    """``None`` outside the closed box (the paper's exception value), else the nearest grid point."""
    px, py = point
    xmin, xmax, ymin, ymax = box
    if not (xmin <= px <= xmax and ymin <= py <= ymax):  # [PL-box]  tested before rounding
        return None
    return round(px / L) * L, round(py / L) * L  # [PL-round]  int * float: no -0.0 outputs


def _draws(rng: RandomSource | None, k: int) -> tuple[int, int]:
    source = rng or SystemRandomSource()
    j_angle = source.randbelow(1 << k)  # drawn first
    return j_angle, source.randbelow(1 << k)


def sample_unsafe(x: float, y: float, eps: float, rng: RandomSource | None = None, k: int = 53) -> tuple[float, float]:
    """Release ``(x, y)`` with planar Laplace noise of parameter ``eps`` from two ``k``-bit draws."""
    x_, y_, eps_, k_ = check_parameters(x, y, eps, k)
    j_angle, j_radius = _draws(rng, k_)
    return mechanism_unsafe(x_, y_, noise_unsafe(j_angle, j_radius, k_, eps_))


def sample_truncated_rounded_unsafe(
    x: float,
    y: float,
    eps: float,
    box: Box,
    L: float,
    rng: RandomSource | None = None,
    k: int = 53,
) -> tuple[float, float] | None:
    """The planar Laplace release truncated to ``box`` (``None`` outside) and rounded to the
    square grid of step ``L`` (Gazeau–Miller–Palamidessi, Mechanisms 2 and 3, §6)."""
    x_, y_, eps_, k_ = check_parameters(x, y, eps, k)
    box_, L_ = check_box(box, L)
    j_angle, j_radius = _draws(rng, k_)
    return truncate_round_unsafe(mechanism_unsafe(x_, y_, noise_unsafe(j_angle, j_radius, k_, eps_)), box_, L_)
