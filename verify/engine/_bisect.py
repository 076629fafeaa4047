"""Exact output distributions of single-draw inverse-transform samplers, by search over the
draw (output non-decreasing in ``randbelow(T)``): each output's range of draws is found by a galloping
search seeded with the lengths of the ranges found before it, so the code's exact PMF is known for
``T = 10**100``.  The search costs ``O(log |error|)`` executions per output where the previous ranges
predict the next one's length (GTM's ranges shrink or grow geometrically), ``O(log T)`` at worst.  Its own
module: it shares only the result (:mod:`dpverify.verify.engine._enumeration`) with the tree walk
(:mod:`dpverify.verify.engine._enumerate`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import Any

from dpverify.samplers import RandomSource, SamplerContractError
from dpverify.samplers._rational import shown
from dpverify.verify.engine._arguments import need_callable, need_count
from dpverify.verify.engine._enumeration import Enumeration, Sampler, SamplerCrashed

__all__ = ["absent_between", "bisect_outputs", "last_where", "run_of"]

#: What a search probe reads: the sampler's output at one draw.
Probe = Callable[[int], Hashable]

#: The largest gallop step: a guess off by more is as good as none.
_GALLOP = 2**12


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
    """Exact PMF of a single-draw inverse-transform sampler by search over its draw.

    Assumes the output is a non-decreasing function of the draw ``j`` in ``0..T-1``, so each
    output's draws form one interval.  Each interval's end is found by galloping from a guess
    (the previous lengths extrapolated geometrically) and bisecting what the gallop brackets; the
    guess sets only the cost, never the result.  The assumption is checked where it is cheap:
    an output met in two separate intervals (at any probe), a probe inside a finished interval
    that disagrees with it, or a segment whose midpoint disagrees with its ends, raises
    SamplerContractError.
    """
    need_callable("sampler", sampler, "a callable taking a RandomSource, e.g. lambda rng: sample(q, rng)")
    T = need_count("T", T, low=1)
    executions = 0
    seen: dict[int, Hashable] = {}  # draw -> output of the probes past the finished intervals
    masses: dict[Hashable, Fraction] = {}

    def output_at(j: int) -> Hashable:
        nonlocal executions
        if j not in seen:
            executions += 1
            output = _run(sampler, T, j)
            if output in masses:
                raise _two_ranges(output)
            seen[j] = output
        return seen[j]

    lengths: list[int] = []
    start = 0
    while start < T:
        output = output_at(start)
        if output in masses:  # probed before that output's interval was finished
            raise _two_ranges(output)
        end = _end_of_range(output_at, output, start, T - 1, start + _next_length(lengths) - 1)
        if end > start and output_at((start + end) // 2) != output:
            raise _not_monotone(start, end, output)
        # every probe made so far, on either side of the interval, must agree with it
        if any((j <= end) != (y == output) for j, y in seen.items()):
            raise _not_monotone(start, end, output)
        seen = {j: y for j, y in seen.items() if j > end}
        masses[output] = Fraction(end - start + 1, T)
        lengths.append(end - start + 1)
        start = end + 1
    joint = {(output, 1): mass for output, mass in masses.items()}  # always exactly one draw
    return Enumeration(masses, Fraction(0), len(masses), executions, "bisection", joint)


def _next_length(lengths: list[int]) -> int:
    """A guess at the next interval's length: the last two extrapolated geometrically (exact for
    GTM's tails up to rounding, constant for a uniform), at least 1."""
    if not lengths:
        return 1
    if len(lengths) == 1:
        return lengths[-1]
    return max(1, lengths[-1] * lengths[-1] // lengths[-2])


def _end_of_range(output_at: Probe, output: Hashable, low: int, high: int, guess: int) -> int:
    """The last draw in ``low..high`` whose output is ``output``, given ``output_at(low) == output``
    and a non-decreasing output: gallop from ``guess`` to bracket the end, then bisect."""
    guess = min(max(guess, low), high)
    if guess > low:
        if output_at(guess) == output:
            low = guess
        else:
            high = guess - 1
    step = 1
    # a gallop that has not bracketed the end within _GALLOP draws of the guess hands over to
    # bisection, so a bad guess costs a plain bisection and about 2 * log2(_GALLOP) executions more
    if low == guess:  # the end is at or right of the guess: gallop right
        while low < high and step <= _GALLOP:
            probe = min(low + step, high)
            if output_at(probe) != output:
                high = probe - 1
                break
            low = probe
            step *= 2
    else:  # the end is left of the guess: gallop left
        while low < high and step <= _GALLOP:
            probe = max(high + 1 - step, low + 1)
            if output_at(probe) == output:
                low = probe
                break
            high = probe - 1
            step *= 2
    while low < high:  # invariant: output_at(low) == output, the end is at most high
        middle = (low + high + 1) // 2
        if output_at(middle) == output:
            low = middle
        else:
            high = middle - 1
    return low


def _run(sampler: Sampler, T: int, j: int) -> Hashable:
    """The sampler's output when its one draw ``randbelow(T)`` gives ``j``."""
    try:
        return sampler(_FixedDraw(T, j))
    except SamplerContractError:  # more than one draw: bisection does not apply
        raise
    except Exception as error:  # a refusal by the code is its crash too
        raise SamplerCrashed([j], error) from error


def _two_ranges(output: Hashable) -> SamplerContractError:
    return SamplerContractError(
        f"output {shown(output)} occurs in two separate ranges of the draw: the sampler is "
        "not monotone in its draw, so bisection does not apply"
    )


def _not_monotone(start: int, end: int, output: Hashable) -> SamplerContractError:
    return SamplerContractError(
        f"the draws {start}..{end} do not all give output {shown(output)}: the sampler is not monotone in its draw"
    )


def _bisect_outputs_one_by_one(sampler: Sampler, T: int) -> Enumeration:
    """The plain search, kept as the reference the benchmark and tests compare against: each
    output's interval bisected over all the draws right of its start, ``O(outputs * log T)``
    executions."""
    need_callable("sampler", sampler, "a callable taking a RandomSource, e.g. lambda rng: sample(q, rng)")
    T = need_count("T", T, low=1)
    executions = 0

    def output_at(j: int) -> Hashable:
        nonlocal executions
        executions += 1
        return _run(sampler, T, j)

    masses: dict[Hashable, Fraction] = {}
    start = 0
    while start < T:
        output = output_at(start)
        if output in masses:
            raise _two_ranges(output)
        low, high = start, T - 1  # invariant: output_at(low) == output
        while low < high:
            middle = (low + high + 1) // 2
            if output_at(middle) == output:
                low = middle
            else:
                high = middle - 1
        if low > start and output_at((start + low) // 2) != output:
            raise _not_monotone(start, low, output)
        masses[output] = Fraction(low - start + 1, T)
        start = low + 1
    joint = {(output, 1): mass for output, mass in masses.items()}  # always exactly one draw
    return Enumeration(masses, Fraction(0), len(masses), executions, "bisection", joint)


# Searches over one draw ``j`` in ``low..high`` for code whose output is monotone in it, when the
# outputs are too many to list (a float Laplace at 53 bits has about 2^53): the law of one event
# or of one output, not the whole PMF.  Each trusts monotonicity between the draws it probes and
# checks it at those draws and at ``guard`` draws each side of every boundary it reports.


def last_where(holds: Callable[[int], bool], low: int, high: int, *, guard: int = 8) -> int:
    """The last draw ``j`` in ``low..high`` with ``holds(j)``, for a predicate that is true up to a
    boundary and false after it (an event ``output <= t`` of a non-decreasing output), given
    ``holds(low)``.  Probes ``O(log(high - low))`` draws; raises SamplerContractError where a probe
    contradicts the shape: ``holds(low)`` false, or a guard draw on the wrong side."""
    if not holds(low):
        raise SamplerContractError(f"the event does not hold at the first draw {low}: bisection does not apply")
    first, last = low, high
    while low < high:  # invariant: holds(low), and every draw past high fails
        middle = (low + high + 1) // 2
        if holds(middle):
            low = middle
        else:
            high = middle - 1
    for j in range(max(first, low - guard), min(last, low + guard) + 1):
        if holds(j) != (j <= low):
            raise SamplerContractError(
                f"the event {'fails' if j <= low else 'holds'} at draw {j}, on the wrong side of the boundary "
                f"{low}: the code is not monotone in its draw there, so bisection does not apply"
            )
    return low


def run_of(output_at: Probe, j: int, low: int, high: int, *, guard: int = 8) -> tuple[int, int]:
    """The draws ``start..end`` in ``low..high`` whose output is ``output_at(j)``, for an output
    monotone in the draw (so those draws are one run): its exact mass is ``(end - start + 1) / T``."""
    output = output_at(j)
    end = last_where(lambda i: output_at(i) == output, j, high, guard=guard)
    start = low + high - last_where(lambda i: output_at(low + high - i) == output, low + high - j, high, guard=guard)
    return start, end


def absent_between(output_at: Probe, output: Any, low: int, high: int, *, guard: int = 8) -> tuple[int, int]:
    """Two neighbouring draws ``j, j + 1`` whose outputs straddle ``output`` strictly
    (``output_at(j) < output < output_at(j + 1)``), so that no draw gives ``output`` when the code is
    non-decreasing in its draw.  ``output`` must lie strictly between the outputs at ``low`` and
    ``high``; raises SamplerContractError otherwise, or when some probed draw gives ``output``."""
    if not output_at(low) < output < output_at(high):
        raise SamplerContractError(f"{shown(output)} is not strictly between the outputs at draws {low} and {high}")
    j = last_where(lambda i: output_at(i) < output, low, high - 1, guard=guard)
    if not output < output_at(j + 1):
        raise SamplerContractError(f"draw {j + 1} gives {shown(output)}: it is not absent")
    return j, j + 1
