"""The fixed-point leak of Gazeau, Miller, Palamidessi, Example 1.1, proved in bit-vectors with Z3.

Gazeau, Miller, Palamidessi, "Preserving differential privacy under finite-precision
semantics" (QAPL 2013; paper 000 of the project), §1, Example 1.1.  A fixed-point machine
stores a real as an integer cell ``c`` meaning ``c * 2^-d``.  The primitive returns Laplace
noise of scale 1 as a cell ``z``; noise of scale ``b = 2^n`` is obtained by multiplying it
by ``2^n``, which on the cell is ``z << n``, and the mechanism releases the cell
``r + (z << n)`` for the true answer's cell ``r``.  The paper observes that ``z << n`` ends in
``n`` zero bits, so the release keeps the last ``n`` bits of ``r``: two true answers whose
cells differ in their last ``n`` bits (they differ by ``(2^n k + h) / 2^d`` with
``1 <= h <= 2^n - 1``) have disjoint sets of possible outputs, so a single release tells them
apart with certainty (infinite privacy loss).  The paper's instance: ``b = 2^2``, ``d = 6``,
``r1 = 0`` (cell 0, last two bits ``00``) and ``r2 = 1 + 2^-5`` (cell 66, last bits ``10``).
(The extracted text of the paper is garbled; the statements here are rebuilt from its
definitions: cell semantics ``z * 2^-d``, scaling by multiplication with ``2^n``.)

Encoding (QF_BV).  Cells are bit-vectors of ``width`` bits with the machine's wrap-around
arithmetic: ``bvadd`` and ``bvshl`` are addition and multiplication by ``2^n`` modulo
``2^width``, the same bits whether the cell is read as unsigned or two's complement, so one
proof covers both readings and every overflow.  ``low(v)`` is ``((_ extract n-1 0) v)``.
Two obligations, each negated, ``unsat`` meaning proved:

1. *the low bits survive*: ``forall r, z:  low(r + (z << s)) = low(r)``;
   negated: ``exists r, z:  low(r + (z << s)) != low(r)``.
2. *disjoint outputs* (the corollary the attack uses): ``forall r1, r2, z1, z2:
   low(r1) != low(r2)  =>  r1 + (z1 << s) != r2 + (z2 << s)``; negated:
   ``exists r1, r2, z1, z2:  low(r1) != low(r2)  and  r1 + (z1 << s) = r2 + (z2 << s)``.

Here ``s`` is the shift the noise gets: ``s = n`` is the paper's mechanism (both obligations
hold).  ``s < n`` is a sanity variant in which the noise is *not* scaled by ``2^n``: the
solver must then find a model, i.e. ``r, z`` whose release changes the low bits, which shows
the encoding can fail and is not vacuously ``unsat``.  Bit-vector problems are decidable, so
``unknown`` only arises from the time limit.

The SMT-LIB export (:func:`fixed_point_smtlib`) states both negated obligations as one
query, their disjunction over separate constants: it is ``unsat`` exactly when both hold.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import z3

from dpverify.samplers import InvalidArgument
from dpverify.verify.engine._arguments import shown
from dpverify.verify.engine._results import CheckResult, Verdict

__all__ = ["FIXED_POINT_CHECK", "fixed_point_smtlib", "prove_fixed_point_leak"]

FIXED_POINT_CHECK = "fixed_point_leak"

# Bit-blasting a 4096-bit adder is still quick; the cap only keeps a typo from asking for 10^9.
_MAX_WIDTH = 4096


def _check_arguments(width: int, n: int, noise_shift: int | None) -> tuple[int, int, int]:
    if isinstance(width, bool) or not isinstance(width, int) or not 2 <= width <= _MAX_WIDTH:
        raise InvalidArgument(f"width must be an int with 2 <= width <= {_MAX_WIDTH}; got width={shown(width)}.")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n < width:
        raise InvalidArgument(
            f"n must be an int with 1 <= n < width={width} (scale 2^n, n low bits); got n={shown(n)}."
        )
    shift = n if noise_shift is None else noise_shift
    if isinstance(shift, bool) or not isinstance(shift, int) or not 0 <= shift < width:
        raise InvalidArgument(
            f"noise_shift must be an int with 0 <= noise_shift < width={width}; "
            f"got noise_shift={shown(noise_shift)}. Omit it for the paper's shift n."
        )
    return width, n, shift


@dataclass(frozen=True, slots=True)
class _Obligation:
    """One negated obligation: its name, the formula handed to the solver, and its constants."""

    name: str
    negated: z3.BoolRef
    constants: tuple[z3.BitVecRef, ...]


def _obligations(width: int, n: int, shift: int, suffix: str = "") -> tuple[_Obligation, _Obligation]:
    """The two negated obligations of the module docstring over fresh constants."""

    def low(v: z3.BitVecRef) -> z3.BitVecRef:
        return z3.Extract(n - 1, 0, v)

    def release(r: z3.BitVecRef, z: z3.BitVecRef) -> z3.BitVecRef:
        # z << shift is the cell of (noise of scale 2^shift); bvadd wraps as the machine does
        return r + (z << z3.BitVecVal(shift, width))

    r, z = z3.BitVecs(f"r{suffix} z{suffix}", width)
    r1, r2, z1, z2 = z3.BitVecs(f"r1{suffix} r2{suffix} z1{suffix} z2{suffix}", width)
    low_bits = _Obligation("low_bits_preserved", low(release(r, z)) != low(r), (r, z))
    disjoint = _Obligation(
        "disjoint_outputs",
        z3.And(low(r1) != low(r2), release(r1, z1) == release(r2, z2)),
        (r1, r2, z1, z2),
    )
    return low_bits, disjoint


def _model_values(model: z3.ModelRef, obligation: _Obligation, width: int, n: int, shift: int) -> dict[str, Any]:
    """The counterexample's cells as unsigned ints, with the releases and low bits they give."""
    value = {str(c): model.eval(c, model_completion=True).as_long() for c in obligation.constants}
    mask, modulus = (1 << n) - 1, 1 << width

    def release(r: int, z: int) -> int:
        return (r + (z << shift)) % modulus

    if obligation.name == "low_bits_preserved":
        (r, z) = (value[str(c)] for c in obligation.constants)
        out = release(r, z)
        assert out & mask != r & mask, "Z3 model does not break the low-bits obligation"
        return {"r": r, "z": z, "release": out, "low_r": r & mask, "low_release": out & mask}
    r1, r2, z1, z2 = (value[str(c)] for c in obligation.constants)
    out = release(r1, z1)
    assert r1 & mask != r2 & mask and out == release(r2, z2), "Z3 model does not break disjointness"
    return {"r1": r1, "r2": r2, "z1": z1, "z2": z2, "release": out, "low_r1": r1 & mask, "low_r2": r2 & mask}


def prove_fixed_point_leak(
    width: int = 32, n: int = 2, *, noise_shift: int | None = None, timeout_ms: int = 60_000
) -> CheckResult:
    """Prove Example 1.1 of Gazeau–Miller–Palamidessi in ``width``-bit arithmetic with Z3.

    Proves, for all cells ``r, z`` (wrap-around, as the machine adds):
    ``low_n(r + (z << n)) = low_n(r)``, and for all ``r1, r2, z1, z2`` with
    ``low_n(r1) != low_n(r2)``: ``r1 + (z1 << n) != r2 + (z2 << n)``, so true answers with
    different last ``n`` bits have disjoint output sets (infinite privacy loss).
    ``noise_shift`` replaces the shift ``n`` of the noise (a sanity variant: below ``n`` the
    claim is false and the verdict is ``violated`` with the model).

    ``proved``: both negations ``unsat``.  ``violated``: a model, in
    ``evidence["counterexample"]`` as unsigned cells.  ``inconclusive``: the time limit.

    >>> prove_fixed_point_leak(16, 3).verdict.value
    'proved'
    >>> prove_fixed_point_leak(16, 3, noise_shift=0).verdict.value
    'violated'
    """
    width, n, shift = _check_arguments(width, n, noise_shift)
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 1:
        raise InvalidArgument(f"timeout_ms must be an int >= 1; got timeout_ms={shown(timeout_ms)}.")
    evidence: dict[str, Any] = {
        "width": width,
        "n": n,
        "noise_shift": shift,
        "obligations": [],
        "counterexample": None,
        "solver": f"z3 {z3.get_version_string()}",
        "logic": "QF_BV",
    }
    first_failure: dict[str, Any] | None = None
    for obligation in _obligations(width, n, shift):  # both are run, so both statuses are known
        solver = z3.SolverFor("QF_BV")
        solver.set("timeout", timeout_ms)
        solver.add(obligation.negated)
        start = time.perf_counter()
        status = solver.check()
        seconds = time.perf_counter() - start
        entry: dict[str, Any] = {
            "name": obligation.name,
            "negation": str(status),
            "seconds": round(seconds, 6),
            "model": None,
        }
        if status == z3.sat:
            entry["model"] = _model_values(solver.model(), obligation, width, n, shift)
            if first_failure is None:
                first_failure = {"obligation": obligation.name, **entry["model"]}
        elif status != z3.unsat:
            entry["reason"] = solver.reason_unknown()
        evidence["obligations"].append(entry)
    if first_failure is not None:  # a model is final, whatever the other obligation gave
        evidence["counterexample"] = first_failure
        return CheckResult(
            FIXED_POINT_CHECK,
            Verdict.VIOLATED,
            f"sat: {first_failure['obligation']} fails in {width}-bit cells with noise << {shift} "
            f"and n={n}: {_describe(first_failure)}",
            evidence=evidence,
        )
    unknown = [o for o in evidence["obligations"] if o["negation"] != "unsat"]
    if unknown:
        reason = unknown[0]["reason"]
        return CheckResult(
            FIXED_POINT_CHECK,
            Verdict.INCONCLUSIVE,
            f"Z3 gave no answer on {unknown[0]['name']} ({reason})",
            reason=reason,
            evidence=evidence,
        )
    total = sum(o["seconds"] for o in evidence["obligations"])
    return CheckResult(
        FIXED_POINT_CHECK,
        Verdict.PROVED,
        f"unsat: in {width}-bit cells, r + (z << {shift}) keeps the last {n} bits of r for all "
        f"r, z, so true answers with different last {n} bits give disjoint outputs "
        f"(Example 1.1; {total:.3f} s)",
        evidence=evidence,
    )


def _describe(found: dict[str, Any]) -> str:
    if "r" in found:
        return (
            f"r={found['r']}, z={found['z']} release {found['release']} "
            f"with low bits {found['low_release']} != {found['low_r']}"
        )
    return (
        f"r1={found['r1']}, z1={found['z1']} and r2={found['r2']}, z2={found['z2']} both "
        f"release {found['release']} though low bits differ ({found['low_r1']} vs {found['low_r2']})"
    )


def fixed_point_smtlib(width: int = 32, n: int = 2, *, noise_shift: int | None = None) -> str:
    """Both negated obligations of Example 1.1 as one standalone SMT-LIB 2 script (QF_BV).

    The query is the disjunction of the two negations over disjoint constants, so ``unsat``
    proves both and a model's constants break one of them.  The script ends with
    ``(check-sat)`` for a second solver; :func:`z3.parse_smt2_string` reads its assertions.
    """
    width, n, shift = _check_arguments(width, n, noise_shift)
    low_bits, disjoint = _obligations(width, n, shift)
    constants = (*low_bits.constants, *disjoint.constants)
    lines = [
        "; dpverify: the fixed-point leak of Gazeau, Miller, Palamidessi,",
        ';   "Preserving differential privacy under finite-precision semantics", Example 1.1.',
        f"; cells are {width}-bit vectors with wrap-around arithmetic (unsigned or two's",
        ";   complement alike); the release of true cell r with noise cell z is",
        f";   r + (z << s) with s = {shift} (noise of scale 2^s; the paper's mechanism has s = n = {n}).",
        f"; low(v) = ((_ extract {n - 1} 0) v), the last n={n} bits of a cell.",
        "; claim 1: forall r, z: low(r + (z << s)) = low(r).",
        "; claim 2: forall r1, r2, z1, z2: low(r1) != low(r2) => r1 + (z1 << s) != r2 + (z2 << s)",
        ";   (true answers with different last n bits have disjoint output sets).",
        "; asserted: (not claim 1) or (not claim 2), over separate constants.",
        "; unsat: both claims hold for every cell (proved).",
        "; sat: a model of r, z breaks claim 1, or of r1, r2, z1, z2 breaks claim 2.",
        "(set-option :produce-models true)",
        "(set-logic QF_BV)",
        *(f"(declare-const {c} (_ BitVec {width}))" for c in constants),
        f"(assert {z3.Or(low_bits.negated, disjoint.negated).sexpr()})",
        "(check-sat)",
        "(exit)",
        "",
    ]
    return "\n".join(lines)
