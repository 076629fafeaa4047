"""The checks the engine runs on a bound spec, chosen by what it declares: the soundness checks
(smoke, exactness, intervals, batch, refuses, accepts, statistical), the claim checks on an exact
table and the timing finding.  Its own module: what a check does, apart from how a case combines them."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable
from dataclasses import replace
from fractions import Fraction
from math import isqrt
from typing import Any, cast

from dpverify.samplers import DpverifyError, RandomSource, SamplerContractError, SeededRandomSource
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf, PureDpClaim
from dpverify.specs._api import Attempt, Bisection, Bounded, Case, Exhaustive, Randomness, SpecError
from dpverify.specs._claims import ApproxDp, Claim, PureDp, SamplesPmf, Zcdp
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._enumeration import SamplerCrashed
from dpverify.verify.engine._exactness import check_exactness, code_distribution
from dpverify.verify.engine._intervals import check_intervals, enclosure_bound
from dpverify.verify.engine._program_state import suspended_driver
from dpverify.verify.engine._results import CheckResult, Verdict
from dpverify.verify.engine._statistics import check_empirical, check_empirical_ideal
from dpverify.verify.gate._real_runs import RUN_SECONDS, NoOutput, once, watched
from dpverify.verify.gate._sampler_adapters import (
    _FirstDraw,
    _Mechanism,
    _SampledMechanism,
    _SampledNoise,
    _SamplerRaised,
)
from dpverify.verify.gate._spec_instance import USERS_DEFAULT, _BoundSpec, _declared, _names, _short
from dpverify.verify.gate._time_bound import CaseTimeUp, EnvironmentChanged
from dpverify.verify.privacy._claim_checks import check_approx_dp, check_pure_epsilon, check_zcdp
from dpverify.verify.privacy._ratio import check_pure_dp, tightest_alpha
from dpverify.verify.privacy._smt import check_ratio_bound_z3
from dpverify.verify.privacy._timing import check_timing

__all__ = ["TIMING_MIN_MASS"]

suspended_driver(__file__)  # its frames hold one call for a whole execution

#: The timing report enumerates the whole sampler, retries included; this budget keeps it quick.
TIMING_MIN_MASS = Fraction(1, 10**5)
#: How many inputs the smoke run tries before the checks start.
SMOKE_INPUTS = 16
#: The code as it runs, with no loop summarised, is also walked to this budget (see ``intervals``).
AS_RUN_MIN_MASS = Fraction(1, 10**5)
#: Draws of a batch form enumerated jointly, within this many times the single form's tolerance.
BATCH_DRAWS = 2
#: The batch check lists the pairs of at most this many of the heaviest outputs.
BATCH_OUTPUTS = 16
#: The joint walk of the batch form may always take this many paths, whatever the single form's
#: walk took (:meth:`_Instance.batch`): at most a second or so, room for a batch form that draws
#: otherwise than its single form run ``BATCH_DRAWS`` times.
BATCH_PATHS_FLOOR = 1_000


class _Instance(_BoundSpec):
    """A bound spec with the checks the engine runs on it (:meth:`mechanism` is its engine view)."""

    def mechanism(self) -> _Mechanism:
        return _Mechanism(self)

    # --- the checks ----------------------------------------------------------------------------

    def smoke(self, seed: int, *, seconds: float = RUN_SECONDS) -> list[CheckResult]:
        """One run per input (up to :data:`SMOKE_INPUTS`) on the seeded source: a sampler that
        raises on valid parameters, or returns an unhashable value, is violated before any
        other check runs (if the spec's domain is what is wrong, the message says so).  Each
        run is given ``seconds``: one that gives no output by then is abandoned, and the result
        is ``inconclusive`` with ``evidence["no_output_within_s"]`` (a hang is no proof; the case
        decides what it means, :mod:`~dpverify.verify.gate._spec_run`).  Every run returning is
        ``proved``, a line of its own in the case's report like every other check.

        ``evidence["drew"]`` says whether the abandoned run had taken a random bit, and
        ``evidence["inputs_returned"]`` is the abandoned input's position (see
        :meth:`loops_before_drawing`)."""
        if self.spec.sampler is None:
            return []
        inputs = (self.inputs or (None,))[:SMOKE_INPUTS]
        rng = SeededRandomSource(seed)
        for done, q in enumerate(inputs):
            at = "" if q is None else f" at {self.input_name}={q!r}"
            before = (rng._counter, rng._pool_bits)  # every random bit the run takes changes these

            def run_once(q: Hashable | None = q) -> Any:
                return self.run(q, rng)

            try:
                output = once(run_once, seconds, done)
                hash(output)
            except NoOutput as hung:
                drew = (rng._counter, rng._pool_bits) != before
                summary = (
                    f"no output within {hung.within} of real draws{at} (seeded source, seed={seed}): "
                    f"the run was abandoned after {done} input(s) returned"
                    f"{'' if drew else ', before it had taken a single random bit'}"
                )
                return [
                    CheckResult(
                        "smoke",
                        Verdict.INCONCLUSIVE,
                        summary,
                        reason=summary,
                        evidence={
                            "input": None if q is None else str(q),
                            "seed": seed,
                            "no_output_within_s": seconds,
                            "inputs_returned": done,
                            "drew": drew,
                            "replay": self.replay,
                        },
                    )
                ]
            except SpecError:
                raise
            except Exception as error:  # noqa: BLE001 - the sampler is the code under test
                what = "refused" if isinstance(error, DpverifyError) else f"raised {type(error).__name__} on"
                summary = (
                    f"the sampler {what} valid parameters{at} (seeded source, seed={seed}): "
                    f"{_short(str(error))}; if the spec's domain is wrong, narrow it"
                )
                return [
                    CheckResult(
                        "smoke",
                        Verdict.VIOLATED,
                        summary,
                        evidence={
                            "input": None if q is None else str(q),
                            "seed": seed,
                            "error": type(error).__name__,
                            "message": _short(str(error)),
                            "replay": self.replay,
                        },
                    )
                ]
        what = "one run" if inputs == (None,) else f"one run at each of {len(inputs)} input(s)"
        return [
            CheckResult(
                "smoke",
                Verdict.PROVED,
                f"{what} returned an output (seeded source, seed={seed})",
                evidence={"inputs_run": len(inputs), "seed": seed, "replay": self.replay},
            )
        ]

    def loops_before_drawing(self, position: int, seconds: float) -> bool:
        """Whether the run at the smoke run's input ``position`` goes on for ``seconds`` without a
        draw on a source that ends it at its first draw (as an enumeration goes no further before
        its first branch): then the code loops on these parameters whatever its source."""
        q = (self.inputs or (None,))[:SMOKE_INPUTS][position]
        first = _FirstDraw()
        try:
            once(lambda: self.run(q, first), seconds)
        except NoOutput:
            return not first.drawn
        except (CaseTimeUp, EnvironmentChanged):
            raise  # the case's own bound, or a hook the code removed: the case reports them
        except BaseException:  # noqa: BLE001 - _FirstDraw.Seen, or whatever the code under test raised
            return False
        return False

    def exactness(self) -> list[CheckResult]:
        if self.spec.pmf is None or not self.enumerable or not isinstance(self.enumeration, (Exhaustive, Bisection)):
            return []
        max_paths = self.enumeration.max_paths if isinstance(self.enumeration, Exhaustive) else 1_000_000
        return [check_exactness(self.mechanism(), max_paths=max_paths)]

    def intervals(self) -> list[CheckResult]:
        """Exact intervals from a bounded enumeration, with marked loops summarised; for
        :class:`Bounded`, also the code walked as it runs (``intervals_as_run``, at
        :data:`AS_RUN_MIN_MASS`), so the loop code that summaries stand for is itself run.  Each
        proof is within its unexplored mass ``U`` and says so; ``intervals_as_run`` accepts any
        ``U`` (its walk cannot be sharp) and carries that reason."""
        enumeration = self.enumeration
        if not self.enumerable or not isinstance(enumeration, (Bounded, Attempt)):
            return []
        results = []
        for q in self.inputs or (None,):
            ideal, outputs = self._enclosure(q)
            sampler: Callable[[RandomSource], Any]
            if isinstance(enumeration, Attempt):
                attempt = enumeration.attempt

                def sampler(
                    rng: RandomSource, q: Hashable | None = q, attempt: Callable[..., Hashable | None] = attempt
                ) -> Any:
                    return self.run(q, rng, attempt)
            else:

                def sampler(rng: RandomSource, q: Hashable | None = q) -> Any:
                    return self.run(q, rng)

            results.append(
                check_intervals(
                    sampler,
                    ideal,
                    outputs,
                    min_mass=enumeration.min_mass,
                    max_paths=enumeration.max_paths,
                    max_unexplored=_max_unexplored(enumeration),
                    attempt=isinstance(enumeration, Attempt),
                    renew_states=isinstance(enumeration, Bounded) and enumeration.renewal,
                    procedures=isinstance(enumeration, Bounded) and enumeration.renewal and enumeration.procedures,
                    tolerance_reason=enumeration.tolerance_reason,
                )
            )
            if isinstance(enumeration, Bounded) and self.randomness is Randomness.SOURCE:
                # (code drawing through random's API marks no loops: the walk above was as it runs)
                as_run_mass = max(enumeration.min_mass, AS_RUN_MIN_MASS)
                why = (
                    f"a cross-check that the loop code the summaries stand for runs; walked as it runs to "
                    f"min_mass={as_run_mass}, it cannot be sharp, and the intervals check gives the bound"
                )
                as_run = check_intervals(
                    sampler,
                    ideal,
                    outputs,
                    min_mass=as_run_mass,
                    max_paths=enumeration.max_paths,
                    summarise=False,
                    tolerance_reason=why,
                )
                results.append(replace(as_run, check="intervals_as_run"))
        return results

    def refuses(self, seed: int) -> list[CheckResult]:
        """Each declared invalid parameter set must be refused with a clear error, one that names
        the parameter (``scale=...``), not a later draw's complaint; ``k = 0`` must give an empty
        batch."""
        if self.spec.sampler is None or self.randomness is not Randomness.SOURCE:
            return []
        problems, tried = [], []
        q = None if self.inputs is None else self.inputs[0]
        calls = [(dict(invalid), True) for invalid in self.spec.refuses]
        if self.spec.batch is not None:
            calls.append(({"k": 0}, False))
        for overrides, must_refuse in calls:
            function, kwargs, shown_call = self._edge_call(overrides, q)
            tried.append(shown_call)
            try:  # an invalid set is accepted once the sampler goes on to draw: stop it there
                output = function(**kwargs, rng=_FirstDraw() if must_refuse else SeededRandomSource(seed))
            except _FirstDraw.Seen:
                problems.append(f"{shown_call} was accepted (the sampler went on to draw)")
                continue
            except DpverifyError as error:
                if not must_refuse:
                    problems.append(f"{shown_call} was refused; it must give an empty batch")
                elif not any(re.search(rf"\b{re.escape(name)}=", str(error)) for name in overrides):
                    problems.append(
                        f"{shown_call} was refused, but the error does not name "
                        f"{' or '.join(overrides)}: {_short(str(error), 100)}"
                    )
                continue
            except Exception as error:  # noqa: BLE001 - the code under test
                problems.append(
                    f"{shown_call} raised {type(error).__name__} ({_short(str(error), 80)}) instead of a clear error"
                )
                continue
            if must_refuse:
                problems.append(f"{shown_call} was accepted (returned {shown(output, 40)})")
            elif output != []:
                problems.append(f"{shown_call} returned {shown(output, 40)}, not an empty batch")
        if not calls:
            return []
        if problems:
            return [
                CheckResult("refuses", Verdict.VIOLATED, "; ".join(problems), evidence={"tried": tried, "seed": seed})
            ]
        refused = [t for t, (_, must) in zip(tried, calls, strict=True) if must]
        empty = " and gives an empty batch at k=0" if self.spec.batch is not None else ""
        return [
            CheckResult(
                "refuses",
                Verdict.PROVED,
                f"refuses {len(refused)} invalid parameter set(s) with a clear error{empty}",
                evidence={"tried": tried},
            )
        ]

    def _edge_call(self, overrides: dict[str, Any], q: Any) -> tuple[Callable[..., Any], dict[str, Any], str]:
        """The entry point, its arguments and how to show them for one ``refuses``/``accepts``
        dict laid over the case's parameters."""
        function = self.spec.batch if "k" in overrides else self.spec.sampler
        # Spec validation refuses k without a batch form, and the callers return early without a sampler.
        assert function is not None
        names = _names(function)
        kwargs = {k: v for k, v in {**self.arguments, **overrides}.items() if names is None or k in names}
        if self.input_name is not None and self.input_name not in overrides:
            kwargs[self.input_name] = q
        return function, kwargs, ", ".join(f"{k}={shown(v, 30)}" for k, v in overrides.items())

    def accepts(self, *, seconds: float = RUN_SECONDS) -> list[CheckResult]:
        """Each declared valid parameter set at the domain's edge must get as far as its first draw
        (or return without one); a run stops at that draw, so the edge costs nothing to try.  A
        run that neither draws nor returns within ``seconds`` is abandoned: inconclusive."""
        if self.spec.sampler is None or self.randomness is not Randomness.SOURCE or not self.spec.accepts:
            return []
        problems, tried, late = [], [], []
        q = None if self.inputs is None else self.inputs[0]
        for overrides in self.spec.accepts:
            function, kwargs, shown_call = self._edge_call(dict(overrides), q)
            tried.append(shown_call)

            def to_first_draw(function: Callable[..., Any] = function, kwargs: dict[str, Any] = kwargs) -> Any:
                return function(**kwargs, rng=_FirstDraw())

            try:
                once(to_first_draw, seconds)
            except _FirstDraw.Seen:
                pass
            except NoOutput:  # e.g. code that no longer draws from the source it is given
                late.append(f"{shown_call} neither drew nor returned within {seconds} s")
            except Exception as error:  # noqa: BLE001 - the code under test
                problems.append(
                    f"{shown_call} was refused ({type(error).__name__}: {_short(str(error), 100)}), "
                    "but it is inside the domain"
                )
        if problems:
            return [CheckResult("accepts", Verdict.VIOLATED, "; ".join(problems), evidence={"tried": tried})]
        if late:
            reason = "; ".join(late) + ": not run to its first draw, so not shown to accept"
            return [CheckResult("accepts", Verdict.INCONCLUSIVE, reason, reason=reason, evidence={"tried": tried})]
        return [
            CheckResult(
                "accepts",
                Verdict.PROVED,
                f"accepts {len(tried)} parameter set(s) at the domain's edge up to the first draw",
                evidence={"tried": tried},
            )
        ]

    def batch(self) -> list[CheckResult]:
        """The batch form at ``k = 2``, enumerated jointly, against the product of the single
        form's law: exact equality with a ``pmf`` and exhaustive enumeration, else intervals.

        The joint walk gets at most ``L^k`` paths (never fewer than :data:`BATCH_PATHS_FLOOR`, never
        more than the declared ``max_paths``), ``L`` the paths of one run's walk to the same
        ``min_mass``.  That is all ``k`` runs of the single form can take: a joint path ends at a
        return or at a node whose every branch is too light, and mapping it to the run-by-run
        single paths through the nodes where it ends each run is one-to-one (the nodes where
        the joint walk ends run ``j`` below one prefix of the runs before are an antichain of
        the single tree, each reached by it since its mass there is at least the joint mass).
        So a walk past ``L^k`` draws otherwise than ``k`` runs of the single form; it ends as
        inconclusive and says so (a batch form wrong in the draws it makes, say a variance
        rescaled, would otherwise walk until the case's time bound)."""
        batch = self.spec.batch
        if batch is None or not self.enumerable or self.randomness is not Randomness.SOURCE:
            return []
        q = None if self.inputs is None else self.inputs[0]
        kwargs = {k: v for k, v in self.arguments.items() if k in (_names(batch) or self.arguments)}
        if self.input_name is not None:
            kwargs[self.input_name] = q

        def pair(rng: RandomSource) -> Hashable:
            draws = batch(**kwargs, k=BATCH_DRAWS, rng=rng)
            return tuple(draws) if isinstance(draws, list) else ("not a list", repr(draws)[:80])

        ideal, outputs = self._enclosure(q)

        @functools.cache  # each single output recurs in many pairs
        def single(output: Hashable, dps: int) -> tuple[Fraction, Fraction]:
            low, high = ideal(output, dps)
            return enclosure_bound(low, upper=False), enclosure_bound(high, upper=True)

        # The heaviest outputs' pairs are listed; every other pair the code returns is still
        # judged against its product enclosure (an excess anywhere is a violation).
        heaviest = sorted(outputs, key=lambda o: single(o, 50)[0], reverse=True)[:BATCH_OUTPUTS]
        pairs = tuple((a, b) for a in heaviest for b in heaviest)

        def product(output: Hashable, dps: int) -> tuple[Fraction, Fraction]:
            if not (isinstance(output, tuple) and len(output) == BATCH_DRAWS) or output[0] == "not a list":
                return Fraction(0), Fraction(0)
            (lo_a, hi_a), (lo_b, hi_b) = single(output[0], dps), single(output[1], dps)
            return lo_a * lo_b, hi_a * hi_b

        enumeration = self.enumeration
        reason = None
        if isinstance(enumeration, (Bounded, Attempt)):
            min_mass, max_paths = _min_mass(enumeration), enumeration.max_paths
            # k draws leave about k times one draw's tail unexplored.
            tolerance = _max_unexplored(enumeration)
            max_unexplored = None if tolerance is None else BATCH_DRAWS * tolerance
            reason = enumeration.tolerance_reason
        else:
            min_mass, max_paths, max_unexplored = Fraction(0), 1_000_000, Fraction(0)
        single_paths = self._single_paths(q, min_mass, isqrt(max_paths) + 1)
        budget = (
            max_paths if single_paths is None else min(max_paths, max(BATCH_PATHS_FLOOR, single_paths**BATCH_DRAWS))
        )
        result = check_intervals(
            pair,
            product,
            pairs,
            min_mass=min_mass,
            max_paths=budget,
            max_unexplored=max_unexplored,
            tolerance_reason=reason,
        )
        name = getattr(batch, "__qualname__", "batch")
        summary = result.summary
        if budget < max_paths and result.verdict is Verdict.INCONCLUSIVE and result.evidence.get("paths", 0) >= budget:
            summary = (
                f"the joint walk stopped at {budget} paths, more than {BATCH_DRAWS} runs of the single form "
                f"can take: its walk to the same min_mass takes {single_paths} paths, and each joint path is "
                f"{BATCH_DRAWS} of them (every prefix of each has mass >= min_mass), so at most "
                f"{single_paths}^{BATCH_DRAWS}; the batch form draws otherwise than its single form run "
                f"{BATCH_DRAWS} times ({summary})"
            )
            result = replace(result, reason=summary)
        return [replace(result, check="batch", summary=f"{name}(k={BATCH_DRAWS}) against the product law: {summary}")]

    def _single_paths(self, q: object, min_mass: Fraction, cap: int) -> int | None:
        """The paths of one run's walk to ``min_mass``, as the batch form's joint walk is made
        (loops summarised, nothing renewed), or None past ``cap`` or when the walk fails (the
        batch check reports what the code does)."""
        try:
            found = enumerate_outputs(lambda rng: self.run(q, rng), min_mass=min_mass, max_paths=cap, summarise=True)
        except Exception:  # noqa: BLE001 - any failure only leaves the batch walk its declared budget
            return None
        return None if found.stopped == "max_paths" else found.paths

    def statistical(
        self, case: Case, *, seed: int, samples: int, production: bool = False, seconds: float = RUN_SECONDS
    ) -> list[CheckResult]:
        """The real sampler against the spec's law, on the seeded source (replayable) or, with
        ``production``, once as a user calls it: with no ``rng`` where the sampler has a default
        for it (the OS CSPRNG, through ``as_source(None)``), else on a SystemRandomSource (not
        replayable).  The runs go in batches, each given ``seconds``
        (:func:`~dpverify.verify.gate._real_runs.watched`): sampling that stops giving outputs is
        abandoned and ``inconclusive``, with ``evidence["no_output_within_s"]``."""
        if self.spec.sampler is None:
            return []
        rng = USERS_DEFAULT if production else None
        name = "statistical_production" if production else "statistical"
        sampling = functools.partial(watched, seconds=seconds)
        if self.spec.pmf is not None:
            chosen = case.sample_inputs if case.sample_inputs is not None else (self.inputs or (0,))[:1]
            mechanism = _SampledMechanism(self)

            def run(q: Hashable, index: int) -> CheckResult:
                return check_empirical(mechanism, q, samples=samples, seed=seed + index, rng=rng, sampling=sampling)

            work: list[tuple[Hashable, int]] = [
                (q, index) for index, q in enumerate(chosen[:1] if production else chosen)
            ]
        elif self.spec.ideal is not None and self.inputs is None and case.sample_inputs != ():

            def run(q: Hashable, index: int) -> CheckResult:
                return check_empirical_ideal(
                    _SampledNoise(self), samples=samples, seed=seed, rng=rng, sampling=sampling
                )

            work = [(None, 0)]
        else:
            return []
        results = []
        for q, index in work:
            try:
                result = run(q, index)
            except NoOutput as hung:  # the code under test stopped returning while being sampled
                where = "production source" if production else f"seeded source, seed={seed + index}"
                at = "" if self.inputs is None else f" at {self.input_name}={q!r}"
                summary = (
                    f"no output in the last {hung.within} of real draws{at} ({where}): the sampling was "
                    f"abandoned at its bound of {seconds:.3g} s, after {hung.done} of {samples} runs returned"
                )
                result = CheckResult(
                    name,
                    Verdict.INCONCLUSIVE,
                    summary,
                    reason=summary,
                    evidence={
                        "input": None if self.inputs is None else str(q),
                        "seed": None if production else seed + index,
                        "no_output_within_s": seconds,
                        "silent_s": round(hung.silent, 3),
                        "runs_returned": hung.done,
                        "samples": samples,
                    },
                )
            except _SamplerRaised as raised:  # the code under test raised while being sampled
                error = raised.error
                result = CheckResult(
                    name,
                    Verdict.VIOLATED,
                    f"the sampler raised {type(error).__name__} while being sampled "
                    f"({'production source' if production else f'seed={seed + index}'}): {_short(str(error))}",
                    evidence={
                        "error": type(error).__name__,
                        "message": _short(str(error)),
                        "seed": None if production else seed + index,
                    },
                )
            results.append(replace(result, check=name))
        return results

    # --- the claim checks on an exact table, and the timing finding ------------------------------

    def code_table(self) -> dict[Hashable, ExactPmf] | None:
        """The code's own exact PMF per input, or None where enumeration cannot finish."""
        mechanism, table = self.mechanism(), {}
        for q in mechanism.inputs():
            try:
                found = code_distribution(mechanism, q)
            except (SamplerCrashed, SamplerContractError):
                return None
            if not found.exhausted:
                return None
            table[q] = ExactPmf.from_fractions(found.masses)
        return table

    def claim_checks(self, claim: Claim, table: dict[Hashable, ExactPmf] | None) -> list[CheckResult]:
        if table is None or isinstance(claim, SamplesPmf):
            return []
        table, neighbours = self._claim_table(table)
        if isinstance(claim, PureDp) and claim.alpha is not None:
            ratio = PureDpClaim(cast(Fraction, claim.alpha))  # PureDp turns alpha into a Fraction when built
            return [
                check_pure_dp(tightest_alpha(table, neighbours), ratio),
                check_ratio_bound_z3(table, neighbours, ratio),
            ]
        if isinstance(claim, PureDp):
            return [check_pure_epsilon(table, neighbours, claim)]
        if isinstance(claim, ApproxDp):
            return [check_approx_dp(table, neighbours, claim)]
        assert isinstance(claim, Zcdp)
        return [check_zcdp(table, neighbours, claim)]

    def timing(self) -> list[CheckResult]:
        if not self.enumerable:
            return []
        q = None if self.inputs is None else self.inputs[0]
        outputs = None
        if self.spec.outputs is not None:
            outputs = tuple(_declared(self.where, "outputs(p)", self.spec.outputs, self.p))
        return [check_timing(lambda rng: self.run(q, rng), min_mass=TIMING_MIN_MASS, outputs=outputs)]


# Bounded and Attempt turn their budgets into Fractions when built (specs._api._fractions); their
# fields are typed with what the constructor accepts.


def _min_mass(enumeration: Bounded | Attempt) -> Fraction:
    return cast(Fraction, enumeration.min_mass)


def _max_unexplored(enumeration: Bounded | Attempt) -> Fraction | None:
    return cast("Fraction | None", enumeration.max_unexplored)
