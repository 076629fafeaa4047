"""Exact Bernoulli samplers: Bernoulli(p) for rational p, and Bernoulli(exp(-gamma)).

Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
Algorithm 1.  For ``0 <= gamma <= 1``: draw ``A_k ~ Bernoulli(gamma/k)`` for ``k = 1, 2, ...``
until the first ``A_k = 0``, and return 1 iff that ``k`` is odd.  Then
``P[return 1] = sum_{k odd} gamma^(k-1)/(k-1)! - gamma^k/k! = exp(-gamma)``.
For ``gamma > 1``: ``floor(gamma)`` independent Bernoulli(exp(-1)) draws must all be 1, then
one Bernoulli(exp(-(gamma - floor(gamma)))); the product of their probabilities is
``exp(-gamma)``.

Contract: returns a bool with exactly the stated probability; checked at run time:
``p`` a rational in [0, 1], ``gamma`` a rational ``>= 0`` (floats refused); the caller
guarantees a uniform ``rng``.  Every coin is ``rng.bernoulli(num, den)`` with integers, so an
enumerating source sees two-way choices; the line a proof refers to is ``[BEXP-coin]``.
Expected number of coins: at most ``e`` for ``gamma <= 1`` (CKS20 §5.1), ``O(1 + gamma)``
overall.
"""

from __future__ import annotations

from fractions import Fraction

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._loops import subroutine
from dpverify.samplers._random_source import RandomSource, as_source
from dpverify.samplers._rational import RationalLike, as_fraction, as_int, shown

__all__ = ["bernoulli", "bernoulli_exp", "bernoulli_exp_many", "bernoulli_many"]


def _probability(p: RationalLike) -> Fraction:
    p_ = as_fraction("p", p)
    if not 0 <= p_ <= 1:
        raise InvalidArgument(f'p must be a rational in [0, 1]; got p={shown(p_)}. Pass it as "num/den".')
    return p_


def _gamma(gamma: RationalLike) -> Fraction:
    gamma_ = as_fraction("gamma", gamma)
    if gamma_ < 0:
        raise InvalidArgument(f"gamma must be a rational >= 0; got gamma={shown(gamma_)}.")
    return gamma_


def bernoulli(p: RationalLike, rng: RandomSource | None = None) -> bool:
    """True with probability exactly ``p``, a rational in [0, 1]."""
    p_ = _probability(p)
    return as_source(rng).bernoulli(p_.numerator, p_.denominator)


def bernoulli_many(p: RationalLike, k: int, rng: RandomSource | None = None) -> list[bool]:
    """``k`` independent Bernoulli(p) draws, validating ``p`` once."""
    p_ = _probability(p)
    source = as_source(rng)
    return [source.bernoulli(p_.numerator, p_.denominator) for _ in range(as_int("k", k, low=0))]


def bernoulli_exp(gamma: RationalLike, rng: RandomSource | None = None) -> bool:
    """True with probability exactly ``exp(-gamma)`` for a rational ``gamma >= 0`` (Algorithm 1)."""
    gamma_ = _gamma(gamma)
    return _bernoulli_exp_ratio(gamma_.numerator, gamma_.denominator, as_source(rng))


def bernoulli_exp_many(gamma: RationalLike, k: int, rng: RandomSource | None = None) -> list[bool]:
    """``k`` independent Bernoulli(exp(-gamma)) draws, validating ``gamma`` once."""
    gamma_ = _gamma(gamma)
    source = as_source(rng)
    return [_bernoulli_exp_ratio(gamma_.numerator, gamma_.denominator, source) for _ in range(as_int("k", k, low=0))]


@subroutine
def _bernoulli_exp_ratio(numerator: int, denominator: int, rng: RandomSource) -> bool:
    """Bernoulli(exp(-numerator/denominator)) for validated ints ``numerator >= 0``, ``denominator >= 1``."""
    whole, remainder = divmod(numerator, denominator)
    for _ in range(whole):
        if not _bernoulli_exp_at_most_one(1, 1, rng):
            return False
    return _bernoulli_exp_at_most_one(remainder, denominator, rng)


@subroutine
def _bernoulli_exp_at_most_one(numerator: int, denominator: int, rng: RandomSource) -> bool:
    """Bernoulli(exp(-gamma)) for ``gamma = numerator/denominator`` in [0, 1] (Algorithm 1)."""
    k = 1
    while rng.bernoulli(numerator, denominator * k):  # [BEXP-coin]  A_k ~ Bernoulli(gamma/k)
        k += 1
    return k % 2 == 1
