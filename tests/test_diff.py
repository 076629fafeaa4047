"""``dpverify diff`` and ``dpverify check --base``: two versions of a sampler compared exactly.

The versions live in ``_diff_samplers`` (refactors that keep the law, a one-unit error, a change
of the number of draws) and, for ``--base``, in a throwaway git repository made per test.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from dpverify.verify.changes._base_revision import BaseRevision
from dpverify.verify.changes._diff import DiffOptions, diff_sides
from dpverify.verify.changes._diff_versions import parse_parameter_set, resolve_reference
from dpverify.verify.changes._law_comparison import compare_draws, compare_outputs
from dpverify.verify.cli import main
from dpverify.verify.engine._enumeration import Enumeration
from dpverify.verify.engine._results import Verdict

FAST = DiffOptions(search_examples=0, min_mass=Fraction(1, 10**6), seed=1)


def _law(
    masses: dict[object, Fraction],
    unexplored: Fraction = Fraction(0),
    joint: dict[tuple[object, int], Fraction] | None = None,
) -> Enumeration:
    return Enumeration(masses, unexplored, 1, 1, "test", joint or {(o, 1): m for o, m in masses.items()})


# --- the comparison ----------------------------------------------------------------------------------


def test_equal_exact_laws_are_proved_and_a_difference_names_the_output_and_both_probabilities() -> None:
    same = compare_outputs(_law({0: Fraction(1, 3), 1: Fraction(2, 3)}), _law({1: Fraction(2, 3), 0: Fraction(1, 3)}))
    assert same.verdict is Verdict.PROVED and same.evidence["tv_bound"] == "0"
    differ = compare_outputs(_law({0: Fraction(1, 3), 1: Fraction(2, 3)}), _law({0: Fraction(1, 2), 1: Fraction(1, 2)}))
    assert differ.verdict is Verdict.VIOLATED
    assert (differ.evidence["at"], differ.evidence["old"], differ.evidence["new"]) == (0, "1/3", "1/2")
    # an output only one version returns is a difference too
    extra = compare_outputs(_law({0: Fraction(1)}), _law({0: Fraction(1, 2), 7: Fraction(1, 2)}))
    assert extra.verdict is Verdict.VIOLATED and extra.evidence["at"] == 0


def test_intervals_prove_a_stated_tv_bound_or_separate_the_laws() -> None:
    u = Fraction(1, 10**4)
    old = _law({0: Fraction(1, 2) - u, 1: Fraction(1, 2)}, u)
    close = compare_outputs(old, _law({0: Fraction(1, 2), 1: Fraction(1, 2) - u}, u))
    # TV <= (sum |E_old - E_new| + U_old + U_new) / 2 = (2u + 2u) / 2
    assert close.verdict is Verdict.PROVED and Fraction(close.evidence["tv_bound"]) == 2 * u
    loose = compare_outputs(old, _law({0: Fraction(1, 2), 1: Fraction(1, 2) - u}, u), max_tv=u)
    assert loose.verdict is Verdict.INCONCLUSIVE and "min_mass" in (loose.reason or "")
    apart = compare_outputs(old, _law({0: Fraction(1, 4), 1: Fraction(3, 4) - u}, u))
    assert apart.verdict is Verdict.VIOLATED
    low, high = (Fraction(apart.evidence[side]["low"]) for side in ("old", "new"))
    assert apart.evidence["at"] in (0, 1) and low != high


def test_the_draw_counts_are_compared_with_the_output() -> None:
    one = _law({0: Fraction(1, 2), 1: Fraction(1, 2)})
    two = _law({0: Fraction(1, 2), 1: Fraction(1, 2)}, joint={(0, 2): Fraction(1, 2), (1, 2): Fraction(1, 2)})
    assert compare_outputs(one, two).verdict is Verdict.PROVED
    timing = compare_draws(one, two)
    assert timing.verdict is Verdict.VIOLATED
    assert (timing.evidence["old_mean_draws"], timing.evidence["new_mean_draws"]) == ("1", "2")


def test_a_shift_of_many_light_paths_by_one_draw_shows_in_the_distribution_function() -> None:
    u = Fraction(1, 10)
    masses = {o: Fraction(3, 100) for o in range(30)}
    old = _law(masses, u, {(o, 1): m for o, m in masses.items()})
    new = _law(masses, u, {(o, 2): m for o, m in masses.items()})
    # no single (output, draws) pair separates them: each differs by 3/100 < U
    assert compare_outputs(old, new).verdict is Verdict.INCONCLUSIVE
    timing = compare_draws(old, new)
    assert timing.verdict is Verdict.VIOLATED and timing.evidence["at"] == {"draws_at_most": 1}
    assert (timing.evidence["old"], timing.evidence["new"]) == (
        {"low": "9/10", "high": "1"},
        {"low": "0", "high": "1/10"},
    )


# --- versions in a module ----------------------------------------------------------------------------


def test_a_refactor_of_the_discrete_laplace_is_proved_to_sample_the_same_law() -> None:
    diff = diff_sides(
        resolve_reference("dlaplace"), resolve_reference("_diff_samplers:dlaplace_refactored"), options=FAST
    )
    assert diff.verdict is Verdict.PROVED, diff.lines()
    assert [c.label for c in diff.comparisons] == ["scale=1", "scale=3/2"]
    for c in diff.comparisons:
        assert Fraction(c.output.evidence["tv_bound"]) <= Fraction(1, 1000)
        assert c.timing is not None and c.timing.verdict is not Verdict.VIOLATED  # the same draws, in the same order
        # a proof from intervals is a proof within a tolerance, and says so
        assert c.output.within == Fraction(c.output.evidence["pointwise_bound"]) > 0
    assert diff.tv_bound == max(Fraction(c.output.evidence["tv_bound"]) for c in diff.comparisons)
    assert "within TV <= " in diff.lines()[0] and "not exact equality" in diff.lines()[0]


def test_an_exact_proof_says_exact_equality_and_a_bounded_one_its_tolerance(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "diff",
                "_diff_samplers:uniform_one_draw",
                "_diff_samplers:uniform_bits",
                "--param",
                "n=4",
                "--search-examples",
                "0",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "(exact equality)" in out and "dpverify diff: proved; the timing channel changed" in out
    assert main(["diff", "dlaplace", "_diff_samplers:dlaplace_refactored", "--search-examples", "0"]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith("dpverify diff: proved within TV <= ") and "not exact equality" in last


def test_a_bug_in_a_summarised_loop_is_found_by_the_walk_as_the_code_runs() -> None:
    diff = diff_sides(
        resolve_reference("dlaplace"),
        resolve_reference("_diff_samplers:dlaplace_loop_gives_up"),
        [{"scale": "3"}],
        options=FAST,
        cases=False,
    )
    first = diff.first_difference
    assert diff.verdict is Verdict.VIOLATED and first is not None
    assert "walked as the code runs" in first.output.summary


def test_a_rejection_sampler_whose_draw_count_moves_is_reported_with_exact_probabilities() -> None:
    # the sign drawn first: an attempt rejected by its Bernoulli(exp(-U/t)) coin costs one more draw
    diff = diff_sides(
        resolve_reference("dlaplace"),
        resolve_reference("_diff_samplers:dlaplace_sign_first"),
        [{"scale": "3/2"}],
        options=FAST,
        cases=False,
    )
    (only,) = diff.comparisons
    assert diff.verdict is Verdict.PROVED and only.timing_changed
    assert only.timing is not None and only.timing.evidence["exact"] is True
    old, new = Fraction(only.timing.evidence["old"]), Fraction(only.timing.evidence["new"])
    assert old != new and only.timing.evidence["at"]["draws"] <= only.timing.evidence["depth"]


def test_a_one_unit_error_in_the_discrete_laplace_is_found_with_the_parameters_and_output() -> None:
    diff = diff_sides(
        resolve_reference("dlaplace"), resolve_reference("_diff_samplers:dlaplace_off_by_one"), options=FAST
    )
    assert diff.verdict is Verdict.VIOLATED
    first = diff.first_difference
    assert first is not None and dict(first.parameters) == {"scale": 1, "sensitivity": 1}
    old, new = first.output.evidence["old"], first.output.evidence["new"]
    # disjoint intervals: the two laws differ at that output for certain
    assert Fraction(old["high"]) < Fraction(new["low"]) or Fraction(new["high"]) < Fraction(old["low"])


def test_a_one_unit_error_in_a_finite_sampler_is_found_exactly_and_the_search_shrinks_it() -> None:
    diff = diff_sides(
        resolve_reference("_diff_samplers:UNIFORM"),
        resolve_reference("_diff_samplers:uniform_off_by_one"),
        options=DiffOptions(search_examples=15, seed=3),
        cases=False,
    )
    # n = 1 gives 0 either way; n = 2 is the smallest set where the laws differ
    assert diff.search is not None and diff.search["parameters"] == {"n": "2"}
    first = diff.first_difference
    assert first is not None and first.source == "search"
    assert (first.output.evidence["at"], first.output.evidence["old"], first.output.evidence["new"]) == (
        0,
        "1/2",
        "1/3",
    )


def test_the_same_outputs_with_other_draw_counts_is_reported_as_a_timing_change(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        ["diff", "_diff_samplers:UNIFORM", "_diff_samplers:uniform_bits", "--search-examples", "3", "--seed", "2"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "TIMING CHANNEL CHANGED" in out and "timing channel changed at 2 parameter set(s)" in out
    diff = diff_sides(
        resolve_reference("_diff_samplers:UNIFORM"), resolve_reference("_diff_samplers:UNIFORM_BITS"), options=FAST
    )
    assert diff.verdict is Verdict.PROVED and [c.label for c in diff.timing_changed] == ["n=4", "n=8"]


def test_a_new_version_that_fails_where_the_old_returns_is_a_difference() -> None:
    diff = diff_sides(
        resolve_reference("_diff_samplers:UNIFORM"),
        resolve_reference("_diff_samplers:uniform_fails_at_8"),
        options=FAST,
    )
    first = diff.first_difference
    assert diff.verdict is Verdict.VIOLATED and first is not None and first.label == "n=8"
    assert first.output.evidence["side"] == "new" and "ZeroDivisionError" in first.output.summary
    # failing alike in both versions is no difference
    both = diff_sides(
        resolve_reference("_diff_samplers:uniform_fails_at_8"),
        resolve_reference("_diff_samplers:uniform_fails_at_8"),
        [{"n": "8"}],
        options=FAST,
    )
    assert both.verdict is Verdict.INCONCLUSIVE and "both versions fail alike" in both.comparisons[0].output.summary


def test_bare_samplers_are_compared_at_the_given_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diff", "_diff_samplers:uniform_one_draw", "_diff_samplers:uniform_off_by_one", "--param", "n=3"])
    out = capsys.readouterr().out
    assert code == 1 and "differs at n=3" in out and "old 1/3" in out and "new 1/4" in out


def test_the_json_document_follows_its_schema(capsys: pytest.CaptureFixture[str]) -> None:
    document = _json_of(
        [
            "diff",
            "dlaplace",
            "_diff_samplers:dlaplace_off_by_one",
            "--min-mass",
            "1/10^6",
            "--search-examples",
            "0",
            "--param",
            "scale=2",
            "--json",
        ],
        capsys,
    )
    assert document["schema"] == "dpverify.diff/1" and document["verdict"] == "violated"
    assert [c["source"] for c in document["specs"][0]["comparisons"]] == ["case", "case", "param"]


@pytest.mark.parametrize(
    "argv",
    [
        ["diff", "no_such_module_here:f", "_diff_samplers:uniform_bits"],
        ["diff", "_diff_samplers:no_such_attribute", "_diff_samplers:uniform_bits"],
        ["diff", "_diff_samplers:FAST_NOT_THERE"],
        ["diff", "no-such-spec", "_diff_samplers:uniform_bits"],
        ["diff", "_diff_samplers:__doc__", "_diff_samplers:uniform_bits"],
        ["diff", "_diff_samplers:uniform_one_draw", "_diff_samplers:uniform_bits"],
        ["diff", "_diff_samplers:UNIFORM", "_diff_samplers:uniform_bits", "--param", "n"],
        ["diff", "_diff_samplers:UNIFORM", "_diff_samplers:uniform_bits", "--param", "n=0"],
        ["diff", "_diff_samplers:UNIFORM", "--base", "no-such-revision-anywhere"],
        ["diff", "_diff_samplers:UNIFORM", "_diff_samplers:uniform_bits", "--max-tv", "2"],
    ],
    ids=[
        "module",
        "attribute",
        "one reference",
        "spec name",
        "not callable",
        "no parameters",
        "param syntax",
        "param domain",
        "revision",
        "max-tv",
    ],
)
def test_bad_references_give_one_line_and_exit_code_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own usage errors
        code = exit_.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(("dpverify: error:", "usage: dpverify")) and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 or err.startswith("usage:")


def test_parameter_sets_are_parsed_exactly() -> None:
    assert parse_parameter_set("scale=3/2, sensitivity=1") == {"scale": "3/2", "sensitivity": "1"}


# --- an old revision from git -------------------------------------------------------------------------


SAMPLER = """
from fractions import Fraction
from dpverify.specs import Case, Integer, SamplesPmf, Spec
from {name}_helpers import offset


def sample(n, rng):
    return rng.randbelow(n) + offset()


SPEC = Spec(name="{name}", sampler=sample, parameters={{"n": Integer(1, search=(1, 6))}},
            cases=[Case({{"n": 3}})], claim=SamplesPmf(),
            pmf=lambda p: {{i: Fraction(1, p["n"]) for i in range(p["n"])}})
SPECS = (SPEC,)
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A git repository with a sampler module (and a helper module it imports) committed twice:
    HEAD~1 adds 0, HEAD adds 1 in the helper (a one-unit error), both under a unique module name."""
    name = f"diffsampler_{tmp_path.name.replace('-', '_')}"
    _commit_twice(
        tmp_path,
        monkeypatch,
        {f"{name}.py": SAMPLER.format(name=name), f"{name}_helpers.py": "def offset():\n    return 0\n"},
        f"{name}_helpers.py",
        "def offset():\n    return 1\n",
    )
    yield tmp_path, name
    _forget(name)


def _commit_twice(repo: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], changed: str, text: str) -> None:
    """A git repository in ``repo`` holding ``files`` (first commit), then ``changed`` rewritten
    to ``text`` (second commit), entered as the current directory with a restorable sys.path."""
    _git(repo, "init", "-q")
    for file, content in files.items():
        (repo / file).write_text(content)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "a sampler")
    (repo / changed).write_text(text)
    _git(repo, "commit", "-qam", "a change")
    monkeypatch.chdir(repo)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)


def _forget(name: str) -> None:
    """Drop the working tree's modules, as a new process would not have them (the tests edit them)."""
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def test_diff_base_head_1_finds_the_change_in_a_helper_module(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, name = repo
    code = main(["diff", f"{name}:SPEC", "--base", "HEAD~1", "--search-examples", "0"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "differs at n=3 (case): the laws differ at output 0: old 1/3" in out and "new 0" in out
    assert not [m for m in sys.modules if m.startswith("_dpverify_base_")]


def test_check_base_lists_the_changed_function_and_the_difference(
    repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, name = repo
    code = main(["check", "--spec-module", name, "--base", "HEAD~1"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert f"changed: {name}_helpers.py:offset" in out and f"VIOLATED {name}" in out
    # a refactor that keeps the law: same outputs, different code
    (path / f"{name}_helpers.py").write_text("def offset():\n    zero = 0\n    return zero\n")
    _forget(name)
    assert main(["check", "--spec-module", name, "--base", "HEAD~1"]) == 0
    assert f"PROVED {name}" in capsys.readouterr().out
    document_check = _json_of(
        ["diff", "--spec-module", name, "--base", "HEAD~1", "--json"], capsys
    )  # every spec found, as check --base
    assert document_check["specs"][-1]["name"] == name
    assert main(["check", "--spec-module", name, "--base", "HEAD~1", "--json"]) == 2  # check's schema is not this one
    assert capsys.readouterr().err.startswith("dpverify: error: check --base writes no --json")
    assert document_check["specs"][-1]["status"] == "compared" and document_check["specs"][-1]["verdict"] == "proved"
    # only formatting and comments changed: nothing to compare
    (path / f"{name}_helpers.py").write_text("def offset():  # a comment\n\n    return (0)\n")
    _forget(name)
    assert main(["check", "--spec-module", name, "--base", "HEAD~1"]) == 0
    assert f"UNCHANGED {name}" in capsys.readouterr().out


def _json_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    """``dpverify ARGV``'s JSON document, validated against schemas/diff-1.schema.json."""
    main(argv)
    document = json.loads(capsys.readouterr().out)
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "diff-1.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)
    return document


def test_the_old_revision_is_imported_apart_and_removed(repo: tuple[Path, str]) -> None:
    _, name = repo
    sys.path.insert(0, str(repo[0]))
    new = __import__(f"{name}_helpers")
    with BaseRevision("HEAD~1") as base:
        old = base.module(f"{name}_helpers")
        assert (old.offset(), new.offset()) == (0, 1)
        assert sys.modules[f"{name}_helpers"] is new
        directory = base.directory
        assert directory.is_dir()
    assert not directory.exists() and not [m for m in sys.modules if m.startswith(base.token)]


CHAIN_SAMPLER = """
from fractions import Fraction
from dpverify.specs import Case, Integer, SamplesPmf, Spec
from {name}_middle import shifted


def sample(n, rng):
    return shifted(rng.randbelow(n))


SPEC = Spec(name="{name}", sampler=sample, parameters={{"n": Integer(1, search=(1, 6))}},
            cases=[Case({{"n": 3}})], claim=SamplesPmf(),
            pmf=lambda p: {{i: Fraction(1, p["n"]) for i in range(p["n"])}})
SPECS = (SPEC,)
"""


def test_an_unchanged_module_over_a_changed_helper_is_read_at_the_base_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # sampler -> middle (never edited) -> helpers (edited): sharing the working tree's middle
    # would run the new helper under the old sampler, and the diff would see no change.
    name = f"diffchain_{tmp_path.name.replace('-', '_')}"
    _commit_twice(
        tmp_path,
        monkeypatch,
        {
            f"{name}.py": CHAIN_SAMPLER.format(name=name),
            f"{name}_middle.py": f"from {name}_helpers import offset\n\n\ndef shifted(x):\n    return x + offset()\n",
            f"{name}_helpers.py": "def offset():\n    return 0\n",
        },
        f"{name}_helpers.py",
        "def offset():\n    return 1\n",
    )
    try:
        code = main(["diff", f"{name}:SPEC", "--base", "HEAD~1", "--search-examples", "0"])
        out = capsys.readouterr().out
        assert code == 1, out
        assert "the laws differ at output 0: old 1/3" in out
    finally:
        _forget(name)


def test_a_helper_whose_only_change_is_a_docstring_is_shared_with_the_old_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edited docstring changes no behaviour; an old copy of the module would give the old code
    classes of its own (an old ``RandomSource`` that the engine's sources are not instances of)."""
    name = f"diffdoc_{tmp_path.name.replace('-', '_')}"
    helpers = "class Token:\n    pass\n"
    _commit_twice(
        tmp_path,
        monkeypatch,
        {
            f"{name}.py": f"from {name}_helpers import Token\n\n\ndef make():\n    return Token()\n",
            f"{name}_helpers.py": helpers,
        },
        f"{name}_helpers.py",
        '"""Tokens, now documented."""\n\n' + helpers,
    )
    sys.path.insert(0, str(tmp_path))
    try:
        new = __import__(f"{name}_helpers")
        with BaseRevision("HEAD~1") as base:
            assert isinstance(base.module(name).make(), new.Token)
        (tmp_path / f"{name}_helpers.py").write_text(helpers + "\n\nLIMIT = 1\n")  # a change of code: old copy again
        _forget(name)
        new = __import__(f"{name}_helpers")
        with BaseRevision("HEAD~1") as base:
            assert not isinstance(base.module(name).make(), new.Token)
    finally:
        _forget(name)


def test_the_engine_that_runs_a_sampler_is_not_counted_as_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """check --base compares a spec when code its sampler runs changed; the engine's drivers, its
    time bound and its tracer run around every sampler, and a change there is the gate's to check."""
    from dpverify.verify.changes._changed_specs import functions_run
    from dpverify.verify.gate._catalogue import GTM, MECHANISM_SPECS

    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        pytest.skip("needs the repository's git checkout")
    monkeypatch.chdir(root)
    composed = next(spec for spec in MECHANISM_SPECS if spec.name == "gtm-composed")
    with BaseRevision("HEAD") as base:
        files = {relative for spec in (GTM, composed) for relative, _ in functions_run(spec, base)}
    assert {"samplers/gtm.py", "verify/gate/_mechanism_specs.py"} <= files  # a catalogue sampler counts
    harness = {
        "verify/gate/_spec_instance.py",
        "verify/gate/_sampler_adapters.py",
        "verify/gate/_spec_checks.py",
        "verify/gate/_time_bound.py",
        "verify/changes/_changed_specs.py",
    }
    assert not files & harness and not [f for f in files if f.startswith("verify/engine/")]


def test_the_old_tree_imports_a_submodule_from_its_copy_of_a_changed_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``from pkg import sub`` in old code, where ``pkg``'s own ``__init__`` changed (so the old tree
    has its own copy of ``pkg``): the copy is imported by no one, so nothing had bound ``sub`` on
    it, and the old module failed to import ("cannot import name 'sub'")."""
    name = f"subpkg_{tmp_path.name.replace('-', '_')}"
    (tmp_path / name).mkdir()
    files = {
        f"{name}/__init__.py": "from ._helper import offset\n",
        f"{name}/_helper.py": "def offset():\n    return 1\n",
        f"{name}/sub.py": "def twice(x):\n    return 2 * x\n",
        f"{name}_user.py": f"from {name} import offset, sub\n\n\ndef value():\n    return sub.twice(offset())\n",
    }
    init = "from ._helper import offset\n\nSCALE = 2\n"  # the package's own code changes
    _commit_twice(tmp_path, monkeypatch, files, f"{name}/__init__.py", init)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        new = importlib.import_module(f"{name}_user")
        with BaseRevision("HEAD~1") as base:
            old = base.module(f"{name}_user")
            assert old.value() == new.value() == 2 and old is not new
    finally:
        _forget(name)
