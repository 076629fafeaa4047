"""How far each accountant's bound lies above the exact epsilon of a composition.

An accountant (:func:`dpverify.specs.account`) bounds the privacy of a ``k``-fold composition
from the per-step guarantee alone.  For a finite mechanism with exact PMFs (a GTM) dpverify
also knows the exact answer: the ``k``-fold composition's ``eps_k(delta)``, the worst case over
ordered neighbouring pairs of its privacy loss distribution
(:func:`dpverify.verify.composed_epsilon`).  Every accountant's guarantee must lie at or above
it; one below it is a soundness bug of the accountant, reported as violated.

The per-step guarantee the accountants receive is pure ``eps``-DP with the mechanism's exact
tightest ratio ``alpha`` (:func:`dpverify.verify.tightest_alpha`): ``eps = ln(1/alpha)``.  That
is irrational, so the accountants get a rational ``eps_bar >= ln(1/alpha)`` (the certified
upper end rounded up at ``digits`` decimals).  A mechanism that is ``eps``-DP is ``eps_bar``-DP,
so every bound at ``eps_bar`` is still a valid bound on the mechanism: the comparison is sound,
and loose by at most ``k * 10^-digits``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from dpverify.samplers import InvalidArgument
from dpverify.specs import ExactPmf, account
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.verify.engine._arguments import need_count, need_neighbours, need_rational, need_table
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.privacy._pld_enclosure import Enclosure
from dpverify.verify.privacy._pld_worst_case import composed_epsilon
from dpverify.verify.privacy._ratio import tightest_alpha

__all__ = ["LoosenessRow", "check_accountants_sound", "composition_looseness", "epsilon_upper_bound"]


def epsilon_upper_bound(alpha: Fraction, digits: int = 12) -> Fraction:
    """The smallest multiple of ``10^-digits`` that is certainly ``>= ln(1/alpha)``, for a
    rational ``alpha`` in (0, 1].

    >>> epsilon_upper_bound(Fraction(1, 2), 6) == Fraction(693148, 10**6)   # ln 2 = 0.6931471...
    True
    """
    alpha = need_rational("alpha", alpha)
    digits = need_count("digits", digits, low=1, high=100)
    if not 0 < alpha <= 1:
        raise InvalidArgument(f"alpha must be a rational in (0, 1]; got alpha={fraction_text(alpha)}.")
    if alpha == 1:
        return Fraction(0)
    scale = 10**digits
    with interval_precision(4 * digits + 64):
        high = mpmath.mp.make_mpf((iv.log(iv_rational(1 / alpha)) * scale)._mpi_[1])
    return Fraction(int(mpmath.ceil(high)), scale)


@dataclass(frozen=True, slots=True)
class LoosenessRow:
    """One ``k``: the exact ``eps_k(delta)`` (an enclosure) and each accountant's guarantee.

    ``bounds`` maps a bound's name to its guarantee ``eps'`` (None where it does not apply or is
    vacuous); ``ratio(name)`` is ``eps' / eps_k`` (against the enclosure's upper end, so a
    ratio is never overstated)."""

    k: int
    exact: Enclosure
    bounds: Mapping[str, Fraction | None]
    chosen: str | None

    def ratio(self, name: str) -> float | None:
        bound, high = self.bounds.get(name), self.exact.high
        if bound is None or high is None or high == 0:
            return None
        return float(bound / high)

    def unsound(self) -> dict[str, Fraction]:
        """The guarantees certainly below the exact value: each is an accountant's soundness bug."""
        low = self.exact.low
        if low is None:  # the composition has infinite loss: every finite guarantee is wrong
            return {name: b for name, b in self.bounds.items() if b is not None}
        return {name: b for name, b in self.bounds.items() if b is not None and b < low}

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "exact": self.exact.to_json(),
            "chosen": self.chosen,
            "bounds": {n: None if b is None else fraction_text(b) for n, b in self.bounds.items()},
            "ratios": {n: self.ratio(n) for n in self.bounds},
        }


def composition_looseness(
    table: Mapping[Hashable, ExactPmf],
    neighbours: Iterable[tuple[Hashable, Hashable]],
    ks: Sequence[int],
    delta: object,
    *,
    digits: int = 12,
    grid: object = None,
) -> tuple[Fraction, list[LoosenessRow]]:
    """``(eps_bar, rows)``: for each ``k`` in ``ks``, the exact ``eps_k(delta)`` of the
    ``k``-fold composition of the mechanism ``table`` and every accountant's guarantee from the
    per-step pure ``eps_bar``-DP (see the module docstring); ``grid`` is passed to
    :func:`dpverify.verify.composed_epsilon` for mechanisms without an exact path."""
    table = need_table("table", table)
    pairs = need_neighbours("neighbours", neighbours, table)
    delta_ = need_rational("delta", delta)
    if not 0 < delta_ < 1:
        raise InvalidArgument(f"delta must be a rational in (0, 1); got delta={fraction_text(delta_)}.")
    ks = [need_count("k", k, low=1, high=10_000) for k in ks]
    alpha = tightest_alpha(table, pairs).alpha
    if alpha == 0:
        raise InvalidArgument("the mechanism has an infinite privacy loss (tightest alpha = 0): no accountant applies.")
    eps_bar = epsilon_upper_bound(alpha, digits)
    rows = []
    for k in ks:
        exact = composed_epsilon(table, pairs, k, delta_, grid=grid).bound
        report = account(eps_bar, 0, k, delta_, mechanism="pure")
        bounds = {b.name: (b.epsilon_value() if b.guarantee else None) for b in report.bounds}
        rows.append(LoosenessRow(k, exact, bounds, report.chosen))
    return eps_bar, rows


def check_accountants_sound(rows: Sequence[LoosenessRow], *, eps_bar: Fraction | None = None) -> CheckResult:
    """Proved when no accountant's guarantee lies below the exact ``eps_k`` at any ``k``;
    violated, naming the bound, ``k`` and both values, when one does."""
    for row in rows:
        unsound = row.unsound()
        if unsound:
            name, bound = min(unsound.items(), key=lambda item: item[1])
            exact = row.exact
            summary = (
                f"the {name} bound eps' <= {float(bound):.12g} at k={row.k} lies below the exact "
                f"eps_k >= {'inf' if exact.low is None else f'{float(exact.low):.12g}'}: an unsound accountant"
            )
            return CheckResult(
                "accountants",
                Verdict.VIOLATED,
                summary,
                evidence={
                    "k": row.k,
                    "bound": name,
                    "epsilon_bound": fraction_text(bound),
                    "exact": exact.to_json(),
                    "eps_bar": None if eps_bar is None else fraction_text(eps_bar),
                },
            )
    worst = {
        name: min((x for x in (r.ratio(name) for r in rows) if x is not None), default=None)
        for name in (rows[0].bounds if rows else ())
    }
    summary = (
        f"every accountant's guarantee is at or above the exact eps_k at k = {', '.join(str(r.k) for r in rows[:8])}"
        f"{', ...' if len(rows) > 8 else ''}; smallest ratios: "
        + ", ".join(f"{n} {v:.4g}" for n, v in worst.items() if v is not None)
    )
    return CheckResult(
        "accountants", Verdict.PROVED, summary, evidence={"rows": [r.to_json() for r in rows], "smallest_ratio": worst}
    )
