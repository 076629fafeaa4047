"""``--sarif PATH`` on ``check``, ``diff`` and ``mutate``: every log validates against the SARIF
2.1.0 schema (``tests/data/sarif-2.1.0-rtm.5.json``, from Microsoft's MIT-licensed
``@microsoft/jest-sarif``), and each result points at the line it is about.  ``check`` and
``check --base`` on a planted one-unit bug are in ``tests/test_action.py``."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import jsonschema
import pytest
from _sample_repository import sample_repository

from dpverify.verify.cli import main
from dpverify.verify.reports._sarif_locations import Locator, changed_lines, definition_region

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-2.1.0-rtm.5.json").read_text(encoding="utf-8"))


def _results(path: Path) -> list[dict]:
    log = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["version"] == "2.1.0" and log["runs"][0]["tool"]["driver"]["name"] == "dpverify"
    rules = [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    for result in log["runs"][0]["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
    return log["runs"][0]["results"]


def _region(result: dict) -> tuple[str, int, int]:
    location = result["locations"][0]["physicalLocation"]
    return location["artifactLocation"]["uri"], location["region"]["startLine"], location["region"]["endLine"]


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the sample repository as a git repository, the working directory."""
    workspace = tmp_path / "repo"
    sample_repository(workspace)
    monkeypatch.chdir(workspace)
    monkeypatch.syspath_prepend(str(workspace))
    return workspace


def test_a_green_check_is_an_empty_valid_log(sample: Path) -> None:
    assert main(["check", "--spec-module", "warner.specs", "--seed", "1", "--sarif", "out.sarif"]) == 0
    assert _results(sample / "out.sarif") == []


def test_a_surviving_mutant_is_on_its_mutated_line(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutate", "warner.sampler", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    # only lets an invalid bit through: nothing on the spec's domain can see it
    [mutant] = [line.split()[0] for line in listed if "isinstance(bit, bool) and bit not in" in line]
    code = main(
        [
            "mutate",
            "warner.sampler",
            "--spec-module",
            "warner.specs",
            "--only",
            mutant,
            "--jobs",
            "1",
            "--sarif",
            "mutate.sarif",
        ]
    )
    assert code == 1
    [result] = _results(sample / "mutate.sarif")
    line = next(
        i
        for i, text in enumerate((sample / "warner" / "sampler.py").read_text().splitlines(), 1)
        if "bit not in (0, 1)" in text
    )
    assert result["ruleId"] == "mutant-survived" and _region(result) == ("warner/sampler.py", line, line)
    assert mutant in result["message"]["text"]


def test_diff_points_at_the_new_sampler_function(sample: Path) -> None:
    (sample / "versions.py").write_text(
        textwrap.dedent("""\
        def old(n, rng):
            return rng.randbelow(n) < 1


        def new(n, rng):
            u = rng.randbelow(n)
            return u <= 1
        """),
        encoding="utf-8",
    )
    assert main(["diff", "versions:old", "versions:new", "--param", "n=4", "--sarif", "diff.sarif"]) == 1
    [result] = _results(sample / "diff.sarif")
    assert result["ruleId"] == "law-changed" and _region(result) == ("versions.py", 5, 7)
    assert "differs" in result["message"]["text"]


def test_an_installed_copy_is_mapped_to_the_repository_file_only_when_identical(sample: Path, tmp_path: Path) -> None:
    installed = tmp_path / "site-packages" / "warner"
    shutil.copytree(sample / "warner", installed)
    locator = Locator(sample)
    assert locator.uri(str(sample / "warner" / "sampler.py")) == ("warner/sampler.py", True)
    assert locator.uri(str(installed / "sampler.py"), "warner.sampler") == ("warner/sampler.py", True)
    assert locator.uri(str(installed / "__init__.py"), "warner") == ("warner/__init__.py", True)
    in_tree = sample / ".venv" / "lib" / "site-packages" / "warner"  # a virtual environment in the checkout
    shutil.copytree(sample / "warner", in_tree)
    assert locator.uri(str(in_tree / "sampler.py"), "warner.sampler") == ("warner/sampler.py", True)
    (installed / "sampler.py").write_text("# another version\n" + (installed / "sampler.py").read_text())
    uri, relative = locator.uri(str(installed / "sampler.py"), "warner.sampler")
    assert not relative and uri == (installed / "sampler.py").resolve().as_uri()


def test_changed_lines_and_definitions(sample: Path) -> None:
    sampler = sample / "warner" / "sampler.py"
    lines = sampler.read_text().splitlines()
    at = lines.index("    if u < b:") + 1
    sampler.write_text("\n".join(lines).replace("    if u < b:", "    if u <= b:") + "\n")
    assert changed_lines(sample, "warner/sampler.py", "HEAD") == (at,)
    region = definition_region(str(sampler), "respond")
    assert region is not None and region.start < at <= region.end
    assert definition_region(str(sampler), "missing") is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sarif", "-", "--json", "-"], "only one of --json and --sarif can write to stdout"),
        (["--sarif", "same", "--junit", "same"], "--junit and --sarif must be different files"),
        (["--sarif="], "--sarif must name a file"),
        (["--sarif", "/proc/version"], "--sarif"),
    ],
)
def test_bad_sarif_paths_are_refused_before_the_work(
    argv: list[str], message: str, sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--spec-module", "warner.specs", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpverify: error:") and message in err and "Traceback" not in err
    assert "dpverify check:" not in err, "no case ran"


def test_specs_that_do_not_load_are_one_broken_spec_result(sample: Path) -> None:
    (sample / "bad_specs.py").write_text("SPECS = [1]\n", encoding="utf-8")
    assert main(["check", "--spec-module", "bad_specs", "--sarif", "bad.sarif"]) == 2
    [result] = _results(sample / "bad.sarif")
    assert result["ruleId"] == "broken-spec" and "SPECS" in result["message"]["text"]
    assert os.path.getsize(sample / "bad.sarif") > 0
