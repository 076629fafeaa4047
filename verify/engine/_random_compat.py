"""A :class:`RandomSource` presented as a ``random.Random``-compatible object.

Published samplers take an ``rng`` with ``random.Random``'s methods, and libraries such as
diffprivlib accept only a ``random.SystemRandom`` (``secrets.SystemRandom``) instance.
:class:`RandomCompat` is one: a ``random.SystemRandom`` subclass whose every draw is a single
choice of the source underneath, so the engine's enumerating sources see (and weigh) exactly
the draws the sampler makes.

- The integer methods are exact.  CPython implements ``randrange``, ``randint``, ``choice``,
  ``shuffle`` and ``sample`` in Python on top of ``_randbelow(n)``; that one method is
  replaced by a single ``randbelow(n)`` of the source (instead of CPython's rejection loop
  over ``getrandbits``), so each integer is one choice of the right arity with no float in
  between, and the order of the draws is CPython's own.  Under the enumerating source that
  draw is a :class:`~dpverify.verify.engine._lazy_uniform.LazyUniform`, branched on only by the
  comparisons the code makes (same law, far fewer paths).  ``getrandbits(k)`` is one
  ``randbelow(2**k)`` and ``randbytes(n)`` one ``getrandbits(8 * n)``.
- ``random()`` is ``j / 2**k`` with ``j = randbelow(2**k)``, exactly uniform on the grid of
  ``k``-bit dyadic floats in ``[0, 1)``.  CPython's grid is ``k = 53``; a smaller ``float_bits``
  lets float code be enumerated exactly at reduced precision (as the float Laplace audit
  does), and every verdict on such code says the precision it holds for.  Every other float
  method (``uniform``, ``gauss``, ``expovariate``, ...) is CPython's, on this ``random()``.
"""

from __future__ import annotations

import random

from dpverify.samplers import InvalidArgument, RandomSource
from dpverify.samplers._rational import MAX_BITS
from dpverify.verify.engine._arguments import shown

__all__ = ["CPYTHON_FLOAT_BITS", "RandomCompat"]

#: The bits of ``random.random()``'s grid in CPython.
CPYTHON_FLOAT_BITS = 53
#: The most bits one ``getrandbits`` draws (``randbytes``: an eighth as many bytes): the size of
#: the largest int an exact parameter may have, far past what a sampler asks for.
MAX_RANDOM_BITS = MAX_BITS


class RandomCompat(random.SystemRandom):
    """``random.Random``'s methods over a :class:`~dpverify.samplers.RandomSource`, floats on a ``2**-float_bits`` grid.

    >>> from dpverify.samplers import SeededRandomSource
    >>> rng = RandomCompat(SeededRandomSource(7))
    >>> 0 <= rng.randrange(10) < 10 and 3 <= rng.randint(3, 5) <= 5
    True
    >>> RandomCompat(SeededRandomSource(7), float_bits=3).random() * 8 % 1
    0.0
    """

    def __init__(self, source: RandomSource, *, float_bits: int = CPYTHON_FLOAT_BITS) -> None:
        if not isinstance(source, RandomSource):
            raise InvalidArgument(f"source must be a RandomSource; got source={shown(source)}.")
        if isinstance(float_bits, bool) or not isinstance(float_bits, int) or not 1 <= float_bits <= CPYTHON_FLOAT_BITS:
            raise InvalidArgument(
                f"float_bits must be an int in [1, {CPYTHON_FLOAT_BITS}]; got float_bits={shown(float_bits)}."
            )
        super().__init__()
        self.source = source
        self.float_bits = float_bits

    def _randbelow(self, n: int) -> int:
        # The enumerating source answers with a draw it branches on lazily (same law, fewer paths).
        lazy = getattr(self.source, "lazy_randbelow", None)
        return self.source.randbelow(n) if lazy is None else lazy(n)

    def getrandbits(self, k: int) -> int:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_RANDOM_BITS:
            raise InvalidArgument(f"getrandbits k must be an int in [0, {MAX_RANDOM_BITS}]; got k={shown(k)}.")
        return self.source.randbelow(1 << k) if k else 0

    def randbytes(self, n: int) -> bytes:
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_RANDOM_BITS // 8:
            raise InvalidArgument(f"randbytes n must be an int in [0, {MAX_RANDOM_BITS // 8}]; got n={shown(n)}.")
        return self.getrandbits(8 * n).to_bytes(n, "little")

    def random(self) -> float:
        return self.source.randbelow(1 << self.float_bits) / (1 << self.float_bits)

    def __reduce__(self) -> tuple[object, ...]:
        # random.Random pickles through getstate(), which a SystemRandom refuses.
        return (type(self), (self.source,), {"float_bits": self.float_bits})

    def __setstate__(self, state: dict[str, int]) -> None:
        self.float_bits = state["float_bits"]
