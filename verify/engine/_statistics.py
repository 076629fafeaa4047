"""Statistical cross-check: samples of the *real* sampler against the spec's exact PMF.

Exact checks derive the code's PMF by enumerating or bisecting its randomness; this check runs
the production code path (``spec.run(q, rng)``) on a cryptographic source instead, so it also
catches what an enumerating source cannot see (for example a sampler that behaves differently
when its draws come from a real generator).  Its false-positive rate is bounded without any
asymptotic approximation, so CI never flakes, and its power is stated.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from fractions import Fraction

import mpmath

from dpverify.samplers import InvalidArgument, RandomSource, SeededRandomSource, as_int, as_open_unit_interval
from dpverify.samplers._rational import RationalLike
from dpverify.specs import MechanismSpec
from dpverify.specs._noise import NoiseSpec
from dpverify.verify.engine._arguments import need_count, need_member, need_seed, shown
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value

__all__ = ["Sampling", "check_empirical", "check_empirical_ideal", "dkw_threshold"]

#: ``sampling(run, N)``: the ``N`` outputs of ``N`` calls of ``run()``, in order.  A caller that
#: must bound the runs (the gate, which abandons a run that gives no output) passes its own; what it
#: raises propagates out of the check.
Sampling = Callable[[Callable[[], Hashable], int], Iterable[Hashable]]


def _draws(run: Callable[[], Hashable], samples: int, sampling: Sampling | None) -> Counter[Hashable]:
    """The counts of ``samples`` outputs of ``run()``, drawn by ``sampling`` (None: one after the other)."""
    if sampling is None:
        return Counter(run() for _ in range(samples))
    if not callable(sampling):
        raise InvalidArgument(
            f"sampling must be None or a callable sampling(run, samples); got sampling={shown(sampling)} "
            f"({type(sampling).__name__})."
        )
    return Counter(sampling(run, samples))


#: Terms of the artanh series in :func:`_ln_upper`; each bound is within ``3**-(2*terms)``
#: of the true logarithm of a number in ``[1, 2]``.
_LOG_TERMS = 40


def _ln_upper(y: Fraction) -> Fraction:
    """A rational ``L >= ln(y)`` for rational ``y >= 1``, with ``L - ln(y) < 1e-35 * (1 + log2 y)``.

    ``ln(y) = k ln 2 + ln(m)`` with ``m = y / 2**k`` in ``[1, 2)``, and for ``v`` in ``[1, 2]``,
    ``ln(v) = 2 * sum_{j>=0} z**(2j+1) / (2j+1)`` with ``z = (v-1)/(v+1)`` in ``[0, 1/3]``.
    The tail after ``J`` terms is at most ``2 z**(2J+1) / ((2J+1)(1 - z**2))``; adding it to
    the partial sum gives an upper bound in exact rational arithmetic, which is finally rounded
    up to a multiple of ``2**-128`` to keep the numbers short.
    """
    assert y >= 1, "only used for ln(2/beta) with beta < 1"
    k = y.numerator.bit_length() - y.denominator.bit_length()
    if Fraction(2) ** k > y:
        k -= 1  # now 2**k <= y < 2**(k+1)
    m = y / Fraction(2) ** k
    if max(m.numerator.bit_length(), m.denominator.bit_length()) > 256:
        # ln grows, so a short m' >= m keeps L an upper bound; the exact series on a long m
        # multiplies numbers of thousands of bits for every term
        m = Fraction(-((-m.numerator << 256) // m.denominator), 1 << 256)
    bound = k * _ln_upper_unit(Fraction(2)) + _ln_upper_unit(m)
    return Fraction(-((-bound.numerator << 128) // bound.denominator), 1 << 128)  # round up


def _ln_upper_unit(v: Fraction) -> Fraction:
    z = (v - 1) / (v + 1)
    z2, power, total = z * z, z, Fraction(0)
    for j in range(_LOG_TERMS):
        total += power / (2 * j + 1)
        power *= z2
    tail = power / ((2 * _LOG_TERMS + 1) * (1 - z2))  # power == z**(2J+1) here
    return 2 * (total + tail)


def dkw_threshold(samples: int, false_positive_rate: Fraction) -> tuple[Fraction, float]:
    """``(t_squared, t)``: the DKW rejection threshold for ``samples`` draws at rate ``beta``.

    ``t_squared = L / (2 N)`` exactly, with ``L`` a rational upper bound of ``ln(2/beta)``
    (``_ln_upper``), so ``2 exp(-2 N t**2) = 2 exp(-L) <= beta``.  ``t`` is its square root
    as a float, for display only: decisions compare ``t_squared`` exactly.

    >>> t_squared, t = dkw_threshold(20_000, Fraction(1, 10**9))
    >>> round(t, 6)
    0.023139
    """
    samples = need_count("samples", samples, low=1)
    false_positive_rate = as_open_unit_interval("false_positive_rate", false_positive_rate)
    log_bound = _ln_upper(2 / false_positive_rate)
    t_squared = log_bound / (2 * samples)
    return t_squared, math.sqrt(float(t_squared))


def check_empirical(
    spec: MechanismSpec,
    q: Hashable,
    *,
    samples: int = 20_000,
    seed: int | None = None,
    false_positive_rate: RationalLike = "1/1000000000",
    rng: RandomSource | None = None,
    sampling: Sampling | None = None,
) -> CheckResult:
    """Kolmogorov–Smirnov-type test of ``spec.run(q, .)`` against the exact CDF of ``spec.pmf(q)``.

    Draws ``N = samples`` outputs of the real sampler from
    :class:`dpverify.samplers.SeededRandomSource` ``(seed)`` (SHA-256 in counter mode, so the run replays
    exactly; ``seed=None`` takes :func:`dpverify.samplers.fresh_seed`), forms the empirical CDF
    ``F_N(x) = #{i : X_i <= x} / N`` from integer counts, and compares it with the exact CDF
    ``F(x) = sum_{y <= x} P(y | q)`` of the spec, in exact rational arithmetic, at every output
    of the spec (both are step functions that only jump there, so this is the supremum over
    all ``x``).  Outputs must be totally ordered (GTM outputs are ints).

    **False-positive rate.**  Dvoretzky–Kiefer–Wolfowitz inequality with Massart's tight
    constant (P. Massart, "The tight constant in the Dvoretzky–Kiefer–Wolfowitz inequality",
    Annals of Probability 18(3), 1990): for ``N`` i.i.d. draws from any CDF ``G``,

        ``P( sup_x |F_N(x) - G(x)| > t ) <= 2 exp(-2 N t**2)``   whenever ``exp(-2 N t**2) <= 1/2``.

    Massart proves it for continuous ``G``; for a discrete ``G`` the supremum ranges over a
    subset of the values it takes in the continuous case (write ``X = G^-1(U)``), so the bound
    still holds and is conservative.  With ``beta = false_positive_rate`` the threshold is
    ``t = sqrt(ln(2/beta) / (2N))`` (then ``exp(-2Nt**2) = beta/2 <= 1/2`` as required); here
    ``ln(2/beta)`` is replaced by a rational upper bound that exceeds it by less than
    ``1e-35 * (1 + log2(2/beta))``, which only
    lowers the false-positive rate.  The check rejects (``violated``) when
    ``D = sup_x |F_N(x) - F(x)| > t``: if the sampler does sample ``F``, that happens with
    probability at most ``beta``, for every ``N`` (no asymptotics).

    **Power.**  Let ``G`` be the sampler's true CDF and suppose ``sup_x |G(x) - F(x)| > 2t``,
    attained at ``x*``.  With probability at least ``1 - beta`` (DKW applied to ``G``),
    ``sup_x |F_N(x) - G(x)| <= t``, and then by the triangle inequality
    ``D >= |F_N(x*) - F(x*)| >= |G(x*) - F(x*)| - |F_N(x*) - G(x*)| > 2t - t = t``, so the
    check rejects.  Hence every discrepancy of CDF distance more than ``2t`` (the
    ``detectable_distance`` in the evidence) is caught with probability at least ``1 - beta``.

    **Verdicts.**  The vocabulary is closed, and a statistical test cannot prove anything, so
    ``proved`` here means exactly: *passed* — no discrepancy detected, and any discrepancy of
    CDF distance more than ``2t`` would have been detected with probability ``>= 1 - beta``.
    ``violated`` either (a) with certainty, when the sampler returned an output to which the
    spec gives probability 0, or (b) at false-positive rate ``beta``, when ``D > t``; the
    evidence names the output, the empirical and the exact CDF there.  ``inconclusive`` when
    nothing was rejected but ``2t >= 1``: no CDF discrepancy can exceed ``2t``, so the test had
    no power; draw more samples.

    Every result carries the seed and, in ``evidence["replay"]`` and the summary, the Python
    call that replays it.  With ``rng`` (the production :class:`~dpverify.samplers.SystemRandomSource`)
    the draws come from it instead: the same bound and power, but no replay.  ``sampling`` (see
    ``Sampling``) draws the ``N`` outputs, e.g. under a bound on each run; None draws them one
    after the other.

    Arguments are validated: ``samples`` an int ``>= 1``, ``seed`` None or an int in
    ``[0, 2**64 - 1]``, ``false_positive_rate`` an exact rational in (0, 1) (floats refused),
    ``q`` one of ``spec.inputs()``; anything else raises :class:`dpverify.samplers.InvalidArgument`.
    """
    if not isinstance(spec, MechanismSpec):
        raise InvalidArgument(
            "spec must be a MechanismSpec (e.g. dpverify.specs.GtmSpec.create(...)); "
            f"got spec={shown(spec)} ({type(spec).__name__})."
        )
    N = as_int("samples", samples, low=1)
    beta = as_open_unit_interval("false_positive_rate", false_positive_rate)
    seed_ = need_seed(seed)
    inputs = spec.inputs()
    # the spec's own value, e.g. 2 for Fraction(2), for the replay line
    q = need_member("q", q, inputs, f"one of the spec's inputs ({_describe(inputs)})")
    pmf = spec.pmf(q)
    weights = dict(zip(pmf.outputs, pmf.weights, strict=True))
    try:
        order = sorted(weights)  # type: ignore[type-var]  # outputs are only Hashable: unordered ones raise below
    except TypeError:
        raise InvalidArgument(
            f"spec={spec.name} must have totally ordered outputs for a CDF test; got outputs "
            f"{shown(pmf.outputs[:5])}..."
        ) from None

    source = SeededRandomSource(seed_) if rng is None else rng
    counts = _draws(lambda: spec.run(q, source), N, sampling)

    t_squared, t = dkw_threshold(N, beta)
    replay = _replay(spec, q, N, seed_, beta) if rng is None else _NO_REPLAY
    where = f"q={q!r}, seed={seed_}; replay: {replay}" if rng is None else f"q={q!r}, {_NO_REPLAY}"
    evidence = {
        "q": json_value(q),
        **_dkw_evidence(spec.parameters(), seed_ if rng is None else None, N, beta, t),
        "replay": replay,
    }

    impossible = [o for o in counts if weights.get(o, 0) == 0]
    if impossible:
        output = impossible[0]
        evidence |= {"output": json_value(output), "count": counts[output], "exact_p": "0"}
        return CheckResult(
            "statistical",
            Verdict.VIOLATED,
            f"the sampler returned output={output!r} {counts[output]} times in {N} draws, but the "
            f"spec gives it probability 0 (a certain violation); {where}",
            evidence=evidence,
        )

    # sup_x |F_N(x) - F(x)| = max over outputs of |count_le * den - N * weight_le| / (N * den).
    den = pmf.denominator
    gap, at, count_le, weight_le = -1, order[0], 0, 0
    empirical_at, exact_at = 0, 0
    for output in order:
        count_le += counts.get(output, 0)
        weight_le += weights[output]
        here = abs(count_le * den - N * weight_le)
        if here > gap:
            gap, at, empirical_at, exact_at = here, output, count_le, weight_le
    distance = Fraction(gap, N * den)
    empirical_cdf, exact_cdf = Fraction(empirical_at, N), Fraction(exact_at, den)
    evidence |= {
        "sup_distance": float(distance),
        "sup_distance_exact": fraction_text(distance),
        "output": json_value(at),
        "empirical_cdf": fraction_text(empirical_cdf),
        "exact_cdf": fraction_text(exact_cdf),
    }
    stated = f"DKW, N={N}, t={t:.4g}, beta={fraction_text(beta)}"
    if distance * distance > t_squared:
        return CheckResult(
            "statistical",
            Verdict.VIOLATED,
            f"the sampler departs from the exact PMF at output={at!r}: empirical CDF "
            f"{float(empirical_cdf):.6g} vs exact {float(exact_cdf):.6g}, sup distance "
            f"{float(distance):.4g} > t ({stated}); {where}",
            evidence=evidence,
        )
    if 4 * t_squared >= 1:
        reason = (
            f"no discrepancy detected, but the detectable distance 2t={2 * t:.4g} is >= 1, so "
            f"the test had no power at N={N}; draw more samples"
        )
        return CheckResult("statistical", Verdict.INCONCLUSIVE, f"{reason}; {where}", reason=reason, evidence=evidence)
    return CheckResult(
        "statistical",
        Verdict.PROVED,
        f"consistent with the exact PMF ({stated}; sup distance {float(distance):.4g}, any CDF "
        f"distance > {2 * t:.4g} detected with probability >= 1 - beta); "
        + (f"q={q!r}, seed={seed_}" if rng is None else f"q={q!r}, {_NO_REPLAY}"),
        evidence=evidence,
    )


#: What a statistical result says instead of a seed when it drew from the production source.
_NO_REPLAY = "production source (OS CSPRNG), not replayable"


def _dkw_evidence(
    parameters: dict[str, str], seed: int | None, samples: int, beta: Fraction, t: float
) -> dict[str, object]:
    """The evidence every DKW check carries: what was sampled, how, and the test's size."""
    return {
        "parameters": parameters,
        "seed": seed,
        "samples": samples,
        "false_positive_rate": fraction_text(beta),
        "threshold": t,
        "detectable_distance": 2 * t,
    }


def _describe(inputs: tuple[Hashable, ...]) -> str:
    """``"0..n"`` for a contiguous run of ints, else the first few inputs."""
    ints = [i for i in inputs if isinstance(i, int)]
    if ints and len(ints) == len(inputs) and inputs == tuple(range(ints[0], ints[0] + len(ints))):
        return f"{inputs[0]} <= q <= {inputs[-1]}"
    shown = ", ".join(repr(i) for i in inputs[:5])
    return f"one of {shown}{', ...' if len(inputs) > 5 else ''}"


def _replay(spec: MechanismSpec, q: Hashable, samples: int, seed: int, beta: Fraction) -> str:
    """The Python statements (or, for a declared spec, the command) that rerun this exact check."""
    command = getattr(spec, "replay_command", None)
    if command:
        return str(command)
    public = sys.modules.get("dpverify.verify")  # looked up, not imported: the package sits above the engine
    home = "dpverify.verify" if getattr(public, "check_empirical", None) is check_empirical else __name__
    cls = type(spec)
    create = getattr(cls, "create", None)
    if callable(create):
        arguments = ", ".join(f"{k}={v!r}" for k, v in spec.parameters().items())
        build = f"{cls.__qualname__}.create({arguments})"
    else:
        build = repr(spec)
    return (
        f"from {cls.__module__} import {cls.__qualname__}; from {home} import check_empirical; "
        f"check_empirical({build}, {q!r}, samples={samples}, seed={seed}, "
        f"false_positive_rate={fraction_text(beta)!r})"
    )


def _mpf_fraction(value: mpmath.mpf) -> Fraction:
    """The exact rational value of a finite mpf (``man * 2**exp``)."""
    sign, man, exp, _ = value._mpf_
    magnitude: Fraction = Fraction(man) * (Fraction(2) ** exp)  # exp is an int: mpmath is untyped
    return -magnitude if sign else magnitude


def enclosure_gap(
    counts: Counter[Hashable],
    samples: int,
    outputs: Sequence[Hashable],
    lows: Sequence[Fraction],
    highs: Sequence[Fraction],
) -> tuple[Fraction, Hashable]:
    """``(gap, output)``: the largest distance of the empirical CDF ``F_N(o_k)`` (``counts`` of
    ``samples`` draws) outside the CDF enclosure at the ordered ``outputs`` ``o_1 < ... < o_m``
    with ``low_i <= P(o_i) <= high_i``::

        sum_{i<=k} low_i  <=  F(o_k)  <=  sum_{i<=k} high_i + (1 - sum_i low_i)

    (the last term bounds the mass left of ``o_1``), exactly, and the output where it is largest."""
    outside = max(Fraction(0), 1 - sum(lows))
    # the outputs are ordered (sorted by the caller), and so are the counted ones it admitted; a list,
    # not a generator, so that the one ignored comparison does not also derail sum's overloads
    below = [c for o, c in counts.items() if o < outputs[0]]  # type: ignore[operator]  # Hashable outputs
    count_le = sum(below)
    low_le, high_le = Fraction(0), outside
    worst, worst_at = Fraction(-1), outputs[0]
    for output, low, high in zip(outputs, lows, highs, strict=True):
        count_le += counts.get(output, 0)
        low_le += low
        high_le += high
        empirical = Fraction(count_le, samples)
        gap = max(low_le - empirical, empirical - min(high_le, Fraction(1)), Fraction(0))
        if gap > worst:
            worst, worst_at = gap, output
    return worst, worst_at


def check_empirical_ideal(
    spec: NoiseSpec,
    *,
    samples: int = 20_000,
    seed: int | None = None,
    false_positive_rate: RationalLike = "1/1000000000",
    dps: int = 30,
    rng: RandomSource | None = None,
    sampling: Sampling | None = None,
) -> CheckResult:
    """DKW test of the real noise sampler against its *ideal* (irrational) PMF.

    The same test as :func:`check_empirical`, with the exact CDF replaced by a rigorous
    enclosure.  Over the spec's ordered outputs ``o_1 < ... < o_m``
    (``spec.outputs_for_check()``) with enclosures ``low_i <= P(o_i) <= high_i``::

        sum_{i<=k} low_i  <=  F(o_k)  <=  sum_{i<=k} high_i + (1 - sum_i low_i)

    (the last term bounds the mass left of ``o_1``).  The check rejects when the empirical
    ``F_N(o_k)`` lies more than ``t`` outside that enclosure at some ``k``.  A correct sampler
    has ``|F_N - F| <= t`` everywhere with probability ``>= 1 - beta`` (DKW–Massart, for every
    N), and then ``F_N(o_k)`` is within ``t`` of the enclosure: the false-positive rate is at
    most ``beta``.  Power: a sampler whose CDF differs at some ``o_k`` from every value in the
    enclosure by more than ``2t`` is rejected with probability ``>= 1 - beta``; the evidence
    states ``2t`` and the widest enclosure, which adds to the detectable distance.
    All comparisons are exact: enclosures are converted from mpf to Fractions exactly.  An
    output that cannot be ordered with the spec's outputs is a certain violation.  ``rng``
    replaces the seeded source and ``sampling`` draws the outputs, as in :func:`check_empirical`.
    """
    if not isinstance(spec, NoiseSpec):
        raise InvalidArgument(
            f"spec must be a NoiseSpec (e.g. a discrete Laplace spec); got spec={shown(spec)} ({type(spec).__name__})."
        )
    N = as_int("samples", samples, low=1)
    beta = as_open_unit_interval("false_positive_rate", false_positive_rate)
    seed_ = need_seed(seed)
    # a noise spec's outputs are numbers (or tuples of them): ordered, though typed only Hashable
    outputs = sorted(spec.outputs_for_check())  # type: ignore[type-var]  # ordered at run time, see above
    enclosures = [spec.ideal_probability(o, dps) for o in outputs]
    lows = [_mpf_fraction(mpmath.mpf(low)) for low, _ in enclosures]
    highs = [_mpf_fraction(mpmath.mpf(high)) for _, high in enclosures]
    outside = max(Fraction(0), 1 - sum(lows))

    source = SeededRandomSource(seed_) if rng is None else rng
    counts = _draws(lambda: spec.run(source), N, sampling)
    t_squared, t = dkw_threshold(N, beta)
    evidence = {
        **_dkw_evidence(spec.parameters(), seed_ if rng is None else None, N, beta, t),
        "outputs": [json_value(outputs[0]), json_value(outputs[-1])],
        "mass_outside_outputs_at_most": float(outside),
    }
    where = f"seed={seed_}" if rng is None else _NO_REPLAY
    listed = set(outputs)
    for output in counts:
        try:
            # probes at run time that the output can be ordered with the spec's (TypeError if not)
            output in listed or output < outputs[0] or output > outputs[-1]  # type: ignore[operator]  # the probe
        except TypeError:
            evidence |= {"output": json_value(output), "count": counts[output]}
            return CheckResult(
                "statistical",
                Verdict.VIOLATED,
                f"the sampler returned {shown(output)} ({type(output).__name__}) {counts[output]} times in "
                f"{N} draws: not an output of the spec (a certain violation); {where}",
                evidence=evidence,
            )
    worst, worst_at = enclosure_gap(counts, N, outputs, lows, highs)
    evidence |= {"output": json_value(worst_at), "distance_outside_enclosure": float(worst)}
    stated = f"DKW, N={N}, t={t:.4g}, beta={fraction_text(beta)}"
    if worst * worst > t_squared:
        return CheckResult(
            "statistical",
            Verdict.VIOLATED,
            f"the sampler departs from the ideal PMF at output={worst_at!r}: its empirical CDF is "
            f"{float(worst):.4g} outside the ideal CDF's enclosure, more than t ({stated}); {where}",
            evidence=evidence,
        )
    if 4 * t_squared >= 1:
        reason = f"the detectable distance 2t={2 * t:.4g} is >= 1 at N={N}; draw more samples"
        return CheckResult("statistical", Verdict.INCONCLUSIVE, f"{reason}; {where}", reason=reason, evidence=evidence)
    return CheckResult(
        "statistical",
        Verdict.PROVED,
        f"consistent with the ideal PMF ({stated}; any CDF distance > {2 * t:.4g} detected with "
        f"probability >= 1 - beta); {where}",
        evidence=evidence,
    )
