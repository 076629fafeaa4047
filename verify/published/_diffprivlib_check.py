"""diffprivlib's exact epsilon at ``k`` bits against its claim (:func:`check_diffprivlib`), the
``delta`` at the claimed epsilon, and the sweeps over ``k`` with the README's table.  Its own
module: the verdicts and their tables, apart from how the PMFs they compare are derived.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

from dpverify.samplers import InvalidArgument, as_fraction
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf, PureDp
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_number
from dpverify.verify.privacy._claim_checks import check_pure_epsilon
from dpverify.verify.published._diffprivlib_pmf import (
    ASSUMPTION_L,
    MAX_BITS,
    MAX_PATHS,
    DiffprivlibMechanism,
    _bits,
    diffprivlib_mechanism,
    output_pmf,
)

__all__ = [
    "check_diffprivlib",
    "delta_at",
    "readme_sweep",
    "sweep_diffprivlib",
    "sweep_table",
]


def check_diffprivlib(
    mechanism: DiffprivlibMechanism,
    q: object,
    q_prime: object,
    bits: int,
    *,
    claim_epsilon: object = None,
    method: str | None = None,
    max_paths: int = MAX_PATHS,
) -> CheckResult:
    """The exact epsilon of ``mechanism`` between neighbours ``q, q'`` at ``bits`` bits, against its claim.

    The claim is the mechanism's own epsilon (the double diffprivlib holds), or ``claim_epsilon``
    (a rational > 0) to ask whether a looser epsilon holds at ``bits`` bits.  ``method`` is
    :func:`~dpverify.verify.published._diffprivlib_pmf.output_pmf`'s (bisection, above
    :data:`~dpverify.verify.published._diffprivlib_pmf.AUTO_ENUMERATE_BITS`, says so and its assumption in the
    summary and evidence).  ``proved``: ``max_y |ln P(y|q) - ln P(y|q')| <= epsilon`` at ``bits`` bits; ``violated``:
    above it (or infinite), at the witness output with both exact probabilities;
    ``inconclusive``: the enumeration hit ``max_paths``, or the comparison with ``e^-eps``
    stayed undecided.  Every summary names the precision.
    """
    q_, q2 = mechanism.check_input("q", q), mechanism.check_input("q_prime", q_prime)
    if q_ == q2 or abs(q_ - q2) > mechanism.sensitivity:
        raise InvalidArgument(
            f"q and q_prime must be distinct neighbours, 0 < |q - q_prime| <= sensitivity = "
            f"{fraction_text(mechanism.sensitivity)}; got q={shown(q)}, q_prime={shown(q_prime)}."
        )
    k, how = _bits(mechanism, bits, method)
    claimed = mechanism.epsilon if claim_epsilon is None else as_fraction("claim_epsilon", claim_epsilon)
    if claimed <= 0:
        raise InvalidArgument(f"claim_epsilon must be a rational > 0; got claim_epsilon={shown(claim_epsilon)}.")
    found = {x: output_pmf(mechanism, x, k, method=how, max_paths=max_paths) for x in (q_, q2)}
    where = f"diffprivlib {mechanism.describe()} at {k} bits"
    if how == "bisect":
        where += " (bisection, under assumption L: np.log monotone)"
    evidence: dict[str, Any] = {
        "bits": k,
        "method": how,
        **({"assumption": ASSUMPTION_L} if how == "bisect" else {}),
        **mechanism.to_json(),
        "q": fraction_text(q_),
        "q_prime": fraction_text(q2),
        "executions": {fraction_text(x): e.executions for x, e in found.items()},
        "outputs": {fraction_text(x): len(e.masses) for x, e in found.items()},
        "raised": {
            fraction_text(x): {o: fraction_text(m) for o, m in e.masses.items() if isinstance(o, str)}
            for x, e in found.items()
        },
    }
    unfinished = [x for x, e in found.items() if not e.exhausted]
    if unfinished:
        reason = (
            f"{where}: the enumeration of q={fraction_text(unfinished[0])} stopped at max_paths={max_paths} "
            f"with mass {fraction_text(found[unfinished[0]].unexplored)} unexplored"
        )
        return CheckResult("privacy", Verdict.INCONCLUSIVE, reason, reason=reason, evidence=evidence)
    table = {x: ExactPmf.from_fractions(e.masses) for x, e in found.items()}
    result = check_pure_epsilon(table, [(q_, q2)], PureDp(epsilon=claimed))
    alpha = Fraction(result.evidence["alpha_exact"])
    evidence.update(result.evidence)
    evidence["epsilon_exact"] = json_number(
        math.inf if alpha == 0 else math.log(alpha.denominator) - math.log(alpha.numerator)
    )
    evidence["epsilon_excess"] = json_number(_excess(alpha, claimed))
    deltas = [delta_at(found[a].masses, found[b].masses, claimed) for a, b in ((q_, q2), (q2, q_))]
    low, high = max(d[0] for d in deltas), max(d[1] for d in deltas)
    evidence["delta_at_claimed_epsilon"] = {
        "low": fraction_text(low),
        "high": fraction_text(high),
        "approx": float(high),
    }
    witness = evidence.get("witness")
    if witness is not None and isinstance(witness.get("output"), float):
        witness["output_hex"] = float(witness["output"]).hex()
    why = f"{where}: {result.reason}" if result.reason else None
    excess = evidence["epsilon_excess"]
    margin = f" (exact epsilon minus claimed: {excess:.3g})" if isinstance(excess, float) else ""
    return CheckResult("privacy", result.verdict, f"{where}: {result.summary}{margin}", reason=why, evidence=evidence)


def _excess(alpha: Fraction, claimed: Fraction) -> float:
    """``ln(1/alpha) - claimed`` for the report (60 digits, then a float); the verdict is decided
    by intervals in :func:`~dpverify.verify.privacy._claim_checks.check_pure_epsilon`, not by this."""
    import mpmath

    if alpha == 0:
        return math.inf
    with mpmath.workdps(60):
        return float(
            mpmath.log(mpmath.mpf(alpha.denominator) / alpha.numerator)
            - mpmath.mpf(claimed.numerator) / claimed.denominator
        )


def delta_at(
    first: dict[Hashable, Fraction], second: dict[Hashable, Fraction], epsilon: Fraction
) -> tuple[Fraction, Fraction]:
    """An enclosure ``[low, high]`` of ``delta = sum_y max(0, P(y|q) - e^eps P(y|q'))``, the
    smallest ``delta`` for which ``(eps, delta)``-DP holds from ``q`` to ``q'`` (the hockey-stick
    divergence; :func:`~dpverify.verify.privacy._claim_checks.check_approx_dp`).  Outputs impossible from
    ``q'`` add their exact mass; a term is skipped only when ``P/P' <= low(e^eps)``, an exact
    rational comparison; the rest are summed in ``mpmath.iv`` at 128 bits, rounding outward.
    """
    from mpmath import iv

    from dpverify.specs._enclosure import interval_precision, iv_rational
    from dpverify.verify.engine._intervals import enclosure_bound
    from dpverify.verify.privacy._claim_checks import _positive_part

    with interval_precision(128):
        e = iv.exp(iv_rational(epsilon))
        floor = enclosure_bound(e, upper=False)
        exact, total = Fraction(0), iv.mpf(0)
        for y, p in first.items():
            p2 = second.get(y, Fraction(0))
            if p2 == 0:
                exact += p
            elif p > floor * p2:
                total += _positive_part(iv_rational(p) - e * iv_rational(p2))
        total += iv_rational(exact)
        return enclosure_bound(total, upper=False), enclosure_bound(total, upper=True)


def _check_task(name: str, parameters: tuple[Any, ...], q: object, q_prime: object, bits: int) -> CheckResult:
    epsilon, sensitivity, lower, upper = parameters
    mechanism = diffprivlib_mechanism(name, epsilon=epsilon, sensitivity=sensitivity, lower=lower, upper=upper)
    return check_diffprivlib(mechanism, q, q_prime, bits)


def sweep_diffprivlib(
    mechanism: DiffprivlibMechanism,
    q: int | float | Fraction | str,
    q_prime: int | float | Fraction | str,
    bits: Sequence[int],
    *,
    jobs: int | None = 1,
) -> list[CheckResult]:
    """:func:`check_diffprivlib` at each precision in ``bits`` (in worker processes with ``jobs``)."""
    from dpverify.verify.gate._sweep import sweep

    parameters = (
        fraction_text(mechanism.epsilon),
        fraction_text(mechanism.sensitivity),
        mechanism.lower,
        mechanism.upper,
    )
    for k in bits:
        _bits(mechanism, k)  # refused here, before any work starts
    return sweep(
        _check_task,
        [(mechanism.name, parameters, fraction_text(Fraction(q)), fraction_text(Fraction(q_prime)), k) for k in bits],
        jobs=jobs,
    )


def _delta_text(evidence: dict[str, Any]) -> str:
    delta = evidence.get("delta_at_claimed_epsilon")
    return "-" if delta is None else f"{delta['approx']:.3g}"


#: The sweep behind the README's table: ``(mechanism, (epsilon, sensitivity, lower, upper), q, q', bits)``.
#: Up to :data:`~dpverify.verify.published._diffprivlib_pmf.AUTO_ENUMERATE_BITS` the PMFs are
#: enumerated (no assumption); above, bisected (assumption L).
README_SWEEP: tuple[tuple[str, tuple[Any, ...], int, int, int], ...] = (
    *(("geometric", ("1", "1", None, None), 0, 1, k) for k in (4, 8, 12, 16, 20, 24, 32, 53)),
    *(("geometric-truncated", ("1", "1", 0, 4), 1, 2, k) for k in (4, 8, 12, 16, 20, 24, 32, 53)),
    *(("geometric-truncated", ("0.1", "1", 0, 100), 0, 1, k) for k in (12, 16, 20, 24, 32, 53)),
    *(("geometric-truncated", ("1/2", "1", 0, 10), 0, 1, k) for k in (12, 16, 20, 24, 32, 53)),
    *(("laplace", ("1", "1", None, None), 0, 1, k) for k in (1, 2, 3, 4)),
)


def readme_sweep(*, jobs: int | None = None, laplace_bits: int = 4) -> list[CheckResult]:
    """:data:`README_SWEEP` (Laplace up to ``laplace_bits``, at most 6), in ``jobs`` worker processes."""
    from dpverify.verify.gate._sweep import sweep

    if (
        isinstance(laplace_bits, bool)
        or not isinstance(laplace_bits, int)
        or not 1 <= laplace_bits <= MAX_BITS["laplace"]
    ):
        raise InvalidArgument(
            f"laplace_bits must be an integer in [1, {MAX_BITS['laplace']}]; got laplace_bits={shown(laplace_bits)}."
        )
    grid = [row for row in README_SWEEP if row[0] != "laplace"]
    grid += [("laplace", ("1", "1", None, None), 0, 1, k) for k in range(1, laplace_bits + 1)]
    return sweep(_check_task, grid, jobs=jobs)


def sweep_table(results: Sequence[CheckResult]) -> str:
    """A Markdown table of sweep results: mechanism, parameters, k, exact epsilon, claim, verdict, witness."""
    rows = [
        "| mechanism | q, q' | k | exact epsilon at k bits | minus claimed | claimed | verdict "
        "| witness: output, P(.\\|q), P(.\\|q') | delta at the claimed epsilon |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        e = result.evidence
        w = e.get("witness")
        eps = e.get("epsilon_exact", "-")
        eps_text = "∞" if eps == "Infinity" else (f"{eps:.6f}" if isinstance(eps, float) else str(eps))
        where = result.summary.split(" at ", 1)[0].removeprefix("diffprivlib ")
        shown_output = w and (f"{w['output']!r} ({w['output_hex']})" if "output_hex" in w else str(w["output"]))
        witness = "-" if w is None else (f"{shown_output}: {w['p']} vs {w['p_prime']} (q={w['q']}, q'={w['q_prime']})")
        excess = e.get("epsilon_excess", "-")
        excess_text = "∞" if excess == "Infinity" else (f"{excess:.3g}" if isinstance(excess, float) else str(excess))
        claim = e["claim_epsilon"] if len(e["claim_epsilon"]) <= 12 else f"{float(Fraction(e['claim_epsilon'])):.17g}"
        rows.append(
            f"| {where} | {e['q']}, {e['q_prime']} | {e['bits']} | {eps_text} | {excess_text} | {claim} "
            f"| {result.verdict.value} | {witness} | {_delta_text(e)} |"
        )
    return "\n".join(rows)
