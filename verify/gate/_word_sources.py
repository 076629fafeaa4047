"""The sources under test and the draws run on them: a :class:`WordSource` builds a source over
an injected supply of words, a :class:`Call` is one draw with its ideal law.  Both the walk over
the real code and the checks take them, so they sit below both.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction

from dpverify.samplers import InvalidArgument, RandomSource, SeededRandomSource, SystemRandomSource
from dpverify.samplers._random_source import _check_bernoulli, _check_randbelow
from dpverify.samplers._rational import shown

__all__ = ["SEEDED", "SYSTEM", "Call", "WordSource"]


# --- the sources under test --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WordSource:
    """A randomness source whose conversion runs over an injected supply of words.

    ``build(words, width)`` returns the source reading its words from ``words()`` (ints uniform
    on ``[0, 2**width)``); ``pooled`` says that bits a draw does not use stay for the next
    (SeededRandomSource's pool) rather than each attempt taking whole fresh words;
    ``digit_bernoulli`` that ``bernoulli`` compares ``U`` with ``p`` digit by digit rather than
    being ``randbelow(den) < num``.  The last two choose the documented conversion the code is
    compared with; ``refills`` that an IndexError from ``words()`` means an empty pool, which
    the code answers by calling it once more: every third word is then read that way, so the
    refill path of production is enumerated as well as the plain one.  ``name`` labels results
    and reproductions (``name.build(...)``).
    """

    name: str
    build: Callable[[Callable[[], int], int], RandomSource]
    pooled: bool
    digit_bernoulli: bool
    refills: bool = False

    @property
    def constructor(self) -> str:
        owner = getattr(self.build, "__self__", None)
        method = getattr(self.build, "__name__", "build")
        return f"{owner.__name__}.{method}" if isinstance(owner, type) else f"{self.name}.{method}"


#: The production source: 64-bit words, whole fresh words per attempt, digit-wise coins.
SYSTEM = WordSource(
    "SystemRandomSource", SystemRandomSource.from_words, pooled=False, digit_bernoulli=True, refills=True
)
#: The replay source: 256-bit blocks feeding a pool of bits; its coin is randbelow(den) < num.
SEEDED = WordSource("SeededRandomSource", SeededRandomSource.from_blocks, pooled=True, digit_bernoulli=False)


@dataclass(frozen=True, slots=True)
class Call:
    """One draw: ``Call("randbelow", (n,))`` or ``Call("bernoulli", (num, den))``."""

    method: str
    arguments: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.method == "randbelow" and isinstance(self.arguments, tuple) and len(self.arguments) == 1:
            _check_randbelow(self.arguments[0])
        elif self.method == "bernoulli" and isinstance(self.arguments, tuple) and len(self.arguments) == 2:
            _check_bernoulli(*self.arguments)
        else:
            raise InvalidArgument(
                f'a Call is Call("randbelow", (n,)) or Call("bernoulli", (num, den)); got '
                f"method={shown(self.method)}, arguments={shown(self.arguments)}."
            )

    def __str__(self) -> str:
        return f"{self.method}({', '.join(map(str, self.arguments))})"

    def ideal(self) -> dict[Hashable, Fraction]:
        if self.method == "randbelow":
            (n,) = self.arguments
            return {x: Fraction(1, n) for x in range(n)}
        num, den = self.arguments
        return {o: m for o, m in ((True, Fraction(num, den)), (False, Fraction(den - num, den))) if m}

    def run(self, source: RandomSource) -> Hashable:
        draw: Callable[..., Hashable] = getattr(source, self.method)
        return draw(*self.arguments)


def _need_width(width: object) -> int:
    if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= 4:
        raise InvalidArgument(
            f"width must be an int in [1, 4] (bits per enumerated word); got width={shown(width)}. "
            "Widths 1 to 3 cover every case of the conversion."
        )
    return width


def _need_source(source: object) -> WordSource:
    if not isinstance(source, WordSource):
        raise InvalidArgument(
            f"source must be a WordSource (SYSTEM, SEEDED, or your own); got source={shown(source)} "
            f"({type(source).__name__})."
        )
    return source


def _call_text(call: Call | tuple[Call, ...]) -> str:
    return str(call) if isinstance(call, Call) else f"({', '.join(map(str, call))})"
