"""IBM's diffprivlib mechanisms, run unmodified, with their exact output PMF at ``k`` bits.

The code under audit is the installed ``diffprivlib`` (0.6.x, MIT; ``pip install
'dpverify[diffprivlib]'``), imported and called through its public API, never copied or
patched.  Its mechanisms take ``random_state=``, and ``check_random_state(random_state,
secure=True)`` hands back any ``secrets.SystemRandom`` unchanged; a
:class:`~dpverify.verify.engine._random_compat.RandomCompat` is one.  Its ``random()`` returns
``j / 2^k`` for one draw ``j = randbelow(2^k)`` of the source underneath, so with
:func:`~dpverify.verify.engine._enumerate.enumerate_outputs` as that source every execution of the
mechanism (every tuple of ``k``-bit draws) is run once, with exact probability ``2^-(k d)``
for ``d`` draws, and the output PMF at ``k`` bits is exact.

What is reduced and what is not.  Only the uniform draw is on a coarser grid: with
``random_state=None`` diffprivlib draws from ``secrets.SystemRandom()``, whose ``random()``
returns ``j / 2^53`` for 53 uniform bits ``j``; here ``j / 2^k``.  Everything
after the draw is the library's own IEEE-754 arithmetic (``np.exp``, ``np.log``, ``np.floor``,
``np.round``, ``np.cos``, products and sums of doubles), on this platform's numpy.  The
mechanisms read (diffprivlib 0.6.6, ``diffprivlib/mechanisms/geometric.py``, ``laplace.py``):

- ``Geometric(epsilon, sensitivity)`` (Ghosh, Roughgarden, Sundararajan 2009, "Universally
  utility-maximizing privacy mechanisms"): one draw ``u``; ``v = (u - 0.5) * (1 + exp(-eps/s))``;
  ``sgn = -1 if v < 0 else 1``; returns ``int(round(q + sgn * floor(log(sgn * v) / (-eps/s))))``.
  Claimed: ``eps``-DP for integers with ``|q - q'| <= s``.
- ``GeometricTruncated(epsilon, sensitivity, lower, upper)``: the same, then clamped to
  ``[lower, upper]``.  Its ideal is the truncated geometric mechanism that
  :mod:`dpverify.samplers.gtm` samples exactly (ratio ``alpha = e^-eps``); here ``alpha`` is
  irrational and the noise is a float computation.
- ``Laplace(epsilon, delta=0, sensitivity)`` (Holohan, Braghin 2021, "Secure random sampling in
  differential privacy", arXiv:2107.10138): four draws ``u1..u4``;
  ``L = log(1 - u1) cos(pi u2) + log(1 - u3) cos(pi u4)``; returns ``q - (s / eps) * L``.
  Claimed: ``eps``-DP for reals with ``|q - q'| <= s``.  Four draws make ``2^(4k)`` executions,
  so ``k <= 5`` is what an enumeration affords (``2^20`` executions per input, about 15 s each
  on one core).

The exact epsilon at ``k`` bits is ``max_y |ln P_k(y | q) - ln P_k(y | q')|`` over the outputs
``y`` of both inputs (:func:`~dpverify.verify.privacy._ratio.tightest_alpha`), infinite where an
output is possible under one input only; it is compared with the claimed epsilon by
:func:`~dpverify.verify.privacy._claim_checks.check_pure_epsilon` (``e^-eps`` as an ``mpmath`` interval).
The claimed epsilon is the double diffprivlib receives: asking for ``epsilon="0.1"`` audits the
claim ``Fraction(0.1)``, the exact value of the double ``0.1``.

A call that raises is an output too (``"raised OverflowError"``): diffprivlib's ``Geometric``
computes ``log(0) = -inf`` when ``random()`` returns exactly ``0.5``, and ``int(round(inf))``
raises.  That happens with probability ``2^-k`` here and ``2^-53`` in production, for every
input alike, so it changes no ratio; it is reported in the evidence.  numpy's warnings (divide
by zero) are silenced around the calls; that changes no value.

Up to 53 bits for the geometric mechanisms.  They draw once, and on each half of the draws
(``j < 2^(k-1)`` and ``j > 2^(k-1)``) the output is monotone in ``j`` provided ``np.log`` is
(assumption L, :data:`ASSUMPTION_L`; derivation in :func:`geometric_support_edge`), so each
output's draws form one run per half and :func:`~dpverify.verify.engine._enumerate.bisect_outputs`
finds the exact PMF in ``O(outputs * k)`` executions, 53 bits included (about 4,000 executions
for ``epsilon = 1``).  Every run boundary is re-checked on :data:`GUARD` draws each side, and
the tests compare bisection with the exhaustive PMF up to 20 bits.  Such verdicts say
"bisection, under assumption L" in their summary and carry the assumption in their evidence.

What a verdict at ``k`` bits says about ``k = 53``.  Each verdict holds for the ``k`` it names.
An enumerated violation at ``k`` bits is a property of the code fed a ``k``-bit ``random()``,
not by itself one at 53 bits; the sweep over ``k`` shows the trend.  For the geometric
mechanisms the 53-bit PMF is exact (under L), so their 53-bit verdicts are about CPython's
own ``random()``: ``Geometric``'s support is finite at every ``k`` (the largest noise comes
from the smallest ``|v|``, about ``k ln 2 / eps``) and moves with ``q``, so the loss is
infinite, at probability ``2^-53`` per edge output; ``GeometricTruncated``'s loss is finite
and exceeds the claim by a rounding-sized margin (about ``1e-15`` at ``eps = 1``).  For
``Laplace`` (four draws) only ``k <= 6`` is enumerated and nothing is claimed about 53 bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from dpverify.samplers import DpverifyError, InvalidArgument, RandomSource, SamplerContractError, as_fraction, as_int
from dpverify.samplers._rational import shown
from dpverify.specs import Case, ExactPmf, Integer, Params, PureDp, Randomness, Rational, Spec
from dpverify.verify.privacy._claim_checks import check_pure_epsilon
from dpverify.verify.engine._enumerate import Enumeration, bisect_outputs, enumerate_outputs
from dpverify.verify.engine._random_compat import CPYTHON_FLOAT_BITS, RandomCompat
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_number

__all__ = [
    "ASSUMPTION_L",
    "AUTO_ENUMERATE_BITS",
    "MAX_BITS",
    "MECHANISMS",
    "METHODS",
    "SPECS",
    "DiffprivlibMechanism",
    "GtmDistance",
    "SupportEdge",
    "check_diffprivlib",
    "delta_at",
    "diffprivlib_mechanism",
    "geometric_support_edge",
    "gtm_distance",
    "main",
    "output_pmf",
    "readme_sweep",
    "sweep_diffprivlib",
    "sweep_table",
]

#: The mechanisms audited, by the name used here.
MECHANISMS = ("geometric", "geometric-truncated", "laplace")

#: The largest ``k`` each mechanism is enumerated at: ``2^k`` executions per input for the
#: geometric ones (about 8 s per input at ``k = 20`` on one core, 16 times that at 24), ``2^(4k)``
#: for Laplace (about 15 s per input at ``k = 5``, 16 times that at 6).
MAX_BITS = {"geometric": 24, "geometric-truncated": 24, "laplace": 6}

#: Above this ``k`` the geometric mechanisms are bisected unless ``method="enumerate"`` is asked for.
AUTO_ENUMERATE_BITS = 20

#: Draws run on each side of every run boundary found by bisection, to check assumption L there.
GUARD = 8

#: Executions an enumeration may make before its verdict is inconclusive.
MAX_PATHS = 1 << 24

_RAISES = (OverflowError, ValueError, ZeroDivisionError, FloatingPointError)


def _diffprivlib() -> Any:
    try:
        import diffprivlib.mechanisms as mechanisms
    except ImportError as error:  # the optional extra
        raise InvalidArgument("the diffprivlib audit needs diffprivlib; install it with "
                              f"pip install 'dpverify[diffprivlib]' ({error}).") from None
    return mechanisms


def _exact_double(name: str, value: Fraction) -> float:
    double = float(value)
    if not math.isfinite(double) or Fraction(double) != value:
        raise InvalidArgument(f"{name} must be exactly a double, since the mechanism runs on doubles; "
                              f"got {name}={shown(value)}.")
    return double


def _integer(name: str, value: object) -> int:
    number = as_fraction(name, value)
    if number.denominator != 1:
        raise InvalidArgument(f"{name} must be an integer; got {name}={shown(value)}.")
    return number.numerator


@dataclass(frozen=True, slots=True)
class DiffprivlibMechanism:
    """One diffprivlib mechanism with its parameters, as the library receives them.

    ``epsilon`` is the exact value of the double passed to diffprivlib (and the claim audited);
    ``sensitivity`` is an int for the geometric mechanisms and an exact double for Laplace;
    ``lower`` and ``upper`` are the truncated mechanism's bounds (None otherwise).
    """

    name: str
    epsilon: Fraction
    sensitivity: Fraction
    lower: int | None = None
    upper: int | None = None

    def build(self, rng: RandomCompat) -> Any:
        """The diffprivlib object, drawing from ``rng`` (its public constructor, unmodified)."""
        mechanisms = _diffprivlib()
        epsilon = float(self.epsilon)
        if self.name == "geometric":
            return mechanisms.Geometric(epsilon=epsilon, sensitivity=int(self.sensitivity), random_state=rng)
        if self.name == "geometric-truncated":
            return mechanisms.GeometricTruncated(epsilon=epsilon, sensitivity=int(self.sensitivity),
                                                 lower=self.lower, upper=self.upper, random_state=rng)
        return mechanisms.Laplace(epsilon=epsilon, delta=0.0, sensitivity=float(self.sensitivity), random_state=rng)

    def argument(self, q: Fraction | int) -> int | float:
        """The value handed to ``randomise``: an int for the geometric mechanisms, a double for Laplace."""
        return float(q) if self.name == "laplace" else int(q)

    def check_input(self, name: str, value: object) -> Fraction:
        """``value`` parsed and checked against the mechanism's input domain."""
        if self.name == "laplace":
            q = as_fraction(name, value)
            _exact_double(name, q)
            return q
        q = Fraction(_integer(name, value))
        if self.lower is not None and not self.lower <= q <= self.upper:  # type: ignore[operator]
            raise InvalidArgument(f"{name} must be an integer in [lower, upper] = [{self.lower}, {self.upper}]; "
                                  f"got {name}={shown(value)}.")
        return q

    def describe(self) -> str:
        eps = fraction_text(self.epsilon)
        eps = eps if len(eps) <= 12 else repr(float(self.epsilon))  # the double as Python writes it
        if self.name == "geometric":
            return f"Geometric(epsilon={eps}, sensitivity={self.sensitivity})"
        if self.name == "geometric-truncated":
            return (f"GeometricTruncated(epsilon={eps}, sensitivity={self.sensitivity}, "
                    f"lower={self.lower}, upper={self.upper})")
        return f"Laplace(epsilon={eps}, sensitivity={fraction_text(self.sensitivity)})"

    def to_json(self) -> dict[str, Any]:
        return {"mechanism": self.name, "epsilon": fraction_text(self.epsilon),
                "sensitivity": fraction_text(self.sensitivity), "lower": self.lower, "upper": self.upper}


def diffprivlib_mechanism(
    name: str,
    *,
    epsilon: object,
    sensitivity: object = 1,
    lower: object = None,
    upper: object = None,
) -> DiffprivlibMechanism:
    """Parse a mechanism's parameters (exact rationals or their strings; no floats).

    ``epsilon > 0`` (the double nearest to it is what diffprivlib receives and what the claim
    is about); ``sensitivity``: an integer ``>= 1`` for the geometric mechanisms, a rational
    ``> 0`` that is exactly a double for Laplace; ``lower < upper`` integers for
    ``geometric-truncated`` only.
    """
    if name not in MECHANISMS:
        raise InvalidArgument(f"mechanism must be one of {', '.join(MECHANISMS)}; got mechanism={shown(name)}.")
    eps = as_fraction("epsilon", epsilon)
    double = float(eps) if eps > 0 else 0.0
    if not (eps > 0 and math.isfinite(double) and double > 0):
        raise InvalidArgument(f"epsilon must be a rational > 0 whose nearest double is finite and > 0; "
                              f"got epsilon={shown(epsilon)}.")
    if name == "laplace":
        s = as_fraction("sensitivity", sensitivity)
        if s <= 0:
            raise InvalidArgument(f"sensitivity must be a rational > 0; got sensitivity={shown(sensitivity)}.")
        _exact_double("sensitivity", s)
    else:
        s = Fraction(as_int("sensitivity", sensitivity, low=1))
    low = high = None
    if name == "geometric-truncated":
        if lower is None or upper is None:
            raise InvalidArgument("geometric-truncated needs lower and upper (integers, lower < upper); "
                                  f"got lower={shown(lower)}, upper={shown(upper)}.")
        low, high = _integer("lower", lower), _integer("upper", upper)
        if not low < high:
            raise InvalidArgument(f"lower must be < upper; got lower={low}, upper={high}.")
    elif lower is not None or upper is not None:
        raise InvalidArgument(f"lower and upper are parameters of geometric-truncated only; got lower={shown(lower)}, "
                              f"upper={shown(upper)} for mechanism={name}.")
    return DiffprivlibMechanism(name, Fraction(double), s, low, high)


#: How an output PMF is derived: ``"enumerate"`` runs every execution (no assumption);
#: ``"bisect"`` (the geometric mechanisms, up to 53 bits) finds each output's run of draws.
METHODS = ("enumerate", "bisect")


def _bits(mechanism: DiffprivlibMechanism, bits: object, method: object = None) -> tuple[int, str]:
    if method is not None and method not in METHODS:
        raise InvalidArgument(f"method must be one of {', '.join(METHODS)} or None; got method={shown(method)}.")
    if method == "bisect" and mechanism.name == "laplace":
        raise InvalidArgument("method=bisect applies to the geometric mechanisms only (one draw, monotone on each "
                              "half); Laplace's four draws are enumerated: use method=enumerate.")
    if method is None and isinstance(bits, int) and not isinstance(bits, bool) and mechanism.name != "laplace":
        method = "enumerate" if bits <= AUTO_ENUMERATE_BITS else "bisect"
    high = CPYTHON_FLOAT_BITS if method == "bisect" else MAX_BITS[mechanism.name]
    if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= high:
        raise InvalidArgument(f"bits must be an integer in [1, {high}] for {mechanism.name} (method "
                              f"{method or 'enumerate'}); got bits={shown(bits)}.")
    return bits, method or "enumerate"


def _output(value: object) -> Hashable:
    # numpy scalars hash and compare like Python numbers; plain ones keep the evidence readable.
    return value if isinstance(value, int) else float(value)  # type: ignore[arg-type]


def _runner(mechanism: DiffprivlibMechanism, q: Fraction | int, bits: int) -> Callable[[RandomSource], Hashable]:
    """``source -> output``: the diffprivlib object built once per source (the enumeration hands
    the same enumerating source to every execution) and ``randomise(q)`` called on it."""
    argument = mechanism.argument(q)
    state: dict[str, Any] = {}

    def run(source: RandomSource) -> Hashable:
        if state.get("source") is not source:
            state["source"] = source
            state["object"] = mechanism.build(RandomCompat(source, float_bits=bits))
        try:
            return _output(state["object"].randomise(argument))
        except DpverifyError:  # the engine's or a source's complaint (an InvalidArgument is a ValueError)
            raise
        except _RAISES as error:
            return f"raised {type(error).__name__}"

    return run


def output_pmf(
    mechanism: DiffprivlibMechanism, q: object, bits: int, *, method: str | None = None, max_paths: int = MAX_PATHS
) -> Enumeration:
    """The exact output distribution of diffprivlib's code on input ``q`` with a ``bits``-bit
    ``random()``: an :class:`~dpverify.verify.engine._enumerate.Enumeration` (``masses``, exact).

    ``method="enumerate"`` (the default up to :data:`AUTO_ENUMERATE_BITS`, allowed up to
    :data:`MAX_BITS`) runs every execution through
    :func:`~dpverify.verify.engine._enumerate.enumerate_outputs`.  ``method="bisect"`` (the default
    above, geometric mechanisms only, up to 53 bits) rests on assumption L
    (:data:`ASSUMPTION_L`): with ``h = 2^(bits-1)``, the output is non-increasing in the draw on
    ``0 .. h-1`` and on ``h+1 .. 2^bits - 1`` (:func:`geometric_support_edge` derives this), so
    on each half every output's draws are one run, found by
    :func:`~dpverify.verify.engine._enumerate.bisect_outputs` in ``O(outputs * bits)`` executions; the
    draw ``h`` is run on its own.
    """
    import numpy as np

    q_ = mechanism.check_input("q", q)
    k, how = _bits(mechanism, bits, method)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if how == "bisect":
            return _bisected(mechanism, q_, k)
        return enumerate_outputs(_runner(mechanism, q_, k), max_paths=max_paths)


def _bisected(mechanism: DiffprivlibMechanism, q: Fraction, bits: int) -> Enumeration:
    n, h = 1 << bits, 1 << (bits - 1)
    draw = _OneDraw(n, 0)
    run = _runner(mechanism, q, bits)

    def at(j: int) -> Hashable:
        draw.value, draw.draws = j, 0
        return run(draw)

    masses: dict[Hashable, Fraction] = {}
    executions = 1
    middle = at(h)
    masses[middle] = Fraction(1, n)
    for offset, size in ((0, h), (h + 1, h - 1)):
        if size == 0:
            continue
        found = bisect_outputs(lambda source, offset=offset, size=size: at(offset + source.randbelow(size)), size)
        executions += found.executions
        start = offset
        for y, mass in found.masses.items():  # in the order of their runs along the draws
            masses[y] = masses.get(y, Fraction(0)) + mass * Fraction(size, n)
            end = start + int(mass * size)  # the run is start .. end - 1
            for j in [*range(start, min(start + GUARD, end)), *range(max(start, end - GUARD), end)]:
                executions += 1
                if at(j) != y:
                    raise SamplerContractError(
                        f"assumption L fails on this platform: draw {j} gives {shown(at(j))} inside the run "
                        f"{start}..{end - 1} of output {shown(y)} that bisection found; use bits <= "
                        f"{MAX_BITS[mechanism.name]} (method=enumerate), which assumes nothing.")
            start = end
    return Enumeration(masses, Fraction(0), len(masses), executions, "bisection", {(y, 1): m for y, m in masses.items()})


def check_diffprivlib(
    mechanism: DiffprivlibMechanism, q: object, q_prime: object, bits: int, *, claim_epsilon: object = None,
    method: str | None = None, max_paths: int = MAX_PATHS,
) -> CheckResult:
    """The exact epsilon of ``mechanism`` between neighbours ``q, q'`` at ``bits`` bits, against its claim.

    The claim is the mechanism's own epsilon (the double diffprivlib holds), or ``claim_epsilon``
    (a rational > 0) to ask whether a looser epsilon holds at ``bits`` bits.  ``method`` is
    :func:`output_pmf`'s (bisection, above :data:`AUTO_ENUMERATE_BITS`, says so and its assumption in the
    summary and evidence).  ``proved``: ``max_y |ln P(y|q) - ln P(y|q')| <= epsilon`` at ``bits`` bits; ``violated``:
    above it (or infinite), at the witness output with both exact probabilities;
    ``inconclusive``: the enumeration hit ``max_paths``, or the comparison with ``e^-eps``
    stayed undecided.  Every summary names the precision.
    """
    q_, q2 = mechanism.check_input("q", q), mechanism.check_input("q_prime", q_prime)
    if q_ == q2 or abs(q_ - q2) > mechanism.sensitivity:
        raise InvalidArgument(f"q and q_prime must be distinct neighbours, 0 < |q - q_prime| <= sensitivity = "
                              f"{fraction_text(mechanism.sensitivity)}; got q={shown(q)}, q_prime={shown(q_prime)}.")
    k, how = _bits(mechanism, bits, method)
    claimed = mechanism.epsilon if claim_epsilon is None else as_fraction("claim_epsilon", claim_epsilon)
    if claimed <= 0:
        raise InvalidArgument(f"claim_epsilon must be a rational > 0; got claim_epsilon={shown(claim_epsilon)}.")
    found = {x: output_pmf(mechanism, x, k, method=how, max_paths=max_paths) for x in (q_, q2)}
    where = f"diffprivlib {mechanism.describe()} at {k} bits"
    if how == "bisect":
        where += " (bisection, under assumption L: np.log monotone)"
    evidence: dict[str, Any] = {
        "bits": k, "method": how, **({"assumption": ASSUMPTION_L} if how == "bisect" else {}),
        **mechanism.to_json(), "q": fraction_text(q_), "q_prime": fraction_text(q2),
        "executions": {fraction_text(x): e.executions for x, e in found.items()},
        "outputs": {fraction_text(x): len(e.masses) for x, e in found.items()},
        "raised": {fraction_text(x): {o: fraction_text(m) for o, m in e.masses.items() if isinstance(o, str)}
                   for x, e in found.items()},
    }
    unfinished = [x for x, e in found.items() if not e.exhausted]
    if unfinished:
        reason = (f"{where}: the enumeration of q={fraction_text(unfinished[0])} stopped at max_paths={max_paths} "
                  f"with mass {fraction_text(found[unfinished[0]].unexplored)} unexplored")
        return CheckResult("privacy", Verdict.INCONCLUSIVE, reason, reason=reason, evidence=evidence)
    table = {x: ExactPmf.from_fractions(e.masses) for x, e in found.items()}
    result = check_pure_epsilon(table, [(q_, q2)], PureDp(epsilon=claimed))
    alpha = Fraction(result.evidence["alpha_exact"])
    evidence.update(result.evidence)
    evidence["epsilon_exact"] = json_number(math.inf if alpha == 0 else math.log(alpha.denominator) - math.log(alpha.numerator))
    evidence["epsilon_excess"] = json_number(_excess(alpha, claimed))
    deltas = [delta_at(found[a].masses, found[b].masses, claimed) for a, b in ((q_, q2), (q2, q_))]
    low, high = max(d[0] for d in deltas), max(d[1] for d in deltas)
    evidence["delta_at_claimed_epsilon"] = {"low": fraction_text(low), "high": fraction_text(high),
                                            "approx": float(high)}
    witness = evidence.get("witness")
    if witness is not None and isinstance(witness.get("output"), float):
        witness["output_hex"] = float(witness["output"]).hex()
    reason = f"{where}: {result.reason}" if result.reason else None
    excess = evidence["epsilon_excess"]
    margin = f" (exact epsilon minus claimed: {excess:.3g})" if isinstance(excess, float) else ""
    return CheckResult("privacy", result.verdict, f"{where}: {result.summary}{margin}", reason=reason, evidence=evidence)


def _excess(alpha: Fraction, claimed: Fraction) -> float:
    """``ln(1/alpha) - claimed`` for the report (60 digits, then a float); the verdict is decided
    by intervals in :func:`~dpverify.verify.privacy._claim_checks.check_pure_epsilon`, not by this."""
    import mpmath

    if alpha == 0:
        return math.inf
    with mpmath.workdps(60):
        return float(mpmath.log(mpmath.mpf(alpha.denominator) / alpha.numerator) - mpmath.mpf(claimed.numerator) / claimed.denominator)


def delta_at(first: dict[Hashable, Fraction], second: dict[Hashable, Fraction], epsilon: Fraction) -> tuple[Fraction, Fraction]:
    """An enclosure ``[low, high]`` of ``delta = sum_y max(0, P(y|q) - e^eps P(y|q'))``, the
    smallest ``delta`` for which ``(eps, delta)``-DP holds from ``q`` to ``q'`` (the hockey-stick
    divergence; :func:`~dpverify.verify.privacy._claim_checks.check_approx_dp`).  Outputs impossible from
    ``q'`` add their exact mass; a term is skipped only when ``P/P' <= low(e^eps)``, an exact
    rational comparison; the rest are summed in ``mpmath.iv`` at 128 bits, rounding outward.
    """
    from mpmath import iv

    from dpverify.specs._enclosure import interval_precision, iv_rational
    from dpverify.verify.privacy._claim_checks import _positive_part
    from dpverify.verify.engine._intervals import enclosure_bound

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
    mechanism: DiffprivlibMechanism, q: object, q_prime: object, bits: Sequence[int], *, jobs: int | None = 1
) -> list[CheckResult]:
    """:func:`check_diffprivlib` at each precision in ``bits`` (in worker processes with ``jobs``)."""
    from dpverify.verify.gate._sweep import sweep

    parameters = (fraction_text(mechanism.epsilon), fraction_text(mechanism.sensitivity), mechanism.lower, mechanism.upper)
    for k in bits:
        _bits(mechanism, k)  # refused here, before any work starts
    return sweep(_check_task, [(mechanism.name, parameters, fraction_text(Fraction(q)), fraction_text(Fraction(q_prime)), k)
                               for k in bits], jobs=jobs)


def _delta_text(evidence: dict[str, Any]) -> str:
    delta = evidence.get("delta_at_claimed_epsilon")
    return "-" if delta is None else f"{delta['approx']:.3g}"


#: The sweep behind the README's table: ``(mechanism, (epsilon, sensitivity, lower, upper), q, q', bits)``.
#: Up to :data:`AUTO_ENUMERATE_BITS` the PMFs are enumerated (no assumption); above, bisected
#: (assumption L).
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

    if isinstance(laplace_bits, bool) or not isinstance(laplace_bits, int) or not 1 <= laplace_bits <= MAX_BITS["laplace"]:
        raise InvalidArgument(f"laplace_bits must be an integer in [1, {MAX_BITS['laplace']}]; "
                              f"got laplace_bits={shown(laplace_bits)}.")
    grid = [row for row in README_SWEEP if row[0] != "laplace"]
    grid += [("laplace", ("1", "1", None, None), 0, 1, k) for k in range(1, laplace_bits + 1)]
    return sweep(_check_task, grid, jobs=jobs)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dpverify.verify.published._diffprivlib [--jobs N] [--laplace-bits K]``: the README's table."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m dpverify.verify.published._diffprivlib",
                                     description="diffprivlib's mechanisms, exact epsilon at k bits (the README's table)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--laplace-bits", type=int, default=4, help="Laplace up to this k (2^(4k) executions; max 6)")
    args = parser.parse_args(argv)
    results = readme_sweep(jobs=args.jobs, laplace_bits=args.laplace_bits)
    print(sweep_table(results))
    return 0


def sweep_table(results: Sequence[CheckResult]) -> str:
    """A Markdown table of sweep results: mechanism, parameters, k, exact epsilon, claim, verdict, witness."""
    rows = ["| mechanism | q, q' | k | exact epsilon at k bits | minus claimed | claimed | verdict "
            "| witness: output, P(.\\|q), P(.\\|q') | delta at the claimed epsilon |",
            "|---|---|---|---|---|---|---|---|---|"]
    for result in results:
        e = result.evidence
        w = e.get("witness")
        eps = e.get("epsilon_exact", "-")
        eps_text = "∞" if eps == "Infinity" else (f"{eps:.6f}" if isinstance(eps, float) else str(eps))
        where = result.summary.split(" at ", 1)[0].removeprefix("diffprivlib ")
        shown_output = w and (f"{w['output']!r} ({w['output_hex']})" if "output_hex" in w else str(w["output"]))
        witness = "-" if w is None else (f"{shown_output}: {w['p']} vs {w['p_prime']}"
                                         f" (q={w['q']}, q'={w['q_prime']})")
        excess = e.get("epsilon_excess", "-")
        excess_text = "∞" if excess == "Infinity" else (f"{excess:.3g}" if isinstance(excess, float) else str(excess))
        claim = e["claim_epsilon"] if len(e["claim_epsilon"]) <= 12 else f"{float(Fraction(e['claim_epsilon'])):.17g}"
        rows.append(f"| {where} | {e['q']}, {e['q_prime']} | {e['bits']} | {eps_text} | {excess_text} | {claim} "
                    f"| {result.verdict.value} | {witness} | {_delta_text(e)} |")
    return "\n".join(rows)


# --- GeometricTruncated against the exact GTM -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class GtmDistance:
    """diffprivlib's ``GeometricTruncated`` at ``bits`` bits against the ideal truncated geometric.

    ``epsilon`` is the double nearest ``ln(D)`` (what diffprivlib is given for ``alpha = 1/D``);
    ``worst`` is ``max_y |P_bits(y | q) - gtpmf(q, y)|`` with ``gtpmf`` at ``alpha = 1/D`` exactly
    (:meth:`dpverify.specs.GtmSpec.ideal_pmf`, Amorim, Gaboardi, Rindisbacher §2), attained at
    ``output``; ``total_variation`` is half the sum of the absolute differences.  Both are exact.
    """

    D: int
    n: int
    q: int
    bits: int
    epsilon: Fraction
    worst: Fraction
    output: int
    total_variation: Fraction


def gtm_distance(D: int, n: int, q: int, bits: int = CPYTHON_FLOAT_BITS) -> GtmDistance:
    """Compare diffprivlib's float GTM on ``[0, n]`` with the ideal ``gtpmf`` at ``alpha = 1/D``.

    The ideal is irrational for diffprivlib's own ``alpha = e^-eps`` but rational at ``1/D``, so
    the comparison is exact; it includes the (tiny) difference between ``e^-eps`` for the double
    ``eps`` nearest ``ln D`` and ``1/D``.  The PMF at ``bits`` is :func:`output_pmf`'s (bisected
    above 20 bits, under assumption L).  The exact GTM of :mod:`dpverify.samplers.gtm` samples
    ``gtpmf`` exactly at ``T = (D+1) D^n`` (Theorem 7.1): distance 0.
    """
    import mpmath

    from dpverify.specs import GtmSpec

    D_, n_ = as_int("D", D, low=2), as_int("n", n, low=1, high=1000)
    q_ = as_int("q", q, low=0, high=n_)
    with mpmath.workprec(53):  # mpmath rounds to nearest at 53 bits: the double nearest ln D
        epsilon = Fraction(float(mpmath.log(D_)))
    mechanism = diffprivlib_mechanism("geometric-truncated", epsilon=epsilon, lower=0, upper=n_)
    found = output_pmf(mechanism, q_, bits).masses
    ideal = GtmSpec.create(Fraction(1, D_), n_, (D_ + 1) * D_**n_).ideal_pmf(q_).as_dict()
    raised = sum((m for y, m in found.items() if isinstance(y, str)), Fraction(0))
    differences = {y: abs(found.get(y, Fraction(0)) - ideal.get(y, Fraction(0))) for y in range(n_ + 1)}
    output = max(differences, key=lambda y: differences[y])
    total = (sum(differences.values(), Fraction(0)) + raised) / 2
    return GtmDistance(D_, n_, q_, bits, epsilon, differences[output], output, total)


# --- Geometric at 53 bits: the edge of the support ------------------------------------------------


class _OneDraw(RandomSource, trusted=True):
    """Answers the single ``randbelow(2^k)`` of one ``random()`` with ``value``."""

    def __init__(self, n: int, value: int) -> None:
        self.n, self.value, self.draws = n, value, 0

    def randbelow(self, n: int) -> int:
        self.draws += 1
        if self.draws > 1 or n != self.n:
            raise SamplerContractError(f"the geometric mechanism was expected to draw once, randbelow({self.n}); "
                                       f"it asked for randbelow({n}) as draw {self.draws}.")
        return self.value


@dataclass(frozen=True, slots=True)
class SupportEdge:
    """An output of ``q'`` that ``q`` never produces, for diffprivlib's ``Geometric`` at ``bits`` bits.

    ``output`` is the largest output of ``from_input`` (``q'`` when ``q' > q``, else the
    smallest), produced by ``count`` draws starting at ``draw``: ``P(output | from_input) =
    count / 2^bits`` exactly (the draws are run).  ``other_edge`` is the other input's most
    extreme output on the same side, so every draw of it gives an output strictly inside
    ``output``: ``P(output | other) = 0``, infinite privacy loss.  That last step rests on
    assumption L (module docstring of this section, :func:`geometric_support_edge`);
    ``window`` is the draws scanned exhaustively around each edge to check it at run time.
    """

    mechanism: DiffprivlibMechanism
    q: Fraction
    q_prime: Fraction
    bits: int
    output: int
    from_input: str
    draw: int
    count: int
    other_edge: int
    window: int

    @property
    def probability(self) -> Fraction:
        return Fraction(self.count, 1 << self.bits)

    def check(self) -> CheckResult:
        """``violated`` at ``bits`` bits, under assumption L, with the witness."""
        source, other = (self.q_prime, self.q) if self.from_input == "q_prime" else (self.q, self.q_prime)
        where = f"diffprivlib {self.mechanism.describe()} at {self.bits} bits"
        summary = (f"{where}: infinite privacy loss (under assumption L, np.log monotone): output {self.output} "
                   f"has P={fraction_text(self.probability)} from q={fraction_text(source)} (draws {self.draw}.."
                   f"{self.draw + self.count - 1}) and P=0 from q={fraction_text(other)}, whose outputs stop at "
                   f"{self.other_edge}")
        evidence = {"bits": self.bits, **self.mechanism.to_json(), "q": fraction_text(self.q),
                    "q_prime": fraction_text(self.q_prime), "claim_epsilon": fraction_text(self.mechanism.epsilon),
                    "epsilon_exact": "Infinity", "assumption": ASSUMPTION_L, "window": self.window,
                    "witness": {"q": fraction_text(source), "q_prime": fraction_text(other), "output": self.output,
                                "p": fraction_text(self.probability), "p_prime": "0", "ratio": "Infinity",
                                "draw": self.draw, "count": self.count, "other_edge": self.other_edge}}
        return CheckResult("privacy", Verdict.VIOLATED, summary, evidence=evidence)


#: The one assumption :func:`geometric_support_edge` makes beyond running the code.
ASSUMPTION_L = ("np.log is non-decreasing on the positive doubles it is given (true of a correctly rounded "
                "logarithm; faithful rounding alone does not imply it for neighbouring doubles); checked at run "
                "time on every draw near each edge, and against the exhaustive PMF up to 20 bits by the tests")


def geometric_support_edge(
    mechanism: DiffprivlibMechanism, q: object, q_prime: object, bits: int = CPYTHON_FLOAT_BITS, *, guard: int = 64
) -> SupportEdge:
    """The output of the larger (or smaller) input that the other never gives, at ``bits`` bits, 53 included.

    Write ``h = 2^(bits-1)``.  In ``Geometric.randomise`` the draw ``j`` gives ``u = j / 2^bits``
    and ``v = fl(fl(u - 0.5) * c)``, ``c = fl(1 + exp(-eps/s)) > 0``, where ``u - 0.5`` is exact,
    so ``v`` is non-decreasing in ``j`` (rounding is monotone), ``< 0`` for ``j < h``, ``0`` at
    ``j = h`` (the draw that raises) and ``> 0`` for ``j > h``.  **Assumption L**: ``np.log`` is
    non-decreasing on the positive doubles.  Then on ``j > h`` the output ``int(round(q +
    floor(log(v) / (-eps/s))))`` is non-increasing in ``j`` (division by a negative double, floor
    and the sum are monotone), so the largest output of ``q`` is the one at ``j = h + 1``; on
    ``j < h``, ``-v`` falls as ``j`` grows and the output ``q - floor(log(-v) / (-eps/s))`` is
    non-increasing too, so the smallest output is the one at ``j = h - 1``.  For ``q < q'`` the
    largest output of ``q'`` exceeds that of ``q`` (it is ``q' - q`` more, unless rounding of the
    double sum intervenes, which the code run decides): ``P = 0`` from ``q``.  Its exact
    probability from ``q'`` is the number of draws from ``h + 1`` on that give it, found by
    bisection on the monotone run; ``guard`` draws on each side of every edge are run to check L
    where it matters, and a decrease seen there is refused (SamplerContractError) rather than trusted.
    Runs ``O(bits + guard)`` executions; at ``bits <= 20`` the tests compare it with the exhaustive PMF.
    """
    import numpy as np

    if mechanism.name != "geometric":
        raise InvalidArgument(f"mechanism must be geometric (the unbounded one); got mechanism={mechanism.name}.")
    if isinstance(bits, bool) or not isinstance(bits, int) or not 2 <= bits <= CPYTHON_FLOAT_BITS:
        raise InvalidArgument(f"bits must be an integer in [2, {CPYTHON_FLOAT_BITS}]; got bits={shown(bits)}.")
    q_, q2 = mechanism.check_input("q", q), mechanism.check_input("q_prime", q_prime)
    if q_ == q2:
        raise InvalidArgument(f"q and q_prime must differ; got q={shown(q)}, q_prime={shown(q_prime)}.")
    n, h = 1 << bits, 1 << (bits - 1)
    draw = _OneDraw(n, 0)
    objects = {x: mechanism.build(RandomCompat(draw, float_bits=bits)) for x in (q_, q2)}

    def output(x: Fraction, j: int) -> int:
        draw.value, draw.draws = j, 0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return int(objects[x].randomise(mechanism.argument(x)))

    up = q2 > q_  # the side on which q' sticks out: above a smaller q, below a larger one
    source, other = q2, q_
    edge, step = (h + 1, 1) if up else (h - 1, -1)
    length = n - 1 - h if up else h  # draws h+1 .. n-1, or h-1 .. 0

    def at(i: int) -> int:  # the i-th draw away from the edge; away from it the output moves towards x
        return edge + step * i

    def beyond(y: int, bound: int) -> bool:
        return y > bound if up else y < bound

    target, other_edge = output(source, edge), output(other, edge)
    low, high = 0, length - 1  # the largest i with output(at(i)) == target
    while low < high:
        middle = (low + high + 1) // 2
        if output(source, at(middle)) == target:
            low = middle
        else:
            high = middle - 1
    count = low + 1
    # Assumption L checked where it carries weight, on every draw near the edge and near the end
    # of the witness's run: nothing beyond the edge, the run exactly where bisection put it.
    near = sorted({*range(min(guard, length)), *range(max(0, count - guard), min(length, count + guard))})
    for i in near:
        y, y_other = output(source, at(i)), output(other, at(i))
        if beyond(y, target) or (y == target) != (i < count) or beyond(y_other, other_edge):
            raise SamplerContractError(f"assumption L fails at draw {at(i)} (outputs {y} of q={fraction_text(source)}, "
                                       f"{y_other} of q={fraction_text(other)}); the witness at {bits} bits cannot be "
                                       "certified on this platform.")
    if (other_edge >= target) if up else (other_edge <= target):
        raise InvalidArgument(f"the supports' edges do not differ at {bits} bits: q={fraction_text(other)} reaches "
                              f"{other_edge}, q'={fraction_text(source)} reaches {target}.")
    first = edge if up else at(count - 1)  # the smallest draw of the run
    return SupportEdge(mechanism, q_, q2, bits, target, "q_prime", first, count,
                       other_edge, guard)


# --- the specs: ``dpverify check --spec-module dpverify.verify.published._diffprivlib`` -----------------------


def _mechanism_of(name: str) -> Callable[[Params], DiffprivlibMechanism]:
    def of(p: Params) -> DiffprivlibMechanism:
        return diffprivlib_mechanism(name, epsilon=p["epsilon"], sensitivity=p.get("sensitivity", 1),
                                     lower=p.get("lower"), upper=p.get("upper"))
    return of


def _sampler(name: str) -> Callable[..., Hashable]:
    """The production call at full precision: the engine hands it a 53-bit RandomCompat."""
    of = _mechanism_of(name)

    def sample(rng: RandomCompat, **p: Any) -> Hashable:
        mechanism = of(p)
        return _output(mechanism.build(rng).randomise(mechanism.argument(p["q"])))

    return sample


def _geometric_sampler(q: Fraction, epsilon: Fraction, sensitivity: int, rng: RandomCompat) -> Hashable:
    return _sampler("geometric")(rng, q=q, epsilon=epsilon, sensitivity=sensitivity)


def _truncated_sampler(q: Fraction, epsilon: Fraction, sensitivity: int, lower: int, upper: int,
                       rng: RandomCompat) -> Hashable:
    return _sampler("geometric-truncated")(rng, q=q, epsilon=epsilon, sensitivity=sensitivity, lower=lower, upper=upper)


def _laplace_sampler(q: Fraction, epsilon: Fraction, sensitivity: Fraction, rng: RandomCompat) -> Hashable:
    return _sampler("laplace")(rng, q=q, epsilon=epsilon, sensitivity=sensitivity)


def _at_bits(name: str) -> Callable[[Params], CheckResult]:
    of = _mechanism_of(name)

    def exact_epsilon_at_k_bits(p: Params) -> CheckResult:
        return check_diffprivlib(of(p), p["q"], p["q_prime"], p["bits"])

    return exact_epsilon_at_k_bits


def support_edge_at_53_bits(p: Params) -> CheckResult:
    """The Geometric's support edge at CPython's 53 bits (:func:`geometric_support_edge`)."""
    return replace(geometric_support_edge(_mechanism_of("geometric")(p), p["q"], p["q_prime"]).check(),
                   check="privacy_53_bits")


def _claim(p: Params) -> PureDp:
    return PureDp(epsilon=Fraction(float(p["epsilon"])))


_COMMON = {"q": Integer(-1000, 1000, search=(-3, 3)), "q_prime": Integer(-1000, 1000, search=(-3, 3)),
           "epsilon": Rational(0, 20, low_open=True, search=(Fraction(1, 4), 2)),
           "sensitivity": Integer(1, 10, search=(1, 1))}

SPECS: tuple[Spec, ...] = (
    Spec(
        name="diffprivlib-geometric",
        sampler=_geometric_sampler,
        randomness=Randomness.RANDOM,
        parameters={**_COMMON, "bits": Integer(1, CPYTHON_FLOAT_BITS, search=(4, 12))},
        claim=_claim,
        checks=(_at_bits("geometric"), support_edge_at_53_bits),
        citation="diffprivlib 0.6 Geometric (Ghosh, Roughgarden, Sundararajan 2009), run unmodified",
        description="diffprivlib's Geometric: exact PMF at k bits; its support edge at 53 bits",
        cases=(Case({"q": 0, "q_prime": 1, "epsilon": 1, "sensitivity": 1, "bits": 12}, "violated",
                    "the float geometric's support is finite at every precision and moves with q: an output of "
                    "q' that q never gives, at 12 bits and at 53", label="eps=1,k=12"),),
    ),
    Spec(
        name="diffprivlib-geometric-truncated",
        sampler=_truncated_sampler,
        randomness=Randomness.RANDOM,
        parameters={**_COMMON, "lower": Integer(-1000, 1000, search=(0, 0)), "upper": Integer(-1000, 1000, search=(4, 8)),
                    "bits": Integer(1, CPYTHON_FLOAT_BITS, search=(4, 12))},
        claim=_claim,
        checks=(_at_bits("geometric-truncated"),),
        citation="diffprivlib 0.6 GeometricTruncated, run unmodified; the exact GTM is samplers/gtm.py",
        description="diffprivlib's GeometricTruncated: exact PMF at k bits against its epsilon",
        cases=(Case({"q": 1, "q_prime": 2, "epsilon": 1, "sensitivity": 1, "lower": 0, "upper": 4, "bits": 12},
                    "violated", "every output is possible from both inputs, but the k-bit grid rounds the "
                    "probabilities: exact epsilon 1.000568 > 1 at 12 bits", label="eps=1,[0,4],k=12"),
               Case({"q": 1, "q_prime": 2, "epsilon": 1, "sensitivity": 1, "lower": 0, "upper": 4, "bits": 53},
                    "violated", "at CPython's 53 bits, by bisection under assumption L: exact epsilon exceeds 1 "
                    "by about 1.4e-15", label="eps=1,[0,4],k=53")),
    ),
    Spec(
        name="diffprivlib-laplace",
        sampler=_laplace_sampler,
        randomness=Randomness.RANDOM,
        parameters={**_COMMON, "q": Rational(-1000, 1000, search=(-3, 3)),
                    "q_prime": Rational(-1000, 1000, search=(-3, 3)),
                    "sensitivity": Rational(0, 10, low_open=True, search=(1, 1)),
                    "bits": Integer(1, MAX_BITS["laplace"], search=(1, 3))},
        claim=_claim,
        checks=(_at_bits("laplace"),),
        citation="diffprivlib 0.6 Laplace (Holohan, Braghin 2021: four uniforms), run unmodified",
        description="diffprivlib's Laplace: exact PMF at k bits (4 draws, 2^(4k) executions)",
        cases=(Case({"q": 0, "q_prime": 1, "epsilon": 1, "sensitivity": 1, "bits": 3}, "violated",
                    "of the 2^12 executions, 78 give q = 0 the output 0.0, which none of q' = 1 gives",
                    label="eps=1,k=3"),),
    ),
)


if __name__ == "__main__":
    from dpverify.verify.published._diffprivlib import main as _main  # the package's module, so workers can import its tasks

    raise SystemExit(_main())
