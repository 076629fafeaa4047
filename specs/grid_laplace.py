"""Spec of the grid Laplace mechanism (``dpverify.samplers.grid_laplace``) at one input.

For input ``q``, step ``L`` and scale ``b``, with ``m = floor(q/L + 1/2)`` and ``b' = b/L``,
the release ``y = L*k`` has probability (CKS20's discrete Laplace, shifted to ``m``)::

    P(y = L*k | q) = (e^(1/b') - 1)/(e^(1/b') + 1) * e^(-|k - m| / b')     for every integer k.

Claim: for neighbours ``|q - q'| <= Delta``, pure epsilon-DP with
``epsilon = ceil(Delta/L) * L / b`` (the grid indices differ by at most ``ceil(Delta/L)``,
and the discrete Laplace's log-ratio over a shift of ``s`` grid steps is at most ``s/b'``).

Everything the distribution depends on (the grid index ``m``, the noise's scale ``b/L``) is
computed here from the statement above, in exact Fraction arithmetic; the sampler module is
used only to run it.

>>> spec = GridLaplaceSpec.create("3/4", 2, "1/2")
>>> spec.index()  # 3/4 is 3/2 grid steps: a tie, which goes up
2
>>> GridLaplaceSpec.create("-3/4", 2, "1/2").index()  # -3/2 + 1/2 = -1
-1
>>> spec.claim_epsilon()
Fraction(1, 2)
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy

from dpverify.samplers import RandomSource, as_fraction
from dpverify.samplers import grid_laplace as _grid
from dpverify.samplers._rational import RationalLike
from dpverify.specs._noise import NoiseSpec
from dpverify.specs._pmf import exact_text
from dpverify.specs.noise import DiscreteLaplaceSpec, PureEpsilonClaim, _positive, _rng

__all__ = ["GridLaplaceSpec"]


@dataclass(frozen=True, slots=True)
class GridLaplaceSpec(NoiseSpec):
    """The grid Laplace mechanism at input ``q``, with ``scale``, ``step`` and ``sensitivity``."""

    q: Fraction
    scale: Fraction
    step: Fraction
    sensitivity: Fraction
    name = "grid_laplace"

    def __post_init__(self) -> None:
        object.__setattr__(self, "q", as_fraction("q", self.q))
        for name in ("scale", "step", "sensitivity"):
            object.__setattr__(self, name, _positive(name, getattr(self, name)))

    @classmethod
    def create(
        cls, q: RationalLike, scale: RationalLike, step: RationalLike, sensitivity: RationalLike = 1
    ) -> GridLaplaceSpec:
        """Validate like the sampler: ``q`` an exact rational, ``scale`` and ``step`` rationals
        ``> 0`` (floats refused); ``sensitivity`` is a rational ``> 0``."""
        return cls(q, scale, step, sensitivity)  # type: ignore[arg-type]  # __post_init__ parses them

    def index(self) -> int:
        """The grid index ``m = floor(q/L + 1/2)`` the input snaps to: the nearest grid point,
        ties up (exact: ``math.floor`` of a Fraction is its integer floor)."""
        return math.floor(self.q / self.step + Fraction(1, 2))

    def noise(self) -> DiscreteLaplaceSpec:
        """The noise in grid units: discrete Laplace with scale ``b / L``."""
        return DiscreteLaplaceSpec.create(self.scale / self.step)

    def run(self, rng: RandomSource) -> Fraction:
        return _grid.sample(self.q, self.scale, self.step, _rng(rng))

    def ideal_pmf_expr(self) -> sympy.Expr:
        """In the grid index ``z`` of the release ``L*z``."""
        from dpverify.specs.noise import Z

        return self.noise().ideal_pmf_expr().subs(Z, Z - self.index())

    def ideal_probability(self, output: Hashable, dps: int = 50) -> tuple[mpmath.mpf, mpmath.mpf]:
        k = as_fraction("output", output) / self.step
        if k.denominator != 1:
            return mpmath.mpf(0), mpmath.mpf(0)  # off the grid: impossible
        return self.noise().ideal_probability(int(k) - self.index(), dps)

    def claim(self) -> PureEpsilonClaim:
        shift = math.ceil(self.sensitivity / self.step)
        return PureEpsilonClaim(shift * self.step / self.scale, max(1, math.ceil(self.sensitivity)))

    def claim_epsilon(self) -> Fraction:
        """``ceil(Delta/L) * L / b``."""
        return math.ceil(self.sensitivity / self.step) * self.step / self.scale

    def parameters(self) -> dict[str, str]:
        return {name: exact_text(getattr(self, name)) for name in ("q", "scale", "step", "sensitivity")}

    def outputs_for_check(self) -> tuple[Fraction, ...]:
        m = self.index()
        return tuple(self.step * (m + z) for z in self.noise().outputs_for_check())
