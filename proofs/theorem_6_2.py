"""Theorem 6.2: with any ``T``, the implemented GTM is ``alpha'``-DP.

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers",
Theorem 6.2: for ``alpha`` in (0, 1), ``n >= 1``, ``T >= 1``, let
``D = (1-alpha)/(1+alpha) * alpha**n``, ``D' = (1-alpha)/(1+alpha) * alpha**(n-1)`` and
``alpha' = (D - 1/T) / (D' + 1/T)``.  Then for neighbours ``|q - q'| <= 1`` and every ``x``
in ``[0, n]``::

    alpha' <= P_T(x|q) / P_T(x|q') <= 1/alpha'.

We prove it under the hypothesis ``T >= 1/D`` (``dpverify.specs.gtm.GtmSpec.support_bound``), i.e.
``D >= 1/T``: below it ``alpha' < 0``, ``1/alpha'`` is negative and the upper bound is false
as written (the paper's statement is only meaningful there).  With ``T >= 1/D`` every
``P_T(x|q) > 0`` (below), so the claim is equivalent to the multiplied-out pair
``m*(D' + eps) >= (D - eps)*m'`` and ``m'*(D' + eps) >= (D - eps)*m`` with ``eps = 1/T``,
``m = P_T(x|q)``, ``m' = P_T(x|q')`` (at ``D = eps``, ``alpha' = 0``, ``1/alpha' = +inf``
and the pair still states the claim).

Encoding (nonlinear real arithmetic over ``alpha, eps, p, p', m, m'``; ``QF_NRA``).  The
obligation quantifies over *all* reals that satisfy these hypotheses, each a theorem proved
elsewhere in this package, so any concrete counterexample ``(alpha, n, T, q, q', x)`` gives a
model (``p = gtpmf(q, x)`` etc.) and unsat proves the theorem:

- ``|m - p| < eps`` and ``|m' - p'| < eps`` with ``p = gtpmf(q, x)``, ``p' = gtpmf(q', x)``:
  Theorem 6.1 (``dpverify.proofs.theorem_6_1``);
- ``p >= D`` and ``p' >= D``: lemma :data:`PMF_MINIMUM`, proved in this module (below);
- ``alpha*p' <= p`` and ``alpha*p <= p'``: the ideal ratio theorem
  (``dpverify.proofs.gtm_ideal_ratio``; ``|q - q'| <= 1`` is symmetric, hence both);
- ``D = c*alpha**n`` and ``D' = c*alpha**(n-1)`` with ``c = (1-alpha)/(1+alpha)``: the two
  powers are the real variables ``alpha_to_n`` and ``alpha_to_n_minus_1`` with the recurrence
  ``alpha_to_n = alpha * alpha_to_n_minus_1`` and positivity ``alpha_to_n_minus_1 > 0``, the
  instances at ``n - 1 >= 0`` of the definition and the positivity lemma of
  ``dpverify.proofs.gtm_ideal_ratio`` (no uninterpreted function is needed for just two powers); so
  ``D' = D/alpha``;
- ``T >= 1`` and ``eps*T = 1``, with ``T`` real: every integer ``T`` is covered, and the
  obligation stays in real arithmetic (cvc5 stalls when ``T`` is an ``Int`` here);
- ``D >= eps``.

From these, ``m > p - eps >= D - eps >= 0``, so ``m, m' > 0``, as used above.

Lemma :data:`PMF_MINIMUM`: ``gtpmf(q, x) >= D`` for all ``q, x`` in ``[0, n]``.  The exponent
``e`` of ``gtpmf(q, x)`` is ``q``, ``n - q`` or ``|x - q|``, all in ``[0, n]``, so
``alpha**e >= alpha**n`` (the antitone power lemma at ``(e, n - e)``), and the constant is
``1/(1+alpha) >= (1-alpha)/(1+alpha)`` at the ends.  ``D`` is a lower bound of the PMF, not
always its minimum; the theorem only needs the bound.
"""

from __future__ import annotations

from fractions import Fraction

import z3

from dpverify.proofs import gtm_ideal_ratio, theorem_6_1
from dpverify.proofs._theorem import Theorem
from dpverify.proofs.gtm_ideal_ratio import SOURCE, antitone, gtpmf, positive, power
from dpverify.verify.engine._results import CheckResult

__all__ = ["LEMMAS", "PMF_MINIMUM", "REQUIRES", "THEOREM", "negated_pmf_minimum", "negated_theorem", "prove"]


def _minimum_constant(alpha: z3.ArithRef) -> tuple[z3.ArithRef, list[z3.BoolRef]]:
    """``(1-alpha)/(1+alpha)`` as the variable ``middle_constant = (1-alpha) * inverse`` with
    ``inverse * (1+alpha) = 1`` (the same names as in ``gtm_ideal_ratio.gtpmf``)."""
    inverse, middle = z3.Real("inverse_of_1_plus_alpha"), z3.Real("middle_constant")
    return middle, [inverse * (1 + alpha) == 1, middle == (1 - alpha) * inverse]


def negated_pmf_minimum() -> list[z3.BoolRef]:
    """``gtpmf(q, x) < (1-alpha)/(1+alpha) * alpha**n`` for some ``q, x`` in ``[0, n]``."""
    pw, alpha = power(), z3.Real("alpha")
    n, q, x = z3.Ints("n q x")
    p, exponents, rules = gtpmf(alpha, pw, n, q, x, "q")
    constant, definition = _minimum_constant(alpha)
    facts = [fact for e in exponents for fact in (antitone(pw, e, n - e), positive(pw, e))]
    return [
        alpha > 0,
        alpha < 1,
        n >= 1,
        0 <= q,
        q <= n,
        0 <= x,
        x <= n,
        *rules,
        *definition,
        *facts,
        positive(pw, n),
        p < constant * pw(n),
    ]


PMF_MINIMUM = Theorem(
    name="gtm_pmf_minimum",
    statement="for all alpha in (0, 1), n >= 1 and q, x in [0, n]: gtpmf(q, x) >= D = (1-alpha)/(1+alpha) * alpha**n",
    source=f"{SOURCE}, Theorem 6.2 (D) and §5 (the support bound 1/D)",
    covers=("dpverify.samplers.gtm.gtpmf", "dpverify.specs.gtm.GtmSpec.support_bound"),
    obligation=negated_pmf_minimum,
    logic="QF_UFNIRA",
)


def negated_theorem(*, slack: Fraction = Fraction(1), with_ideal_ratio: bool = True) -> list[z3.BoolRef]:
    """The negated theorem for the bound ``(D - slack/T) / (D' + slack/T)``.  Only the defaults
    state the paper's theorem; ``slack = 1/2`` (a tighter, false bound) and dropping the
    ideal-ratio hypothesis exist so that tests can see the obligation refuted."""
    alpha, T = z3.Real("alpha"), z3.Real("T")
    eps, p, p2, m, m2 = z3.Reals("eps p p_prime m m_prime")
    power_n, power_n_minus_1 = z3.Reals("alpha_to_n alpha_to_n_minus_1")
    constant, definition = _minimum_constant(alpha)
    D, D_prime = constant * power_n, constant * power_n_minus_1
    gap = eps * z3.RealVal(f"{slack.numerator}/{slack.denominator}")
    hypotheses = [
        alpha > 0,
        alpha < 1,
        T >= 1,
        eps * T == 1,
        *definition,
        power_n == alpha * power_n_minus_1,
        power_n_minus_1 > 0,  # recurrence and positivity at n-1 >= 0
        m - p < eps,
        p - m < eps,
        m2 - p2 < eps,
        p2 - m2 < eps,  # Theorem 6.1
        p >= D,
        p2 >= D,  # PMF_MINIMUM
        D >= eps,  # T >= 1/D
    ]
    if with_ideal_ratio:
        hypotheses += [alpha * p2 <= p, alpha * p <= p2]  # gtm_ideal_ratio
    lower = m * (D_prime + gap) >= (D - gap) * m2
    upper = m2 * (D_prime + gap) >= (D - gap) * m
    return [*hypotheses, z3.Not(z3.And(lower, upper))]


THEOREM = Theorem(
    name="theorem_6_2",
    statement="for all alpha in (0, 1), n >= 1, T >= 1 with T >= 1/D, neighbours |q - q'| <= 1 and x in [0, n]: "
    "alpha' <= P_T(x|q)/P_T(x|q') <= 1/alpha' with alpha' = (D - 1/T)/(D' + 1/T), "
    "D = (1-alpha)/(1+alpha) * alpha**n, D' = (1-alpha)/(1+alpha) * alpha**(n-1)",
    source=f"{SOURCE}, Theorem 6.2",
    covers=(
        "dpverify.specs.gtm.GtmSpec.theorem_6_2_alpha_prime",
        "dpverify.samplers.gtm.inverse_transform",
        "dpverify.samplers.gtm.cdf_vector",
        "dpverify.samplers.gtm._cdf_vector",
        "dpverify.samplers.gtm.gtpmf",
        "dpverify.specs.gtm.GtmSpec.pmf",
        "dpverify.specs.gtm._offset_tables",
    ),
    obligation=negated_theorem,
    logic="QF_NRA",
)

#: Lemmas this module proves besides :data:`THEOREM`.
LEMMAS: tuple[Theorem, ...] = (PMF_MINIMUM,)

#: Everything the proof rests on: the power lemmas PMF_MINIMUM instantiates, PMF_MINIMUM,
#: Theorem 6.1 and the ideal ratio theorem (with its own lemmas).
REQUIRES: tuple[Theorem, ...] = (
    gtm_ideal_ratio.POWER_POSITIVE_BASE,
    gtm_ideal_ratio.POWER_POSITIVE_STEP,
    gtm_ideal_ratio.POWER_ANTITONE_BASE,
    gtm_ideal_ratio.POWER_ANTITONE_STEP,
    PMF_MINIMUM,
    theorem_6_1.THEOREM,
    *gtm_ideal_ratio.THEOREMS,
)


def prove() -> CheckResult:
    """Proved, refuted (with Z3's model) or unknown (with Z3's reason), everything it rests on included."""
    return gtm_ideal_ratio.discharge_with_lemmas(THEOREM, REQUIRES)
