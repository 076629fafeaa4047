"""``dpverify audit``: everything the engine knows about one spec, gathered into one document.

The document (schema ``dpverify.audit/2``, ``schemas/audit-2.schema.json``) is built only from
the public spec API and the gate's own case runner (:func:`~dpverify.verify.gate._spec_run.run_case`),
so a user's plugin spec is audited exactly as a built-in one.  Its sections, in the order the
report shows them:

1. ``trusted_base`` and ``spec``: the randomness sources the verdicts stand on, the versions of
   Python and of every solver and library involved, the spec, its origin, citation, parameters
   and claim;
2. per case, ``pmfs``: the code's exact PMF next to the spec's closed form (an exhaustive or
   bisected enumeration), or the code's exact intervals around the ideal enclosures (a bounded
   enumeration), truncated to the most likely outputs with the truncation stated;
3. ``privacy``: the tightest privacy of the code with its witness, the spec's closed form, the
   ideal mechanism, and the paper's bounds where an analysis of the sampler is known;
4. ``proofs``: the case's Z3 verdicts and, once per spec (``certificates``), the certificates of
   ``proofs/manifest.json`` covering a function the spec's code or closed form runs, with
   their verdicts and whether they are stale;
5. ``statistics``: the statistical cross-checks with their seeds, false-positive bound and power;
6. ``timing``: the draw-count timing channel, where the spec asks for it;
7. ``mutation`` (once): the rows of a ``dpverify mutate --json`` document for the modules the
   spec's sampler runs in.

Every section is present; one that does not apply says why (``applicable: false``, ``reason``).
Exact rationals are ``"num/den"`` strings; floats appear only as ``*_decimal`` renderings and in
the plots' series, which are pictures, never verdicts.

This module assembles the document and reads the command line's parameters; the sections
gathered once per spec are in :mod:`._audit_per_spec`, one case's sections in :mod:`._audit_case`
and the privacy numbers of section 3 in :mod:`._audit_privacy`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.specs._api import Bisection, Bounded, Case, Exhaustive, Randomness, Spec, SpecError
from dpverify.verify.engine._results import fraction_text
from dpverify.verify.gate._discovery import FoundSpec
from dpverify.verify.gate._spec_run import ERROR
from dpverify.verify.reports._audit_case import CaseAudit, Progress, _case_audit
from dpverify.verify.reports._audit_per_spec import _certificates_section, _mutation_section, _traced, trusted_base

__all__ = ["AUDIT_SCHEMA", "Audit", "audit_spec", "parameters_case"]

AUDIT_SCHEMA = "dpverify.audit/2"
#: Digits of the decimal renderings.
DIGITS = 20
#: Seconds one traced run of a case's code may take (see ``_traced``); all of a case's runs also
#: stay within what the case's time bound left.
TRACE_LIMIT = 10


# --- parameters from the command line -------------------------------------------------------------


def parameters_case(spec: Spec, pairs: Sequence[tuple[str, str]]) -> Case:
    """The case ``--NAME VALUE ...`` names: every declared parameter exactly once, validated."""
    declared = ", ".join(f"--{name}" for name in spec.parameters) or "(none)"
    given: dict[str, str] = {}
    for name, value in pairs:
        if name not in spec.parameters:
            raise DpverifyError(f"spec {shown(spec.name)} has no parameter --{name}; its parameters are {declared}.")
        if name in given:
            raise DpverifyError(f"--{name} is given twice; give each of {declared} once.")
        given[name] = value
    missing = [f"--{name}" for name in spec.parameters if name not in given]
    if missing:
        raise DpverifyError(f"spec {shown(spec.name)} needs {', '.join(missing)}; its parameters are {declared}.")
    case = Case(given, "proved", "the parameters given on the command line; the claim is expected to hold")
    try:
        spec.bind(case)
    except SpecError as error:  # a value outside the domain is the user's input, not a broken spec
        raise DpverifyError(
            str(error).split(": ", 2)[-1] if "outside its declared domain" in str(error) else str(error)
        ) from None
    return case


@dataclass
class Audit:
    document: dict[str, Any]
    cases: list[CaseAudit]

    @property
    def exit_code(self) -> int:
        return int(self.document["verdict"]["exit_code"])


# --- the whole audit ------------------------------------------------------------------------------


def audit_spec(
    found: FoundSpec,
    cases: Sequence[Case],
    *,
    seed: int,
    samples: int,
    time_limit: int | None,
    mutants: dict[str, Any] | None = None,
    mutants_path: str | None = None,
    command: str = "",
    progress: Progress | None = None,
) -> Audit:
    """Audit ``cases`` of ``found``'s spec: the whole ``dpverify.audit/2`` document and the plots' series."""
    say = progress or (lambda stage: None)
    spec = found.spec
    started = time.monotonic()
    audits, budgets = [], []
    for case in cases:
        began = time.monotonic()
        audits.append(
            _case_audit(
                found,
                case,
                seed=seed,
                samples=samples,
                time_limit=time_limit,
                progress=say,
                replay=command or f"dpverify audit {spec.name} --seed {seed} --samples {samples}",
            )
        )
        # the trace of the case's code is part of the case: it gets what its time bound left
        budgets.append(None if time_limit is None else time_limit - (time.monotonic() - began))
    say("certificates and mutation results")
    called, sampler_modules, untraced = _traced(spec, cases, seed, budgets, TRACE_LIMIT)
    certificates = _certificates_section(spec, cases, called, untraced)
    own = getattr(spec.sampler, "__module__", None)
    modules = sorted(sampler_modules | ({own} if isinstance(own, str) else set()))
    mutation = _mutation_section(mutants, mutants_path, modules)
    documents = [a.document for a in audits]
    broken = [d for d in documents if d["outcome"] == ERROR]
    unmet = [d for d in documents if not d["met"]]
    exit_code = 2 if broken else 1 if unmet else 0
    if broken:
        summary = f"{len(broken)} of {len(documents)} case(s) cannot be checked: the spec is broken"
    elif unmet:
        summary = f"{len(unmet)} of {len(documents)} case(s) missed their expectation"
    else:
        summary = f"all {len(documents)} case(s) met their expectation"
    sampler = spec.sampler
    document = {
        "schema": AUDIT_SCHEMA,
        "command": command,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.monotonic() - started, 2),
        "verdict": {
            "passed": exit_code == 0,
            "exit_code": exit_code,
            "summary": summary,
            "cases": len(documents),
            "met": len(documents) - len(unmet),
        },
        "trusted_base": trusted_base(),
        "spec": {
            "name": spec.name,
            "origin": found.origin,
            "builtin": found.builtin,
            "description": spec.description,
            "citation": spec.citation,
            "sampler": None
            if sampler is None
            else f"{getattr(sampler, '__module__', '?')}.{getattr(sampler, '__qualname__', repr(sampler))}",
            "sampler_modules": modules,
            "parameters": {name: domain.describe() for name, domain in spec.parameters.items()},
            "input": None
            if spec.input is None
            else {
                "name": spec.input.name,
                "neighbours": spec.input.neighbours
                if isinstance(spec.input.neighbours, (int, str))
                else "declared pairs",
            },
            "randomness": Randomness(spec.randomness).value,
            "enumeration": _enumeration_text(spec),
            "timing": spec.timing,
        },
        "options": {"seed": seed, "samples": samples, "time_limit": time_limit, "mutants": mutants_path},
        "cases": documents,
        "certificates": certificates,
        "mutation": mutation,
    }
    return Audit(document, audits)


def _enumeration_text(spec: Spec) -> str:
    enumeration = spec.enumeration_for()
    if enumeration is None:
        return "none: the code's draws are not enumerated (statistical checks only)"
    if isinstance(enumeration, Exhaustive):
        return f"exhaustive: every random choice, up to {enumeration.max_paths} paths"
    if isinstance(enumeration, Bisection):
        return "bisection of the one uniform draw (every draw enumerated up to 4096)"
    if isinstance(enumeration, Bounded):
        text = (
            f"bounded: branches lighter than {fraction_text(Fraction(enumeration.min_mass))} left unexplored, "
            "loops summarised"
        )
    else:
        text = (
            f"attempt: one attempt enumerated to {fraction_text(Fraction(enumeration.min_mass))}, the loop by renewal"
        )
    tolerance = enumeration.max_unexplored
    text += "; a proof is within U, the unexplored mass, at most " + (
        "any" if tolerance is None else fraction_text(Fraction(tolerance))
    )
    reason = enumeration.tolerance_reason
    return text if reason is None else f"{text} (the spec says why: {reason})"
