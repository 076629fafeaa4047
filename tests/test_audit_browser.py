"""The audit report in a real browser: Debian's chromium, driven headless by Playwright.

The report is opened from a ``file://`` URL, as an auditor opens it; the test takes a
screenshot (kept in the test's tmp dir), and checks that every plot rendered (an ``<img>`` has
``naturalWidth > 0``, an inline ``<svg>`` a non-empty bounding box), that every table is there
with rows, and that the console shows no error.  Playwright never downloads a browser here: it
drives ``/usr/bin/chromium`` (``apt-get install chromium``), and the test is skipped, saying
why, when that or the ``playwright`` package (the ``browser`` extra) is missing.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest

from dpverify.verify.cli import main

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("matplotlib", reason="the plots need matplotlib (the plot extra)")
    out = tmp_path_factory.mktemp("audit") / "report"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(
            [
                "audit",
                "gtm",
                "--alpha",
                "1/3",
                "--n",
                "5",
                "--T",
                "1000",
                "--out",
                str(out),
                "--seed",
                "1",
                "--samples",
                "2000",
            ]
        )
    assert code == 1  # a violated instance: every section has something to show
    return out


@pytest.fixture(scope="module")
def browser() -> object:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no browser at {CHROMIUM}: install Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install 'dpverify[browser]')"
    )
    with sync_api.sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except sync_api.Error as error:
            pytest.skip(f"chromium at {CHROMIUM} does not start under Playwright: {str(error).splitlines()[0]}")
        try:
            yield chromium
        finally:
            chromium.close()


def test_the_report_renders_in_chromium(report: Path, browser: object, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1200, "height": 900})  # type: ignore[attr-defined]
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "request",
        lambda request: (
            problems.append(f"request {request.url}")
            if not request.url.startswith(("file:", "data:", "about:"))
            else None
        ),
    )
    page.goto((report / "report.html").resolve().as_uri())
    page.wait_for_load_state("load")
    screenshot = tmp_path / "report.png"
    page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.stat().st_size > 10_000

    document = json.loads((report / "report.json").read_text(encoding="utf-8"))
    plots = page.evaluate("""() => ({
        images: [...document.images].map(i => ({w: i.naturalWidth, h: i.naturalHeight})),
        svgs: [...document.querySelectorAll('figure svg')].map(s => {
            const r = s.getBoundingClientRect(); return {w: r.width, h: r.height}; }),
    })""")
    assert len(plots["svgs"]) + len(plots["images"]) == len(document["plots"]) == 4
    for image in plots["images"]:
        assert image["w"] > 0 and image["h"] > 0
    for svg in plots["svgs"]:
        assert svg["w"] > 100 and svg["h"] > 50

    tables = page.evaluate("""() => [...document.querySelectorAll('table')].map(t => ({
        rows: t.querySelectorAll('tbody tr').length,
        cells: [...t.querySelectorAll('tbody td')].filter(c => c.textContent.trim()).length,
        visible: t.getBoundingClientRect().height > 0,
    }))""")
    assert len(tables) >= 10
    for table in tables:
        assert table["rows"] > 0 and table["cells"] > 0 and table["visible"]

    headings = page.evaluate("() => [...document.querySelectorAll('h2')].map(h => h.textContent)")
    assert [h.split(".")[0] for h in headings[:7]] == [str(i) for i in range(1, 8)]
    banner = page.inner_text("header.banner")
    assert banner.startswith("dpverify audit: gtm") and "FAIL" in banner
    # nothing wider than the window: the tables scroll inside their own boxes
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1200
    assert problems == []
