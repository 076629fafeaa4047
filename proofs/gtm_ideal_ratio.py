"""The ideal GTM is alpha-DP, for every ``n``: a Z3 proof, and the encoding of powers it uses.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers", §2.
For ``alpha`` in (0, 1), ``n >= 1``, ``q, q'`` in ``[0, n]`` with ``|q - q'| <= 1`` and every
``x`` in ``[0, n]``::

    alpha * gtpmf(q', x) <= gtpmf(q, x) <= gtpmf(q', x) / alpha,

    gtpmf(q, 0) = alpha**q / (1+alpha),   gtpmf(q, n) = alpha**(n-q) / (1+alpha),
    gtpmf(q, x) = (1-alpha)/(1+alpha) * alpha**|x-q|      for 0 < x < n.

(The paper writes the claim as ``alpha <= gtpmf(q, x)/gtpmf(q', x) <= 1/alpha``; both
probabilities are positive, so multiplying out by ``gtpmf(q', x) > 0`` and ``alpha > 0`` gives
the same inequalities without division.)

**The encoding of powers.**  ``alpha**k`` with a symbolic exponent is not a term of any decidable
arithmetic, so it is an uninterpreted function ``pw: Int -> Real`` and the obligation asserts
only *ground instances* of facts that are true of the real function ``k -> alpha**k`` on the
naturals:

- its definition: ``pw(0) = 1`` and the recurrence ``k >= 0 -> pw(k+1) = alpha * pw(k)``;
- lemmas proved here by explicit induction from that definition, each as two obligations
  (base and step, each unsat), instantiated only under their hypotheses:
  ``k >= 0 -> pw(k) > 0`` (for ``alpha > 0``), ``e, j >= 0 -> pw(e+j) <= pw(e)`` (for
  ``0 < alpha <= 1``) and ``a, b >= 0 -> pw(a+b) = pw(a) * pw(b)``.

A base obligation is about ``pw`` itself (``pw(0) = 1``, and ``pw(a+0)`` is ``pw(a)``).  A step
obligation is an implication between the values of ``pw`` at a few points, so it is stated
over those values as real variables named ``pw(k)``, ``pw(k+1)``, ...: for instance the
positivity step is ``alpha > 0, pw(k) > 0, pw(k+1) = alpha*pw(k)  |-  pw(k+1) > 0``.  This is
the uninterpreted form with each application replaced by a variable and *no* congruence
constraint, so it has more models, not fewer, and its unsat implies the step for every
function ``pw`` and every ``k``; and it is plain nonlinear real arithmetic (``QF_NRA``), which
Z3 and cvc5 both decide at once (cvc5 1.4.2 stalls on some of the same steps written with
``pw`` applied to integer terms).

Why this is sound.  Take any counterexample to a theorem: concrete parameters violating it.
Interpret ``pw`` as ``k -> alpha**k`` on ``k >= 0`` (anything on ``k < 0``).  Every asserted
instance is then true, because each is an instance of a fact true of ``alpha**k`` (the
definition, or a lemma whose base and step obligations are unsat, hence true for every
``n``/``b``/``j`` by induction on the naturals).  So the counterexample is a model of the
obligation.  Contrapositive: unsat means there is no counterexample.  The converse does not
hold: ``pw`` is free wherever no instance pins it, so *sat* is a candidate counterexample that
must be checked (the tests replay every model with exact Fractions through the real code).

Why finitely many instances suffice here.  With ``e`` the exponent of ``gtpmf(q, x)`` and
``e'`` that of ``gtpmf(q', x)`` (``q`` or ``n-q`` or ``|x-q|``, chosen by the case split on
``x``), the case split bounds ``|e - e'| <= |q - q'| <= 1``: at ``x = 0`` and ``x = n``
because the exponent is ``q`` or ``n - q``, and in the middle because
``||x-q| - |x-q'|| <= |q - q'|``.  So ``e' = e + d`` with ``d`` in ``{-1, 0, 1}``, and the only
facts needed are the recurrence at ``e`` and ``e'`` (``pw(e+1) = alpha*pw(e)``) and positivity
at ``e`` and ``e'``; the common factor ``1/(1+alpha)`` or ``(1-alpha)/(1+alpha)`` is positive.
``|x - q|`` is an integer variable ``a`` with ``a >= +-(x-q)`` and ``a = +-(x-q)``, as in
``dpverify.verify.precision._grid`` (Z3's default tactic stalls on ``Abs``).

``1/(1+alpha)`` is a variable ``inverse_of_1_plus_alpha`` with ``inverse * (1+alpha) = 1`` and
``(1-alpha)/(1+alpha)`` a variable ``middle_constant`` defined as ``(1-alpha) * inverse`` (no
division, so no division-by-zero function in Z3's models; naming the constant is what lets
cvc5 decide the obligation quickly).

The theorem is two obligations, the lower and the upper bound (:data:`THEOREM` and
:data:`THEOREM_UPPER`, both in :data:`THEOREMS`): each decides in well under a second from a
fresh solver, their disjunction less predictably.  Logic: quantifier-free uninterpreted
functions with nonlinear mixed integer/real arithmetic (``QF_UFNIRA``).  This module also holds
the encoding's helpers and the three power lemmas, which the other proofs in this package reuse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import z3

from dpverify.proofs._theorem import Theorem, discharge
from dpverify.verify.engine._results import CheckResult, Verdict

__all__ = [
    "LEMMAS",
    "POWER_ANTITONE_BASE",
    "POWER_ANTITONE_STEP",
    "POWER_MULTIPLICATIVE_BASE",
    "POWER_MULTIPLICATIVE_STEP",
    "POWER_POSITIVE_BASE",
    "POWER_POSITIVE_STEP",
    "REQUIRES",
    "SOURCE",
    "THEOREM",
    "THEOREMS",
    "THEOREM_UPPER",
    "absolute",
    "antitone",
    "discharge_with_lemmas",
    "gtpmf",
    "multiplicative",
    "negated_ratio_bound",
    "positive",
    "power",
    "prove",
    "recurrence",
    "value",
]

#: The paper every GTM theorem in this package comes from.
SOURCE = "Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers"

_POWER_SOURCE = (
    f"{SOURCE}, §2 (gtpmf, alpha**k); a property of alpha**k on the naturals, "
    "by induction from alpha**0 = 1 and alpha**(k+1) = alpha * alpha**k"
)

# --- alpha**k as an uninterpreted function, and the facts asserted about it -----------------------


def power(name: str = "pw") -> z3.FuncDeclRef:
    """The uninterpreted ``pw: Int -> Real`` standing for ``k -> alpha**k`` on ``k >= 0``."""
    return z3.Function(name, z3.IntSort(), z3.RealSort())


def recurrence(pw: z3.FuncDeclRef, alpha: z3.ArithRef, k: z3.ArithRef) -> z3.BoolRef:
    """The definition's instance at ``k``: ``k >= 0 -> pw(k+1) = alpha * pw(k)``."""
    return z3.Implies(k >= 0, pw(k + 1) == alpha * pw(k))


def positive(pw: z3.FuncDeclRef, k: z3.ArithRef) -> z3.BoolRef:
    """Lemma :data:`POWER_POSITIVE_STEP` at ``k``: ``k >= 0 -> pw(k) > 0`` (needs ``alpha > 0``)."""
    return z3.Implies(k >= 0, pw(k) > 0)


def antitone(pw: z3.FuncDeclRef, e: z3.ArithRef, j: z3.ArithRef) -> z3.BoolRef:
    """Lemma :data:`POWER_ANTITONE_STEP` at ``(e, j)``: ``e, j >= 0 -> pw(e+j) <= pw(e)``
    (needs ``0 < alpha <= 1``)."""
    return z3.Implies(z3.And(e >= 0, j >= 0), pw(e + j) <= pw(e))


def multiplicative(pw: z3.FuncDeclRef, a: z3.ArithRef, b: z3.ArithRef) -> z3.BoolRef:
    """Lemma :data:`POWER_MULTIPLICATIVE_STEP` at ``(a, b)``: ``a, b >= 0 -> pw(a+b) = pw(a)*pw(b)``."""
    return z3.Implies(z3.And(a >= 0, b >= 0), pw(a + b) == pw(a) * pw(b))


def absolute(name: str, term: z3.ArithRef) -> tuple[z3.ArithRef, list[z3.BoolRef]]:
    """An integer ``a = |term|``, as ``a >= +-term`` and ``a = +-term`` (no ``Abs``)."""
    magnitude = z3.Int(name)
    return magnitude, [magnitude >= term, magnitude >= -term, z3.Or(magnitude == term, magnitude == -term)]


def gtpmf(
    alpha: z3.ArithRef,
    pw: z3.FuncDeclRef,
    n: z3.ArithRef,
    q: z3.ArithRef,
    x: z3.ArithRef,
    tag: str,
    *,
    name_constant: bool = True,
) -> tuple[z3.ArithRef, list[z3.ArithRef], list[z3.BoolRef]]:
    """``gtpmf(q, x)`` for ``0 <= x <= n`` as a Z3 term (paper §2), with the exponent terms it
    uses and the side conditions: ``|x - q|`` is the variable ``abs_x_minus_<tag>``,
    ``1/(1+alpha)`` the variable ``inverse_of_1_plus_alpha`` with ``inverse * (1+alpha) = 1``,
    and ``(1-alpha)/(1+alpha)`` the variable ``middle_constant`` (``name_constant``) or the
    product ``(1-alpha) * inverse``.  The two forms are equivalent; which one cvc5 decides
    quickly depends on the obligation, so each obligation picks the one both solvers decide."""
    distance, rules = absolute(f"abs_x_minus_{tag}", x - q)
    inverse = z3.Real("inverse_of_1_plus_alpha")
    rules.append(inverse * (1 + alpha) == 1)
    if name_constant:
        middle: z3.ArithRef = z3.Real("middle_constant")
        rules.append(middle == (1 - alpha) * inverse)
    else:
        middle = (1 - alpha) * inverse
    term = z3.If(x == 0, inverse * pw(q), z3.If(x == n, inverse * pw(n - q), middle * pw(distance)))
    return term, [q, n - q, distance], rules


def _alpha() -> z3.ArithRef:
    return z3.Real("alpha")


def _unit(alpha: z3.ArithRef) -> list[z3.BoolRef]:
    return [alpha > 0, alpha < 1]


# --- the power lemmas, by explicit induction ---------------------------------------------------


def _positive_base() -> list[z3.BoolRef]:
    pw, alpha = power(), _alpha()
    return [alpha > 0, pw(0) == 1, z3.Not(pw(0) > 0)]


def value(function: str, point: str) -> z3.ArithRef:
    """The real variable ``function(point)``: the value of a function at one point, for the
    induction steps (see the module docstring)."""
    return z3.Real(f"{function}({point})")


def _positive_step() -> list[z3.BoolRef]:
    alpha, at_k, at_k1 = _alpha(), value("pw", "k"), value("pw", "k+1")
    return [alpha > 0, at_k > 0, at_k1 == alpha * at_k, z3.Not(at_k1 > 0)]


def _antitone_base() -> list[z3.BoolRef]:
    pw, e = power(), z3.Int("e")
    return [e >= 0, z3.Not(pw(e + 0) <= pw(e))]


def _antitone_step() -> list[z3.BoolRef]:
    alpha, at_e, at_ej, at_ej1 = _alpha(), value("pw", "e"), value("pw", "e+j"), value("pw", "e+j+1")
    return [
        alpha > 0,
        alpha <= 1,
        at_ej <= at_e,  # induction hypothesis at j
        at_ej1 == alpha * at_ej,
        at_ej > 0,  # the recurrence and positivity at e+j
        z3.Not(at_ej1 <= at_e),
    ]


def _multiplicative_base() -> list[z3.BoolRef]:
    pw, a = power(), z3.Int("a")
    return [pw(0) == 1, a >= 0, z3.Not(pw(a + 0) == pw(a) * pw(0))]


def _multiplicative_step() -> list[z3.BoolRef]:
    alpha = _alpha()
    at_a, at_b, at_b1 = value("pw", "a"), value("pw", "b"), value("pw", "b+1")
    at_ab, at_ab1 = value("pw", "a+b"), value("pw", "a+b+1")
    return [
        at_ab == at_a * at_b,  # induction hypothesis at b
        at_ab1 == alpha * at_ab,
        at_b1 == alpha * at_b,  # the recurrence at a+b and at b
        z3.Not(at_ab1 == at_a * at_b1),
    ]


def _lemma(name: str, statement: str, obligation: Callable[[], Sequence[z3.BoolRef]], logic: str) -> Theorem:
    return Theorem(name=name, statement=statement, source=_POWER_SOURCE, covers=(), obligation=obligation, logic=logic)


POWER_POSITIVE_BASE = _lemma(
    "power_positive_base",
    "for alpha > 0: pw(0) = 1 implies pw(0) > 0 (base of: alpha**k > 0 for all k >= 0)",
    _positive_base,
    "QF_UFLIRA",
)
POWER_POSITIVE_STEP = _lemma(
    "power_positive_step",
    "for alpha > 0 and k >= 0: pw(k) > 0 and pw(k+1) = alpha*pw(k) imply pw(k+1) > 0 "
    "(step of: alpha**k > 0 for all k >= 0)",
    _positive_step,
    "QF_NRA",
)
POWER_ANTITONE_BASE = _lemma(
    "power_antitone_base",
    "for e >= 0: pw(e+0) <= pw(e) (base of: alpha**(e+j) <= alpha**e for all e, j >= 0)",
    _antitone_base,
    "QF_UFLIRA",
)
POWER_ANTITONE_STEP = _lemma(
    "power_antitone_step",
    "for 0 < alpha <= 1 and e, j >= 0: pw(e+j) <= pw(e), pw(e+j+1) = alpha*pw(e+j) and pw(e+j) > 0 imply "
    "pw(e+j+1) <= pw(e) (step of: alpha**(e+j) <= alpha**e for all e, j >= 0)",
    _antitone_step,
    "QF_NRA",
)
POWER_MULTIPLICATIVE_BASE = _lemma(
    "power_multiplicative_base",
    "for a >= 0: pw(0) = 1 implies pw(a+0) = pw(a)*pw(0) (base of: alpha**(a+b) = alpha**a * alpha**b)",
    _multiplicative_base,
    "QF_UFNIRA",
)
POWER_MULTIPLICATIVE_STEP = _lemma(
    "power_multiplicative_step",
    "for a, b >= 0: pw(a+b) = pw(a)*pw(b) and the recurrence at a+b and at b imply "
    "pw(a+b+1) = pw(a)*pw(b+1) (step of: alpha**(a+b) = alpha**a * alpha**b)",
    _multiplicative_step,
    "QF_NRA",
)

#: The power lemmas this module proves, base before step.
LEMMAS: tuple[Theorem, ...] = (
    POWER_POSITIVE_BASE,
    POWER_POSITIVE_STEP,
    POWER_ANTITONE_BASE,
    POWER_ANTITONE_STEP,
    POWER_MULTIPLICATIVE_BASE,
    POWER_MULTIPLICATIVE_STEP,
)


# --- the theorem ----------------------------------------------------------------------------------


def negated_ratio_bound(*, reach: int = 1, strict: bool = False, side: str = "both") -> list[z3.BoolRef]:
    """The negated theorem for neighbours ``|q - q'| <= reach``; ``strict`` asks for
    ``alpha < ratio < 1/alpha`` instead (false: the bound is attained).  Only the defaults
    state the paper's theorem; the others exist so that tests can see a wrong claim refuted.

    ``side`` negates only the lower bound (``"lower"``: ``alpha * gtpmf(q', x) <= gtpmf(q, x)``),
    only the upper one (``"upper"``), or either (``"both"``).  The certificates use one side
    each: Z3 decides each half in well under a second from a fresh context, while the
    disjunction of both can time out (its nonlinear search depends on the process history)."""
    pw, alpha = power(), _alpha()
    n, q, q2, x = z3.Ints("n q q_prime x")
    p, exponents, rules = gtpmf(alpha, pw, n, q, x, "q")
    p2, exponents2, rules2 = gtpmf(alpha, pw, n, q2, x, "q_prime")
    facts = [fact for k in (*exponents, *exponents2) for fact in (recurrence(pw, alpha, k), positive(pw, k))]
    low, high = (p <= alpha * p2, alpha * p >= p2) if strict else (p < alpha * p2, alpha * p > p2)
    return [
        *_unit(alpha),
        n >= 1,
        0 <= q,
        q <= n,
        0 <= q2,
        q2 <= n,
        q - q2 <= reach,
        q2 - q <= reach,
        0 <= x,
        x <= n,
        pw(0) == 1,
        *rules,
        *rules2,
        *facts,
        {"lower": low, "upper": high, "both": z3.Or(low, high)}[side],
    ]


_STATEMENT = "for all alpha in (0, 1), n >= 1, q, q' in [0, n] with |q - q'| <= 1 and x in [0, n]: "
_COVERS = ("dpverify.samplers.gtm.gtpmf", "dpverify.specs.gtm.GtmSpec.ideal_pmf")


def _half(side: str, inequality: str) -> Theorem:
    return Theorem(
        name=f"gtm_ideal_ratio_{side}",
        statement=_STATEMENT + inequality,
        source=f"{SOURCE}, §2 (gtpmf and its alpha-DP claim)",
        covers=_COVERS,
        obligation=lambda: negated_ratio_bound(side=side),
        logic="QF_UFNIRA",
    )


#: The lower half of the ratio bound (the upper half follows by swapping q and q', and is proved too).
THEOREM = _half("lower", "alpha * gtpmf(q', x) <= gtpmf(q, x)")
THEOREM_UPPER = _half("upper", "gtpmf(q, x) <= gtpmf(q', x) / alpha")

#: Both halves: together, alpha <= gtpmf(q, x)/gtpmf(q', x) <= 1/alpha.
THEOREMS: tuple[Theorem, ...] = (THEOREM, THEOREM_UPPER)

#: Lemmas :data:`THEOREM`'s obligation instantiates (it uses positivity only).
REQUIRES: tuple[Theorem, ...] = (POWER_POSITIVE_BASE, POWER_POSITIVE_STEP)


def discharge_with_lemmas(theorem: Theorem, lemmas: Sequence[Theorem]) -> CheckResult:
    """Discharge each lemma, then the theorem: proved only if all are.  The first lemma that is
    not proved is reported (a refuted lemma's model is a candidate, see the module docstring)."""
    for lemma in lemmas:
        result = discharge(lemma)
        if result.verdict is not Verdict.PROVED:
            return CheckResult(
                result.check,
                result.verdict,
                f"{theorem.name}: lemma {lemma.name} not proved: {result.summary}",
                reason=result.reason,
                evidence={**result.evidence, "theorem": theorem.name, "failed_lemma": lemma.name},
            )
    result = discharge(theorem)
    return CheckResult(
        result.check,
        result.verdict,
        result.summary,
        reason=result.reason,
        evidence={**result.evidence, "lemmas": [lemma.name for lemma in lemmas]},
    )


def prove() -> CheckResult:
    """Proved, refuted (with Z3's model) or unknown (with Z3's reason), lemmas included:
    both halves of the ratio bound must prove."""
    lower = discharge_with_lemmas(THEOREM, REQUIRES)
    if lower.verdict is not Verdict.PROVED:
        return lower
    return discharge(THEOREM_UPPER)
