"""Closed forms for mechanisms built from the exact samplers: vectors, compositions and
post-processings, stated independently of :mod:`dpverify.samplers.mechanisms`.

- :func:`product_pmf`: independent parts released together have the product law over tuples.
- :func:`pushforward`: a deterministic ``f`` of a release has the law
  ``P(f = u) = sum_{x : f(x) = u} P(x)``.
- :class:`VectorLaplaceSpec`, :class:`VectorGaussianSpec`: the ideal PMFs of the vector noise
  mechanisms, as products of the one-dimensional enclosures of
  :class:`~dpverify.specs.DiscreteLaplaceSpec` and :class:`~dpverify.specs.DiscreteGaussianSpec`
  in grid units; each factor is an exact rational enclosure ``lo <= P <= hi``, so the exact
  product of the lows and of the highs encloses the product.
- :func:`certified_classic_sigma2`: Dwork–Roth Theorem A.1's variance rounded up to ``2^-32``,
  from a certified ``mpmath.iv`` logarithm (never from the sampler's integer series).
- :func:`guarantee_claims`: a mechanism's guarantee as the claim types a spec declares.

>>> pmf = product_pmf({0: Fraction(1, 3), 1: Fraction(2, 3)}, {0: Fraction(1, 2), 1: Fraction(1, 2)})
>>> pmf.probability((1, 0))
Fraction(1, 3)
>>> pushforward(pmf, sum).as_dict()
{0: Fraction(1, 6), 1: Fraction(1, 2), 2: Fraction(1, 3)}
>>> certified_classic_sigma2(1, "1/2", "1/10^5")
Fraction(403248260869, 4294967296)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from mpmath import iv
from mpmath.libmp import to_rational

from dpverify.samplers import InvalidArgument, as_fraction, as_int
from dpverify.samplers._rational import RationalLike, as_open_unit_interval, shown
from dpverify.specs._claims import ApproxDp, Claim, PureDp, Zcdp
from dpverify.specs._enclosure import MAX_BITS, MAX_DPS, interval_precision, iv_rational
from dpverify.specs._pmf import ExactPmf
from dpverify.specs.noise import DiscreteGaussianSpec, DiscreteLaplaceSpec, _positive

__all__ = [
    "MAX_DIMS",
    "MAX_REPEAT",
    "SIGMA2_GRID",
    "VectorGaussianSpec",
    "VectorLaplaceSpec",
    "certified_classic_sigma2",
    "guarantee_claims",
    "product_pmf",
    "pushforward",
]

#: The most coordinates the vector samplers document (``dpverify.samplers.vector_laplace``).
MAX_DIMS = 100_000
#: The most runs ``dpverify.samplers.mechanisms.repeat`` documents.
MAX_REPEAT = 10_000
#: The grid the classic variance is rounded up to: multiples of ``2^-32``.
SIGMA2_GRID = Fraction(1, 2**32)
#: The per-coordinate window of :meth:`VectorLaplaceSpec.outputs_for_check` (grid steps each side).
WINDOW = 8


def _pmf(name: str, value: object) -> ExactPmf:
    """``value`` as an ExactPmf that is a distribution: every mass in [0, 1], the total exactly 1
    (a product or an image of anything else would pass for a law it is not)."""
    if isinstance(value, ExactPmf):
        pmf = value
    elif isinstance(value, Mapping):
        pmf = ExactPmf.from_fractions(value)
    else:
        raise InvalidArgument(
            f"{name} must be an ExactPmf or a mapping {{output: Fraction}}; got {name}={shown(value)} "
            f"({type(value).__name__})."
        )
    for output, weight in zip(pmf.outputs, pmf.weights, strict=True):
        if not 0 <= weight <= pmf.denominator:
            raise InvalidArgument(
                f"{name}'s masses must be in [0, 1]; got {name}[{shown(output, 30)}]="
                f"{shown(Fraction(weight, pmf.denominator), 30)}."
            )
    if sum(pmf.weights) != pmf.denominator:
        raise InvalidArgument(
            f"{name} must sum to exactly 1 (a distribution); got a total of {shown(pmf.total(), 40)}."
        )
    return pmf


#: The most outputs :func:`product_pmf` and :meth:`VectorLaplaceSpec.outputs_for_check` list.
MAX_OUTPUTS = 10_000


def product_pmf(*pmfs: ExactPmf | Mapping[Hashable, Fraction]) -> ExactPmf:
    """The law of ``(X_1, ..., X_k)`` for independent ``X_i`` with the given laws:
    ``P(x_1, ..., x_k) = prod_i P_i(x_i)``, over the tuples of listed outputs (in order); at most
    ``MAX_OUTPUTS`` tuples."""
    if not pmfs:
        raise InvalidArgument("product_pmf needs one or more PMFs; got pmfs=().")
    parts = [_pmf(f"pmfs[{i}]", p) for i, p in enumerate(pmfs)]
    count = 1
    for part in parts:
        count *= len(part.outputs)
        if count > MAX_OUTPUTS:
            raise InvalidArgument(
                f"pmfs must have at most {MAX_OUTPUTS} output tuples together (the product of their "
                f"output counts); got {' * '.join(str(len(p.outputs)) for p in parts[:8])}"
                f"{' * ...' if len(parts) > 8 else ''}."
            )
    outputs, weights = [], []
    for combination in itertools.product(*(tuple(zip(p.outputs, p.weights, strict=True)) for p in parts)):
        outputs.append(tuple(o for o, _ in combination))
        weights.append(math.prod(w for _, w in combination))
    return ExactPmf(tuple(outputs), tuple(weights), math.prod(p.denominator for p in parts))


def pushforward(pmf: ExactPmf | Mapping[Hashable, Fraction], f: Callable[[Any], Hashable]) -> ExactPmf:
    """The law of ``f(X)`` for ``X`` with law ``pmf``: ``P(u) = sum_{x : f(x) = u} P(x)``
    (outputs in order of first appearance)."""
    source = _pmf("pmf", pmf)
    if not callable(f):
        raise InvalidArgument(f"f must be callable; got f={shown(f)} ({type(f).__name__}).")
    masses: dict[Hashable, int] = {}
    for output, weight in zip(source.outputs, source.weights, strict=True):
        image = f(output)
        try:
            hash(image)
        except TypeError:
            raise InvalidArgument(
                f"f must return hashable values; got f({shown(output, 30)})={shown(image, 40)} "
                f"({type(image).__name__})."
            ) from None
        masses[image] = masses.get(image, 0) + weight
    return ExactPmf(tuple(masses), tuple(masses.values()), source.denominator)


# --- vector noise ----------------------------------------------------------------------------------


def _exact_enclosure(low: Any, high: Any) -> tuple[Fraction, Fraction]:
    """The mpmath endpoints as the exact rationals they denote (an ``mpf`` is ``man * 2**exp``)."""
    # tuple() of a generator is typed tuple[Fraction, ...]; this one has exactly two items, one per endpoint
    return tuple(Fraction(*map(int, to_rational(v._mpf_))) for v in (low, high))  # type: ignore[return-value]  # a pair


def _grid(values: object, step: Fraction) -> tuple[int, ...] | None:
    """``values / step`` as integers, or None where a value is no rational on the grid."""
    if not isinstance(values, tuple):
        return None
    indices = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
            return None
        index = Fraction(value) / step
        if index.denominator != 1:
            return None
        indices.append(index.numerator)
    return tuple(indices)


class _VectorNoise:
    """What both vector specs share: the release ``v + L*Z`` with i.i.d. grid noise ``Z``."""

    step: Fraction

    def noise(self) -> DiscreteLaplaceSpec | DiscreteGaussianSpec:
        raise NotImplementedError

    def index(self, values: Sequence[RationalLike]) -> tuple[int, ...]:
        """The grid indices ``v_i / L`` of an input, which must lie on the grid."""
        if not isinstance(values, (tuple, list)) or not 1 <= len(values) <= MAX_DIMS:
            raise InvalidArgument(
                f"values must be a tuple or list of 1 to {MAX_DIMS} rationals; got values={shown(values)} "
                f"({type(values).__name__})."
            )
        indices = _grid(tuple(as_fraction(f"values[{i}]", v) for i, v in enumerate(values)), self.step)
        if indices is None:
            raise InvalidArgument(
                f"values must lie on the grid step*Z with step={shown(self.step)}; got values={shown(values)}."
            )
        return indices

    def ideal_probability(
        self, values: Sequence[RationalLike], output: Hashable, dps: int = 50
    ) -> tuple[Fraction, Fraction]:
        """An exact enclosure of ``P(output | values) = prod_i P_noise((y_i - v_i)/L)``; ``(0, 0)``
        for anything that is not a release of this input (wrong length, off the grid)."""
        centre = self.index(values)
        digits = as_int("dps", dps, low=1, high=MAX_DPS)
        point = _grid(output, self.step)
        if point is None or len(point) != len(centre):
            return Fraction(0), Fraction(0)
        low, high = Fraction(1), Fraction(1)
        for y, m in zip(point, centre, strict=True):
            factor_low, factor_high = _one_dimensional(self.noise(), y - m, digits)
            low, high = low * factor_low, high * factor_high
        return low, high

    def outputs_for_check(self, values: Sequence[RationalLike]) -> tuple[tuple[Fraction, ...], ...]:
        """Every release within :data:`WINDOW` grid steps of the input in each coordinate (at most
        the noise's own check range); at most :data:`MAX_OUTPUTS` of them, so few coordinates."""
        centre = self.index(values)
        shifts = [z for z in self.noise().outputs_for_check() if abs(z) <= WINDOW]
        if len(shifts) ** min(len(centre), 64) > MAX_OUTPUTS:
            raise InvalidArgument(
                f"values must have few enough coordinates for {len(shifts)}^len(values) <= {MAX_OUTPUTS} "
                f"outputs to check; got {len(centre)} coordinates."
            )
        return tuple(
            tuple(self.step * (m + z) for m, z in zip(centre, offsets, strict=True))
            for offsets in itertools.product(shifts, repeat=len(centre))
        )


@lru_cache(maxsize=4096)
def _one_dimensional(noise: DiscreteLaplaceSpec | DiscreteGaussianSpec, z: int, dps: int) -> tuple[Fraction, Fraction]:
    return _exact_enclosure(*noise.ideal_probability(z, dps))


@dataclass(frozen=True, slots=True)
class VectorLaplaceSpec(_VectorNoise):
    """The vector Laplace mechanism: ``y_i = v_i + L Z_i``, ``Z_i`` i.i.d. ``Lap_Z(b/L)``,
    ``b = s/epsilon``; ``P(y | v) = prod_i (e^(L/b) - 1)/(e^(L/b) + 1) e^(-|y_i - v_i|/b)``.

    Claim: ``epsilon``-DP for ``||v - v'||_1 <= s`` (the loss at ``y`` is
    ``sum_i (|y_i - v'_i| - |y_i - v_i|)/b <= ||v - v'||_1 / b``), and ``epsilon^2/2``-zCDP.

    >>> spec = VectorLaplaceSpec.create(1, 2, "1/2")
    >>> spec.noise().scale, spec.claim()
    (Fraction(1, 1), PureDp(alpha=None, epsilon=Fraction(2, 1)))
    """

    sensitivity: Fraction
    epsilon: Fraction
    step: Fraction

    def __post_init__(self) -> None:
        for name in ("sensitivity", "epsilon", "step"):
            object.__setattr__(self, name, _positive(name, getattr(self, name)))

    @classmethod
    def create(cls, sensitivity: RationalLike, epsilon: RationalLike, step: RationalLike = 1) -> VectorLaplaceSpec:
        return cls(sensitivity, epsilon, step)  # type: ignore[arg-type]  # __post_init__ parses them

    def noise(self) -> DiscreteLaplaceSpec:
        """The noise in grid units: ``Lap_Z(b/L)`` with ``b = s/epsilon``."""
        return DiscreteLaplaceSpec.create(self.sensitivity / (self.epsilon * self.step))

    def claim(self) -> PureDp:
        return PureDp(epsilon=self.epsilon)

    def zcdp_claim(self) -> Zcdp:
        """Bun, Steinke 2016, Proposition 1.4: ``epsilon``-DP implies ``epsilon^2/2``-zCDP."""
        return Zcdp(self.epsilon**2 / 2)


@dataclass(frozen=True, slots=True)
class VectorGaussianSpec(_VectorNoise):
    """The vector discrete Gaussian: ``y_i = v_i + L Z_i``, ``Z_i`` i.i.d. ``N_Z(0, sigma2/L^2)``.

    Claim: ``rho``-zCDP with ``rho = s^2/(2 sigma2)`` for ``||v - v'||_2 <= s`` (CKS20 Theorem 4 per
    coordinate, the Renyi divergences of independent coordinates adding up).
    :meth:`classic` builds it with :func:`certified_classic_sigma2`.

    >>> VectorGaussianSpec.classic(1, "9/10", "1/2").sigma2
    Fraction(2429283165, 1073741824)
    """

    sigma2: Fraction
    step: Fraction
    sensitivity: Fraction | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma2", _positive("sigma2", self.sigma2))
        object.__setattr__(self, "step", _positive("step", self.step))
        if self.sensitivity is not None:
            object.__setattr__(self, "sensitivity", _positive("sensitivity", self.sensitivity))

    @classmethod
    def create(
        cls, sigma2: RationalLike, step: RationalLike = 1, sensitivity: RationalLike | None = None
    ) -> VectorGaussianSpec:
        return cls(sigma2, step, sensitivity)  # type: ignore[arg-type]  # __post_init__ parses them

    @classmethod
    def classic(
        cls, sensitivity: RationalLike, epsilon: RationalLike, delta: RationalLike, step: RationalLike = 1
    ) -> VectorGaussianSpec:
        """With Dwork–Roth's classic variance (:func:`certified_classic_sigma2`)."""
        return cls.create(certified_classic_sigma2(sensitivity, epsilon, delta), step, sensitivity)

    def noise(self) -> DiscreteGaussianSpec:
        """The noise in grid units: ``N_Z(0, sigma2/L^2)``."""
        return DiscreteGaussianSpec.create(self.sigma2 / self.step**2)

    def rho(self, sensitivity: RationalLike | None = None) -> Fraction:
        """``s^2 / (2 sigma2)`` for the L2 sensitivity ``s`` (default: the spec's)."""
        s = self.sensitivity if sensitivity is None else _positive("sensitivity", sensitivity)
        if s is None:
            raise InvalidArgument("sensitivity must be given: this spec was made without one; got sensitivity=None.")
        return s * s / (2 * self.sigma2)

    def zcdp_claim(self, sensitivity: RationalLike | None = None) -> Zcdp:
        return Zcdp(self.rho(sensitivity))


def certified_classic_sigma2(sensitivity: RationalLike, epsilon: RationalLike, delta: RationalLike) -> Fraction:
    """``ceil(2 ln(1.25/delta) s^2/epsilon^2 * 2^32) / 2^32`` (Dwork, Roth, Theorem A.1, rounded
    up to the grid ``SIGMA2_GRID``), for ``s > 0`` and ``epsilon``, ``delta`` in (0, 1).

    ``X = 2^33 s^2/epsilon^2 * ln(5/(4 delta))`` is enclosed with ``mpmath.iv`` (outward
    rounding) at doubling precision until both ends share one floor ``f``; ``X`` is irrational
    (``ln`` of a rational other than 1 is, by Lindemann), so its ceiling is ``f + 1``."""
    s = _positive("sensitivity", sensitivity)
    eps = as_open_unit_interval("epsilon", epsilon)
    d = as_open_unit_interval("delta", delta)
    K = 2 * s * s / (eps * eps) / SIGMA2_GRID
    bits = 64 + max(0, K.numerator.bit_length() - K.denominator.bit_length())
    while bits <= MAX_BITS:
        with interval_precision(bits):
            value = iv_rational(K) * iv.log(iv_rational(Fraction(5, 4) / d))
        low, high = (Fraction(*map(int, to_rational(end))) for end in value._mpi_)
        if math.floor(low) == math.floor(high):
            return (math.floor(low) + 1) * SIGMA2_GRID
        bits *= 2
    raise InvalidArgument(
        f"sigma2 could not be decided within {MAX_BITS} bits for sensitivity={shown(s)}, "
        f"epsilon={shown(eps)}, delta={shown(d)}."
    )


# --- guarantees as claims -------------------------------------------------------------------------


def _epsilon(epsilon: Fraction, alpha: Fraction) -> Fraction:
    """A rational at least ``epsilon + ln(1/alpha)``: exact when ``alpha = 1``, else ``ln(1/alpha)``
    enclosed to 128 bits and its upper end taken (a claim at most 2^-120 weaker)."""
    if alpha == 1:
        return epsilon
    with interval_precision(128):
        upper = (-iv.log(iv_rational(alpha)))._mpi_[1]
    return epsilon + Fraction(*map(int, to_rational(upper)))


def guarantee_claims(guarantee: Any) -> tuple[Claim, ...]:
    """The claims a guarantee (``epsilon``, ``alpha``, ``delta``, ``rho``, as
    :class:`dpverify.samplers.Guarantee` holds them) makes, in the spec API's types:

    - ``delta = 0``: ``PureDp(alpha=alpha)`` when ``epsilon = 0`` (exact ratio form),
      ``PureDp(epsilon=epsilon)`` when ``alpha = 1``, else ``PureDp(epsilon=e)`` with ``e`` a
      rational upper bound of ``epsilon + ln(1/alpha)`` (``_epsilon``);
    - ``0 < delta < 1``: ``ApproxDp(e, delta)`` likewise; ``delta = 1`` claims nothing;
    - ``rho`` not None and ``> 0``: ``Zcdp(rho)``.

    >>> guarantee_claims(
    ...     type("G", (), {"epsilon": Fraction(0), "alpha": Fraction(1, 3), "delta": Fraction(0), "rho": None})()
    ... )
    (PureDp(alpha=Fraction(1, 3), epsilon=None),)
    """
    try:
        epsilon, alpha, delta, rho = (guarantee.epsilon, guarantee.alpha, guarantee.delta, guarantee.rho)
    except AttributeError:
        raise InvalidArgument(
            f"guarantee must have epsilon, alpha, delta and rho (a dpverify.samplers.Guarantee); "
            f"got guarantee={shown(guarantee)} ({type(guarantee).__name__})."
        ) from None
    if (
        not all(isinstance(v, Fraction) for v in (epsilon, alpha, delta))
        or not (rho is None or isinstance(rho, Fraction))
        or not (epsilon >= 0 and 0 < alpha <= 1 and 0 <= delta <= 1 and (rho is None or rho >= 0))
    ):
        raise InvalidArgument(
            f"guarantee must hold epsilon >= 0, alpha in (0, 1], delta in [0, 1] and rho >= 0 or None "
            f"as Fractions; got guarantee={shown(guarantee)}."
        )
    claims: list[Claim] = []
    if delta == 0:
        claims.append(PureDp(alpha=alpha) if epsilon == 0 else PureDp(epsilon=_epsilon(epsilon, alpha)))
    elif delta < 1:
        claims.append(ApproxDp(_epsilon(epsilon, alpha), delta))
    if rho is not None and rho > 0:
        claims.append(Zcdp(rho))
    return tuple(claims)
