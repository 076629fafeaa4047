"""Every ``--json`` document against its published JSON Schema (``schemas/<name>-<version>.schema.json``).

Each command runs for real, in-process through ``dpverify.verify.cli.main``; only ``mutate``'s
gate runs (a subprocess per mutant) are replaced, by the real classification of real gate
documents.  The parser is walked as the fuzz tests walk it, so a command that gains ``--json``
without declaring and publishing a schema fails here.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _fuzz
import pytest
from _report_specs import spec_module

from dpverify.verify.changes import _mutate, _mutate_gate_run, _mutate_status
from dpverify.verify.cli import build_parser, main
from dpverify.verify.reports._output import JsonOption

jsonschema = pytest.importorskip("jsonschema")

from dpverify.verify.published._blackbox import BLACKBOX_SCHEMA  # noqa: E402 - after the skip

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
SCHEMA_FILES = sorted(SCHEMAS.glob("*.schema.json"))
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _schema_file(schema_id: str) -> Path:
    name, version = re.fullmatch(r"dpverify\.([a-z0-9-]+)/([0-9]+)", schema_id).groups()  # type: ignore[union-attr]
    return SCHEMAS / f"{name}-{version}.schema.json"


def _validate(document: dict[str, Any]) -> None:
    """``document`` against the schema its own ``schema`` field names; every error listed."""
    schema = json.loads(_schema_file(document["schema"]).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in validator.iter_errors(document)]
    assert not errors, "\n".join(errors)


def _json_commands() -> dict[tuple[str, ...], JsonOption]:
    """Every leaf command of the parser that has ``--json``, with its option."""
    found = {}
    for command in _fuzz.commands(build_parser()):
        for action in command.options:
            if "--json" in action.option_strings:
                assert isinstance(action, JsonOption), f"{' '.join(command.path)}: declare --json with add_json_option"
                found[command.path] = action
    return found


def _run(capsys: pytest.CaptureFixture[str], argv: Sequence[str], code: int | None = 0) -> dict[str, Any]:
    """``dpverify ARGV --json``: the document, checked against its schema and against the schema
    the command declares."""
    exit_code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code is None or exit_code == code, err
    document = json.loads(out)
    path = tuple(word for word in argv if not word.startswith("-"))[:2]
    declared = next(action.schema for command, action in _json_commands().items() if command == path[: len(command)])
    assert document["schema"] == declared
    _validate(document)
    return document


# --- the schema files ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=[p.name for p in SCHEMA_FILES])
def test_each_schema_is_a_valid_draft_2020_12_schema_named_by_its_id(path: Path) -> None:
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT
    assert _schema_file(schema["$id"]) == path
    assert schema["properties"]["schema"] == {"const": schema["$id"]}
    assert "schema" in schema["required"] and schema["type"] == "object"
    assert schema["title"] and schema["description"]


def test_every_json_option_declares_a_published_schema() -> None:
    commands = _json_commands()
    # the walk finds the commands documented today (a later one joins them, and must declare its own)
    assert {
        ("check",),
        ("mutate",),
        ("pmf", "gtm"),
        ("privacy", "gtm"),
        ("privacy", "dgauss"),
        ("privacy", "gazeau"),
        ("account",),
        ("attack", "laplace-float"),
    } <= set(commands)
    for path, action in commands.items():
        assert action.schema is not None, (
            f"dpverify {' '.join(path)} --json declares no schema: pass add_json_option(..., schema=...)"
        )
        assert _schema_file(action.schema).is_file(), f"{action.schema} is not published in schemas/"
        assert f"(schema {action.schema})" in " ".join(action.help.split())  # type: ignore[union-attr]


def test_every_published_schema_is_the_schema_of_some_command_or_an_older_version_of_one() -> None:
    declared = {_schema_file(action.schema) for action in _json_commands().values() if action.schema}
    declared.add(_schema_file(BLACKBOX_SCHEMA))  # audit --black-box's document, written through audit's --json
    current = {re.fullmatch(r"(.+)-([0-9]+)\.schema\.json", path.name).groups() for path in declared}  # type: ignore[union-attr]
    newest = {name: int(version) for name, version in current}
    stray = []
    for path in SCHEMA_FILES:
        name, version = re.fullmatch(r"(.+)-([0-9]+)\.schema\.json", path.name).groups()  # type: ignore[union-attr]
        if path not in declared and not (name in newest and int(version) < newest[name]):
            stray.append(path.name)
    assert stray == []  # an old version stays published for readers of old documents; nothing else may


def test_a_schema_rejects_what_it_must() -> None:
    document = {
        "schema": "dpverify.pmf-gtm/1",
        "mechanism": "gtm",
        "parameters": {"alpha": "1/3", "n": "2", "T": "9"},
        "q": 1,
        "source": "spec closed form",
        "pmf": ["1/4", "1/2", "1/4"],
    }
    _validate(document)
    for change in (
        lambda d: d["pmf"].__setitem__(0, 0.25),  # a float where an exact rational belongs
        lambda d: d["pmf"].__setitem__(0, "0.25"),  # a decimal is not a rational string
        lambda d: d["parameters"].__setitem__("alpha", "1/3/4"),
        lambda d: d.pop("source"),
        lambda d: d.__setitem__("extra", 1),
        lambda d: d.__setitem__("q", -1),
    ):
        changed = copy.deepcopy(document)
        change(changed)
        with pytest.raises(AssertionError):
            _validate(changed)


# --- every command, run for real -----------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["pmf", "gtm", "--alpha", "1/3", "--n", "4", "--T", "100", "--q", "2"],
        ["pmf", "gtm", "--alpha", "1/3", "--n", "4", "--T", "10^100", "--q", "2", "--from-code"],
        ["pmf", "gtm", "--alpha", "1/3", "--n", "4", "--T", "100", "--q", "2", "--from-code"],
    ],
)
def test_pmf_gtm(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    document = _run(capsys, argv)
    assert len(document["pmf"]) == 5


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["privacy", "gtm", "--alpha", "1/3", "--n", "3", "--T", "100", "--z3"], 1),
        (["privacy", "gtm", "--alpha", "1/3", "--n", "3", "--T", "100", "--claim-alpha", "1/4"], 0),
        (["privacy", "gtm", "--alpha", "1/2", "--n", "5", "--T", "10"], 1),  # below the support bound: infinite loss
    ],
)
def test_privacy_gtm(argv: list[str], code: int, capsys: pytest.CaptureFixture[str]) -> None:
    document = _run(capsys, argv, code)
    assert ("z3" in document) == ("--z3" in argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["privacy", "dgauss", "--sigma2", "7/3", "--epsilon", "1/2", "--sensitivity", "2"],  # with the cross-check
        ["privacy", "dgauss", "--sigma2", "10^100", "--epsilon", "1"],  # cross-check skipped
    ],
)
def test_privacy_dgauss(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    document = _run(capsys, argv)
    assert (document["hockey_stick_agrees"] is None) == ("10^100" in argv)


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (
            [
                "privacy",
                "gazeau",
                "--scale",
                "1.0",
                "--q",
                "0.0",
                "--q-prime",
                "1.0",
                "--bits",
                "12",
                "--lower",
                "-2.0",
                "--upper",
                "2.0",
                "--step",
                "0.25",
                "--delta-0",
                "0",
            ],
            1,
        ),  # definition (5) contradicted under its conditions
        (
            [
                "privacy",
                "gazeau",
                "--scale",
                "0.25",
                "--q",
                "0.0",
                "--q-prime",
                "0.5",
                "--bits",
                "10",
                "--lower",
                "1.5",
                "--upper",
                "2.5",
                "--step",
                "0.25",
            ],
            0,
        ),  # infinite loss, conditions not met
    ],
)
def test_privacy_gazeau(argv: list[str], code: int, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, argv, code)


@pytest.mark.parametrize("samples", ["0", "5"])
def test_attack_laplace_float(samples: str, capsys: pytest.CaptureFixture[str]) -> None:
    document = _run(
        capsys,
        [
            "attack",
            "laplace-float",
            "--scale",
            "1.0",
            "--q=0",
            "--q-prime",
            "1",
            "--bits",
            "8",
            "--samples",
            samples,
            "--seed",
            "3",
        ],
    )
    assert (document["reachability"] is None) == (samples == "0")


@pytest.mark.parametrize(
    "argv",
    [
        [
            "account",
            "--mechanism",
            "gaussian",
            "--epsilon",
            "0.5",
            "--delta",
            "1e-6",
            "--k",
            "10",
            "--delta-prime",
            "1e-6",
        ],
        [
            "account",
            "--mechanism",
            "laplace",
            "--epsilon",
            "0.5",
            "--k",
            "10",
            "--delta-prime",
            "1e-6",
            "--sensitivity",
            "2",
        ],
        ["account", "--mechanism", "pure", "--epsilon", "2", "--k", "100", "--delta-prime", "1e-9"],
        [
            "account",
            "--mechanism",
            "approx",
            "--epsilon",
            "0.5",
            "--delta",
            "1e-3",
            "--rho",
            "0.1",
            "--k",
            "10",
            "--delta-prime",
            "1e-6",
        ],
        ["account", "--mechanism", "approx", "--epsilon", "1", "--delta", "0.5", "--k", "3", "--delta-prime", "0.5"],
    ],
)
def test_account(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, argv)


def test_check_on_a_module_with_a_met_a_violated_and_a_broken_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with spec_module(tmp_path, monkeypatch) as module:
        document = _run(capsys, ["check", "--spec-module", module, "--seed", "2", "--samples", "500"], 2)
    assert {e["outcome"] for e in document["entries"]} == {"proved", "violated", "error"}


def test_check_on_a_built_in_spec_with_the_source_tree_checks(capsys: pytest.CaptureFixture[str]) -> None:
    document = _run(capsys, ["check", "--spec", "gtm", "--seed", "2", "--samples", "500"])
    assert [c["check"] for c in document["repository"]] == ["static", "entry_points", "stale_proofs", "certificates"]


def test_check_when_the_package_does_not_import(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpverify import _launch

    monkeypatch.setitem(sys.modules, "dpverify.verify.cli", None)
    assert _launch.main(["check", "--json"]) == 1
    _validate(json.loads(capsys.readouterr().out))


def test_check_when_the_catalogue_does_not_load(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpverify.verify.gate import _discovery

    def unloadable(*args: object, **kwargs: object) -> None:
        raise _discovery.BuiltinUnloadable("cannot load entry point builtin (dpverify): InvalidArgument: alpha=1/3")

    monkeypatch.setattr(_discovery, "discover", unloadable)
    _run(capsys, ["check", "--seed", "1"], 1)


def test_mutate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The mutants and the report are real; each gate run is replaced by the classification of a
    real gate document: a kill (the one-unit bug's check), a survivor, a broken spec, a timeout."""
    with spec_module(tmp_path, monkeypatch) as module:
        main(["check", "--spec-module", module, "--spec", "flip-off-by-one", "--seed", "1", "--json", "violated.json"])
        main(["check", "--spec-module", module, "--spec", "flip", "--seed", "1", "--json", "passed.json"])
        capsys.readouterr()
        runs = [
            _mutate_gate_run.GateRun(1, json.loads(Path("violated.json").read_text()), "", 1.0),
            _mutate_gate_run.GateRun(0, json.loads(Path("passed.json").read_text()), "", 1.0),
            _mutate_gate_run.GateRun(2, None, "dpverify: error: spec 'x': pmf(p) sums to 5/7, not 1.", 1.0),
            _mutate_gate_run.GateRun(None, None, "", 300.0),
        ]

        def measure(targets: object, mutants: Sequence[Any], options: object, **kwargs: object) -> Any:
            results = []
            for mutant, run in zip(mutants, runs, strict=True):
                status, kills, detail = _mutate_status.classify(run)
                results.append(_mutate.Result(mutant, status, kills, detail, run.seconds, specs=("flip",)))
            return _mutate.Measurement(tuple(results), 2.0, ("flip",))

        monkeypatch.setattr(_mutate, "measure", measure)
        document = _run(capsys, ["mutate", "dpverify.samplers.gtm", "--limit", "4", "--jobs", "1"], 1)
    assert [m["status"] for m in document["mutants"]] == ["killed", "survived", "broken", "timeout"]
    assert {"exactness", "code_privacy"} <= set(document["killed_by_check"])


# --- the schemas as installed: dpverify schema NAME ----------------------------------------------


def test_every_published_schema_is_installed_with_the_package() -> None:
    from dpverify.verify.cli._schema import schema_files

    installed = {entry.name: entry.read_text(encoding="utf-8") for entry in schema_files().values()}
    assert installed == {path.name: path.read_text(encoding="utf-8") for path in SCHEMA_FILES}


@pytest.mark.parametrize(
    "name, file",
    [
        ("check", "check-3"),
        ("check-2", "check-2"),
        ("dpverify.diff/1", "diff-1"),
        ("mutate/1", "mutate-1"),
        ("audit-2.schema.json", "audit-2"),
    ],
)
def test_schema_prints_the_named_schema(name: str, file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", name]) == 0
    assert capsys.readouterr().out == (SCHEMAS / f"{file}.schema.json").read_text(encoding="utf-8")


def test_schema_lists_them_and_refuses_an_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(SCHEMA_FILES) and "dpverify.check/3   (newest)" in listed and "dpverify.check/2" in listed
    assert main(["schema", "check-9"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "got NAME='check-9'" in err and "schema --list" in err and len(err) < 300


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from dpverify import __version__

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"dpverify {__version__}"
