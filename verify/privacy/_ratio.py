"""Tightest pure-DP ratio of an exact PMF table, with its witness.

For a table ``P(. | q)`` and a symmetric neighbour relation, the tightest
``alpha = min P(x|q) / P(x|q')`` over neighbours ``(q, q')`` in both orders and outputs ``x``
with ``P(x|q') > 0``; then the mechanism is ``(-ln alpha)``-DP and no smaller epsilon holds.
An output with ``P(x|q) = 0 < P(x|q')`` is infinite privacy loss: ``alpha = 0``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpverify.specs import ExactPmf, PureDpClaim
from dpverify.specs._fields import check_fields
from dpverify.verify.engine._arguments import need_instance, need_neighbours, need_table
from dpverify.verify.engine._results import CheckResult, RatioWitness, Verdict, epsilon_of, fraction_text
from dpverify.verify.engine._text import short_rational

#: A table ``{q: spec.pmf(q)}`` as the entry points take it.  The key is Any because a Mapping is
#: invariant in its key: ``Mapping[Hashable, ExactPmf]`` would refuse a ``dict[int, ExactPmf]``.
#: The entry points check the table and its keys at run time (``need_table``, ``need_neighbours``).
PmfTable = Mapping[Any, ExactPmf]


@dataclass(frozen=True, slots=True)
class PrivacyLoss:
    """The tightest ratio bound ``alpha`` and the neighbouring pair and output that attain it."""

    alpha: Fraction
    witness: RatioWitness | None

    def __post_init__(self) -> None:
        check_fields(self)

    @property
    def infinite(self) -> bool:
        return self.alpha == 0

    @property
    def epsilon(self) -> float:
        return epsilon_of(self.alpha)


def _aligned_weights(pmf: ExactPmf, outputs: tuple[Hashable, ...]) -> tuple[int, ...]:
    if pmf.outputs == outputs:
        return pmf.weights
    lookup = dict(zip(pmf.outputs, pmf.weights, strict=True))
    return tuple(lookup.get(o, 0) for o in outputs)


Located = tuple[Hashable, Hashable, Hashable]  # (q, q', output)


def distinct_weight_pairs(
    table: Mapping[Hashable, ExactPmf], neighbours: Iterable[tuple[Hashable, Hashable]]
) -> dict[tuple[int, int], dict[tuple[int, int], Located]]:
    """``{(d, d'): {(w, w'): (q, q', output)}}``: each distinct pair of weights of neighbouring
    rows, grouped by the rows' denominators, with the first place it occurs.

    Pairs repeat heavily (a GTM row is a shift of its neighbour's), so this costs one hash per
    table entry and leaves big-integer work for the distinct pairs only.
    """
    distinct: dict[tuple[int, int], dict[tuple[int, int], Located]] = {}
    for q, q2 in neighbours:
        first, second = table[q], table[q2]
        outputs = (
            first.outputs
            if first.outputs == second.outputs
            else tuple(dict.fromkeys((*first.outputs, *second.outputs)))
        )
        seen = distinct.setdefault((first.denominator, second.denominator), {})
        pairs = zip(_aligned_weights(first, outputs), _aligned_weights(second, outputs), strict=True)
        for output, pair in zip(outputs, pairs, strict=True):
            if pair not in seen:
                seen[pair] = (q, q2, output)
    return distinct


def _lower_ratio(w: int, d: int, w2: int, d2: int) -> tuple[int, int]:
    """``min(p/p', p'/p)`` as an unreduced ``(numerator, denominator)``; ``(0, 1)`` if one is 0."""
    if w == 0 or w2 == 0:
        return (0, 1)
    a, b = w * d2, w2 * d  # p/p' = a/b
    return (a, b) if a <= b else (b, a)


def tightest_alpha(table: PmfTable, neighbours: Iterable[tuple[Hashable, Hashable]]) -> PrivacyLoss:
    """Exact tightest ``alpha`` over the neighbours, in both orders, and every output."""
    table = need_table("table", table)
    neighbours = need_neighbours("neighbours", neighbours, table)
    best: tuple[int, int] | None = None
    best_at: RatioWitness | None = None
    for (d, d2), pairs in distinct_weight_pairs(table, neighbours).items():
        for (w, w2), (q, q2, output) in pairs.items():
            if w == 0 and w2 == 0:
                continue
            low = _lower_ratio(w, d, w2, d2)
            if best is None or low[0] * best[1] < best[0] * low[1]:
                p, p2 = Fraction(w, d), Fraction(w2, d2)
                # report the direction whose ratio p/p' is the small one
                best_at = RatioWitness(q, q2, output, p, p2) if p <= p2 else RatioWitness(q2, q, output, p2, p)
                best = low
    if best is None:
        return PrivacyLoss(Fraction(1), None)
    return PrivacyLoss(Fraction(*best), best_at)


def check_pure_dp(loss: PrivacyLoss, claim: PureDpClaim) -> CheckResult:
    """Proved when the tightest alpha is at least the claimed one; else violated at the witness."""
    need_instance("loss", loss, PrivacyLoss, "a PrivacyLoss (from tightest_alpha)")
    need_instance("claim", claim, PureDpClaim, "a PureDpClaim")
    evidence = {
        "claim_alpha": fraction_text(claim.alpha),
        "alpha_exact": fraction_text(loss.alpha),
        "witness": None if loss.witness is None else loss.witness.to_json(),
    }
    if loss.alpha >= claim.alpha:
        return CheckResult(
            "privacy",
            Verdict.PROVED,
            f"alpha={short_rational(loss.alpha)} >= claimed {short_rational(claim.alpha)} "
            f"(margin {short_rational(loss.alpha - claim.alpha)}, epsilon={loss.epsilon:.6g})",
            evidence=evidence,
        )
    w = loss.witness
    assert w is not None, "alpha < claim <= 1 needs a witness"
    what = (
        "infinite privacy loss"
        if loss.infinite
        else f"ratio {short_rational(loss.alpha)} < claimed {short_rational(claim.alpha)} "
        f"(short by {short_rational(claim.alpha - loss.alpha)})"
    )
    return CheckResult(
        "privacy",
        Verdict.VIOLATED,
        f"{what} at q={w.q}, q'={w.q_prime}, output={w.output}: "
        f"P={short_rational(w.p)} vs P'={short_rational(w.p_prime)}",
        evidence=evidence,
    )
