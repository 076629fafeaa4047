"""Certificates, the manifest, the stale-proof check and the cvc5 recheck, on mutated copies
of the samplers in a temporary directory."""

from __future__ import annotations

import ast
import json
import shutil
import sys
from pathlib import Path

import pytest
import z3

from dpverify.proofs._certificates import GTM_COVERS, MANIFEST_PATH, instance_obligations, theorem_obligation
from dpverify.proofs._fingerprint import FingerprintError, fingerprint, normalised_dump, resolve
from dpverify.proofs._manifest import (
    MANIFEST_SCHEMA,
    check_recorded_verdicts,
    prove_result,
    read_manifest,
    write_certificates,
)
from dpverify.proofs._recheck import recheck_certificates
from dpverify.proofs._stale import check_manifest
from dpverify.proofs._theorem import Theorem
from dpverify.verify.engine._results import Verdict
from dpverify.verify.gate._catalogue import GTM

REPO = Path(__file__).resolve().parents[1]
FIND = "if u_numerator * c.denominator <= T * c.numerator:  # [GTM-find]  u <= CDF_q(x)"

_x, _y = z3.Ints("x y")

#: Holds for every integer x: x*x >= 0.  Covers the GTM search, as a parametric proof would.
SQUARE = Theorem(
    name="toy.square-nonnegative",
    statement="for all integers x: x*x >= 0",
    source="folklore (a test theorem)",
    covers=("dpverify.samplers.gtm.inverse_transform",),
    obligation=lambda: [_x * _x < 0],
    logic="QF_NIA",
)

#: False: refuted by x = 0.  A refuted theorem is still a certificate, of the refutation.
FALSE = Theorem(
    name="toy.false",
    statement="for all integers x, y: x + y > x",
    source="none (a test theorem that is false)",
    covers=("dpverify.samplers.gtm.gtpmf", "dpverify.specs.gtm.GtmSpec.pmf"),
    obligation=lambda: [z3.Not(_x + _y > _x)],
    logic="QF_LIA",
)


def _copy_tree(root: Path) -> Path:
    for package in ("samplers", "specs"):
        shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of samplers/ and specs/ with certificates for the two toy theorems."""
    root = _copy_tree(tmp_path)
    write_certificates(root, [SQUARE, FALSE])
    return root


# --- fingerprints ----------------------------------------------------------------------------


def test_resolve_finds_module_functions_and_methods() -> None:
    assert resolve("dpverify.samplers.gtm.inverse_transform", REPO) == (
        REPO / "samplers" / "gtm.py",
        "inverse_transform",
    )
    assert resolve("dpverify.specs.gtm.GtmSpec.pmf", REPO) == (REPO / "specs" / "gtm.py", "GtmSpec.pmf")


@pytest.mark.parametrize(
    "name",
    [
        "dpverify.samplers.gtm.no_such_function",
        "dpverify.specs.gtm.GtmSpec.no_such_method",
        "nowhere.module.f",
        "dpverify.samplers.gtm.inverse_transform.inner",
    ],
)
def test_an_unknown_name_is_refused(name: str) -> None:
    with pytest.raises(FingerprintError, match="no module|not defined"):
        fingerprint(name, REPO)


def test_the_fingerprint_ignores_docstrings_comments_and_layout(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text('def f(a, b):\n    """Doc."""\n    return a <= b\n', encoding="utf-8")
    before = fingerprint("dpverify.m.f", tmp_path)
    source.write_text("# moved down\n\n\ndef f(a,\n      b):  # a comment\n    return (a <= b)\n", encoding="utf-8")
    assert fingerprint("dpverify.m.f", tmp_path) == before
    source.write_text("def f(a, b):\n    return a < b\n", encoding="utf-8")
    assert fingerprint("dpverify.m.f", tmp_path) != before


def test_the_fingerprint_sees_decorators_defaults_and_nested_code(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    variants = [
        "def f(a, b=1):\n    def g():\n        '''inner doc'''\n        return 1\n    return a + b + g()\n",
        "def f(a, b=2):\n    def g():\n        '''inner doc'''\n        return 1\n    return a + b + g()\n",
        "def f(a, b=1):\n    def g():\n        '''inner doc'''\n        return 2\n    return a + b + g()\n",
        "@cache\ndef f(a, b=1):\n    def g():\n        '''inner doc'''\n        return 1\n    return a + b + g()\n",
    ]
    hashes = set()
    for text in variants:
        source.write_text(text, encoding="utf-8")
        hashes.add(fingerprint("dpverify.m.f", tmp_path))
    assert len(hashes) == len(variants)
    source.write_text(variants[0], encoding="utf-8")
    first = fingerprint("dpverify.m.f", tmp_path)
    source.write_text(variants[0].replace("'''inner doc'''", "'''another doc'''"), encoding="utf-8")
    assert fingerprint("dpverify.m.f", tmp_path) == first


@pytest.mark.skipif(sys.version_info < (3, 13), reason="ast.dump(show_empty=False) is Python 3.13+")
def test_the_normalised_dump_is_ast_dump_without_empty_fields() -> None:
    node = ast.parse((REPO / "samplers" / "gtm.py").read_text(encoding="utf-8"))
    expected = ast.dump(node, annotate_fields=True, include_attributes=False, show_empty=False)  # type: ignore[call-arg]
    assert normalised_dump(node) == expected


def test_the_normalised_dump_keeps_a_literal_none() -> None:
    explicit = normalised_dump(ast.parse("def f():\n    return None").body[0])
    bare = normalised_dump(ast.parse("def f():\n    return").body[0])
    assert "Constant(value=None)" in explicit and explicit != bare


# --- writing certificates ----------------------------------------------------------------------


def test_certificates_and_manifest_are_written(tree: Path) -> None:
    manifest = read_manifest(tree)
    assert manifest is not None
    data = json.loads((tree / MANIFEST_PATH).read_text(encoding="utf-8"))
    assert data["schema"] == MANIFEST_SCHEMA
    assert data["solvers"]["z3"] == z3.get_version_string()
    records = {c["name"]: c for c in data["certificates"]}
    square = records["toy.square-nonnegative"]
    assert square["verdict"] == "proved" and square["expect"] == "proved"
    assert square["covers"] == {
        "dpverify.samplers.gtm.inverse_transform": fingerprint("dpverify.samplers.gtm.inverse_transform", tree)
    }
    assert set(square) >= {"name", "file", "sha256", "verdict", "covers", "source", "bounded"}
    assert records["toy.false"]["verdict"] == "violated"
    text = (tree / square["file"]).read_text(encoding="utf-8")
    assert "(set-logic QF_NIA)" in text and "(check-sat)" in text


def test_regenerating_unchanged_code_changes_no_byte(tree: Path) -> None:
    files = sorted((tree / "proofs").rglob("*"))
    before = {p: p.read_bytes() for p in files if p.is_file()}
    z3.Ints("some unrelated terms")  # shifts Z3's internal ids, which name its let-bindings
    write_certificates(tree, [SQUARE, FALSE])
    after = {p: p.read_bytes() for p in sorted((tree / "proofs").rglob("*")) if p.is_file()}
    assert after == before


def test_the_script_depends_on_the_formula_only() -> None:
    """Z3's printer let-binds a subterm that something else in the process also holds; the
    certificate must be the same bytes either way."""
    theorem = Theorem("toy.held", "s", "none", (), lambda: [(_x + 1) * (_y + 2) > _x, _x > 3])
    alone = theorem_obligation(theorem).text
    held = [_x + 1, _y + 2, (_x + 1) * (_y + 2)]  # Z3 alone would now let-bind these
    assert theorem_obligation(theorem).text == alone
    assert len(held) == 3  # (still held during the line above)
    assert "let" not in alone and "(set-logic ALL)" in alone


def test_a_multi_line_statement_stays_a_comment(tmp_path: Path) -> None:
    theorem = Theorem("toy.lines", "first line\nsecond line", "none", (), SQUARE.obligation, logic="QF_NIA")
    text = theorem_obligation(theorem).text
    assert "; second line" in text
    manifest = write_certificates(_copy_tree(tmp_path), [theorem])
    assert manifest.certificates[0].verdict is Verdict.PROVED


def test_prove_result_reports_a_theorem_that_missed_its_expectation(tree: Path) -> None:
    manifest = read_manifest(tree)
    assert manifest is not None
    result = prove_result(manifest)
    assert result.verdict is Verdict.VIOLATED
    assert "toy.false: expected proved, got violated" in result.summary


def test_the_recorded_verdicts_are_checked_without_a_solver(tree: Path, tmp_path: Path) -> None:
    result = check_recorded_verdicts(tree)
    assert result.check == "certificates" and result.verdict is Verdict.VIOLATED
    assert "toy.false" in result.summary
    write_certificates(tree, [SQUARE])
    assert check_recorded_verdicts(tree).verdict is Verdict.PROVED
    assert check_recorded_verdicts(tmp_path / "empty").verdict is Verdict.INCONCLUSIVE


def test_an_unresolvable_cover_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    typo = Theorem("toy.typo", "x*x >= 0", "none", ("dpverify.samplers.gtm.inverse_transfrom",), SQUARE.obligation)
    with pytest.raises(FingerprintError, match="inverse_transfrom"):
        write_certificates(root, [typo])
    assert not (root / "proofs").exists()


def test_regenerating_removes_certificates_of_dropped_obligations(tree: Path) -> None:
    write_certificates(tree, [SQUARE])
    assert [p.name for p in (tree / "proofs" / "certificates").rglob("*.smt2")] == ["toy.square-nonnegative.smt2"]
    assert check_manifest(tree).verdict is Verdict.PROVED


# --- the stale-proof check -------------------------------------------------------------------


def test_fresh_certificates_are_not_stale(tree: Path) -> None:
    result = check_manifest(tree, current=[theorem_obligation(SQUARE), theorem_obligation(FALSE)])
    assert result.verdict is Verdict.PROVED, result.summary


def test_changing_a_covered_sampler_makes_its_proof_stale(tree: Path) -> None:
    _edit(tree / "samplers" / "gtm.py", FIND, FIND.replace("<= T", "< T"))
    result = check_manifest(tree)
    assert result.verdict is Verdict.VIOLATED
    assert "stale proof" in result.summary
    assert "toy.square-nonnegative" in result.summary and "dpverify.samplers.gtm.inverse_transform" in result.summary
    findings = result.evidence["findings"]
    assert [(f["certificate"], f["function"], f["problem"]) for f in findings] == [
        ("toy.square-nonnegative", "dpverify.samplers.gtm.inverse_transform", "function-changed")
    ]
    write_certificates(tree, [SQUARE, FALSE])  # dpverify prove
    assert check_manifest(tree).verdict is Verdict.PROVED


def test_changing_a_covered_spec_method_names_it(tree: Path) -> None:
    _edit(
        tree / "specs" / "gtm.py",
        "return ExactPmf(self.outputs(), floored.row(self.n, q), self.T)",
        "return ExactPmf(self.outputs(), floored.row(self.n, q), self.T + 0)",
    )
    result = check_manifest(tree)
    assert result.verdict is Verdict.VIOLATED
    assert [(f["certificate"], f["function"]) for f in result.evidence["findings"]] == [
        ("toy.false", "dpverify.specs.gtm.GtmSpec.pmf")
    ]


def test_docstring_comment_and_layout_changes_keep_the_proof(tree: Path) -> None:
    gtm = tree / "samplers" / "gtm.py"
    _edit(
        gtm,
        '"""The first ``x`` with ``u_numerator/T <= cdf[x]`` (paper §5, ``find (fun x => u <= x)``),\n'
        '    for ints ``1 <= u_numerator <= T`` and a CDF of Fractions that ends at 1."""',
        '"""Return the first x with u <= CDF_q(x).\n\n    Reworded, and longer.\n    """\n    # a new comment',
    )
    _edit(gtm, FIND, "if (u_numerator * c.denominator\n                <= T * c.numerator):  # reflowed")
    result = check_manifest(tree)
    assert result.verdict is Verdict.PROVED, result.summary


def test_a_removed_function_makes_its_proof_stale(tree: Path) -> None:
    _edit(tree / "samplers" / "gtm.py", "def inverse_transform(", "def inverse_transform_v2(")
    result = check_manifest(tree)
    assert result.verdict is Verdict.VIOLATED
    assert result.evidence["findings"][0]["problem"] == "function-missing"
    assert "dpverify.samplers.gtm.inverse_transform, which no longer exists" in result.summary


def test_an_edited_certificate_file_is_caught(tree: Path) -> None:
    path = tree / "proofs" / "certificates" / "toy.false.smt2"
    path.write_text(
        path.read_text(encoding="utf-8").replace("(check-sat)", "(assert false)\n(check-sat)"), encoding="utf-8"
    )
    result = check_manifest(tree)
    assert result.verdict is Verdict.VIOLATED
    assert result.evidence["findings"][0]["problem"] == "certificate-modified"
    assert "toy.false" in result.summary


def test_a_certificate_outside_the_manifest_is_caught(tree: Path) -> None:
    (tree / "proofs" / "certificates" / "stray.smt2").write_text("(check-sat)\n", encoding="utf-8")
    result = check_manifest(tree)
    assert result.verdict is Verdict.VIOLATED
    assert "proofs/certificates/stray.smt2 is not in the manifest" in result.summary


def test_a_changed_or_new_obligation_is_caught_given_the_current_ones(tree: Path) -> None:
    changed = Theorem(
        SQUARE.name, SQUARE.statement, SQUARE.source, SQUARE.covers, lambda: [_x * _x < -1], logic="QF_NIA"
    )
    new = Theorem("toy.new", "x = x", "none", ("dpverify.samplers.gtm.gtpmf",), lambda: [_x != _x])
    result = check_manifest(
        tree, current=[theorem_obligation(changed), theorem_obligation(FALSE), theorem_obligation(new)]
    )
    assert result.verdict is Verdict.VIOLATED
    problems = {(f["certificate"], f["problem"]) for f in result.evidence["findings"]}
    assert problems == {("toy.square-nonnegative", "obligation-changed"), ("toy.new", "certificate-absent")}


def test_no_manifest_is_inconclusive(tmp_path: Path) -> None:
    result = check_manifest(_copy_tree(tmp_path))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "dpverify prove" in result.summary


def test_an_unreadable_manifest_fails(tree: Path) -> None:
    (tree / MANIFEST_PATH).write_text("{not json", encoding="utf-8")
    result = check_manifest(tree)
    assert result.verdict is Verdict.VIOLATED and "cannot be read" in result.summary


# --- instance certificates -------------------------------------------------------------------


def test_every_small_gtm_catalogue_entry_gets_an_instance_certificate(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    instances = instance_obligations()
    gtm_entries = {f"gtm/{case.describe()}": case for case in GTM.cases}
    assert {o.name for o in instances} == set(gtm_entries)
    assert all(o.covers == GTM_COVERS and o.kind == "instance" for o in instances)
    manifest = write_certificates(root, [], instances)
    for record in manifest.certificates:
        assert record.verdict.value == gtm_entries[record.name].expect, record.name
        assert record.file.startswith("proofs/certificates/instances/")
    assert {r.verdict for r in manifest.certificates} == {Verdict.PROVED, Verdict.VIOLATED}
    assert prove_result(manifest).verdict is Verdict.PROVED
    assert check_manifest(root, current=instance_obligations()).verdict is Verdict.PROVED

    _edit(root / "samplers" / "gtm.py", "u_numerator = source.randbelow(T_) + 1", "u_numerator = source.randbelow(T_)")
    result = check_manifest(root)
    assert result.verdict is Verdict.VIOLATED
    assert {f["certificate"] for f in result.evidence["findings"]} == set(gtm_entries)
    assert {f["function"] for f in result.evidence["findings"]} == {"dpverify.samplers.gtm.sample"}


# --- the cvc5 recheck ------------------------------------------------------------------------


def test_cvc5_agrees_on_a_proved_and_a_refuted_certificate(tree: Path) -> None:
    pytest.importorskip("cvc5")
    result = recheck_certificates(tree, timeout_ms=10_000)
    assert result.verdict is Verdict.PROVED, result.summary
    rows = {r["certificate"]: (r["z3"], r["cvc5"]) for r in result.evidence["certificates"]}
    assert rows == {"toy.square-nonnegative": ("unsat", "unsat"), "toy.false": ("sat", "sat")}


def test_cvc5_agrees_on_the_instance_certificates(tmp_path: Path) -> None:
    pytest.importorskip("cvc5")
    root = _copy_tree(tmp_path)
    write_certificates(root, [], instance_obligations())
    result = recheck_certificates(root, timeout_ms=10_000)
    assert result.verdict is Verdict.PROVED, result.summary


def test_a_tampered_verdict_is_a_disagreement(tree: Path) -> None:
    pytest.importorskip("cvc5")
    data = json.loads((tree / MANIFEST_PATH).read_text(encoding="utf-8"))
    for record in data["certificates"]:
        if record["name"] == "toy.square-nonnegative":
            record["verdict"] = "violated"
    (tree / MANIFEST_PATH).write_text(json.dumps(data), encoding="utf-8")
    result = recheck_certificates(tree, timeout_ms=10_000)
    assert result.verdict is Verdict.VIOLATED
    assert "toy.square-nonnegative" in result.summary and "cvc5 says unsat" in result.summary


def test_cvc5_unknown_is_inconclusive_not_a_disagreement(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("cvc5")
    monkeypatch.setattr("dpverify.proofs._recheck.cvc5_status", lambda text, timeout_ms: ("unknown", "timeout"))
    result = recheck_certificates(tree)
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "timeout" in result.summary


def test_without_cvc5_the_recheck_is_inconclusive(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dpverify.proofs._recheck.cvc5_version", lambda: None)
    result = recheck_certificates(tree)
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "cvc5 is not installed" in result.summary


def test_a_modified_certificate_fails_the_recheck(tree: Path) -> None:
    pytest.importorskip("cvc5")
    path = tree / "proofs" / "certificates" / "toy.false.smt2"
    path.write_text(path.read_text(encoding="utf-8") + "; edited\n", encoding="utf-8")
    result = recheck_certificates(tree, timeout_ms=10_000)
    assert result.verdict is Verdict.VIOLATED
    assert "toy.false" in result.summary


def test_prove_without_cvc5_keeps_the_recorded_cvc5_version(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dpverify.proofs._manifest as certificates

    manifest = read_manifest(tree)
    assert manifest is not None
    if "cvc5" not in manifest.solvers:
        pytest.skip("cvc5 is not installed, so there is no recorded version to keep")
    monkeypatch.setattr(certificates, "cvc5_version", lambda: None)
    rewritten = write_certificates(tree, [SQUARE], [])
    assert rewritten.solvers.get("cvc5") == manifest.solvers.get("cvc5")


def test_recheck_without_cvc5_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import dpverify.proofs._solvers as certificates
    from dpverify.verify.cli import main

    monkeypatch.setattr(certificates, "cvc5_version", lambda: None)
    assert main(["prove", "--recheck"]) == 2
    assert "--recheck needs the cvc5 solver" in capsys.readouterr().err
