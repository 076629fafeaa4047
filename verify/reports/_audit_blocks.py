"""The audit report's content as blocks (headings, paragraphs, tables, plots, the banner) built from
the ``dpverify.audit/2`` document, section by section (1..7 and all checks): what the report says,
apart from the HTML and Markdown that render it the same way in :mod:`._audit_report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpverify.verify.engine._text import short_rational
from dpverify.verify.reports._audit import Audit
from dpverify.verify.reports._audit_plots import Plot

__all__ = ["SECTIONS", "Badge", "Banner", "Block", "Cell", "Figure", "Heading", "Para", "Table", "report_blocks"]

SECTIONS = (
    ("base", "1. What was checked, and with what"),
    ("pmfs", "2. Exact PMFs"),
    ("privacy", "3. Privacy: the implementation, the ideal mechanism, the paper"),
    ("proofs", "4. Z3 verdicts and certificates"),
    ("statistics", "5. Statistical cross-checks"),
    ("timing", "6. Timing channel"),
    ("mutation", "7. Mutation score"),
)


# --- blocks --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Badge:
    """A verdict shown as a coloured label."""

    text: str
    fixed_tone: str | None = None

    @property
    def tone(self) -> str:
        if self.fixed_tone:
            return self.fixed_tone
        return {
            "proved": "good",
            "met": "good",
            "yes": "good",
            "holds": "good",
            "pass": "good",
            "killed": "good",
            "violated": "bad",
            "FAIL": "bad",
            "no": "bad",
            "fails": "bad",
            "survived": "bad",
            "error": "bad",
            "stale": "bad",
            "inconclusive": "warn",
            "not met": "bad",
        }.get(self.text, "neutral")


Cell = str | Badge


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str


@dataclass(frozen=True)
class Para:
    text: str
    tone: str = ""  # "", "na" (not applicable), "note"


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    note: str = ""
    numeric: tuple[int, ...] = ()  # right-aligned columns


@dataclass(frozen=True)
class Figure:
    plot: Plot
    file: str  # the PNG's path relative to the report


@dataclass(frozen=True)
class Banner:
    passed: bool
    title: str
    summary: str


Block = Heading | Para | Table | Figure | Banner


def _r(value: str | None, digits: int = 40) -> str:
    """An exact ``num/den`` for the eye (12 significant digits past ``digits`` characters)."""
    if value is None:
        return "—"
    try:
        return short_rational(Fraction(value), digits)
    except (ValueError, ZeroDivisionError):
        return str(value)


def _f(value: Any, digits: int = 6) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    return f"{value:.{digits}g}"


def _yes(flag: bool | None) -> Cell:
    return "—" if flag is None else Badge("yes" if flag else "no")


def _verdict(text: str | None) -> Cell:
    return "—" if text is None else Badge(text)


def _verdict_of(row: dict[str, Any]) -> Cell:
    """A check's verdict badge: ``proved within U = ...`` for a proof within a tolerance, never bare."""
    if row.get("within_decimal") is not None:
        return Badge(f"{row['verdict']} within U = {row['within_decimal']}", "good")
    return _verdict(row.get("verdict"))


def _na(blocks: list[Block], section: dict[str, Any]) -> bool:
    if section.get("applicable"):
        return False
    blocks.append(Para(f"Not applicable: {section.get('reason') or 'no reason given'}.", "na"))
    return True


def _case_heading(case: dict[str, Any], section: str, many: bool) -> list[Block]:
    if not many:
        return []
    return [Heading(3, f"Case {case['label']}", f"{section}-{case['index']}")]


def report_blocks(audit: Audit, plots: Sequence[Sequence[Plot]], plot_note: str | None) -> list[Block]:
    """The whole report, in order, as blocks."""
    doc = audit.document
    cases = doc["cases"]
    for index, case in enumerate(cases):
        case["index"] = index + 1
    many = len(cases) > 1
    spec = doc["spec"]
    blocks: list[Block] = [Banner(doc["verdict"]["passed"], f"dpverify audit: {spec['name']}", _headline(doc))]
    blocks.append(
        Table(
            ("case", "parameters", "claim", "expected", "outcome", "met", "tightest privacy of the code"),
            tuple(_summary_row(c) for c in cases),
        )
    )
    blocks.append(
        Para(
            f"Exit code {doc['verdict']['exit_code']}: 0 every expectation met, 1 a claim violated or a "
            "check not met, 2 a broken spec. Replay: " + (doc["command"] or "—"),
            "note",
        )
    )
    blocks += _section_base(doc)
    figures = {i: {p.kind: p for p in case_plots} for i, case_plots in enumerate(plots)}
    blocks.append(Heading(2, SECTIONS[1][1], "pmfs"))
    if plot_note:
        blocks.append(Para(plot_note, "note"))
    for i, case in enumerate(cases):
        blocks += _case_heading(case, "pmfs", many) + _section_pmfs(case, figures[i].get("impl"), i)
    blocks.append(Heading(2, SECTIONS[2][1], "privacy"))
    for i, case in enumerate(cases):
        blocks += _case_heading(case, "privacy", many) + _section_privacy(case, figures[i], i)
    blocks.append(Heading(2, SECTIONS[3][1], "proofs"))
    for case in cases:
        blocks += _case_heading(case, "proofs", many) + _section_proofs(case)
    blocks += _section_certificates(doc["certificates"])
    blocks.append(Heading(2, SECTIONS[4][1], "statistics"))
    for case in cases:
        blocks += _case_heading(case, "statistics", many) + _section_statistics(case)
    blocks.append(Heading(2, SECTIONS[5][1], "timing"))
    for case in cases:
        blocks += _case_heading(case, "timing", many) + _section_timing(case)
    blocks += _section_mutation(doc["mutation"])
    blocks.append(Heading(2, "All checks", "checks"))
    for case in cases:
        blocks += _case_heading(case, "checks", many) + _section_checks(case)
    return blocks


def _headline(doc: dict[str, Any]) -> str:
    verdict = doc["verdict"]
    state = "PASS" if verdict["passed"] else ("BROKEN SPEC" if verdict["exit_code"] == 2 else "FAIL")
    return f"{state}: {verdict['summary']} ({doc['spec']['origin']}; {doc['created']}, {doc['seconds']} s)"


def _tightest(case: dict[str, Any]) -> str:
    privacy = case.get("privacy") or {}
    if not privacy.get("applicable"):
        return "—"
    code = privacy.get("code")
    if privacy.get("kind") == "exact" and code:
        if code["infinite"]:
            return "infinite loss (alpha = 0)"
        return f"alpha = {_r(code['alpha'], 24)} (ε = {_f(code['epsilon'])})"
    if privacy.get("kind") == "intervals" and code and code.get("epsilon_high") is not None:
        implied = code.get("implied")
        dp = (
            ""
            if not implied
            else (
                f"; the code is (ε ≤ {implied['epsilon_upper']}, "
                f"δ ≤ {implied['delta_upper_decimal']})-DP, from intervals"
            )
        )
        return f"ε in [{_f(code['epsilon_low'])}, {_f(code['epsilon_high'])}] over the listed outputs{dp}"
    return "—"


def _summary_row(case: dict[str, Any]) -> tuple[Cell, ...]:
    parameters = ", ".join(f"{k}={_r(v, 24)}" for k, v in case["parameters"].items())
    claim = case["claim"]["text"] if isinstance(case.get("claim"), dict) else str(case.get("claim") or "—")
    return (
        case["label"],
        parameters,
        claim or "—",
        case["expect"],
        _verdict(case["outcome"]),
        Badge("met" if case["met"] else "not met"),
        _tightest(case),
    )


# --- 1 -----------------------------------------------------------------------------------------


def _section_base(doc: dict[str, Any]) -> list[Block]:
    base, spec, options = doc["trusted_base"], doc["spec"], doc["options"]
    git = base["dpverify"]["git"]
    commit = (
        "not a git checkout"
        if git is None
        else git["commit"] + (" (with uncommitted changes)" if git["modified"] else "")
    )
    blocks: list[Block] = [Heading(2, SECTIONS[0][1], "base"), Heading(3, "The spec", "base-spec")]
    rows: list[tuple[Cell, ...]] = [
        ("name", spec["name"]),
        ("origin", spec["origin"]),
        ("description", spec["description"] or "—"),
        ("citation", spec["citation"] or "—"),
        ("sampler", spec["sampler"] or "none (modelled in its checks)"),
        ("modules the sampler runs in", ", ".join(spec["sampler_modules"]) or "—"),
        (
            "input and neighbours",
            "none: a noise sampler, q + noise with |q − q'| ≤ sensitivity"
            if spec["input"] is None
            else f"{spec['input']['name']}, neighbours: {spec['input']['neighbours']}",
        ),
        ("randomness", spec["randomness"]),
        ("enumeration", spec["enumeration"]),
        ("timing channel asked", "yes" if spec["timing"] else "no"),
    ]
    blocks.append(Table(("", ""), tuple(rows)))
    blocks.append(
        Table(
            ("parameter", "domain", *(c["label"] for c in doc["cases"][:4])),
            tuple(
                (name, domain, *(_r(c["parameters"].get(name), 24) for c in doc["cases"][:4]))
                for name, domain in spec["parameters"].items()
            ),
            note="" if len(doc["cases"]) <= 4 else f"the first 4 of {len(doc['cases'])} cases' values",
        )
    )
    blocks.append(Heading(3, "The trusted base", "base-trusted"))
    rows = [
        (source["name"], f"{source['role']}: {source['source']}; {source['description']}")
        for source in base["randomness"]
    ]
    rows += [
        ("Python", f"{base['python']['implementation']} {base['python']['version']}"),
        ("platform", base["platform"]),
        ("dpverify", f"{base['dpverify']['version']} at {base['dpverify']['location']}"),
        ("git commit", commit),
    ]
    rows += [(name, version or "not installed") for name, version in base["packages"].items()]
    rows += [
        (
            "options",
            f"seed {options['seed']}, {options['samples']} samples per statistical check, time limit "
            f"{options['time_limit']} s per case"
            + (f", mutants from {options['mutants']}" if options["mutants"] else ""),
        )
    ]
    blocks.append(Table(("", ""), tuple(rows)))
    return blocks


# --- 2 -----------------------------------------------------------------------------------------


def _section_pmfs(case: dict[str, Any], plot: Plot | None, index: int) -> list[Block]:
    section = case["pmfs"]
    blocks: list[Block] = []
    if _na(blocks, section):
        return blocks
    blocks.append(Para(f"Code: {section['source']}. Spec: {section['closed_form']}."))
    if section.get("truncated"):
        blocks.append(Para(f"Truncated: {section['truncated']}.", "note"))
    if section["kind"] == "exact":
        blocks.append(_exact_matrix(section))
    for table in section["tables"] if section["kind"] == "intervals" else ():
        title = "" if table["input"] is None else f"input q = {table['input']}: "
        rows = tuple(
            (
                str(r["output"]),
                _f(r["code_low_decimal"]),
                _f(r["code_high_decimal"]),
                _f(r["ideal_low_decimal"]),
                _f(r["ideal_high_decimal"]),
                _yes(r["inside"]),
            )
            for r in table["rows"]
        )
        tv = "" if table.get("tv_bound") is None else f"; total variation ≤ {table['tv_bound']} over all outputs"
        note = (
            f"{title}{table['outputs_shown']} of the {table['outputs_total']} outputs the interval check lists; "
            f"unexplored mass U = {table['unexplored']}, so |P_code − P_ideal| ≤ U at each listed output{tv}"
        )
        blocks.append(
            Table(
                ("output", "code ≥", "code ≤", "ideal ≥", "ideal ≤", "ideal inside"), rows, note, numeric=(1, 2, 3, 4)
            )
        )
    if plot is not None:
        blocks.append(Figure(plot, _plot_file(index, plot)))
    return blocks


def _exact_matrix(section: dict[str, Any]) -> Table:
    """Outputs down, inputs across: the code's exact P(x|q), flagged where it differs from the spec."""
    tables = section["tables"]
    outputs: dict[str, None] = {}
    for table in tables:
        outputs.update((str(r["output"]), None) for r in table["rows"])
    cells = {(str(t["input"]), str(r["output"])): r for t in tables for r in t["rows"]}
    known = all(r["code"] is not None for t in tables for r in t["rows"])
    differs = sum(r["equal"] is False for t in tables for r in t["rows"])
    rows = []
    for output in outputs:
        row: list[Cell] = [output]
        for table in tables:
            entry = cells.get((str(table["input"]), output))
            if entry is None:
                row.append("not shown")
            elif entry["code"] is None:
                row.append(_r(entry["spec"]))
            elif entry["equal"]:
                row.append(_r(entry["code"]))
            else:
                row.append(Badge(f"{_r(entry['code'])} (spec {_r(entry['spec'])})", "bad"))
        rows.append(tuple(row))
    if not known:
        what = "the spec's closed form P(x|q); the code's own exact PMF is not known (see above)"
    elif differs:
        what = (
            f"the code's exact P(x|q); {differs} entr{'y differs' if differs == 1 else 'ies differ'} "
            "from the spec (marked)"
        )
    else:
        what = "the code's exact P(x|q), equal to the spec's closed form at every entry"
    hidden = [f"q={t['input']}: {_r(t['mass_not_shown'])}" for t in tables if t["outputs_shown"] < t["outputs_total"]]
    note = what + ("" if not hidden else "; mass of the outputs not shown: " + ", ".join(hidden))
    headers = ("output x", *("P(x)" if t["input"] is None else f"q = {t['input']}" for t in tables))
    return Table(headers, tuple(rows), note, numeric=tuple(range(1, len(headers))))


def _plot_file(index: int, plot: Plot) -> str:
    return f"plots/case{index + 1}-{plot.kind}.png"


# --- 3 -----------------------------------------------------------------------------------------


def _section_privacy(case: dict[str, Any], plots: dict[str, Plot], index: int) -> list[Block]:
    section = case["privacy"]
    blocks: list[Block] = []
    claim = case["claim"]["text"] if isinstance(case.get("claim"), dict) else None
    if _na(blocks, section):
        blocks += _declared(section.get("declared_checks") or [])
        return blocks
    blocks.append(Para(f"The claim: {claim}. Neighbouring pairs checked: {section['neighbours']}."))
    rows: list[tuple[Cell, ...]] = []
    claimed = section.get("claim") or {}
    if section["kind"] == "exact":
        if claimed.get("kind") == "pure":
            alpha = claimed.get("alpha")
            rows.append(
                (
                    "the claim",
                    _r(alpha) if alpha else f"e^-{claimed.get('epsilon')}",
                    _f(claimed.get("epsilon_decimal"), 9),
                    "—",
                )
            )
        for name, loss in (
            ("the code (exact PMF)", section["code"]),
            ("the spec's closed form", section["closed_form"]),
        ):
            if loss is None:
                rows.append((name, "unknown", "—", "—"))
                continue
            w = loss["witness"]
            witness = (
                "—"
                if w is None
                else (f"q={w['q']}, q'={w['q_prime']}, x={w['output']}: P={_r(w['p'], 24)}, P'={_r(w['p_prime'], 24)}")
            )
            rows.append((name, _r(loss["alpha"]), "∞" if loss["infinite"] else _f(loss["epsilon"], 9), witness))
        blocks.append(Table(("", "tightest alpha = min P(x|q)/P(x|q')", "ε = −ln alpha", "witness"), tuple(rows)))
    else:
        if claimed.get("kind") in ("pure", "approx"):
            rows.append(("the claim", "—", _f(claimed.get("epsilon_decimal"), 9), claimed.get("text") or "—"))
        for name, loss in (
            ("the code (exact intervals)", section["code"]),
            ("the ideal PMF (enclosures)", section["ideal"]),
        ):
            if loss is None:
                continue
            at = loss.get("at")
            rows.append(
                (
                    name,
                    _f(loss["epsilon_low"], 9),
                    _f(loss["epsilon_high"], 9),
                    "—" if at is None else f"q={at['q']}, q'={at['q_prime']}, x={at['output']}",
                )
            )
        blocks.append(
            Table(
                ("", "largest |privacy loss| ≥", "largest |privacy loss| ≤", "where"),
                tuple(rows),
                note="certified bounds over the outputs the interval check lists only: not an exact loss, "
                "and no proof of pure DP (the tails and the unexplored mass are not in this table)",
            )
        )
        implied = (section["code"] or {}).get("implied")
        if implied:
            blocks.append(Para(f"What the intervals establish: {implied['statement']}."))
    if section.get("paper"):
        blocks.append(
            Table(
                ("the paper", "value", "meaning", "the code meets it", "source"),
                tuple(
                    (
                        r["name"],
                        _r(r["value"]) if r["value"] not in ("yes", "no") else r["value"],
                        r["meaning"],
                        _yes(r["holds"]),
                        r["source"],
                    )
                    for r in section["paper"]
                ),
            )
        )
    if section.get("verdicts"):
        blocks.append(
            Table(
                ("check", "verdict", "summary"),
                tuple((v["check"], _verdict_of(v), v["summary"]) for v in section["verdicts"]),
            )
        )
    blocks += _declared(section.get("declared_checks") or [])
    for kind in ("neighbours", "loss", "delta"):
        if kind in plots:
            blocks.append(Figure(plots[kind], _plot_file(index, plots[kind])))
    return blocks


def _declared(checks: Sequence[dict[str, Any]]) -> list[Block]:
    if not checks:
        return []
    return [
        Table(
            ("declared check of the claim", "verdict", "summary"),
            tuple((c["check"], _verdict_of(c), c["summary"]) for c in checks),
        )
    ]


# --- 4 to 7 ---------------------------------------------------------------------------------------


def _section_proofs(case: dict[str, Any]) -> list[Block]:
    section = case["proofs"]
    blocks: list[Block] = []
    if _na(blocks, section):
        return blocks
    blocks.append(
        Table(
            ("check", "verdict", "solver", "summary"),
            tuple((c["check"], _verdict_of(c), c["solver"] or "—", c["summary"]) for c in section["checks"]),
        )
    )
    return blocks


def _section_certificates(section: dict[str, Any]) -> list[Block]:
    blocks: list[Block] = [Heading(3, "Certificates (proofs/manifest.json)", "certificates")]
    if _na(blocks, section):
        return blocks
    stale = section["stale_check"]
    blocks.append(
        Para(
            f"Certificates covering a function this spec's code or closed form runs. Stale-proof check of "
            f"the manifest: {stale['verdict']} ({stale['summary']}). Solvers recorded: "
            + ", ".join(f"{k} {v}" for k, v in section["solvers"].items())
            + "."
        )
    )
    rows = tuple(
        (
            c["name"] + (" (these parameters)" if c["this_case"] else ""),
            c["kind"],
            _verdict(c["verdict"]),
            c["expect"],
            Badge("stale") if c["stale"] else "up to date",
            c["statement"],
            c["source"],
        )
        for c in section["certificates"]
    )
    note = (
        ""
        if not section.get("other_instances")
        else (f"{section['other_instances']} instance certificate(s) of this spec's other parameter sets are not shown")
    )
    blocks.append(Table(("certificate", "kind", "verdict", "expected", "staleness", "statement", "source"), rows, note))
    blocks += [Para(f"Inconclusive: {untraced}.") for untraced in section.get("untraced", ())]
    return blocks


def _section_statistics(case: dict[str, Any]) -> list[Block]:
    section = case["statistics"]
    blocks: list[Block] = []
    if _na(blocks, section):
        return blocks
    blocks.append(Para(section["method"] + "."))
    replay = section.get("replay")
    rows = tuple(
        (
            c["check"],
            "—" if c["input"] is None else str(c["input"]),
            str(c["seed"]),
            str(c["samples"]),
            _r(c["false_positive_rate"]),
            _f(c["detectable_distance"], 4),
            _f(c["sup_distance"], 4),
            _verdict(c["verdict"]),
        )
        for c in section["checks"]
    )
    blocks.append(
        Table(
            (
                "check",
                "input",
                "seed",
                "samples N",
                "false-positive bound β",
                "power: detects CDF distance >",
                "observed distance",
                "verdict",
            ),
            rows,
            numeric=(2, 3, 5, 6),
        )
    )
    if replay:
        blocks.append(Para(f"Replay the same draws: {replay}", "note"))
    return blocks


def _section_timing(case: dict[str, Any]) -> list[Block]:
    section = case["timing"]
    blocks: list[Block] = []
    if _na(blocks, section):
        return blocks
    draws = section.get("draws_range")
    rows: list[tuple[Cell, ...]] = [
        ("verdict", _verdict(section["verdict"])),
        ("the property", section.get("claim") or "—"),
        ("summary", section["summary"]),
        ("information the draw count gives about the output", f"≥ {section.get('information_lower_bits')} bits"),
        ("draws per run", "—" if not draws else f"{draws[0]} to {draws[1]}"),
        ("unexplored mass", section.get("unexplored_decimal") or "—"),
        ("note", section["note"]),
    ]
    witness = section.get("witness")
    if witness:
        rows.append(("witness", witness.get("reads") or str(witness)))
    blocks.append(Table(("", ""), tuple(rows)))
    return blocks


def _section_mutation(section: dict[str, Any]) -> list[Block]:
    blocks: list[Block] = [Heading(2, SECTIONS[6][1], "mutation")]
    if _na(blocks, section):
        return blocks
    blocks.append(
        Para(
            f"From {section['file']} (gate: {(section.get('gate') or {}).get('command', '—')}). "
            "The score is killed / (mutants − equivalent)."
        )
    )
    blocks.append(
        Table(
            ("module", "mutants", "killed", "equivalent", "survived", "score"),
            tuple(
                (
                    m["module"],
                    str(m.get("mutants")),
                    str(m.get("killed")),
                    str(m.get("equivalent")),
                    str(m.get("survived")),
                    m["score"] or "—",
                )
                for m in section["modules"]
            ),
            numeric=(1, 2, 3, 4),
        )
    )
    if section["mutants"]:
        blocks.append(
            Table(
                ("mutant not killed", "status", "change", "detail"),
                tuple(
                    (m["id"], Badge(str(m["status"])), m["description"], m.get("detail") or "—")
                    for m in section["mutants"]
                ),
            )
        )
    return blocks


def _section_checks(case: dict[str, Any]) -> list[Block]:
    if case.get("error"):
        return [Para(f"Broken spec: {case['error']}", "na")]
    blocks: list[Block] = []
    if case.get("why"):
        blocks.append(Para(case["why"]))
    blocks.append(
        Table(
            ("check", "verdict", "summary"), tuple((c["check"], _verdict_of(c), c["summary"]) for c in case["checks"])
        )
    )
    for problem in case["problems"]:
        blocks.append(Para(f"Problem: {problem}", "problem"))
    return blocks
