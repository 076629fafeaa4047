"""Interval helpers and certified decimal text for the accountants.

Enclosures (``mpmath.iv``, outward rounding) of ``ln(1+x)``, ``ln(1/x)`` and ``e^x - 1`` for
exact rationals without cancellation, exact comparison of an mpf with a rational for any
exponent, and decimal text that rounds an enclosure's end outward, so that a printed upper
bound is still an upper bound (also for values such as ``10^-(10^58)``, whose exact rational
could not be formed).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mpmath import iv, libmp

from dpverify.specs._enclosure import bits_for_digits, interval_precision, iv_rational, one_minus_exp_neg

__all__ = [
    "EPSILON_DIGITS",
    "EXACT_EXPONENT_BITS",
    "INTERVAL_DIGITS",
    "clamp_nonnegative",
    "decimal_text",
    "decimal_up",
    "expm1_rational",
    "interval_text",
    "iv_lower",
    "iv_upper",
    "log1p_rational",
    "log_inverse",
    "mpf_compare",
    "mpf_decimal",
    "mpf_fraction",
]


#: Significant digits of a rounded-up ``eps'``, and of an enclosure's ends as printed.
EPSILON_DIGITS = 12
INTERVAL_DIGITS = 20


def iv_lower(value: iv.mpf) -> mpmath.mpf:
    return mpmath.mp.make_mpf(value._mpi_[0])


def iv_upper(value: iv.mpf) -> mpmath.mpf:
    return mpmath.mp.make_mpf(value._mpi_[1])


def clamp_nonnegative(value: iv.mpf) -> iv.mpf:
    """``value`` intersected with ``[0, oo)`` (for a quantity known to be >= 0)."""
    if iv_upper(value) <= 0:
        return iv.mpf(0)
    if iv_lower(value) < 0:
        return iv.mpf([0, iv_upper(value)])
    return value


def log1p_rational(x: Fraction) -> iv.mpf:
    """``ln(1 + x)`` for a rational ``0 <= x``: for ``x < 1/2`` the alternating series
    ``sum_{n>=1} (-1)^(n+1) x^n / n`` (terms decrease, so the value lies within the first omitted
    term of any partial sum), without the cancellation of ``log(1 + x)`` for tiny ``x``."""
    if x >= Fraction(1, 2):
        return iv.log(iv_rational(1 + x))
    if x == 0:
        return iv.mpf(0)
    X = iv_rational(x)
    threshold = mpmath.mpf(x.numerator) / x.denominator * mpmath.mpf(2) ** (-iv.prec - 4)
    total, power, n = iv.mpf(0), iv.mpf(1), 0
    while True:
        n += 1
        power = power * X
        total = total + power / n if n % 2 else total - power / n
        following = power * X / (n + 1)
        if iv_upper(following) <= threshold:
            return total + following * iv.mpf([-1, 1])


def log_inverse(x: Fraction) -> iv.mpf:
    """``ln(1/x) > 0`` for a rational ``0 < x < 1``: ``-ln x`` for ``x <= 1/2``; otherwise, with
    ``y = 1 - x < 1/2``, the positive series ``sum_{n>=1} y^n / n``, whose tail after ``n = N`` is
    at most ``y^(N+1) / ((N+1)(1-y)) <= 2 y^(N+1) / (N+1)`` (no cancellation for ``x`` near 1)."""
    if x <= Fraction(1, 2):
        return -iv.log(iv_rational(x))
    y = 1 - x
    Y = iv_rational(y)
    threshold = mpmath.mpf(y.numerator) / y.denominator * mpmath.mpf(2) ** (-iv.prec - 4)
    total, power, n = iv.mpf(0), iv.mpf(1), 0
    while True:
        n += 1
        power = power * Y
        total = total + power / n
        tail = 2 * power * Y / (n + 1)
        if iv_upper(tail) <= threshold:
            return total + tail * iv.mpf([0, 1])


def expm1_rational(x: Fraction) -> iv.mpf:
    """``e^x - 1`` for a rational ``x >= 0``, as ``e^x (1 - e^(-x))`` (no cancellation)."""
    return iv.exp(iv_rational(x)) * one_minus_exp_neg(x)


def mpf_fraction(x: mpmath.mpf) -> Fraction:
    """The exact rational value of a finite mpf (its parts have as many bits as its exponent:
    use :func:`mpf_compare` and :func:`mpf_decimal` for values such as ``10^-(10^15)``)."""
    sign, man, exp, _ = x._mpf_
    value = Fraction(int(man) << exp) if exp >= 0 else Fraction(int(man), 1 << -exp)
    return -value if sign else value


def mpf_compare(x: mpmath.mpf, q: Fraction) -> int:
    """The sign of ``x - q`` for a finite mpf and a rational, exactly and for any exponent:
    ``x * den(q)`` is formed exactly (libmp multiplies without rounding at precision 0)."""
    q = Fraction(q)
    return int(libmp.mpf_cmp(libmp.mpf_mul(x._mpf_, libmp.from_int(q.denominator)), libmp.from_int(q.numerator)))


#: Past this binary exponent an mpf is not turned into a Fraction to be printed.
EXACT_EXPONENT_BITS = 4096


def _greater_or_equal_power(n: int, d: int, e: int) -> bool:
    """``n/d >= 10^e`` for positive integers ``n, d``."""
    scale: int = 10 ** abs(e)
    return n >= d * scale if e >= 0 else n * scale >= d


def _format_decimal(mantissa: int, e: int, digits: int) -> str:
    """``mantissa * 10^(e - digits + 1)`` for a ``digits``-digit mantissa, as decimal text."""
    if mantissa == 10**digits:
        mantissa, e = 10 ** (digits - 1), e + 1
    text = str(mantissa).rstrip("0") or "0"
    if -6 <= e <= 15:
        if e >= len(text) - 1:
            return text + "0" * (e - len(text) + 1)
        if e >= 0:
            return f"{text[: e + 1]}.{text[e + 1 :]}"
        return "0." + "0" * (-e - 1) + text
    return f"{text[0]}.{text[1:]}e{e}" if len(text) > 1 else f"{text}e{e}"


def decimal_text(value: Fraction, digits: int, *, up: bool) -> str:
    """``value >= 0`` rounded to ``digits`` significant digits, up (ceiling) or down (floor),
    as an exact decimal string (plain for moderate exponents, ``d.ddde-X`` otherwise).

    >>> decimal_text(Fraction(1, 3), 4, up=True), decimal_text(Fraction(1, 3), 4, up=False)
    ('0.3334', '0.3333')
    >>> decimal_text(Fraction(10**30 + 1), 3, up=True), decimal_text(Fraction(1, 2), 12, up=True)
    ('1.01e30', '0.5')
    """
    if value <= 0:
        return "0"
    n, d = value.numerator, value.denominator
    e = (n.bit_length() - d.bit_length()) * 30103 // 100000
    while not _greater_or_equal_power(n, d, e):
        e -= 1
    while _greater_or_equal_power(n, d, e + 1):
        e += 1  # now 10^e <= value < 10^(e+1)
    shift = digits - 1 - e
    numerator, denominator = (n * 10**shift, d) if shift >= 0 else (n, d * 10 ** (-shift))
    mantissa, remainder = divmod(numerator, denominator)
    if up and remainder:
        mantissa += 1
    return _format_decimal(mantissa, e, digits)


def mpf_decimal(x: mpmath.mpf, digits: int, *, up: bool) -> str:
    """A finite mpf ``x`` rounded to ``digits`` significant digits, up or down (``"0"`` for
    ``x <= 0``).  Exact through a Fraction for moderate exponents; otherwise
    ``x * 10^(digits-1-e)`` is enclosed in an interval at a precision that carries the exponent,
    and its upper end rounded up (or lower end down), so the text is still a certified bound.

    >>> mpf_decimal(mpmath.mpf(2) ** -100000, 5, up=True), mpf_decimal(mpmath.mpf(2) ** -100000, 5, up=False)
    ('1.001e-30103', '1.0009e-30103')
    """
    if not x > 0:
        return "0"
    _, _, exp, bc = x._mpf_
    if abs(exp) <= EXACT_EXPONENT_BITS:
        return decimal_text(mpf_fraction(x), digits, up=up)
    bits = bits_for_digits(digits) + 64 + (abs(exp) + bc).bit_length()
    with interval_precision(bits):
        X = iv.mpf(x)
        guess = libmp.to_int((iv.log(X) / iv.log(10))._mpi_[0], "f")
        low_limit, high_limit = 10 ** (digits - 1), 10**digits
        for e in (guess, guess - 1, guess + 1, guess - 2, guess + 2):
            scaled = X * iv.mpf(10) ** (digits - 1 - e)
            if iv_lower(scaled) >= low_limit and iv_upper(scaled) < high_limit:
                break
        else:
            raise AssertionError(f"could not place {x} between two powers of ten")
        mantissa = libmp.to_int(scaled._mpi_[1], "c") if up else libmp.to_int(scaled._mpi_[0], "f")
    return _format_decimal(mantissa, e, digits)


def decimal_up(value: mpmath.mpf, digits: int = EPSILON_DIGITS) -> str:
    """``value`` rounded up to ``digits`` significant digits (a certified upper bound)."""
    return mpf_decimal(value, digits, up=True)


def interval_text(low: mpmath.mpf, high: mpmath.mpf) -> tuple[str, str]:
    """An enclosure's ends as decimal text, rounded outward (a negative low end shows as 0: every
    quantity enclosed here is >= 0)."""
    return mpf_decimal(low, INTERVAL_DIGITS, up=False), mpf_decimal(high, INTERVAL_DIGITS, up=True)
