"""Does new sampler code sample the same distribution as the old?  Exact differential checking.

A maintainer who optimises, refactors or ports a sampler wants one answer per parameter set:
the same law, or where it differs.  Both versions are run by the same engine
(:mod:`dpverify.verify.engine._enumerate`, DESIGN.md "the implementation is the model"), each as its
spec declares (complete enumeration, bisection of a single draw, or a bounded enumeration with
marked loops summarised, which yields exact intervals), and their laws are compared.

Outputs.  Let ``E_old(o)``, ``E_new(o)`` be the exact explored masses and ``U_old``, ``U_new``
the exact unexplored remainders, so ``P_old(o)`` lies in ``[E_old(o), E_old(o) + U_old]`` and
likewise for the new code (the enumeration's module docstring proves these bounds).

- Both enumerations exhausted (``U = 0``): the PMFs are exact, and the verdict is ``proved``
  when they are equal at every output, else ``violated`` at the first output where they differ,
  with both exact probabilities.
- Otherwise: ``violated`` when some output's two intervals are disjoint (the laws differ for
  certain, and the intervals are the evidence; the output where they lie farthest apart is
  reported).  Else the laws are equal up to a stated bound:
  writing ``P_old(o) = E_old(o) + x_o`` with ``x_o >= 0`` and ``sum_o x_o = U_old`` (and ``y_o``
  for the new code),

      TV(old, new) = 1/2 sum_o |P_old(o) - P_new(o)| <= 1/2 (sum_o |E_old(o) - E_new(o)| + U_old + U_new),

  and ``|P_old(o) - P_new(o)| <= max(E_old(o) + U_old - E_new(o), E_new(o) + U_new - E_old(o))``.
  ``proved`` when that TV bound is at most ``max_tv``, ``inconclusive`` otherwise (the reason
  says to lower the enumeration's ``min_mass``).

The timing channel.  The same comparison is made of the joint law of (output, number of draws)
(:attr:`~dpverify.verify.engine._enumeration.Enumeration.joint`, the input of
:mod:`dpverify.verify.privacy._timing`), enumerated without summaries since a summarised loop counts as
one draw.  Pairs are compared as outputs are, and so is the distribution function of the number
of draws, ``P(draws <= k)``, whose explored part ``F(k)`` bounds it within ``[F(k), F(k) + U]``:
a change that adds one draw to many light paths moves little mass per pair but much in ``F``.
A ``violated`` there with an unchanged output law is the case the maintainer must hear about:
the change is distribution-preserving but alters what the running time reveals (the loops of
Canonne, Kamath, Steinke 2020, Algorithms 1-3, run a geometric number of times, so the number
of draws depends on the output; :mod:`dpverify.verify.privacy._timing` measures that channel).  It is a
finding: it never decides the verdict.  For rejection samplers the unexplored mass ``U`` of a
walk without summaries is large (about 0.02 at ``min_mass = 1e-6`` for the discrete Laplace at
scale 3), so the intervals rarely separate; then every path of at most ``k`` draws is walked
with no mass budget (``k`` in :data:`SHORT_DEPTHS`, while the walk stays within
:data:`SHORT_PATHS` executions).  A path is cut exactly when it asks for draw ``k + 1``, so that
walk gives ``P(output = o, draws = d)`` *exactly* for every ``d <= k``, and a difference there
is a certain one, with both exact probabilities.  When they agree on every such pair, the two
joint laws differ only on the longer paths, whose mass ``tail`` is then the same in both, so
``TV <= tail``: ``proved`` when ``tail <= max_tv``, else ``inconclusive`` with the tighter of
the two bounds stated.

Parameter sets: the spec's cases, the caller's own, and a Hypothesis search of the declared
domain (:func:`dpverify.verify.gate._search.parameter_strategy`) for a set where the laws differ,
shrunk to a simple one, seeded and replayable.  Each set runs under a time bound.

Here: each parameter set's run of both versions, the whole diff and its document.  The
comparison of two laws is :mod:`~dpverify.verify.changes._law_comparison`, the versions and
parameter sets :mod:`~dpverify.verify.changes._diff_versions`, and ``check --base``'s choice of
changed specs :mod:`~dpverify.verify.changes._changed_specs`.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from dpverify import _channel
from dpverify.samplers import InvalidArgument, SamplerContractError
from dpverify.specs._api import Attempt, Bisection, Bounded, Exhaustive, Spec, SpecError
from dpverify.verify.changes._diff_versions import BARE_MIN_MASS, Side, _bare_frame
from dpverify.verify.changes._law_comparison import DEFAULT_MAX_TV, _union, compare_draws, compare_outputs
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT, elided
from dpverify.verify.engine._bytecode import UnknownInterpreter
from dpverify.verify.engine._enumerate import LoopNeverAccepts, enumerate_outputs
from dpverify.verify.engine._enumeration import Enumeration, SamplerCrashed
from dpverify.verify.engine._exactness import code_distribution
from dpverify.verify.engine._intervals import decimal_text, renewal
from dpverify.verify.engine._program_state import suspended_driver
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value, tolerance_text
from dpverify.verify.engine._text import shown_value
from dpverify.verify.gate._spec_checks import TIMING_MIN_MASS, _Instance
from dpverify.verify.gate._time_bound import CaseTimeUp, EnvironmentChanged, time_bound, user_code_stopped

suspended_driver(__file__)  # its samplers (lambdas) hold one call for a whole execution

__all__ = [
    "DEFAULT_SEARCH_EXAMPLES",
    "DIFF_SCHEMA",
    "DiffOptions",
    "ParameterDiff",
    "SpecDiff",
    "UNCOMPARED",
    "diff_document",
    "diff_sides",
    "overall",
    "proved_within",
]

DIFF_SCHEMA = "dpverify.diff/1"
#: Statuses of a spec whose sampler may have changed and whose versions were not compared
#: (``check --base``): its module is outside the repository, new at the base, a black box's, or
#: unreadable.  Each makes the run inconclusive unless ``--allow-uncompared`` accepts it.
UNCOMPARED = frozenset({"outside", "new", "not comparable", "unreadable"})
#: Parameter sets the search draws when not told otherwise (each enumerates both versions).
DEFAULT_SEARCH_EXAMPLES = 20


# --- one parameter set ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffOptions:
    """``max_tv``: the TV bound a bounded comparison must reach to prove; ``search_examples``:
    parameter sets the search draws (0: no search); ``seed``: the search's seed; ``time_limit``:
    seconds per parameter set (None: unbounded); ``min_mass``: overrides the bounded
    enumerations' mass budget (None: each spec's own)."""

    max_tv: Fraction = DEFAULT_MAX_TV
    search_examples: int = DEFAULT_SEARCH_EXAMPLES
    seed: int = 0
    time_limit: float | None = DEFAULT_TIME_LIMIT
    min_mass: Fraction | None = None


@dataclass(frozen=True)
class ParameterDiff:
    """Both versions at one parameter set (and input): the output comparison, and the timing one."""

    label: str
    source: str
    parameters: Mapping[str, Any]
    input: Hashable | None
    output: CheckResult
    timing: CheckResult | None

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "source": self.source,
            "parameters": {k: str(v) for k, v in self.parameters.items()},
            "input": json_value(self.input),
            "output": self.output.to_json(),
            "timing": None if self.timing is None else self.timing.to_json(),
        }

    @property
    def timing_changed(self) -> bool:
        return (
            self.output.verdict is Verdict.PROVED
            and self.timing is not None
            and self.timing.verdict is Verdict.VIOLATED
        )


class _Version:
    """One version bound to a validated parameter set."""

    def __init__(self, frame: Spec, side: Side, p: Mapping[str, Any], where: str, min_mass: Fraction | None) -> None:
        enumeration = side.enumeration if side.enumeration is not None else frame.enumeration_for()
        if isinstance(enumeration, Attempt) and side.spec is None and side.enumeration is None:
            enumeration = Bounded(min_mass=enumeration.min_mass, max_paths=enumeration.max_paths)
        if enumeration is None:
            enumeration = Bounded(min_mass=BARE_MIN_MASS)
        if min_mass is not None and isinstance(enumeration, (Bounded, Attempt)):
            enumeration = replace(enumeration, min_mass=min_mass)
        try:
            spec = replace(frame, sampler=side.sampler, enumeration=enumeration, batch=None, refuses=(), accepts=())
        except SpecError as error:
            raise InvalidArgument(f"{side.label} cannot stand in for spec {frame.name!r}'s sampler: {error}") from None
        self.side, self.enumeration = side, enumeration
        self.instance = _Instance(spec, dict(p), where, seed=0, samples=1)

    def law(self, q: Hashable | None) -> Enumeration:
        """The code's output law at input ``q`` (exact, or exact intervals)."""
        enumeration, run = self.enumeration, self.instance.run
        if isinstance(enumeration, (Exhaustive, Bisection)):
            max_paths = enumeration.max_paths if isinstance(enumeration, Exhaustive) else 1_000_000
            return code_distribution(self.instance.mechanism(), 0 if q is None else q, max_paths=max_paths)
        if isinstance(enumeration, Attempt):
            attempt = enumeration.attempt
            found = enumerate_outputs(
                lambda rng: run(q, rng, attempt),
                min_mass=enumeration.min_mass,
                max_paths=enumeration.max_paths,
                summarise=True,
            )
            if not any(z is not None for z in found.masses) and found.exhausted:
                raise LoopNeverAccepts(attempt, ())
            return renewal(found)
        unmarked = enumeration.renewal  # code nobody marked: renewal and procedure summaries
        return enumerate_outputs(
            lambda rng: run(q, rng),
            min_mass=enumeration.min_mass,
            max_paths=enumeration.max_paths,
            summarise=True,
            renewal=unmarked,
            procedures=unmarked and enumeration.procedures,
        )

    def short_paths(self, q: Hashable | None, depth: int) -> Enumeration | None:
        """Every path of at most ``depth`` draws, walked as the code runs, with no mass budget:
        its ``joint[(o, d)]`` is then *exactly* ``P(output = o, draws = d)`` for every ``d <= depth``
        (a longer path is cut when it asks for draw ``depth + 1``).  None past the path budget."""
        found = enumerate_outputs(
            lambda rng: self.instance.run(q, rng), max_depth=depth, min_mass=0, max_paths=SHORT_PATHS, summarise=False
        )
        return None if found.stopped == "max_paths" else found

    def draws(self, q: Hashable | None, law: Enumeration) -> Enumeration:
        """The joint law of (output, draws): the law itself when it was walked as the code runs."""
        if isinstance(self.enumeration, (Exhaustive, Bisection)):
            return law
        min_mass = max(self.enumeration.min_mass, TIMING_MIN_MASS)
        return enumerate_outputs(
            lambda rng: self.instance.run(q, rng),
            min_mass=min_mass,
            max_paths=self.enumeration.max_paths,
            summarise=False,
        )


#: Depths at which every short path is walked to compare exact draw counts (deeper while the
#: walk stays within :data:`SHORT_PATHS` executions).
SHORT_DEPTHS = (4, 8, 12, 16, 20, 24)
SHORT_PATHS = 20_000


def _short_paths_difference(versions: Sequence[_Version], q: Hashable | None, max_tv: Fraction) -> CheckResult | None:
    """The first ``(output, draws)`` whose exact probability differs between the versions, from
    every path of at most ``depth`` draws (:meth:`_Version.short_paths`); else, when they agree
    on every such pair at the deepest depth walked, the proved bound that follows: the two joint
    laws differ only on paths of more draws, whose mass ``tail`` is then the same in both, so
    ``TV <= tail`` (an inconclusive result stating it when ``tail > max_tv``); None if no depth
    could be walked."""
    agreed: tuple[int, Fraction] | None = None
    for depth in SHORT_DEPTHS:
        walks = [version.short_paths(q, depth) for version in versions]
        if walks[0] is None or walks[1] is None:
            break
        old, new = walks[0].joint, walks[1].joint
        for key in _union(old, new):
            a, b = old.get(key, Fraction(0)), new.get(key, Fraction(0))
            if a != b:
                output, draws = key
                return CheckResult(
                    "timing_channel",
                    Verdict.VIOLATED,
                    f"the number of draws changed: P(output={shown_value(output, 40)}, draws={draws}): old "
                    f"{fraction_text(a)} (~{decimal_text(a, 6)}) vs new {fraction_text(b)} "
                    f"(~{decimal_text(b, 6)}), exact (every path of at most {depth} draws walked)",
                    evidence={
                        "at": {"output": json_value(output), "draws": draws},
                        "old": fraction_text(a),
                        "new": fraction_text(b),
                        "exact": True,
                        "depth": depth,
                    },
                )
        agreed = (depth, walks[0].unexplored)
    if agreed is None:
        return None
    depth, tail = agreed
    summary = (
        f"equal exact P(output, draws) on every path of at most {depth} draws; the rest weighs "
        f"{decimal_text(tail, 6)}, so TV <= {decimal_text(tail, 6)}"
    )
    evidence = {
        "exact": False,
        "depth": depth,
        "tv_bound": fraction_text(tail),
        "tv_bound_decimal": decimal_text(tail, 8),
    }
    if tail <= max_tv:
        return CheckResult("timing_channel", Verdict.PROVED, summary, evidence=evidence)
    reason = f"the paths of more than {depth} draws weigh more than max_tv={fraction_text(max_tv)}"
    return CheckResult("timing_channel", Verdict.INCONCLUSIVE, f"{summary}; {reason}", reason=reason, evidence=evidence)


def _crash_result(check: str, side: str, error: BaseException) -> CheckResult:
    return CheckResult(
        check,
        Verdict.VIOLATED,
        f"the {side} code fails: {type(error).__name__}: {elided(str(error), 200)}",
        evidence={"side": side, "error": type(error).__name__, "message": elided(str(error), 300)},
    )


_ENGINE_FAILURES = (SamplerCrashed, SamplerContractError, LoopNeverAccepts, InvalidArgument)


def _diff_at(
    frame: Spec, old: Side, new: Side, p: Mapping[str, Any], label: str, source: str, options: DiffOptions
) -> list[ParameterDiff]:
    """Both versions at the validated parameters ``p``: one ParameterDiff per input."""
    where = f"spec {frame.name!r}, {label}"
    versions = (_Version(frame, old, p, where, options.min_mass), _Version(frame, new, p, where, options.min_mass))
    inputs = versions[1].instance.inputs or (None,)
    results = []
    for q in inputs:
        laws: list[Enumeration] = []
        failures: list[tuple[str, BaseException]] = []
        for name, version in zip(("old", "new"), versions, strict=True):
            try:
                laws.append(version.law(q))
            except _ENGINE_FAILURES as error:
                failures.append((name, error))
        if len(failures) == 2:
            # Both versions fail here (say, both refuse the parameters): no difference shown.
            (_, old_error), (_, new_error) = failures
            same = (type(old_error), str(old_error)) == (type(new_error), str(new_error))
            reason = (
                f"both versions fail{' alike' if same else ''}: "
                f"{type(new_error).__name__}: {elided(str(new_error), 200)}"
            )
            verdict = Verdict.INCONCLUSIVE if same else Verdict.VIOLATED
            results.append(
                ParameterDiff(
                    label,
                    source,
                    p,
                    q,
                    CheckResult(
                        "output_distribution",
                        verdict,
                        reason,
                        reason=reason if same else None,
                        evidence={
                            "side": "new",
                            "error": type(new_error).__name__,
                            "message": elided(str(new_error), 300),
                        },
                    ),
                    None,
                )
            )
        elif failures:
            name, failure = failures[0]
            results.append(
                ParameterDiff(label, source, p, q, _crash_result("output_distribution", name, failure), None)
            )
        else:
            output, timing = _compare_versions(versions, laws, q, options)
            results.append(ParameterDiff(label, source, p, q, output, timing))
        if results[-1].output.verdict is Verdict.VIOLATED:
            break  # the first input where they differ is the counterexample
    return results


def _compare_versions(
    versions: Sequence[_Version], laws: Sequence[Enumeration], q: Hashable | None, options: DiffOptions
) -> tuple[CheckResult, CheckResult | None]:
    """The output and timing comparisons of two versions whose laws were found."""
    output = compare_outputs(laws[0], laws[1], max_tv=options.max_tv)
    if any(isinstance(v.enumeration, Bounded) and v.enumeration.renewal for v in versions):
        # Code nobody marked is walked with lazy draws and renewal: a lazy draw counts its questions,
        # not one draw, and renewal keeps no draw counts, so there is no timing law to compare.
        return output, None
    joint: list[Enumeration] = []
    for name, version, law in zip(("old", "new"), versions, laws, strict=True):
        try:
            joint.append(version.draws(q, law))
        except _ENGINE_FAILURES as error:
            if output.verdict is not Verdict.VIOLATED:
                # the code as it runs fails where its summarised law did not: a difference of its own
                output = _crash_result("output_distribution", name, error)
            return output, None
    if output.verdict is not Verdict.VIOLATED and any(j is not law for j, law in zip(joint, laws, strict=True)):
        # A summarised loop is enumerated by its attempt, never by the loop's own code: the walk
        # as the code runs is what sees a change to that loop.
        as_run = compare_outputs(joint[0], joint[1], max_tv=options.max_tv)
        if as_run.verdict is Verdict.VIOLATED:
            output = replace(as_run, summary=f"{as_run.summary} (walked as the code runs, no loop summarised)")
    timing = compare_draws(joint[0], joint[1], max_tv=options.max_tv)
    if timing.verdict is Verdict.INCONCLUSIVE:
        try:
            short = _short_paths_difference(versions, q, options.max_tv)
            if short is not None and (
                short.verdict is not Verdict.INCONCLUSIVE
                or Fraction(short.evidence["tv_bound"]) < Fraction(timing.evidence.get("tv_bound", "1"))
            ):
                timing = short  # a certain difference, a proof, or a tighter bound
        except _ENGINE_FAILURES as error:
            timing = replace(
                timing, summary=f"{timing.summary}; the short paths were not walked: {elided(str(error), 120)}"
            )
    return output, timing


def _bounded_diff(
    frame: Spec, old: Side, new: Side, p: Mapping[str, Any], label: str, source: str, options: DiffOptions
) -> list[ParameterDiff]:
    try:
        with _channel.labelled(f"the comparison of spec {frame.name!r} at {label}"), time_bound(options.time_limit):
            return _diff_at(frame, old, new, p, label, source, options)
    except CaseTimeUp:
        reason = f"time bound hit: comparing the two versions took more than {options.time_limit} s"
    except KeyboardInterrupt as error:
        if not _channel.supervised():
            raise  # in-process, the user's Ctrl-C; supervised, the sampler's
        reason = user_code_stopped(error)
    except (EnvironmentChanged, SystemExit, GeneratorExit) as error:
        reason = user_code_stopped(error)
    except UnknownInterpreter as error:  # renewal and summaries read bytecode: not run blind
        reason = str(error)
    return [
        ParameterDiff(
            label,
            source,
            p,
            None,
            CheckResult("output_distribution", Verdict.INCONCLUSIVE, reason, reason=reason),
            None,
        )
    ]


# --- a whole comparison ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpecDiff:
    """The comparison of two versions over every parameter set, and the search's outcome.

    ``verdict``: ``violated`` when some parameter set's output laws differ (the first such set
    is in ``first_difference``), else ``inconclusive`` when some set could not be decided, or
    when the spec's sampler may have changed and was not compared (``status`` one of
    :data:`UNCOMPARED`), else ``proved``.  ``changed`` lists the functions whose code changed
    (``check --base``).
    """

    name: str
    old: str
    new: str
    comparisons: tuple[ParameterDiff, ...] = ()
    search: dict[str, Any] | None = None
    changed: tuple[str, ...] | None = None
    status: str = "compared"
    reason: str | None = None

    @property
    def verdict(self) -> Verdict:
        verdicts = [c.output.verdict for c in self.comparisons]
        if self.search and self.search.get("verdict") == "violated":
            verdicts.append(Verdict.VIOLATED)
        if self.status in UNCOMPARED:
            verdicts.append(Verdict.INCONCLUSIVE)
        return _worst(verdicts)

    @property
    def uncompared(self) -> bool:
        """The sampler may have changed and its two versions were not compared."""
        return self.status in UNCOMPARED

    @property
    def tv_bound(self) -> Fraction | None:
        """The largest total-variation bound among the comparisons proved from intervals (a
        proof within a tolerance, not exact equality); None when every proof is exact."""
        bounds = [
            Fraction(c.output.evidence["tv_bound"])
            for c in self.comparisons
            if c.output.verdict is Verdict.PROVED and c.output.within is not None
        ]
        return max(bounds) if bounds else None

    @property
    def first_difference(self) -> ParameterDiff | None:
        return next((c for c in self.comparisons if c.output.verdict is Verdict.VIOLATED), None)

    @property
    def timing_changed(self) -> tuple[ParameterDiff, ...]:
        return tuple(c for c in self.comparisons if c.timing_changed)

    def to_json(self) -> dict[str, Any]:
        first = self.first_difference
        return {
            "name": self.name,
            "old": self.old,
            "new": self.new,
            "status": self.status,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "changed_functions": None if self.changed is None else list(self.changed),
            "first_difference": None if first is None else first.to_json(),
            "timing_changed": [c.label for c in self.timing_changed],
            "comparisons": [c.to_json() for c in self.comparisons],
            "search": self.search,
        }

    def lines(self) -> list[str]:
        """The human report: one verdict line, then one line per parameter set."""
        if self.status != "compared":
            word = f"INCONCLUSIVE ({self.status})" if self.uncompared else self.status.upper()
            out = [f"{word} {self.name}: {self.reason}"]
            if self.changed:
                out.append(f"  changed: {elided(', '.join(self.changed), 300)}")
            return out
        head = f"{self.verdict.value.upper()} {self.name}: {self.old} -> {self.new}"
        first = self.first_difference
        if first is not None:
            at = ", ".join(f"{k}={v}" for k, v in first.parameters.items()) or "(no parameters)"
            q = "" if first.input is None else f", input {shown_value(first.input, 60)}"
            head += f": differs at {at}{q} ({first.source}): {first.output.summary}"
        elif self.verdict is Verdict.PROVED:
            head += f": the same law at all {len(self.comparisons)} parameter set(s) compared"
            bound, bounded = self.tv_bound, sum(c.output.within is not None for c in self.comparisons)
            if bound is not None:
                head += (
                    f", within TV <= {tolerance_text(bound)} ({bounded} from exact intervals of a bounded "
                    f"enumeration, not exact equality; {len(self.comparisons) - bounded} exact)"
                )
            else:
                head += " (exact equality)"
        out = [head]
        if self.changed:
            out.append(f"  changed: {elided(', '.join(self.changed), 300)}")
        for c in self.comparisons:
            if c.output.verdict is Verdict.PROVED and not c.timing_changed:
                continue  # the head line says it
            q = "" if c.input is None else f" input={shown_value(c.input, 60)}"
            out.append(f"  {c.output.verdict.value:12} {c.label}{q} [{c.source}]: {c.output.summary}")
            if c.timing_changed:
                assert c.timing is not None  # timing_changed says so
                out.append(f"  {'':12} TIMING CHANNEL CHANGED (no output difference found): {c.timing.summary}")
        if self.search is not None:
            out.append(f"  search: {self.search['summary']}")
        return out


def _search(frame: Spec, old: Side, new: Side, options: DiffOptions) -> tuple[dict[str, Any], list[ParameterDiff]]:
    """A Hypothesis search of the declared domain for a parameter set where the laws differ."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    from dpverify.verify.gate._search import parameter_strategy

    checked, timeouts = 0, 0

    def differs(p: dict[str, Any]) -> bool:
        nonlocal checked, timeouts
        checked += 1
        found = _bounded_diff(frame, old, new, p, _label(p), "search", options)
        timeouts += any(c.output.reason and c.output.reason.startswith("time bound") for c in found)
        return any(c.output.verdict is Verdict.VIOLATED for c in found)

    config = settings(
        max_examples=options.search_examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    replay = f"--seed {options.seed} --search-examples {options.search_examples}"
    try:
        found = find(parameter_strategy(frame), differs, settings=config, random=random.Random(options.seed))
    except (NoSuchExample, Unsatisfiable) as error:
        none = isinstance(error, NoSuchExample)
        summary = (
            f"no parameter set among {checked} drawn (seed {options.seed}) where the laws differ"
            if none
            else "the declared domain gave no parameter set to draw"
        )
        if timeouts:
            summary += f"; {timeouts} hit the time bound"
        return {
            "verdict": "proved" if none else "inconclusive",
            "seed": options.seed,
            "examples": options.search_examples,
            "checked": checked,
            "timeouts": timeouts,
            "parameters": None,
            "replay": replay,
            "summary": summary,
        }, []
    diffs = _bounded_diff(frame, old, new, found, _label(found), "search", options)
    summary = (
        f"the laws differ at {_label(found)} (shrunk, seed {options.seed}, {checked} sets checked; "
        f"replay with {replay})"
    )
    return {
        "verdict": "violated",
        "seed": options.seed,
        "examples": options.search_examples,
        "checked": checked,
        "timeouts": timeouts,
        "parameters": {k: str(v) for k, v in found.items()},
        "replay": replay,
        "summary": summary,
    }, diffs


def _label(p: Mapping[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in p.items()) or "(no parameters)"


def diff_sides(
    old: Side,
    new: Side,
    parameter_sets: Sequence[Mapping[str, str]] = (),
    *,
    options: DiffOptions = DiffOptions(),
    cases: bool = True,
    name: str | None = None,
    changed: tuple[str, ...] | None = None,
) -> SpecDiff:
    """Compare ``old`` and ``new`` at the spec's cases (``cases``), at ``parameter_sets`` (each
    laid over the first case's parameters) and at the search's sets; see the module docstring.
    A version that cannot run on the engine's sources (:attr:`Side.unrunnable`) is not compared."""
    frame = new.spec or old.spec
    unrunnable = old.unrunnable or new.unrunnable
    if unrunnable is not None:
        return SpecDiff(
            name or (frame.name if frame is not None else "diff"),
            old.label,
            new.label,
            changed=changed,
            status="not comparable",
            reason=unrunnable,
        )
    search_allowed = frame is not None
    if frame is None:
        frame = _bare_frame(new.sampler, parameter_sets, f"{old.label} and {new.label}")
    work: list[tuple[dict[str, Any], str, str]] = []
    if cases and (new.spec is not None or old.spec is not None):
        for case in frame.cases:
            work.append((frame.bind(case, where=f"case {case.describe()!r}"), case.describe(), "case"))
    base = dict(frame.cases[0].parameters) if (new.spec is not None or old.spec is not None) else {}
    for given in parameter_sets:
        try:
            p = frame.bind({**base, **given}, where=f"--param {elided(_label(given), 60)}")
        except SpecError as error:
            raise InvalidArgument(elided(str(error), 280)) from None
        work.append((p, _label(p), "param"))
    comparisons: list[ParameterDiff] = []
    for p, label, source in work:
        comparisons += _bounded_diff(frame, old, new, p, label, source, options)
    search = None
    if search_allowed and options.search_examples > 0:
        search, found = _search(frame, old, new, options)
        comparisons += found
    return SpecDiff(name or frame.name, old.label, new.label, tuple(comparisons), search, changed)


# --- the document ---------------------------------------------------------------------------------------


def _worst(verdicts: Sequence[Verdict]) -> Verdict:
    """Violated if one is, else inconclusive if one is, else proved (also for none)."""
    for verdict in (Verdict.VIOLATED, Verdict.INCONCLUSIVE):
        if verdict in verdicts:
            return verdict
    return Verdict.PROVED


def proved_within(diffs: Sequence[SpecDiff]) -> Fraction | None:
    """The largest total-variation bound of a proof within a tolerance among ``diffs`` (None when
    every comparison proved exact equality), for the run's verdict line."""
    bounds = [d.tv_bound for d in diffs if d.tv_bound is not None]
    return max(bounds) if bounds else None


def overall(diffs: Sequence[SpecDiff], *, allow_uncompared: bool = False) -> Verdict:
    """The verdict of a whole run: the worst of its specs'; with ``allow_uncompared``, the specs
    that were not compared are left out (the caller prints that it accepted them)."""
    return _worst([d.verdict for d in diffs if not (allow_uncompared and d.uncompared)])


def diff_document(
    diffs: Sequence[SpecDiff], *, base: Any = None, options: DiffOptions = DiffOptions(), allow_uncompared: bool = False
) -> dict[str, Any]:
    """The ``dpverify.diff/1`` JSON document (schemas/diff-1.schema.json)."""
    return {
        "schema": DIFF_SCHEMA,
        "verdict": overall(diffs, allow_uncompared=allow_uncompared).value,
        "base": None if base is None else {"revision": base.revision, "commit": base.commit},
        "max_tv": fraction_text(options.max_tv),
        "seed": options.seed,
        "allow_uncompared": allow_uncompared,
        "uncompared": [d.name for d in diffs if d.uncompared],
        "specs": [d.to_json() for d in diffs],
    }
