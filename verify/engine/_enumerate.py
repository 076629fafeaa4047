"""Exact output distributions of sampler code, derived by running the code.

Two randomness sources stand in for the CSPRNG (DESIGN.md, "the implementation is the
model"):

- :func:`enumerate_outputs` walks the tree of the sampler's choice sequences depth first,
  re-executing the sampler once per path.  Each path is weighted by the exact product of its
  choice probabilities and ends ``valid`` (it returned an output) or cut: ``over budget`` (it
  asked for more than ``max_depth`` draws) or ``pruned`` (its prefix probability fell below
  ``min_mass``).  The mass of cut subtrees, and of paths never visited because ``max_paths``
  ran out, is reported as an exact remainder, never dropped.  ``bernoulli(num, den)``
  branches two ways, not ``den`` ways.
- :func:`~dpverify.verify.engine._bisect.bisect_outputs` (its own module) handles
  inverse-transform samplers that draw once, by bisection over the draw.

Both return an :class:`~dpverify.verify.engine._enumeration.Enumeration` (its own module).

The intervals.  Let ``E(o)`` be the exact mass of the valid paths that return ``o`` and
``U = 1 - sum_o E(o)`` the exact mass of every path that was cut or never visited.  The
branch probabilities of each choice sum to one, so the paths partition the probability
space and the code's true probability satisfies ``E(o) <= P[code = o] <= E(o) + U`` for
every ``o``.  ``U`` is computed as ``1 - explored`` from the exact leaf masses, so a cut
never needs its own exact mass: the decision to prune may use floats (it only chooses
*which* paths to explore), while every reported mass is an exact Fraction.

The mass budget.  With ``min_mass = m > 0`` a branch whose prefix probability is below
``m`` is not entered.  Explored nodes at one depth are disjoint events of mass ``>= m``, so
there are at most ``1/m`` of them per depth and at most ``arity/m`` cut children; this is
what makes rejection samplers (Canonne, Kamath, Steinke 2020, Algorithms 1-3, whose loops
are unbounded) tractable.  Light ``bernoulli`` branches are skipped without re-executing the
sampler.  The float steering the cut may underflow on very deep paths; that only cuts more.

Summaries.  With ``summarise=True``, a call of a function marked in
:mod:`dpverify.samplers._loops` is not walked inside the path that makes it: the function is
enumerated once per distinct argument tuple, on its own (with the same budgets and
:data:`SUMMARY_MIN_MASS`, nested marks summarised in turn), and the call becomes one choice
over its outputs, weighted by their exact explored masses ``m_o``.  A subroutine's law is a
function of its arguments (its contract), so those masses are lower bounds on its true
probabilities, short of them by its exact remainder in total.  A loop ``until_accepted`` is
summarised by the renewal identity (:func:`dpverify.verify.engine._intervals.renewal`): from one
attempt's explored masses ``a_z`` and remainder ``u``, ``m_z = a_z / (S_a + u)`` where
``S_a = sum_z a_z``, a lower bound on ``P(z) = A(z) / sum_y A(y)`` whose missing mass is
exactly ``u / (S_a + u)``.  In both cases the branch weights of the choice are lower bounds
that miss exactly the summary's remainder, so every explored mass still satisfies
``E(o) <= P[code = o]`` and the reported ``unexplored = 1 - sum_o E(o)`` still covers every
shortfall: the intervals stay sound, and a nested rejection loop costs one enumeration of
its attempt instead of one per restart.  A summarised call counts as one draw, so the
timing analysis enumerates without summaries.

Renewal.  With ``renewal=True`` the walk also renews loops nobody marked (published code
writes ``while True: ...`` with no attempt function).  At each new draw (and each lazy
uniform the code asks for) the walker takes the program's state,
:func:`dpverify.verify.engine._program_state.program_state`: a value such that two moments of one
execution with equal values have the same future as functions of the draws to come, or None.
A path that reaches a state already seen at depth ``d1`` of itself ends there, a "return to
``d1``" of exact mass ``M``.  Node ``d1`` (all paths sharing its first ``d1`` choices, of exact
mass ``m``) is then a renewal point: from its state the code either leaves (an output, or a
return to an earlier node) or comes back to the same state, after which it behaves as from
the start of the node.  Think of the explored tree, with each return leaf an edge back to its
node, as a Markov chain in which cut subtrees are lost: every chain trajectory that ends in
``o`` is one real execution (a draw sequence) with the same probability, so the chain's
absorption probabilities are lower bounds on the code's.  They are computed bottom up: when node
``d1``'s subtree is complete, its leaves' masses ``M_e`` (outputs and returns to earlier nodes,
already renewed inside) become ``M_e * m / (m - r)`` where ``r`` is the mass of its returns to
itself (``P(e) = A(e) / (1 - R)`` with ``R >= r / m``, the renewal identity of
:func:`dpverify.verify.engine._intervals.renewal` with the cut mass as remainder), and the returns to
``d1`` are dropped.  So every ``E(o)`` is still a lower bound, ``sum_o E(o) <= 1``, and
``E(o) <= P <= E(o) + U`` holds as before; a rejection loop costs one attempt's subtree instead of
one per restart.  Draw counts have no meaning across a renewal, so ``joint`` is left empty.

A loop that never ends.  If a renewing walk is complete (no subtree cut, ``max_paths`` not
reached, no summarised call short of its law) and no path returned an output, every leaf is a
return to a state the path was in before: from there the execution goes on as from that state,
so it only ever moves from one leaf of the complete tree to another and never returns.  The code
then returns with probability exactly 0, and the walk raises :class:`NeverReturns` (a
:class:`LoopNeverAccepts`) instead of reporting ``U = 1``, which would only say "nothing known".

Draw counts.  Every valid path also records how many calls it made to the source (every
``randbelow`` and every ``bernoulli``, certain ones included, since a production source
draws for each), so :attr:`Enumeration.joint` is the exact explored part of the joint
distribution of ``(output, draws)``: the input of the timing analysis in
:mod:`dpverify.verify.privacy._timing`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable
from dataclasses import replace
from fractions import Fraction
from typing import Any, cast

from dpverify.samplers import InvalidArgument, RandomSource, SamplerContractError
from dpverify.samplers._random_source import _check_bernoulli, _check_randbelow
from dpverify.samplers._rational import shown
from dpverify.verify.engine._arguments import need_callable, need_count, need_min_mass
from dpverify.verify.engine._bytecode import bytecode
from dpverify.verify.engine._enumeration import Enumeration, LoopNeverAccepts, NeverReturns, Sampler, SamplerCrashed
from dpverify.verify.engine._lazy_uniform import LazyUniform, settled
from dpverify.verify.engine._procedures import DISCOVERY_PATHS, Discovery, hooked, pushed
from dpverify.verify.engine._program_state import EnumeratingSource, program_state
from dpverify.verify.engine._summaries import SUMMARY_MAX_DEPTH, SUMMARY_MAX_PATHS, SUMMARY_MIN_MASS, Summaries, tier

__all__ = [
    "SUMMARY_MAX_DEPTH",
    "SUMMARY_MAX_PATHS",
    "SUMMARY_MIN_MASS",
    "Enumeration",
    "LoopNeverAccepts",
    "NeverReturns",
    "SamplerCrashed",
    "enumerate_outputs",
]

#: ``second[d]`` of a summarised call (``None`` marks randbelow, a den >= 1 bernoulli).
_SUMMARY = -1


class _Cut(BaseException):
    """Raised inside the sampler to end a path that leaves the budget.

    A BaseException, so that a sampler's own ``except Exception`` cannot swallow it.
    """


class _Return(BaseException):
    """Raised inside the sampler when the execution is back in the state it was in at an earlier
    depth of the same path (see "Renewal" in the module docstring)."""

    def __init__(self, target: int) -> None:
        self.target = target


_CHANGED = (
    "the sampler asked for a different choice on a replayed path: its draws must "
    "depend only on earlier draws and its parameters"
)


class _TreeWalker(RandomSource, EnumeratingSource, trusted=True):
    """The enumerating source: one object walks the whole tree, one execution per path.

    Per depth ``d`` (the ``d``-th call of the current path) it keeps the call's arguments
    (``first[d] = n, second[d] = None`` for ``randbelow(n)``; ``num, den`` for ``bernoulli``),
    its arity, the branch taken and the value returned, and the prefix mass after the call,
    both exact (integers ``num[d+1] / den[d+1]``, unreduced, so extending a path costs two
    multiplications) and as a float that only steers pruning.  The next path shares all but
    its last choice with the previous one, so those choices are replayed from the lists and
    only their arguments are re-checked: the hot path is a comparison and a list lookup.
    """

    def __init__(
        self,
        max_depth: int,
        min_mass: float,
        summaries: Summaries | None = None,
        renewal: bool = False,
        discovery: Discovery | None = None,
        scale: float = 1.0,
    ) -> None:
        self.summaries = summaries
        self.scale = scale  # the absolute mass of this walk's root (a summary's, see _summaries)
        self.renewal = renewal
        self.discovery = discovery
        self.lazy = False  # whether a lazy draw was handed out (outputs are then settled)
        self.short = False  # whether a summarised call short of its law (remainder > 0) was taken
        self.states: dict[Hashable, int] = {}  # program state -> the depth it was seen at, this path
        self.state_order: list[tuple[int, Hashable]] = []
        self.log_start: list[int] = [0]  # log_start[d]: the leaf log's length when depth d was reached
        self.log: list[tuple[tuple[str, Hashable], int, int]] = []  # (exit, num, den), renewal only
        self.targets: set[int] = set()
        if summaries is not None and summaries.marks:
            self._summarise = self._summary_choice
        self.max_depth = max_depth
        self.min_mass = min_mass  # 0.0 disables pruning
        self.first: list[int] = []
        self.second: list[int | None] = []  # None marks randbelow: no den equals it
        self.arity: list[int] = []
        self.taken: list[int] = []
        # what each choice returned: an int (randbelow), a bool (bernoulli), a summary's output
        self.value: list[Hashable] = []
        self.num: list[int] = [1]  # exact prefix mass after d choices is num[d] / den[d]
        self.den: list[int] = [1]
        self.mass: list[float] = [1.0]  # the same, as a float, for pruning only
        self.replay = 0  # choices [0, replay) are replayed from the lists
        self.depth = 0
        self.cut = 0

    # -- the RandomSource interface -------------------------------------------------------

    def randbelow(self, n: int) -> int:
        d = self.depth
        if d < self.replay:
            # Equal to arguments validated when first seen, so no second validation.
            if self.first[d] != n or self.second[d] is not None:
                raise SamplerContractError(_CHANGED)
            self.depth = d + 1
            return cast(int, self.value[d])  # replayed: a randbelow choice recorded the int it returned
        n = _check_randbelow(n)
        if self.renewal:
            self._checkpoint(("randbelow", n))
        if d >= self.max_depth:
            raise _Cut
        mass = self.mass[d] * (1 / n)  # int true division: no overflow for n > 1e308
        if mass < self.min_mass:  # every branch of a uniform choice is equally light
            raise _Cut
        self._push(n, None, n, 0, 0, self.num[d], self.den[d] * n, mass)
        return 0

    def lazy_randbelow(self, n: int) -> LazyUniform | int:
        """``randbelow(n)`` for code that may only compare it: a draw branched on per question
        (:mod:`dpverify.verify.engine._lazy_uniform`), so ``randrange(d) < c`` is two branches, not ``d``."""
        n = _check_randbelow(n)
        if n == 1:
            return self.randbelow(1)
        if self.renewal and self.depth >= self.replay:
            self._checkpoint(("lazy", n))
        self.lazy = True
        return LazyUniform(self, n)

    def bernoulli(self, num: int, den: int) -> bool:
        d = self.depth
        if d < self.replay:
            if self.first[d] != num or self.second[d] != den:
                raise SamplerContractError(_CHANGED)
            self.depth = d + 1
            return cast(bool, self.value[d])  # replayed: a bernoulli choice recorded the bool it returned
        num, den = _check_bernoulli(num, den)
        if self.renewal:
            self._checkpoint(("bernoulli", num, den))
        if d >= self.max_depth:
            raise _Cut
        if num == 0 or num == den:  # a certain outcome is a choice of arity 1
            self._push(num, den, 1, 0, num == den, self.num[d], self.den[d], self.mass[d])
            return num == den
        true_mass = self.mass[d] * (num / den)
        if true_mass >= self.min_mass:  # branch 0 is True
            self._push(num, den, 2, 0, True, self.num[d] * num, self.den[d] * den, true_mass)
            return True
        false_mass = self.mass[d] * ((den - num) / den)
        if false_mass < self.min_mass:
            raise _Cut
        # Branch 0 is too light: count it as cut and enter branch 1 in the same execution.
        self.cut += 1
        self._push(num, den, 2, 1, False, self.num[d] * (den - num), self.den[d] * den, false_mass)
        return False

    def _summary_choice(self, function: Callable[..., Hashable], args: tuple[object, ...], loop: bool) -> Hashable:
        """A marked call as one choice over its summarised outputs (module docstring, "Summaries")."""
        assert self.summaries is not None
        try:
            index = self.summaries.lookup(function, args, loop)
        except TypeError:  # unhashable arguments: walk the call inside this path instead
            return _run_marked(function, args, loop)
        return self._choose(index, False)

    def _procedure_index(
        self, function: Any, original: Any, args: tuple[object, ...], kwargs: dict[str, object]
    ) -> int | None:
        """The summary answering a call taken over (:mod:`dpverify.verify.engine._procedures`), or
        None to walk it; the same on every replay of the path, since the prefix mass is."""
        if self.summaries is None or not self.summaries.procedures:
            return None
        at_tier = tier(self.summaries.top, self.scale * self.mass[self.depth])
        return self.summaries.procedure(function, original, args, kwargs, at_tier, self)

    def _procedure_choice(self, index: int) -> Hashable:
        """A procedure call as one choice over its summary's outputs (:mod:`dpverify.verify.engine._summaries`)."""
        summary = self.summaries.summaries[index]  # type: ignore[union-attr]  # summaries is set: it gave index
        if summary.certain:
            return summary.outputs[0]
        return self._choose(index, self.renewal)

    def _choose(self, index: int, checkpoint: bool) -> Hashable:
        d = self.depth
        if d < self.replay:
            if self.first[d] != index or self.second[d] != _SUMMARY:
                raise SamplerContractError(_CHANGED)
            self.depth = d + 1
            return self.value[d]
        if checkpoint:
            self._checkpoint(("summary", index), up=3)
        if d >= self.max_depth:
            raise _Cut
        summary = self.summaries.summaries[index]  # type: ignore[union-attr]  # summaries is set: it gave index
        if not summary.outputs:
            raise _Cut
        mass = self.mass[d] * summary.floats[0]
        if mass < self.min_mass:  # the heaviest output is too light, so all are
            raise _Cut
        if summary.remainder:
            self.short = True
        self._push(
            index,
            _SUMMARY,
            len(summary.outputs),
            0,
            summary.outputs[0],
            self.num[d] * summary.nums[0],
            self.den[d] * summary.dens[0],
            mass,
        )
        return summary.outputs[0]

    # -- renewal ---------------------------------------------------------------------------

    def _checkpoint(self, draw: Hashable, up: int = 2) -> None:
        """Register the program state at this new point of the path, or end the path if the
        same state was seen at an earlier depth of it.  ``up`` counts the frames from here to the
        one that asked for the draw (the draw method's caller)."""
        key = program_state(sys._getframe(up), sys._getframe(up - 1), draw, stop=_walk_paths.__code__)
        if key is None:
            return
        target = self.states.get(key)
        if target is not None:
            raise _Return(target)
        self.states[key] = self.depth
        self.state_order.append((self.depth, key))

    def finish(self, depth: int) -> None:
        """The nodes at depths ``>= depth`` are complete: apply renewal at those returned to."""
        for d in sorted((t for t in self.targets if t >= depth), reverse=True):
            self.targets.discard(d)
            self._renew(d)
        order = self.state_order
        while order and order[-1][0] >= depth:
            del self.states[order.pop()[1]]

    def _renew(self, d: int) -> None:
        """Node ``d``'s leaves: drop the returns to it (mass ``r``) and scale the rest by
        ``m / (m - r)``, ``m`` the node's exact prefix mass (module docstring, "Renewal")."""
        begin = self.log_start[d]
        exits: dict[tuple[str, Hashable], Fraction] = {}
        for exit_, num, den in self.log[begin:]:
            exits[exit_] = exits.get(exit_, Fraction(0)) + Fraction(num, den)
        returned = exits.pop(("ret", d), Fraction(0))
        mass = Fraction(self.num[d], self.den[d])
        if returned >= mass:  # every explored path comes back: nothing is known to leave
            exits = {}
        elif returned:
            factor = mass / (mass - returned)
            exits = {e: m * factor for e, m in exits.items()}
        self.log[begin:] = [(e, m.numerator, m.denominator) for e, m in exits.items()]

    # -- the walk -------------------------------------------------------------------------

    def _push(
        self,
        first: int,
        second: int | None,
        arity: int,
        index: int,
        value: Hashable,
        num: int,
        den: int,
        mass: float,
    ) -> None:
        self.first.append(first)
        self.second.append(second)
        self.arity.append(arity)
        self.taken.append(index)
        self.value.append(value)
        self.num.append(num)
        self.den.append(den)
        self.mass.append(mass)
        self.depth += 1
        self.log_start.append(len(self.log))
        if self.discovery is not None:
            self.discovery.draw(sys._getframe(2))

    def _truncate(self, depth: int) -> None:
        del self.first[depth:], self.second[depth:], self.arity[depth:]
        del self.taken[depth:], self.value[depth:]
        del self.num[depth + 1 :], self.den[depth + 1 :], self.mass[depth + 1 :], self.log_start[depth + 1 :]

    def advance(self) -> bool:
        """Move to the next unvisited, heavy enough sibling (the odometer step of DFS).

        Returns False when the tree is exhausted.  A light ``bernoulli`` sibling is counted
        as cut without executing the sampler; the siblings of a uniform choice weigh the
        same as the branch just taken, so they are never light.
        """
        self._truncate(self.depth)
        for d in range(self.depth - 1, -1, -1):
            index = self.taken[d] + 1
            if index >= self.arity[d]:
                continue
            den_or_none = self.second[d]
            if den_or_none == _SUMMARY:  # a summarised call: branch i returns its i-th output
                summary = self.summaries.summaries[self.first[d]]  # type: ignore[union-attr]  # set: _SUMMARY above
                mass = self.mass[d] * summary.floats[index]
                if mass < self.min_mass:  # outputs come heaviest first: the rest are lighter
                    self.cut += 1
                    continue
                weight_num, weight_den, value = summary.nums[index], summary.dens[index], summary.outputs[index]
            elif den_or_none is not None:  # bernoulli(num, den): branch 1 returns False
                num, den = self.first[d], den_or_none
                mass = self.mass[d] * ((den - num) / den)
                if mass < self.min_mass:
                    self.cut += 1
                    continue
                weight_num, weight_den, value = den - num, den, False
            else:  # randbelow(n): branch i returns i
                mass, weight_num, weight_den, value = self.mass[d + 1], 1, self.first[d], index
            if self.renewal:
                self.finish(d + 1)
            self._truncate(d + 1)
            self.log_start[d + 1] = len(self.log)
            self.taken[d] = index
            self.value[d] = value
            self.num[d + 1] = self.num[d] * weight_num
            self.den[d + 1] = self.den[d] * weight_den
            self.mass[d + 1] = mass
            self.replay = d + 1
            self.depth = 0
            return True
        if self.renewal:
            self.finish(0)
        return False

    def start(self) -> None:
        self.depth = 0
        if self.discovery is not None:
            self.discovery.start()


def enumerate_outputs(
    sampler: Sampler,
    *,
    max_paths: int = 1_000_000,
    max_depth: int = 10_000,
    min_mass: Fraction | int | str = 0,
    summarise: bool = False,
    renewal: bool = False,
    procedures: bool = False,
) -> Enumeration:
    """Run ``sampler`` on every path of its choice tree, within the budgets.

    ``sampler`` takes a RandomSource and returns an output; it must draw only through it.
    ``max_paths`` bounds the executions, ``max_depth`` the draws per path, and ``min_mass``
    the smallest prefix probability a branch may have to be entered: 0, which disables it, or a
    rational in [10^-14, 1) (10^-14 is ``MIN_MASS``; a
    finer budget walks every loop down to ``max_depth``).  Cut and unvisited mass is reported
    exactly as ``unexplored``.  With ``summarise``, marked loops and subroutines are summarised;
    with ``renewal``, an execution back in a program state it was in earlier on its path is
    renewed there (module docstring); with ``procedures``, the calls of functions that draw are
    summarised per distinct arguments (``dpverify.verify.engine._summaries``), and what was
    done with each is in :attr:`Enumeration.procedures`.  Renewal and procedures read the
    interpreter's bytecode: on an interpreter ``dpverify.verify.engine._bytecode`` has no table
    for, asking for either raises ``UnknownInterpreter``.
    """
    need_callable("sampler", sampler, "a callable taking a RandomSource, e.g. lambda rng: sample(q, rng)")
    max_paths = need_count("max_paths", max_paths, low=1)
    max_depth = need_count("max_depth", max_depth, low=1)
    threshold = need_min_mass(min_mass, zero=True)
    for name, flag in (("summarise", summarise), ("renewal", renewal), ("procedures", procedures)):
        if not isinstance(flag, bool):
            raise InvalidArgument(f"{name} must be True or False; got {name}={shown(flag)}.")
    if renewal or procedures:  # both read the interpreter's bytecode: refused where it is not known
        bytecode("renewal and procedure summaries")
    if not procedures:
        summaries = Summaries(max_paths, max_depth, _enumerate) if summarise else None
        return _enumerate(sampler, max_paths, max_depth, threshold, summaries, renewal)
    discovery = Discovery(_walk_paths.__code__)
    # Calls are counted with a profile function, unless one is already installed (a profiler's,
    # which could not be put back): then no code is known to be called twice.
    counting = sys.getprofile() is None
    if counting:
        sys.setprofile(discovery.profile)
    try:  # a short walk as the code runs, to see which functions draw (_procedures)
        _enumerate(
            sampler, DISCOVERY_PATHS, max_depth, max(threshold, DISCOVERY_MIN_MASS), None, False, discovery=discovery
        )
    except Exception:  # noqa: BLE001, S110 - what the code does wrong, the enumeration below reports
        pass
    finally:
        if counting:
            sys.setprofile(None)
    summaries = Summaries(max_paths, max_depth, _enumerate, marks=summarise, procedures=True, top=float(threshold))
    with hooked(discovery.candidates()):
        found = _enumerate(sampler, max_paths, max_depth, threshold, summaries, renewal, procedures=True)
    return replace(found, procedures=summaries.notes)


#: The mass budget of the short walk that finds the functions that draw.
DISCOVERY_MIN_MASS = Fraction(1, 1000)


def _enumerate(
    sampler: Sampler,
    max_paths: int,
    max_depth: int,
    threshold: Fraction,
    summaries: Summaries | None,
    renewal: bool = False,
    *,
    procedures: bool = False,
    walker: _TreeWalker | None = None,
    discovery: Discovery | None = None,
    scale: float = 1.0,
) -> Enumeration:
    """The walk.  ``walker``: walk on this walker (its paths and states set aside, then restored),
    so that a procedure summary draws from the very source object its arguments hold."""
    if walker is None:
        walker = _TreeWalker(max_depth, float(threshold), summaries, renewal, discovery, scale)
        return _walk(sampler, max_paths, walker, procedures)
    saved = walker.__dict__
    walker.__dict__ = {}
    try:
        # re-initialise this very walker on purpose (a fresh __dict__, the old one restored below); it is a _TreeWalker
        walker.__init__(max_depth, float(threshold), summaries, renewal, None, scale)  # type: ignore[misc]  # see above
        return _walk(sampler, max_paths, walker, procedures)
    finally:
        walker.__dict__ = saved


def _walk(sampler: Sampler, max_paths: int, walker: _TreeWalker, procedures: bool) -> Enumeration:
    if procedures:
        with pushed(walker):
            return _walk_paths(sampler, max_paths, walker)
    return _walk_paths(sampler, max_paths, walker)


def _walk_paths(sampler: Sampler, max_paths: int, walker: _TreeWalker) -> Enumeration:
    # Only *which* branches are entered depends on the walker's float min_mass; masses stay exact.
    renewal = walker.renewal
    # Per (output, draws), exact masses grouped by their unreduced denominator, so the hot
    # loop adds integers; Fractions are formed once per group at the end.
    groups: dict[tuple[Hashable, int], dict[int, int]] = {}
    paths = 0
    more = True
    while more and paths < max_paths:
        walker.start()
        try:
            output = sampler(walker)
            if walker.lazy:  # a lazy draw in the output is hashed below: draw it now
                output = settled(output)
        except _Cut:
            walker.cut += 1
        except _Return as back:
            walker.log.append((("ret", back.target), walker.num[walker.depth], walker.den[walker.depth]))
            walker.targets.add(back.target)
        except (SamplerCrashed, SamplerContractError, LoopNeverAccepts):
            raise
        except Exception as error:  # a refused draw (say randbelow(0)) is the code's fault too
            raise SamplerCrashed(walker.taken[: walker.depth], error) from error
        else:
            depth = walker.depth
            if depth < walker.replay:
                raise SamplerContractError(_CHANGED)
            if renewal:
                walker.log.append((("out", output), walker.num[depth], walker.den[depth]))
                paths += 1
                more = walker.advance()
                continue
            by_den = groups.setdefault((output, depth), {})
            den = walker.den[depth]
            by_den[den] = by_den.get(den, 0) + walker.num[depth]
        paths += 1
        more = walker.advance()
    joint = {key: sum((Fraction(n, d) for d, n in by_den.items()), Fraction(0)) for key, by_den in groups.items()}
    masses: dict[Hashable, Fraction] = {}
    for (output, _), mass in joint.items():
        masses[output] = masses.get(output, Fraction(0)) + mass
    if renewal:
        if more:  # stopped by max_paths: the open nodes are complete as far as they go
            walker.finish(0)
        for (kind, output), num, den in walker.log:
            assert kind == "out"
            masses[output] = masses.get(output, Fraction(0)) + Fraction(num, den)
    unexplored = 1 - sum(masses.values(), Fraction(0))
    stopped = "max_paths" if more else ("budget" if walker.cut else "exhausted")
    if renewal and not masses and stopped == "exhausted" and not walker.short and paths:
        raise NeverReturns(paths)
    return Enumeration(masses, unexplored, paths, paths, "exhaustive", joint, walker.cut, stopped)


def _run_marked(function: Callable[..., Hashable], args: tuple[object, ...], loop: bool) -> Hashable:
    """A marked call run as written (what production does)."""
    if not loop:
        return function(*args)
    while True:
        z = function(*args)
        if z is not None:
            return z
