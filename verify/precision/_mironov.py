"""Exact reachability of one output of the textbook float Laplace mechanism (Mironov's attack).

The mechanism under audit (``samplers/laplace_float_unsafe.py``; lecture notes "Provable
Privacy", paper 002, Figure 21.2; Gazeau, Miller, Palamidessi, paper 000, §1 and Example 4.1)
releases, for a ``k``-bit draw ``j`` in ``1 .. M`` with ``M = 2^k - 1`` and ``u = j / 2^k``::

    f_q(j) = fl( q + fl( (-b * sgn(u - 1/2)) * LOG(1 - 2|u - 1/2|) ) )          [LAPF-add]

where ``fl`` is IEEE double rounding to nearest and ``LOG`` is the platform libm ``log`` that
CPython's ``math.log`` calls for a finite positive double.  Mironov (2012, "On significance of
the least significant bits for differential privacy", CCS '12) observed that the *set*
``{f_q(j)}`` depends on the low bits of ``q``: an output ``y`` of ``q`` that no draw maps to
``y`` from a neighbour ``q'`` tells the attacker, with certainty, that the input was ``q``.

:func:`reachable` decides ``exists j: f_q(j) == y`` exactly at full precision (``k = 53``,
``2^53 - 1`` draws) with ``O(k)`` executions of the real code, and counts the draws that give
``y``, so ``P(y | q) = count / M`` exactly.  :func:`mironov_attack` samples the real sampler
from ``q`` and reports how often the output cannot come from ``q'``.

Why the search is exact
-----------------------
Write ``N = 2^(k-1)``, ``h = 2^-(k-1)`` and ``m(j) = min(j, 2^k - j)``.

1. Every operation before ``LOG`` is exact: ``j / 2^k`` is a ``k``-bit integer scaled by a
   power of two (CPython's int true division is correctly rounded and the quotient is
   representable for ``k <= 53``); ``u - 0.5``, ``abs``, ``2.0 * .`` and ``1.0 - .`` give
   multiples of ``2^-k`` resp. ``h`` in ``[-1/2, 1]`` with at most 53 significant bits.  So the
   argument of ``LOG`` is exactly ``x(j) = m(j) * h``, a point of the grid ``{h, 2h, .., 1}``.
   The factor ``-b * sgn`` is exactly ``b`` (``j < N``), ``-0.0`` (``j = N``) or ``-b``
   (``j > N``).
2. **Assumption A (the only one).**  For every grid point ``x = m h``, libm's ``LOG(x)`` is
   within one ulp of ``ln x``: ``|LOG(x) - ln x| <= ulp(ln x)``, with
   ``ulp(v) = 2^(floor(log2|v|) - 52)``, and ``LOG(1) = 0``.  This is faithful rounding,
   weaker than correct rounding; glibc >= 2.28 (the Arm optimized-routines ``log``) states a
   worst case of about 0.52 ulp (0.507 ulp is the largest seen here, glibc 2.36).  It is a property of
   the platform, not of Python, so it is *assumed*, stated here, checked against mpmath on
   thousands of grid points near every boundary by ``tests/test_mironov.py``, and its consequence
   (3) is re-checked at run time around every preimage this module reports.
3. **Lemma: under A, LOG is strictly increasing on the grid.**  For ``1 <= m < N``,
   ``ln((m+1)h) - ln(mh) = ln(1 + 1/m) >= 1/(m+1)``, and, since ``ulp(v) <= 2^-52 |v|``, both
   ``ulp(ln((m+1)h)) <= ulp(ln(mh)) <= 2^-52 ln(N/m)``.  Now ``(m+1) ln(N/m) <= N/e + ln N
   <= 2^52/e + 37 < 2^51`` (``t ln(1/t) <= 1/e``), so ``1/(m+1) > 2 * 2^-52 ln(N/m)``: the
   true logarithms of neighbouring grid points are more than two ulps apart (about ``e``
   ulps at the tightest point ``m ~ N/e``), hence ``LOG(mh) <= ln(mh) + ulp < ln((m+1)h) - ulp <= LOG((m+1)h)``.
   (For ``m + 1 = N``, ``LOG(1) = 0`` and ``LOG((N-1)h) < 0``.)
4. Multiplication by the fixed factor and the addition of ``q`` are correctly rounded, and
   rounding is monotone (overflow to +-inf included).  For ``j < N`` the noise is
   ``fl(b * LOG(j h)) <= 0``, non-decreasing in ``j``; for ``j > N`` it is
   ``fl(-b * LOG((2^k - j) h)) >= 0``, non-decreasing in ``j`` (``2^k - j`` falls, ``LOG``
   falls, ``-b < 0``); ``j = N`` gives ``-0.0``.  So ``j -> f_q(j)`` is **non-decreasing on
   1..M**, and ``{j : f_q(j) == y}`` is an interval ``[lo, hi]``, possibly empty.
5. Binary search therefore finds ``lo = min{j : f_q(j) >= y}`` and ``hi = max{j : f_q(j) <= y}``
   exactly; ``y`` is reachable iff ``f_q(lo) == y``; a draw ``j < lo`` gives
   ``f_q(j) <= f_q(lo - 1) < y`` and a draw ``j > hi`` gives ``f_q(j) >= f_q(hi + 1) > y``.
   The certificate is the bracket ``f_q(lo - 1) < y < f_q(hi + 1)`` (draws ``0`` and ``2^k``
   stand for "no draw").  Around both edges the code scans ``guard`` draws each side
   exhaustively and checks that ``f_q`` is non-decreasing there and lands on the right side
   of ``y``: a failure raises :class:`NonMonotoneMechanism` instead of answering, so a libm
   that breaks A near a reported preimage cannot produce a wrong answer silently.

Equality is float ``==`` (so ``-0.0 == 0.0``), the same identification the exact PMFs of
``verify/precision/_float_exact.py`` make with dict keys.  Searching on ``f_q`` itself, not on the
noise ``y - q``, matters: ``y - q`` is itself rounded, and the addition ``[LAPF-add]`` is
where Mironov's leak happens.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpverify.samplers._errors import InvalidArgument, SamplerContractError
from dpverify.samplers._random_source import RandomSource, SeededRandomSource
from dpverify.samplers.laplace_float_unsafe import mechanism_unsafe, sample_unsafe
from dpverify.verify.engine._arguments import need_count, need_seed, shown
from dpverify.verify.engine._results import fraction_text, json_value

__all__ = [
    "AttackExample",
    "AttackReport",
    "NonMonotoneMechanism",
    "ReachResult",
    "float_parameter",
    "mironov_attack",
    "reachable",
    "scale_parameter",
]

DEFAULT_GUARD = 4  # draws scanned on each side of each preimage edge (run-time check of step 4)


class NonMonotoneMechanism(SamplerContractError):
    """The float mechanism was seen to decrease between neighbouring draws (assumption A broke)."""


def float_parameter(name: str, value: object) -> float:
    """A finite double from an int, a float or a decimal string; anything else is refused.

    Floats are accepted on purpose: the float mechanism is the subject of the audit.  An int
    or string that is not exactly a double is refused, because the mechanism would silently
    run on a different value than the one asked about.
    """
    # float() reads any script's digits ("５" is 5.0); a decimal string here is ASCII, as everywhere
    ascii_text = not isinstance(value, str) or value.isascii()
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) or not ascii_text:
        raise InvalidArgument(
            f"{name} must be a finite number (int, float or ASCII decimal string); got {name}={shown(value)}."
        )
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise InvalidArgument(f"{name} must be a finite number; got {name}={shown(value)}.") from None
    if not math.isfinite(number):
        raise InvalidArgument(f"{name} must be a finite number; got {name}={shown(value)}.")
    if isinstance(value, int) and number != value:
        raise InvalidArgument(
            f"{name} must be exactly representable as a double; got {name}={shown(value)}. "
            f"Pass {shown(number)} if that is meant."
        )
    return number


def _bits(k: object, *, low: int = 2, high: int = 53) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not low <= k <= high:
        raise InvalidArgument(f"bits must be an integer with {low} <= bits <= {high}; got bits={shown(k)}.")
    return k


def scale_parameter(b: object) -> float:
    """The scale ``b``: a finite double > 0 (see :func:`float_parameter`)."""
    value = float_parameter("scale", b)
    if value <= 0:
        raise InvalidArgument(f"scale must be > 0; got scale={shown(b)}.")
    return value


@dataclass(frozen=True, slots=True)
class ReachResult:
    """Whether the output ``y`` is produced by some draw of the ``k``-bit mechanism from ``q``.

    ``draw`` is the smallest ``j`` with ``f_q(j) == y`` and ``count`` the number of such draws
    (0 when unreachable), so ``P(y | q) = count / (2^k - 1)`` exactly (``probability``).
    ``bracket = (below, above)`` are the draws adjacent to the preimage, with
    ``f_q(below) < y < f_q(above)`` (``0`` or ``2^k`` when no such draw exists): under
    assumption A of the module docstring, together with monotonicity this is the proof that
    no other draw gives ``y``.  ``examined`` counts the distinct draws executed (binary
    search and scan); ``window = (first, last)`` spans the draws scanned exhaustively around
    the preimage edges (for a preimage longer than ``2 * guard`` only its edges are scanned).
    """

    output: float
    q: float
    b: float
    k: int
    reachable: bool
    draw: int | None
    count: int
    bracket: tuple[int, int]
    examined: int
    window: tuple[int, int]

    @property
    def draws(self) -> int:
        return (1 << self.k) - 1

    @property
    def probability(self) -> Fraction:
        return Fraction(self.count, self.draws)

    def to_json(self) -> dict[str, Any]:
        return {
            "output": json_value(self.output),
            "output_hex": self.output.hex(),
            "q": self.q,
            "scale": self.b,
            "bits": self.k,
            "reachable": self.reachable,
            "j": self.draw,
            "count": self.count,
            "probability": fraction_text(self.probability),
            "bracket": list(self.bracket),
            "examined": self.examined,
            "window": list(self.window),
        }


def _first_at_least(f: Callable[[int], float], y: float, low: int, high: int) -> int:
    """Smallest ``j`` in ``[low, high]`` with ``f(j) >= y``, or ``high + 1`` (f non-decreasing)."""
    while low <= high:
        mid = (low + high) // 2
        if f(mid) >= y:
            high = mid - 1
        else:
            low = mid + 1
    return low


def _last_at_most(f: Callable[[int], float], y: float, low: int, high: int) -> int:
    """Largest ``j`` in ``[low, high]`` with ``f(j) <= y``, or ``low - 1`` (f non-decreasing)."""
    while low <= high:
        mid = (low + high) // 2
        if f(mid) <= y:
            low = mid + 1
        else:
            high = mid - 1
    return high


def reachable(y: float, q: float, b: float, k: int = 53, *, guard: int = DEFAULT_GUARD) -> ReachResult:
    """Decide exactly whether some ``k``-bit draw ``j`` gives ``mechanism_unsafe(q, b, j, k) == y``.

    Two binary searches over ``j`` in ``1 .. 2^k - 1`` on the real code (step 5 of the module
    docstring), then an exhaustive scan of ``guard`` draws on each side of both preimage
    edges that re-checks monotonicity; raises
    :class:`~dpverify.verify.precision._mironov.NonMonotoneMechanism` if it fails.
    ``y`` may be any float; NaN is never an output (``q`` is finite), so it is unreachable.

    The smallest draw of ``q = 0`` gives an output that ``q' = 1`` never gives at 53 bits:

    >>> y = mechanism_unsafe(0.0, 1.0, 1, 53)
    >>> first, second = reachable(y, 0.0, 1.0), reachable(y, 1.0, 1.0)
    >>> (first.reachable, first.draw, first.count, second.reachable, second.bracket)
    (True, 1, 1, False, (0, 1))
    """
    if isinstance(y, bool) or not isinstance(y, (int, float)):
        raise InvalidArgument(f"output must be a float; got output={shown(y)}.")
    try:
        y = float(y)
    except OverflowError:
        raise InvalidArgument(f"output must be a float; got output={shown(y)}, which no double can hold.") from None
    q_ = float_parameter("q", q)
    b_ = scale_parameter(b)
    k_ = _bits(k)
    if isinstance(guard, bool) or not isinstance(guard, int) or guard < 1:
        raise InvalidArgument(f"guard must be an integer >= 1; got guard={shown(guard)}.")
    last = (1 << k_) - 1
    cache: dict[int, float] = {}

    def f(j: int) -> float:  # the real code, memoised so `examined` counts distinct draws
        value = cache.get(j)
        if value is None:
            value = cache[j] = mechanism_unsafe(q_, b_, j, k_)
        return value

    if math.isnan(y):
        return ReachResult(y, q_, b_, k_, False, None, 0, (0, 1 << k_), 0, (1, 0))
    lo = _first_at_least(f, y, 1, last)
    # an empty preimage: lo - 1 is the last draw below y
    hi = _last_at_most(f, y, lo, last) if lo <= last and f(lo) == y else lo - 1
    window = _check_edges(f, y, lo, hi, last, guard)
    count = hi - lo + 1
    return ReachResult(
        output=y,
        q=q_,
        b=b_,
        k=k_,
        reachable=count > 0,
        draw=lo if count > 0 else None,
        count=count,
        bracket=(lo - 1, hi + 1),
        examined=len(cache),
        window=window,
    )


def _check_edges(f: Callable[[int], float], y: float, lo: int, hi: int, last: int, guard: int) -> tuple[int, int]:
    """Scan ``guard`` draws around both preimage edges: non-decreasing, and on the right side of y.

    Returns the first and last scanned draw (for a long preimage only its two edges are
    scanned; its middle is covered by monotonicity).
    """
    if hi - lo <= 2 * guard:
        runs = [(max(1, lo - guard), min(last, hi + guard))]
    else:  # a long preimage: its middle is covered by monotonicity, its edges are scanned
        runs = [(max(1, lo - guard), lo + guard), (hi - guard, min(last, hi + guard))]
    for start, stop in runs:
        previous: float | None = None
        for j in range(start, stop + 1):
            value = f(j)
            side_ok = value < y if j < lo else (value > y if j > hi else value == y)
            if not side_ok or (previous is not None and value < previous):
                raise NonMonotoneMechanism(
                    f"the float mechanism is not monotone near draw j={j} (output {value!r}, target {y!r}); "
                    f"libm log breaks assumption A of verify/precision/_mironov.py on this platform, so reachability "
                    f"cannot be decided by search here."
                )
            previous = value
    return runs[0][0], runs[-1][1]


class _RecordingSource(RandomSource, trusted=True):
    """Delegates to a seeded source and remembers the last draw, so the attack knows each ``j``."""

    def __init__(self, inner: RandomSource) -> None:
        self._inner = inner
        self.last = -1

    def randbelow(self, n: int) -> int:
        self.last = self._inner.randbelow(n)
        return self.last


@dataclass(frozen=True, slots=True)
class AttackExample:
    """One sampled output ``y = f_q(j)`` with its exact draw counts from ``q`` and ``q'``."""

    output: float
    j: int
    count_q: int
    count_q_prime: int

    @property
    def reveals(self) -> bool:
        """True when no draw of ``q'`` gives ``y``: seeing ``y`` proves the input was ``q``."""
        return self.count_q_prime == 0

    def to_json(self, draws: int) -> dict[str, Any]:
        return {
            "output": json_value(self.output),
            "output_hex": self.output.hex(),
            "j": self.j,
            "count_q": self.count_q,
            "count_q_prime": self.count_q_prime,
            "p": fraction_text(Fraction(self.count_q, draws)),
            "p_prime": fraction_text(Fraction(self.count_q_prime, draws)),
        }


@dataclass(frozen=True, slots=True)
class AttackReport:
    """Mironov's attack on ``samples`` outputs of the ``k``-bit mechanism run on ``q``.

    ``revealing`` outputs are unreachable from ``q'``: each one is an exact, certain
    distinguisher (infinite privacy loss, ``P(y | q) > 0 = P(y | q')``).  The sampled
    ``fraction = revealing / samples`` estimates ``P_q[output unreachable from q']``;
    :meth:`lower_bound` is a one-sided Hoeffding bound on that probability, valid with
    probability ``>= 1 - alpha`` over the seed.  ``examples`` are the first revealing outputs,
    ``ambiguous`` the first ones reachable from both inputs.
    """

    q: float
    q_prime: float
    b: float
    k: int
    samples: int
    seed: int
    revealing: int
    examples: tuple[AttackExample, ...]
    ambiguous: tuple[AttackExample, ...]

    @property
    def fraction(self) -> Fraction | None:
        return None if self.samples == 0 else Fraction(self.revealing, self.samples)

    def lower_bound(self, alpha: float = 1e-6) -> float:
        """``fraction - sqrt(ln(1/alpha) / (2 N))``, floored at 0 (Hoeffding, one-sided)."""
        if self.samples == 0:
            return 0.0
        return max(0.0, self.revealing / self.samples - math.sqrt(math.log(1 / alpha) / (2 * self.samples)))

    def replay(self) -> str:
        """The Python call that reproduces this report exactly (floats by their repr, which round-trips)."""
        return (
            f"dpverify.verify.precision._mironov.mironov_attack({self.q!r}, {self.q_prime!r}, {self.b!r}, "
            f"samples={self.samples}, seed={self.seed}, k={self.k})"
        )

    def to_json(self, alpha: float = 1e-6) -> dict[str, Any]:
        draws = (1 << self.k) - 1
        fraction = self.fraction
        return {
            "bits": self.k,
            "samples": self.samples,
            "seed": self.seed,
            "revealing": self.revealing,
            "fraction": None if fraction is None else fraction_text(fraction),
            "fraction_float": None if fraction is None else float(fraction),
            "lower_bound": {"alpha": alpha, "value": self.lower_bound(alpha), "method": "Hoeffding, one-sided"},
            "examples": [e.to_json(draws) for e in self.examples],
            "ambiguous": [e.to_json(draws) for e in self.ambiguous],
            "replay": self.replay(),
        }


def mironov_attack(
    q: float,
    q_prime: float,
    b: float,
    samples: int = 1000,
    seed: int | None = None,
    k: int = 53,
    *,
    max_examples: int = 5,
) -> AttackReport:
    """Sample the real ``sample_unsafe(q, b, ., k)`` ``samples`` times and test each output.

    Each output ``y`` comes with its draw ``j`` (recorded from the seeded source); the run
    checks that ``f_q(j) == y`` and that :func:`reachable` from ``q`` finds a preimage
    containing ``j`` (a cross-check of the search on the sampler's own draw), then decides
    exactly whether ``y`` is reachable from ``q'``.  ``seed=None`` draws a fresh seed; it is
    always reported so the run replays.
    """
    q_ = float_parameter("q", q)
    q2 = float_parameter("q_prime", q_prime)
    b_ = scale_parameter(b)
    k_ = _bits(k)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise InvalidArgument(f"samples must be an integer >= 0; got samples={shown(samples)}.")
    max_examples = need_count("max_examples", max_examples)
    seed_ = need_seed(seed)
    source = _RecordingSource(SeededRandomSource(seed_))
    revealing = 0
    examples: list[AttackExample] = []
    ambiguous: list[AttackExample] = []
    for _ in range(samples):
        y = sample_unsafe(q_, b_, source, k_)
        j = 1 + source.last  # sample_unsafe draws j = 1 + randbelow(2^k - 1), once
        from_q = reachable(y, q_, b_, k_)
        if (
            mechanism_unsafe(q_, b_, j, k_) != y
            or from_q.draw is None
            or not from_q.draw <= j < from_q.draw + from_q.count
        ):
            raise SamplerContractError(
                f"draw j={j} of q={shown(q_)} gives {shown(y)}, but the search places it outside [{from_q.draw}, "
                f"{from_q.draw}+{from_q.count}); the sampler and the search disagree."
            )
        from_q2 = reachable(y, q2, b_, k_)
        example = AttackExample(y, j, from_q.count, from_q2.count)
        if example.reveals:
            revealing += 1
            if len(examples) < max_examples:
                examples.append(example)
        elif len(ambiguous) < max_examples:
            ambiguous.append(example)
    return AttackReport(q_, q2, b_, k_, samples, seed_, revealing, tuple(examples), tuple(ambiguous))
