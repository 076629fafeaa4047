"""Paper 000 recomputed: Gazeau, Miller, Palamidessi, "Preserving differential privacy under
finite-precision semantics" (QAPL 2013).

The extract is machine-converted LaTeX and garbled in places (the robustness ratio's symbol is
lost: ``=/max ...`` in (5) and ``ln(1+e/^{...})`` in Theorem 4.5); the formulas below are rebuilt
from the paper's definitions, as in :mod:`dpverify.verify.precision._gazeau`, and each row says so.

* Example 1.1 (fixed point): the cells' last bits, the leak proved in bit-vectors
  (:func:`dpverify.verify.prove_fixed_point_leak`), Figure 1's parameters.
* Example 4.1: the 33% error, ``N >= 2^32``, and "an artificial ratio of 2 instead of 4/3"
  found in the real float code (truncated and rounded, :mod:`dpverify.samplers.gazeau_unsafe`)
  with ``e^(1/b) = 4/3`` exactly in the ideal mechanism.
* §5 (one dimension): the Lipschitz constant ``dn_max``, the robustness ratio against
  definition (5), Theorem 4.5's ``eps'`` against the exact loss of the real code at ``k`` bits
  (:func:`dpverify.verify.gazeau_privacy`), and where the theorem is vacuous or mis-stated.
* §6 (two dimensions): the radial law, the constants ``K_C`` and ``k``, the ratio bound, and
  Theorem 4.5 against the exact loss of the planar code
  (:func:`dpverify.verify.precision._planar_bound.planar_theorem_4_5`).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import cast

import mpmath

from dpverify.verify.engine._results import fraction_text
from dpverify.verify.reports.reproduce._rows import Options, Paper, Part, Plan, Row, Task

__all__ = ["PAPER"]


# --- Example 1.1 -----------------------------------------------------------------------------------


def example_1_1_rows() -> Part:
    """The cells of r1 = 0 and r2 = 1 + 2^-5 at d = 6, their last two bits, and Figure 1's r2."""
    d, n = 6, 2
    cells = {name: value * 2**d for name, value in (("r1", Fraction(0)), ("r2", 1 + Fraction(1, 2**5)))}
    bits = {name: format(int(cell) % 2**n, f"0{n}b") for name, cell in cells.items()}
    integral = all(cell.denominator == 1 for cell in cells.values())
    stated = {"r1": "00", "r2": "10"}
    holds = integral and bits == stated
    k, h = 3, 2
    difference = Fraction(2**n * k + h, 2**d)
    figure = Fraction(3, 2**4) + Fraction(1, 2**5)
    figure_holds = difference == figure and 1 <= h <= 2**n - 1
    return Part(
        (
            Row(
                "000/example-1.1/last-bits",
                "last two bits of the true answers' cells, b = 2^2, d = 6",
                "Example 1.1",
                "r1 = 0 ends in 00, r2 = 1 + 2^-5 ends in 10",
                f"cells r1*2^6 = {fraction_text(cells['r1'])} (bits ..{bits['r1']}), "
                f"r2*2^6 = {fraction_text(cells['r2'])} = "
                f"0b{int(cells['r2']):b} (bits ..{bits['r2']})",
                "yes" if holds else "no",
                reason=None if holds else "the cells' last bits differ from the paper's",
            ),
            Row(
                "000/figure-1/r2",
                "Figure 1's second true answer",
                "Example 1.1, Figure 1",
                "b = 4, k = 3, h = 2: answers differ by (2^n k + h)/2^d; r2 = 3*2^-4 + 2^-5",
                f"(2^2*3 + 2)/2^6 = {fraction_text(difference)} = 3/16 + 1/32 = {fraction_text(figure)}",
                "yes" if figure_holds else "no",
                reason=None if figure_holds else "the two expressions differ",
            ),
        )
    )


def example_1_1_proof() -> Part:
    """The leak for every cell pair, in 32-bit wrap-around arithmetic (Z3, QF_BV), and the sanity
    variant without the scaling (which must be refuted)."""
    from dpverify.verify.precision._fixed_point import prove_fixed_point_leak

    proved = prove_fixed_point_leak(32, 2)
    sanity = prove_fixed_point_leak(32, 2, noise_shift=0)
    holds = proved.verdict.value == "proved" and sanity.verdict.value == "violated"
    return Part(
        (
            Row(
                "000/example-1.1/leak",
                "release r + (z << 2) in 32-bit cells",
                "Example 1.1",
                "the release keeps the last n bits of the secret: we can always tell r1 from r2",
                f"{proved.verdict.value} by Z3 for all 32-bit r, z (disjoint output sets: infinite loss); the "
                f"unscaled variant (z << 0) is {sanity.verdict.value}, so the encoding can fail",
                "yes" if holds else "no",
                reason=None if holds else proved.summary,
                command="python -c 'from dpverify.verify import prove_fixed_point_leak; "
                "print(prove_fixed_point_leak(32, 2).summary)'",
                kind="proof",
            ),
        )
    )


# --- Example 4.1 -------------------------------------------------------------------------------------


def example_4_1_rows() -> Part:
    """1.5/N drawn as 1/N or 2/N; CPython's uniform grid; the ratio 2 instead of 4/3 in the float code."""
    from dpverify.samplers.gazeau_unsafe import GazeauConfig, mechanism_unsafe
    from dpverify.verify.precision._float_exact import float_pmf

    ideal = Fraction(3, 2)
    error = min(abs(Fraction(1) - ideal), abs(Fraction(2) - ideal)) / ideal
    # CPython's random() returns j / 2^53 for an integer j: N = 2^53
    source = random.Random(41)
    grid = all((Fraction(source.random()) * 2**53).denominator == 1 for _ in range(10_000))
    # the truncated and rounded float Laplace at k = 6 bits, scale b = 1/ln(4/3): the ideal
    # ratio of every cell [c, c+1] away from [0, 1] is e^(1/b) = 4/3 exactly
    bits = 6
    draws = (1 << bits) - 1
    config = GazeauConfig.create(scale=1 / math.log(4 / 3), bits=bits, lower=-30.0, upper=31.0, step=1.0)
    first = float_pmf(lambda j: mechanism_unsafe(0.0, config, j), range(1, draws + 1))
    second = float_pmf(lambda j: mechanism_unsafe(1.0, config, j), range(1, draws + 1))
    doubled = sorted(
        (x, first.counts.get(x, 0), second.counts.get(x, 0))
        for x in set(first.counts) | set(second.counts)
        if x != math.inf and {first.counts.get(x, 0), second.counts.get(x, 0)} == {1, 2}
    )
    x, c1, c2 = doubled[0]
    # the cell [low_edge, low_edge + 1] whose midpoint is x (mechanism_unsafe releases floats)
    low_edge = math.floor(cast(float, x))
    w = Fraction(3, 4)  # e^(-1/b) in the ideal mechanism

    def ideal_mass(q: int) -> Fraction:  # Lap(q, b) mass of the cell [c, c+1], c+1 <= q
        return (w ** (q - low_edge - 1) - w ** (q - low_edge)) / 2

    expected = [ideal_mass(0) * draws, ideal_mass(1) * draws]
    ratio_found = Fraction(max(c1, c2), min(c1, c2))
    return Part(
        (
            Row(
                "000/example-4.1/33-percent",
                "relative error when the ideal probability is 1.5/N",
                "Example 4.1",
                "closest is 1/N or 2/N: in both cases the error is at least 33%",
                f"|1 - 3/2|/(3/2) = |2 - 3/2|/(3/2) = {fraction_text(error)} = 33.3%",
                "yes" if error >= Fraction(33, 100) else "no",
                reason=None if error >= Fraction(33, 100) else "the error is below 33%",
            ),
            Row(
                "000/example-4.1/N",
                "size N of the uniform generator",
                "Example 4.1",
                "in practice N >= 2^32",
                f"CPython's random.random() returns j/2^53 (10,000 seeded draws, each times 2^53 an integer: "
                f"{'yes' if grid else 'NO'}): N = 2^53",
                "yes" if grid else "no",
                reason=None if grid else "a draw is not on the 2^-53 grid",
            ),
            Row(
                "000/example-4.1/ratio-2",
                "ratio at a low-probability cell, ideal ratio 4/3",
                "Example 4.1, Figure 2",
                "the discretization creates an artificial ratio of 2 instead of 4/3",
                "float Laplace (b = 1/ln(4/3)), truncated and rounded to cells of length 1, "
                f"{bits} bits ({draws} draws): "
                f"cell [{low_edge}, {low_edge + 1}] drawn {c1} vs {c2} times (ideal {float(expected[0]):.2f} vs "
                f"{float(expected[1]):.2f}): ratio {fraction_text(ratio_found)} where the ideal ratio is 4/3",
                "yes" if ratio_found == 2 else "no",
                reason=None if ratio_found == 2 else "no cell with ratio 2 was found",
                command="python -c 'from dpverify.verify import gazeau_privacy; "
                "print(gazeau_privacy(3.4760594967822073, 0, 1, "
                '6, -30, 31, 1)["witness"])\'',
            ),
        )
    )


# --- §5: one dimension ----------------------------------------------------------------------------------


def section_5_symbolic() -> Part:
    """``dn_max``, the sign of eq. (6), ``U_r`` without the absolute value, and definition (5)."""
    import sympy

    u, b, D, L, d, eps, Df = sympy.symbols("u b D L delta epsilon Delta_f", positive=True)
    # u < 1/2: n(u) = -b sgn(u - 1/2) ln(1 - 2|u - 1/2|) = b ln(2u); |n(u)| <= D for u >= e^(-D/b)/2
    slope = sympy.diff(b * sympy.log(2 * u), u)
    sup = sympy.simplify(slope.subs(u, sympy.exp(-D / b) / 2))
    stated = 2 * Df / eps * sympy.exp(eps * D / Df)
    dn_holds = sympy.simplify(sup - stated.subs(Df, b * eps)) == 0
    at_zero = sympy.limit(slope, u, 0, "+")
    text_n = -b * sympy.sign(u - sympy.Rational(1, 2)) * sympy.log(1 - 2 * abs(u - sympy.Rational(1, 2)))
    eq6_n = b * sympy.sign(u - sympy.Rational(1, 2)) * sympy.log(1 - 2 * abs(u - sympy.Rational(1, 2)))
    opposite = sympy.simplify(text_n + eq6_n) == 0
    # definition (5) for S = [0, L]: S^{+d} = [-d, L + d], S^{-d} = (d, L - d)
    band = ((L + 2 * d) - (L - 2 * d)) / (L - 2 * d)
    section = (L + 2 * d) / (L - 2 * d)
    differ_by_one = sympy.simplify(section - band) == 1
    return Part(
        (
            Row(
                "000/section-5/dn-max",
                "Lipschitz constant of n on |n(u)| <= diam(M_r)",
                "§5, 'Closeness of n and n''",
                "dn_max = (2 Delta_f'/eps) e^(eps diam(M_r)/Delta_f')",
                f"n'(u) = {sympy.sstr(slope)} for u < 1/2, largest at |n| = diam: {sympy.sstr(sup)} = the paper's "
                "value with b = Delta_f'/eps",
                "yes" if dn_holds else "no",
                reason=None if dn_holds else "the derivative's supremum differs",
                kind="symbolic",
            ),
            Row(
                "000/section-5/eq-6-sign",
                "sign of the exact noise function",
                "§5, eq. (6)",
                "n(u) = (Delta_f'/eps) sgn(u - 1/2) ln(1 - 2|u - 1/2|)",
                "eq. (6) + (the §4.1/§5 text's -b sgn(u-1/2) ln(1-2|u-1/2|)) = 0 (SymPy): opposite signs; "
                "the same law, the Laplace being symmetric",
                "flagged" if opposite else "no",
                reason="inconsistent with its own text: Example 4.1 and the line above (6) write -b sgn(...) "
                "ln(...), (6) drops the minus sign; harmless (the noise is symmetric, so n and -n have the same law)",
                kind="symbolic",
            ),
            Row(
                "000/section-5/U_r",
                "the set U_r on which n is dn_max-Lipschitz",
                "§5, 'Closeness of n and n''",
                "U_r = {u | n(u) <= M - m}",
                f"every u < 1/2 has n(u) = b ln(2u) <= 0 <= M - m, so U_r contains (0, 1/2), where n'(u) = b/u -> "
                f"{at_zero} as u -> 0",
                "flagged",
                reason="false as written: without |n(u)| the set contains u -> 0, where n is not Lipschitz for "
                "any k; with |n(u)| <= M - m (and the query answer inside M_r, also unstated) it is dn_max-Lipschitz",
                kind="symbolic",
            ),
            Row(
                "000/section-5/R",
                "robustness ratio (5) for cells of length L",
                "§4.4 eq. (5), §5 'Rounding the result'",
                "the value defined in (5) is (L + 2 delta_t)/(L - 2 delta_t)",
                "(5) for S = [a, a + L]: lambda(S^+d \\ S^-d)/lambda(S^-d) = "
                f"{sympy.sstr(sympy.simplify(band))}; §5's value is exactly 1 more (it divides the whole S^+d by S^-d)",
                "flagged" if differ_by_one else "no",
                reason="inconsistent with its own definition: (5) gives R = 4 delta_t/(L - 2 delta_t), §5 states "
                "(L + 2 delta_t)/(L - 2 delta_t) = 1 + R, the ratio lambda(S^+)/lambda(S^-) instead of the band's. "
                "The proof (Appendix B) uses (5); §5's larger R gives a valid but looser eps', never below "
                "eps + ln(1 + e^(eps L/Delta_f'))  (symbol of R lost in the extraction; rebuilt from §5 and "
                "Appendix B)",
                kind="symbolic",
            ),
        )
    )


def _gazeau_command(args: tuple[object, ...]) -> str:
    scale, q, q_prime, bits, lower, upper, step = args
    return (
        f"dpverify privacy gazeau --scale {scale} --q {q} --q-prime {q_prime} --bits {bits} "
        f"--lower={lower} --upper {upper} --step {step}"
    )


def theorem_4_5_row(scale: str, q: str, q_prime: str, bits: int, lower: str, upper: str, step: str) -> Part:
    """Theorem 4.5's eps' (both readings of R) against the exact loss of the real float code."""
    from dpverify.verify.precision._gazeau import gazeau_privacy

    args = (scale, q, q_prime, bits, lower, upper, step)
    report = gazeau_privacy(*args)
    bounds, conditions = report["bounds"], report["conditions"]
    tag = f"b={scale}, k={bits}, [{lower}, {upper}], L={step}"
    exact = f"exact eps at {bits} bits = {report['exact_epsilon']} (ratio {report['exact_ratio']})"
    where = "Theorem 4.5 with §5 (1-D)"
    stated = "eps' = eps + ln(1 + R e^(eps (L + delta_t)/Delta_f')) (R rebuilt: lost in the extraction)"
    if not conditions["step_exceeds_2_delta_t"]:
        vacuous = bounds["definition_5"]["verdict"] == "vacuous" and bounds["section_5"]["verdict"] == "vacuous"
        return Part(
            (
                Row(
                    f"000/thm-4.5/1d/{tag}",
                    f"Theorem 4.5 (1-D) with L <= 2 delta_t, {tag}",
                    where,
                    stated,
                    f"delta_t = {report['delta_t']:.6g} >= L/2: R infinite under both readings, eps' = infinity; "
                    f"{exact}",
                    "flagged" if vacuous else "no",
                    reason="vacuous without the unstated condition L > 2 delta_t: (5) divides by lambda(S^-delta_t) "
                    "= L - 2 delta_t, and the theorem then says nothing; the exact loss here is "
                    f"{report['exact_epsilon']:.4f} against eps = {report['mechanism_epsilon']:g}",
                    command=_gazeau_command(args),
                    kind="certified",
                ),
            )
        )
    holds = conditions["all_hold"] and all(bounds[r]["verdict"] == "holds" for r in ("definition_5", "section_5"))
    return Part(
        (
            Row(
                f"000/thm-4.5/1d/{tag}",
                f"Theorem 4.5 (1-D), {tag}",
                where,
                stated,
                f"delta_t = {report['delta_t']:.6g}; eps' = {bounds['definition_5']['epsilon_prime']:.6f} with R from "
                f"(5), {bounds['section_5']['epsilon_prime']:.6f} with §5's R; {exact}: below both",
                "yes" if holds else "no",
                reason=None if holds else f"conditions {conditions}, verdicts {report['contradicted_readings']}",
                command=_gazeau_command(args),
                kind="certified",
            ),
        )
    )


def theorem_4_5_unrounded() -> Part:
    """As extracted, Theorem 4.5 bounds A' (no rounding) over every Lebesgue set: the float code
    at 16 bits has no output in common between q = 0 and q' = 1."""
    from dpverify.samplers.laplace_float_unsafe import mechanism_unsafe
    from dpverify.verify.precision._float_exact import float_pmf, float_privacy

    bits = 16
    draws = range(1, 1 << bits)
    first = float_pmf(lambda j: mechanism_unsafe(0.0, 1.0, j, bits), draws)
    second = float_pmf(lambda j: mechanism_unsafe(1.0, 1.0, j, bits), draws)
    loss = float_privacy(first, second)
    shared = sum(1 for x in first.counts if x in second.counts)
    infinite = loss.ratio is None
    return Part(
        (
            Row(
                "000/thm-4.5/statement",
                "the mechanism and sets Theorem 4.5 quantifies over",
                "Theorem 4.5",
                "for all S in the Lebesgue sigma-algebra: P[A'(D1) in S] <= e^eps' P[A'(D2) in S]",
                f"the unrounded float Laplace (b = 1, q = 0 vs 1, {bits} bits): {len(first.counts)} outputs, "
                f"{shared} in common; loss {'infinite' if infinite else loss.epsilon}",
                "flagged" if infinite else "no",
                reason="false as extracted: no finite-precision A' satisfies it for any eps' (its outputs from "
                "neighbouring inputs are disjoint finite sets, Example 4.1); the proof (Appendix B) is about "
                "the rounded K = r(A') over the rounding sigma-algebra S' of eq. (4), which is what the "
                "instance rows check",
                command=f"dpverify attack laplace-float --scale 1 --q 0 --q-prime 1 --bits {bits}",
                kind="exact",
            ),
        )
    )


def definition_2_7() -> Part:
    """Definition 2.7 names b the scale but uses it as a rate."""
    import sympy

    x, b, D = sympy.symbols("x b Delta", positive=True)
    rate_ratio = sympy.simplify(sympy.exp(-b * x) / sympy.exp(-b * (x + D)))
    scale_ratio = sympy.simplify(sympy.exp(-x / b) / sympy.exp(-(x + D) / b))
    return Part(
        (
            Row(
                "000/definition-2.7/scale",
                "the Laplace parameter b",
                "Definition 2.7, Theorem 3.2, §5",
                "F_b(x) = K(b) e^(-b||x||) with 'scale parameter b'; §5: 'scale parameter Delta_f'/eps'",
                f"density ratio at distance Delta: {sympy.sstr(rate_ratio)} under Definition 2.7 (b a rate: eps-DP "
                f"iff b <= eps/Delta, Theorem 3.2's (7)), {sympy.sstr(scale_ratio)} under §5 and Example 1.1 "
                "(b a scale: iff b >= Delta/eps)",
                "flagged",
                reason="inconsistent with its own definitions: Definition 2.7 and Theorem 3.2 use b as the rate "
                "(e^(-b|x|)), Example 1.1 and §5 as the scale (e^(-|x|/b), b = Delta_f'/eps); each statement "
                "is right under its own reading only",
                kind="symbolic",
            ),
        )
    )


# --- §6: two dimensions -----------------------------------------------------------------------------------


def section_6_symbolic() -> Part:
    """The bivariate density's sign, the radial law, K_C, the global k, and the ratio bound."""
    import sympy

    r, b, eps, L, d, u2 = sympy.symbols("r b epsilon L delta u2", positive=True)
    diverges = sympy.integrate(2 * sympy.pi * r * sympy.exp(b * r), (r, 0, sympy.oo))
    C = 1 - (1 + eps * r) * sympy.exp(-eps * r)
    density = eps**2 * r * sympy.exp(-eps * r)
    radial = sympy.simplify(sympy.diff(C, r) - density) == 0
    at_zero = density.subs(r, 0)
    inverse_slope = sympy.limit(1 / density, r, 0, "+")
    # (u1, u2) -> (R(u1) cos 2 pi u2, R(u1) sin 2 pi u2): the u2-column of the Jacobian has norm 2 pi R
    R = sympy.Symbol("R", positive=True)  # the radius C^-1(u1), constant in u2
    column = [sympy.diff(R * sympy.cos(2 * sympy.pi * u2), u2), sympy.diff(R * sympy.sin(2 * sympy.pi * u2), u2)]
    norm = sympy.simplify(sympy.sqrt(column[0] ** 2 + column[1] ** 2))
    # definition (5) for a square of side L: S^+d has area L^2 + 4Ld + pi d^2, S^-d side L - 2d
    band = (L**2 + 4 * L * d + sympy.pi * d**2 - (L - 2 * d) ** 2) / (L - 2 * d) ** 2
    stated = ((L + 2 * d) / (L - 2 * d)) ** 2
    excess = sympy.simplify(stated - band)
    valid = sympy.simplify(excess - (1 + (4 - sympy.pi) * d**2 / (L - 2 * d) ** 2)) == 0
    return Part(
        (
            Row(
                "000/section-6/density",
                "the bivariate Laplace density",
                "§6",
                "p(x, y) = K e^(b sqrt(|x-x0|^2 + |y-y0|^2))",
                f"integral of e^(b r) over the plane = {sympy.sstr(diverges)} for b > 0: no K normalises it",
                "flagged",
                reason="inconsistent with Definition 2.7 (e^(-b||x||)): the minus sign is missing, and as written the "
                "density is not normalisable (possibly lost in the extraction)",
                kind="symbolic",
            ),
            Row(
                "000/section-6/radial-law",
                "radius density and CDF of the planar Laplace",
                "§6",
                "D(r) = eps^2 r e^(-eps r), C(r) = 1 - (1 + eps r) e^(-eps r)",
                f"dC/dr - D(r) = 0 (SymPy): {'consistent' if radial else 'NOT consistent'}",
                "yes" if radial else "no",
                reason=None if radial else "C' differs from D",
                kind="symbolic",
            ),
            Row(
                "000/section-6/K_C",
                "Lipschitz constant of C^-1 on [0, diam(M_r)]",
                "§6, 'Robustness of n'",
                "K_C(eps, diam) = e^(eps diam)/(2 eps + r eps^2) (the inverse of C's smallest slope there)",
                f"C'(r) = {sympy.sstr(density)}, C'(0) = {at_zero}: 1/C' -> {inverse_slope} as r -> 0, so C^-1 is not "
                "Lipschitz on [0, diam] (C^-1(u) ~ sqrt(2u)/eps near 0)",
                "flagged",
                reason="false by its own definition: the smallest slope of C on [0, diam] is 0 (at r = 0), so K_C is "
                "infinite, and the formula as extracted depends on a free r; delta_t = k delta_0 + delta_n is then "
                "unbounded. The 2-D row below instantiates delta_t from a coupling instead (Theorem 4.3)",
                kind="symbolic",
            ),
            Row(
                "000/section-6/k",
                "global Lipschitz factor of the polar map",
                "§6, 'Robustness of n'",
                "k = sqrt(K_C^2 + 2 pi diam(M_r))",
                "the angle column of the Jacobian of (u1, u2) -> R e^(2 pi i u2), R = C^-1(u1), "
                f"has norm {sympy.sstr(norm)}, so "
                "k = sqrt(K_C^2 + (2 pi diam)^2)",
                "flagged",
                reason="inconsistent (dimensionally): K_C^2 is squared, 2 pi diam is not; the Jacobian gives "
                "(2 pi diam)^2 (possibly lost in the extraction)",
                kind="symbolic",
            ),
            Row(
                "000/section-6/R",
                "robustness ratio for square cells",
                "§6, 'Rounding the answer'",
                "the ratio (5) is smaller than ((L + 2 delta_t)/(L - 2 delta_t))^2",
                "(5) for a square of side L (Euclidean neighbourhoods) = (8 L d + (pi - 4) d^2)/(L - 2d)^2; the stated "
                "bound exceeds it by 1 + (4 - pi) d^2/(L - 2d)^2 > 0 (SymPy)",
                "yes" if valid else "no",
                reason=(
                    "a valid upper bound, loose by more than 1 (it divides the whole S^+delta_t, as §5 does in 1-D)"
                    if valid
                    else "the stated bound is not above (5)"
                ),
                kind="symbolic",
            ),
        )
    )


def _planar_command(k: int, box: tuple[float, float, float, float]) -> str:
    return (
        "python -c 'from dpverify.verify.precision._planar_bound import planar_theorem_4_5 as t; "
        f'r = t({k}, box={box}); print(r.delta_t and float(r.delta_t), r.verdict("5"), r.verdict("6"), '
        "r.exact and float(r.exact[1]))'"
    )


def _upper_text(bound: tuple[mpmath.mpf, mpmath.mpf] | None) -> str:
    """An enclosure's upper end to 7 digits; a bound is None where it says nothing (L <= 2 delta_t)."""
    return "vacuous (L <= 2 delta_t)" if bound is None else str(mpmath.nstr(bound[1], 7))


def theorem_4_5_planar(k: int, box: tuple[float, float, float, float]) -> Part:
    """Theorem 4.5 in 2-D, delta_t from the quantile coupling, against the exact loss at k bits."""
    from dpverify.verify.precision._planar_bound import planar_theorem_4_5

    result = planar_theorem_4_5(k=k, box=box)
    tag = f"k={k}, box={list(box)}"
    exact = "infinite" if result.exact is None else mpmath.nstr(result.exact[1], 8)
    stated = "eps' = eps + ln(1 + ((L + 2 delta_t)/(L - 2 delta_t))^2 e^(eps (L + delta_t)/Delta_f'))"
    common = (
        f"eps = 1, a = (0, 0), b = (1, 0), L = 1, {4**k} draw pairs: exact loss of the truncated and rounded "
        f"release {exact}"
    )
    if result.delta_t is None:
        vacuous = result.verdict("5") == "vacuous" and result.verdict("6") == "vacuous"
        return Part(
            (
                Row(
                    f"000/thm-4.5/2d/{tag}",
                    f"Theorem 4.5 (2-D), {tag}",
                    "Theorem 4.5 with §6",
                    stated,
                    f"delta_t infinite (the last radial cell, of unbounded radius, reaches the box); {common}",
                    "flagged" if vacuous else "no",
                    reason="vacuous without the unstated condition that no draw cell of unbounded extent can land "
                    "in M_r (so that delta_t < L/2): here the box reaches past C^-1((2^k - 1)/2^k)",
                    command=_planar_command(k, box),
                    kind="certified",
                ),
            )
        )
    holds = result.verdict("5") == "holds" and result.verdict("6") == "holds"
    as_written = result.epsilon_prime_6_as_written
    below_written = as_written is not None and result.exact is not None and result.exact[1] <= as_written[0]
    rows = [
        Row(
            f"000/thm-4.5/2d/{tag}",
            f"Theorem 4.5 (2-D), {tag}",
            "Theorem 4.5 with §6",
            stated,
            # delta_0 is finite with delta_t = delta_0 + delta_n
            f"delta_t = {float(result.delta_t):.6g} (quantile coupling {float(cast(Fraction, result.delta_0)):.6g} "
            f"+ float {float(result.delta_n):.2g}); with the cell diameter L sqrt(2) in the exponent eps' = "
            f"{_upper_text(result.epsilon_prime_6)} with §6's R, {_upper_text(result.epsilon_prime_5)} "
            f"with (5)'s; {common}: below both",
            "yes" if holds else "no",
            reason=(
                "delta_t is not §6's k delta_0 + delta_n (infinite, row K_C) but the largest displacement of "
                "the quantile coupling, which is what the proof needs (Theorem 4.3)"
            )
            if holds
            else f"verdicts {result.verdict('5')}, {result.verdict('6')}",
            command=_planar_command(k, box),
            kind="certified",
        )
    ]
    if as_written is not None:
        rows.append(
            Row(
                "000/section-6/L",
                "the length L in §6's eps' for square cells",
                "§6 'Differential privacy', Theorem 4.5",
                "eps' = eps + ln(1 + ((L+2 delta_t)/(L-2 delta_t))^2 e^(eps (L + delta_t)/Delta_f')), "
                "L the side of a square cell; Theorem 4.5: L = max diam S",
                f"a square of side L has diameter L sqrt(2): at {tag} §6's formula gives "
                f"{mpmath.nstr(as_written[1], 7)}, Theorem 4.5 with the diameter "
                f"{_upper_text(result.epsilon_prime_6)}; the exact loss {exact} is below both here",
                "flagged" if below_written else "no",
                reason="inconsistent with Theorem 4.5: its L is the largest diameter of a rounding cell (the "
                "proof bounds distances by Delta_f' + L + delta_t), L sqrt(2) for squares in the "
                "Euclidean metric, but §6 puts the side L in the exponent, an eps' smaller than the "
                "theorem proves"
                if below_written
                else "the exact loss exceeds §6's bound as written",
                kind="certified",
            )
        )
    return Part(tuple(rows))


# --- the paper ----------------------------------------------------------------------------------------------


def _plan(options: Options) -> Plan:
    return Plan(
        (
            Task(example_1_1_rows),
            Task(example_1_1_proof),
            Task(example_4_1_rows),
            Task(definition_2_7),
            Task(section_5_symbolic),
            Task(theorem_4_5_unrounded),
            Task(theorem_4_5_row, ("1", "0", "1", 16, "-2", "2", "0.25")),
            Task(theorem_4_5_row, ("2", "0", "1", 14, "-4", "4", "0.5")),
            Task(theorem_4_5_row, ("1", "0", "1", 16, "-2", "2", "0.001953125")),
            Task(section_6_symbolic),
            Task(theorem_4_5_planar, (9, (-2.5, 3.5, -2.5, 2.5))),
            Task(theorem_4_5_planar, (9, (-5.5, 6.5, -5.5, 5.5))),
        )
    )


PAPER = Paper(
    "000",
    "000_394699889c4b2074.txt",
    "Gazeau, Miller, Palamidessi: Preserving differential privacy under finite-precision semantics",
    ("gazeau",),
    _plan,
)
