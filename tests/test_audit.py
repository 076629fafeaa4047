"""``dpverify audit``: the three files, the schema, the verdicts they hold, and bad input.

Each audit runs in-process through the command line's ``main`` once per module (a few seconds
in all); the tests read what it wrote.  The example plugin (``examples/own-sampler``) is made
importable from its folder, as ``tests/test_example_own_sampler.py`` does, and audited through
``--spec-module``, exactly as a user's own spec would be.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dpverify.verify.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "own-sampler"
SCHEMA = ROOT / "schemas" / "audit-2.schema.json"
SAMPLES = "2000"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def audits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, Path, str, str]]:
    """name -> (exit code, report directory, stdout, stderr) of each audit the tests read."""
    runs = {
        "gtm-violated": ("gtm", "--alpha", "1/3", "--n", "5", "--T", "1000"),
        "gtm-exact": ("gtm", "--alpha", "1/3", "--n", "4", "--T", "324"),
        "dlaplace": ("dlaplace", "--scale", "1", "--sensitivity", "1"),
    }
    done = {}
    for name, argv in runs.items():
        out = tmp_path_factory.mktemp(name) / "report"
        code, stdout, stderr = _run("audit", *argv, "--out", str(out), "--seed", "1", "--samples", SAMPLES)
        done[name] = (code, out, stdout, stderr)
    with _example_importable():
        for name, argv in {
            "own": ("randomized-response", "--k", "4", "--alpha", "999999/1000000"),
            "own-broken": ("randomized-response-off-by-one", "--k", "3", "--alpha", "2/5"),
        }.items():
            out = tmp_path_factory.mktemp(name) / "report"
            code, stdout, stderr = _run(
                "audit",
                *argv,
                "--spec-module",
                "own_sampler.specs",
                "--out",
                str(out),
                "--seed",
                "1",
                "--samples",
                SAMPLES,
            )
            done[name] = (code, out, stdout, stderr)
    return done


@contextlib.contextmanager
def _example_importable() -> Iterator[None]:
    def forget() -> None:
        for name in [n for n in sys.modules if n == "own_sampler" or n.startswith("own_sampler.")]:
            del sys.modules[name]

    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(EXAMPLE))
        patch.setattr(sys, "path", list(sys.path))  # what --spec-module inserts is undone too
        forget()  # an installed copy must not stand in for the folder's
        try:
            yield
        finally:
            forget()


def _document(audit: tuple[int, Path, str, str]) -> dict[str, Any]:
    return json.loads((audit[1] / "report.json").read_text(encoding="utf-8"))


def _checks(case: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for check in case["checks"]:
        found.setdefault(check["check"], []).append(check)
    return found


# --- the files -----------------------------------------------------------------------------------

NAMES = ("gtm-violated", "gtm-exact", "dlaplace", "own", "own-broken")


@pytest.mark.parametrize("name", NAMES)
def test_the_three_files_are_written_and_the_json_validates(audits: dict, name: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    code, out, stdout, stderr = audits[name]
    assert code in (0, 1), stdout + stderr
    for file in ("report.html", "report.md", "report.json"):
        assert (out / file).is_file() and (out / file).stat().st_size > 0
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "dpverify.audit/2"
    document = _document(audits[name])
    jsonschema.Draft202012Validator(schema).validate(document)
    assert document["verdict"]["exit_code"] == code
    # not a TTY: no progress bar, nothing on stderr
    assert stderr == ""
    assert f"report: {out / 'report.html'}" in stdout


def test_the_schema_rejects_a_document_that_breaks_it(audits: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    document = _document(audits["gtm-violated"])
    document["cases"][0]["pmfs"] = {"applicable": False, "reason": None}  # not applicable must say why
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)
    document = _document(audits["gtm-violated"])
    document["cases"][0]["checks"][0]["verdict"] = "probably"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


@pytest.mark.parametrize("name", NAMES)
def test_every_markdown_link_resolves(audits: dict, name: str) -> None:
    _, out, _, _ = audits[name]
    text = (out / "report.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#][^)]*)\)", text)
    for link in links:
        assert not link.startswith(("http:", "https:", "/")), link
        assert (out / link).is_file(), link
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert sorted(images) == sorted(p["file"] for p in _document(audits[name])["plots"])
    if pytest.importorskip("matplotlib"):
        assert images, "a case with a table has plots"
    for image in images:
        assert (out / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # every section heading is there, in order
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert [h.split(".")[0] for h in headings[:7]] == [f"## {i}" for i in range(1, 8)]


@pytest.mark.parametrize("name", NAMES)
def test_the_html_is_self_contained(audits: dict, name: str) -> None:
    _, out, _, _ = audits[name]
    page = (out / "report.html").read_text(encoding="utf-8")
    # no resource is fetched from anywhere: no src/href/url() to another place, no script, no stylesheet link
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:|//|file:)""", page, re.I)
    assert not re.search(r"url\(\s*['\"]?\s*(?:https?:|//)", page, re.I)
    assert "<link" not in page and "<script" not in page and "@import" not in page
    assert "<style>" in page
    document = _document(audits[name])
    assert page.count("<svg") == len(document["plots"])
    for i in range(1, 8):
        assert '<h2 id="' in page and f">{i}. " in page


# --- the verdicts --------------------------------------------------------------------------------


def test_a_violated_gtm_exits_1_with_the_witness_and_the_papers_bounds(audits: dict) -> None:
    code, _, stdout, _ = audits["gtm-violated"]
    document = _document(audits["gtm-violated"])
    assert code == 1 and not document["verdict"]["passed"]
    assert "FAIL gtm/alpha=1/3,n=5,T=1000: expect proved, got violated" in stdout
    (case,) = document["cases"]
    assert case["outcome"] == "violated" and not case["met"]
    privacy = case["privacy"]
    assert privacy["code"]["alpha"] == "9/28" and privacy["closed_form"]["alpha"] == "9/28"
    assert privacy["code"]["witness"] == {
        "q": 0,
        "q_prime": 1,
        "output": 3,
        "p": "9/500",
        "p_prime": "7/125",
        "ratio": "9/28",
    }
    paper = {row["name"]: row for row in privacy["paper"]}
    assert paper["ideal GTM (gtpmf)"]["value"] == "1/3" and paper["ideal GTM (gtpmf)"]["holds"] is False
    # Theorem 6.2's alpha' is met by the code's exact alpha, although the claim alpha is not
    assert Fraction(paper["Theorem 6.2 alpha'"]["value"]) <= Fraction(9, 28)
    assert paper["Theorem 6.2 alpha'"]["holds"] is True
    assert paper["Theorem 7.1 instance"]["value"] == "no"
    assert [c["verdict"] for c in case["proofs"]["checks"]] == ["violated"]
    assert case["proofs"]["checks"][0]["check"] == "z3"
    # the instance certificates of these parameters, found by the functions the code runs
    certificates = {c["name"]: c for c in document["certificates"]["certificates"]}
    assert (
        certificates["gtm/arbitrary-T/T=1000"]["this_case"]
        and certificates["gtm/arbitrary-T/T=1000"]["verdict"] == "violated"
    )
    assert "theorem_6_2" in certificates and certificates["theorem_6_2"]["kind"] == "parametric"
    assert all(not c["stale"] for c in certificates.values())
    assert any(name.startswith("dpverify.samplers.gtm.") for c in certificates.values() for name in c["covers_run"])
    statistics = case["statistics"]["checks"]
    assert [(s["seed"], s["samples"], s["false_positive_rate"]) for s in statistics] == [(1, 2000, "1/1000000000")]
    assert case["timing"]["applicable"] is False and "Spec.timing" in case["timing"]["reason"]
    assert document["mutation"]["applicable"] is False and "--mutants" in document["mutation"]["reason"]
    assert {p["kind"] for p in document["plots"]} <= {"impl", "neighbours", "loss", "delta"}


def test_a_theorem_7_1_instance_proves_with_alpha_itself(audits: dict) -> None:
    code, _, _, _ = audits["gtm-exact"]
    (case,) = _document(audits["gtm-exact"])["cases"]
    assert code == 0 and case["met"] and case["outcome"] == "proved"
    assert case["privacy"]["code"]["alpha"] == "1/3"
    paper = {row["name"]: row for row in case["privacy"]["paper"]}
    assert paper["Theorem 7.1 instance"]["value"] == "yes" and paper["Theorem 7.1 instance"]["holds"] is True
    table = case["pmfs"]["tables"][0]
    assert case["pmfs"]["kind"] == "exact" and table["input"] == 0
    assert sum(Fraction(r["code"]) for r in table["rows"]) == 1 and all(r["equal"] for r in table["rows"])


def test_a_noise_sampler_is_audited_through_its_intervals(audits: dict) -> None:
    code, _, _, _ = audits["dlaplace"]
    document = _document(audits["dlaplace"])
    (case,) = document["cases"]
    assert code == 0 and case["met"]
    pmfs = case["pmfs"]
    assert pmfs["kind"] == "intervals" and all(r["inside"] for r in pmfs["tables"][0]["rows"])
    for row in pmfs["tables"][0]["rows"]:
        assert Fraction(row["code_low"]) <= Fraction(row["code_high"])
    privacy = case["privacy"]
    assert privacy["kind"] == "intervals" and privacy["claim"]["epsilon"] == "1"
    # the ideal discrete Laplace at scale 1 has privacy loss exactly 1 between neighbours
    assert privacy["ideal"]["epsilon_low"] <= 1 <= privacy["ideal"]["epsilon_high"]
    assert privacy["code"]["epsilon_low"] <= 1 <= privacy["code"]["epsilon_high"]
    assert case["timing"]["applicable"] and case["timing"]["verdict"] in ("violated", "inconclusive")
    assert case["proofs"]["applicable"] is False and case["proofs"]["reason"]
    assert [c["name"] for c in document["certificates"]["certificates"]] == ["discrete_laplace_ratio"]
    assert "dpverify.samplers.discrete_laplace" in document["spec"]["sampler_modules"]


def test_the_example_plugin_is_audited_like_a_builtin_spec(audits: dict) -> None:
    code, out, stdout, _ = audits["own"]
    document = _document(audits["own"])
    assert code == 0, stdout
    assert document["spec"]["origin"] == "module own_sampler.specs" and not document["spec"]["builtin"]
    assert document["spec"]["sampler"] == "own_sampler.sampler.randomized_response"
    (case,) = document["cases"]
    assert case["privacy"]["code"]["alpha"] == case["parameters"]["alpha"] == "999999/1000000"
    assert [c["verdict"] for c in case["proofs"]["checks"]] == ["proved"]
    assert _checks(case)["exactness"][0]["evidence"]["methods"] == ["bisection"]
    # the bisected exact table: four outputs out of 3,999,997 draws
    big = case["pmfs"]["tables"][0]
    assert big["outputs_total"] == 4 and Fraction(big["rows"][0]["code"]) == Fraction(1000000, 3999997)
    assert document["certificates"]["applicable"] is False
    assert "own_sampler.sampler" in document["spec"]["sampler_modules"]


def test_the_broken_example_names_the_entry_the_code_gets_wrong(audits: dict) -> None:
    code, out, stdout, _ = audits["own-broken"]
    (case,) = _document(audits["own-broken"])["cases"]
    assert code == 1 and case["outcome"] == "violated"
    checks = _checks(case)
    assert checks["exactness"][0]["verdict"] == "violated" and checks["code_privacy"][0]["verdict"] == "violated"
    rows = {r["output"]: r for r in case["pmfs"]["tables"][0]["rows"]}
    # b + 1 = 6 of N = 9 draws give q = 0 itself, one draw too many
    assert (rows[0]["code"], rows[0]["spec"], rows[0]["equal"]) == ("2/3", "5/9", False)
    # the code's own tightest alpha is worse than the claim, the spec's closed form is not
    assert (
        Fraction(case["privacy"]["code"]["alpha"]) < Fraction(2, 5) == Fraction(case["privacy"]["closed_form"]["alpha"])
    )
    assert {c["check"] for c in case["proofs"]["checks"]} == {"z3", "code_z3"}
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "2/3 (spec 5/9)" in page and "entries differ from the spec (marked)" in page


# --- options ----------------------------------------------------------------------------------------


def test_mutation_rows_are_those_of_the_spec_s_modules(tmp_path: Path) -> None:
    mutants = {
        "schema": "dpverify.mutate/1",
        "passed": False,
        "gate": {"command": "dpverify check --seed 0"},
        "modules": [
            {
                "module": "dpverify.samplers.gtm",
                "mutants": 10,
                "killed": 8,
                "equivalent": 1,
                "survived": 1,
                "broken": 0,
                "crashed": 0,
                "timeout": 0,
            },
            {
                "module": "dpverify.samplers.discrete_gaussian",
                "mutants": 5,
                "killed": 5,
                "equivalent": 0,
                "survived": 0,
                "broken": 0,
                "crashed": 0,
                "timeout": 0,
            },
        ],
        "mutants": [
            {
                "id": "gtm-1",
                "module": "dpverify.samplers.gtm",
                "function": "sample",
                "line": 3,
                "description": "line 3: compare",
                "status": "survived",
                "detail": None,
            },
            {
                "id": "gtm-2",
                "module": "dpverify.samplers.gtm",
                "function": "sample",
                "line": 4,
                "description": "line 4: constant",
                "status": "killed",
                "detail": None,
            },
        ],
    }
    path = tmp_path / "mutants.json"
    path.write_text(json.dumps(mutants))
    code, out, err = _run(
        "audit",
        "gtm",
        "--alpha",
        "1/2",
        "--n",
        "1",
        "--T",
        "6",
        "--out",
        str(tmp_path / "r"),
        "--seed",
        "1",
        "--samples",
        SAMPLES,
        "--mutants",
        str(path),
    )
    assert code == 0, out + err
    mutation = _document((code, tmp_path / "r", out, err))["mutation"]
    assert mutation["applicable"] and [m["module"] for m in mutation["modules"]] == ["dpverify.samplers.gtm"]
    assert mutation["modules"][0]["score"] == "8/9"
    assert [m["id"] for m in mutation["mutants"]] == ["gtm-1"]
    assert "8/9" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def test_without_parameters_every_case_is_audited_and_json_alone_goes_to_stdout(tmp_path: Path) -> None:
    code, out, err = _run(
        "audit", "bernoulli", "--out", str(tmp_path / "r"), "--seed", "3", "--samples", SAMPLES, "--json"
    )
    assert code == 0
    document = json.loads(out)
    assert document == json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert document["schema"] == "dpverify.audit/2" and document["options"]["seed"] == 3
    assert [c["label"] for c in document["cases"]] == ["p=2/7", "p=1", "p=0"]
    assert "ok   bernoulli/p=2/7" in err and "all 3 case(s) met their expectation: PASS" in err
    for case in document["cases"]:
        assert case["privacy"]["applicable"] is False and "samples its PMF" in case["privacy"]["reason"]
        assert case["pmfs"]["kind"] == "exact"


def test_the_report_renders_without_matplotlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dpverify.verify.reports import _audit_report

    monkeypatch.setattr(
        _audit_report, "matplotlib_missing", lambda: "the plots need matplotlib, which is not installed"
    )
    monkeypatch.setattr(_audit_report, "draw_case", lambda series, salt, failed=None: [])
    code, out, err = _run(
        "audit",
        "gtm",
        "--alpha",
        "1/2",
        "--n",
        "1",
        "--T",
        "6",
        "--out",
        str(tmp_path / "r"),
        "--seed",
        "1",
        "--samples",
        SAMPLES,
    )
    assert code == 0, out + err
    document = _document((code, tmp_path / "r", out, err))
    assert document["plots"] == [] and "need matplotlib" in document["plots_note"]
    for file in ("report.html", "report.md"):
        assert "need matplotlib" in (tmp_path / "r" / file).read_text(encoding="utf-8")
    assert "<svg" not in (tmp_path / "r" / "report.html").read_text(encoding="utf-8")


# --- what goes wrong --------------------------------------------------------------------------------

BAD = [
    (("gtm", "--alpha", "1/3", "--n", "5"), "spec 'gtm' needs --T; its parameters are --alpha, --n, --T."),
    (
        ("gtm", "--alpha", "1/3", "--n", "5", "--T", "9", "--beta", "2"),
        "spec 'gtm' has no parameter --beta; its parameters are --alpha, --n, --T.",
    ),
    (("gtm", "--alpha", "3/2", "--n", "5", "--T", "9"), "alpha"),
    (("gtm", "--alpha", "1/3", "--n", "5", "--T"), "--T needs a value"),
    (("gtm", "--alpha", "1/3", "--alpha", "1/2", "--n", "5", "--T", "9"), "--alpha is given twice"),
    (("no-such-spec",), "no spec named 'no-such-spec'"),
    (("gtm", "stray"), "unexpected argument 'stray'"),
]


@pytest.mark.parametrize(("argv", "message"), BAD)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, argv: tuple[str, ...], message: str) -> None:
    code, out, err = _run("audit", *argv, "--out", str(tmp_path / "r"))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("dpverify: error: ") and message in err, err
    assert "Traceback" not in err and out == ""
    assert not (tmp_path / "r" / "report.html").exists()


def test_bad_options_are_one_line_and_exit_2(tmp_path: Path) -> None:
    afile = tmp_path / "a-file"
    afile.write_text("x")
    broken = tmp_path / "mutants.json"
    broken.write_text('{"schema": "something/1"}')
    for argv, message in [
        (("--out", str(afile)), "--out must be a directory"),
        (("--out", str(tmp_path / "no" / "such" / "dir")), "--out must be in an existing directory"),
        (("--out", str(tmp_path / "r"), "--mutants", str(broken)), "is not a dpverify.mutate/1 document"),
        (("--out", str(tmp_path / "r"), "--mutants", str(tmp_path / "absent.json")), "--mutants must be a file"),
        (("--out", str(tmp_path / "r"), "--mutants", "/dev/zero"), "--mutants must be a file"),  # never ends: not read
        (("--out", str(tmp_path / "r"), "--samples", "0"), "samples must be an integer"),
    ]:
        code, out, err = _run("audit", "gtm", "--alpha", "1/2", "--n", "1", "--T", "6", *argv)
        assert code == 2 and err.count("\n") == 1 and message in err, (argv, err)
    code, _, err = _run("audit", "gtm", "--alpha", "1/2", "--n", "1", "--T", "6")
    assert code == 2 and "--out" in err and err.count("\n") == 1


def test_other_commands_still_refuse_unknown_options() -> None:
    code, _, err = _run("check", "--list", "--alpha", "1")
    assert code == 2 and "unrecognized arguments: --alpha 1" in err


_MODULE = """
from fractions import Fraction
from dpverify.specs import Case, Input, Integer, PureDp, Spec

def raises(q, n, rng):
    raise RuntimeError("the code under audit broke")

def hangs(q, n, rng):
    while True:
        pass

def coin(q, n, rng):
    return rng.randbelow(2)

PMF = lambda p, q: {0: Fraction(1, 2), 1: Fraction(1, 2)}
HALF = lambda p, q: {0: Fraction(1, 4), 1: Fraction(1, 4)}
COMMON = dict(parameters={"n": Integer(1, 3)}, input=Input("q", values=lambda p: range(2)),
              claim=PureDp(alpha=1), cases=(Case({"n": 1}),))
SPECS = (Spec(name="raises", sampler=raises, pmf=PMF, **COMMON),
         Spec(name="hangs", sampler=hangs, pmf=PMF, **COMMON),
         Spec(name="half", sampler=coin, pmf=HALF, **COMMON))
"""


@pytest.fixture
def odd_specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "odd_audit_specs.py").write_text(_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "odd_audit_specs", raising=False)
    return tmp_path


@pytest.mark.parametrize(
    ("name", "limit", "exit_code", "outcome"),
    [("raises", "60", 1, "violated"), ("hangs", "1", 1, "inconclusive"), ("half", "60", 2, "error")],
)
def test_a_sampler_that_raises_or_hangs_is_a_verdict_and_a_broken_spec_exits_2(
    odd_specs: Path, name: str, limit: str, exit_code: int, outcome: str
) -> None:
    out_dir = odd_specs / f"report-{name}"
    code, out, err = _run(
        "audit",
        name,
        "--spec-module",
        "odd_audit_specs",
        "--out",
        str(out_dir),
        "--seed",
        "1",
        "--samples",
        "100",
        "--time-limit",
        limit,
    )
    assert code == exit_code, out + err
    assert "Traceback" not in out + err
    document = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    (case,) = document["cases"]
    assert case["outcome"] == outcome
    if outcome == "error":
        assert "sums to 1/2, not 1" in case["error"] and case["pmfs"]["applicable"] is False
    elif outcome == "violated":
        assert _checks(case)["smoke"][0]["verdict"] == "violated"
    else:  # it loops before its first draw on any source: ended by the probe, the exact checks not started
        assert "before it had taken a single random bit" in " ".join(case["problems"])
        assert "none was started" in " ".join(case["problems"])
    assert (out_dir / "report.html").is_file() and (out_dir / "report.md").is_file()


def test_the_time_limit_bounds_the_whole_case_the_trace_of_its_code_included(odd_specs: Path) -> None:
    out_dir = odd_specs / "report-hangs"
    code, out, err = _run(
        "audit",
        "hangs",
        "--spec-module",
        "odd_audit_specs",
        "--out",
        str(out_dir),
        "--seed",
        "1",
        "--samples",
        "100",
        "--time-limit",
        "2",
    )
    assert code == 1, out + err
    document = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    # the case ends early (its code loops before any draw), and the certificates' trace of its code (up to
    # 10 s a run) gets only what is left of the 2 s, and says so
    (untraced,) = document["certificates"]["untraced"]
    assert "the sampler, the pmf, the claim not traced: the trace reached the" in untraced
    assert "the time bound left" in untraced
    assert document["certificates"]["reason"].startswith("inconclusive: ")
    assert document["seconds"] < 9  # 2 s and the report's own work; the untraced sampler alone would take 10 s
    assert "not traced" in (out_dir / "report.md").read_text(encoding="utf-8")


def test_vector_outputs_are_matched_to_their_enclosures(tmp_path: Path) -> None:
    # outputs are tuples of Fractions, listed in the evidence as JSON lists of "num/den" strings
    code, out, err = _run(
        "audit",
        "vector-laplace",
        "--sensitivity",
        "1",
        "--epsilon",
        "2",
        "--step",
        "1",
        "--out",
        str(tmp_path / "r"),
        "--seed",
        "1",
        "--samples",
        "100",
    )
    assert code == 0, out + err
    (case,) = _document((code, tmp_path / "r", out, err))["cases"]
    assert [c["verdict"] for c in _checks(case)["intervals"]] == ["proved"]
    rows = [r for t in case["pmfs"]["tables"] for r in t["rows"]]
    assert rows and all(r["inside"] for r in rows)
    assert all(Fraction(r["ideal_low_decimal"].split()[0]) > 0 for r in rows)


def test_the_trusted_base_locates_the_installed_package_it_audits() -> None:
    """The location the report names is the folder the package's parts live in (the repository
    root of an editable install), so its git state is the checkout's, whatever the module depth."""
    from dpverify.verify.reports._audit_per_spec import trusted_base

    installed = trusted_base()["dpverify"]
    assert (Path(installed["location"]) / "proofs" / "manifest.json").is_file()
    if (Path(installed["location"]) / ".git").exists():
        assert installed["git"] is not None and len(installed["git"]["commit"]) == 40
