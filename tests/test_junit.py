"""``dpverify check --junit PATH``: JUnit XML that CI systems read.

Every report is read back with ``junitparser`` and validated against the Jenkins JUnit schema
(``tests/data/junit-10.xsd``, the one pytest validates its own reports with).  The violated spec
is a one-unit bug written here (``tests/_report_specs.py``), so the counterexample in the
failure's message is known independently: at ``alpha = 2/5`` the code keeps the bit with
probability 6/7 where the spec says 5/7.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from _report_specs import spec_module

from dpverify import _junit
from dpverify.specs import Case, Input, PureDp, Rational, Spec
from dpverify.verify.cli import main
from dpverify.verify.engine._results import CheckResult, Verdict
from dpverify.verify.gate import _gate

junitparser = pytest.importorskip("junitparser")

XSD = Path(__file__).resolve().parent / "data" / "junit-10.xsd"


def _valid_against_the_published_schema(path: Path) -> None:
    etree = pytest.importorskip("lxml.etree")
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    document = etree.parse(str(path))
    assert schema.validate(document), schema.error_log


def _cases(path: Path) -> dict[tuple[str, str], Any]:
    return {(case.classname, case.name): case for suite in junitparser.JUnitXml.fromfile(str(path)) for case in suite}


def _suites(path: Path) -> dict[str, Any]:
    return {suite.name: suite for suite in junitparser.JUnitXml.fromfile(str(path))}


@pytest.fixture
def report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, Path, dict[str, Any]]:
    """``check`` on the report specs with both --junit and --json: (exit code, XML path, JSON document)."""
    with spec_module(tmp_path, monkeypatch) as module:
        code = main(
            [
                "check",
                "--spec-module",
                module,
                "--seed",
                "11",
                "--samples",
                "2000",
                "--junit",
                "report.xml",
                "--json",
                "report.json",
            ]
        )
    capsys.readouterr()
    return code, tmp_path / "report.xml", json.loads((tmp_path / "report.json").read_text())


def test_one_suite_per_spec_one_case_per_case_and_the_published_schema_accepts_it(report: Any) -> None:
    code, path, document = report
    assert code == 2  # a broken spec among them
    _valid_against_the_published_schema(path)
    suites = _suites(path)
    assert list(suites) == ["flip", "flip-off-by-one", "flip-broken"]
    assert [(s.tests, s.failures, s.errors, s.skipped) for s in suites.values()] == [
        (2, 0, 0, 0),
        (1, 1, 0, 0),
        (1, 0, 1, 0),
    ]
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites" and (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "1")
    cases = _cases(path)
    assert set(cases) == {(e["spec"], e["name"].split("/", 1)[1]) for e in document["entries"]}
    assert all(float(case.time) >= 0 for case in cases.values())
    assert sum(float(case.time) for case in cases.values()) > 0
    assert cases[("flip", "alpha=1/3")].is_passed


def test_a_violated_spec_fails_with_its_counterexample_in_the_message(report: Any) -> None:
    _, path, document = report
    case = _cases(path)[("flip-off-by-one", "alpha=2/5")]
    [failure] = case.result
    assert isinstance(failure, junitparser.Failure)
    entry = next(e for e in document["entries"] if e["spec"] == "flip-off-by-one")
    assert failure.message == entry["problems"][0]  # the first problem, on one line
    # the input, the output, and both exact probabilities
    assert "q=0" in failure.message and "output=0" in failure.message
    assert "6/7" in failure.message and "5/7" in failure.message
    assert failure.type == "expected proved, got violated"
    for check in entry["checks"]:  # the text holds every check's verdict and summary
        assert check["check"] in failure.text and check["summary"] in failure.text
    assert "code_privacy" in failure.text and "P=" in failure.text
    assert "replay: dpverify check --spec-module dpverify_report_specs --spec flip-off-by-one --seed 11" in failure.text


def test_a_broken_spec_is_an_error(report: Any) -> None:
    _, path, document = report
    [error] = _cases(path)[("flip-broken", "alpha=2/5")].result
    assert isinstance(error, junitparser.Error) and error.type == "broken spec"
    entry = next(e for e in document["entries"] if e["spec"] == "flip-broken")
    assert error.message == " ".join(entry["error"].split()) and "sums to 5/7, not 1" in error.message


def test_each_suite_carries_the_seed_and_its_replay_command(report: Any) -> None:
    _, path, _ = report
    for suite in _suites(path).values():
        properties = {p.name: p.value for p in suite.properties()}
        assert properties["seed"] == "11" and properties["samples"] == "2000"
        assert properties["replay"] == (
            f"dpverify check --spec-module dpverify_report_specs --spec {suite.name} --seed 11 --samples 2000"
        )


def test_passing_cases_keep_their_checks_in_system_out(report: Any) -> None:
    _, path, _ = report
    case = _cases(path)[("flip", "alpha=2/5")]
    assert case.is_passed and "exactness" in case.system_out and "privacy" in case.system_out


def test_the_source_tree_checks_are_a_repository_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpverify.proofs import _stale

    def stale(root: object, current: object) -> CheckResult:
        return CheckResult("stale_proofs", Verdict.VIOLATED, "1 stale certificate: gtm.sample changed")

    monkeypatch.setattr(_stale, "check_manifest", stale)
    out = tmp_path / "gate.xml"
    assert main(["check", "--spec", "bernoulli", "--seed", "3", "--samples", "1000", "--junit", str(out)]) == 1
    capsys.readouterr()
    _valid_against_the_published_schema(out)
    repository = _suites(out)["repository"]
    cases = {case.name: case for case in repository}
    assert list(cases) == ["static", "entry_points", "stale_proofs", "certificates"]
    assert all(cases[name].is_passed for name in ("static", "entry_points", "certificates"))
    [failure] = cases["stale_proofs"].result
    assert failure.message == "stale_proofs violated: 1 stale certificate: gtm.sample changed"
    properties = {p.name: p.value for p in repository.properties()}
    assert properties["replay"] == "dpverify check --spec bernoulli --seed 3 --samples 1000"


def test_junit_alone_on_stdout_moves_the_human_report_to_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with spec_module(tmp_path, monkeypatch) as module:
        assert main(["check", "--spec-module", module, "--spec", "flip", "--seed", "1", "--junit", "-"]) == 0
    out, err = capsys.readouterr()
    assert ET.fromstring(out).tag == "testsuites" and "dpverify check: 1 specs" in err


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("missing/report.xml", "--junit must be in an existing directory"),
        (".", "--junit must be a file path"),
        ("same", "--json and --junit must be different files"),
        ("-", "only one of --json and --junit can write to stdout"),
    ],
)
def test_a_bad_path_is_refused_before_the_work(
    where: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    json_path = {"same": "same", "-": "-"}.get(where, "ok.json")
    with spec_module(tmp_path, monkeypatch) as module:
        code = main(["check", "--spec-module", module, "--json", json_path, "--junit", where])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith(f"dpverify: error: {message}")
    assert not (tmp_path / "ok.json").exists()


def test_a_write_that_fails_at_the_end_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    with spec_module(tmp_path, monkeypatch) as module:
        code = main(["check", "--spec-module", module, "--spec", "flip", "--junit", "/dev/full"])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == "dpverify: error: could not write --junit='/dev/full': No space left on device."


def test_fail_fast_reports_the_cases_not_run_as_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with spec_module(tmp_path, monkeypatch) as module:
        code = main(
            [
                "check",
                "--spec-module",
                module,
                "--spec",
                "flip-off-by-one",
                "--spec",
                "flip-broken",
                "--seed",
                "1",
                "--fail-fast",
                "--junit",
                "r.xml",
            ]
        )
    capsys.readouterr()
    assert code == 1  # the broken spec was not run
    _valid_against_the_published_schema(tmp_path / "r.xml")
    suites = _suites(tmp_path / "r.xml")
    assert [(s.tests, s.failures, s.errors, s.skipped) for s in suites.values()] == [(1, 1, 0, 0), (1, 0, 0, 1)]
    [skipped] = next(iter(suites["flip-broken"])).result
    assert isinstance(skipped, junitparser.Skipped) and "--fail-fast" in skipped.message


def test_a_package_that_does_not_import_is_a_failed_repository_case(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpverify import _launch

    monkeypatch.setitem(sys.modules, "dpverify.verify.cli", None)  # its import now raises ImportError
    out = tmp_path / "check.xml"
    assert _launch.main(["check", "--junit", str(out), "--json", str(tmp_path / "check.json")]) == 1
    capsys.readouterr()
    _valid_against_the_published_schema(out)
    [failure] = _cases(out)[("repository", "imports")].result
    assert isinstance(failure, junitparser.Failure) and "does not import: ModuleNotFoundError" in failure.message
    assert json.loads((tmp_path / "check.json").read_text())["repository"][0]["check"] == "imports"


def test_specs_that_cannot_be_loaded_are_an_error_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with spec_module(tmp_path, monkeypatch) as module:
        code = main(["check", "--spec-module", module, "--spec", "no-such-spec", "--junit", "r.xml"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("dpverify: error: no spec named 'no-such-spec'")
    _valid_against_the_published_schema(tmp_path / "r.xml")
    [error] = _cases(tmp_path / "r.xml")[("specs", "load")].result
    assert isinstance(error, junitparser.Error) and error.message.startswith("no spec named 'no-such-spec'")


def test_a_catalogue_that_does_not_load_is_a_failed_repository_case(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpverify.verify.gate import _discovery

    def unloadable(*args: object, **kwargs: object) -> None:
        raise _discovery.BuiltinUnloadable("cannot load entry point builtin (dpverify): InvalidArgument: alpha=1/3")

    monkeypatch.setattr(_discovery, "discover", unloadable)
    out = tmp_path / "check.xml"
    assert main(["check", "--seed", "1", "--junit", str(out)]) == 1
    capsys.readouterr()
    _valid_against_the_published_schema(out)
    [failure] = _cases(out)[("repository", "catalogue")].result
    assert "the built-in catalogue does not load" in failure.message


def test_text_that_xml_cannot_hold_is_escaped_and_messages_are_one_line(tmp_path: Path) -> None:
    spec = Spec(
        "odd",
        lambda bit, rng: bit,
        {"alpha": Rational(0, 1, low_open=True)},
        (Case({"alpha": "1/2"}),),
        lambda p: PureDp(alpha=p["alpha"]),
        input=Input("bit", lambda p: (0, 1)),
    )
    error = "spec 'odd', case 'alpha=1/2': pmf(p) raised ValueError: bad\x00\x1b[31m value\nsecond line\ud800"
    outcome = _gate.CaseOutcome(spec, spec.cases[0], "module m", "error", error=error)
    path = tmp_path / "odd.xml"
    path.write_text(_gate.gate_junit([outcome], seed=1, samples=10, replay="dpverify check"), encoding="utf-8")
    _valid_against_the_published_schema(path)
    [error_element] = _cases(path)[("odd", "alpha=1/2")].result
    assert error_element.message == (
        "spec 'odd', case 'alpha=1/2': pmf(p) raised ValueError: bad\\x00\\x1b[31m value second line\\ud800"
    )
    assert "second line" in error_element.text  # the text keeps the whole message, lines and all


def test_counts_and_times_of_a_hand_made_report() -> None:
    suites = [
        _junit.JunitSuite(
            "a", (_junit.JunitCase("a", "one", 0.25), _junit.JunitCase("a", "two", 1.5, _junit.FAILURE, "boom"))
        ),
        _junit.JunitSuite(
            "b",
            (
                _junit.JunitCase("b", "three", 0.0004, _junit.ERROR, "broken"),
                _junit.JunitCase("b", "four", status=_junit.SKIPPED, message="not run"),
            ),
        ),
    ]
    root = ET.fromstring(_junit.junit_xml(suites, name="run"))
    assert [root.get(k) for k in ("tests", "failures", "errors", "time")] == ["4", "1", "1", "1.750"]
    b = root.findall("testsuite")[1]
    assert [b.get(k) for k in ("tests", "failures", "errors", "skipped", "time")] == ["2", "0", "1", "1", "0.000"]
    assert _junit.one_line("a\n  b\tc") == "a b c" and len(_junit.one_line("x" * 5000)) == _junit.MESSAGE_LIMIT


@pytest.mark.slow
def test_the_whole_catalogue_in_both_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The built-in catalogue: its JUnit XML against the Jenkins schema, its JSON against
    ``schemas/check-3.schema.json``, and the two telling the same story."""
    jsonschema = pytest.importorskip("jsonschema")
    xml, document_path = tmp_path / "gate.xml", tmp_path / "gate.json"
    assert main(["check", "--seed", "5", "--samples", "5000", "--junit", str(xml), "--json", str(document_path)]) == 0
    capsys.readouterr()
    _valid_against_the_published_schema(xml)
    document = json.loads(document_path.read_text())
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "check-3.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)
    cases = _cases(xml)
    assert len(cases) == len(document["entries"]) + len(document["repository"])
    assert all(case.is_passed for case in cases.values())
    assert {name for spec, name in cases if spec == "repository"} == {c["check"] for c in document["repository"]}
