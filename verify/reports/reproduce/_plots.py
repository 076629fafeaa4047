"""The figures ``dpverify reproduce --out DIR`` writes: each as a PNG (matplotlib, the ``plot``
extra) and as a CSV of the plotted points, so the curve can be checked without the picture."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence

from dpverify.samplers import DpverifyError
from dpverify.verify.reports.reproduce._rows import Figure

__all__ = ["write_figures"]


def _write_csv(figure: Figure, path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["series", figure.xlabel, figure.ylabel])
        for series in figure.series:
            for x, y in zip(series.x, series.y, strict=True):
                writer.writerow([series.label, repr(x), repr(y)])


def write_figures(figures: Sequence[Figure], directory: str) -> list[str]:
    """Write ``<name>.png`` and ``<name>.csv`` for every figure into ``directory``; return the
    file names written."""
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    written = []
    for figure in figures:
        base = os.path.join(directory, figure.name)
        try:
            _write_csv(figure, base + ".csv")
            fig, axes = plt.subplots(figsize=(6.4, 4.8))
            for series in figure.series:
                axes.plot(series.x, series.y, series.style, label=series.label)
            if figure.log_y:
                axes.set_yscale("log")
            axes.set_title(figure.title, fontsize=9)
            axes.set_xlabel(figure.xlabel)
            axes.set_ylabel(figure.ylabel)
            axes.legend(loc="best")
            fig.tight_layout()
            fig.savefig(base + ".png", dpi=120)
            plt.close(fig)
        except OSError as error:
            raise DpverifyError(
                f"could not write the figure {figure.name!r} to --out={directory!r}: {error.strerror or error}."
            ) from None
        written += [figure.name + ".png", figure.name + ".csv"]
    return written
