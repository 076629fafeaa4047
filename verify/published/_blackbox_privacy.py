"""The black-box privacy test (:func:`check_black_box_privacy`, described in the docstring of
:mod:`dpverify.verify.published._blackbox`): held-out Clopper–Pearson bounds on one output event
chosen on a selection half, with the event family and the features of a draw it searches.  Its
own module: it needs only draws and a claim, and the benchmark runs it without the audit.
"""

from __future__ import annotations

import bisect
import math
import time
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from dpverify.samplers import InvalidArgument, as_open_unit_interval
from dpverify.samplers._rational import RationalLike
from dpverify.specs._claims import ApproxDp, Claim, PureDp, Zcdp
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.verify.engine._clopper_pearson import clopper_pearson_lower, clopper_pearson_upper
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value
from dpverify.verify.engine._statistics import _mpf_fraction
from dpverify.verify.published._blackbox_draw import _numeric

__all__ = [
    "DEFAULT_ALPHA",
    "Event",
    "check_black_box_privacy",
]

#: The default level of the privacy test: a sampler meeting its claim is reported violated with
#: probability at most this (the bound's confidence is ``1 - alpha``).
DEFAULT_ALPHA = Fraction(1, 10**6)
#: Quantiles of the selection draws that bound the candidate intervals.
QUANTILES = 16
#: Lowest-set-bit exponents are clipped to this range (doubles span about -1074 .. 1023).
_EXPONENT_CAP = 1100
#: Orders of the Renyi divergence over which a zCDP bound is maximised.
_ORDERS = tuple(Fraction(a) for a in ("5/4", "3/2", 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256, 512, 1024))


# --- features of a draw: where it lies and how fine its binary expansion is ------------------------


def _lowest_bit(value: int | float | Fraction) -> int:
    """``e`` with ``value = m * 2**e`` and ``m`` odd (clipped to ``+-_EXPONENT_CAP``; ``0`` and a
    non-dyadic rational take the clip's ends).  ``value * 2**j`` is an integer iff ``e >= -j``."""
    if isinstance(value, int):
        return _EXPONENT_CAP if value == 0 else min((value & -value).bit_length() - 1, _EXPONENT_CAP)
    numerator, denominator = value.as_integer_ratio()
    if numerator == 0:
        return _EXPONENT_CAP
    if denominator & (denominator - 1):
        return -_EXPONENT_CAP
    e = (numerator & -numerator).bit_length() - 1 - (denominator.bit_length() - 1)
    return max(-_EXPONENT_CAP, min(e, _EXPONENT_CAP))


@dataclass(frozen=True, slots=True)
class Event:
    """An output event: ``low <= o < high`` (None: unbounded) and, with ``bit`` set, a condition on
    the lowest set bit ``e`` of ``o`` (``o = m 2**e``, ``m`` odd): ``e < bit`` when ``fine`` (that is,
    ``o * 2**-bit`` is not an integer), else ``e >= bit`` (it is); or one non-numeric output ``atom``."""

    low: int | float | Fraction | None = None
    high: int | float | Fraction | None = None
    bit: int | None = None
    fine: bool = True
    atom: Hashable = None

    def __contains__(self, output: Hashable) -> bool:
        if self.atom is not None:
            return output == self.atom
        if not _numeric(output):
            return False
        if self.low is not None and output < self.low:  # type: ignore[operator]
            return False
        if self.high is not None and output >= self.high:  # type: ignore[operator]
            return False
        if self.bit is None:
            return True
        return (_lowest_bit(output) < self.bit) == self.fine  # type: ignore[arg-type]

    def describe(self) -> str:
        if self.atom is not None:
            return f"output is {self.atom}"
        parts = []
        if self.low is not None and self.high is not None:
            parts.append(f"{_show_point(self.low)} <= o < {_show_point(self.high)}")
        elif self.low is not None:
            parts.append(f"o >= {_show_point(self.low)}")
        elif self.high is not None:
            parts.append(f"o < {_show_point(self.high)}")
        else:
            parts.append("o is a number")
        if self.bit is not None:
            j = -self.bit
            what = "not an integer" if self.fine else "an integer"
            parts.append(f"o * 2^{j} is {what}")
        return " and ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"description": self.describe(),
                "low": None if self.low is None else _point_json(self.low),
                "high": None if self.high is None else _point_json(self.high),
                "lowest_bit_below": self.bit if self.fine else None,
                "lowest_bit_at_least": self.bit if not self.fine else None,
                "atom": None if self.atom is None else str(self.atom)}


def _show_point(value: int | float | Fraction) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _point_json(value: int | float | Fraction) -> str:
    return fraction_text(Fraction(value))


def _as_point(value: Fraction) -> int | float | Fraction:
    """A boundary in the cheapest exact type: int, float when exactly representable, else Fraction."""
    if value.denominator == 1:
        return int(value)
    as_float = float(value)
    return as_float if Fraction(as_float) == value else value


# --- the privacy test --------------------------------------------------------------------------------


def _boundaries(selection: Sequence[Hashable], inputs: tuple[Hashable, Hashable]) -> list[int | float | Fraction]:
    numbers = sorted(o for o in selection if _numeric(o))
    points: set[Fraction] = set()
    if numbers:
        for i in range(1, QUANTILES):
            points.add(Fraction(numbers[(i * len(numbers)) // QUANTILES]))
    if all(_numeric(q) for q in inputs):
        a, b = (Fraction(q) for q in inputs)  # type: ignore[arg-type]
        half = (b - a) / 2
        points |= {a, b, a + half, a - half, b + half}
    return sorted((_as_point(p) for p in points), key=Fraction)


class _Table:
    """Counts of one half of one input's draws by (interval index, lowest bit) and by atom."""

    def __init__(self, outputs: Sequence[Hashable], boundaries: Sequence[int | float | Fraction]) -> None:
        self.size = len(outputs)
        self.cells: Counter[tuple[int, int]] = Counter()
        self.atoms: Counter[Hashable] = Counter()
        for output in outputs:
            if _numeric(output):
                self.cells[(bisect.bisect_right(boundaries, output), _lowest_bit(output))] += 1  # type: ignore[arg-type]
            else:
                self.atoms[output] += 1

    def prefix(self, intervals: int, bits: Sequence[int]) -> list[list[int]]:
        """``P[i][t]``: draws in intervals ``< i`` whose lowest bit is ``< bits[t]``; the last
        column (``t = len(bits)``) counts every lowest bit."""
        columns = len(bits) + 1
        per_interval = [[0] * columns for _ in range(intervals)]
        for (interval, bit), count in self.cells.items():
            row = per_interval[interval]
            # bit < bits[c] exactly for the columns c >= bisect_right(bits, bit)
            for column in range(bisect.bisect_right(bits, bit), len(bits)):
                row[column] += count
            row[len(bits)] += count
        prefix = [[0] * columns]
        for row in per_interval:
            prefix.append([a + b for a, b in zip(prefix[-1], row)])
        return prefix


def _score(k_a: int, n_a: int, k_b: int, n_b: int, log_level: float) -> float:
    """The smoothed log-ratio that steers the search (see the docstring of
    :mod:`dpverify.verify.published._blackbox`)."""
    low = k_a - math.sqrt(2 * k_a * log_level)
    if low <= 0 or n_a == 0 or n_b == 0:
        return -math.inf
    high = k_b + math.sqrt(2 * k_b * log_level) + log_level
    return math.log(low / n_a) - math.log(high / n_b)


@dataclass(frozen=True, slots=True)
class _Choice:
    event: Event
    forward: bool  # True: A = q0, B = q1
    score: float
    candidates: int


def _choose(select0: Sequence[Hashable], select1: Sequence[Hashable], inputs: tuple[Hashable, Hashable],
            alpha: Fraction, float_structure: bool = True) -> _Choice | None:
    boundaries = _boundaries(list(select0) + list(select1), inputs)
    tables = (_Table(select0, boundaries), _Table(select1, boundaries))
    bits = sorted({bit for table in tables for (_, bit) in table.cells}) if float_structure else []
    intervals = len(boundaries) + 1
    prefixes = [table.prefix(intervals, bits) for table in tables]
    log_level = math.log(2 / alpha)
    n0, n1 = tables[0].size, tables[1].size
    best: _Choice | None = None
    candidates = 0
    every = len(bits)

    def consider(event: Event, k0: int, k1: int) -> None:
        nonlocal best, candidates
        candidates += 2
        for forward, score in ((True, _score(k0, n0, k1, n1, log_level)), (False, _score(k1, n1, k0, n0, log_level))):
            if score > -math.inf and (best is None or score > best.score):
                best = _Choice(event, forward, score, 0)

    for i in range(intervals):
        for j in range(i + 1, intervals + 1):
            low = boundaries[i - 1] if i > 0 else None
            high = boundaries[j - 1] if j <= len(boundaries) else None
            if j == intervals:
                high = None
            totals = [(p[j][every] - p[i][every]) for p in prefixes]
            consider(Event(low, high), totals[0], totals[1])
            for t, bit in enumerate(bits):
                below = [(p[j][t] - p[i][t]) for p in prefixes]
                consider(Event(low, high, bit, True), below[0], below[1])
                consider(Event(low, high, bit, False), totals[0] - below[0], totals[1] - below[1])
    for atom in set(tables[0].atoms) | set(tables[1].atoms):
        consider(Event(atom=atom), tables[0].atoms[atom], tables[1].atoms[atom])
    if best is None:
        return None
    return _Choice(best.event, best.forward, best.score, candidates)


def _log_lower(value: iv.mpf) -> Fraction:
    """The lower end of an interval, as an exact Fraction."""
    return _mpf_fraction(mpmath.mpf(value.a))


def _epsilon_lower(low: Fraction, high: Fraction, delta: Fraction = Fraction(0)) -> Fraction | None:
    """A rational ``<= ln((low - delta) / high)``; None when ``low <= delta`` (no bound); a huge
    value stands for infinity when ``high = 0`` cannot occur (CP upper bounds are positive)."""
    if low <= delta:
        return None
    with interval_precision(128):
        return _log_lower(iv.log(iv_rational(low - delta) / iv_rational(high)))


def _binary_renyi_lower(low: Fraction, high: Fraction, order: Fraction) -> Fraction:
    """A rational ``<= D_a(Bern(low) || Bern(high))`` for ``low > high``, order ``a > 1``:
    ``ln(low^a high^(1-a) + (1-low)^a (1-high)^(1-a)) / (a - 1)``."""
    with interval_precision(128):
        a = iv_rational(order)
        l, h = iv_rational(low), iv_rational(high)
        total = iv.exp(a * iv.log(l) + (1 - a) * iv.log(h))
        if low < 1:
            total += iv.exp(a * iv.log(1 - l) + (1 - a) * iv.log(1 - h))
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


def _claim_epsilon(claim: Claim) -> Fraction | None:
    if isinstance(claim, PureDp):
        if claim.epsilon is not None:
            return Fraction(claim.epsilon)
        return None
    if isinstance(claim, ApproxDp):
        return Fraction(claim.epsilon)
    return None


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
    """The privacy test of the docstring of :mod:`dpverify.verify.published._blackbox` on the
    draws of ``q0 = inputs[0]`` and ``q1 = inputs[1]`` (each split into a first, selection, half
    and a second, held-out, half).

    ``claim``: :class:`PureDp`, :class:`ApproxDp` or :class:`Zcdp` (for :class:`SamplesPmf` the
    bound is reported without a verdict on a claim).  Returns ``violated`` when the held-out
    bound exceeds the claim, else ``proved`` in the closed vocabulary's sense for a statistical
    test: *no violation certified*; the evidence always carries the certified lower bound, the
    event, both counts and bounds, the seed, the number of draws and the time, and
    ``max_certifiable_epsilon``, the largest bound these held-out sizes can ever give (an event
    never seen under ``B``), which is the test's reach.  ``float_structure=False`` searches the
    intervals alone (the benchmark's baseline).
    """
    a = as_open_unit_interval("alpha", alpha)
    n0, n1 = len(draws0), len(draws1)
    if n0 < 4 or n1 < 4:
        raise InvalidArgument(f"the privacy test needs at least 4 draws per input; got {n0} and {n1}.")
    half0, half1 = n0 // 2, n1 // 2
    select0, test0 = draws0[:half0], draws0[half0:]
    select1, test1 = draws1[:half1], draws1[half1:]
    started = time.monotonic()
    choice = _choose(select0, select1, inputs, a, float_structure)
    evidence: dict[str, Any] = {
        "inputs": [json_value(q) for q in inputs], "claim": _claim_text(claim), "alpha": fraction_text(a),
        "confidence": fraction_text(1 - a), "seed": seed, "samples_per_input": [n0, n1],
        "selection_sizes": [half0, half1], "held_out_sizes": [n0 - half0, n1 - half1],
        "seconds_sampling": seconds,
    }
    reach = _epsilon_lower(Fraction(1), clopper_pearson_upper(0, min(n0 - half0, n1 - half1), a / 2))
    evidence["max_certifiable_epsilon"] = _decimal(reach) if reach is not None else None
    if choice is None:
        evidence["seconds_search"] = time.monotonic() - started
        return CheckResult("blackbox_privacy", Verdict.PROVED,
                           f"no event is more likely under one input than the other on the selection draws; "
                           f"no violation certified (alpha={fraction_text(a)}, seed={seed})",
                           evidence=evidence | {"epsilon_lower_bound": None, "event": None})
    event = choice.event
    k0 = sum(1 for o in test0 if o in event)
    k1 = sum(1 for o in test1 if o in event)
    (k_a, n_a, q_a), (k_b, n_b, q_b) = (((k0, len(test0), inputs[0]), (k1, len(test1), inputs[1])) if choice.forward
                                        else ((k1, len(test1), inputs[1]), (k0, len(test0), inputs[0])))
    low = clopper_pearson_lower(k_a, n_a, a / 2)
    high = clopper_pearson_upper(k_b, n_b, a / 2)
    eps = _epsilon_lower(low, high)
    evidence |= {
        "event": event.to_json(), "candidates": choice.candidates, "selection_score": choice.score,
        "more_likely_under": json_value(q_a), "less_likely_under": json_value(q_b),
        "held_out_counts": {"more_likely": k_a, "less_likely": k_b},
        "p_more_likely_lower": fraction_text(low), "p_less_likely_upper": fraction_text(high),
        "epsilon_lower_bound": None if eps is None else _decimal(eps),
    }
    claimed, bound_text, violated = _against_claim(claim, low, high, eps, evidence)
    evidence["seconds_search"] = time.monotonic() - started
    where = (f"event {event.describe()}: {k_a}/{n_a} held-out draws at q={q_a!r} (P >= {float(low):.4g}) vs "
             f"{k_b}/{n_b} at q={q_b!r} (P <= {float(high):.4g}); confidence {float(1 - a):.6g}, seed={seed}, "
             f"{n0 + n1} draws")
    if seconds is not None:
        where += f" in {seconds:.1f} s"
    if violated:
        return CheckResult("blackbox_privacy", Verdict.VIOLATED,
                           f"certified {bound_text} > claimed {claimed}: {where}", evidence=evidence)
    return CheckResult("blackbox_privacy", Verdict.PROVED,
                       f"no violation certified: {bound_text} <= claimed {claimed} (the best of "
                       f"{choice.candidates} events chosen on the selection half); {where}", evidence=evidence)


def _claim_text(claim: Claim) -> str:
    return claim.describe() if hasattr(claim, "describe") else repr(claim)


def _against_claim(claim: Claim, low: Fraction, high: Fraction, eps: Fraction | None,
                   evidence: dict[str, Any]) -> tuple[str, str, bool]:
    """``(claimed, bound, violated)`` for the claim's own parameter."""
    eps_text = "epsilon >= " + ("-inf" if eps is None else _decimal(eps))
    if isinstance(claim, PureDp):
        if claim.alpha is not None:  # e^-eps = alpha exactly: low * alpha > high is exact
            violated = low * Fraction(claim.alpha) > high
            return f"alpha = e^-epsilon = {claim.alpha}", eps_text, violated
        epsilon = Fraction(claim.epsilon)
        return f"epsilon = {epsilon}", eps_text, eps is not None and eps > epsilon
    if isinstance(claim, ApproxDp):
        delta = Fraction(claim.delta)
        bound = _epsilon_lower(low, high, delta)
        evidence["epsilon_lower_bound_at_delta"] = None if bound is None else _decimal(bound)
        text = "epsilon >= " + ("-inf" if bound is None else _decimal(bound)) + f" at delta = {delta}"
        return f"epsilon = {claim.epsilon} at delta = {delta}", text, bound is not None and bound > Fraction(claim.epsilon)
    if isinstance(claim, Zcdp):
        found = _rho_lower(low, high)
        rho = Fraction(claim.rho)
        evidence["rho_lower_bound"] = None if found is None else _decimal(found[0], 12)
        evidence["renyi_order"] = None if found is None else fraction_text(found[1])
        if found is None:
            return f"rho = {rho}", "rho >= 0", False
        return f"rho = {rho}", f"rho >= {_decimal(found[0], 12)} (order {found[1]}), {eps_text}", found[0] > rho
    return "no privacy (SamplesPmf)", eps_text, False
