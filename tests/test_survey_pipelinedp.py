"""The survey's PipelineDP module: its rows, and the audits on the library itself (skipped
without pipeline_dp)."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import pytest

from dpverify.verify.survey import _lib_pipelinedp
from dpverify.verify.survey._primitive import Budget, black_box_audit

BUDGET = Budget(seed=7, samples=20_000, time_limit=60)


def test_the_rows_are_black_boxes_declared_without_the_library() -> None:
    rows = _lib_pipelinedp.primitives()
    assert [r.method for r in rows] == ["black box"] * len(_lib_pipelinedp.PIPELINEDP_SPECS)
    assert len({r.name for r in rows}) == len(rows)
    # pipeline-dp's noise is python-dp's: both are pinned, so the survey's environment is the tested pair
    assert _lib_pipelinedp.LIBRARY.requirements == ("pipeline-dp==0.3.1", "python-dp==1.1.5")
    probe = (
        "import sys; from dpverify.verify.survey import _lib_pipelinedp; _lib_pipelinedp.primitives(); "
        "print(sorted(m for m in ('pipeline_dp', 'pydp') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_count_takes_the_double_path() -> None:
    pytest.importorskip("pipeline_dp")
    # add_noise(1.0 * value): even an int count comes back a double, so the Gaussian's low bits reach it
    outputs = [_lib_pipelinedp.gaussian_count(0, Fraction(1), Fraction(1, 10**5)) for _ in range(200)]
    assert all(isinstance(o, float) for o in outputs)
    assert any(o != round(o) for o in outputs)


@pytest.mark.parametrize(
    ("name", "verdict"),
    [
        ("pipelinedp-gaussian-count", "violated"),
        ("pipelinedp-laplace-count", "not refuted"),
        ("pipelinedp-exponential", "not refuted"),
        ("pipelinedp-gaussian-thresholding", "not refuted"),
    ],
)
def test_the_audits_on_the_library(name: str, verdict: str) -> None:
    pytest.importorskip("pipeline_dp")
    spec = _lib_pipelinedp.PIPELINEDP_SPECS[name]
    finding = black_box_audit(spec, spec.cases[0])(BUDGET)
    assert finding.verdict == verdict, finding.evidence
    assert finding.details["seed"] == BUDGET.seed and finding.details["samples_per_input"] == BUDGET.samples
    privacy = next(c for c in finding.details["checks"] if c["check"] == "blackbox_privacy")
    assert privacy["verdict"] == ("violated" if verdict == "violated" else "proved")
    if verdict == "violated":
        assert "float structure" in finding.evidence and "certified epsilon >=" in finding.evidence
