"""Theorem 7.1: with ``alpha = 1/D`` and ``T = (D+1)*D**n`` the implemented GTM is the ideal one.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers",
Theorem 7.1: for an integer ``D > 2``, ``alpha = 1/D`` and a uniform of size
``T = (D+1)*D**n``, inverse transform sampling preserves alpha-DP.  We prove, symbolically for
every integer ``D >= 2`` (which covers the paper's ``D > 2``), every ``n >= 1`` and all
``q, x`` in ``[0, n]`` (no bound on any of them):

    T * CDF_q(x) = W_q(x), an integer, and floor(T*CDF_q(x)) - floor(T*CDF_q(x-1))
    = T*CDF_q(x) - T*CDF_q(x-1), so P_T(x|q) = CDF_q(x) - CDF_q(x-1) = gtpmf(q, x),

so the implementation's PMF is the ideal one and alpha-DP follows from the ideal ratio theorem
(``dpverify.proofs.gtm_ideal_ratio``).  ``CDF_q`` is what ``dpverify.samplers.gtm.cdf_vector`` computes, the
running sum ``CDF_q(-1) = 0``, ``CDF_q(y) = CDF_q(y-1) + gtpmf(q, y)``, which is why
``CDF_q(x) - CDF_q(x-1) = gtpmf(q, x)``; ``P_T(x|q) = (floor(T*CDF_q(x)) -
floor(T*CDF_q(x-1)))/T`` is Theorem 6.1 parts 1-2 (``dpverify.proofs.theorem_6_1``).

The proof is symbolic, with the induction explicit.  Powers are encoded as in
``dpverify.proofs.gtm_ideal_ratio`` (``pw`` for ``alpha**k``); here also ``dpw: Int -> Real`` for the
real ``D**k`` (``dpw(0) = 1``, ``dpw(k+1) = D*dpw(k)``) and ``ipw: Int -> Int`` for the
integer ``D**k`` (``ipw(0) = 1``, ``ipw(k+1) = D*ipw(k)``).  The obligations, each unsat:

1. :data:`POWER_QUOTIENT_BASE` / :data:`POWER_QUOTIENT_STEP` (induction on ``j``, for reals
   with ``alpha*D = 1``): ``D**(e+j) * alpha**j = D**e``.
2. :data:`POWER_INTEGRAL_BASE` / :data:`POWER_INTEGRAL_STEP` (induction on ``k``, for an
   integer ``D``): ``dpw(k) = ipw(k)``, so the real ``D**k`` is an integer.
3. :data:`CDF_CLOSED_FORM_BASE` / :data:`CDF_CLOSED_FORM_STEP` (induction on ``y`` from
   ``-1`` to ``n``, for every ``alpha`` in (0, 1)): the running sum equals the closed form of
   ``dpverify.specs.gtm`` (also what ``dpverify.specs.gtm._offset_tables`` computes)::

       C(-1) = 0,  C(y) = alpha**(q-y)/(1+alpha)  (0 <= y < q),
       C(y) = 1 - alpha**(y+1-q)/(1+alpha)  (q <= y < n),  C(n) = 1.

   The step from ``y`` to ``y+1`` needs the recurrence only at ``q-y-1``, ``y+1-q``, ``0``
   and at the exponents of ``gtpmf(q, y+1)``.
4. :data:`SCALED_PIECE`: for ``1 <= j <= n``, ``T * alpha**j/(1+alpha) = D**(n-j+1)``.  With
   ``1/(1+alpha) = D/(D+1)``: ``(D+1)*D**n * alpha**j * D/(D+1) = D * D**(n-j)``, using the
   quotient lemma at ``(n-j, j)`` and the recurrence at ``n-j``.  Pure algebra over the
   values at those points (``QF_NRA``).
5. :data:`SCALED_CDF`: for every real ``T`` for which 4 holds at the exponents
   ``j = q-y`` and ``j = y+1-q``, ``T * C(y) = W_q(y)`` on ``-1 <= y <= n``, where ``W_q(y)``
   is ``0``, ``D**(n+1-(q-y))``, ``T - D**(n+q-y)`` or ``T`` on the four pieces of ``C``.  This
   is the case analysis; ``T``'s value is irrelevant to it.
6. The theorem: for an integer ``D >= 2`` and ``T = (D+1)*D**n``, with the instances of 3
   and 5 at ``y = x`` and ``y = x-1``, of 2 at the exponents of ``W`` and at ``n`` (so ``T``
   and ``W`` are integers: ``W`` is written with ``ipw``), and the floors
   ``f_y <= T*CDF_q(y) < f_y + 1``, the negation of
   ``T*CDF_q(y) = W_q(y)`` and ``f_y = W_q(y)`` (``y = x, x-1``) and
   ``f_x - f_(x-1) = T*CDF_q(x) - T*CDF_q(x-1)``.

Every asserted instance is true of ``alpha**k``, ``D**k`` and the real CDF (the definitions, or
lemmas whose obligations are unsat, with base and step giving all naturals by induction), so
unsat of all of them proves the theorem for all ``D`` and ``n``: it is not bounded.  As in
``dpverify.proofs.gtm_ideal_ratio``, an induction step and the algebra of 4 are stated over the values
of the functions at the points involved (real variables named ``pw(j+1)`` and so on), which
keeps them in real arithmetic that both Z3 and cvc5 decide at once.

Observation (not part of the paper's statement): the same argument shows that
``T = (D+1)*D**(n-1)`` already makes every ``T*CDF_q(x)`` an integer (the smallest piece is
``alpha**n/(1+alpha) = 1/((D+1)*D**(n-1))``); the paper's ``T`` is ``D`` times that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

import z3

from dpverify.proofs import gtm_ideal_ratio, theorem_6_1
from dpverify.proofs._theorem import Theorem
from dpverify.proofs.gtm_ideal_ratio import SOURCE, gtpmf, power, recurrence, value
from dpverify.verify.engine._results import CheckResult

__all__ = [
    "CDF_CLOSED_FORM_BASE",
    "CDF_CLOSED_FORM_STEP",
    "LEMMAS",
    "POWER_INTEGRAL_BASE",
    "POWER_INTEGRAL_STEP",
    "POWER_QUOTIENT_BASE",
    "POWER_QUOTIENT_STEP",
    "REQUIRES",
    "SCALED_CDF",
    "SCALED_PIECE",
    "THEOREM",
    "negated_scaled_piece",
    "negated_theorem",
    "prove",
]

_IntTerm: TypeAlias = z3.ArithRef


def _real_power() -> z3.FuncDeclRef:
    """The uninterpreted ``dpw: Int -> Real`` standing for ``k -> D**k`` on ``k >= 0``."""
    return z3.Function("dpw", z3.IntSort(), z3.RealSort())


def _integer_power() -> z3.FuncDeclRef:
    """The uninterpreted ``ipw: Int -> Int`` standing for ``k -> D**k`` on ``k >= 0``, ``D`` an integer."""
    return z3.Function("ipw", z3.IntSort(), z3.IntSort())


def _real_recurrence(dpw: z3.FuncDeclRef, D: z3.ArithRef, k: _IntTerm) -> z3.BoolRef:
    return z3.Implies(k >= 0, dpw(k + 1) == D * dpw(k))


def _integer_recurrence(ipw: z3.FuncDeclRef, D: _IntTerm, k: _IntTerm) -> z3.BoolRef:
    return z3.Implies(k >= 0, ipw(k + 1) == D * ipw(k))


def _quotient(dpw: z3.FuncDeclRef, pw: z3.FuncDeclRef, e: _IntTerm, j: _IntTerm) -> z3.BoolRef:
    """Lemma :data:`POWER_QUOTIENT_STEP` at ``(e, j)``: ``e, j >= 0 -> D**(e+j) * alpha**j = D**e``."""
    return z3.Implies(z3.And(e >= 0, j >= 0), dpw(e + j) * pw(j) == dpw(e))


def _integral(dpw: z3.FuncDeclRef, ipw: z3.FuncDeclRef, k: _IntTerm) -> z3.BoolRef:
    """Lemma :data:`POWER_INTEGRAL_STEP` at ``k``: ``k >= 0 -> dpw(k) = ipw(k)``."""
    return z3.Implies(k >= 0, dpw(k) == z3.ToReal(ipw(k)))


_POWER_SOURCE = f"{SOURCE}, Theorem 7.1 (alpha = 1/D); a property of powers on the naturals, by induction"

# --- lemma: D**(e+j) * alpha**j = D**e when alpha*D = 1 ------------------------------------------


def _quotient_base() -> list[z3.BoolRef]:
    pw, dpw, e = power(), _real_power(), z3.Int("e")
    return [pw(0) == 1, e >= 0, z3.Not(_quotient(dpw, pw, e, z3.IntVal(0)))]


def _quotient_step() -> list[z3.BoolRef]:
    alpha, D = z3.Real("alpha"), z3.Real("D")
    at_j, at_j1 = value("pw", "j"), value("pw", "j+1")
    d_e, d_ej, d_ej1 = value("dpw", "e"), value("dpw", "e+j"), value("dpw", "e+j+1")
    return [
        alpha * D == 1,
        d_ej * at_j == d_e,  # induction hypothesis at j
        at_j1 == alpha * at_j,
        d_ej1 == D * d_ej,  # the recurrences at j and at e+j
        z3.Not(d_ej1 * at_j1 == d_e),
    ]


POWER_QUOTIENT_BASE = Theorem(
    name="power_quotient_base",
    statement="for e >= 0: pw(0) = 1 implies dpw(e+0)*pw(0) = dpw(e) "
    "(base of: D**(e+j) * alpha**j = D**e for all e, j >= 0 when alpha*D = 1)",
    source=_POWER_SOURCE,
    covers=(),
    obligation=_quotient_base,
    logic="QF_UFNIRA",
)
POWER_QUOTIENT_STEP = Theorem(
    name="power_quotient_step",
    statement="for reals alpha*D = 1 and e, j >= 0: dpw(e+j)*pw(j) = dpw(e), pw(j+1) = alpha*pw(j) and "
    "dpw(e+j+1) = D*dpw(e+j) imply dpw(e+j+1)*pw(j+1) = dpw(e) "
    "(step of: D**(e+j) * alpha**j = D**e for all e, j >= 0 when alpha*D = 1)",
    source=_POWER_SOURCE,
    covers=(),
    obligation=_quotient_step,
    logic="QF_NRA",
)


# --- lemma: for an integer D, the real D**k is the integer D**k -----------------------------------


def _integral_base() -> list[z3.BoolRef]:
    dpw, ipw = _real_power(), _integer_power()
    return [dpw(0) == 1, ipw(0) == 1, z3.Not(_integral(dpw, ipw, z3.IntVal(0)))]


def _integral_step() -> list[z3.BoolRef]:
    dpw, ipw, D, k = _real_power(), _integer_power(), z3.Int("D"), z3.Int("k")
    return [
        k >= 0,
        _integral(dpw, ipw, k),
        _real_recurrence(dpw, z3.ToReal(D), k),
        _integer_recurrence(ipw, D, k),
        z3.Not(_integral(dpw, ipw, k + 1)),
    ]


POWER_INTEGRAL_BASE = Theorem(
    name="power_integral_base",
    statement="dpw(0) = 1 and ipw(0) = 1 imply dpw(0) = ipw(0) "
    "(base of: for an integer D, the real D**k equals the integer D**k for all k >= 0)",
    source=_POWER_SOURCE,
    covers=(),
    obligation=_integral_base,
    logic="QF_UFLIRA",
)
POWER_INTEGRAL_STEP = Theorem(
    name="power_integral_step",
    statement="for an integer D and k >= 0: dpw(k) = ipw(k), dpw(k+1) = D*dpw(k) and ipw(k+1) = D*ipw(k) imply "
    "dpw(k+1) = ipw(k+1) (step of: for an integer D, the real D**k equals the integer D**k for all k >= 0)",
    source=_POWER_SOURCE,
    covers=(),
    obligation=_integral_step,
    logic="QF_UFNIRA",
)


# --- lemma: the running sum of gtpmf is the closed-form CDF --------------------------------------


class _Cdf:
    """``pw``, ``cdf: Int -> Real`` (the running sum) and the closed form, for one ``(alpha, n, q)``."""

    def __init__(self) -> None:
        self.pw, self.alpha = power(), z3.Real("alpha")
        self.cdf = z3.Function("cdf", z3.IntSort(), z3.RealSort())
        self.n, self.q = z3.Ints("n q")
        self.inverse = z3.Real("inverse_of_1_plus_alpha")

    def domain(self) -> list[z3.BoolRef]:
        """``alpha`` in (0, 1), ``n >= 1``, ``q`` in ``[0, n]``, ``pw(0) = 1``, the definition of
        ``inverse_of_1_plus_alpha`` and ``CDF_q(-1) = 0``."""
        return [
            self.alpha > 0,
            self.alpha < 1,
            self.n >= 1,
            0 <= self.q,
            self.q <= self.n,
            self.pw(0) == 1,
            self.inverse * (1 + self.alpha) == 1,
            self.cdf(-1) == 0,
        ]

    def running_sum(self, y: _IntTerm, tag: str) -> tuple[z3.ArithRef, list[z3.BoolRef]]:
        """``gtpmf(q, y)`` and the definition ``CDF_q(y) = CDF_q(y-1) + gtpmf(q, y)`` at ``y``
        (``0 <= y <= n``), with the recurrence at the exponents ``gtpmf`` uses."""
        p, exponents, rules = gtpmf(self.alpha, self.pw, self.n, self.q, y, tag, name_constant=False)
        # gtpmf divides as inverse * ..., with the same inverse_of_1_plus_alpha constant.
        facts = [recurrence(self.pw, self.alpha, e) for e in exponents]
        return p, [*rules, *facts, self.cdf(y) == self.cdf(y - 1) + p]

    def closed(self, y: _IntTerm) -> z3.ArithRef:
        """The closed form ``C(y)`` for ``-1 <= y <= n``."""
        pw, q, n, inverse = self.pw, self.q, self.n, self.inverse
        return z3.If(
            y == -1,
            z3.RealVal(0),
            z3.If(y < q, inverse * pw(q - y), z3.If(y < n, 1 - inverse * pw(y + 1 - q), z3.RealVal(1))),
        )

    def closed_form(self, y: _IntTerm) -> z3.BoolRef:
        """Lemma :data:`CDF_CLOSED_FORM_STEP` at ``y``: ``-1 <= y <= n -> CDF_q(y) = C(y)``."""
        return z3.Implies(z3.And(-1 <= y, y <= self.n), self.cdf(y) == self.closed(y))


def _closed_form_base() -> list[z3.BoolRef]:
    model = _Cdf()
    return [*model.domain(), z3.Not(model.closed_form(z3.IntVal(-1)))]


def _closed_form_step() -> list[z3.BoolRef]:
    model = _Cdf()
    y = z3.Int("y")
    _, definition = model.running_sum(y + 1, "y_plus_1")
    pw, alpha, q = model.pw, model.alpha, model.q
    facts = [recurrence(pw, alpha, k) for k in (q - y - 1, y + 1 - q, z3.IntVal(0))]
    return [
        *model.domain(),
        -1 <= y,
        y < model.n,
        model.closed_form(y),
        *definition,
        *facts,
        z3.Not(model.closed_form(y + 1)),
    ]


_CDF_COVERS = (
    "dpverify.samplers.gtm.gtpmf",
    "dpverify.samplers.gtm.cdf_vector",
    "dpverify.samplers.gtm._cdf_vector",
    "dpverify.specs.gtm._offset_tables",
)

CDF_CLOSED_FORM_BASE = Theorem(
    name="gtm_cdf_closed_form_base",
    statement="CDF_q(-1) = 0 = C(-1) (base of: the running sum of gtpmf(q, .) equals the closed form C "
    "of specs.gtm on [-1, n])",
    source=f"{SOURCE}, §2 (gtpmf) and §5 (geometric_truncated_cdf_vector)",
    covers=_CDF_COVERS,
    obligation=_closed_form_base,
    logic="QF_UFNIRA",
)
CDF_CLOSED_FORM_STEP = Theorem(
    name="gtm_cdf_closed_form_step",
    statement="for alpha in (0, 1), n >= 1, q in [0, n] and -1 <= y < n: CDF_q(y) = C(y) and "
    "CDF_q(y+1) = CDF_q(y) + gtpmf(q, y+1) imply CDF_q(y+1) = C(y+1), where C(y) = alpha**(q-y)/(1+alpha) "
    "for 0 <= y < q, 1 - alpha**(y+1-q)/(1+alpha) for q <= y < n, C(n) = 1",
    source=f"{SOURCE}, §2 (gtpmf) and §5 (geometric_truncated_cdf_vector)",
    covers=_CDF_COVERS,
    obligation=_closed_form_step,
    logic="QF_UFNIRA",
)


# --- lemmas: T * C(y) is W(y), a sum of powers of D ---------------------------------------------


def _paper_size(D: z3.ArithRef, power_of_D: z3.ArithRef) -> z3.ArithRef:
    """``T = (D+1) * D**n``, given ``D`` and ``D**n``."""
    return (D + 1) * power_of_D


#: ``T`` as a function of ``D`` and ``D**n``.
Size = Callable[[z3.ArithRef, z3.ArithRef], z3.ArithRef]


def negated_scaled_piece(*, size: Size = _paper_size) -> list[z3.BoolRef]:
    """``T * alpha**j/(1+alpha) != D**(n-j+1)`` for ``T = size(D, D**n)``, over the values of the
    powers at ``j``, ``n``, ``n-j`` and ``n-j+1``.  Only the default, ``(D+1)*D**n``, is the
    paper's; other sizes exist so that tests can see a wrong ``T`` refuted."""
    alpha, D, inverse = z3.Real("alpha"), z3.Real("D"), z3.Real("inverse_of_1_plus_alpha")
    at_j, d_n, d_nj, d_nj1 = value("pw", "j"), value("dpw", "n"), value("dpw", "n-j"), value("dpw", "n-j+1")
    return [
        D >= 2,
        alpha * D == 1,
        inverse * (1 + alpha) == 1,
        d_n * at_j == d_nj,  # the quotient lemma at (n-j, j)
        d_nj1 == D * d_nj,  # the recurrence at n-j
        z3.Not(size(D, d_n) * inverse * at_j == d_nj1),
    ]


SCALED_PIECE = Theorem(
    name="gtm_scaled_piece",
    statement="for reals D >= 2, alpha = 1/D and 1 <= j <= n: with T = (D+1)*D**n, "
    "T * alpha**j/(1+alpha) = D**(n-j+1) (given D**n * alpha**j = D**(n-j) and D**(n-j+1) = D*D**(n-j))",
    source=f"{SOURCE}, Theorem 7.1",
    covers=("dpverify.specs.gtm._offset_tables", "dpverify.specs.gtm.GtmSpec.is_theorem_7_1_instance"),
    obligation=negated_scaled_piece,
    logic="QF_NRA",
)


class _Scaled(_Cdf):
    """:class:`_Cdf` with ``dpw`` for ``D**k`` and a uniform size ``T``."""

    def __init__(self, T: z3.ArithRef) -> None:
        super().__init__()
        self.dpw, self.T = _real_power(), T

    def piece(self, j: _IntTerm) -> z3.BoolRef:
        """Lemma :data:`SCALED_PIECE` at ``j``: ``1 <= j <= n -> T * alpha**j/(1+alpha) = D**(n-j+1)``."""
        return z3.Implies(z3.And(1 <= j, j <= self.n), self.T * self.inverse * self.pw(j) == self.dpw(self.n - j + 1))

    def witness(
        self, y: _IntTerm, power_of_D: z3.FuncDeclRef | None = None, T: z3.ArithRef | None = None
    ) -> z3.ArithRef:
        """``W_q(y)``: ``0``, ``D**(n+1-(q-y))``, ``T - D**(n+q-y)`` or ``T`` on the four pieces
        of ``C``, with ``D**k`` given by ``power_of_D`` (default ``dpw``)."""
        dpw = self.dpw if power_of_D is None else power_of_D
        size = self.T if T is None else T
        q, n = self.q, self.n
        return z3.If(y == -1, 0 * size, z3.If(y < q, dpw(n + 1 - (q - y)), z3.If(y < n, size - dpw(n + q - y), size)))

    def scaled(self, y: _IntTerm) -> z3.BoolRef:
        """Lemma :data:`SCALED_CDF` at ``y``: ``-1 <= y <= n -> T * C(y) = W_q(y)``."""
        return z3.Implies(z3.And(-1 <= y, y <= self.n), self.T * self.closed(y) == self.witness(y))


def _negated_scaled_cdf() -> list[z3.BoolRef]:
    model = _Scaled(z3.Real("T"))
    y = z3.Int("y")
    return [*model.domain(), model.piece(model.q - y), model.piece(y + 1 - model.q), z3.Not(model.scaled(y))]


SCALED_CDF = Theorem(
    name="gtm_scaled_cdf",
    statement="for alpha in (0, 1), n >= 1, q in [0, n], -1 <= y <= n and every real T with "
    "T * alpha**j/(1+alpha) = D**(n-j+1) at j = q-y and j = y+1-q (where 1 <= j <= n): "
    "T*C(y) = W_q(y), which is 0, D**(n+1-(q-y)), T - D**(n+q-y) or T on the four pieces of C",
    source=f"{SOURCE}, Theorem 7.1",
    covers=("dpverify.specs.gtm._offset_tables", "dpverify.specs.gtm.GtmSpec.is_theorem_7_1_instance"),
    obligation=_negated_scaled_cdf,
    logic="QF_UFNIRA",
)


# --- the theorem ----------------------------------------------------------------------------------


def negated_theorem() -> list[z3.BoolRef]:
    """The negated theorem (item 6 of the module docstring)."""
    D = z3.Int("D")
    dpw = _real_power()
    n = z3.Int("n")
    model = _Scaled(_paper_size(z3.ToReal(D), dpw(n)))
    ipw, cdf, q, x = _integer_power(), model.cdf, model.q, z3.Int("x")
    T = z3.Int("T")  # the sampler's T, an integer
    facts: list[z3.BoolRef] = [
        *model.domain(),
        D >= 2,
        model.alpha * z3.ToReal(D) == 1,
        dpw(0) == 1,
        ipw(0) == 1,
        z3.ToReal(T) == model.T,
        _integral(dpw, ipw, n),
        0 <= x,
        x <= n,
    ]
    conclusion, floors, scaled_values = [], [], []
    for y, tag in ((x, "x"), (x - 1, "x_minus_1")):
        facts += [model.closed_form(y), model.scaled(y)]
        facts += [_integral(dpw, ipw, k) for k in (n + 1 - (q - y), n + q - y)]
        witness = model.witness(y, ipw, T)
        scaled = model.T * cdf(y)
        floor = z3.Int(f"floor_T_cdf_{tag}")
        facts += [z3.ToReal(floor) <= scaled, scaled < z3.ToReal(floor) + 1]
        conclusion += [scaled == z3.ToReal(witness), floor == witness]
        floors.append(floor)
        scaled_values.append(scaled)
    conclusion.append(z3.ToReal(floors[0] - floors[1]) == scaled_values[0] - scaled_values[1])
    return [*facts, z3.Not(z3.And(*conclusion))]


THEOREM = Theorem(
    name="theorem_7_1",
    statement="for every integer D >= 2 and n >= 1, alpha = 1/D and T = (D+1)*D**n, and all q, x in [0, n]: "
    "T*CDF_q(x) is an integer and P_T(x|q) = (floor(T*CDF_q(x)) - floor(T*CDF_q(x-1)))/T = gtpmf(q, x), "
    "so the implementation is alpha-DP exactly as the ideal mechanism",
    source=f"{SOURCE}, Theorem 7.1",
    covers=(
        "dpverify.samplers.gtm.inverse_transform",
        "dpverify.samplers.gtm.cdf_vector",
        "dpverify.samplers.gtm._cdf_vector",
        "dpverify.samplers.gtm.gtpmf",
        "dpverify.specs.gtm._offset_tables",
        "dpverify.specs.gtm.GtmSpec.pmf",
        "dpverify.specs.gtm.GtmSpec.is_theorem_7_1_instance",
    ),
    obligation=negated_theorem,
    bounded=None,
    logic="QF_UFNIRA",
)

#: Lemmas this module proves besides :data:`THEOREM`, base before step.
LEMMAS: tuple[Theorem, ...] = (
    POWER_QUOTIENT_BASE,
    POWER_QUOTIENT_STEP,
    POWER_INTEGRAL_BASE,
    POWER_INTEGRAL_STEP,
    CDF_CLOSED_FORM_BASE,
    CDF_CLOSED_FORM_STEP,
    SCALED_PIECE,
    SCALED_CDF,
)

#: Everything the proof rests on: this module's lemmas, Theorem 6.1 (the implementation's PMF
#: in terms of floors) and the ideal ratio theorem (alpha-DP), with its positivity lemma.
REQUIRES: tuple[Theorem, ...] = (
    *LEMMAS,
    theorem_6_1.THEOREM,
    gtm_ideal_ratio.POWER_POSITIVE_BASE,
    gtm_ideal_ratio.POWER_POSITIVE_STEP,
    *gtm_ideal_ratio.THEOREMS,
)


def prove() -> CheckResult:
    """Proved, refuted (with Z3's model) or unknown (with Z3's reason), everything it rests on included."""
    return gtm_ideal_ratio.discharge_with_lemmas(THEOREM, REQUIRES)
