"""The standalone reproductions in ``docs/findings/``: each runs, imports no dpverify, and still
shows its finding of ``docs/findings.md``.  A script whose library is not installed is skipped."""

from __future__ import annotations

import ast
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

FINDINGS = Path(__file__).resolve().parents[1] / "docs" / "findings"
SCRIPTS = {
    "pydp_gaussian_double.py": "pydp",
    "pipelinedp_gaussian_count.py": "pipeline_dp",
    "numpy_laplace_float.py": "numpy",
    "opacus_generate_noise.py": "opacus",
    "diffprivlib_geometric.py": "diffprivlib",
    "diffprivlib_geometric_truncated.py": "diffprivlib",
    "autodp_afa.py": "autodp",
}
CERTIFIED = re.compile(r"^certified delta >= (\S+) at epsilon = (\S+) \(claimed delta = (\S+)\)$")


def _run(script: str, *args: str) -> list[str]:
    pytest.importorskip("scipy")
    pytest.importorskip(SCRIPTS[script])
    done = subprocess.run(
        [sys.executable, str(FINDINGS / script), *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr
    return lines


def _certified(line: str) -> tuple[float, float, float]:
    match = CERTIFIED.match(line)
    assert match, line
    delta, epsilon, claimed = (float(g) for g in match.groups())
    return delta, epsilon, claimed


def test_the_scripts_are_all_there_and_import_no_dpverify() -> None:
    assert sorted(p.name for p in FINDINGS.glob("*.py")) == sorted(SCRIPTS)
    for path in FINDINGS.glob("*.py"):
        modules: list[str] = []
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                modules += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules.append("." * node.level + (node.module or ""))
        assert not [m for m in modules if m.split(".")[0] in ("dpverify", "")], (path.name, modules)
        assert len(path.read_text().splitlines()) < 80, path.name


@pytest.mark.parametrize("script", ["pydp_gaussian_double.py", "pipelinedp_gaussian_count.py"])
def test_pydp_double_gaussian_leaks(script: str) -> None:
    # OS entropy, not seeded: at 8,000 draws per input P(E | 0) is about 2.6%, far above the bound's need
    delta, epsilon, claimed = _certified(_run(script, "--draws", "8000")[-1])
    assert (epsilon, claimed) == (1.0, 1e-5)
    assert delta > claimed


@pytest.mark.parametrize("secure", [[], ["--secure-mode"]])
def test_opacus_float32_noise_leaks(secure: list[str]) -> None:
    pytest.importorskip("torch")
    delta, epsilon, claimed = _certified(_run("opacus_generate_noise.py", "--draws", "4000", *secure)[-1])
    assert epsilon == 3.0
    assert math.isclose(claimed, math.exp(-((3 - 0.5) ** 2) / 2), rel_tol=1e-3)
    assert delta > claimed


def test_numpy_float_laplace_leaks() -> None:
    delta, epsilon, claimed = _certified(_run("numpy_laplace_float.py", "--draws", "4000", "--seed", "1")[-1])
    assert (epsilon, claimed) == (0.1, 0.0)
    assert delta > 0


def test_diffprivlib_geometric_edge_is_exact() -> None:
    lines = _run("diffprivlib_geometric.py")
    probabilities = re.fullmatch(
        r"P\(randomise\(0\) = -36\) = (\d+)/2\^53 = \S+; P\(randomise\(1\) = -36\) = 0", lines[-2]
    )
    assert probabilities, lines[-2]
    count = int(probabilities.group(1))
    assert 1 <= count <= 4  # a few draws out of 2^53
    delta, epsilon, claimed = _certified(lines[-1])
    assert (epsilon, claimed) == (1.0, 0.0)
    assert math.isclose(delta, count * 2.0**-53, rel_tol=1e-5)
    assert lines[-4].endswith("per input: True; monotone there: True"), lines[-4]
    assert lines[-3].endswith("is exact: True; no random() gives randomise(1) = -36: True"), lines[-3]


def test_diffprivlib_geometric_truncated_exceeds_its_epsilon_at_53_bits() -> None:
    lines = _run("diffprivlib_geometric_truncated.py")
    assert lines[-3] == (
        "P(output = 5 | x = 1) = 7537790063183/562949953421312, P(output = 5 | x = 0) = 22183983968891/4503599627370496"
    )
    excess = re.fullmatch(r"exact epsilon at 53 bits = 1 \+ (\S+) \(claimed 1\)", lines[-2])
    assert excess and 0 < float(excess.group(1)) < 1e-12, lines[-2]  # a rounding-sized excess, but an excess
    delta, epsilon, claimed = _certified(lines[-1])
    assert (epsilon, claimed) == (1.0, 0.0) and 0 < delta < 1e-14


def test_autodp_afa_epsilon_is_negative() -> None:
    scipy = pytest.importorskip("scipy")
    if tuple(int(part) for part in re.findall(r"\d+", scipy.__version__)[:2]) < (1, 10):
        pytest.skip(f"scipy {scipy.__version__} < 1.10 ignores minimize_scalar's bounds: autodp's AFA is right there")
    last = _run("autodp_afa.py")[-1]
    match = re.match(r"autodp epsilon = (\S+), exact epsilon = (\S+) ", last)
    assert match, last
    autodp_epsilon, exact = float(match.group(1)), float(match.group(2))
    assert autodp_epsilon < 0
    assert abs(exact - 2.9216) < 1e-3
