"""The event search of the black-box privacy test: which output events it considers, and which
one, with which neighbouring pair and direction, the *selection* draws favour.

Only selection draws enter here; the held-out draws are tested afterwards on the one event
chosen (:mod:`dpverify.verify.published._blackbox_privacy`).  The search may therefore be as
wide as it likes: the held-out bound's level does not depend on how many candidates it weighed.

**Views.**  Every event is read on a *view*, a fixed real-valued function of the output: the
output itself (``o``); and, for vector outputs (tuples of numbers, as
:func:`~dpverify.verify.published._blackbox_draw.normalise` makes lists and numpy arrays), each
coordinate ``o[i]`` (the first :data:`MAX_COORDINATES`), the sum ``sum(o)`` (exact for ints and
Fractions, ``math.fsum`` for floats) and the L2 norm ``|o|_2`` (``math.hypot`` in doubles).  A
rounded sum or norm is still a fixed function of the output, so it costs power, never validity.

**Families**, on each view ``v`` with the selection values ``v(o)`` of both inputs of a pair:

- *intervals* ``b_i <= v(o) < b_j`` between the 16-quantiles of those values and, where the
  inputs are numbers (or vectors, for a coordinate), the points ``q0, q1, (q0+q1)/2,
  q0 - (q1-q0)/2, q1 + (q1-q0)/2``;
- *float structure* (on ``o`` and each coordinate): an interval intersected with "``v(o) * 2**j``
  is (not) an integer", for every ``j`` at which some selection value has its lowest set bit
  (Mironov, CCS 2012: the float Laplace's low bits tell its inputs apart);
- *atoms* ``v(o) = a``: the :data:`ATOMS` most frequent values seen at least twice (a saturated
  or wrapped integer, a vector piled on one point), and on ``o`` every non-numeric output (an
  exception, garbage) seen at least twice.  An atom seen once can never be certified: the
  smoothed score below is ``-inf`` for ``k <= 2 ln(2/alpha)``.

Each event is scored in both directions by the smoothed log-ratio
``ln((k_A - sqrt(2 k_A L)) / n_A) - ln((k_B + sqrt(2 k_B L) + L) / n_B)``, ``L = ln(2/alpha)``,
which imitates the held-out Clopper–Pearson bound; the best (pair, view, event, direction)
over every pair searched is the choice.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpverify.verify.engine._results import fraction_text
from dpverify.verify.published._blackbox_draw import Garbage, Raised, _is_vector, _numeric

__all__ = [
    "ATOMS",
    "FAMILIES",
    "MAX_COORDINATES",
    "Choice",
    "Event",
    "Search",
    "View",
    "search",
]

#: Quantiles of the selection values that bound the candidate intervals.
QUANTILES = 16
#: Most frequent values of a view that become atom events.
ATOMS = 32
#: Coordinates of a vector output searched one by one; later ones enter through the sum and norm.
MAX_COORDINATES = 8
#: The event families, in the order the evidence counts them.
FAMILIES = ("intervals", "float structure", "atoms")
#: Lowest-set-bit exponents are clipped to this range (doubles span about -1074 .. 1023).
_EXPONENT_CAP = 1100

Number = int | float | Fraction


def _lowest_bit(value: Number) -> int:
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


# --- views: the real-valued features events are read on ------------------------------------------


def _sum(vector: tuple[Number, ...]) -> Number | None:
    if not any(isinstance(c, float) for c in vector):
        return sum(vector, 0)
    try:
        total = math.fsum(vector)
    except OverflowError:  # an int coordinate beyond the doubles
        return None
    return total if math.isfinite(total) else None


def _norm(vector: tuple[Number, ...]) -> float | None:
    try:
        norm = math.hypot(*(float(c) for c in vector))
    except OverflowError:
        return None
    return norm if math.isfinite(norm) else None


@dataclass(frozen=True, slots=True)
class View:
    """A fixed function of an output that events are read on: ``kind`` is ``"o"`` (the output
    itself, whatever it is), ``"coordinate"`` (``o[index]`` of a vector), ``"sum"`` or ``"norm"``
    (of a vector).  A view of an output it does not apply to is None, which no event contains."""

    kind: str
    index: int = 0

    @property
    def name(self) -> str:
        return {"o": "o", "coordinate": f"o[{self.index}]", "sum": "sum(o)", "norm": "|o|_2"}[self.kind]

    @property
    def float_structure(self) -> bool:
        """Whether the float-structure family applies: a rounded sum or norm has no low bits of its own."""
        return self.kind in ("o", "coordinate")

    def value(self, output: Hashable) -> Hashable:
        if self.kind == "o":
            return output
        if not _is_vector(output):
            return None
        vector: tuple[Number, ...] = output
        if self.kind == "coordinate":
            return vector[self.index] if self.index < len(vector) else None
        return _sum(vector) if self.kind == "sum" else _norm(vector)


def views_for(outputs: Sequence[Hashable]) -> tuple[list[View], int]:
    """The views searched on ``outputs``, and how many coordinates were left to the sum and norm."""
    views = [View("o")]
    width = max((len(o) for o in outputs if _is_vector(o)), default=0)
    views += [View("coordinate", i) for i in range(min(width, MAX_COORDINATES))]
    if width >= 2:
        views += [View("sum"), View("norm")]
    return views, max(0, width - MAX_COORDINATES)


# --- events --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """An output event on a view's value ``v``: ``low <= v < high`` (None: unbounded) and, with
    ``bit`` set, a condition on the lowest set bit ``e`` of ``v`` (``v = m 2**e``, ``m`` odd):
    ``e < bit`` when ``fine`` (``v * 2**-bit`` is not an integer), else ``e >= bit`` (it is); or
    ``v == atom``.  ``v`` is the output itself unless :class:`Located` says otherwise."""

    low: Number | None = None
    high: Number | None = None
    bit: int | None = None
    fine: bool = True
    atom: Hashable = None

    def __contains__(self, value: Hashable) -> bool:
        if self.atom is not None:
            return value == self.atom
        if not _numeric(value):
            return False
        if self.low is not None and value < self.low:
            return False
        if self.high is not None and value >= self.high:
            return False
        if self.bit is None:
            return True
        return (_lowest_bit(value) < self.bit) == self.fine

    @property
    def family(self) -> str:
        return "atoms" if self.atom is not None else "float structure" if self.bit is not None else "intervals"

    def describe(self, variable: str = "o") -> str:
        if self.atom is not None:
            point = _numeric(self.atom) or _is_vector(self.atom)
            return f"{variable} = {self.atom}" if point else f"output is {self.atom}"
        parts = []
        if self.low is not None and self.high is not None:
            parts.append(f"{_show_point(self.low)} <= {variable} < {_show_point(self.high)}")
        elif self.low is not None:
            parts.append(f"{variable} >= {_show_point(self.low)}")
        elif self.high is not None:
            parts.append(f"{variable} < {_show_point(self.high)}")
        else:
            parts.append(f"{variable} is a number")
        if self.bit is not None:
            what = "not an integer" if self.fine else "an integer"
            parts.append(f"{variable} * 2^{-self.bit} is {what}")
        return " and ".join(parts)

    def to_json(self, variable: str = "o") -> dict[str, Any]:
        return {
            "description": self.describe(variable),
            "low": None if self.low is None else fraction_text(Fraction(self.low)),
            "high": None if self.high is None else fraction_text(Fraction(self.high)),
            "lowest_bit_below": self.bit if self.bit is not None and self.fine else None,
            "lowest_bit_at_least": self.bit if self.bit is not None and not self.fine else None,
            "atom": None if self.atom is None else str(self.atom),
        }


@dataclass(frozen=True, slots=True)
class Located:
    """An :class:`Event` on a :class:`View`: the output ``o`` is in it when ``view.value(o)`` is."""

    view: View
    event: Event

    def __contains__(self, output: Hashable) -> bool:
        return self.view.value(output) in self.event

    def count(self, outputs: Sequence[Hashable]) -> int:
        """How many of ``outputs`` are in the event."""
        event = self.event
        values = outputs if self.view.kind == "o" else map(self.view.value, outputs)
        return sum(1 for value in values if value in event)

    def describe(self) -> str:
        return self.event.describe(self.view.name)

    def to_json(self) -> dict[str, Any]:
        return self.event.to_json(self.view.name) | {"view": self.view.name, "family": self.event.family}


def _show_point(value: Number) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _as_point(value: Fraction) -> Number:
    """A boundary in the cheapest exact type: int, float when exactly representable, else Fraction."""
    if value.denominator == 1:
        return int(value)
    as_float = float(value)
    return as_float if Fraction(as_float) == value else value


# --- the search on one view of one pair -----------------------------------------------------------


def _points(view: View, inputs: tuple[Hashable, Hashable]) -> list[Fraction]:
    """The inputs' own boundary points on ``view``: they and the midpoints around them."""
    if view.kind == "norm":
        return []
    first, second = inputs
    if (
        view.kind == "coordinate"
        and (_is_vector(first) and len(first) > view.index)
        and (_is_vector(second) and len(second) > view.index)
    ):
        first, second = first[view.index], second[view.index]
    if not (_numeric(first) and _numeric(second)):
        return []
    a, b = Fraction(first), Fraction(second)
    half = (b - a) / 2
    return [a, b, a + half, a - half, b + half]


def _boundaries(values: Sequence[Hashable], points: Sequence[Fraction]) -> list[Number]:
    numbers = sorted(v for v in values if isinstance(v, (int, float, Fraction)) and not isinstance(v, bool))
    found = set(points)
    if numbers:
        for i in range(1, QUANTILES):
            found.add(Fraction(numbers[(i * len(numbers)) // QUANTILES]))
    return sorted((_as_point(p) for p in found), key=lambda p: Fraction(p))


class _Table:
    """Counts of one input's selection values by (interval index, lowest bit)."""

    def __init__(self, values: Sequence[Hashable], boundaries: Sequence[Number], bits: bool) -> None:
        self.size = len(values)
        self.cells: Counter[tuple[int, int]] = Counter()
        cells, where = self.cells, bisect.bisect_right
        for value in values:  # the hot loop of the search: _numeric inlined
            if isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
                cells[(where(boundaries, value), _lowest_bit(value) if bits else 0)] += 1

    def prefix(self, intervals: int, bits: Sequence[int]) -> list[list[int]]:
        """``P[i][t]``: values in intervals ``< i`` whose lowest bit is ``< bits[t]``; the last
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
            prefix.append([a + b for a, b in zip(prefix[-1], row, strict=True)])
        return prefix


def _score(k_a: int, n_a: int, k_b: int, n_b: int, log_level: float) -> float:
    """The smoothed log-ratio that steers the search (see the module docstring)."""
    low = k_a - math.sqrt(2 * k_a * log_level)
    if low <= 0 or n_a == 0 or n_b == 0:
        return -math.inf
    high = k_b + math.sqrt(2 * k_b * log_level) + log_level
    return math.log(low / n_a) - math.log(high / n_b)


def _atoms(counts: tuple[Counter[Hashable], Counter[Hashable]]) -> list[Hashable]:
    """Every non-numeric value seen twice, and the :data:`ATOMS` most frequent other values seen twice."""
    first, second = counts
    # no summed Counter: for continuous outputs nearly every value is seen once, and there are millions
    repeated = [(c + second.get(v, 0), v) for v, c in first.items() if c >= 2 or v in second]
    repeated += [(c, v) for v, c in second.items() if c >= 2 and v not in first]
    indexed = [(c, i, v) for i, (c, v) in enumerate(repeated) if c >= 2]
    odd = [v for _, _, v in indexed if isinstance(v, (Raised, Garbage))]
    ordinary = heapq.nlargest(ATOMS, ((c, -i, v) for c, i, v in indexed if not isinstance(v, (Raised, Garbage))))
    return odd + [v for _, _, v in ordinary]


@dataclass(frozen=True, slots=True)
class Choice:
    """The event chosen on the selection draws: ``pair`` indexes the inputs; ``forward``: the
    event is more likely under ``inputs[pair[0]]``."""

    pair: tuple[int, int]
    located: Located
    forward: bool
    score: float


def _choose_view(
    view: View,
    values: tuple[Sequence[Hashable], Sequence[Hashable]],
    counts: tuple[Counter[Hashable], Counter[Hashable]],
    points: Sequence[Fraction],
    log_level: float,
    float_structure: bool,
    pair: tuple[int, int],
    tally: Counter[str],
) -> Choice | None:
    boundaries = _boundaries(list(values[0]) + list(values[1]), points)
    structure = float_structure and view.float_structure
    tables = (_Table(values[0], boundaries, structure), _Table(values[1], boundaries, structure))
    bits = sorted({bit for table in tables for (_, bit) in table.cells}) if structure else []
    intervals = len(boundaries) + 1
    prefixes = [table.prefix(intervals, bits) for table in tables]
    n0, n1 = tables[0].size, tables[1].size
    best: Choice | None = None
    every = len(bits)

    def consider(event: Event, k0: int, k1: int) -> None:
        nonlocal best
        tally[event.family] += 2
        for forward, score in ((True, _score(k0, n0, k1, n1, log_level)), (False, _score(k1, n1, k0, n0, log_level))):
            if score > -math.inf and (best is None or score > best.score):
                best = Choice(pair, Located(view, event), forward, score)

    for i in range(intervals):
        low = boundaries[i - 1] if i > 0 else None
        for j in range(i + 1, intervals + 1):
            high = boundaries[j - 1] if j < intervals else None
            totals = [(p[j][every] - p[i][every]) for p in prefixes]
            consider(Event(low, high), totals[0], totals[1])
            for t, bit in enumerate(bits):
                below = [(p[j][t] - p[i][t]) for p in prefixes]
                consider(Event(low, high, bit, True), below[0], below[1])
                consider(Event(low, high, bit, False), totals[0] - below[0], totals[1] - below[1])
    for atom in _atoms(counts):
        consider(Event(atom=atom), counts[0][atom], counts[1][atom])
    return best


# --- the search over every pair ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Search:
    """The outcome of :func:`search`: the choice (None when no event scored), how many
    (event, direction) candidates were weighed, by family, and the views searched."""

    choice: Choice | None
    candidates: int
    by_family: dict[str, int]
    views: tuple[str, ...]
    coordinates_left_out: int


def search(
    selections: Sequence[Sequence[Hashable]],
    inputs: Sequence[Hashable],
    pairs: Sequence[tuple[int, int]],
    alpha: Fraction,
    *,
    float_structure: bool = True,
) -> Search:
    """The best (pair, view, event, direction) on the selection draws ``selections[i]`` of
    ``inputs[i]``, over the neighbouring ``pairs`` (index pairs) and the families of the module
    docstring; ``float_structure=False`` leaves that family out (the benchmark's baseline)."""
    log_level = math.log(2 / alpha)
    tally: Counter[str] = Counter()
    cache: dict[tuple[int, View], tuple[list[Hashable], Counter[Hashable]]] = {}
    best: Choice | None = None
    names: dict[str, None] = {}
    left_out = 0

    def column(index: int, view: View) -> tuple[list[Hashable], Counter[Hashable]]:
        if (index, view) not in cache:
            values = list(selections[index]) if view.kind == "o" else [view.value(o) for o in selections[index]]
            counts = Counter(values)
            counts.pop(None, None)  # the view does not apply there: no atom
            cache[index, view] = values, counts
        return cache[index, view]

    for pair in pairs:
        views, dropped = views_for(list(selections[pair[0]]) + list(selections[pair[1]]))
        left_out = max(left_out, dropped)
        for view in views:
            names[view.name] = None
            (values0, counts0), (values1, counts1) = column(pair[0], view), column(pair[1], view)
            points = _points(view, (inputs[pair[0]], inputs[pair[1]]))
            found = _choose_view(
                view, (values0, values1), (counts0, counts1), points, log_level, float_structure, pair, tally
            )
            if found is not None and (best is None or found.score > best.score):
                best = found
    return Search(best, sum(tally.values()), {f: tally[f] for f in FAMILIES}, tuple(names), left_out)
