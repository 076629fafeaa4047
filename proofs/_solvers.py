"""The solvers a certificate is run through: Z3 (which gives the recorded verdict) and cvc5 (the
second solver of ``dpverify prove --recheck``), each on a standalone SMT-LIB 2 script, and how
their answers map to verdicts.  Its own module: the only code that talks to a solver.
"""

from __future__ import annotations

import re

import z3

from dpverify.verify.engine._results import Verdict

__all__ = ["RECHECK_EXTRA", "cvc5_status", "cvc5_version", "z3_status"]

#: The pip extra that installs the second solver.
RECHECK_EXTRA = "dpverify[recheck]"

_VERDICT_OF = {"unsat": Verdict.PROVED, "sat": Verdict.VIOLATED}
_ANSWER_OF = {Verdict.PROVED: "unsat", Verdict.VIOLATED: "sat"}


# --- solvers -------------------------------------------------------------------------------


def z3_status(text: str, *, timeout_ms: int = 60_000) -> tuple[str, str | None]:
    """Z3 on an SMT-LIB 2 script: ``("unsat"|"sat"|"unknown", reason)``; a script Z3 cannot
    read (say, one that uses integers under a ``set-logic`` without them) is
    ``("unknown", "z3 could not parse the script: ...")``.

    The script is read into a fresh Z3 context.  In the shared context, the terms the
    process built before (the obligation itself, other theorems) keep their internal ids, and
    Z3's heuristics depend on those ids: the same script was measured to take 0.0 s in a
    fresh context and to time out in a used one.  A fresh context makes the answer a function
    of the file alone (for one Z3 version and timeout), as a certificate's verdict must be.
    """
    solver = z3.Solver(ctx=z3.Context())
    solver.set("timeout", timeout_ms)
    try:
        solver.from_string(text)
    except z3.Z3Exception as error:
        return "unknown", f"z3 could not parse the script: {_z3_message(error)}"
    answer = solver.check()
    if answer == z3.unsat:
        return "unsat", None
    if answer == z3.sat:
        return "sat", None
    return "unknown", solver.reason_unknown()


def _z3_message(error: z3.Z3Exception) -> str:
    value = error.value
    text = value.decode() if isinstance(value, bytes) else str(value)
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def cvc5_version() -> str | None:
    """The installed cvc5's version, None when it is not installed."""
    try:
        import cvc5
    except ImportError:
        return None
    return str(getattr(cvc5, "__version__", "unknown"))


def cvc5_status(text: str, *, timeout_ms: int = 60_000) -> tuple[str, str | None]:
    """cvc5 on an SMT-LIB 2 script: ``("unsat"|"sat"|"unknown"|"error", reason)``.

    ``timeout_ms`` is cvc5's ``tlimit-per`` (per ``check-sat``); running out is ``unknown``.
    A script without ``(set-logic ...)`` runs with logic ``ALL``.  The answer is that of the
    last ``check-sat``.  Raises ImportError when cvc5 is not installed.
    """
    import cvc5

    solver = cvc5.Solver(cvc5.TermManager())
    solver.setOption("tlimit-per", str(timeout_ms))
    if not re.search(r"^\s*\(set-logic\b", text, re.MULTILINE):
        solver.setLogic("ALL")
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "certificate")
    symbols = parser.getSymbolManager()
    answer: tuple[str, str | None] = ("error", "the script has no check-sat")
    try:
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            output = str(command.invoke(solver, symbols)).strip()
            if output.startswith("(error"):
                return "error", f"cvc5: {output}"
            word = output.split(maxsplit=1)[0] if output else ""
            if word in ("sat", "unsat"):
                answer = (word, None)
            elif word == "unknown":
                answer = ("unknown", output.partition(" ")[2].strip("() ") or "unknown")
    except Exception as error:  # cvc5 raises RuntimeError (and its own types) on a bad script
        return "error", f"cvc5 could not run the script: {error}"
    return answer
