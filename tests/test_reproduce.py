"""``dpverify reproduce``: the papers' numbers recomputed, checked against the papers' values by
independent computations here (never by calling the function that made the row), the flags the
papers need, the JSON schema, scheduling independence and the command's usage errors.

The fast tests run single tasks or the cheap papers (002, 003); the full run of every paper is
``slow``.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from dpverify.samplers import DpverifyError
from dpverify.verify.cli import main
from dpverify.verify.reports.reproduce import _cks20 as cks20
from dpverify.verify.reports.reproduce import _gazeau as gazeau
from dpverify.verify.reports.reproduce import _gtm as gtm
from dpverify.verify.reports.reproduce import _notes as notes
from dpverify.verify.reports.reproduce import _run as _reproduce
from dpverify.verify.reports.reproduce import _typechecker as typechecker
from dpverify.verify.reports.reproduce._rows import Options, Paper, Part, Plan, Row, Task
from dpverify.verify.reports.reproduce._run import reproduce, resolve_papers

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "reproduce-1.schema.json"


def _rows(part: Part) -> dict[str, Row]:
    return {row.id: row for row in part.rows}


def _validate(document: object) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(document)


def _check_rows(rows: tuple[Row, ...] | list[Row]) -> None:
    for row in rows:
        assert row.match in ("yes", "no", "flagged"), row
        if row.match != "yes":
            assert row.reason and len(row.reason) > 20, row.id
        assert row.quantity and row.where and row.paper and row.recomputed, row.id


# --- names and usage ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "paper"),
    [
        ("004", "004"),
        ("4", "004"),
        ("gtm", "004"),
        ("Amorim", "004"),
        ("cks20", "001"),
        ("canonne", "001"),
        ("000", "000"),
        ("gazeau", "000"),
        ("notes", "002"),
        ("fredrikson", "002"),
        ("typechecker", "003"),
        ("3", "003"),
    ],
)
def test_paper_names(name: str, paper: str) -> None:
    assert [p.id for p in resolve_papers(name)] == [paper]


def test_all_is_every_paper_in_order() -> None:
    assert [p.id for p in resolve_papers("all")] == ["000", "001", "002", "003", "004"]


@pytest.mark.parametrize("name", ["005", "xyz", "", 4, None])
def test_unknown_paper_is_refused_in_one_line(name: object) -> None:
    with pytest.raises(DpverifyError) as error:
        resolve_papers(name)
    assert "\n" not in str(error.value) and "paper must be one of" in str(error.value)


@pytest.mark.parametrize(
    "argv",
    [
        ["reproduce", "nope"],
        ["reproduce", "004", "--jobs", "0"],
        ["reproduce", "004", "--jobs", "x"],
        ["reproduce"],
        ["reproduce", "004", "--bogus"],
    ],
)
def test_bad_usage_exits_2_with_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("dpverify: error:")


def test_out_must_be_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "a-file"
    target.write_text("")
    assert main(["reproduce", "003", "--out", str(target)]) == 2
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "--out must be a directory" in err
    assert main(["reproduce", "003", "--out", str(tmp_path / "missing" / "deeper")]) == 2


@pytest.mark.parametrize(
    "out, says",
    [
        ("", "--out must name a directory; got an empty path"),
        ("/proc/self/dpverify-figures", "--out cannot be created"),
    ],
)
def test_out_that_cannot_be_created_is_one_line(out: str, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    if out and not Path("/proc/self").is_dir():
        pytest.skip("no /proc pseudo-filesystem here")
    assert main(["reproduce", "003", f"--out={out}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dpverify: error:") and says in err


def test_a_flagged_row_needs_its_reason() -> None:
    with pytest.raises(AssertionError):
        Row("000/x", "q", "w", "p", "r", "flagged")
    with pytest.raises(AssertionError):
        Row("000/x", "q", "w", "p", "r", "maybe")


def _fake_paper(match: str) -> Paper:
    return Paper(
        "004",
        "004_51400d10fdc85a9b.txt",
        "a test paper",
        ("fake",),
        lambda options: Plan((Task(_fake_rows, (match,)),)),
    )


def _fake_rows(match: str) -> Part:
    return Part((Row(f"004/fake/{match}", "a number", "§1", "1", "2", match, reason="they differ"),))


@pytest.mark.parametrize(("match", "code"), [("no", 1), ("flagged", 0), ("yes", 0)])
def test_exit_code_follows_the_rows(
    match: str, code: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_reproduce, "papers", lambda: (_fake_paper(match),))
    assert main(["reproduce", "fake", "--jobs", "1"]) == code
    out, _ = capsys.readouterr()
    assert ("FAIL" in out) == (code == 1) and f"004/fake/{match}" not in out  # ids are for JSON, not the table
    assert ("NO " in out) == (match == "no")


# --- paper 004 (GTM), checked against values computed here --------------------------------------------


def test_gtm_support_bound_and_smallest_probability() -> None:
    alpha, n = Fraction(1, 3), 5
    bound = (1 + alpha) / ((1 - alpha) * alpha**n)  # §5, computed here
    smallest = min(alpha**n / (1 + alpha), (1 - alpha) * alpha ** (n - 1) / (1 + alpha))
    assert bound == 486 and 1 / smallest == 324
    rows = _rows(gtm.support_rows("1/3", 5))
    assert (
        rows["004/support/alpha=1/3, n=5"].match == "yes"
        and "bound 486" in rows["004/support/alpha=1/3, n=5"].recomputed
    )
    least = rows["004/support-least-T/alpha=1/3, n=5"]
    assert least.match == "yes" and least.recomputed.startswith("324 ")


def test_gtm_theorem_6_2_alpha_prime() -> None:
    alpha, n, T = Fraction(1, 3), 5, 1000
    D = (1 - alpha) / (1 + alpha) * alpha**n
    D_prime = (1 - alpha) / (1 + alpha) * alpha ** (n - 1)
    prime = (D - Fraction(1, T)) / (D_prime + Fraction(1, T))
    assert prime == Fraction(257, 1743)
    row = gtm.theorem_6_2_row("1/3", 5, "1000").rows[0]
    assert row.match == "yes" and "257/1743" in row.recomputed and "9/28" in row.recomputed


def test_gtm_theorem_6_2_is_false_below_the_support_bound() -> None:
    alpha, n, T = Fraction(1, 2), 5, 10
    D = (1 - alpha) / (1 + alpha) * alpha**n
    prime = (D - Fraction(1, T)) / (D * 2 + Fraction(1, T))
    assert prime == Fraction(-43, 58) and 1 / prime < 0  # "ratio <= 1/alpha'" fails for every ratio >= 0
    row = gtm.theorem_6_2_below_support().rows[0]
    assert row.match == "flagged" and "-43/58" in row.recomputed and "T > 1/D" in row.reason


def test_gtm_prose_and_drastic_claims_are_flagged() -> None:
    assert gtm.worst_case_prose().rows[0].match == "flagged"
    row = gtm.not_drastic().rows[0]
    assert row.match == "flagged"
    assert f"{math.log(1743 / 257):.4f}" in row.recomputed  # epsilon' of Theorem 6.2 at T = 1000


def test_gtm_theorem_7_1_smallest_exact_T() -> None:
    row = gtm.theorem_7_1_smallest_T(3, 2).rows[0]
    assert row.match == "yes" and "[12, 24, 36]" in row.recomputed  # (D+1) D^(n-1) = 12, paper's T = 36


# --- paper 001 (CKS20) ------------------------------------------------------------------------------------


def _optimal_delta(k: int, eps0: float, eps: float) -> float:
    """Murtagh–Vadhan / KOV: delta of k-fold eps0-DP at eps, written afresh in floats (log-space)."""
    total = 0.0
    for i in range(k + 1):
        if eps0 * (2 * i - k) > eps:
            log_binomial = math.lgamma(k + 1) - math.lgamma(i + 1) - math.lgamma(k - i + 1)
            total += math.exp(log_binomial + i * eps0 - k * math.log1p(math.exp(eps0))) * -math.expm1(
                eps + (k - 2 * i) * eps0
            )
    return total


def _cdp_delta(rho: float, eps: float) -> float:
    """CKS20 Corollary 13 at the best order, by a float search (as the authors' script does)."""
    best = 1.0
    for step in range(1, 4000):
        a = 1 + step / 50
        best = min(best, math.exp((a - 1) * (a * rho - eps) + a * math.log1p(-1 / a)) / (a - 1))
    return best


def test_cks20_variance_69_percent_more_at_k_100() -> None:
    k, eps, delta = 100, 1.0, 1e-6
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if _optimal_delta(k, middle, eps) <= delta else (low, middle)
    laplace = 2 * math.exp(low) / math.expm1(low) ** 2
    low_s, high_s = 1.0, 10_000.0
    for _ in range(60):
        middle = (low_s + high_s) / 2
        low_s, high_s = (low_s, middle) if _cdp_delta(k / (2 * middle), eps) <= delta else (middle, high_s)
    ratio = laplace / high_s  # the discrete Gaussian's variance is sigma2 to 40 digits here
    assert round(100 * (ratio - 1)) == 69  # the paper's "69% more"
    point = cks20.figure_4_point(100, "1/1000000").data
    found_low, found_high = point.ratio()
    assert abs(float(found_low) - ratio) < 2e-3 and found_low <= found_high
    near_pure = cks20.figure_4_point(100, "1/10^100").data
    row = next(r for r in cks20._figure_4_rows([point], near_pure) if r.id == "001/figure-4/k=100")
    assert row.match == "yes" and "68.9" in row.recomputed


def test_cks20_theorem_7_against_a_float_hockey_stick() -> None:
    sigma2, eps = 1.0, 1.0
    weights = {x: math.exp(-x * x / (2 * sigma2)) for x in range(-60, 61)}
    norm = sum(weights.values())
    delta = sum(max(0.0, weights[x] - math.exp(eps) * weights.get(x - 1, 0.0)) for x in weights) / norm
    row = cks20.theorem_7_row("1", "1", 1).rows[0]
    assert row.match == "yes" and f"{delta * 10:.12f}"[:14] in row.recomputed  # shown as d.ddd...e-1


def test_cks20_theorem_4_rows() -> None:
    row = cks20.theorem_4_row("1", 1, "sigma2 = 1").rows[0]
    assert row.match == "yes" and "rho = D^2/(2 sigma2) = 1/2" in row.paper


def test_cks20_speed_is_a_measurement(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cks20, "SPEED_SECONDS", 0.05)
    (row,) = cks20.sampling_speed()
    assert row.kind == "measured" and "samples/s" in row.recomputed  # the value is a timing: not asserted


# --- paper 000 (Gazeau, Miller, Palamidessi) ----------------------------------------------------------------


def test_gazeau_example_1_1_bits() -> None:
    assert format(66 % 4, "02b") == "10" and (1 + Fraction(1, 32)) * 64 == 66
    rows = _rows(gazeau.example_1_1_rows())
    assert rows["000/example-1.1/last-bits"].match == "yes" and rows["000/figure-1/r2"].match == "yes"


def test_gazeau_example_4_1_ratio_2() -> None:
    b, bits = 1 / math.log(4 / 3), 6
    counts = {}
    for q in (0.0, 1.0):
        hits = 0
        for j in range(1, 1 << bits):  # the inverse CDF at u = j/2^k, written afresh
            u = j / (1 << bits)
            noise = -b * math.copysign(1.0, u - 0.5) * math.log(1 - 2 * abs(u - 0.5)) if u != 0.5 else 0.0
            hits += -6 <= q + noise < -5
        counts[q] = hits
    assert (counts[0.0], counts[1.0]) == (2, 1)  # ratio 2 where the ideal ratio is 4/3
    row = _rows(gazeau.example_4_1_rows())["000/example-4.1/ratio-2"]
    assert row.match == "yes" and "drawn 2 vs 1" in row.recomputed


def test_gazeau_robustness_ratio_is_flagged() -> None:
    L, d = Fraction(1, 4), Fraction(1, 64)
    band = ((L + 2 * d) - (L - 2 * d)) / (L - 2 * d)  # definition (5) for [0, L]
    assert (L + 2 * d) / (L - 2 * d) - band == 1
    rows = _rows(gazeau.section_5_symbolic())
    assert rows["000/section-5/R"].match == "flagged" and "4 delta_t/(L - 2 delta_t)" in rows["000/section-5/R"].reason
    assert rows["000/section-5/dn-max"].match == "yes"


def test_gazeau_theorem_4_5_instance() -> None:
    row = gazeau.theorem_4_5_row("2", "0", "1", 14, "-4", "4", "0.5").rows[0]
    assert row.match == "yes" and "ratio 104/63" in row.recomputed
    assert math.log(104 / 63) < 0.636  # below eps' with R from (5), recomputed in the row as 0.635932


# --- paper 002 (notes) and 003 (type checker) -----------------------------------------------------------


def test_notes_numbers() -> None:
    rows = _rows(notes.large_epsilon_rows())
    assert round(math.exp(10), -3) == 22000 and f"{math.exp(-10):.1e}" == "4.5e-05"
    assert rows["002/e^10"].match == "yes" and rows["002/e^10"].recomputed.startswith(f"{math.exp(10):.7f}"[:10])
    assert rows["002/e^-10"].match == "yes"
    flagged = {row.id for row in notes.definition_rows().rows if row.match == "flagged"}
    assert flagged == {"002/definition-21.1", "002/neighbours-1"}


def test_notes_plot_ratios_are_exact() -> None:
    for label, c in notes.BUDGETS:
        row = notes.neighbour_plot_rows(label, str(c)).rows[0]
        worst = max(c ** (abs(z - 999) - abs(z - 1000)) for z in range(900, 1101))
        assert worst == c and row.match == "yes" and f"max {c}" in row.recomputed


def test_typechecker_flags() -> None:
    rows = _rows(typechecker.composition_rows())
    formula = 2 * 2 * math.sqrt(2 * 1000 * math.log(1e6))
    assert abs(formula - 664.903) < 1e-3
    # 1000 steps of 2-DP randomized response at eps' = formula: delta far above 10^-6
    assert _optimal_delta(1000, 2.0, formula) > 1e-6
    for key in (
        "003/advanced/large-eps",
        "003/advanced/loop-delta",
        "003/advanced/citation",
        "003/advanced/delta-prime-1",
    ):
        assert rows[key].match == "flagged", key
    assert rows["003/advanced/loop-epsilon"].match == "yes"
    laplacian = _rows(typechecker.laplacian_rows())
    assert (
        laplacian["003/laplacian/sensitivity"].match == "flagged"
        and "7/10 > eps = 1/2" in laplacian["003/laplacian/sensitivity"].recomputed
    )


def test_typechecker_gaussian_variance() -> None:
    row = _rows(typechecker.gaussian_rows())["003/gaussian/sigma2"]
    shown = float(row.recomputed.split("= ")[1].split(" ")[0])
    assert row.match == "yes" and abs(shown - 200 * math.log(6.25)) < 1e-9


# --- whole papers: JSON, jobs, figures ----------------------------------------------------------------------


def test_cheap_papers_json_and_jobs_independence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    papers = (*resolve_papers("002"), *resolve_papers("003"))
    one = reproduce(papers, jobs=1, options=Options(measure=False))
    two = reproduce(papers, jobs=2, options=Options(measure=False))
    assert one.rows() == two.rows() and one.rows()
    _check_rows(one.rows())
    target = tmp_path / "out.json"
    assert main(["reproduce", "typechecker", "--jobs", "1", "--json", str(target)]) == 0
    out, _ = capsys.readouterr()
    document = json.loads(target.read_text(encoding="utf-8"))
    _validate(document)
    assert document["summary"]["passed"] and document["papers"][0]["id"] == "003"
    assert "reproduce:" in out and "JSON written to" in out


def test_json_to_stdout_moves_the_table_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "003", "--jobs", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    _validate(json.loads(out))
    assert "Paper 003" in err


def test_progress_is_printed_before_the_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cheap = (*resolve_papers("002"), *resolve_papers("003"))
    monkeypatch.setattr(_reproduce, "papers", lambda: cheap)
    assert main(["reproduce", "all", "--jobs", "1", "--no-timing"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith("computations in this process")
    done = [i for i, line in enumerate(lines) if line.startswith("  paper ") and ": computed (" in line]
    assert [lines[i].split(":")[0].split()[-1] for i in done] == ["002", "003"]
    assert max(done) < lines.index(next(line for line in lines if line.startswith("Paper 002")))
    # on a terminal the same steps move a progress bar on stderr; the lines are for logs and pipes


def test_out_writes_the_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    assert main(["reproduce", "notes", "--jobs", "1", "--out", str(tmp_path / "figures")]) == 0
    written = sorted(p.name for p in (tmp_path / "figures").iterdir())
    for name in ("notes_laplace_eps_ln2", "notes_laplace_eps_ln1_1", "notes_laplace_eps_ln5", "notes_figure_21_1"):
        assert f"{name}.png" in written and f"{name}.csv" in written
    rows = (tmp_path / "figures" / "notes_laplace_eps_ln2.csv").read_text().splitlines()
    assert rows[0] == "series,response,density" and len(rows) == 1 + 2 * 401


@pytest.mark.slow
def test_every_paper(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "all.json"
    assert main(["reproduce", "all", "--jobs", "2", "--json", str(target)]) == 0
    capsys.readouterr()
    document = json.loads(target.read_text(encoding="utf-8"))
    _validate(document)
    by_id = {row["id"]: row for paper in document["papers"] for row in paper["rows"]}
    assert [paper["id"] for paper in document["papers"]] == ["000", "001", "002", "003", "004"]
    for paper in document["papers"]:
        assert paper["rows"], paper["id"]
        for row in paper["rows"]:
            assert row["match"] != "no", row
            assert row["match"] != "flagged" or row["reason"], row
    known = (
        "003/advanced/large-eps",
        "003/advanced/loop-delta",
        "003/laplacian/sensitivity",
        "003/advanced/citation",
        "000/section-5/R",
        "004/thm-6.2/below-support",
    )
    for key in known:
        assert by_id[key]["match"] == "flagged", key
    assert by_id["001/figure-4/k=100"]["match"] == "yes" and by_id["001/speed/sigma2=10^100"]["kind"] == "measured"
    assert document["summary"]["flagged"] >= 20 and document["summary"]["passed"]
