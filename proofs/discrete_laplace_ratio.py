"""The discrete Laplace mechanism is (Delta/b)-DP: a Z3 proof for every scale, sensitivity and output.

Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
Algorithm 2 (the distribution it samples), and the claim of ``dpverify.specs.noise.DiscreteLaplaceSpec``.
For a rational scale ``b > 0``, an integer sensitivity ``Delta >= 1`` and all integers ``z, z'``
with ``|z - z'| <= Delta``::

    e^(-Delta/b) * P(z') <= P(z) <= e^(Delta/b) * P(z'),
    P(z) = (e^(1/b) - 1)/(e^(1/b) + 1) * e^(-|z|/b).

So ``M(q) = q + Z`` is ``epsilon``-DP with ``epsilon = Delta/b`` for ``|q - q'| <= Delta``
(additive noise: ``P(x|q) / P(x|q') = P(x-q) / P(x-q')``).

Encoding: rational arithmetic only.  Put ``r = e^(-1/b)``: for ``b > 0``, ``r`` is a real in
(0, 1).  Since ``|z|`` and ``Delta`` are naturals, ``e^(-|z|/b) = r**|z|`` and
``e^(-Delta/b) = r**Delta`` exactly, and ``(e^(1/b) - 1)/(e^(1/b) + 1) = (1 - r)/(1 + r)``.
So the claim is an identity about powers of one real ``r``, and we prove it for *every* ``r``
in (0, 1), which covers every ``e^(-1/b)`` without evaluating or bounding an exponential:
``e^(Delta/b) = 1/r**Delta``, and the upper bound is multiplied out as
``r**Delta * P(z) <= P(z')``.  Powers are the uninterpreted ``pw`` of
``dpverify.proofs.gtm_ideal_ratio`` (whose docstring gives the soundness argument) with ``alpha = r``;
``1/(1+r)`` is a variable ``i`` with ``i*(1+r) = 1`` and the normaliser a variable
``c = (1-r)*i``; ``|z|`` and ``|z'|`` are integer variables, encoded as in ``dpverify.verify.precision._grid``.

Why finitely many instances suffice.  Let ``k = |z|``, ``k' = |z'|``; then ``k <= k' + Delta``
and ``k' <= k + Delta`` (reverse triangle inequality, which the linear part checks).  The lower
bound is ``c*r**(Delta + k') <= c*r**k``: multiplicativity at ``(Delta, k')`` turns
``r**Delta * r**k'`` into ``r**(Delta + k')``, and the antitone lemma at
``(k, k' + Delta - k)`` gives ``r**(Delta + k') <= r**k``; the upper bound is the same with
``k`` and ``k'`` swapped.  With positivity at ``k``, ``k'`` and ``Delta``, these six ground
instances of the power lemmas (proved by induction in ``dpverify.proofs.gtm_ideal_ratio``) are all the
obligation asserts about ``pw``.  Logic ``QF_UFNIRA``.
"""

from __future__ import annotations

import z3

from dpverify.proofs import gtm_ideal_ratio
from dpverify.proofs._theorem import Theorem
from dpverify.proofs.gtm_ideal_ratio import absolute, antitone, multiplicative, positive, power
from dpverify.verify.engine._results import CheckResult

__all__ = ["LEMMAS", "REQUIRES", "THEOREM", "negated_theorem", "prove"]


def negated_theorem(*, exponent_offset: int = 0) -> list[z3.BoolRef]:
    """The negated theorem for the bound ``e^((Delta - exponent_offset)/b)``.  Only ``0``
    states the claim (``1``, i.e. ``epsilon = (Delta-1)/b``, is false and exists for the tests)."""
    pw, r, inverse, normaliser = power(), z3.Real("r"), z3.Real("inverse_of_1_plus_r"), z3.Real("normaliser")
    z, z2, delta = z3.Ints("z z_prime Delta")
    k, k_rules = absolute("abs_z", z)
    k2, k2_rules = absolute("abs_z_prime", z2)
    bound = delta - exponent_offset
    instances = [
        multiplicative(pw, bound, k2),
        multiplicative(pw, bound, k),
        antitone(pw, k, k2 + bound - k),
        antitone(pw, k2, k + bound - k2),
        *(positive(pw, term) for term in (k, k2, bound)),
    ]
    p, p2 = normaliser * pw(k), normaliser * pw(k2)
    return [
        r > 0,
        r < 1,
        inverse * (1 + r) == 1,
        normaliser == (1 - r) * inverse,
        pw(0) == 1,
        delta >= 1,
        z - z2 <= delta,
        z2 - z <= delta,
        *k_rules,
        *k2_rules,
        *instances,
        z3.Or(pw(bound) * p2 > p, pw(bound) * p > p2),
    ]


THEOREM = Theorem(
    name="discrete_laplace_ratio",
    statement="for every rational b > 0, integer Delta >= 1 and integers z, z' with |z - z'| <= Delta: "
    "e^(-Delta/b) * P(z') <= P(z) <= e^(Delta/b) * P(z'), P(z) = (e^(1/b)-1)/(e^(1/b)+1) * e^(-|z|/b); "
    "proved for r = e^(-1/b) as every real r in (0, 1)",
    source="Canonne, Kamath, Steinke, The Discrete Gaussian for Differential Privacy (NeurIPS 2020), "
    "Algorithm 2 (discrete Laplace); its pure-DP claim epsilon = Delta/b (specs.noise.DiscreteLaplaceSpec)",
    covers=(
        "dpverify.specs.noise.DiscreteLaplaceSpec.ideal_pmf_expr",
        "dpverify.specs.noise.DiscreteLaplaceSpec.ideal_probability",
        "dpverify.specs.noise.DiscreteLaplaceSpec.claim",
    ),
    obligation=negated_theorem,
    logic="QF_UFNIRA",
)

#: Lemmas this module proves besides :data:`THEOREM` (none).
LEMMAS: tuple[Theorem, ...] = ()

#: The power lemmas the obligation instantiates (proved in ``dpverify.proofs.gtm_ideal_ratio``).
REQUIRES: tuple[Theorem, ...] = (
    gtm_ideal_ratio.POWER_POSITIVE_BASE,
    gtm_ideal_ratio.POWER_POSITIVE_STEP,
    gtm_ideal_ratio.POWER_ANTITONE_BASE,
    gtm_ideal_ratio.POWER_ANTITONE_STEP,
    gtm_ideal_ratio.POWER_MULTIPLICATIVE_BASE,
    gtm_ideal_ratio.POWER_MULTIPLICATIVE_STEP,
)


def prove() -> CheckResult:
    """Proved, refuted (with Z3's model) or unknown (with Z3's reason), power lemmas included."""
    return gtm_ideal_ratio.discharge_with_lemmas(THEOREM, REQUIRES)
