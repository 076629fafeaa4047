"""Module-level ``random`` and ``secrets`` drawing from a :class:`RandomSource`, one execution at a time.

Published samplers often call ``random.randrange(n)``, ``secrets.randbelow(n)`` or create a
``random.SystemRandom()`` inside, instead of taking an ``rng``.  :func:`patched_random` makes
every such draw of the current thread, for the duration of one execution, a draw of a
:class:`~dpverify.verify.engine._random_compat.RandomCompat` over the given source, so the engine
enumerates (and weighs) them exactly as it does an ``rng`` argument.  What it redirects:

- ``random``'s module-level functions.  They are bound methods of one hidden instance,
  ``random._inst``.  That instance's class is switched to a subclass whose three primitives
  (``random``, ``getrandbits``, ``_randbelow``) dispatch to the thread's ``RandomCompat``; every
  other method CPython writes in Python (``randrange``, ``randint``, ``choice``, ``shuffle``,
  ``sample``, ``choices``, ``uniform``, ``gauss``, ``randbytes``, ...) reaches the randomness
  only through those three, so it is redirected too, even where a module bound it early
  (``from random import randrange``).  ``random.random`` and ``random.getrandbits`` are C
  methods bound at import, so the module attributes are replaced as well; a module that did
  ``from random import random`` before the patch keeps CPython's generator (say so in a spec).
- ``secrets``: ``randbelow``, ``choice``, ``randbits``, ``token_bytes`` (and so ``token_hex``,
  ``token_urlsafe``) all draw through the module's hidden ``SystemRandom``, whose class is
  switched the same way (``_randbelow``, ``getrandbits``, ``random``, ``randbytes``).
- ``random.SystemRandom`` and ``secrets.SystemRandom`` (one class): while patched, the name is
  a stand-in whose instances, created on a thread with a source, *are* ``RandomCompat`` objects
  over it (a ``SystemRandom`` subclass); elsewhere they are CPython's ``SystemRandom``.
  ``isinstance(x, random.SystemRandom)`` answers as it would for CPython's class.
- ``random.Random(seed)`` objects are not redirected: a seeded generator is deterministic.

Thread safety.  The patch is installed when the first execution enters and removed when the
last one leaves, reference-counted under a lock.  Each thread keeps a stack of its own
``RandomCompat`` objects (nested patches are allowed); a thread with none falls through to
CPython's generators, so unrelated threads are unaffected.  Everything is undone in
``finally`` blocks: on return, on any exception (``KeyboardInterrupt`` included) and when a
generator holding the context is closed.
"""

from __future__ import annotations

import random
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from dpverify.samplers import RandomSource
from dpverify.verify.engine._hooks import EnvironmentChanged
from dpverify.verify.engine._random_compat import CPYTHON_FLOAT_BITS, RandomCompat

__all__ = ["patched_random", "patched_rng"]

_ORIGINAL_SYSTEM_RANDOM = random.SystemRandom
_ORIGINAL_FUNCTIONS: dict[str, Callable[..., Any]] = {"random": random.random, "getrandbits": random.getrandbits}

_lock = threading.Lock()
_installed = 0
_local = threading.local()


def _current() -> RandomCompat | None:
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


def patched_rng() -> RandomCompat | None:
    """The ``RandomCompat`` the current thread's module-level draws go to, or None."""
    return _current()


class _Dispatch:
    """The three primitives every other method of ``random.Random`` draws through, sent to the
    thread's RandomCompat (or, on a thread with none, to the class's own)."""

    # A mixin: in the classes below, super() is random.Random (or SystemRandom), which mypy cannot
    # see from here, where the next class in the MRO is object.
    def random(self) -> float:
        compat = _current()
        return super().random() if compat is None else compat.random()  # type: ignore[misc]  # mixin, see above

    def getrandbits(self, k: int) -> int:
        compat = _current()
        return super().getrandbits(k) if compat is None else compat.getrandbits(k)  # type: ignore[misc]  # mixin

    def _randbelow(self, n: int) -> int:
        compat = _current()
        return super()._randbelow(n) if compat is None else compat._randbelow(n)  # type: ignore[misc]  # mixin


class _DispatchingRandom(_Dispatch, random.Random):
    """``random._inst``'s class while patched."""


class _DispatchingSystemRandom(_Dispatch, _ORIGINAL_SYSTEM_RANDOM):
    """``secrets._sysrand``'s class while patched (``randbytes`` does not go through the primitives)."""

    def randbytes(self, n: int) -> bytes:
        compat = _current()
        return super().randbytes(n) if compat is None else compat.randbytes(n)


class _SystemRandomMeta(type):
    """``isinstance`` and ``issubclass`` against the stand-in answer as for CPython's class."""

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, _ORIGINAL_SYSTEM_RANDOM)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return issubclass(subclass, _ORIGINAL_SYSTEM_RANDOM)

    def __call__(cls, *args: Any, **kwargs: Any) -> random.SystemRandom:
        compat = _current()
        if compat is None:
            return _ORIGINAL_SYSTEM_RANDOM(*args, **kwargs)
        return RandomCompat(compat.source, float_bits=compat.float_bits)


class _SystemRandomStandIn(metaclass=_SystemRandomMeta):
    """``random.SystemRandom`` while patched: a new instance draws from the thread's source."""


def _function(name: str) -> Any:
    original = _ORIGINAL_FUNCTIONS[name]

    def dispatch(*args: Any) -> Any:
        compat = _current()
        return original(*args) if compat is None else getattr(compat, name)(*args)

    dispatch.__name__ = dispatch.__qualname__ = name
    dispatch.__doc__ = original.__doc__
    return dispatch


_DISPATCH_FUNCTIONS = {name: _function(name) for name in _ORIGINAL_FUNCTIONS}


def _install() -> None:
    random._inst.__class__ = _DispatchingRandom
    secrets._sysrand.__class__ = _DispatchingSystemRandom  # type: ignore[attr-defined]  # private, not in typeshed
    for name, function in _DISPATCH_FUNCTIONS.items():
        setattr(random, name, function)
    # the stdlib class is replaced on purpose by a stand-in, not its subclass, whose metaclass answers
    # isinstance and issubclass as for the original
    random.SystemRandom = secrets.SystemRandom = _SystemRandomStandIn  # type: ignore[misc, assignment]  # see above


def _uninstall() -> None:
    # puts the stdlib class back: mypy refuses any assignment to a class name
    random.SystemRandom = secrets.SystemRandom = _ORIGINAL_SYSTEM_RANDOM  # type: ignore[misc]  # restore, see above
    for name, function in _ORIGINAL_FUNCTIONS.items():
        setattr(random, name, function)
    secrets._sysrand.__class__ = _ORIGINAL_SYSTEM_RANDOM  # type: ignore[attr-defined]  # private, not in typeshed
    random._inst.__class__ = random.Random


@contextmanager
def patched_random(source: RandomSource, *, float_bits: int = CPYTHON_FLOAT_BITS) -> Iterator[RandomCompat]:
    """Within the block, this thread's module-level ``random``/``secrets`` draws come from ``source``.

    Yields the :class:`RandomCompat` they go to (``random()`` on a ``2**-float_bits`` grid).
    Other threads are unaffected unless they enter a block of their own (module docstring).

    >>> from dpverify.samplers import SeededRandomSource
    >>> with patched_random(SeededRandomSource(3), float_bits=2):
    ...     random.random() * 4 % 1, isinstance(random.SystemRandom(), RandomCompat)
    (0.0, True)
    >>> random.SystemRandom is _ORIGINAL_SYSTEM_RANDOM
    True
    """
    global _installed
    compat = RandomCompat(source, float_bits=float_bits)  # validates both arguments
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    with _lock:
        if _installed == 0:
            _install()
        _installed += 1
    try:
        stack.append(compat)
        yield compat
    finally:
        if stack and stack[-1] is compat:
            stack.pop()
        with _lock:
            removed = _removed()
            _installed -= 1
            if _installed == 0:
                _uninstall()
            elif removed:
                _install()  # another thread's block still needs it
    if removed:  # draws may have escaped to the real generator: no law derived from this run holds
        raise EnvironmentChanged(f"the sampler removed dpverify's patch of the random module ({removed})")


def _removed() -> str:
    """What of the patch :func:`_install` laid is no longer in place (empty: all of it)."""
    if random._inst.__class__ is not _DispatchingRandom:
        return "random's generator was replaced"
    for name, function in _DISPATCH_FUNCTIONS.items():
        if getattr(random, name, None) is not function:
            return f"random.{name} was replaced"
    # random.SystemRandom is typed as CPython's class, but _install rebinds it to the stand-in
    if random.SystemRandom is not _SystemRandomStandIn:  # type: ignore[comparison-overlap]  # rebound at run time
        return "random.SystemRandom or secrets was replaced"
    if secrets._sysrand.__class__ is not _DispatchingSystemRandom:  # type: ignore[attr-defined]  # private, untyped
        return "random.SystemRandom or secrets was replaced"
    return ""
