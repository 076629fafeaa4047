"""A proof from a bounded enumeration says how close it is: ``proved within U``, its total-variation
bound, the default tolerance of 10^-6 and the reason a spec must give for a looser one, and the
(eps, delta) that interval tables prove about privacy.

The samplers here are small rejection loops whose exact laws are known by hand, so every bound is
compared with the exact distance it bounds.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Hashable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import pytest

from dpverify.samplers import RandomSource
from dpverify.specs import (
    DEFAULT_MAX_UNEXPLORED,
    Attempt,
    Bounded,
    Case,
    SamplesPmf,
    Spec,
    SpecError,
)
from dpverify.verify.engine._intervals import check_intervals
from dpverify.verify.engine._results import (
    CheckResult,
    Verdict,
    loosest_tolerance,
    tolerance_text,
)
from dpverify.verify.gate._gate import gate_json, outcome_lines
from dpverify.verify.gate._spec_run import run_case
from dpverify.verify.reports._audit_privacy import _interval_loss

SEED = 3
ROOT = Path(__file__).resolve().parents[1]


def _after_smoke(outcome: Any) -> list[Any]:
    """The case's checks after the smoke run (every case with a sampler opens with it)."""
    return [c for c in outcome.checks if c.check != "smoke"]


def fair_bit(rng: RandomSource) -> int:
    """0 or 1 with probability 1/2 each: ``randbelow(4)`` until it is below 2 (an unmarked loop, so a
    bounded enumeration leaves the retries past its budget unexplored)."""
    while True:
        u = rng.randbelow(4)
        if u < 2:
            return u


def fair_third(rng: RandomSource) -> int:
    """0, 1 or 2 with probability 1/3 each: ``randbelow(4)`` until it is below 3."""
    while True:
        u = rng.randbelow(4)
        if u < 3:
            return u


def _point(value: Fraction) -> tuple[Fraction, Fraction]:
    return value, value


#: An ideal half a percent off the fair bit at both outputs: P(0) = 0.5025, P(1) = 0.4975.
OFF = {0: Fraction(1, 2) * Fraction(1005, 1000), 1: Fraction(1, 2) * Fraction(995, 1000)}

OFF_BY_HALF_A_PERCENT = Spec(
    name="fair-bit-against-an-ideal-half-a-percent-off",
    sampler=fair_bit,
    parameters={},
    claim=SamplesPmf(),
    ideal=lambda p, output, dps: _point(OFF[output]),
    outputs=lambda p: (0, 1),
    cases=(Case({}, "proved", sample_inputs=()),),
)


# --- the default tolerance ---------------------------------------------------------------------------


def test_the_default_tolerance_is_tight() -> None:
    assert DEFAULT_MAX_UNEXPLORED == Fraction(1, 10**6)
    assert Bounded().max_unexplored == DEFAULT_MAX_UNEXPLORED and Bounded().min_mass == Fraction(1, 10**9)


def test_a_sampler_half_a_percent_off_was_proved_under_the_old_default_and_now_says_by_how_much() -> None:
    """min_mass 1/20000 leaves the loop's eighth round, 2^-7 of the mass, unexplored: the ideal lies
    inside [E(o), E(o) + 1/128] at both outputs, which the old default (1/100) accepted as proved."""
    U = Fraction(1, 128)
    old = check_intervals(
        fair_bit, lambda o, dps: _point(OFF[o]), (0, 1), min_mass=Fraction(1, 20000), max_unexplored=Fraction(1, 100)
    )
    assert old.verdict is Verdict.PROVED and old.within == U  # never a bare "proved" any more
    assert old.verdict_text == "proved within U = 0.00782"
    default = replace(OFF_BY_HALF_A_PERCENT, enumeration=Bounded(min_mass=Fraction(1, 20000)))
    outcome = run_case(default, default.cases[0], seed=SEED, samples=100)
    intervals = _after_smoke(outcome)[0]
    assert intervals.check == "intervals" and intervals.verdict is Verdict.INCONCLUSIVE
    assert "max_unexplored=1/1000000" in intervals.summary and outcome.outcome == "inconclusive"


def test_a_sampler_half_a_percent_off_is_violated_at_the_default_budget() -> None:
    outcome = run_case(OFF_BY_HALF_A_PERCENT, OFF_BY_HALF_A_PERCENT.cases[0], seed=SEED, samples=100)
    intervals = _after_smoke(outcome)[0]
    assert intervals.verdict is Verdict.VIOLATED and intervals.within is None
    assert intervals.evidence["output"] == 0 and not outcome.met


@pytest.mark.parametrize("kind", [Bounded, lambda **kw: Attempt(fair_bit, **kw)])
@pytest.mark.parametrize("loose", [Fraction(1, 100), "1/50", None])
def test_a_loose_tolerance_without_a_reason_is_a_spec_error(kind: object, loose: object) -> None:
    with pytest.raises(SpecError) as raised:
        kind(max_unexplored=loose)  # type: ignore[operator]
    message = str(raised.value)
    assert "\n" not in message and "max_unexplored" in message and "[0, 1/1000000]" in message
    assert f"max_unexplored={'None' if loose is None else Fraction(loose)}" in message  # the value given
    assert "tolerance_reason" in message  # and the way out


@pytest.mark.parametrize("reason", ["", "   ", 3])
def test_a_blank_or_non_string_reason_is_a_spec_error(reason: object) -> None:
    with pytest.raises(SpecError, match="tolerance_reason must be None or a non-empty string"):
        Bounded(max_unexplored=Fraction(1, 50), tolerance_reason=reason)  # type: ignore[arg-type]


def test_a_tolerance_at_or_below_the_default_needs_no_reason_and_one_outside_0_1_is_refused() -> None:
    assert Bounded(max_unexplored=DEFAULT_MAX_UNEXPLORED).tolerance_reason is None
    assert Bounded(max_unexplored=0).max_unexplored == 0
    with pytest.raises(SpecError, match=r"max_unexplored must be a rational in \[0, 1\]"):
        Bounded(max_unexplored=2, tolerance_reason="too loose to mean anything")
    with pytest.raises(SpecError, match=r"max_unexplored must be a rational in \[0, 1\]"):
        Bounded(max_unexplored=-1)


def test_a_declared_reason_is_carried_by_every_verdict_of_the_spec() -> None:
    why = "a coarse budget on purpose: this test reads the reason back"
    spec = replace(
        OFF_BY_HALF_A_PERCENT,
        name="fair-bit",
        ideal=lambda p, output, dps: _point(Fraction(1, 2)),
        enumeration=Bounded(min_mass=Fraction(1, 20000), max_unexplored=Fraction(1, 50), tolerance_reason=why),
    )
    outcome = run_case(spec, spec.cases[0], seed=SEED, samples=100)
    intervals = _after_smoke(outcome)[0]
    assert outcome.met and intervals.verdict is Verdict.PROVED and intervals.within == Fraction(1, 128)
    assert intervals.evidence["tolerance_reason"] == why and why in intervals.summary
    assert intervals.evidence["max_unexplored"] == "1/50"
    lines = outcome_lines(outcome)
    assert "got proved (interval proofs" in lines[0]
    assert any(line.split()[:5] == ["intervals", "proved", "within", "U", "="] for line in lines)


# --- the verdict, its text and its JSON ----------------------------------------------------------------


def test_an_exact_proof_stays_plain_and_a_proof_within_U_says_so() -> None:
    exact = check_intervals(
        lambda rng: rng.bernoulli(1, 3), lambda o, dps: _point(Fraction(1, 3) if o else Fraction(2, 3)), (True, False)
    )
    assert exact.verdict is Verdict.PROVED and exact.within is None and exact.verdict_text == "proved"
    assert "within" not in exact.to_json() and "equals the ideal PMF" in exact.summary
    approximate = check_intervals(fair_bit, lambda o, dps: _point(Fraction(1, 2)), (0, 1), min_mass=Fraction(1, 10**4))
    document = approximate.to_json()
    U = Fraction(document["evidence"]["unexplored"])
    assert approximate.within == U > 0 and document["within"] == document["evidence"]["unexplored"]
    assert Fraction(document["within_decimal"]) >= U  # rounded up, never understated
    assert document["within_decimal"] == tolerance_text(U) and approximate.verdict_text.endswith(
        document["within_decimal"]
    )
    assert f"U = {tolerance_text(U)}" in approximate.summary and "total variation <=" in approximate.summary


def test_within_is_only_for_proofs() -> None:
    with pytest.raises(ValueError, match="within"):
        CheckResult("intervals", Verdict.VIOLATED, "", within=Fraction(1, 10))
    with pytest.raises(ValueError, match="within"):
        CheckResult("intervals", Verdict.PROVED, "", within=Fraction(-1, 10))
    checks = [CheckResult("a", Verdict.PROVED, "", within=Fraction(1, 10)), CheckResult("b", Verdict.PROVED, "")]
    assert loosest_tolerance(checks) == Fraction(1, 10) and loosest_tolerance(checks[1:]) is None


def test_the_check_document_carries_within_and_validates_against_its_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    spec = replace(
        OFF_BY_HALF_A_PERCENT,
        name="fair-third",
        sampler=fair_third,
        ideal=lambda p, output, dps: _point(Fraction(1, 3)),
        outputs=lambda p: (0, 1, 2),
    )
    outcome = run_case(spec, spec.cases[0], seed=SEED, samples=100)
    assert outcome.met, outcome.problems  # the default budget leaves 4^-14 of the retries unexplored
    document = json.loads(json.dumps(gate_json((outcome,), seed=SEED, samples=100)))
    assert document["schema"] == "dpverify.check/3"
    checks = {c["check"]: c for c in document["entries"][0]["checks"]}
    assert Fraction(checks["intervals"]["within"]) == Fraction(checks["intervals"]["evidence"]["unexplored"]) > 0
    schema = json.loads((ROOT / "schemas" / "check-3.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors(document)) == []
    broken = json.loads(json.dumps(document))
    first = next(i for i, c in enumerate(broken["entries"][0]["checks"]) if c["check"] == "intervals")
    broken["entries"][0]["checks"][first]["verdict"] = "violated"  # a tolerance on anything but a proof
    assert list(validator.iter_errors(broken))
    del broken["entries"][0]["checks"][first]["within_decimal"]
    broken["entries"][0]["checks"][first]["verdict"] = "proved"
    assert list(validator.iter_errors(broken))


# --- the total-variation bound ---------------------------------------------------------------------------


def _exact_tv(code: dict[Hashable, Fraction], ideal: dict[Hashable, Fraction]) -> Fraction:
    return sum((abs(code.get(o, Fraction(0)) - ideal.get(o, Fraction(0))) for o in {*code, *ideal}), Fraction(0)) / 2


@pytest.mark.parametrize("min_mass", [Fraction(1, 100), Fraction(1, 5000)])
@pytest.mark.parametrize("share", [Fraction(0), Fraction(1, 2), Fraction(2, 3), Fraction(-1, 3)])
def test_the_tv_bound_holds_where_the_exact_distance_is_known(min_mass: Fraction, share: Fraction) -> None:
    """The code samples 0, 1, 2 uniformly; only 0 and 1 are checked.  The ideal moves ``a = share * U``
    onto each of 0 and 1 and takes ``2a`` from the unlisted 2 (enclosed as ``[P(2), P(2) + U]``, wide
    enough that 2 is no violation), so the ideal stays inside the code's intervals at the checked
    outputs and the proof goes through; the exact distance is ``2|a|``.  At ``share = 2/3`` that is
    ``4U/3 > U``: the bound needs its excess ``X``, the explored mass of 2 above the ideal's ``P(2)``."""
    probe = check_intervals(fair_third, lambda o, dps: _point(Fraction(1, 3)), (0, 1), min_mass=min_mass)
    U = Fraction(probe.evidence["unexplored"])
    a = share * U
    ideal = {0: Fraction(1, 3) + a, 1: Fraction(1, 3) + a, 2: Fraction(1, 3) - 2 * a}

    def enclosure(output: int, dps: int) -> tuple[Fraction, Fraction]:
        return ideal[output], ideal[output] + (U if output == 2 else 0)

    result = check_intervals(fair_third, enclosure, (0, 1), min_mass=min_mass)
    assert result.verdict is Verdict.PROVED and result.within == U > 0
    exact = _exact_tv({0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)}, ideal)
    bound, excess = Fraction(result.evidence["tv_bound"]), Fraction(result.evidence["excess"])
    assert exact <= bound == U + excess and Fraction(result.evidence["tv_bound_decimal"]) >= bound
    assert excess == max(Fraction(0), (1 - U) / 3 - ideal[2])  # the explored mass of 2 above its ideal
    if share == Fraction(2, 3):
        assert exact > U and excess > 0 and "U plus" in result.summary


def test_the_excess_counts_every_output_the_code_returned_even_one_the_ideal_cannot_evaluate() -> None:
    def two_or_garbage(rng: RandomSource) -> object:
        return 0 if rng.randbelow(2) else "garbage"

    def ideal(output: object, dps: int) -> tuple[Fraction, Fraction]:
        if not isinstance(output, int):
            raise TypeError(output)
        return _point(Fraction(1, 2))

    result = check_intervals(two_or_garbage, ideal, (0,))
    assert result.verdict is Verdict.VIOLATED  # the code puts 1/2 where the ideal has nothing
    assert Fraction(result.evidence["excess"]) == Fraction(1, 2) == Fraction(result.evidence["tv_bound"])


# --- privacy from intervals: (eps, delta), never an exact loss ---------------------------------------------


def _mp(value: Fraction) -> mpmath.mpf:
    return mpmath.mpf(value.numerator) / value.denominator


def test_interval_tables_prove_an_eps_delta_that_holds_for_every_event() -> None:
    """Two inputs, three outputs listed by the first and two by the second: the listed ratios give eps,
    and delta is the mass the shared outputs leave uncovered.  Laws inside the intervals satisfy
    P(A|q) <= e^eps P(A|q') + delta for all sixteen events over four outputs, both ways."""
    U = Fraction(1, 100)
    explored = {
        "q": {0: Fraction(30, 100), 1: Fraction(40, 100), 2: Fraction(29, 100)},
        "q'": {0: Fraction(20, 100), 1: Fraction(50, 100)},
    }
    rows = {q: {o: (e, e + U) for o, e in table.items()} for q, table in explored.items()}
    loss = _interval_loss(rows, [("q", "q'")])["json"]
    implied = loss["implied"]
    delta = Fraction(implied["delta_upper"])
    assert delta == 1 - Fraction(30 + 40, 100)  # 2 is listed by q only, so its mass is in delta
    eps = mpmath.mpf(implied["epsilon_upper"])
    with mpmath.workdps(40):
        assert eps >= mpmath.log(mpmath.mpf(31) / 20)  # the largest ratio of the ends, (0.30 + U) / 0.20
        factor = mpmath.exp(eps)
        # laws inside the intervals: q puts the unexplored U on output 2 or on an unlisted output 3
        for extra in (2, 3):
            law = {**explored["q"]}
            law[extra] = law.get(extra, Fraction(0)) + U
            other = {**explored["q'"], 3: 1 - sum(explored["q'"].values())}  # q' puts its rest on 3
            for first, second in ((law, other), (other, law)):
                for size in range(5):
                    for event in itertools.combinations(range(4), size):
                        p = sum((first.get(o, Fraction(0)) for o in event), Fraction(0))
                        p2 = sum((second.get(o, Fraction(0)) for o in event), Fraction(0))
                        assert _mp(p) <= factor * _mp(p2) + _mp(delta), (event, first)
    assert "not an exact loss" in implied["statement"]
