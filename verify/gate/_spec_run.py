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
:func:`time_bound`): in the main thread of a POSIX process, where the command line runs the
gate, it is a ``SIGALRM`` timer; in any other thread (a Dask worker runs its tasks in threads)
a timer thread raises the exception in the case's thread.  Either way it interrupts Python
code: a single long call into C (one huge integer operation, a solver call) ends first.
"""

from __future__ import annotations

import ctypes
import functools
import inspect
import re
import signal
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from dpverify.samplers import (
    DpverifyError,
    InvalidArgument,
    RandomSource,
    SamplerContractError,
    SeededRandomSource,
    SystemRandomSource,
    as_int,
)
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf, MechanismSpec, NoiseSpec, PureDpClaim
from dpverify.specs._api import Attempt, Bisection, Bounded, Case, Exhaustive, Params, Randomness, Spec, SpecError
from dpverify.specs._claims import ApproxDp, Claim, PureDp, SamplesPmf, Zcdp
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT
from dpverify.verify.privacy._claim_checks import check_approx_dp, check_pure_epsilon, check_zcdp
from dpverify.verify.engine._enumerate import SamplerCrashed
from dpverify.verify.engine._exactness import check_exactness, code_distribution
from dpverify.verify.engine._intervals import check_intervals, enclosure_bound
from dpverify.verify.privacy._ratio import check_pure_dp, tightest_alpha
from dpverify.verify.engine._patched_random import patched_random
from dpverify.verify.engine._program_state import suspended_driver
from dpverify.verify.engine._random_compat import CPYTHON_FLOAT_BITS, RandomCompat
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.privacy._smt import check_ratio_bound_z3
from dpverify.verify.engine._statistics import check_empirical, check_empirical_ideal
from dpverify.verify.privacy._timing import check_timing

__all__ = ["ERROR", "CaseOutcome", "replay_command", "run_case"]

suspended_driver(__file__)  # its frames hold one call for a whole execution

#: The outcome of a case whose spec cannot be checked as written.
ERROR = "error"
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


class CaseTimeUp(BaseException):
    """The case's time bound expired.  A BaseException, so a sampler's ``except Exception``
    cannot swallow it."""


@contextmanager
def time_bound(seconds: float | None, expired: Callable[[], BaseException] = CaseTimeUp) -> Iterator[None]:
    """Raise ``expired()`` (:class:`CaseTimeUp` by default) in this thread after ``seconds`` (None: no bound).

    In the main thread of a POSIX process the bound is a ``SIGALRM`` timer.  An enclosing timer
    (a caller's own bound) is respected: if it is due first this one is not set, and otherwise
    it is re-armed with what is left of it on the way out.

    In any other thread (a Dask worker's, a thread pool's), or where there is no ``setitimer``,
    a :class:`threading.Timer` raises the exception in this thread through
    ``PyThreadState_SetAsyncExc``, and is cancelled on the way out; an enclosing bound of the
    same thread that is due first is respected the same way.  Its exception is of a class of its
    own, derived from ``expired()``'s, so that an enclosing bound's passes through this one, and
    it is turned into ``expired()`` on the way out.

    Either way the exception is raised between two steps of Python code: a single long call
    into C (a huge integer operation, a solver call) finishes first.  Off the main thread a
    blocking call (``time.sleep``, I/O, waiting on a lock) is not interrupted either, as a
    signal would interrupt it in the main thread.  Without ``ctypes.pythonapi`` (not CPython)
    only the main thread of a POSIX process is bounded.
    """
    if seconds is None:
        yield
        return
    main = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    with (_alarm_bound if main else _thread_bound)(seconds, expired):
        yield


@contextmanager
def _alarm_bound(seconds: float, expired: Callable[[], BaseException]) -> Iterator[None]:
    """The main thread's bound: ``SIGALRM`` after ``seconds``."""
    enclosing = signal.getitimer(signal.ITIMER_REAL)[0]
    if enclosing and enclosing <= seconds:
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise expired()

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if enclosing:
            signal.setitimer(signal.ITIMER_REAL, max(enclosing - (time.monotonic() - started), 0.001))


def _async_exception_setters() -> tuple[Callable[[int, type], int], Callable[[int, None], int]] | None:
    """``PyThreadState_SetAsyncExc`` typed twice, to send a class and to clear (NULL); private
    prototypes, so that no other user of ``ctypes.pythonapi`` sees its argument types change."""
    try:
        api = ctypes.pythonapi
    except AttributeError:  # not CPython
        return None
    send = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(("PyThreadState_SetAsyncExc", api))
    clear = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(("PyThreadState_SetAsyncExc", api))
    return send, clear


_SET_ASYNC_EXC = _async_exception_setters()
#: Per thread, the deadlines (``time.monotonic()``) of the thread bounds it is inside.
_DEADLINES = threading.local()


@contextmanager
def _thread_bound(seconds: float, expired: Callable[[], BaseException]) -> Iterator[None]:
    """Any other thread's bound: a timer thread raises an exception in this one after ``seconds``."""
    deadlines: list[float] = _DEADLINES.__dict__.setdefault("deadlines", [])
    deadline = time.monotonic() + seconds
    if _SET_ASYNC_EXC is None or (deadlines and min(deadlines) <= deadline):
        yield
        return
    send, clear = _SET_ASYNC_EXC
    kind = expired if isinstance(expired, type) else type(expired())
    # The interpreter raises a class, built with no arguments, and it may surface just outside
    # the block: a subclass of the expected class is caught where that one would be.
    time_up = type(kind.__name__, (kind,), {"__init__": lambda self, *args: BaseException.__init__(self, *args)})
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"armed": True, "sent": False}

    def expire() -> None:
        with lock:
            if state["armed"]:
                state["sent"] = True
                send(target, time_up)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    deadlines.append(deadline)
    try:
        try:
            timer.start()
            yield
        finally:
            with lock:
                state["armed"] = False
            timer.cancel()
            deadlines.pop()
            if state["sent"]:
                clear(target, None)  # sent as the block finished, and not raised yet: drop it
    except time_up:
        raise expired() from None


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


def replay_command(spec_name: str, origin: str, *, seed: int, samples: int, time_limit: float | None = None) -> str:
    """The command line that reruns one spec's cases with the same statistical draws (``time_limit``
    is added when it is not the default)."""
    module = f" --spec-module {origin.removeprefix('module ')}" if origin.startswith("module ") else ""
    bound = "" if time_limit is None or time_limit == DEFAULT_TIME_LIMIT else f" --time-limit {time_limit}"
    return f"dpverify check{module} --spec {spec_name} --seed {seed} --samples {samples}{bound}"


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


def _declared(where: str, what: str, function: Callable[..., Any], *args: Any) -> Any:
    """Call a spec's own callable; anything it raises is the spec's error, not a verdict."""
    try:
        return function(*args)
    except SpecError:
        raise
    except Exception as error:  # noqa: BLE001 - whatever a user's callable raises is reported as theirs
        raise SpecError(f"{where}: {what} raised {type(error).__name__}: {_short(str(error))}") from None


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class _Instance:
    """A spec bound to one validated parameter set: what the engine's checks take."""

    def __init__(self, spec: Spec, p: Params, where: str, *, seed: int, samples: int, origin: str = "") -> None:
        self.spec, self.p, self.where = spec, p, where
        self.arguments = spec.sampler_arguments(p)
        self.input_name = None if spec.input is None else spec.input.name
        self.randomness = Randomness(spec.randomness)
        self.enumeration = spec.enumeration_for()
        self.inputs: tuple[Hashable, ...] | None = None
        if spec.input is not None:
            self.inputs = tuple(_declared(where, "input.values(p)", spec.input.values, p))
            if not self.inputs:
                raise SpecError(f"{where}: input.values(p) is empty; the claim needs at least one input.")
        self.replay = replay_command(spec.name, origin, seed=seed, samples=samples)
        self._table: dict[Hashable, ExactPmf] | None = None

    # --- running the code ----------------------------------------------------------------

    def run(self, q: Hashable | None, rng: RandomSource, function: Callable[..., Any] | None = None) -> Any:
        # The hot path of every enumeration and sample: everything constant is set up once.
        function = function or self.spec.sampler
        assert function is not None
        kwargs = self.arguments if self.input_name is None else {**self.arguments, self.input_name: q}
        if self.randomness is Randomness.SOURCE:
            if rng is USERS_DEFAULT:  # the user's call: no rng where the sampler has a default for it
                return function(**kwargs) if _defaults_rng(function) else function(**kwargs, rng=SystemRandomSource())
            return function(**kwargs, rng=rng)
        if self.randomness is Randomness.RANDOM:
            source = SystemRandomSource() if rng is USERS_DEFAULT else rng
            return function(**kwargs, rng=RandomCompat(source, float_bits=self.spec.float_bits))
        if self.randomness is Randomness.MODULE and rng is not USERS_DEFAULT:
            with patched_random(rng, float_bits=self.spec.float_bits):
                return function(**kwargs)
        return function(**kwargs)  # a black box, or the user's call: CPython's own generators

    def smoke(self, seed: int) -> list[CheckResult]:
        """One run per input (up to :data:`SMOKE_INPUTS`) on the seeded source: a sampler that
        raises on valid parameters, or returns an unhashable value, is violated before any
        other check runs (if the spec's domain is what is wrong, the message says so)."""
        if self.spec.sampler is None:
            return []
        inputs = (self.inputs or (None,))[:SMOKE_INPUTS]
        rng = SeededRandomSource(seed)
        for q in inputs:
            at = "" if q is None else f" at {self.spec.input.name}={q!r}"  # type: ignore[union-attr]
            try:
                output = self.run(q, rng)
                hash(output)
            except SpecError:
                raise
            except Exception as error:  # noqa: BLE001 - the sampler is the code under test
                what = "refused" if isinstance(error, DpverifyError) else f"raised {type(error).__name__} on"
                summary = (f"the sampler {what} valid parameters{at} (seeded source, seed={seed}): "
                           f"{_short(str(error))}; if the spec's domain is wrong, narrow it")
                return [CheckResult("smoke", Verdict.VIOLATED, summary, evidence={
                    "input": None if q is None else str(q), "seed": seed, "error": type(error).__name__,
                    "message": _short(str(error)), "replay": self.replay})]
        return []

    @property
    def enumerable(self) -> bool:
        return self.spec.sampler is not None and self.randomness is not Randomness.NONE

    # --- the declared distribution -----------------------------------------------------------

    def table(self) -> dict[Hashable, ExactPmf]:
        """``{input: ExactPmf}`` from the spec's closed form (a noise sampler: ``{0: pmf}``)."""
        if self._table is None:
            pmf = self.spec.pmf
            assert pmf is not None
            if self.inputs is None:
                self._table = {0: self._exact(_declared(self.where, "pmf(p)", pmf, self.p), "pmf(p)")}
            else:
                self._table = {q: self._exact(_declared(self.where, f"pmf(p, {q!r})", pmf, self.p, q), f"pmf(p, {q!r})")
                               for q in self.inputs}
        return self._table

    def _exact(self, value: Any, what: str) -> ExactPmf:
        if isinstance(value, ExactPmf):
            pmf = value
        else:
            try:
                masses = {o: _probability(m) for o, m in dict(value).items()}
            except (TypeError, ValueError) as error:
                raise SpecError(f"{self.where}: {what} must return {{output: Fraction}} or an ExactPmf "
                                f"with exact probabilities; {error}") from None
            pmf = ExactPmf.from_fractions(masses)
        if any(w < 0 for w in pmf.weights):
            raise SpecError(f"{self.where}: {what} has a negative probability.")
        if pmf.total() != 1:
            raise SpecError(f"{self.where}: {what} sums to {fraction_text(pmf.total())}, not 1.")
        return pmf

    def mechanism(self) -> _Mechanism:
        return _Mechanism(self)

    # --- the checks ----------------------------------------------------------------------------

    def exactness(self) -> list[CheckResult]:
        if self.spec.pmf is None or not self.enumerable or not isinstance(self.enumeration, (Exhaustive, Bisection)):
            return []
        max_paths = self.enumeration.max_paths if isinstance(self.enumeration, Exhaustive) else 1_000_000
        return [check_exactness(self.mechanism(), max_paths=max_paths)]

    def intervals(self) -> list[CheckResult]:
        """Exact intervals from a bounded enumeration, with marked loops summarised; for
        :class:`Bounded`, also the code walked as it runs (``intervals_as_run``, at
        :data:`AS_RUN_MIN_MASS`), so the loop code that summaries stand for is itself run."""
        enumeration = self.enumeration
        if not self.enumerable or not isinstance(enumeration, (Bounded, Attempt)):
            return []
        results = []
        for q in self.inputs or (None,):
            ideal, outputs = self._enclosure(q)
            if isinstance(enumeration, Attempt):
                attempt = enumeration.attempt
                sampler = lambda rng, q=q: self.run(q, rng, attempt)  # noqa: E731
            else:
                sampler = lambda rng, q=q: self.run(q, rng)  # noqa: E731
            results.append(check_intervals(sampler, ideal, outputs, min_mass=enumeration.min_mass,
                                           max_paths=enumeration.max_paths, max_unexplored=enumeration.max_unexplored,
                                           attempt=isinstance(enumeration, Attempt),
                                           renew_states=isinstance(enumeration, Bounded) and enumeration.renewal))
            if isinstance(enumeration, Bounded) and self.randomness is Randomness.SOURCE:
                # (code drawing through random's API marks no loops: the walk above was as it runs)
                as_run = check_intervals(sampler, ideal, outputs, min_mass=max(enumeration.min_mass, AS_RUN_MIN_MASS),
                                         max_paths=enumeration.max_paths, summarise=False)
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
                output = function(**kwargs, rng=_FirstDraw() if must_refuse else SeededRandomSource(seed))  # type: ignore[misc]
            except _FirstDraw.Seen:
                problems.append(f"{shown_call} was accepted (the sampler went on to draw)")
                continue
            except DpverifyError as error:
                if not must_refuse:
                    problems.append(f"{shown_call} was refused; it must give an empty batch")
                elif not any(re.search(rf"\b{re.escape(name)}=", str(error)) for name in overrides):
                    problems.append(f"{shown_call} was refused, but the error does not name "
                                    f"{' or '.join(overrides)}: {_short(str(error), 100)}")
                continue
            except Exception as error:  # noqa: BLE001 - the code under test
                problems.append(f"{shown_call} raised {type(error).__name__} ({_short(str(error), 80)}) "
                                "instead of a clear error")
                continue
            if must_refuse:
                problems.append(f"{shown_call} was accepted (returned {shown(output, 40)})")
            elif output != []:
                problems.append(f"{shown_call} returned {shown(output, 40)}, not an empty batch")
        if not calls:
            return []
        if problems:
            return [CheckResult("refuses", Verdict.VIOLATED, "; ".join(problems), evidence={"tried": tried, "seed": seed})]
        refused = [t for t, (_, must) in zip(tried, calls) if must]
        empty = " and gives an empty batch at k=0" if self.spec.batch is not None else ""
        return [CheckResult("refuses", Verdict.PROVED,
                            f"refuses {len(refused)} invalid parameter set(s) with a clear error{empty}",
                            evidence={"tried": tried})]

    def _edge_call(self, overrides: dict[str, Any], q: Any) -> tuple[Callable[..., Any], dict[str, Any], str]:
        """The entry point, its arguments and how to show them for one ``refuses``/``accepts``
        dict laid over the case's parameters."""
        function = self.spec.batch if "k" in overrides else self.spec.sampler
        names = _names(function)
        kwargs = {k: v for k, v in {**self.arguments, **overrides}.items() if names is None or k in names}
        if self.input_name is not None and self.input_name not in overrides:
            kwargs[self.input_name] = q
        return function, kwargs, ", ".join(f"{k}={shown(v, 30)}" for k, v in overrides.items())

    def accepts(self) -> list[CheckResult]:
        """Each declared valid parameter set at the domain's edge must get as far as its first draw
        (or return without one); a run stops at that draw, so the edge costs nothing to try."""
        if self.spec.sampler is None or self.randomness is not Randomness.SOURCE or not self.spec.accepts:
            return []
        problems, tried = [], []
        q = None if self.inputs is None else self.inputs[0]
        for overrides in self.spec.accepts:
            function, kwargs, shown_call = self._edge_call(dict(overrides), q)
            tried.append(shown_call)
            try:
                function(**kwargs, rng=_FirstDraw())
            except _FirstDraw.Seen:
                pass
            except Exception as error:  # noqa: BLE001 - the code under test
                problems.append(f"{shown_call} was refused ({type(error).__name__}: {_short(str(error), 100)}), "
                                "but it is inside the domain")
        if problems:
            return [CheckResult("accepts", Verdict.VIOLATED, "; ".join(problems), evidence={"tried": tried})]
        return [CheckResult("accepts", Verdict.PROVED,
                            f"accepts {len(tried)} parameter set(s) at the domain's edge up to the first draw",
                            evidence={"tried": tried})]

    def batch(self) -> list[CheckResult]:
        """The batch form at ``k = 2``, enumerated jointly, against the product of the single
        form's law: exact equality with a ``pmf`` and exhaustive enumeration, else intervals."""
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

        @functools.lru_cache(maxsize=None)  # each single output recurs in many pairs
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
        if isinstance(enumeration, (Bounded, Attempt)):
            min_mass, max_paths = enumeration.min_mass, enumeration.max_paths
            # k draws leave about k times one draw's tail unexplored.
            tolerance = enumeration.max_unexplored
            max_unexplored = None if tolerance is None else BATCH_DRAWS * tolerance
        else:
            min_mass, max_paths, max_unexplored = Fraction(0), 1_000_000, Fraction(0)
        result = check_intervals(pair, product, pairs, min_mass=min_mass, max_paths=max_paths,
                                 max_unexplored=max_unexplored)
        name = getattr(batch, "__qualname__", "batch")
        return [replace(result, check="batch", summary=f"{name}(k={BATCH_DRAWS}) against the product law: {result.summary}")]

    def _enclosure(self, q: Hashable | None) -> tuple[Callable[[Hashable, int], tuple[Any, Any]], tuple[Hashable, ...]]:
        if self.spec.pmf is not None:
            pmf = self.table()[0 if q is None else q]
            return (lambda output, dps: (pmf.probability(output),) * 2), pmf.outputs
        ideal, outputs = self.spec.ideal, self.spec.outputs
        assert ideal is not None and outputs is not None
        listed = tuple(_declared(self.where, "outputs(p)", outputs, self.p))
        return (lambda output, dps: _declared(self.where, f"ideal(p, {output!r}, dps)", ideal, self.p, output, dps)), listed

    def statistical(self, case: Case, *, seed: int, samples: int, production: bool = False) -> list[CheckResult]:
        """The real sampler against the spec's law, on the seeded source (replayable) or, with
        ``production``, once as a user calls it: with no ``rng`` where the sampler has a default
        for it (the OS CSPRNG, through ``as_source(None)``), else on a SystemRandomSource (not
        replayable)."""
        if self.spec.sampler is None:
            return []
        rng = USERS_DEFAULT if production else None
        name = "statistical_production" if production else "statistical"
        if self.spec.pmf is not None:
            chosen = case.sample_inputs if case.sample_inputs is not None else (self.inputs or (0,))[:1]
            mechanism = _SampledMechanism(self)
            run = lambda q, index: check_empirical(mechanism, q, samples=samples, seed=seed + index, rng=rng)  # noqa: E731
            work = [(q, index) for index, q in enumerate(chosen[:1] if production else chosen)]
        elif self.spec.ideal is not None and self.inputs is None and case.sample_inputs != ():
            run = lambda q, index: check_empirical_ideal(_SampledNoise(self), samples=samples, seed=seed, rng=rng)  # noqa: E731
            work = [(None, 0)]
        else:
            return []
        results = []
        for q, index in work:
            try:
                result = run(q, index)
            except _SamplerRaised as raised:  # the code under test raised while being sampled
                error = raised.error
                result = CheckResult(name, Verdict.VIOLATED,
                                     f"the sampler raised {type(error).__name__} while being sampled "
                                     f"({'production source' if production else f'seed={seed + index}'}): {_short(str(error))}",
                                     evidence={"error": type(error).__name__, "message": _short(str(error)),
                                               "seed": None if production else seed + index})
            results.append(replace(result, check=name))
        return results

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
            ratio = PureDpClaim(claim.alpha)  # type: ignore[arg-type]
            return [check_pure_dp(tightest_alpha(table, neighbours), ratio),
                    check_ratio_bound_z3(table, neighbours, ratio)]
        if isinstance(claim, PureDp):
            return [check_pure_epsilon(table, neighbours, claim)]
        if isinstance(claim, ApproxDp):
            return [check_approx_dp(table, neighbours, claim)]
        assert isinstance(claim, Zcdp)
        return [check_zcdp(table, neighbours, claim)]

    def _claim_table(
        self, table: dict[Hashable, ExactPmf]
    ) -> tuple[dict[Hashable, ExactPmf], tuple[tuple[Hashable, Hashable], ...]]:
        if self.inputs is not None:
            pairs = _declared(self.where, "the neighbour relation", self.spec.input.pairs, self.p, self.inputs)  # type: ignore[union-attr]
            unknown = [q for pair in pairs for q in pair if q not in table]
            if unknown:
                raise SpecError(f"{self.where}: the neighbour relation names {shown(unknown[0])}, which is not an input.")
            return table, pairs
        # q + noise over integers with |q - q'| <= sensitivity: by shift invariance the rows
        # q = 0..sensitivity and every pair of them cover every neighbouring pair.
        noise, shift = table[0], self.spec.sensitivity_for(self.p)
        try:
            rows = {q: ExactPmf(tuple(o + q for o in noise.outputs), noise.weights, noise.denominator)  # type: ignore[operator]
                    for q in range(shift + 1)}
        except TypeError:
            raise SpecError(f"{self.where}: a noise sampler's outputs must be numbers, to add them to the input.") from None
        return rows, tuple((a, b) for a in rows for b in rows if a < b)

    def timing(self) -> list[CheckResult]:
        if not self.enumerable:
            return []
        q = None if self.inputs is None else self.inputs[0]
        outputs = None
        if self.spec.outputs is not None:
            outputs = tuple(_declared(self.where, "outputs(p)", self.spec.outputs, self.p))
        return [check_timing(lambda rng: self.run(q, rng), min_mass=TIMING_MIN_MASS, outputs=outputs)]


@functools.lru_cache(maxsize=64)
def _defaults_rng(function: Callable[..., Any]) -> bool:
    """Whether ``function`` has a default for ``rng``, so that a user may leave it out."""
    try:
        parameter = inspect.signature(function).parameters.get("rng")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.default is not inspect.Parameter.empty


def _names(function: Callable[..., Any]) -> frozenset[str] | None:
    from dpverify.specs._api import _keyword_names

    return _keyword_names(function)


def _probability(value: Any) -> Fraction:
    if isinstance(value, float) or isinstance(value, bool):
        raise TypeError(f"got the {type(value).__name__} {shown(value)}; give it as a Fraction, int or \"num/den\"")
    return Fraction(value)


class _Mechanism(MechanismSpec):
    """The engine's mechanism view of a bound spec (a noise sampler is the input ``0``)."""

    def __init__(self, instance: _Instance) -> None:
        self.instance = instance
        self.name = instance.spec.name
        self.replay_command = instance.replay

    def inputs(self) -> tuple[Hashable, ...]:
        return self.instance.inputs or (0,)

    def neighbours(self) -> tuple[tuple[Hashable, Hashable], ...]:
        return self.instance._claim_table(self.instance.table())[1]

    def pmf(self, q: Hashable) -> ExactPmf:
        return self.instance.table()[q]

    def ideal_pmf(self, q: Hashable) -> ExactPmf:
        return self.pmf(q)

    def run(self, q: Hashable, rng: RandomSource) -> Hashable:
        return self.instance.run(None if self.instance.inputs is None else q, rng)

    def claim(self) -> PureDpClaim:
        return PureDpClaim(1)

    def parameters(self) -> dict[str, str]:
        return {k: str(v) for k, v in self.instance.p.items()}

    def uniform_draw_size(self) -> int | None:
        if not isinstance(self.instance.enumeration, Bisection):
            return None
        probe = _FirstDraw()
        try:
            self.run(self.inputs()[0], probe)
        except _FirstDraw.Seen:
            pass
        return probe.size


class _UsersDefault(RandomSource, trusted=True):
    """Stands for calling the sampler with no ``rng``; it is never drawn from."""

    def randbelow(self, n: int) -> int:
        raise AssertionError("the user's default source stands for an rng the sampler is not given")


#: Passed where a source is expected, it makes the run call the sampler without ``rng``.
USERS_DEFAULT = _UsersDefault()


class _FirstDraw(RandomSource, trusted=True):
    """Records the size of the first ``randbelow`` and stops the run there."""

    class Seen(BaseException):  # not an Exception: a sampler's own "except Exception" must not swallow it
        pass

    size: int | None = None

    def randbelow(self, n: int) -> int:
        self.size = n
        raise self.Seen

    def bernoulli(self, num: int, den: int) -> bool:
        raise self.Seen


class _Noise(NoiseSpec):
    """The engine's noise view of a bound spec with an ideal PMF."""

    def __init__(self, instance: _Instance) -> None:
        self.instance = instance
        self.name = instance.spec.name

    def run(self, rng: RandomSource) -> Hashable:
        return self.instance.run(None, rng)

    def ideal_pmf_expr(self) -> Any:
        raise NotImplementedError("a declared spec gives enclosures, not a SymPy expression")

    def ideal_probability(self, output: Hashable, dps: int = 50) -> tuple[Any, Any]:
        return self.instance._enclosure(None)[0](output, dps)

    def parameters(self) -> dict[str, str]:
        return {k: str(v) for k, v in self.instance.p.items()}

    def outputs_for_check(self) -> tuple[Hashable, ...]:
        return self.instance._enclosure(None)[1]


class _SamplerRaised(Exception):
    """The code under test raised while being sampled (set apart from a check refusing the spec)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


class _SampledMechanism(_Mechanism):
    def run(self, q: Hashable, rng: RandomSource) -> Hashable:
        try:
            return super().run(q, rng)
        except Exception as error:  # noqa: BLE001 - whatever the code raises is a finding
            raise _SamplerRaised(error) from error


class _SampledNoise(_Noise):
    def run(self, rng: RandomSource) -> Hashable:
        try:
            return super().run(rng)
        except Exception as error:  # noqa: BLE001
            raise _SamplerRaised(error) from error
