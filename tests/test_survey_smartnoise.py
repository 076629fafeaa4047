"""The survey's SmartNoise SQL module: its declaration without snsql, its exact and black-box audits with it."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpverify.specs._claims import ApproxDp, PureDp
from dpverify.verify.survey import _lib_smartnoise
from dpverify.verify.survey._primitive import Budget

BUDGET = Budget(seed=7, samples=4000, time_limit=120)


def test_the_module_declares_its_rows_and_exact_claims_without_importing_snsql() -> None:
    rows = _lib_smartnoise.primitives()
    assert len({row.name for row in rows}) == len(rows)
    # the set union's Laplace is not among them: the library releases the set of items, not the noisy weight
    assert [row.method for row in rows] == ["black box", "black box"]
    assert _lib_smartnoise.LIBRARY.module == "snsql" and _lib_smartnoise.LIBRARY.requirements == (
        "smartnoise-sql==1.0.10",
    )
    laplace, gaussian = _lib_smartnoise.SMARTNOISE_LAPLACE, _lib_smartnoise.SMARTNOISE_GAUSSIAN
    assert laplace.claim_for(laplace.bind(laplace.cases[0])) == PureDp(epsilon=1)
    assert gaussian.claim_for(gaussian.bind(gaussian.cases[0])) == ApproxDp(epsilon=1, delta=Fraction(1, 100000))


def test_the_set_unions_laplace_is_enumerated_exactly_and_leaks() -> None:
    pytest.importorskip("snsql")
    from snsql.sql._mechanisms import rand

    original = rand.sys_rand
    finding = _lib_smartnoise.dpsu_laplace_finding(bits=8)
    assert rand.sys_rand is original  # the library's generator is back after every execution
    assert finding.verdict == "violated" and "infinite privacy loss" in finding.evidence and "2^-8" in finding.evidence
    assert finding.details["executions"] == {"0": 256, "1": 256}
    # random() = 0 gives u = -1/2 and log(0): one execution in 2^8 at each input
    assert finding.details["raised"] == {"0": {"raised ValueError": "1/256"}, "1": {"raised ValueError": "1/256"}}
    witness = finding.details["check"]["evidence"]["witness"]
    assert {witness["p"], witness["p_prime"]} == {"0", "1/256"}


def test_opendps_laplace_is_not_refuted() -> None:
    pytest.importorskip("snsql")
    rows = {(row.name, row.method): row for row in _lib_smartnoise.primitives()}
    opendp = rows[("sql._mechanisms.Laplace.release", "black box")].audit(BUDGET)
    # a sampler that meets its claim is reported violated with probability at most 10^-6
    assert opendp.verdict == "not refuted"
