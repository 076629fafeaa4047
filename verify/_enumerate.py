"""Exact output distributions of sampler code, derived by running the code.

Two randomness sources stand in for the CSPRNG (DESIGN.md, "the implementation is the
model"):

- :func:`enumerate_outputs` walks the tree of the sampler's choice sequences depth first,
  re-executing the sampler once per path.  Each path is weighted by the exact product of its
  choice probabilities and ends ``valid`` (it returned an output) or ``over budget`` (it asked
  for more than ``max_depth`` draws).  Over-budget mass, and the mass of paths never visited
  because ``max_paths`` ran out, is reported as an exact remainder, never dropped.
  ``bernoulli(num, den)`` branches two ways, not ``den`` ways.
- :func:`bisect_outputs` handles inverse-transform samplers that draw once, ``randbelow(T)``,
  with output non-decreasing in the draw.  Bisection finds each output's range of draws in
  ``O(outputs * log T)`` executions, so the code's exact PMF is known for ``T = 10**100``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction

from samplers import DpverifyError, RandomSource, SamplerContractError
from samplers._random_source import _check_bernoulli, _check_randbelow

Sampler = Callable[[RandomSource], Hashable]


@dataclass(frozen=True, slots=True)
class Enumeration:
    """Exact output masses found so far, and the exact mass not yet attributed to any output.

    For every output ``o`` the true probability lies in
    ``[masses[o], masses[o] + unexplored]``; ``exhausted`` means ``unexplored == 0``.
    """

    masses: dict[Hashable, Fraction]
    unexplored: Fraction
    paths: int
    executions: int
    method: str

    @property
    def exhausted(self) -> bool:
        return self.unexplored == 0


class SamplerCrashed(DpverifyError):
    """The sampler raised on some draws: a finding about the code, reported with the draws."""

    def __init__(self, draws: list[int], error: BaseException) -> None:
        super().__init__(f"the sampler raised {type(error).__name__}: {error} on draws {draws}")
        self.draws = draws
        self.error = error


class _OverBudget(Exception):
    """Raised inside the sampler to cut a path that exceeds the depth budget."""


class _PrefixSource(RandomSource):
    """Replays a prefix of choice indices, then takes index 0 for every new choice.

    ``arities`` and ``options`` record, per choice, how many branches it has and the
    probability ``(numerator, denominator)`` of the branch taken.
    """

    def __init__(self, prefix: list[int], max_depth: int) -> None:
        self.prefix = prefix
        self.max_depth = max_depth
        self.taken: list[int] = []
        self.arities: list[int] = []
        self.weights: list[tuple[int, int]] = []

    def _choose(self, arity: int) -> int:
        depth = len(self.taken)
        if depth >= self.max_depth:
            raise _OverBudget
        index = self.prefix[depth] if depth < len(self.prefix) else 0
        if index >= arity:
            raise SamplerContractError(
                "the sampler asked for a different choice on a replayed path: its draws must "
                "depend only on earlier draws and its parameters"
            )
        self.taken.append(index)
        self.arities.append(arity)
        return index

    def randbelow(self, n: int) -> int:
        n = _check_randbelow(n)
        value = self._choose(n)
        self.weights.append((1, n))
        return value

    def bernoulli(self, num: int, den: int) -> bool:
        num, den = _check_bernoulli(num, den)
        if num == 0 or num == den:  # a certain outcome is a choice of arity 1
            self._choose(1)
            self.weights.append((1, 1))
            return num == den
        outcome = self._choose(2) == 0  # branch 0 is True
        self.weights.append((num, den) if outcome else (den - num, den))
        return outcome


def _next_prefix(taken: list[int], arities: list[int]) -> list[int] | None:
    """The odometer step of depth-first search: the next unvisited sibling, or None."""
    for depth in range(len(taken) - 1, -1, -1):
        if taken[depth] + 1 < arities[depth]:
            return [*taken[:depth], taken[depth] + 1]
    return None


def enumerate_outputs(
    sampler: Sampler, *, max_paths: int = 1_000_000, max_depth: int = 10_000
) -> Enumeration:
    """Run ``sampler`` on every path of its choice tree, within the budgets.

    ``sampler`` takes a RandomSource and returns an output; it must draw only through it.
    """
    masses: dict[Hashable, Fraction] = {}
    explored = Fraction(0)
    prefix: list[int] | None = []
    paths = 0
    while prefix is not None and paths < max_paths:
        source = _PrefixSource(prefix, max_depth)
        numerator, denominator = 1, 1
        try:
            output = sampler(source)
        except _OverBudget:
            output = _OverBudget
        except DpverifyError:
            raise
        except Exception as error:
            raise SamplerCrashed(source.taken, error) from error
        for num, den in source.weights:
            numerator *= num
            denominator *= den
        mass = Fraction(numerator, denominator)
        if output is not _OverBudget:
            masses[output] = masses.get(output, Fraction(0)) + mass
            explored += mass
        paths += 1
        prefix = _next_prefix(source.taken, source.arities)
    return Enumeration(masses, 1 - explored, paths, paths, "exhaustive")


class _FixedDraw(RandomSource):
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
    executions = 0

    def output_at(j: int) -> Hashable:
        nonlocal executions
        executions += 1
        try:
            return sampler(_FixedDraw(T, j))
        except DpverifyError:
            raise
        except Exception as error:
            raise SamplerCrashed([j], error) from error

    masses: dict[Hashable, Fraction] = {}
    start = 0
    while start < T:
        output = output_at(start)
        if output in masses:
            raise SamplerContractError(
                f"output {output!r} occurs in two separate ranges of the draw: the sampler is "
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
                f"the draws {start}..{low} do not all give output {output!r}: the sampler is not "
                "monotone in its draw"
            )
        masses[output] = Fraction(low - start + 1, T)
        start = low + 1
    return Enumeration(masses, Fraction(0), len(masses), executions, "bisection")
