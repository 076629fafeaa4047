"""What a spec of an exact noise sampler with an irrational ideal PMF provides.

Rejection samplers (discrete Laplace, discrete Gaussian, Bernoulli(exp(-gamma))) sample a
distribution whose probabilities are irrational, so the spec gives them as SymPy expressions
and as rigorous mpmath enclosures ``[low, high]`` rather than as exact rationals.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable

import mpmath
import sympy

from dpverify.samplers import RandomSource


class NoiseSpec(ABC):
    """An exact sampler of a noise value, paired with its ideal distribution.

    Subclasses are frozen dataclasses holding validated, exact parameters.
    """

    name: str

    @abstractmethod
    def run(self, rng: RandomSource) -> Hashable:
        """One draw of the production sampler with randomness from ``rng``."""

    @abstractmethod
    def ideal_pmf_expr(self) -> sympy.Expr:
        """The ideal PMF as a SymPy expression in the output symbol ``output_symbol``."""

    @abstractmethod
    def ideal_probability(self, output: Hashable, dps: int = 50) -> tuple[mpmath.mpf, mpmath.mpf]:
        """A rigorous enclosure ``low <= P(output) <= high`` computed with ``dps`` digits."""

    @abstractmethod
    def parameters(self) -> dict[str, str]:
        """The parameters as exact strings, for reports and counterexamples."""

    @abstractmethod
    def outputs_for_check(self) -> tuple[Hashable, ...]:
        """A default range of outputs over which interval and statistical checks run."""
