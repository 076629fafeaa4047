"""Exact output distributions of floating-point samplers at reduced precision.

A float sampler that draws one ``k``-bit integer ``j`` and then computes in IEEE doubles has
exactly ``2^k - 1`` (or ``2^k``) equally likely executions.  Running the real code on every
``j`` gives its exact output PMF over doubles: output ``y`` has probability
``#{j : f(j) = y} / (number of draws)``.  For two inputs ``q, q'`` this gives the exact
privacy loss at ``k`` bits, or the output and draw that make it infinite.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from dpverify.samplers import InvalidArgument
from dpverify.verify.engine._arguments import need_callable, need_instance, shown

__all__ = ["FloatPmf", "FloatPrivacy", "float_pmf", "float_privacy"]


@dataclass(frozen=True, slots=True)
class FloatPmf:
    """``counts[y]`` draws give output ``y``; ``first_draw[y]`` is the smallest such draw."""

    counts: dict[Hashable, int]
    first_draw: dict[Hashable, int]
    draws: int

    def probability(self, output: Hashable) -> Fraction:
        return Fraction(self.counts.get(output, 0), self.draws)


def float_pmf(output_of: Callable[[int], Hashable], draws: Iterable[int]) -> FloatPmf:
    """Run ``output_of(j)`` for every draw ``j`` (ints, at least one) and count the outputs exactly."""
    need_callable("output_of", output_of, "a callable from a draw (an int) to an output")
    if isinstance(draws, (str, bytes)) or not isinstance(draws, Iterable):
        raise InvalidArgument(
            f"draws must be an iterable of ints, e.g. range(2**8); got draws={shown(draws)} ({type(draws).__name__})."
        )
    counts: dict[Hashable, int] = {}
    first: dict[Hashable, int] = {}
    total = 0
    for j in draws:
        if isinstance(j, bool) or not isinstance(j, int):
            raise InvalidArgument(f"draws must be ints; got draw={shown(j)} ({type(j).__name__}).")
        y = output_of(j)
        if not isinstance(y, Hashable):
            raise InvalidArgument(f"output_of({j}) must return a hashable output; got {shown(y)} ({type(y).__name__}).")
        if y in counts:
            counts[y] += 1
        else:
            counts[y] = 1
            first[y] = j
        total += 1
    if not total:
        raise InvalidArgument("draws must name at least one draw; got an empty iterable.")
    return FloatPmf(counts, first, total)


@dataclass(frozen=True, slots=True)
class FloatPrivacy:
    """The exact worst ratio between two output PMFs and where it is attained.

    ``ratio`` is ``max P(y|q)/P(y|q')`` over both orders (None when infinite); ``output`` is
    the witness ``y``; ``from_input`` is the input that can produce it (``"q"`` or
    ``"q_prime"``), ``draw`` the draw that does, and ``counts`` the two exact draw counts.
    """

    ratio: Fraction | None
    output: Hashable
    from_input: str
    draw: int
    counts: tuple[int, int]

    @property
    def epsilon(self) -> float:
        return math.inf if self.ratio is None else math.log(self.ratio.numerator) - math.log(self.ratio.denominator)


def float_privacy(first: FloatPmf, second: FloatPmf) -> FloatPrivacy:
    """Exact privacy loss between the PMFs of ``q`` (``first``) and ``q'`` (``second``).

    An output possible from one input and impossible from the other is infinite loss; the
    witness is the first such output in order of the draw that produces it.
    """
    for name, pmf in (("first", first), ("second", second)):
        need_instance(name, pmf, FloatPmf, "a FloatPmf (from float_pmf)")
        if pmf.draws < 1:
            raise InvalidArgument(f"{name} must count at least one draw; got {name}.draws={pmf.draws}.")
    for this, other, name in ((first, second, "q"), (second, first, "q_prime")):
        missing = [y for y in this.counts if y not in other.counts]
        if missing:
            y = min(missing, key=lambda out: this.first_draw[out])
            counts = (this.counts[y], 0) if name == "q" else (0, this.counts[y])
            return FloatPrivacy(None, y, name, this.first_draw[y], counts)
    best: FloatPrivacy | None = None
    for y, c1 in first.counts.items():
        c2 = second.counts[y]
        for ratio, name, draw in (
            (Fraction(c1 * second.draws, c2 * first.draws), "q", first.first_draw[y]),
            (Fraction(c2 * first.draws, c1 * second.draws), "q_prime", second.first_draw[y]),
        ):
            if best is None or (best.ratio is not None and ratio > best.ratio):  # best.ratio: a Fraction here
                best = FloatPrivacy(ratio, y, name, draw, (c1, c2))
    assert best is not None, "a PMF has at least one output"
    return best
