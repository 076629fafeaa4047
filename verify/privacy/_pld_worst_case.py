"""The worst case over neighbours of a composed mechanism, and composed privacy claims.

Running a mechanism ``M`` ``k`` times on neighbouring inputs ``x, x'`` gives the pair of product
distributions ``M(x)^k, M(x')^k``; its hockey-stick divergence is that pair's k-fold PLD
``delta`` (:mod:`dpverify.verify.privacy._pld`), so the composition is ``(eps, delta)``-DP exactly when
``delta_k(eps) = max over ordered neighbouring pairs (x, x') of delta_{x,x'}^(k)(eps)`` is at most
``delta`` (both orders: the divergence is not symmetric), and ``eps_k(delta)`` is the largest of
the pairs' ``eps(delta)`` (each pair's ``delta(eps)`` is non-increasing).  A list of tables
composes different mechanisms on the same inputs: one round runs each once, in order, and the
round is repeated ``k`` times.

Pairs with the same privacy loss atoms (the multiset of ``(P/Q, P)``, e.g. mirror images) share
one computation; each pair's PLD is queried and dropped, so memory holds one PLD at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import mpmath
from mpmath import iv

from dpverify.samplers import InvalidArgument
from dpverify.samplers._rational import shown
from dpverify.specs._claims import ApproxDp, PureDp
from dpverify.specs._enclosure import iv_rational
from dpverify.verify.engine._arguments import need_count, need_dps, need_instance
from dpverify.verify.engine._intervals import decimal_text
from dpverify.verify.engine._results import CheckResult, RatioWitness, Verdict, fraction_text
from dpverify.verify.engine._text import short_rational
from dpverify.verify.privacy import _convolution
from dpverify.verify.privacy._claim_checks import _decide
from dpverify.verify.privacy._pld import (
    AUTO_POINTS,
    DEFAULT_BITS,
    DEFAULT_DPS,
    DEFAULT_GRID,
    MAX_COMPOSITIONS,
    PrivacyLossDistribution,
    _atoms,
    _need_bits,
    _need_delta,
    _need_epsilon,
    _need_grid,
    _pmf_dict,
)
from dpverify.verify.privacy._pld_enclosure import Enclosure, _optional_fraction
from dpverify.verify.privacy._pld_lattice import _finite_iterable

__all__ = ["WorstCase", "check_composed_claim", "composed_delta", "composed_epsilon"]

R = TypeVar("R")
Pair = tuple[Hashable, Hashable]


def _pair_text(pair: tuple[Hashable, Hashable]) -> str:
    return f"q={shown(pair[0])}, q'={shown(pair[1])}"


@dataclass(frozen=True, slots=True)
class WorstCase:
    """The worst case over ordered neighbouring pairs of a composed mechanism.

    ``bound`` encloses the maximum over ``pairs`` (``low`` the largest lower bound, ``high`` the
    largest upper bound, exact when the maximum is known exactly); ``pair`` is the ordered pair
    with the largest upper bound; ``pairs`` lists every ordered pair's own enclosure; ``exact`` says
    whether every pair took the exact path, and ``grid`` is the certified grid (None if exact).
    """

    bound: Enclosure
    pair: tuple[Hashable, Hashable]
    pairs: tuple[tuple[tuple[Hashable, Hashable], Enclosure], ...]
    exact: bool
    grid: Fraction | None = None

    def __post_init__(self) -> None:
        need_instance("bound", self.bound, Enclosure, "an Enclosure")
        if not isinstance(self.pair, tuple) or len(self.pair) != 2:
            raise InvalidArgument(f"pair must be an ordered pair (q, q'); got pair={shown(self.pair)}.")
        if not isinstance(self.pairs, tuple) or not all(
            isinstance(e, tuple) and len(e) == 2 and isinstance(e[1], Enclosure) for e in self.pairs
        ):
            raise InvalidArgument(f"pairs must be a tuple of ((q, q'), Enclosure); got pairs={shown(self.pairs)}.")
        if not isinstance(self.exact, bool):
            raise InvalidArgument(f"exact must be a bool; got exact={shown(self.exact)}.")
        object.__setattr__(self, "grid", _optional_fraction("grid", self.grid))

    def to_json(self) -> dict[str, Any]:
        return {
            "bound": self.bound.to_json(),
            "pair": [str(self.pair[0]), str(self.pair[1])],
            "exact": self.exact,
            "grid": None if self.grid is None else fraction_text(self.grid),
            "pairs": [{"pair": [str(q), str(q2)], "bound": e.to_json()} for (q, q2), e in self.pairs],
        }


def _key(x: Fraction | None) -> Fraction:
    return Fraction(10**9) if x is None else x  # + inf above every delta or epsilon the caller reads


def _maximum(
    results: Sequence[tuple[tuple[Hashable, Hashable], Enclosure]],
) -> tuple[tuple[Hashable, Hashable], Enclosure]:
    """The enclosure of the maximum, and the pair with the largest upper bound."""
    pair, top = max(results, key=lambda r: _key(r[1].high))
    if any(e.infinite for _, e in results):
        return next((p, e) for p, e in results if e.infinite)
    low = max(e.low for _, e in results if e.low is not None)  # all of them: none is infinite
    highs = [e.high for _, e in results if e.high is not None]
    high = max(highs) if len(highs) == len(results) else None
    # the maximum is known exactly when one pair surely attains it, or the contenders are equal
    contenders = [e for _, e in results if high is None or e.high is None or e.high >= low]
    if top.exact and all(
        (e.value, e.log_argument, e.affine) == (top.value, top.log_argument, top.affine) for e in contenders
    ):
        return pair, top
    top_low = top.low
    assert top_low is not None  # top is not infinite: none is
    if top.exact and all(e is top or (e.high is not None and e.high <= top_low) for e in contenders):
        return pair, top
    return pair, Enclosure(low, high)


def _rounds(table: object) -> list[dict[Hashable, dict[Hashable, Fraction]]]:
    """One table ``{input: PMF}`` or a list of them (the rounds of one composition)."""
    if isinstance(table, Mapping):
        tables = [table]
    elif isinstance(table, (list, tuple)) and table:
        tables = list(table)
    else:
        raise InvalidArgument(
            f"table must be a mapping {{input: PMF}} or a non-empty list of them; got "
            f"table={shown(table)} ({type(table).__name__})."
        )
    rounds = []
    for t, round_table in enumerate(tables):
        name = "table" if len(tables) == 1 else f"table[{t}]"
        if not isinstance(round_table, Mapping) or not round_table:
            raise InvalidArgument(
                f"{name} must be a non-empty mapping {{input: PMF}}; got {name}={shown(round_table)} "
                f"({type(round_table).__name__})."
            )
        rounds.append({q: _pmf_dict(f"{name}[{shown(q)}]", row) for q, row in round_table.items()})
    return rounds


def _ordered_pairs(neighbours: object, rounds: Sequence[Mapping[Hashable, Any]]) -> list[tuple[Hashable, Hashable]]:
    pairs = []
    for pair in _finite_iterable("neighbours", neighbours):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise InvalidArgument(
                f"each of neighbours must be a pair (q, q'); got {shown(pair)} ({type(pair).__name__})."
            )
        for q in pair:
            for table in rounds:
                try:
                    known = q in table
                except TypeError:
                    known = False
                if not known:
                    raise InvalidArgument(
                        f"neighbours names an input with no row in the table: q={shown(q)}; "
                        "every neighbour must be a key of every table."
                    )
        for ordered in (pair, (pair[1], pair[0])):
            if ordered not in pairs:
                pairs.append(ordered)
    if not pairs:
        raise InvalidArgument("neighbours must name at least one pair (q, q'); got none.")
    return pairs


def _auto_grid(
    rounds: Sequence[Mapping[Hashable, dict[Hashable, Fraction]]], pairs: Sequence[tuple[Hashable, Hashable]], k: int
) -> Fraction:
    """The finest ``DEFAULT_GRID * 2^m`` whose k-fold span (the largest over pairs of ``k`` times the
    sum over rounds of the loss range) has at most ``AUTO_POINTS`` points; a choice of speed, not
    of soundness (every grid is sound)."""
    span = mpmath.mpf(0)
    with mpmath.workprec(64):
        for q, q2 in pairs:
            total = mpmath.mpf(0)
            for table in rounds:
                ratios = list(_atoms(table[q], table[q2])[0])
                if ratios:
                    logs = [mpmath.log(mpmath.mpf(r.numerator)) - mpmath.log(mpmath.mpf(r.denominator)) for r in ratios]
                    total += max(max(logs), 0) - min(min(logs), 0)
            span = max(span, total * k)
        grid, limit = DEFAULT_GRID, AUTO_POINTS[_convolution.backend()]
        while span / (mpmath.mpf(grid.numerator) / grid.denominator) > limit and grid < 1:
            grid *= 2
    return min(grid, Fraction(1))


def _each_pair(
    table: object,
    neighbours: object,
    k: object,
    grid: object,
    bits: object,
    query: Callable[[PrivacyLossDistribution], R],
) -> tuple[list[tuple[Pair, R]], Fraction | None]:
    """``query(pld)`` for every ordered pair's k-fold PLD, and the grid (None when every pair was
    exact).  Validates every argument before any work."""
    rounds = _rounds(table)
    pairs = _ordered_pairs(neighbours, rounds)
    k_ = need_count("k", k, low=1, high=MAX_COMPOSITIONS)
    bits_ = _need_bits(bits)
    grid_ = _auto_grid(rounds, pairs, k_) if grid is None else _need_grid(grid)
    answers: dict[Any, R] = {}
    exact = True
    out = []
    for q, q2 in pairs:
        key = tuple((frozenset(atoms.items()), inf) for atoms, inf in (_atoms(t[q], t[q2]) for t in rounds))
        if key not in answers:
            pld: PrivacyLossDistribution | None = None
            for t in rounds:
                one = PrivacyLossDistribution.from_pmfs(t[q], t[q2], grid=grid_, bits=bits_)
                pld = one if pld is None else pld.compose(one)
            assert pld is not None
            if k_ > 1:
                pld = pld.self_compose(k_)
            exact &= pld.exact
            answers[key] = query(pld)
        out.append(((q, q2), answers[key]))
    return out, None if exact else grid_


def composed_delta(
    table: object,
    neighbours: object,
    k: object,
    epsilon: object,
    *,
    grid: object = None,
    bits: object = DEFAULT_BITS,
    dps: object = DEFAULT_DPS,
) -> WorstCase:
    """``delta_k(epsilon)`` of the k-fold composition over every ordered neighbouring pair.

    ``table``: ``{input: PMF}`` (rows ``{output: Fraction}`` or ExactPmf), or a list of such tables
    composed in order as one round; ``neighbours``: pairs ``(q, q')``, both orders are taken;
    ``grid=None`` picks a grid for the certified path (see ``AUTO_POINTS``).

    >>> rr = {0: {0: Fraction(3, 4), 1: Fraction(1, 4)}, 1: {0: Fraction(1, 4), 1: Fraction(3, 4)}}
    >>> composed_delta(rr, [(0, 1)], 2, 0).bound.value   # TV distance of the 2-fold product
    Fraction(1, 2)
    """
    eps, dps_ = _need_epsilon(epsilon), need_dps(dps)
    return _worst_case(_each_pair(table, neighbours, k, grid, bits, lambda pld: pld.delta(eps, dps=dps_)))


def composed_epsilon(
    table: object,
    neighbours: object,
    k: object,
    delta: object,
    *,
    grid: object = None,
    bits: object = DEFAULT_BITS,
    dps: object = DEFAULT_DPS,
) -> WorstCase:
    """``eps_k(delta)``, the largest over ordered neighbouring pairs of the k-fold ``eps(delta)``
    (arguments as :func:`composed_delta`)."""
    target, dps_ = _need_delta(delta), need_dps(dps)
    return _worst_case(_each_pair(table, neighbours, k, grid, bits, lambda pld: pld.epsilon(target, dps=dps_)))


def _worst_case(found: tuple[list[tuple[Pair, Enclosure]], Fraction | None]) -> WorstCase:
    results, grid = found
    pair, bound = _maximum(results)
    return WorstCase(bound, pair, tuple(results), grid is None, grid)


# --- claims -------------------------------------------------------------------------------------


def check_composed_claim(
    table: object,
    neighbours: object,
    k: object,
    claim: object,
    *,
    grid: object = None,
    bits: object = DEFAULT_BITS,
    dps: object = DEFAULT_DPS,
) -> CheckResult:
    """Decide an ``ApproxDp`` or ``PureDp`` claim for the k-fold composition (arguments as
    :func:`composed_delta`).

    ``ApproxDp(eps, delta)``: proved when every ordered pair's ``delta_high(eps) <= delta``;
    violated when some pair's ``delta_low(eps) > delta`` (evidence: the pair, its ``delta(eps)``
    enclosure and its ``eps(delta)`` enclosure); inconclusive otherwise, with the gap.
    ``PureDp``: the k-fold loss is at most ``k * sum_t ln r_t`` with ``r_t`` the round's largest
    ratio ``P/Q``, attained by repeating the argmax outputs, so the claim is decided exactly (the
    alpha form) or with intervals (the epsilon form); violated evidence is that output tuple
    with both exact probabilities.
    """
    need_instance("claim", claim, (ApproxDp, PureDp), 'an ApproxDp or PureDp claim, e.g. ApproxDp(1, "1/10^6")')
    if isinstance(claim, PureDp):
        return _check_pure(table, neighbours, k, claim)
    assert isinstance(claim, ApproxDp)  # need_instance admits only the two
    eps, target = Fraction(claim.epsilon), Fraction(claim.delta)
    dps_ = need_dps(dps)
    answers, grid_ = _each_pair(
        table,
        neighbours,
        k,
        grid,
        bits,
        lambda pld: (pld.delta(eps, dps=dps_), pld.epsilon(target, dps=dps_), pld.bits),
    )
    k_ = need_count("k", k, low=1, high=MAX_COMPOSITIONS)
    results = [(pair, e, at_delta) for pair, (e, at_delta, _) in answers]
    method = "exact" if grid_ is None else f"certified (grid={fraction_text(grid_)}, bits={answers[0][1][2]})"
    evidence: dict[str, Any] = {
        "claim_epsilon": fraction_text(eps),
        "claim_delta": fraction_text(target),
        "k": k_,
        "method": method,
    }
    where = f"{k_}-fold at epsilon={short_rational(eps)}"
    violated = [r for r in results if r[1].low is not None and r[1].low > target]
    if violated:
        pair, e, at_delta = max(violated, key=lambda r: _key(r[1].low))
        assert e.low is not None  # violated holds only finite lows
        evidence.update(
            {
                "q": str(pair[0]),
                "q_prime": str(pair[1]),
                "delta": e.to_json(),
                "epsilon_at_claimed_delta": at_delta.to_json(),
            }
        )
        return CheckResult(
            "composition",
            Verdict.VIOLATED,
            f"{where}: delta >= {decimal_text(e.low, 8)} > claimed {short_rational(target)} at {_pair_text(pair)}",
            evidence=evidence,
        )
    pair, worst, _ = max(results, key=lambda r: _key(r[1].high))
    evidence.update({"q": str(pair[0]), "q_prime": str(pair[1]), "delta": worst.to_json()})
    if all(e.high is not None and e.high <= target for _, e, _ in results):
        assert worst.high is not None  # every high is finite here
        return CheckResult(
            "composition",
            Verdict.PROVED,
            f"{where}: every ordered pair's delta <= {decimal_text(worst.high, 8)} <= claimed "
            f"{short_rational(target)} ({method})",
            evidence=evidence,
        )
    gap = worst.gap
    reason = (
        f"delta_high={'+inf' if worst.high is None else decimal_text(worst.high, 8)} > claimed "
        f"{short_rational(target)} >= delta_low at {_pair_text(pair)}; the gap "
        f"{'is infinite' if gap is None else decimal_text(gap, 4)}: use a finer grid or more bits"
    )
    evidence["gap"] = None if gap is None else fraction_text(gap)
    return CheckResult("composition", Verdict.INCONCLUSIVE, f"{where}: {reason}", reason=reason, evidence=evidence)


def _check_pure(table: object, neighbours: object, k: object, claim: PureDp) -> CheckResult:
    rounds = _rounds(table)
    pairs = _ordered_pairs(neighbours, rounds)
    k_ = need_count("k", k, low=1, high=MAX_COMPOSITIONS)
    evidence: dict[str, Any] = {"k": k_, "method": "exact largest ratio"}
    # (product of the rounds' largest ratios, pair, their argmax outputs), or
    # (None, pair, [round table, output]) at an infinite loss
    worst: tuple[Fraction | None, tuple[Hashable, Hashable], list[Any]] | None = None
    for q, q2 in pairs:
        product: Fraction | None
        running = Fraction(1)
        outputs: list[Any] = []
        for t in rounds:
            P, Q = t[q], t[q2]
            infinite = [y for y, p in P.items() if p and not Q.get(y)]
            if infinite:
                product, outputs = None, [t, infinite[0]]
                break
            y = max((y for y, p in P.items() if p), key=lambda y: P[y] / Q[y])
            running *= P[y] / Q[y]
            outputs.append(y)
        else:
            product = running
        if worst is None or product is None or (worst[0] is not None and product > worst[0]):
            worst = (product, (q, q2), outputs)
        if product is None:
            break
    assert worst is not None
    ratio, (q, q2), outputs = worst
    if ratio is None:
        round_table, output = outputs
        witness = RatioWitness(q, q2, output, round_table[q][output], Fraction(0))
        evidence["witness"] = witness.to_json()
        return CheckResult(
            "composition",
            Verdict.VIOLATED,
            f"infinite privacy loss at {_pair_text((q, q2))}, output {shown(output)}: P > 0 = P'",
            evidence=evidence,
        )
    composed = ratio**k_
    evidence["largest_ratio"] = short_rational(composed)
    if claim.alpha is not None:
        alpha = Fraction(claim.alpha)  # already one: PureDp stores alpha as a Fraction
        holds: bool | None = composed * alpha <= 1
        bound_text = f"1/alpha={short_rational(1 / alpha)}"
    else:
        assert claim.epsilon is not None  # PureDp holds exactly one of alpha and epsilon
        epsilon = Fraction(claim.epsilon)
        holds = (
            True if composed == 1 else _decide(lambda: k_ * iv.log(iv_rational(ratio)), lambda: iv_rational(epsilon))
        )
        bound_text = f"e^epsilon, epsilon={short_rational(epsilon)}"
    where = f"{k_}-fold largest ratio {short_rational(composed)}"
    if holds is None:
        reason = "k*ln(ratio) and epsilon agree to the working precision's limit"
        return CheckResult("composition", Verdict.INCONCLUSIVE, reason, reason=reason, evidence=evidence)
    if holds:
        return CheckResult("composition", Verdict.PROVED, f"{where} <= {bound_text}", evidence=evidence)
    output = tuple(outputs) * k_
    p = q_ = Fraction(1)
    for t, y in zip(rounds * k_, output, strict=True):
        p, q_ = p * t[q][y], q_ * t[q2][y]
    evidence["witness"] = RatioWitness(q, q2, output, p, q_).to_json()
    return CheckResult(
        "composition",
        Verdict.VIOLATED,
        f"{where} > {bound_text} at {_pair_text((q, q2))}, output {shown(tuple(outputs))} repeated {k_} times",
        evidence=evidence,
    )
