"""``dpverify mutate``: mutant generation, the isolated copies, and what the gate says about each.

Generation and classification are tested in-process on small texts and synthetic gate runs.
The end-to-end tests mutate ``examples/own-sampler`` (a user's package with a correct
randomized-response sampler), with the gate narrowed to its ``randomized-response`` spec so that
each gate run takes a second or two: the fast one runs two mutants, the slow one a whole function.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dpverify.samplers import DpverifyError
from dpverify.verify.changes import _mutate, _mutate_equivalents, _mutate_gate_run, _mutate_status, _mutate_targets
from dpverify.verify.changes._mutants import OPERATORS, mutants_of, verified_source
from dpverify.verify.cli import build_parser, main
from dpverify.verify.cli._check import _repository_checks

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "own-sampler"

SNIPPET = '''"""A module docstring: 1 < 2 and x + 1."""

from __future__ import annotations

__all__ = ["draw", "at_least"]

RationalLike = int | str
LIMIT = 10


def draw(n: int, rng: object, flag: bool = True) -> int:
    """Docstring: n + 1 draws."""
    if n < 0:
        extra = n + 1
        raise ValueError(f"n must be >= 0; got n={n - 1} ({extra}).")
    total = 0
    for i in range(n):
        if i == 3:
            break
        total += rng.randbelow(n) * 2  # a comment that stays
    while not rng.bernoulli(1, 3):
        continue
    return -total if total and flag else abs(total)


def at_least(a: int, b: int) -> bool:
    return a >= b


def spread(x: int) -> int:
    return min(x, 5 ^ x) << 1
'''


def _changes(source: str = SNIPPET) -> set[tuple[str, str, str]]:
    return {(m.operator, m.original, m.mutated) for m in mutants_of("pkg.mod", source)}


# --- generation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        ("compare", "n < 0", "n <= 0"),
        ("compare", "n < 0", "n >= 0"),
        ("compare", "i == 3", "i != 3"),
        ("compare", "a >= b", "a > b"),
        ("compare", "a >= b", "a < b"),
        ("arith", "rng.randbelow(n) * 2", "rng.randbelow(n) // 2"),
        ("arith", "total += rng.randbelow(n) * 2", "total -= rng.randbelow(n) * 2"),
        ("arith", "min(x, 5 ^ x) << 1", "min(x, 5 ^ x) >> 1"),
        ("arith", "5 ^ x", "5 & x"),
        ("unary", "-total", "total"),
        ("constant", "total = 0", "total = 1"),
        ("constant", "total = 0", "total = -1"),
        ("constant", "LIMIT = 10", "LIMIT = 11"),
        ("constant", "LIMIT = 10", "LIMIT = 9"),
        ("boolean", "True", "False"),
        ("not", "i == 3", "not i == 3"),
        ("not", "not rng.bernoulli(1, 3)", "rng.bernoulli(1, 3)"),
        ("not", "return a >= b", "return not a >= b"),
        ("not", "total and flag", "not (total and flag)"),
        ("boolop", "total and flag", "total or flag"),
        ("args", "rng.bernoulli(1, 3)", "rng.bernoulli(3, 1)"),
        ("args", "min(x, 5 ^ x)", "min(5 ^ x, x)"),
        ("randbelow", "rng.randbelow(n)", "rng.randbelow(n + 1)"),
        ("randbelow", "rng.randbelow(n)", "rng.randbelow(n - 1)"),
        ("bernoulli", "rng.bernoulli(1, 3)", "rng.bernoulli(1 + 1, 3)"),
        ("bernoulli", "rng.bernoulli(1, 3)", "rng.bernoulli(1, 3 - 1)"),
        ("builtin", "abs(total)", "total"),
        ("builtin", "min(x, 5 ^ x)", "max(x, 5 ^ x)"),
        ("range", "range(n)", "range(n + 1)"),
        ("return", "return a >= b", "return None"),
        ("loop", "break", "continue"),
        ("loop", "continue", "break"),
        ("delete", "total += rng.randbelow(n) * 2", "pass"),
    ],
)
def test_each_operator_makes_its_mutant(change: tuple[str, str, str]) -> None:
    assert change in _changes()


def test_every_operator_is_exercised_by_the_snippet() -> None:
    assert {operator for operator, _, _ in _changes()} == set(OPERATORS)


def test_no_mutant_in_docstrings_messages_annotations_or_exports() -> None:
    found = mutants_of("pkg.mod", SNIPPET)
    lines = SNIPPET.splitlines()
    for mutant in found:
        text = lines[mutant.line - 1]
        assert '"""' not in text and "__all__" not in text and "RationalLike" not in text, mutant.description
        assert "raise" not in text and "extra = " not in text, mutant.description  # an error's message
        assert "int" not in mutant.original and "bool" not in mutant.original, mutant.description  # annotations
    # the deleted continue would be a `pass` at the end of the loop: it is swapped with break instead
    assert ("delete", "continue", "pass") not in _changes()
    assert not any(m.operator == "delete" and m.original == "break" for m in found)


def test_an_input_check_is_mutated_and_marked() -> None:
    guard = [m for m in mutants_of("pkg.mod", SNIPPET) if m.line == 13]
    assert guard and all(m.input_check for m in guard)
    assert "(input check)" in guard[0].description
    assert not any(m.input_check for m in mutants_of("pkg.mod", SNIPPET) if m.line != 13)


def test_the_mutated_text_keeps_comments_and_line_numbers() -> None:
    for mutant in mutants_of("pkg.mod", SNIPPET):
        assert len(mutant.source.splitlines()) == len(SNIPPET.splitlines())
        assert "# a comment that stays" in mutant.source
        assert verified_source(mutant, SNIPPET) is mutant.source  # the splice parses to the intended tree
        tree = ast.parse(mutant.source)
        assert ast.dump(tree) != ast.dump(ast.parse(SNIPPET))
    bigger = next(m for m in mutants_of("pkg.mod", SNIPPET) if m.operator == "randbelow")
    assert bigger.mutated_line == "total += (rng.randbelow(n + 1)) * 2  # a comment that stays"
    assert bigger.description == "line 20: randbelow: `rng.randbelow(n)` -> `rng.randbelow(n + 1)`"


def test_ids_survive_an_unrelated_edit_above() -> None:
    before = {m.id: m for m in mutants_of("pkg.mod", SNIPPET)}
    edited = SNIPPET.replace("LIMIT = 10\n", "LIMIT = 10\nOTHER = 2 + 3  # new\n\n\ndef helper(y):\n    return y < 1\n")
    after = {m.id: m for m in mutants_of("pkg.mod", edited)}
    assert set(before) < set(after)
    assert all(after[i].line == m.line + 5 for i, m in before.items() if m.function != "<module>")
    assert len(before) == len(mutants_of("pkg.mod", SNIPPET))  # every id unique


def test_ids_name_module_and_function_and_repeat_exactly() -> None:
    first, second = mutants_of("pkg.mod", SNIPPET), mutants_of("pkg.mod", SNIPPET + "\n")
    assert [m.id for m in first] == [m.id for m in second]
    assert all(m.id.startswith(f"pkg.mod:{m.function}:") for m in first)
    assert {m.function for m in first} == {"<module>", "draw", "at_least", "spread"}


def test_default_modules_are_the_exact_samplers() -> None:
    modules = _mutate_targets.default_modules()
    assert "dpverify.samplers.gtm" in modules and "dpverify.samplers.bernoulli" in modules
    assert not any(m.endswith(("_unsafe", "__init__", "_errors")) for m in modules)
    for module in modules:
        target = _mutate_targets.locate(module)
        assert mutants_of(module, target.source), module


def test_every_sampler_mutant_splices_cleanly() -> None:
    target = _mutate_targets.locate("dpverify.samplers.discrete_laplace")
    for mutant in mutants_of(target.module, target.source):
        assert verified_source(mutant, target.source) is mutant.source, mutant.description


# --- the reviewed equivalents --------------------------------------------------------------------


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "equivalent.toml"
    path.write_text(text)
    return str(path)


def test_the_reviewed_file_is_read_and_checked(tmp_path: Path) -> None:
    reviewed = _mutate_equivalents.read_reviewed(
        _write(
            tmp_path,
            """
[[equivalent]]
id = "pkg.mod:draw:0123456789"
module = "pkg.mod"
line = 3
description = "d"
reason = "any t >= 1 gives the same distribution"

[[skip]]
module = "pkg.mod"
function = "spread"
reason = "builds messages only"
""",
        )
    )
    assert reviewed.reason("pkg.mod:draw:0123456789") == "any t >= 1 gives the same distribution"
    assert reviewed.reason("pkg.mod:draw:x") is None and len(reviewed.skips) == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[equivalent]]\nid = "pkg.mod:f:1"\nmodule = "pkg.mod"\n', "reason is required"),
        ('[[equivalent]]\nid = "pkg.mod:f:1"\nmodule = "pkg.mod"\nreason = "  "\n', "reason is required"),
        ('[[equivalent]]\nid = "pkg.mod:f:1"\nmodule = "pkg.mod"\nreason = "r"\nreson = "r"\n', "unknown key"),
        ('[[equivalent]]\nid = "pkg.mod:f:1"\nmodule = "other"\nreason = "r"\n', "is not in module"),
        ('[[equivalent]]\nid = "pkg.mod:f:1"\nmodule = "pkg.mod"\nreason = "r"\nline = "3"\n', "line must be a int"),
        ('[[equivalent]]\nid = "pkg.mod:f:1"\nmodule = "pkg.mod"\nreason = "r"\n' * 2, "listed twice"),
        ("[mutants]\n", "unknown table"),
        ("equivalent = 3\n", "array of tables"),
        ("[[equivalent]\n", "not valid TOML"),
    ],
)
def test_a_bad_reviewed_file_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(DpverifyError, match=message):
        _mutate_equivalents.read_reviewed(_write(tmp_path, text))


def test_stale_entries_and_skips(tmp_path: Path) -> None:
    target = _mutate_targets.Target("pkg.mod", tmp_path / "mod.py", "pkg", tmp_path, Path("pkg/mod.py"), SNIPPET)  # type: ignore[arg-type]
    live = mutants_of("pkg.mod", SNIPPET)[0]
    reviewed = _mutate_equivalents.read_reviewed(
        _write(
            tmp_path,
            f'''
[[equivalent]]
id = "{live.id}"
module = "pkg.mod"
reason = "reviewed"

[[equivalent]]
id = "pkg.mod:draw:0000000000"
module = "pkg.mod"
reason = "matches nothing any more"

[[equivalent]]
id = "elsewhere:f:0000000000"
module = "elsewhere"
reason = "about a module not being mutated: not stale"

[[skip]]
module = "pkg.mod"
function = "spread"
reason = "messages only"

[[skip]]
module = "pkg.mod"
function = "gone"
reason = "no such function"
''',
        )
    )
    work = _mutate_targets.plan([target], reviewed)
    assert {getattr(s, "id", None) or s.function for s in work.stale} == {"pkg.mod:draw:0000000000", "gone"}  # type: ignore[union-attr]
    assert work.skipped == sum(m.function == "spread" for m in mutants_of("pkg.mod", SNIPPET)) > 0
    assert not any(m.function == "spread" for m in work.mutants)


def test_select_by_prefix_and_limit() -> None:
    found = mutants_of("pkg.mod", SNIPPET)
    assert all(m.function == "at_least" for m in _mutate_targets.select(found, only=["pkg.mod:at_least:"]))
    assert len(_mutate_targets.select(found, limit=3)) == 3
    with pytest.raises(DpverifyError, match="no mutant id starts with"):
        _mutate_targets.select(found, only=["pkg.mod:nothing"])


# --- classification ------------------------------------------------------------------------------


def _entry(
    name: str, met: bool, checks: list[tuple[str, str]], problems: list[str], error: str | None = None
) -> dict[str, object]:
    return {
        "name": name,
        "met": met,
        "outcome": "error" if error else "violated",
        "error": error,
        "problems": problems,
        "checks": [{"check": c, "verdict": v, "summary": f"{c} said {v}"} for c, v in checks],
    }


def _run(
    code: int | None,
    entries: list[dict[str, object]] | None,
    repository: tuple[tuple[str, str], ...] = (),
    stderr: str = "",
) -> _mutate_gate_run.GateRun:
    document = (
        None
        if entries is None
        else {
            "passed": code == 0,
            "entries": entries,
            "repository": [{"check": c, "verdict": v, "summary": f"{c} {v}"} for c, v in repository],
        }
    )
    return _mutate_gate_run.GateRun(code, document, stderr, 1.0)


def test_a_kill_names_the_case_and_each_failing_check() -> None:
    entries = [
        _entry("gtm/a", True, [("exactness", "proved")], []),
        _entry(
            "gtm/b",
            False,
            [
                ("exactness", "violated"),
                ("privacy", "proved"),
                ("code_privacy", "violated"),
                ("timing_channel", "violated"),
            ],
            ["exactness violated: code and spec differ", "expected code_privacy proved, got violated: ratio"],
        ),
    ]
    status, kills, _ = _mutate_status.classify(_run(1, entries))
    assert status == _mutate_status.KILLED
    assert [(k.entry, k.check, k.verdict) for k in kills] == [
        ("gtm/b", "exactness", "violated"),
        ("gtm/b", "code_privacy", "violated"),
    ]


def test_statuses_of_other_endings() -> None:
    assert _mutate_status.classify(_run(0, []))[0] == _mutate_status.SURVIVED
    assert _mutate_status.classify(_run(None, None), 7) == (_mutate_status.TIMEOUT, (), "no answer within 7 s")
    broken = _mutate_status.classify(
        _run(2, [_entry("x/y", False, [], [], error="checking stopped on ZeroDivisionError")])
    )
    assert broken[0] == _mutate_status.BROKEN and broken[1][0].check == "error" and "ZeroDivisionError" in broken[2]
    refused = _mutate_status.classify(_run(2, None, stderr="dpverify: error: cannot load entry point builtin\n"))
    assert refused[0] == _mutate_status.BROKEN and "cannot load entry point" in refused[2]
    crashed = _mutate_status.classify(
        _run(1, None, stderr="Traceback (most recent call last):\n  ...\nRecursionError: deep\n")
    )
    assert crashed[0] == _mutate_status.CRASHED and "RecursionError: deep" in crashed[2] and "no JSON" in crashed[2]
    assert _mutate_status.classify(_run(-9, None))[0] == _mutate_status.CRASHED
    assert _mutate_status.classify(_run(1, [], repository=(("static", "violated"),)))[1][0].entry == "repository"


def test_a_stale_proof_alone_is_not_a_kill() -> None:
    status, kills, detail = _mutate_status.classify(_run(1, [], repository=(("stale_proofs", "violated"),)))
    assert status == _mutate_status.SURVIVED and not kills and "stale-proof" in detail


def test_a_profiled_function_is_named_as_mutants_name_it() -> None:
    assert _mutate._function("draw") == "draw"
    assert _mutate._function("until_accepted.<locals>.loop") == "until_accepted.loop"
    assert _mutate._function("draw.<locals>.<lambda>") == "draw"
    assert _mutate._function("SystemRandomSource.randbelow.<locals>.<genexpr>") == "SystemRandomSource.randbelow"
    assert _mutate._function("<module>") == "<module>"


def test_a_mutant_runs_the_specs_that_ran_its_function() -> None:
    found = {(m.function, m.at_import): m for m in mutants_of("pkg.mod", SNIPPET)}
    target = _mutate_targets.Target("pkg.mod", Path("mod.py"), "pkg", Path("."), Path("pkg/mod.py"), SNIPPET)  # type: ignore[arg-type]
    coverage = {"a": {("pkg/mod.py", "draw")}, "b": {("pkg/mod.py", "spread"), ("other.py", "draw")}, "c": set()}
    assert _mutate._chosen_specs(found["draw", False], target, coverage) == ("a",)
    assert _mutate._chosen_specs(found["at_least", False], target, coverage) == ()
    assert _mutate._chosen_specs(found["<module>", True], target, coverage) == ("a", "b", "c")  # runs at import
    # a default value: seen where its function runs (and at import, by every run alike)
    assert found["draw", True].in_default and _mutate._chosen_specs(found["draw", True], target, coverage) == ("a",)
    unran = {(m.function, m.in_default): m for m in mutants_of("pkg.mod", "def quiet(k=2):\n    return k\n")}
    assert _mutate._chosen_specs(unran["quiet", True], target, coverage) == ("a", "b", "c")  # no spec ran quiet
    assert _mutate._chosen_specs(unran["quiet", False], target, coverage) == ()


def test_check_can_leave_out_the_stale_proof_check() -> None:
    assert build_parser().parse_args(["check", "--no-stale-proofs"]).no_stale_proofs
    names = [check.check for check in _repository_checks(io.StringIO(), stale_proofs=False)]
    assert "stale_proofs" not in names and "static" in names


# --- isolation -----------------------------------------------------------------------------------


def _tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" not in path.parts:
            digest.update(path.as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def test_a_mutant_runs_in_a_copy_that_python_imports(tmp_path: Path) -> None:
    target = _mutate_targets.locate("dpverify.samplers.gtm")
    mutant = next(m for m in mutants_of(target.module, target.source) if m.operator == "randbelow")
    before = _tree_digest(ROOT / "samplers")
    workspace = _mutate._Workspace([target])
    try:
        folder = workspace.copy("m0", mutant)
        copied = folder / "dpverify" / "samplers" / "gtm.py"
        assert copied.read_text() == mutant.source != target.source
        for part in ("samplers", "specs", "verify", "proofs"):
            assert (folder / "dpverify" / part / "__init__.py").is_file()
        assert (folder / "dpverify" / "proofs" / "manifest.json").is_file()
        assert not list(folder.rglob("__pycache__"))
        probe = (
            "import dpverify.samplers.gtm as g, dpverify.verify.gate._catalogue as c, "
            "dpverify.proofs._certificates as p\n"
            "print(g.__file__); print(c.__file__); print(p.repository_root())"
        )
        run = subprocess.run(
            [sys.executable, "-c", probe],
            cwd=folder,
            env=_mutate_gate_run._environment(folder),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        for line in run.stdout.split():
            assert Path(line).resolve().is_relative_to(folder.resolve()), line
        _mutate._probe(workspace, [target])
    finally:
        workspace.close()
    assert not workspace.root.exists()
    assert _tree_digest(ROOT / "samplers") == before


def test_a_user_module_is_located_in_its_own_package(example: None) -> None:
    target = _mutate_targets.locate("own_sampler.sampler")
    assert target.top == "own_sampler" and str(target.relative) == "own_sampler/sampler.py"
    assert target.file == (EXAMPLE / "own_sampler" / "sampler.py").resolve()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mutate", "no_such_module_here"], "no module named"),
        (["mutate", "..x"], "dotted module name"),
        (["mutate", "dpverify.samplers.gtm", "--only", "nope"], "no mutant id starts with"),
        (["mutate", "dpverify.samplers.gtm", "--equivalents", "/no/such/file.toml"], "must be a file"),
    ],
)
def test_bad_usage_is_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dpverify: error:") and message in err


# --- end to end, on examples/own-sampler ---------------------------------------------------------


@pytest.fixture
def example(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Work in the example's folder, with its package importable from there and no other copy loaded."""
    monkeypatch.chdir(EXAMPLE)
    monkeypatch.syspath_prepend(str(EXAMPLE))
    forget = [n for n in sys.modules if n == "own_sampler" or n.startswith("own_sampler.")]
    for name in forget:
        monkeypatch.delitem(sys.modules, name)
    yield
    for name in [n for n in sys.modules if n == "own_sampler" or n.startswith("own_sampler.")]:
        del sys.modules[name]


GATE = ["--spec-module", "own_sampler.specs", "--spec", "randomized-response", "--jobs", "2", "--time-limit", "30"]


def _mutant(function: str, original: str, mutated: str) -> str:
    source = (EXAMPLE / "own_sampler" / "sampler.py").read_text()
    return next(
        m.id
        for m in mutants_of("own_sampler.sampler", source)
        if m.function == function and (m.original, m.mutated) == (original, mutated)
    )


def test_list_shows_the_ids(example: None, capsys: pytest.CaptureFixture[str]) -> None:
    killed = _mutant("randomized_response", "u < b", "u <= b")
    assert main(["mutate", "own_sampler.sampler", "--list"]) == 0
    out = capsys.readouterr().out
    assert f"{killed}  line 53: compare: `u < b` -> `u <= b`" in out
    # the example's reviewed file (found from the working directory) skips the broken copy
    assert "randomized_response_off_by_one" not in out
    assert re.fullmatch(
        r"(\d+) of \1 mutants in 1 module\(s\); \d+ more in functions the reviewed file skips", out.splitlines()[-1]
    )


def test_a_kill_an_equivalent_and_a_stale_entry(
    example: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    killed = _mutant("randomized_response", "u < b", "u <= b")
    listed = _mutant("randomized_response_off_by_one", "u <= b", "u > b")
    refuted = _mutant("_checked", "0 < ratio <= 1", "0 < ratio <= 2")
    unrun = _mutant("randomized_response_off_by_one", "u <= b", "u < b")
    equivalents = tmp_path / "equivalent.toml"
    equivalents.write_text(f'''
[[equivalent]]
id = "{listed}"
module = "own_sampler.sampler"
line = 75
reason = "in the deliberately broken copy, which the randomized-response spec never runs"

[[equivalent]]
id = "{refuted}"
module = "own_sampler.sampler"
line = 95
reason = "outside the domain: it lets alpha in (1, 2] through, which the spec's domain (0, 1] excludes"

[[equivalent]]
id = "own_sampler.sampler:randomized_response:0000000000"
module = "own_sampler.sampler"
reason = "a mutant that no longer exists"
''')
    out = tmp_path / "mutate.json"
    code = main(
        [
            "mutate",
            "own_sampler.sampler",
            *GATE,
            "--only",
            killed,
            "--only",
            listed,
            "--only",
            refuted,
            "--only",
            unrun,
            "--equivalents",
            str(equivalents),
            "--json",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    document = json.loads(out.read_text())
    assert document["schema"] == "dpverify.mutate/2"
    results = {m["id"]: m for m in document["mutants"]}
    assert results[killed]["status"] == "killed"
    assert {"exactness", "code_privacy"} <= {k["check"] for k in results[killed]["kills"]}
    assert all(k["entry"].startswith("randomized-response/") for k in results[killed]["kills"])
    assert results[listed]["status"] == "equivalent" and "broken copy" in results[listed]["equivalence_reason"]
    # the spec's own refusals check sees alpha = 2 let through: the reviewed claim is refuted
    assert results[refuted]["status"] == "killed" and "refusals" in {k["check"] for k in results[refuted]["kills"]}
    assert [e["id"] for e in document["equivalents"]["refuted"]] == [refuted]
    # the gate is narrowed to the correct sampler's spec, which never runs the broken copy
    assert results[unrun]["status"] == "survived" and results[unrun]["specs"] == []
    assert "no spec runs randomized_response_off_by_one" in results[unrun]["detail"]
    assert results[killed]["specs"] == ["randomized-response"] == document["gate"]["specs"]
    assert [e["id"] for e in document["equivalents"]["stale"]] == ["own_sampler.sampler:randomized_response:0000000000"]
    assert {"mutants": 4, "killed": 2, "equivalent": 1, "survived": 1}.items() <= document["totals"].items()
    assert code == 1 and not document["passed"]
    assert "stale entry" in text and re.search(r"own_sampler\.sampler +4 +2 +1 +1 +0\n", text)
    assert f"  {unrun}\n" in text and "mutated: if (u < b):" in text


@pytest.mark.slow
def test_every_mutant_of_the_sampling_function_is_caught(example: None, tmp_path: Path) -> None:
    """The correct sampler's own function: the gate kills each of its mutants with a verdict."""
    out = tmp_path / "mutate.json"
    code = main(
        [
            "mutate",
            "own_sampler.sampler",
            *GATE,
            "--all-specs",
            "--only",
            "own_sampler.sampler:randomized_response:",
            "--only",
            "own_sampler.sampler:_other:",
            "--json",
            str(out),
        ]
    )
    document = json.loads(out.read_text())
    assert code == 0, [(m["id"], m["description"], m["status"]) for m in document["mutants"] if m["status"] != "killed"]
    assert document["totals"]["killed"] == document["totals"]["mutants"] >= 20
    assert all(m["kills"] for m in document["mutants"])
    assert os.path.isdir(EXAMPLE / "own_sampler") and not list((EXAMPLE / "own_sampler").glob("*.json"))


def test_the_default_equivalents_file_is_found_from_any_directory(tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    (repository / "mutants").mkdir(parents=True)
    (repository / "pkg").mkdir()
    (repository / "mutants" / "equivalent.toml").write_text("")
    module = repository / "pkg" / "noise.py"
    module.write_text("")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # Run from another directory: found above the mutated module, and the line says which file.
    path, line = _mutate_equivalents.default_equivalents([module], start=elsewhere)
    assert path == str(repository / "mutants" / "equivalent.toml") and line == f"reviewed equivalents: {path}"
    # From a folder inside the repository: found above the working directory.
    assert _mutate_equivalents.default_equivalents([], start=repository / "pkg")[0] == path
    none, said = _mutate_equivalents.default_equivalents([elsewhere / "x.py"], start=elsewhere)
    assert none is None and said.startswith("reviewed equivalents: none (mutants/equivalent.toml not found")
