"""How far a survey row's law is from its claim, in the two numbers a reader compares: the
epsilon that holds at the claimed delta, and the delta that holds at the claimed epsilon.

An exact row computes both from its exact laws (:func:`exact_magnitude`): ``delta(eps)`` is the
hockey-stick divergence, enclosed by
:func:`~dpverify.verify.published._diffprivlib_check.delta_at`, and the epsilon at the claimed delta
is enclosed by bisecting ``eps`` on it (``delta(eps)`` is non-increasing in ``eps``).  A black box
gives certified lower bounds from the same held-out counts (its privacy check's evidence), so "delta
>= 0.026 at epsilon = 1" is visible where that is the defect.  :func:`magnitude_text` reads either
from a row's details for the table.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Any

__all__ = ["exact_magnitude", "magnitude_text"]

#: Bisection steps for the epsilon at the claimed delta: an enclosure about 2^-30 wide.
_STEPS = 36
_HIGHEST_EPSILON = Fraction(64)

Law = Mapping[Hashable, Fraction]


def _delta(pairs: Sequence[tuple[Law, Law]], epsilon: Fraction) -> tuple[Fraction, Fraction]:
    from dpverify.verify.published._diffprivlib_check import delta_at

    found = [
        delta_at(dict(a), dict(b), epsilon) for first, second in pairs for a, b in ((first, second), (second, first))
    ]
    return max(low for low, _ in found), max(high for _, high in found)


def exact_magnitude(pairs: Sequence[tuple[Law, Law]], epsilon: Fraction, delta: Fraction) -> dict[str, str]:
    """The magnitude of exact laws, one pair of neighbouring inputs' laws (sub-probabilities allowed:
    outputs left out are not released) per item of ``pairs``, against the claim ``(epsilon, delta)``:
    the enclosure of delta at ``epsilon``, and of the smallest epsilon whose delta is at most ``delta``
    (``Infinity`` when no epsilon up to 64 reaches it)."""
    low, high = _delta(pairs, epsilon)
    result = {
        "delta_at_claimed_epsilon_low": str(low),
        "delta_at_claimed_epsilon_high": str(high),
        "delta_at_claimed_epsilon": f"{float(high):.6g}",
        "delta_how": "exact (an enclosure)",
    }
    if _delta(pairs, _HIGHEST_EPSILON)[0] > delta:
        result.update(epsilon="Infinity", epsilon_how=f"exact: delta stays above {delta} for every epsilon <= 64")
        return result
    # invariant: delta(below) may exceed the claim (its low end does), delta(above)'s high end does not
    below, above = Fraction(0), _HIGHEST_EPSILON
    if _delta(pairs, below)[1] <= delta:
        above = below
    for _ in range(_STEPS if above > below else 0):
        middle = (below + above) / 2
        if _delta(pairs, middle)[1] <= delta:
            above = middle
        else:
            below = middle
    result.update(
        epsilon=f"{float(above):.9g}",
        epsilon_low=str(below),
        epsilon_high=str(above),
        epsilon_how=f"exact: the least epsilon with delta <= {delta} lies in [{float(below):.9g}, {float(above):.9g}]",
    )
    return result


def _blackbox(details: Mapping[str, Any]) -> str | None:
    for check in details.get("checks") or ():
        evidence = check.get("evidence") or {}
        if check.get("check") != "blackbox_privacy" or "epsilon_lower_bound" not in evidence:
            continue
        if "rho_lower_bound" in evidence:  # a zCDP claim: rho is what it promises, epsilon what follows
            return f"rho >= {evidence['rho_lower_bound']}, epsilon >= {evidence['epsilon_lower_bound']} (certified)"
        epsilon = evidence.get("epsilon_lower_bound_at_delta", evidence["epsilon_lower_bound"])
        delta = evidence.get("delta_lower_bound_at_epsilon_decimal")
        shown = f"epsilon >= {epsilon} at the claimed delta"
        return shown + (f"; delta >= {delta} at the claimed epsilon" if delta is not None else "") + " (certified)"
    return None


def magnitude_text(details: object) -> str:
    """A row's magnitude, for the table: ``-`` where it has none (a distribution test, no privacy claim)."""
    if not isinstance(details, Mapping):
        return "-"
    found = details.get("magnitude")
    if isinstance(found, Mapping):
        epsilon, delta = found["epsilon"], found["delta_at_claimed_epsilon"]
        how = found.get("delta_how", "exact")
        return f"epsilon = {epsilon} at the claimed delta; delta = {delta} at the claimed epsilon ({how})"
    check = details.get("check")
    evidence = check.get("evidence") if isinstance(check, Mapping) else None
    if isinstance(evidence, Mapping) and "epsilon_exact" in evidence:
        shown = f"epsilon = {evidence['epsilon_exact']} (exact)"
        delta = evidence.get("delta_at_claimed_epsilon")
        if isinstance(delta, Mapping):
            shown += f"; delta = {delta['approx']:.3g} at the claimed epsilon (exact, the enclosure's upper end)"
        return shown
    return _blackbox(details) or "-"
