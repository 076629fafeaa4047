"""Checks of a declared claim on an exact PMF table whose bound is irrational.

The ratio form of pure DP (``alpha``) is decided in exact arithmetic by
:func:`~dpverify.verify.privacy._ratio.check_pure_dp`.  The other claims compare exact rationals with
``e^epsilon``, which is irrational for every rational ``epsilon != 0`` (Lindemann–Weierstrass),
so each comparison is made with ``mpmath.iv`` intervals, whose operations round outward: a
verdict is given only when the interval lies wholly on one side of the bound, with the working
precision doubled up to :data:`MAX_BITS` first.

- :func:`check_pure_epsilon`: the tightest exact ``alpha`` of the table against ``e^-epsilon``.
- :func:`check_approx_dp`: the hockey-stick divergence
  ``delta(q, q') = sum_x max(0, P(x|q) - e^epsilon P(x|q'))`` over ordered neighbours, the
  smallest ``delta`` for which ``(epsilon, delta)``-DP holds (the event ``S`` that attains it is
  ``{x : P(x|q) > e^epsilon P(x|q')}``).
- :func:`check_zcdp`: Rényi divergences at integer orders ``a = 2..MAX_ORDER``, where
  ``sum_x P^a / Q^(a-1)`` is an exact rational.  A divergence above ``rho * a`` at one order is
  a certain violation; no excess at those orders is not a proof for every order ``a > 1``, so
  the verdict is then ``inconclusive``, with that reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction
from functools import partial
from typing import Any

from mpmath import iv

from dpverify.samplers import InvalidArgument
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf
from dpverify.specs._claims import ApproxDp, PureDp, Zcdp
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.verify.engine._arguments import need_instance, need_neighbours, need_table
from dpverify.verify.engine._intervals import enclosure_bound
from dpverify.verify.engine._results import CheckResult, RatioWitness, Verdict, fraction_text
from dpverify.verify.engine._text import short_rational
from dpverify.verify.privacy._ratio import PmfTable, tightest_alpha

__all__ = ["MAX_BITS", "MAX_ORDER", "check_approx_dp", "check_pure_epsilon", "check_zcdp"]

MAX_BITS = 4096
MAX_ORDER = 8
Pairs = Iterable[tuple[Hashable, Hashable]]


def _decide(interval: Callable[[], object], bound: Callable[[], object]) -> bool | None:
    """True when ``interval() <= bound()`` surely, False when surely above, None if undecided."""
    bits = 64
    while bits <= MAX_BITS:
        with interval_precision(bits):
            value, limit = iv.mpf(interval()), iv.mpf(bound())
            if value.b <= limit.a:
                return True
            if value.a > limit.b:
                return False
        bits *= 2
    return None


def _table_and_pairs(table: object, neighbours: object) -> tuple[Mapping[Hashable, ExactPmf], Pairs]:
    checked = need_table("table", table)
    return checked, need_neighbours("neighbours", neighbours, checked)


def check_pure_epsilon(table: PmfTable, neighbours: Pairs, claim: PureDp) -> CheckResult:
    """Proved when the tightest ``alpha`` is ``>= e^-epsilon``; violated at the witness if below."""
    table, neighbours = _table_and_pairs(table, neighbours)
    need_instance("claim", claim, PureDp, "a PureDp claim in its epsilon form, e.g. PureDp(epsilon=1)")
    epsilon = claim.epsilon
    if not isinstance(epsilon, Fraction):
        raise InvalidArgument(
            f"claim must give epsilon; got claim={shown(claim)}. The alpha form is checked by "
            "check_pure_dp(tightest_alpha(table, neighbours), PureDpClaim(alpha))."
        )
    loss = tightest_alpha(table, neighbours)
    evidence = {
        "claim_epsilon": fraction_text(epsilon),
        "alpha_exact": fraction_text(loss.alpha),
        "witness": None if loss.witness is None else loss.witness.to_json(),
    }
    holds = (
        True
        if loss.alpha == 1
        else (
            False
            if loss.alpha == 0
            else _decide(lambda: -iv.log(iv_rational(loss.alpha)), lambda: iv_rational(epsilon))
        )
    )
    if holds is None:
        reason = f"ln(1/alpha) and epsilon={epsilon} agree to {MAX_BITS} bits"
        return CheckResult("privacy", Verdict.INCONCLUSIVE, reason, reason=reason, evidence=evidence)
    if holds:
        return CheckResult(
            "privacy",
            Verdict.PROVED,
            f"tightest epsilon={loss.epsilon:.6g} <= claimed {short_rational(epsilon)} "
            f"(alpha={short_rational(loss.alpha)})",
            evidence=evidence,
        )
    w = loss.witness
    assert w is not None
    what = (
        "infinite privacy loss" if loss.infinite else f"epsilon={loss.epsilon:.6g} > claimed {short_rational(epsilon)}"
    )
    return CheckResult("privacy", Verdict.VIOLATED, f"{what} at {_where(w)}", evidence=evidence)


def check_approx_dp(table: PmfTable, neighbours: Pairs, claim: ApproxDp) -> CheckResult:
    """Proved when every ordered pair's hockey-stick divergence is ``<= delta``."""
    table, neighbours = _table_and_pairs(table, neighbours)
    need_instance("claim", claim, ApproxDp, 'an ApproxDp claim, e.g. ApproxDp(epsilon=1, delta="1/10^6")')
    epsilon, delta = Fraction(claim.epsilon), Fraction(claim.delta)
    undecided = []
    for a, b in neighbours:
        for q, q2 in ((a, b), (b, a)):
            p, p2 = table[q].as_dict(), table[q2].as_dict()
            terms = [(x, p[x], p2.get(x, Fraction(0))) for x in p if p[x]]

            def divergence(terms: list[tuple[Hashable, Fraction, Fraction]] = terms) -> object:
                total = iv.mpf(0)
                for _, px, px2 in terms:
                    total += _positive_part(iv_rational(px) - iv.exp(iv_rational(epsilon)) * iv_rational(px2))
                return total

            holds = _decide(divergence, lambda: iv_rational(delta))
            if holds is False:
                x, px, px2 = max(terms, key=lambda t: t[1] - t[2])
                witness = RatioWitness(q, q2, x, px, px2)
                with interval_precision(128):
                    exact_low = enclosure_bound(divergence(), upper=False)
                # rounded down to 20 decimals, so it stays a lower bound and stays readable
                low = Fraction(math.floor(exact_low * 10**20), 10**20)
                evidence: dict[str, Any] = {
                    "claim_epsilon": fraction_text(epsilon),
                    "claim_delta": fraction_text(delta),
                    "delta_lower_bound": fraction_text(low),
                    "witness": witness.to_json(),
                }
                return CheckResult(
                    "privacy",
                    Verdict.VIOLATED,
                    f"hockey-stick divergence >= {float(low):.6g} > delta={short_rational(delta)} "
                    f"from {_where(witness)}",
                    evidence=evidence,
                )
            if holds is None:
                undecided.append((q, q2))
    evidence = {
        "claim_epsilon": fraction_text(epsilon),
        "claim_delta": fraction_text(delta),
        "undecided_pairs": [[str(q), str(q2)] for q, q2 in undecided],
    }
    if undecided:
        reason = f"the divergence equals delta to {MAX_BITS} bits at {len(undecided)} pair(s)"
        return CheckResult("privacy", Verdict.INCONCLUSIVE, reason, reason=reason, evidence=evidence)
    return CheckResult(
        "privacy",
        Verdict.PROVED,
        f"every neighbouring pair's hockey-stick divergence at epsilon={short_rational(epsilon)} "
        f"is <= delta={short_rational(delta)}",
        evidence=evidence,
    )


def _positive_part(value: iv.mpf) -> iv.mpf:
    low, high = value.a, value.b
    return iv.mpf([max(low, 0), max(high, 0)])


def check_zcdp(table: PmfTable, neighbours: Pairs, claim: Zcdp) -> CheckResult:
    """Violated when some integer order ``a`` has ``D_a > rho * a``; else inconclusive (see the
    module docstring: integer orders do not cover every ``a > 1``)."""
    table, neighbours = _table_and_pairs(table, neighbours)
    need_instance("claim", claim, Zcdp, 'a Zcdp claim, e.g. Zcdp(rho="1/2")')
    rho = Fraction(claim.rho)
    for a, b in neighbours:
        for q, q2 in ((a, b), (b, a)):
            p, p2 = table[q].as_dict(), table[q2].as_dict()
            for x, px in p.items():
                if px and not p2.get(x):
                    witness = RatioWitness(q, q2, x, px, Fraction(0))
                    return CheckResult(
                        "privacy",
                        Verdict.VIOLATED,
                        f"infinite Renyi divergence at {_where(witness)}",
                        evidence={"claim_rho": fraction_text(rho), "witness": witness.to_json()},
                    )
            for order in range(2, MAX_ORDER + 1):
                # D_a = ln(S) / (a - 1) with S = sum P^a / Q^(a-1), exact; D_a > rho*a iff S > e^(rho*a*(a-1))
                s = sum((px**order / p2[x] ** (order - 1) for x, px in p.items() if px), Fraction(0))
                exponent = rho * order * (order - 1)
                # partial binds this iteration's values (_decide calls both before returning anyway)
                if _decide(partial(iv_rational, s), partial(_exp_interval, exponent)) is False:
                    return CheckResult(
                        "privacy",
                        Verdict.VIOLATED,
                        f"Renyi divergence of order {order} exceeds rho*a={short_rational(rho * order)} "
                        f"between q={q} and q'={q2}",
                        evidence={
                            "claim_rho": fraction_text(rho),
                            "order": order,
                            "q": str(q),
                            "q_prime": str(q2),
                            "sum": fraction_text(s),
                        },
                    )
    reason = (
        f"no Renyi divergence above rho*a at the integer orders 2..{MAX_ORDER}; a proof for every "
        "order a > 1 needs a parametric argument (see proofs/)"
    )
    return CheckResult(
        "privacy", Verdict.INCONCLUSIVE, reason, reason=reason, evidence={"claim_rho": fraction_text(rho)}
    )


def _exp_interval(x: Fraction) -> object:
    return iv.exp(iv_rational(x))


def _where(w: RatioWitness) -> str:
    return f"q={w.q}, q'={w.q_prime}, output={w.output}: P={short_rational(w.p)} vs P'={short_rational(w.p_prime)}"
