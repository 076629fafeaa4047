"""The Z3 ratio-bound check and its SMT-LIB export, cross-checked against the exact engine.

``dpverify.verify.privacy._ratio.tightest_alpha`` computes the tightest ratio with Fractions; the Z3 check
reaches its verdict and witness by a different route (a selector over the distinct entries),
so agreement between the two is a real cross-check.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
import z3
from hypothesis import given
from hypothesis import strategies as st

from dpverify.samplers import InvalidArgument
from dpverify.specs import ExactPmf, GtmSpec, PureDpClaim
from dpverify.verify import CheckResult, Verdict, check_pure_dp, tightest_alpha
from dpverify.verify.privacy import _smt
from dpverify.verify.privacy._smt import check_ratio_bound_z3, smtlib_obligation


def _gtm(alpha: str, n: int, T: int) -> tuple[dict, tuple, PureDpClaim]:
    spec = GtmSpec.create(alpha, n, T)
    return {q: spec.pmf(q) for q in spec.inputs()}, spec.neighbours(), spec.claim()


def _witness(result_evidence: dict) -> tuple[Fraction, Fraction]:
    w = result_evidence["witness"]
    return Fraction(w["p"]), Fraction(w["p_prime"])


def _assert_witness_is_in_table(table: dict, w: dict) -> None:
    assert table[w["q"]].probability(w["output"]) == Fraction(w["p"])
    assert table[w["q_prime"]].probability(w["output"]) == Fraction(w["p_prime"])


# --- verdicts on the paper's instances ----------------------------------------------------------


@pytest.mark.parametrize("D", [2, 3, 4])
def test_theorem_7_1_instance_is_proved(D: int) -> None:
    n = 4
    table, neighbours, claim = _gtm(f"1/{D}", n, (D + 1) * D**n)
    result = check_ratio_bound_z3(table, neighbours, claim)
    assert result.check == "z3"
    assert result.verdict is Verdict.PROVED, result.summary
    assert result.evidence["witness"] is None
    assert result.evidence["claim_alpha"] == f"1/{D}"


def test_rounded_gtm_is_violated_with_a_finite_ratio() -> None:
    table, neighbours, claim = _gtm("1/3", 5, 1000)
    result = check_ratio_bound_z3(table, neighbours, claim)
    exact = check_pure_dp(tightest_alpha(table, neighbours), claim)
    assert result.verdict is Verdict.VIOLATED and exact.verdict is Verdict.VIOLATED
    p, p_prime = _witness(result.evidence)
    assert p > 0 and p / p_prime < Fraction(1, 3)
    w = result.evidence["witness"]
    _assert_witness_is_in_table(table, w)
    # the refined witness is the tightest ratio, the same number the exact engine finds
    assert result.evidence["witness_is_tightest"] is True
    assert w["ratio"] == exact.evidence["alpha_exact"] == "9/28"


def test_below_the_support_bound_is_infinite_loss() -> None:
    table, neighbours, claim = _gtm("1/2", 5, 10)
    result = check_ratio_bound_z3(table, neighbours, claim)
    assert result.verdict is Verdict.VIOLATED
    p, p_prime = _witness(result.evidence)
    assert p == 0 and p_prime > 0
    _assert_witness_is_in_table(table, result.evidence["witness"])
    assert "infinite privacy loss" in result.summary
    assert check_pure_dp(tightest_alpha(table, neighbours), claim).verdict is Verdict.VIOLATED


def test_result_is_json_ready() -> None:
    table, neighbours, claim = _gtm("1/3", 5, 1000)
    data = json.loads(json.dumps(check_ratio_bound_z3(table, neighbours, claim).to_json()))
    assert data["verdict"] == "violated" and data["check"] == "z3"
    assert set(data["evidence"]["witness"]) == {"q", "q_prime", "output", "p", "p_prime", "ratio"}


# --- hand-made tables: zeros, unequal denominators, unaligned outputs -----------------------------


def test_zero_under_both_inputs_constrains_nothing() -> None:
    row = ExactPmf((0, 1, 2), (1, 1, 0), 2)
    result = check_ratio_bound_z3({"a": row, "b": row}, [("a", "b")], PureDpClaim(Fraction(1)))
    assert result.verdict is Verdict.PROVED, result.summary


def test_unequal_denominators_are_compared_exactly() -> None:
    # P(.|a) = (1/2, 1/2) over den 2; P(.|b) = (1/3, 2/3) over den 6: tightest ratio 2/3
    table = {"a": ExactPmf((0, 1), (1, 1), 2), "b": ExactPmf((0, 1), (2, 4), 6)}
    proved = check_ratio_bound_z3(table, [("a", "b")], PureDpClaim(Fraction(2, 3)))
    violated = check_ratio_bound_z3(table, [("a", "b")], PureDpClaim(Fraction(3, 4)))
    assert proved.verdict is Verdict.PROVED
    assert violated.verdict is Verdict.VIOLATED
    assert violated.evidence["witness"] == {
        "q": "b",
        "q_prime": "a",
        "output": 0,
        "p": "1/3",
        "p_prime": "1/2",
        "ratio": "2/3",
    }


def test_an_output_missing_from_one_row_is_infinite_loss() -> None:
    table = {
        "a": ExactPmf.from_fractions({0: Fraction(1, 2), 1: Fraction(1, 2)}),
        "b": ExactPmf.from_fractions({1: Fraction(3, 4), 2: Fraction(1, 4)}),
    }
    result = check_ratio_bound_z3(table, [("a", "b")], PureDpClaim(Fraction(1, 100)))
    assert result.verdict is Verdict.VIOLATED
    w = result.evidence["witness"]
    assert w["p"] == "0" and Fraction(w["p_prime"]) > 0
    _assert_witness_is_in_table(table, w)


# --- the SMT-LIB export --------------------------------------------------------------------------


def _recheck(text: str) -> tuple[z3.CheckSatResult, z3.Solver]:
    solver = z3.Solver()  # fresh: nothing is shared with the check that wrote the text
    solver.add(z3.parse_smt2_string(text))
    return solver.check(), solver


def test_smtlib_of_a_proved_instance_is_unsat() -> None:
    table, neighbours, claim = _gtm("1/3", 4, 4 * 3**4)
    text = smtlib_obligation(table, neighbours, claim)
    assert "(set-logic QF_LIA)" in text and text.rstrip().endswith("(exit)")
    assert "; unsat:" in text and "; sat:" in text
    assert _recheck(text)[0] == z3.unsat


@pytest.mark.parametrize(("alpha", "n", "T"), [("1/3", 5, 1000), ("1/2", 5, 10)])
def test_smtlib_of_a_violated_instance_is_sat_and_its_model_names_a_violation(alpha: str, n: int, T: int) -> None:
    table, neighbours, claim = _gtm(alpha, n, T)
    text = smtlib_obligation(table, neighbours, claim)
    status, solver = _recheck(text)
    assert status == z3.sat
    # map the model's selector back through the comment above its case
    k = solver.model().eval(z3.Int("i"), model_completion=True).as_long()
    found = re.search(rf"^; i={k}: q=(\d+), q'=(\d+), x=(\d+)$", text, re.MULTILINE)
    assert found is not None
    q, q_prime, x = map(int, found.groups())
    assert abs(q - q_prime) == 1
    assert claim.alpha * table[q_prime].probability(x) > table[q].probability(x)


def test_smtlib_obligation_has_no_floats() -> None:
    text = smtlib_obligation(*_gtm("2/5", 3, 10**30))
    body = "\n".join(line for line in text.splitlines() if not line.startswith(";"))
    assert not re.search(r"\d\.\d", body)


# --- agreement with the exact engine ------------------------------------------------------------


@pytest.mark.parametrize("alpha", ["1/2", "1/3", "2/5"])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
@pytest.mark.parametrize("T", [1, 7, 10, 100, 1000, 10**6])
def test_agrees_with_the_exact_engine(alpha: str, n: int, T: int) -> None:
    table, neighbours, claim = _gtm(alpha, n, T)
    _assert_agreement(table, neighbours, claim)


@given(
    alpha=st.integers(2, 12).flatmap(lambda d: st.integers(1, d - 1).map(lambda a: Fraction(a, d))),
    claim=st.integers(2, 12).flatmap(lambda d: st.integers(1, d).map(lambda a: Fraction(a, d))),
    n=st.integers(1, 6),
    T=st.integers(1, 10**5),
)
def test_agrees_with_the_exact_engine_on_drawn_parameters(alpha: Fraction, claim: Fraction, n: int, T: int) -> None:
    table, neighbours, _ = _gtm(str(alpha), n, T)
    _assert_agreement(table, neighbours, PureDpClaim(claim))


@pytest.mark.parametrize(("alpha", "n", "T"), [("1/3", 100, 4 * 3**100), ("1/3", 100, 10**40)])
def test_agrees_with_the_exact_engine_over_several_blocks(alpha: str, n: int, T: int) -> None:
    table, neighbours, claim = _gtm(alpha, n, T)
    result = _assert_agreement(table, neighbours, claim)
    assert result.evidence["distinct_entries"] > _smt._BLOCK


@pytest.mark.parametrize(("alpha", "n", "T"), [("1/3", 5, 1000), ("1/2", 5, 10), ("1/3", 6, 7000)])
def test_tiny_blocks_refine_the_witness_across_blocks(
    monkeypatch: pytest.MonkeyPatch, alpha: str, n: int, T: int
) -> None:
    monkeypatch.setattr(_smt, "_BLOCK", 3)
    table, neighbours, claim = _gtm(alpha, n, T)
    assert _assert_agreement(table, neighbours, claim).verdict is Verdict.VIOLATED


def test_every_block_size_finds_a_single_violating_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    # only P(4|a) / P(4|b) = (5/15) / (9/19) = 19/27 lies below 3/4
    outputs = tuple(range(5))
    table = {
        "a": ExactPmf(outputs, (1, 2, 3, 4, 5), 15),
        "b": ExactPmf(outputs, (1, 2, 3, 4, 9), 19),
    }
    claim = PureDpClaim(Fraction(3, 4))
    m = check_ratio_bound_z3(table, [("a", "b")], claim).evidence["distinct_entries"]
    for block in range(1, m + 1):
        monkeypatch.setattr(_smt, "_BLOCK", block)
        result = check_ratio_bound_z3(table, [("a", "b")], claim)
        assert result.verdict is Verdict.VIOLATED, f"_BLOCK={block}"
        assert (result.evidence["witness"]["q"], result.evidence["witness"]["output"]) == ("a", 4)
        assert result.evidence["witness"]["ratio"] == "19/27"


def _assert_agreement(table: dict, neighbours: tuple, claim: PureDpClaim) -> CheckResult:
    loss = tightest_alpha(table, neighbours)
    exact = check_pure_dp(loss, claim)
    result = check_ratio_bound_z3(table, neighbours, claim)
    assert result.verdict is exact.verdict, (result.summary, exact.summary)
    if result.verdict is Verdict.VIOLATED:
        w = result.evidence["witness"]
        _assert_witness_is_in_table(table, w)
        assert Fraction(w["ratio"]) == loss.alpha  # Z3's refined witness is the tightest one
    return result


# --- errors and unknowns -------------------------------------------------------------------------


def test_a_neighbour_missing_from_the_table_is_refused() -> None:
    table, _, claim = _gtm("1/3", 2, 36)
    with pytest.raises(InvalidArgument, match="q=7"):
        check_ratio_bound_z3(table, [(0, 7)], claim)


@pytest.mark.parametrize("timeout_ms", [0, -5, 1.5, "soon"])
def test_a_bad_timeout_is_refused(timeout_ms: object) -> None:
    table, neighbours, claim = _gtm("1/3", 2, 36)
    with pytest.raises(InvalidArgument, match="timeout_ms"):
        check_ratio_bound_z3(table, neighbours, claim, timeout_ms=timeout_ms)  # type: ignore


def test_an_unknown_answer_is_inconclusive_with_the_solvers_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(z3.Solver, "check", lambda self, *args: z3.unknown)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "timeout")
    table, neighbours, claim = _gtm("1/3", 4, 4 * 3**4)
    result = check_ratio_bound_z3(table, neighbours, claim)
    assert result.verdict is Verdict.INCONCLUSIVE
    assert result.reason == "timeout"
    assert result.evidence["witness"] is None


def test_an_unknown_after_a_violation_keeps_the_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    real_check = z3.Solver.check
    answers: list[z3.CheckSatResult] = []

    def first_real_then_unknown(self: z3.Solver, *args: object) -> z3.CheckSatResult:
        answers.append(real_check(self) if not answers else z3.unknown)
        return answers[-1]

    monkeypatch.setattr(z3.Solver, "check", first_real_then_unknown)
    table, neighbours, claim = _gtm("1/3", 5, 1000)  # every violation is finite: refinement runs
    result = check_ratio_bound_z3(table, neighbours, claim)
    assert answers[0] == z3.sat
    assert result.verdict is Verdict.VIOLATED
    assert result.evidence["witness_is_tightest"] is False
    _assert_witness_is_in_table(table, result.evidence["witness"])
