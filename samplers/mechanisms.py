"""Differential-privacy mechanisms built from dpverify's exact samplers, each carrying the
privacy claim it can justify, and combinators that keep that claim right.

A :class:`Mechanism` maps a query answer to a release and holds a :class:`Guarantee`.  Each
constructor states the guarantee its theorem gives; the combinators derive theirs:

- :func:`gtm` (Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite
  Computers"): ratio bound ``alpha`` on Theorem 7.1's exact instances, else Theorem 6.2's
  degraded ``alpha'``; refused where ``alpha' <= 0``.
- :func:`laplace` (:mod:`~dpverify.samplers.vector_laplace`): ``epsilon``-DP for L1
  sensitivity ``s``, and ``epsilon^2/2``-zCDP (Bun, Steinke 2016, Proposition 1.4).
- :func:`gaussian` (:mod:`~dpverify.samplers.vector_gaussian`, the classic calibration):
  ``(epsilon, delta)``-DP and ``s^2/(2 sigma2)``-zCDP for L2 sensitivity ``s``.
- :func:`discrete_gaussian`: ``s^2/(2 sigma2)``-zCDP for a given ``sigma2``; its (eps, delta)
  part is the vacuous ``(0, 1)``.
- :func:`postprocess` (Dwork, Roth, "The Algorithmic Foundations of Differential Privacy",
  Proposition 2.1): the same guarantee.
- :func:`compose` and :func:`repeat`: basic composition (Dwork, Roth, Theorem 3.16; for zCDP
  Bun, Steinke 2016, Lemma 2.3) of independent runs on the same input.

A release draws all its randomness from the one ``rng`` it is given, parts in order, so the
engine enumerates a composed mechanism exactly like a single sampler.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dpverify.samplers import gtm as _gtm
from dpverify.samplers import vector_gaussian as _vector_gaussian
from dpverify.samplers import vector_laplace as _vector_laplace
from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._random_source import RandomSource, as_source
from dpverify.samplers._rational import RationalLike, as_fraction, as_int, as_open_unit_interval, shown
from dpverify.samplers.vector_laplace import MAX_DIMS, _positive

__all__ = [
    "MAX_REPEAT",
    "Guarantee",
    "Mechanism",
    "compose",
    "discrete_gaussian",
    "gaussian",
    "gtm",
    "laplace",
    "postprocess",
    "repeat",
]

#: The most runs :func:`repeat` takes (each composes the guarantee once more).
MAX_REPEAT = 10_000


def _exact(name: str, value: object) -> Fraction:
    """A Fraction as given (a composed guarantee's may pass the parsing size limits), else parsed."""
    return value if isinstance(value, Fraction) else as_fraction(name, value)


@dataclass(frozen=True, slots=True)
class Guarantee:
    """A privacy claim: ``(eps, delta)``-DP with ``eps = epsilon + ln(1/alpha)``, and ``rho``-zCDP
    where ``rho`` is not None.

    ``(eps, delta)``-DP: for neighbours ``q, q'`` and every set ``S`` of releases,
    ``P(S|q) <= e^eps P(S|q') + delta``.  ``epsilon`` (a rational ``>= 0``) and ``alpha`` (a
    rational in (0, 1]) keep both an exact rational epsilon (Laplace) and an exact ratio bound
    (GTM: ``e^-eps = alpha``) exact under composition: ``e^-eps = alpha * e^-epsilon``.
    ``delta`` is in [0, 1]; ``delta = 1`` is the vacuous claim every mechanism meets, for a
    mechanism known only to be zCDP.  ``rho``-zCDP (Bun, Steinke 2016): the Renyi divergence of
    order ``a`` between neighbours' releases is at most ``rho * a`` for every ``a > 1``.

    >>> Guarantee.compose(Guarantee(alpha="1/3"), Guarantee.pure("1/2"))
    Guarantee(epsilon=Fraction(1, 2), alpha=Fraction(1, 3), delta=Fraction(0, 1), rho=None)
    """

    epsilon: Fraction = Fraction(0)
    alpha: Fraction = Fraction(1)
    delta: Fraction = Fraction(0)
    rho: Fraction | None = None

    def __post_init__(self) -> None:
        epsilon, alpha, delta = (
            _exact("epsilon", self.epsilon),
            _exact("alpha", self.alpha),
            _exact("delta", self.delta),
        )
        if epsilon < 0:
            raise InvalidArgument(
                f'epsilon must be a rational >= 0; got epsilon={shown(epsilon)}. Pass it as "num/den".'
            )
        if not 0 < alpha <= 1:
            raise InvalidArgument(
                f'alpha must be a rational in (0, 1]; got alpha={shown(alpha)}. Pass it as "num/den".'
            )
        if not 0 <= delta <= 1:
            raise InvalidArgument(
                f'delta must be a rational in [0, 1]; got delta={shown(delta)}. Pass it as "num/den".'
            )
        if self.rho is not None:
            rho = _exact("rho", self.rho)
            if rho < 0:
                raise InvalidArgument(
                    f'rho must be a rational >= 0 or None; got rho={shown(rho)}. Pass it as "num/den".'
                )
            object.__setattr__(self, "rho", rho)
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "delta", delta)

    @classmethod
    def pure(cls, epsilon: RationalLike) -> Guarantee:
        """``epsilon``-DP for a rational ``epsilon >= 0``, with the ``epsilon^2/2``-zCDP it
        implies (Bun, Steinke 2016, Proposition 1.4)."""
        eps = _exact("epsilon", epsilon)
        return cls(epsilon=eps, rho=eps * eps / 2)

    @classmethod
    def compose(cls, *guarantees: Guarantee) -> Guarantee:
        """Basic composition of independent mechanisms run on the same input (Dwork, Roth,
        Theorem 3.16): epsilons add, alphas multiply (so the ``ln(1/alpha)`` add), deltas add
        (capped at the vacuous 1), and rhos add (Bun, Steinke 2016, Lemma 2.3), None if any is."""
        if not guarantees or not all(isinstance(g, Guarantee) for g in guarantees):
            raise InvalidArgument(f"compose needs one or more Guarantees; got guarantees={shown(guarantees)}.")
        epsilon, alpha, delta = Fraction(0), Fraction(1), Fraction(0)
        rho: Fraction | None = Fraction(0)
        for g in guarantees:
            epsilon, alpha, delta = epsilon + g.epsilon, alpha * g.alpha, delta + g.delta
            rho = None if rho is None or g.rho is None else rho + g.rho
        return cls(epsilon, alpha, min(delta, Fraction(1)), rho)


@dataclass(frozen=True, slots=True)
class Mechanism:
    """A mechanism: ``name``, the :class:`Guarantee` it carries, its ``parts`` (for a
    combinator) and a private ``release(value, rng)`` that draws only from ``rng``.

    Build one with the constructors of this module; the combinators derive the guarantee."""

    name: str
    guarantee: Guarantee
    _release: Callable[[Any, RandomSource], Hashable] = field(repr=False, compare=False)
    parts: tuple[Mechanism, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidArgument(f"name must be a non-empty str; got name={shown(self.name)}.")
        if not isinstance(self.guarantee, Guarantee):
            raise InvalidArgument(f"guarantee must be a Guarantee; got guarantee={shown(self.guarantee)}.")
        if not callable(self._release):
            raise InvalidArgument(
                f"_release must be callable as release(value, rng); got _release={shown(self._release)}."
            )
        if not isinstance(self.parts, tuple) or not all(isinstance(p, Mechanism) for p in self.parts):
            raise InvalidArgument(f"parts must be a tuple of Mechanisms; got parts={shown(self.parts)}.")

    def sample(self, value: Any, rng: RandomSource | None = None) -> Hashable:
        """One release for the query answer ``value``."""
        return self._release(value, as_source(rng))

    def sample_many(self, value: Any, k: int, rng: RandomSource | None = None) -> list[Hashable]:
        """``k`` independent releases for ``value``."""
        count = as_int("k", k, low=0)
        source = as_source(rng)
        return [self._release(value, source) for _ in range(count)]


# --- constructors ------------------------------------------------------------------------------


def _gtm_alpha(alpha: Fraction, n: int, T: int) -> Fraction:
    """The ratio bound a GTM with these parameters has (Amorim, Gaboardi, Rindisbacher).

    Theorem 7.1: for ``alpha = 1/D`` and ``T = (D+1) D^n`` every ``T * CDF_q(x)`` is an integer,
    so the code samples ``gtpmf`` exactly and ``alpha`` holds; a multiple of that ``T`` multiplies
    those integers and is exact too.  Otherwise Theorem 6.2: ``alpha' = (E - 1/T)/(E' + 1/T)``
    with ``E = (1-alpha)/(1+alpha) alpha^n`` and ``E' = E/alpha``, which is ``<= 0`` (no bound)
    exactly when ``T`` is at most the support bound ``1/E``."""
    D = alpha.denominator
    if alpha.numerator == 1 and T % ((D + 1) * D**n) == 0:
        return alpha
    E = (1 - alpha) / (1 + alpha) * alpha**n
    alpha_prime = (E - Fraction(1, T)) / (E / alpha + Fraction(1, T))
    if alpha_prime <= 0:
        raise InvalidArgument(
            f"T must exceed the support bound (1+alpha)/((1-alpha) alpha^n) for the GTM to be private (Theorem 6.2); "
            f"got T={shown(T)} with alpha={shown(alpha)}, n={shown(n)}. "
            f"Theorem 7.1's T = (D+1)*D^n is exact for alpha = 1/D."
        )
    return alpha_prime


def gtm(alpha: RationalLike, n: int, T: int) -> Mechanism:
    """The GTM on inputs ``q`` in ``0..n`` (:func:`dpverify.samplers.gtm.sample`), with the ratio
    bound ``_gtm_alpha`` gives: ``alpha`` for Theorem 7.1's instances, else Theorem 6.2's
    ``alpha'`` (refused when there is none)."""
    alpha_, n_, _, T_ = _gtm.validate(alpha, n, 0, T)
    bound = _gtm_alpha(alpha_, n_, T_)

    def release(q: Any, rng: RandomSource) -> int:
        return _gtm.sample(alpha_, n_, q, T_, rng)

    return Mechanism(f"gtm(alpha={shown(alpha_)}, n={n_}, T={shown(T_, 30)})", Guarantee(alpha=bound), release)


def _dims(dims: object) -> int | None:
    return None if dims is None else as_int("dims", dims, low=1, high=MAX_DIMS)


def _check_dims(values: object, dims: int | None) -> None:
    if dims is not None and isinstance(values, Sequence) and len(values) != dims:
        raise InvalidArgument(
            f"values must have dims={dims} coordinates; got values={shown(values)} with {len(values)}."
        )


def laplace(
    sensitivity: RationalLike, epsilon: RationalLike, step: RationalLike = 1, dims: int | None = None
) -> Mechanism:
    """The vector Laplace mechanism (:func:`dpverify.samplers.vector_laplace.sample`) for L1
    sensitivity ``s``: ``epsilon``-DP and ``epsilon^2/2``-zCDP.  ``dims``: the number of
    coordinates the input must have (None: any)."""
    s, eps, L = _positive("sensitivity", sensitivity), _positive("epsilon", epsilon), _positive("step", step)
    count = _dims(dims)

    def release(values: Any, rng: RandomSource) -> tuple[Fraction, ...]:
        _check_dims(values, count)
        return _vector_laplace.sample(values, s, eps, L, rng)

    return Mechanism(
        f"laplace(sensitivity={shown(s)}, epsilon={shown(eps)}, step={shown(L)})", Guarantee.pure(eps), release
    )


def gaussian(
    sensitivity: RationalLike,
    epsilon: RationalLike,
    delta: RationalLike,
    step: RationalLike = 1,
    dims: int | None = None,
) -> Mechanism:
    """The vector Gaussian mechanism with the classic calibration
    (:func:`dpverify.samplers.vector_gaussian.classic_sigma2`) for L2 sensitivity ``s``:
    ``(epsilon, delta)``-DP (for the discrete noise, by CKS20 Corollary 13; proof in
    :mod:`~dpverify.samplers.vector_gaussian`) and ``s^2/(2 sigma2)``-zCDP."""
    s = _positive("sensitivity", sensitivity)
    eps, delta_, L = as_fraction("epsilon", epsilon), as_open_unit_interval("delta", delta), _positive("step", step)
    sigma2 = _vector_gaussian.classic_sigma2(s, eps, delta_)
    count = _dims(dims)

    def release(values: Any, rng: RandomSource) -> tuple[Fraction, ...]:
        _check_dims(values, count)
        return _vector_gaussian.sample_sigma2(values, sigma2, L, rng)

    return Mechanism(
        f"gaussian(sensitivity={shown(s)}, epsilon={shown(eps)}, delta={shown(delta_)}, step={shown(L)})",
        Guarantee(epsilon=eps, delta=delta_, rho=s * s / (2 * sigma2)),
        release,
    )


def discrete_gaussian(
    sensitivity: RationalLike, sigma2: RationalLike, step: RationalLike = 1, dims: int | None = None
) -> Mechanism:
    """The vector discrete Gaussian with a given ``sigma2``
    (:func:`dpverify.samplers.vector_gaussian.sample_sigma2`) for L2 sensitivity ``s``:
    ``s^2/(2 sigma2)``-zCDP (CKS20 Theorem 4 per coordinate; Bun, Steinke 2016, Lemma 2.3)."""
    s, variance, L = _positive("sensitivity", sensitivity), _positive("sigma2", sigma2), _positive("step", step)
    count = _dims(dims)

    def release(values: Any, rng: RandomSource) -> tuple[Fraction, ...]:
        _check_dims(values, count)
        return _vector_gaussian.sample_sigma2(values, variance, L, rng)

    return Mechanism(
        f"discrete_gaussian(sensitivity={shown(s)}, sigma2={shown(variance)}, step={shown(L)})",
        Guarantee(delta=Fraction(1), rho=s * s / (2 * variance)),
        release,
    )


# --- combinators -------------------------------------------------------------------------------


def _mechanism(name: str, value: object) -> Mechanism:
    if not isinstance(value, Mechanism):
        raise InvalidArgument(
            f"{name} must be a Mechanism (built by dpverify.samplers.mechanisms); "
            f"got {name}={shown(value)} ({type(value).__name__})."
        )
    return value


def postprocess(mechanism: Mechanism, f: Callable[[Any], Hashable]) -> Mechanism:
    """``f`` applied to ``mechanism``'s release, with the same guarantee: post-processing
    (Dwork, Roth, Proposition 2.1).  ``f`` sees only the release, never the input; it must draw
    no randomness that depends on the input (a deterministic ``f`` is the common case)."""
    inner = _mechanism("mechanism", mechanism)
    if not callable(f):
        raise InvalidArgument(f"f must be a callable of the release; got f={shown(f)} ({type(f).__name__}).")

    def release(value: Any, rng: RandomSource) -> Hashable:
        return f(inner._release(value, rng))

    label = getattr(f, "__name__", type(f).__name__)
    return Mechanism(f"postprocess({inner.name}, {label})", inner.guarantee, release, (inner,))


def compose(*mechanisms: Mechanism) -> Mechanism:
    """Run every mechanism on the same input, independently and in order; release the tuple of
    their releases, with the basic composition of their guarantees (:meth:`~dpverify.samplers.Guarantee.compose`)."""
    if not mechanisms:
        raise InvalidArgument("compose needs one or more mechanisms; got mechanisms=().")
    parts = tuple(_mechanism(f"mechanisms[{i}]", m) for i, m in enumerate(mechanisms))

    def release(value: Any, rng: RandomSource) -> tuple[Hashable, ...]:
        return tuple(part._release(value, rng) for part in parts)

    return Mechanism(
        f"compose({', '.join(p.name for p in parts)})", Guarantee.compose(*(p.guarantee for p in parts)), release, parts
    )


def repeat(mechanism: Mechanism, k: int) -> Mechanism:
    """``k`` independent runs of ``mechanism`` on the same input (``1 <= k <=`` :data:`MAX_REPEAT`),
    released as a tuple, with the ``k``-fold basic composition of its guarantee."""
    inner = _mechanism("mechanism", mechanism)
    count = as_int("k", k, low=1, high=MAX_REPEAT)

    def release(value: Any, rng: RandomSource) -> tuple[Hashable, ...]:
        return tuple(inner._release(value, rng) for _ in range(count))

    return Mechanism(
        f"repeat({inner.name}, {count})", Guarantee.compose(*(inner.guarantee,) * count), release, (inner,)
    )
