"""Regenerate the documentation's pictures in ``docs/_static/``.

Usage: ``python docs/pictures.py [--only NAME ...] [--out DIR]``, with NAME one of

- ``audit-report``: ``audit-report.png``, the top of the HTML report of ``dpverify audit gtm --alpha 1/3
  --n 5 --T 1000 --seed 1`` (a violated claim), in Debian's chromium (``/usr/bin/chromium``) driven
  headless by Playwright, which never downloads a browser here;
- ``privacy-loss``: ``privacy-loss.png``, the exact privacy loss distribution and ``delta(eps)`` of a
  Theorem 7.1 GTM composed 100 times, computed by ``dpverify.verify.PrivacyLossDistribution``;
- ``ecosystem``: ``ecosystem.png``, the survey in ``docs/ecosystem.json`` as a chart, one row per
  primitive, coloured by verdict;
- ``layers``: ``layers.svg``, the layers of ``pyproject.toml``'s import-linter contract ``layers``, top to
  bottom, each module with the first sentence of its docstring.

Every input is fixed (the audit's seed, the survey file, the contract), so a rerun draws the same
pictures; only the audit banner's date and run time change.  Run it from the test environment
(``pip install -e '.[test]'``: matplotlib and playwright).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import tomllib
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "docs" / "_static"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: The audited case: the README's example, a GTM whose rounding breaks the claimed ratio.
AUDIT_COMMAND = ["audit", "gtm", "--alpha", "1/3", "--n", "5", "--T", "1000", "--out", "audit-gtm", "--seed", "1"]
AUDIT_VIEWPORT = {"width": 1200, "height": 900}

VERDICT_COLOURS = {
    "proved": "#2e7d32",
    "violated": "#c62828",
    "hazard": "#ef6c00",
    "inconclusive": "#757575",
    "not refuted": "#1565c0",
}
#: A library the survey could not run (``"status": "skipped"``).
SKIPPED_COLOUR = "#bdbdbd"


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.family": "DejaVu Sans", "axes.titlesize": 11})
    return plt


def _save_png(figure: Any, path: Path) -> None:
    from PIL import Image

    # No "Software" entry: the file then depends on what is drawn, not on matplotlib's version string.
    figure.savefig(path, dpi=100, metadata={"Software": None})
    # 256 colours are plenty for flat fills and anti-aliased text, at a third of the size.
    with Image.open(path) as image:
        quantized = image.convert("RGB").quantize(colors=256, dither=Image.Dither.NONE)
    quantized.save(path, optimize=True)


# --- audit-report.png ---------------------------------------------------------------------------


def audit_report(out: Path) -> Path:
    """Screenshot the top of ``dpverify audit``'s HTML report, as an auditor opens it."""
    from playwright.sync_api import sync_playwright

    target = out / "audit-report.png"
    with tempfile.TemporaryDirectory() as scratch:
        # Relative --out, so that the report's replay command reads as a user would type it.
        run = subprocess.run(
            [sys.executable, "-m", "dpverify", *AUDIT_COMMAND], cwd=scratch, capture_output=True, text=True
        )
        if run.returncode != 1:  # the case is a violated claim: exit 1 is the expected outcome
            raise RuntimeError(f"dpverify audit exited {run.returncode}, expected 1:\n{run.stdout}{run.stderr}")
        report = Path(scratch) / "audit-gtm" / "report.html"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport=AUDIT_VIEWPORT, device_scale_factor=1)
                page.goto(report.as_uri())
                page.wait_for_load_state("load")
                page.screenshot(path=str(target), full_page=False)
            finally:
                browser.close()
    return target


# --- privacy-loss.png ---------------------------------------------------------------------------

#: Amorim, Gaboardi, Rindisbacher, Theorem 7.1: alpha = 1/D with T = (D + 1) D^n samples the GTM exactly.
GTM_ALPHA, GTM_N, GTM_T, GTM_RUNS = "1/2", 10, 3 * 2**10, 100
TARGET_DELTA = Fraction(1, 10**6)


def privacy_loss_data() -> dict[str, Any]:
    """The exact numbers the privacy-loss picture draws, all from dpverify's own API."""
    from dpverify.specs import GtmSpec
    from dpverify.verify import PrivacyLossDistribution, composed_epsilon, gtm_table

    spec = GtmSpec.create(GTM_ALPHA, GTM_N, GTM_T)
    table = gtm_table(spec)
    worst = composed_epsilon(table, spec.neighbours(), GTM_RUNS, TARGET_DELTA)
    upper, lower = worst.pair
    pld = PrivacyLossDistribution.from_pmfs(table[upper], table[lower]).self_compose(GTM_RUNS)
    if not pld.exact:
        raise RuntimeError("a Theorem 7.1 GTM must take the exact path")
    base = pld.base
    masses = pld.loss_masses()  # {j: exact mass of the loss j ln base}
    top = max(masses)
    # delta(m ln base) is an exact rational at each lattice point of the loss
    lattice = {m: pld.delta_at_log(base**m).value for m in range(0, top + 1)}
    curve = [(Fraction(i, 20), pld.delta(Fraction(i, 20))) for i in range(0, int(20 * top * float_log(base)) + 1)]
    epsilon = pld.epsilon(TARGET_DELTA)
    return {
        "pair": worst.pair,
        "base": base,
        "masses": masses,
        "lattice": lattice,
        "curve": curve,
        "epsilon": epsilon,
        "pure_epsilon": top * float_log(base),
    }


def float_log(x: Fraction) -> float:
    import math

    return math.log(x.numerator) - math.log(x.denominator)


def draw_privacy_loss() -> Any:
    plt = _pyplot()
    data = privacy_loss_data()
    base, masses, epsilon = data["base"], data["masses"], data["epsilon"]
    log_base = float_log(base)
    eps_value = float_log(epsilon.log_argument)  # eps(10^-6) = ln R, R an exact rational
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    figure.suptitle(
        f"The exact privacy loss of the GTM (α = {GTM_ALPHA}, n = {GTM_N}, T = 3·2¹⁰, Theorem 7.1) composed "
        f"{GTM_RUNS} times, neighbours q = {data['pair'][0]}, q′ = {data['pair'][1]}\n"
        f"every mass and every marked δ is an exact rational; ε(10⁻⁶) = ln R with R an exact rational",
        fontsize=11,
    )
    figure.get_layout_engine().set(h_pad=0.1)

    losses = sorted(masses)
    points = [j * log_base for j in losses]
    left.vlines(points, 0, [float(masses[j]) for j in losses], color="#1565c0", lw=1.2)
    left.plot(points, [float(masses[j]) for j in losses], "o", color="#1565c0", ms=2.5, label="exact mass")
    left.set_yscale("log")
    left.set_ylim(bottom=min(float(m) for m in masses.values()) / 10)
    left.axvline(eps_value, color="#c62828", ls="--", lw=1, label=f"ε(10⁻⁶) = {eps_value:.4f}")
    left.set_xlabel(f"privacy loss L = j·ln {base} = ln P(y)/P′(y) (nats)")
    left.set_ylabel("probability of the loss under P")
    left.set_title(f"The privacy loss distribution: {len(masses)} losses j·ln {base}")
    left.legend(loc="upper left", fontsize=9)
    left.grid(alpha=0.3)

    xs = [float(eps) for eps, _ in data["curve"]]
    ys = [float(enc.low) for _, enc in data["curve"]]
    shown = [(x, y) for x, y in zip(xs, ys, strict=True) if y > 0]
    right.plot([x for x, _ in shown], [y for _, y in shown], color="#1565c0", lw=1.5, label="δ(ε)")
    lattice = [(m * log_base, float(v)) for m, v in data["lattice"].items() if v > 0]
    right.plot(
        [x for x, _ in lattice],
        [y for _, y in lattice],
        "o",
        ms=3,
        color="#0d47a1",
        label=f"δ(m·ln {base}): exact rationals",
    )
    right.set_yscale("log")
    right.axhline(float(TARGET_DELTA), color="#757575", ls=":", lw=1, label="δ = 10⁻⁶")
    right.axvline(eps_value, color="#c62828", ls="--", lw=1, label=f"ε(10⁻⁶) = ln R = {eps_value:.4f}")
    right.axvline(
        data["pure_epsilon"],
        color="#ef6c00",
        ls="-.",
        lw=1,
        label=f"{GTM_RUNS}·ln {base} = {data['pure_epsilon']:.2f}: pure ε, where δ = 0",
    )
    right.set_xlabel("ε")
    right.set_ylabel("δ(ε) = E_P[(1 − e^(ε − L))⁺]")
    right.set_title("The tight (ε, δ) curve of the composition")
    right.legend(loc="lower left", fontsize=9)
    right.grid(alpha=0.3)
    return figure


def privacy_loss(out: Path) -> Path:
    """Plot the exact privacy loss of a composed GTM."""
    target = out / "privacy-loss.png"
    figure = draw_privacy_loss()
    _save_png(figure, target)
    _pyplot().close(figure)
    return target


# --- ecosystem.png ------------------------------------------------------------------------------


def ecosystem_rows(document: dict[str, Any]) -> list[dict[str, str]]:
    """One row per audited primitive, and one per library the survey skipped."""
    rows = []
    for library in document["libraries"]:
        name = f"{library['name']} {library['version']}".strip()
        if library["status"] == "skipped":
            rows.append(
                {
                    "library": name,
                    "primitive": f"skipped: {library.get('reason', '')}",
                    "method": "",
                    "verdict": "skipped",
                    "magnitude": "",
                }
            )
            continue
        for row in library["rows"]:
            rows.append(
                {
                    "library": name,
                    "primitive": row["primitive"],
                    "method": row["method"],
                    "verdict": row["verdict"],
                    "magnitude": "" if row["magnitude"].strip() == "-" else row["magnitude"],
                }
            )
    return rows


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def draw_ecosystem(document: dict[str, Any]) -> Any:
    plt = _pyplot()
    from matplotlib.patches import FancyBboxPatch, Patch, Rectangle

    rows = ecosystem_rows(document)
    columns = [  # (header, key, width in inches, characters kept)
        ("library", "library", 1.75, 24),
        ("primitive", "primitive", 5.9, 86),
        ("method", "method", 1.25, 20),
        ("verdict", "verdict", 1.05, 14),
        ("magnitude (exact, or a certified lower bound for a black box)", "magnitude", 8.5, 132),
    ]
    row_h, head_h, foot_h, pad = 0.27, 1.0, 0.55, 0.15
    width = sum(c[2] for c in columns) + 2 * pad
    height = head_h + row_h * (len(rows) + 1) + foot_h
    figure = plt.figure(figsize=(width, height))
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(0, width)
    axes.set_ylim(height, 0)  # inches, top down
    axes.axis("off")

    counts: dict[str, int] = {}
    for row in rows:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    libraries = len(document["libraries"])
    axes.text(
        pad,
        0.32,
        f"The Python DP ecosystem audited by dpverify: {len(rows)} primitives of {libraries} libraries",
        fontsize=14,
        fontweight="bold",
        va="center",
    )
    axes.text(pad, 0.65, f"docs/ecosystem.json, from `{document['command']}`", fontsize=9, color="#424242")
    handles = [
        Patch(color=colour, label=f"{verdict} ({counts.get(verdict, 0)})")
        for verdict, colour in [*VERDICT_COLOURS.items(), ("skipped", SKIPPED_COLOUR)]
        if verdict in counts or verdict in VERDICT_COLOURS
    ]
    figure.legend(
        handles=handles,
        loc="upper right",
        ncol=len(handles),
        fontsize=9,
        frameon=False,
        bbox_to_anchor=(1 - pad / width, 1 - 0.12 / height),
    )

    top = head_h
    x = pad
    for header, _, column_width, _ in columns:
        axes.text(x + 0.05, top + row_h / 2, header, fontsize=9, fontweight="bold", va="center")
        x += column_width
    axes.plot([pad, width - pad], [top + row_h, top + row_h], color="#424242", lw=0.8)

    previous = None
    for index, row in enumerate(rows):
        y = top + row_h * (index + 1)
        colour = VERDICT_COLOURS.get(row["verdict"], SKIPPED_COLOUR)
        if row["library"] != previous and previous is not None:
            axes.plot([pad, width - pad], [y, y], color="#9e9e9e", lw=0.6)
        if index % 2:
            axes.add_patch(Rectangle((pad, y), width - 2 * pad, row_h, color="#f5f5f5", zorder=0, lw=0))
        x = pad
        for _, key, column_width, keep in columns:
            text = row[key] if key != "library" or row["library"] != previous else ""
            if key == "verdict":
                axes.add_patch(
                    FancyBboxPatch(
                        (x + 0.05, y + 0.045),
                        column_width - 0.15,
                        row_h - 0.09,
                        boxstyle="round,pad=0,rounding_size=0.06",
                        color=colour,
                        lw=0,
                    )
                )
                axes.text(
                    x + 0.05 + (column_width - 0.15) / 2,
                    y + row_h / 2,
                    text,
                    fontsize=8.5,
                    color="white",
                    fontweight="bold",
                    ha="center",
                    va="center",
                )
            else:
                weight = "bold" if key == "library" else "normal"
                axes.text(x + 0.05, y + row_h / 2, _shorten(text, keep), fontsize=8.5, va="center", fontweight=weight)
            x += column_width
        previous = row["library"]
    bottom = top + row_h * (len(rows) + 1)
    axes.plot([pad, width - pad], [bottom, bottom], color="#424242", lw=0.8)
    axes.text(
        pad,
        bottom + 0.3,
        "violated: a promise the library documents fails; hazard: a leak in a value it does not document as "
        "private; not refuted: a black box whose tests found no violation, never a proof; inconclusive: "
        "neither (a coarser model's finding, or a law bounded only within U > 10^-6).",
        fontsize=8.5,
        color="#424242",
        va="center",
    )
    return figure


def ecosystem(out: Path, source: Path = ROOT / "docs" / "ecosystem.json") -> Path:
    """Draw the survey table, one row per primitive, coloured by verdict."""
    target = out / "ecosystem.png"
    figure = draw_ecosystem(json.loads(source.read_text(encoding="utf-8")))
    _save_png(figure, target)
    _pyplot().close(figure)
    return target


# --- layers.svg ---------------------------------------------------------------------------------


def contract_layers(pyproject: Path = ROOT / "pyproject.toml") -> list[list[str]]:
    """The modules of each layer of the import-linter contract ``layers``, top first."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract.get("id") == "layers":
            return [[module.strip() for module in layer.split("|")] for layer in contract["layers"]]
    raise LookupError(f"{pyproject} declares no import-linter contract with id 'layers'")


def module_file(module: str) -> Path:
    """The file that holds ``module``'s docstring, found without importing it."""
    path = ROOT / "src" / Path(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def module_summary(module: str) -> tuple[str, str]:
    """The module's path as git tracks it (through the package's links), and its docstring's first sentence."""
    source = module_file(module)
    located = source.resolve()
    shown = located.parent if located.name == "__init__.py" else located
    path = os.path.relpath(shown, ROOT) + ("/" if located.name == "__init__.py" else "")
    docstring = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""
    paragraph = " ".join(docstring.split("\n\n")[0].split()).replace("``", "")
    end = re.search(r"(?<!e\.g)(?<!i\.e)\.(?=\s|$)", paragraph)
    return path, paragraph[: end.end()] if end else paragraph


def layers_svg(layers: Sequence[Sequence[str]], summaries: dict[str, tuple[str, str]]) -> str:
    width, left, right, gap, top = 1040, 150, 20, 14, 78
    char_w = 6.9  # DejaVu Sans at 12 px, on average, with a margin
    mono_w = 7.8  # DejaVu Sans Mono at 13 px
    parts: list[str] = []
    y = top
    for number, layer in enumerate(layers):
        box_w = (width - left - right - gap * (len(layer) - 1)) / len(layer)
        wrapped = {
            m: textwrap.wrap(summaries[m][1], int((box_w - 20) / char_w), max_lines=3, placeholder=" …") for m in layer
        }
        box_h = 48 + 15 * max(len(lines) for lines in wrapped.values())
        parts.append(
            f'<text x="{left - 14}" y="{y + box_h / 2 + 5:.0f}" class="number" text-anchor="end">{number + 1}</text>'
        )
        for index, module in enumerate(layer):
            x = left + index * (box_w + gap)
            path = summaries[module][0]
            name = module if len(module) * mono_w < box_w - 20 else module.removeprefix("dpverify.")
            parts.append(f'<g class="layer" data-module="{escape(module)}" data-layer="{number + 1}">')
            parts.append(f'<rect x="{x:.0f}" y="{y}" width="{box_w:.0f}" height="{box_h}" rx="6"/>')
            parts.append(f'<text x="{x + 10:.0f}" y="{y + 20}" class="module">{escape(name)}</text>')
            parts.append(f'<text x="{x + 10:.0f}" y="{y + 37}" class="path">{escape(path)}</text>')
            for line_number, line in enumerate(wrapped[module]):
                parts.append(f'<text x="{x + 10:.0f}" y="{y + 54 + 15 * line_number}">{escape(line)}</text>')
            parts.append("</g>")
        if len(layer) > 1:
            parts.append(
                f'<text x="{width - right}" y="{y - 4}" class="note" text-anchor="end">'
                "siblings: never import each other</text>"
            )
        y += box_h
        if number + 1 < len(layers):
            middle = left + (width - left - right) / 2
            parts.append(f'<path d="M{middle:.0f} {y + 3} v16 m-5 -6 l5 6 l5 -6" class="arrow"/>')
            y += 24
    arrow_x = 60
    height = y + 46
    header = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif" font-size="12">',
        "<title>dpverify's layers: imports run from the top layer down</title>",
        "<style>"
        "rect{fill:#f3f6fb;stroke:#4a6fa5;stroke-width:1.2}"
        "text{fill:#263238}"
        ".module{font-family:'DejaVu Sans Mono',Menlo,monospace;font-size:13px;font-weight:bold;fill:#0d47a1}"
        ".path{font-family:'DejaVu Sans Mono',Menlo,monospace;font-size:11px;fill:#607d8b}"
        ".note{font-size:11px;font-style:italic;fill:#607d8b}"
        ".number{font-size:14px;font-weight:bold;fill:#90a4ae}"
        ".arrow{fill:none;stroke:#90a4ae;stroke-width:1.5}"
        "</style>",
        '<rect x="0" y="0" width="100%" height="100%" style="fill:#ffffff;stroke:none"/>',
        '<text x="20" y="30" font-size="17" font-weight="bold">dpverify: imports run down the layers</text>',
        '<text x="20" y="52" class="note" style="font-size:12px">generated from the import-linter contract '
        "&quot;layers&quot; in pyproject.toml (lint-imports checks it); a module imports only from its own "
        "layer and the layers below</text>",
        f'<path d="M{arrow_x} {top} V{y - 10} m-7 -10 l7 10 l7 -10" class="arrow" style="stroke-width:2"/>',
        f'<text x="{arrow_x - 8}" y="{(top + y) / 2:.0f}" class="note" text-anchor="middle" '
        f'transform="rotate(-90 {arrow_x - 8} {(top + y) / 2:.0f})">imports</text>',
    ]
    footer = [
        f'<text x="20" y="{y + 28}" class="note">Boxes side by side are one layer\'s siblings. '
        "Each box: the module, its path in the repository, the first sentence of its docstring.</text>",
        "</svg>",
    ]
    return "\n".join([*header, *parts, *footer]) + "\n"


def layers(out: Path, pyproject: Path = ROOT / "pyproject.toml") -> Path:
    """Draw the layers contract as an SVG, top layer first."""
    contract = contract_layers(pyproject)
    summaries = {module: module_summary(module) for layer in contract for module in layer}
    target = out / "layers.svg"
    target.write_text(layers_svg(contract, summaries), encoding="utf-8")
    return target


# --- the command line ---------------------------------------------------------------------------

PICTURES: dict[str, Callable[[Path], Path]] = {
    "audit-report": audit_report,
    "privacy-loss": privacy_loss,
    "ecosystem": ecosystem,
    "layers": layers,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the documentation's pictures.")
    parser.add_argument(
        "--only", action="append", choices=sorted(PICTURES), metavar="NAME", help="draw only NAME (repeatable)"
    )
    parser.add_argument("--out", type=Path, default=STATIC, help="folder to write into (default: docs/_static)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or PICTURES:
        target = PICTURES[name](args.out)
        print(f"{name}: {target} ({target.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
