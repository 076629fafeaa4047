"""The randomness interface every sampler draws through.

Samplers never touch :mod:`random`, floats or the OS directly: they call a
:class:`RandomSource`.  Production passes :class:`SystemRandomSource`; the verification
engine passes sources that enumerate, bisect or replay the draws, so the exact distribution
of the *code itself* can be derived (DESIGN.md, "the implementation is the model").

Edge cases every implementation honours (checked by one conformance test for all of them):

- ``randbelow(n)`` returns an int uniform on ``{0, ..., n-1}``; ``n`` must be an ``int >= 1``.
- ``randbelow(1)`` returns 0 and is still a draw (enumerators see a choice of arity 1).
- ``bernoulli(num, den)`` returns True with probability exactly ``num/den``;
  ``0 <= num <= den`` and ``den >= 1`` are required; ``bernoulli(0, d)`` is always False and
  ``bernoulli(d, d)`` always True.
"""

from __future__ import annotations

import hashlib
import secrets
from abc import ABC, abstractmethod

from samplers._errors import InvalidArgument


def _check_randbelow(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidArgument(f"randbelow needs an int n >= 1; got n={n!r}.")
    return n


def _check_bernoulli(num: object, den: object) -> tuple[int, int]:
    if (
        isinstance(num, bool)
        or isinstance(den, bool)
        or not isinstance(num, int)
        or not isinstance(den, int)
        or den < 1
        or not 0 <= num <= den
    ):
        raise InvalidArgument(
            f"bernoulli needs ints with 0 <= num <= den and den >= 1; got num={num!r}, den={den!r}."
        )
    return num, den


class RandomSource(ABC):
    """Uniform integer draws; the only way a sampler may obtain randomness."""

    @abstractmethod
    def randbelow(self, n: int) -> int:
        """Return an int uniform on ``{0, ..., n-1}`` (``n >= 1``; ``randbelow(1) == 0``)."""

    def bernoulli(self, num: int, den: int) -> bool:
        """Return True with probability exactly ``num/den`` (``0 <= num <= den``, ``den >= 1``)."""
        num, den = _check_bernoulli(num, den)
        return self.randbelow(den) < num


class SystemRandomSource(RandomSource):
    """The production source: the operating system's CSPRNG through :mod:`secrets`."""

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(_check_randbelow(n))


class SeededRandomSource(RandomSource):
    """A replayable cryptographic source: SHA-256 in counter mode keyed by ``seed``.

    Statistical checks use it so that every run prints a seed that replays it exactly.
    ``randbelow(n)`` draws ``(n-1).bit_length()`` bits and rejects values ``>= n``, so it is exactly
    uniform for any ``n`` (including ``n = 10**100``); the expected number of tries is < 2.
    """

    def __init__(self, seed: int) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidArgument(f"seed must be an int >= 0; got seed={seed!r}.")
        self.seed = seed
        self._key = seed.to_bytes((seed.bit_length() + 7) // 8 or 1, "big")
        self._counter = 0
        self._pool = 0
        self._pool_bits = 0

    def _bits(self, k: int) -> int:
        while self._pool_bits < k:
            block = hashlib.sha256(self._key + self._counter.to_bytes(16, "big")).digest()
            self._counter += 1
            self._pool = (self._pool << 256) | int.from_bytes(block, "big")
            self._pool_bits += 256
        self._pool_bits -= k
        value = self._pool >> self._pool_bits
        self._pool &= (1 << self._pool_bits) - 1
        return value

    def randbelow(self, n: int) -> int:
        n = _check_randbelow(n)
        k = (n - 1).bit_length()
        while True:
            value = self._bits(k)
            if value < n:
                return value


def fresh_seed() -> int:
    """A new 64-bit seed from the OS CSPRNG, to be printed beside any result it produces."""
    return secrets.randbits(64)
