"""``dpverify survey``: the document, its table, and every failure of a library as a row."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import pytest

from dpverify.verify.cli import main
from dpverify.verify.survey import _libraries, _survey
from dpverify.verify.survey._primitive import Budget, Finding, Library, Primitive, black_box_audit

ROOT = Path(__file__).resolve().parents[1]
BUDGET = Budget(seed=3, samples=400, time_limit=60)


def _validate(document: dict[str, object]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "schemas" / "survey-2.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)


def _fake_library(monkeypatch: pytest.MonkeyPatch, name: str, library: Library, primitives: list[Primitive]) -> None:
    module = types.ModuleType(f"fake_survey_{name}")
    module.LIBRARY = library  # type: ignore[attr-defined]
    module.primitives = lambda: primitives  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(_libraries.LIBRARIES, name, module.__name__)


def test_every_known_library_module_declares_itself_without_importing_the_library() -> None:
    for name in _libraries.LIBRARIES:
        module = _libraries.library_module(name)
        assert module.LIBRARY.name == name and module.LIBRARY.requirements and module.LIBRARY.about
        assert callable(module.primitives)


def test_a_library_here_gives_one_row_per_primitive_in_a_valid_document() -> None:
    pytest.importorskip("numpy")
    document = _survey.run_survey(["numpy"], BUDGET, here=True, root=Path("unused"), command="dpverify survey")
    _validate(document)
    [numpy] = document["libraries"]
    assert numpy["status"] == "audited" and numpy["version"] and len(numpy["rows"]) == 2
    exact, black_box = numpy["rows"]
    assert exact["method"] == "exact at k bits" and black_box["method"] == "black box"
    # numpy promises no privacy: what the float Laplace leaks is a hazard of the user's release, never numpy's
    assert exact["verdict"] == "hazard" and black_box["verdict"] in ("hazard", "not refuted")  # few draws here
    assert exact["contract"]["private"] is False and exact["magnitude"].startswith("epsilon = Infinity")
    table = _survey.markdown(document)
    assert "| numpy | " in table and exact["primitive"] in table and "dpverify survey" in table


def test_a_black_box_that_passes_is_not_refuted_never_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpverify.verify.published import _blackbox
    from dpverify.verify.published._blackbox_specs import OPENDP_DLAPLACE

    passed = _blackbox.CaseResult(OPENDP_DLAPLACE.cases[0], "proved", (), 0.0)
    monkeypatch.setattr(_blackbox, "audit_case", lambda *args, **kwargs: passed)
    finding = black_box_audit(OPENDP_DLAPLACE, OPENDP_DLAPLACE.cases[0])(BUDGET)
    assert finding.verdict == "not refuted"


def test_a_library_that_does_not_import_an_audit_that_raises_and_a_service_are_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def raises(budget: Budget) -> Finding:
        raise OverflowError("the audit overflowed")

    _fake_library(
        monkeypatch, "absent", Library("absent", "no_such_module_dpverify", ("absent==1",), "never installed"), []
    )
    _fake_library(
        monkeypatch,
        "raising",
        Library("raising", "json", ("json==1",), "imports"),
        [Primitive("p", "Laplace", "x", "black box", raises)],
    )
    _fake_library(monkeypatch, "service", Library("service", "json", ("s==1",), "needs Spark", needs="needs Spark"), [])
    document = _survey.run_survey(["absent", "raising", "service"], BUDGET, here=True, root=Path("unused"))
    _validate(document)
    absent, raising, service = document["libraries"]
    assert absent["status"] == "skipped" and "no_such_module_dpverify" in absent["reason"]
    assert "pip install absent==1" in absent["install"]
    [row] = raising["rows"]
    assert row["verdict"] == "inconclusive" and "OverflowError: the audit overflowed" in row["evidence"]
    assert service["status"] == "skipped" and service["reason"] == "needs Spark"
    assert "## Not audited" in _survey.markdown(document)


def test_a_library_is_audited_by_a_worker_in_another_interpreter() -> None:
    pytest.importorskip("numpy")
    # the interpreter of an environment of its own; here this one, which has numpy
    result = _survey._worker_in(Path(sys.executable), "numpy", BUDGET, 1)
    assert result["status"] == "audited" and result["rows"][0]["primitive"].startswith("random.laplace")


def test_a_worker_that_dies_is_a_skipped_library(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'no module named dpverify' >&2\nexit 1\n")
    fake.chmod(0o755)
    result = _survey._worker_in(fake, "numpy", BUDGET, 1)
    assert (
        result["status"] == "skipped"
        and "exited 1" in result["reason"]
        and "no module named dpverify" in result["reason"]
    )


def test_the_command_writes_the_table_and_the_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("numpy")
    out = tmp_path / "docs"
    code = main(["survey", "--here", "--library", "numpy", "--samples", "400", "--out", str(out), "--json"])
    captured = capsys.readouterr()
    assert code == 0
    document = json.loads(captured.out)
    _validate(document)
    assert json.loads((out / "ecosystem.json").read_text()) == document
    assert "numpy" in (out / "ecosystem.md").read_text() and "wrote" in captured.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["survey", "--library", "nope"], "argument --library: must be one of diffprivlib"),
        (["survey", "--samples", "2"], "samples"),
    ],
)
def test_bad_input_is_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err


def test_an_out_that_is_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "f").write_text("")
    assert main(["survey", "--here", "--out", str(tmp_path / "f")]) == 2
    assert capsys.readouterr().err.startswith("dpverify: error: --out must be a directory")


def test_each_librarys_extra_pins_what_its_environment_pins() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]

    def distribution(requirement: str) -> str:
        return re.split(r"[=<>!~]", requirement, maxsplit=1)[0]

    assert set(_libraries.EXTRAS) == set(_libraries.LIBRARIES)
    for name, extra in _libraries.EXTRAS.items():
        library = _libraries.library_module(name).LIBRARY
        # the same packages; the older extras allow a range around the environment's exact pin
        assert {distribution(r) for r in library.requirements} == {distribution(r) for r in extras[extra]}, name
