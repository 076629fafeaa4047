"""Tightest pure-DP alpha of exact tables, against a brute-force Fraction oracle."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from dpverify.specs import ExactPmf, GtmSpec, PureDpClaim
from dpverify.verify import Verdict, check_pure_dp, gtm_privacy, gtm_table, tightest_alpha


def _oracle_alpha(table: dict[int, ExactPmf], neighbours: list[tuple[int, int]]) -> Fraction:
    ratios = [Fraction(1)]
    for q, q2 in neighbours:
        for a, b in ((q, q2), (q2, q)):
            for output in set(table[a].outputs) | set(table[b].outputs):
                p, p2 = table[a].probability(output), table[b].probability(output)
                if p2 > 0:
                    ratios.append(p / p2)
    return min(ratios)


@st.composite
def tables(draw: st.DrawFn) -> tuple[dict[int, ExactPmf], list[tuple[int, int]]]:
    inputs = draw(st.integers(2, 4))
    outputs = draw(st.integers(1, 4))
    table = {}
    for q in range(inputs):
        weights = draw(st.lists(st.integers(0, 5), min_size=outputs, max_size=outputs).filter(any))
        table[q] = ExactPmf.from_fractions({x: Fraction(w, sum(weights)) for x, w in enumerate(weights)})
    return table, [(q, q + 1) for q in range(inputs - 1)]


@given(tables())
def test_tightest_alpha_matches_the_brute_force_oracle(case: tuple) -> None:
    table, neighbours = case
    loss = tightest_alpha(table, neighbours)
    assert loss.alpha == _oracle_alpha(table, neighbours)
    if loss.witness is not None:
        w = loss.witness
        assert w.p == table[w.q].probability(w.output)
        assert w.p_prime == table[w.q_prime].probability(w.output)
        assert w.p == loss.alpha * w.p_prime


def test_rounded_gtm_witness_is_exact() -> None:
    spec = GtmSpec.create("1/3", 5, 1000)
    loss = tightest_alpha(gtm_table(spec), spec.neighbours())
    assert loss.alpha == Fraction(9, 28)
    w = loss.witness
    assert (w.q, w.q_prime, w.output, w.p, w.p_prime) == (0, 1, 3, Fraction(9, 500), Fraction(7, 125))
    result = check_pure_dp(loss, spec.claim())
    assert result.verdict is Verdict.VIOLATED and result.evidence["witness"]["ratio"] == "9/28"


def test_an_impossible_output_is_infinite_loss() -> None:
    spec = GtmSpec.create("1/2", 5, 10)
    loss = tightest_alpha(gtm_table(spec), spec.neighbours())
    assert loss.infinite and loss.epsilon == float("inf")
    assert loss.witness.p == 0 < loss.witness.p_prime


def test_outputs_missing_from_one_row_count_as_zero() -> None:
    table = {
        0: ExactPmf.from_fractions({"a": Fraction(1)}),
        1: ExactPmf.from_fractions({"a": Fraction(1, 2), "b": Fraction(1, 2)}),
    }
    loss = tightest_alpha(table, [(0, 1)])
    assert loss.infinite and loss.witness.output == "b" and loss.witness.q == 0


def test_claim_at_the_tightest_alpha_proves_and_just_above_fails() -> None:
    spec = GtmSpec.create("1/3", 5, 1000)
    loss = tightest_alpha(gtm_table(spec), spec.neighbours())
    assert check_pure_dp(loss, PureDpClaim(Fraction(9, 28))).verdict is Verdict.PROVED
    assert check_pure_dp(loss, PureDpClaim(Fraction(9, 28) + Fraction(1, 10**9))).verdict is Verdict.VIOLATED


def test_privacy_report_fields_for_a_theorem_7_1_instance() -> None:
    report = gtm_privacy(GtmSpec.create("1/5", 7, 6 * 5**7))
    assert report["alpha_exact"] == "1/5"
    assert report["claim_holds"] and report["thm71_instance"] and report["full_support"]
    assert abs(report["epsilon"] - 1.6094379124341003) < 1e-12
    assert report["witness"]["p"] == "1/6" and report["witness"]["p_prime"] == "5/6"


def test_privacy_report_with_unbounded_loss() -> None:
    report = gtm_privacy(GtmSpec.create("1/2", 5, 10), Fraction(1, 100))
    assert report["alpha_exact"] == "0" and report["epsilon"] == "Infinity"
    assert not report["full_support"] and not report["claim_holds"]
