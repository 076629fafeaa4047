"""No accountant's bound is ever below the exact epsilon of a composition.

The exact ``eps_k(delta)`` of a ``k``-fold GTM comes from its privacy loss distribution
(:mod:`dpverify.verify.privacy._pld`), an exact computation independent of the accountants' formulas;
every accountant guarantee must lie at or above it.  The ratios are printed (``pytest -s``).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpverify.samplers import InvalidArgument
from dpverify.specs import GtmSpec
from dpverify.verify import gtm_table
from dpverify.verify.engine._results import Verdict
from dpverify.verify.privacy._looseness import (
    LoosenessRow,
    check_accountants_sound,
    composition_looseness,
    epsilon_upper_bound,
)
from dpverify.verify.privacy._pld_enclosure import Enclosure

DELTA = Fraction(1, 10**6)


def _table(rows: list[LoosenessRow]) -> str:
    names = list(rows[0].bounds)
    lines = ["k    exact eps_k            " + "  ".join(f"{n:>10}" for n in names)]
    for row in rows:
        ratios = ("-" if row.ratio(n) is None else f"{row.ratio(n):.4f}" for n in names)
        lines.append(
            f"{row.k:<4} [{float(row.exact.low):.6f}, {float(row.exact.high):.6f}]  "
            + "  ".join(f"{r:>10}" for r in ratios)
        )
    return "\n".join(lines)


def _sound(spec: GtmSpec, ks: list[int]) -> list[LoosenessRow]:
    eps_bar, rows = composition_looseness(gtm_table(spec), spec.neighbours(), ks, DELTA)
    print(
        f"\nGTM alpha={spec.alpha}, n={spec.n}, T={spec.T}; per-step eps_bar={float(eps_bar)}; "
        f"bound / exact eps_k(1e-6):\n{_table(rows)}"
    )
    result = check_accountants_sound(rows, eps_bar=eps_bar)
    assert result.verdict is Verdict.PROVED, f"{result.summary}\n{_table(rows)}"
    return rows


def test_every_accountant_is_at_or_above_the_exact_epsilon_of_a_theorem_7_1_gtm() -> None:
    rows = _sound(GtmSpec.create("1/2", 10, 3 * 2**10), [1, 2, 3, 5, 10, 20, 50, 100])
    assert all(row.exact.log_argument is not None for row in rows)  # Theorem 7.1: eps_k = ln R exactly
    # This GTM's worst pair is randomized response with eps = ln 2, for which the optimal
    # composition (KOV) is exact: its ratio is 1 up to eps_bar's rounding.
    assert all(abs(row.ratio("kov") - 1) < 1e-9 for row in rows)
    # The basic bound k*eps is nearly exact for one step (delta > 0 lowers eps_1 a little); DRV is loose.
    assert rows[0].ratio("basic") == pytest.approx(1, rel=1e-5) and rows[0].ratio("drv") > 2


def test_every_accountant_is_at_or_above_the_certified_epsilon_of_an_arbitrary_T_gtm() -> None:
    rows = _sound(GtmSpec.create("2/5", 6, 10**5), [1, 10, 100])
    assert all(row.exact.log_argument is None and row.exact.gap > 0 for row in rows)  # no common base: certified


@pytest.mark.slow
def test_every_accountant_is_sound_for_k_from_1_to_100() -> None:
    _sound(GtmSpec.create("1/3", 10, 4 * 3**10), list(range(1, 101)))


def test_an_accountant_below_the_exact_value_is_a_violation() -> None:
    exact = Enclosure(Fraction(5), Fraction(5), value=Fraction(5))
    rows = [LoosenessRow(3, exact, {"kov": Fraction(5), "broken": Fraction(49, 10)}, "broken")]
    result = check_accountants_sound(rows)
    assert result.verdict is Verdict.VIOLATED and result.evidence["bound"] == "broken" and result.evidence["k"] == 3


def test_an_infinite_loss_refuses_the_accountants() -> None:
    spec = GtmSpec.create("1/2", 5, 10)  # below the support bound: alpha = 0
    with pytest.raises(InvalidArgument, match="infinite privacy loss"):
        composition_looseness(gtm_table(spec), spec.neighbours(), [1], DELTA)


def test_the_per_step_epsilon_is_a_certified_upper_bound_on_the_grid() -> None:
    import mpmath

    for alpha in (Fraction(1, 2), Fraction(2, 5), Fraction(999, 1000), Fraction(1, 10**30)):
        bar = epsilon_upper_bound(alpha, 9)
        with mpmath.workdps(60):
            exact = mpmath.log(mpmath.mpf(alpha.denominator) / alpha.numerator)
            bar_mpf = mpmath.mpf(bar.numerator) / bar.denominator
            assert bar_mpf >= exact and bar_mpf - mpmath.mpf(10) ** -9 < exact
    assert epsilon_upper_bound(Fraction(1)) == 0
