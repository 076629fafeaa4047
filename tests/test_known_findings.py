"""The known-findings bench (bench/bench_known_findings.py): its record is complete, its table counts
recall and false alarms as stated, and each found row's standalone reproduction runs and still shows
the finding without dpverify."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "docs" / "known-findings"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_known_findings", ROOT / "bench" / "bench_known_findings.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_every_row_of_the_record_states_its_source_and_has_an_audit_or_says_which_it_needs() -> None:
    bench = _bench()
    record = json.loads(bench.RECORD.read_text())
    assert len({row["id"] for row in record}) == len(record)
    assert set(bench.AUDITS) <= {row["id"] for row in record}
    for row in record:
        assert row["source"] and row["library"] and row["call"] and row["affected_version"]
        assert isinstance(row["published"], bool)
        assert row["id"] in bench.AUDITS or row.get("audit_kind"), row["id"]


def _row(identifier: str, affected: str | None, fixed: str | None, published: bool = True) -> dict[str, Any]:
    results = {}
    if affected:
        results["affected"] = {"verdict": affected, "method": "m", "magnitude": "-", "seconds": 1.0}
    if fixed:
        results["fixed"] = {"verdict": fixed, "method": "m", "magnitude": "-", "seconds": 1.0}
    return {
        "id": identifier,
        "published": published,
        "source": "s",
        "library": "lib",
        "affected_version": "1",
        "fixed_version": "2" if fixed else None,
        "call": "f(x)",
        "results": results,
        **({} if affected else {"affected_status": "does not install here: pip failed"}),
    }


def test_the_table_counts_recall_over_installable_published_rows_and_false_alarms_at_fixed_versions() -> None:
    rows = [
        _row("a", "violated", "not refuted"),
        _row("b", "hazard", None),
        _row("c", "not refuted", "violated"),  # missed, and a false alarm at its fixed version
        _row("d", None, None),  # does not install: not counted
        {**_row("f", None, None), "affected_status": "no audit here yet (timing)", "missed": True},  # counted
        _row("e", "violated", None, published=False),  # a new observation: not counted
    ]
    text = _bench().markdown(rows, 0, 100)
    assert "Recall: 2 of 4 findings whose affected version installs here are found (50%)" in text
    assert "False alarms: 1 " in text
    assert "does not install here: pip failed" in text


@pytest.mark.parametrize(
    ("script", "module", "expected"),
    [
        ("cks20_dlaplace_timing.py", "scipy", r"\(output, time\): certified epsilon >= (\S+) \(claimed 1\)"),
        ("diffprivlib_sum_sensitivity.py", "diffprivlib", r"declared sensitivity 1 exceeded: (True)"),
    ],
)
def test_each_reproduction_runs_without_dpverify_and_shows_its_finding(script: str, module: str, expected: str) -> None:
    pytest.importorskip(module)
    path = SCRIPTS / script
    imported = [
        (n.module or "") if isinstance(n, ast.ImportFrom) else a.name
        for n in ast.walk(ast.parse(path.read_text()))
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in (n.names if isinstance(n, ast.Import) else [n])  # type: ignore[list-item]
    ]
    assert not any(str(m).startswith("dpverify") for m in imported)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    match = re.search(expected, done.stdout)
    assert match, done.stdout
    if script.startswith("cks20"):
        assert float(match.group(1)) > 1  # the pair breaks the claim the output alone meets


def test_a_found_row_counts_as_reproduced_only_when_its_script_prints_what_the_row_expects(tmp_path: Path) -> None:
    bench = _bench()
    script = tmp_path / "shows.py"
    script.write_text("import sys\nprint('certified delta >=', sys.argv[1])\n")
    row = {"reproduction": f"{script} 0.25", "reproduction_expects": r"certified delta >= (?!0$)\S+$"}
    shown = bench._reproduce(Path(sys.executable), row)
    assert shown["shown"] and shown["output"] == "certified delta >= 0.25"
    assert not bench._reproduce(Path(sys.executable), {**row, "reproduction": f"{script} 0"})["shown"]
    script.write_text("raise SystemExit(3)\n")
    failed = bench._reproduce(Path(sys.executable), row)
    assert not failed["shown"] and failed["output"].startswith("exit 3")
    found = {**_row("a", "violated", None), **row}
    assert bench._unreproduced([found]) == [found]
    assert bench._unreproduced([{**found, "reproduced": shown}]) == []
    assert "Found without a standalone reproduction that shows it: 1." in bench.markdown([found], 0, 100)


def test_rows_that_pin_one_version_differently_get_environments_of_their_own() -> None:
    name = _bench().environment_name
    plain = {"library": "diffprivlib"}
    pinned = {**plain, "with": ["scikit-learn<1.8"]}
    assert name(plain, "0.6.6") == "diffprivlib-0.6.6"
    assert name(pinned, "0.6.6").startswith("diffprivlib-0.6.6-")
    assert name(pinned, "0.6.6") == name({**plain, "with": ["scikit-learn<1.8"]}, "0.6.6")
    assert name(pinned, "0.6.6") != name({**plain, "with": ["scikit-learn<1.9"]}, "0.6.6")
    assert name({**plain, "with": ["a", "b"]}, "1") == name({**plain, "with": ["b", "a"]}, "1")


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        (["--only", "no-such-finding"], "--only 'no-such-finding'"),
        (["--samples", "0"], "--samples"),
        (["--seed", "-1"], "--seed"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(arguments: list[str], named: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_known_findings.py"), *arguments, "--out", "unused.md"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("bench_known_findings.py: error: " + named)
