"""The black-box distribution test (:func:`check_black_box_distribution`, described in the
docstring of :mod:`dpverify.verify.published._blackbox`): draws at one input against the spec's
exact PMF or certified enclosure.  Its own module: it needs only the draws and the law, none of
the privacy test's event search.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any, cast

from dpverify.samplers import as_open_unit_interval
from dpverify.samplers._rational import RationalLike, shown
from dpverify.verify.engine._clopper_pearson import clopper_pearson_lower
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value
from dpverify.verify.engine._statistics import dkw_threshold, enclosure_gap
from dpverify.verify.published._blackbox_draw import Garbage, Raised, _numeric

__all__ = [
    "DEFAULT_BETA",
    "Law",
    "check_black_box_distribution",
]

#: The default false-positive rate of the distribution test (the gate's statistical default).
DEFAULT_BETA = Fraction(1, 10**9)


# --- the distribution test ------------------------------------------------------------------------


Law = Callable[[Hashable], tuple[Fraction, Fraction]]


def check_black_box_distribution(
    outputs: Sequence[Hashable],
    law: Law,
    listed: Sequence[Hashable],
    *,
    exact: bool,
    integer: bool = True,
    beta: RationalLike = DEFAULT_BETA,
    seed: int | None = None,
    where: str = "",
) -> CheckResult:
    """The distribution test of the docstring of :mod:`dpverify.verify.published._blackbox` on
    ``outputs`` (draws at one input).

    ``law(o)`` is ``(low, high)``, exact rationals enclosing ``P(o)`` (``low == high`` for an exact
    PMF); ``listed`` the outputs whose CDF the DKW part compares (every output of an exact PMF;
    with ``exact`` an output outside them is a certain violation); ``integer``: the law is over
    ints.  Verdicts: ``violated`` for a certain violation or a rejection (each at most ``beta/2``
    when the sampler samples the law), ``inconclusive`` when the DKW part had no power, else
    ``proved`` (no discrepancy; the detectable CDF distance is in the evidence).
    """
    b = as_open_unit_interval("beta", beta)
    n = len(outputs)
    evidence: dict[str, Any] = {"seed": seed, "samples": n, "false_positive_rate": fraction_text(b)}
    suffix = f"; {where}" if where else ""
    if n < 2:
        return CheckResult(
            "blackbox_distribution",
            Verdict.INCONCLUSIVE,
            f"only {n} draws{suffix}",
            reason="too few draws",
            evidence=evidence,
        )
    counts = Counter(outputs)
    support = set(listed)
    for output, count in counts.items():
        problem = None
        if isinstance(output, Raised):
            problem = f"the sampler {output} on a valid input"
        elif isinstance(output, Garbage):
            problem = f"the sampler returned {output}, not a finite number"
        elif integer and not isinstance(output, int):
            problem = f"the sampler returned {shown(output)} ({type(output).__name__}), not an integer"
        elif exact and output not in support:
            problem = f"the sampler returned {shown(output)}, to which the spec gives probability 0"
        if problem:
            evidence |= {"output": str(output) if not _numeric(output) else json_value(output), "count": count}
            return CheckResult(
                "blackbox_distribution",
                Verdict.VIOLATED,
                f"{problem} ({count} of {n} draws; a certain violation){suffix}",
                evidence=evidence,
            )
    half_rate = b / 2
    # DKW over every draw, against the CDF enclosure at the listed outputs
    # the outputs a law lists are ordered among themselves (numbers, or tuples of them): a CDF's points
    order = sorted(cast("Sequence[Any]", listed))
    bounds = [law(o) for o in order]
    outside = max(Fraction(0), 1 - sum(low for low, _ in bounds))
    t_squared, t = dkw_threshold(n, half_rate)
    worst, worst_at = enclosure_gap(counts, n, order, [low for low, _ in bounds], [high for _, high in bounds])
    evidence |= {
        "dkw_threshold": t,
        "detectable_distance": 2 * t,
        "cdf_outside_enclosure": float(worst),
        "cdf_output": json_value(worst_at),
        "mass_outside_listed_outputs_at_most": float(outside),
    }
    if worst * worst > t_squared:
        return CheckResult(
            "blackbox_distribution",
            Verdict.VIOLATED,
            f"the empirical CDF is {float(worst):.4g} outside the spec's at output {worst_at!r}, more "
            f"than t={t:.4g} (DKW, N={n}, rate {fraction_text(half_rate)}){suffix}",
            evidence=evidence,
        )
    # the atom test: chosen on the first half, tested on the second
    first, second = outputs[: n // 2], outputs[n // 2 :]
    first_counts = Counter(first)
    heavy = [o for o, _ in first_counts.most_common(20) if first_counts[o] >= 2]
    excess, chosen, chosen_high = None, None, Fraction(0)
    for output in heavy:
        high = law(output)[1]
        gap = Fraction(first_counts[output], len(first)) - high
        if excess is None or gap > excess:
            excess, chosen, chosen_high = gap, output, high
    if chosen is not None:
        k = sum(1 for o in second if o == chosen)
        low = clopper_pearson_lower(k, len(second), half_rate)
        evidence |= {
            "atom": json_value(chosen),
            "atom_held_out_count": k,
            "atom_held_out_size": len(second),
            "atom_probability_lower": fraction_text(low),
            "atom_spec_probability_upper": fraction_text(chosen_high),
        }
        if low > chosen_high:
            return CheckResult(
                "blackbox_distribution",
                Verdict.VIOLATED,
                f"output {chosen!r} came {k} times in {len(second)} held-out draws: its probability "
                f"is >= {float(low):.4g} (Clopper-Pearson, rate {fraction_text(half_rate)}), but the "
                f"spec gives it <= {float(chosen_high):.4g}{suffix}",
                evidence=evidence,
            )
    if 4 * t_squared >= 1:
        reason = f"the detectable CDF distance 2t={2 * t:.4g} is >= 1 at N={n}; draw more samples"
        return CheckResult(
            "blackbox_distribution", Verdict.INCONCLUSIVE, f"{reason}{suffix}", reason=reason, evidence=evidence
        )
    return CheckResult(
        "blackbox_distribution",
        Verdict.PROVED,
        f"consistent with the spec's law (DKW, N={n}: any CDF distance > {2 * t:.4g} beyond the "
        f"enclosure detected with probability >= 1 - {fraction_text(half_rate)}; no output heavier "
        f"than the spec allows){suffix}",
        evidence=evidence,
    )
