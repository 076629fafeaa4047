"""The gate's entries for many runs of a GTM, far beyond enumeration (``gtm-repeated``: the exact
``(eps, delta)`` from the k-fold privacy loss distribution; ``accountants``: every accountant's
bound against it).  Its own module: one family of entries, checks without a sampler to run.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dpverify.specs import ApproxDp, Case, GtmSpec, Integer, Params, Rational, SamplesPmf, Spec
from dpverify.verify.engine._results import CheckResult

__all__ = ["ACCOUNTANTS", "GTM_REPEATED"]


# --- many runs: the exact privacy loss distribution, and the accountants against it ----------------


def _gtm_table_of(p: Params) -> tuple[dict[Any, Any], tuple[tuple[int, int], ...]]:
    from dpverify.verify.privacy._gtm_privacy import gtm_table

    spec = GtmSpec.create(p["alpha"], p["n"], p["T"])
    return gtm_table(spec), spec.neighbours()


def _composed_claim(p: Params) -> CheckResult:
    from dpverify.verify.privacy._pld_worst_case import check_composed_claim

    table, pairs = _gtm_table_of(p)
    return check_composed_claim(table, pairs, p["k"], ApproxDp(p["epsilon"], p["delta"]))


def _accountants_sound(p: Params) -> CheckResult:
    from dpverify.verify.privacy._looseness import check_accountants_sound, composition_looseness

    table, pairs = _gtm_table_of(p)
    eps_bar, rows = composition_looseness(
        table, pairs, sorted({k for k in (1, 2, 10, p["k"] // 2, p["k"]) if 1 <= k <= p["k"]}), p["delta"]
    )
    return check_accountants_sound(rows, eps_bar=eps_bar)


def _repeated_instances(with_epsilon: bool) -> Any:
    """Hypothesis: Theorem 7.1 GTMs run k times, with a claim basic composition guarantees
    (``epsilon = k * eps_bar``, ``eps_bar >= ln D``), so every drawn set must prove."""
    from hypothesis import strategies as st

    from dpverify.verify.privacy._looseness import epsilon_upper_bound

    def build(D: int, n: int, k: int, delta_exponent: int) -> dict[str, Any]:
        p: dict[str, Any] = {
            "alpha": Fraction(1, D),
            "n": n,
            "T": (D + 1) * D**n,
            "k": k,
            "delta": Fraction(1, 10**delta_exponent),
        }
        if with_epsilon:
            p["epsilon"] = k * epsilon_upper_bound(Fraction(1, D), 6)
        return p

    return st.builds(build, st.integers(2, 6), st.integers(1, 6), st.integers(1, 60), st.integers(2, 12))


_REPEATED_PARAMETERS: dict[str, Rational | Integer] = {
    "alpha": Rational(0, 1, low_open=True, high_open=True),
    "n": Integer(1, 12, search=(1, 6)),
    "T": Integer(1, search=(1, 10**6)),
    "k": Integer(1, 1000, search=(1, 100)),
    "epsilon": Rational(0, search=(0, 60)),
    "delta": Rational(0, 1, low_open=True, high_open=True, search=(Fraction(1, 10**9), Fraction(1, 10))),
}

GTM_REPEATED = Spec(
    name="gtm-repeated",
    sampler=None,
    parameters=_REPEATED_PARAMETERS,
    claim=lambda p: ApproxDp(p["epsilon"], p["delta"]),
    checks=(_composed_claim,),
    draw=lambda: _repeated_instances(True),
    citation="Amorim, Gaboardi, Rindisbacher, Theorem 7.1; the privacy loss distribution of a composition",
    description="k runs of a GTM on one input, far beyond enumeration: its exact (eps, delta) from the k-fold "
    "privacy loss distribution, the worst case over ordered neighbours (dpverify.verify.check_composed_claim)",
    cases=(
        Case(
            {"alpha": "1/2", "n": 10, "T": 3 * 2**10, "k": 100, "epsilon": 52, "delta": "1/10^6"},
            "proved",
            "100 runs of Theorem 7.1's GTM (D=2, n=10): the exact eps_100(10^-6) = ln R is about 51.146",
            label="thm7.1/D=2,n=10,k=100,eps=52",
        ),
        Case(
            {"alpha": "1/2", "n": 10, "T": 3 * 2**10, "k": 100, "epsilon": 50, "delta": "1/10^6"},
            "violated",
            "the same composition is not (50, 10^-6)-DP: its exact delta at eps = 50 exceeds 10^-6",
            label="thm7.1/D=2,n=10,k=100,eps=50",
        ),
        Case(
            {"alpha": "2/5", "n": 6, "T": 10**5, "k": 100, "epsilon": 75, "delta": "1/10^6"},
            "proved",
            "an arbitrary T: certified bounds from the pessimistic and optimistic discretisations put "
            "eps_100(10^-6) in [74.26, 74.58]",
            label="arbitrary-T/alpha=2/5,n=6,k=100,eps=75",
        ),
    ),
)

ACCOUNTANTS = Spec(
    name="accountants",
    sampler=None,
    parameters={name: _REPEATED_PARAMETERS[name] for name in ("alpha", "n", "T", "k", "delta")},
    claim=SamplesPmf(),
    checks=(_accountants_sound,),
    draw=lambda: _repeated_instances(False),
    citation="Dwork–Roth Thm 3.16; Dwork–Rothblum–Vadhan 2010 Thm III.3; Bun–Steinke 2016; CKS20; "
    "Kairouz–Oh–Viswanath 2017 Thm 3.3; paper 003",
    description="every accountant's bound on a k-fold GTM, from its per-step epsilon, against the exact eps_k(delta)",
    cases=(
        Case(
            {"alpha": "1/2", "n": 10, "T": 3 * 2**10, "k": 100, "delta": "1/10^6"},
            "proved",
            "no accountant (basic, advanced, DRV, zCDP, KOV) is below the exact epsilon of the composition",
            label="thm7.1/D=2,n=10,k=100",
        ),
    ),
)
