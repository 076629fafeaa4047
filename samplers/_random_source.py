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

A source that breaks this contract is caught at the draw, not by a sampler that then loops
for ever: every subclass's ``randbelow`` and ``bernoulli`` are wrapped so that a value out of
range, a value of the wrong type, or an exception raises :class:`SamplerContractError` naming
the source, the call and what it returned.  The sources this package and its engine define
are declared with ``trusted=True`` and run unwrapped, since their draws are the hot path.

The two sources that ship, :class:`SystemRandomSource` (production) and
:class:`SeededRandomSource` (replay), are verified on this very code: each can run its
conversion over an injected supply of words of any width
(:meth:`SystemRandomSource.from_words`, :meth:`SeededRandomSource.from_blocks`), and
``dpverify.verify.gate._source_check`` enumerates every word at small widths to prove the draws
exact (the gate entries ``system-source`` and ``seeded-source``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import secrets
import sys
from abc import ABC, abstractmethod
from array import array
from collections.abc import Callable
from typing import Any

from dpverify.samplers._errors import DpverifyError, InvalidArgument, SamplerContractError
from dpverify.samplers._rational import shown


def _check_randbelow(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidArgument(f"randbelow needs an int n >= 1; got n={shown(n)}.")
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
            f"bernoulli needs ints with 0 <= num <= den and den >= 1; got num={shown(num)}, den={shown(den)}."
        )
    return num, den


def _broken(source: object, call: str, what: str, allowed: str) -> SamplerContractError:
    return SamplerContractError(
        f"{type(source).__name__}.{call} {what}; a RandomSource must return {allowed} (see RandomSource)."
    )


def _guard_randbelow(method: Callable[[Any, int], Any]) -> Callable[[Any, int], int]:
    @functools.wraps(method)
    def randbelow(self: Any, n: int) -> int:
        n = _check_randbelow(n)
        try:
            value = method(self, n)
        except DpverifyError:
            raise
        except Exception as error:  # noqa: BLE001 - any failure of the source is its contract broken
            raise _broken(
                self,
                f"randbelow({shown(n)})",
                f"raised {type(error).__name__}: {shown(str(error))}",
                "an int in [0, n)",
            ) from error
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
            raise _broken(self, f"randbelow({shown(n)})", f"returned {shown(value)}", "an int in [0, n)")
        return value

    randbelow.guarded = True  # type: ignore[attr-defined]  # a function object takes attributes at run time
    return randbelow


def _guard_bernoulli(method: Callable[[Any, int, int], Any]) -> Callable[[Any, int, int], bool]:
    @functools.wraps(method)
    def bernoulli(self: Any, num: int, den: int) -> bool:
        num, den = _check_bernoulli(num, den)
        try:
            value = method(self, num, den)
        except DpverifyError:
            raise
        except Exception as error:  # noqa: BLE001
            raise _broken(
                self,
                f"bernoulli({shown(num)}, {shown(den)})",
                f"raised {type(error).__name__}: {shown(str(error))}",
                "a bool",
            ) from error
        if not isinstance(value, bool):
            raise _broken(self, f"bernoulli({shown(num)}, {shown(den)})", f"returned {shown(value)}", "a bool")
        return value

    bernoulli.guarded = True  # type: ignore[attr-defined]  # a function object takes attributes at run time
    return bernoulli


class RandomSource(ABC):
    """Uniform integer draws; the only way a sampler may obtain randomness.

    Subclass it with ``class MySource(RandomSource)``; its draws are then checked against the
    contract above.  (``trusted=True`` skips the checks; it is for this package's own sources.)
    """

    #: Set only by the engine's enumerating sources: how a call of a function marked in
    #: :mod:`dpverify.samplers._loops` is replaced by its summarised distribution.  None (every
    #: production source) runs the function itself.
    _summarise: Callable[..., Any] | None = None

    def __init_subclass__(cls, *, trusted: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if trusted:
            return
        for name, guard in (("randbelow", _guard_randbelow), ("bernoulli", _guard_bernoulli)):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "guarded", False):
                setattr(cls, name, guard(method))

    @abstractmethod
    def randbelow(self, n: int) -> int:
        """Return an int uniform on ``{0, ..., n-1}`` (``n >= 1``; ``randbelow(1) == 0``)."""

    def bernoulli(self, num: int, den: int) -> bool:
        """Return True with probability exactly ``num/den`` (``0 <= num <= den``, ``den >= 1``)."""
        num, den = _check_bernoulli(num, den)
        return self.randbelow(den) < num


# The production source's pool of unused CSPRNG output: uniform 64-bit words from os.urandom
# (the OS CSPRNG that `secrets` uses too), fetched 4 KiB at a time, each handed out at most
# once.  One syscall per 512 words instead of one per draw is what makes the samplers fast.
# - Threads: ``array.pop`` and ``array.extend`` are single C calls under the GIL, so two threads
#   never receive the same word; a refill takes its own word before the pool sees the rest.
#   Where the GIL is disabled (free-threaded builds) there is no pool: every word is read from
#   os.urandom directly.
# - fork(): a child must never reuse the words its parent still holds, so the child empties the
#   pool (os.register_at_fork) before it runs any Python code.
_REFILL_BYTES = 4096  # 512 words; a read that is not whole words is refused by array()
_POOL_WIDTH = 64  # bits per word of the pool
_POOLED = getattr(sys, "_is_gil_enabled", lambda: True)()


class _UnpooledWords:
    """Stands in for the pool where the GIL is disabled: each word straight from os.urandom."""

    def pop(self) -> int:
        return int.from_bytes(os.urandom(_POOL_WIDTH // 8), "little")

    def __delitem__(self, index: slice) -> None:
        """Nothing is kept, so a forked child has nothing to forget."""

    def extend(self, words: array[int]) -> None:
        """Nothing is kept (never reached: :meth:`pop` never runs dry, so the pool is never refilled)."""


_WORDS: array[int] | _UnpooledWords = array("Q") if _POOLED else _UnpooledWords()
# 'Q' is 8 bytes on every CPython platform
if isinstance(_WORDS, array) and _WORDS.itemsize * 8 != _POOL_WIDTH:  # pragma: no cover
    raise ImportError("SystemRandomSource needs array('Q') items of 8 bytes")
_pop = _WORDS.pop


def _refill_and_pop() -> int:
    """A fresh word once the pool is empty: one from a new read, the rest of which joins the pool.
    The word is taken before the pool sees the read, so no other thread can take it first."""
    fresh = array("Q", os.urandom(_REFILL_BYTES))
    word = fresh.pop()
    _WORDS.extend(fresh)
    return word


def _forget_pool_after_fork() -> None:
    del _WORDS[:]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


def _need_width(name: str, width: object) -> int:
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise InvalidArgument(f"{name} must be an int >= 1 (bits per word); got {name}={shown(width)}.")
    return width


def _need_supply(name: str, supply: object) -> Callable[[], int]:
    if not callable(supply):
        raise InvalidArgument(
            f"{name} must be a callable taking no argument and returning a uniform word; got {name}={shown(supply)} "
            f"({type(supply).__name__})."
        )
    return supply


class SystemRandomSource(RandomSource, trusted=True):
    """The production source: the operating system's CSPRNG (os.urandom, as :mod:`secrets`).

    Uniform ``w``-bit words, ``w = 64``, come from a process-wide pool of os.urandom output (see
    ``_WORDS``), each used at most once, and are turned into draws exactly:

    - ``randbelow(n)``: the top ``k = (n-1).bit_length()`` bits of ``ceil(k/w)`` words, i.e. a
      uniform ``k``-bit integer, rejected and redrawn while ``>= n`` (fewer than 2 tries on
      average), so the result is exactly uniform on ``{0..n-1}`` for every ``n``.
      ``randbelow(1)`` is 0 and needs no bits.
    - ``bernoulli(num, den)``: one two-way coin, True iff a uniform real ``U`` in [0, 1) is
      below ``p = num/den``.  ``U``'s binary expansion is compared with ``p``'s ``w`` bits at a
      time: word ``x`` against ``c = floor(p * 2^w)``; ``x < c`` means ``U < p``, ``x > c``
      means ``U > p``, and on ``x == c`` the comparison continues with ``p * 2^w - c`` (if
      that is 0, ``U >= p``).  So ``P[True] = p`` exactly, with one word per coin except with
      probability ``2^-w``, however large ``den`` is.  ``p = 0`` and ``p = 1`` need no bits.

    The conversion never assumes ``w = 64``: every shift and word count is written in terms of
    the width, and its only constants are 0 and 1.  :meth:`from_words` runs these same two
    methods over another supply of words of any width, which is how
    ``dpverify.verify.gate._source_check`` proves them exact by enumerating every word at small
    widths.  ``SystemRandomSource()`` takes nothing and sets nothing: the pool is the class
    default, read once per draw.
    """

    #: ``(words, width)`` of a :meth:`from_words` source.  None (the class default, so that
    #: construction sets nothing) is production: the pool's ``_POOL_WIDTH``-bit words, ``_pop``,
    #: refilled on IndexError.  One attribute, read once per call, keeps the hot path short.
    _supply: tuple[Callable[[], int], int] | None = None

    @classmethod
    def from_words(cls, words: Callable[[], int], width: int) -> SystemRandomSource:
        """This source's conversion over ``words`` instead of the OS pool.

        ``words()`` is called once per word and must return an int uniform on
        ``[0, 2**width)``, independent of every earlier word; the draws are then exactly as
        uniform as they are in production, whose words are os.urandom's at ``width = 64``.
        An IndexError from ``words()`` asks it once more (as the empty pool is refilled); a
        second one propagates.  For verification and tests: the words are whatever the
        callable returns, so it is no CSPRNG unless ``words`` is one.

        >>> SystemRandomSource.from_words(iter([5, 6]).__next__, width=3).randbelow(6)
        5
        """
        source = cls()
        source._supply = (_need_supply("words", words), _need_width("width", width))
        return source

    def randbelow(self, n: int) -> int:
        if type(n) is not int or n < 1:
            n = int(_check_randbelow(n))
        if n == 1:
            return 0
        supply = self._supply
        if supply is None:
            pop, refill, w = _pop, _refill_and_pop, _POOL_WIDTH
        else:
            pop, w = supply
            refill = pop
        k = (n - 1).bit_length()
        if k <= w:  # one word: its top k bits
            shift = w - k
            while True:
                try:
                    x = pop() >> shift
                except IndexError:
                    x = refill() >> shift
                if x < n:
                    return x
        words = (k + w - 1) // w  # several words, most significant first: the top k of their bits
        shift = w * words - k
        while True:
            x = 0
            for _ in range(words):
                try:
                    x = (x << w) | pop()
                except IndexError:
                    x = (x << w) | refill()
            x >>= shift
            if x < n:
                return x

    def bernoulli(self, num: int, den: int) -> bool:
        if type(num) is not int or type(den) is not int or not 0 <= num <= den or den == 0:
            num, den = _check_bernoulli(num, den)  # raises unless an int subclass in range
            num, den = int(num), int(den)
        if num == 0:
            return False
        if num == den:
            return True
        supply = self._supply
        if supply is None:
            pop, refill, w = _pop, _refill_and_pop, _POOL_WIDTH
        else:
            pop, w = supply
            refill = pop
        while True:  # compare U with p = num/den, w bits at a time
            try:
                x = pop()
            except IndexError:
                x = refill()
            c, num = divmod(num << w, den)
            if x != c:
                return x < c
            if num == 0:
                return False


class SeededRandomSource(RandomSource, trusted=True):
    """A replayable cryptographic source: SHA-256 in counter mode keyed by ``seed``.

    Statistical checks use it so that every run prints a seed that replays it exactly.
    ``randbelow(n)`` draws ``(n-1).bit_length()`` bits and rejects values ``>= n``, so it is exactly
    uniform for any ``n`` (including ``n = 10**100``); the expected number of tries is < 2.
    ``bernoulli(num, den)`` is the base class's ``randbelow(den) < num``.

    The bits come from a pool: 256-bit blocks ``SHA-256(seed bytes || counter as 16 bytes)``,
    counter 0, 1, ..., appended below the pool's unused bits, which are handed out most
    significant first, each once; bits a draw does not use stay for the next draw.
    :meth:`from_blocks` runs the same pool over another supply of blocks of any width, which
    is how ``dpverify.verify.gate._source_check`` proves it exact at small block widths.
    """

    #: Bits per block: SHA-256's output.  The pool code is written in terms of it.
    _block_width: int = 256

    def __init__(self, seed: int) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidArgument(f"seed must be an int >= 0; got seed={shown(seed)}.")
        self.seed: int | None = seed
        self._key = seed.to_bytes((seed.bit_length() + 7) // 8 or 1, "big")
        self._counter = 0
        self._pool = 0
        self._pool_bits = 0

    @classmethod
    def from_blocks(cls, blocks: Callable[[], int], width: int) -> SeededRandomSource:
        """This source's bit pool over ``blocks`` instead of SHA-256 (``seed`` is then None).

        ``blocks()`` is called whenever the pool runs short and must return an int uniform on
        ``[0, 2**width)``, independent of every earlier block.  For verification and tests.

        >>> source = SeededRandomSource.from_blocks(iter([0b101101]).__next__, width=6)
        >>> source.randbelow(8), source.randbelow(8)
        (5, 5)
        """
        source = cls(0)
        source.seed = None
        # replaces the method on this one instance, on purpose: its pool then draws from ``blocks``
        source._block = _need_supply("blocks", blocks)  # type: ignore[method-assign]  # on purpose, see above
        source._block_width = _need_width("width", width)
        return source

    def _block(self) -> int:
        """The next block: SHA-256 of the key and the counter, as a 256-bit int."""
        block = hashlib.sha256(self._key + self._counter.to_bytes(16, "big")).digest()
        self._counter += 1
        return int.from_bytes(block, "big")

    def _bits(self, k: int) -> int:
        width = self._block_width
        while self._pool_bits < k:
            self._pool = (self._pool << width) | self._block()
            self._pool_bits += width
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


#: What ``as_source(None)`` hands out.  A production SystemRandomSource holds no state (its
#: words come from the process-wide pool), so one instance serves every call and thread.
_SYSTEM = SystemRandomSource()


def as_source(rng: object) -> RandomSource:
    """``rng`` itself, or the OS CSPRNG for None; anything else is refused (a sampler's
    ``rng`` argument, checked once per call)."""
    if rng is None:
        return _SYSTEM
    if isinstance(rng, RandomSource):
        return rng
    raise InvalidArgument(
        f"rng must be a RandomSource, or None for the OS CSPRNG; got rng={shown(rng)} ({type(rng).__name__})."
    )
