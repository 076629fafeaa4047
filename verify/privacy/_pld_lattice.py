"""The common base of the loss ratios (:func:`common_base`: is every ratio ``P/Q`` an integer power
of one rational ``b``?), the integer lattices that hold a PLD's masses, and their downward scans.

Its own module because both the exact and the certified path store and scan their masses on these
lattices; the exact path's base comes from here.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mpmath import iv

from dpverify.samplers import DpverifyError, InvalidArgument, as_fraction
from dpverify.samplers._rational import shown
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.verify.privacy import _convolution
from dpverify.verify.privacy._pld_enclosure import _MAX_DECIDE_BITS, _floors

__all__ = ["MAX_PACKED_BITS", "MAX_POINTS", "common_base"]

#: Most points a lattice may have (exact or certified); more is refused before any work.
MAX_POINTS = 1 << 22
#: Most bits of one packed operand of a convolution, per big-integer backend.
MAX_PACKED_BITS = {"gmpy2": 1 << 30, "python": 1 << 25}
#: Spacing of the stored states of a downward scan (see :class:`_Scanner`).
_CHECKPOINT = 128


# --- the common base of the ratios --------------------------------------------------------------


def _height(r: Fraction) -> int:
    return max(r.numerator, r.denominator).bit_length()


def _may_equal(r: Fraction, b: Fraction, m: int) -> bool:
    """False when ``b^m = r`` is impossible by heights: in lowest terms ``height(b^m) = height(b)^m``,
    and ``2^((bits(b) - 1) m) <= height(b)^m``; so the power is only computed when it is at most
    about as large as ``r``."""
    return (_height(b) - 1) * m < _height(r)


def _ilog(r: Fraction, b: Fraction, cap: int) -> int | None:
    """The largest ``k >= 0`` with ``b^k <= r``, for rationals ``r >= 1`` and ``b > 1``; None when
    that ``k`` exceeds ``cap``.

    ``k = floor(ln r / ln b)``, decided with intervals at rising precision; when an interval holds
    an integer ``m``, ``b^m = r`` is checked exactly (only where heights allow it), so no power
    of ``b`` much larger than ``r`` is ever computed."""
    if r < b:
        return 0
    # ln b for b = 1 + x has about log2(1/x) <= bits(b) leading zero bits: start past them
    bits = 64 + _height(b) + _height(r).bit_length() + cap.bit_length()
    most = _MAX_DECIDE_BITS + 4 * bits
    while True:
        with interval_precision(bits):
            y = iv.log(iv_rational(r)) / iv.log(iv_rational(b))
        low, high = _floors(y)
        if low is not None and low > cap:
            return None
        if low is not None and low == high:
            return low
        if low is not None and high is not None and high == low + 1 and _may_equal(r, b, high) and b**high == r:
            return high if high <= cap else None
        if bits > most:
            raise DpverifyError(
                f"could not compare the log of a ratio of {_height(r)} bits with a multiple of the "
                f"log of one of {_height(b)} bits within {most} bits; report this as a bug."
            )
        bits *= 2


def _power_of(r: Fraction, b: Fraction) -> int | None:
    """``j`` with ``b^j = r`` exactly, or None."""
    if r == 1:
        return 0
    up = r if r > 1 else 1 / r
    k = _ilog(up, b, cap=_height(up))
    if k is None or not _may_equal(up, b, k) or b**k != up:
        return None
    return k if r > 1 else -k


def _pair_base(r: Fraction, s: Fraction) -> Fraction | None:
    """The largest ``c > 1`` with ``r = c^p`` and ``s = c^q`` for integers ``p, q >= 1``, or None.

    Euclid's algorithm on the exponents, run multiplicatively: ``r = s^k t`` with ``1 <= t < s``,
    then ``(s, t)``.  Suppose ``r = c^p, s = c^q`` for a primitive ``c`` (lowest terms, so
    ``height(c^m) = height(c)^m`` with ``height(c) >= 2``).  Then every ``t`` is some ``c^m`` with
    ``m <= p``, so ``height(t) <= H``, the larger height of the inputs; ``height(s)^k <= height(r)``;
    and Euclid takes at most ``1.45 log2(min(p, q)) + 2`` steps, with ``p <= log2(H)``.  A run that
    breaks any of these bounds proves there is no common base (and ``s^k`` is only computed within
    them); a run that ends with ``t = 1`` verified every step exactly.
    """
    limit = max(_height(r), _height(s))
    for _ in range(2 * limit.bit_length() + 8):
        if r < s:
            r, s = s, r
        k = _ilog(r, s, cap=_height(r))
        if k is None or not _may_equal(r, s, k):
            return None
        t = r / s**k
        if t == 1:
            return s
        if _height(t) > limit:
            return None
        r, s = s, t
    return None


def common_base(ratios: Iterable[Fraction | int | str]) -> tuple[Fraction | None, tuple[int, ...]] | None:
    """``(b, (j_1, ...))`` with ``ratios[i] = b^j_i`` for the largest rational ``b > 1``, or None
    when the ratios have no common base.  ``b`` is None when every ratio is 1.

    >>> common_base(["4", "1/8", 1])
    (Fraction(2, 1), (2, -3, 0))
    >>> common_base([2, 3]) is None
    True
    """
    values = []
    for i, r in enumerate(_finite_iterable("ratios", ratios)):
        value = as_fraction(f"ratios[{i}]", r)
        if value <= 0:
            raise InvalidArgument(f"ratios must be rationals > 0; got ratios[{i}]={shown(value)}.")
        values.append(value)
    return _common_base(values)


def _common_base(values: Sequence[Fraction]) -> tuple[Fraction | None, tuple[int, ...]] | None:
    base: Fraction | None = None
    for value in set(values):
        if value == 1:
            continue
        up = value if value > 1 else 1 / value
        base = up if base is None else _pair_base(base, up)
        if base is None:
            return None
    if base is None:
        return None, tuple(0 for _ in values)
    found = [_power_of(v, base) for v in values]
    exponents = tuple(j for j in found if j is not None)
    assert len(exponents) == len(found), "the Euclid base must divide every ratio"
    return base, exponents


def _finite_iterable(name: str, value: object) -> list[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidArgument(f"{name} must be a list or tuple; got {name}={shown(value)} ({type(value).__name__}).")
    return list(value)


# --- lattices -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lattice:
    """Masses ``weights[i] / scale`` at the integer points ``offset + i`` (non-negative ints; the
    first and last weights are positive unless the lattice is empty)."""

    offset: int
    weights: tuple[int, ...]
    scale: int

    @property
    def top(self) -> int:
        return self.offset + len(self.weights) - 1

    def total(self) -> Fraction:
        return Fraction(sum(self.weights), self.scale)

    @classmethod
    def of(cls, masses: Mapping[int, int], scale: int) -> _Lattice:
        points = [j for j, w in masses.items() if w]
        if not points:
            return cls(0, (), scale)
        low, high = min(points), max(points)
        _need_points(high - low + 1)
        weights = [0] * (high - low + 1)
        for j, w in masses.items():
            if w:
                weights[j - low] += w
        return cls(low, tuple(weights), scale)

    @classmethod
    def trimmed(cls, offset: int, weights: Sequence[int], scale: int) -> _Lattice:
        start = next((i for i, w in enumerate(weights) if w), len(weights))
        end = len(weights)
        while end > start and not weights[end - 1]:
            end -= 1
        return cls(offset + start, tuple(weights[start:end]), scale)


def _need_points(points: int, what: str = "the privacy loss distribution") -> None:
    if points > MAX_POINTS:
        raise InvalidArgument(
            f"{what} would have {points} points, more than {MAX_POINTS}; "
            'use a coarser grid (e.g. grid="1/10^3") or fewer compositions.'
        )


def _need_packed(length: int, bits: int, what: str) -> None:
    limit = MAX_PACKED_BITS[_convolution.backend()]
    if length * bits > limit:
        hint = "" if _convolution.backend() == "gmpy2" else " or install gmpy2 (the extra 'fast')"
        raise InvalidArgument(
            f"{what} needs integers of about {length * bits} bits, more than {limit}; "
            f"use fewer compositions or a coarser grid{hint}."
        )


# --- downward scans -----------------------------------------------------------------------------


class _Scanner:
    """The states ``s(j)`` for ``j = top, top-1, ..., stop`` (``offset - 1 <= stop``, ``top`` the
    lattice's top): ``s(top)`` is given and ``s(j) = step(s(j+1), W[j+1])``, so ``s(j)`` summarises
    the atoms above ``j``; ``run(s, ws)`` applies ``step`` for each weight of ``ws`` in turn.
    Every :data:`_CHECKPOINT`-th state is kept (or those given), so a state is recomputed in few steps,
    and :meth:`largest` finds a crossing by bisection over the kept states."""

    def __init__(
        self,
        lattice: _Lattice,
        stop: int,
        first: Any,
        run: Callable[[Any, Sequence[int]], Any],
        kept: tuple[list[int], list[Any]] | None = None,
    ) -> None:
        """``kept``: states already known at ``top, top - step, ...`` (any spacing), continued
        point by point down to ``stop``."""
        self.lattice, self.run = lattice, run
        self.js: list[int] = [lattice.top] if kept is None else kept[0]
        self.states: list[Any] = [first] if kept is None else kept[1]
        state, j = self.states[-1], self.js[-1]
        while j > stop:
            lower = max(stop, j - _CHECKPOINT)
            state = run(state, self._weights(j, lower))
            j = lower
            self.js.append(j)
            self.states.append(state)
        self._keys = [-x for x in self.js]

    def _weights(self, high: int, low: int) -> Sequence[int]:
        """``W[high], W[high-1], ..., W[low+1]``: what takes ``s(high)`` to ``s(low)``."""
        offset = self.lattice.offset
        return self.lattice.weights[low + 1 - offset : high + 1 - offset][::-1]

    def state(self, j: int) -> Any:
        """``s(j)`` for ``stop <= j <= top``."""
        m = bisect.bisect_left(self._keys, -j)  # js descend: the first kept index with js[m] <= j
        if m < len(self.js) and self.js[m] == j:
            return self.states[m]
        return self.run(self.states[m - 1], self._weights(self.js[m - 1], j))

    def largest(self, above: Callable[[Any], bool]) -> tuple[int, Any] | None:
        """The largest ``j`` with ``above(s(j))`` true and ``above(s(j+1))`` false (``above`` is
        false at ``top``), or None when ``above`` is false at every kept state."""
        low, high = 1, len(self.js) - 1  # states[0] (j = top) is below
        if high < 1 or not above(self.states[high]):
            return None
        while low < high:  # the first kept index where above holds
            middle = (low + high) // 2
            if above(self.states[middle]):
                high = middle
            else:
                low = middle + 1
        state, at = self.states[low - 1], self.js[low - 1]
        while True:
            state = self.run(state, self._weights(at, at - 1))
            at -= 1
            if above(state):
                return at, state
