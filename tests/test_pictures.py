"""The documentation's pictures: ``docs/pictures.py`` redraws each one from what it shows.

Each picture is regenerated into the test's tmp dir and checked against its source: the layers
drawing against ``pyproject.toml``'s import-linter contract, the survey chart against
``docs/ecosystem.json``, the privacy-loss plot against dpverify's exact PLD.  The screenshot of
the audit report needs Debian's chromium and playwright, and is skipped, saying why, without them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import struct
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def pictures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_pictures", ROOT / "docs" / "pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header, which must be a PNG's."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def texts(figure: Any) -> list[str]:
    from matplotlib.text import Text

    return [artist.get_text() for artist in figure.findobj(Text)]


def test_layers_draws_every_layer_of_the_contract_in_order(pictures: ModuleType, tmp_path: Path) -> None:
    target = pictures.layers(tmp_path)
    assert target.name == "layers.svg" and 2_000 < target.stat().st_size < 200_000
    svg = ET.parse(target).getroot()
    assert svg.tag == f"{SVG}svg"
    boxes = {group.get("data-module"): group for group in svg.iter(f"{SVG}g")}
    contract = pictures.contract_layers()
    assert len(contract) >= 5
    drawn = "\n".join("".join(element.itertext()) for element in svg.iter(f"{SVG}text"))
    tops = []
    for number, layer in enumerate(contract, start=1):
        rows = set()
        for module in layer:
            group = boxes.pop(module)  # every module of the contract is drawn once
            assert group.get("data-layer") == str(number)
            assert module.removeprefix("dpverify.") in drawn
            rect = group.find(f"{SVG}rect")
            assert rect is not None
            rows.add(float(rect.get("y", "nan")))
        assert len(rows) == 1, f"layer {number}'s siblings are not side by side"
        tops.append(rows.pop())
    assert tops == sorted(tops) and len(set(tops)) == len(tops)  # top layer first, one row each
    assert not boxes, f"modules drawn that the contract does not name: {sorted(boxes)}"


def test_layers_follow_the_file_not_a_copy(pictures: ModuleType, tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.importlinter]\nroot_packages = ["dpverify"]\n\n[[tool.importlinter.contracts]]\nid = "layers"\n'
        'name = "two"\ntype = "layers"\nlayers = ["dpverify.specs | dpverify.verify.cli", "dpverify.samplers"]\n',
        encoding="utf-8",
    )
    svg = ET.parse(pictures.layers(tmp_path, pyproject)).getroot()
    layers = {group.get("data-module"): group.get("data-layer") for group in svg.iter(f"{SVG}g")}
    assert layers == {"dpverify.specs": "1", "dpverify.verify.cli": "1", "dpverify.samplers": "2"}
    drawn = " ".join("".join(element.itertext()) for element in svg.iter(f"{SVG}text"))
    assert "verify/cli/" in drawn and "Production samplers" in drawn  # path and docstring, read from the code


def test_ecosystem_chart_has_every_library_and_primitive(pictures: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the charts need matplotlib (the plot extra)")
    from matplotlib.patches import FancyBboxPatch

    document = json.loads((ROOT / "docs" / "ecosystem.json").read_text(encoding="utf-8"))
    figure = pictures.draw_ecosystem(document)
    shown = texts(figure)
    rows = [row for library in document["libraries"] for row in library["rows"]]
    for library in document["libraries"]:
        assert any(text.startswith(library["name"] + " ") for text in shown), library["name"]
    for row in rows:
        assert pictures._shorten(row["primitive"], 86) in shown
    pills = [patch.get_facecolor() for patch in figure.axes[0].patches if isinstance(patch, FancyBboxPatch)]
    from matplotlib.colors import to_rgba

    assert pills == [to_rgba(pictures.VERDICT_COLOURS[row["verdict"]]) for row in rows]

    target = pictures.ecosystem(tmp_path)
    width, height = png_size(target)
    assert width >= 1200 and height >= 20 * len(rows)
    assert target.stat().st_size < 400_000


def test_ecosystem_chart_shows_a_skipped_library(pictures: ModuleType) -> None:
    pytest.importorskip("matplotlib", reason="the charts need matplotlib (the plot extra)")
    document = {
        "command": "dpverify survey --only absent",
        "libraries": [{"name": "absentlib", "version": "", "status": "skipped", "reason": "not installed", "rows": []}],
    }
    shown = texts(pictures.draw_ecosystem(document))
    assert "absentlib" in shown and "skipped: not installed" in shown and "skipped" in shown


def test_privacy_loss_plot_is_drawn_from_the_exact_pld(pictures: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the plots need matplotlib (the plot extra)")
    data = pictures.privacy_loss_data()
    masses = data["masses"]
    assert sum(masses.values()) == 1 and all(isinstance(m, Fraction) and m > 0 for m in masses.values())
    assert len(masses) == pictures.GTM_RUNS + 1  # a Theorem 7.1 GTM: every ratio is 2^(+-1)
    lattice = data["lattice"]
    assert all(isinstance(value, Fraction) for value in lattice.values())
    assert lattice[max(lattice)] == 0 and all(lattice[m] > lattice[m + 1] for m in range(max(lattice)))
    epsilon = data["epsilon"]  # eps(10^-6) = ln R for an exact rational R, enclosed by certified digits
    assert isinstance(epsilon.log_argument, Fraction) and epsilon.high - epsilon.low < Fraction(1, 10**12)
    assert abs(pictures.float_log(epsilon.log_argument) - float(epsilon.low)) < 1e-9

    target = pictures.privacy_loss(tmp_path)
    assert png_size(target) == (1200, 480)
    assert 10_000 < target.stat().st_size < 300_000


def test_only_writes_the_named_picture(
    pictures: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pictures.main(["--only", "layers", "--out", str(tmp_path / "out")]) == 0
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["layers.svg"]
    assert "layers.svg" in capsys.readouterr().out


def test_audit_report_screenshot(pictures: ModuleType, tmp_path: Path) -> None:
    if not os.access(pictures.CHROMIUM, os.X_OK) or shutil.which(pictures.CHROMIUM) is None:
        pytest.skip(f"no browser at {pictures.CHROMIUM}: install Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install 'dpverify[browser]')"
    )
    pytest.importorskip("matplotlib", reason="the report's plots need matplotlib (the plot extra)")
    with sync_api.sync_playwright() as playwright:
        try:
            playwright.chromium.launch(executable_path=pictures.CHROMIUM, args=pictures.CHROMIUM_ARGS).close()
        except sync_api.Error as error:
            pytest.skip(f"chromium does not start under Playwright: {str(error).splitlines()[0]}")
    target = pictures.audit_report(tmp_path)
    assert png_size(target) == (pictures.AUDIT_VIEWPORT["width"], pictures.AUDIT_VIEWPORT["height"])
    assert 20_000 < target.stat().st_size < 300_000
