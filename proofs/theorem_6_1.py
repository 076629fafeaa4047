"""Theorem 6.1: inverse transform with a uniform of size ``T`` moves each probability by < 1/T.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers",
Theorem 6.1: for every output ``x <= n``, with ``ideal = gtpmf(q, x)`` and
``mech = P_T(x | q)``, ``mech <= ideal <= mech + 1/T`` or ``ideal <= mech <= ideal + 1/T``.

The implementation (``dpverify.samplers.gtm.inverse_transform``) returns the first ``x`` with
``j/T <= CDF_q(x)`` for a draw ``j`` uniform on ``1..T``, tested as ``j * den <= T * num``,
i.e. ``j <= T*c`` for ``c = CDF_q(x)``.  Write ``c = CDF_q(x)`` and ``c' = CDF_q(x-1)``
(``CDF_q(-1) = 0``), so ``0 <= c' <= c <= 1`` and ``ideal = c - c'`` (``cdf_vector`` is the
running sum of ``gtpmf``).  Proved here, for every integer ``T >= 1``, all reals (in particular
all rationals) ``0 <= c' <= c <= 1`` and every integer ``j``:

1. ``j <= T*c  <=>  j <= floor(T*c)``: the draws ``j`` in ``1..T`` with ``j/T <= c`` are exactly
   ``1..floor(T*c)``, so they number ``floor(T*c)``;
2. ``0 <= floor(T*c') <= floor(T*c) <= T``: hence exactly ``floor(T*c) - floor(T*c')`` draws
   return ``x``, and ``mech = (floor(T*c) - floor(T*c'))/T`` (the spec's ``P_T``);
3. ``|(floor(T*c) - floor(T*c'))/T - (c - c')| < 1/T``, i.e. ``|mech - ideal| < 1/T``.

Part 3 is the paper's theorem, strict: ``mech - ideal`` in ``(-1/T, 0]`` gives its first
disjunct and in ``[0, 1/T)`` its second.  The encoding is direct: ``T`` an integer, ``c, c'``
reals, each floor an integer ``f`` with ``f <= T*c < f + 1``; part 3 is multiplied by ``T > 0``
into ``|f - f' - T*(c - c')| < 1``, an equivalent inequality without division.  Only the
products ``T*c`` and ``T*c'`` are nonlinear (logic ``QF_NIRA``).  The obligation asserts the
hypotheses and the negation of ``1 and 2 and 3``; unsat proves all three.
"""

from __future__ import annotations

from fractions import Fraction

import z3

from dpverify.proofs._theorem import Theorem, discharge
from dpverify.proofs.gtm_ideal_ratio import SOURCE
from dpverify.verify.engine._results import CheckResult

__all__ = ["LEMMAS", "REQUIRES", "THEOREM", "negated_theorem", "prove"]


def negated_theorem(*, bound: Fraction = Fraction(1)) -> list[z3.BoolRef]:
    """The negated theorem with part 3 read as ``|mech - ideal| < bound/T``.  Only
    ``bound = 1`` is the paper's theorem (``1/2`` is false and exists for the tests)."""
    T = z3.Int("T")
    c, c2 = z3.Reals("c c_prime")
    f, f2, j = z3.Ints("floor_T_c floor_T_c_prime j")
    scale = z3.ToReal(T)
    gap = z3.ToReal(f - f2) - scale * (c - c2)
    limit = z3.RealVal(f"{bound.numerator}/{bound.denominator}")
    counts = (z3.ToReal(j) <= scale * c) == (j <= f)
    ordered = z3.And(0 <= f2, f2 <= f, f <= T)
    close = z3.And(gap < limit, gap > -limit)
    return [
        T >= 1,
        0 <= c2,
        c2 <= c,
        c <= 1,
        z3.ToReal(f) <= scale * c,
        scale * c < z3.ToReal(f) + 1,
        z3.ToReal(f2) <= scale * c2,
        scale * c2 < z3.ToReal(f2) + 1,
        z3.Not(z3.And(counts, ordered, close)),
    ]


THEOREM = Theorem(
    name="theorem_6_1",
    statement="for every integer T >= 1, all rationals 0 <= c' <= c <= 1 and every integer j: "
    "j <= T*c iff j <= floor(T*c); 0 <= floor(T*c') <= floor(T*c) <= T; and "
    "|(floor(T*c) - floor(T*c'))/T - (c - c')| < 1/T, so with c = CDF_q(x), c' = CDF_q(x-1): "
    "|P_T(x|q) - gtpmf(q, x)| < 1/T",
    source=f"{SOURCE}, Theorem 6.1",
    covers=(
        "dpverify.samplers.gtm.inverse_transform",
        "dpverify.samplers.gtm.cdf_vector",
        "dpverify.samplers.gtm._cdf_vector",
        "dpverify.specs.gtm._offset_tables",
        "dpverify.specs.gtm.GtmSpec.pmf",
    ),
    obligation=negated_theorem,
    logic="QF_NIRA",
)

#: Lemmas this module proves besides :data:`THEOREM` (none) and lemmas it relies on (none).
LEMMAS: tuple[Theorem, ...] = ()
REQUIRES: tuple[Theorem, ...] = ()


def prove() -> CheckResult:
    """Proved, refuted (with Z3's model) or unknown (with Z3's reason)."""
    return discharge(THEOREM)
