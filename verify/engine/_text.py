"""Rationals for human eyes."""

from __future__ import annotations

from fractions import Fraction

from dpverify.samplers._rational import shown
from dpverify.verify.engine._results import fraction_text


def short_rational(value: Fraction, digits: int = 40) -> str:
    """Exact ``num/den`` when short; otherwise 12 significant digits and the exact length.

    >>> short_rational(Fraction(9, 28))
    '9/28'
    >>> short_rational(Fraction(10**60 + 1, 3 * 10**60))
    '0.333333333333 (exact: 123 chars)'
    """
    text = fraction_text(value)
    if len(text) <= digits:
        return text
    return f"{_decimal(value)} (exact: {len(text)} chars)"


def _decimal(value: Fraction) -> str:
    """12 significant digits without a float of ``value`` itself, which overflows past 1e308."""
    if value == 0:
        return "0"
    sign, value = ("-", -value) if value < 0 else ("", value)
    exponent = _digit_count(value.numerator) - _digit_count(value.denominator)
    if Fraction(10) ** exponent > value:
        exponent -= 1  # now 10**exponent <= value < 10**(exponent + 1)
    digits = round(value / Fraction(10) ** exponent * 10**11)
    if digits == 10**12:
        digits, exponent = digits // 10, exponent + 1
    if -5 <= exponent <= 12:
        return f"{sign}{float(Fraction(digits, 10**11) * Fraction(10) ** exponent):.12g}"
    text = str(digits).rstrip("0")
    return f"{sign}{text[0]}.{text[1:] or '0'}e{exponent:+d}"


def _digit_count(number: int) -> int:
    """The decimal digits of ``number >= 1``, without ``str`` (which refuses past 4300 digits).

    >>> _digit_count(1), _digit_count(999), _digit_count(1000), _digit_count(10**5000)
    (1, 3, 4, 5001)
    """
    count = max(1, number.bit_length() * 30103 // 100000)  # log10(2) = 0.30103: within one
    while 10**count <= number:
        count += 1
    while count > 1 and 10 ** (count - 1) > number:
        count -= 1
    return count


def shown_value(value: object, limit: int = 60) -> str:
    """:func:`~dpverify.samplers._rational.shown`, but a rational reads ``1/3`` inside a tuple or a
    list too (a vector input or output), as it does on its own.

    >>> shown_value((Fraction(1, 3), Fraction(-2), "a"))
    "(1/3, -2, 'a')"
    """
    if not (type(value) is tuple or type(value) is list) or len(value) > 64:
        return shown(value, limit)
    inner = ", ".join(shown_value(v, limit) for v in value)
    text = f"[{inner}]" if type(value) is list else f"({inner},)" if len(value) == 1 else f"({inner})"
    return text if len(text) <= limit else shown(value, limit)
