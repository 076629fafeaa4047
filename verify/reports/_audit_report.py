"""The audit report as HTML (one self-contained file) and Markdown (plots as PNG files beside it).

Both are rendered from one list of blocks (headings, paragraphs, tables, plots) built from the
``dpverify.audit/2`` document, so the two say the same thing.  The HTML has its CSS inline and
its plots as inline SVG: it loads nothing, and opens the same from a mail attachment as from a
CI artefact.  Long exact rationals are shown to 12 significant digits with their exact length
(the JSON beside the report keeps every digit).

The blocks and the builders of sections 1..7 are in :mod:`._audit_blocks`; this module renders
them and writes the files.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from typing import Any

from dpverify.verify.reports._audit import Audit
from dpverify.verify.reports._audit_blocks import (
    SECTIONS,
    Badge,
    Banner,
    Block,
    Cell,
    Figure,
    Heading,
    Para,
    Table,
    _plot_file,
    report_blocks,
)
from dpverify.verify.reports._audit_plots import draw_case, matplotlib_missing
from dpverify.verify.reports._output import write_text

__all__ = ["render_html", "render_markdown", "write_report"]


# --- HTML ------------------------------------------------------------------------------------------

_CSS = """
:root { --fg: #1f2933; --muted: #5f6b7a; --line: #d9dee5; --bg: #ffffff; --band: #f5f7fa;
        --good: #1b7f3b; --bad: #b42318; --warn: #a15c00; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--fg); background: var(--bg); }
main { max-width: 1120px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 40px 0 12px; padding-bottom: 6px; border-bottom: 2px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 8px; color: #334155; }
p { margin: 8px 0; }
.banner { border-radius: 10px; padding: 18px 22px; margin-bottom: 18px; color: #fff; }
.banner.pass { background: linear-gradient(135deg, #1b7f3b, #2f9e57); }
.banner.fail { background: linear-gradient(135deg, #b42318, #d9462f); }
.banner p { margin: 4px 0 0; opacity: .95; }
nav { background: var(--band); border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; margin: 12px 0 4px;
      display: flex; flex-wrap: wrap; gap: 4px 16px; }
nav a { color: #1d4ed8; text-decoration: none; white-space: nowrap; font-size: 14px; }
.table-wrap { overflow-x: auto; margin: 10px 0 14px; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; }
th, td { text-align: left; vertical-align: top; padding: 6px 10px; border-bottom: 1px solid var(--line); }
th { background: var(--band); font-weight: 600; color: #334155; white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fbfcfd; }
th.num { text-align: right; }
td.num { text-align: right; font-variant-numeric: tabular-nums;
         font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 12.5px; }
caption { caption-side: bottom; text-align: left; color: var(--muted); font-size: 12.5px; padding-top: 6px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 600;
         background: #e5e7eb; color: #374151; white-space: nowrap; }
.badge.good { background: #dcfce7; color: var(--good); }
.badge.bad { background: #fee2e2; color: var(--bad); }
.badge.warn { background: #fef3c7; color: var(--warn); }
.na { color: var(--muted); font-style: italic; background: var(--band); border-left: 3px solid var(--line);
      padding: 6px 12px; }
.note { color: var(--muted); font-size: 13px; }
figure { margin: 14px 0 20px; padding: 10px; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
figure svg { width: 100%; max-width: 800px; height: auto; display: block; margin: 0 auto; }
.problem { color: var(--bad); background: #fff5f5; border-left: 3px solid var(--bad); padding: 6px 12px; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 6px; }
figcaption b { color: var(--fg); }
footer { margin-top: 40px; color: var(--muted); font-size: 12.5px; }
"""


def _cell_html(cell: Cell) -> str:
    if isinstance(cell, Badge):
        return f'<span class="badge {cell.tone}">{html.escape(cell.text)}</span>'
    return html.escape(cell)


def render_html(blocks: Sequence[Block], document: dict[str, Any]) -> str:
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>dpverify audit: {html.escape(document['spec']['name'])}</title>",
        f"<style>{_CSS}</style>",
        "</head><body><main>",
    ]
    for block in blocks:
        if isinstance(block, Banner):
            tone = "pass" if block.passed else "fail"
            out.append(
                f'<header class="banner {tone}"><h1>{html.escape(block.title)}</h1>'
                f"<p>{html.escape(block.summary)}</p></header>"
            )
            out.append(
                "<nav>"
                + "".join(f'<a href="#{key}">{html.escape(title)}</a>' for key, title in SECTIONS)
                + '<a href="#checks">All checks</a></nav>'
            )
        elif isinstance(block, Heading):
            out.append(f'<h{block.level} id="{html.escape(block.anchor)}">{html.escape(block.text)}</h{block.level}>')
        elif isinstance(block, Para):
            tone = f' class="{block.tone}"' if block.tone else ""
            out.append(f"<p{tone}>{html.escape(block.text)}</p>")
        elif isinstance(block, Table):
            head = (
                "".join(
                    f'<th class="num">{html.escape(h)}</th>' if i in block.numeric else f"<th>{html.escape(h)}</th>"
                    for i, h in enumerate(block.headers)
                )
                if any(block.headers)
                else ""
            )
            rows = "".join(
                "<tr>"
                + "".join(
                    f'<td class="num">{_cell_html(c)}</td>' if i in block.numeric else f"<td>{_cell_html(c)}</td>"
                    for i, c in enumerate(row)
                )
                + "</tr>"
                for row in block.rows
            )
            caption = f"<caption>{html.escape(block.note)}</caption>" if block.note else ""
            thead = f"<thead><tr>{head}</tr></thead>" if head else ""
            out.append(f'<div class="table-wrap"><table>{caption}{thead}<tbody>{rows}</tbody></table></div>')
        elif isinstance(block, Figure):
            out.append(
                f"<figure>{block.plot.svg}<figcaption><b>{html.escape(block.plot.title)}.</b> "
                f"{html.escape(block.plot.caption)}</figcaption></figure>"
            )
    out.append(
        f"<footer>Generated by dpverify {html.escape(document['trusted_base']['dpverify']['version'])} "
        f"({html.escape(document['schema'])}) on {html.escape(document['created'])}. The exact numbers behind "
        "every table are in report.json.</footer></main></body></html>"
    )
    return "\n".join(out) + "\n"


# --- Markdown -------------------------------------------------------------------------------------


def _cell_md(cell: Cell) -> str:
    text = f"**{cell.text}**" if isinstance(cell, Badge) else cell
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(blocks: Sequence[Block], document: dict[str, Any]) -> str:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Banner):
            out += [
                f"# {block.title}",
                "",
                f"> **{block.summary}**",
                "",
                " · ".join(f"[{title}](#{_md_anchor(title)})" for _, title in SECTIONS),
                "",
            ]
        elif isinstance(block, Heading):
            out += [f"{'#' * block.level} {block.text}", ""]
        elif isinstance(block, Para):
            # a quote, not emphasis: the text holds names with underscores and asterisks
            out += [f"> {block.text}" if block.tone else block.text, ""]
        elif isinstance(block, Table):
            headers = block.headers if any(block.headers) else ("", "")
            out.append("| " + " | ".join(headers) + " |")
            out.append("|" + "|".join("---:" if i in block.numeric else "---" for i in range(len(headers))) + "|")
            out += ["| " + " | ".join(_cell_md(c) for c in row) + " |" for row in block.rows]
            out += (["", f"> {block.note}"] if block.note else []) + [""]
        elif isinstance(block, Figure):
            out += [f"![{block.plot.title}]({block.file})", "", f"*{block.plot.title}.* {block.plot.caption}", ""]
    out.append(
        f"Generated by dpverify {document['trusted_base']['dpverify']['version']} ({document['schema']}) on "
        f"{document['created']}; the exact numbers behind every table are in report.json."
    )
    return "\n".join(out) + "\n"


def _md_anchor(title: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    kept = "".join(c for c in title.lower() if c.isalnum() or c in " -")
    return kept.replace(" ", "-")


# --- writing ---------------------------------------------------------------------------------------


def write_report(audit: Audit, out: str) -> dict[str, str]:
    """Draw the plots and write ``report.html``, ``report.md`` (with ``plots/*.png``) and ``report.json``."""
    import json

    missing = matplotlib_missing()
    failed: list[str] = []
    plots = [draw_case(case.series, f"case{i + 1}", failed) for i, case in enumerate(audit.cases)]
    note = None
    if missing:
        note = f"No plots: {missing}."
    elif failed:
        note = f"Plots left out, they could not be drawn: {'; '.join(failed)}."
    elif not any(plots):
        note = "No plots: no case has a table or intervals to draw."
    blocks = report_blocks(audit, plots, note)
    os.makedirs(os.path.join(out, "plots"), exist_ok=True)
    paths = {
        "html": os.path.join(out, "report.html"),
        "markdown": os.path.join(out, "report.md"),
        "json": os.path.join(out, "report.json"),
    }
    for block in blocks:
        if isinstance(block, Figure):
            try:
                with open(os.path.join(out, block.file), "wb") as handle:
                    handle.write(block.plot.png)
            except OSError as error:
                from dpverify.samplers import DpverifyError

                raise DpverifyError(
                    f"could not write {os.path.join(out, block.file)}: {error.strerror or error}."
                ) from None
    for case in audit.document["cases"]:
        case.pop("index", None)
    audit.document["plots"] = [
        {"case": i + 1, "kind": p.kind, "title": p.title, "file": _plot_file(i, p)}
        for i, case_plots in enumerate(plots)
        for p in case_plots
    ]
    audit.document["plots_note"] = note
    write_text("--out", paths["html"], render_html(blocks, audit.document))
    write_text("--out", paths["markdown"], render_markdown(blocks, audit.document))
    write_text("--out", paths["json"], json.dumps(audit.document, indent=2) + "\n")
    return paths
