"""The conversion from words to draws that the docstrings of SystemRandomSource and
SeededRandomSource document, computed independently: plain arithmetic on Fractions that neither
imports nor calls the sources' code, so that it is a second statement the code is checked against.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction

__all__ = ["Law"]


# --- the conversion the docstrings document, computed independently ----------------------------

Law = dict[tuple[Hashable, int], Fraction]


def _attempts_law(
    k: int, n: int, output: Callable[[int], Hashable], ends: Callable[[int], int], depth: int
) -> tuple[Law, Fraction]:
    """Attempts of ``k`` fresh uniform bits, accepted below ``n``; attempt ``i`` ends after
    ``ends(i)`` words.  The joint law of (output, words) over ``depth`` words, and the mass
    still undecided after them."""
    if k == 0:
        return {(output(0), 0): Fraction(1)}, Fraction(0)
    each, undecided = Fraction(1, 2**k), Fraction(1)
    reject = 1 - n * each
    law: Law = {}
    attempt = 1
    while undecided and ends(attempt) <= depth:
        words = ends(attempt)
        for x in range(n):
            key = (output(x), words)
            law[key] = law.get(key, Fraction(0)) + undecided * each
        undecided *= reject
        attempt += 1
    return law, undecided


def _digits_law(num: int, den: int, width: int, depth: int) -> tuple[Law, Fraction]:
    """``U < num/den`` decided ``width`` bits at a time, as SystemRandomSource documents it."""
    if num == 0 or num == den:
        return {(num == den, 0): Fraction(1)}, Fraction(0)
    size, tie, remainder = 2**width, Fraction(1), num
    law: Law = {}
    for words in range(1, depth + 1):
        digit, remainder = divmod(remainder << width, den)
        law[(True, words)] = tie * Fraction(digit, size)
        law[(False, words)] = tie * Fraction(size - 1 - digit + (remainder == 0), size)
        tie /= size
        if remainder == 0:
            return {key: m for key, m in law.items() if m}, Fraction(0)
    return {key: m for key, m in law.items() if m}, tie


def _words_for(k: int, width: int) -> int:
    return -(-k // width)


def _ends(pooled: bool, k: int, width: int) -> Callable[[int], int]:
    """Where attempt ``i`` of ``k`` bits ends, in words: ``ceil(i k / w)`` when unused bits stay
    in a pool (``pooled``, SeededRandomSource), else ``i * ceil(k / w)`` (whole new words each)."""
    if pooled:
        return lambda attempt: _words_for(attempt * k, width)
    words = _words_for(k, width)
    return lambda attempt: attempt * words
