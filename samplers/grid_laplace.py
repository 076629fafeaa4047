"""A safe Laplace mechanism for real inputs: snap to a grid, add exact discrete Laplace noise.

Mironov's repair of the floating-point Laplace mechanism, with the noise drawn exactly:
for a query answer ``q`` (an exact rational), a grid step ``L > 0`` and a scale ``b > 0``,

    m = floor(q / L + 1/2)                 (the nearest grid index, ties up)
    release  L * (m + Z),  Z ~ discrete Laplace with scale b / L  (CKS20 Algorithm 2).

No float touches the randomness or the output: ``q``, ``L``, ``b`` are rationals and the
output is a Fraction on the grid ``L * Z``.  For ``|q - q'| <= Delta`` the grid indices differ by
at most ``ceil(Delta / L)``, so the mechanism is ``ceil(Delta/L) * L / b``-DP, which is
``Delta/b`` when ``L`` divides ``Delta`` (dpverify proves this bound for all real inputs).

Contract: returns a Fraction on the grid; checked at run time: ``q`` an exact rational (floats
refused), ``scale > 0``, ``step > 0``; the caller guarantees a uniform ``rng``.
"""

from __future__ import annotations

from fractions import Fraction

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._random_source import RandomSource, as_source
from dpverify.samplers._rational import RationalLike, as_fraction, as_int, shown
from dpverify.samplers.discrete_laplace import _sample_scaled

__all__ = ["sample", "sample_many", "snap_index"]


def _positive(name: str, value: RationalLike) -> Fraction:
    number = as_fraction(name, value)
    if number <= 0:
        raise InvalidArgument(f'{name} must be a rational > 0; got {name}={shown(number)}. Pass it as "num/den".')
    return number


def _parameters(q: RationalLike, scale: RationalLike, step: RationalLike) -> tuple[Fraction, Fraction, Fraction]:
    return as_fraction("q", q), _positive("scale", scale), _positive("step", step)


def snap_index(q: RationalLike, step: RationalLike) -> int:
    """``floor(q/step + 1/2)``: the index of the grid point nearest ``q`` (ties go up)."""
    return _snap_index(as_fraction("q", q), _positive("step", step))


def _snap_index(q: Fraction, step: Fraction) -> int:
    """:func:`snap_index` for validated Fractions."""
    return (q / step + Fraction(1, 2)) // 1  # Fraction floor division: exact, an int


def sample(q: RationalLike, scale: RationalLike, step: RationalLike, rng: RandomSource | None = None) -> Fraction:
    """Release ``q`` on the grid of ``step`` with discrete Laplace noise of scale ``scale``."""
    q_, b, L = _parameters(q, scale, step)
    noise_scale = b / L  # in grid units
    z = _sample_scaled(noise_scale.denominator, noise_scale.numerator, as_source(rng))
    return L * (_snap_index(q_, L) + z)


def sample_many(
    q: RationalLike, scale: RationalLike, step: RationalLike, k: int, rng: RandomSource | None = None
) -> list[Fraction]:
    """``k`` independent releases of ``q``, validating the parameters once."""
    q_, b, L = _parameters(q, scale, step)
    noise_scale, m = b / L, _snap_index(q_, L)
    source = as_source(rng)
    return [
        L * (m + _sample_scaled(noise_scale.denominator, noise_scale.numerator, source))
        for _ in range(as_int("k", k, low=0))
    ]
