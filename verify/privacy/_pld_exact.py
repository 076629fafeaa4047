"""The exact path's state and composition: losses ``j ln b`` on a lattice with exact rational
masses, composed by an exact integer convolution, and its downward scan for ``delta``.

Its own module because the exact path shares nothing with the certified path's rounding; the
mathematics is in the docstring of :mod:`dpverify.verify.privacy._pld`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from dpverify.verify.privacy import _convolution
from dpverify.verify.privacy._pld_lattice import _Lattice, _need_packed, _need_points, _pair_base, _power_of, _Scanner

__all__: list[str] = []


@dataclass(frozen=True, slots=True)
class _ExactState:
    """Loss ``j ln base`` with mass ``lattice.weights[j - offset] / lattice.scale``; ``inf`` at ``+inf``.
    ``base`` None: every finite loss is 0 (the lattice is at most the point 0)."""

    base: Fraction | None
    lattice: _Lattice
    inf: Fraction


def _exact_compose(a: _ExactState, b: _ExactState) -> _ExactState | None:
    """The exact convolution, or None when the two bases have no common base."""
    if a.base is None or b.base is None or a.base == b.base:
        base = a.base if b.base is None else b.base
        steps: tuple[int | None, int | None] = (1, 1)
    else:
        base = _pair_base(a.base, b.base)
        if base is None:
            return None
        steps = (_power_of(a.base, base), _power_of(b.base, base))
    first, second = _spread(a.lattice, steps[0]), _spread(b.lattice, steps[1])
    return _ExactState(base, _convolve_exact(first, second), a.inf + b.inf - a.inf * b.inf)


def _spread(lattice: _Lattice, step: int | None) -> _Lattice:
    """The same masses at ``step * j`` (a lattice on ``ln b`` re-expressed on ``ln c``, ``b = c^step``)."""
    assert step is not None and step >= 1
    if step == 1 or not lattice.weights:
        return lattice
    weights = [0] * ((len(lattice.weights) - 1) * step + 1)
    weights[::step] = lattice.weights
    return _Lattice(lattice.offset * step, tuple(weights), lattice.scale)


def _convolve_exact(a: _Lattice, b: _Lattice) -> _Lattice:
    if not a.weights or not b.weights:
        return _Lattice(0, (), a.scale * b.scale)
    length = len(a.weights) + len(b.weights) - 1
    _need_points(length)
    _need_packed(length, max(a.weights).bit_length() + max(b.weights).bit_length() + 8, "the exact convolution")
    weights = _convolution.convolve(a.weights, a.weights if a is b else b.weights)
    return _Lattice.trimmed(a.offset + b.offset, weights, a.scale * b.scale)


def _exact_scanner(state: _ExactState, stop: int) -> _Scanner:
    """States ``(A, t, U)`` with ``A = sum_{i>j} W_i``, ``U = u^(top-j)`` and
    ``t = sum_{i>j} W_i v^(i-j) u^(top-i)``, so ``sum_{i>j} W_i b^-(i-j) = t / U`` for ``b = u/v``."""
    base = state.base if state.base is not None else Fraction(2)
    u, v = base.numerator, base.denominator

    def run(s: tuple[int, int, int], ws: Sequence[int]) -> tuple[int, int, int]:
        a, t, big_u = s
        for w in ws:
            a, t, big_u = a + w, v * (w * big_u + t), big_u * u
        return a, t, big_u

    return _Scanner(state.lattice, stop, (0, 0, 1), run)
