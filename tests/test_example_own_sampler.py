"""The walkthrough in examples/own-sampler: a user's package, its specs, and the gate's verdicts.

The fast tests import the example from its folder, without installing it, and run the engine
and the command line in-process; the slow test installs dpverify and the example into a fresh
virtual environment and runs the installed ``dpverify`` the way the example's README does.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest

from dpverify.samplers import SeededRandomSource
from dpverify.verify.cli import main
from dpverify.verify.engine._results import Verdict
from dpverify.verify.gate._spec_run import CaseOutcome, run_case
from dpverify.verify.gate._static import scan_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "own-sampler"
SAMPLES = 2000


def _forget_example() -> None:
    for name in [n for n in sys.modules if n == "own_sampler" or n.startswith("own_sampler.")]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def importable() -> Iterator[None]:
    """The example's folder on sys.path for the module's tests; sys.path (including what the
    CLI's --spec-module inserts) and sys.modules are restored afterwards."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(EXAMPLE))
        _forget_example()  # an installed copy must not stand in for the folder's
        try:
            yield
        finally:
            _forget_example()


@pytest.fixture(scope="module")
def specs(importable: None) -> ModuleType:
    module = importlib.import_module("own_sampler.specs")
    assert Path(module.__file__).resolve().is_relative_to(EXAMPLE)
    return module


@pytest.fixture(scope="module")
def sampler(importable: None) -> ModuleType:
    return importlib.import_module("own_sampler.sampler")


@pytest.fixture(scope="module")
def outcomes(specs: ModuleType) -> dict[str, list[CaseOutcome]]:
    return {spec.name: [run_case(spec, case, seed=1, samples=SAMPLES) for case in spec.cases] for spec in specs.SPECS}


def _by_check(outcome: CaseOutcome) -> dict[str, list]:
    found: dict[str, list] = {}
    for check in outcome.checks:
        found.setdefault(check.check, []).append(check)
    return found


def _sizes(parameters: Mapping[str, object]) -> tuple[int, int, int, int]:
    """``(k, a, b, N)`` with ``alpha = a/b`` in lowest terms and ``N = b + (k-1) a`` draws."""
    k, alpha = int(parameters["k"]), Fraction(parameters["alpha"])  # type: ignore[arg-type, call-overload]
    a, b = alpha.numerator, alpha.denominator
    return k, a, b, b + (k - 1) * a


# --- the declaration -----------------------------------------------------------------------------


def test_the_module_declares_the_two_specs_the_readme_names(specs: ModuleType) -> None:
    assert [s.name for s in specs.SPECS] == ["randomized-response", "randomized-response-off-by-one"]
    assert specs.SPECS == (specs.RANDOMIZED_RESPONSE, specs.BROKEN_RANDOMIZED_RESPONSE)
    for spec in specs.SPECS:
        assert 2 <= len(spec.cases) <= 3
        assert all(case.expect == "proved" for case in spec.cases)
        # a large denominator, where sampling is blind to a one-draw error
        assert any(_sizes(case.parameters)[3] > 10**6 for case in spec.cases)


def test_the_pmf_is_the_closed_form(specs: ModuleType) -> None:
    pmf = specs.randomized_response_pmf({"k": 3, "alpha": Fraction(2, 5)}, 1)
    assert pmf == {0: Fraction(2, 9), 1: Fraction(5, 9), 2: Fraction(2, 9)}
    assert all(type(v) is Fraction for v in pmf.values())


def test_the_pmf_never_runs_the_sampler(
    specs: ModuleType, sampler: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A PMF computed by running the code would agree with any bug in it.
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the spec's PMF called the sampler")

    for module in (sampler, specs):
        monkeypatch.setattr(module, "randomized_response", refuse)
        monkeypatch.setattr(module, "randomized_response_off_by_one", refuse)
    for spec in specs.SPECS:
        for case in spec.cases:
            p = spec.bind(case)
            for q in range(p["k"]):
                assert sum(spec.pmf(p, q).values()) == 1


def test_the_example_keeps_dpverifys_own_rules_for_samplers() -> None:
    # no float literal or float math, no randomness except through rng, in the code or the spec
    for path in (EXAMPLE / "own_sampler" / "sampler.py", EXAMPLE / "own_sampler" / "specs.py"):
        assert scan_file(path, EXAMPLE) == []


# --- the correct sampler -----------------------------------------------------------------------


def test_every_correct_case_is_proved(outcomes: dict[str, list[CaseOutcome]]) -> None:
    for outcome in outcomes["randomized-response"]:
        assert outcome.met, (outcome.name, outcome.problems, outcome.error)
        assert outcome.outcome == "proved"
        checks = _by_check(outcome)
        assert set(checks) == {"smoke", "exactness", "accepts", "statistical", "privacy", "z3", "refusals"}
        assert all(c.verdict is Verdict.PROVED for c in outcome.checks)
        _, a, b, N = _sizes(outcome.case.parameters)
        # the claim is tight: the truth is exactly 1/alpha times as likely as any other value
        assert Fraction(checks["privacy"][0].evidence["alpha_exact"]) == Fraction(a, b)
        method = checks["exactness"][0].evidence["methods"]
        assert method == (["bisection"] if N > 4096 else ["exhaustive"])


class CountingSource(SeededRandomSource):
    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.sizes: list[int] = []

    def randbelow(self, n: int) -> int:
        self.sizes.append(n)
        return super().randbelow(n)


def test_the_correct_sampler_draws_once_and_stays_in_range(sampler: ModuleType) -> None:
    rng = CountingSource(7)
    seen = {sampler.randomized_response(2, 5, Fraction(2, 7), rng) for _ in range(400)}
    assert seen == {0, 1, 2, 3, 4}
    assert rng.sizes == [7 + 4 * 2] * 400


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"q": 0, "k": 1, "alpha": Fraction(1, 2)}, "k must be an int >= 2; got k=1."),
        ({"q": 0, "k": 2.0, "alpha": Fraction(1, 2)}, "k must be an int >= 2; got k=2.0."),
        ({"q": 3, "k": 3, "alpha": Fraction(1, 2)}, "q must be an int with 0 <= q < k = 3; got q=3."),
        ({"q": -1, "k": 3, "alpha": Fraction(1, 2)}, "q must be an int with 0 <= q < k = 3; got q=-1."),
        ({"q": False, "k": 3, "alpha": Fraction(1, 2)}, "q must be an int with 0 <= q < k = 3; got q=False."),
        ({"q": 0, "k": 3, "alpha": 0.5}, "got alpha=0.5. Pass Fraction(a, b): a float is not an exact ratio."),
        ({"q": 0, "k": 3, "alpha": "1/2"}, "alpha must be an int or Fraction in (0, 1]; got alpha='1/2'."),
        ({"q": 0, "k": 3, "alpha": Fraction(0)}, "alpha must be in (0, 1]; got alpha=0."),
        ({"q": 0, "k": 3, "alpha": Fraction(4, 3)}, "alpha must be in (0, 1]; got alpha=4/3."),
    ],
)
def test_the_samplers_refuse_bad_arguments(sampler: ModuleType, arguments: dict, message: str) -> None:
    for function in (sampler.randomized_response, sampler.randomized_response_off_by_one):
        with pytest.raises(ValueError) as raised:
            function(**arguments, rng=SeededRandomSource(1))
        assert message in str(raised.value) and "\n" not in str(raised.value)


# --- the broken sampler --------------------------------------------------------------------------


def test_every_broken_case_fails_on_its_exactness_check(outcomes: dict[str, list[CaseOutcome]]) -> None:
    for outcome in outcomes["randomized-response-off-by-one"]:
        assert not outcome.met and outcome.error is None
        assert outcome.outcome == "violated"
        exactness = _by_check(outcome)["exactness"][0]
        assert exactness.verdict is Verdict.VIOLATED
        # The first input, q = 0, and its first output, 0 = q itself, which has one draw too many.
        _, _, b, N = _sizes(outcome.case.parameters)
        assert exactness.evidence["q"] == 0 and exactness.evidence["output"] == 0
        assert Fraction(exactness.evidence["code_p"]) == Fraction(b + 1, N)
        assert Fraction(exactness.evidence["spec_p"]) == Fraction(b, N)
        assert any(
            problem.startswith("exactness violated: code and spec differ at q=0, output=0")
            for problem in outcome.problems
        )


def test_every_broken_case_violates_the_claim_on_the_codes_own_pmf(outcomes: dict[str, list[CaseOutcome]]) -> None:
    for outcome in outcomes["randomized-response-off-by-one"]:
        checks = _by_check(outcome)
        # The spec's closed form is right, so the claim on it proves; the code's does not.
        assert checks["privacy"][0].verdict is Verdict.PROVED and checks["z3"][0].verdict is Verdict.PROVED
        code_privacy, code_z3 = checks["code_privacy"][0], checks["code_z3"][0]
        assert code_privacy.verdict is Verdict.VIOLATED and code_z3.verdict is Verdict.VIOLATED
        _, a, b, N = _sizes(outcome.case.parameters)
        # q's first other value lost a draw; as the input q' itself it is reported one draw too often.
        assert Fraction(code_privacy.evidence["alpha_exact"]) == Fraction(a - 1, b + 1) < Fraction(a, b)
        w = code_privacy.evidence["witness"]
        assert (Fraction(w["p"]), Fraction(w["p_prime"])) == (Fraction(a - 1, N), Fraction(b + 1, N))
        assert w["output"] == w["q_prime"] == (1 if w["q"] == 0 else 0)
        at = f"at q={w['q']}, q'={w['q_prime']}, output={w['output']}: P={w['p']} vs P'={w['p_prime']}"
        assert at in code_privacy.summary and at in code_z3.summary


def test_the_correct_cases_need_no_check_of_the_code_alone(outcomes: dict[str, list[CaseOutcome]]) -> None:
    # exactness proved: the code's PMF is the spec's, so the claim on the spec covers the code
    for outcome in outcomes["randomized-response"]:
        assert not {c.check for c in outcome.checks} & {"code_privacy", "code_z3"}


def test_sampling_misses_the_slip_at_a_large_denominator(specs: ModuleType) -> None:
    spec = specs.BROKEN_RANDOMIZED_RESPONSE
    large = next(c for c in spec.cases if _sizes(c.parameters)[3] > 10**6)
    outcome = run_case(spec, large, seed=1, samples=20_000)
    checks = _by_check(outcome)
    # 1/N ~ 2.5e-7 is far below what DKW at 20,000 draws can detect (a CDF distance of 0.046)
    assert [c.verdict for c in checks["statistical"]] == [Verdict.PROVED]
    assert [problem.split(":")[0] for problem in outcome.problems] == [
        "exactness violated",
        "expected code_privacy proved, got violated",
        "expected code_z3 proved, got violated",
    ]


def test_sampling_sees_the_slip_when_it_makes_a_value_impossible(outcomes: dict[str, list[CaseOutcome]]) -> None:
    # alpha = 1/3, k = 2: a = 1, so u <= b covers every draw and the other value never appears.
    outcome = next(o for o in outcomes["randomized-response-off-by-one"] if o.case.parameters["alpha"] == "1/3")
    checks = _by_check(outcome)
    assert [c.verdict for c in checks["statistical"]] == [Verdict.VIOLATED]
    assert checks["code_privacy"][0].summary.startswith("infinite privacy loss")


# --- the command line --------------------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_of_the_module_fails_on_the_broken_spec(importable: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys, "check", "--spec-module", "own_sampler.specs", "--seed", "1", "--samples", str(SAMPLES)
    )
    assert code == 1, err
    assert "dpverify check: 2 specs, 6 cases, statistical seed 1" in out
    assert "ok   randomized-response/k=4,alpha=999999/1000000: expect proved, got proved" in out
    assert "FAIL randomized-response-off-by-one/k=4,alpha=999999/1000000: expect proved, got violated" in out
    assert (
        "problem: exactness violated: code and spec differ at q=0, output=0: "
        "code 1000001/3999997 vs spec 1000000/3999997"
    ) in out
    assert (
        "code_privacy   violated     ratio 999998/1000001 < claimed 999999/1000000 (short by "
        "1999999/1000001000000) at q=1, q'=0, output=0: P=999998/3999997 vs P'=1000001/3999997"
    ) in out
    assert out.count("\nFAIL ") == 3 and out.count("\nok   ") == 3
    assert out.rstrip().endswith("3 of 6 cases met their expectation: FAIL")
    # the user's specs alone: no source-tree checks of dpverify itself
    assert "static" not in out and "stale_proofs" not in out


def test_check_of_the_correct_spec_passes(importable: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys,
        "check",
        "--spec-module",
        "own_sampler.specs",
        "--spec",
        "randomized-response",
        "--seed",
        "1",
        "--samples",
        str(SAMPLES),
    )
    assert code == 0, err
    assert "off-by-one" not in out
    assert out.rstrip().endswith("3 of 3 cases met their expectation: PASS")


def test_list_names_the_module_as_origin(importable: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "check", "--spec-module", "own_sampler.specs", "--list")
    assert code == 0
    assert out.splitlines()[0::2] == [
        "randomized-response: 3 case(s), from module own_sampler.specs",
        "randomized-response-off-by-one: 3 case(s), from module own_sampler.specs",
    ]


# --- measuring the gate: dpverify mutate ---------------------------------------------------------

#: The README's command, run in the example's folder.
MUTATE = ["mutate", "own_sampler.sampler", "--spec-module", "own_sampler.specs", "--spec", "randomized-response"]


def _mutant_id(function: str, original: str, mutated: str) -> str:
    from dpverify.verify.changes._mutants import mutants_of

    source = (EXAMPLE / "own_sampler" / "sampler.py").read_text()
    (found,) = [
        m.id
        for m in mutants_of("own_sampler.sampler", source)
        if m.function == function and (m.original, m.mutated) == (original, mutated)
    ]
    return found


def test_the_input_checks_mutants_are_caught_by_the_specs_edges(
    importable: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three mutants of the input checks that survived while the spec declared no edges: one lets
    k = 1 through, one lets every type through as an int, one turns the valid alpha = 1 away."""
    monkeypatch.chdir(EXAMPLE)
    chosen = {
        _mutant_id("_checked", "k < 2", "k < 1"): "refusals",
        _mutant_id(
            "_is_int",
            "isinstance(value, int) and (not isinstance(value, bool))",
            "isinstance(value, int) or not isinstance(value, bool)",
        ): "refusals",
        _mutant_id("_checked", "0 < ratio <= 1", "0 < ratio < 1"): "accepts",
    }
    out = tmp_path / "mutate.json"
    code = main([*MUTATE, *[a for mutant in chosen for a in ("--only", mutant)], "--jobs", "1", "--json", str(out)])
    captured = capsys.readouterr()
    assert f"reviewed equivalents: {EXAMPLE / 'mutants' / 'equivalent.toml'}" in captured.out + captured.err
    document = json.loads(out.read_text())
    assert code == 0, [(m["id"], m["status"], m["detail"]) for m in document["mutants"]]
    for mutant in document["mutants"]:
        assert mutant["status"] == "killed" and chosen[mutant["id"]] in {k["check"] for k in mutant["kills"]}
    assert not document["equivalents"]["stale"]


@pytest.mark.slow
def test_the_readme_mutate_command_kills_every_mutant(tmp_path: Path) -> None:
    """The example README's command, as written, in the example's folder: every mutant of the
    sampler module is killed with a verdict; the broken copy's are skipped by the reviewed file."""
    script = Path(sys.executable).with_name("dpverify")
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "dpverify"]
    json_path = tmp_path / "mutate.json"
    run = _run(*command, *MUTATE, "--json", json_path, cwd=EXAMPLE, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    document = json.loads(json_path.read_text())
    totals = document["totals"]
    assert totals["mutants"] == totals["killed"] >= 50 and totals["skipped_in_reviewed_functions"] >= 15
    assert not any(m["function"] == "randomized_response_off_by_one" for m in document["mutants"])
    assert re.search(r"^own_sampler\.sampler +(\d+) +\1 +0 +0 +0$", run.stdout, re.MULTILINE), run.stdout
    assert re.search(r"^\d+ killed, 0 reviewed equivalent: PASS$", run.stdout, re.MULTILINE), run.stdout


# --- the real thing: a fresh virtual environment -------------------------------------------------

#: What pip prints when it cannot reach a package index (then the test is skipped, not failed).
_OFFLINE = (
    "Could not find a version that satisfies",
    "No matching distribution found",
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Max retries exceeded",
    "ProxyError",
    "Network is unreachable",
)


def _run(*argv: str | Path, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_fresh_venv_installs_dpverify_and_the_example_and_runs_the_gate(tmp_path: Path) -> None:
    # pip builds a local project in place; a copy keeps build/ and *.egg-info out of the checkout.
    source = tmp_path / "dpverify-src"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"
        ),
    )
    venv = tmp_path / "venv"
    created = _run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    bin_ = venv / "bin"
    for target in (source, source / "examples" / "own-sampler"):
        installed = _run(bin_ / "python", "-m", "pip", "install", target, cwd=tmp_path, timeout=600)
        if installed.returncode != 0 and any(marker in installed.stdout + installed.stderr for marker in _OFFLINE):
            pytest.skip(f"pip cannot reach a package index: {installed.stderr.strip().splitlines()[-1]}")
        assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]

    work = tmp_path / "work"  # not the source tree: --spec-module puts the working directory on sys.path
    work.mkdir()
    listed = _run(bin_ / "dpverify", "check", "--list", cwd=work)
    assert listed.returncode == 0, listed.stderr
    for name in ("randomized-response", "randomized-response-off-by-one"):
        assert f"{name}: 3 case(s), from entry point own-sampler (own-sampler)" in listed.stdout.splitlines()
    assert any(
        line.startswith("gtm: ") and line.endswith(" case(s), from entry point builtin (dpverify)")
        for line in listed.stdout.splitlines()
    )

    red = _run(
        bin_ / "dpverify", "check", "--spec-module", "own_sampler.specs", "--seed", "1", "--samples", "2000", cwd=work
    )
    assert red.returncode == 1, red.stdout + red.stderr
    assert (
        "problem: exactness violated: code and spec differ at q=0, output=0: "
        "code 1000001/3999997 vs spec 1000000/3999997"
    ) in red.stdout
    assert "at q=1, q'=0, output=0: P=999998/3999997 vs P'=1000001/3999997" in red.stdout
    assert red.stdout.rstrip().endswith("3 of 6 cases met their expectation: FAIL")

    green = _run(
        bin_ / "dpverify", "check", "--spec", "randomized-response", "--seed", "1", "--samples", "2000", cwd=work
    )
    assert green.returncode == 0, green.stdout + green.stderr
    assert green.stdout.rstrip().endswith("3 of 3 cases met their expectation: PASS")

    light = _run(bin_ / "python", "-c", "import dpverify.samplers, sys; assert 'sympy' not in sys.modules", cwd=work)
    assert light.returncode == 0, light.stderr

    (site,) = (venv / "lib").glob("python*/site-packages")
    top = {p.name for p in site.iterdir() if p.is_dir() and not p.name.endswith((".dist-info", ".egg-info"))}
    assert {name for name in top if "dpverify" in name} == {"dpverify"}
    assert not top & {"samplers", "specs", "verify", "proofs"}
    assert "own_sampler" in top
