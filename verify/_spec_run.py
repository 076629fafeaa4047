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
to 1, a sampler that raises on valid parameters) gives the outcome ``error`` with one message
naming the spec, the case and the problem: a broken spec, never a privacy verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from dpverify.samplers import DpverifyError, InvalidArgument, RandomSource, SamplerContractError, SeededRandomSource, as_int
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf, MechanismSpec, NoiseSpec, PureDpClaim
from dpverify.specs._api import Attempt, Bisection, Bounded, Case, Exhaustive, Params, Randomness, Spec, SpecError
from dpverify.specs._claims import ApproxDp, Claim, PureDp, SamplesPmf, Zcdp
from dpverify.verify._claim_checks import check_approx_dp, check_pure_epsilon, check_zcdp
from dpverify.verify._enumerate import SamplerCrashed
from dpverify.verify._exactness import check_exactness, code_distribution
from dpverify.verify._intervals import check_intervals
from dpverify.verify._privacy import check_pure_dp, tightest_alpha
from dpverify.verify._random_compat import RandomCompat
from dpverify.verify._results import CheckResult, Verdict, fraction_text
from dpverify.verify._smt import check_ratio_bound_z3
from dpverify.verify._statistics import check_empirical, check_empirical_ideal
from dpverify.verify._timing import check_timing

__all__ = ["ERROR", "CaseOutcome", "run_case"]

#: The outcome of a case whose spec cannot be checked as written.
ERROR = "error"
#: The timing report enumerates the whole sampler, retries included; this budget keeps it quick.
TIMING_MIN_MASS = Fraction(1, 10**5)
#: How many inputs the smoke run tries before the checks start.
SMOKE_INPUTS = 16


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
    spec: Spec, case: Case, *, seed: int, samples: int, origin: str = "", statistics: bool = True
) -> CaseOutcome:
    """Every check that applies to ``case`` of ``spec``; ``statistics=False`` skips the sampling
    (a search runs only the exact checks)."""
    if not isinstance(spec, Spec) or not isinstance(case, Case):
        raise InvalidArgument(f"run_case needs a Spec and a Case; got spec={shown(spec)}, case={shown(case)}.")
    seed = as_int("seed", seed, low=0)
    samples = as_int("samples", samples, low=1)
    where = f"spec {spec.name!r}, case {case.describe()!r}"
    try:
        return _run(spec, case, seed=seed, samples=samples, origin=origin, statistics=statistics)
    except SpecError as error:
        return CaseOutcome(spec, case, origin, ERROR, error=str(error))
    except DpverifyError as error:  # an engine check refused what this spec gave it
        return CaseOutcome(spec, case, origin, ERROR, error=f"{where}: {error}")
    except Exception as error:  # noqa: BLE001 - one case's failure is reported, and the gate goes on
        return CaseOutcome(spec, case, origin, ERROR,
                           error=f"{where}: checking stopped on {type(error).__name__}: {_short(str(error))}")


def _run(spec: Spec, case: Case, *, seed: int, samples: int, origin: str, statistics: bool) -> CaseOutcome:
    where = f"spec {spec.name!r}, case {case.describe()!r}"
    p = spec.bind(case, where=f"case {case.describe()!r}")
    claim = _declared(where, "claim(p)", spec.claim_for, p, case)
    instance = _Instance(spec, p, where, seed=seed, samples=samples, origin=origin)
    instance.smoke(seed)

    soundness: list[CheckResult] = [*instance.exactness(), *instance.intervals()]
    if statistics:
        soundness += instance.statistical(case, seed=seed, samples=samples)
    claims = [*instance.claim_checks(claim, instance.table() if spec.pmf is not None else None)]
    if any(c.check == "exactness" and c.verdict is Verdict.VIOLATED for c in soundness):
        # The code does not sample the spec's PMF, so the claim proved on the spec says nothing
        # about the code: check it on the code's own exact PMF too, for a counterexample of its own.
        code = instance.code_table()
        if code is not None:
            claims += [replace(c, check=f"code_{c.check}") for c in instance.claim_checks(claim, code)]
    for check in spec.checks:
        result = _declared(where, f"check {getattr(check, '__name__', check)!r}", check, p)
        if not isinstance(result, CheckResult):
            raise SpecError(f"{where}: a declared check returned {shown(result)}; it must return a CheckResult.")
        claims.append(result)
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
        spec, case, origin, outcome.value, (*soundness, *claims, *findings), tuple(problems),
        claim.describe(), None if alpha is None else fraction_text(alpha),  # type: ignore[arg-type]
    )


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
        module = f" --spec-module {origin.removeprefix('module ')}" if origin.startswith("module ") else ""
        self.replay = f"dpverify check{module} --spec {spec.name} --seed {seed} --samples {samples}"
        self._table: dict[Hashable, ExactPmf] | None = None

    # --- running the code ----------------------------------------------------------------

    def run(self, q: Hashable | None, rng: RandomSource, function: Callable[..., Any] | None = None) -> Any:
        # The hot path of every enumeration and sample: everything constant is set up once.
        function = function or self.spec.sampler
        assert function is not None
        kwargs = self.arguments if self.input_name is None else {**self.arguments, self.input_name: q}
        if self.randomness is Randomness.SOURCE:
            return function(**kwargs, rng=rng)
        if self.randomness is Randomness.RANDOM:
            return function(**kwargs, rng=RandomCompat(rng))
        return function(**kwargs)

    def smoke(self, seed: int) -> None:
        """One run per input (up to :data:`SMOKE_INPUTS`): a sampler that raises on valid
        parameters, or returns an unhashable value, makes the spec unusable as written."""
        if self.spec.sampler is None:
            return
        rng = SeededRandomSource(seed)
        for q in (self.inputs or (None,))[:SMOKE_INPUTS]:
            at = "" if q is None else f" at {self.spec.input.name}={q!r}"  # type: ignore[union-attr]
            try:
                output = self.run(q, rng)
                hash(output)
            except DpverifyError as error:
                raise SpecError(f"{self.where}: the sampler refused valid parameters{at}: {_short(str(error))}") from None
            except Exception as error:  # noqa: BLE001 - the sampler is the user's code
                raise SpecError(
                    f"{self.where}: the sampler raised {type(error).__name__} on valid parameters{at}: {_short(str(error))}"
                ) from None

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
        if not self.enumerable or not isinstance(self.enumeration, (Bounded, Attempt)):
            return []
        results = []
        for q in self.inputs or (None,):
            if isinstance(self.enumeration, Attempt):
                attempt = self.enumeration.attempt
                sampler = lambda rng, q=q: self.run(q, rng, attempt)  # noqa: E731
            else:
                sampler = lambda rng, q=q: self.run(q, rng)  # noqa: E731
            ideal, outputs = self._enclosure(q)
            results.append(check_intervals(sampler, ideal, outputs, min_mass=self.enumeration.min_mass,
                                           max_paths=self.enumeration.max_paths,
                                           attempt=isinstance(self.enumeration, Attempt)))
        return results

    def _enclosure(self, q: Hashable | None) -> tuple[Callable[[Hashable, int], tuple[Any, Any]], tuple[Hashable, ...]]:
        if self.spec.pmf is not None:
            pmf = self.table()[0 if q is None else q]
            return (lambda output, dps: (pmf.probability(output),) * 2), pmf.outputs
        ideal, outputs = self.spec.ideal, self.spec.outputs
        assert ideal is not None and outputs is not None
        listed = tuple(_declared(self.where, "outputs(p)", outputs, self.p))
        return (lambda output, dps: _declared(self.where, f"ideal(p, {output!r}, dps)", ideal, self.p, output, dps)), listed

    def statistical(self, case: Case, *, seed: int, samples: int) -> list[CheckResult]:
        if self.spec.sampler is None:
            return []
        if self.spec.pmf is not None:
            chosen = case.sample_inputs if case.sample_inputs is not None else (self.inputs or (0,))[:1]
            mechanism = self.mechanism()
            return [check_empirical(mechanism, q, samples=samples, seed=seed + index) for index, q in enumerate(chosen)]
        if self.spec.ideal is not None and self.inputs is None and case.sample_inputs != ():
            return [check_empirical_ideal(_Noise(self), samples=samples, seed=seed)]
        return []

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
