"""Two laws compared exactly: the outputs, and (output, number of draws) for the timing channel.

Pure arithmetic on two enumerations, with no sampler run, so it is its own module; the bounds it
uses are proved in the docstring of :mod:`dpverify.verify.changes._diff`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any, TypeVar

from dpverify.verify.engine._enumeration import Enumeration
from dpverify.verify.engine._intervals import decimal_text
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value
from dpverify.verify.engine._text import shown_value

__all__ = ["DEFAULT_MAX_TV", "compare_draws", "compare_outputs"]

#: A bounded enumeration proves two laws equal when its TV bound is at most this.
DEFAULT_MAX_TV = Fraction(1, 1000)


# --- comparing two laws ------------------------------------------------------------------------------

#: The keys of a law: outputs, or (output, draws) pairs.
K = TypeVar("K", bound=Hashable)


def _order(keys: list[K]) -> list[K]:
    try:
        return sorted(keys)  # type: ignore[type-var]  # keys that do not compare raise TypeError: kept as found
    except TypeError:
        return keys


def _union(first: Mapping[K, Any], second: Mapping[K, Any]) -> list[K]:
    return _order([*first, *(k for k in second if k not in first)])


def _interval(value: Fraction, width: Fraction) -> dict[str, str]:
    return {"low": fraction_text(value), "high": fraction_text(value + width)}


def _compare(
    old: Mapping[K, Fraction],
    old_u: Fraction,
    new: Mapping[K, Fraction],
    new_u: Fraction,
    max_tv: Fraction,
    check: str,
    what: Callable[[K], str],
    shown_key: Callable[[K], Any],
) -> CheckResult:
    """The comparison of :mod:`~dpverify.verify.changes._diff`'s docstring, on masses keyed by
    outputs or (output, draws)."""
    keys = _union(old, new)
    zero = Fraction(0)
    if old_u == 0 and new_u == 0:
        for key in keys:
            a, b = old.get(key, zero), new.get(key, zero)
            if a != b:
                return CheckResult(
                    check,
                    Verdict.VIOLATED,
                    f"{what(key)}: old {fraction_text(a)} (~{decimal_text(a, 6)}) vs new "
                    f"{fraction_text(b)} (~{decimal_text(b, 6)})",
                    evidence={
                        "at": shown_key(key),
                        "old": fraction_text(a),
                        "new": fraction_text(b),
                        "exact": True,
                        "compared": len(keys),
                    },
                )
        return CheckResult(
            check,
            Verdict.PROVED,
            f"identical exact laws over {len(keys)} value(s)",
            evidence={"exact": True, "compared": len(keys), "tv_bound": "0", "pointwise_bound": "0"},
        )
    pointwise, absolute = max(old_u, new_u), zero
    widest: tuple[Fraction, K] | None = None  # the value whose intervals lie farthest apart
    for key in keys:
        a, b = old.get(key, zero), new.get(key, zero)
        gap = max(b - (a + old_u), a - (b + new_u))
        if gap > 0 and (widest is None or gap > widest[0]):
            widest = (gap, key)
        absolute += abs(a - b)
        pointwise = max(pointwise, a + old_u - b, b + new_u - a)
    if widest is not None:
        key = widest[1]
        a, b = old.get(key, zero), new.get(key, zero)
        return CheckResult(
            check,
            Verdict.VIOLATED,
            f"{what(key)}: old in [{decimal_text(a, 8)}, {decimal_text(a + old_u, 8)}], new in "
            f"[{decimal_text(b, 8)}, {decimal_text(b + new_u, 8)}]: disjoint, so they differ",
            evidence={
                "at": shown_key(key),
                "old": _interval(a, old_u),
                "new": _interval(b, new_u),
                "gap": fraction_text(widest[0]),
                "exact": False,
                "compared": len(keys),
            },
        )
    tv = (absolute + old_u + new_u) / 2
    evidence = {
        "exact": False,
        "compared": len(keys),
        "tv_bound": fraction_text(tv),
        "tv_bound_decimal": decimal_text(tv, 8),
        "pointwise_bound": fraction_text(pointwise),
        "pointwise_bound_decimal": decimal_text(pointwise, 8),
        "old_unexplored": fraction_text(old_u),
        "new_unexplored": fraction_text(new_u),
        "max_tv": fraction_text(max_tv),
    }
    summary = (
        f"no value separates them: TV(old, new) <= {decimal_text(tv, 6)} and |P_old - P_new| <= "
        f"{decimal_text(pointwise, 6)} at every value ({len(keys)} compared)"
    )
    if tv <= max_tv:
        # a proof within a tolerance, never exact equality: the verdict text says so
        return CheckResult(check, Verdict.PROVED, summary, evidence=evidence, within=pointwise)
    reason = (
        f"the TV bound {decimal_text(tv, 6)} exceeds max_tv={fraction_text(max_tv)}: "
        "lower the enumeration's min_mass to tighten it"
    )
    return CheckResult(check, Verdict.INCONCLUSIVE, f"{summary}; {reason}", reason=reason, evidence=evidence)


def compare_outputs(old: Enumeration, new: Enumeration, *, max_tv: Fraction = DEFAULT_MAX_TV) -> CheckResult:
    """The output laws of two enumerations compared (:mod:`~dpverify.verify.changes._diff`, "Outputs")."""
    return _compare(
        old.masses,
        old.unexplored,
        new.masses,
        new.unexplored,
        max_tv,
        "output_distribution",
        lambda o: f"the laws differ at output {shown_value(o, 60)}",
        json_value,
    )


def compare_draws(old: Enumeration, new: Enumeration, *, max_tv: Fraction = DEFAULT_MAX_TV) -> CheckResult:
    """The joint laws of (output, draws) compared: the timing channel (:mod:`~dpverify.verify.changes._diff`)."""
    result = _compare(
        old.joint,
        old.unexplored,
        new.joint,
        new.unexplored,
        max_tv,
        "timing_channel",
        lambda key: f"the number of draws changed: P(output={shown_value(key[0], 40)}, draws={key[1]})",
        lambda key: {"output": json_value(key[0]), "draws": key[1]},
    )
    if result.verdict is not Verdict.VIOLATED:
        result = _draws_cdf(old, new) or result
    evidence = dict(result.evidence)
    if old.exhausted and new.exhausted:
        evidence["old_mean_draws"] = fraction_text(_mean_draws(old))
        evidence["new_mean_draws"] = fraction_text(_mean_draws(new))
    return replace(result, evidence=evidence)


def _draws_cdf(old: Enumeration, new: Enumeration) -> CheckResult | None:
    """A difference in ``P(draws <= k)``, or None.  Its explored part ``F(k)`` satisfies
    ``F(k) <= P(draws <= k) <= F(k) + U``, so disjoint intervals separate the two laws.  Shifting
    many light paths by one draw each moves little mass per (output, draws) pair but adds up in
    the distribution function, which is where a rejection loop's extra draw shows."""
    marginals = []
    for found in (old, new):
        by_draws: dict[int, Fraction] = {}
        for (_, draws), mass in found.joint.items():
            by_draws[draws] = by_draws.get(draws, Fraction(0)) + mass
        marginals.append(by_draws)
    widest: tuple[Fraction, int, Fraction, Fraction] | None = None
    below_old = below_new = Fraction(0)
    for k in sorted({*marginals[0], *marginals[1]}):
        below_old += marginals[0].get(k, Fraction(0))
        below_new += marginals[1].get(k, Fraction(0))
        gap = max(below_new - (below_old + old.unexplored), below_old - (below_new + new.unexplored))
        if gap > 0 and (widest is None or gap > widest[0]):
            widest = (gap, k, below_old, below_new)
    if widest is None:
        return None
    gap, k, a, b = widest
    return CheckResult(
        "timing_channel",
        Verdict.VIOLATED,
        f"the number of draws changed: P(draws <= {k}): old in [{decimal_text(a, 8)}, "
        f"{decimal_text(a + old.unexplored, 8)}], new in [{decimal_text(b, 8)}, "
        f"{decimal_text(b + new.unexplored, 8)}]: disjoint, so they differ",
        evidence={
            "at": {"draws_at_most": k},
            "old": _interval(a, old.unexplored),
            "new": _interval(b, new.unexplored),
            "gap": fraction_text(gap),
            "exact": old.exhausted and new.exhausted,
        },
    )


def _mean_draws(found: Enumeration) -> Fraction:
    return sum((mass * draws for (_, draws), mass in found.joint.items()), Fraction(0))
