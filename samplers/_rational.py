"""Exact parsing and validation of sampler parameters.

Exact samplers take rationals as ``int``, :class:`fractions.Fraction` or strings such as
``"1/3"`` (any string :class:`~fractions.Fraction` parses exactly, so ``"0.25"`` is 1/4, and
quotients of integer products and powers such as ``"1/10^6"`` or ``"11*10^40/3"``), in ASCII
digits only: Python's own parsers also read other scripts' digits (``int("５") == 5``), and a
number should mean what it plainly shows, in Python as on the command line.
A ``float`` is refused: it is a binary approximation whose low bits would leak into the
output distribution (Mironov 2012), which is the failure this project exists to catch.

Size limits, checked before any arithmetic: a number written as text has at most
:data:`MAX_DIGITS` digits (in its integer, numerator or denominator, powers evaluated; a term of
a product is refused before it is computed when the digits so far would exceed the limit, and
an ``e`` exponent may not exceed it in magnitude), and the text is at most :data:`MAX_TEXT`
characters with at most ``2 * MAX_DIGITS + 20`` digits; an ``int`` or ``Fraction`` passed directly has at most
:data:`MAX_BITS` bits in each part.  Without them ``"10^999999"`` or ``"1e99999999999"`` would
compute for hours, and CPython refuses to print integers of more than 4300 digits.  An error
quotes at most a short, elided prefix of a long value (:func:`shown`).
"""

from __future__ import annotations

import operator
import re
from fractions import Fraction
from numbers import Rational

from dpverify.samplers._errors import InvalidArgument

RationalLike = int | Fraction | str

#: Most decimal digits in a number written as text (each of numerator and denominator).
MAX_DIGITS = 1000
#: Most characters of such a text.
MAX_TEXT = 2 * MAX_DIGITS + 100
#: Most bits in an int, or in each part of a Fraction, passed directly (about 19,700 digits).
MAX_BITS = 1 << 16

# re.ASCII: \d would match any script's digits, and int() would read them
_TERM = re.compile(r"\d+(\s*\^\s*\d{1,6})?", re.ASCII)
_EXPONENT = re.compile(r"[eE]([+-]?\d+)\s*$", re.ASCII)


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)``, or for a long one its first characters and its length, so an error
    line stays short (and never converts a huge int to text, which CPython refuses).

    >>> shown("7" * 5000)
    "'7777777777777777777777777777777777777...' (5002 characters)"
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        return f"an integer of about {_digits(value.bit_length())} digits"
    if isinstance(value, Fraction) and max(value.numerator.bit_length(), value.denominator.bit_length()) > 3 * limit:
        return (
            f"a fraction with about {_digits(max(value.numerator.bit_length(), value.denominator.bit_length()))} digits"
        )
    try:
        text = str(value) if isinstance(value, (int, Fraction)) else repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not replace the error being reported
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else f"{text[: limit - 20]}...' ({len(text)} characters)"


def _label(name: object) -> str:
    """A parameter's name as an error shows it: a short string."""
    text = name if isinstance(name, str) else shown(name)
    return text if len(text) <= 40 else text[:37] + "..."


def _digits(bits: int) -> int:
    """Decimal digits of a ``bits``-bit integer, to within one (log10(2) = 0.30103...)."""
    return bits * 30103 // 100000


def _too_big(name: str, value: object) -> InvalidArgument:
    return InvalidArgument(
        f"{name} is too large: {name}={shown(value)}; numbers are limited to {MAX_DIGITS} digits "
        f"as text and {MAX_BITS} bits as an int or Fraction."
    )


def _within_bits(name: str, value: Fraction, given: object) -> Fraction:
    if value.numerator.bit_length() > MAX_BITS or value.denominator.bit_length() > MAX_BITS:
        raise _too_big(name, given)
    return value


def as_fraction(name: str, value: object) -> Fraction:
    """Return ``value`` as an exact Fraction, or raise InvalidArgument naming ``name``.

    >>> as_fraction("alpha", "1/3")
    Fraction(1, 3)
    >>> as_fraction("epsilon", "-1/10^3")
    Fraction(-1, 1000)
    >>> as_fraction("alpha", 0.5)
    Traceback (most recent call last):
    ...
    dpverify.samplers._errors.InvalidArgument: alpha must be an exact rational; ... Pass it as "num/den", e.g. "1/2".
    """
    name = _label(name)
    if isinstance(value, bool):
        raise InvalidArgument(f"{name} must be an exact rational; got {name}={shown(value)} (a bool).")
    if isinstance(value, float):
        if value - value != 0:  # nan and +-inf: x - x is nan only for them
            raise InvalidArgument(
                f'{name} must be an exact rational; got {name}={shown(value)} (a float). Pass it as "num/den".'
            )
        hint = Fraction(value).limit_denominator(1000)
        example = f', e.g. "{hint.numerator}/{hint.denominator}"' if hint.numerator.bit_length() <= 64 else ""
        raise InvalidArgument(
            f'{name} must be an exact rational; got {name}={shown(value)} (a float). Pass it as "num/den"{example}.'
        )
    if isinstance(value, (int, Fraction)):
        return _within_bits(name, Fraction(value), value)
    if isinstance(value, Rational):
        # a Rational's numerator and denominator are Integral: exact ints through __index__
        numerator, denominator = operator.index(value.numerator), operator.index(value.denominator)
        return _within_bits(name, Fraction(numerator, denominator), value)
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise _too_big(name, value)
        try:
            parsed = _rational_expression(value)
        except _OverLimit:
            raise _too_big(name, value) from None
        if parsed is not None:
            return parsed
        raise InvalidArgument(
            f'{name} must be a rational such as "1/3" or "1/10^6"; got {name}={shown(value)}, which does not parse.'
        )
    raise InvalidArgument(
        f'{name} must be an int, a Fraction or a "num/den" string; got {name}={shown(value)} ({type(value).__name__}).'
    )


def _rational_expression(text: str) -> Fraction | None:
    """``"1/3"``, ``"0.25"``, ``"-1/10^3"`` or ``"11*10^40/3"`` as a Fraction; None if none of
    those.  Raises InvalidArgument (naming nothing: the caller adds the name) past the limits."""
    text = text.strip()
    if not text.isascii():  # Fraction() reads any script's digits; only ASCII ones are numbers here
        return None
    exponent = _EXPONENT.search(text)
    if exponent is not None and abs(int(exponent.group(1))) > MAX_DIGITS:
        raise _OverLimit
    if sum(c.isdigit() for c in text) > 2 * MAX_DIGITS + 20:
        raise _OverLimit
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        pass
    else:
        return _digits_ok(value)
    sign = -1 if text.startswith("-") else 1
    top, slash, bottom = (text[1:] if text[:1] in "+-" else text).partition("/")
    numerator = _integer_expression(top)
    denominator = _integer_expression(bottom) if slash else 1
    if numerator is None or not denominator:
        return None
    return _digits_ok(Fraction(sign * numerator, denominator))


class _OverLimit(Exception):
    """Internal: a text number past :data:`MAX_DIGITS`; the public functions name it."""


_LIMIT = 10**MAX_DIGITS


def _digits_ok(value: Fraction) -> Fraction:
    if abs(value.numerator) >= _LIMIT or value.denominator >= _LIMIT:
        raise _OverLimit
    return value


def _integer_expression(text: str) -> int | None:
    """Evaluate ``"11*10^40"``-style products of integers and powers; None if not of that form.
    A term is refused before it is computed when it would pass :data:`MAX_DIGITS` digits."""
    # Blanks may surround an operator, never split a number: "2 * 3 ^ 2" is 18, "1 2" is no number.
    terms = [term.strip() for term in text.replace("**", "^").split("*")]
    if not all(_TERM.fullmatch(term) for term in terms):
        return None
    value, digits = 1, 0
    for term in terms:
        base, _, exponent = (part.strip() for part in term.partition("^"))
        power = int(exponent or 1)
        # len(base) - 1 <= log10(base): a lower bound on the digits, so nothing legal is refused
        # (a base of 0 counts as one digit, so a zero factor cannot hide a term past the limit)
        digits += (len(base.lstrip("0") or "0") - 1) * power
        if digits > MAX_DIGITS:
            raise _OverLimit
        value *= int(base) ** power
        if value >= _LIMIT:
            raise _OverLimit
    return value


def as_int(name: str, value: object, *, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int in ``[low, high]``, or raise InvalidArgument naming ``name``.

    Integral strings, products of powers such as ``"10^100"``, ``"10**100"`` or ``"11*10^40"``,
    and integral Fractions are accepted, so a CLI argument and a Python argument behave the
    same.

    >>> as_int("T", "11*10^3", low=1)
    11000
    """
    name = _label(name)
    if (
        isinstance(low, bool)
        or not isinstance(low, int)
        or not (high is None or (isinstance(high, int) and not isinstance(high, bool)))
    ):
        raise InvalidArgument(f"as_int needs int bounds; got low={shown(low)}, high={shown(high)}.")
    upper = "" if high is None else f" and {name} <= {shown(high)}"
    allowed = f"an integer with {name} >= {shown(low)}{upper}"
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise _too_big(name, value)
        try:
            number = _integer_expression(value.strip().removeprefix("+"))
            if number is None and value.strip().startswith("-"):
                magnitude = _integer_expression(value.strip()[1:])
                number = None if magnitude is None else -magnitude
        except _OverLimit:
            raise _too_big(name, value) from None
        if number is None:
            raise InvalidArgument(f'{name} must be {allowed}, such as "1000" or "10^100"; got {name}={shown(value)}.')
    elif isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > MAX_BITS:
            raise _too_big(name, value)
        number = value
    else:
        fraction = as_fraction(name, value)
        if fraction.denominator != 1:
            raise InvalidArgument(f"{name} must be {allowed}; got {name}={shown(value)}, which is not an integer.")
        number = fraction.numerator
    if number < low or (high is not None and number > high):
        raise InvalidArgument(f"{name} must be {allowed}; got {name}={shown(number)}.")
    return int(number)


def as_open_unit_interval(name: str, value: object) -> Fraction:
    """Return ``value`` as a Fraction strictly between 0 and 1."""
    name = _label(name)
    number = as_fraction(name, value)
    if not 0 < number < 1:
        raise InvalidArgument(
            f'{name} must be a rational in (0, 1); got {name}={shown(number)}. Pass it as "num/den", e.g. "1/3".'
        )
    return number
