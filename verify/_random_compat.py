"""A :class:`RandomSource` presented as a ``random.Random``-like object.

Published samplers take an ``rng`` with ``random.Random``'s methods.  :class:`RandomCompat`
gives them one whose every draw is a single choice of the source underneath, so the engine's
enumerating sources see (and weigh) exactly the draws the sampler makes:

- ``randrange``, ``randint``, ``getrandbits``, ``choice``, ``shuffle``, ``sample`` and
  ``randbytes`` are exact: each integer is one ``randbelow(n)`` of the right arity, no float in
  between (``shuffle`` is Fisher–Yates with ``randbelow(i + 1)``);
- ``random()`` is ``j / 2**53`` with ``j = randbelow(2**53)``: CPython's own grid of 53-bit
  doubles in ``[0, 1)``, exactly uniform on it.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

from dpverify.samplers import InvalidArgument, RandomSource
from dpverify.verify._arguments import shown

__all__ = ["RandomCompat"]

T = TypeVar("T")
FLOAT_BITS = 53


class RandomCompat:
    """``random.Random``'s drawing methods over a :class:`RandomSource`.

    >>> from dpverify.samplers import SeededRandomSource
    >>> rng = RandomCompat(SeededRandomSource(7))
    >>> 0 <= rng.randrange(10) < 10 and 3 <= rng.randint(3, 5) <= 5
    True
    """

    def __init__(self, source: RandomSource) -> None:
        if not isinstance(source, RandomSource):
            raise InvalidArgument(f"source must be a RandomSource; got source={shown(source)}.")
        self.source = source

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        for name, value in (("start", start), ("stop", stop), ("step", step)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidArgument(f"randrange {name} must be an int; got {name}={shown(value)}.")
        if step == 0:
            raise InvalidArgument("randrange step must be non-zero; got step=0.")
        count = (stop - start + step + (-1 if step > 0 else 1)) // step
        if count <= 0:
            raise InvalidArgument(f"randrange range is empty; got start={shown(start)}, stop={shown(stop)}, step={shown(step)}.")
        return start + step * self.source.randbelow(count)

    def randint(self, a: int, b: int) -> int:
        return self.randrange(a, b + 1)

    def getrandbits(self, k: int) -> int:
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise InvalidArgument(f"getrandbits k must be an int >= 0; got k={shown(k)}.")
        return self.source.randbelow(1 << k) if k else 0

    def randbytes(self, n: int) -> bytes:
        return self.getrandbits(8 * n).to_bytes(n, "little")

    def choice(self, seq: Sequence[T]) -> T:
        if not len(seq):
            raise InvalidArgument("choice needs a non-empty sequence; got an empty one.")
        return seq[self.source.randbelow(len(seq))]

    def shuffle(self, x: MutableSequence[object]) -> None:
        for i in reversed(range(1, len(x))):
            j = self.source.randbelow(i + 1)
            x[i], x[j] = x[j], x[i]

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        pool = list(population)
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= len(pool):
            raise InvalidArgument(f"sample k must be an int in [0, {len(pool)}]; got k={shown(k)}.")
        for i in range(k):
            j = i + self.source.randbelow(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

    def random(self) -> float:
        return self.source.randbelow(1 << FLOAT_BITS) / (1 << FLOAT_BITS)
