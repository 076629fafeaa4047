"""Paper 003 recomputed: the documentation of a DP type checker (its "Privacy functions" page).

It states the Gaussian mechanism's calibration ``sigma^2 = 2 ln(1.25/delta) s^2/eps^2`` (Dwork,
Roth, *The Algorithmic Foundations of Differential Privacy*, Theorem A.1), the Laplacian
mechanism, post-processing (their Proposition 2.1) and advanced composition (cited as "Theorem
3.1"), with three type-checked examples: one ``(0.1, 0.2)`` Gaussian step, the same step
post-processed by ``23 gx + 42``, and a loop of five such steps typed
``(0.2 sqrt(10 (0 - ln s)), 1 + s)`` for a free ``s`` in (0, 1].

Recomputed: the variance (a certified enclosure, and dpverify's exact grid value
:func:`dpverify.samplers.vector_gaussian.classic_sigma2`), the example's ``delta`` for the
continuous Gaussian (Balle–Wang's tight formula) and for the discrete one dpverify samples
(CKS20 Theorem 7), the invariance under the affine post-processing, the loop's type against
the composition formula (SymPy), and every composition bound with
:func:`dpverify.specs.account`, whose optimal (KOV) bound is exact for randomized response and
so shows where the stated formula is false.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mpmath import iv

from dpverify.specs._enclosure import enclose, iv_rational
from dpverify.specs._interval_tools import mpf_compare, mpf_fraction
from dpverify.verify.engine._results import fraction_text
from dpverify.verify.reports.reproduce._rows import Options, Paper, Part, Plan, Row, Task, certified_text

__all__ = ["PAPER"]

_EPS, _DELTA = Fraction(1, 10), Fraction(1, 5)  # the examples' (0.1, 0.2)


def _sigma2_interval(eps: Fraction, delta: Fraction, s: Fraction = Fraction(1)) -> tuple[mpmath.mpf, mpmath.mpf]:
    return enclose(lambda: 2 * iv.log(iv_rational(Fraction(5, 4) / delta)) * iv_rational(s * s / (eps * eps)), 25)


def gaussian_rows() -> Part:
    """The calibration at the example, and the example's (0.1, 0.2) for both Gaussians."""
    from dpverify.samplers.vector_gaussian import SIGMA2_GRID_BITS, classic_sigma2
    from dpverify.verify.privacy._accounting import dgauss_delta
    from dpverify.verify.reports.reproduce._cks20 import continuous_delta

    low, high = _sigma2_interval(_EPS, _DELTA)
    grid = classic_sigma2(1, "0.1", "0.2")
    unit = Fraction(1, 2**SIGMA2_GRID_BITS)
    on_grid = grid - unit < mpf_fraction(low) and mpf_fraction(high) <= grid
    # the exact sigma^2 lies in (grid - 2^-32, grid]: delta decreases in sigma^2, so the lower
    # grid point gives an upper bound on the continuous delta at the exact sigma^2
    continuous = continuous_delta(grid - unit, _EPS)
    discrete = dgauss_delta(grid, _EPS, 1, dps=20)
    example_holds = mpf_compare(continuous[1], _DELTA) <= 0 and mpf_compare(discrete[1], _DELTA) <= 0
    return Part(
        (
            Row(
                "003/gaussian/sigma2",
                "Gaussian mechanism variance at s = 1, eps = 0.1, delta = 0.2",
                "Gaussian Mechanism",
                "sigma^2 = 2 ln(1.25/delta) s^2/eps^2",
                f"200 ln 6.25 = {certified_text(low, high, 15)} (certified); "
                f"classic_sigma2 rounds it up to the 2^-32 grid: {fraction_text(grid)}",
                "yes" if on_grid else "no",
                reason=None if on_grid else "the grid value is not the rounded-up variance",
                command="python -c 'from dpverify.samplers.vector_gaussian import classic_sigma2; "
                'print(classic_sigma2(1, "0.1", "0.2"))\'',
                kind="certified",
            ),
            Row(
                "003/gaussian/example",
                "gaussian_mechanism(1, 0.1, 0.2, x)",
                "Gaussian Mechanism, first example",
                "(Integer @ (0.1, 0.2)) ->* Real: (0.1, 0.2)-DP",
                f"tight delta at eps = 0.1: continuous Gaussian <= {mpmath.nstr(continuous[1], 6)} (Balle-Wang), "
                f"discrete Gaussian on the integers <= {mpmath.nstr(discrete[1], 6)} (CKS20 Theorem 7), both <= 0.2",
                "yes" if example_holds else "no",
                reason=(
                    "holds with much room: the classic calibration is loose (delta about "
                    f"{mpmath.nstr(continuous[1], 2)} where 0.2 is allowed)"
                )
                if example_holds
                else "delta exceeds 0.2",
                command="dpverify privacy dgauss --sigma2 " + fraction_text(grid) + " --epsilon 1/10",
                kind="certified",
            ),
            Row(
                "003/gaussian/conditions",
                "the conditions of the Gaussian mechanism",
                "Gaussian Mechanism",
                "for every delta in (0, 1) and eps in (0, 1), L2 sensitivity s",
                "the conditions of Dwork-Roth Theorem A.1 (eps < 1, L2 sensitivity)",
                "yes",
                kind="reading",
            ),
        )
    )


def post_processing_rows() -> Part:
    """23 gx + 42 is a bijection: the hockey-stick divergence, hence (eps, delta), is unchanged."""
    from dpverify.samplers.vector_gaussian import classic_sigma2
    from dpverify.verify.reports.reproduce._cks20 import continuous_delta

    sigma2 = classic_sigma2(1, "0.1", "0.2")
    plain = continuous_delta(sigma2, _EPS)
    # 23 X + 42 with X ~ N(q, sigma2): N(23 q + 42, 23^2 sigma2), neighbours 23 apart
    scaled = continuous_delta(23**2 * sigma2, _EPS, Fraction(23))
    same = plain[0] <= scaled[1] and scaled[0] <= plain[1]
    return Part(
        (
            Row(
                "003/post-processing",
                "23 * gaussian_mechanism(1, 0.1, 0.2, x) + 42",
                "Robustness to Post-Processing",
                "(Integer @ (0.1, 0.2)) ->* Real",
                f"tight delta(0.1) of 23 N(q, sigma^2) + 42 (sensitivity 23, variance 23^2 sigma^2) = "
                f"{certified_text(*scaled, 10)} = that of N(q, sigma^2), {certified_text(*plain, 10)}",
                "yes" if same else "no",
                reason=None if same else "the deltas differ",
                kind="certified",
            ),
            Row(
                "003/post-processing/citation",
                "the post-processing result cited",
                "Robustness to Post-Processing",
                "Proposition 2.1 of the Privacybook",
                "Dwork-Roth Proposition 2.1 is post-processing",
                "yes",
                kind="reading",
            ),
        )
    )


def laplacian_rows() -> Part:
    """The Laplacian mechanism as stated: L2 sensitivity, eps in (0, 1), named M_Gauss."""
    # Lap^n(0, b = s/eps): density ratio between inputs v apart is at most e^(||v||_1/b) (attained)
    s = Fraction(1)
    eps = Fraction(1, 2)
    v = (Fraction(3, 5), Fraction(4, 5))  # ||v||_2 = 1 = s, ||v||_1 = 7/5
    l2_squared, l1 = sum(x * x for x in v), sum(abs(x) for x in v)
    loss = eps * l1 / s
    large_eps = Fraction(3)
    return Part(
        (
            Row(
                "003/laplacian/sensitivity",
                "the Laplacian mechanism's privacy for L2-sensitive f",
                "Laplacian Mechanism",
                "f s-sensitive in L2 norm, eps in (0, 1): f(x) + Lap^n(0, s/eps) is (eps, 0)-DP",
                f"n = 2, s = 1, eps = 1/2, f(x) - f(x') = (3/5, 4/5) (L2 norm^2 {fraction_text(l2_squared)}, L1 norm "
                f"{fraction_text(l1)}): privacy loss eps ||v||_1/s = {fraction_text(loss)} > "
                f"eps = {fraction_text(eps)}; with L1 sensitivity the loss is at most eps for every eps "
                f"(e.g. {large_eps})",
                "flagged",
                reason="false as stated: the Laplace mechanism needs L1 sensitivity (the loss is "
                "eps ||f(x) - f(x')||_1 / s, up to sqrt(n) eps under an L2 bound), and then holds for every "
                "eps > 0, not only eps in (0, 1)",
                kind="exact",
            ),
            Row(
                "003/laplacian/name",
                "name of the Laplacian mechanism",
                "Laplacian Mechanism",
                "M_Gauss(f, eps)(x) = f(x) + Lap^n(mu = 0, b = s/eps)",
                "the mechanism defined adds Laplace noise: it is the Laplace mechanism, not the Gaussian",
                "flagged",
                reason="inconsistent with itself: the Laplacian mechanism is written M_Gauss, the Gaussian's name",
                kind="reading",
            ),
        )
    )


def composition_rows() -> Part:
    """Advanced composition as stated: its citation, large eps, delta' = 1, and the loop example."""
    import sympy

    from dpverify.specs import account

    large = account(2, 0, 1000, "1e-6")
    stated_value = large.bound("advanced")
    optimal = large.bound("kov")
    kov = optimal.epsilon_interval
    if kov is None:  # KOV applies to every eps and this target < 1: without its enclosure nothing is shown
        raise AssertionError(f"the optimal (KOV) bound has no value at eps = 2, k = 1000: {optimal.reason}")
    # the formula's value, with or without its justification
    with mpmath.workdps(30):
        formula = 2 * 2 * mpmath.sqrt(2 * 1000 * mpmath.log(10**6))
    false_here = Fraction(kov[0]) > Fraction(mpmath.nstr(formula, 20))
    # the loop: five (0.1, 0.2) steps, typed (0.2 sqrt(10 (0 - ln s)), 1 + s)
    s_ = sympy.Symbol("s", positive=True)
    typed = sympy.Rational(2, 10) * sympy.sqrt(10 * (0 - sympy.log(s_)))
    formula_k5 = 2 * sympy.sqrt(2 * 5 * sympy.log(1 / s_)) * sympy.Rational(1, 10)
    same_type = sympy.simplify(sympy.expand_log(typed - formula_k5, force=True)) == 0
    loop = account("0.1", "0.2", 5, "1e-6", mechanism="gaussian")
    total = loop.delta_total
    zcdp = loop.zcdp_at_delta_prime
    zcdp_text = f"({zcdp.epsilon}, 10^-6)-DP" if zcdp is not None and zcdp.guarantee else "no zCDP guarantee"
    one = account("0.1", "0.2", 5, "1/2")  # any delta' < 1; at delta' = 1 the target is 2
    return Part(
        (
            Row(
                "003/advanced/citation",
                "the theorem cited for advanced composition",
                "Advanced Composition",
                "Theorem 3.1 (of the Privacybook)",
                "Dwork-Roth number advanced composition Theorem 3.20; the stated form "
                "(eps' = 2 eps sqrt(2k ln(1/delta'))) is their Corollary 3.21",
                "flagged",
                reason="wrong citation: Dwork-Roth Theorem 3.20 (and Corollary 3.21 for this form), not 3.1",
                kind="reading",
            ),
            Row(
                "003/advanced/large-eps",
                "advanced composition at eps = 2, k = 1000, delta' = 10^-6",
                "Advanced Composition",
                "(eps', k delta + delta')-DP with eps' = 2 sqrt(2k ln(1/delta')) eps, for any eps",
                f"the formula gives {mpmath.nstr(formula, 6)}; the optimal composition (KOV, exact for randomized "
                f"response) needs eps' >= {kov[0][:10]}: the statement is false here",
                "flagged" if false_here and not stated_value.applies else "no",
                reason="false without a condition on eps: Dwork-Roth Corollary 3.21 assumes eps' < 1 (it follows from "
                "Theorem 3.20 only where 2 ln(1/delta')/k >= (e^eps - 1)^2); 1000 steps of 2-DP randomized response "
                f"are not {mpmath.nstr(formula, 4)}-DP at delta = 10^-6",
                command="dpverify account --mechanism approx --epsilon 2 --k 1000 --delta-prime 1e-6",
                kind="certified",
            ),
            Row(
                "003/advanced/delta-prime-1",
                "advanced composition at delta' = 1",
                "Advanced Composition",
                "for any delta' in (0, 1]",
                f"delta' = 1: eps' = 2 sqrt(2k ln 1) eps = 0 at delta_total = k delta + 1 >= 1 (k = 5, delta = 0.2: "
                f"{fraction_text(5 * _DELTA + 1)})",
                "flagged",
                reason="vacuous at the included endpoint delta' = 1: the target delta_total = k delta + 1 >= 1 "
                "says nothing (and eps' = 0 there); the interval should be (0, 1)",
                kind="exact",
            ),
            Row(
                "003/advanced/loop-epsilon",
                "the loop's privacy type, eps part",
                "Advanced Composition, example",
                "0.2 sqrt(10 (0 - ln s10)) for 5 steps of (0.1, 0.2)",
                "2 sqrt(2*5 ln(1/s)) * 0.1 - 0.2 sqrt(10 (0 - ln s)) = 0 (SymPy): "
                f"{'equal' if same_type else 'DIFFERENT'}",
                "yes" if same_type else "no",
                reason=None if same_type else "the type is not the formula",
                kind="symbolic",
            ),
            Row(
                "003/advanced/loop-delta",
                "the loop's privacy type, delta part",
                "Advanced Composition, example",
                "1 + s10, s10 in (0, 1]",
                f"delta_total = 5 * 0.2 + s = 1 + s >= 1 (dpverify account: vacuous = {loop.vacuous}, target "
                f"{fraction_text(total)} at s = 10^-6; at s = 1/2: {fraction_text(one.delta_total)}); the same five "
                f"Gaussian steps are {zcdp_text} by zCDP (CKS20 conversion)",
                "flagged" if loop.vacuous else "no",
                reason="vacuous: delta_total = 1 + s >= 1 for every s, so the type promises nothing; each step's "
                "delta = 0.2 is already large, and composing the Gaussian steps in zCDP gives a meaningful guarantee",
                command="dpverify account --mechanism gaussian --epsilon 0.1 --delta 0.2 --k 5 --delta-prime 1e-6",
                kind="certified",
            ),
        )
    )


def _plan(options: Options) -> Plan:
    return Plan((Task(gaussian_rows), Task(post_processing_rows), Task(laplacian_rows), Task(composition_rows)))


PAPER = Paper(
    "003",
    "003_eb4336b1319c727f.txt",
    "Documentation of a DP type checker ('Privacy functions')",
    ("typechecker",),
    _plan,
)
