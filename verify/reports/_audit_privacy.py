"""The privacy numbers of the audit's section 3 and their JSON: claims and losses as exact text,
certified interval losses, the delta(epsilon) curve and the paper's bounds; pure functions of
tables and claims, kept apart from the case work that gathers them.

What intervals establish about privacy.  From a bounded enumeration the audit knows, per input
``q``, exact intervals ``[E_q(x), E_q(x) + U]`` around the code's ``P(x | q)`` at the outputs the
interval check lists, and nothing sharper about the rest.  That is not an exact loss, so the
audit states what it does prove (:func:`_interval_loss`): for each ordered neighbouring pair
``(q, q')`` and the set ``S`` of outputs both list, with ``P(x|q) <= e^eps P(x|q')`` on ``S``
(``eps`` the certified upper end of the largest loss there),

    P(A | q) <= sum_{x in A & S} e^eps P(x | q') + P(not S | q)  <=  e^eps P(A | q') + delta,
    delta = 1 - sum_{x in S} E_q(x)  >=  P(not S | q),

(``S`` leaves out an output where ``P(x|q')`` may be 0: no finite ratio holds there)

for every event ``A``: the code is ``(eps, delta)``-DP on the checked pairs, with ``delta`` (exact)
the mass the listed outputs leave uncovered, the unexplored ``U`` and the tails included.  The
certified ``[eps_low, eps_high]`` over the listed outputs is a bound on those outputs only, never
a proof of pure DP.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from mpmath import iv

from dpverify.specs._api import Spec
from dpverify.specs._claims import ApproxDp, Claim, PureDp, Zcdp
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.specs._interval_tools import decimal_text as rounded_text
from dpverify.specs._interval_tools import iv_upper, mpf_decimal
from dpverify.verify.engine._results import epsilon_of, fraction_text, json_value
from dpverify.verify.engine._text import _decimal as decimal_text
from dpverify.verify.privacy._ratio import PrivacyLoss, tightest_alpha

__all__ = ["DELTA_POINTS", "PAPER_ANALYSES"]

#: Points of the delta(epsilon) curve.
DELTA_POINTS = 121


def _decimal(value: Fraction | None) -> str | None:
    """About 12 significant digits, for the eye; the exact value sits beside it."""
    return None if value is None else decimal_text(value)


def _ln(value: Fraction) -> float:
    return -epsilon_of(value) if value > 0 else -math.inf


def _loss_json(loss: PrivacyLoss) -> dict[str, Any]:
    return {
        "alpha": fraction_text(loss.alpha),
        "alpha_decimal": _decimal(loss.alpha),
        "epsilon": None if loss.infinite else round(loss.epsilon, 12),
        "infinite": loss.infinite,
        "witness": None if loss.witness is None else loss.witness.to_json(),
    }


def _claim_json(claim: Claim | None) -> dict[str, Any]:
    if claim is None:
        return {"kind": None, "text": None}
    if isinstance(claim, PureDp):
        epsilon = None if claim.epsilon is None else Fraction(claim.epsilon)
        alpha = None if claim.alpha is None else Fraction(claim.alpha)
        if epsilon is not None:
            epsilon_decimal = float(epsilon)
        elif alpha is not None:
            epsilon_decimal = round(epsilon_of(alpha), 12)
        else:  # PureDp refuses to be made without one of them
            raise AssertionError(f"a PureDp claim with neither alpha nor epsilon: {claim!r}")
        return {
            "kind": "pure",
            "text": claim.describe(),
            "alpha": None if alpha is None else fraction_text(alpha),
            "epsilon": fraction_text(epsilon) if epsilon is not None else None,
            "epsilon_decimal": epsilon_decimal,
        }
    if isinstance(claim, ApproxDp):
        return {
            "kind": "approx",
            "text": claim.describe(),
            "epsilon": fraction_text(Fraction(claim.epsilon)),
            "delta": fraction_text(Fraction(claim.delta)),
            "epsilon_decimal": float(Fraction(claim.epsilon)),
        }
    if isinstance(claim, Zcdp):
        return {"kind": "zcdp", "text": claim.describe(), "rho": fraction_text(Fraction(claim.rho))}
    return {"kind": "samples", "text": claim.describe()}


def _claim_epsilon(claim: Claim | None) -> float | None:
    """The claimed epsilon as a float, for the plots' bound lines; None where the claim has none."""
    data = _claim_json(claim)
    return data.get("epsilon_decimal") if data["kind"] in ("pure", "approx") else None


def _loss_bounds(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> tuple[float, float]:
    """Certified bounds on ``ln(P/P')`` from ``P in a``, ``P' in b`` (floats rounded outward)."""
    with interval_precision(80):
        low = iv.log(iv_rational(a[0])) - iv.log(iv_rational(b[1])) if a[0] > 0 else None
        high = iv.log(iv_rational(a[1])) - iv.log(iv_rational(b[0])) if b[0] > 0 else None
        return (-math.inf if low is None else float(low.a), math.inf if high is None else float(high.b))


def _loss_upper(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> Any:
    """A certified upper bound (an mpf) on ``ln(P/P')`` from ``P in a``, ``P' in b`` with ``b[0] > 0``."""
    with interval_precision(80):
        upper = (iv.log(iv_rational(a[1])) - iv.log(iv_rational(b[0]))) if a[1] > 0 else None
        return None if upper is None else iv_upper(upper)  # the exact end: mpmath.mpf() would round it


def _interval_loss(
    rows: Mapping[Any, Mapping[Hashable, tuple[Fraction, Fraction]]], pairs: Sequence[tuple[Any, Any]]
) -> dict[str, Any]:
    """The largest privacy loss ``|ln P(x|q)/P(x|q')|`` over the pairs and the outputs both list,
    as certified bounds: it lies in ``[max of lower ends, max of upper ends]``; and the
    ``(eps, delta)`` the intervals prove for the whole output space (module docstring)."""
    best_low, best_high, at = -math.inf, -math.inf, None
    eps_upper, delta = None, Fraction(0)
    for q, q2 in pairs:
        for first, second in ((q, q2), (q2, q)):
            a, b = rows[first], rows[second]
            covered = Fraction(0)
            for output in a:
                if output not in b:
                    continue
                low, high = _loss_bounds(a[output], b[output])
                if high > best_high:
                    best_high, at = high, (first, second, output)
                best_low = max(best_low, low)
                if b[output][0] == 0:  # no finite ratio here: its mass is left to delta
                    continue
                covered += a[output][0]
                upper = _loss_upper(a[output], b[output])
                if upper is not None and (eps_upper is None or upper > eps_upper):
                    eps_upper = upper
            delta = max(delta, 1 - covered)
    pair = None if at is None else (at[0], at[1])
    implied = None
    if pairs:
        eps_text = "0" if eps_upper is None or eps_upper <= 0 else mpf_decimal(eps_upper, 6, up=True)
        delta = min(delta, Fraction(1))
        implied = {
            "epsilon_upper": eps_text,
            "delta_upper": fraction_text(delta),
            "delta_upper_decimal": rounded_text(delta, 6, up=True),
            "statement": (
                f"the code is (eps, delta)-DP on the checked neighbouring pairs with eps <= {eps_text} and "
                f"delta <= {rounded_text(delta, 3, up=True)}: eps bounds the loss at the outputs both inputs "
                "list, and delta is the mass those outputs leave uncovered (1 minus their explored mass: the "
                "tails and the unexplored U), so this is a bound from intervals, not an exact loss"
            ),
        }
    return {
        "pair": pair,
        "json": {
            "epsilon_low": None if math.isinf(best_low) else best_low,
            "epsilon_high": None if math.isinf(best_high) else best_high,
            "at": None
            if at is None
            else {"q": json_value(at[0]), "q_prime": json_value(at[1]), "output": json_value(at[2])},
            "over": "the outputs listed by the interval check; the rest of the mass (the tails and the unexplored U) "
            "is bounded by implied.delta_upper",
            "implied": implied,
        },
    }


def _delta_series(
    p: Sequence[float], p2: Sequence[float], claim: Claim, tightest: float | None, source: str
) -> dict[str, Any] | None:
    """delta(eps) = max over both directions of sum_x max(0, P(x) - e^eps P'(x)): a picture in floats."""
    top = max(x for x in (tightest, _claim_epsilon(claim), 0.5) if x is not None and math.isfinite(x)) * 1.5
    grid = [top * i / (DELTA_POINTS - 1) for i in range(DELTA_POINTS)]
    values = []
    for eps in grid:
        factor = math.exp(eps)
        values.append(
            max(
                sum(max(0.0, a - factor * b) for a, b in zip(p, p2, strict=True)),
                sum(max(0.0, b - factor * a) for a, b in zip(p, p2, strict=True)),
            )
        )
    claimed = _claim_json(claim)
    point = None
    if claimed["kind"] == "approx":
        point = (claimed["epsilon_decimal"], float(Fraction(claimed["delta"])))
    elif claimed["kind"] == "pure":
        point = (claimed["epsilon_decimal"], 0.0)
    return {"epsilon": grid, "delta": values, "claim": point, "source": source}


# --- the paper's bounds, for samplers whose analysis dpverify knows --------------------------------


def _gtm_paper(p: Mapping[str, Any], code: PrivacyLoss | None) -> list[dict[str, Any]]:
    """Amorim, Gaboardi, Rindisbacher (paper 004): the ideal GTM, §5's support bound, Theorem 6.2's
    alpha' and Theorem 7.1's exact instances."""
    from dpverify.specs import GtmSpec

    if not {"alpha", "n", "T"} <= set(p) or p["n"] > 200:
        return []
    spec = GtmSpec.create(p["alpha"], p["n"], p["T"])
    ideal = tightest_alpha({q: spec.ideal_pmf(q) for q in spec.inputs()}, spec.neighbours())
    alpha_prime = spec.theorem_6_2_alpha_prime()
    rows = [
        {
            "name": "ideal GTM (gtpmf)",
            "value": fraction_text(ideal.alpha),
            "value_decimal": _decimal(ideal.alpha),
            "meaning": "the tightest alpha of the ideal geometric truncated mechanism, computed exactly",
            "holds": None if code is None else code.alpha >= ideal.alpha,
            "source": "paper 004 §2 (gtpmf)",
        },
        {
            "name": "support bound",
            "value": fraction_text(spec.support_bound()),
            "value_decimal": _decimal(spec.support_bound()),
            "meaning": f"T >= (1+alpha)/((1-alpha) alpha^n) makes every output possible; T = {spec.T}",
            "holds": spec.T >= spec.support_bound(),
            "source": "paper 004 §5",
        },
        {
            "name": "Theorem 6.2 alpha'",
            "value": fraction_text(alpha_prime),
            "value_decimal": _decimal(alpha_prime),
            "meaning": "the degraded ratio the rounded code keeps"
            + (" (vacuous: T <= 1/D)" if alpha_prime <= 0 else ""),
            "holds": None if code is None else code.alpha >= alpha_prime,
            "source": "paper 004 Theorem 6.2",
        },
        {
            "name": "Theorem 7.1 instance",
            "value": "yes" if spec.is_theorem_7_1_instance() else "no",
            "value_decimal": None,
            "meaning": "alpha = 1/D and T = (D+1) D^n: the code samples gtpmf exactly, so alpha itself holds",
            "holds": None if code is None or not spec.is_theorem_7_1_instance() else code.alpha >= spec.alpha,
            "source": "paper 004 Theorem 7.1",
        },
    ]
    return rows


#: Analyses of particular samplers' papers, keyed by the sampler's qualified name.
PAPER_ANALYSES: dict[str, Callable[[Mapping[str, Any], PrivacyLoss | None], list[dict[str, Any]]]] = {
    "dpverify.samplers.gtm.sample": _gtm_paper,
}


def _paper(spec: Spec, p: Mapping[str, Any], code: PrivacyLoss | None) -> list[dict[str, Any]]:
    sampler = spec.sampler
    key = f"{getattr(sampler, '__module__', '')}.{getattr(sampler, '__qualname__', '')}"
    analysis = PAPER_ANALYSES.get(key)
    return [] if analysis is None else analysis(p, code)
