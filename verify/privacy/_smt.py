"""Z3 check of a pure-DP ratio bound over an exact PMF table, and the obligation as SMT-LIB.

The claim is the ratio form of pure DP in Amorim, Gaboardi, Rindisbacher, "Verified
Differential Privacy for Finite Computers", §2: for neighbours ``(q, q')`` and every output ``x``

    alpha <= P(x|q) / P(x|q') <= 1/alpha.

The neighbour relation is symmetric, so this is ``alpha * P(x|q') <= P(x|q)`` for every
*ordered* neighbouring pair (each unordered pair is checked in both orders).  With
``alpha = a/b`` in lowest terms, the formula handed to Z3 is its negation:

    exists ordered neighbours (q, q') and an output x:   a * P(x|q') > b * P(x|q).

``unsat`` proves the claim on the whole table; ``sat`` is a violation, and the model names it.

Encoding (QF_LIA, integers only).  Every table entry with ``P(x|q) = w/d`` and
``P(x|q') = w'/d'`` becomes a *directed entry*; distinct ones are numbered ``k = 0 .. m-1``
(entries repeat heavily: a GTM row is a shift of its neighbour's).  Both probabilities are
multiplied by the same positive integer ``lcm(d, d')``, which keeps their ratio, giving
integer constants ``p_k, p'_k``.  A selector ``i`` picks the entry::

    0 <= i < m
    i = k  =>  (p = p_k  and  p2 = p'_k)          for k = 0 .. m-1
    a * p2 > b * p

Zero probabilities need no special case: ``P(x|q) = 0 < P(x|q')`` gives ``a*p2 > 0 = b*p``,
satisfiable (infinite privacy loss); ``0`` and ``0`` never satisfies the last line, so such
entries are dropped.

Solving.  The disjunction over ``i`` is split into blocks of consecutive ``k`` and each
block is its own query: ``exists i in [0, m)`` is the disjunction of ``exists i`` in each
block, and a case ``i = k`` outside the block is vacuous there.  One query over all ``m``
cases costs about quadratically in ``m`` (every refuted case propagates through every
other), so blocks cut GTM n=1000 from about 8 s to about 1 s.  After a ``sat``, the bound
is tightened to the witness's own ratio and the search goes on, so the reported witness is
the *smallest* ratio in the table, the same number the exact engine
(:func:`dpverify.verify.privacy._ratio.tightest_alpha`) computes by another route.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any

import z3

from dpverify.samplers import InvalidArgument
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf, PureDpClaim
from dpverify.verify.engine._arguments import need_count, need_instance, need_neighbours, need_table
from dpverify.verify.engine._results import CheckResult, RatioWitness, Verdict, fraction_text
from dpverify.verify.engine._text import short_rational, shown_value
from dpverify.verify.privacy._ratio import PmfTable, distinct_weight_pairs

# Cases per Z3 query; 64..256 measured equally fast on GTM n=1000, 1024 twice as slow.
_BLOCK = 256
#: The most bits of an integer handed to Z3 or written into SMT-LIB text: Z3's Python API
#: converts every constant through ``str``, which CPython refuses past 4300 digits.
MAX_SMT_BITS = 14_000
#: The longest ``timeout_ms`` (Z3 takes an unsigned 32-bit timeout: about 49 days).
MAX_TIMEOUT_MS = 2**32 - 1


@dataclass(frozen=True, slots=True)
class _Entry:
    """A directed table entry and its probabilities as integers ``p, p2`` with
    ``p / p2 = witness.p / witness.p_prime`` (both scaled by the lcm of their denominators)."""

    witness: RatioWitness
    p: int
    p2: int


def _entry(q: Hashable, q2: Hashable, x: Hashable, w: int, d: int, w2: int, d2: int) -> _Entry:
    scale = lcm(d, d2)
    witness = RatioWitness(q, q2, x, Fraction(w, d), Fraction(w2, d2))
    entry = _Entry(witness, w * (scale // d), w2 * (scale // d2))
    if max(entry.p.bit_length(), entry.p2.bit_length()) > MAX_SMT_BITS:
        raise InvalidArgument(
            f"table's probabilities must have at most {MAX_SMT_BITS} bits over a common denominator "
            f"for Z3; got P(x={_text(x)}|q={_text(q)}) and P(x|q'={_text(q2)}) with "
            f"{max(entry.p.bit_length(), entry.p2.bit_length())} bits. Use tightest_alpha, which is exact."
        )
    return entry


def _claim(claim: object) -> PureDpClaim:
    need_instance("claim", claim, PureDpClaim, "a PureDpClaim, e.g. PureDpClaim(Fraction(1, 3))")
    assert isinstance(claim, PureDpClaim)  # need_instance raised otherwise
    alpha = claim.alpha
    if max(alpha.numerator.bit_length(), alpha.denominator.bit_length()) > MAX_SMT_BITS:
        raise InvalidArgument(
            f"claim's alpha must have at most {MAX_SMT_BITS} bits in each part for Z3; got alpha={shown(alpha)}."
        )
    return claim


def _text(value: object) -> str:
    """``str(value)`` when it is short, else :func:`shown_value`'s short form (never a huge int's digits)."""
    try:
        text = str(value)
    except ValueError:  # an int past CPython's 4300 digits
        return shown_value(value)
    return text if len(text) <= 60 else shown_value(value)


def _comment(value: object) -> str:
    """``repr(value)`` when it is short, else a short form: an SMT-LIB comment is one line."""
    try:
        text = repr(value)
    except ValueError:
        return shown_value(value)
    return text if len(text) <= 200 and "\n" not in text else shown_value(value)


def _row(table: Mapping[Hashable, ExactPmf], q: Hashable) -> ExactPmf:
    try:
        return table[q]
    except KeyError:
        raise InvalidArgument(
            f"neighbour q={shown(q)} has no PMF in the table; every input a neighbour pair names "
            "must be a key of the table."
        ) from None


def _entries(table: Mapping[Hashable, ExactPmf], neighbours: Iterable[tuple[Hashable, Hashable]]) -> list[_Entry]:
    """The distinct directed entries, both orders of every pair, ``0/0`` dropped."""
    table = need_table("table", table)
    neighbours = need_neighbours("neighbours", neighbours)
    rows = {q: _row(table, q) for pair in neighbours for q in pair}
    directed: dict[tuple[int, int, int, int], _Entry] = {}
    for (d, d2), pairs_seen in distinct_weight_pairs(rows, neighbours).items():
        for (w, w2), (q, q2, x) in pairs_seen.items():
            if w == 0 and w2 == 0:
                continue
            if (w, d, w2, d2) not in directed:
                directed[(w, d, w2, d2)] = _entry(q, q2, x, w, d, w2, d2)
            if (w2, d2, w, d) not in directed:
                directed[(w2, d2, w, d)] = _entry(q2, q, x, w2, d2, w, d)
    return list(directed.values())


def _range(lo: int, hi: int) -> list[z3.BoolRef]:
    i = z3.Int("i")
    return [lo <= i, i < hi]


def _cases(entries: list[_Entry], lo: int, hi: int) -> list[z3.BoolRef]:
    """``i = k => (p = p_k and p2 = p'_k)`` for ``lo <= k < hi``."""
    i, p, p2 = z3.Ints("i p p2")
    return [z3.Implies(i == k, z3.And(p == entries[k].p, p2 == entries[k].p2)) for k in range(lo, hi)]


def _below(bound: Fraction) -> z3.BoolRef:
    """``p / p2 < bound``, multiplication only, so ``p2 = 0`` needs no case."""
    p, p2 = z3.Ints("p p2")
    return bound.numerator * p2 > bound.denominator * p


def check_ratio_bound_z3(
    table: PmfTable,
    neighbours: Iterable[tuple[Hashable, Hashable]],
    claim: PureDpClaim,
    *,
    timeout_ms: int = 60_000,
) -> CheckResult:
    """Prove ``alpha * P(x|q') <= P(x|q)`` for all ordered neighbours and outputs with Z3,
    or refute it with the entry of smallest ratio ``P(x|q)/P(x|q')`` as witness.

    ``timeout_ms`` bounds the whole check; running out gives ``inconclusive`` (or, once a
    violation is known, ``violated`` with ``witness_is_tightest = False``).

    >>> from dpverify.specs import GtmSpec
    >>> spec = GtmSpec.create("1/3", 2, 36)  # Theorem 7.1: D = 3, T = (D+1)*D**n
    >>> table = {q: spec.pmf(q) for q in spec.inputs()}
    >>> check_ratio_bound_z3(table, spec.neighbours(), spec.claim()).verdict.value
    'proved'
    """
    budget_ms = need_count("timeout_ms", timeout_ms, low=1, high=MAX_TIMEOUT_MS)
    claim = _claim(claim)
    deadline = time.monotonic() + budget_ms / 1000
    entries = _entries(table, neighbours)
    i = z3.Int("i")
    bound = claim.alpha
    worst: RatioWitness | None = None
    for lo in range(0, len(entries), _BLOCK):
        if bound == 0:  # an infinite loss is found: no ratio lies below 0
            break
        hi = min(lo + _BLOCK, len(entries))
        solver = z3.Solver()
        solver.add(*_range(lo, hi), *_cases(entries, lo, hi), _below(bound))
        while bound > 0:
            remaining_ms = int((deadline - time.monotonic()) * 1000)
            if remaining_ms <= 0:
                return _unknown(claim, worst, "timeout", lo, len(entries))
            solver.set("timeout", remaining_ms)
            status = solver.check()
            if status == z3.unsat:
                break
            if status == z3.unknown:
                return _unknown(claim, worst, solver.reason_unknown(), lo, len(entries))
            k = solver.model().eval(i, model_completion=True).as_long()
            assert lo <= k < hi, f"Z3 model i={k} is outside its block [{lo}, {hi})"
            found = entries[k].witness
            assert found.p < bound * found.p_prime, f"Z3 model i={k} violates no bound {bound}"
            worst, bound = found, found.p / found.p_prime
            solver.add(_below(bound))  # search on for a smaller ratio
    if worst is None:
        return CheckResult(
            "z3",
            Verdict.PROVED,
            f"unsat: no ordered neighbours and output have ratio below claimed alpha="
            f"{short_rational(claim.alpha)} ({len(entries)} distinct entries)",
            evidence=_evidence(claim, None, True, len(entries)),
        )
    return _violated(claim, worst, True, len(entries))


def _unknown(claim: PureDpClaim, worst: RatioWitness | None, reason: str, checked: int, total: int) -> CheckResult:
    if worst is not None:  # a sat is final: the claim is refuted, only minimality is open
        return _violated(claim, worst, False, total)
    return CheckResult(
        "z3",
        Verdict.INCONCLUSIVE,
        f"Z3 gave no answer ({reason}) after refuting {checked} of {total} distinct entries",
        reason=reason,
        evidence=_evidence(claim, None, False, total),
    )


def _violated(claim: PureDpClaim, w: RatioWitness, tightest: bool, total: int) -> CheckResult:
    what = (
        "infinite privacy loss"
        if w.p == 0
        else f"ratio {short_rational(w.p / w.p_prime)} < claimed {short_rational(claim.alpha)}"
    )
    return CheckResult(
        "z3",
        Verdict.VIOLATED,
        f"sat: {what} at q={_text(w.q)}, q'={_text(w.q_prime)}, output={_text(w.output)}: "
        f"P={short_rational(w.p)} vs P'={short_rational(w.p_prime)}",
        evidence=_evidence(claim, w, tightest, total),
    )


def _evidence(claim: PureDpClaim, w: RatioWitness | None, tightest: bool, total: int) -> dict[str, Any]:
    return {
        "claim_alpha": fraction_text(claim.alpha),
        "witness": None if w is None else w.to_json(),
        "witness_is_tightest": w is not None and tightest,
        "distinct_entries": total,
        "solver": f"z3 {z3.get_version_string()}",
    }


def smtlib_obligation(
    table: PmfTable,
    neighbours: Iterable[tuple[Hashable, Hashable]],
    claim: PureDpClaim,
) -> str:
    """The negated claim over the whole table as a standalone SMT-LIB 2 script (QF_LIA).

    ``unsat`` means the claim holds; a model's ``i`` names the violating entry, listed in a
    comment above its case.  The script is one query over all cases (no blocks), so a second
    solver rechecks the obligation itself rather than this module's way of solving it.
    """
    claim = _claim(claim)
    entries = _entries(table, neighbours)
    a, b = claim.alpha.numerator, claim.alpha.denominator
    lines = [
        "; dpverify: a pure-DP ratio bound, negated (Amorim, Gaboardi, Rindisbacher,",
        ';   "Verified Differential Privacy for Finite Computers", section 2).',
        "; claim: alpha * P(x|q') <= P(x|q) for all ordered neighbours (q, q') and outputs x,",
        f";   alpha = {a}/{b}.",
        "; p, p2: P(x|q), P(x|q') times the lcm of their denominators (the same ratio).",
        "; unsat: the claim holds for every entry of the table (proved).",
        "; sat: it is violated; the model's i names the entry: the comment above its case",
        ";   gives the first (q, q', x) with those probabilities, and",
        ";   p/p2 = P(x|q)/P(x|q') < alpha (p = 0: infinite loss); (get-value (i)) shows i.",
        "(set-option :produce-models true)",
        "(set-logic QF_LIA)",
        "(declare-const i Int)",
        "(declare-const p Int)",
        "(declare-const p2 Int)",
        *(f"(assert {c.sexpr()})" for c in _range(0, len(entries))),
    ]
    for k, (entry, case) in enumerate(zip(entries, _cases(entries, 0, len(entries)), strict=True)):
        w = entry.witness
        lines.append(f"; i={k}: q={_comment(w.q)}, q'={_comment(w.q_prime)}, x={_comment(w.output)}")
        lines.append(f"(assert {case.sexpr()})")
    lines += [
        "; the negated claim: a * p2 > b * p",
        f"(assert {_below(claim.alpha).sexpr()})",
        "(check-sat)",
        "(exit)",
        "",
    ]
    return "\n".join(lines)
