"""A uniform integer that the enumerating engine draws only as far as the code looks at it.

Published samplers draw ``m = rng.randrange(d)`` and only ask ``m < c``: Canonne, Kamath,
Steinke 2020's reference ``sample_bernoulli(p)`` is ``randrange(p.denominator) <
p.numerator``.  Enumerated value by value, that draw is a ``d``-way branch, and the
denominators of their ``Bernoulli(exp(-gamma))`` coins grow with every step of the loop, so the
tree blows up.  :class:`LazyUniform` stands for the draw instead and branches only on the
questions the code asks.

The maths.  ``X`` is uniform on ``{0, ..., n-1}``.  The object keeps an interval
``[low, high)`` that ``X`` is known to lie in, and the answers given so far are exactly the
event ``X in [low, high)``; conditioned on it, ``X`` is uniform on the interval.

- ``X < c`` with ``low < c < high`` is one ``bernoulli(c - low, high - low)`` of the source:
  ``P(X < c | X in [low, high)) = (c - low) / (high - low)``, exactly.  ``True`` shrinks the
  interval to ``[low, c)``, ``False`` to ``[c, high)``, and ``X`` stays uniform on what is left.
  A ``c`` outside the interval is answered without a draw.  ``<=``, ``>``, ``>=`` are the same
  question at ``c`` or ``c + 1``; ``X == c`` is one when ``c`` is an end of the interval
  (``bool(X)`` is ``X != 0``).
- Any other use (arithmetic but for adding an integer, ``int``, ``__index__`` as a list index,
  hashing, printing, ``Fraction(X, t)``, ...) *materialises* ``X``: one
  ``randbelow(high - low)`` of the source, ``X = low + that``, uniform on the interval.

By the chain rule every value ``v`` gets ``P(X = v) = 1/n`` whatever the questions were, and an
execution depends on ``X`` only through the answers, so an execution that never materialises
``X`` behaves identically for every value in its final interval.  Each enumerated path is
therefore the event "these answers, these other draws" with its exact probability, the paths
still partition the probability space, and the output law (and every interval of
:mod:`dpverify.verify.engine._enumerate`) is the same as with ``randbelow(n)`` drawn at once.  The
``d``-way branch becomes ``O(questions)`` two-way ones: ``sample_bernoulli`` costs one coin.

``X + c`` and ``X - c`` (``c`` an int) are the same draw shifted: they share its interval, so an
answer about one constrains the other.  What it does not model: code that inspects the type
(``type(X) is int``, ``isinstance(X, int)``; ``isinstance(X, numbers.Integral)`` is true) behaves
differently from production, and a draw's count is its questions, not one (so the draw-count
timing report does not apply to code enumerated this way).  Only the enumerating source
hands these out (:meth:`dpverify.verify.engine._enumerate._TreeWalker.lazy_randbelow`); sampling
sources draw ``randbelow(n)`` at once.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable
from fractions import Fraction
from typing import Any

from dpverify.samplers import RandomSource

__all__ = ["LazyUniform", "settled"]


class _Draw:
    """One uniform draw: the interval it is known to lie in, and its value once materialised."""

    __slots__ = ("high", "low", "source", "value")

    def __init__(self, source: RandomSource, n: int) -> None:
        self.source, self.low, self.high = source, 0, n
        self.value: int | None = None

    def below(self, c: int) -> bool:
        """``X < c``, branching on it only when the interval straddles ``c``."""
        if self.value is not None:
            return self.value < c
        low, high = self.low, self.high
        if c <= low:
            return False
        if c >= high:
            return True
        answer = self.source.bernoulli(c - low, high - low)
        if answer:
            self.high = c
        else:
            self.low = c
        if self.high - self.low == 1:
            self.value = self.low
        return answer

    def fixed(self) -> int:
        if self.value is None:
            width = self.high - self.low
            self.value = self.low + (self.source.randbelow(width) if width > 1 else 0)
        return self.value


def _threshold(other: object) -> int | None:
    """The integer ``c`` with ``X < other  <=>  X < c`` for every integer ``X``, or None."""
    if type(other) is int or type(other) is bool:
        return int(other)
    if isinstance(other, Fraction):
        return math.ceil(other)
    return None


class LazyUniform:
    """``offset + X`` for a uniform draw ``X`` that is branched on lazily (module docstring)."""

    __slots__ = ("_draw", "_offset")

    def __init__(self, source: RandomSource, n: int, *, _draw: _Draw | None = None, _offset: int = 0) -> None:
        self._draw = _draw if _draw is not None else _Draw(source, n)
        self._offset = _offset

    def value(self) -> int:
        """Materialise: the integer itself."""
        return self._draw.fixed() + self._offset

    # -- the questions answered lazily --------------------------------------------------------

    def __lt__(self, other: object) -> bool:
        c = _threshold(other)
        return (
            self._draw.below(c - self._offset)
            if c is not None  # else other is no int or Fraction, so it has no threshold
            else self.value() < other  # type: ignore[operator]  # other of any type: int's own < decides
        )

    def __ge__(self, other: object) -> bool:
        c = _threshold(other)
        return (
            not self._draw.below(c - self._offset)
            if c is not None  # else other is no int or Fraction, so it has no threshold
            else self.value() >= other  # type: ignore[operator]  # other of any type: int's own >= decides
        )

    def __le__(self, other: object) -> bool:  # X <= c  <=>  X < floor(c) + 1
        c = _threshold(-other) if isinstance(other, (int, Fraction)) else None
        return (
            self._draw.below(-c + 1 - self._offset)
            if c is not None  # else other is no int or Fraction, so it has no threshold
            else self.value() <= other  # type: ignore[operator]  # other of any type: int's own <= decides
        )

    def __gt__(self, other: object) -> bool:
        c = _threshold(-other) if isinstance(other, (int, Fraction)) else None
        return (
            not self._draw.below(-c + 1 - self._offset)
            if c is not None  # else other is no int or Fraction, so it has no threshold
            else self.value() > other  # type: ignore[operator]  # other of any type: int's own > decides
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not int and type(other) is not bool:
            return self.value() == other
        draw, c = self._draw, int(other) - self._offset
        if draw.value is not None:
            return draw.value == c
        if not draw.low <= c < draw.high:
            return False
        if c == draw.low:
            return draw.below(c + 1)
        if c == draw.high - 1:
            return not draw.below(c)
        return draw.fixed() == c

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __bool__(self) -> bool:
        return not self.__eq__(0)

    def __add__(self, other: object) -> Any:
        if type(other) is int:
            return LazyUniform(self._draw.source, 0, _draw=self._draw, _offset=self._offset + other)
        return self.value() + other  # type: ignore[operator]  # other of any type: int's own + decides

    __radd__ = __add__

    def __sub__(self, other: object) -> Any:
        if type(other) is int:
            return LazyUniform(self._draw.source, 0, _draw=self._draw, _offset=self._offset - other)
        return self.value() - other  # type: ignore[operator]  # other of any type: int's own - decides

    # -- everything else materialises -------------------------------------------------------------

    def __hash__(self) -> int:
        return hash(self.value())

    def __index__(self) -> int:
        return self.value()

    def __int__(self) -> int:
        return self.value()

    def __float__(self) -> float:
        return float(self.value())

    def __repr__(self) -> str:
        return repr(self.value())

    def __format__(self, spec: str) -> str:
        return format(self.value(), spec)

    @property
    def numerator(self) -> int:
        return self.value()

    @property
    def denominator(self) -> int:
        return 1

    def __getattr__(self, name: str) -> Any:  # bit_length, to_bytes, real, imag, ...
        return getattr(self.value(), name)


def _materialising(name: str) -> Any:
    def method(self: LazyUniform, *args: Any) -> Any:
        return getattr(self.value(), name)(*(a.value() if isinstance(a, LazyUniform) else a for a in args))

    method.__name__ = name
    return method


for _name in (
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__floordiv__",
    "__rfloordiv__",
    "__truediv__",
    "__rtruediv__",
    "__mod__",
    "__rmod__",
    "__divmod__",
    "__rdivmod__",
    "__pow__",
    "__rpow__",
    "__neg__",
    "__pos__",
    "__abs__",
    "__invert__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__xor__",
    "__rxor__",
    "__lshift__",
    "__rlshift__",
    "__rshift__",
    "__rrshift__",
    "__round__",
    "__trunc__",
    "__floor__",
    "__ceil__",
):
    setattr(LazyUniform, _name, _materialising(_name))
del _name

numbers.Integral.register(LazyUniform)  # so Fraction(X, t) and isinstance(X, numbers.Integral) work


def settled(output: Hashable) -> Hashable:
    """``output`` with every lazy draw in it (at the top or inside tuples) materialised."""
    if isinstance(output, LazyUniform):
        return output.value()
    if type(output) is tuple:
        return tuple(settled(o) for o in output)
    return output
