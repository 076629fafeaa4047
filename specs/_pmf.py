"""Exact probability mass functions over a common integer denominator."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import lcm


@dataclass(frozen=True, slots=True)
class ExactPmf:
    """``P(outputs[i]) = weights[i] / denominator`` exactly; an unlisted output has probability 0.

    Keeping one integer denominator makes every comparison an integer comparison, which is
    what keeps a 1001 x 1001 GTM table with 3000-bit probabilities cheap to check.

    >>> pmf = ExactPmf.from_fractions({0: Fraction(1, 3), 1: Fraction(2, 3)})
    >>> pmf.probability(1), pmf.total()
    (Fraction(2, 3), Fraction(1, 1))
    """

    outputs: tuple[Hashable, ...]
    weights: tuple[int, ...]
    denominator: int

    def __post_init__(self) -> None:
        if len(self.outputs) != len(self.weights):
            raise ValueError("outputs and weights must have the same length")
        if self.denominator < 1:
            raise ValueError(f"denominator must be >= 1; got {self.denominator}")

    @classmethod
    def from_fractions(cls, masses: Mapping[Hashable, Fraction | int]) -> ExactPmf:
        """Build from ``{output: probability}``; outputs keep the mapping's order."""
        denominator = lcm(*(Fraction(m).denominator for m in masses.values())) if masses else 1
        weights = tuple(
            Fraction(m).numerator * (denominator // Fraction(m).denominator) for m in masses.values()
        )
        return cls(tuple(masses), weights, denominator)

    def probability(self, output: Hashable) -> Fraction:
        """``P(output)``; 0 for an output that is not listed."""
        try:
            return Fraction(self.weights[self.outputs.index(output)], self.denominator)
        except ValueError:
            return Fraction(0)

    def as_dict(self) -> dict[Hashable, Fraction]:
        """``{output: probability}`` with every listed output, zeros included."""
        return {o: Fraction(w, self.denominator) for o, w in zip(self.outputs, self.weights)}

    def total(self) -> Fraction:
        """The total mass; 1 for a proper distribution."""
        return Fraction(sum(self.weights), self.denominator)

    def support(self) -> tuple[Hashable, ...]:
        """The outputs with positive probability."""
        return tuple(o for o, w in zip(self.outputs, self.weights) if w)
