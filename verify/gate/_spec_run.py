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
- **finding**, reported and never gating: the draw-count ``timing_channel`` when the spec asks.

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
violated; a loop whose every attempt rejects is violated.  Each case runs under a time bound
(``time_limit`` seconds): a sampler that does not terminate ends the case as ``inconclusive``,
naming the stage it was in and the bound it hit.  The bound holds in any thread (see
:func:`~dpverify.verify.gate._time_bound.time_bound`): in the main thread of a POSIX process, where the command line runs the
gate, it is a ``SIGALRM`` timer; in any other thread (a Dask worker runs its tasks in threads)
a timer thread raises the exception in the case's thread.  Either way it interrupts Python
code: a single long call into C (one huge integer operation, a solver call) ends first.

This module runs a case and combines its checks' verdicts.  The spec bound to its parameters is
:mod:`~dpverify.verify.gate._spec_instance` (with the replay command line), the checks are
:mod:`~dpverify.verify.gate._spec_checks`, the engine's views of the spec
:mod:`~dpverify.verify.gate._sampler_adapters`, and the time bound :mod:`~dpverify.verify.gate._time_bound`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from dpverify.samplers import DpverifyError, InvalidArgument, as_int
from dpverify.samplers._rational import shown
from dpverify.specs._api import Case, Randomness, Spec, SpecError
from dpverify.specs._claims import PureDp
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT
from dpverify.verify.engine._random_compat import CPYTHON_FLOAT_BITS
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.gate._spec_checks import _Instance
from dpverify.verify.gate._spec_instance import _declared, _short
from dpverify.verify.gate._time_bound import CaseTimeUp, time_bound

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
) -> CaseOutcome:
    """Every check that applies to ``case`` of ``spec``; ``statistics=False`` skips the sampling
    (a search runs only the exact checks); ``production`` also runs the statistical checks once
    on :class:`~dpverify.samplers.SystemRandomSource`, the source real users draw from;
    ``time_limit`` bounds the case's running time in seconds (None: unbounded)."""
    if not isinstance(spec, Spec) or not isinstance(case, Case):
        raise InvalidArgument(f"run_case needs a Spec and a Case; got spec={shown(spec)}, case={shown(case)}.")
    seed = as_int("seed", seed, low=0)
    samples = as_int("samples", samples, low=1)
    if time_limit is not None:
        time_limit = as_int("time_limit", time_limit, low=1, high=86_400)
    started = time.monotonic()
    outcome = _bounded(spec, case, seed=seed, samples=samples, origin=origin, statistics=statistics,
                       production=production, time_limit=time_limit)
    return replace(outcome, seconds=time.monotonic() - started)


def _bounded(
    spec: Spec, case: Case, *, seed: int, samples: int, origin: str, statistics: bool, production: bool,
    time_limit: float | None,
) -> CaseOutcome:
    where = f"spec {spec.name!r}, case {case.describe()!r}"
    progress = _Progress()
    try:
        with time_bound(time_limit):
            return _run(spec, case, seed=seed, samples=samples, origin=origin, statistics=statistics,
                        production=production, progress=progress)
    except CaseTimeUp:
        reason = f"time bound hit: the case ran past {time_limit} s during the {progress.stage}"
        timed_out = CheckResult(progress.stage_check, Verdict.INCONCLUSIVE, reason, reason=reason,
                                evidence={"time_limit_s": time_limit, "stage": progress.stage})
        return CaseOutcome(spec, case, origin, Verdict.INCONCLUSIVE.value, (*progress.checks, timed_out), (reason,))
    except SpecError as error:
        return CaseOutcome(spec, case, origin, ERROR, error=str(error))
    except DpverifyError as error:  # an engine check refused what this spec gave it
        return CaseOutcome(spec, case, origin, ERROR, error=f"{where}: {error}")
    except Exception as error:  # noqa: BLE001 - one case's failure is reported, and the gate goes on
        return CaseOutcome(spec, case, origin, ERROR,
                           error=f"{where}: checking stopped on {type(error).__name__}: {_short(str(error))}")


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
    spec: Spec, case: Case, *, seed: int, samples: int, origin: str, statistics: bool, production: bool,
    progress: _Progress,
) -> CaseOutcome:
    where = f"spec {spec.name!r}, case {case.describe()!r}"
    p = spec.bind(case, where=f"case {case.describe()!r}")
    claim = _declared(where, "claim(p)", spec.claim_for, p, case)
    instance = _Instance(spec, p, where, seed=seed, samples=samples, origin=origin)
    progress.enter("smoke run (one run per input)", "smoke")
    smoke = progress.done(instance.smoke(seed))
    soundness: list[CheckResult] = list(smoke)
    if not smoke or smoke[0].verdict is Verdict.PROVED:
        progress.enter("exact enumeration", "exactness")
        soundness += progress.done(instance.exactness())
        progress.enter("interval enumeration", "intervals")
        soundness += progress.done(instance.intervals())
        progress.enter("joint enumeration of the batch form", "batch")
        soundness += progress.done(instance.batch())
        progress.enter("runs on parameters the code must refuse", "refuses")
        soundness += progress.done(instance.refuses(seed))
        progress.enter("runs on parameters at the domain's edge", "accepts")
        soundness += progress.done(instance.accepts())
        if statistics:
            progress.enter("statistical sampling", "statistical")
            soundness += progress.done(instance.statistical(case, seed=seed, samples=samples))
            if production:
                progress.enter("statistical sampling on the production source", "statistical_production")
                soundness += progress.done(instance.statistical(case, seed=seed, samples=samples, production=True))
    progress.enter("claim checks", "claim")
    claims = [*instance.claim_checks(claim, instance.table() if spec.pmf is not None else None)]
    if any(c.check == "exactness" and c.verdict is Verdict.VIOLATED for c in soundness):
        # The code does not sample the spec's PMF, so the claim proved on the spec says nothing
        # about the code: check it on the code's own exact PMF too, for a counterexample of its own.
        code = instance.code_table()
        if code is not None:
            claims += [replace(c, check=f"code_{c.check}") for c in instance.claim_checks(claim, code)]
    for check in spec.checks:
        progress.enter(f"declared check {getattr(check, '__name__', check)!r}", getattr(check, "__name__", "check"))
        result = _declared(where, f"check {getattr(check, '__name__', check)!r}", check, p)
        if not isinstance(result, CheckResult):
            raise SpecError(f"{where}: a declared check returned {shown(result)}; it must return a CheckResult.")
        claims.append(result)
    progress.enter("timing-channel enumeration", "timing_channel")
    findings = instance.timing() if spec.timing else []
    if not soundness and not claims:
        raise SpecError(f"{where}: nothing to check: declare a pmf, an ideal PMF or checks, and a sampler that takes rng.")

    expect = Verdict(case.expect)
    if claims:
        problems = [f"{c.check} {c.verdict.value}: {c.summary}" for c in soundness if c.verdict is not Verdict.PROVED]
        problems += [f"expected {c.check} {expect.value}, got {c.verdict.value}: {c.summary}"
                     for c in claims if c.verdict is not expect]
    else:
        problems = [f"expected {c.check} {expect.value}, got {c.verdict.value}: {c.summary}"
                    for c in soundness if c.verdict is not expect]
    outcome = _combined([*claims, *soundness] if claims else soundness)
    alpha = claim.alpha if isinstance(claim, PureDp) else None
    return CaseOutcome(
        spec, case, origin, outcome.value, _at_precision(spec, (*soundness, *claims, *findings)), tuple(problems),
        claim.describe(), None if alpha is None else fraction_text(alpha),  # type: ignore[arg-type]
    )


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
