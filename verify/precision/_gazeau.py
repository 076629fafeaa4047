"""Exact privacy of Gazeau-Miller-Palamidessi's repaired Laplace against their Theorem 4.5.

Paper: I. Gazeau, D. Miller, C. Palamidessi, "Preserving differential privacy under
finite-precision semantics", QAPL 2013 (paper 000 in ``/work/shared/papers``; the text there
is machine-extracted and garbled in places: the reconstructions below are marked).  The
code under audit is :mod:`dpverify.samplers.gazeau_unsafe` (Mechanisms 2 and 3 over the textbook float
Laplace at ``k`` bits).

What is computed
================

**The exact privacy loss at k bits.**  The code draws ``j`` uniform on ``1 .. 2^k - 1`` and
is otherwise deterministic, so running it on every ``j`` for ``q`` and for ``q'`` gives both
exact output PMFs (:func:`dpverify.verify.precision._float_exact.float_pmf`), and ``max_y P(y|q)/P(y|q')`` over
both orders is the exact ``e^eps`` of the implementation, or an output one input can produce
and the other cannot (infinite loss).  Pure DP over sets follows from singletons.

**Theorem 4.5's bound** (§4.4)::

    eps' = eps + ln(1 + R * e^(eps (L + delta_t) / Delta_f'))                       (Thm 4.5)

*Reconstructed*: the extraction drops the symbol of the robustness ratio (it prints
``ln(1+e/^{...})``); ``R`` is restored from §5's instance of the same formula and from the
last line of the proof in Appendix B, ``P_1 <= (1 + R e^(eps (L+delta_t)/Delta_f')) e^eps P_2``.
``L`` is the largest diameter of a rounding cell (here the step), ``Delta_f'`` the
sensitivity, ``eps`` the degree of Condition 1 (for Laplace noise of scale ``b``, Theorem 3.2:
Condition 1 holds exactly for ``eps >= Delta_f'/b``; default ``eps = Delta_f'/b``).

**The total error, eq. (3)** ``delta_t = k delta_0 + delta_n``, with §5's Lipschitz constant
of the exact noise ``n(u) = -b sgn(u - 1/2) ln(1 - 2|u - 1/2|)`` on ``|n(u)| <= diam(M_r)``::

    k = dn_max = (2 Delta_f'/eps) e^(eps diam(M_r) / Delta_f') = 2 b e^((M - m)/b)      (§5)

computed with the scale ``b`` the code uses (the two agree for the default ``eps``), as an
exact rational upper bound (an mpmath interval enclosure's upper end), so ``delta_t`` and both
``R`` are exact rationals and only ``exp``/``ln`` in ``eps'`` are enclosed by intervals.

**The robustness ratio, two readings.**  Definition (5) (*reconstructed*: its left-hand side
is lost in the extraction)::

    R = max_{S in S'_0, S nonempty} lambda(S^{+delta_t} \\ S^{-delta_t}) / lambda(S^{-delta_t})   (5)

with ``S^{+d} = {x : d(x, S) <= d}`` and ``S^{-d} = ((S^c)^{+d})^c`` (§2.1).  For a cell
``S = [a, a + L]``: ``S^{+d} = [a - d, a + L + d]``, ``S^{-d} = (a + d, a + L - d)``, so the
difference has measure ``4 d`` and::

    R_def5 = 4 delta_t / (L - 2 delta_t)

which is also the ratio Appendix B's proof uses.  §5 ("Rounding the result") instead states
that "the value defined in (5) is"::

    R_sec5 = (L + 2 delta_t) / (L - 2 delta_t) = lambda(S^{+delta_t}) / lambda(S^{-delta_t}) = 1 + R_def5

i.e. it divides the whole of ``S^{+delta_t}``, not the band ``S^{+} \\ S^{-}``, by ``S^{-}``.
The two disagree; both are computed.  ``R_sec5 > R_def5``, so ``eps'_sec5 > eps'_def5``:
§5's reading is never the tighter one and can never certify less than
``eps + ln(1 + e^(eps L/Delta_f')) > eps + ln 2``, however many bits are used.  An exact loss
above ``eps'_def5`` with all conditions met would refute Theorem 4.5 as proved; one between
the two would show that only §5's looser value is safe.  When ``L <= 2 delta_t`` both ratios
are infinite (``lambda(S^{-delta_t}) = 0``) and the theorem says nothing ("vacuous").

The error parameters of the k-bit textbook implementation
=========================================================

``delta_0`` (eq. (1): ``||n_0 - Id||_inf <= delta_0``).  ``[LAPF-u]`` computes
``u = j / 2^k`` exactly (a ``k``-bit integer times a power of two, ``k <= 53``): there is no
rounding of ``u`` at all, double or single.  The only error is the discretisation of the
uniform: the monotone (quantile) coupling sends ``U in ((j-1)/(2^k-1), j/(2^k-1)]`` to
``j / 2^k``, whose largest displacement is ``max_j max(j, 2^k - j) / (2^k (2^k - 1)) = 2^-k``
(at ``j = 1`` and ``j = 2^k - 1``).  In one dimension the monotone coupling attains the
infinity-Wasserstein distance, so **default ``delta_0 = 2^-k``** is the smallest valid value.

``delta_n`` (Condition 3: ``n'`` is ``(k, delta_n)``-close to ``n``) covers every double
operation between the exact uniform value and the released cell.  **Default** = the sum of

- *noise*: ``max_j |n'(j/2^k) - n(j/2^k)|`` over every draw, ``n'`` the real code
  (``[LAPF-noise]``: ``u - 1/2``, ``2|.|`` and ``1 - .`` are exact on the k-bit grid, so this
  is libm's ``log`` and one multiplication), ``n`` computed with mpmath at 96 bits plus a
  margin of ``2^-88`` relative to the largest ``|n|``; measured,
  so it is exact for this machine's libm rather than an assumed ulp bound;
- *addition*: ``[LAPF-add]`` rounds ``q + n'`` once, by at most ``ulp(max(|m|, |M|)) / 2``
  for every result that reaches the rounding step;
- *rounding*: ``[GZ-round]`` locates the cell with ``floor(fl(fl(x - m) / L))``; two roundings
  of relative size ``<= 2^-53`` move a cell boundary by at most
  ``(M - m)(2^-52 + 2^-106)``.  The paper's ``r`` is exact; this charges its float version
  to ``delta_n``.

Both can be overridden (``delta_0=``, ``delta_n=``) as exact rationals.

Conditions reported (Theorem 4.5 needs Conditions 1-3)
======================================================

- ``condition_1``: ``eps >= Delta_f'/b`` (Theorem 3.2).
- ``condition_2``: monotonicity of the implementation; checked as ``n'(j/2^k)``
  non-decreasing in ``j`` over every draw, which gives ``|n(u)| <= |n(v)| =>
  |n'(u)| <= |n'(v)|`` on the grid.
- ``queries_in_range``: ``m <= q, q' <= M``.  §5 takes ``U_r = {u | n(u) <= M - m}`` (sic:
  without the absolute value) and derives ``k`` there; that covers every draw that lands in
  ``M_r`` only if the query answer lies in ``M_r``, which §5 assumes without saying.  (Strictly,
  Condition 3 needs ``|n(u)| <= diam(M_r) + delta_t``; the factor ``e^(delta_t/b)`` this adds to
  ``k`` is ignored, as in §5.)
- ``step_exceeds_2_delta_t``: ``L > 2 delta_t``, without which the bound is vacuous.

Also noted, not used: Theorem 4.5 as extracted quantifies over ``S in S`` and ``A'`` (the
unrounded Mechanism 2), which no finite-precision implementation satisfies (Example 4.1);
the proof is about the rounded ``K`` and ``S in S'`` (eq. (4)), which is what is checked here.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv, libmp
from mpmath.libmp import to_rational

from dpverify.samplers import InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import shown
from dpverify.samplers.gazeau_unsafe import EXCEPTION, GazeauConfig, mechanism_unsafe
from dpverify.samplers.laplace_float_unsafe import noise_unsafe
from dpverify.specs._enclosure import enclose, iv_rational
from dpverify.verify.engine._results import fraction_text, json_number
from dpverify.verify.precision._float_exact import FloatPrivacy, float_pmf, float_privacy

__all__ = [
    "MAX_BITS",
    "PRIVACY_GAZEAU_SCHEMA",
    "BoundReading",
    "ComputationError",
    "computation_error",
    "default_delta_0",
    "epsilon_prime",
    "gazeau_privacy",
    "robustness_definition_5",
    "robustness_section_5",
    "section_5_lipschitz",
]

#: The ``schema`` field of :func:`gazeau_privacy`'s document (``dpverify privacy gazeau --json``).
PRIVACY_GAZEAU_SCHEMA = "dpverify.privacy-gazeau/1"

#: Largest ``bits`` enumerated: both inputs run the code ``2^bits - 1`` times (about 1 s per
#: 2^18 draws in CPython), so past this a query would run for minutes.
MAX_BITS = 24

#: Decimal digits of every interval enclosure (exp, ln in eps', the Lipschitz constant).
DIGITS = 30

#: Working precision (bits) of mpmath's value of the exact noise ``n(u)`` at each draw.
NOISE_BITS = 96

# Relative error of one IEEE double rounding to nearest.
_UNIT = Fraction(1, 2**53)


# --- the paper's formulas, exact where they can be ---------------------------------------


def default_delta_0(bits: int) -> Fraction:
    """``2^-k``: the infinity-Wasserstein distance from ``U(0, 1]`` to the uniform on
    ``{j / 2^k : 1 <= j <= 2^k - 1}`` (the quantile coupling; see the module docstring).

    >>> default_delta_0(16)
    Fraction(1, 65536)
    """
    return Fraction(1, 1 << bits)


#: The largest ``(upper - lower) / scale``: ``e`` to that power has about 1.44 times as many bits.
MAX_DIAMETER_OVER_SCALE = 10_000


def _upper_fraction(value: mpmath.mpf) -> Fraction:
    numerator, denominator = to_rational(value._mpf_)
    return Fraction(int(numerator), int(denominator))


def section_5_lipschitz(scale: Fraction, diameter: Fraction) -> Fraction:
    """An exact rational upper bound, within ``10^-30`` relative, of §5's
    ``dn_max = 2 b e^(diam(M_r) / b)`` (with ``b = Delta_f'/eps``).

    >>> float(section_5_lipschitz(Fraction(1), Fraction(4)))  # 2 e^4
    109.19630006628847
    """

    def compute() -> iv.mpf:  # rational inputs converted inside, at enclose's precision
        b = iv_rational(scale)
        return 2 * b * iv.exp(iv_rational(diameter) / b)

    _, high = enclose(compute, DIGITS)
    return _upper_fraction(high)


def robustness_definition_5(step: Fraction, delta_t: Fraction) -> Fraction | None:
    """Definition (5) for cells of length ``L``: ``4 delta_t / (L - 2 delta_t)``; None (infinite)
    when ``L <= 2 delta_t``.

    >>> robustness_definition_5(Fraction(1, 4), Fraction(1, 64))
    Fraction(2, 7)
    """
    if step <= 2 * delta_t:
        return None
    return 4 * delta_t / (step - 2 * delta_t)


def robustness_section_5(step: Fraction, delta_t: Fraction) -> Fraction | None:
    """The value §5 states for (5): ``(L + 2 delta_t) / (L - 2 delta_t)``; None when ``L <= 2 delta_t``.

    >>> robustness_section_5(Fraction(1, 4), Fraction(1, 64))
    Fraction(9, 7)
    """
    if step <= 2 * delta_t:
        return None
    return (step + 2 * delta_t) / (step - 2 * delta_t)


def epsilon_prime(
    epsilon: Fraction, sensitivity: Fraction, step: Fraction, delta_t: Fraction, robustness: Fraction | None
) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    """A rigorous enclosure ``(low, high)`` of Theorem 4.5's
    ``eps' = eps + ln(1 + R e^(eps (L + delta_t) / Delta_f'))``; None when ``R`` is infinite.

    >>> low, high = epsilon_prime(Fraction(1), Fraction(1), Fraction(1, 4), Fraction(1, 64), Fraction(2, 7))
    >>> round(float(low), 12)  # 1 + ln(1 + (2/7) e^(17/64))
    1.316737115672
    """
    if robustness is None:
        return None
    exponent = epsilon * (step + delta_t) / sensitivity
    r = robustness

    def compute() -> iv.mpf:  # rational inputs converted inside, at enclose's precision
        return iv_rational(epsilon) + iv.log(1 + iv_rational(r) * iv.exp(iv_rational(exponent)))

    return enclose(compute, DIGITS)


# --- delta_n of the k-bit textbook implementation ----------------------------------------


@dataclass(frozen=True, slots=True)
class ComputationError:
    """The parts of the default ``delta_n`` (module docstring), all exact rationals.

    ``noise`` is ``max_j |n'(j/2^k) - n(j/2^k)|`` over every draw (an upper bound: ``n`` from
    mpmath at :data:`NOISE_BITS` plus a margin), ``addition`` the rounding of ``q + n'``, ``rounding`` the float
    location of the cell; ``monotone`` says whether ``n'`` is non-decreasing in ``j``
    (Condition 2 on the grid).
    """

    noise: Fraction
    addition: Fraction
    rounding: Fraction
    monotone: bool

    @property
    def total(self) -> Fraction:
        return self.noise + self.addition + self.rounding


def computation_error(config: GazeauConfig) -> ComputationError:
    """Measure the float errors of ``config``'s code over every ``k``-bit draw."""
    k, b = config.bits, config.scale
    half = 1 << (k - 1)
    noise = [noise_unsafe(j, k, b) for j in range(1, 1 << k)]  # noise[j - 1]
    monotone = all(x <= y for x, y in zip(noise, noise[1:], strict=False))  # consecutive pairs
    # u = 1/2 (j = 2^(k-1)): sgn = 0, and the code returns a signed zero, exactly n(1/2).
    assert noise[half - 1] == 0.0, "the textbook noise at u = 1/2 is zero"
    worst = libmp.fzero
    scale = libmp.from_float(b)  # a double converts exactly
    for i in range(1, half):
        # u = i/2^k < 1/2 and u = (2^k - i)/2^k > 1/2 share v = 1 - 2|u - 1/2| = i/2^(k-1),
        # with n(u) = b ln v and -b ln v: compare b ln v with n' and -n' respectively.
        exact = libmp.mpf_mul(scale, libmp.mpf_log(libmp.from_man_exp(i, 1 - k), NOISE_BITS), NOISE_BITS)
        for computed in (noise[i - 1], -noise[(1 << k) - i - 1]):
            gap = libmp.mpf_abs(libmp.mpf_sub(libmp.from_float(computed), exact, NOISE_BITS, "u"))
            if libmp.mpf_gt(gap, worst):
                worst = gap
    # ``exact`` is b ln v to within a few ulps at NOISE_BITS; 2^-(NOISE_BITS - 8) relative to
    # the largest |n| (at v = 2^(1-k)) covers that with room to spare.
    largest = Fraction(b) * Fraction(k - 1) * Fraction(7, 10)  # ln 2 < 7/10
    noise_bound = _upper_fraction(mpmath.mp.make_mpf(worst)) + largest / 2 ** (NOISE_BITS - 8)
    reach = max(abs(config.lower), abs(config.upper))
    return ComputationError(
        noise=noise_bound,
        addition=Fraction(math.ulp(reach)) / 2,
        rounding=(Fraction(config.upper) - Fraction(config.lower)) * (2 * _UNIT + _UNIT * _UNIT),
        monotone=monotone,
    )


# --- the report ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoundReading:
    """Theorem 4.5's ``eps'`` under one reading of the robustness ratio ``R``.

    ``robustness`` and ``epsilon_prime`` are None when infinite (``L <= 2 delta_t``).
    ``verdict(exact)`` compares an enclosure of the exact loss with the bound: ``"holds"``,
    ``"contradicted"`` (exact > eps'), ``"vacuous"`` (eps' infinite) or ``"undecided"``
    (the enclosures overlap; never seen at 30 digits).
    """

    name: str
    robustness: Fraction | None
    epsilon_prime: tuple[mpmath.mpf, mpmath.mpf] | None

    def verdict(self, exact: tuple[mpmath.mpf, mpmath.mpf] | None) -> str:
        if self.epsilon_prime is None:
            return "vacuous"
        if exact is None or exact[0] > self.epsilon_prime[1]:
            return "contradicted"
        return "holds" if exact[1] <= self.epsilon_prime[0] else "undecided"

    def to_json(self, exact: tuple[mpmath.mpf, mpmath.mpf] | None) -> dict[str, Any]:
        return {
            "robustness": "Infinity" if self.robustness is None else float(self.robustness),
            "robustness_exact": "Infinity" if self.robustness is None else fraction_text(self.robustness),
            "epsilon_prime": "Infinity" if self.epsilon_prime is None else float(self.epsilon_prime[1]),
            "verdict": self.verdict(exact),
        }


def _double(name: str, value: object) -> float:
    """A float parameter of the code under audit: a number, or a string (``"0.25"``,
    ``"1e-3"``, or a rational such as ``"1/4"`` rounded to the nearest double)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction)):
        raise InvalidArgument(f'{name} must be a number such as 0.25 or "1/4"; got {name}={shown(value)}.')
    try:
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                return float(as_fraction(name, value))
        return float(value)
    except OverflowError:
        raise InvalidArgument(f"{name} must be a finite double; got {name}={shown(value)}, which overflows.") from None


def _exact_loss(loss: FloatPrivacy) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    if loss.ratio is None:
        return None
    ratio = loss.ratio
    return enclose(lambda: iv.log(iv_rational(ratio)), DIGITS)


def _output_json(output: Hashable) -> Hashable:
    return "exception" if output == EXCEPTION else output


def gazeau_privacy(
    scale: object,
    q: object,
    q_prime: object,
    bits: object,
    lower: object,
    upper: object,
    step: object,
    *,
    epsilon: object = None,
    delta_0: object = None,
    delta_n: object = None,
    sensitivity: object = None,
) -> dict[str, Any]:
    """The exact privacy loss of ``dpverify.samplers.gazeau_unsafe`` at ``bits`` bits between ``q``
    and ``q_prime``, next to Theorem 4.5's ``eps'`` under both readings of (5), as JSON.

    ``scale, q, q_prime, lower, upper, step`` are the doubles the code runs on (numbers, or
    strings rounded to the nearest double); ``bits`` is an integer in ``2 .. MAX_BITS``.
    ``sensitivity`` (default ``|q - q'|``, must be ``>= |q - q'|`` and ``> 0``), ``epsilon``
    (default ``sensitivity / scale``), ``delta_0`` (default ``2^-bits``) and ``delta_n``
    (default: measured, see the module docstring) are exact rationals (int, Fraction or
    ``"num/den"``).

    The main fields: ``exact_epsilon`` (float or ``"Infinity"``) and ``exact_ratio``
    (``"num/den"``: ``max_y P(y|q)/P(y|q')`` over both orders); ``witness`` (``output``, a grid
    double or ``"exception"``; ``j``, the first draw giving it from ``from_input``, the input
    under which it is *more* likely; ``counts``, its draw counts under ``q`` and ``q'``);
    ``delta_t`` (eq. (3)); ``robustness_*`` and ``epsilon_prime_*`` for both readings (floats,
    ``"Infinity"`` when ``L <= 2 delta_t``; ``bounds`` has exact ``R`` and each verdict);
    ``contradicted_readings`` (exact > eps'); ``conditions``; ``theorem_4_5_contradicted``
    (definition (5)'s bound contradicted while every condition holds);
    ``mechanism_epsilon`` (``Delta_f / b``).
    """
    k = as_int("bits", bits, low=2, high=MAX_BITS)
    config = GazeauConfig.create(
        scale=_double("scale", scale),
        bits=k,
        lower=_double("lower", lower),
        upper=_double("upper", upper),
        step=_double("step", step),
    )
    q1, q2 = _double("q", q), _double("q_prime", q_prime)
    for name, value in (("q", q1), ("q_prime", q2)):
        if not math.isfinite(value):
            raise InvalidArgument(f"{name} must be a finite number; got {name}={shown(value)}.")
    distance = abs(Fraction(q1) - Fraction(q2))
    delta_f = distance if sensitivity is None else as_fraction("sensitivity", sensitivity)
    if delta_f <= 0 or delta_f < distance:
        raise InvalidArgument(
            f"sensitivity must be > 0 and >= |q - q_prime| = {_as_float_text(distance)}; got sensitivity="
            f"{_as_float_text(delta_f)}. Pass q and q_prime that differ, or a larger sensitivity."
        )
    b, lo, hi, big_l = (Fraction(x) for x in (config.scale, config.lower, config.upper, config.step))
    mechanism_epsilon = delta_f / b
    eps = mechanism_epsilon if epsilon is None else as_fraction("epsilon", epsilon)
    if eps <= 0:
        raise InvalidArgument(f"epsilon must be > 0; got epsilon={shown(eps)}.")
    d0 = default_delta_0(k) if delta_0 is None else as_fraction("delta_0", delta_0)
    if d0 < 0:
        raise InvalidArgument(f"delta_0 must be >= 0; got delta_0={shown(d0)}.")
    measured = computation_error(config)
    dn = measured.total if delta_n is None else as_fraction("delta_n", delta_n)
    if dn < 0:
        raise InvalidArgument(f"delta_n must be >= 0; got delta_n={shown(dn)}.")

    if (hi - lo) / b > MAX_DIAMETER_OVER_SCALE:
        raise InvalidArgument(
            f"(upper - lower) / scale must be at most {MAX_DIAMETER_OVER_SCALE}, as section 5's bound "
            f"e^((upper - lower) / scale) is written out exactly; got lower={shown(config.lower)}, "
            f"upper={shown(config.upper)}, scale={shown(config.scale)}."
        )
    lipschitz = section_5_lipschitz(b, hi - lo)
    delta_t = lipschitz * d0 + dn  # eq. (3)
    readings = []
    for name, robustness_of in (("definition_5", robustness_definition_5), ("section_5", robustness_section_5)):
        robustness = robustness_of(big_l, delta_t)
        readings.append(BoundReading(name, robustness, epsilon_prime(eps, delta_f, big_l, delta_t, robustness)))

    draws = range(1, 1 << k)
    first = float_pmf(lambda j: mechanism_unsafe(q1, config, j), draws)
    second = float_pmf(lambda j: mechanism_unsafe(q2, config, j), draws)
    loss = float_privacy(first, second)
    exact = _exact_loss(loss)

    conditions = {
        "condition_1": eps >= mechanism_epsilon,
        "condition_2": measured.monotone,
        "queries_in_range": lo <= Fraction(q1) <= hi and lo <= Fraction(q2) <= hi,
        "step_exceeds_2_delta_t": big_l > 2 * delta_t,
    }
    conditions["all_hold"] = all(conditions.values())
    bounds = {reading.name: reading.to_json(exact) for reading in readings}
    contradicted = [name for name, bound in bounds.items() if bound["verdict"] == "contradicted"]
    return {
        "schema": PRIVACY_GAZEAU_SCHEMA,
        "mechanism": "gazeau",
        "parameters": {
            "scale": config.scale,
            "q": q1,
            "q_prime": q2,
            "bits": k,
            "lower": config.lower,
            "upper": config.upper,
            "step": config.step,
            "cells": config.cells,
            "sensitivity": fraction_text(delta_f),
            "epsilon": fraction_text(eps),
            "delta_0": fraction_text(d0),
            "delta_0_default": delta_0 is None,
            "delta_n": fraction_text(dn),
            "delta_n_default": delta_n is None,
        },
        "mechanism_epsilon": float(mechanism_epsilon),
        "draws": first.draws,
        "exact_epsilon": json_number(loss.epsilon) if exact is None else float(exact[1]),
        "exact_ratio": "Infinity" if loss.ratio is None else fraction_text(loss.ratio),
        "witness": {
            "output": _output_json(loss.output),
            "j": loss.draw,
            "from_input": loss.from_input,
            "counts": list(loss.counts),
        },
        "exception_counts": [first.counts.get(EXCEPTION, 0), second.counts.get(EXCEPTION, 0)],
        "lipschitz": float(lipschitz),
        "delta_n_measured": {
            "noise": float(measured.noise),
            "addition": float(measured.addition),
            "rounding": float(measured.rounding),
            "total": float(measured.total),
        },
        "delta_t": float(delta_t),
        "delta_t_exact": fraction_text(delta_t),
        "robustness_definition_5": bounds["definition_5"]["robustness"],
        "robustness_section_5": bounds["section_5"]["robustness"],
        "epsilon_prime_definition_5": bounds["definition_5"]["epsilon_prime"],
        "epsilon_prime_section_5": bounds["section_5"]["epsilon_prime"],
        "bounds": bounds,
        "contradicted_readings": contradicted,
        "conditions": conditions,
        "theorem_4_5_contradicted": conditions["all_hold"] and "definition_5" in contradicted,
    }


def _as_float_text(value: Fraction) -> str:
    """``value`` as the nearest double where one exists (the inputs are doubles), else exactly."""
    try:
        return shown(float(value))
    except OverflowError:  # |q - q'| of two finite doubles can exceed the largest double
        return shown(value, 60)
