"""The audit report's plots, drawn with matplotlib (the ``plot`` extra) from a case's series.

Each plot is drawn once and saved twice: as SVG text, inlined in the self-contained HTML report,
and as PNG bytes, written beside the Markdown report.  The series are floats: a plot is a
picture of exact results computed elsewhere, never a verdict.

- ``neighbours``: the worst neighbouring pair's output distributions overlaid, as the lecture
  notes of paper 002 draw the Laplace mechanism on two neighbouring databases (blue for ``q``,
  red for ``q'``);
- ``loss``: the privacy loss ``ln P(x|q)/P(x|q')`` per output, with the claimed bound;
- ``impl``: the code's PMF against the spec's closed form or ideal enclosure, and their difference;
- ``delta``: the hockey-stick ``delta(epsilon)`` of the worst pair, with the claim marked.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["PLOT_KINDS", "Plot", "draw_case", "matplotlib_missing"]

#: The plots a case may have, in the order the report shows them.
PLOT_KINDS = ("impl", "neighbours", "loss", "delta")
BLUE, RED, GREY, GREEN = "#1f5fbf", "#c62828", "#6b7280", "#2e7d32"


@dataclass(frozen=True)
class Plot:
    """One drawn plot: its kind, a caption, inline SVG and PNG bytes."""

    kind: str
    title: str
    caption: str
    svg: str
    png: bytes


def matplotlib_missing() -> str | None:
    """None when matplotlib can draw; else the reason the report gives."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return "the plots need matplotlib, which is not installed: pip install 'dpverify[plot]'"
    return None


def draw_case(series: dict[str, Any], salt: str, failed: list[str] | None = None) -> list[Plot]:
    """Every plot the series allow, in :data:`PLOT_KINDS` order (empty without matplotlib); a plot
    that cannot be drawn is left out and named in ``failed``."""
    if matplotlib_missing():
        return []
    import matplotlib

    drawn: list[Plot] = []
    failed = [] if failed is None else failed
    for kind in PLOT_KINDS:
        data = series.get("pair" if kind == "neighbours" else kind)
        if not data:
            continue
        with matplotlib.rc_context(
            {
                "svg.hashsalt": f"{salt}-{kind}",
                "svg.fonttype": "path",
                "font.size": 9,
                "axes.spines.top": False,
                "axes.spines.right": False,
            }
        ):
            try:
                figure, title, caption = _DRAW[kind](data)
                drawn.append(Plot(kind, title, caption, *_save(figure)))
            except Exception as error:  # noqa: BLE001 - a plot that cannot be drawn must not cost the report
                failed.append(f"{kind}: {type(error).__name__}: {str(error)[:120]}")
    return drawn


def _figure(height: float = 3.2, rows: int = 1) -> Any:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.2, height), dpi=110, layout="constrained")
    return figure, figure.subplots(rows, 1, sharex=True, height_ratios=[3, 1.4] if rows == 2 else None)


def _save(figure: Any) -> tuple[str, bytes]:
    svg, png = io.StringIO(), io.BytesIO()
    figure.savefig(svg, format="svg", metadata={"Date": None})
    figure.savefig(png, format="png", metadata={"Software": None})
    text = svg.getvalue()
    text = text[text.index("<svg") :]  # no XML prolog or doctype inside HTML
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    return text, png.getvalue()


def _ticks(axes: Any, data: dict[str, Any]) -> None:
    if data.get("labels"):
        axes.set_xticks(data["x"], data["labels"])


def _neighbours(data: dict[str, Any]) -> tuple[Any, str, str]:
    figure, axes = _figure()
    q, q2 = data["q"], data["q_prime"]
    axes.plot(data["x"], data["p"], "o-", color=BLUE, markersize=4, linewidth=1.4, label=f"P(x | q={q})")
    axes.plot(data["x"], data["p_prime"], "s--", color=RED, markersize=3.5, linewidth=1.2, label=f"P(x | q'={q2})")
    axes.set_xlabel("output x")
    axes.set_ylabel("probability")
    axes.legend(frameon=False)
    _ticks(axes, data)
    source = "the code's exact PMF" if data["kind"] == "exact" else "midpoints of the code's exact intervals"
    return (
        figure,
        f"Neighbouring inputs q={q} and q'={q2}",
        f"The output distributions of the worst neighbouring pair, overlaid ({source}).",
    )


def _finite(values: Sequence[float | None]) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v)]


def _loss(data: dict[str, Any]) -> tuple[Any, str, str]:
    figure, axes = _figure()
    xs, losses, bound = data["x"], data["loss"], data["bound"]
    finite = _finite(losses)
    span = max([abs(v) for v in finite] + [bound or 0, 0.1])
    top = span * 1.25
    if data.get("low") is not None:
        lows = [max(lo, -top) for lo in data["low"]]
        highs = [min(hi, top) for hi in data["high"]]
        centres = [(lo + hi) / 2 for lo, hi in zip(lows, highs, strict=True)]
        axes.errorbar(
            xs,
            centres,
            yerr=[
                [c - lo for c, lo in zip(centres, lows, strict=True)],
                [hi - c for c, hi in zip(centres, highs, strict=True)],
            ],
            fmt="o",
            color=BLUE,
            markersize=3.5,
            capsize=2,
            label="ln P(x|q)/P(x|q') (certified bounds)",
        )
    else:
        points = [(x, v) for x, v in zip(xs, losses, strict=True) if v is not None and math.isfinite(v)]
        axes.plot(
            [x for x, _ in points],
            [v for _, v in points],
            "o-",
            color=BLUE,
            markersize=4,
            linewidth=1.2,
            label="ln P(x|q)/P(x|q')",
        )
        if bound is not None:  # outputs past the claimed bound, in red
            over = [(x, v) for x, v in points if abs(v) > bound * (1 + 1e-12)]
            if over:
                axes.plot(
                    [x for x, _ in over],
                    [v for _, v in over],
                    "o",
                    color=RED,
                    markersize=7,
                    fillstyle="none",
                    label="beyond the claimed bound",
                )
        for x, v in zip(xs, losses, strict=True):
            if v is not None and math.isinf(v):
                y = top * 0.92 * (1 if v > 0 else -1)
                axes.plot([x], [y], "^" if v > 0 else "v", color=RED, markersize=8)
                axes.annotate("∞" if v > 0 else "-∞", (x, y), textcoords="offset points", xytext=(6, -3), color=RED)
    if bound is not None:
        for sign in (1, -1):
            axes.axhline(
                sign * bound,
                color=RED,
                linestyle="--",
                linewidth=1,
                label=f"claimed ±ε = ±{bound:.6g}" if sign == 1 else None,
            )
    axes.axhline(0, color=GREY, linewidth=0.6)
    axes.set_ylim(-top, top)
    axes.set_xlabel("output x")
    axes.set_ylabel("privacy loss (nats)")
    axes.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, 1.16), ncol=3, fontsize=8)
    _ticks(axes, data)
    claim = f"the claimed bound ±{bound:.6g}" if bound is not None else "no ε bound (the claim is not in ε form)"
    return (
        figure,
        f"Privacy loss per output, q={data['q']} against q'={data['q_prime']}",
        f"ln P(x|q)/P(x|q') for every output of the worst pair, with {claim}; a triangle marks an output "
        "possible under one input only (infinite loss).",
    )


def _impl(data: dict[str, Any]) -> tuple[Any, str, str]:
    figure, (top, bottom) = _figure(4.4, rows=2)
    xs = data["x"]
    where = "" if data["input"] is None else f" at q={data['input']}"
    if data["kind"] == "exact":
        top.plot(xs, data["spec"], "-", color=GREY, linewidth=2.5, alpha=0.6, label="spec's closed form")
        code = data["code"]
        if code is not None:
            top.plot(xs, code, "o", color=BLUE, markersize=4, label="code's exact PMF")
            bottom.bar(xs, [c - s for c, s in zip(code, data["spec"], strict=True)], color=BLUE, width=0.6)
        else:
            bottom.text(0.5, 0.5, "the code's exact PMF is not known", transform=bottom.transAxes, ha="center")
        bottom.set_ylabel("code − spec")
        caption = (
            "The code's exact PMF (from enumeration or bisection of its randomness) on the spec's closed "
            "form; below, their exact difference."
        )
    else:
        low, high, ideal = data["code_low"], data["code_high"], data["spec"]
        top.plot(xs, ideal, "-", color=GREY, linewidth=2.5, alpha=0.6, label="ideal PMF (enclosure midpoint)")
        top.errorbar(
            xs,
            low,
            yerr=[[0] * len(low), [max(0.0, h - lo) for h, lo in zip(high, low, strict=True)]],
            fmt="o",
            color=BLUE,
            markersize=3.5,
            capsize=2,
            label="code's exact interval",
        )
        # max(0, ...): the ideal lies inside each interval, but its float midpoint may round just outside
        bottom.errorbar(
            xs,
            [0] * len(xs),
            yerr=[
                [max(0.0, i - lo) for i, lo in zip(ideal, low, strict=True)],
                [max(0.0, h - i) for h, i in zip(high, ideal, strict=True)],
            ],
            fmt="_",
            color=BLUE,
            capsize=2,
        )
        bottom.axhline(0, color=GREY, linewidth=0.8)
        bottom.set_ylabel("interval − ideal")
        bottom.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
        caption = (
            "The code's exact interval [explored, explored + unexplored] per output around the ideal PMF; "
            "below, each interval relative to the ideal value, which must lie inside it."
        )
    top.set_ylabel("probability")
    top.legend(frameon=False, fontsize=8)
    bottom.set_xlabel("output x")
    _ticks(bottom, data)
    return figure, f"Implementation against the spec{where}", caption


def _delta(data: dict[str, Any]) -> tuple[Any, str, str]:
    figure, axes = _figure(3.0)
    axes.plot(data["epsilon"], data["delta"], "-", color=BLUE, linewidth=1.6, label="δ(ε) of the worst pair")
    if data["claim"] is not None:
        eps, delta = data["claim"]
        axes.plot([eps], [delta], "D", color=RED, markersize=6, label=f"claim (ε={eps:.6g}, δ={delta:.3g})")
        axes.axvline(eps, color=RED, linestyle=":", linewidth=1)
    axes.set_xlabel("ε")
    axes.set_ylabel("δ")
    axes.set_ylim(bottom=0)
    axes.set_xlim(left=0)
    axes.legend(frameon=False, fontsize=8)
    return (
        figure,
        "Hockey-stick δ(ε) of the worst pair",
        f"δ(ε) = max over both orders of Σ_x max(0, P(x|q) − e^ε P(x|q')), from {data['source']}; a claim "
        "holds where the curve is at or below its point.",
    )


_DRAW = {"neighbours": _neighbours, "loss": _loss, "impl": _impl, "delta": _delta}
