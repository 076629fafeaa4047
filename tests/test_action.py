"""The composite GitHub Action (``action.yml``), run step by step on the sample repository
``examples/gated-repo`` (``tests/_action_runner.py``): green as shipped; red, with SARIF on the
planted line and an audit report, after a one-unit bug; and the example workflows use it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from _action_runner import ROOT, load_action, run_action
from _sample_repository import CORRECT, PLANTED, SAMPLE, edit_sampler, sample_repository

SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-2.1.0-rtm.5.json").read_text(encoding="utf-8"))


def _inputs(**extra: str) -> dict[str, str]:
    # dpverify is this checkout, already importable by this interpreter: the install step runs
    # without reinstalling it (the slow test below runs the install too).
    return {
        "spec-modules": "warner.specs",
        "install": "",
        "install-dpverify": "false",
        "python": sys.executable,
        "time-limit": "60",
        "seed": "1",
        **extra,
    }


def _sarif(path: Path) -> list[dict]:
    log = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    return log["runs"][0]["results"]


def test_the_action_passes_the_sample_and_writes_every_report(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    sample_repository(workspace)
    run = run_action(workspace, _inputs(), tmp=tmp_path)
    assert not run.failed, run.logs
    assert run.outputs["verdict"] == {"verdict": "pass"}
    report = Path(run.outputs["gate"]["report-directory"])
    assert report == (workspace / "dpverify-report").resolve()
    assert json.loads((report / "check.json").read_text())["passed"] is True
    assert "<testsuite" in (report / "junit.xml").read_text()
    assert _sarif(report / "sarif" / "check.sarif") == []
    assert not any((report / "audit").iterdir()), "audit=failed audits nothing on a green run"
    uploads = dict(run.uploads)
    assert uploads["actions/upload-artifact@v4"]["path"] == str(report)
    assert "github/codeql-action/upload-sarif@v3" not in uploads, "upload-sarif defaults to false"


def test_a_planted_one_unit_bug_fails_the_action_on_its_line(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    base = sample_repository(workspace)
    line = edit_sampler(workspace, CORRECT, PLANTED)
    run = run_action(workspace, _inputs(base=base, **{"upload-sarif": "true"}), tmp=tmp_path)
    assert run.statuses["verdict"] == 1 and run.outputs["verdict"] == {"verdict": "fail"}
    assert "::error title=dpverify::" in run.logs["verdict"]
    report = Path(run.outputs["gate"]["report-directory"])
    assert run.outputs["gate"]["status"] == "1"

    check = _sarif(report / "sarif" / "check.sarif")
    assert check and {r["ruleId"] for r in check} == {"violated"}
    for result in check:  # the function the counterexample runs through, holding the planted line
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "warner/sampler.py", "uriBaseId": "%SRCROOT%"}
        assert location["region"]["startLine"] <= line <= location["region"]["endLine"]
        first = result["message"]["text"].splitlines()[0]  # the counterexample: input, output, both probabilities
        assert re.fullmatch(
            r"warner/alpha=\S+: exactness violated: code and spec differ at q=0, output=0: "
            r"code \d+(/\d+)? vs spec \d+(/\d+)?",
            first,
        ), first

    [changed] = _sarif(report / "sarif" / "check-base.sarif")
    assert changed["ruleId"] == "law-changed"
    region = changed["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["endLine"]) == (line, line)
    assert "warner" in changed["message"]["text"] and "differs at" in changed["message"]["text"]

    assert (report / "audit" / "warner" / "report.html").is_file(), "audit=failed audits the failed spec"
    uploads = dict(run.uploads)
    assert uploads["github/codeql-action/upload-sarif@v3"]["sarif_file"] == f"{report}/sarif"
    assert uploads["actions/upload-artifact@v4"]["name"] == "dpverify-report"


def test_every_input_is_documented_in_the_ci_guide() -> None:
    guide = (ROOT / "docs" / "how-to" / "ci-integration.md").read_text(encoding="utf-8")
    for name in load_action()["inputs"]:
        assert f"`{name}`" in guide, f"action input {name} is not in docs/how-to/ci-integration.md"


@pytest.mark.parametrize(
    "workflow", [ROOT / ".github" / "workflows" / "dpverify.yml", SAMPLE / ".github" / "workflows" / "dpverify.yml"]
)
def test_the_example_workflows_use_the_action_with_inputs_it_declares(workflow: Path) -> None:
    declared = set(load_action()["inputs"])
    steps = [
        step for job in yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"].values() for step in job["steps"]
    ]
    gates = [step for step in steps if step.get("uses", "").split("@")[0].endswith(("dpverify", "./"))]
    assert gates, f"{workflow} does not use the dpverify action"
    for step in gates:
        assert set(step.get("with", {})) <= declared


@pytest.mark.slow
def test_the_action_installs_dpverify_and_the_package_into_a_fresh_python(tmp_path: Path) -> None:
    """The install step as a runner runs it: dpverify from the action's checkout, then the sample
    package, into a new virtual environment (the test environment's packages are visible to it,
    so only dpverify and the sample are built)."""
    workspace = tmp_path / "repo"
    sample_repository(workspace)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    here = subprocess.run(
        [sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "test-environment.pth").write_text(here + "\n", encoding="utf-8")
    run = run_action(
        workspace,
        _inputs(
            **{"install-dpverify": "true", "install": ".", "python": str(python), "spec-modules": "", "specs": "warner"}
        ),
        tmp=tmp_path,
    )
    assert not run.failed, run.logs
    assert re.search(r"dpverify \d+\.\d+", run.logs["step0"])
    check = json.loads((workspace / "dpverify-report" / "check.json").read_text())
    # no --spec-module: the installed package's entry point is what found the spec
    assert {entry["spec"] for entry in check["entries"]} == {"warner"} and check["passed"]
