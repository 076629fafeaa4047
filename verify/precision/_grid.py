"""Z3 proof of the grid Laplace mechanism's privacy claim, for every real input.

With ``m(q) = floor(q/L + 1/2)`` and the discrete Laplace of scale ``b' = b/L`` shifted to
``m(q)`` (``dpverify.specs.grid_laplace``), the privacy loss at the release ``L*k`` is

    ln P(L*k | q) - ln P(L*k | q') = (|k - m(q')| - |k - m(q)|) * L / b,

since the normalising constants cancel.  The claim is that this is at most
``epsilon = ceil(Delta/L) * L/b`` whenever ``|q - q'| <= Delta``.  Z3 is asked for a
counterexample in linear integer/real arithmetic with ``x = q/L`` and ``x' = q'/L`` real, ``k``
and the indices integer, floor encoded by ``m <= x + 1/2 < m + 1``, each ``|.|`` by an integer
``a`` with ``a >= +-(.)`` and ``a = +-(.)`` (Z3 decides this instantly; with ``Abs`` terms its
default tactic stalls on the tight cases), and the bound scaled to integers:
``(a' - a) * den > num`` for ``epsilon * b / L = num/den``.  unsat proves the bound for all
reals, not only the inputs a test happened to try.
"""

from __future__ import annotations

from fractions import Fraction

import z3

from dpverify.samplers import InvalidArgument, as_fraction
from dpverify.samplers._rational import shown
from dpverify.specs.grid_laplace import GridLaplaceSpec
from dpverify.verify.engine._arguments import need_instance
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.engine._text import short_rational

__all__ = ["check_grid_laplace_claim", "grid_claim_smtlib"]


def _absolute(name: str, term: z3.ArithRef) -> tuple[z3.ArithRef, list[z3.BoolRef]]:
    value = z3.Int(name)
    return value, [value >= term, value >= -term, z3.Or(value == term, value == -term)]


def _obligation(spec: GridLaplaceSpec, epsilon: Fraction) -> z3.Solver:
    x, x2 = z3.Reals("x x_prime")  # q/L and q'/L
    k, m, m2 = z3.Ints("k m m_prime")
    solver = z3.Solver()
    half = z3.RealVal("1/2")
    for index, value in ((m, x), (m2, x2)):
        solver.add(z3.ToReal(index) <= value + half, value + half < z3.ToReal(index) + 1)
    reach = z3.RealVal(fraction_text(spec.sensitivity / spec.step))
    solver.add(x - x2 <= reach, x2 - x <= reach)
    far, far_rules = _absolute("abs_k_minus_m_prime", k - m2)
    near, near_rules = _absolute("abs_k_minus_m", k - m)
    solver.add(*far_rules, *near_rules)
    bound = epsilon * spec.scale / spec.step  # the loss in units of 1/b'
    # as text with every digit: z3 converts a Python int with str(), which stops at 4300 digits
    numerator, denominator = (z3.IntVal(fraction_text(n)) for n in (bound.numerator, bound.denominator))
    solver.add((far - near) * denominator > numerator)
    return solver


def _bound(spec: object, epsilon: object) -> Fraction:
    """The checked epsilon: the spec's claim, or a given rational ``> 0``."""
    need_instance("spec", spec, GridLaplaceSpec, 'a GridLaplaceSpec, e.g. GridLaplaceSpec.create(0, 1, "1/2")')
    assert isinstance(spec, GridLaplaceSpec)  # need_instance raised otherwise
    if epsilon is None:
        return spec.claim_epsilon()
    bound = as_fraction("epsilon", epsilon)
    if bound <= 0:
        raise InvalidArgument(f'epsilon must be a rational > 0; got epsilon={shown(bound)}. Pass it as "num/den".')
    return bound


def check_grid_laplace_claim(spec: GridLaplaceSpec, epsilon: Fraction | None = None) -> CheckResult:
    """Proved when no real neighbours and grid output exceed ``epsilon`` (default: the claim)."""
    bound = _bound(spec, epsilon)
    solver = _obligation(spec, bound)
    solver.set("timeout", 60_000)
    status = solver.check()
    evidence = {"epsilon": fraction_text(bound), "solver": f"z3 {z3.get_version_string()}"}
    if status == z3.unsat:
        return CheckResult(
            "privacy",
            Verdict.PROVED,
            f"for all real q, q' with |q - q'| <= {short_rational(spec.sensitivity)} and every grid "
            f"output, the privacy loss is at most epsilon={short_rational(bound)} (Z3)",
            evidence=evidence,
        )
    if status == z3.sat:
        model = solver.model()
        values = {str(d): str(model[d]) for d in model.decls()}
        return CheckResult(
            "privacy",
            Verdict.VIOLATED,
            f"privacy loss above epsilon={short_rational(bound)} at {values} (x = q/L)",
            evidence={**evidence, "model": values},
        )
    reason = solver.reason_unknown()
    return CheckResult(
        "privacy", Verdict.INCONCLUSIVE, f"Z3 gave no answer: {reason}", reason=reason, evidence=evidence
    )


def grid_claim_smtlib(spec: GridLaplaceSpec, epsilon: Fraction | None = None) -> str:
    """The obligation as SMT-LIB 2 (unsat = the claim holds)."""
    bound = _bound(spec, epsilon)
    L, b, Delta, epsilon_ = (fraction_text(v) for v in (spec.step, spec.scale, spec.sensitivity, bound))
    header = (
        f"; dpverify: grid Laplace privacy claim, negated (L={L}, b={b}, Delta={Delta}, epsilon={epsilon_}); "
        "x = q/L.\n"
        "; unsat: the claim holds for all real inputs.\n"
    )
    script: str = _obligation(spec, bound).to_smt2()
    return header + script
