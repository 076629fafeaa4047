"""The privacy numbers of the audit's section 3 and their JSON: claims and losses as exact text,
certified interval losses, the delta(epsilon) curve and the paper's bounds; pure functions of
tables and claims, kept apart from the case work that gathers them.
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
    return {"alpha": fraction_text(loss.alpha), "alpha_decimal": _decimal(loss.alpha),
            "epsilon": None if loss.infinite else round(loss.epsilon, 12), "infinite": loss.infinite,
            "witness": None if loss.witness is None else loss.witness.to_json()}


def _claim_json(claim: Claim | None) -> dict[str, Any]:
    if claim is None:
        return {"kind": None, "text": None}
    if isinstance(claim, PureDp):
        epsilon = None if claim.epsilon is None else Fraction(claim.epsilon)
        alpha = None if claim.alpha is None else Fraction(claim.alpha)
        return {"kind": "pure", "text": claim.describe(),
                "alpha": None if alpha is None else fraction_text(alpha),
                "epsilon": fraction_text(epsilon) if epsilon is not None else None,
                "epsilon_decimal": float(epsilon) if epsilon is not None else round(epsilon_of(alpha), 12)}  # type: ignore[arg-type]
    if isinstance(claim, ApproxDp):
        return {"kind": "approx", "text": claim.describe(), "epsilon": fraction_text(Fraction(claim.epsilon)),
                "delta": fraction_text(Fraction(claim.delta)), "epsilon_decimal": float(Fraction(claim.epsilon))}
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


def _interval_loss(rows: Mapping[Any, Mapping[Hashable, tuple[Fraction, Fraction]]],
                   pairs: Sequence[tuple[Any, Any]]) -> dict[str, Any]:
    """The largest privacy loss ``|ln P(x|q)/P(x|q')|`` over the pairs and the outputs both list,
    as certified bounds: it lies in ``[max of lower ends, max of upper ends]``."""
    best_low, best_high, at = -math.inf, -math.inf, None
    for q, q2 in pairs:
        for first, second in ((q, q2), (q2, q)):
            a, b = rows[first], rows[second]
            for output in a:
                if output not in b:
                    continue
                low, high = _loss_bounds(a[output], b[output])
                if high > best_high:
                    best_high, at = high, (first, second, output)
                best_low = max(best_low, low)
    pair = None if at is None else (at[0], at[1])
    return {"pair": pair, "json": {
        "epsilon_low": None if math.isinf(best_low) else best_low,
        "epsilon_high": None if math.isinf(best_high) else best_high,
        "at": None if at is None else {"q": json_value(at[0]), "q_prime": json_value(at[1]), "output": json_value(at[2])},
        "over": "the outputs listed by the interval check (the tails beyond them are not bounded here)",
    }}


def _delta_series(p: Sequence[float], p2: Sequence[float], claim: Claim, tightest: float | None,
                  source: str) -> dict[str, Any] | None:
    """delta(eps) = max over both directions of sum_x max(0, P(x) - e^eps P'(x)): a picture in floats."""
    top = max(x for x in (tightest, _claim_epsilon(claim), 0.5) if x is not None and math.isfinite(x)) * 1.5
    grid = [top * i / (DELTA_POINTS - 1) for i in range(DELTA_POINTS)]
    values = []
    for eps in grid:
        factor = math.exp(eps)
        values.append(max(sum(max(0.0, a - factor * b) for a, b in zip(p, p2)),
                          sum(max(0.0, b - factor * a) for a, b in zip(p, p2))))
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
        {"name": "ideal GTM (gtpmf)", "value": fraction_text(ideal.alpha), "value_decimal": _decimal(ideal.alpha),
         "meaning": "the tightest alpha of the ideal geometric truncated mechanism, computed exactly",
         "holds": None if code is None else code.alpha >= ideal.alpha, "source": "paper 004 §2 (gtpmf)"},
        {"name": "support bound", "value": fraction_text(spec.support_bound()),
         "value_decimal": _decimal(spec.support_bound()),
         "meaning": f"T >= (1+alpha)/((1-alpha) alpha^n) makes every output possible; T = {spec.T}",
         "holds": spec.T >= spec.support_bound(), "source": "paper 004 §5"},
        {"name": "Theorem 6.2 alpha'", "value": fraction_text(alpha_prime), "value_decimal": _decimal(alpha_prime),
         "meaning": "the degraded ratio the rounded code keeps" + (" (vacuous: T <= 1/D)" if alpha_prime <= 0 else ""),
         "holds": None if code is None else code.alpha >= alpha_prime, "source": "paper 004 Theorem 6.2"},
        {"name": "Theorem 7.1 instance", "value": "yes" if spec.is_theorem_7_1_instance() else "no",
         "value_decimal": None,
         "meaning": "alpha = 1/D and T = (D+1) D^n: the code samples gtpmf exactly, so alpha itself holds",
         "holds": None if code is None or not spec.is_theorem_7_1_instance() else code.alpha >= spec.alpha,
         "source": "paper 004 Theorem 7.1"},
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

