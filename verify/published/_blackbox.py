"""Black-box audits: samplers that draw their own randomness (OpenDP through its bindings, numpy).

Such code cannot be run on dpverify's sources, so nothing about it is exact; what can be said
is statistical, with every false-positive rate bounded non-asymptotically.  Two tests:

**Distribution test** (:func:`check_black_box_distribution`).  ``N`` draws at one input ``q``
against the spec's law: its exact ``pmf(p, q)``, or its certified ``ideal`` enclosure of the
noise, read additively (``P(o | q) = ideal(p, o - q)`` for a spec with an input; the noise itself
for a spec without one).  Three parts, the last two at ``beta/2`` each:

1. certain violations: the sampler raised on a valid input, returned something that is not a
   finite number (``None``, a string, NaN), a non-integer where the law is over integers, or an
   output the exact PMF gives probability 0;
2. the DKW–Massart test of :mod:`dpverify.verify.engine._statistics` over all ``N`` draws (power: every
   CDF distance above ``2t`` is caught with probability ``>= 1 - beta/2``);
3. an *atom* test for mass piled on one output (a saturated or wrapped integer type): the output
   with the largest excess ``count/N1 - P_high(o)`` over the spec's upper enclosure is chosen on
   the first half of the draws, and on the held-out second half its exact Clopper–Pearson lower
   bound at ``beta/2`` must stay at most ``P_high(o)``.  The output is chosen before the second
   half is looked at, so the bound holds at level ``beta/2`` whatever was chosen.

**Privacy test** (:func:`check_black_box_privacy`).  ``N`` draws at each of two neighbouring
inputs ``q0, q1``, each split into a *selection* half and a *held-out* half.  An output event
``E`` and a direction (``A, B`` = ``q0, q1`` or ``q1, q0``) are chosen on the selection halves
only; on the held-out halves, the exact Clopper–Pearson bounds ``L = CP_low(k_A, n_A, alpha/2)``
and ``U = CP_high(k_B, n_B, alpha/2)`` hold jointly with probability ``>= 1 - alpha`` (union bound),
and then every ``(eps, delta)``-DP mechanism has ``L <= P_A(E) <= e^eps P_B(E) + delta <=
e^eps U + delta``, so

    eps >= ln((L - delta) / U)            with confidence 1 - alpha.

For a zCDP claim, ``D_a(P_A || P_B) >= D_a(Bern(P_A(E)) || Bern(P_B(E))) >= D_a(Bern(L) || Bern(U))``
(data processing, then the monotonicity of the binary divergence away from its zero when
``L > U``), so ``rho >= max_a D_a(Bern(L) || Bern(U)) / a`` over a fixed grid of orders ``a``
(Bun and Steinke 2016, Definition 1.1).  The verdict is ``violated`` exactly when the bound
exceeds the claim; a sampler that meets its claim is reported violated with probability at
most ``alpha``, for every ``N``.

*How the search is steered.*  The event family is the intervals ``[b_i, b_j)`` between the
selection halves' 16-quantiles and the points ``q0, q1, (q0+q1)/2, q0 - (q1-q0)/2,
q1 + (q1-q0)/2``, each alone or intersected with a float-structure condition: "``o * 2**j`` is
not an integer" or "is an integer", for every ``j`` at which some selection draw has its lowest
set bit; plus each non-numeric output (an exception, garbage) on its own.  Mironov ("On
significance of the least significant bits for differential privacy", CCS 2012) showed why the
second kind is needed: for ``q + Laplace`` in doubles with ``q in {0, 1}``, outputs in
``(0, 1/2)`` come from input 1 only as ``fl(1 + n) = 1 + n`` with ``n in (-1, -1/2)``, a multiple
of ``2**-53`` (Sterbenz), while input 0 returns the noise itself, which mostly is not.  Every
event is scored on the selection halves by a smoothed log-ratio that imitates the held-out bound,
``ln((k_A - sqrt(2 k_A L)) / n_A) - ln((k_B + sqrt(2 k_B L) + L) / n_B)`` with
``L = ln(2/alpha)``; the best event is the only one tested on the held-out halves.

Runs: the draws of each input run in their own process (two at a time, on two cores), under a
time bound; a sampler that hangs ends the test ``inconclusive`` with the number of draws it
finished.  Each process seeds ``random`` and, where it is installed, ``numpy.random`` from the
seed, so a numpy black box replays; OpenDP draws from the operating system and does not.
"""

from __future__ import annotations

import bisect
import importlib.util
import math
import multiprocessing
import operator
import random
import time
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from dpverify.samplers import DpverifyError, InvalidArgument, SystemRandomSource, as_int, as_open_unit_interval, fresh_seed
from dpverify.samplers._rational import RationalLike, shown
from dpverify.specs import ExactPmf
from dpverify.specs._api import Case, Randomness, Spec, SpecError
from dpverify.specs._claims import ApproxDp, Claim, PureDp, SamplesPmf, Zcdp
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.verify.engine._clopper_pearson import clopper_pearson_lower, clopper_pearson_upper
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value
from dpverify.verify.engine._random_compat import RandomCompat
from dpverify.verify.engine._statistics import _mpf_fraction, dkw_threshold, enclosure_gap

__all__ = [
    "BLACKBOX_SCHEMA",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "CaseResult",
    "Draws",
    "Event",
    "Garbage",
    "Raised",
    "audit_black_box",
    "audit_case",
    "check_black_box_distribution",
    "check_black_box_privacy",
    "draw",
    "normalise",
    "resolve_black_box",
]

BLACKBOX_SCHEMA = "dpverify.blackbox/1"
#: The default level of the privacy test: a sampler meeting its claim is reported violated with
#: probability at most this (the bound's confidence is ``1 - alpha``).
DEFAULT_ALPHA = Fraction(1, 10**6)
#: The default false-positive rate of the distribution test (the gate's statistical default).
DEFAULT_BETA = Fraction(1, 10**9)
#: Quantiles of the selection draws that bound the candidate intervals.
QUANTILES = 16
#: Lowest-set-bit exponents are clipped to this range (doubles span about -1074 .. 1023).
_EXPONENT_CAP = 1100
#: Draws a worker sends back at a time (partial results survive a hang).
_CHUNK = 20_000
#: Orders of the Renyi divergence over which a zCDP bound is maximised.
_ORDERS = tuple(Fraction(a) for a in ("5/4", "3/2", 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256, 512, 1024))


@dataclass(frozen=True, slots=True)
class Raised:
    """A draw that raised: the exception's type and (clipped) message stand for the output."""

    error: str
    message: str

    def __str__(self) -> str:
        return f"raised {self.error}: {self.message}"


@dataclass(frozen=True, slots=True)
class Garbage:
    """A draw that returned something other than a finite number: its type and (clipped) repr."""

    type: str
    text: str

    def __str__(self) -> str:
        return f"{self.type} {self.text}"


@dataclass(frozen=True, slots=True)
class Draws:
    """The outputs of one input, in draw order; ``complete`` false when the time bound cut them
    short (``timed_out``) or the process died (a crash in native code: ``exit_code``)."""

    outputs: tuple[Hashable, ...]
    seconds: float
    complete: bool
    seed: int
    timed_out: bool = False
    exit_code: int | None = None


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def normalise(value: object) -> Hashable:
    """A draw as the tests see it: an ``int`` (bools refused), a finite ``float``, a ``Fraction``,
    or a :class:`Garbage`.  Scalars of array libraries (``numpy.int64``, ``numpy.float32``) are
    converted exactly through ``__index__`` or ``item()``."""
    if isinstance(value, bool):
        return Garbage("bool", repr(value))
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else Garbage("float", repr(float(value)))
    if isinstance(value, Fraction):
        return value
    if hasattr(value, "__index__") and type(value).__module__.startswith("numpy"):
        return normalise(operator.index(value))  # type: ignore[arg-type]
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__.startswith("numpy"):
        try:
            return normalise(item())
        except Exception:  # noqa: BLE001 - an array, say: garbage either way
            pass
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a repr that raises is garbage too
        text = "<unprintable>"
    return Garbage(type(value).__name__, _clip(text, 60))


# --- drawing, in worker processes under a time bound -----------------------------------------------


def _seed_generators(seed: int) -> None:
    random.seed(seed)
    if importlib.util.find_spec("numpy") is not None:
        import numpy as np

        np.random.seed(seed % 2**32)


def _worker(connection: Any, call: Callable[[], object], samples: int, seed: int) -> None:
    _seed_generators(seed)
    chunk: list[Hashable] = []
    for _ in range(samples):
        try:
            output = normalise(call())
        except Exception as error:  # noqa: BLE001 - an exception is an output of the black box
            output = Raised(type(error).__name__, _clip(str(error)))
        chunk.append(output)
        if len(chunk) >= _CHUNK:
            connection.send(chunk)
            chunk = []
    connection.send(chunk)
    connection.send(None)
    connection.close()


def draw(calls: Sequence[Callable[[], object]], samples: int, *, seed: int, time_limit: float) -> list[Draws]:
    """``samples`` draws of each ``call()``, each call in its own forked process, all at once,
    within ``time_limit`` seconds in all.  Draw ``i`` of call ``c`` runs after ``random`` and
    ``numpy.random`` are seeded with ``seed + c``.  Exceptions become :class:`Raised` outputs and
    everything else passes through :func:`normalise`; a process still running at the deadline is
    killed and its draws so far are kept (``complete=False``)."""
    context = multiprocessing.get_context("fork")
    started = time.monotonic()
    deadline = started + time_limit
    running = []
    for index, call in enumerate(calls):
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_worker, args=(send, call, samples, seed + index), daemon=True)
        process.start()
        send.close()
        running.append((process, receive, [], seed + index))
    results = []
    for process, receive, outputs, worker_seed in running:
        complete = died = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not receive.poll(left):
                break
            try:
                chunk = receive.recv()
            except (EOFError, OSError):  # the process died (a crash in native code)
                died = True
                break
            if chunk is None:
                complete = True
                break
            outputs.extend(chunk)
        if died:  # its pipe closes a moment before it can be reaped: wait for its exit code
            process.join(5)
        timed_out = process.is_alive() and not complete
        if process.is_alive():
            process.join(1 if complete else 0)
        if process.is_alive():
            process.kill()
        process.join(5)
        receive.close()
        results.append(Draws(tuple(outputs), time.monotonic() - started, complete, worker_seed, timed_out,
                             None if complete or timed_out else process.exitcode))
    return results


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


def _numeric(output: Hashable) -> bool:
    return isinstance(output, (int, float, Fraction)) and not isinstance(output, bool)


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
    """The smoothed log-ratio that steers the search (see the module docstring)."""
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
    """The privacy test of the module docstring on the draws of ``q0 = inputs[0]`` and
    ``q1 = inputs[1]`` (each split into a first, selection, half and a second, held-out, half).

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


# --- the distribution test ------------------------------------------------------------------------


Law = Callable[[Hashable], tuple[Fraction, Fraction]]


def check_black_box_distribution(
    outputs: Sequence[Hashable],
    law: Law,
    listed: Sequence[int],
    *,
    exact: bool,
    integer: bool = True,
    beta: RationalLike = DEFAULT_BETA,
    seed: int | None = None,
    where: str = "",
) -> CheckResult:
    """The distribution test of the module docstring on ``outputs`` (draws at one input).

    ``law(o)`` is ``(low, high)``, exact rationals enclosing ``P(o)`` (``low == high`` for an exact
    PMF); ``listed`` the outputs whose CDF the DKW part compares (every output of an exact PMF;
    with ``exact`` an output outside them is a certain violation); ``integer``: the law is over
    ints.  Verdicts: ``violated`` for a certain violation or a rejection (each at most ``beta/2``
    when the sampler samples the law), ``inconclusive`` when the DKW part had no power, else
    ``proved`` (no discrepancy; the detectable CDF distance is in the evidence).
    """
    b = as_open_unit_interval("beta", beta)
    n = len(outputs)
    evidence: dict[str, Any] = {"seed": seed, "samples": n, "false_positive_rate": fraction_text(b)}
    suffix = f"; {where}" if where else ""
    if n < 2:
        return CheckResult("blackbox_distribution", Verdict.INCONCLUSIVE, f"only {n} draws{suffix}",
                           reason="too few draws", evidence=evidence)
    counts = Counter(outputs)
    support = set(listed)
    for output, count in counts.items():
        problem = None
        if isinstance(output, Raised):
            problem = f"the sampler {output} on a valid input"
        elif isinstance(output, Garbage):
            problem = f"the sampler returned {output}, not a finite number"
        elif integer and not isinstance(output, int):
            problem = f"the sampler returned {shown(output)} ({type(output).__name__}), not an integer"
        elif exact and output not in support:
            problem = f"the sampler returned {shown(output)}, to which the spec gives probability 0"
        if problem:
            evidence |= {"output": str(output) if not _numeric(output) else json_value(output), "count": count}
            return CheckResult("blackbox_distribution", Verdict.VIOLATED,
                               f"{problem} ({count} of {n} draws; a certain violation){suffix}", evidence=evidence)
    half_rate = b / 2
    # DKW over every draw, against the CDF enclosure at the listed outputs
    order = sorted(listed)
    bounds = [law(o) for o in order]
    outside = max(Fraction(0), 1 - sum(low for low, _ in bounds))
    t_squared, t = dkw_threshold(n, half_rate)
    worst, worst_at = enclosure_gap(counts, n, order, [low for low, _ in bounds], [high for _, high in bounds])
    evidence |= {"dkw_threshold": t, "detectable_distance": 2 * t, "cdf_outside_enclosure": float(worst),
                 "cdf_output": json_value(worst_at), "mass_outside_listed_outputs_at_most": float(outside)}
    if worst * worst > t_squared:
        return CheckResult("blackbox_distribution", Verdict.VIOLATED,
                           f"the empirical CDF is {float(worst):.4g} outside the spec's at output {worst_at!r}, more "
                           f"than t={t:.4g} (DKW, N={n}, rate {fraction_text(half_rate)}){suffix}", evidence=evidence)
    # the atom test: chosen on the first half, tested on the second
    first, second = outputs[: n // 2], outputs[n // 2:]
    first_counts = Counter(first)
    heavy = [o for o, _ in first_counts.most_common(20) if first_counts[o] >= 2]
    excess, chosen, chosen_high = None, None, Fraction(0)
    for output in heavy:
        high = law(output)[1]
        gap = Fraction(first_counts[output], len(first)) - high
        if excess is None or gap > excess:
            excess, chosen, chosen_high = gap, output, high
    if chosen is not None:
        k = sum(1 for o in second if o == chosen)
        low = clopper_pearson_lower(k, len(second), half_rate)
        evidence |= {"atom": json_value(chosen), "atom_held_out_count": k, "atom_held_out_size": len(second),
                     "atom_probability_lower": fraction_text(low), "atom_spec_probability_upper": fraction_text(chosen_high)}
        if low > chosen_high:
            return CheckResult("blackbox_distribution", Verdict.VIOLATED,
                               f"output {chosen!r} came {k} times in {len(second)} held-out draws: its probability "
                               f"is >= {float(low):.4g} (Clopper-Pearson, rate {fraction_text(half_rate)}), but the "
                               f"spec gives it <= {float(chosen_high):.4g}{suffix}", evidence=evidence)
    if 4 * t_squared >= 1:
        reason = f"the detectable CDF distance 2t={2 * t:.4g} is >= 1 at N={n}; draw more samples"
        return CheckResult("blackbox_distribution", Verdict.INCONCLUSIVE, f"{reason}{suffix}", reason=reason,
                           evidence=evidence)
    return CheckResult("blackbox_distribution", Verdict.PROVED,
                       f"consistent with the spec's law (DKW, N={n}: any CDF distance > {2 * t:.4g} beyond the "
                       f"enclosure detected with probability >= 1 - {fraction_text(half_rate)}; no output heavier "
                       f"than the spec allows){suffix}", evidence=evidence)


# --- one case of a spec, and the audit document -----------------------------------------------------


def _shifted(q: Hashable, noise: object) -> Hashable:
    """``q + noise`` for a noise spec's mechanism (exact for ints; a non-number passes through)."""
    value = normalise(noise)
    return q + value if _numeric(value) and _numeric(q) else value  # type: ignore[operator]


def _caller(spec: Spec, arguments: dict[str, Any], q: Hashable) -> Callable[[], object]:
    """A call of the sampler at ``q``; a sampler that takes ``rng`` gets the production source
    (the OS CSPRNG), as a user's call would, so any spec can be audited as a black box."""
    sampler = spec.sampler
    assert sampler is not None
    randomness = Randomness(spec.randomness)
    if randomness is not Randomness.NONE:
        source = SystemRandomSource()
        arguments = {**arguments, "rng": source if randomness is Randomness.SOURCE else RandomCompat(source)}
    if spec.input is not None:
        named = {**arguments, spec.input.name: q}
        return lambda: sampler(**named)
    return lambda: _shifted(q, sampler(**arguments))


def _law(spec: Spec, p: dict[str, Any], q: Hashable) -> tuple[Law, list[Hashable], bool] | None:
    """``(law, listed, exact)`` of the output at input ``q``, or None when the spec states no law."""
    if spec.pmf is not None:
        value = spec.pmf(p, q) if spec.input is not None else spec.pmf(p)
        table = ({o: Fraction(w, value.denominator) for o, w in zip(value.outputs, value.weights)}
                 if isinstance(value, ExactPmf) else {o: Fraction(w) for o, w in dict(value).items()})
        if spec.input is None:
            table = {q + o: w for o, w in table.items()}  # type: ignore[operator]
        exact_law: Law = lambda o: (table.get(o, Fraction(0)), table.get(o, Fraction(0)))  # noqa: E731
        return exact_law, list(table), True
    if spec.ideal is not None and spec.outputs is not None:
        ideal = spec.ideal

        def enclosed(o: Hashable) -> tuple[Fraction, Fraction]:
            low, high = ideal(p, o - q, 30)  # type: ignore[operator]
            return _mpf_fraction(mpmath.mpf(low)), _mpf_fraction(mpmath.mpf(high))

        return enclosed, [q + z for z in spec.outputs(p)], False  # type: ignore[operator]
    return None


def _missing_module(draws: Draws) -> str | None:
    """The module a sampler could not import, when every draw raised that: not a finding about it."""
    if draws.outputs and all(isinstance(o, Raised) and o.error in ("ModuleNotFoundError", "ImportError")
                             for o in draws.outputs[:10]):
        first = draws.outputs[0]
        assert isinstance(first, Raised)
        return first.message
    return None


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case's black-box checks, its outcome and whether it met the case's expectation."""

    case: Case
    outcome: str
    checks: tuple[CheckResult, ...]
    seconds: float
    notes: tuple[str, ...] = ()

    @property
    def met(self) -> bool:
        return self.outcome == self.case.expect

    def to_json(self) -> dict[str, Any]:
        return {"label": self.case.describe(), "parameters": {k: str(v) for k, v in self.case.parameters.items()},
                "expect": self.case.expect, "why": self.case.why, "outcome": self.outcome, "met": self.met,
                "seconds": self.seconds, "notes": list(self.notes), "checks": [c.to_json() for c in self.checks]}


def audit_case(spec: Spec, case: Case, *, seed: int, samples: int, alpha: RationalLike = DEFAULT_ALPHA,
               beta: RationalLike = DEFAULT_BETA, time_limit: float = 120) -> CaseResult:
    """Both tests on ``case`` of a black-box ``spec``: ``samples`` draws at each of the first
    neighbouring pair's inputs (for a spec without an input, ``0`` and ``sensitivity``, the
    mechanism being ``q + noise``), in two processes under ``time_limit`` seconds; the
    distribution test on the first input's draws, the privacy test on both."""
    if not isinstance(spec, Spec) or spec.sampler is None:
        raise InvalidArgument(f"a black-box audit needs a Spec with a sampler; got spec={shown(spec)}.")
    samples = as_int("samples", samples, low=4)
    started = time.monotonic()
    p = spec.bind(case)
    claim = spec.claim_for(p, case)
    arguments = spec.sampler_arguments(p)
    if spec.input is not None:
        values = tuple(spec.input.values(p))
        pairs = spec.input.pairs(p, values)
        if not pairs:
            raise SpecError(f"spec {shown(spec.name)}: case {case.describe()} has no neighbouring inputs to compare.")
        pair = pairs[0]
    else:
        pair = (0, spec.sensitivity_for(p))
    draws = draw([_caller(spec, arguments, q) for q in pair], samples, seed=seed, time_limit=time_limit)
    seconds = max(d.seconds for d in draws)
    where = f"seed={seed}, {samples} draws per input, {seconds:.1f} s"
    missing = next((m for m in map(_missing_module, draws) if m), None)
    if missing:
        reason = f"the sampler cannot run here: {missing}"
        result = CheckResult("blackbox", Verdict.INCONCLUSIVE, reason, reason=reason, evidence={"seed": seed})
        return CaseResult(case, Verdict.INCONCLUSIVE.value, (result,), time.monotonic() - started)
    if not all(d.complete for d in draws):
        done = ", ".join(f"{len(d.outputs)} at q={q!r}" for d, q in zip(draws, pair))
        crashed = [d.exit_code for d in draws if not d.complete and not d.timed_out]
        reason = (f"the sampler's process died (exit code {crashed[0]}) after {done} draws: a crash in native code"
                  if crashed else
                  f"the sampler did not finish {samples} draws per input within the time limit of {time_limit} s "
                  f"({done}): it hangs or is too slow")
        result = CheckResult("blackbox", Verdict.INCONCLUSIVE, f"{reason}; seed={seed}", reason=reason,
                             evidence={"seed": seed, "draws_done": [len(d.outputs) for d in draws],
                                       "time_limit": time_limit})
        return CaseResult(case, Verdict.INCONCLUSIVE.value, (result,), time.monotonic() - started)
    checks: list[CheckResult] = []
    notes: list[str] = []
    law = _law(spec, p, pair[0])
    if law is None:
        notes.append("no distribution test: the spec states no PMF or ideal enclosure")
    else:
        function, listed, exact = law
        integer = all(isinstance(o, int) and not isinstance(o, bool) for o in listed)
        checks.append(check_black_box_distribution(draws[0].outputs, function, listed, exact=exact, integer=integer,
                                                   beta=beta, seed=draws[0].seed, where=f"q={pair[0]!r}, {where}"))
    if isinstance(claim, SamplesPmf):
        notes.append("no privacy test: the spec claims only a PMF")
    else:
        checks.append(check_black_box_privacy(draws[0].outputs, draws[1].outputs, pair, claim, alpha=alpha,
                                              seed=seed, seconds=seconds))
    verdicts = {c.verdict for c in checks}
    outcome = (Verdict.VIOLATED if Verdict.VIOLATED in verdicts else
               Verdict.INCONCLUSIVE if Verdict.INCONCLUSIVE in verdicts or not checks else Verdict.PROVED)
    return CaseResult(case, outcome.value, tuple(checks), time.monotonic() - started, tuple(notes))


def resolve_black_box(reference: str, modules: Sequence[str] = ()) -> tuple[Spec, str]:
    """The spec ``reference`` names, and where it came from: ``module:attribute`` (a
    :class:`~dpverify.specs.Spec`), a built-in black box (:data:`~dpverify.verify.published._blackbox_specs.BLACK_BOXES`),
    or a spec that ``--spec-module`` or the installed entry points declare."""
    if ":" in reference:
        module_name, _, attribute = reference.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise DpverifyError(f"SPEC={shown(reference)}: module {shown(module_name)} cannot be imported: {error}.") from None
        spec = getattr(module, attribute, None)
        if not isinstance(spec, Spec):
            raise DpverifyError(f"SPEC={shown(reference)} must name a dpverify.specs.Spec; got {shown(spec)} "
                                f"({type(spec).__name__}).")
        return spec, reference
    from dpverify.verify.published._blackbox_specs import BLACK_BOXES

    if not modules and reference in BLACK_BOXES:
        return BLACK_BOXES[reference], "dpverify.verify.published._blackbox_specs"
    from dpverify.verify.gate._discovery import discover

    (found,) = discover(modules, names=[reference])
    return found.spec, found.origin


def audit_black_box(spec: Spec, origin: str, cases: Sequence[Case], *, seed: int | None = None, samples: int = 20_000,
                    alpha: RationalLike = DEFAULT_ALPHA, beta: RationalLike = DEFAULT_BETA, time_limit: float = 120,
                    command: str = "") -> dict[str, Any]:
    """The ``dpverify.blackbox/1`` document (``schemas/blackbox-1.schema.json``) of every case."""
    seed_ = fresh_seed() if seed is None else as_int("seed", seed, low=0)
    a = as_open_unit_interval("alpha", alpha)
    b = as_open_unit_interval("beta", beta)
    results = [audit_case(spec, case, seed=seed_, samples=samples, alpha=a, beta=b, time_limit=time_limit)
               for case in cases]
    met = sum(r.met for r in results)
    return {
        "schema": BLACKBOX_SCHEMA,
        "spec": {"name": spec.name, "origin": origin, "randomness": Randomness(spec.randomness).value,
                 "description": spec.description, "citation": spec.citation},
        "command": command, "seed": seed_, "samples_per_input": samples, "alpha": fraction_text(a),
        "beta": fraction_text(b), "time_limit": time_limit,
        "cases": [r.to_json() for r in results],
        "verdict": {"met": met, "cases": len(results), "exit_code": 0 if met == len(results) else 1,
                    "summary": f"{met} of {len(results)} case(s) met their expectation"},
    }
