"""Summaries: a call enumerated once per distinct arguments, then one weighted choice wherever it is made.

Two kinds share one memo per enumeration, :class:`Summaries`:

- **Marked** calls (:mod:`dpverify.samplers._loops`: ``until_accepted``, ``subroutine``), declared by
  the sampler's author: the function is enumerated once per argument tuple, a loop by the renewal
  identity over one attempt (:mod:`dpverify.verify.engine._enumerate`, "Summaries").
- **Procedure** summaries of unmodified code.  Every call of a function that draws
  (:mod:`dpverify.verify.engine._procedures` finds them and takes their calls over) is keyed by its
  arguments compared by content, and the function is enumerated at those arguments once, on its
  own mass budget, with renewal inside and its own calls summarised in turn.  The call then
  becomes one choice over the outputs, weighted by their exact explored masses ``m_o``.  This is
  compositional exact inference (as in Dice or PSI) on the real code.

Why the intervals stay sound.  A call whose code keeps no state outside its frames (checked on the
code that runs, :mod:`dpverify.verify.engine._purity`) has an output law that is a function of its
key, and leaves nothing behind but its return value: an execution of the caller that makes the
call is an execution of the caller with the call's output drawn from that law.  The summary's
masses ``m_o`` are lower bounds on the call's true probabilities, short of them in total by the
summary's exact remainder ``r``.  So every path through the choice has an exact mass at most the
true probability of the executions it stands for, the paths stay disjoint, and
``E(o) <= P_code(o) <= E(o) + U`` holds with ``U = 1 - sum_o E(o)``, which now also holds each
summary's remainder, weighted by the mass of the paths that made the call.

The budget of a summary.  A call made on a path of prefix mass ``p`` under the enumeration's
``min_mass`` would, walked inline, be explored to relative mass ``min_mass / p``.  Its summary is
enumerated to ``min_mass / (1000 p)``, rounded down to a power of ``10**-3`` (a *tier*; at most
``10**-6``), so that a summary shared by many calls is sharper than any one of them needs.  The
tier is part of the key: the same call on the same prefix gets the same summary when the path is
replayed.  A call with a single output of mass exactly 1 (a function of its arguments that
happened to draw nothing, or always the same) returns it without a choice.

What is not summarised is walked, as the code runs: a call whose arguments are not compared by
content, a function that writes or reads state outside its frames, a call that returns an
unanswered lazy draw (summarising it would settle the draw, the very cost lazy draws avoid), a
call that raises, never returns, or changes what it draws on replay.  The reasons are kept per
function and reported (:attr:`Summaries.notes`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpverify.samplers import SamplerContractError
from dpverify.verify.engine._enumeration import Enumeration, LoopNeverAccepts, SamplerCrashed
from dpverify.verify.engine._lazy_uniform import LazyUniform
from dpverify.verify.engine._procedures import procedure_key
from dpverify.verify.engine._program_state import suspended_driver
from dpverify.verify.engine._purity import Guard, PurityWatch, Refused, guards_hold

__all__ = ["SUMMARY_MAX_DEPTH", "SUMMARY_MAX_PATHS", "SUMMARY_MIN_MASS", "Summaries", "Summary", "scale", "tier"]

suspended_driver(__file__)  # a summary's run calls the function once per execution and hands back its value

#: The budgets inside each marked summary, relative to the call.  Every path re-executes the call
#: from its start, so a deep path costs its depth: the depth bound keeps a mutated loop that
#: barely terminates from costing minutes; what it cuts is remainder.
SUMMARY_MIN_MASS = Fraction(1, 10**13)
SUMMARY_MAX_DEPTH = 1_000
SUMMARY_MAX_PATHS = 200_000
#: The coarsest and finest tiers of a procedure summary's ``min_mass`` (``10**-tier``), and the tier
#: of marked summaries (:data:`SUMMARY_MIN_MASS`).
COARSEST_TIER, FINEST_TIER, MARKED_TIER = 6, 30, 13


@dataclass(frozen=True, slots=True)
class Summary:
    """A summarised call's outputs, heaviest first, with exact lower-bound masses ``nums[i]/dens[i]``."""

    outputs: tuple[Hashable, ...]
    nums: tuple[int, ...]
    dens: tuple[int, ...]
    floats: tuple[float, ...]
    remainder: Fraction
    guards: tuple[Guard, ...] = ()

    @property
    def certain(self) -> bool:
        """A single output of mass exactly 1: the call needs no choice."""
        return len(self.outputs) == 1 and self.nums[0] == self.dens[0] and not self.remainder

    @staticmethod
    def of(masses: dict[Hashable, Fraction], remainder: Fraction, guards: tuple[Guard, ...] = ()) -> Summary:
        ordered = sorted(masses.items(), key=lambda item: item[1], reverse=True)
        return Summary(
            tuple(o for o, _ in ordered),
            tuple(m.numerator for _, m in ordered),
            tuple(m.denominator for _, m in ordered),
            tuple(float(m) for _, m in ordered),
            remainder,
            guards,
        )


def tier(top: float, absolute: float) -> int:
    """The tier of a procedure call on a path of absolute prefix mass ``absolute`` when the
    enumeration asked for ``top`` (module docstring)."""
    if top <= 0:
        return MARKED_TIER
    if absolute <= 0:  # the float underflowed on a very light path
        return COARSEST_TIER
    exponent = 3 * math.ceil(-math.log10(top / (1000 * absolute)) / 3)
    return min(max(exponent, COARSEST_TIER), FINEST_TIER)


def scale(top: float, at_tier: int) -> float:
    """The absolute prefix mass a summary at ``at_tier`` stands for: inside it, a call of relative
    prefix ``q`` is at ``scale * q``, so nested summaries get the factor 1000 once, not per level."""
    return top * 10.0**at_tier / 1000 if top > 0 else 1.0


class Summaries:
    """The summaries of one enumeration, shared by the nested enumerations that compute them.

    ``enumerate`` is the engine's walk (:func:`dpverify.verify.engine._enumerate._enumerate`),
    passed in so that this module does not import the one that imports it."""

    def __init__(
        self,
        max_paths: int,
        max_depth: int,
        enumerate: Callable[..., Enumeration],
        *,
        marks: bool = True,
        procedures: bool = False,
        top: float = 0.0,
    ) -> None:
        self.max_paths, self.max_depth, self.top = max_paths, max_depth, top
        self.enumerate, self.marks, self.procedures = enumerate, marks, procedures
        self.index: dict[tuple[object, ...], int] = {}
        self.summaries: list[Summary] = []
        self.pending: set[tuple[object, ...]] = set()
        # per (function, arguments): (tier, guards, summary index or None for "walk"), oldest first
        self._variants: dict[tuple[object, ...], list[tuple[int, tuple[Guard, ...], int | None]]] = {}
        self._watches: list[PurityWatch] = []
        self.summarised: dict[str, int] = {}  # function -> argument sets summarised
        self.walked: dict[str, str] = {}  # function -> why (the first reason)

    # --- marked calls ----------------------------------------------------------------------------

    def lookup(self, function: Callable[..., Hashable], args: tuple[object, ...], loop: bool) -> int:
        key = (function, args[:-1], loop)
        found = self.index.get(key)
        if found is None:
            if key in self.pending:  # the call recurses into itself: walk it inside the path
                raise TypeError("recursive marked call")
            self.pending.add(key)
            try:
                summary = self._marked(function, args[:-1], loop)
            finally:
                self.pending.discard(key)
            found = self.index[key] = len(self.summaries)
            self.summaries.append(summary)
        return found

    def _marked(self, function: Callable[..., Hashable], args: tuple[object, ...], loop: bool) -> Summary:
        found = self.enumerate(
            lambda rng: function(*args, rng),
            min(self.max_paths, SUMMARY_MAX_PATHS),
            min(self.max_depth, SUMMARY_MAX_DEPTH),
            SUMMARY_MIN_MASS,
            self,
            procedures=self.procedures,
            scale=scale(self.top, MARKED_TIER),
        )
        masses = found.masses
        remainder = found.unexplored
        if loop:
            accepted = {z: m for z, m in masses.items() if z is not None}
            total = sum(accepted.values(), Fraction(0)) + found.unexplored
            if not accepted and found.exhausted:
                raise LoopNeverAccepts(function, args)
            masses = {z: m / total for z, m in accepted.items()} if accepted else {}
            remainder = found.unexplored / total if accepted else Fraction(1)
        return Summary.of(masses, remainder)

    # --- procedure summaries ---------------------------------------------------------------------

    def procedure(
        self,
        function: Any,
        original: Any,
        args: tuple[object, ...],
        kwargs: dict[str, object],
        at_tier: int,
        walker: Any,
    ) -> int | None:
        """The summary answering ``function(*args, **kwargs)`` at ``at_tier``, or None to walk the
        call as the code runs (module docstring)."""
        name = function.__qualname__
        try:
            key = (function, procedure_key(args, kwargs))
        except Refused as why:
            self.walked.setdefault(name, str(why))
            return None
        # The oldest summary at least as sharp as asked: the same one on every replay of a path.
        for sharpness, guards, index in self._variants.get(key, ()):
            if sharpness >= at_tier and guards_hold(guards):
                if index is not None and self._watches:
                    self._watches[-1].merge(self.summaries[index].guards)
                return index
        if key in self.pending:  # a recursive call: walk it inside the outer one
            return None
        self.pending.add(key)
        tracer = sys.gettrace()
        # An enclosing summary's watch need not see this one's work: if this summary is refused, the
        # call is walked inside the enclosing one, under its watch.
        sys.settrace(_below_watches(tracer))
        try:
            summary = self._procedure(original, args, kwargs, at_tier, walker)
        except (Refused, SamplerCrashed, SamplerContractError, LoopNeverAccepts) as why:
            reason = str(why) if isinstance(why, Refused) else f"{type(why).__name__}: {why}"
            self.walked.setdefault(name, reason)
            self._variants.setdefault(key, []).append((FINEST_TIER, (), None))
            return None
        finally:
            sys.settrace(tracer)
            self.pending.discard(key)
        index = len(self.summaries)
        self.summaries.append(summary)
        self._variants.setdefault(key, []).append((at_tier, summary.guards, index))
        self.summarised[name] = self.summarised.get(name, 0) + 1
        if self._watches:
            self._watches[-1].merge(summary.guards)
        return index

    def _procedure(
        self, original: Any, args: tuple[object, ...], kwargs: dict[str, object], at_tier: int, walker: Any
    ) -> Summary:
        watch = PurityWatch(sys.gettrace())

        def run(_source: object) -> Hashable:
            sys.settrace(watch)
            try:
                output: Hashable = original(*args, **kwargs)  # the sampled code returns an output
            finally:
                removed = sys.gettrace() is not watch
                sys.settrace(watch.previous)
            if removed:  # the watch did not see the whole call: no summary can rest on it
                raise Refused("the sampler removed the engine's trace function")
            if watch.reason is not None:
                raise Refused(watch.reason)
            if isinstance(output, LazyUniform):
                raise Refused("returns a uniform draw not yet answered (summarising would settle it)")
            try:
                procedure_key((output,), {})
            except Refused:
                raise Refused("returns a value that is mutable or not compared by content") from None
            return output

        self._watches.append(watch)
        try:
            found = self.enumerate(
                run,
                min(self.max_paths, SUMMARY_MAX_PATHS),
                min(self.max_depth, SUMMARY_MAX_DEPTH),
                Fraction(1, 10**at_tier),
                self,
                True,
                procedures=True,
                walker=walker,
                scale=scale(self.top, at_tier),
            )
        finally:
            self._watches.pop()
        return Summary.of(found.masses, found.unexplored, tuple(watch.guards.values()))

    @property
    def notes(self) -> dict[str, str]:
        """Per function, what was done with its calls: summarised (at how many argument sets) or walked, and why."""
        notes = {name: f"summarised at {n} argument set{'s' * (n != 1)}" for name, n in self.summarised.items()}
        for name, reason in self.walked.items():
            notes[name] = (notes[name] + "; some calls walked: " if name in notes else "walked: ") + reason
        return dict(sorted(notes.items()))


def _below_watches(tracer: Any) -> Any:
    """The trace function under every :class:`PurityWatch` chained in ``tracer`` (a debugger's, say)."""
    while isinstance(tracer, PurityWatch):
        tracer = tracer.previous
    return tracer
