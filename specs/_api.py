"""The one public way to declare a spec: :class:`Spec`, its :class:`Case` list and its parts.

A spec is a second, independent statement about a sampler: what it takes (its parameter
domain and, for a mechanism, its input and neighbour relation), what it claims (pure, approximate
or zero-concentrated DP, or only that it samples a stated PMF), and what it samples (an exact
PMF in closed form, or certified enclosures of an irrational ideal PMF).  The engine reads the
declaration and chooses the checks; it never dispatches on a spec's class.  The built-in
catalogue (:mod:`dpverify.verify.gate._catalogue`) is declared through this same API.

How the engine calls the code.  ``sampler`` is called with keyword arguments: every declared
parameter its signature names (a parameter it does not name, such as a sensitivity that only
the neighbour relation uses, is not passed), the input under ``Input.name``, and the
randomness as ``rng`` (a :class:`~dpverify.samplers.RandomSource`, or a ``random.Random``-like
object, per :class:`Randomness`).  ``Attempt.attempt`` is called the same way.  Every other
callable of a spec takes the case's validated parameters ``p`` (a dict of name to ``int`` or
``Fraction``) first.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

from dpverify.samplers import DpverifyError, InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import shown
from dpverify.specs._claims import CLAIM_TYPES, Claim
from dpverify.specs._domains import Domain, is_domain

__all__ = [
    "DEFAULT_MAX_UNEXPLORED",
    "DEFAULT_MIN_MASS",
    "Attempt",
    "Bisection",
    "Bounded",
    "Case",
    "Exhaustive",
    "Input",
    "Params",
    "Randomness",
    "Spec",
    "SpecError",
]

Params = Mapping[str, Any]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_EXPECTATIONS = ("proved", "violated", "inconclusive")


class SpecError(DpverifyError):
    """A spec is wrongly declared, or its code or closed form misbehaves on valid parameters.

    Always distinct from a privacy violation: it says the spec cannot be checked as written.
    The message names the spec (and the case), then the problem.
    """


class Randomness(StrEnum):
    """How the sampler takes its randomness."""

    #: ``rng`` is a :class:`~dpverify.samplers.RandomSource`: exact draws the engine enumerates.
    SOURCE = "source"
    #: ``rng`` is a ``random.Random``-like object (exact integer methods, ``random()`` on a
    #: grid of ``Spec.float_bits`` bits, 53 as in CPython) presented over a RandomSource, so the
    #: same engine enumerates it.
    RANDOM = "random"
    #: The sampler takes no ``rng`` and calls ``random``'s or ``secrets``' module-level functions
    #: (or creates a ``random.SystemRandom()``): for each execution they are redirected to the
    #: engine's source (:func:`dpverify.verify.patched_random`), so the same
    #: engine enumerates it.
    MODULE = "module"
    #: A black box that draws its own randomness: only statistical checks apply.
    NONE = "none"


# --- how the code can be enumerated ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Exhaustive:
    """Every random choice of the code is enumerated, path by path, up to ``max_paths`` paths
    (past that the exactness check is inconclusive).  The default for a spec with an exact PMF."""

    max_paths: int = 1_000_000


@dataclass(frozen=True, slots=True)
class Bisection:
    """The code makes exactly one draw ``randbelow(T)`` and each output comes from one interval
    of draws (an inverse transform is such code): above ``4096`` draws each output's interval is
    found by bisection, in ``O(outputs * log T)`` executions, so ``T = 10^100`` is exact too.
    The engine refuses a sampler where it sees an output in two intervals."""


#: The loosest interval proof a :class:`Bounded` or :class:`Attempt` enumeration accepts unless
#: the spec says otherwise: a proof must bound ``|P_code(o) - P_ideal(o)|`` by this at every
#: checked output.  A looser ``max_unexplored`` (or None, any) needs a ``tolerance_reason``.
DEFAULT_MAX_UNEXPLORED = Fraction(1, 10**6)
#: The default mass budget of a bounded enumeration: fine enough that the summarised loops of the
#: built-in samplers leave less than :data:`DEFAULT_MAX_UNEXPLORED` unexplored.
DEFAULT_MIN_MASS = Fraction(1, 10**9)


@dataclass(frozen=True, slots=True)
class Bounded:
    """The whole sampler is enumerated, leaving unentered the branches lighter than ``min_mass``:
    exact intervals around each output's probability.  Loops and subroutines the code marks
    (``dpverify.samplers._loops``) are summarised, each enumerated once by its own renewal
    identity, so nested rejection loops stay tight; the code is also walked as it runs.  The
    default for a spec with an ideal PMF.

    A proof from it is a proof *within U* (the unexplored mass): ``|P_code(o) - P_ideal(o)| <= U``
    at every checked output, and a total-variation bound stated beside it
    (``dpverify.verify.engine._intervals``).  ``max_unexplored`` is the loosest ``U`` accepted
    (a larger one is inconclusive): by default :data:`~dpverify.specs.DEFAULT_MAX_UNEXPLORED`, so a budget that
    leaves much of the mass unexplored (a loop that rarely or never accepts) cannot pass as a
    proof.  A looser tolerance, or None (any ``U``), must say why in ``tolerance_reason``, which
    every verdict of the spec then carries; without one it is a :class:`SpecError`.

    ``renewal=True`` is for code nobody marked (``while True`` loops, subroutines, as published
    code is written).  An execution back in a program state it was in earlier on its path is cut
    there and the renewal identity applied (``dpverify.verify.engine._program_state`` says when
    two states are taken to be the same), and, unless ``procedures=False``, every call of a
    function that draws is summarised: enumerated once per distinct arguments and used as one
    weighted choice wherever it is made, when the code it runs keeps no state outside its frames
    (``dpverify.verify.engine._summaries``, ``dpverify.verify.engine._purity``)."""

    min_mass: Fraction | int | str = DEFAULT_MIN_MASS
    max_paths: int = 1_000_000
    max_unexplored: Fraction | int | str | None = DEFAULT_MAX_UNEXPLORED
    renewal: bool = False
    tolerance_reason: str | None = None
    procedures: bool = True

    def __post_init__(self) -> None:
        _fractions(self)
        for name in ("renewal", "procedures"):
            if not isinstance(getattr(self, name), bool):
                raise SpecError(f"{name} must be True or False; got {name}={shown(getattr(self, name))}.")


@dataclass(frozen=True, slots=True)
class Attempt:
    """The sampler repeats an independent ``attempt`` (returning an output, or None to reject)
    until it accepts: one attempt is enumerated to ``min_mass`` and the loop's intervals follow
    by renewal, much tighter than enumerating the loop.  ``attempt`` is called like the sampler;
    ``max_unexplored`` and ``tolerance_reason`` as for :class:`Bounded`."""

    attempt: Callable[..., Hashable | None]
    min_mass: Fraction | int | str = DEFAULT_MIN_MASS
    max_paths: int = 1_000_000
    max_unexplored: Fraction | int | str | None = DEFAULT_MAX_UNEXPLORED
    tolerance_reason: str | None = None

    def __post_init__(self) -> None:
        _fractions(self)


def _fractions(enumeration: Bounded | Attempt) -> None:
    """Exact budgets, and a tolerance looser than :data:`DEFAULT_MAX_UNEXPLORED` only with a reason."""
    kind = type(enumeration).__name__
    tolerance: Fraction | None = None
    try:
        object.__setattr__(enumeration, "min_mass", as_fraction("min_mass", enumeration.min_mass))
        if enumeration.max_unexplored is not None:
            tolerance = as_fraction("max_unexplored", enumeration.max_unexplored)
            object.__setattr__(enumeration, "max_unexplored", tolerance)
    except InvalidArgument as error:
        raise SpecError(f"{kind}: {error}") from None
    reason = enumeration.tolerance_reason
    if reason is not None and not (isinstance(reason, str) and reason.strip()):
        raise SpecError(
            f"{kind}: tolerance_reason must be None or a non-empty string saying why a proof within "
            f"max_unexplored is enough; got tolerance_reason={shown(reason)}."
        )
    if tolerance is not None and not 0 <= tolerance <= 1:
        raise SpecError(
            f"{kind}: max_unexplored must be a rational in [0, 1] or None; got max_unexplored={shown(tolerance)}."
        )
    if reason is None and (tolerance is None or tolerance > DEFAULT_MAX_UNEXPLORED):
        raise SpecError(
            f"{kind}: max_unexplored must be in [0, {DEFAULT_MAX_UNEXPLORED}] (the default tolerance) "
            f"unless tolerance_reason says why a looser proof is enough; got "
            f"max_unexplored={'None' if tolerance is None else tolerance}."
        )


Enumeration = Exhaustive | Bisection | Bounded | Attempt
_ENUMERATIONS = (Exhaustive, Bisection, Bounded, Attempt)


# --- the input and the parameter sets ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Input:
    """The query answer a mechanism takes: the sampler's argument ``name``, the values the claim
    quantifies over (``values(p)``), and the neighbour relation: an int ``d`` (``|q - q'| <= d``
    over those values), ``"all"`` (every two values are neighbours, as in local DP), or a
    callable ``neighbours(p)`` giving the pairs."""

    name: str
    values: Callable[[Params], Iterable[Hashable]]
    neighbours: int | str | Callable[[Params], Iterable[tuple[Hashable, Hashable]]] = 1

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise SpecError(
                f"Input: name must be the sampler's argument name (an identifier); got name={shown(self.name)}."
            )
        if not callable(self.values):
            raise SpecError(f"Input: values must be callable as values(p); got values={shown(self.values)}.")
        neighbours = self.neighbours
        distance = isinstance(neighbours, int) and not isinstance(neighbours, bool) and neighbours >= 0
        if not (callable(neighbours) or distance or (isinstance(neighbours, str) and neighbours == "all")):
            raise SpecError(
                f"Input: neighbours must be an int >= 0, 'all' or a callable neighbours(p); "
                f"got neighbours={shown(neighbours)}."
            )

    def pairs(self, p: Params, values: Sequence[Hashable]) -> tuple[tuple[Hashable, Hashable], ...]:
        """The neighbouring pairs among ``values`` (the inputs ``values(p)`` gave) at parameters ``p``."""
        p = _params(p)
        if not isinstance(values, (tuple, list)):
            raise InvalidArgument(
                f"values must be a tuple or list of inputs; got values={shown(values)} ({type(values).__name__})."
            )
        if callable(self.neighbours):
            return tuple(_pair(pair) for pair in self.neighbours(p))
        if self.neighbours == "all":
            return tuple((a, b) for i, a in enumerate(values) for b in values[i + 1 :])
        d = self.neighbours
        for value in values:
            if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
                raise InvalidArgument(
                    f"values must be ints or Fractions for neighbours={d} (|q - q'| <= {d}); got "
                    f"{shown(value)} ({type(value).__name__}) in values."
                )
        return tuple((a, b) for i, a in enumerate(values) for b in values[i + 1 :] if abs(a - b) <= d)


def _params(p: object) -> Params:
    """``p`` if it is a mapping from parameter names, else InvalidArgument."""
    if not isinstance(p, Mapping) or not all(isinstance(k, str) for k in p):
        raise InvalidArgument(
            f"p must be a mapping of parameter names to values; got p={shown(p)} ({type(p).__name__})."
        )
    return p


def _pair(pair: object) -> tuple[Hashable, Hashable]:
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise SpecError(f"neighbours(p) must give pairs (q, q'); it gave {shown(pair)} ({type(pair).__name__}).")
    return (pair[0], pair[1])


@dataclass(frozen=True, slots=True)
class Case:
    """One parameter set the gate checks, with the verdict it must reach (``"proved"``,
    ``"violated"`` or ``"inconclusive"``) and why.  ``label`` names it in reports (default
    ``name=value,...``); ``claim`` overrides the spec's claim for this case; ``sample_inputs``
    are the inputs the statistical check samples (default: the first input; ``()``: none)."""

    parameters: Mapping[str, Any]
    expect: str = "proved"
    why: str = ""
    label: str | None = None
    claim: Claim | None = None
    sample_inputs: tuple[Hashable, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.parameters, Mapping) or not all(isinstance(k, str) for k in self.parameters):
            raise SpecError(
                f"Case: parameters must be a mapping of parameter names to values; "
                f"got parameters={shown(self.parameters)}."
            )
        for name in ("expect", "why", "label"):
            value = getattr(self, name)
            if not (isinstance(value, str) or (name == "label" and value is None)):
                raise SpecError(
                    f"Case: {name} must be a str{' or None' if name == 'label' else ''}; got {name}={shown(value)}."
                )
        if self.sample_inputs is not None and not isinstance(self.sample_inputs, tuple):
            raise SpecError(
                f"Case: sample_inputs must be a tuple of inputs or None; got sample_inputs={shown(self.sample_inputs)}."
            )

    def describe(self) -> str:
        return self.label or ",".join(f"{k}={_value_text(v)}" for k, v in self.parameters.items())


# --- the spec ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """A sampler and the independent statement of what it samples and what it guarantees.

    ``name``
        unique among the specs a run finds; letters, digits, ``.``, ``_`` and ``-``.
    ``sampler``
        the production callable (see the module docstring for how it is called); None only for
        a mechanism modelled inside its own ``checks`` (a theorem with no Python sampler).
    ``parameters``
        each parameter's :class:`~dpverify.specs.Rational` or :class:`~dpverify.specs.Integer`
        domain.
    ``cases``
        the parameter sets the gate checks, each with its expected verdict.
    ``claim``
        a claim (:class:`~dpverify.specs.PureDp`, :class:`~dpverify.specs.ApproxDp`,
        :class:`~dpverify.specs.Zcdp`, :class:`~dpverify.specs.SamplesPmf`) or ``claim(p)``.
    ``input``
        the mechanism's input and neighbour relation; None for a noise sampler whose mechanism
        is ``q + noise`` over integers with ``|q - q'| <= sensitivity``.
    ``sensitivity``
        that bound for a noise sampler: an int or ``sensitivity(p)``.
    ``pmf``
        the exact PMF in closed form: ``pmf(p, q)`` (``pmf(p)`` for a noise sampler) returning
        ``{output: Fraction}`` or an :class:`~dpverify.specs.ExactPmf`; it must sum to 1.
    ``ideal``
        ``ideal(p, output, dps)``: a certified enclosure ``(low, high)`` of an irrational ideal
        probability, for samplers with no exact closed form.
    ``outputs``
        ``outputs(p)``: the outputs the interval and statistical checks cover when ``ideal`` is
        given (an unbounded sampler's support cannot be listed).
    ``randomness``
        a :class:`Randomness`.
    ``enumeration``
        :class:`Exhaustive`, :class:`Bisection`, :class:`Bounded` or :class:`Attempt`; None
        picks ``Exhaustive`` with a ``pmf`` and ``Bounded`` with an ``ideal``.
    ``checks``
        further checks of the claim, each ``check(p) -> CheckResult`` (a Z3 proof, an
        accounting cross-check); they gate like the engine's own.
    ``draw``
        a Hypothesis strategy of parameter dicts for the search beyond ``cases``; default: each
        parameter drawn from its domain's search window.
    ``batch``
        the sampler's batch form, ``batch(..., k, rng)`` returning ``k`` independent draws: called
        like the sampler plus ``k``, it is enumerated at ``k = 2`` and the pair must have the product
        of the single form's law (``pmf`` or ``ideal``), which shows both draws are independent
        and each is distributed as one draw.
    ``refuses``
        parameter values the code must refuse with a clear error (a
        :class:`~dpverify.samplers.DpverifyError`), each a dict laid over the case's parameters and
        passed to the sampler unvalidated (to the batch form when it names ``k``): the edges of
        the domain, so that a check that lets bad input through is found.
    ``accepts``
        parameter values at the edges of the domain the code must accept, laid over the case's
        parameters like ``refuses``: the sampler runs until its first draw (a source that stops it
        there) and must not refuse them, so a check that turns valid input away is found without
        paying for a whole draw at the edge (a GTM at the largest ``n``).
    ``timing``
        also report the draw-count timing channel (a finding; it never gates).
    ``float_bits``
        for ``randomness="random"`` or ``"module"``: ``random()`` returns ``j / 2**float_bits``
        for a uniform ``j`` (CPython's grid is 53 bits, the default).  Fewer bits make float code
        enumerable, exactly, at reduced precision: every check of such a spec says the precision
        its verdict holds for.
    """

    name: str
    sampler: Callable[..., Hashable] | None
    parameters: Mapping[str, Domain]
    cases: Sequence[Case]
    claim: Claim | Callable[[Params], Claim]
    input: Input | None = None
    sensitivity: int | Callable[[Params], int] = 1
    pmf: Callable[..., Any] | None = None
    ideal: Callable[[Params, Hashable, int], tuple[Any, Any]] | None = None
    outputs: Callable[[Params], Sequence[Hashable]] | None = None
    randomness: Randomness | str = Randomness.SOURCE
    enumeration: Enumeration | None = None
    checks: Sequence[Callable[[Params], Any]] = ()
    draw: Any = None
    batch: Callable[..., Sequence[Hashable]] | None = None
    refuses: Sequence[Mapping[str, Any]] = ()
    accepts: Sequence[Mapping[str, Any]] = ()
    timing: bool = False
    float_bits: int = 53
    description: str = ""
    citation: str = ""
    _sampler_arguments: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name) or len(self.name) > 100:
            raise SpecError(
                "spec name must be at most 100 letters, digits, '.', '_' or '-' (starting with a letter or digit); "
                f"got name={shown(self.name)}."
            )
        problem = self._declaration_problem()
        if problem:
            raise SpecError(f"spec {shown(self.name)}: {problem}")
        object.__setattr__(self, "randomness", Randomness(self.randomness))
        object.__setattr__(self, "cases", tuple(self.cases))
        object.__setattr__(self, "checks", tuple(self.checks))
        object.__setattr__(self, "refuses", tuple(dict(r) for r in self.refuses))
        object.__setattr__(self, "accepts", tuple(dict(a) for a in self.accepts))
        object.__setattr__(self, "_sampler_arguments", _keyword_names(self.sampler))
        for index, case in enumerate(self.cases):
            self.bind(case, where=f"case {index + 1} ({case.describe()})")
        for edge in self.accepts:  # an edge the spec's own domain refuses is no edge of it
            for name, value in edge.items():
                if name in self.parameters:
                    try:
                        self.parameters[name].validate(name, value)
                    except DpverifyError as error:
                        raise SpecError(
                            f"spec {shown(self.name)}: accepts {shown(edge)} is outside the domain: {error}"
                        ) from None

    def _declaration_problem(self) -> str | None:
        """The first thing wrong with the declaration's shape, or None."""
        if self.sampler is not None and not callable(self.sampler):
            return f"sampler must be callable or None; got sampler={shown(self.sampler)}."
        if self.sampler is None and not self.checks:
            return "a spec without a sampler must declare checks; there is nothing else to run."
        if not isinstance(self.parameters, Mapping) or not all(
            isinstance(k, str) and is_domain(v) for k, v in self.parameters.items()
        ):
            return "parameters must map each name to a Rational(...) or Integer(...) domain."
        if not isinstance(self.cases, Sequence) or not self.cases or not all(isinstance(c, Case) for c in self.cases):
            return "cases must be a non-empty sequence of Case(...): the parameter sets the gate checks."
        if not (isinstance(self.claim, CLAIM_TYPES) or callable(self.claim)):
            return (
                f"claim must be PureDp, ApproxDp, Zcdp, SamplesPmf or a callable returning one; "
                f"got claim={shown(self.claim)}."
            )
        if self.input is not None and not isinstance(self.input, Input):
            return f"input must be an Input(...) or None; got input={shown(self.input)}."
        if self.enumeration is not None and not isinstance(self.enumeration, _ENUMERATIONS):
            return (
                "enumeration must be Exhaustive(), Bisection(), Bounded(...), Attempt(...) or None; "
                f"got enumeration={shown(self.enumeration)}."
            )
        # a str first: a set cannot look up what does not hash (a list, a signalling NaN)
        if not (isinstance(self.randomness, str) and self.randomness in {r.value for r in Randomness}):
            return (
                "randomness must be one of 'source', 'random', 'module', 'none'; "
                f"got randomness={shown(self.randomness)}."
            )
        if isinstance(self.float_bits, bool) or not isinstance(self.float_bits, int) or not 1 <= self.float_bits <= 53:
            return f"float_bits must be an int in [1, 53]; got float_bits={shown(self.float_bits)}."
        if self.float_bits != 53 and Randomness(self.randomness) not in (Randomness.RANDOM, Randomness.MODULE):
            return (
                "float_bits applies only to randomness='random' or 'module' (random() on a grid); "
                f"got float_bits={shown(self.float_bits)} with randomness={shown(Randomness(self.randomness).value)}."
            )
        for name in ("pmf", "ideal", "outputs"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                return f"{name} must be callable or None; got {name}={shown(value)}."
        for name, what in (("refuses", "invalid"), ("accepts", "valid")):
            overrides = getattr(self, name)
            if not isinstance(overrides, Sequence) or not all(
                isinstance(o, Mapping)
                and o
                and all(
                    k in self.parameters or k == "k" or (isinstance(self.input, Input) and k == self.input.name)
                    for k in o
                )
                for o in overrides
            ):
                return (
                    f"{name} must be a sequence of non-empty dicts of declared parameters "
                    f"(the input, k) to {what} values."
                )
            if any("k" in o for o in overrides) and self.batch is None:
                return f"{name} names k, but the spec declares no batch form."
        if self.batch is not None and not callable(self.batch):
            return f"batch must be callable or None; got batch={shown(self.batch)}."
        if self.batch is not None and (self.pmf is None and self.ideal is None):
            return "a spec with a batch form needs a pmf or an ideal PMF to compare its draws with."
        if self.ideal is not None and self.outputs is None:
            return "a spec with an ideal PMF must declare outputs(p), the outputs its checks cover."
        if not isinstance(self.checks, Sequence) or not all(callable(check) for check in self.checks):
            return (
                "checks must be a sequence of callables check(p) returning a CheckResult; "
                f"got checks={shown(self.checks)}."
            )
        for case in self.cases:
            if case.expect not in _EXPECTATIONS:
                return (
                    f"case {shown(case.describe())}: expect must be one of {', '.join(_EXPECTATIONS)}; "
                    f"got expect={shown(case.expect)}."
                )
            if case.claim is not None and not isinstance(case.claim, CLAIM_TYPES):
                return (
                    f"case {shown(case.describe())}: claim must be PureDp, ApproxDp, Zcdp or SamplesPmf; "
                    f"got claim={shown(case.claim)}."
                )
        return self._sampler_problem()

    def _sampler_problem(self) -> str | None:
        if self.sampler is None:
            return None
        names = _keyword_names(self.sampler)
        if names is None:  # **kwargs, or no signature to read: trust the author
            return None
        wants_rng = Randomness(self.randomness) in (Randomness.SOURCE, Randomness.RANDOM)
        if wants_rng and "rng" not in names:
            return "the sampler takes no argument named rng; name it rng, or wrap the sampler."
        if self.input is not None and self.input.name not in names:
            return f"the sampler takes no argument named {self.input.name!r}, the declared input."
        batch_names = _keyword_names(self.batch) if self.batch is not None else None
        if batch_names is not None and not {"k", "rng"} <= batch_names:
            return "the batch form must take arguments named k and rng."
        return None

    # --- what the engine asks of a spec ----------------------------------------------------

    def bind(self, case: Case | Params, *, where: str = "parameters") -> dict[str, Any]:
        """The parameters of ``case`` validated against the domain, in declaration order."""
        given = case.parameters if isinstance(case, Case) else case
        if not isinstance(given, Mapping) or not all(isinstance(k, str) for k in given):
            raise InvalidArgument(
                f"case must be a Case or a mapping of parameter names to values; got case={shown(case)} "
                f"({type(case).__name__})."
            )
        if not isinstance(where, str):
            raise InvalidArgument(f"where must be a str naming what is bound; got where={shown(where)}.")
        where = _elided(where)
        missing = [n for n in self.parameters if n not in given]
        unknown = [n for n in given if n not in self.parameters]
        if missing or unknown:
            raise SpecError(
                f"spec {shown(self.name)}, {where}: "
                + "; ".join(
                    filter(
                        None,
                        (
                            f"missing parameter(s) {_elided(', '.join(missing))}" if missing else "",
                            f"undeclared parameter(s) {_elided(', '.join(unknown))}" if unknown else "",
                        ),
                    )
                )
                + f"; the declared parameters are {_elided(', '.join(self.parameters)) or '(none)'}."
            )
        try:
            return {name: domain.validate(name, given[name]) for name, domain in self.parameters.items()}
        except InvalidArgument as error:
            raise SpecError(
                f"spec {shown(self.name)}, {where}: parameter outside its declared domain: {error}"
            ) from None

    def claim_for(self, p: Params, case: Case | None = None) -> Claim:
        """The claim at ``p`` (the case's override first); a wrong type is a :class:`SpecError`."""
        p = self._bound(p)
        if case is not None and not isinstance(case, Case):
            raise InvalidArgument(f"case must be a Case or None; got case={shown(case)} ({type(case).__name__}).")
        if case is not None and case.claim is not None:
            return case.claim
        claim = self.claim(p) if callable(self.claim) and not isinstance(self.claim, CLAIM_TYPES) else self.claim
        if not isinstance(claim, CLAIM_TYPES):
            raise SpecError(
                f"spec {shown(self.name)}: claim(p) returned {shown(claim)} ({type(claim).__name__}); it must return "
                "PureDp, ApproxDp, Zcdp or SamplesPmf."
            )
        return claim

    def _bound(self, p: object) -> Params:
        """``p`` if it is a mapping that names every declared parameter (as :meth:`bind` returns)."""
        p = _params(p)
        missing = [name for name in self.parameters if name not in p]
        if missing:
            raise InvalidArgument(
                f"p must give every declared parameter (as bind returns them); got p={shown(p)}, "
                f"missing {shown(', '.join(missing))}."
            )
        return p

    def enumeration_for(self) -> Enumeration | None:
        """The declared enumeration, or the default for what the spec declares."""
        if Randomness(self.randomness) is Randomness.NONE:
            return None  # a black box's draws cannot be enumerated
        if self.enumeration is not None:
            return self.enumeration
        if self.pmf is not None:
            return Exhaustive()
        if self.ideal is not None:
            return Bounded()
        return None

    def sampler_arguments(self, p: Params) -> dict[str, Any]:
        """The parameters the sampler's signature names (all of them for ``**kwargs``)."""
        p = self._bound(p)
        names = self._sampler_arguments
        return dict(p) if names is None else {k: v for k, v in p.items() if k in names}

    def sensitivity_for(self, p: Params) -> int:
        p = self._bound(p)
        value = self.sensitivity(p) if callable(self.sensitivity) else self.sensitivity
        try:
            return as_int("sensitivity", value, low=1)
        except InvalidArgument as error:
            raise SpecError(f"spec {shown(self.name)}: {error}") from None


def _elided(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _value_text(value: object) -> str:
    """``str(value)`` for a case's label, short (a huge int's digits are never written)."""
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return shown(value)
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - a label must not fail on a hostile __str__
        return shown(value)
    return text if len(text) <= 60 else shown(value)


def _keyword_names(function: Callable[..., Any] | None) -> frozenset[str] | None:
    """The keyword-passable argument names of ``function``; None when it takes ``**kwargs`` or
    has no readable signature."""
    if function is None:
        return frozenset()
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
