"""What a surveyed library declares: its primitives, each with the audit that judges it.

A library module of the survey (``_lib_*.py`` beside this one) defines ``LIBRARY`` (a
:class:`Library`: how to install it, and what it is) and ``primitives()``, the :class:`Primitive`
objects to audit.  It imports the library only inside ``primitives()`` and the audits, so the
survey's own process never needs it: each library is audited in an environment of its own
(:mod:`~dpverify.verify.survey._environments`), where the worker
(:mod:`~dpverify.verify.survey._worker`) calls them.

An audit returns a :class:`Finding`: the verdict and what it rests on, in one line and as JSON.
Its method says how much that is worth:

- ``exact enumeration``: the code runs on dpverify's enumerating source, so the law is exact;
- ``exact at k bits``: the same, with ``random()`` on a grid of ``2**-k``; at ``k`` = 53, the
  generator itself, and below it a model (``model at k bits``), whose findings are never a
  violation of the library (:mod:`~dpverify.verify.survey._rules`);
- ``black box``: the library draws its own randomness; the verdict is statistical, with the
  false-positive rate bounded non-asymptotically (a certified lower bound on epsilon at a stated
  confidence, or a distribution test at a stated beta).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dpverify.specs._api import Case, Spec

__all__ = [
    "METHODS",
    "RANDOMNESS",
    "VERDICTS",
    "Budget",
    "Finding",
    "Library",
    "Primitive",
    "black_box_audit",
    "black_box_primitive",
]

#: Where an audit's draws come from: ``enumerated`` (dpverify's enumerating source, nothing random),
#: ``seeded`` (a black box whose library draws from Python's ``random`` or numpy's global generator,
#: which each draw process seeds from ``--seed``, so a seed reproduces its counts), ``OS entropy``
#: (native code or an unseeded generator: the counts differ from run to run, and only the
#: certified bounds mean anything).
RANDOMNESS = ("enumerated", "seeded", "OS entropy")
#: How an audit reaches its verdict (the table's "method" column).
METHODS = ("exact enumeration", "exact at k bits", "model at k bits", "black box")
#: An audit's verdicts: ``not refuted`` is a black box's pass (its tests at their stated rates found
#: no violation), which is never a proof; ``hazard`` is a leak found in a value the library does not
#: document as private (:mod:`~dpverify.verify.survey._rules` turns a violation into one).
VERDICTS = ("proved", "violated", "inconclusive", "not refuted", "hazard")


@dataclass(frozen=True, slots=True)
class Library:
    """A library the survey audits: its name on PyPI, the module it imports, what installs it in
    an environment of its own (pinned), and why it is worth auditing."""

    name: str
    module: str
    requirements: tuple[str, ...]
    about: str
    #: Set when the library cannot be installed with pip alone (a service, a JVM): then it is skipped with this reason.
    needs: str | None = None


@dataclass(frozen=True, slots=True)
class Budget:
    """What every audit of one survey run may spend: the seed of its draws, the draws per input
    of a black box, the seconds of one audit."""

    seed: int
    samples: int
    time_limit: float


@dataclass(frozen=True, slots=True)
class Finding:
    """An audit's verdict (one of :data:`VERDICTS`), the one-line evidence
    the table shows, and the details the JSON keeps (exact or certified epsilon, the witness,
    the seed)."""

    verdict: str
    evidence: str
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}; got verdict={self.verdict!r}.")


@dataclass(frozen=True, slots=True)
class Primitive:
    """One noise primitive of a library and its audit."""

    name: str
    mechanism: str
    parameters: str
    method: str
    audit: Callable[[Budget], Finding] = field(repr=False, compare=False)
    #: One of :data:`RANDOMNESS`; None: ``OS entropy`` for a black box, ``enumerated`` otherwise.
    randomness: str | None = None

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}; got method={self.method!r}.")
        if self.randomness is not None and self.randomness not in RANDOMNESS:
            raise ValueError(f"randomness must be one of {', '.join(RANDOMNESS)}; got randomness={self.randomness!r}.")

    @property
    def draws_from(self) -> str:
        """Where the audit's draws come from (:data:`RANDOMNESS`)."""
        if self.randomness is not None:
            return self.randomness
        return "OS entropy" if self.method == "black box" else "enumerated"


def black_box_audit(spec: Spec, case: Case) -> Callable[[Budget], Finding]:
    """The audit of ``case`` of a black-box ``spec`` (``dpverify audit --black-box``): the
    distribution test and the privacy test on the budget's draws, folded into one finding."""

    def audit(budget: Budget) -> Finding:
        from dpverify.verify.published._blackbox import audit_case

        result = audit_case(spec, case, seed=budget.seed, samples=budget.samples, time_limit=budget.time_limit)
        decisive = [c for c in result.checks if c.verdict.value == result.outcome] or list(result.checks)
        evidence = "; ".join(f"{c.check}: {c.summary}" for c in decisive)
        details = {
            "seed": budget.seed,
            "samples_per_input": budget.samples,
            "checks": [c.to_json() for c in result.checks],
            "notes": list(result.notes),
        }
        # statistics never prove privacy: a black box that passes both tests is only not refuted
        return Finding("not refuted" if result.outcome == "proved" else result.outcome, evidence, details)

    return audit


def black_box_primitive(spec: Spec, primitive: str, mechanism: str, parameters: str) -> Primitive:
    """The black-box row of ``spec``'s first case."""
    return Primitive(primitive, mechanism, parameters, "black box", black_box_audit(spec, spec.cases[0]))
