"""Specs of the exact noise samplers: Bernoulli(exp(-gamma)), discrete Laplace, discrete Gaussian.

Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020;
arXiv:2004.00010), "CKS20" below: Algorithm 1 (Bernoulli(exp(-gamma))), Algorithm 2 (discrete
Laplace), Algorithm 3 (discrete Gaussian), Theorem 4 (zCDP) and Theorem 7 (tight approximate
DP).  The probabilities are irrational, so each spec gives them as a SymPy expression in an
output symbol (:data:`Z` for the integers, :data:`B` for the Bernoulli's 0/1) and as rigorous
enclosures ``low <= P(x) <= high``.

How an enclosure is made rigorous.  Every value is computed in mpmath's interval context
``mpmath.iv``, whose operations round outward, so the computed interval contains the exact value
of the expression evaluated; every infinite sum is cut off with an *explicit* bound on the
omitted part (written next to each sum), added as an interval ``[0, bound]``; parameters enter
as exact rationals ``num/den`` turned into intervals (never through a float).  The working
precision starts ``GUARD_BITS`` above the requested one and doubles until the relative width is
at most ``10**-dps`` (or the cap ``MAX_BITS`` is reached; the result is then still an
enclosure, only wider); the endpoints are finally rounded outward to ``dps`` digits plus a few
bits.  The remaining trust is in mpmath's outward rounding of ``exp``, ``log``, ``sqrt`` and
``pi`` in ``mpmath.iv``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from math import isqrt

import mpmath
import sympy
from mpmath import iv

from dpverify.samplers import InvalidArgument, RandomSource, as_fraction, as_int
from dpverify.samplers import discrete_gaussian as _dgauss_sampler
from dpverify.samplers import discrete_laplace as _dlap_sampler
from dpverify.samplers._rational import RationalLike
from dpverify.samplers._rational import shown as _shown
from dpverify.samplers.bernoulli import bernoulli_exp
from dpverify.specs._enclosure import MAX_DPS, enclose, exp_neg, iv_rational, one_minus_exp_neg
from dpverify.specs._noise import NoiseSpec
from dpverify.specs._pmf import exact_text

__all__ = [
    "B",
    "EPSILON",
    "Z",
    "BernoulliExpSpec",
    "DiscreteGaussianApproxDpClaim",
    "DiscreteGaussianSpec",
    "DiscreteLaplaceSpec",
    "PureEpsilonClaim",
    "ZcdpClaim",
    "dgauss_normaliser_interval",
]

#: Output symbol of the integer-valued samplers (discrete Laplace, discrete Gaussian).
Z = sympy.Symbol("z", integer=True)
#: Output symbol of Bernoulli(exp(-gamma)): ``b = 1`` stands for True, ``b = 0`` for False.
B = sympy.Symbol("b", integer=True, nonnegative=True)
#: The privacy parameter epsilon in :meth:`DiscreteGaussianApproxDpClaim.delta_expr`.
EPSILON = sympy.Symbol("epsilon", nonnegative=True)
_Y = sympy.Symbol("y", integer=True)  # summation variable of the Gaussian normaliser

#: Largest output (in bits) an enclosure is computed for; past it the exponent alone needs
#: thousands of digits and the enclosure runs for minutes.
MAX_OUTPUT_BITS = 4096


def _dps(dps: object) -> int:
    return as_int("dps", dps, low=1, high=MAX_DPS)


def _integer_output(output: Hashable) -> int:
    if isinstance(output, bool) or not isinstance(output, int):
        raise InvalidArgument(f"output must be an integer; got output={_shown(output)} ({type(output).__name__}).")
    if output.bit_length() > MAX_OUTPUT_BITS:
        raise InvalidArgument(
            f"output must have at most {MAX_OUTPUT_BITS} bits (|output| < 2^{MAX_OUTPUT_BITS}); "
            f"got output={_shown(output)}. Ask about a smaller output."
        )
    return output


def _rng(rng: object) -> RandomSource:
    """``rng`` if it is a RandomSource (the only way a sampler may draw), else InvalidArgument."""
    if not isinstance(rng, RandomSource):
        raise InvalidArgument(
            f"rng must be a dpverify.samplers.RandomSource; got rng={_shown(rng)} ({type(rng).__name__})."
        )
    return rng


def _sensitivity(value: object) -> int:
    return as_int("sensitivity", value, low=1)


def _positive(name: str, value: object) -> Fraction:
    number = as_fraction(name, value)
    if number <= 0:
        raise InvalidArgument(f'{name} must be a rational > 0; got {name}={_shown(number)}. Pass it as "num/den".')
    return number


def _non_negative(name: str, value: object) -> Fraction:
    number = as_fraction(name, value)
    if number < 0:
        raise InvalidArgument(
            f'{name} must be a rational >= 0; got {name}={_shown(number)}. Pass it as "num/den", e.g. "1/2".'
        )
    return number


def _check_range(limit: int) -> tuple[int, ...]:
    """``-R..R`` with ``R`` clamped to ``[3, 100]`` (at most 201 outputs)."""
    radius = max(3, min(100, limit))
    return tuple(range(-radius, radius + 1))


# --- claims ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PureEpsilonClaim:
    """Pure ``epsilon``-DP of ``M(q) = q + Z`` over integer inputs ``q`` with an exact rational
    ``epsilon``.

    Neighbours: ``|q - q'| <= sensitivity``.  Claim: for all neighbours and every integer ``x``,
    ``e^(-epsilon) <= P(x | q) / P(x | q') <= e^(epsilon)``; for additive noise this is
    ``e^(-epsilon) <= P(z) / P(z') <= e^(epsilon)`` whenever ``|z - z'| <= sensitivity``.
    Unlike :class:`~dpverify.specs.PureDpClaim` the ratio bound ``e^(-epsilon)`` is irrational, so the
    claim is stated by its rational exponent.

    >>> PureEpsilonClaim(Fraction(2), 1)
    PureEpsilonClaim(epsilon=Fraction(2, 1), sensitivity=1)
    """

    epsilon: Fraction
    sensitivity: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _non_negative("epsilon", self.epsilon))
        object.__setattr__(self, "sensitivity", _sensitivity(self.sensitivity))


@dataclass(frozen=True, slots=True)
class ZcdpClaim:
    """``rho``-zero-concentrated DP (Bun–Steinke 2016) of ``M(q) = q + Y`` over integer inputs.

    Neighbours: ``|q - q'| <= sensitivity``.  Claim: for every Rényi order ``alpha > 1``,
    ``D_alpha(M(q) || M(q')) <= rho * alpha``.  For the discrete Gaussian CKS20 Theorem 4 gives
    ``rho = sensitivity**2 / (2 sigma2)``, the same as the continuous Gaussian.

    >>> ZcdpClaim(Fraction(1, 2), 1).rho
    Fraction(1, 2)
    """

    rho: Fraction
    sensitivity: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", _positive("rho", self.rho))
        object.__setattr__(self, "sensitivity", _sensitivity(self.sensitivity))


@dataclass(frozen=True, slots=True)
class DiscreteGaussianApproxDpClaim:
    """``(epsilon, delta(epsilon))``-DP for every ``epsilon >= 0`` of ``M(q) = q + Y``,
    ``Y ~ N_Z(0, sigma2)``, integer ``q`` with ``|q - q'| <= sensitivity = D`` (CKS20 Theorem 7,
    tight: no smaller ``delta`` holds for that ``epsilon``)::

        delta(eps) = P[Y > eps*sigma2/D - D/2] - e^eps * P[Y > eps*sigma2/D + D/2].

    (Formula reconstructed from the paper; the extract we hold is sparse.)  It is the
    hockey-stick divergence ``sum_z max(0, P(z) - e^eps P(z - D))``: ``P(z)/P(z - D) > e^eps``
    iff ``z < D/2 - eps*sigma2/D``, and the sum splits into the two tails above by symmetry.
    ``Y`` is an integer, so ``P[Y > a] = P[Y >= floor(a) + 1]``: :meth:`thresholds`.

    >>> claim = DiscreteGaussianApproxDpClaim(Fraction(7, 3), 2)
    >>> claim.thresholds(1)
    (1, 3)
    """

    sigma2: Fraction
    sensitivity: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma2", _positive("sigma2", self.sigma2))
        object.__setattr__(self, "sensitivity", _sensitivity(self.sensitivity))

    def thresholds(self, epsilon: RationalLike) -> tuple[int, int]:
        """``(m1, m2)`` with ``delta(eps) = P[Y >= m1] - e^eps P[Y >= m2]``:
        ``m1 = floor(eps*sigma2/D - D/2) + 1`` and ``m2 = floor(eps*sigma2/D + D/2) + 1``,
        computed exactly (``epsilon`` a rational ``>= 0``; floats refused)."""
        eps = _non_negative("epsilon", epsilon)
        D = self.sensitivity
        centre = eps * self.sigma2 / D
        return math.floor(centre - Fraction(D, 2)) + 1, math.floor(centre + Fraction(D, 2)) + 1

    def delta_expr(self) -> sympy.Expr:
        """``delta`` as a SymPy expression in ``EPSILON`` (tails as infinite Sums)."""
        s = sympy.Rational(self.sigma2.numerator, self.sigma2.denominator)
        D = sympy.Integer(self.sensitivity)
        weight = sympy.exp(-(_Y**2) / (2 * s))
        normaliser = sympy.Sum(weight, (_Y, -sympy.oo, sympy.oo))
        low = sympy.floor(EPSILON * s / D - D / 2) + 1
        high = sympy.floor(EPSILON * s / D + D / 2) + 1
        tail_low = sympy.Sum(weight, (_Y, low, sympy.oo))
        tail_high = sympy.Sum(weight, (_Y, high, sympy.oo))
        return (tail_low - sympy.exp(EPSILON) * tail_high) / normaliser


# --- Bernoulli(exp(-gamma)) -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BernoulliExpSpec(NoiseSpec):
    """Bernoulli(exp(-gamma)) for a rational ``gamma >= 0`` (CKS20 Algorithm 1, ``gamma <= 1``,
    extended to ``gamma > 1`` by ``floor(gamma)`` Bernoulli(exp(-1)) trials, CKS20 §5.1).

    Outputs True/False; ``P(True) = exp(-gamma)``, ``P(False) = 1 - exp(-gamma)``.  As a PMF in
    ``B`` (``b = 1`` for True): ``exp(-gamma)**b * (1 - exp(-gamma))**(1 - b)``.
    It is a building block, not a mechanism, so it makes no privacy claim.

    >>> spec = BernoulliExpSpec.create("1/2")
    >>> spec.ideal_pmf_expr().subs(B, 1)
    exp(-1/2)
    >>> spec.ideal_pmf_expr().subs(B, 0)
    1 - exp(-1/2)
    >>> BernoulliExpSpec.create(0).ideal_probability(False)
    (mpf('0.0'), mpf('0.0'))
    """

    gamma: Fraction
    name = "bernoulli_exp"
    output_symbol = B

    def __post_init__(self) -> None:
        object.__setattr__(self, "gamma", _non_negative("gamma", self.gamma))

    @classmethod
    def create(cls, gamma: RationalLike) -> BernoulliExpSpec:
        """Validate like ``dpverify.samplers.bernoulli.bernoulli_exp``: a rational ``gamma >= 0``."""
        return cls(gamma)  # type: ignore[arg-type]  # __post_init__ parses it

    def run(self, rng: RandomSource) -> bool:
        return bernoulli_exp(self.gamma, _rng(rng))

    def ideal_pmf_expr(self) -> sympy.Expr:
        p = sympy.exp(-sympy.Rational(self.gamma.numerator, self.gamma.denominator))
        return p**B * (1 - p) ** (1 - B)

    def ideal_probability(self, output: Hashable, dps: int = 50) -> tuple[mpmath.mpf, mpmath.mpf]:
        """``exp(-gamma)`` for True; ``1 - exp(-gamma)`` for False by ``one_minus_exp_neg``
        (no cancellation for small gamma).  Exact ``(1, 1)``/``(0, 0)`` at ``gamma = 0``."""
        if not isinstance(output, bool):
            raise InvalidArgument(
                f"output must be True or False; got output={_shown(output)} ({type(output).__name__})."
            )
        gamma = self.gamma
        if output:
            return enclose(lambda: iv.exp(-iv_rational(gamma)), _dps(dps), extra_bits=math.ceil(gamma).bit_length())
        return enclose(lambda: one_minus_exp_neg(gamma), _dps(dps))

    def parameters(self) -> dict[str, str]:
        return {"gamma": exact_text(self.gamma)}

    def outputs_for_check(self) -> tuple[bool, ...]:
        return (False, True)


# --- discrete Laplace -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiscreteLaplaceSpec(NoiseSpec):
    """Discrete Laplace ``Lap_Z(b)`` with a rational scale ``b > 0`` (sampled by CKS20
    Algorithm 2)::

        P(z) = (e^(1/b) - 1) / (e^(1/b) + 1) * e^(-|z|/b)      for every integer z.

    The normaliser is the two-sided geometric series ``1 + 2 sum_{z>=1} e^(-z/b)``.
    Mechanism ``M(q) = q + Z`` on integers, neighbours ``|q - q'| <= sensitivity = D``.
    Claim (:class:`PureEpsilonClaim`): ``epsilon = D/b``, exact, because for
    ``|z - z'| <= D``: ``P(z)/P(z') = e^((|z'| - |z|)/b)`` and ``||z'| - |z|| <= D``; the bound is
    attained at ``z' = z + D >= D``, so it is tight.

    >>> spec = DiscreteLaplaceSpec.create("1/2", sensitivity=3)
    >>> spec.claim()
    PureEpsilonClaim(epsilon=Fraction(6, 1), sensitivity=3)
    >>> DiscreteLaplaceSpec.create(1).ideal_pmf_expr().subs(Z, -2)
    (-1 + E)*exp(-2)/(1 + E)
    >>> DiscreteLaplaceSpec.create(1).parameters()
    {'scale': '1', 'sensitivity': '1'}
    """

    scale: Fraction
    sensitivity: int = 1
    name = "discrete_laplace"
    output_symbol = Z

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", _positive("scale", self.scale))
        object.__setattr__(self, "sensitivity", _sensitivity(self.sensitivity))

    @classmethod
    def create(cls, scale: RationalLike, sensitivity: object = 1) -> DiscreteLaplaceSpec:
        """Validate like ``dpverify.samplers.discrete_laplace.sample``: a rational ``scale > 0``; and an
        integer ``sensitivity >= 1``."""
        return cls(_positive("scale", scale), _sensitivity(sensitivity))

    def run(self, rng: RandomSource) -> int:
        return _dlap_sampler.sample(self.scale, _rng(rng))

    def ideal_pmf_expr(self) -> sympy.Expr:
        inverse = 1 / sympy.Rational(self.scale.numerator, self.scale.denominator)
        return (sympy.exp(inverse) - 1) / (sympy.exp(inverse) + 1) * sympy.exp(-sympy.Abs(Z) * inverse)

    def ideal_probability(self, output: Hashable, dps: int = 50) -> tuple[mpmath.mpf, mpmath.mpf]:
        """``P(z)`` computed as ``(1 - e^(-1/b)) / (1 + e^(-1/b)) * e^(-|z|/b)`` (the same value;
        this form has no cancellation for large ``b``); no truncation is involved."""
        z = abs(_integer_output(output))
        inverse = 1 / self.scale

        def compute() -> iv.mpf:
            return one_minus_exp_neg(inverse) / (1 + iv.exp(-iv_rational(inverse))) * iv.exp(-iv_rational(z * inverse))

        return enclose(compute, _dps(dps), extra_bits=math.ceil(z * inverse).bit_length())

    def claim(self) -> PureEpsilonClaim:
        return PureEpsilonClaim(Fraction(self.sensitivity) / self.scale, self.sensitivity)

    def parameters(self) -> dict[str, str]:
        return {"scale": exact_text(self.scale), "sensitivity": exact_text(self.sensitivity)}

    def outputs_for_check(self) -> tuple[int, ...]:
        """``|z| <= 8b`` (mass outside about ``e^-8``), clamped to ``3 <= R <= 100``."""
        return _check_range(math.ceil(8 * self.scale))


# --- discrete Gaussian ------------------------------------------------------------------------------


def _ceil_sqrt(value: Fraction) -> int:
    """``ceil(sqrt(value))`` for a rational ``value >= 0``, exactly."""
    root = isqrt(math.ceil(value))
    return root if root * root >= value else root + 1


def dgauss_normaliser_interval(sigma2: Fraction) -> tuple[iv.mpf, str]:
    """An interval containing ``N = sum_{y in Z} e^(-y^2 / (2 sigma2))`` at the current
    ``mpmath.iv`` precision ``p``, and the method used.

    * ``sigma2 <= 1``, ``"direct"``: ``N = 1 + 2 sum_{y=1}^{K} e^(-y^2/(2 sigma2)) + 2 R``.  For
      ``y >= K+1`` the ratio of consecutive terms is ``e^(-(2y+1)/(2 sigma2)) <=
      e^(-(2K+3)/(2 sigma2))``, so ``0 <= R <= e^(-(K+1)^2/(2 sigma2)) / (1 - e^(-(2K+3)/(2 sigma2)))``.
      ``K`` is chosen with ``(K+1)^2 >= 2 sigma2 (p+4) * 0.7`` so ``R <= 2^-(p+4)``.
    * ``sigma2 > 1``, ``"poisson"``: Poisson summation with the Fourier transform
      ``sqrt(2 pi sigma2) e^(-2 pi^2 sigma2 xi^2)`` of ``e^(-x^2/(2 sigma2))`` (CKS20 uses the same
      identity in its §2 analysis) gives
      ``N = sqrt(2 pi sigma2) * (1 + 2 sum_{k=1}^{K} e^(-2 pi^2 sigma2 k^2) + 2 R')`` with, by the
      same ratio argument, ``0 <= R' <= e^(-2 pi^2 sigma2 (K+1)^2) / (1 - e^(-2 pi^2 sigma2 (2K+3)))``.
      Since ``2 pi^2 sigma2 > 19 sigma2``, ``(K+1)^2 >= (p+4) * 0.7 / (19 sigma2)`` makes
      ``R' <= 2^-(p+4)``; for ``sigma2 = 10^100`` that is ``K = 0``, one term.
    """
    p = iv.prec
    if sigma2 <= 1:
        k_end = isqrt(math.ceil(2 * sigma2 * (p + 4) * Fraction(7, 10))) + 1  # this is K + 1
        total = iv.mpf(0)
        for y in range(1, k_end):
            total += exp_neg(Fraction(y * y) / (2 * sigma2))
        first_omitted = exp_neg(Fraction(k_end * k_end) / (2 * sigma2))
        bound = first_omitted / one_minus_exp_neg(Fraction(2 * k_end + 1) / (2 * sigma2))
        return 1 + 2 * (total + bound * iv.mpf([0, 1])), "direct"
    s = iv_rational(sigma2)
    rate = 2 * iv.pi**2 * s  # 2 pi^2 sigma2
    k_end = _ceil_sqrt(Fraction(7 * (p + 4), 10) / (19 * sigma2))  # K + 1, at least 1
    total = iv.mpf(0)
    for k in range(1, k_end):
        total += iv.exp(-rate * k * k)
    bound = iv.exp(-rate * k_end * k_end) / (1 - iv.exp(-rate * (2 * k_end + 1)))
    return iv.sqrt(2 * iv.pi * s) * (1 + 2 * (total + bound * iv.mpf([0, 1]))), "poisson"


@dataclass(frozen=True, slots=True)
class DiscreteGaussianSpec(NoiseSpec):
    """Discrete Gaussian ``N_Z(0, sigma2)`` for a rational ``sigma2 > 0`` (CKS20 Definition 1,
    sampled by Algorithm 3)::

        P(z) = e^(-z^2 / (2 sigma2)) / N,   N = sum_{y in Z} e^(-y^2 / (2 sigma2)).

    Mechanism ``M(q) = q + Y`` on integers, neighbours ``|q - q'| <= sensitivity = D``.
    Claims: ``rho``-zCDP with ``rho = D^2 / (2 sigma2)`` (CKS20 Theorem 4, exact rational,
    :meth:`zcdp_claim`), and ``(eps, delta(eps))``-DP for every ``eps >= 0`` with Theorem 7's
    tight ``delta`` (:meth:`approx_dp_claim`; evaluated by ``dpverify.verify.privacy._accounting.dgauss_delta``).
    ``N`` is enclosed by ``dgauss_normaliser_interval`` (direct sum with a tail bound for
    ``sigma2 <= 1``, Poisson summation for ``sigma2 > 1``).

    >>> spec = DiscreteGaussianSpec.create("7/3", sensitivity=2)
    >>> spec.zcdp_claim()
    ZcdpClaim(rho=Fraction(6, 7), sensitivity=2)
    >>> spec.parameters()
    {'sigma2': '7/3', 'sensitivity': '2'}

    At ``sigma2 = 1``, ``P(0) = 1/N`` with ``N = sqrt(2 pi) (1 + 2 e^(-2 pi^2) + ...)``, so it
    differs from the continuous density ``1/sqrt(2 pi) = 0.398942280401433`` in the 9th digit:

    >>> low, high = DiscreteGaussianSpec.create(1).ideal_probability(0, dps=20)
    >>> mpmath.nstr(low, 15), mpmath.nstr(high, 15)
    ('0.398942278266862', '0.398942278266862')
    """

    sigma2: Fraction
    sensitivity: int = 1
    name = "discrete_gaussian"
    output_symbol = Z

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma2", _positive("sigma2", self.sigma2))
        object.__setattr__(self, "sensitivity", _sensitivity(self.sensitivity))

    @classmethod
    def create(cls, sigma2: RationalLike, sensitivity: object = 1) -> DiscreteGaussianSpec:
        """Validate like ``dpverify.samplers.discrete_gaussian.sample``: a rational ``sigma2 > 0``; and an
        integer ``sensitivity >= 1``."""
        return cls(_positive("sigma2", sigma2), _sensitivity(sensitivity))

    def run(self, rng: RandomSource) -> int:
        return _dgauss_sampler.sample(self.sigma2, _rng(rng))

    def ideal_pmf_expr(self) -> sympy.Expr:
        s = sympy.Rational(self.sigma2.numerator, self.sigma2.denominator)
        normaliser = sympy.Sum(sympy.exp(-(_Y**2) / (2 * s)), (_Y, -sympy.oo, sympy.oo))
        return sympy.exp(-(Z**2) / (2 * s)) / normaliser

    def normaliser(self, dps: int = 50) -> tuple[mpmath.mpf, mpmath.mpf]:
        """A rigorous enclosure of ``N`` with relative width ``<= 10**-dps``."""
        return enclose(lambda: dgauss_normaliser_interval(self.sigma2)[0], _dps(dps))

    def normaliser_method(self) -> str:
        """``"direct"`` (``sigma2 <= 1``) or ``"poisson"``: how ``N`` is summed."""
        return "direct" if self.sigma2 <= 1 else "poisson"

    def ideal_probability(self, output: Hashable, dps: int = 50) -> tuple[mpmath.mpf, mpmath.mpf]:
        """``e^(-z^2/(2 sigma2))`` (an exact rational exponent) over the enclosure of ``N``."""
        z = _integer_output(output)
        exponent = Fraction(z * z) / (2 * self.sigma2)

        def compute() -> iv.mpf:
            return iv.exp(-iv_rational(exponent)) / dgauss_normaliser_interval(self.sigma2)[0]

        return enclose(compute, _dps(dps), extra_bits=math.ceil(exponent).bit_length())

    def zcdp_claim(self) -> ZcdpClaim:
        """CKS20 Theorem 4: ``rho = sensitivity^2 / (2 sigma2)``."""
        return ZcdpClaim(Fraction(self.sensitivity**2) / (2 * self.sigma2), self.sensitivity)

    def approx_dp_claim(self) -> DiscreteGaussianApproxDpClaim:
        """CKS20 Theorem 7: ``(eps, delta(eps))``-DP for every ``eps >= 0``."""
        return DiscreteGaussianApproxDpClaim(self.sigma2, self.sensitivity)

    def parameters(self) -> dict[str, str]:
        return {"sigma2": exact_text(self.sigma2), "sensitivity": exact_text(self.sensitivity)}

    def outputs_for_check(self) -> tuple[int, ...]:
        """``|z| <= 6 sigma`` (mass outside below ``2e-9``), clamped to ``3 <= R <= 100``."""
        return _check_range(6 * _ceil_sqrt(self.sigma2))
