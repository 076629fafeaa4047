"""Versions of samplers for the tests of ``dpverify diff``: refactors that keep the law, one that
does not, and one that keeps the law but changes the number of draws."""

from __future__ import annotations

from fractions import Fraction

from dpverify.samplers import RandomSource, discrete_laplace
from dpverify.samplers._loops import until_accepted
from dpverify.samplers._rational import as_fraction
from dpverify.samplers.bernoulli import _bernoulli_exp_at_most_one, _bernoulli_exp_ratio
from dpverify.specs import Case, Integer, SamplesPmf, Spec


def _geometric(rng: RandomSource) -> int:
    """Bernoulli(exp(-1)) successes before the first failure, written as a for loop."""
    for count in range(10**9):
        if not _bernoulli_exp_at_most_one(1, 1, rng):
            return count
    raise AssertionError("unreachable")


def _attempt_refactored(s: int, t: int, rng: RandomSource) -> int | None:
    """CKS20 Algorithm 2's attempt with the geometric count in a helper: the same draws."""
    u = rng.randbelow(t)
    if not _bernoulli_exp_ratio(u, t, rng):
        return None
    y = (u + t * _geometric(rng)) // s
    negative = rng.bernoulli(1, 2)
    return None if negative and y == 0 else (-y if negative else y)


_loop_refactored = until_accepted(_attempt_refactored)


def dlaplace_refactored(scale: object, rng: RandomSource) -> int:
    b = as_fraction("scale", scale)
    return _loop_refactored(b.denominator, b.numerator, rng)


def _attempt_off_by_one(s: int, t: int, rng: RandomSource) -> int | None:
    """The one-unit error: ``randbelow(t + 1)`` where Algorithm 2 draws ``randbelow(t)``."""
    u = rng.randbelow(t + 1)
    if not _bernoulli_exp_ratio(u, t, rng):
        return None
    y = (u + t * _geometric(rng)) // s
    negative = rng.bernoulli(1, 2)
    return None if negative and y == 0 else (-y if negative else y)


_loop_off_by_one = until_accepted(_attempt_off_by_one)


def dlaplace_off_by_one(scale: object, rng: RandomSource) -> int:
    b = as_fraction("scale", scale)
    return _loop_off_by_one(b.denominator, b.numerator, rng)


def dlaplace(scale: object, rng: RandomSource) -> int:
    return discrete_laplace.sample(scale, rng)


# --- a finite sampler: uniform on {0..n-1} -----------------------------------------------------------


def uniform_one_draw(n: int, rng: RandomSource) -> int:
    return rng.randbelow(n)


def uniform_bits(n: int, rng: RandomSource) -> int:
    """The same law for a power of two ``n``, drawn bit by bit: more draws, the same outputs."""
    value, size = 0, 1
    while size < n:
        value, size = 2 * value + rng.randbelow(2), 2 * size
    return value if size == n else rng.randbelow(n)


def uniform_off_by_one(n: int, rng: RandomSource) -> int:
    return min(rng.randbelow(n + 1), n - 1)


def uniform_pmf(p: dict[str, int]) -> dict[int, Fraction]:
    return {i: Fraction(1, p["n"]) for i in range(p["n"])}


UNIFORM = Spec(
    name="uniform",
    sampler=uniform_one_draw,
    parameters={"n": Integer(1, search=(1, 12))},
    cases=[Case({"n": 4}), Case({"n": 8})],
    claim=SamplesPmf(),
    pmf=uniform_pmf,
)
UNIFORM_BITS = Spec(
    name="uniform",
    sampler=uniform_bits,
    parameters={"n": Integer(1, search=(1, 12))},
    cases=[Case({"n": 4}), Case({"n": 8})],
    claim=SamplesPmf(),
    pmf=uniform_pmf,
)


def _attempt_sign_first(s: int, t: int, rng: RandomSource) -> int | None:
    """The sign drawn first: the same law, one more draw in every attempt that rejects early."""
    negative = rng.bernoulli(1, 2)
    u = rng.randbelow(t)
    if not _bernoulli_exp_ratio(u, t, rng):
        return None
    y = (u + t * _geometric(rng)) // s
    return None if negative and y == 0 else (-y if negative else y)


_loop_sign_first = until_accepted(_attempt_sign_first)


def dlaplace_sign_first(scale: object, rng: RandomSource) -> int:
    b = as_fraction("scale", scale)
    return _loop_sign_first(b.denominator, b.numerator, rng)


def uniform_fails_at_8(n: int, rng: RandomSource) -> int:
    """The same law, except that it fails at n = 8."""
    if n == 8:
        raise ZeroDivisionError("a port that breaks at n = 8")
    return rng.randbelow(n)


def _until_accepted_twice(attempt):  # type: ignore[no-untyped-def]
    """A marked loop whose own code is wrong: after two rejections it returns 0.  Summarised, it
    is enumerated by its attempt, so only the walk as the code runs sees the bug."""

    def loop(*args: object) -> object:
        summarise = args[-1]._summarise  # type: ignore[attr-defined]
        if summarise is not None:
            return summarise(attempt, args, True)
        for _ in range(2):
            z = attempt(*args)
            if z is not None:
                return z
        return 0

    return loop


_loop_twice = _until_accepted_twice(_attempt_refactored)


def dlaplace_loop_gives_up(scale: object, rng: RandomSource) -> int:
    b = as_fraction("scale", scale)
    return _loop_twice(b.denominator, b.numerator, rng)
