"""Bad input the API fuzz once let through as a foreign exception or a run without end.

Each call must raise one :class:`~dpverify.samplers.DpverifyError` whose message is one short line
naming the parameter: a huge number is shown without converting it to text (CPython refuses past
4300 digits), a value that cannot be hashed or compared is refused where it is checked, a mass
budget too fine to finish is refused up front, and a number is read from ASCII digits only, on the
command line as in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from dpverify.samplers import DpverifyError, RandomSource
from dpverify.specs import Case, GridLaplaceSpec, GtmSpec, PureDp, Spec
from dpverify.verify import (
    Enumeration,
    Verdict,
    check_empirical,
    check_grid_laplace_claim,
    check_timing,
    code_distribution,
    enumerate_outputs,
    grid_claim_smtlib,
    laplace_float_attack,
    reproduce,
    resolve_papers,
    timing_channel,
)
from dpverify.verify.cli import main
from dpverify.verify.engine._arguments import MAX_SEED, MIN_MASS

HUGE = 10**5000  # past the 4300 digits CPython's str() of an int stops at


def _gtm() -> GtmSpec:
    return GtmSpec.create("1/3", 3, 100)


def _coin(rng: RandomSource) -> int:
    return rng.randbelow(2)


def _geometric(rng: RandomSource) -> int:
    """A loop with no end but the mass budget: without one it is walked to max_depth."""
    count = 0
    while rng.randbelow(2):
        count += 1
    return count


def _spec(**fields: Any) -> Spec:
    return Spec(
        "coin",
        lambda rng: rng.randbelow(2),
        {},
        (Case({}),),
        PureDp(alpha=1),
        pmf=lambda p: {0: Fraction(1, 2), 1: Fraction(1, 2)},
        **fields,
    )


def _enumeration() -> Enumeration:
    return Enumeration({0: Fraction(1, 2), 1: Fraction(1, 2)}, Fraction(0), 2, 2, "exhaustive")


REFUSED: list[tuple[str, Callable[[], object], str]] = [
    ("check_empirical seed", lambda: check_empirical(_gtm(), 0, samples=10, seed=HUGE), "seed"),
    ("reproduce jobs", lambda: reproduce(resolve_papers("all")[:1], jobs=-HUGE), "jobs"),
    ("reproduce scheduler", lambda: reproduce(resolve_papers("all")[:1], scheduler=Fraction(HUGE, 3)), "scheduler"),
    ("laplace_float_attack seed", lambda: laplace_float_attack(1.0, 0.0, 1.0, 4, samples=1, seed=HUGE), "seed"),
    ("code_distribution q", lambda: code_distribution(_gtm(), Decimal("sNaN")), "q"),
    ("check_empirical q", lambda: check_empirical(_gtm(), Decimal("sNaN"), samples=10, seed=1), "q"),
    ("Spec randomness", lambda: _spec(randomness=Decimal("sNaN")), "randomness"),
    ("Spec randomness unhashable", lambda: _spec(randomness=["source"]), "randomness"),
    ("Spec checks", lambda: _spec(checks=-2), "checks"),
    ("timing_channel outputs", lambda: timing_channel(_enumeration(), outputs=[[1]]), "outputs"),
    ("check_timing outputs", lambda: check_timing(_coin, outputs=[Decimal("sNaN")]), "outputs"),
    ("enumerate_outputs min_mass", lambda: enumerate_outputs(_geometric, min_mass=Fraction(1, HUGE)), "min_mass"),
    (
        "enumerate_outputs min_mass below the limit",
        lambda: enumerate_outputs(_geometric, min_mass=MIN_MASS / 2),
        "min_mass",
    ),
    ("check_timing min_mass", lambda: check_timing(_geometric, min_mass=Fraction(0)), "min_mass"),
    ("full-width digit", lambda: code_distribution(_gtm(), 0, max_paths="５"), "max_paths"),
    ("full-width digit in a rational", lambda: GtmSpec.create("1/３", 3, 100), "alpha"),
    ("full-width digit in a float", lambda: laplace_float_attack("１", 0.0, 1.0, 4, samples=0), "scale"),
]


@pytest.mark.parametrize(
    "call, name", [(call, name) for _, call, name in REFUSED], ids=[label for label, _, _ in REFUSED]
)
def test_bad_input_is_one_short_line_naming_the_parameter(call: Callable[[], object], name: str) -> None:
    with pytest.raises(DpverifyError) as refused:
        call()
    message = str(refused.value)
    assert "\n" not in message and len(message) < 300
    assert f"{name}=" in message or f"each of {name} " in message


def test_the_largest_seed_and_the_finest_budget_are_accepted() -> None:
    assert check_empirical(_gtm(), 0, samples=10, seed=MAX_SEED).verdict in set(Verdict)
    assert f"seed={MAX_SEED}" in check_empirical(_gtm(), 0, samples=10, seed=MAX_SEED).summary
    assert enumerate_outputs(_geometric, min_mass=MIN_MASS).paths <= 64  # cut at depth log2(10^14) < 47
    assert enumerate_outputs(_coin, min_mass=0).unexplored == 0  # 0: no mass budget, as documented
    assert check_timing(_geometric, min_mass=MIN_MASS).verdict in set(Verdict)


def test_a_huge_epsilon_is_a_valid_one_and_reaches_z3_with_every_digit() -> None:
    # Within the documented size of a Fraction passed directly (MAX_BITS), so checked, not refused.
    spec = GridLaplaceSpec.create(0, 1, 1)
    result = check_grid_laplace_claim(spec, epsilon=Fraction(HUGE, 3))
    assert result.verdict is Verdict.PROVED and len(result.summary) < 300
    assert result.evidence["epsilon"].endswith("/3") and len(result.evidence["epsilon"]) == 5003
    assert check_grid_laplace_claim(spec, epsilon=Fraction(1, HUGE)).verdict is Verdict.VIOLATED
    assert "0" * 5000 in grid_claim_smtlib(spec, epsilon=Fraction(HUGE, 3))


def _usage_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    with pytest.raises(SystemExit) as done:  # argparse's own error exits from inside parse_args
        main(argv)
    captured = capsys.readouterr()
    assert done.value.code == 2 and captured.out == ""
    return captured.err


@pytest.mark.parametrize(
    "argv",
    [
        ["attack", "laplace-float", "--scale", "1", "--q", "0", "--q-prime", "1", "--bits", "５"],
        ["attack", "laplace-float", "--scale", "1", "--q", "0", "--q-prime", "1", "--bits", "4", "--seed", "1٣"],
        ["account", "--mechanism", "pure", "--epsilon", "1", "--k", "２", "--delta-prime", "1/10^6"],
    ],
)
def test_a_count_option_takes_ascii_digits_only(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    err = _usage_error(capsys, argv)
    assert err.count("\n") == 1 and err.startswith("dpverify: error: argument --") and "Traceback" not in err


@pytest.mark.parametrize(
    "argv, name",
    [
        (["pmf", "gtm", "--alpha", "1/3", "--n", "５", "--T", "1000", "--q", "2"], "n"),
        (["pmf", "gtm", "--alpha", "1/３", "--n", "5", "--T", "1000", "--q", "2"], "alpha"),
        (["attack", "laplace-float", "--scale", "1", "--q", "０", "--q-prime", "1", "--bits", "4"], "q"),
    ],
)
def test_a_number_read_by_the_api_takes_ascii_digits_only(
    capsys: pytest.CaptureFixture[str], argv: list[str], name: str
) -> None:
    assert main(argv) == 2  # read past argparse, by the API's own parsers, which refuse it the same way
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith(f"dpverify: error: {name} must be") and f"{name}='" in captured.err
