"""The command-line interface: outputs, JSON schemas, exit codes and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from dpverify._check_schema import CHECK_SCHEMA
from dpverify.specs import GtmSpec
from dpverify.verify.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse exits for usage errors
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_pmf_json_is_a_list_of_exact_strings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "pmf", "gtm", "--alpha", "1/3", "--n", "5", "--T", "1000", "--q", "2", "--json")
    assert code == 0
    assert json.loads(out)["pmf"] == ["83/1000", "167/1000", "1/2", "83/500", "7/125", "7/250"]


def test_pmf_from_code_agrees_with_the_spec_at_T_10_100(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["pmf", "gtm", "--alpha", "2/9", "--n", "4", "--T", "10^100", "--q", "1", "--json"]
    _, from_spec, _ = run_cli(capsys, *args)
    _, from_code, _ = run_cli(capsys, *args, "--from-code")
    assert json.loads(from_spec)["pmf"] == json.loads(from_code)["pmf"]
    assert sum(map(Fraction, json.loads(from_code)["pmf"])) == 1
    assert "bisection" in json.loads(from_code)["source"]


def test_privacy_json_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "privacy", "gtm", "--alpha", "1/3", "--n", "5", "--T", "1000", "--json")
    report = json.loads(out)
    assert code == 1  # the default claim alpha = 1/3 fails at T = 1000
    assert report["alpha_exact"] == "9/28" and report["claim_holds"] is False
    assert report["witness"] == {"q": 0, "q_prime": 1, "output": 3, "p": "9/500", "p_prime": "7/125", "ratio": "9/28"}
    assert report["full_support"] is True and report["thm62_alpha_prime"] == "257/1743"
    assert abs(report["epsilon"] - 1.1349799328389842) < 1e-12


def test_privacy_claim_alpha_decides_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["privacy", "gtm", "--alpha", "1/3", "--n", "5", "--T", "1000", "--json"]
    code, out, _ = run_cli(capsys, *base, "--claim-alpha", "9/28")
    assert code == 0 and json.loads(out)["claim_holds"] is True


def test_privacy_says_a_non_positive_theorem_6_2_bound_is_vacuous(capsys: pytest.CaptureFixture[str]) -> None:
    _, below, _ = run_cli(capsys, "privacy", "gtm", "--alpha", "1/2", "--n", "4", "--T", "20")
    _, above, _ = run_cli(capsys, "privacy", "gtm", "--alpha", "1/2", "--n", "4", "--T", "2000")
    line = next(text for text in below.splitlines() if "Theorem 6.2" in text)
    assert "vacuous" in line and "holds" not in line
    assert next(text for text in above.splitlines() if "Theorem 6.2" in text).endswith(": holds")


def test_privacy_of_a_theorem_7_1_instance_with_huge_T(capsys: pytest.CaptureFixture[str]) -> None:
    D, n = 7, 60
    code, out, _ = run_cli(
        capsys, "privacy", "gtm", "--alpha", f"1/{D}", "--n", str(n), "--T", f"{D + 1}*{D}^{n}", "--json"
    )
    report = json.loads(out)
    assert code == 0 and report["alpha_exact"] == "1/7" and report["thm71_instance"]


def test_unbounded_loss_is_spelled_out(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(
        capsys, "privacy", "gtm", "--alpha", "1/2", "--n", "5", "--T", "10", "--json", "--claim-alpha", "1/1000"
    )
    report = json.loads(out)
    assert report["alpha_exact"] == "0" and report["epsilon"] == "Infinity" and report["full_support"] is False


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["privacy", "gtm", "--alpha", "1.5", "--n", "5", "--T", "10"], "alpha"),
        (["privacy", "gtm", "--alpha", "1/2", "--n", "0", "--T", "10"], "n"),
        (["privacy", "gtm", "--alpha", "1/2", "--n", "5", "--T", "0"], "T"),
        (["privacy", "gtm", "--alpha", "1/2", "--n", "5", "--T", "ten"], "T"),
        (["privacy", "gtm", "--alpha", "1/2", "--n", "5", "--T", "10", "--claim-alpha", "2"], "claim-alpha"),
        (["pmf", "gtm", "--alpha", "1/2", "--n", "5", "--T", "10", "--q", "6"], "q"),
        (["privacy", "gtm", "--alpha", "1/2", "--n", "5"], "--T"),
        (["privacy", "laplace"], "laplace"),
        (["check", "--samples", "0"], "--samples"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], names: str) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and names in err and "Traceback" not in err


def test_bad_input_in_a_real_process_prints_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dpverify", "pmf", "gtm", "--alpha", "0.5", "--n", "3", "--T", "1/2", "--q", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        'dpverify: error: T must be an integer with T >= 1, such as "1000" or "10^100"; got T=\'1/2\'.'
    )


def test_check_runs_the_catalogue_and_writes_json(tmp_path: Path) -> None:
    target = tmp_path / "check.json"
    done = subprocess.run(
        [sys.executable, "-m", "dpverify", "check", "--seed", "12345", "--samples", "5000", "--json", str(target)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "seed 12345" in done.stdout
    document = json.loads(target.read_text())
    assert document["schema"] == "dpverify.check/3" and document["passed"] is True
    assert document["broken_specs"] == 0
    outcomes = {entry["name"]: entry for entry in document["entries"]}
    assert outcomes["gtm/below-support/T=10"]["outcome"] == "violated"
    assert outcomes["gtm/thm7.1/D=3,n=4"]["outcome"] == "proved"
    violated = [e for e in document["entries"] if e["expect"] == "violated" and e["spec"] == "gtm"]
    assert violated
    for entry in violated:  # each expected failure carries its counterexample
        privacy = next(c for c in entry["checks"] if c["check"] == "privacy")
        witness = privacy["evidence"]["witness"]
        assert Fraction(witness["p"]) < Fraction(entry["claim_alpha"]) * Fraction(witness["p_prime"])
    assert {e["origin"] for e in document["entries"]} == {"entry point builtin (dpverify)"}
    float_laplace = outcomes["laplace-float/k=16,q=0,q'=1"]
    privacy = next(c for c in float_laplace["checks"] if c["check"] == "privacy")
    assert float_laplace["outcome"] == "violated" and privacy["evidence"]["epsilon"] == "Infinity"
    assert outcomes["grid-laplace/q=7/10,b=2,L=1/2"]["outcome"] == "proved"


def test_fail_fast_runs_no_source_tree_check_after_a_miss(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dataclasses import replace

    from dpverify.verify.gate import _gate

    real = _gate.run_gate

    def first_case_missed(*args: object, **kwargs: object) -> list[object]:
        outcomes = real(*args, **kwargs)  # type: ignore[arg-type]
        return [replace(outcomes[0], problems=("planted miss",)), *outcomes[1:]]

    monkeypatch.setattr(_gate, "run_gate", first_case_missed)
    code, out, err = run_cli(capsys, "check", "--spec", "bernoulli", "--seed", "1", "--samples", "500", "--fail-fast")
    assert code == 1 and "nor the source tree checks" in out and "static:" not in out, out + err
    code, out, _ = run_cli(capsys, "check", "--spec", "bernoulli", "--seed", "1", "--samples", "500")
    assert code == 1 and "static:" in out  # without --fail-fast they run after a miss too


def test_parameters_in_specs_match_the_cli() -> None:
    assert GtmSpec.create("1/3", "5", "10^3").parameters() == {"alpha": "1/3", "n": "5", "T": "1000"}


def test_privacy_dgauss_json_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "privacy", "dgauss", "--sigma2", "1", "--epsilon", "1", "--sensitivity", "1", "--json"
    )
    report = json.loads(out)
    assert code == 0 and report["rho"] == "1/2"
    # 15+ significant digits, certified; the value is also the hockey-stick sum's.
    assert report["delta"].startswith("1.41351339405621") and report["delta_digits"] >= 15
    assert report["hockey_stick_agrees"] is True


def test_privacy_dgauss_at_sigma2_10_100(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "privacy", "dgauss", "--sigma2", "10^100", "--epsilon", "1/10^49", "--json")
    report = json.loads(out)
    mantissa, exponent = report["delta"].split("e")
    assert code == 0 and int(exponent) == -75 and mantissa.startswith("7.4745602545")
    assert report["hockey_stick_skipped"]


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["--sigma2", "0", "--epsilon", "1"], "sigma2"),
        (["--sigma2", "two", "--epsilon", "1"], "sigma2"),
        (["--sigma2", "2", "--epsilon", "-1"], "epsilon"),
        (["--sigma2", "2", "--epsilon", "1", "--sensitivity", "1/2"], "sensitivity"),
    ],
)
def test_privacy_dgauss_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str], name: str) -> None:
    code, out, err = run_cli(capsys, "privacy", "dgauss", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and name in err


def test_privacy_dgauss_refuses_a_sigma2_past_its_limit_at_once_naming_it() -> None:
    # 10^900 is a valid exact number, but certifying delta there ran for minutes: refused up front
    done = subprocess.run(
        [sys.executable, "-m", "dpverify", "privacy", "dgauss", "--sigma2", "10^900", "--epsilon", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert (
        done.stderr.startswith(
            "dpverify: error: sigma2 must be in (0, 10^300] to certify delta(epsilon); got sigma2='10^900'"
        )
        and len(done.stderr) < 300
    )


def test_attack_laplace_float_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys,
        "attack",
        "laplace-float",
        "--scale",
        "1",
        "--q",
        "0",
        "--q-prime",
        "1",
        "--bits",
        "12",
        "--samples",
        "20",
        "--seed",
        "3",
        "--json",
    )
    report = json.loads(out)
    assert code == 0 and report["epsilon"] == "Infinity" and isinstance(report["witness"]["j"], int)
    assert float.fromhex(report["witness"]["output_hex"]) == report["witness"]["output"]
    assert report["reachability"]["samples"] == 20


def test_attack_refuses_bits_beyond_exhaustive_range(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys, "attack", "laplace-float", "--scale", "1", "--q", "0", "--q-prime", "1", "--bits", "40"
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and "bits" in err


def test_privacy_gazeau_reports_exact_epsilon_beside_both_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys,
        "privacy",
        "gazeau",
        "--scale",
        "1",
        "--q",
        "0",
        "--q-prime",
        "1",
        "--bits",
        "14",
        "--lower=-2",
        "--upper",
        "2",
        "--step",
        "0.25",
        "--json",
    )
    report = json.loads(out)
    assert code == 0 and report["exact_ratio"] == "520/191"
    exact = report["exact_epsilon"]
    assert exact <= report["bounds"]["definition_5"]["epsilon_prime"] <= report["bounds"]["section_5"]["epsilon_prime"]


# --- the rough edges a newcomer hits ------------------------------------------------------------


@pytest.mark.parametrize("argv", [[], ["pmf"], ["privacy"], ["attack"]])
def test_a_bare_command_prints_its_usage_and_subcommands(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("usage: dpverify") and (
        "check" in err if not argv else "gtm" in err or "laplace-float" in err
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "--seed=--"], "dpverify: error: --seed needs a value"),
        (["prove", "--timeout=--"], "dpverify: error: --timeout needs a value"),
        (["pmf", "gtm", "--alpha", "1/3", "--n", "3", "--T", "100", "--q", "-1e-3"], "got q='-1e-3'"),
        (["pmf", "gtm", "--alpha", "1/3", "--n", "3", "--T", "10^5000", "--q", "0"], "T is too large: T='10^5000'"),
        (["privacy", "dgauss", "--sigma2", "1/" + "9" * 5000, "--epsilon", "1"], "sigma2 is too large"),
        (["privacy", "gtm", "--alpha", "1e99999999999999999999", "--n", "3", "--T", "9"], "alpha is too large"),
        (["privacy", "gtm", "--alpha", "999/1000", "--n", "5000", "--T", "9"], "limit is 3600"),
        (
            ["privacy", "gtm", "--alpha", "1/3", "--n", "3", "--T", "100", "--smtlib", "/no/such/dir/x.smt2"],
            "--smtlib must be in an existing directory",
        ),
        (["privacy", "gtm", "--alpha", "1/3", "--n", "3", "--T", "100", "--smtlib", "/"], "which is a directory"),
        (["check", "--json", "/no/such/dir/x.json"], "--json must be in an existing directory"),
        (["check", "--json="], "--json must name a file; got an empty path"),
        (["mutate", "dpverify.samplers.gtm", "--json="], "--json must name a file; got an empty path"),
        (["nosuch"], "dpverify: error: argument COMMAND: invalid choice: 'nosuch'"),
    ],
)
def test_each_bad_input_is_one_short_line_with_one_prefix(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    try:
        code, out, err = run_cli(capsys, *argv)
    except SystemExit as done:  # argparse's own errors exit from inside parse_args
        code, captured = done.code, capsys.readouterr()
        out, err = captured.out, captured.err
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("dpverify: error:") and message in err
    assert len(err) < 400 and "Traceback" not in err


def test_a_write_that_fails_at_the_end_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    code, out, err = run_cli(
        capsys, "privacy", "gtm", "--alpha", "1/3", "--n", "3", "--T", "100", "--smtlib", "/dev/full"
    )
    assert (
        code == 2 and err.strip() == "dpverify: error: could not write --smtlib='/dev/full': No space left on device."
    )


def test_a_package_that_does_not_import_fails_check_with_a_verdict(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpverify import _launch

    monkeypatch.setitem(sys.modules, "dpverify.verify.cli", None)  # its import now raises ImportError
    out = tmp_path / "check.json"
    assert _launch.main(["check", "--json", str(out)]) == 1
    document = json.loads(out.read_text())
    assert document["passed"] is False and document["schema"] == CHECK_SCHEMA
    [imports] = document["repository"]
    assert imports["check"] == "imports" and imports["verdict"] == "violated"
    assert "does not import: ModuleNotFoundError" in imports["summary"]
    printed = capsys.readouterr()
    assert "FAIL imports: violated" in printed.out and "Traceback" not in printed.out + printed.err
    assert _launch.main(["pmf", "--alpha", "1/2", "--n", "2", "--q", "0", "--T", "6"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("dpverify: error: the dpverify package does not import") and error.count("\n") == 1


def test_a_catalogue_that_does_not_load_fails_check_with_a_verdict(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpverify.verify.gate import _discovery

    def unloadable(*args: object, **kwargs: object) -> None:
        raise _discovery.BuiltinUnloadable("cannot load entry point builtin (dpverify): InvalidArgument: alpha=1/3")

    monkeypatch.setattr(_discovery, "discover", unloadable)
    out = tmp_path / "check.json"
    assert main(["check", "--seed", "1", "--json", str(out)]) == 1
    [catalogue] = json.loads(out.read_text())["repository"]
    assert catalogue["check"] == "catalogue" and catalogue["verdict"] == "violated"
    assert "FAIL catalogue: violated: the built-in catalogue does not load" in capsys.readouterr().out


def test_an_output_that_cannot_be_written_is_refused_before_the_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    if not Path("/proc/version").is_file():
        pytest.skip("no /proc pseudo-filesystem here")
    code, out, err = run_cli(capsys, "check", "--spec", "gtm", "--json", "/proc/version")
    assert code == 2 and out == "" and err.startswith("dpverify: error: --json cannot be written:")
    kept = tmp_path / "kept.json"
    kept.write_text("old")  # the trial write leaves an existing file as it was, and a new one absent
    from dpverify.verify.reports._output import check_output_path

    check_output_path("--json", str(kept))
    check_output_path("--junit", str(tmp_path / "new.xml"))
    assert kept.read_text() == "old" and not (tmp_path / "new.xml").exists()
