"""The tightest pure-DP ratio of a GTM instance without building its ``(n+1) x (n+1)`` table.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers", §3 and §5:
with a uniform of size ``T`` the implementation's row for input ``q`` is, writing
``F(d) = floor(T * CDF(d))`` for the ideal CDF at offset ``d = x - q`` (``dpverify.specs.gtm``)
and ``s(d) = F(d) - F(d-1)``::

    T * P_T(0 | q) = F(-q),   T * P_T(x | q) = s(x - q)  (0 < x < n),   T * P_T(n | q) = T - F(n-1-q).

Why the ``O(n)`` pairs below are all the pairs, not a heuristic subset.  Every row has the same
denominator ``T``, so the ratio of an entry pair is ``min(w, w')/max(w, w')`` of its numerators
(0 when exactly one is 0; a pair of zeros has no ratio).  The neighbours are ``(q, q+1)`` for
``q = 0..n-1`` (both orders, hence the min/max), and at each of them:

- output ``0`` gives the pair ``(F(-q), F(-q-1))``: ``n`` pairs, one per ``q``;
- output ``n`` gives ``(T - F(n-1-q), T - F(n-2-q))``: ``n`` pairs, one per ``q``;
- an interior output ``x`` gives ``(s(d), s(d-1))`` with ``d = x - q``, which depends on ``d``
  alone; ``d`` runs over ``2-n .. n-1`` and every such ``d`` occurs, first (in the order
  ``q``, then ``x``) at ``q = max(0, 1-d)``, ``x = q + d``.

So the set of ratios over all ``n (n+1)`` neighbour-output positions is exactly the set over
these ``4n - 2`` classes, and the table-wide minimum is their minimum.  The full-table path
(:func:`dpverify.verify.privacy._ratio.tightest_alpha`) reports the first position, in the order
``q`` then ``x``, whose ratio is minimal; each class above is labelled with its first position,
so taking the minimum of ``(ratio, q, x)`` over the classes gives the same witness.  Ratios are
compared exactly, by cross-multiplying the integers; bit lengths settle most comparisons first
(a ratio ``u/v`` of positive integers lies in ``(2**(len(u)-len(v)-1), 2**(len(u)-len(v)+1))``),
so the work is ``O(n)`` comparisons of ``O(n)``-digit integers on top of the ``F`` values.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

try:
    import gmpy2 as _gmpy2
except ImportError:  # pragma: no cover - depends on the installation (optional extra ``fast``)
    _gmpy2 = None

from dpverify.specs import GtmSpec
from dpverify.specs.gtm import _offset_tables
from dpverify.verify.engine._results import RatioWitness
from dpverify.verify.privacy._ratio import PrivacyLoss

__all__ = ["gtm_every_output_possible", "gtm_tightest_alpha"]


def _classes(spec: GtmSpec) -> Iterator[tuple[int, int, int, int]]:
    """``(w, w', q, x)``: the numerators of ``P_T(x|q)`` and ``P_T(x|q+1)`` for each class of the
    module docstring, at its first position."""
    n, T = spec.n, spec.T
    floored, _ = _offset_tables(spec.alpha, n, T)
    cdf, steps = floored.cdf, floored.steps  # index d + n
    for q in range(n):
        yield cdf[n - q], cdf[n - q - 1], q, 0
    for d in range(2 - n, n):
        q = max(0, 1 - d)
        yield steps[d + n], steps[d - 1 + n], q, q + d
    for q in range(n):
        yield T - cdf[2 * n - 1 - q], T - cdf[2 * n - 2 - q], q, n


def _smaller(u: int, v: int, u2: int, v2: int) -> int:
    """Sign of ``u/v - u2/v2`` for ``0 < u <= v``, ``0 < u2 <= v2``."""
    e, e2 = u.bit_length() - v.bit_length(), u2.bit_length() - v2.bit_length()
    if e + 1 <= e2 - 1:
        return -1
    if e2 + 1 <= e - 1:
        return 1
    if _gmpy2 is not None:  # the same products; GMP multiplies 10^4-digit integers far faster
        u, u2 = _gmpy2.mpz(u), _gmpy2.mpz(u2)
    left, right = u * v2, u2 * v
    return (left > right) - (left < right)


def gtm_tightest_alpha(spec: GtmSpec) -> PrivacyLoss:
    """The tightest ``alpha`` of ``spec``'s table and its witness, equal to
    ``tightest_alpha(gtm_table(spec), spec.neighbours())`` (proof in the module docstring)."""
    best: tuple[int, int, int, int, int, int] | None = None  # (low, high, q, x, w, w'); low 0: infinite
    for w, w2, q, x in _classes(spec):
        if w == 0 and w2 == 0:
            continue
        low, high = (w, w2) if w <= w2 else (w2, w)
        if best is None:
            best = (low, high, q, x, w, w2)
            continue
        if best[0] == 0:
            if low == 0 and (q, x) < best[2:4]:
                best = (low, high, q, x, w, w2)
            continue
        sign = -1 if low == 0 else _smaller(low, high, best[0], best[1])
        if sign < 0 or (sign == 0 and (q, x) < best[2:4]):
            best = (low, high, q, x, w, w2)
    if best is None:
        return PrivacyLoss(Fraction(1), None)
    low, high, q, x, w, w2 = best
    pmf_q, pmf_next = Fraction(w, spec.T), Fraction(w2, spec.T)
    witness = (
        RatioWitness(q, q + 1, x, pmf_q, pmf_next) if pmf_q <= pmf_next else RatioWitness(q + 1, q, x, pmf_next, pmf_q)
    )
    return PrivacyLoss(Fraction(low, high), witness)


def gtm_every_output_possible(spec: GtmSpec) -> bool:
    """Whether every entry of the table is positive: the union of the rows' numerators is
    ``F(-q)`` and ``T - F(n-1-q)`` for ``q = 0..n`` and ``s(d)`` for ``d = 1-n .. n-1``."""
    n, T = spec.n, spec.T
    floored, _ = _offset_tables(spec.alpha, n, T)
    cdf, steps = floored.cdf, floored.steps
    interior = range(1 - n, n) if n > 1 else range(0)  # n = 1 has no interior output
    return (
        all(cdf[n - q] for q in range(n + 1))
        and all(steps[d + n] for d in interior)
        and all(T - cdf[2 * n - 1 - q] for q in range(n + 1))
    )
