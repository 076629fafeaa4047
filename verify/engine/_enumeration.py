"""What an enumeration returns: a sampler's exact output masses and the exact mass not yet
attributed (:class:`Enumeration`), or the finding that the code crashed on some draws.  Its own
module because both ways of deriving it build it: the tree walk (:mod:`dpverify.verify.engine._enumerate`)
and bisection (:mod:`dpverify.verify.engine._bisect`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction

from dpverify.samplers import DpverifyError, InvalidArgument, RandomSource
from dpverify.samplers._rational import shown
from dpverify.verify.engine._arguments import need_instance

__all__ = ["Enumeration", "LoopNeverAccepts", "NeverReturns", "Sampler", "SamplerCrashed", "need_enumeration"]

Sampler = Callable[[RandomSource], Hashable]


@dataclass(frozen=True, slots=True)
class Enumeration:
    """Exact output masses found so far, and the exact mass not yet attributed to any output.

    For every output ``o`` the true probability lies in
    ``[masses[o], masses[o] + unexplored]``; ``exhausted`` means ``unexplored == 0``.
    ``joint[(o, k)]`` is the exact mass of the valid paths that return ``o`` after exactly
    ``k`` draws (so ``masses[o] = sum_k joint[(o, k)]``).  ``paths`` counts executions of
    the sampler; ``cut`` counts subtrees left unexplored by ``min_mass`` or ``max_depth``;
    ``stopped`` says why the walk ended: ``"exhausted"`` (every path valid),
    ``"budget"`` (tree walked, some subtrees cut) or ``"max_paths"``.
    """

    masses: dict[Hashable, Fraction]
    unexplored: Fraction
    paths: int
    executions: int
    method: str
    joint: dict[tuple[Hashable, int], Fraction] = field(default_factory=dict)
    cut: int = 0
    stopped: str = "exhausted"
    #: Per function the engine summarised or walked (procedure summaries), what it did and why.
    procedures: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Built directly, it must be a sub-distribution, as the engine's own are: every consumer
        # (renewal, intervals, timing) takes logarithms and ratios of these masses.
        for name in ("masses", "joint", "procedures"):
            if not isinstance(getattr(self, name), dict):
                raise InvalidArgument(f"{name} must be a dict; got {name}={shown(getattr(self, name))}.")
        for output, mass in self.masses.items():
            _probability(f"masses[{shown(output, 30)}]", mass)
        for key, mass in self.joint.items():
            if not (isinstance(key, tuple) and len(key) == 2 and type(key[1]) is int and key[1] >= 0):
                raise InvalidArgument(f"joint's keys must be pairs (output, draws >= 0); got {shown(key)}.")
            _probability(f"joint[{shown(key, 30)}]", mass)
        _probability("unexplored", self.unexplored)
        for name in ("paths", "executions", "cut"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise InvalidArgument(f"{name} must be an int >= 0; got {name}={shown(value)}.")
        for name in ("method", "stopped"):
            if not isinstance(getattr(self, name), str):
                raise InvalidArgument(f"{name} must be a str; got {name}={shown(getattr(self, name))}.")

    @property
    def exhausted(self) -> bool:
        return self.unexplored == 0

    @property
    def explored(self) -> Fraction:
        """``1 - unexplored``: the exact mass of the valid paths."""
        return 1 - self.unexplored


def _probability(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)) or not 0 <= value <= 1:
        raise InvalidArgument(
            f"{name} must be an exact probability (an int or Fraction in [0, 1]); got {name}={shown(value)}."
        )


class SamplerCrashed(DpverifyError):
    """The sampler raised on some draws: a finding about the code, reported with the draws."""

    def __init__(self, draws: list[int], error: BaseException) -> None:
        super().__init__(f"the sampler raised {type(error).__name__}: {error} on draws {draws}")
        self.draws = draws
        self.error = error


class LoopNeverAccepts(DpverifyError):
    """Every attempt of a loop rejects, on an exhaustively enumerated attempt: the loop never ends."""

    def __init__(self, attempt: Callable[..., object], args: tuple[object, ...]) -> None:
        shown_args = ", ".join(shown(a, 40) for a in args)
        super().__init__(
            f"the loop until_accepted({attempt.__name__}) never ends at ({shown_args}): every one of "
            "its attempts rejects (enumerated exhaustively)"
        )


class NeverReturns(LoopNeverAccepts):
    """A renewing walk is complete and no path returns: the code never returns
    (:mod:`dpverify.verify.engine._enumerate`, "A loop that never ends")."""

    def __init__(self, paths: int) -> None:
        DpverifyError.__init__(
            self,
            f"the code never returns: all {paths} paths of the walk were followed to the "
            "end, nothing cut, and each comes back to a program state it was in before without "
            "an output, so every execution loops forever (probability 0 of any output)",
        )
        self.paths = paths


def need_enumeration(name: str, found: object) -> Enumeration:
    """``found`` itself if it is an :class:`Enumeration`, else a one-line error naming ``name``."""
    return need_instance(name, found, Enumeration, "an Enumeration (from enumerate_outputs or bisect_outputs)")
