"""The checkpoints of a certified side's downward scan, a block of :data:`BLOCK` points at a time
in floats with a bound on their error: the same kind of states as the point-by-point scan of
:func:`dpverify.verify.privacy._pld_certified._side_scanner`, rounded the same safe way.

A state at ``j`` is ``(A, T)``: ``A = sum_{i>j} w_i`` exactly and ``T`` a bound on
``2^P sum_{i>j} w_i r^(i-j)``, ``r = e^-grid`` (from below on the upper side, where ``T`` is
subtracted; from above on the lower side).  Across a block of ``B`` points below the checkpoint
``c``::

    T(c - B) = r^B T(c) + 2^P V,    V = sum_{d=1..B} w_(c-B+d) r^d.

``V`` is computed in binary64 (round to nearest, IEEE-754; numpy's float64 ufuncs): each ``w``
(below ``2^64``) is converted from uint64 to one of its two neighbouring doubles (C's conversion;
relative error below ``2u``, within three factors below), each ``r^d`` is the nearest double
to the midpoint of an ``mpmath.iv`` enclosure narrower than ``2^-70`` relative (so within
``u + 2^-70 < 2u`` of ``r^d``), each product is one rounding and the sum of the ``B`` non-negative
products takes at most ``B - 1`` roundings per term in whatever order numpy adds them: every term
of the computed ``V^`` carries at most ``B + 5`` factors ``(1 + delta)``, ``|delta| <= u``, so
``|V^ - V| <= gamma_(B+5) V`` (Higham, *Accuracy and Stability of Numerical Algorithms*, Lemma 3.1;
no product underflows: ``w >= 1`` or ``w = 0``, ``r^d >= e^-B``; none overflows: ``w < 2^64``).
Then ``V^/(1 + gamma) <= V <= V^/(1 - gamma)`` and both, like ``r^B 2^P``, are rounded to integers
the safe way for the side.  ``A`` is summed exactly: the high and the low 32 bits of each
``w`` apart in uint64 (a block's sum of either is below ``2^41``), joined in Python integers.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from mpmath import iv, libmp

from dpverify.specs._enclosure import interval_precision, iv_rational

__all__ = ["BLOCK", "checkpoints", "remember"]

#: Points per block (the scan's checkpoint spacing).
BLOCK = 512
_Q = 64
_U = Fraction(1, 1 << 53)
_GAMMA = (BLOCK + 5) * _U / (1 - (BLOCK + 5) * _U)
_SHRINK = ((1 << _Q) * _GAMMA.denominator) // (_GAMMA.denominator + _GAMMA.numerator)  # <= 2^Q/(1 + gamma)
_GROW = -((-(1 << _Q) * _GAMMA.denominator) // (_GAMMA.denominator - _GAMMA.numerator))  # >= 2^Q/(1 - gamma)


@lru_cache(maxsize=8)
def _powers(grid: Fraction) -> np.ndarray:
    """``r^d`` for ``d = 1..BLOCK``, each the nearest double to a narrow enclosure's midpoint."""
    out = []
    with interval_precision(96):
        for d in range(1, BLOCK + 1):
            low, high = iv.exp(-d * iv_rational(grid))._mpi_
            if not libmp.mpf_le(libmp.mpf_sub(high, low, 256), libmp.mpf_shift(low, -70)):
                raise ArithmeticError(f"an enclosure of e^-(d grid) is too wide: d={d}")  # pragma: no cover
            out.append(libmp.to_float(libmp.mpf_shift(libmp.mpf_add(low, high, 256), -1), rnd="n"))
    return np.array(out)


def remember(weights: tuple[int, ...], array: np.ndarray) -> None:
    """Keep ``array`` (uint64, equal to ``weights`` entry by entry) for the scans of ``weights``."""
    if len(array) == len(weights) and (not weights or (int(array[0]), int(array[-1])) == (weights[0], weights[-1])):
        _KEPT[:] = [weights, array]


_KEPT: list[Any] = []


def _as_array(weights: Sequence[int]) -> np.ndarray | None:
    """``weights`` as uint64 (None when one is past ``2^64 - 1``); the last one is kept, so the
    upper and the lower side (the same weights) convert once."""
    if _KEPT and _KEPT[0] is weights:
        kept: np.ndarray = _KEPT[1]  # _KEPT is [weights, their array]
        return kept
    if max(weights) >> 64:
        return None
    array = np.fromiter(weights, dtype=np.uint64, count=len(weights))
    if isinstance(weights, tuple):
        _KEPT[:] = [weights, array]
    return array


def checkpoints(
    weights: Sequence[int], offset: int, stop: int, grid: Fraction, precision: int, upper: bool
) -> tuple[list[int], list[Any]] | None:
    """The states at ``top, top - BLOCK, ...`` (full blocks above ``stop`` only), or None when a
    weight is past ``2^64 - 1`` or there are fewer than two full blocks."""
    top = offset + len(weights) - 1
    blocks = (top - stop) // BLOCK
    if blocks < 2:
        return None
    array = _as_array(weights)
    if array is None:
        return None
    first = top - blocks * BLOCK + 1 - offset  # the lowest point of the lowest block, as an index
    chunk = array[first:].reshape(blocks, BLOCK)[::-1]
    sums = (chunk.astype(np.float64) * _powers(grid)).sum(axis=1)
    # A, exactly: the high and low 32 bits summed apart (BLOCK * 2^32 fits in 64 bits)
    highs = (chunk >> np.uint64(32)).sum(axis=1, dtype=np.uint64).tolist()
    lows = (chunk & np.uint64(0xFFFFFFFF)).sum(axis=1, dtype=np.uint64).tolist()
    mantissas, exponents = np.frexp(sums)
    mantissas = (mantissas * 2.0**53).astype(np.int64).tolist()  # exact: 53-bit mantissas
    exponents = (exponents - 53 + precision - _Q).tolist()
    with interval_precision(precision + 64):
        scaled = iv.exp(-BLOCK * iv_rational(grid)) * iv.mpf(2) ** precision
    factor = int(libmp.to_int(scaled._mpi_[0], "f")) if upper else int(libmp.to_int(scaled._mpi_[1], "c"))
    ratio = _SHRINK if upper else _GROW
    js, states = [top], [(0, 0)]
    a = t = 0
    for b in range(blocks):
        a += (highs[b] << 32) + lows[b]
        v, e = mantissas[b] * ratio, exponents[b]
        if upper:
            t = ((factor * t) >> precision) + (v << e if e >= 0 else v >> -e)
        else:
            t = -((-factor * t) >> precision) + (v << e if e >= 0 else -((-v) >> -e))
        js.append(top - (b + 1) * BLOCK)
        states.append((a, t))
    return js, states
