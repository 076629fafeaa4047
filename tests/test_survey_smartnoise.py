"""The survey's SmartNoise SQL module: its declaration without snsql, its exact and black-box audits with it."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from dpverify.specs._claims import ApproxDp, PureDp
from dpverify.verify.survey import _lib_smartnoise
from dpverify.verify.survey._primitive import Budget

BUDGET = Budget(seed=7, samples=4000, time_limit=120)


def test_the_module_declares_its_rows_and_exact_claims_without_importing_snsql() -> None:
    rows = _lib_smartnoise.primitives()
    assert len({row.name for row in rows}) == len(rows)
    # the set union is audited through what it releases, the set of keys, exactly at 53 bits
    assert [row.method for row in rows] == ["black box", "black box", "exact at k bits"]
    assert _lib_smartnoise.LIBRARY.module == "snsql" and _lib_smartnoise.LIBRARY.requirements == (
        "smartnoise-sql==1.0.10",
    )
    laplace, gaussian = _lib_smartnoise.SMARTNOISE_LAPLACE, _lib_smartnoise.SMARTNOISE_GAUSSIAN
    assert laplace.claim_for(laplace.bind(laplace.cases[0])) == PureDp(epsilon=1)
    assert gaussian.claim_for(gaussian.bind(gaussian.cases[0])) == ApproxDp(epsilon=1, delta=Fraction(1, 100000))


def test_the_set_unions_released_keys_are_exact_at_53_bits_and_meet_the_claim() -> None:
    pytest.importorskip("snsql")
    from snsql.sql._mechanisms import rand

    original = rand.sys_rand
    finding = _lib_smartnoise.dpsu_release_finding()
    assert rand.sys_rand is original  # the library's generator is back after every run
    assert finding.verdict == "proved" and finding.details["bits"] == 53
    kept = {int(n): Fraction(p) for n, p in finding.details["kept"].items()}
    assert kept[0] == 0 and all(p.denominator <= 2**53 for p in kept.values())
    assert all(kept[n] <= kept[n + 1] for n in range(len(kept) - 1))  # more users, more often kept
    # independent of the code: with one user the weight is 1, and the key is kept when Laplace(1) noise
    # exceeds rho - 1, rho = 1 + ln(1 / (2 delta)) for max_contrib = 1 at most; the chance is
    # exp(-(rho - 1)) / 2 <= delta, and the exact count at 53 bits stays within rounding of it
    rho = max(
        1 / i + math.log(1 / (2 * (1 - (1 - math.exp(-10)) ** (1 / i))))
        for i in range(1, _lib_smartnoise.DPSU_MAX_CONTRIB + 1)
    )
    assert math.isclose(float(kept[1]), math.exp(-(rho - 1)) / 2, rel_tol=1e-9)
    magnitude = finding.details["magnitude"]
    assert Fraction(magnitude["delta_at_claimed_epsilon_high"]) == kept[1]  # the pair (0, 1) sets delta
    assert Fraction(magnitude["epsilon_high"]) <= 1
    assert "raises ValueError with probability 2^-53" in finding.evidence


def test_opendps_laplace_is_not_refuted() -> None:
    pytest.importorskip("snsql")
    rows = {(row.name, row.method): row for row in _lib_smartnoise.primitives()}
    opendp = rows[("sql._mechanisms.Laplace.release", "black box")].audit(BUDGET)
    # a sampler that meets its claim is reported violated with probability at most 10^-6
    assert opendp.verdict == "not refuted"
