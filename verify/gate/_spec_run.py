"""Run one declared spec on one parameter set: the engine picks the checks from the declaration.

Three roles of check, decided by what the spec declares, never by its class:

- **soundness**, the code against its spec, which must always prove: ``exactness`` (a ``pmf``
  and an enumerable sampler: the code's exact PMF equals the closed form), ``intervals`` (an
  ``ideal`` enclosure, or a ``pmf`` with a bounded or attempt enumeration: exact intervals from
  a bounded enumeration), and ``statistical`` (the real sampler on a seeded CSPRNG against the
  PMF or the enclosures, DKW–Massart);
- **claim**, which must reach the case's expected verdict: with a ``pmf``, the claim on the
  exact table (``privacy``, and ``z3`` for the ratio form of pure DP), and every declared
  ``check``;
- **finding**, reported and never gating: the draw-count ``timing_channel`` when the spec asks,
  and a run on real randomness abandoned beside an exact violation (below).

A case's outcome is the combined verdict of its claim checks (of its soundness checks when it
has none): violated if one is violated, else inconclusive if one is, else proved.  It meets its
expectation when every soundness check proves and every claim check reaches the expected
verdict (with no claim check, when every soundness check does).  A spec that cannot be checked
as written (a parameter outside its domain, a claim of the wrong type, a PMF that does not sum
to 1, a ``pmf`` that raises) gives the outcome ``error`` with one message naming the spec, the
case and the problem: a broken spec, never a privacy verdict.

Every failure of the *code* is a verdict.  A sampler that raises on valid parameters, or
returns an output that is not hashable, fails the ``smoke`` soundness check (violated, with the
input, the seed and the error); one that raises inside an enumeration gives ``violated`` with
the draws that reproduce it; one that returns an output the spec gives probability 0 is
violated; a loop whose every attempt rejects, or code whose complete renewing walk never returns
(:class:`~dpverify.verify.engine._enumerate.NeverReturns`), is violated.

The exact checks decide first, and a run on real randomness never keeps a case from them.  The
order is: the smoke run, each input's run given :func:`~dpverify.verify.gate._real_runs.quick_seconds`
(a quarter of a second; the built-in samplers' whole smoke runs take 2 ms); then the exact checks
(``exactness``, ``intervals``, ``batch``, ``refuses``, ``accepts``, none of which runs the code on
real randomness); then the sampling, each batch of runs given
:func:`~dpverify.verify.gate._real_runs.run_seconds` (5 s, at most an eighth of the time limit); then
the claims.  A run that gives no output in its bound is abandoned and reported as what it is
(``smoke: no output within 0.25 s of real draws at q=... (seeded source, seed=...)``), never as
the case's time bound:

- if an exact check is violated, that decides: the hang is a finding beside it, not waited for
  any longer;
- otherwise the smoke run gets a second chance of the longer bound (a slow sampler then passes),
  and if it hangs again, or the sampling stops returning, that check is ``inconclusive`` with the
  reason.  Not ``violated``: even when the exact checks prove the law, which means the code
  behaves differently on a real source than on the enumerated draws or is slower than the bound,
  a run that has not returned yet proves nothing (a correct rejection sampler's run is unbounded
  with positive probability, and a loaded machine stalls).  The case misses ``proved`` either way.

A first-pass run that hung before it had taken a single random bit is run again, before the
exact checks, on a source that stops a run at its first draw, for one run's bound: if it goes on
that long without drawing, the code loops on these parameters before drawing, whatever its
source, and every exact check, which runs the same code up to its first draw, would loop there
too (until the case's time bound), so none is started and ``smoke`` is ``inconclusive`` with that
reason (a calibration that never converges ends in one run's bound, not the case's).  A run that
draws from that source (a slow start, or code that waits only for a real source) gets its second
chance on real draws at once, and the exact checks run as above.

After a smoke run that hung, the sampling (which would only hang again) is not started.  Once a
soundness check is not proved, each declared check (which may run the broken code on real
randomness, as the vector specs' ``defaults`` does) gets one run's bound too (the smoke run's
first-pass bound once a run has hung: the built-in declared checks take milliseconds): past it,
it is abandoned as ``inconclusive``, and what the soundness checks found decides.

Each case also runs under a time bound (``time_limit`` seconds), for what the bounds above do
not cover (an enumeration that loops without drawing, a slow declared check): it ends the case
as ``inconclusive``, naming the stage it was in and the bound it hit.  The bounds hold in any
thread (see :func:`~dpverify.verify.gate._time_bound.time_bound`, which nests them): in the main
thread of a POSIX process, where the command line runs the gate, a bound is a ``SIGALRM`` timer;
in any other thread (a Dask worker runs its tasks in threads) a timer thread raises the exception
in the case's thread.  Either way it interrupts Python code: a single long call into C (one huge
integer operation, a solver call) ends first.

This module runs a case and combines its checks' verdicts.  The spec bound to its parameters is
:mod:`~dpverify.verify.gate._spec_instance` (with the replay command line), the checks are
:mod:`~dpverify.verify.gate._spec_checks`, the engine's views of the spec
:mod:`~dpverify.verify.gate._sampler_adapters`, the bounds on real runs :mod:`~dpverify.verify.gate._real_runs`
and the time bound :mod:`~dpverify.verify.gate._time_bound`.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, cast

from dpverify import _channel
from dpverify.samplers import DpverifyError, InvalidArgument, as_int
from dpverify.samplers._rational import shown
from dpverify.specs._api import Case, Params, Randomness, Spec, SpecError
from dpverify.specs._claims import PureDp
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT
from dpverify.verify.engine._random_compat import CPYTHON_FLOAT_BITS
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.gate._real_runs import NoOutput, once, quick_seconds, run_seconds
from dpverify.verify.gate._spec_checks import _Instance
from dpverify.verify.gate._spec_instance import _declared, _short
from dpverify.verify.gate._time_bound import CaseTimeUp, EnvironmentChanged, time_bound, user_code_stopped

__all__ = ["ERROR", "CaseOutcome", "run_case"]

#: The outcome of a case whose spec cannot be checked as written.
ERROR = "error"


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """The checks run on one (spec, case), the outcome, and why it missed its expectation."""

    spec: Spec
    case: Case
    origin: str
    outcome: str
    checks: tuple[CheckResult, ...] = ()
    problems: tuple[str, ...] = ()
    claim_text: str = ""
    claim_alpha: str | None = None
    error: str | None = None
    #: Wall-clock seconds the case took (reports show it; it is not part of the JSON document).
    seconds: float = 0.0

    @property
    def name(self) -> str:
        return f"{self.spec.name}/{self.case.describe()}"

    @property
    def met(self) -> bool:
        return self.error is None and not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "spec": self.spec.name,
            "origin": self.origin,
            "parameters": {k: str(v) for k, v in self.case.parameters.items()},
            "claim": self.claim_text,
            "claim_alpha": self.claim_alpha,
            "why": self.case.why,
            "expect": self.case.expect,
            "outcome": self.outcome,
            "met": self.met,
            "error": self.error,
            "problems": list(self.problems),
            "checks": [c.to_json() for c in self.checks],
        }


def run_case(
    spec: Spec,
    case: Case,
    *,
    seed: int,
    samples: int,
    origin: str = "",
    statistics: bool = True,
    production: bool = False,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    stop_at_violation: bool = False,
) -> CaseOutcome:
    """Every check that applies to ``case`` of ``spec``; ``statistics=False`` skips the sampling
    (a search runs only the exact checks); ``production`` also runs the statistical checks once
    on :class:`~dpverify.samplers.SystemRandomSource`, the source real users draw from;
    ``time_limit`` bounds the case's running time in seconds (None: unbounded).
    ``stop_at_violation`` (``check --fail-fast``) starts no exact check and no sampling after an
    exact check is violated: the case has missed its expectation whatever they find."""
    if not isinstance(spec, Spec) or not isinstance(case, Case):
        raise InvalidArgument(f"run_case needs a Spec and a Case; got spec={shown(spec)}, case={shown(case)}.")
    seed = as_int("seed", seed, low=0)
    samples = as_int("samples", samples, low=1)
    if time_limit is not None:
        time_limit = as_int("time_limit", time_limit, low=1, high=86_400)
    started = time.monotonic()
    outcome = _bounded(
        spec,
        case,
        seed=seed,
        samples=samples,
        origin=origin,
        statistics=statistics,
        production=production,
        time_limit=time_limit,
        stop_at_violation=stop_at_violation,
    )
    return replace(outcome, seconds=time.monotonic() - started)


def _bounded(
    spec: Spec,
    case: Case,
    *,
    seed: int,
    samples: int,
    origin: str,
    statistics: bool,
    production: bool,
    time_limit: float | None,
    stop_at_violation: bool = False,
) -> CaseOutcome:
    where = f"spec {spec.name!r}, case {case.describe()!r}"
    progress = _Progress()
    try:
        with _channel.labelled(where), time_bound(time_limit):
            return _run(
                spec,
                case,
                seed=seed,
                samples=samples,
                origin=origin,
                statistics=statistics,
                production=production,
                progress=progress,
                time_limit=time_limit,
                stop_at_violation=stop_at_violation,
            )
    except CaseTimeUp:
        reason = f"time bound hit: the case ran past {time_limit} s during the {progress.stage}"
        return _stopped(spec, case, origin, progress, reason, {"time_limit_s": time_limit})
    except EnvironmentChanged as changed:
        return _stopped(spec, case, origin, progress, str(changed), {})
    except KeyboardInterrupt as error:
        if not _channel.supervised():
            raise  # in-process, a KeyboardInterrupt may be the user's Ctrl-C; supervised, it is the sampler's
        return _stopped(spec, case, origin, progress, user_code_stopped(error), {"raised": type(error).__name__})
    except SpecError as error:
        return CaseOutcome(spec, case, origin, ERROR, error=str(error))
    except DpverifyError as error:  # an engine check refused what this spec gave it
        return CaseOutcome(spec, case, origin, ERROR, error=f"{where}: {error}")
    except Exception as error:  # noqa: BLE001 - one case's failure is reported, and the gate goes on
        return CaseOutcome(
            spec,
            case,
            origin,
            ERROR,
            error=f"{where}: checking stopped on {type(error).__name__}: {_short(str(error))}",
        )
    except BaseException as error:  # noqa: BLE001 - SystemExit, GeneratorExit and the like from user code: a verdict
        return _stopped(spec, case, origin, progress, user_code_stopped(error), {"raised": type(error).__name__})


def _stopped(
    spec: Spec, case: Case, origin: str, progress: _Progress, reason: str, evidence: dict[str, Any]
) -> CaseOutcome:
    """The case's outcome when its run stopped before the checks decided: inconclusive, with what
    the checks had found so far and why it stopped."""
    stopped = CheckResult(
        progress.stage_check,
        Verdict.INCONCLUSIVE,
        reason,
        reason=reason,
        evidence={**evidence, "stage": progress.stage},
    )
    return CaseOutcome(spec, case, origin, Verdict.INCONCLUSIVE.value, (*progress.checks, stopped), (reason,))


class _Progress:
    """What a case has done so far, so that a case stopped by its time bound still reports it."""

    def __init__(self) -> None:
        self.stage, self.stage_check = "set-up", "time_bound"
        self.checks: list[CheckResult] = []

    def enter(self, stage: str, check: str) -> None:
        self.stage, self.stage_check = stage, check

    def done(self, results: list[CheckResult]) -> list[CheckResult]:
        self.checks += results
        return results


def _run(
    spec: Spec,
    case: Case,
    *,
    seed: int,
    samples: int,
    origin: str,
    statistics: bool,
    production: bool,
    progress: _Progress,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    stop_at_violation: bool = False,
) -> CaseOutcome:
    where = f"spec {spec.name!r}, case {case.describe()!r}"
    p = spec.bind(case, where=f"case {case.describe()!r}")
    claim = _declared(where, "claim(p)", spec.claim_for, p, case)
    instance = _Instance(spec, p, where, seed=seed, samples=samples, origin=origin)
    soundness, findings, hung = _soundness(
        instance,
        case,
        seed=seed,
        samples=samples,
        statistics=statistics,
        production=production,
        progress=progress,
        time_limit=time_limit,
        stop_at_violation=stop_at_violation,
    )
    progress.enter("claim checks", "claim")
    claims = [*instance.claim_checks(claim, instance.table() if spec.pmf is not None else None)]
    if any(c.check == "exactness" and c.verdict is Verdict.VIOLATED for c in soundness):
        # The code does not sample the spec's PMF, so the claim proved on the spec says nothing
        # about the code: check it on the code's own exact PMF too, for a counterexample of its own.
        code = instance.code_table()
        if code is not None:
            claims += [replace(c, check=f"code_{c.check}") for c in instance.claim_checks(claim, code)]
    declared, late = _declared_checks(
        spec, p, where, soundness, progress, run_seconds(time_limit) if not hung else quick_seconds(time_limit)
    )
    claims += declared
    findings += late
    progress.enter("timing-channel enumeration", "timing_channel")
    findings += instance.timing() if spec.timing else []
    # a smoke run that returned checks nothing of the law: alone, there is nothing to check
    if not claims and all(c.check == "smoke" and c.verdict is Verdict.PROVED for c in soundness):
        raise SpecError(
            f"{where}: nothing to check: declare a pmf, an ideal PMF or checks, and a sampler that takes rng."
        )

    expect = Verdict(case.expect)
    if claims:
        problems = [f"{c.check} {c.verdict.value}: {c.summary}" for c in soundness if c.verdict is not Verdict.PROVED]
        problems += [
            f"expected {c.check} {expect.value}, got {c.verdict.value}: {c.summary}"
            for c in claims
            if c.verdict is not expect
        ]
    else:
        # a smoke run that returned says only that the code runs: it is no verdict on the law, so
        # a case expecting a violated law is not held to a violated smoke run
        problems = [
            f"expected {c.check} {expect.value}, got {c.verdict.value}: {c.summary}"
            for c in soundness
            if c.verdict is not expect and not (c.check == "smoke" and c.verdict is Verdict.PROVED)
        ]
    outcome = _combined([*claims, *soundness] if claims else soundness)
    alpha = claim.alpha if isinstance(claim, PureDp) else None
    return CaseOutcome(
        spec,
        case,
        origin,
        outcome.value,
        _at_precision(spec, (*soundness, *claims, *findings)),
        tuple(problems),
        claim.describe(),
        None if alpha is None else fraction_text(cast(Fraction, alpha)),  # PureDp turns alpha into a Fraction
    )


def _soundness(
    instance: _Instance,
    case: Case,
    *,
    seed: int,
    samples: int,
    statistics: bool,
    production: bool,
    progress: _Progress,
    time_limit: float | None,
    stop_at_violation: bool = False,
) -> tuple[list[CheckResult], list[CheckResult], bool]:
    """The soundness checks in the order of the module docstring: ``(soundness, findings, hung)``,
    ``findings`` the runs abandoned beside an exact violation, ``hung`` whether a run on real
    randomness gave no output."""
    progress.enter("smoke run (one run per input)", "smoke")
    smoke = instance.smoke(seed, seconds=quick_seconds(time_limit))
    hung = any(_no_output(c) for c in smoke)
    second_chance = hung and not smoke[0].evidence.get("drew", True)  # a slow start, or a loop before any draw?
    if second_chance:
        progress.enter("a run on a source that stops it at its first draw", "smoke")
        probe = run_seconds(time_limit)
        if instance.loops_before_drawing(smoke[0].evidence["inputs_returned"], probe):
            looped = replace(smoke[0], evidence={**smoke[0].evidence, "loops_before_drawing_s": probe})
            return progress.done([_hung(looped, _before_any_draw(probe))]), [], hung
        progress.enter("smoke run, a second chance of one run's bound", "smoke")
        smoke = instance.smoke(seed, seconds=run_seconds(time_limit))
        hung = any(_no_output(c) for c in smoke)
    if smoke and smoke[0].verdict is Verdict.VIOLATED:  # raised on valid parameters: nothing else runs
        return progress.done(smoke), [], hung
    soundness: list[CheckResult] = [] if hung else progress.done(smoke)
    findings: list[CheckResult] = []
    exact = _exact_checks(instance, seed, progress, time_limit, stop_at_violation)
    violated = [c.check for c in exact if c.verdict is Verdict.VIOLATED]
    decides = f"{', '.join(violated)} found a violation, which decides"
    if hung and violated:  # the smoke run hung, and the exact checks decide
        findings += progress.done([_hung(smoke[0], f"not waited for longer: {decides}")])
    elif hung:  # it hung and nothing exact decides: a longer second chance, unless it had it already
        if not second_chance:
            progress.enter("smoke run, a second chance of one run's bound", "smoke")
            smoke = instance.smoke(seed, seconds=run_seconds(time_limit))
        soundness += progress.done([_hung(c, _not_a_proof(exact)) if _no_output(c) else c for c in smoke])
    soundness += exact
    if not statistics or hung or (stop_at_violation and violated):  # (after a hang, sampling would only hang again)
        return soundness, findings, hung
    runs = [("statistical sampling", "statistical", False)]
    runs += [("statistical sampling on the production source", "statistical_production", True)] * production
    for stage, check, on_production in runs:
        progress.enter(stage, check)
        sampled = instance.statistical(
            case, seed=seed, samples=samples, production=on_production, seconds=run_seconds(time_limit)
        )
        hung |= any(_no_output(c) for c in sampled)
        if violated:  # a sampling abandoned for a hang is reported beside the exact verdict
            findings += progress.done([_hung(c, decides) for c in sampled if _no_output(c)])
            sampled = [c for c in sampled if not _no_output(c)]
        soundness += progress.done([_hung(c, _not_a_proof(exact)) if _no_output(c) else c for c in sampled])
    return soundness, findings, hung


def _declared_checks(
    spec: Spec,
    p: Params,
    where: str,
    soundness: list[CheckResult],
    progress: _Progress,
    seconds: float,
) -> tuple[list[CheckResult], list[CheckResult]]:
    """The spec's declared checks: ``(claims, findings)``.  Once the case cannot be proved, each
    (which may run the broken code on real randomness) gets ``seconds``; past them it is abandoned,
    and what the soundness checks found decides (a finding beside a violation, else inconclusive)."""
    unproved = [c.check for c in soundness if c.verdict is not Verdict.PROVED]
    violated = [c.check for c in soundness if c.verdict is Verdict.VIOLATED]
    claims: list[CheckResult] = []
    findings: list[CheckResult] = []
    for check in spec.checks:
        name = getattr(check, "__name__", "check")
        progress.enter(f"declared check {getattr(check, '__name__', check)!r}", name)
        call = functools.partial(_declared, where, f"check {getattr(check, '__name__', check)!r}", check, p)
        try:
            result = once(call, seconds) if unproved else call()
        except NoOutput as late:
            why = (
                f"not finished within {late.within}; not waited for longer: {', '.join(violated or unproved)} "
                f"already {'violated' if violated else 'unproved'}, which decides the case"
            )
            abandoned = CheckResult(
                name, Verdict.INCONCLUSIVE, why, reason=why, evidence={"no_output_within_s": late.seconds}
            )
            (findings if violated else claims).append(progress.done([abandoned])[0])
            continue
        if not isinstance(result, CheckResult):
            raise SpecError(f"{where}: a declared check returned {shown(result)}; it must return a CheckResult.")
        claims.append(result)
    return claims, findings


def _exact_checks(
    instance: _Instance, seed: int, progress: _Progress, time_limit: float | None, stop_at_violation: bool = False
) -> list[CheckResult]:
    """The soundness checks that enumerate the code or stop it at its first draw: none of them
    runs it on real randomness, so none can hang on a loop the enumeration sees through.  With
    ``stop_at_violation``, none starts after one is violated."""
    results: list[CheckResult] = []
    for stage, check, run in (
        ("exact enumeration", "exactness", instance.exactness),
        ("interval enumeration", "intervals", instance.intervals),
        ("joint enumeration of the batch form", "batch", instance.batch),
        ("runs on parameters the code must refuse", "refuses", lambda: instance.refuses(seed)),
        (
            "runs on parameters at the domain's edge",
            "accepts",
            lambda: instance.accepts(seconds=run_seconds(time_limit)),
        ),
    ):
        if stop_at_violation and any(c.verdict is Verdict.VIOLATED for c in results):
            break
        progress.enter(stage, check)
        results += progress.done(run())
    return results


def _not_a_proof(exact: list[CheckResult]) -> str:
    """Why a run on real randomness that gives no output is inconclusive when no exact check is
    violated: a run that has not returned yet proves nothing (a correct rejection sampler's run is
    unbounded with positive probability, a loaded machine stalls), whatever the exact checks say."""
    wait = (
        "inconclusive, not violated: a run that has not returned yet proves nothing "
        "(a larger --time-limit waits longer)"
    )
    if exact and all(c.verdict is Verdict.PROVED for c in exact):
        return (
            f"the exact checks prove the code's law, so the code behaves differently on this source than on the "
            f"enumerated draws, or its run is slower than the bound; {wait}"
        )
    return f"{'no exact check decided either' if exact else 'no exact check applies'}; {wait}"


def _before_any_draw(seconds: float) -> str:
    """Why no exact check runs after a run that took no random bit and then went on for one run's
    bound without drawing on a source that ends a run at its first draw: every exact check runs
    the same code on the same parameters up to its first draw, so it would go on there too."""
    return (
        f"then it ran {seconds} s without drawing on a source that stops a run at its first draw, where every "
        "exact check would run on too, so none was started"
    )


def _no_output(result: CheckResult) -> bool:
    """Whether ``result`` is a run on real randomness abandoned for giving no output."""
    return result.verdict is Verdict.INCONCLUSIVE and "no_output_within_s" in result.evidence


def _hung(result: CheckResult, why: str) -> CheckResult:
    """A run abandoned for giving no output, with what it means beside the exact checks."""
    return replace(result, summary=f"{result.summary}; {why}", reason=f"{result.reason}; {why}")


def _at_precision(spec: Spec, checks: tuple[CheckResult, ...]) -> tuple[CheckResult, ...]:
    """Each check of a spec whose ``random()`` is on a coarser grid than CPython's, saying so: its
    verdict is exact for the code with ``random()`` uniform on ``{j / 2**k}``, not for 53 bits."""
    bits = spec.float_bits
    if bits == CPYTHON_FLOAT_BITS or Randomness(spec.randomness) not in (Randomness.RANDOM, Randomness.MODULE):
        return checks
    note = f" [at reduced precision: random() on a 2^-{bits} grid (float_bits={bits}), not CPython's 53 bits]"
    return tuple(replace(c, summary=c.summary + note, evidence={**c.evidence, "float_bits": bits}) for c in checks)


def _combined(checks: list[CheckResult]) -> Verdict:
    verdicts = {c.verdict for c in checks}
    for verdict in (Verdict.VIOLATED, Verdict.INCONCLUSIVE):
        if verdict in verdicts:
            return verdict
    return Verdict.PROVED
