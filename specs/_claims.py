"""Privacy claims: frozen statements a check proves or refutes."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpverify.samplers import InvalidArgument, as_fraction


@dataclass(frozen=True, slots=True)
class PureDpClaim:
    """Pure DP in ratio form: for all neighbours ``(q, q')`` and every output ``x``,

    ``alpha <= P(x | q) / P(x | q') <= 1/alpha``, i.e. epsilon-DP with ``epsilon = -ln(alpha)``.
    Written multiplication-only, ``alpha*P(x|q') <= P(x|q)`` in both directions, so a zero
    denominator is covered: ``P(x|q) = 0 < P(x|q')`` violates every ``alpha > 0``.
    """

    alpha: Fraction

    def __post_init__(self) -> None:
        alpha = as_fraction("claim alpha", self.alpha)
        if not 0 < alpha <= 1:
            raise InvalidArgument(f'claim alpha must be a rational in (0, 1]; got claim alpha={alpha}.')
        object.__setattr__(self, "alpha", alpha)
