"""k-ary randomized response with an exact ratio: the sampler a DP library ships.

This is the code under test.  It is plain Python (standard library only), exact (integers and
``Fraction``, never floats) and draws its randomness only through ``rng``, an object with
``randbelow(n)`` returning an integer uniform on ``{0, ..., n - 1}``.  In production pass
``dpverify.samplers.SystemRandomSource()`` (the OS CSPRNG) or your library's own source with
that method; under ``dpverify check`` the engine passes a source that enumerates or bisects
the draw, so the exact distribution of *this code* is derived and compared with the spec.

Two versions:

- :func:`randomized_response` is correct;
- :func:`randomized_response_off_by_one` has the kind of slip a maintainer makes: ``<=`` for
  ``<`` in the one comparison.  It moves one draw out of ``b + (k-1)*a`` from an "other" value
  to the true value, a change of ``1/(b + (k-1)*a)`` in two probabilities.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Protocol

__all__ = ["RandomSource", "randomized_response", "randomized_response_off_by_one"]


class RandomSource(Protocol):
    """What the sampler needs from ``rng``: one exact uniform integer draw."""

    def randbelow(self, n: int) -> int: ...


def randomized_response(q: int, k: int, alpha: Fraction | int, rng: RandomSource) -> int:
    """Report ``q`` (one of ``0, ..., k-1``) under ``(-ln alpha)``-local differential privacy.

    With ``alpha = a/b`` in lowest terms (``0 < alpha <= 1``), the output is

    - ``q`` with probability ``b / (b + (k-1)*a)``, and
    - each of the ``k - 1`` other values with probability ``a / (b + (k-1)*a)``,

    so for any two inputs ``q, q'`` and any output ``x``,
    ``alpha <= P(x | q) / P(x | q') <= 1/alpha`` exactly: the guarantee holds for every pair of
    inputs, as local DP requires.  ``alpha = 1`` reports a uniform value (no information).

    It makes exactly one draw, ``u = rng.randbelow(b + (k-1)*a)``: ``u < b`` reports ``q``,
    otherwise the ``(u - b) // a``-th of the other values in increasing order.

    ``q`` and ``k`` must be ints (``k >= 2``, ``0 <= q < k``); ``alpha`` an int or
    ``Fraction`` (a float is refused: it is not the exact ratio you meant).  Anything else
    raises ValueError with a one-line message naming the argument.
    """
    q, k, a, b = _checked(q, k, alpha)
    u = rng.randbelow(b + (k - 1) * a)
    if u < b:
        return q
    return _other(q, (u - b) // a)


def randomized_response_off_by_one(q: int, k: int, alpha: Fraction | int, rng: RandomSource) -> int:
    """The same contract as :func:`randomized_response`, and a bug that breaks it.

    It tests ``u <= b`` instead of ``u < b``, so with ``N = b + (k-1)*a`` the code outputs

    - ``q`` with probability ``(b + 1) / N`` (one draw too many),
    - the first other value (``0``, or ``1`` when ``q = 0``) with ``(a - 1) / N``,
    - every remaining other value with ``a / N`` as intended.

    The tightest ratio becomes ``(a-1)/(b+1) < a/b``, so the ``alpha`` claim is false; with
    ``a = 1`` the first other value is never reported (infinite privacy loss).  At
    ``alpha = 999_999/1_000_000`` and ``k = 4`` the error is ``1/3_999_997`` in probability:
    a DKW test at 20,000 samples is sure to detect only CDF distances above about ``0.046``,
    so sampling cannot see it, while the exact check does.
    """
    q, k, a, b = _checked(q, k, alpha)
    u = rng.randbelow(b + (k - 1) * a)
    if u <= b:  # the slip: should be u < b
        return q
    return _other(q, (u - b) // a)


def _other(q: int, index: int) -> int:
    """The ``index``-th value of ``0, ..., k-1`` other than ``q``, in increasing order."""
    return index if index < q else index + 1


def _checked(q: object, k: object, alpha: object) -> tuple[int, int, int, int]:
    """``(q, k, a, b)`` with ``alpha = a/b`` in lowest terms, or ValueError naming the argument."""
    if not _is_int(k) or k < 2:  # type: ignore[operator]
        raise ValueError(f"k must be an int >= 2; got k={k!r}.")
    if not _is_int(q) or not 0 <= q < k:  # type: ignore[operator]
        raise ValueError(f"q must be an int with 0 <= q < k = {k}; got q={q!r}.")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, Fraction)):
        hint = " Pass Fraction(a, b): a float is not an exact ratio." if isinstance(alpha, float) else ""
        raise ValueError(f"alpha must be an int or Fraction in (0, 1]; got alpha={alpha!r}.{hint}")
    ratio = Fraction(alpha)
    if not 0 < ratio <= 1:
        raise ValueError(f"alpha must be in (0, 1]; got alpha={ratio}.")
    return q, k, ratio.numerator, ratio.denominator  # type: ignore[return-value]


def _is_int(value: object) -> bool:
    # bool is an int subclass, but True as a category count is a caller's mistake.
    return isinstance(value, int) and not isinstance(value, bool)
