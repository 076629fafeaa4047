"""Black-box audits: samplers that draw their own randomness (OpenDP through its bindings, numpy).

Such code cannot be run on dpverify's sources, so nothing about it is exact; what can be said
is statistical, with every false-positive rate bounded non-asymptotically.  Two tests:

**Distribution test** (:func:`~dpverify.verify.published._blackbox_distribution.check_black_box_distribution`).
``N`` draws at one input ``q`` against the spec's law: its exact ``pmf(p, q)``, or its certified
``ideal`` enclosure of the noise, read additively (``P(o | q) = ideal(p, o - q)`` for a spec
with an input; the noise itself for a spec without one).  Three parts, the last two at ``beta/2`` each:

1. certain violations: the sampler raised on a valid input, returned something that is not a
   finite number (``None``, a string, NaN), a non-integer where the law is over integers, or an
   output the exact PMF gives probability 0;
2. the DKW–Massart test of :mod:`dpverify.verify.engine._statistics` over all ``N`` draws (power: every
   CDF distance above ``2t`` is caught with probability ``>= 1 - beta/2``);
3. an *atom* test for mass piled on one output (a saturated or wrapped integer type): the output
   with the largest excess ``count/N1 - P_high(o)`` over the spec's upper enclosure is chosen on
   the first half of the draws, and on the held-out second half its exact Clopper–Pearson lower
   bound at ``beta/2`` must stay at most ``P_high(o)``.  The output is chosen before the second
   half is looked at, so the bound holds at level ``beta/2`` whatever was chosen.

**Privacy test** (:func:`~dpverify.verify.published._blackbox_privacy.check_black_box_privacy_search`).
``N`` draws at each input of the spec's first :data:`MAX_PAIRS` neighbouring pairs, each split
into a *selection* half and a *held-out* half.  A pair ``(q0, q1)``, an output event ``E`` and a
direction (``A, B`` = ``q0, q1`` or ``q1, q0``) are chosen on the selection halves only; on the
chosen pair's held-out halves, the exact Clopper–Pearson bounds ``L = CP_low(k_A, n_A, alpha/2)``
and ``U = CP_high(k_B, n_B, alpha/2)`` hold jointly with probability ``>= 1 - alpha`` (union
bound over the two sides; the held-out halves are independent of everything the choice saw, so
no correction for the pairs or events searched is needed), and then every ``(eps, delta)``-DP
mechanism has ``L <= P_A(E) <= e^eps P_B(E) + delta <= e^eps U + delta``, so

    eps >= ln((L - delta) / U)            with confidence 1 - alpha.

For a zCDP claim, ``D_a(P_A || P_B) >= D_a(Bern(P_A(E)) || Bern(P_B(E))) >= D_a(Bern(L) || Bern(U))``
(data processing, then the monotonicity of the binary divergence away from its zero when
``L > U``), so ``rho >= max_a D_a(Bern(L) || Bern(U)) / a`` over a fixed grid of orders ``a``
(Bun and Steinke 2016, Definition 1.1).  The verdict is ``violated`` exactly when the bound
exceeds the claim; a sampler that meets its claim is reported violated with probability at
most ``alpha``, for every ``N``.

*How the search is steered* (:mod:`~dpverify.verify.published._blackbox_search`).  The events
are intervals between the selection halves' 16-quantiles and points around the inputs, each
alone or intersected with a float-structure condition ("``o * 2**j`` is (not) an integer"), and
atoms (the most frequent single outputs, every exception or garbage value); for vector outputs
the same families on each coordinate, and intervals and atoms on the sum and the L2 norm.
Mironov ("On significance of the least significant bits for differential privacy", CCS 2012)
showed why the float structure is needed: for ``q + Laplace`` in doubles with ``q in {0, 1}``,
outputs in ``(0, 1/2)`` come from input 1 only as ``fl(1 + n) = 1 + n`` with
``n in (-1, -1/2)``, a multiple of ``2**-53`` (Sterbenz), while input 0 returns the noise
itself, which mostly is not.  Every event is scored on the selection halves by a smoothed
log-ratio that imitates the held-out bound; the best one over every pair is the only one tested.

Runs: the draws of each input run in their own process (all at once), under a time bound; a
sampler that hangs ends the test ``inconclusive`` with the number of draws it finished.  Each
process seeds ``random`` and, where it is installed, ``numpy.random`` from the seed, so a numpy
black box replays; OpenDP draws from the operating system and does not.

Where each part lives: the outcome kinds and the drawing in
:mod:`~dpverify.verify.published._blackbox_draw`, the privacy test in
:mod:`~dpverify.verify.published._blackbox_privacy` and its event search in
:mod:`~dpverify.verify.published._blackbox_search`, the distribution test in
:mod:`~dpverify.verify.published._blackbox_distribution`; this module runs both on a case of a
spec (:func:`audit_case`) and writes the audit document (:func:`audit_black_box`).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from dpverify.samplers import DpverifyError, InvalidArgument, SystemRandomSource, as_int, as_open_unit_interval
from dpverify.samplers._rational import RationalLike, shown
from dpverify.specs import ExactPmf
from dpverify.specs._api import Case, Randomness, Spec, SpecError
from dpverify.specs._claims import SamplesPmf
from dpverify.verify.engine._arguments import need_seed
from dpverify.verify.engine._random_compat import RandomCompat
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value
from dpverify.verify.engine._statistics import _mpf_fraction
from dpverify.verify.published._blackbox_distribution import DEFAULT_BETA, Law, check_black_box_distribution
from dpverify.verify.published._blackbox_draw import Draws, Raised, _is_vector, _numeric, draw, normalise
from dpverify.verify.published._blackbox_privacy import DEFAULT_ALPHA, check_black_box_privacy_search

__all__ = [
    "BLACKBOX_SCHEMA",
    "MAX_PAIRS",
    "CaseResult",
    "audit_black_box",
    "audit_case",
    "resolve_black_box",
]

BLACKBOX_SCHEMA = "dpverify.blackbox/1"
#: Neighbouring pairs the privacy test searches by default (the spec's first ones): each adds
#: up to two inputs' draws, and the drawing dominates an audit's time.
MAX_PAIRS = 4


# --- one case of a spec, and the audit document -----------------------------------------------------


def _plus(q: Hashable, value: Hashable, sign: int = 1) -> Hashable:
    """``value + sign * q`` for a number ``q``: a vector moves in its first coordinate only, so the
    queries ``0`` and ``sensitivity`` stay ``sensitivity`` apart in every norm and no claim is held
    to a larger distance than it covers; anything else passes through."""
    if not _numeric(q):
        return value
    if _is_vector(value) and value:
        return (value[0] + sign * q, *value[1:])
    return value + sign * q if _numeric(value) else value


def _shifted(q: Hashable, noise: object) -> Hashable:
    """``q + noise`` for a noise spec's mechanism (exact for ints; see :func:`_plus` for vectors)."""
    return _plus(q, normalise(noise))


def _caller(spec: Spec, arguments: dict[str, Any], q: Hashable) -> Callable[[], object]:
    """A call of the sampler at ``q``; a sampler that takes ``rng`` gets the production source
    (the OS CSPRNG), as a user's call would, so any spec can be audited as a black box."""
    sampler = spec.sampler
    assert sampler is not None
    randomness = Randomness(spec.randomness)
    if randomness is not Randomness.NONE:
        source = SystemRandomSource()
        arguments = {**arguments, "rng": source if randomness is Randomness.SOURCE else RandomCompat(source)}
    if spec.input is not None:
        named = {**arguments, spec.input.name: q}
        return lambda: sampler(**named)
    return lambda: _shifted(q, sampler(**arguments))


def _law(spec: Spec, p: dict[str, Any], q: Hashable) -> tuple[Law, list[Hashable], bool] | None:
    """``(law, listed, exact)`` of the output at input ``q``, or None when the spec states no law."""
    if spec.pmf is not None:
        value = spec.pmf(p, q) if spec.input is not None else spec.pmf(p)
        table = (
            {o: Fraction(w, value.denominator) for o, w in zip(value.outputs, value.weights, strict=True)}
            if isinstance(value, ExactPmf)
            else {o: Fraction(w) for o, w in dict(value).items()}
        )
        if spec.input is None:
            table = {_plus(q, o): w for o, w in table.items()}
        exact_law: Law = lambda o: (table.get(o, Fraction(0)), table.get(o, Fraction(0)))  # noqa: E731
        return exact_law, list(table), True
    if spec.ideal is not None and spec.outputs is not None:
        ideal = spec.ideal

        def enclosed(o: Hashable) -> tuple[Fraction, Fraction]:
            low, high = ideal(p, _plus(q, o, -1), 30)
            return _mpf_fraction(mpmath.mpf(low)), _mpf_fraction(mpmath.mpf(high))

        return enclosed, [_plus(q, z) for z in spec.outputs(p)], False
    return None


def _missing_module(draws: Draws) -> str | None:
    """The module a sampler could not import, when every draw raised that: not a finding about it."""
    if draws.outputs and all(
        isinstance(o, Raised) and o.error in ("ModuleNotFoundError", "ImportError") for o in draws.outputs[:10]
    ):
        first = draws.outputs[0]
        assert isinstance(first, Raised)
        return first.message
    return None


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case's black-box checks, its outcome and whether it met the case's expectation."""

    case: Case
    outcome: str
    checks: tuple[CheckResult, ...]
    seconds: float
    notes: tuple[str, ...] = ()

    @property
    def met(self) -> bool:
        return self.outcome == self.case.expect

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.case.describe(),
            "parameters": {k: str(v) for k, v in self.case.parameters.items()},
            "expect": self.case.expect,
            "why": self.case.why,
            "outcome": self.outcome,
            "met": self.met,
            "seconds": self.seconds,
            "notes": list(self.notes),
            "checks": [c.to_json() for c in self.checks],
        }


def _searched_pairs(
    spec: Spec, p: dict[str, Any], case: Case, max_pairs: int
) -> tuple[list[Hashable], list[tuple[int, int]], int]:
    """``(inputs, index pairs, pairs available)``: the distinct inputs of the spec's first
    ``max_pairs`` neighbouring pairs in order of appearance (for a spec without an input, ``0``
    and ``sensitivity``, the mechanism being ``q + noise``)."""
    if spec.input is None:
        return [0, spec.sensitivity_for(p)], [(0, 1)], 1
    pairs = spec.input.pairs(p, tuple(spec.input.values(p)))
    if not pairs:
        raise SpecError(f"spec {shown(spec.name)}: case {case.describe()} has no neighbouring inputs to compare.")
    inputs: list[Hashable] = []

    def index(q: Hashable) -> int:
        for i, known in enumerate(inputs):
            if type(known) is type(q) and known == q:
                return i
        inputs.append(q)
        return len(inputs) - 1

    indexed = [(index(a), index(b)) for a, b in pairs[:max_pairs]]
    return inputs, indexed, len(pairs)


def _shape_violation(outputs: Sequence[Hashable], listed: Sequence[Hashable], where: str) -> CheckResult | None:
    """A certain violation when the sampler returns vectors where the spec's law is over numbers,
    or numbers where it is over vectors (the law cannot even be evaluated there)."""
    vectors = {_is_vector(o) for o in listed}
    if len(vectors) != 1:
        return None
    law_vectors = vectors.pop()
    for count, output in enumerate(outputs):
        if (_is_vector(output) and not law_vectors) or (_numeric(output) and law_vectors):
            what = f"a vector of length {len(output)}" if _is_vector(output) else f"the number {output!r}"
            law = "vectors" if law_vectors else "numbers"
            n = sum(1 for o in outputs if _is_vector(o) != law_vectors and (_is_vector(o) or _numeric(o)))
            return CheckResult(
                "blackbox_distribution",
                Verdict.VIOLATED,
                f"the sampler returned {what} where the spec's law is over {law} ({n} of {len(outputs)} "
                f"draws, the first at draw {count}; a certain violation); {where}",
                evidence={"output": json_value(output), "count": n, "samples": len(outputs)},
            )
    return None


def audit_case(
    spec: Spec,
    case: Case,
    *,
    seed: int,
    samples: int,
    alpha: RationalLike = DEFAULT_ALPHA,
    beta: RationalLike = DEFAULT_BETA,
    time_limit: float = 120,
    max_pairs: int = MAX_PAIRS,
) -> CaseResult:
    """Both tests on ``case`` of a black-box ``spec``: ``samples`` draws at each input of the
    spec's first ``max_pairs`` neighbouring pairs (for a spec without an input, ``0`` and
    ``sensitivity``, the mechanism being ``q + noise``), one process per input, all under
    ``time_limit`` seconds; the distribution test on the first input's draws, the privacy test
    over every pair drawn."""
    if not isinstance(spec, Spec) or spec.sampler is None:
        raise InvalidArgument(f"a black-box audit needs a Spec with a sampler; got spec={shown(spec)}.")
    samples = as_int("samples", samples, low=4)
    max_pairs = as_int("max_pairs", max_pairs, low=1)
    started = time.monotonic()
    p = spec.bind(case)
    claim = spec.claim_for(p, case)
    arguments = spec.sampler_arguments(p)
    inputs, pairs, available = _searched_pairs(spec, p, case, max_pairs)
    draws = draw([_caller(spec, arguments, q) for q in inputs], samples, seed=seed, time_limit=time_limit)
    seconds = max(d.seconds for d in draws)
    where = f"seed={seed}, {samples} draws per input, {seconds:.1f} s"
    missing = next((m for m in map(_missing_module, draws) if m), None)
    if missing:
        reason = f"the sampler cannot run here: {missing}"
        result = CheckResult("blackbox", Verdict.INCONCLUSIVE, reason, reason=reason, evidence={"seed": seed})
        return CaseResult(case, Verdict.INCONCLUSIVE.value, (result,), time.monotonic() - started)
    if not all(d.complete for d in draws):
        done = ", ".join(f"{len(d.outputs)} at q={q!r}" for d, q in zip(draws, inputs, strict=True))
        crashed = [d.exit_code for d in draws if not d.complete and not d.timed_out]
        reason = (
            f"the sampler's process died (exit code {crashed[0]}) after {done} draws: a crash in native code"
            if crashed
            else f"the sampler did not finish {samples} draws per input within the time limit of {time_limit} s "
            f"({done}): it hangs or is too slow"
        )
        result = CheckResult(
            "blackbox",
            Verdict.INCONCLUSIVE,
            f"{reason}; seed={seed}",
            reason=reason,
            evidence={"seed": seed, "draws_done": [len(d.outputs) for d in draws], "time_limit": time_limit},
        )
        return CaseResult(case, Verdict.INCONCLUSIVE.value, (result,), time.monotonic() - started)
    checks: list[CheckResult] = []
    notes: list[str] = []
    law = _law(spec, p, inputs[0])
    if law is None:
        notes.append("no distribution test: the spec states no PMF or ideal enclosure")
    else:
        function, listed, exact = law
        integer = all(isinstance(o, int) and not isinstance(o, bool) for o in listed)
        here = f"q={inputs[0]!r}, {where}"
        checks.append(
            _shape_violation(draws[0].outputs, listed, here)
            or check_black_box_distribution(
                draws[0].outputs,
                function,
                listed,
                exact=exact,
                integer=integer,
                beta=beta,
                seed=draws[0].seed,
                where=here,
            )
        )
    if isinstance(claim, SamplesPmf):
        notes.append("no privacy test: the spec claims only a PMF")
    else:
        if available > len(pairs):
            notes.append(f"the privacy test searched the first {len(pairs)} of {available} neighbouring pairs")
        checks.append(
            check_black_box_privacy_search(
                [d.outputs for d in draws],
                inputs,
                pairs,
                claim,
                alpha=alpha,
                seed=seed,
                seconds=seconds,
                pairs_available=available,
            )
        )
    verdicts = {c.verdict for c in checks}
    outcome = (
        Verdict.VIOLATED
        if Verdict.VIOLATED in verdicts
        else Verdict.INCONCLUSIVE
        if Verdict.INCONCLUSIVE in verdicts or not checks
        else Verdict.PROVED
    )
    return CaseResult(case, outcome.value, tuple(checks), time.monotonic() - started, tuple(notes))


def resolve_black_box(reference: str, modules: Sequence[str] = ()) -> tuple[Spec, str]:
    """The spec ``reference`` names, and where it came from: ``module:attribute`` (a
    :class:`~dpverify.specs.Spec`), a built-in black box
    (:data:`~dpverify.verify.published._blackbox_specs.BLACK_BOXES`), or a spec that ``--spec-module``
    or the installed entry points declare."""
    if ":" in reference:
        module_name, _, attribute = reference.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise DpverifyError(
                f"SPEC={shown(reference)}: module {shown(module_name)} cannot be imported: {error}."
            ) from None
        spec = getattr(module, attribute, None)
        if not isinstance(spec, Spec):
            raise DpverifyError(
                f"SPEC={shown(reference)} must name a dpverify.specs.Spec; got {shown(spec)} ({type(spec).__name__})."
            )
        return spec, reference
    from dpverify.verify.published._blackbox_specs import BLACK_BOXES

    if not modules and reference in BLACK_BOXES:
        return BLACK_BOXES[reference], "dpverify.verify.published._blackbox_specs"
    from dpverify.verify.gate._discovery import discover

    (found,) = discover(modules, names=[reference])
    return found.spec, found.origin


def audit_black_box(
    spec: Spec,
    origin: str,
    cases: Sequence[Case],
    *,
    seed: int | None = None,
    samples: int = 20_000,
    alpha: RationalLike = DEFAULT_ALPHA,
    beta: RationalLike = DEFAULT_BETA,
    time_limit: float = 120,
    command: str = "",
    max_pairs: int = MAX_PAIRS,
) -> dict[str, Any]:
    """The ``dpverify.blackbox/1`` document (``schemas/blackbox-1.schema.json``) of every case."""
    seed_ = need_seed(seed)
    a = as_open_unit_interval("alpha", alpha)
    b = as_open_unit_interval("beta", beta)
    results = [
        audit_case(spec, case, seed=seed_, samples=samples, alpha=a, beta=b, time_limit=time_limit, max_pairs=max_pairs)
        for case in cases
    ]
    met = sum(r.met for r in results)
    return {
        "schema": BLACKBOX_SCHEMA,
        "spec": {
            "name": spec.name,
            "origin": origin,
            "randomness": Randomness(spec.randomness).value,
            "description": spec.description,
            "citation": spec.citation,
        },
        "command": command,
        "seed": seed_,
        "samples_per_input": samples,
        "alpha": fraction_text(a),
        "beta": fraction_text(b),
        "time_limit": time_limit,
        "max_pairs": max_pairs,
        "cases": [r.to_json() for r in results],
        "verdict": {
            "met": met,
            "cases": len(results),
            "exit_code": 0 if met == len(results) else 1,
            "summary": f"{met} of {len(results)} case(s) met their expectation",
        },
    }
