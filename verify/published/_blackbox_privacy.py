"""The black-box privacy test (:func:`check_black_box_privacy_search`, described in the
docstring of :mod:`dpverify.verify.published._blackbox`): held-out Clopper–Pearson bounds on the
one output event that :mod:`~dpverify.verify.published._blackbox_search` chose on the selection
halves, turned into a certified lower bound on epsilon (rho for zCDP).  Its own module: it needs
only draws and a claim, and the benchmark runs it without the audit.

**Why the level stays alpha over the whole search.**  Each input's draws are split by position
into a selection half and a held-out half.  The pair, the view, the event and the direction are
a function of the selection halves alone, and the held-out halves are independent of them (the
draws of a black box are independent calls).  So, conditionally on whatever was chosen, the
held-out counts of the chosen pair are binomial with the chosen event's true probabilities, and
the two Clopper–Pearson bounds at ``alpha/2`` each hold jointly with probability ``>= 1 - alpha``.
No union bound over the candidates or the pairs is needed, and none is applied: only one event
is ever tested.  (Held-out halves drawn for every pair cost nothing extra here: the draws of an
input serve every pair it belongs to, and the unused halves are simply not looked at.)
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

from mpmath import iv

from dpverify.samplers import InvalidArgument, as_open_unit_interval
from dpverify.samplers._rational import RationalLike, shown
from dpverify.specs._claims import ApproxDp, Claim, PureDp, Zcdp
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.specs._interval_tools import iv_lower, iv_upper
from dpverify.verify.engine._clopper_pearson import clopper_pearson_lower, clopper_pearson_upper
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value
from dpverify.verify.engine._statistics import _mpf_fraction
from dpverify.verify.published._blackbox_search import Event, Search, search

__all__ = [
    "DEFAULT_ALPHA",
    "Event",
    "check_black_box_privacy",
    "check_black_box_privacy_search",
]

#: The default level of the privacy test: a sampler meeting its claim is reported violated with
#: probability at most this (the bound's confidence is ``1 - alpha``).
DEFAULT_ALPHA = Fraction(1, 10**6)
#: Orders of the Renyi divergence over which a zCDP bound is maximised.
_ORDERS = tuple(Fraction(a) for a in ("5/4", "3/2", 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256, 512, 1024))


# --- certified bounds from the two held-out probabilities -----------------------------------------


def _log_lower(value: iv.mpf) -> Fraction:
    """The lower end of an interval, as an exact Fraction."""
    return _mpf_fraction(iv_lower(value))  # the exact end: mpmath.mpf() would round it to 53 bits, either way


def _epsilon_lower(low: Fraction, high: Fraction, delta: Fraction = Fraction(0)) -> Fraction | None:
    """A rational ``<= ln((low - delta) / high)``; None when ``low <= delta`` (no bound); a huge
    value stands for infinity when ``high = 0`` cannot occur (CP upper bounds are positive)."""
    if low <= delta:
        return None
    with interval_precision(128):
        return _log_lower(iv.log(iv_rational(low - delta) / iv_rational(high)))


def _delta_lower(low: Fraction, high: Fraction, epsilon: Fraction | None, alpha: Fraction | None = None) -> Fraction:
    """A rational ``<= low - e^epsilon * high``, the delta the event certifies at ``epsilon``
    (``alpha`` = e^-epsilon exactly, when the claim gives it; then the bound is exact).  The event E
    has ``P(E | q) >= low`` and ``P(E | q') <= high``, and (epsilon, delta)-DP needs
    ``P(E | q) <= e^epsilon P(E | q') + delta``."""
    if alpha is not None:
        return low - high / alpha
    assert epsilon is not None
    with interval_precision(128):
        growth = _mpf_fraction(iv_upper(iv.exp(iv_rational(epsilon))))  # an upper end: delta stays a lower bound
    return low - growth * high


def _delta_text(delta: Fraction) -> str:
    """``0.0381`` for a lower bound on delta: 3 significant digits, rounded down; ``0`` for none."""
    if delta <= 0:
        return "0"
    digits = max(3, 3 - math.floor(math.log10(delta)))
    return _decimal(delta, digits).rstrip("0").rstrip(".")


def _binary_renyi_lower(low: Fraction, high: Fraction, order: Fraction) -> Fraction:
    """A rational ``<= D_a(Bern(low) || Bern(high))`` for ``low > high``, order ``a > 1``:
    ``ln(low^a high^(1-a) + (1-low)^a (1-high)^(1-a)) / (a - 1)``."""
    with interval_precision(128):
        a = iv_rational(order)
        lo, hi = iv_rational(low), iv_rational(high)
        total = iv.exp(a * iv.log(lo) + (1 - a) * iv.log(hi))
        if low < 1:
            total += iv.exp(a * iv.log(1 - lo) + (1 - a) * iv.log(1 - hi))
        return _log_lower(iv.log(total) / (a - 1))


def _rho_lower(low: Fraction, high: Fraction) -> tuple[Fraction, Fraction] | None:
    """``(rho, a)``: a rational ``<= max_a D_a(Bern(low) || Bern(high)) / a`` over ``_ORDERS``."""
    if low <= high:
        return None
    best = max((_binary_renyi_lower(low, high, a) / a, a) for a in _ORDERS)
    return best


def _decimal(value: Fraction, digits: int = 6) -> str:
    """``value`` rounded down to ``digits`` decimals (a lower bound stays one)."""
    scaled = math.floor(value * 10**digits)
    sign = "-" if scaled < 0 else ""
    scaled = abs(scaled)
    return f"{sign}{scaled // 10**digits}.{scaled % 10**digits:0{digits}d}"


# --- the test --------------------------------------------------------------------------------------


def check_black_box_privacy(
    draws0: Sequence[Hashable],
    draws1: Sequence[Hashable],
    inputs: tuple[Hashable, Hashable],
    claim: Claim,
    *,
    alpha: RationalLike = DEFAULT_ALPHA,
    seed: int | None = None,
    seconds: float | None = None,
    float_structure: bool = True,
) -> CheckResult:
    """:func:`check_black_box_privacy_search` on the one pair ``inputs = (q0, q1)`` with the
    draws ``draws0`` of ``q0`` and ``draws1`` of ``q1``."""
    if not isinstance(inputs, (tuple, list)) or len(inputs) != 2:
        raise InvalidArgument(f"inputs must be a pair (q0, q1); got inputs={shown(inputs)}.")
    return check_black_box_privacy_search(
        [draws0, draws1],
        list(inputs),
        [(0, 1)],
        claim,
        alpha=alpha,
        seed=seed,
        seconds=seconds,
        float_structure=float_structure,
    )


def _validated(
    draws: Sequence[Sequence[Hashable]], inputs: Sequence[Hashable], pairs: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    if not isinstance(draws, Sequence) or not isinstance(inputs, Sequence) or len(draws) != len(inputs):
        got = len(draws) if isinstance(draws, Sequence) else type(draws).__name__
        raise InvalidArgument(
            f"draws and inputs must be sequences with one entry per input; got {got} draw lists "
            f"for inputs={shown(inputs)}."
        )
    for outputs, q in zip(draws, inputs, strict=True):
        if len(outputs) < 4:
            raise InvalidArgument(f"the privacy test needs at least 4 draws per input; got {len(outputs)} at q={q!r}.")
    checked = []
    for k, pair in enumerate(pairs):
        if (
            not isinstance(pair, (tuple, list))
            or len(pair) != 2
            or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(inputs) for i in pair)
            or pair[0] == pair[1]
        ):
            raise InvalidArgument(
                f"pairs must be index pairs (i, j), i != j, into the {len(inputs)} inputs; "
                f"got pairs[{k}]={shown(pair)}."
            )
        checked.append((pair[0], pair[1]))
    if not checked:
        raise InvalidArgument("pairs must name at least one neighbouring pair; got pairs=().")
    return checked


def check_black_box_privacy_search(
    draws: Sequence[Sequence[Hashable]],
    inputs: Sequence[Hashable],
    pairs: Sequence[tuple[int, int]],
    claim: Claim,
    *,
    alpha: RationalLike = DEFAULT_ALPHA,
    seed: int | None = None,
    seconds: float | None = None,
    float_structure: bool = True,
    pairs_available: int | None = None,
) -> CheckResult:
    """The privacy test on ``draws[i]``, the draws of ``inputs[i]``, over the neighbouring
    ``pairs`` (index pairs into ``inputs``): each input's draws split into a first, selection,
    half and a second, held-out, half; the (pair, view, event, direction) chosen on the selection
    halves (:func:`~dpverify.verify.published._blackbox_search.search`); the chosen pair's
    held-out halves tested at level ``alpha`` (the module docstring says why it stays ``alpha``).

    ``claim``: :class:`PureDp`, :class:`ApproxDp` or :class:`Zcdp` (for :class:`SamplesPmf` the
    bound is reported without a verdict on a claim).  Returns ``violated`` when the held-out
    bound exceeds the claim (probability ``<= alpha`` for a sampler that meets it, for every
    number of draws), else ``proved`` in the closed vocabulary's sense for a statistical test:
    *not refuted*, no violation certified.  The evidence always carries the chosen pair and
    event (its view and family), the candidates weighed, both held-out counts and bounds, the
    certified lower bound, the seed, the draws and the time, and ``max_certifiable_epsilon``, the
    largest bound the held-out sizes can ever give (an event never seen under ``B``): the test's
    reach.  ``pairs_available``: how many neighbouring pairs the spec had (``pairs`` may be a
    capped prefix).  ``float_structure=False`` leaves that family out (the benchmark's baseline).
    """
    a = as_open_unit_interval("alpha", alpha)
    pairs = _validated(draws, inputs, pairs)
    halves = [len(outputs) // 2 for outputs in draws]
    selections = [outputs[:h] for outputs, h in zip(draws, halves, strict=True)]
    held_out = [outputs[h:] for outputs, h in zip(draws, halves, strict=True)]
    started = time.monotonic()
    found = search(selections, inputs, pairs, a, float_structure=float_structure)
    chosen = found.choice.pair if found.choice is not None else pairs[0]
    i0, i1 = chosen
    evidence: dict[str, Any] = {
        "inputs": [json_value(inputs[i0]), json_value(inputs[i1])],
        "claim": _claim_text(claim),
        "alpha": fraction_text(a),
        "confidence": fraction_text(1 - a),
        "seed": seed,
        "samples_per_input": [len(draws[i0]), len(draws[i1])],
        "selection_sizes": [halves[i0], halves[i1]],
        "held_out_sizes": [len(held_out[i0]), len(held_out[i1])],
        "seconds_sampling": seconds,
    } | _search_evidence(found, inputs, pairs, pairs_available, a)
    smallest = min(len(h) for h in held_out)
    reach = _epsilon_lower(Fraction(1), clopper_pearson_upper(0, smallest, a / 2))
    evidence["max_certifiable_epsilon"] = _decimal(reach) if reach is not None else None
    total = sum(len(outputs) for outputs in draws)
    searched = f"{found.candidates} candidates over {len(pairs)} pair(s)"
    if found.choice is None:
        evidence["seconds_search"] = time.monotonic() - started
        return CheckResult(
            "blackbox_privacy",
            Verdict.PROVED,
            f"not refuted: no event is more likely under one input than the other on the selection "
            f"draws ({searched}); no violation certified (alpha={fraction_text(a)}, seed={seed})",
            evidence=evidence | {"epsilon_lower_bound": None, "event": None},
        )
    choice = found.choice
    located = choice.located
    k0, k1 = located.count(held_out[i0]), located.count(held_out[i1])
    (k_a, n_a, q_a), (k_b, n_b, q_b) = (
        ((k0, len(held_out[i0]), inputs[i0]), (k1, len(held_out[i1]), inputs[i1]))
        if choice.forward
        else ((k1, len(held_out[i1]), inputs[i1]), (k0, len(held_out[i0]), inputs[i0]))
    )
    low = clopper_pearson_lower(k_a, n_a, a / 2)
    high = clopper_pearson_upper(k_b, n_b, a / 2)
    eps = _epsilon_lower(low, high)
    evidence |= {
        "event": located.to_json(),
        "view": located.view.name,
        "family": located.event.family,
        "selection_score": choice.score,
        "more_likely_under": json_value(q_a),
        "less_likely_under": json_value(q_b),
        "held_out_counts": {"more_likely": k_a, "less_likely": k_b},
        "p_more_likely_lower": fraction_text(low),
        "p_less_likely_upper": fraction_text(high),
        "epsilon_lower_bound": None if eps is None else _decimal(eps),
    }
    claimed, bound_text, violated = _against_claim(claim, low, high, eps, evidence)
    evidence["seconds_search"] = time.monotonic() - started
    where = (
        f"event {located.describe()} ({located.event.family}) at the pair ({inputs[i0]!r}, {inputs[i1]!r}): "
        f"{k_a}/{n_a} held-out draws at q={q_a!r} (P >= {float(low):.4g}) vs {k_b}/{n_b} at q={q_b!r} "
        f"(P <= {float(high):.4g}); chosen on the selection halves among {searched}, so the held-out bound "
        f"holds at confidence {float(1 - a):.6g} with no correction; seed={seed}, {total} draws"
    )
    if seconds is not None:
        where += f" in {seconds:.1f} s"
    if violated:
        return CheckResult(
            "blackbox_privacy",
            Verdict.VIOLATED,
            f"certified {bound_text} > claimed {claimed}: {where}",
            evidence=evidence,
        )
    return CheckResult(
        "blackbox_privacy",
        Verdict.PROVED,
        f"not refuted, no violation certified: {bound_text} <= claimed {claimed} (reach of these "
        f"held-out sizes: epsilon <= {evidence['max_certifiable_epsilon']}); {where}",
        evidence=evidence,
    )


def _record_delta(evidence: dict[str, Any], delta: Fraction) -> None:
    evidence["delta_lower_bound_at_epsilon"] = fraction_text(max(delta, Fraction(0)))
    evidence["delta_lower_bound_at_epsilon_decimal"] = _delta_text(delta)


def _search_evidence(
    found: Search,
    inputs: Sequence[Hashable],
    pairs: Sequence[tuple[int, int]],
    pairs_available: int | None,
    alpha: Fraction,
) -> dict[str, Any]:
    return {
        "pairs_searched": [[json_value(inputs[i]), json_value(inputs[j])] for i, j in pairs],
        "pairs_available": len(pairs) if pairs_available is None else pairs_available,
        "views_searched": list(found.views),
        "coordinates_left_out": found.coordinates_left_out,
        "candidates": found.candidates,
        "candidates_by_family": found.by_family,
        "validity": (
            f"the pair, event and direction were chosen on the selection halves only, independent of the "
            f"held-out halves, and one event was tested: the bound holds with probability >= "
            f"1 - {fraction_text(alpha)} whatever was chosen, with no correction for the "
            f"{found.candidates} candidates over {len(pairs)} pair(s)"
        ),
    }


def _claim_text(claim: Claim) -> str:
    return claim.describe() if hasattr(claim, "describe") else repr(claim)


def _against_claim(
    claim: Claim, low: Fraction, high: Fraction, eps: Fraction | None, evidence: dict[str, Any]
) -> tuple[str, str, bool]:
    """``(claimed, bound, violated)`` for the claim's own parameter.  For pure and approximate DP the
    bound names both the certified epsilon at the claimed delta and the certified delta at the
    claimed epsilon, from the same two held-out bounds: the second shows a defect whose delta is
    large where the first is capped by the sample size (they exceed the claim together)."""
    eps_text = "epsilon >= " + ("-inf" if eps is None else _decimal(eps))
    if isinstance(claim, PureDp):
        alpha = None if claim.alpha is None else Fraction(claim.alpha)
        epsilon = None if claim.epsilon is None else Fraction(claim.epsilon)
        delta_low = _delta_lower(low, high, epsilon, alpha)
        _record_delta(evidence, delta_low)
        at = f"alpha = {alpha}" if alpha is not None else f"epsilon = {epsilon}"
        text = f"{eps_text}, delta >= {_delta_text(delta_low)} at {at}"
        if alpha is not None:  # e^-eps = alpha exactly: low * alpha > high is exact
            return f"alpha = e^-epsilon = {alpha}", text, low * alpha > high
        return f"epsilon = {epsilon}", text, eps is not None and epsilon is not None and eps > epsilon
    if isinstance(claim, ApproxDp):
        delta = Fraction(claim.delta)
        bound = _epsilon_lower(low, high, delta)
        evidence["epsilon_lower_bound_at_delta"] = None if bound is None else _decimal(bound)
        delta_low = _delta_lower(low, high, Fraction(claim.epsilon))
        _record_delta(evidence, delta_low)
        text = (
            "epsilon >= " + ("-inf" if bound is None else _decimal(bound)) + f" at delta = {delta}, "
            f"delta >= {_delta_text(delta_low)} at epsilon = {claim.epsilon}"
        )
        return (
            f"epsilon = {claim.epsilon} at delta = {delta}",
            text,
            bound is not None and bound > Fraction(claim.epsilon),
        )
    if isinstance(claim, Zcdp):
        found = _rho_lower(low, high)
        rho = Fraction(claim.rho)
        evidence["rho_lower_bound"] = None if found is None else _decimal(found[0], 12)
        evidence["renyi_order"] = None if found is None else fraction_text(found[1])
        if found is None:
            return f"rho = {rho}", "rho >= 0", False
        return f"rho = {rho}", f"rho >= {_decimal(found[0], 12)} (order {found[1]}), {eps_text}", found[0] > rho
    return "no privacy (SamplesPmf)", eps_text, False
