"""The survey's python-dp module: its rows, the rounded Laplace law it tests Count against, and
the audits on the library itself (skipped without python-dp)."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from dpverify.verify.survey import _lib_pydp
from dpverify.verify.survey._primitive import Budget, black_box_audit

BUDGET = Budget(seed=5, samples=20_000, time_limit=60)


def test_the_rows_are_black_boxes_declared_without_the_library() -> None:
    rows = _lib_pydp.primitives()
    assert [r.method for r in rows] == ["black box"] * len(_lib_pydp.PYDP_SPECS)
    assert len({r.name for r in rows}) == len(rows)
    # the survey's own process never has the library: declaring the rows must not import it
    probe = (
        "import sys; from dpverify.verify.survey import _lib_pydp; _lib_pydp.primitives(); print('pydp' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("scale", [Fraction(1), Fraction(3, 2), Fraction(1, 4)])
def test_the_rounded_laplace_law_is_the_laplace_mass_of_each_unit_interval(scale: Fraction) -> None:
    with mpmath.workdps(80):
        b = mpmath.mpf(scale.numerator) / scale.denominator

        def tail(t: mpmath.mpf) -> mpmath.mpf:  # an independent oracle: P(L >= t) = P(L <= -t) for t >= 0
            return mpmath.exp(-t / b) / 2

        half = mpmath.mpf(1) / 2
        total = mpmath.mpf(0)
        for z in range(-60, 61):
            low, high = _lib_pydp.rounded_laplace_probability(scale, z, 30)
            expected = 1 - 2 * tail(half) if z == 0 else tail(abs(z) - half) - tail(abs(z) + half)
            slack = expected * mpmath.mpf(10) ** -40  # the oracle's own cancellation
            assert low - slack <= expected <= high + slack and high - low <= expected * mpmath.mpf(10) ** -29
            total += expected
        assert abs(total - 1) < mpmath.exp(-59 / b)


def test_the_count_law_covers_every_output_the_test_compares() -> None:
    spec = _lib_pydp.PYDP_SPECS["pydp-count"]
    p = spec.bind(spec.cases[0])
    outputs = spec.outputs(p)
    assert outputs[0] == -outputs[-1] and outputs[-1] >= 20
    mass = sum(float(spec.ideal(p, z, 30)[0]) for z in outputs)
    slack = len(outputs) * 2**-30  # the grid's slack, per output
    assert 1 - math.exp(-20) - slack < mass <= 1 + slack


# --- on the library ------------------------------------------------------------------------------


def _denominator_bits(value: float) -> int:
    return Fraction(value).denominator.bit_length() - 1


def test_the_gaussian_noise_is_finer_at_input_0_than_one_plus_noise_can_be() -> None:
    pytest.importorskip("pydp")
    # the leak the audit certifies, seen directly: in (0, 1/2), odd multiples of 2^-54 come from input 0 only
    at_zero = [_lib_pydp.gaussian_double(0, Fraction(1), Fraction(1, 10**5)) for _ in range(20_000)]
    at_one = [_lib_pydp.gaussian_double(1, Fraction(1), Fraction(1, 10**5)) for _ in range(20_000)]
    assert max(_denominator_bits(o) for o in at_zero if 0 < o < 0.5) == 54
    assert max(_denominator_bits(o) for o in at_one if 0 < o < 0.5) <= 53
    # the Laplace noise stays on its 2^-40 grid
    assert max(_denominator_bits(_lib_pydp.laplace_double(0, Fraction(1))) for _ in range(2_000)) <= 40


@pytest.mark.parametrize(
    ("name", "verdict"),
    [
        ("pydp-gaussian-double", "violated"),
        ("pydp-laplace-double", "not refuted"),
        ("pydp-count", "not refuted"),
        ("pydp-partition-truncated-geometric", "not refuted"),
    ],
)
def test_the_audits_on_the_library(name: str, verdict: str) -> None:
    pytest.importorskip("pydp")
    spec = _lib_pydp.PYDP_SPECS[name]
    finding = black_box_audit(spec, spec.cases[0])(BUDGET)
    assert finding.verdict == verdict, finding.evidence
    assert finding.details["seed"] == BUDGET.seed
    if verdict == "violated":
        privacy = next(c for c in finding.details["checks"] if c["check"] == "blackbox_privacy")
        assert "float structure" in finding.evidence and privacy["verdict"] == "violated"
    if name == "pydp-count":
        assert "consistent with the spec's law" in finding.evidence
