"""The Laplace mechanism on a vector, with exact discrete Laplace noise on a grid.

For a query answer ``v = (v_1, ..., v_n)`` on the grid ``L*Z`` (exact rationals, ``L > 0``), an
L1 sensitivity ``s > 0`` and ``epsilon > 0``, with scale ``b = s / epsilon``, it releases

    y_i = v_i + L * Z_i,    Z_1, ..., Z_n  i.i.d. discrete Laplace of scale b/L in grid units

(Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
Algorithm 2), so that for every ``y`` in ``v + (L*Z)^n = (L*Z)^n``

    ``P(y | v) = prod_i c * e^(-|y_i - v_i| / b)``,    ``c = (e^(L/b) - 1) / (e^(L/b) + 1)``.

**Claim: (epsilon, 0)-DP** for every two inputs ``v, v'`` this function accepts with
``||v - v'||_1 <= s``.  Proof: both lie on the grid, so both releases range over the same set
``(L*Z)^n``, and for every ``y`` in it, by the triangle inequality
``|y_i - v'_i| - |y_i - v_i| <= |v_i - v'_i|``,

    ``ln P(y|v)/P(y|v') = sum_i (|y_i - v'_i| - |y_i - v_i|) / b <= ||v - v'||_1 / b <= s / b = epsilon``.

The bound ``||v - v'||_1 / b`` is attained (at ``y_i`` on the far side of ``v_i`` from ``v'_i``
in every coordinate), so it is tight.  Pure DP implies zCDP: the mechanism is also
``rho``-zCDP with ``rho = epsilon^2 / 2`` (Bun, Steinke 2016, Proposition 1.4).

The Laplace mechanism needs the *L1* sensitivity and holds for *every* ``epsilon > 0``; a
statement for the L2 sensitivity with ``epsilon`` in (0, 1) (as in paper 003's "Laplacian
Mechanism") is not the Laplace mechanism's theorem: with ``n`` coordinates the L1 norm can be
``sqrt(n)`` times the L2 norm.

Why the grid: an input off the grid would put the releases of two neighbours on different
cosets of ``L*Z``, disjoint supports and an infinite privacy loss.  So every value must lie on
``L*Z`` and an off-grid value is refused; snap the query to the grid first (rounding each
coordinate to the nearest grid point moves it by at most ``L/2``, so it may raise the L1
sensitivity by up to ``n*L``).

Contract of :func:`sample`: returns a tuple of ``n`` Fractions with exactly the distribution
above; checked at run time: ``values`` a non-empty sequence (at most :data:`MAX_DIMS`) of exact
rationals on ``step*Z`` (floats refused), ``sensitivity``, ``epsilon`` and ``step`` rationals
``> 0``, ``k >= 0`` for :func:`sample_many`; the caller guarantees a uniform ``rng`` and the
sensitivity bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._random_source import RandomSource, as_source
from dpverify.samplers._rational import RationalLike, as_fraction, as_int, shown
from dpverify.samplers.discrete_laplace import _sample_scaled

__all__ = ["MAX_DIMS", "sample", "sample_many"]

#: The most coordinates a query answer may have (each costs one noise draw).
MAX_DIMS = 100_000


def _positive(name: str, value: object) -> Fraction:
    number = as_fraction(name, value)
    if number <= 0:
        raise InvalidArgument(f'{name} must be a rational > 0; got {name}={shown(number)}. Pass it as "num/den".')
    return number


def _grid_indices(values: object, step: Fraction) -> tuple[int, ...]:
    """``(v_1/L, ..., v_n/L)``: the grid index of each value, which must be an integer."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise InvalidArgument(
            f"values must be a non-empty tuple or list of exact rationals; got values={shown(values)} "
            f"({type(values).__name__})."
        )
    if not 1 <= len(values) <= MAX_DIMS:
        raise InvalidArgument(
            f"values must have between 1 and {MAX_DIMS} coordinates; got {len(values)} (values={shown(values)})."
        )
    indices = []
    for i, value in enumerate(values):
        try:
            index = as_fraction(f"values[{i}]", value) / step
        except InvalidArgument as error:
            raise InvalidArgument(
                f"values must hold exact rationals; got values={shown(values, 40)}: {error}"
            ) from None
        if index.denominator != 1:
            raise InvalidArgument(
                f"values must lie on the grid step*Z with step={shown(step)}; got values={shown(values)}, whose "
                f"values[{i}]={shown(index * step)} is off it. Snap the query to the grid first (which may raise its "
                "sensitivity)."
            )
        indices.append(index.numerator)
    return tuple(indices)


def _parameters(
    values: object, sensitivity: RationalLike, epsilon: RationalLike, step: RationalLike
) -> tuple[tuple[int, ...], Fraction, int, int]:
    """The grid indices, the step ``L`` and the noise scale ``b/L = s/(epsilon L) = t/d`` as ``(t, d)``."""
    s, eps, L = _positive("sensitivity", sensitivity), _positive("epsilon", epsilon), _positive("step", step)
    scale = s / (eps * L)
    return _grid_indices(values, L), L, scale.numerator, scale.denominator


def _release(indices: tuple[int, ...], L: Fraction, t: int, d: int, rng: RandomSource) -> tuple[Fraction, ...]:
    """``L * (m_i + Z_i)`` with ``Z_i`` discrete Laplace of scale ``t/d``, drawn in coordinate order."""
    return tuple(L * (m + _sample_scaled(d, t, rng)) for m in indices)


def sample(
    values: Sequence[RationalLike],
    sensitivity: RationalLike,
    epsilon: RationalLike,
    step: RationalLike = 1,
    rng: RandomSource | None = None,
) -> tuple[Fraction, ...]:
    """One release of the query answer ``values`` (see the module docstring for the contract)."""
    indices, L, t, d = _parameters(values, sensitivity, epsilon, step)
    return _release(indices, L, t, d, as_source(rng))


def sample_many(
    values: Sequence[RationalLike],
    sensitivity: RationalLike,
    epsilon: RationalLike,
    step: RationalLike,
    k: int,
    rng: RandomSource | None = None,
) -> list[tuple[Fraction, ...]]:
    """``k`` independent releases of ``values``, validating the parameters once."""
    indices, L, t, d = _parameters(values, sensitivity, epsilon, step)
    count = as_int("k", k, low=0)
    source = as_source(rng)
    return [_release(indices, L, t, d, source) for _ in range(count)]
