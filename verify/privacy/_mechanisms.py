"""Checks of mechanisms built from the exact samplers: their claims, their stated guarantees,
post-processing, and the classic Gaussian variance.

- :func:`check_vector_laplace_claim`: Z3 proves the vector Laplace mechanism's ``epsilon`` for
  *every* pair of grid inputs within L1 distance ``s`` and every output.  In grid units the
  release has ``P(k | m) = prod_i c e^(-|k_i - m_i| / t)`` (``t = b/L`` the noise scale), so the
  loss is ``sum_i (|k_i - m'_i| - |k_i - m_i|) / t``; Z3 looks for integers ``k, m, m'`` with
  ``L * sum_i |m_i - m'_i| <= s`` and a loss above ``epsilon`` (each ``|.|`` an integer ``a`` with
  ``a >= +-(.)`` and ``a = +-(.)``, as in :mod:`dpverify.verify.precision._grid`).  unsat proves the claim.
- :func:`check_guarantee`: a mechanism's :class:`~dpverify.samplers.Guarantee`, turned into
  claims by :func:`~dpverify.specs.guarantee_claims`, is exactly what the spec derives on its
  own (the theorem's bound, composed by the spec), so a combinator that composes wrongly, or a
  constructor that states a different bound, is caught.
- :func:`check_post_processing`: post-processing never lowers the exact tightest ``alpha``
  (Dwork, Roth, Proposition 2.1), checked on the two exact tables.
- :func:`check_ln_bounds`: the integer bounds on ``2^bits ln y`` that ``classic_sigma2`` rests on
  enclose the value mpmath computes at twice the precision, and are as narrow as their
  contract says, at :data:`LN_BANK` (a bound that is wrong only rarely would rarely change a
  ceiling, so it is checked where it is made).
- :func:`check_domain`: values at the edges of a documented domain are accepted, and values
  just outside it refused with an error naming the parameter (the guarantee's fields, the
  limits on ``dims`` and ``repeat``), where no sampling run reaches them.
- :func:`check_defaults`: a call that leaves a documented default out (``step=1``) releases
  exactly what the call that passes it does, draw for draw on the same seeded sources; the
  engine always passes every parameter, so without this a changed default would go unseen.
- :func:`check_classic_sigma2`: the sampler's integer-series ``classic_sigma2`` against the
  spec's ``mpmath.iv`` value, at the case and at :data:`CLASSIC_SIGMA2_BANK`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction
from typing import Any

import z3

from dpverify.samplers import DpverifyError, InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf, VectorLaplaceSpec, certified_classic_sigma2, guarantee_claims
from dpverify.specs._claims import Claim
from dpverify.verify.engine._arguments import need_instance
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.privacy._ratio import tightest_alpha

__all__ = [
    "CLASSIC_SIGMA2_BANK",
    "LN_BANK",
    "check_classic_sigma2",
    "check_defaults",
    "check_domain",
    "check_guarantee",
    "check_ln_bounds",
    "check_post_processing",
    "check_vector_laplace_claim",
]

#: ``(sensitivity, epsilon, delta)`` at which every run of :func:`check_classic_sigma2` also
#: compares the two computations: decimals, powers, tiny and near-1 values, large sensitivities.
CLASSIC_SIGMA2_BANK: tuple[tuple[str, str, str], ...] = (
    ("1", "0.1", "1e-6"),
    ("1", "0.5", "1e-5"),
    ("1", "1/2", "1/10^5"),
    ("2", "0.9", "0.5"),
    ("3/7", "1/3", "1/7"),
    ("10^6", "0.01", "1e-12"),
    ("1/10^6", "0.999", "0.999"),
    ("1", "1/10^9", "1/10^9"),
    ("5", "0.25", "0.2"),
    ("1", "0.75", "1/10^100"),
    ("7/3", "0.3", "0.05"),
    ("1", "0.9", "0.9"),
    # a near tie: 2^33 s^2/epsilon^2 ln(12.5) is within 3e-29 of the integer 2^41 + 12345, so the
    # first precision cannot decide the ceiling and the refinement runs
    ("1258451990679634912339572866443377659183/25*10^37", "1/2", "1/10"),
)

#: ``(y, bits)`` at which :func:`check_ln_bounds` compares the integer logarithm with mpmath.
LN_BANK: tuple[tuple[str, int], ...] = (
    ("1", 64),
    ("5/4", 64),
    ("3/2", 100),
    ("2", 64),
    ("7/4", 200),
    ("125/4", 80),
    ("12.5", 103),
    ("1.25e6", 128),
    ("1.25e100", 400),
    ("10^999*5/4", 64),
    ("1000001/1000000", 256),
    ("1.999999", 90),
    # y = (2^64+1)/(2^64-1): atanh's argument is 2^-64, so at 64 bits the series stops before its
    # first term and the upper bound is its tail bound alone, which is then exactly what is checked
    ("18446744073709551617/18446744073709551615", 64),
)


def _absolute(name: str, term: z3.ArithRef) -> tuple[z3.ArithRef, list[z3.BoolRef]]:
    value = z3.Int(name)
    return value, [value >= term, value >= -term, z3.Or(value == term, value == -term)]


def check_vector_laplace_claim(
    spec: VectorLaplaceSpec, dims: int, epsilon: Fraction | int | str | None = None
) -> CheckResult:
    """Proved when no grid inputs ``m, m'`` within L1 distance ``s`` and no output ``k`` in
    ``Z^dims`` have a privacy loss above ``epsilon`` (default: the spec's claim; Z3, linear
    integer arithmetic)."""
    need_instance("spec", spec, VectorLaplaceSpec, "a VectorLaplaceSpec, e.g. VectorLaplaceSpec.create(1, 1)")
    dims = as_int("dims", dims, low=1, high=64)
    claimed = spec.epsilon if epsilon is None else as_fraction("epsilon", epsilon)
    if claimed <= 0:
        raise InvalidArgument(f'epsilon must be a rational > 0; got epsilon={shown(claimed)}. Pass it as "num/den".')
    solver = z3.Solver()
    reach, loss = [], []
    for i in range(dims):
        k, m, m2 = z3.Ints(f"k{i} m{i} m_prime{i}")
        shift, shift_rules = _absolute(f"abs_m{i}_minus_m_prime{i}", m - m2)
        far, far_rules = _absolute(f"abs_k{i}_minus_m_prime{i}", k - m2)
        near, near_rules = _absolute(f"abs_k{i}_minus_m{i}", k - m)
        solver.add(*shift_rules, *far_rules, *near_rules)
        reach.append(shift)
        loss.append(far - near)
    radius = spec.sensitivity / spec.step  # the L1 reach in grid steps
    solver.add(z3.Sum(reach) * radius.denominator <= radius.numerator)
    bound = claimed * spec.noise().scale  # the loss in units of 1/t
    solver.add(z3.Sum(loss) * bound.denominator > bound.numerator)
    solver.set("timeout", 60_000)
    status = solver.check()
    evidence = {"epsilon": fraction_text(claimed), "dims": dims, "solver": f"z3 {z3.get_version_string()}"}
    if status == z3.unsat:
        return CheckResult(
            "privacy",
            Verdict.PROVED,
            f"for all grid inputs within L1 distance {spec.sensitivity} in {dims} dimensions and every "
            f"output, the privacy loss is at most epsilon={fraction_text(claimed)} (Z3)",
            evidence=evidence,
        )
    if status == z3.sat:
        model = solver.model()
        values = {str(d): str(model[d]) for d in model.decls() if not str(d).startswith("abs_")}
        return CheckResult(
            "privacy",
            Verdict.VIOLATED,
            f"privacy loss above epsilon={fraction_text(claimed)} at {values} (grid units)",
            evidence={**evidence, "model": values},
        )
    reason = solver.reason_unknown()
    return CheckResult(
        "privacy", Verdict.INCONCLUSIVE, f"Z3 gave no answer: {reason}", reason=reason, evidence=evidence
    )


def check_guarantee(
    name: str, build: Callable[[], Any], expected: Iterable[Claim], expected_name: str | None = None
) -> CheckResult:
    """Proved when the guarantee of the mechanism ``build()`` makes exactly the ``expected``
    claims (and, given ``expected_name``, the mechanism has that name); violated with both
    otherwise, or when building it is refused."""
    wanted = tuple(expected)
    try:
        mechanism = build()
        stated = guarantee_claims(mechanism.guarantee)
    except Exception as error:  # noqa: BLE001 - the code under test: any failure is a finding
        what = "was refused" if isinstance(error, DpverifyError) else f"raised {type(error).__name__}"
        return CheckResult(
            "guarantee", Verdict.VIOLATED, f"{name} {what}: {error}", evidence={"mechanism": name, "error": str(error)}
        )
    evidence = {
        "mechanism": mechanism.name,
        "stated": [c.describe() for c in stated],
        "expected": [c.describe() for c in wanted],
    }
    if expected_name is not None and mechanism.name != expected_name:
        return CheckResult(
            "guarantee",
            Verdict.VIOLATED,
            f"the mechanism is named {mechanism.name!r}, not {expected_name!r}",
            evidence={**evidence, "expected_name": expected_name},
        )
    if stated == wanted:
        return CheckResult(
            "guarantee",
            Verdict.PROVED,
            f"{mechanism.name} states {'; '.join(evidence['stated']) or 'no claim'}, as the spec derives",
            evidence=evidence,
        )
    return CheckResult(
        "guarantee",
        Verdict.VIOLATED,
        f"{mechanism.name} states {'; '.join(evidence['stated']) or 'no claim'}, but the spec derives "
        f"{'; '.join(evidence['expected']) or 'no claim'}",
        evidence=evidence,
    )


def check_post_processing(
    processed: Mapping[Hashable, ExactPmf],
    original: Mapping[Hashable, ExactPmf],
    neighbours: Iterable[tuple[Hashable, Hashable]],
) -> CheckResult:
    """Proved when the processed table's exact tightest ``alpha`` is at least the original's:
    post-processing never increases the exact epsilon (Dwork, Roth, Proposition 2.1)."""
    pairs = tuple(neighbours)
    after, before = tightest_alpha(processed, pairs), tightest_alpha(original, pairs)
    evidence = {
        "alpha_processed": fraction_text(after.alpha),
        "alpha_original": fraction_text(before.alpha),
        "witness_processed": None if after.witness is None else after.witness.to_json(),
    }
    if after.alpha >= before.alpha:
        return CheckResult(
            "post_processing",
            Verdict.PROVED,
            f"tightest alpha {fraction_text(after.alpha)} after post-processing >= "
            f"{fraction_text(before.alpha)} before: the exact epsilon did not grow",
            evidence=evidence,
        )
    return CheckResult(
        "post_processing",
        Verdict.VIOLATED,
        f"tightest alpha {fraction_text(after.alpha)} after post-processing < {fraction_text(before.alpha)} "
        "before: the processing saw more than the release",
        evidence=evidence,
    )


def check_classic_sigma2(
    classic_sigma2: Callable[[Any, Any, Any], Fraction], cases: Iterable[tuple[Any, Any, Any]]
) -> CheckResult:
    """Proved when ``classic_sigma2(s, epsilon, delta)`` equals
    :func:`~dpverify.specs.certified_classic_sigma2` at every ``(s, epsilon, delta)`` of ``cases``
    and of :data:`CLASSIC_SIGMA2_BANK`; violated at the first difference."""
    checked = 0
    for s, epsilon, delta in (*cases, *CLASSIC_SIGMA2_BANK):
        expected = certified_classic_sigma2(s, epsilon, delta)
        got: Fraction | Exception
        try:
            got = classic_sigma2(s, epsilon, delta)
        except Exception as error:  # noqa: BLE001 - the code under test: any failure is a finding
            got = error
        if got != expected:
            shown_got = fraction_text(got) if isinstance(got, Fraction) else f"refused ({got})"
            return CheckResult(
                "classic_sigma2",
                Verdict.VIOLATED,
                f"classic_sigma2(s={s}, epsilon={epsilon}, delta={delta}) = {shown_got}, but the "
                f"certified value is {fraction_text(expected)}",
                evidence={
                    "sensitivity": str(s),
                    "epsilon": str(epsilon),
                    "delta": str(delta),
                    "code": shown_got,
                    "certified": fraction_text(expected),
                },
            )
        checked += 1
    return CheckResult(
        "classic_sigma2",
        Verdict.PROVED,
        f"classic_sigma2 equals the certified smallest multiple of 2^-32 above 2 ln(1.25/delta) s^2/epsilon^2 "
        f"at {checked} parameter sets",
        evidence={"checked": checked},
    )


def check_defaults(
    calls: Iterable[tuple[str, Callable[[Any], Any], Callable[[Any], Any]]], seeds: Iterable[int] = range(8)
) -> CheckResult:
    """Proved when, for every ``(label, with_default, explicit)``, ``with_default(rng)`` and
    ``explicit(rng)`` return the same release on fresh seeded sources of every seed."""
    from dpverify.samplers import SeededRandomSource

    tried = []
    for label, with_default, explicit in calls:
        tried.append(label)
        for seed in seeds:
            left, right = (_released(call, SeededRandomSource(seed)) for call in (with_default, explicit))
            if left != right:
                return CheckResult(
                    "defaults",
                    Verdict.VIOLATED,
                    f"{label}: leaving the default out released {left!r}, passing it released {right!r} (seed {seed})",
                    evidence={"call": label, "seed": seed, "default": repr(left), "explicit": repr(right)},
                )
    return CheckResult(
        "defaults",
        Verdict.PROVED,
        f"the documented defaults release what passing them does: {'; '.join(tried)}",
        evidence={"calls": tried},
    )


def _released(call: Callable[[Any], Any], rng: Any) -> Any:
    """The release, or the refusal's text (a refused default differs from an accepted value)."""
    try:
        return call(rng)
    except Exception as error:  # noqa: BLE001 - the code under test: any failure is a finding
        return f"raised {type(error).__name__}: {error}"


def check_ln_bounds(
    ln_scaled: Callable[[Fraction, int], tuple[int, int]], bank: Iterable[tuple[str, int]] = LN_BANK
) -> CheckResult:
    """Proved when ``ln_scaled(y, bits) = (lo, hi)`` has ``lo <= 2^bits ln y <= hi`` and
    ``hi - lo <= 2 (k + 1)(2 bits + 16)`` (``k = floor(log2 y)``: a few units per series term)
    at every ``(y, bits)`` of ``bank``; ``ln y`` from ``mpmath.iv`` (outward rounding)."""
    from mpmath import iv

    from dpverify.specs._enclosure import interval_precision, iv_rational

    checked = 0
    for text, bits in bank:
        y = as_fraction("y", text)
        try:
            low, high = ln_scaled(y, bits)
        except Exception as error:  # noqa: BLE001 - the code under test: any failure is a finding
            return CheckResult(
                "ln_bounds",
                Verdict.VIOLATED,
                f"ln_scaled({text}, {bits}) raised {type(error).__name__}: {error}",
                evidence={"y": text, "bits": bits, "error": str(error)},
            )
        with interval_precision(2 * bits + y.numerator.bit_length() + 64):
            exact = iv.log(iv_rational(y)) * iv.mpf(2) ** bits
            inside = exact.a >= low and exact.b <= high
        k = max(0, y.numerator.bit_length() - y.denominator.bit_length())
        if not inside or high - low > 2 * (k + 1) * (2 * bits + 16):
            what = "do not enclose" if not inside else "are wider than their contract around"
            return CheckResult(
                "ln_bounds",
                Verdict.VIOLATED,
                f"the bounds ({low}, {high}) on 2^{bits} ln({text}) {what} the certified value",
                evidence={"y": text, "bits": bits, "low": str(low), "high": str(high)},
            )
        checked += 1
    return CheckResult(
        "ln_bounds",
        Verdict.PROVED,
        f"the integer bounds on 2^bits ln y enclose the certified value, within their width, at {checked} points",
        evidence={"checked": checked},
    )


def check_domain(
    accepted: Iterable[tuple[str, Callable[[], Any]]], refused: Iterable[tuple[str, Callable[[], Any], str]]
) -> CheckResult:
    """Proved when every ``accepted`` call returns and every ``refused`` call raises a
    :class:`~dpverify.samplers.DpverifyError` whose message has ``name=``."""
    problems, tried = [], []
    for label, call in accepted:
        tried.append(label)
        try:
            call()
        except Exception as error:  # noqa: BLE001 - the code under test: any failure is a finding
            problems.append(f"{label} raised {type(error).__name__} ({error})")
    for label, call, name in refused:
        tried.append(label)
        try:
            call()
        except DpverifyError as error:
            if f"{name}=" not in str(error):
                problems.append(f"{label} was refused without naming {name}: {error}")
        except Exception as error:  # noqa: BLE001
            problems.append(f"{label} raised {type(error).__name__} ({error}) instead of a clear error")
        else:
            problems.append(f"{label} was accepted")
    if problems:
        return CheckResult("domain", Verdict.VIOLATED, "; ".join(problems), evidence={"tried": tried})
    return CheckResult(
        "domain",
        Verdict.PROVED,
        f"{len(tried)} calls at the domain's edges accepted or refused as documented",
        evidence={"tried": tried},
    )
