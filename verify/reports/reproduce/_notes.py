"""Paper 002 recomputed: lecture notes "Provable Privacy" (Lecture 21, Matt Fredrikson).

The notes state few numbers but several examples, and illustrate the Laplace mechanism with
plots of the output densities for two neighbouring inputs (true counts 1000 and 999) at
``eps = ln 2``, ``ln 1.1`` and ``ln 5``.  With ``eps = ln c`` and scale ``b = 1/eps``
(Example 21.6: ``Lap(1/ln 2)``) every ratio the plots illustrate is exact: the density ratio at
``z`` is ``c^(|z - 999| - |z - 1000|)``, the mass within ``t`` of the true answer is
``1 - c^-t``, and the total variation between the two curves is ``1 - c^(-1/2)``.  The densities
are recomputed (plotted with ``--out``) and those bounds checked exactly; the examples are
recomputed by enumeration or with SymPy.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from fractions import Fraction

from mpmath import iv

from dpverify.specs._enclosure import enclose, iv_rational
from dpverify.verify.engine._results import fraction_text
from dpverify.verify.reports.reproduce._rows import (
    Figure,
    Options,
    Paper,
    Part,
    Plan,
    Row,
    Series,
    Task,
    certified_text,
)

__all__ = ["PAPER"]

#: The three privacy budgets of the plots, as ``c`` in ``eps = ln c``.
BUDGETS = (("ln 2", Fraction(2)), ("ln 1.1", Fraction(11, 10)), ("ln 5", Fraction(5)))
TRUE, NEIGHBOUR = 1000, 999


def _certified(compute: Callable[[], iv.mpf], digits: int = 10) -> str:
    return certified_text(*enclose(compute, 25), digits)


# --- definitions -----------------------------------------------------------------------------------


def large_epsilon_rows() -> Part:
    """e^10 ~ 22,000 and the neighbour's probability ~4.5e-5."""
    big = enclose(lambda: iv.exp(10), 20)
    small = enclose(lambda: iv.exp(-10), 20)
    big_ok = round(float(big[0]), -3) == 22000 and round(float(big[1]), -3) == 22000
    small_ok = f"{float(small[0]):.1e}" == f"{float(small[1]):.1e}" == "4.5e-05"
    return Part(
        (
            Row(
                "002/e^10",
                "e^10",
                "§21.2, 'Privacy budget'",
                "e^10 ~ 22,000",
                f"{certified_text(*big, 12)} (certified), 22,000 to 2 significant digits",
                "yes" if big_ok else "no",
                reason=None if big_ok else "does not round to 22,000",
                kind="certified",
            ),
            Row(
                "002/e^-10",
                "the neighbour's probability that makes e^10 binding",
                "§21.2, 'Privacy budget'",
                "~4.5 x 10^-5",
                f"e^-10 = {certified_text(*small, 12)} (certified)",
                "yes" if small_ok else "no",
                reason=None if small_ok else "does not round to 4.5e-5",
                kind="certified",
            ),
        )
    )


def definition_rows() -> Part:
    """Definition 21.1 on point probabilities, the neighbour definition, a deterministic San."""
    rows = []
    # Definition 21.1 compares Pr[San(X) = s]: for a continuous output every such probability is 0.
    # San(X) = X[0] + U(0, 1): Pr[San(X) = s] = 0 for all s, yet the sets [0, 1) separate X[0] = 0 from 5.
    point_first, point_second = Fraction(0), Fraction(0)
    set_first = Fraction(1)  # P[X[0] + U in [0, 1)] with X[0] = 0
    set_second = Fraction(0)  # with X[0] = 5
    rows.append(
        Row(
            "002/definition-21.1",
            "Definition 21.1 on a continuous mechanism",
            "Definition 21.1",
            "Pr[San(X1) = s] <= e^eps Pr[San(X2) = s] for all s in Range(San)",
            f"San(X) = X[0] + Uniform(0, 1): Pr[San(X) = s] = {point_first} = {point_second} for every s, so "
            f"(21.1) holds even with eps = 0; yet Pr[San in [0, 1)] = {set_first} for X[0] = 0 and {set_second} "
            "for X[0] = 5",
            "flagged",
            reason="vacuous for every mechanism with a continuous output, the Laplace mechanism of Theorem 21.5 "
            "included: all point probabilities are 0. It needs sets (Pr[San(X1) in S] <= e^eps "
            "Pr[San(X2) in S]) or densities; the notes' own plots compare densities. (The Question "
            "after (21.2), Sum(X) + Uniform(r) with eps = 0, is satisfied vacuously as written.)",
            kind="reading",
        )
    )
    first = {"a", "b", "c"}
    added = first | {"d"}
    rows.append(
        Row(
            "002/neighbours-1",
            "neighbour definition 1 (one added row)",
            "§21.2, 'Neighboring databases', item 1",
            "|X2| = |X1| - 1 and X2 subset of X1, X2 = X1 union {x_m}",
            f"X1 = {{a, b, c}}, x_m = d: X1 union {{x_m}} has {len(added)} rows = |X1| + 1, not |X1| - 1 = "
            f"{len(first) - 1}",
            "flagged",
            reason="inconsistent with itself: with |X2| = |X1| - 1 and X2 a subset of X1 it must read "
            "X1 = X2 union {x_m}; X2 = X1 union {x_m} gives |X2| = |X1| + 1",
            kind="reading",
        )
    )
    # a deterministic San that depends on the last row
    p_first, p_second = Fraction(1), Fraction(0)
    fails = p_first > 0 == p_second  # e^eps * 0 = 0 < 1 whatever eps
    rows.append(
        Row(
            "002/deterministic",
            "a deterministic San on X1 = [0,0,0], X2 = [0,0,1]",
            "§21.2, 'Randomized San'",
            "Pr[San(X1) = s] = 1, Pr[San(X2) = s] = 0: (21.1) fails for any eps",
            f"San = last row: Pr = {p_first} and {p_second}; 1 <= e^eps * 0 is false for every eps",
            "yes" if fails else "no",
            reason=None if fails else "the inequality holds somewhere",
        )
    )
    return Part(tuple(rows))


def sensitivity_rows() -> Part:
    """Examples 21.3 and 21.4 by enumeration (neighbours: one row changed, the notes' convention)."""

    def sensitivity(query: Callable[[tuple[int, ...]], int], values: range, rows: int = 3) -> int:
        worst = 0
        for database in itertools.product(values, repeat=rows):
            for i, v in itertools.product(range(rows), values):
                other = (*database[:i], v, *database[i + 1 :])
                worst = max(worst, abs(query(database) - query(other)))
        return worst

    count = sensitivity(lambda X: sum(1 for x in X if x >= 1), range(3))
    M = 4
    bounded = sensitivity(sum, range(M + 1))
    unbounded = [sensitivity(sum, range(-B, B + 1)) for B in range(1, 5)]
    return Part(
        (
            Row(
                "002/example-21.3",
                "global sensitivity of count(X, e)",
                "Example 21.3",
                "Delta count = 1",
                f"{count} (every database of 3 rows over {{0, 1, 2}}, e = 'row >= 1', one row changed)",
                "yes" if count == 1 else "no",
                reason=None if count == 1 else "not 1",
            ),
            Row(
                "002/example-21.4",
                "global sensitivity of sum on Z^n and on [0, M]^n",
                "Example 21.4",
                "undefined (unbounded) on Z^n; Delta sum = M on [0, M]^n",
                f"[0, {M}]^3: {bounded} = M; [-B, B]^3 for B = 1..4: {unbounded} = 2B, unbounded as B grows",
                "yes" if bounded == M and unbounded == [2, 4, 6, 8] else "no",
                reason=None if bounded == M else "not M",
            ),
        )
    )


# --- the Laplace distribution and mechanism ----------------------------------------------------------


def laplace_symbolic_rows() -> Part:
    """(21.5) is a density; (21.6) agrees with it (its case is written on x); the inverse CDF
    procedure samples Lap(b), except at u = 0 and u = 1."""
    import sympy

    z, x, b = sympy.Symbol("z", real=True), sympy.Symbol("x", positive=True), sympy.Symbol("b", positive=True)
    up = sympy.Symbol("u'", positive=True)
    density = sympy.exp(-abs(z) / b) / (2 * b)
    total = sympy.integrate(density, (z, -sympy.oo, sympy.oo))
    mean = sympy.integrate(z * density, (z, -sympy.oo, sympy.oo))
    piecewise = sympy.Piecewise((sympy.exp(z / b) / (2 * b), z < 0), (sympy.exp(-z / b) / (2 * b), True))
    same = sympy.simplify(sympy.piecewise_fold(piecewise - density).rewrite(sympy.Piecewise)) == 0 or all(
        sympy.simplify((piecewise - density).subs(z, v)) == 0 for v in (-3, -1, 0, 1, 3)
    )
    # u' in (0, 1/2): X = -b ln(1 - 2u') > x  iff  u' > (1 - e^(-x/b))/2
    threshold = sympy.solve(sympy.Eq(-b * sympy.log(1 - 2 * up), x), up)[0]
    tail = sympy.simplify(sympy.Rational(1, 2) - threshold)
    exact_tail = sympy.simplify(sympy.integrate(sympy.exp(-z / b) / (2 * b), (z, x, sympy.oo)))
    sampler_ok = sympy.simplify(tail - exact_tail) == 0
    at_zero = sympy.limit(-b * sympy.log(1 - 2 * up), up, sympy.Rational(1, 2), "-")
    return Part(
        (
            Row(
                "002/eq-21.5",
                "Laplace density (21.5)",
                "eq. (21.5)",
                "Pr[z] = 1/(2b) exp(-|z|/b), mean 0, symmetric",
                f"integral = {total}, mean = {mean} (SymPy)",
                "yes" if total == 1 and mean == 0 else "no",
                reason=None if total == 1 else "not a density",
                kind="symbolic",
            ),
            Row(
                "002/eq-21.6",
                "Laplace density, second form (21.6)",
                "eq. (21.6)",
                "1/(2b) exp(z/b) if x < 0, exp(-z/b) if x >= 0",
                f"read with z for x it equals (21.5) (SymPy): {'yes' if same else 'NO'}",
                "flagged",
                reason="inconsistent with itself: the cases test x while the density is in z (a typo; read as z "
                "the two forms agree)",
                kind="symbolic",
            ),
            Row(
                "002/inverse-cdf",
                "the inverse transform procedure for Lap(b)",
                "§21.3.1, 'Implementing the approach'",
                "u uniform, u' = u - 1/2, return -b sgn(u') ln(1 - 2|u'|): a sample of Lap(b)",
                f"P[X > x] = {sympy.sstr(tail)} for x > 0, the Laplace tail {sympy.sstr(exact_tail)} (and symmetric)",
                "yes" if sampler_ok else "no",
                reason=None if sampler_ok else "the tail differs",
                kind="symbolic",
            ),
            Row(
                "002/inverse-cdf/closed-interval",
                "the procedure at u = 0 and u = 1",
                "§21.3.1, step 1",
                "sample u from the uniform distribution on [0, 1]",
                f"u = 1 (u' = 1/2): -b ln(1 - 2u') -> {at_zero}; u = 0 likewise gives -oo",
                "flagged",
                reason="false without the unstated condition u in (0, 1): the closed interval allows u = 0 and u = 1, "
                "where ln 0 makes the noise infinite; harmless over the reals (probability 0), not on a computer, "
                "where a uniform double is 0 with probability 2^-53 (Gazeau et al. and dpverify draw from (0, 1))",
                kind="symbolic",
            ),
            Row(
                "002/figure-21.1",
                "peak densities of Lap(1/2) and Lap(2)",
                "Figure 21.1",
                "Lap(2) is flatter than Lap(1/2)",
                f"peaks 1/(2b) = {fraction_text(1 / (2 * Fraction(1, 2)))} and {fraction_text(1 / (2 * Fraction(2)))}; "
                "variances 2b^2 = 1/2 and 8",
                "yes",
            ),
            Row(
                "002/example-21.6/scale",
                "the scale in Example 21.6",
                "Example 21.6",
                "1,000 + Lap(1/ln 2) for eps = ln 2 and Delta count = 1",
                f"b = Delta/eps = 1/ln 2 = {_certified(lambda: 1 / iv.log(2))} (certified)",
                "yes",
                kind="certified",
            ),
        )
    )


def _density_figure(label: str, c: Fraction) -> Figure:
    eps = math.log(float(c))
    b = 1 / eps
    half_width = max(10, math.ceil(5 * b))  # an integer, so that the grid hits the true count
    xs = tuple(TRUE - half_width + i * half_width / 200 for i in range(401))

    def density(q: int) -> tuple[float, ...]:
        return tuple(math.exp(-abs(x - q) / b) / (2 * b) for x in xs)

    name = "notes_laplace_eps_" + label.replace("ln ", "ln").replace(".", "_")
    return Figure(
        name,
        f"1000 + Lap(1/eps) and 999 + Lap(1/eps), eps = {label} (Example 21.6, recomputed)",
        "response",
        "density",
        (Series("true count 1000", xs, density(TRUE), "b-"), Series("neighbour, 999", xs, density(NEIGHBOUR), "r-")),
    )


def neighbour_plot_rows(label: str, c_text: str) -> Part:
    """The ratio bound the plot at ``eps = ln c`` illustrates, exactly, and the plot itself."""
    c = Fraction(c_text)
    # the density ratio p(z - 1000)/p(z - 999) = c^(|z - 999| - |z - 1000|): exact at integer z
    ratios = [c ** (abs(z - NEIGHBOUR) - abs(z - TRUE)) for z in range(TRUE - 200, TRUE + 201)]
    bound_holds = max(ratios) == c and min(ratios) == 1 / c
    return Part(
        (
            Row(
                f"002/plot/{label}/ratio",
                f"density ratio of 1000 + Lap(1/eps) to 999 + Lap(1/eps), eps = {label}",
                "Theorem 21.5, Example 21.6 plots",
                f"ratio between e^-eps and e^eps = {fraction_text(c)}",
                f"c^(|z-999| - |z-1000|) over z = 800..1200: max {fraction_text(max(ratios))}, min "
                f"{fraction_text(min(ratios))} (exact; strictly between on (999, 1000))",
                "yes" if bound_holds else "no",
                reason=None if bound_holds else "the ratio leaves [1/c, c]",
            ),
        ),
        (_density_figure(label, c),),
    )


def _spread(c: Fraction) -> iv.mpf:
    """The spread (sd) sqrt(2)/eps at eps = ln c, as an interval."""
    return iv.sqrt(2) / iv.log(iv_rational(c))


def _distance(c: Fraction) -> iv.mpf:
    """The total variation 1 - c^(-1/2) between the two curves at eps = ln c, as an interval."""
    return 1 - 1 / iv.sqrt(iv_rational(c))


def plot_shape_row() -> Part:
    """What the notes read off the three plots: spread, distance between the curves, concentration."""
    found, spreads, distances, masses = [], [], [], []
    for label, c in BUDGETS:
        spread = enclose(functools.partial(_spread, c), 20)
        distance = enclose(functools.partial(_distance, c), 20)
        mass = 1 - 1 / c
        spreads.append(spread)
        distances.append(distance)
        masses.append(mass)
        found.append(
            f"{label}: sd {certified_text(*spread, 3)}, TV {certified_text(*distance, 3)}, "
            f"mass within 1 {fraction_text(mass)}, within 2 {fraction_text(1 - 1 / c**2)}"
        )
    # order by eps: ln 1.1 < ln 2 < ln 5
    order = [1, 0, 2]
    spread_falls = all(spreads[order[i]][0] > spreads[order[i + 1]][1] for i in range(2))
    distance_grows = all(distances[order[i]][1] < distances[order[i + 1]][0] for i in range(2))
    mass_grows = all(masses[order[i]] < masses[order[i + 1]] for i in range(2))
    holds = spread_falls and distance_grows and mass_grows
    return Part(
        (
            Row(
                "002/plots/shape",
                "spread, distance and concentration of the three plots",
                "Example 21.6 plots",
                "ln 1.1: more spread out and closer together; ln 2: very similar; ln 5: nearly all the mass on the "
                "true response, curves further apart",
                "; ".join(found) + " (sd sqrt(2)/eps, TV 1 - c^(-1/2), mass 1 - c^-t: certified or exact)",
                "yes" if holds else "no",
                reason=(
                    "from ln 1.1 to ln 2 to ln 5 the spread falls, the total variation between the two curves "
                    "grows and the mass near the true count grows, as the notes read them ('nearly all' is "
                    "4/5 within 1 and 24/25 within 2 at ln 5)"
                )
                if holds
                else "the three plots are not ordered as the notes say",
                kind="certified",
            ),
        )
    )


def figure_21_1() -> Part:
    xs = tuple(-6 + i * 0.03 for i in range(401))
    return Part(
        figures=(
            Figure(
                "notes_figure_21_1",
                "Laplace distribution, b = 1/2 and b = 2 (Figure 21.1, recomputed)",
                "z",
                "density",
                tuple(
                    Series(f"b = {label}", xs, tuple(math.exp(-abs(x) / b) / (2 * b) for x in xs), style)
                    for label, b, style in (("1/2", 0.5, "b-"), ("2", 2.0, "r-"))
                ),
            ),
        )
    )


# --- the paper -----------------------------------------------------------------------------------------------


def _plan(options: Options) -> Plan:
    return Plan(
        (
            Task(large_epsilon_rows),
            Task(definition_rows),
            Task(sensitivity_rows),
            Task(laplace_symbolic_rows),
            Task(figure_21_1),
            *(Task(neighbour_plot_rows, (label, str(c))) for label, c in BUDGETS),
            Task(plot_shape_row),
        )
    )


PAPER = Paper(
    "002",
    "002_d27275ed039a68f8.txt",
    "Lecture notes 'Provable Privacy' (Lecture 21, Fredrikson)",
    ("notes", "fredrikson"),
    _plan,
)
