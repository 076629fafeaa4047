"""OpenDP's float sums: sensitivities the computed values exceed.

- ``casacuberta-opendp-sum`` (Casacuberta, Shoemate, Vadhan, Wagaman, CCS 2022): ``make_bounded_sum(bounds=(0, 1))``
  of the 0.4-0.5 API.  The declared sensitivity at ``d_in = 1`` (one record added or removed: symmetric distance 1)
  is read from the transformation itself, the smallest double ``d_out`` its ``check(1, d_out)`` accepts (0.4.0 has
  no ``map``).  The summation order is identified by running the library on seeded vectors and comparing bit for bit
  with dpverify's model of each order (0.4.0 folds left from ``0``; 0.5.0 sums pairwise, with the size limit ``2**20``
  and a relaxation term for the rounding, opendp#467).  Z3 then searches, in that order, for ``D`` and ``D' = D + y``
  with ``|S(D') - S(D)|`` above the declared value; a pair found is re-run through the transformation and compared
  exactly.
- ``opendp-2923-ssd`` (opendp#2923): ``make_sum_of_squared_deviations`` on 1024 values in ``[2**50, 2**50 + 1]``.
  The doubles there are ``2**50 + k/4``, ``k = 0 .. 4``, and every node of OpenDP's pairwise sum is ``2**j * 2**50``
  plus a multiple of its unit in the last place ``2**(j-2)``: it carries one of five digits, the round-half-even
  average of its children's.  The computed mean is ``2**50`` plus a quarter times the root's digit, and the squared
  deviations are summed exactly.  A dynamic programme over the tree picks the neighbours (one record changed:
  symmetric distance 2) whose root digits differ most while the other records' true mean lies furthest from them;
  the pair is run through the library and compared exactly with ``map(2)``.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from fractions import Fraction
from typing import Any

#: The sensitivity search's dataset sizes and its time limit per query.
_SUM_SIZES = (1, 2)
_SUM_TIMEOUT_MS = 30_000
#: OpenDP's summation orders that dpverify models, tried in turn against the library's own sums.
_SUM_ORDERS = ("sequential", "pairwise")


def _double(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", bits))[0])


def _bits(value: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


def _declared(check: Callable[[int, float], bool], d_in: int) -> Fraction | None:
    """The smallest non-negative double ``d_out`` that ``check(d_in, d_out)`` accepts (its relation is monotone in
    ``d_out``), by bisection over the doubles below ``2**20``; None when it accepts none of them."""
    low, high = 0, _bits(2.0**20)
    if not check(d_in, _double(high)):
        return None
    if check(d_in, 0.0):
        return Fraction(0)
    while high - low > 1:  # check(low) is False, check(high) is True
        middle = (low + high) // 2
        if check(d_in, _double(middle)):
            high = middle
        else:
            low = middle
    return Fraction(_double(high))


def _summation_order(function: Callable[[list[float]], float]) -> str | None:
    """The first modelled order whose sums agree bit for bit with the library's on 300 seeded vectors in [0, 1]."""
    from dpverify.verify.privacy._float_sensitivity import computed_sum

    rng = random.Random(20220721)
    probes = []
    for _ in range(300):
        size = rng.randint(1, 70)
        scale = 2.0 ** -rng.randint(0, 60)
        probes.append([rng.choice((1.0, rng.random(), rng.random() * scale)) for _ in range(size)])
    for order in _SUM_ORDERS:
        if all(_bits(float(computed_sum(v, order))) == _bits(float(function(v))) for v in probes):
            return order
    return None


def _opendp_bounded_sum(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``opendp.trans.make_bounded_sum(bounds=(0., 1.))`` (0.4-0.5 API), under symmetric distance 1."""
    from opendp.mod import enable_features
    from opendp.trans import make_bounded_sum

    from dpverify.verify.privacy._float_sensitivity import check_sum_sensitivity, exact_text

    enable_features("contrib", "floating-point")
    trans = make_bounded_sum(bounds=(0.0, 1.0))
    declared = _declared(trans.check, 1)
    if declared is None:
        return {"verdict": "inconclusive", "method": "-", "evidence": "check(1, d_out) accepts no d_out <= 2**20"}
    mapped = f"; map(1) = {float(trans.map(1))!r}" if hasattr(trans, "map") else "; no map at this version"
    order = _summation_order(lambda v: float(trans(v)))
    if order is None:
        return {
            "verdict": "inconclusive",
            "method": "sensitivity (Z3)",
            "evidence": f"make_bounded_sum agrees with none of the modelled summation orders {_SUM_ORDERS}",
        }
    method = f"sensitivity: Z3 over the library's {order} order (checked on 300 vectors), re-run through the library"
    outcomes = []
    for n in _SUM_SIZES:
        found = check_sum_sensitivity(n, 0.0, 1.0, order=order, delta=declared, timeout_ms=_SUM_TIMEOUT_MS)
        outcomes.append(f"n={n}: {found.status}")
        if found.status != "found" or found.witness is None:
            continue
        dataset = [float(v) for v in found.witness.dataset]
        neighbour = [*dataset, float(found.witness.record)]
        before, after = float(trans(dataset)), float(trans(neighbour))
        difference = abs(Fraction(after) - Fraction(before))
        if difference <= declared:  # the model's pair is not a pair of the library's: say so, never claim it
            return {
                "verdict": "inconclusive",
                "method": method,
                "evidence": f"Z3's pair differs by {exact_text(difference)} in the library, within the declared "
                f"{exact_text(declared)}: the model and the library disagree",
                "magnitude": "-",
            }
        return {
            "verdict": "violated",
            "method": method,
            "evidence": f"D={[v.hex() for v in dataset]}, D' adds {neighbour[-1].hex()}: sums {before!r} and "
            f"{after!r}, exact difference {exact_text(difference)} > declared {exact_text(declared)} "
            f"(the least d_out check(1, .) accepts{mapped})"[:300],
            "magnitude": f"computed sensitivity >= {exact_text(difference)} (declared {float(declared)!r}), at n = {n}",
        }
    # Nothing found: how the pair that breaks the ideal sensitivity 1 fares against what this version declares.
    ideal = check_sum_sensitivity(1, 0.0, 1.0, order=order, delta=1, timeout_ms=_SUM_TIMEOUT_MS)
    replay = ""
    if ideal.witness is not None:
        dataset = [float(v) for v in ideal.witness.dataset]
        neighbour = [*dataset, float(ideal.witness.record)]
        difference = abs(Fraction(float(trans(neighbour))) - Fraction(float(trans(dataset))))
        covered = "<=" if difference <= declared else ">"
        replay = f"; a pair above the ideal 1 differs by {exact_text(difference)} {covered} declared"
    return {
        "verdict": "not refuted",
        "method": method,
        "evidence": f"declared {exact_text(declared)}{mapped}; Z3 above it: {', '.join(outcomes)}{replay}"[:300],
        "magnitude": "-",
    }


# --- opendp#2923: the sum of squared deviations, whose mean is rounded ------------------------------

_SSD_SIZE = 1024
_SSD_LOWER = 2.0**50
_LEVELS = 10  # log2(1024)
_DIGITS = range(5)  # the doubles 2**50 + k/4 of [2**50, 2**50 + 1]


def _average(d1: int, d2: int) -> int:
    """The digit of a node whose children carry ``d1`` and ``d2``: ``(d1 + d2) / 2`` rounded half to even."""
    total = d1 + d2
    half = total // 2
    return half if total % 2 == 0 or half % 2 == 0 else half + 1


Subtree = tuple[int, int, int]  # (level, digit, 0 for the least sum of its leaves, 1 for the largest)


def _extremes() -> list[dict[int, list[tuple[int, tuple[int, int]]]]]:
    """For each level ``j`` and digit ``d``: the least and the largest leaf sum of a subtree of ``2**j`` leaves whose
    root carries ``d``, with the children's digits that give it."""
    table: list[dict[int, list[tuple[int, tuple[int, int]]]]] = [{d: [(d, (d, d)), (d, (d, d))] for d in _DIGITS}]
    for j in range(1, _LEVELS):
        level: dict[int, list[tuple[int, tuple[int, int]]]] = {}
        below = table[j - 1]
        for d1 in _DIGITS:
            for d2 in _DIGITS:
                d = _average(d1, d2)
                least = (below[d1][0][0] + below[d2][0][0], (d1, d2))
                most = (below[d1][1][0] + below[d2][1][0], (d1, d2))
                if d not in level:
                    level[d] = [least, most]
                else:
                    level[d] = [min(level[d][0], least), max(level[d][1], most)]
        table.append(level)
    return table


def _leaves(table: list[dict[int, list[tuple[int, tuple[int, int]]]]], subtree: Subtree) -> list[int]:
    level, digit, which = subtree
    if level == 0:
        return [digit]
    d1, d2 = table[level][digit][which][1]
    return _leaves(table, (level - 1, d1, which)) + _leaves(table, (level - 1, d2, which))


def _widest_pair() -> tuple[list[int], int, int]:
    """Digits ``x`` of 1024 records and the digit ``b`` that replaces ``x[0]`` maximising ``16 |SSD(y) - SSD(x)|``
    under the digit analysis, and that value.  The changed record is the first leaf; its path's siblings are the
    right halves, each a subtree with the least or the largest leaf sum for its digit."""
    table = _extremes()
    # state: (a, b, digit of x's node, digit of y's node) -> [least, largest] sum of the others, with their siblings
    states: dict[tuple[int, int, int, int], list[tuple[int, list[Subtree]]]] = {
        (a, b, a, b): [(0, []), (0, [])] for a in _DIGITS for b in _DIGITS if a != b
    }
    for j in range(_LEVELS):
        grown: dict[tuple[int, int, int, int], list[tuple[int, list[Subtree]]]] = {}
        for (a, b, dx, dy), (least, most) in states.items():
            for s in _DIGITS:
                key = (a, b, _average(dx, s), _average(dy, s))
                low = (least[0] + table[j][s][0][0], [*least[1], (j, s, 0)])
                high = (most[0] + table[j][s][1][0], [*most[1], (j, s, 1)])
                if key not in grown:
                    grown[key] = [low, high]
                else:
                    grown[key] = [
                        min(grown[key][0], low, key=lambda t: t[0]),
                        max(grown[key][1], high, key=lambda t: t[0]),
                    ]
        states = grown
    others = _SSD_SIZE - 1
    best: tuple[int, list[int], int] | None = None
    for (a, b, d, e), ends in states.items():
        for total, siblings in ends:
            # 16 SSD = sum of (k - root digit)^2 over the records' digits k
            value = abs(others * (e * e - d * d) - 2 * (e - d) * total + (b - e) ** 2 - (a - d) ** 2)
            if best is None or value > best[0]:
                digits = [a] + [k for sibling in siblings for k in _leaves(table, sibling)]
                best = (value, digits, b)
    assert best is not None
    return best[1], best[2], best[0]


def _opendp_ssd(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``dp.t.make_sum_of_squared_deviations`` on 1024 doubles in [2**50, 2**50 + 1], one record changed."""
    import opendp.prelude as dp

    from dpverify.verify.privacy._float_sensitivity import exact_text

    dp.enable_features("contrib")
    trans = dp.t.make_sum_of_squared_deviations(
        dp.vector_domain(dp.atom_domain(bounds=(_SSD_LOWER, _SSD_LOWER + 1), nan=False), size=_SSD_SIZE),
        dp.symmetric_distance(),
    )
    declared = Fraction(float(trans.map(2)))  # type: ignore[no-untyped-call]  # one record changed: distance 2
    digits, replacement, predicted = _widest_pair()
    x = [_SSD_LOWER + k / 4 for k in digits]
    y = [_SSD_LOWER + replacement / 4, *x[1:]]
    fx, fy = float(trans(x)), float(trans(y))
    difference = abs(Fraction(fy) - Fraction(fx))
    # the issue's pair: all at 2**50 + 1/4, one record moved to 2**50 + 1/2
    issue_x = [_SSD_LOWER + 0.25] * _SSD_SIZE
    issue_y = [_SSD_LOWER + 0.5, *issue_x[1:]]
    issue = abs(Fraction(float(trans(issue_y))) - Fraction(float(trans(issue_x))))
    expected = Fraction(predicted, 16)
    agrees = "as predicted" if difference == expected else f"(predicted {exact_text(expected)})"
    counts = {k: digits.count(k) for k in _DIGITS if digits.count(k)}
    verdict = "violated" if max(difference, issue) > declared else "not refuted"
    return {
        "verdict": verdict,
        "method": "sensitivity: digit analysis of the pairwise mean (dynamic programme), pair re-run through "
        "the library, compared exactly",
        "evidence": f"x: 1024 records 2**50+k/4 with counts {counts} (first k={digits[0]}), y: first -> "
        f"k={replacement}: SSD {fx!r} and {fy!r}, exact difference {exact_text(difference)} {agrees} > "
        f"map(2) = {float(declared)!r}; issue's pair: {exact_text(issue)}"[:300],
        "magnitude": f"computed sensitivity >= {exact_text(difference)} = {float(difference / declared):.3g} x "
        f"declared {float(declared):.6g}",
    }


AUDITS: dict[str, Callable[[str, int, int], dict[str, Any]]] = {
    "casacuberta-opendp-sum": _opendp_bounded_sum,
    "opendp-2923-ssd": _opendp_ssd,
}
