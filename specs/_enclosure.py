"""Rigorous interval enclosures with mpmath, for irrational probabilities.

``mpmath.iv`` rounds every operation outward, so an interval computed from exact rational
inputs contains the exact value; :func:`enclose` raises the precision until the enclosure is
as narrow as asked.  The only trust left is in mpmath's outward rounding of ``exp``, ``log``,
``sqrt`` and ``pi``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction

import mpmath
from mpmath import iv, libmp

__all__ = [
    "EXP_NEG_CUTOFF",
    "GUARD_BITS",
    "MAX_BITS",
    "MAX_DPS",
    "bits_for_digits",
    "enclose",
    "exp_neg",
    "interval_precision",
    "iv_rational",
    "one_minus_exp_neg",
]

#: Bits computed beyond the requested precision before the first width check.
GUARD_BITS = 32
#: Working precision cap of :func:`enclose` (about 6000 decimal digits).
MAX_BITS = 20_000
#: Largest ``dps`` accepted from a caller.
MAX_DPS = 5_000


def bits_for_digits(dps: int) -> int:
    """Bits that carry ``dps`` decimal digits: ``ceil(dps * log2(10))`` (exact integer arithmetic).

    >>> bits_for_digits(15)
    50
    """
    return -(-dps * 3321928095 // 1000000000)  # log2(10) = 3.3219280948... rounded up


@contextmanager
def interval_precision(bits: int) -> Iterator[None]:
    """Run a block with ``mpmath.iv`` at ``bits`` of precision, restoring the previous one.

    ``mpmath.iv`` keeps its precision globally, so this is not thread-safe.
    """
    previous = iv.prec
    iv.prec = bits
    try:
        yield
    finally:
        iv.prec = previous


def iv_rational(value: Fraction | int) -> iv.mpf:
    """An interval containing the exact rational ``value`` (numerator and denominator each
    rounded outward, then an outward-rounded division)."""
    value = Fraction(value)
    return iv.mpf(value.numerator) / iv.mpf(value.denominator)


#: Past this ``x``, :func:`exp_neg` encloses ``e^(-x)`` by ``[0, 2^-floor(x)]`` instead of computing
#: it: mpmath's exponential of a rational argument of ``2^16000`` takes seconds, and a value below
#: ``2^-2^4096`` is lost against any sum it enters at the precisions used here.
EXP_NEG_CUTOFF = 1 << 4096


def exp_neg(x: Fraction) -> iv.mpf:
    """An enclosure of ``e^(-x)`` for a rational ``x >= 0``: mpmath's outward-rounded exponential,
    or ``[0, 2^-floor(x)]`` past :data:`EXP_NEG_CUTOFF` (``e^(-x) <= 2^(-x)`` for ``x >= 0``)."""
    if x < 0:
        raise AssertionError(f"exp_neg needs x >= 0, got {x}")
    if x > EXP_NEG_CUTOFF:
        return iv.mpf([0, mpmath.ldexp(1, -math.floor(x))])
    return iv.exp(-iv_rational(x))


def one_minus_exp_neg(x: Fraction) -> iv.mpf:
    """An enclosure of ``1 - e^(-x)`` for a rational ``x >= 0`` without cancellation.

    For ``x >= 1/2``: ``1 - exp(-x)`` (at most a factor 2.6 of cancellation).  For ``x < 1/2``:
    the alternating series ``sum_{k>=1} (-1)^(k+1) x^k / k!``, whose terms decrease, so the
    value lies within the first omitted term of any partial sum.
    """
    if x < 0:
        raise AssertionError(f"one_minus_exp_neg needs x >= 0, got {x}")
    if x == 0:
        return iv.mpf(0)
    X = iv_rational(x)
    if x >= Fraction(1, 2):
        return 1 - exp_neg(x)
    threshold = mpmath.mpf(x.numerator) / x.denominator * mpmath.mpf(2) ** (-iv.prec - 4)
    total, term, k = iv.mpf(0), iv.mpf(1), 0
    while True:
        k += 1
        term = term * X / k
        total = total + term if k % 2 else total - term
        next_term = term * X / (k + 1)
        if _upper(next_term) <= threshold:
            return total + next_term * iv.mpf([-1, 1])


def _lower(value: iv.mpf) -> mpmath.mpf:
    return mpmath.mp.make_mpf(value._mpi_[0])


def _upper(value: iv.mpf) -> mpmath.mpf:
    return mpmath.mp.make_mpf(value._mpi_[1])


def _narrow(value: iv.mpf, bits: int) -> bool:
    """``high - low <= low * 2**-bits`` (a stopping rule, so approximate arithmetic is fine)."""
    low, high = value._mpi_
    if libmp.mpf_eq(low, high):
        return True
    if libmp.mpf_le(low, libmp.fzero):
        return False
    width = libmp.mpf_sub(high, low, bits + 16, "u")
    return bool(libmp.mpf_le(width, libmp.mpf_shift(low, -bits)))  # libmp is untyped


def _outward(value: iv.mpf, bits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The endpoints rounded outward to ``bits``: low towards -inf, high towards +inf."""
    low, high = value._mpi_
    return (
        mpmath.mp.make_mpf(libmp.mpf_pos(low, bits, "f")),
        mpmath.mp.make_mpf(libmp.mpf_pos(high, bits, "c")),
    )


def enclose(compute: Callable[[], iv.mpf], dps: int, *, extra_bits: int = 0) -> tuple[mpmath.mpf, mpmath.mpf]:
    """A rigorous enclosure ``(low, high)`` of the value ``compute()`` encloses, with relative
    width at most ``10**-dps``.

    ``compute`` runs under :func:`interval_precision` and must return an interval containing the
    exact value whatever the precision (truncation bounds included), narrower as the precision
    grows.  It runs first at ``bits_for_digits(dps) + GUARD_BITS + extra_bits`` bits, then at
    doubled precision until narrow enough or past :data:`MAX_BITS` (then the wider, still valid,
    enclosure is returned).  The endpoints are rounded outward to ``bits_for_digits(dps) + 8``
    bits, which widens them by at most ``2**-(bits + 7)`` relative.
    """
    target = bits_for_digits(dps)
    bits = target + GUARD_BITS + max(0, extra_bits)
    while True:
        with interval_precision(bits):
            value = compute()
        if _narrow(value, target + 1) or bits >= MAX_BITS:
            return _outward(value, target + 8)
        bits = min(2 * bits, MAX_BITS)
