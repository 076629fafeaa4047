"""``dpverify account``: every bound printed, the choice, vacuous results flagged, JSON, bad usage."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from dpverify.specs import account
from dpverify.verify.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["account", *argv])
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_lists_every_bound_and_the_choice(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys, "--mechanism", "gaussian", "--epsilon", "0.1", "--delta", "1e-6", "--k", "5", "--delta-prime", "1e-6"
    )
    assert code == 0 and err == ""
    for name in ("basic", "advanced", "drv", "zcdp-bs16", "zcdp-cks20", "kov", "chosen", "target", "noise"):
        assert f"  {name}" in out, name
    expected = account("0.1", "1e-6", 5, "1e-6", mechanism="gaussian")
    assert f"chosen          {expected.chosen}: ({expected.chosen_bound().epsilon}, 3/500000)-DP" in out


def test_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        "--mechanism",
        "approx",
        "--epsilon",
        "0.5",
        "--delta",
        "1e-7",
        "--k",
        "10^2",
        "--delta-prime",
        "1e-6",
        "--json",
    )
    document = json.loads(out)
    assert code == 0 and document["schema"] == "dpverify.account/1"
    assert document["parameters"] == {"epsilon": "1/2", "delta": "1/10000000", "k": 100, "delta_prime": "1/1000000"}
    assert document["delta_total"] == "11/1000000"
    names = [bound["name"] for bound in document["bounds"]]
    assert names == ["basic", "advanced", "drv", "zcdp-bs16", "zcdp-cks20", "kov"]
    chosen = next(bound for bound in document["bounds"] if bound["name"] == document["chosen"])
    assert chosen["guarantee"] and chosen["epsilon"] == document["chosen_epsilon"]
    usable = [Fraction(bound["epsilon"]) for bound in document["bounds"] if bound["guarantee"]]
    assert Fraction(document["chosen_epsilon"]) == min(usable)
    zcdp = next(bound for bound in document["bounds"] if bound["name"] == "zcdp-bs16")
    assert not zcdp["applies"] and zcdp["epsilon"] is None and "rho" in zcdp["reason"]
    assert set(document["why"]) == set(names)
    for bound in document["bounds"]:
        assert set(bound) >= {
            "name",
            "citation",
            "formula",
            "conditions",
            "applies",
            "reason",
            "vacuous",
            "guarantee",
            "epsilon",
            "epsilon_exact",
            "epsilon_interval",
            "delta_total",
            "notes",
        }
        if bound["epsilon_interval"] is not None:
            low, high = map(Fraction, bound["epsilon_interval"])
            assert low <= high <= Fraction(bound["epsilon"])


def test_paper_003_example_is_vacuous(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, "--mechanism", "gaussian", "--epsilon", "0.1", "--delta", "0.2", "--k", "5", "--delta-prime", "1e-6"
    )
    assert code == 0
    assert "VACUOUS (>= 1)" in out and "chosen          none" in out
    assert out.count("VACUOUS, no guarantee") == 6 and "eps' <=" not in out
    code, out, _ = _run(
        capsys,
        "--mechanism",
        "gaussian",
        "--epsilon",
        "0.1",
        "--delta",
        "0.2",
        "--k",
        "5",
        "--delta-prime",
        "1e-6",
        "--json",
    )
    document = json.loads(out)
    assert document["vacuous"] and document["chosen"] is None
    assert all(bound["vacuous"] and bound["epsilon"] is None for bound in document["bounds"])


def test_laplace_reports_its_scale(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, "--mechanism", "laplace", "--epsilon", "0.25", "--k", "3", "--delta-prime", "1e-6", "--sensitivity", "2"
    )
    assert code == 0 and "Laplace scale b = s/eps = 8 (s = 2)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mechanism", "pure", "--epsilon", "1", "--k", "0", "--delta-prime", "1e-6"], "k must be an integer"),
        (["--mechanism", "pure", "--epsilon", "1", "--delta-prime", "1e-6"], "required: --k"),
        (["--mechanism", "exp", "--epsilon", "1", "--k", "2", "--delta-prime", "1e-6"], "invalid choice"),
        (
            ["--mechanism", "pure", "--epsilon", "0.1.5", "--k", "2", "--delta-prime", "1e-6"],
            "epsilon must be a rational",
        ),
        (["--mechanism", "pure", "--epsilon", "nan", "--k", "2", "--delta-prime", "1e-6"], "epsilon must be"),
        (
            ["--mechanism", "approx", "--epsilon", "1", "--delta", "1", "--k", "2", "--delta-prime", "1e-6"],
            "delta must be a rational in [0, 1)",
        ),
        (
            ["--mechanism", "pure", "--epsilon", "1", "--delta", "1e-6", "--k", "2", "--delta-prime", "1e-6"],
            "delta must be 0 for mechanism=pure",
        ),
        (
            [
                "--mechanism",
                "gaussian",
                "--epsilon",
                "1",
                "--delta",
                "1e-6",
                "--k",
                "2",
                "--delta-prime",
                "1e-6",
                "--rho",
                "1",
            ],
            "rho must not be given",
        ),
        (
            ["--mechanism", "gaussian", "--epsilon", "0.1", "--k", "2", "--delta-prime", "1e-6"],
            "must be > 0 for mechanism=gaussian",
        ),
        (["--mechanism", "pure", "--epsilon", "1", "--k", "2", "--delta-prime", "0"], "delta_prime must be"),
        (["--mechanism", "pure", "--epsilon", "10^5", "--k", "2", "--delta-prime", "1e-6"], "epsilon <= 10^4"),
        (
            ["--mechanism", "pure", "--epsilon", "1", "--k", "2", "--delta-prime", "1e-6", "--sensitivity", "0"],
            "sensitivity must be",
        ),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    lines = err.rstrip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("dpverify: error:") and message in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "value", "limit"),
    [
        (
            "--delta-prime",
            "1e-1000",
            "denominator has 1001 digits and the limit is 1000 digits for a numerator or a "
            "denominator, so 1e-999 is the smallest power of ten allowed",
        ),
        ("--delta-prime", "1/10^1000", "denominator has 1001 digits and the limit is 1000 digits"),
        ("--delta", "1e-99999", "exponent -99999 is outside -1000..1000"),
        ("--epsilon", "10^1000", "numerator has 1001 digits and the limit is 1000 digits"),
    ],
)
def test_a_number_past_the_limits_names_the_limit_it_passes(
    capsys: pytest.CaptureFixture[str], option: str, value: str, limit: str
) -> None:
    given = {"--mechanism": "approx", "--epsilon": "1", "--delta": "1e-9", "--k": "2", "--delta-prime": "1e-6"}
    code, out, err = _run(capsys, *(word for name, v in {**given, option: value}.items() for word in (name, v)))
    assert code == 2 and out == "" and err.count("\n") == 1 and len(err) < 300
    assert err.startswith(f"dpverify: error: {option} '{value}' is refused: ") and limit in err, err
    assert "too large" not in err  # 1e-1000 is tiny: what it passes is the limit on digits
    # just inside the limits, the same option is accepted
    inside = {"1e-1000": "1e-999", "1/10^1000": "1/10^999", "1e-99999": "1e-999", "10^1000": "10^3"}[value]
    code, _, err = _run(capsys, *(word for name, v in {**given, option: inside}.items() for word in (name, v)))
    assert code == 0, err
