"""The static check of samplers/, on mutated copies of the samplers in a temporary directory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dpverify.verify.engine._results import Verdict
from dpverify.verify.gate._static import MATH_ALLOWED, check_samplers_static, scan_file, scanned_files

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "samplers", tmp_path / "samplers", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _append(path: Path, code: str) -> int:
    """Append ``code`` to ``path``; the line number of its last line."""
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text += "\n"
    text += "\n\n" + code.rstrip("\n") + "\n"
    path.write_text(text, encoding="utf-8")
    return len(text.splitlines())


def test_the_repository_samplers_pass() -> None:
    result = check_samplers_static(REPO)
    assert result.verdict is Verdict.PROVED, [f for f in result.evidence["findings"]]


def test_the_scanned_files_skip_unsafe_samplers_the_source_and_init() -> None:
    names = [p.name for p in scanned_files(REPO)]
    assert "gtm.py" in names and "discrete_gaussian.py" in names
    assert not any("unsafe" in n or n in ("_random_source.py", "__init__.py") for n in names)


def test_a_clean_copy_passes(root: Path) -> None:
    result = check_samplers_static(root)
    assert result.verdict is Verdict.PROVED
    assert result.check == "static"


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        ("HALF = 0.5", "float-literal"),
        ("def _scale(x):\n    return x * 1e-3", "float-literal"),
        ("def _as_float(x):\n    return float(x)", "float-call"),
        ("import math\ndef _log(x):\n    return math.log(x)", "math-call"),
        ("import math as m\ndef _exp(x):\n    return m.exp(x)", "math-call"),
        ("from math import log", "math-call"),
        ("import math\nPI = math.pi", "math-constant"),
        ("import random", "random-bypass"),
        ("from random import randrange", "random-bypass"),
        ("import secrets", "random-bypass"),
        ("import numpy.random", "random-bypass"),
        ("import os\ndef _bytes():\n    return os.urandom(8)", "random-bypass"),
        ("from os import urandom", "random-bypass"),
        ("import time\nSEED = time.time_ns()", "random-bypass"),
        ("from dpverify.samplers._random_source import _refill_and_pop", "random-bypass"),
        ("from dpverify.samplers import fresh_seed", "random-bypass"),
        ("from ._random_source import _WORDS", "random-bypass"),
        ("from . import _random_source\nWORD = _random_source._pop()", "random-bypass"),
        ("import importlib\nR = importlib.import_module('random')", "dynamic-import"),
        (
            "from dpverify.samplers import SystemRandomSource\nR = SystemRandomSource.from_words(lambda: 3, 2)",
            "random-bypass",
        ),
    ],
)
def test_a_mutated_sampler_is_caught_with_file_and_line(root: Path, code: str, rule: str) -> None:
    line = _append(root / "samplers" / "gtm.py", code)
    result = check_samplers_static(root)
    assert result.verdict is Verdict.VIOLATED
    findings = result.evidence["findings"]
    assert {"file": "samplers/gtm.py", "line": line, "rule": rule} in [
        {k: f[k] for k in ("file", "line", "rule")} for f in findings
    ], findings
    assert f"samplers/gtm.py:{line}: {rule}" in result.summary
    assert all(f["snippet"] for f in findings)


def test_exact_integer_math_is_allowed(root: Path) -> None:
    assert MATH_ALLOWED == {"isqrt", "gcd", "lcm"}
    _append(
        root / "samplers" / "gtm.py",
        "import math\nfrom math import gcd, isqrt\n"
        "def _root(n):\n    return math.isqrt(n) + isqrt(n) + gcd(n, 6) + math.lcm(n, 2)",
    )
    assert check_samplers_static(root).verdict is Verdict.PROVED


def test_a_floating_point_sampler_marked_unsafe_is_not_flagged(root: Path) -> None:
    code = "import math\nimport random\ndef noise(b):\n    return -b * math.log(1.0 - random.random())\n"
    (root / "samplers" / "noise_float_unsafe.py").write_text(code, encoding="utf-8")
    assert check_samplers_static(root).verdict is Verdict.PROVED
    (root / "samplers" / "noise_float.py").write_text(code, encoding="utf-8")
    result = check_samplers_static(root)
    assert result.verdict is Verdict.VIOLATED
    assert {f["file"] for f in result.evidence["findings"]} == {"samplers/noise_float.py"}
    assert {f["rule"] for f in result.evidence["findings"]} == {"math-call", "random-bypass", "float-literal"}


def test_a_file_that_does_not_parse_is_a_finding(root: Path) -> None:
    (root / "samplers" / "broken.py").write_text("def f(:\n", encoding="utf-8")
    result = check_samplers_static(root)
    assert result.verdict is Verdict.VIOLATED
    assert result.evidence["findings"][0]["rule"] == "syntax-error"


def test_docstrings_and_comments_mentioning_floats_are_fine(root: Path) -> None:
    _append(
        root / "samplers" / "gtm.py",
        'def _doc():\n    """Never 0.5, never math.log, never random."""\n    return 1  # not 0.5',
    )
    assert check_samplers_static(root).verdict is Verdict.PROVED


def test_the_unsafe_samplers_would_be_flagged_if_they_were_scanned() -> None:
    findings = scan_file(REPO / "samplers" / "laplace_float_unsafe.py", REPO)
    assert {"float-literal", "float-call", "math-call"} <= {f.rule for f in findings}


def test_no_samplers_directory_is_inconclusive(tmp_path: Path) -> None:
    assert check_samplers_static(tmp_path).verdict is Verdict.INCONCLUSIVE
