"""Exact output distributions of single-draw inverse-transform samplers, by bisection over the
draw (output non-decreasing in ``randbelow(T)``): each output's range of draws in ``O(outputs * log T)``
executions, so the code's exact PMF is known for ``T = 10**100``.  Its own module: it shares only the
result (:mod:`dpverify.verify.engine._enumeration`) with the tree walk (:mod:`dpverify.verify.engine._enumerate`)."""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

from dpverify.samplers import RandomSource, SamplerContractError
from dpverify.samplers._rational import shown
from dpverify.verify.engine._arguments import need_callable, need_count
from dpverify.verify.engine._enumeration import Enumeration, Sampler, SamplerCrashed

__all__ = ["bisect_outputs"]


class _FixedDraw(RandomSource, trusted=True):
    """Answers the single ``randbelow(T)`` of an inverse-transform sampler with ``value``."""

    def __init__(self, T: int, value: int) -> None:
        self.T = T
        self.value = value
        self.draws = 0

    def randbelow(self, n: int) -> int:
        self.draws += 1
        if self.draws > 1 or n != self.T:
            raise SamplerContractError(
                f"bisection needs exactly one draw randbelow({self.T}); the sampler asked for "
                f"randbelow({n}) as draw {self.draws}"
            )
        return self.value


def bisect_outputs(sampler: Sampler, T: int) -> Enumeration:
    """Exact PMF of a single-draw inverse-transform sampler by bisection over its draw.

    Assumes the output is a non-decreasing function of the draw ``j`` in ``0..T-1``, so each
    output's draws form one interval.  The assumption is checked where it is cheap: an output
    found in two separate intervals, or a segment whose midpoint disagrees with its ends,
    raises SamplerContractError.
    """
    need_callable("sampler", sampler, "a callable taking a RandomSource, e.g. lambda rng: sample(q, rng)")
    T = need_count("T", T, low=1)
    executions = 0

    def output_at(j: int) -> Hashable:
        nonlocal executions
        executions += 1
        try:
            return sampler(_FixedDraw(T, j))
        except SamplerContractError:  # more than one draw: bisection does not apply
            raise
        except Exception as error:  # a refusal by the code is its crash too
            raise SamplerCrashed([j], error) from error

    masses: dict[Hashable, Fraction] = {}
    start = 0
    while start < T:
        output = output_at(start)
        if output in masses:
            raise SamplerContractError(
                f"output {shown(output)} occurs in two separate ranges of the draw: the sampler is "
                "not monotone in its draw, so bisection does not apply"
            )
        low, high = start, T - 1  # invariant: output_at(low) == output
        while low < high:
            middle = (low + high + 1) // 2
            if output_at(middle) == output:
                low = middle
            else:
                high = middle - 1
        if low > start and output_at((start + low) // 2) != output:
            raise SamplerContractError(
                f"the draws {start}..{low} do not all give output {shown(output)}: the sampler is not "
                "monotone in its draw"
            )
        masses[output] = Fraction(low - start + 1, T)
        start = low + 1
    joint = {(output, 1): mass for output, mass in masses.items()}  # always exactly one draw
    return Enumeration(masses, Fraction(0), len(masses), executions, "bisection", joint)
