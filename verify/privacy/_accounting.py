"""Privacy accounting of the discrete Gaussian: CKS20 Theorem 4 (zCDP) and Theorem 7 (tight DP).

Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020).
For ``Y ~ N_Z(0, sigma2)``, integer sensitivity ``D`` and ``eps >= 0`` (Theorem 7; formula
reconstructed from the paper, the extract we hold is sparse)::

    delta(eps) = P[Y > eps*sigma2/D - D/2] - e^eps * P[Y > eps*sigma2/D + D/2]
               = (T(m1) - e^eps T(m2)) / N,

with ``f(y) = e^(-y^2/(2 sigma2))``, ``N = sum_y f(y)``, the tail ``T(m) = sum_{y>=m} f(y)`` and
the exact integer thresholds ``m1, m2`` of
:meth:`dpverify.specs.noise.DiscreteGaussianApproxDpClaim.thresholds`.  ``rho = D^2/(2 sigma2)``
(Theorem 4) is exact.

Every quantity is a rigorous interval (``mpmath.iv``, outward rounding; see
:mod:`dpverify.specs.noise`) and every infinite sum carries an explicit bound on what it omits:

* ``N``: :func:`dpverify.specs.noise.dgauss_normaliser_interval` (direct sum or Poisson summation).
* ``T(m)``, ``m >= 1``, *direct* (:func:`_tail_direct`): ``sum_{j<K} f(m+j)`` plus
  ``[0, f(m+K) / (1 - e^(-(2(m+K)+1)/(2 sigma2)))]``: past ``m+K`` consecutive terms shrink by
  at least that ratio.  Used when ``K`` stays below :data:`DIRECT_MAX_TERMS`: for any
  ``sigma2`` once ``m/sigma2`` is not tiny, so ``sigma2 = 10^100, eps = 1`` costs a few hundred
  terms.
* ``T(m)``, ``m >= 1``, *Euler–Maclaurin* (:func:`_tail_euler_maclaurin`), for large
  ``sigma2`` where the direct sum would need too many terms::

      T(m) = int_m^oo f + f(m)/2 - sum_{k=1}^{p} B_2k/(2k)! f^(2k-1)(m) + R_p,
      |R_p| <= |B_2p|/(2p)! * int_m^oo |f^(2p)(x)| dx.

  Here ``f^(n)(x) = f(x) Q_n(x)``, ``Q_n(x) = (-1)^n sum_k (-1)^k c_nk x^(n-2k) / sigma2^(n-k)``
  with ``c_nk = n! / (k! (n-2k)! 2^k)`` (Hermite polynomials), so for ``x >= 0``
  ``|f^(n)(x)| <= f(x) sum_k c_nk x^(n-2k) / sigma2^(n-k)``, and with ``x = m + w``,
  ``f(x) = f(m) e^(-(2mw + w^2)/(2 sigma2))``::

      int_m^oo x^j f(x) dx <= f(m) * min( sum_i C(j,i) m^(j-i) M_i sigma^(i+1),
                                          sum_i C(j,i) m^(j-i) i! (sigma2/m)^(i+1) ),

  dropping ``e^(-mw/sigma2)`` resp. ``e^(-w^2/(2 sigma2))``; ``M_i = int_0^oo v^i e^(-v^2/2) dv``
  (``M_0 = sqrt(pi/2)``, ``M_1 = 1``, ``M_i = (i-1) M_(i-2)``).  The integral
  ``int_m^oo f = sigma G(m/sigma)``, ``G(x) = int_x^oo e^(-t^2/2) dt``, is enclosed by
  :func:`gaussian_upper_integral` (a positive series or Laplace's continued fraction, both with
  rigorous truncation).  At ``sigma2 = 10^100`` one or two correction terms suffice.
* ``T(m)`` for ``m <= 0`` is ``N - T(1 - m)`` (symmetry).

The difference ``T(m1) - e^eps T(m2)`` can cancel (for ``sigma2 = 10^100, eps = 1`` the two
terms agree to about 100 digits): the working precision doubles until the relative width of
``delta`` is at most ``10**-dps``, so the cancellation costs time, never correctness.

:func:`dgauss_delta_hockey_stick` computes the same ``delta`` independently as the hockey-stick
sum ``sum_z max(0, P(z) - e^eps P(z - D))`` over the integers, for moderate ``sigma2``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv, libmp

from dpverify.samplers import DpverifyError, InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import RationalLike, shown
from dpverify.specs._enclosure import (
    MAX_BITS,
    MAX_DPS,
    bits_for_digits,
    enclose,
    exp_neg,
    interval_precision,
    iv_rational,
    one_minus_exp_neg,
)
from dpverify.specs.noise import DiscreteGaussianSpec, dgauss_normaliser_interval
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text

__all__ = [
    "DELTA_DPS",
    "DIRECT_MAX_TERMS",
    "HOCKEY_STICK_MAX_SIGMA2",
    "MIN_DELTA_DIGITS",
    "PRIVACY_DGAUSS_SCHEMA",
    "check_dgauss_accounting",
    "decimal_enclosure",
    "dgauss_delta",
    "dgauss_delta_hockey_stick",
    "dgauss_privacy",
    "gaussian_upper_integral",
]

#: The ``schema`` field of :func:`dgauss_privacy`'s document (``dpverify privacy dgauss --json``).
PRIVACY_DGAUSS_SCHEMA = "dpverify.privacy-dgauss/1"
#: Most terms a direct tail sum may take before Euler–Maclaurin is used instead.
DIRECT_MAX_TERMS = 4_000
#: Largest ``sigma2`` for which :func:`dgauss_delta_hockey_stick` sums directly.
HOCKEY_STICK_MAX_SIGMA2 = 10**6
#: Largest number of outputs the hockey-stick sum may visit (guards huge sensitivities).
HOCKEY_STICK_MAX_TERMS = 500_000
#: Largest ``sigma2`` for which :func:`dgauss_privacy` adds the hockey-stick cross-check.
PRIVACY_HOCKEY_STICK_MAX_SIGMA2 = 10**4
#: Most outputs the hockey-stick cross-check of :func:`dgauss_privacy` may visit.
PRIVACY_HOCKEY_STICK_MAX_TERMS = 20_000
#: Digits of the ``delta`` enclosure :func:`dgauss_privacy` computes first.
DELTA_DPS = 40
#: The largest sigma2 ``dgauss_privacy`` certifies delta for: the working precision of the
#: Euler-Maclaurin tails grows with the exponents eps^2 sigma2 / 2 and m^2 / (2 sigma2), and past
#: 10^300 some (eps, sensitivity) run for minutes (10^300 takes 2 to 6 s on 2 cores, 7*10^700 with
#: eps = 1/3 and sensitivity 7 more than 15 s, 10^900 with eps = 1 more than 150 s).
PRIVACY_MAX_SIGMA2_DIGITS = 300
PRIVACY_MAX_SIGMA2 = 10**PRIVACY_MAX_SIGMA2_DIGITS
MAX_EPSILON = 10**4  #: the largest epsilon the delta functions take (e^10^4 has 14,427 bits)
#: Fewest certified significant digits :func:`dgauss_privacy` reports for ``delta``.
MIN_DELTA_DIGITS = 15
#: Euler–Maclaurin orders at which the remainder bound is evaluated (then every 64th); the
#: largest order tried is ``160 + prec // 16``.
_EM_CHECKPOINTS = frozenset({1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 160})


def _lower(value: iv.mpf) -> mpmath.mpf:
    return mpmath.mp.make_mpf(value._mpi_[0])


def _upper(value: iv.mpf) -> mpmath.mpf:
    return mpmath.mp.make_mpf(value._mpi_[1])


def _hull(a: iv.mpf, b: iv.mpf) -> iv.mpf:
    return iv.mpf([min(_lower(a), _lower(b)), max(_upper(a), _upper(b))])


def _small(bound: iv.mpf, value: iv.mpf, bits: int) -> bool:
    """``upper(bound) <= lower(value) * 2**-bits`` (a stopping rule, not part of any bound)."""
    return bool(_upper(bound) <= _lower(value) * mpmath.mpf(2) ** (-bits))


# --- the Gaussian tail integral ---------------------------------------------------------------------


def gaussian_upper_integral(x: iv.mpf) -> iv.mpf:
    """An enclosure of ``G(x) = int_x^oo e^(-t^2/2) dt`` for an interval ``x >= 0`` at the
    current ``mpmath.iv`` precision ``p``.

    * ``x^2 <= p/4``: ``G(x) = sqrt(pi/2) - e^(-x^2/2) S(x)`` with the positive series
      ``S(x) = sum_{n>=0} x^(2n+1) / (2n+1)!!`` (``int_0^x e^(-t^2/2) dt = e^(-x^2/2) S(x)``).
      Once ``2n+5 > 2x^2`` consecutive terms shrink by at least 1/2, so the omitted part is at
      most twice the first omitted term.  The subtraction loses about ``x^2 / (2 ln 2)`` bits,
      which are added to the working precision.
    * otherwise Laplace's continued fraction for the Mills ratio,
      ``G(x) = e^(-x^2/2) / (x + 1/(x + 2/(x + 3/(x + ...))))``: its partial numerators and
      denominators are positive, so consecutive convergents bracket the value; the number of
      levels doubles until two consecutive convergents agree to ``p`` bits.
    """
    p = iv.prec
    x_high = _upper(x)
    if x_high * x_high <= mpmath.mpf(p) / 4:
        extra = int(x_high * x_high * mpmath.mpf("0.73")) + 16
        with interval_precision(p + extra):
            x2 = x * x
            total = term = x
            n = 0
            threshold = mpmath.mpf(2) ** (-(p + extra))
            while True:
                term = term * x2 / (2 * n + 3)
                n += 1
                if 2 * n + 3 > 2 * x_high * x_high + 1 and _upper(term) <= _lower(total) * threshold:
                    break
                total = total + term
            return iv.sqrt(iv.pi / 2) - iv.exp(-x2 / 2) * (total + 2 * term * iv.mpf([0, 1]))
    levels = 32
    while True:
        previous, current = _mills_convergent(x, levels), _mills_convergent(x, levels + 1)
        ratio = _hull(previous, current)
        # Stop when the truncation (the gap between the two convergents), not the width
        # inherited from x, is below 2^-p of the value.
        with mpmath.workprec(p + 64):
            gap = abs(_lower(previous.mid) - _lower(current.mid))
        if gap <= _lower(ratio) * mpmath.mpf(2) ** (-p) or levels > 1 << 16:
            return iv.exp(-x * x / 2) * ratio
        levels *= 2


def _mills_convergent(x: iv.mpf, levels: int) -> iv.mpf:
    """``1/(x + 1/(x + 2/(x + ... levels/x)))``, evaluated from the bottom up."""
    t = x
    for k in range(levels, 0, -1):
        t = x + k / t
    return 1 / t


# --- tails of the discrete Gaussian -----------------------------------------------------------------


def _direct_terms(m: int, sigma2: Fraction, bits: int) -> int:
    """``K`` with ``f(m+K) / f(m) <= 2^-(bits+8)`` allowing for the geometric factor:
    ``(2mK + K^2) / (2 sigma2) >= 0.7 (bits + 8 + log2(1 + sigma2/m))``."""
    budget = Fraction(7, 10) * (bits + 8 + math.ceil(sigma2 / m).bit_length())
    return _isqrt_ceil(m * m + math.ceil(2 * sigma2 * budget)) - m + 1


def _isqrt_ceil(n: int) -> int:
    root = math.isqrt(n)
    return root if root * root == n else root + 1


def _tail_direct(m: int, sigma2: Fraction, terms: int) -> iv.mpf:
    """``T(m)`` for ``m >= 1``: ``sum_{j<K} f(m+j)`` by the ratio recurrence
    ``f(y+1) = f(y) e^(-(2y+1)/(2 sigma2))``, plus ``[0, f(y) / (1 - e^(-(2y+1)/(2 sigma2)))]``
    for the rest from ``y = m+K`` on (more chunks of terms if that is not yet small)."""
    p = iv.prec
    term = exp_neg(Fraction(m * m) / (2 * sigma2))
    ratio = exp_neg(Fraction(2 * m + 1) / (2 * sigma2))
    step = exp_neg(1 / sigma2)
    total, y = iv.mpf(0), m
    while True:
        for _ in range(terms):
            total += term
            term *= ratio
            ratio *= step
        y += terms
        bound = term / one_minus_exp_neg(Fraction(2 * y + 1) / (2 * sigma2))
        if _small(bound, total, p) or y - m >= 4 * DIRECT_MAX_TERMS:
            return total + bound * iv.mpf([0, 1])


def _tail_euler_maclaurin(m: int, sigma2: Fraction) -> iv.mpf:
    """``T(m)`` for ``m >= 1`` by the Euler–Maclaurin formula with the remainder bound of the
    module docstring; the order ``p`` grows until the bound is below ``2^-prec`` of the value
    (or the smallest bound found so far is used)."""
    prec = iv.prec
    s = iv_rational(sigma2)
    sigma = iv.sqrt(s)
    M = iv.mpf(m)
    u, w = M / s, 1 / s  # Q_n(m) = (-1)^n sum_k (-1)^k c_nk u^(n-2k) w^k
    f_m = iv.exp(-iv_rational(Fraction(m * m) / (2 * sigma2)))
    total = sigma * gaussian_upper_integral(M / sigma) + f_m / 2

    u_powers, w_powers = [iv.mpf(1)], [iv.mpf(1)]

    def power(powers: list[iv.mpf], base: iv.mpf, n: int) -> iv.mpf:
        while len(powers) <= n:
            powers.append(powers[-1] * base)
        return powers[n]

    # J_j >= int_0^oo (m+w)^j e^(-(2mw+w^2)/(2 sigma2)) dw, the smaller of the two bounds
    m_powers, sigma_powers, ratio_powers = [iv.mpf(1)], [iv.mpf(1)], [iv.mpf(1)]
    inverse_u = s / M
    half_moments = [iv.sqrt(iv.pi / 2), iv.mpf(1)]  # M_i = int_0^oo v^i e^(-v^2/2) dv
    moments: dict[int, iv.mpf] = {}

    def moment_bound(j: int) -> iv.mpf:
        if j not in moments:
            gauss = expo = iv.mpf(0)
            for i in range(j + 1):
                weight = math.comb(j, i) * power(m_powers, M, j - i)
                while len(half_moments) <= i:
                    half_moments.append((len(half_moments) - 1) * half_moments[-2])
                gauss += weight * half_moments[i] * power(sigma_powers, sigma, i + 1)
                expo += weight * math.factorial(i) * power(ratio_powers, inverse_u, i + 1)
            moments[j] = gauss if _upper(gauss) <= _upper(expo) else expo
        return moments[j]

    best: tuple[mpmath.mpf, iv.mpf] | None = None
    for order in range(1, 160 + prec // 16 + 1):
        n = 2 * order - 1
        numerator, denominator = mpmath.bernfrac(2 * order)
        coefficient = iv_rational(Fraction(int(numerator), int(denominator) * math.factorial(2 * order)))
        q = iv.mpf(0)
        for k in range(n // 2 + 1):
            c = math.factorial(n) // (math.factorial(k) * math.factorial(n - 2 * k) * 2**k)
            piece = c * power(u_powers, u, n - 2 * k) * power(w_powers, w, k)
            q = q + piece if k % 2 == 0 else q - piece
        total = total + coefficient * f_m * q  # -B/(2k)! * f^(n)(m) with f^(n) = -f * sum(...)
        if order not in _EM_CHECKPOINTS and (order < 160 or order % 64):
            continue
        n2 = 2 * order
        numerator, denominator = mpmath.bernfrac(n2)
        factor = iv_rational(Fraction(abs(int(numerator)), int(denominator) * math.factorial(n2)))
        derivative_integral = iv.mpf(0)
        for k in range(order + 1):
            c = math.factorial(n2) // (math.factorial(k) * math.factorial(n2 - 2 * k) * 2**k)
            derivative_integral += c * power(w_powers, w, n2 - k) * moment_bound(n2 - 2 * k)
        bound = factor * f_m * derivative_integral
        if best is None or _upper(bound) < best[0]:
            best = (_upper(bound), total + bound * iv.mpf([-1, 1]))
        elif _upper(bound) > 4 * best[0]:
            break  # the asymptotic series has started to diverge: keep the best order found
        if _small(bound, total, prec):
            break
    assert best is not None
    return best[1]


def _tail(m: int, sigma2: Fraction, normaliser: iv.mpf) -> tuple[iv.mpf, str]:
    """``T(m) = sum_{y>=m} e^(-y^2/(2 sigma2))`` for any integer ``m``, and the method used."""
    if m <= 0:
        upper_tail, method = _tail(1 - m, sigma2, normaliser)
        return normaliser - upper_tail, method
    terms = _direct_terms(m, sigma2, iv.prec)
    if terms <= DIRECT_MAX_TERMS:
        return _tail_direct(m, sigma2, terms), "direct"
    return _tail_euler_maclaurin(m, sigma2), "euler-maclaurin"


# --- Theorem 7 ----------------------------------------------------------------------------------------


def _epsilon(value: object) -> Fraction:
    number = as_fraction("epsilon", value)
    if number < 0:
        raise InvalidArgument(
            f'epsilon must be a rational >= 0; got epsilon={shown(number)}. Pass it as "num/den", e.g. "1/2".'
        )
    if number > MAX_EPSILON:
        raise InvalidArgument(f"epsilon must be at most {MAX_EPSILON}; got epsilon={shown(number)}.")
    return number


def _dps(value: object) -> int:
    return as_int("dps", value, low=1, high=MAX_DPS)


def _theorem7(spec: DiscreteGaussianSpec, eps: Fraction, dps: int) -> tuple[mpmath.mpf, mpmath.mpf, dict[str, str]]:
    sigma2, D = spec.sigma2, spec.sensitivity
    m1, m2 = spec.approx_dp_claim().thresholds(eps)
    methods: dict[str, str] = {}

    def compute() -> iv.mpf:
        normaliser, methods["normaliser"] = dgauss_normaliser_interval(sigma2)
        tail1, method1 = _tail(m1, sigma2, normaliser)
        tail2, method2 = _tail(m2, sigma2, normaliser)
        methods["tails"] = method1 if method1 == method2 else f"{method1}+{method2}"
        delta = (tail1 - iv.exp(iv_rational(eps)) * tail2) / normaliser
        return delta if _lower(delta) >= 0 else iv.mpf([0, _upper(delta)])  # delta >= 0 always

    # Bits lost to huge exponents (e^(-m^2/(2 sigma2)) needs log2 of the exponent) and to the
    # cancellation, roughly log2(1/g) with g = D(2 m1 + D)/(2 sigma2) - eps > 0.
    gap = Fraction(D * (2 * m1 + D)) / (2 * sigma2) - eps
    extra = (
        math.ceil(Fraction(m2 * m2) / (2 * sigma2)).bit_length()
        + math.ceil(eps).bit_length()
        + max(0, gap.denominator.bit_length() - gap.numerator.bit_length())
    )
    low, high = enclose(compute, dps, extra_bits=extra)
    return low, high, methods


def dgauss_delta(
    sigma2: RationalLike, epsilon: RationalLike, sensitivity: object = 1, dps: int = 40
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """A rigorous enclosure ``(low, high)`` of CKS20 Theorem 7's tight ``delta(epsilon)`` for
    ``N_Z(0, sigma2)`` noise and integer sensitivity, relative width ``<= 10**-dps``.

    ``sigma2 > 0`` and ``epsilon >= 0`` are exact rationals (floats refused), ``sensitivity`` an
    integer ``>= 1``.  Any ``sigma2`` up to ``10**300``: tails by Euler–Maclaurin or a short direct sum.

    >>> low, high = dgauss_delta(1, 1, dps=20)
    >>> mpmath.nstr(low, 15), mpmath.nstr(high, 15)
    ('0.141351339405622', '0.141351339405622')
    """
    spec = DiscreteGaussianSpec.create(sigma2, sensitivity)
    if spec.sigma2 > PRIVACY_MAX_SIGMA2:  # past it Theorem 7's tails need precisions that run for minutes
        raise InvalidArgument(
            f"sigma2 must be in (0, 10^{PRIVACY_MAX_SIGMA2_DIGITS}]; got sigma2={shown(spec.sigma2)}."
        )
    low, high, _ = _theorem7(spec, _epsilon(epsilon), _dps(dps))
    return low, high


def _hockey_stick_top(sigma2: Fraction, eps: Fraction, D: int) -> int:
    """The largest ``z`` with ``P(z) > e^eps P(z - D)``, i.e. with ``z < D/2 - eps*sigma2/D``."""
    return math.ceil(Fraction(D, 2) - eps * sigma2 / D) - 1


def _hockey_stick_terms(sigma2: Fraction, eps: Fraction, D: int, dps: int) -> int:
    """About how many outputs the hockey-stick sum visits: from the top down past ``z = 0`` to
    where ``e^(-z^2/(2 sigma2))`` drops below ``2^-(bits+80)``."""
    spread = _isqrt_ceil(math.ceil(2 * sigma2 * Fraction(7, 10) * (bits_for_digits(dps) + 80)))
    return max(_hockey_stick_top(sigma2, eps, D), 0) + spread


def dgauss_delta_hockey_stick(
    sigma2: RationalLike, epsilon: RationalLike, sensitivity: object = 1, dps: int = 40
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``delta(epsilon) = sum_z max(0, P(z) - e^eps P(z - D))`` summed directly over the
    integers: the definition of the tightest ``delta`` for the neighbours ``q = 0, q' = D``,
    independent of Theorem 7's tail formula; used to cross-check :func:`dgauss_delta`.

    The sign of each term is decided exactly: ``P(z) > e^eps P(z - D)`` iff
    ``x(z) = (D^2 - 2zD)/(2 sigma2) - eps > 0``, i.e. ``z < D/2 - eps*sigma2/D``; there the term is
    ``e^(-z^2/(2 sigma2)) (1 - e^(-x(z))) / N``.  The sum runs down from the largest such ``z``;
    the omitted terms ``z' <= z <= -1`` are at most ``sum_{y >= -z} f(y) / N``, bounded as in
    the direct tail sum.  Refuses ``sigma2 > 10^6`` (InvalidArgument): use :func:`dgauss_delta`.

    >>> low, high = dgauss_delta_hockey_stick(1, 1, dps=20)
    >>> mpmath.nstr(low, 15)
    '0.141351339405622'
    """
    spec = DiscreteGaussianSpec.create(sigma2, sensitivity)
    eps, dps_ = _epsilon(epsilon), _dps(dps)
    sigma2_, D = spec.sigma2, spec.sensitivity
    if sigma2_ > HOCKEY_STICK_MAX_SIGMA2:
        raise InvalidArgument(
            f"sigma2 must be <= 10^6 for a direct hockey-stick sum; got sigma2={sigma2_}. "
            "Use dgauss_delta (CKS20 Theorem 7) instead."
        )
    top = _hockey_stick_top(sigma2_, eps, D)
    if _hockey_stick_terms(sigma2_, eps, D, dps_) > HOCKEY_STICK_MAX_TERMS:
        raise InvalidArgument(
            f"sensitivity must be at most about {2 * HOCKEY_STICK_MAX_TERMS} for a direct hockey-stick sum; "
            f"got sensitivity={D}. Use dgauss_delta (CKS20 Theorem 7) instead."
        )

    def compute() -> iv.mpf:
        p = iv.prec
        normaliser, _ = dgauss_normaliser_interval(sigma2_)
        total, z = iv.mpf(0), top
        while True:
            x = Fraction(D * D - 2 * z * D) / (2 * sigma2_) - eps
            total += iv.exp(-iv_rational(Fraction(z * z) / (2 * sigma2_))) * one_minus_exp_neg(x)
            z -= 1
            if z <= -1 and (top - z) % 16 == 0:
                y = -z  # omitted: z' <= z, i.e. sum_{y' >= y} f(y')
                first = iv.exp(-iv_rational(Fraction(y * y) / (2 * sigma2_)))
                bound = first / one_minus_exp_neg(Fraction(2 * y + 1) / (2 * sigma2_))
                if _small(bound, total, p) or top - z > 2 * HOCKEY_STICK_MAX_TERMS:
                    return (total + bound * iv.mpf([0, 1])) / normaliser

    extra = math.ceil(Fraction(top * top) / (2 * sigma2_)).bit_length() + math.ceil(eps).bit_length()
    return enclose(compute, dps_, extra_bits=extra)


# --- decimal output -------------------------------------------------------------------------------------


def _scientific(x: mpmath.mpf, digits: int) -> tuple[int, int, int]:
    """``(low, high, E)`` for an exact ``x > 0``: ``E = floor(log10 x)`` and ``digits``-digit
    integers with ``low * 10^(E-digits+1) <= x < (high + 1) * 10^(E-digits+1)`` (both are the
    truncated mantissa when the enclosure is narrow enough).  Works for any exponent, e.g.
    ``x ~ 10^(-10^99)``."""
    raw = x._mpf_
    sign, man, exp, bc = raw
    if sign or not man:
        raise AssertionError(f"_scientific needs x > 0, got {x}")
    if exp >= 0:  # an integer: exact
        text = str(int(man) << exp)
        mantissa = int((text + "0" * digits)[:digits])
        return mantissa, mantissa, len(text) - 1
    precision = bits_for_digits(digits) + 64 + bc + abs(exp + bc).bit_length()
    for _ in range(4):
        with interval_precision(precision):
            log_x = iv.log(iv.mpf(x))
            log_10 = iv.log(iv.mpf(10))
            ratio = log_x / log_10
            E = libmp.to_int(ratio._mpi_[0], "f")
            if E == libmp.to_int(ratio._mpi_[1], "f"):
                mantissa = iv.exp(log_x - (E - digits + 1) * log_10)
                low = max(libmp.to_int(mantissa._mpi_[0], "f"), 10 ** (digits - 1))
                high = min(libmp.to_int(mantissa._mpi_[1], "f"), 10**digits - 1)
                return low, high, E
        precision *= 2
    raise DpverifyError(f"could not place {x} between two powers of ten; report this as a bug.")


def _text(mantissa: int, E: int) -> str:
    """``d.ddd...eE`` for a mantissa integer and a decimal exponent."""
    digits = str(mantissa)
    return f"{digits[0]}.{digits[1:]}e{E}" if len(digits) > 1 else f"{digits}e{E}"


def decimal_enclosure(low: mpmath.mpf, high: mpmath.mpf, digits: int) -> tuple[str, int, str, str]:
    """Decimal text for an enclosure ``0 <= low <= v <= high``:
    ``(rounded, n, low_text, high_text)``.

    ``rounded`` is ``v`` rounded to ``n`` significant digits, certified:
    ``|v - rounded| <= 1/2 * 10^(E-n+1)`` for its decimal exponent ``E`` (so it is the correctly
    rounded value unless ``v`` sits exactly on a tie); ``n <= digits`` is the largest count the
    enclosure certifies (``0`` and ``""`` if none).  ``low_text <= low`` and
    ``high_text >= high`` have ``digits + 3`` digits, rounded outward.
    """
    width = digits + 3
    _, high_mantissa, E = _scientific(high, width)
    bound = high_mantissa + 1  # high < bound * unit, unit = 10^(E - width + 1)
    if low > 0:
        low_mantissa, _, low_E = _scientific(low, width)
        floor_units = low_mantissa // 10 ** (E - low_E)  # low >= floor_units * unit
        low_text = _text(low_mantissa, low_E)
    else:
        floor_units, low_text = 0, "0"
    bound_text = _text(10 ** (width - 1), E + 1) if bound == 10**width else _text(bound, E)
    for n in range(digits, 0, -1):
        scale = 10 ** (width - n)
        nearest = (floor_units + bound + scale) // (2 * scale)  # round the midpoint, in n-digit units
        if (2 * nearest - 1) * scale <= 2 * floor_units and 2 * bound <= (2 * nearest + 1) * scale:
            if nearest == 0:
                break
            if nearest == 10**n:
                return _text(10 ** (n - 1), E + 1), n, low_text, bound_text
            return _text(nearest, E), len(str(nearest)), low_text, bound_text
    return "", 0, low_text, bound_text


# --- the privacy report -----------------------------------------------------------------------------


def dgauss_privacy(sigma2: RationalLike, epsilon: RationalLike, sensitivity: object = 1) -> dict[str, Any]:
    """What ``dpverify privacy dgauss --sigma2 S --epsilon E --sensitivity D --json`` prints.

    Keys: ``schema`` (``PRIVACY_DGAUSS_SCHEMA``), ``mechanism`` (``"discrete_gaussian"``),
    ``parameters`` (exact strings), ``rho``
    (``"num/den"``, CKS20 Theorem 4), ``delta`` (CKS20 Theorem 7's delta as a decimal string
    ``"d.ddd...eE"`` rounded to ``delta_digits >= 15`` significant digits and certified by the
    enclosure: ``|delta - true delta| <= 1/2`` unit in its last digit), ``delta_digits``,
    ``delta_interval`` (``[low, high]`` decimal strings rounded outward, relative width
    ``<= 10^-dps``), ``dps``, ``method`` / ``tail_method`` / ``normaliser_method`` (how ``delta``
    was computed), ``theorem``, ``delta_hockey_stick`` (the independent direct sum, rounded the
    same way, or None when skipped), ``delta_hockey_stick_interval``, ``hockey_stick_agrees``
    (the two enclosures overlap; None when skipped) and ``hockey_stick_skipped`` (the reason, or
    None).  ``epsilon`` and ``sigma2`` are exact rationals (``"1/10^6"`` and ``"10^100"`` work;
    floats refused).

    >>> report = dgauss_privacy(1, 1)
    >>> report["delta"][:22], report["rho"], report["hockey_stick_agrees"]
    ('1.41351339405621908099', '1/2', True)
    """
    spec = DiscreteGaussianSpec.create(sigma2, sensitivity)
    if spec.sigma2 > PRIVACY_MAX_SIGMA2:
        raise InvalidArgument(
            f"sigma2 must be in (0, 10^{PRIVACY_MAX_SIGMA2_DIGITS}] to certify delta(epsilon); got sigma2="
            f"{shown(sigma2)}: past it the tails of Theorem 7 need thousands of bits and run for minutes "
            "(dgauss_delta takes any sigma2, without a time bound)."
        )
    eps = _epsilon(epsilon)
    dps = DELTA_DPS
    while True:
        low, high, methods = _theorem7(spec, eps, dps)
        rounded, digits, low_text, high_text = decimal_enclosure(low, high, dps)
        if digits >= MIN_DELTA_DIGITS:
            break
        if dps >= 8 * DELTA_DPS:
            raise DpverifyError(
                f"could not certify {MIN_DELTA_DIGITS} digits of delta for sigma2={spec.sigma2}, "
                f"epsilon={eps} within the working-precision cap of {MAX_BITS} bits; "
                "the enclosure is still valid: use dgauss_delta for it."
            )
        dps *= 2
    report: dict[str, Any] = {
        "schema": PRIVACY_DGAUSS_SCHEMA,
        "mechanism": "discrete_gaussian",
        "parameters": {
            "sigma2": fraction_text(spec.sigma2),
            "epsilon": fraction_text(eps),
            "sensitivity": str(spec.sensitivity),
        },
        "rho": fraction_text(spec.zcdp_claim().rho),
        "delta": rounded,
        "delta_digits": digits,
        "delta_interval": [low_text, high_text],
        "dps": dps,
        "method": "CKS20 Theorem 7: delta = P[Y > eps*sigma2/D - D/2] - e^eps * P[Y > eps*sigma2/D + D/2]",
        "tail_method": methods["tails"],
        "normaliser_method": methods["normaliser"],
        "theorem": {"rho": "CKS20 Theorem 4", "delta": "CKS20 Theorem 7"},
        "delta_hockey_stick": None,
        "delta_hockey_stick_interval": None,
        "hockey_stick_agrees": None,
        "hockey_stick_skipped": None,
    }
    if spec.sigma2 > PRIVACY_HOCKEY_STICK_MAX_SIGMA2:
        report["hockey_stick_skipped"] = "sigma2 > 10^4: a direct sum over the integers would be slow"
        return report
    if _hockey_stick_terms(spec.sigma2, eps, spec.sensitivity, dps) > PRIVACY_HOCKEY_STICK_MAX_TERMS:
        report["hockey_stick_skipped"] = (
            f"more than {PRIVACY_HOCKEY_STICK_MAX_TERMS} outputs to sum (large sensitivity): too slow"
        )
        return report
    try:
        hs_low, hs_high = dgauss_delta_hockey_stick(spec.sigma2, eps, spec.sensitivity, dps)
    except InvalidArgument as error:
        report["hockey_stick_skipped"] = str(error)
        return report
    hs_rounded, _, hs_low_text, hs_high_text = decimal_enclosure(hs_low, hs_high, dps)
    report["delta_hockey_stick"] = hs_rounded
    report["delta_hockey_stick_interval"] = [hs_low_text, hs_high_text]
    report["hockey_stick_agrees"] = bool(hs_low <= high and low <= hs_high)
    return report


def check_dgauss_accounting(spec: DiscreteGaussianSpec, epsilon: RationalLike) -> CheckResult:
    """Theorem 7's delta(epsilon) against the independent hockey-stick sum, as a check.

    ``proved`` when the two rigorous enclosures overlap (they agree to their precision),
    ``violated`` when they are disjoint (the theorem as implemented or the PMF is wrong),
    ``inconclusive`` when the direct sum was too large to run.
    """
    report = dgauss_privacy(spec.sigma2, epsilon, spec.sensitivity)
    evidence = {
        key: report[key]
        for key in ("parameters", "rho", "delta", "delta_interval", "delta_hockey_stick", "delta_hockey_stick_interval")
    }
    where = f"epsilon={report['parameters']['epsilon']}: Theorem 7 delta={_short(report['delta'])}"
    if report["hockey_stick_agrees"] is None:
        reason = report["hockey_stick_skipped"]
        return CheckResult(
            "accounting",
            Verdict.INCONCLUSIVE,
            f"{where}; cross-check skipped: {reason}",
            reason=reason,
            evidence=evidence,
        )
    if report["hockey_stick_agrees"]:
        return CheckResult(
            "accounting",
            Verdict.PROVED,
            f"{where} equals the hockey-stick sum within both enclosures",
            evidence=evidence,
        )
    return CheckResult(
        "accounting",
        Verdict.VIOLATED,
        f"{where} but the hockey-stick sum gives {_short(report['delta_hockey_stick'])}",
        evidence=evidence,
    )


def _short(decimal: str, digits: int = 12) -> str:
    """A long certified decimal ``"d.dddd...e-X"`` cut to ``digits`` significant digits for a summary."""
    mantissa, _, exponent = decimal.partition("e")
    return mantissa[: digits + 1] + (f"e{exponent}" if exponent else "")
