"""Exact probability mass functions over a common integer denominator."""

from __future__ import annotations

import decimal
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from dpverify.samplers import InvalidArgument, as_fraction
from dpverify.samplers._rational import shown as _shown


def exact_text(value: Fraction | int) -> str:
    """``"num/den"`` (``"num"`` for an integer) with every digit, also past the 4300 digits
    CPython's ``str`` of an int refuses.

    >>> exact_text(Fraction(-1, 3)), len(exact_text(10**5000))
    ('-1/3', 5001)
    """
    value = Fraction(value)
    if value.denominator == 1:
        return _digits(value.numerator)
    return f"{_digits(value.numerator)}/{_digits(value.denominator)}"


def _digits(number: int) -> str:
    try:
        return str(number)
    except ValueError:  # CPython's int-to-str limit; decimal converts exactly
        with decimal.localcontext() as context:
            context.prec = decimal.MAX_PREC
            return format(decimal.Decimal(number), "f")


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
        for name in ("outputs", "weights"):
            value = getattr(self, name)
            if isinstance(value, list):
                object.__setattr__(self, name, tuple(value))
            elif not isinstance(value, tuple):
                raise InvalidArgument(f"{name} must be a tuple; got {name}={_shown(value)} ({type(value).__name__}).")
        if len(self.outputs) != len(self.weights):
            raise InvalidArgument(
                f"outputs and weights must have the same length; got {len(self.outputs)} outputs "
                f"and {len(self.weights)} weights."
            )
        for weight in self.weights:
            if isinstance(weight, bool) or not isinstance(weight, int):
                raise InvalidArgument(f"weights must be ints; got weight={_shown(weight)} ({type(weight).__name__}).")
        if isinstance(self.denominator, bool) or not isinstance(self.denominator, int) or self.denominator < 1:
            raise InvalidArgument(
                f"denominator must be an int >= 1; got denominator={_shown(self.denominator)} "
                f"({type(self.denominator).__name__})."
            )

    @classmethod
    def from_fractions(cls, masses: Mapping[Hashable, Fraction | int]) -> ExactPmf:
        """Build from ``{output: probability}``; outputs keep the mapping's order."""
        if not isinstance(masses, Mapping):
            raise InvalidArgument(
                f"masses must be a mapping {{output: Fraction}}; got masses={_shown(masses)} ({type(masses).__name__})."
            )
        masses = {output: as_fraction(f"masses[{_shown(output)}]", mass) for output, mass in masses.items()}
        denominator = lcm(*(Fraction(m).denominator for m in masses.values())) if masses else 1
        weights = tuple(Fraction(m).numerator * (denominator // Fraction(m).denominator) for m in masses.values())
        return cls(tuple(masses), weights, denominator)

    def probability(self, output: Hashable) -> Fraction:
        """``P(output)``; 0 for an output that is not listed."""
        try:
            return Fraction(self.weights[self.outputs.index(output)], self.denominator)
        except decimal.InvalidOperation:  # a signalling NaN refuses every comparison
            raise InvalidArgument(f"output must be comparable with =; got output={_shown(output)}.") from None
        except ValueError:
            return Fraction(0)

    def as_dict(self) -> dict[Hashable, Fraction]:
        """``{output: probability}`` with every listed output, zeros included."""
        return {o: Fraction(w, self.denominator) for o, w in zip(self.outputs, self.weights, strict=True)}

    def total(self) -> Fraction:
        """The total mass; 1 for a proper distribution."""
        return Fraction(sum(self.weights), self.denominator)

    def support(self) -> tuple[Hashable, ...]:
        """The outputs with positive probability."""
        return tuple(o for o, w in zip(self.outputs, self.weights, strict=True) if w)
