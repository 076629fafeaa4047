"""Exact parsing and validation of sampler parameters.

Exact samplers take rationals as ``int``, :class:`fractions.Fraction` or strings such as
``"1/3"`` (any string :class:`~fractions.Fraction` parses exactly, so ``"0.25"`` is 1/4, and
quotients of integer products and powers such as ``"1/10^6"`` or ``"11*10^40/3"``).
A ``float`` is refused: it is a binary approximation whose low bits would leak into the
output distribution (Mironov 2012), which is the failure this project exists to catch.
"""

from __future__ import annotations

import re
from fractions import Fraction
from numbers import Rational

from dpverify.samplers._errors import InvalidArgument

RationalLike = int | Fraction | str

_TERM = re.compile(r"\d+(\^\d{1,6})?")


def as_fraction(name: str, value: object) -> Fraction:
    """Return ``value`` as an exact Fraction, or raise InvalidArgument naming ``name``.

    >>> as_fraction("alpha", "1/3")
    Fraction(1, 3)
    >>> as_fraction("epsilon", "-1/10^3")
    Fraction(-1, 1000)
    >>> as_fraction("alpha", 0.5)
    Traceback (most recent call last):
    ...
    dpverify.samplers._errors.InvalidArgument: alpha must be an exact rational; got alpha=0.5 (a float). Pass it as "num/den", e.g. "1/2".
    """
    if isinstance(value, bool):
        raise InvalidArgument(f"{name} must be an exact rational; got {name}={value!r} (a bool).")
    if isinstance(value, float):
        hint = Fraction(value).limit_denominator(1000)
        raise InvalidArgument(
            f"{name} must be an exact rational; got {name}={value!r} (a float). "
            f'Pass it as "num/den", e.g. "{hint.numerator}/{hint.denominator}".'
        )
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, Rational):
        return Fraction(value.numerator, value.denominator)
    if isinstance(value, str):
        parsed = _rational_expression(value)
        if parsed is not None:
            return parsed
        raise InvalidArgument(
            f'{name} must be a rational such as "1/3" or "1/10^6"; got {name}={value!r}, which does not parse.'
        )
    raise InvalidArgument(
        f'{name} must be an int, a Fraction or a "num/den" string; got {name}={value!r} '
        f"({type(value).__name__})."
    )


def _rational_expression(text: str) -> Fraction | None:
    """``"1/3"``, ``"0.25"``, ``"-1/10^3"`` or ``"11*10^40/3"`` as a Fraction; None if none of those."""
    text = text.strip()
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        pass
    sign = -1 if text.startswith("-") else 1
    top, slash, bottom = (text[1:] if text[:1] in "+-" else text).partition("/")
    numerator = _integer_expression(top)
    denominator = _integer_expression(bottom) if slash else 1
    if numerator is None or not denominator:
        return None
    return Fraction(sign * numerator, denominator)


def _integer_expression(text: str) -> int | None:
    """Evaluate ``"11*10^40"``-style products of integers and powers; None if not of that form."""
    terms = text.replace(" ", "").replace("**", "^").split("*")
    if not all(_TERM.fullmatch(term) for term in terms):
        return None
    value = 1
    for term in terms:
        base, _, exponent = term.partition("^")
        value *= int(base) ** int(exponent or 1)
    return value


def as_int(name: str, value: object, *, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int in ``[low, high]``, or raise InvalidArgument naming ``name``.

    Integral strings, products of powers such as ``"10^100"``, ``"10**100"`` or ``"11*10^40"``,
    and integral Fractions are accepted, so a CLI argument and a Python argument behave the
    same.

    >>> as_int("T", "11*10^3", low=1)
    11000
    """
    upper = "" if high is None else f" and {name} <= {high}"
    allowed = f"an integer with {name} >= {low}{upper}"
    if isinstance(value, str):
        number = _integer_expression(value)
        if number is None:
            raise InvalidArgument(f'{name} must be {allowed}, such as "1000" or "10^100"; got {name}={value!r}.')
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        fraction = as_fraction(name, value)
        if fraction.denominator != 1:
            raise InvalidArgument(f"{name} must be {allowed}; got {name}={value!r}.")
        number = fraction.numerator
    if number < low or (high is not None and number > high):
        raise InvalidArgument(f"{name} must be {allowed}; got {name}={number}.")
    return int(number)


def as_open_unit_interval(name: str, value: object) -> Fraction:
    """Return ``value`` as a Fraction strictly between 0 and 1."""
    number = as_fraction(name, value)
    if not 0 < number < 1:
        raise InvalidArgument(
            f'{name} must be a rational in (0, 1); got {name}={number}. Pass it as "num/den", '
            'e.g. "1/3".'
        )
    return number
