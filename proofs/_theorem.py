"""What a parametric proof module provides, and how its obligation is discharged.

A proof module states one theorem for all parameters, cites the paper and theorem it comes
from, lists the sampler and spec functions it covers (so a certificate can notice when they
change), and builds its obligation as Z3 assertions whose conjunction is unsatisfiable exactly
when the theorem holds.  The same assertions are written as SMT-LIB 2 for a second solver.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import z3

from dpverify.verify.engine._results import CheckResult, Verdict

__all__ = ["Theorem", "discharge", "smtlib", "theorem_smtlib"]


@dataclass(frozen=True, slots=True)
class Theorem:
    """A theorem for all parameters, with its obligation.

    ``name`` is a stable file-system-safe identifier (it names the certificate);
    ``statement`` the theorem in words and symbols; ``source`` the citation (paper and
    theorem number); ``covers`` the qualified names of the functions whose behaviour it is
    about (``"dpverify.samplers.gtm.inverse_transform"``, ``"dpverify.specs.gtm.GtmSpec.pmf"``); ``obligation``
    returns the negated theorem as Z3 assertions (unsat = proved); ``bounded`` says, when the
    proof only covers parameters up to stated bounds, what those bounds are.
    """

    name: str
    statement: str
    source: str
    covers: tuple[str, ...]
    obligation: Callable[[], Sequence[z3.BoolRef]] = field(compare=False)
    bounded: str | None = None
    logic: str = "ALL"


def discharge(theorem: Theorem, *, timeout_ms: int = 60_000) -> CheckResult:
    """Run Z3 on the obligation: unsat is proved, sat is refuted with the model, else unknown.

    Z3 decides the certificate's text in a fresh context, exactly as ``dpverify prove`` and a
    second solver see it: Z3's nonlinear search depends on the terms a process has already
    built, so the same obligation can take 0.1 s in a fresh context and time out in a used one.
    """
    solver = z3.Solver(ctx=z3.Context())
    solver.set("timeout", timeout_ms)
    solver.from_string(theorem_smtlib(theorem))
    status = solver.check()
    scope = f" (bounded: {theorem.bounded})" if theorem.bounded else ""
    evidence = {
        "theorem": theorem.name,
        "source": theorem.source,
        "covers": list(theorem.covers),
        "bounded": theorem.bounded,
        "solver": f"z3 {z3.get_version_string()}",
    }
    if status == z3.unsat:
        return CheckResult(
            "proof", Verdict.PROVED, f"{theorem.name}: proved{scope}: {theorem.statement}", evidence=evidence
        )
    if status == z3.sat:
        model = {str(d): str(solver.model()[d]) for d in solver.model().decls()}
        return CheckResult(
            "proof", Verdict.VIOLATED, f"{theorem.name}: refuted by {model}", evidence={**evidence, "model": model}
        )
    reason = solver.reason_unknown()
    return CheckResult(
        "proof", Verdict.INCONCLUSIVE, f"{theorem.name}: unknown ({reason})", reason=reason, evidence=evidence
    )


def smtlib(theorem: Theorem) -> str:
    """The obligation as a standalone SMT-LIB 2 script; ``unsat`` means the theorem holds."""
    solver = z3.Solver()
    solver.add(*theorem.obligation())
    header = "".join(
        f"; {line}\n"
        for line in (
            f"dpverify certificate: {theorem.name}",
            f"source: {theorem.source}",
            f"theorem: {theorem.statement}",
            *([f"bounded: {theorem.bounded}"] if theorem.bounded else []),
            "the assertions are the negated theorem: unsat means it holds",
        )
    )
    script: str = solver.to_smt2()
    return header + script


def theorem_smtlib(theorem: Theorem) -> str:
    """The script of :func:`dpverify.proofs._theorem.smtlib`, made reproducible byte for byte, with the
    theorem's ``(set-logic ...)`` so any SMT-LIB 2.6 solver reads it as it stands.

    Z3's printer is not a function of the formula alone: it ``let``-binds a subterm when the
    subterm has more than one reference *in the process* (so a term some other object also
    holds is bound, and otherwise inlined), and names the binding ``?x<id>`` after an internal
    id that counts every term built before.  Printing the same theorem twice in one process
    was measured to differ in both.  Here the assertions are first copied into a fresh Z3
    context, where the only references are the formula's own, and the ``let`` names are then
    renumbered in order of appearance (:func:`_canonical_lets`).  The assertions are the same
    formula, so the script means exactly what ``smtlib`` prints.
    """
    context = z3.Context()
    solver = z3.Solver(ctx=context)
    solver.add(*(assertion.translate(context) for assertion in theorem.obligation()))
    header = [
        f"dpverify certificate: {theorem.name}",
        f"source: {theorem.source}",
        f"theorem: {theorem.statement}",
        *([f"bounded: {theorem.bounded}"] if theorem.bounded else []),
        f"covers: {', '.join(theorem.covers) or '(none)'}",
        "the assertions are the negated theorem: unsat means it holds",
    ]
    comments = "".join(f"; {line}\n" for text in header for line in text.splitlines())
    return comments + _canonical_lets(_with_logic(solver.to_smt2(), theorem.logic))


def _with_logic(text: str, logic: str) -> str:
    """``text`` with ``(set-logic logic)`` before its first command, unless it has one."""
    if re.search(r"^\s*\(set-logic\b", text, re.MULTILINE):
        return text
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if line.lstrip().startswith("(")), len(lines))
    return "".join([*lines[:first], f"(set-logic {logic})\n", *lines[first:]])


# A let-bound name Z3's printer makes up, ``?x<id>`` or ``$x<id>``, as a whole token.
_LET_NAME = re.compile(r"(?<![^\s()])([?$]x)(\d+)(?![^\s()])")


def _canonical_lets(text: str) -> str:
    """Z3 names a shared subterm ``?x<id>`` after its internal id, which depends on the terms
    built before; the names are renumbered ``1, 2, ...`` in order of first appearance
    (outside comments).  The renaming is injective and applied to every occurrence, so the
    script means exactly the same."""
    numbers: dict[str, int] = {}

    def rename(match: re.Match[str]) -> str:
        numbers.setdefault(match.group(0), len(numbers) + 1)
        return f"{match.group(1)}{numbers[match.group(0)]}"

    return "".join(
        line if line.lstrip().startswith(";") else _LET_NAME.sub(rename, line)
        for line in text.splitlines(keepends=True)
    )
