"""Exactness: the PMF derived from the sampler's code must equal the spec's closed form."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from fractions import Fraction

from dpverify.samplers import InvalidArgument, SamplerContractError
from dpverify.specs import MechanismSpec
from dpverify.verify.engine._arguments import need_count, need_instance, need_member, shown
from dpverify.verify.engine._bisect import bisect_outputs
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._enumeration import Enumeration, SamplerCrashed
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value

#: Up to this many draws a single-draw sampler is enumerated path by path; above, bisected.
EXHAUSTIVE_DRAW_LIMIT = 4096


def code_distribution(spec: MechanismSpec, q: Hashable, *, max_paths: int = 1_000_000) -> Enumeration:
    """The exact output distribution of the spec's sampler code for input ``q``.

    Single-draw inverse transforms with more than ``EXHAUSTIVE_DRAW_LIMIT`` draws are
    bisected; everything else is enumerated path by path within ``max_paths``.
    """
    _need_spec(spec)
    q = _need_input(spec, q)
    max_paths = need_count("max_paths", max_paths, low=1)
    sampler = lambda rng: spec.run(q, rng)  # noqa: E731 - a closure over q is the point
    T = spec.uniform_draw_size()
    if T is not None and T > EXHAUSTIVE_DRAW_LIMIT:
        return bisect_outputs(sampler, T)
    return enumerate_outputs(sampler, max_paths=max_paths)


def _need_spec(spec: object) -> None:
    need_instance("spec", spec, MechanismSpec, 'a MechanismSpec, e.g. GtmSpec.create("1/3", 5, 1000)')


def _need_input(spec: MechanismSpec, q: object) -> Hashable:
    """The spec's own input equal to ``q``, else InvalidArgument."""
    inputs = spec.inputs()
    return need_member("q", q, inputs, f"one of the spec's inputs {shown(inputs)}")


def first_difference(code: dict[Hashable, Fraction], expected: dict[Hashable, Fraction]) -> Hashable | None:
    """The first output (in the spec's order, then the code's) whose probabilities differ."""
    for output in [*expected, *(o for o in code if o not in expected)]:
        if code.get(output, Fraction(0)) != expected.get(output, Fraction(0)):
            return output
    return None


def check_exactness(
    spec: MechanismSpec, inputs: Iterable[Hashable] | None = None, *, max_paths: int = 1_000_000
) -> CheckResult:
    """Proved when, for every input, the code's exact PMF equals ``spec.pmf``; violated at the
    first input and output where they differ; inconclusive if enumeration could not finish."""
    _need_spec(spec)
    max_paths = need_count("max_paths", max_paths, low=1)
    if inputs is not None:
        if isinstance(inputs, (str, bytes)) or not isinstance(inputs, Iterable):
            raise InvalidArgument(
                f"inputs must be None or an iterable of the spec's inputs; got inputs={shown(inputs)} "
                f"({type(inputs).__name__})."
            )
        inputs = [_need_input(spec, q) for q in inputs]
    checked = 0
    executions = 0
    methods = set()
    for q in spec.inputs() if inputs is None else inputs:
        try:
            found = code_distribution(spec, q, max_paths=max_paths)
        except SamplerCrashed as crash:
            return CheckResult(
                "exactness",
                Verdict.VIOLATED,
                f"q={q}: {crash}",
                evidence={"q": json_value(q), "draws": crash.draws, "error": repr(crash.error)},
            )
        except SamplerContractError as error:
            return CheckResult("exactness", Verdict.INCONCLUSIVE, f"q={q}: {error}", reason=str(error))
        executions += found.executions
        methods.add(found.method)
        if not found.exhausted:
            reason = (
                f"enumeration of q={q} stopped after {found.paths} paths with mass "
                f"{fraction_text(found.unexplored)} unexplored (max_paths={max_paths})"
            )
            return CheckResult("exactness", Verdict.INCONCLUSIVE, reason, reason=reason)
        expected = spec.pmf(q).as_dict()
        output = first_difference(found.masses, expected)
        if output is not None:
            code_p = found.masses.get(output, Fraction(0))
            spec_p = expected.get(output, Fraction(0))
            return CheckResult(
                "exactness",
                Verdict.VIOLATED,
                f"code and spec differ at q={q}, output={output}: code {code_p} vs spec {spec_p}",
                evidence={
                    "q": json_value(q),
                    "output": json_value(output),
                    "code_p": fraction_text(code_p),
                    "spec_p": fraction_text(spec_p),
                    "difference": fraction_text(code_p - spec_p),
                },
            )
        checked += 1
    return CheckResult(
        "exactness",
        Verdict.PROVED,
        f"code PMF equals the spec exactly for all {checked} inputs "
        f"({'+'.join(sorted(methods))}, {executions} executions)",
        evidence={"inputs_checked": checked, "executions": executions, "methods": sorted(methods)},
    )
