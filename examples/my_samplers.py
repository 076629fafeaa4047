"""Versions of two samplers, for trying ``dpverify diff``: rewrites that keep the law and a change that
does not.

A uniform draw from {0, ..., n-1}:

- ``uniform_v1``: one ``randbelow(n)``;
- ``uniform_v2``: for a power of two ``n``, bit by bit (more draws, the same law); otherwise as v1;
- ``uniform_biased``: a port with a one-unit error, ``min(randbelow(n + 1), n - 1)``: ``n - 1`` comes
  out twice as often.

``SPEC_V1``, ``SPEC_V2`` and ``SPEC_BIASED`` are the same spec with each version as its sampler;
``SPECS`` holds ``SPEC`` (v2), for ``--spec-module``.

The discrete Laplace (Canonne, Kamath, Steinke 2020, Algorithm 2), against the built-in ``dlaplace``:

- ``fast_dlaplace``: the attempt rewritten, its geometric count in a helper (the same draws);
- ``dlaplace_off_by_one``: ``randbelow(t + 1)`` where Algorithm 2 draws ``randbelow(t)``.

From the repository root: ``dpverify diff examples.my_samplers:uniform_v1 examples.my_samplers:uniform_v2
--param n=4``.
"""

from __future__ import annotations

from fractions import Fraction

from dpverify.samplers import RandomSource, as_fraction
from dpverify.samplers._loops import until_accepted
from dpverify.samplers.bernoulli import _bernoulli_exp_at_most_one, _bernoulli_exp_ratio
from dpverify.specs import Case, Integer, SamplesPmf, Spec

# --- uniform on {0, ..., n-1} ------------------------------------------------------------------------


def uniform_v1(n: int, rng: RandomSource) -> int:
    return rng.randbelow(n)


def uniform_v2(n: int, rng: RandomSource) -> int:
    value, size = 0, 1
    while size < n:
        value, size = 2 * value + rng.randbelow(2), 2 * size
    return value if size == n else rng.randbelow(n)


def uniform_biased(n: int, rng: RandomSource) -> int:
    return min(rng.randbelow(n + 1), n - 1)


def uniform_pmf(p: dict[str, int]) -> dict[int, Fraction]:
    return {i: Fraction(1, p["n"]) for i in range(p["n"])}


def _uniform_spec(sampler: object) -> Spec:
    return Spec(
        name="uniform",
        sampler=sampler,
        parameters={"n": Integer(1, search=(1, 12))},
        cases=[Case({"n": 4}), Case({"n": 8})],
        claim=SamplesPmf(),
        pmf=uniform_pmf,
    )


SPEC_V1 = _uniform_spec(uniform_v1)
SPEC_V2 = _uniform_spec(uniform_v2)
SPEC_BIASED = _uniform_spec(uniform_biased)
SPEC = SPEC_V2
SPECS = (SPEC,)


# --- the discrete Laplace ------------------------------------------------------------------------------


def _geometric(rng: RandomSource) -> int:
    """Bernoulli(exp(-1)) successes before the first failure."""
    count = 0
    while _bernoulli_exp_at_most_one(1, 1, rng):
        count += 1
    return count


def _attempt(s: int, t: int, rng: RandomSource) -> int | None:
    u = rng.randbelow(t)
    if not _bernoulli_exp_ratio(u, t, rng):
        return None
    y = (u + t * _geometric(rng)) // s
    negative = rng.bernoulli(1, 2)
    return None if negative and y == 0 else (-y if negative else y)


def _attempt_off_by_one(s: int, t: int, rng: RandomSource) -> int | None:
    u = rng.randbelow(t + 1)
    if not _bernoulli_exp_ratio(u, t, rng):
        return None
    y = (u + t * _geometric(rng)) // s
    negative = rng.bernoulli(1, 2)
    return None if negative and y == 0 else (-y if negative else y)


_loop = until_accepted(_attempt)
_loop_off_by_one = until_accepted(_attempt_off_by_one)


def fast_dlaplace(scale: object, rng: RandomSource) -> int:
    b = as_fraction("scale", scale)
    return _loop(b.denominator, b.numerator, rng)


def dlaplace_off_by_one(scale: object, rng: RandomSource) -> int:
    b = as_fraction("scale", scale)
    return _loop_off_by_one(b.denominator, b.numerator, rng)
