"""Privacy claims: frozen statements a check proves or refutes."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class PureDpClaim:
    """Pure DP in ratio form: for all neighbours ``(q, q')`` and every output ``x``,

    ``alpha <= P(x | q) / P(x | q') <= 1/alpha``, i.e. epsilon-DP with ``epsilon = -ln(alpha)``.
    Written multiplication-only, ``alpha*P(x|q') <= P(x|q)`` in both directions, so a zero
    denominator is covered: ``P(x|q) = 0 < P(x|q')`` violates every ``alpha > 0``.
    """

    alpha: Fraction

    def __post_init__(self) -> None:
        if not 0 < self.alpha <= 1:
            raise ValueError(f"claim alpha must be in (0, 1]; got {self.alpha}")
