"""Specs state the distribution independently of the sampler code, and the static check says so.

The ``spec-uses-code`` rule of ``dpverify.verify.gate._static`` is run on the repository's specs and
on synthetic spec files beside a copy of the samplers; the last tests show what the rule is for:
with the grid Laplace sampler's rounding made wrong, the unchanged spec no longer agrees with it.
"""

from __future__ import annotations

import dataclasses
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from dpverify.samplers import grid_laplace
from dpverify.specs import Case, GridLaplaceSpec
from dpverify.verify.engine._results import Verdict
from dpverify.verify.gate._catalogue import GRID_LAPLACE
from dpverify.verify.gate._spec_run import run_case
from dpverify.verify.gate._static import check_samplers_static, scan_spec_file, scanned_spec_files

REPO = Path(__file__).resolve().parents[1]
RULE = "spec-uses-code"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the samplers and an empty ``specs/``."""
    shutil.copytree(REPO / "samplers", tmp_path / "samplers", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "specs").mkdir()
    return tmp_path


def _spec_file(root: Path, code: str, name: str = "own.py") -> Path:
    path = root / "specs" / name
    path.write_text(code.rstrip("\n") + "\n", encoding="utf-8")
    return path


def _where(root: Path, path: Path) -> list[tuple[int, str]]:
    return [(f.line, f.rule) for f in scan_spec_file(path, root)]


# --- the repository ---------------------------------------------------------------------------


def test_the_repository_specs_pass() -> None:
    result = check_samplers_static(REPO)
    assert result.verdict is Verdict.PROVED, result.evidence["findings"]
    assert "specs/grid_laplace.py" in result.evidence["spec_files"]
    assert "specs/noise.py" in result.evidence["spec_files"] and "specs/gtm.py" in result.evidence["spec_files"]
    assert " spec files" in result.summary and "exact sampler files" in result.summary


@pytest.mark.parametrize("path", scanned_spec_files(REPO), ids=lambda p: p.name)
def test_each_repository_spec_file_takes_no_sampler_code(path: Path) -> None:
    assert scan_spec_file(path, REPO) == []


# --- what is reported ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "taken"),
    [
        ("from dpverify.samplers.grid_laplace import snap_index", "grid_laplace.snap_index"),
        (
            "from dpverify.samplers import grid_laplace\n\n\ndef index(q, step):\n"
            "    return grid_laplace.snap_index(q, step)",
            "grid_laplace.snap_index",
        ),
        ("from dpverify.samplers.discrete_laplace import _sample_scaled", "discrete_laplace._sample_scaled"),
        (
            "from dpverify.samplers import discrete_laplace as dlap\nDRAW = dlap._sample_scaled",
            "discrete_laplace._sample_scaled",
        ),
        ("from dpverify.samplers.gtm import gtpmf", "gtm.gtpmf"),
        ("from dpverify.samplers import gtm\nCDF = gtm.cdf_vector(1, 2, 0)", "gtm.cdf_vector"),
        ("import dpverify.samplers.gtm as g\nPICK = g.inverse_transform", "gtm.inverse_transform"),
        ("import dpverify.samplers.gtm\nPMF = dpverify.samplers.gtm.gtpmf", "gtm.gtpmf"),
        ("from dpverify import samplers\nPMF = samplers.gtm.gtpmf", "gtm.gtpmf"),
        ("from ..samplers import gtm\nPMF = gtm.gtpmf", "gtm.gtpmf"),
        ("from ..samplers.gtm import cdf_vector as cdf", "gtm.cdf_vector"),
        ("from dpverify.samplers.gtm import MAX_N", "gtm.MAX_N"),
        ("from dpverify.samplers.bernoulli import _bernoulli_exp_ratio", "bernoulli._bernoulli_exp_ratio"),
        ("from dpverify.samplers import fresh_seed", "dpverify.samplers.fresh_seed"),
        ("from dpverify.samplers._random_source import SeededRandomSource", "_random_source.SeededRandomSource"),
        ("from dpverify.samplers._loops import until_accepted", "_loops.until_accepted"),
        ("from dpverify.samplers import gtm\nPMF = getattr(gtm, 'gtpmf')", "as a value"),
        ("from dpverify.samplers.gtm import *", "imports *"),
    ],
)
def test_sampler_code_in_a_spec_is_reported_with_its_line(root: Path, code: str, taken: str) -> None:
    path = _spec_file(root, "from fractions import Fraction\n\n" + code)
    line = len(path.read_text(encoding="utf-8").splitlines())
    findings = scan_spec_file(path, root)
    assert [(f.line, f.rule) for f in findings] == [(line, RULE)], findings
    assert taken in findings[0].message
    assert findings[0].snippet == path.read_text(encoding="utf-8").splitlines()[line - 1].strip()
    result = check_samplers_static(root)
    assert result.verdict is Verdict.VIOLATED
    assert f"specs/own.py:{line}: {RULE}" in result.summary


def test_a_dynamic_import_in_a_spec_is_reported(root: Path) -> None:
    path = _spec_file(root, "import importlib\nMODULE = importlib.import_module('dpverify.samplers.gtm')")
    assert _where(root, path) == [(2, "dynamic-import")]


def test_entry_points_validate_errors_and_parsing_are_allowed(root: Path) -> None:
    path = _spec_file(
        root,
        """
from dpverify.samplers import (DpverifyError, InvalidArgument, RandomSource, SamplerContractError, as_fraction,
                               as_int, as_open_unit_interval, discrete_laplace, gtm)
from dpverify.samplers import grid_laplace as _grid
from dpverify.samplers._errors import InvalidArgument as Refused
from dpverify.samplers._rational import MAX_DIGITS, RationalLike, shown
from dpverify.samplers.bernoulli import bernoulli_exp
import dpverify.samplers.discrete_gaussian as dg
from ..samplers import _rational


def run(scale: RationalLike, rng: RandomSource) -> int:
    return discrete_laplace.sample(scale, rng) + dg.sample_many(scale, 2, rng)[0] + bernoulli_exp(0, rng)


def release(q, rng):
    return _grid.sample(q, 1, "1/2", rng)


def create(alpha, n, T):
    alpha_, n_, _, T_ = gtm.validate(alpha, n, 0, T)
    return as_fraction("alpha", alpha_), as_int("n", n_, low=1), _rational.as_fraction("T", T_), MAX_DIGITS
""",
    )
    assert scan_spec_file(path, root) == []
    assert check_samplers_static(root).verdict is Verdict.PROVED


def test_entry_points_are_read_from_the_sampler_source(root: Path) -> None:
    """An entry point is a top-level function in ``__all__`` with an ``rng`` parameter."""
    (root / "samplers" / "toy.py").write_text(
        '__all__ = ["draw", "draw_keyword", "helper", "ALIAS"]\n\n\n'
        "def draw(x, rng=None):\n    return x\n\n\n"
        "def draw_keyword(x, *, rng):\n    return x\n\n\n"
        "def helper(x):\n    return x\n\n\n"
        "def extra(x, rng):\n    return x\n\n\n"
        "ALIAS = draw\n",
        encoding="utf-8",
    )
    path = _spec_file(
        root,
        "from dpverify.samplers import toy\n"
        "A = toy.draw\nB = toy.draw_keyword\nC = toy.helper\nD = toy.extra\nE = toy.ALIAS",
    )
    assert _where(root, path) == [(4, RULE), (5, RULE), (6, RULE)]


def test_a_spec_file_that_does_not_parse_is_a_finding(root: Path) -> None:
    path = _spec_file(root, "def f(:\n")
    assert [f.rule for f in scan_spec_file(path, root)] == ["syntax-error"]


def test_names_that_are_not_sampler_code_are_not_judged(root: Path) -> None:
    path = _spec_file(
        root,
        "from dpverify.specs.noise import _positive, _rng\nimport math\n"
        "INDEX = math.floor(Fraction(3, 2))\nfrom fractions import Fraction\n",
    )
    assert scan_spec_file(path, root) == []


# --- what the rule buys: a wrong rounding in the sampler is caught --------------------------------


def _floor_only(q: Fraction, step: Fraction) -> int:
    """The rounding made wrong: ``floor(q/L)`` instead of ``floor(q/L + 1/2)``."""
    return (q / step) // 1


def _ties_down(q: Fraction, step: Fraction) -> int:
    """The rounding made wrong: ties go down, ``ceil(q/L - 1/2)``."""
    return -((Fraction(1, 2) - q / step) // 1)


#: The catalogue's grid Laplace spec, without its timing report (a finding that never gates).
GRID = dataclasses.replace(GRID_LAPLACE, timing=False)
#: q/L = 3/2 is a tie: the right index is 2, both wrong roundings give 1.
TIE = Case({"q": "3/4", "scale": 2, "step": "1/2", "sensitivity": 1}, "proved", "a tie between grid points")


def test_the_grid_laplace_case_on_a_tie_is_met_by_the_real_code() -> None:
    assert GridLaplaceSpec.create("3/4", 2, "1/2").index() == 2
    outcome = run_case(GRID, TIE, seed=1, samples=2000, statistics=False)
    assert outcome.met, outcome.problems


@pytest.mark.parametrize("wrong", [_floor_only, _ties_down])
def test_a_wrong_rounding_in_the_sampler_fails_the_grid_laplace_spec(monkeypatch: pytest.MonkeyPatch, wrong) -> None:
    assert wrong(Fraction(3, 4), Fraction(1, 2)) == 1 and wrong(Fraction(7, 10), Fraction(1, 2)) == 1
    monkeypatch.setattr(grid_laplace, "_snap_index", wrong)
    assert (2 * grid_laplace.sample("3/4", 2, "1/2")).denominator == 1  # still on the grid
    assert GridLaplaceSpec.create("3/4", 2, "1/2").index() == 2  # the spec does not move with the code
    outcome = run_case(GRID, TIE, seed=1, samples=2000, statistics=False)
    assert not outcome.met
    intervals = [c for c in outcome.checks if c.check == "intervals"]
    assert intervals and intervals[0].verdict is Verdict.VIOLATED, [c.summary for c in outcome.checks]
