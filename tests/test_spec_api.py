"""The public spec API: declarations, the checks the engine picks from them, and every kind of
authoring error, which is reported as a broken spec and never as a privacy verdict."""

from __future__ import annotations

import random
import sys
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dpverify.samplers import RandomSource
from dpverify.specs import (
    DEFAULT_MAX_UNEXPLORED,
    ApproxDp,
    Bounded,
    Case,
    Input,
    PureDp,
    Rational,
    SamplesPmf,
    Spec,
    SpecError,
    Zcdp,
)
from dpverify.verify import Verdict, enumerate_outputs
from dpverify.verify.cli import main
from dpverify.verify.engine._random_compat import RandomCompat
from dpverify.verify.gate._discovery import discover, specs_from_module
from dpverify.verify.gate._spec_run import run_case

SEED = 7


def _after_smoke(outcome: Any) -> list[Any]:
    """The case's checks after the smoke run (every case with a sampler opens with it)."""
    return [c for c in outcome.checks if c.check != "smoke"]


# --- a small mechanism: flip a bit with probability a/(a+b) -----------------------------------


def flip(bit: int, alpha: Fraction, rng: RandomSource) -> int:
    """Keep ``bit`` with probability ``b/(a+b)``, flip it with ``a/(a+b)``, for ``alpha = a/b``."""
    keep = rng.bernoulli(alpha.denominator, alpha.numerator + alpha.denominator)
    return bit if keep else 1 - bit


def flip_pmf(p: dict[str, Any], q: int) -> dict[int, Fraction]:
    keep = 1 / (1 + p["alpha"])
    return {q: keep, 1 - q: 1 - keep}


FLIP = Spec(
    name="flip",
    sampler=flip,
    parameters={"alpha": Rational(0, 1, low_open=True, search=(Fraction(1, 10), 1))},
    input=Input("bit", values=lambda p: (0, 1)),
    claim=lambda p: PureDp(alpha=p["alpha"]),
    pmf=flip_pmf,
    cases=(Case({"alpha": "1/3"}), Case({"alpha": "999/1000"})),
)


def test_a_correct_spec_proves_every_case_with_each_check() -> None:
    for case in FLIP.cases:
        outcome = run_case(FLIP, case, seed=SEED, samples=2_000)
        assert outcome.met and outcome.outcome == "proved", outcome.problems
        assert [c.check for c in outcome.checks] == ["smoke", "exactness", "statistical", "privacy", "z3"]


def test_a_one_unit_error_is_a_violation_with_both_exact_probabilities() -> None:
    def leaky(bit: int, alpha: Fraction, rng: RandomSource) -> int:
        keep = rng.bernoulli(alpha.denominator + 1, alpha.numerator + alpha.denominator)
        return bit if keep else 1 - bit

    outcome = run_case(replace(FLIP, sampler=leaky), Case({"alpha": "999/1000"}), seed=SEED, samples=2_000)
    assert not outcome.met and outcome.error is None
    exactness = _after_smoke(outcome)[0]
    assert exactness.verdict is Verdict.VIOLATED
    assert Fraction(exactness.evidence["code_p"]) - Fraction(exactness.evidence["spec_p"]) in {
        Fraction(1, 1999),
        Fraction(-1, 1999),
    }
    # statistics at N = 2000 cannot see a 1/1999 shift: only the exact check does
    statistical = next(c for c in outcome.checks if c.check == "statistical")
    assert statistical.verdict is Verdict.PROVED


# --- claims with irrational bounds -------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        (PureDp(epsilon=1), "violated"),  # e^1 < 3 = the ratio at alpha = 1/3
        (PureDp(epsilon="11/10"), "proved"),  # e^1.1 > 3
        (ApproxDp(epsilon=1, delta="1/10"), "proved"),  # delta(1) = (3 - e)/4 = 0.0704...
        (ApproxDp(epsilon=1, delta="7/100"), "violated"),
        (Zcdp(rho="1/100"), "violated"),  # D_2 = ln(7/3) > 2 rho
        (Zcdp(rho=10), "inconclusive"),  # integer orders cannot prove every order
        (SamplesPmf(), "proved"),
    ],
)
def test_each_claim_type_is_checked_on_the_exact_table(claim: Any, verdict: str) -> None:
    outcome = run_case(FLIP, Case({"alpha": "1/3"}, expect=verdict, claim=claim), seed=SEED, samples=1_000)
    assert outcome.outcome == verdict and outcome.met, outcome.problems
    if verdict == "violated":
        privacy = next(c for c in outcome.checks if c.check == "privacy")
        assert privacy.verdict is Verdict.VIOLATED and privacy.evidence


def test_approximate_dp_counterexample_names_the_pair_and_a_certified_delta() -> None:
    outcome = run_case(FLIP, Case({"alpha": "1/3"}, claim=ApproxDp(epsilon=1, delta="7/100")), seed=SEED, samples=500)
    privacy = next(c for c in outcome.checks if c.check == "privacy")
    low = Fraction(privacy.evidence["delta_lower_bound"])
    assert Fraction(7, 100) < low <= (3 - Fraction(271828182845904523, 10**17)) / 4
    witness = privacy.evidence["witness"]
    assert {witness["p"], witness["p_prime"]} == {"3/4", "1/4"}


# --- noise samplers, rejection loops, other randomness ---------------------------------------


def three_point(rng: RandomSource) -> int:
    return rng.randbelow(4) - 1 if rng.bernoulli(1, 2) else 0


NOISE = Spec(
    name="three-point",
    sampler=three_point,
    parameters={},
    claim=PureDp(alpha="1/2"),
    pmf=lambda p: {-1: Fraction(1, 8), 0: Fraction(5, 8), 1: Fraction(1, 8), 2: Fraction(1, 8)},
    cases=(Case({}, expect="violated"),),
)


def test_a_noise_sampler_is_checked_as_q_plus_noise_with_its_sensitivity() -> None:
    outcome = run_case(NOISE, NOISE.cases[0], seed=SEED, samples=1_000)
    assert outcome.met and outcome.outcome == "violated", outcome.problems
    privacy = next(c for c in outcome.checks if c.check == "privacy")
    witness = privacy.evidence["witness"]
    # -1 is possible from q = 0 only (and 3 from q = 1 only): an infinite loss
    assert (witness["p"], witness["p_prime"]) == ("0", "1/8") and witness["output"] in (-1, 3)


def retry_until_below_three(rng: RandomSource) -> int:
    while True:
        u = rng.randbelow(4)
        if u < 3:
            return u


UNIFORM3 = Spec(
    name="uniform3",
    sampler=retry_until_below_three,
    parameters={},
    claim=SamplesPmf(),
    pmf=lambda p: {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)},
    enumeration=Bounded(),  # min_mass 10^-9 leaves 4^-14 < 10^-6 of the retries unexplored
    cases=(Case({}),),
)


def test_a_proof_looser_than_the_default_tolerance_is_inconclusive() -> None:
    assert Bounded().max_unexplored == DEFAULT_MAX_UNEXPLORED == Fraction(1, 10**6)
    coarse = replace(UNIFORM3, enumeration=Bounded(min_mass=Fraction(1, 50)))  # stops after 3 rejections
    outcome = run_case(coarse, coarse.cases[0], seed=SEED, samples=1_000)
    assert _after_smoke(outcome)[0].check == "intervals" and _after_smoke(outcome)[0].verdict is Verdict.INCONCLUSIVE
    assert "max_unexplored=1/1000000" in _after_smoke(outcome)[0].summary
    why = "a test of the tolerance itself"
    accepted = replace(
        UNIFORM3, enumeration=Bounded(min_mass=Fraction(1, 50), max_unexplored=None, tolerance_reason=why)
    )
    proof = _after_smoke(run_case(accepted, accepted.cases[0], seed=SEED, samples=1_000))[0]
    assert proof.verdict is Verdict.PROVED and proof.within == Fraction(1, 16)  # the third draw weighs 1/64 < 1/50
    assert proof.evidence["tolerance_reason"] == why and why in proof.summary


def test_a_rejection_loop_with_an_exact_pmf_gets_exact_intervals() -> None:
    outcome = run_case(UNIFORM3, UNIFORM3.cases[0], seed=SEED, samples=1_000)
    assert outcome.met, outcome.problems
    assert _after_smoke(outcome)[0].check == "intervals" and _after_smoke(outcome)[0].verdict is Verdict.PROVED
    assert _after_smoke(outcome)[0].within == Fraction(1, 4**14)  # a proof within U, said so

    def biased(rng: RandomSource) -> int:
        while True:
            u = rng.randbelow(4)
            if u < 3:
                return min(u, 1)

    broken = run_case(replace(UNIFORM3, sampler=biased), UNIFORM3.cases[0], seed=SEED, samples=1_000)
    assert not broken.met and _after_smoke(broken)[0].verdict is Verdict.VIOLATED


def flip_with_random(bit: int, alpha: Fraction, rng: random.Random) -> int:
    return bit if rng.randrange(alpha.numerator + alpha.denominator) < alpha.denominator else 1 - bit


def test_a_sampler_written_for_random_random_is_enumerated_exactly() -> None:
    spec = replace(FLIP, name="flip-random", sampler=flip_with_random, randomness="random")
    outcome = run_case(spec, Case({"alpha": "2/7"}), seed=SEED, samples=1_000)
    assert outcome.met, outcome.problems
    assert _after_smoke(outcome)[0].check == "exactness" and _after_smoke(outcome)[0].verdict is Verdict.PROVED


def test_a_black_box_gets_only_statistics() -> None:
    system = random.SystemRandom()

    def black_box(bit: int, alpha: Fraction) -> int:
        return bit if system.randrange(alpha.numerator + alpha.denominator) < alpha.denominator else 1 - bit

    spec = replace(FLIP, name="flip-black-box", sampler=black_box, randomness="none")
    outcome = run_case(spec, Case({"alpha": "1/3"}), seed=SEED, samples=2_000)
    assert "exactness" not in {c.check for c in outcome.checks}
    assert _after_smoke(outcome)[0].check == "statistical" and _after_smoke(outcome)[0].verdict is Verdict.PROVED


def test_random_compat_draws_are_exact_single_choices() -> None:
    found = enumerate_outputs(lambda rng: tuple(_shuffled(RandomCompat(rng))))
    assert found.exhausted and set(found.masses.values()) == {Fraction(1, 6)} and len(found.masses) == 6
    counts = enumerate_outputs(lambda rng: RandomCompat(rng).randrange(3, 12, 4)).masses
    assert counts == {3: Fraction(1, 3), 7: Fraction(1, 3), 11: Fraction(1, 3)}
    sample = enumerate_outputs(lambda rng: tuple(RandomCompat(rng).sample("abc", 2))).masses
    assert len(sample) == 6 and set(sample.values()) == {Fraction(1, 6)}


def _shuffled(rng: RandomCompat) -> list[int]:
    items = [0, 1, 2]
    rng.shuffle(items)
    return items


# --- authoring errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "no spaces allowed"}, "spec name must be"),
        ({"sampler": 3}, "sampler must be callable"),
        ({"parameters": {"alpha": (0, 1)}}, "parameters must map each name"),
        ({"cases": ()}, "cases must be a non-empty sequence"),
        ({"claim": 0.5}, "claim must be PureDp"),
        (
            {"cases": (Case({"alpha": "3/2"}),)},
            "parameter outside its declared domain: alpha must be a rational in (0, 1]",
        ),
        ({"cases": (Case({}),)}, "missing parameter(s) alpha"),
        ({"cases": (Case({"alpha": "1/2", "beta": 1}),)}, "undeclared parameter(s) beta"),
        ({"cases": (Case({"alpha": "1/2"}, expect="passed"),)}, "expect must be one of"),
        ({"sampler": lambda bit, alpha: bit}, "takes no argument named rng"),
        ({"input": Input("x", values=lambda p: (0, 1))}, "no argument named 'x'"),
        ({"ideal": lambda p, o, dps: (0, 0)}, "must declare outputs(p)"),
    ],
)
def test_a_wrong_declaration_is_one_clear_spec_error(change: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError) as raised:
        replace(FLIP, **change)
    text = str(raised.value)
    assert message in text and "\n" not in text
    if "name" not in change:
        assert text.startswith("spec 'flip'")


def _raises(bit: int, alpha: Fraction, rng: RandomSource) -> int:
    raise ZeroDivisionError("oops")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"pmf": lambda p, q: {q: Fraction(3, 4), 1 - q: Fraction(3, 4)}}, "pmf(p, 0) sums to 3/2, not 1"),
        ({"pmf": lambda p, q: {q: 0.75, 1 - q: 0.25}}, "exact probabilities"),
        ({"pmf": lambda p, q: 1 / 0}, "pmf(p, 0) raised ZeroDivisionError"),
        ({"claim": lambda p: 0.5}, "claim(p) returned 0.5 (float); it must return PureDp"),
        (
            {"claim": lambda p: PureDp(alpha=2)},
            "claim(p) raised InvalidArgument: claim alpha must be a rational in (0, 1]",
        ),
        ({"input": Input("bit", values=lambda p: ())}, "input.values(p) is empty"),
    ],
)
def test_a_spec_that_misbehaves_on_valid_parameters_is_a_broken_spec(change: dict[str, Any], message: str) -> None:
    outcome = run_case(replace(FLIP, **change), Case({"alpha": "1/3"}), seed=SEED, samples=100)
    assert outcome.outcome == "error" and not outcome.met and not outcome.checks
    assert outcome.error is not None and message in outcome.error and "spec 'flip'" in outcome.error


def test_a_sampler_that_raises_on_valid_parameters_is_violated_with_its_seed() -> None:
    outcome = run_case(replace(FLIP, sampler=_raises), Case({"alpha": "1/3"}), seed=SEED, samples=100)
    smoke = next(c for c in outcome.checks if c.check == "smoke")
    assert outcome.outcome == "violated" and not outcome.met and outcome.error is None
    assert smoke.verdict is Verdict.VIOLATED and smoke.evidence["seed"] == SEED
    assert "raised ZeroDivisionError on valid parameters at bit=0" in smoke.summary and "oops" in smoke.summary


def _never_returns(bit: int, alpha: Fraction, rng: RandomSource) -> int:
    while not rng.bernoulli(0, 1):  # a rejection loop that never accepts
        pass
    return bit


def test_a_sampler_that_never_returns_ends_within_the_time_bound_as_inconclusive() -> None:
    outcome = run_case(
        replace(FLIP, sampler=_never_returns), Case({"alpha": "1/3"}), seed=SEED, samples=100, time_limit=1
    )
    assert outcome.outcome == "inconclusive" and not outcome.met
    assert any("smoke inconclusive: no output within" in problem for problem in outcome.problems)
    assert not any("time bound hit" in problem for problem in outcome.problems)


# --- discovery and the command line -----------------------------------------------------------


SPEC_MODULE = """
from fractions import Fraction
from dpverify.specs import Case, Input, PureDp, Rational, Spec

def flip(bit, alpha, rng):
    keep = rng.bernoulli(alpha.denominator, alpha.numerator + alpha.denominator)
    return bit if keep else 1 - bit

def pmf(p, q):
    keep = 1 / (1 + p["alpha"])
    return {q: keep, 1 - q: 1 - keep}

GOOD = Spec("good-flip", flip, {"alpha": Rational(0, 1, low_open=True)}, (Case({"alpha": "1/3"}),),
            lambda p: PureDp(alpha=p["alpha"]), input=Input("bit", lambda p: (0, 1)), pmf=pmf)
"""


@pytest.fixture()
def spec_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "good_specs.py").write_text(SPEC_MODULE + "SPECS = (GOOD,)\n")
    (tmp_path / "sums_wrong.py").write_text(
        SPEC_MODULE.replace("1 - keep}", "1 - keep + Fraction(1, 7)}") + "SPECS = [GOOD]\n"
    )
    (tmp_path / "declared_wrong.py").write_text(
        SPEC_MODULE.replace('"alpha": "1/3"', '"alpha": "4/3"') + "SPECS = (GOOD,)\n"
    )
    (tmp_path / "no_specs.py").write_text("X = 1\n")
    (tmp_path / "not_specs.py").write_text("SPECS = (1, 2)\n")
    (tmp_path / "twice.py").write_text(SPEC_MODULE + "SPECS = (GOOD, GOOD)\n")
    yield tmp_path
    for name in ("good_specs", "sums_wrong", "declared_wrong", "no_specs", "not_specs", "twice"):
        sys.modules.pop(name, None)


def test_check_spec_module_proves_a_good_spec(spec_modules: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--spec-module", "good_specs", "--seed", "1", "--samples", "500"]) == 0
    out = capsys.readouterr().out
    assert "ok   good-flip/alpha=1/3" in out and "1 of 1 cases met their expectation: PASS" in out
    assert main(["check", "--spec-module", "good_specs", "--list"]) == 0
    assert "good-flip: 1 case(s), from module good_specs" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("module", "message"),
    [
        ("sums_wrong", "broken spec: spec 'good-flip', case 'alpha=1/3': pmf(p, 0) sums to 8/7, not 1"),
        (
            "declared_wrong",
            "dpverify: error: module declared_wrong: spec 'good-flip', case 1 (alpha=4/3): "
            "parameter outside its declared domain",
        ),
        ("no_specs", "dpverify: error: module no_specs has no SPECS"),
        ("not_specs", "dpverify: error: module not_specs: SPECS must hold dpverify.specs.Spec objects; found 1 (int)"),
        ("twice", "dpverify: error: spec name 'good-flip' is declared twice"),
        ("no_such_module", "dpverify: error: cannot import spec module 'no_such_module': ModuleNotFoundError"),
    ],
)
def test_each_authoring_error_exits_2_with_one_clear_message(
    spec_modules: Path, capsys: pytest.CaptureFixture[str], module: str, message: str
) -> None:
    assert main(["check", "--spec-module", module, "--seed", "1", "--samples", "200"]) == 2
    captured = capsys.readouterr()
    assert message in captured.out + captured.err
    assert "Traceback" not in captured.out + captured.err


def test_spec_filter_names_what_exists(spec_modules: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--spec-module", "good_specs", "--spec", "nope"]) == 2
    assert "no spec named 'nope'; found: good-flip." in capsys.readouterr().err


def test_the_builtin_catalogue_is_found_through_its_entry_point() -> None:
    found = discover()
    assert {"gtm", "dlaplace", "dgauss", "grid-laplace"} <= {f.spec.name for f in found}
    assert all(f.builtin and f.origin == "entry point builtin (dpverify)" for f in found if f.spec.name == "gtm")
    assert [f.spec.name for f in specs_from_module("dpverify.verify.gate._catalogue")][:4] == [
        "rational-parsing",
        "system-source",
        "seeded-source",
        "gtm",
    ]


def test_statistics_see_what_they_should_on_the_flip() -> None:
    from dpverify.samplers import SeededRandomSource

    rng = SeededRandomSource(SEED)
    counts = Counter(flip(0, Fraction(1, 3), rng) for _ in range(4_000))
    assert abs(Fraction(counts[0], 4_000) - Fraction(3, 4)) < Fraction(1, 20)


def test_a_neighbour_relation_outside_the_inputs_is_a_broken_spec() -> None:
    spec = replace(FLIP, input=Input("bit", values=lambda p: (0, 1), neighbours=lambda p: [(0, 2)]))
    outcome = run_case(spec, Case({"alpha": "1/3"}), seed=SEED, samples=100)
    assert outcome.outcome == "error" and "names 2, which is not an input" in (outcome.error or "")


def test_unordered_outputs_stop_one_case_with_a_message_not_the_run() -> None:
    spec = replace(
        FLIP,
        sampler=lambda bit, alpha, rng: ("a", 1)[flip(bit, alpha, rng)],
        pmf=lambda p, q: {("a", 1)[q]: 1 / (1 + p["alpha"]), ("a", 1)[1 - q]: p["alpha"] / (1 + p["alpha"])},
    )
    outcome = run_case(spec, Case({"alpha": "1/3"}), seed=SEED, samples=100)
    assert outcome.outcome == "error" and "totally ordered outputs" in (outcome.error or "")
