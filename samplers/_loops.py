"""Rejection loops and random subroutines, marked so that the engine can summarise them.

Canonne, Kamath, Steinke 2020 (Algorithms 1-3) nest loops: the discrete Gaussian repeats an
attempt that runs a discrete Laplace loop, whose attempt runs Bernoulli(exp(-gamma)) coins,
which are loops themselves.  Enumerating such code restart by restart spends the mass budget
on retries; enumerating each marked piece once, on its own, and using its exact (or exactly
bounded) output law wherever it is called, does not.

- :func:`until_accepted` turns an attempt ``attempt(*args, rng)`` (an output, or None to
  reject) into the loop "repeat independent attempts until one returns a value".  The loop
  is written once, here, so every sampler's loop is literally this one and the renewal
  identity ``P(z) = A(z) / sum_y A(y)`` (``A`` the law of one attempt) applies to it.
- :func:`subroutine` marks ``f(*args, rng)`` whose draws depend only on its arguments and on
  the draws it makes, so its output law is a function of its arguments.

In production (and under every source whose ``_summarise`` is None) both run the code as
written, at the cost of one extra call.  The engine's enumerating source sets ``_summarise``
and answers a marked call with a single choice over the summarised outputs
(:mod:`dpverify.verify._summaries`); the code of the loop and the subroutine is still what
is enumerated, once per distinct argument tuple.  ``rng`` must be the last positional
argument, as it is throughout the samplers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

__all__ = ["subroutine", "until_accepted"]


def until_accepted(attempt: Callable[..., T | None]) -> Callable[..., T]:
    """The loop that repeats ``attempt(*args, rng)`` until it returns something other than None."""

    def loop(*args: object) -> T:
        # args[-1] is the rng, a RandomSource; the engine's summariser returns what the code would
        summarise: Callable[..., T] | None = args[-1]._summarise  # type: ignore[attr-defined]  # args are objects
        if summarise is not None:
            return summarise(attempt, args, True)
        while True:
            z = attempt(*args)
            if z is not None:
                return z

    loop.__name__ = loop.__qualname__ = f"until_accepted({attempt.__name__})"
    loop.__doc__ = f"Repeat :func:`{attempt.__name__}` until it accepts."
    loop.attempt = attempt  # type: ignore[attr-defined]  # a function object takes attributes at run time
    return loop


def subroutine(function: Callable[..., T]) -> Callable[..., T]:
    """Mark ``function(*args, rng)`` as a random subroutine whose law depends on ``args`` only."""

    @functools.wraps(function)
    def call(*args: object) -> T:
        # args[-1] is the rng, a RandomSource; the engine's summariser returns what the code would
        summarise: Callable[..., T] | None = args[-1]._summarise  # type: ignore[attr-defined]  # args are objects
        if summarise is not None:
            return summarise(function, args, False)
        return function(*args)

    return call
