"""The survey's Opacus module: its declaration without torch, and its black-box audit with it."""

from __future__ import annotations

import math
import random
import struct
from fractions import Fraction

import pytest

from dpverify.specs._claims import Zcdp
from dpverify.verify.survey import _lib_opacus
from dpverify.verify.survey._primitive import Budget


def _float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def test_the_module_declares_four_rows_without_importing_torch() -> None:
    rows = _lib_opacus.primitives()
    assert len({row.name for row in rows}) == 4
    assert all(row.method == "black box" and row.mechanism == "Gaussian" for row in rows)
    assert _lib_opacus.LIBRARY.requirements[0] == "opacus==1.6.0"
    for case in _lib_opacus.OPACUS_GAUSSIAN.cases:
        p = _lib_opacus.OPACUS_GAUSSIAN.bind(case)
        # the Gaussian mechanism with sensitivity 1 and std 1 is 1/2-zCDP, stated exactly
        assert _lib_opacus.OPACUS_GAUSSIAN.claim_for(p, case) == Zcdp(rho=Fraction(1, 2))


@pytest.mark.parametrize("length", [0, 16])
@pytest.mark.parametrize("secure", [0, 1])
def test_at_one_every_output_below_one_half_is_a_multiple_of_2_to_the_minus_24(length: int, secure: int) -> None:
    pytest.importorskip("opacus")
    random.seed(5)
    zero, one = _lib_opacus._inputs({"length": length})
    vectors = [_lib_opacus.opacus_noisy_gradient(one, Fraction(1), length, secure) for _ in range(2000)]
    if length:
        assert all(isinstance(v, tuple) and len(v) == length for v in vectors)
    outputs = [v[0] if length else v for v in vectors]
    # float32 values, near the Gaussian's law (mean 1, sd 1: 2000 draws put the mean within 0.2
    # except with probability below 10^-8)
    assert all(_float32(o) == o for o in outputs)
    assert abs(sum(outputs) / len(outputs) - 1) < 0.2
    low = [o for o in outputs if o < 0.5]
    assert len(low) > 300 and all((Fraction(o) * 2**24).denominator == 1 for o in low)
    at_zero = [_lib_opacus.opacus_noisy_gradient(zero, Fraction(1), length, secure) for _ in range(2000)]
    firsts = [v[0] if length else v for v in at_zero]
    assert sum((Fraction(o) * 2**24).denominator != 1 for o in firsts if abs(o) < 0.5) > 300


def test_the_audit_finds_the_float32_leak_and_replays_from_its_seed() -> None:
    pytest.importorskip("opacus")
    audit = _lib_opacus.primitives()[0].audit
    budget = Budget(seed=11, samples=4000, time_limit=120)
    first, again = audit(budget), audit(budget)
    assert first.verdict == "violated" and "float structure" in first.evidence
    [privacy] = [c for c in first.details["checks"] if c["check"] == "blackbox_privacy"]
    rho = Fraction(privacy["evidence"]["rho_lower_bound"])
    assert rho > Fraction(1, 2) and math.isfinite(float(rho))
    [replayed] = [c for c in again.details["checks"] if c["check"] == "blackbox_privacy"]
    for key in ("event", "held_out_counts", "rho_lower_bound"):
        assert replayed["evidence"][key] == privacy["evidence"][key]
