"""The GTM verdict read from the O(n) distinct neighbour pairs equals the full-table scan exactly.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers": the
support condition of §5, Theorem 7.1's ``alpha = 1/D``, ``T = (D+1) D**n``, and ``T`` below
the support bound (infinite privacy loss).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.specs import GtmSpec
from dpverify.specs import gtm as specs_gtm
from dpverify.verify.privacy import _gtm_fast
from dpverify.verify.privacy._gtm_fast import gtm_every_output_possible, gtm_tightest_alpha
from dpverify.verify.privacy._gtm_privacy import gtm_privacy, gtm_table
from dpverify.verify.privacy._ratio import tightest_alpha


def _agree(spec: GtmSpec) -> None:
    table = gtm_table(spec)
    assert gtm_tightest_alpha(spec) == tightest_alpha(table, spec.neighbours())
    assert gtm_every_output_possible(spec) == all(all(row.weights) for row in table.values())
    assert gtm_privacy(spec) == gtm_privacy(spec, table=table)


alphas = st.builds(Fraction, st.integers(1, 30), st.integers(2, 31)).filter(lambda a: 0 < a < 1)


@settings(max_examples=300, deadline=None)
@given(alpha=alphas, n=st.integers(1, 12), T=st.integers(1, 10**6))
def test_fast_equals_full_table_for_any_T(alpha: Fraction, n: int, T: int) -> None:
    _agree(GtmSpec.create(alpha, n, T))


@settings(max_examples=150, deadline=None)
@given(alpha=alphas, n=st.integers(1, 10), shift=st.integers(-3, 3))
def test_fast_equals_full_table_at_the_support_bound(alpha: Fraction, n: int, shift: int) -> None:
    bound = GtmSpec.create(alpha, n, 1).support_bound()
    for T in {bound.__floor__() + shift, bound.__ceil__() + shift}:
        if T >= 1:
            _agree(GtmSpec.create(alpha, n, T))


@pytest.mark.parametrize("D", [2, 3, 5, 7])
@pytest.mark.parametrize("n", [1, 2, 3, 8, 25])
@pytest.mark.parametrize("multiple", [1, 2])
def test_fast_equals_full_table_on_theorem_7_1(D: int, n: int, multiple: int) -> None:
    spec = GtmSpec.create(Fraction(1, D), n, multiple * (D + 1) * D**n)
    _agree(spec)
    assert gtm_tightest_alpha(spec).alpha == Fraction(1, D)


@pytest.mark.parametrize("T", [1, 2, 3, 10, 100, 486, 487, 1000])
def test_fast_equals_full_table_around_the_readme_instance(T: int) -> None:
    _agree(GtmSpec.create("1/3", 5, T))


def test_python_ints_give_the_same_integers(monkeypatch: pytest.MonkeyPatch) -> None:
    specs = [GtmSpec.create("2/7", 9, 10**7 + 3), GtmSpec.create("1/3", 6, 4 * 3**6), GtmSpec.create("1/2", 5, 10)]
    fast = [gtm_tightest_alpha(s) for s in specs]
    monkeypatch.setattr(_gtm_fast, "_gmpy2", None)
    monkeypatch.setattr(specs_gtm, "_gmpy2", None)
    specs_gtm._offset_tables.cache_clear()
    try:
        assert [gtm_tightest_alpha(s) for s in specs] == fast
        for spec in specs:
            _agree(spec)
    finally:
        specs_gtm._offset_tables.cache_clear()


def test_a_given_table_is_the_one_judged() -> None:
    spec = GtmSpec.create("1/3", 3, 4 * 3**3)
    table = dict(gtm_table(spec))
    table[1] = gtm_table(GtmSpec.create("1/3", 3, 1000))[1]
    assert gtm_privacy(spec)["alpha_exact"] == "1/3"
    assert gtm_privacy(spec, table=table) != gtm_privacy(spec)
    assert gtm_privacy(spec, table=table)["alpha_exact"] == str(tightest_alpha(table, spec.neighbours()).alpha)
