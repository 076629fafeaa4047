"""Interval proofs: a rejection sampler's code against an irrational ideal PMF.

The code side.  :func:`dpverify.verify.engine._enumerate.enumerate_outputs` walks the sampler's tree of
choice sequences within a budget and returns, for every output ``o``, the exact mass ``E(o)``
of the explored paths that return ``o`` and the exact mass ``U`` of everything left
unexplored.  The paths partition the probability space, so the code's true probability obeys

    E(o) <= P_code(o) <= E(o) + U                                   (the code's interval)

with ``E(o)`` and ``U`` exact rationals.  ``bernoulli(num, den)`` branches two ways, so the
coins of Canonne, Kamath, Steinke 2020, Algorithms 1-3 (Bernoulli(exp(-gamma)), discrete
Laplace, discrete Gaussian) cost two branches each, whatever their denominators.

The ideal side.  ``ideal(o, dps)`` returns a rigorous enclosure ``lo <= P_ideal(o) <= hi``
computed with mpmath at ``dps`` digits.  Its endpoints are binary floating-point numbers, so
each is converted to the exact rational it denotes and every comparison below is exact:
rounding cannot fake a pass or a failure.

The verdict, over a stated sequence of outputs:

- ``proved`` iff for every output ``E(o) <= lo`` and ``hi <= E(o) + U``: the whole enclosure
  lies inside the code's interval.  It is a proof *within U* (``CheckResult.within = U``, read
  ``proved within U = ...``), not a proof of equality; what it establishes is stated below.
  ``max_unexplored`` turns a proof with ``U`` above a tolerance into ``inconclusive``.  Only
  ``U = 0`` (every path explored) with no excess (below) proves the two laws equal, and then
  ``within`` is None.
- ``violated`` iff for some output ``hi < E(o)`` (the code already puts more mass on ``o``
  than the ideal) or ``lo > E(o) + U`` (the ideal puts more mass on ``o`` than the code can).
  The evidence names the output, both sides and the gap, the distance between them.
- ``inconclusive`` otherwise: an enclosure straddles a boundary of the code's interval
  (raise ``dps`` or lower ``min_mass``), the unexplored mass exceeds ``max_unexplored``
  (lower ``min_mass``), no execution returned at all (``U = 1``: a sampler that may never
  terminate, whose intervals ``[0, 1]`` would make "proved" vacuous), or the sampler broke the
  enumeration contract.

A violation at the lower end does not depend on ``U``: once the explored mass of an output
exceeds its ideal probability, no unexplored path can repair it.  This is why a small bias
is caught with a budget whose ``U`` is larger than the bias itself.

What a proof within ``U`` establishes (premises: ``ideal`` encloses a PMF that sums to 1, and
the enumeration is sound, which the engine's own tests check):

(a) at every checked output, ``|P_code(o) - P_ideal(o)| <= U``: both lie in ``[E(o), E(o) + U]``;

(b) over all outputs, checked or not, the total variation distance obeys

        TV = 1/2 sum_o |P_code(o) - P_ideal(o)|  <=  U + X,
        X  = sum over the outputs o the code returned of max(0, E(o) - lo(o)),

    with ``lo(o)`` the exact lower end of the ideal's enclosure at ``o`` (0 where the ideal
    cannot evaluate ``o``).  Proof: let ``M = 1 - sum_o E(o)``, the mass the explored paths do
    not cover; the explored paths and the unexplored mass partition the probability space, so
    ``M = U`` (the code computes ``M`` itself, so the bound needs only ``E(o) <= P_code(o)``).  Let
    ``x_o = P_code(o) - E(o)``: ``x_o >= 0`` and ``sum_o x_o <= M`` (equal when the code
    terminates with probability 1).  Let ``D_o = P_ideal(o) - E(o)``, with ``E(o) = 0`` at outputs
    the code never returned; as the ideal sums to 1, ``sum_o D_o = M``.  On
    ``N = {o : D_o < 0}`` (explored outputs only, since ``D_o = P_ideal(o) >= 0`` elsewhere)
    ``|x_o - D_o| = x_o - D_o``; off ``N``, ``|x_o - D_o| <= x_o + D_o``.  Summing,
    ``sum_o |x_o - D_o| <= sum_o x_o + sum_o D_o + 2 sum_N (-D_o) <= 2M + 2 sum_N (E(o) - P_ideal(o))
    <= 2M + 2X``, as ``P_ideal(o) >= lo(o)``.  Halve.  A proof has ``E(o) <= lo(o)`` at every
    checked output, so ``X`` collects only outputs the code returned outside the checked list
    whose explored mass already exceeds the ideal's lower end; it is usually 0, and then
    ``TV <= U``.  ``X`` is computed exactly over every output the enumeration returned, listed or
    not.

(c) what it gives a privacy claim: if the ideal mechanism is ``(eps, delta)``-DP and at each input
    the code's law is within total variation ``t`` of the ideal's, then for every event ``A``
    ``P_code(A|q) <= P_ideal(A|q) + t <= e^eps P_ideal(A|q') + delta + t
    <= e^eps P_code(A|q') + delta + (1 + e^eps) t``: the code is
    ``(eps, delta + (1 + e^eps) t)``-DP, not ``(eps, delta)``-DP.  A claim proved of the ideal
    PMF holds for the code only up to that ``delta``.

The evidence of every judged enumeration carries ``tv_bound`` (``U + X``, at most 1, exact and
rounded up) and ``excess`` (``X``).  Where a spec declares a tolerance looser than the default,
its ``tolerance_reason`` is carried in the summary and the evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import mpmath
from mpmath.libmp import to_rational

from dpverify.samplers import InvalidArgument, SamplerContractError, as_fraction
from dpverify.verify.engine._arguments import need_callable, need_count, need_dps, need_outputs, shown
from dpverify.verify.engine._bytecode import UnknownInterpreter
from dpverify.verify.engine._enumerate import LoopNeverAccepts, enumerate_outputs
from dpverify.verify.engine._enumeration import Enumeration, Sampler, SamplerCrashed, need_enumeration
from dpverify.verify.engine._program_state import suspended_driver
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value, tolerance_text

#: ``ideal(output, dps) -> (lo, hi)``: a rigorous enclosure of the ideal probability.
IdealPMF = Callable[[Hashable, int], tuple[Any, Any]]

#: The evidence lists at most this many outputs' intervals, the tightest first.
MAX_ROWS_SHOWN = 64

#: Default mass budget: branches lighter than this are left unexplored (see _enumerate).
DEFAULT_MIN_MASS = Fraction(1, 10**6)

suspended_driver(__file__)  # its frames hold one call for a whole execution


def enclosure_bound(value: object, *, upper: bool) -> Fraction:
    """The exact rational an enclosure endpoint denotes.

    Accepts an mpmath ``mpf`` (exact: an mpf is ``man * 2**exp``), an mpmath interval
    (its lower or upper end, as ``upper`` asks), a Fraction or an int.  Floats are refused:
    the house rules keep them out of exact comparisons.
    """
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return Fraction(value)
    raw = getattr(value, "_mpf_", None)
    if raw is None and hasattr(value, "_mpi_"):
        raw = value._mpi_[1 if upper else 0]
    if raw is None or not mpmath.isfinite(mpmath.mp.make_mpf(raw)):
        raise InvalidArgument(
            f"ideal(output, dps) must return finite (lo, hi) as mpmath numbers or Fractions; "
            f"got {shown(value)} ({type(value).__name__})."
        )
    numerator, denominator = to_rational(raw)
    return Fraction(int(numerator), int(denominator))


def decimal_text(value: Fraction, digits: int = 20) -> str:
    """``value`` in decimal with ``digits`` significant digits, for reports only."""
    with mpmath.workdps(digits + 10):
        text: str = mpmath.nstr(mpmath.mpf(value.numerator) / value.denominator, digits)  # mpmath is untyped
    return text


@dataclass(frozen=True, slots=True)
class OutputInterval:
    """One output: the code's exact interval ``[explored, explored + unexplored]`` and the
    exact rational ends ``[lo, hi]`` of the ideal enclosure."""

    output: Hashable
    explored: Fraction
    unexplored: Fraction
    lo: Fraction
    hi: Fraction

    @property
    def upper(self) -> Fraction:
        return self.explored + self.unexplored

    @property
    def inside(self) -> bool:
        return self.explored <= self.lo and self.hi <= self.upper

    @property
    def gap(self) -> Fraction:
        """How far the enclosure lies outside the interval (> 0 only for a violation)."""
        return max(self.explored - self.hi, self.lo - self.upper, Fraction(0))

    @property
    def excess(self) -> Fraction:
        """How far the explored mass exceeds the ideal's lower end (its share of the TV bound's ``X``)."""
        return max(self.explored - self.lo, Fraction(0))

    @property
    def margin(self) -> Fraction:
        """How far the enclosure lies inside the interval (>= 0 iff ``inside``)."""
        return min(self.lo - self.explored, self.upper - self.hi)

    @property
    def side(self) -> str:
        if self.hi < self.explored:
            return "ideal below the code's lower bound (the code has more mass than the ideal)"
        if self.lo > self.upper:
            return "ideal above the code's upper bound (the code has less mass than the ideal)"
        return "inside" if self.inside else "straddles a boundary"

    def to_json(self) -> dict[str, Any]:
        return {
            "output": json_value(self.output),
            "explored": fraction_text(self.explored),
            "explored_decimal": decimal_text(self.explored),
            "upper": fraction_text(self.upper),
            "upper_decimal": decimal_text(self.upper),
            "ideal_lo_decimal": decimal_text(self.lo),
            "ideal_hi_decimal": decimal_text(self.hi),
        }


def output_intervals(
    found: Enumeration, ideal: IdealPMF, outputs: Sequence[Hashable], *, dps: int = 50
) -> list[OutputInterval]:
    """Pair every output's exact code interval with the ideal's exact-rational enclosure."""
    rows = []
    for output in outputs:
        enclosure = ideal(output, dps)
        if not isinstance(enclosure, tuple) or len(enclosure) != 2:
            raise InvalidArgument(
                f"ideal({shown(output)}, {dps}) must return a pair (lo, hi); got {shown(enclosure)} "
                f"({type(enclosure).__name__})."
            )
        lo_value, hi_value = enclosure
        lo = enclosure_bound(lo_value, upper=False)
        hi = enclosure_bound(hi_value, upper=True)
        if lo > hi:
            raise InvalidArgument(
                f"ideal({shown(output)}, {dps}) returned lo > hi: {shown(lo_value)} > {shown(hi_value)}."
            )
        rows.append(OutputInterval(output, found.masses.get(output, Fraction(0)), found.unexplored, lo, hi))
    return rows


def _unlisted_rows(found: Enumeration, ideal: IdealPMF, outputs: Sequence[Hashable], dps: int) -> list[OutputInterval]:
    """Rows for every output the code returned (with explored mass) that is not among ``outputs``,
    each with its exact enclosure: those whose explored mass exceeds the ideal's are evidence of
    a violation however ``outputs`` was chosen, and every one counts towards the TV bound's
    excess ``X`` (module docstring).  An output the ideal cannot even evaluate (a value of the
    wrong type) has ideal mass 0."""
    listed = set(outputs)
    rows = []
    for output, mass in found.masses.items():
        if output in listed or mass == 0:
            continue
        try:
            rows.append(output_intervals(found, ideal, (output,), dps=dps)[0])
        except Exception:  # noqa: BLE001 - garbage the ideal cannot evaluate is outside its support
            rows.append(OutputInterval(output, mass, found.unexplored, Fraction(0), Fraction(0)))
    return rows


def _need_interval_arguments(
    ideal: object, outputs: object, dps: object, max_unexplored: object, tolerance_reason: object = None
) -> None:
    need_callable("ideal", ideal, "a callable ideal(output, dps) returning an enclosure (lo, hi)")
    need_outputs("outputs", outputs, nonempty=True)
    need_dps(dps)
    if max_unexplored is not None:
        as_fraction("max_unexplored", max_unexplored)
    if tolerance_reason is not None and not (isinstance(tolerance_reason, str) and tolerance_reason.strip()):
        raise InvalidArgument(
            f"tolerance_reason must be None or a non-empty string; got "
            f"tolerance_reason={shown(tolerance_reason)} ({type(tolerance_reason).__name__})."
        )


def tv_bound(found: Enumeration, rows: Sequence[OutputInterval]) -> tuple[Fraction, Fraction]:
    """``(M + X, X)`` capped at 1, ``M = 1 - sum_o E(o)`` (which is ``U``): the bound on the total
    variation distance between the code's law and the ideal PMF, and its excess ``X`` over the
    outputs of ``rows`` (each counted once; ``rows`` must hold every output the code returned), as
    the module docstring proves."""
    uncovered = 1 - sum(found.masses.values(), Fraction(0))
    by_output = {row.output: row for row in rows}
    excess = sum((row.excess for row in by_output.values()), Fraction(0))
    return min(uncovered + excess, Fraction(1)), excess


def judge_intervals(
    found: Enumeration,
    ideal: IdealPMF,
    outputs: Sequence[Hashable],
    *,
    dps: int = 50,
    max_unexplored: Fraction | None = None,
    budgets: dict[str, Any] | None = None,
    tolerance_reason: str | None = None,
) -> CheckResult:
    """The interval verdict (module docstring) for an enumeration already made.

    ``max_unexplored`` (None: any ``U``) is the loosest proof accepted; ``tolerance_reason``, the
    spec's reason for a tolerance looser than its default, goes into the summary and evidence.
    """
    need_enumeration("found", found)
    _need_interval_arguments(ideal, outputs, dps, max_unexplored, tolerance_reason)
    if budgets is not None and not isinstance(budgets, dict):
        raise InvalidArgument(
            f"budgets must be None or a dict; got budgets={shown(budgets)} ({type(budgets).__name__})."
        )
    listed = output_intervals(found, ideal, outputs, dps=dps)
    unlisted = _unlisted_rows(found, ideal, outputs, dps)
    rows = listed + [row for row in unlisted if row.gap > 0]
    U = found.unexplored
    tv, excess = tv_bound(found, listed + unlisted)
    tolerance = None if max_unexplored is None else as_fraction("max_unexplored", max_unexplored)
    evidence: dict[str, Any] = {
        "outputs": [json_value(o) for o in outputs],
        "paths": found.paths,
        "cut_subtrees": found.cut,
        "stopped": found.stopped,
        "unexplored": fraction_text(U),
        "unexplored_decimal": decimal_text(U),
        "tv_bound": fraction_text(tv),
        "tv_bound_decimal": tolerance_text(tv),
        "excess": fraction_text(excess),
        "excess_decimal": tolerance_text(excess),
        "max_unexplored": None if tolerance is None else fraction_text(tolerance),
        **({} if tolerance_reason is None else {"tolerance_reason": tolerance_reason}),
        "dps": dps,
        **(budgets or {}),
        "intervals": [row.to_json() for row in sorted(rows, key=lambda row: row.margin)[:MAX_ROWS_SHOWN]],
        "intervals_listed": len(rows),
    }
    violations = [row for row in rows if row.gap > 0]
    if violations:
        worst = max(violations, key=lambda row: row.gap)
        return CheckResult(
            "intervals",
            Verdict.VIOLATED,
            f"output {worst.output!r}: {worst.side}; gap {decimal_text(worst.gap, 6)} "
            f"(code in [{decimal_text(worst.explored, 12)}, {decimal_text(worst.upper, 12)}], "
            f"ideal in [{decimal_text(worst.lo, 12)}, {decimal_text(worst.hi, 12)}])",
            evidence={
                **evidence,
                "output": json_value(worst.output),
                "explored": fraction_text(worst.explored),
                "explored_decimal": decimal_text(worst.explored),
                "upper_decimal": decimal_text(worst.upper),
                "ideal_lo_decimal": decimal_text(worst.lo),
                "ideal_hi_decimal": decimal_text(worst.hi),
                "gap": fraction_text(worst.gap),
                "gap_decimal": decimal_text(worst.gap),
                "side": worst.side,
                "violating_outputs": [json_value(row.output) for row in violations],
            },
        )
    if U >= 1:  # [0, 1] around every output: "proved" would be vacuous
        reason = (
            f"no execution returned an output within the budget ({found.paths} paths, stopped: "
            f"{found.stopped}): the sampler may never terminate; lower min_mass or raise max_paths"
        )
        return CheckResult("intervals", Verdict.INCONCLUSIVE, reason, reason=reason, evidence=evidence)
    straddling = [row for row in rows if not row.inside]
    if straddling:
        row = straddling[0]
        reason = (
            f"the ideal enclosure at output {row.output!r} (width {decimal_text(row.hi - row.lo, 3)}) "
            f"straddles a boundary of the code's interval [{decimal_text(row.explored, 12)}, "
            f"{decimal_text(row.upper, 12)}]: raise dps (now {dps}) or lower min_mass"
        )
        return CheckResult("intervals", Verdict.INCONCLUSIVE, reason, reason=reason, evidence=evidence)
    tightest = min(rows, key=lambda row: row.margin)
    evidence |= {
        "tightest_output": json_value(tightest.output),
        "tightest_margin_decimal": decimal_text(tightest.margin),
    }
    if tolerance is not None and U > tolerance:
        reason = (
            f"budget too small: unexplored mass {decimal_text(U, 6)} exceeds "
            f"max_unexplored={fraction_text(tolerance)}; lower min_mass or raise max_paths"
        )
        return CheckResult("intervals", Verdict.INCONCLUSIVE, reason, reason=reason, evidence=evidence)
    return CheckResult(
        "intervals",
        Verdict.PROVED,
        _proof_summary(found, len(rows), U, tv, excess, tolerance, tolerance_reason),
        evidence=evidence,
        within=None if U == 0 and tv == 0 else U,
    )


def _proof_summary(
    found: Enumeration,
    outputs: int,
    U: Fraction,
    tv: Fraction,
    excess: Fraction,
    tolerance: Fraction | None,
    tolerance_reason: str | None,
) -> str:
    """What a proof establishes, in words (module docstring, (a) and (b))."""
    if U == 0 and tv == 0:
        return (
            f"the code's law equals the ideal PMF: every path was explored (U = 0) and the ideal's enclosure "
            f"is the code's exact mass at all {outputs} outputs ({found.paths} paths)"
        )
    beyond = (
        ""
        if excess == 0
        else (
            f" (U plus {tolerance_text(excess)}, the explored mass above the ideal's lower ends at outputs outside "
            "the checked list)"
        )
    )
    declared = (
        ""
        if tolerance_reason is None
        else (
            f"; tolerance {'any U' if tolerance is None else f'max_unexplored={fraction_text(tolerance)}'}: "
            f"{tolerance_reason}"
        )
    )
    return (
        f"the ideal's enclosure lies inside [E(o), E(o) + U] at each of the {outputs} checked outputs, so "
        f"|P_code - P_ideal| <= U = {tolerance_text(U)} there; total variation <= {tolerance_text(tv)} over all "
        f"outputs{beyond} ({found.paths} paths){declared}"
    )


def renewal(attempt: Enumeration) -> Enumeration:
    """The output law of "repeat independent attempts until one does not return None".

    If one attempt returns ``z`` with probability ``A(z)`` and rejects (returns None)
    otherwise, the loop returns ``z`` with probability ``A(z) / S``, ``S = sum_z A(z) > 0``.
    From an enumeration of one attempt with exact explored masses ``a_z`` (``S_a`` their sum
    over non-None outputs) and unexplored mass ``u``, every ``A(z)`` is ``a_z`` plus a share
    ``x_z`` of ``u`` and ``S = S_a + (shares reaching any output) <= S_a + u``, so

        a_z / (S_a + u)  <=  P(z)  <=  (a_z + u) / (S_a + u),

    the upper end because ``(a_z + x)/(S_a + x)`` grows with ``x``.  The result is an
    Enumeration whose intervals ``[masses[z], masses[z] + unexplored]`` are exactly these.
    Rejections are no longer enumerated again and again, which is what makes a rejection
    sampler's intervals tight (Canonne, Kamath, Steinke 2020, Algorithms 2 and 3 are such
    loops).  Sound only if the sampler really is that loop over independent attempts; each
    sampler exposes its attempt beside the loop so the two can be read together.
    """
    need_enumeration("attempt", attempt)
    accepted = {z: m for z, m in attempt.masses.items() if z is not None}
    total = sum(accepted.values(), Fraction(0)) + attempt.unexplored
    if total == 0:
        raise InvalidArgument("every explored attempt rejected; lower min_mass so some attempt accepts.")
    return replace(
        attempt,
        masses={z: m / total for z, m in accepted.items()},
        unexplored=attempt.unexplored / total,
        joint={},
        method=f"renewal over one attempt ({attempt.method})",
    )


def check_intervals(
    sampler: Sampler,
    ideal: IdealPMF,
    outputs: Sequence[Hashable],
    *,
    min_mass: Fraction | int | str = DEFAULT_MIN_MASS,
    max_paths: int = 1_000_000,
    max_depth: int = 10_000,
    dps: int = 50,
    max_unexplored: Fraction | None = None,
    attempt: bool = False,
    summarise: bool = True,
    renew_states: bool = False,
    tolerance_reason: str | None = None,
    procedures: bool = False,
) -> CheckResult:
    """Enumerate ``sampler`` within the budgets and judge it against ``ideal`` on ``outputs``.

    ``sampler(rng)`` runs the real code on a RandomSource; ``ideal(output, dps)`` returns a
    rigorous enclosure of the ideal probability.  See the module docstring for the verdict.
    With ``attempt=True``, ``sampler`` is one attempt of a rejection loop (None = reject)
    and the loop's intervals come from :func:`renewal`.  ``summarise`` summarises the loops and
    subroutines the samplers mark (``dpverify.verify.engine._enumerate``, "Summaries"); without it the
    code is walked exactly as it runs, restart by restart.  ``renew_states`` renews unmarked loops where
    the execution comes back to an earlier program state (``dpverify.verify.engine._enumerate``, "Renewal");
    ``procedures`` summarises the calls of functions that draw (``dpverify.verify.engine._summaries``),
    and the evidence says, per function, what was done with its calls.
    ``max_unexplored`` (None: any ``U``) and ``tolerance_reason`` are as for :func:`judge_intervals`;
    a proof states its ``U`` whatever the tolerance.
    """
    need_callable("sampler", sampler, "a callable taking a RandomSource, e.g. lambda rng: sample(rng)")
    _need_interval_arguments(ideal, outputs, dps, max_unexplored, tolerance_reason)
    if not isinstance(attempt, bool):
        raise InvalidArgument(
            f"attempt must be True or False; got attempt={shown(attempt)} ({type(attempt).__name__})."
        )
    budgets = {
        "min_mass": fraction_text(as_fraction("min_mass", min_mass)),
        "max_paths": need_count("max_paths", max_paths, low=1),
        "max_depth": need_count("max_depth", max_depth, low=1),
        "method": ("renewal over one attempt" if attempt else "whole sampler")
        + (", marked loops and subroutines summarised" if summarise else ", as it runs")
        + (", repeated program states renewed" if renew_states else "")
        + (", calls of functions that draw summarised" if procedures else ""),
    }
    try:
        found = enumerate_outputs(
            sampler,
            min_mass=min_mass,
            max_paths=max_paths,
            max_depth=max_depth,
            summarise=summarise,
            renewal=renew_states,
            procedures=procedures,
        )
        if found.procedures:
            budgets["procedures"] = found.procedures
        if attempt:
            if not any(z is not None for z in found.masses) and found.exhausted:
                return CheckResult(
                    "intervals",
                    Verdict.VIOLATED,
                    "the loop never ends: every attempt rejects (enumerated exhaustively)",
                    evidence=budgets,
                )
            found = renewal(found)
    except SamplerCrashed as crash:
        return CheckResult(
            "intervals",
            Verdict.VIOLATED,
            str(crash),
            evidence={"draws": crash.draws, "error": repr(crash.error), **budgets},
        )
    except LoopNeverAccepts as error:
        return CheckResult("intervals", Verdict.VIOLATED, str(error), evidence=budgets)
    except SamplerContractError as error:
        return CheckResult("intervals", Verdict.INCONCLUSIVE, str(error), reason=str(error), evidence=budgets)
    except InvalidArgument as error:  # renewal: no explored attempt accepted
        return CheckResult("intervals", Verdict.INCONCLUSIVE, str(error), reason=str(error), evidence=budgets)
    except UnknownInterpreter as error:  # fail closed: an analysis that reads bytecode is not run blind
        return CheckResult("intervals", Verdict.INCONCLUSIVE, str(error), reason=str(error), evidence=budgets)
    return judge_intervals(
        found,
        ideal,
        outputs,
        dps=dps,
        max_unexplored=max_unexplored,
        budgets=budgets,
        tolerance_reason=tolerance_reason,
    )
