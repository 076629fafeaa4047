"""Spec of the Geometric Truncated Mechanism sampled by inverse transform (``dpverify.samplers.gtm``).

Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for Finite Computers".

Ideal PMF (§2, ``gtpmf``), for ``alpha`` in (0, 1), ``0 <= q <= n``, ``0 <= x <= n``::

    gtpmf(q, 0) = alpha**q / (1+alpha),   gtpmf(q, n) = alpha**(n-q) / (1+alpha),
    gtpmf(q, x) = (1-alpha)/(1+alpha) * alpha**|x-q|   otherwise.

Its CDF has a closed form (sum the geometric series on each side of ``q``)::

    CDF_q(x) = alpha**(q-x) / (1+alpha)            for 0 <= x < q
    CDF_q(x) = 1 - alpha**(x+1-q) / (1+alpha)      for q <= x < n
    CDF_q(n) = 1.

Implementation PMF with a uniform of size ``T`` (§3 and §5; the sampler returns the first
``x`` with ``j/T <= CDF_q(x)``, ``j`` uniform on ``1..T``, so exactly
``floor(T*CDF_q(x))`` draws give an output ``<= x``)::

    P_T(x | q) = (floor(T*CDF_q(x)) - floor(T*CDF_q(x-1))) / T,     CDF_q(-1) = 0.

Both depend on ``x`` and ``q`` only through ``x - q`` away from the two ends, so the whole
``(n+1) x (n+1)`` table costs ``O(n)`` big-integer divisions, never a loop over ``T``.

Neighbours: ``|q - q'| <= 1``.  Claim: ``alpha <= P(x|q)/P(x|q') <= 1/alpha``.

>>> spec = GtmSpec.create("1/3", 2, 10)
>>> spec.pmf(0).as_dict()
{0: Fraction(7, 10), 1: Fraction(1, 5), 2: Fraction(1, 10)}
>>> spec.ideal_pmf(0).as_dict()
{0: Fraction(3, 4), 1: Fraction(1, 6), 2: Fraction(1, 12)}
>>> GtmSpec.create("1/3", 2, 36).pmf(0).as_dict() == spec.ideal_pmf(0).as_dict()  # Thm 7.1
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy

try:
    import gmpy2 as _gmpy2
except ImportError:  # pragma: no cover - depends on the installation (optional extra ``fast``)
    _gmpy2 = None

from dpverify.samplers import InvalidArgument, RandomSource, SamplerContractError, gtm
from dpverify.samplers._rational import RationalLike, as_int, as_open_unit_interval, shown
from dpverify.specs._claims import PureDpClaim
from dpverify.specs._pmf import ExactPmf, exact_text
from dpverify.specs._spec import MechanismSpec

#: The largest ``n`` the spec takes (the sampler's own limit is its business).
MAX_N = 100_000

ALPHA = sympy.Symbol("alpha", positive=True)
N, Q, X = sympy.symbols("n q x", integer=True)

#: The paper's ``gtpmf`` (§2) as a SymPy expression in ``alpha, n, q, x``.
IDEAL_PMF = sympy.Piecewise(
    (0, sympy.Or(X < 0, X > N)),
    (ALPHA**Q / (1 + ALPHA), sympy.Eq(X, 0)),
    (ALPHA ** (N - Q) / (1 + ALPHA), sympy.Eq(X, N)),
    ((1 - ALPHA) / (1 + ALPHA) * ALPHA ** sympy.Abs(X - Q), True),
)

#: The closed-form CDF of :data:`IDEAL_PMF` (derivation in the module docstring).
IDEAL_CDF = sympy.Piecewise(
    (0, X < 0),
    (ALPHA ** (Q - X) / (1 + ALPHA), X < Q),
    (1 - ALPHA ** (X + 1 - Q) / (1 + ALPHA), X < N),
    (1, True),
)

#: The implementation's PMF with a uniform of size ``T`` (paper §3).
T_SYMBOL = sympy.Symbol("T", integer=True, positive=True)
FINITE_PMF = (sympy.floor(T_SYMBOL * IDEAL_CDF) - sympy.floor(T_SYMBOL * IDEAL_CDF.subs(X, X - 1))) / T_SYMBOL


@dataclass(frozen=True, slots=True)
class _OffsetCdf:
    """An integer CDF ``C(d)`` indexed by the offset ``d = x - q`` (valid for ``0 <= x < n``),
    with its steps ``C(d) - C(d-1)`` and the value ``total`` it reaches at ``x = n``.

    ``cdf[d + n]`` for ``d = -n .. n-1``; ``steps[i] = cdf[i] - cdf[i-1]`` (``steps[0]`` unused).
    Every row of the table is a slice of these, so rows share their integers.
    """

    cdf: tuple[int, ...]
    steps: tuple[int, ...]
    total: int

    @classmethod
    def of(cls, cdf: list[int], total: int) -> _OffsetCdf:
        return cls(tuple(cdf), (0, *(cdf[i] - cdf[i - 1] for i in range(1, len(cdf)))), total)

    def row(self, n: int, q: int) -> tuple[int, ...]:
        """``C_q(x) - C_q(x-1)`` for ``x = 0..n``, with ``C_q(-1) = 0`` and ``C_q(n) = total``;
        checked to sum to ``total`` (so every PMF built from a row sums to exactly 1)."""
        row = (self.cdf[n - q], *self.steps[n - q + 1 : 2 * n - q], self.total - self.cdf[2 * n - 1 - q])
        if sum(row) != self.total:
            raise SamplerContractError(
                f"GTM row q={q} of n={n} sums to {sum(row)}/{self.total}, not 1; "
                "this is a bug in dpverify.specs.gtm, please report it."
            )
        return row


@lru_cache(maxsize=64)
def _offset_tables(alpha: Fraction, n: int, T: int) -> tuple[_OffsetCdf, _OffsetCdf]:
    """``(floor(T * CDF), CDF * scale)`` by offset, with ``scale = (a+b) * b**n`` for
    ``alpha = a/b``, which makes ``CDF * scale`` an integer for every ``q`` and ``x``."""
    a, b = alpha.numerator, alpha.denominator
    scale = (a + b) * b**n
    # tail[k] = alpha**k/(1+alpha) * scale = a**k * b**(n+1-k), k = 1..n
    tail = [0] * (n + 1)
    a_power, b_powers = 1, [b**e for e in range(n + 2)]
    for k in range(1, n + 1):
        a_power *= a
        tail[k] = a_power * b_powers[n + 1 - k]
    ideal = [tail[-d] if d < 0 else scale - tail[d + 1] for d in range(-n, n)]
    if _gmpy2 is None:
        floored = [T * numerator // scale for numerator in ideal]
    else:
        # Same integers; GMP divides 10^4-digit numbers far faster than CPython's quadratic division.
        T_mpz, scale_mpz = _gmpy2.mpz(T), _gmpy2.mpz(scale)
        floored = [int(T_mpz * numerator // scale_mpz) for numerator in ideal]
    return _OffsetCdf.of(floored, T), _OffsetCdf.of(ideal, scale)


@dataclass(frozen=True, slots=True)
class GtmSpec(MechanismSpec):
    """GTM with ``alpha`` in (0, 1), ``n >= 1`` and a uniform of size ``T >= 1``."""

    alpha: Fraction
    n: int
    T: int
    name = "gtm"

    def __post_init__(self) -> None:
        object.__setattr__(self, "alpha", as_open_unit_interval("alpha", self.alpha))
        object.__setattr__(self, "n", as_int("n", self.n, low=1, high=MAX_N))
        object.__setattr__(self, "T", as_int("T", self.T, low=1))

    @classmethod
    def create(cls, alpha: RationalLike, n: object, T: object) -> GtmSpec:
        """Validate the parameters (the paper's domain: ``alpha`` in (0, 1), ``n >= 1``, ``T >= 1``;
        ``n`` at most ``MAX_N``) and build the spec.  The spec parses for itself, so a change
        to the sampler's checks is a finding about the sampler, never a broken spec."""
        return cls(alpha, n, T)  # type: ignore[arg-type]  # __post_init__ parses them

    def inputs(self) -> tuple[int, ...]:
        return tuple(range(self.n + 1))

    def check_input(self, q: object) -> int:
        """``q`` as an int in ``[0, n]``, or InvalidArgument naming it."""
        return as_int("q", q, low=0, high=self.n)

    def outputs(self) -> tuple[int, ...]:
        return _outputs(self.n)

    def neighbours(self) -> tuple[tuple[int, int], ...]:
        return tuple((q, q + 1) for q in range(self.n))

    def pmf(self, q: object) -> ExactPmf:
        """``P_T(. | q)`` over the common denominator ``T``; ``q`` outside ``0..n`` is refused."""
        q = q if type(q) is int and 0 <= q <= self.n else self.check_input(q)
        floored, _ = _offset_tables(self.alpha, self.n, self.T)
        return ExactPmf(self.outputs(), floored.row(self.n, q), self.T)

    def ideal_pmf(self, q: object) -> ExactPmf:
        """``gtpmf(q, .)`` over the common denominator ``(1+alpha) * b**n``, ``alpha = a/b``;
        ``q`` outside ``0..n`` is refused."""
        q = q if type(q) is int and 0 <= q <= self.n else self.check_input(q)
        _, ideal = _offset_tables(self.alpha, self.n, self.T)
        return ExactPmf(self.outputs(), ideal.row(self.n, q), ideal.total)

    def run(self, q: object, rng: RandomSource) -> int:
        if not isinstance(rng, RandomSource):
            raise InvalidArgument(
                f"rng must be a dpverify.samplers.RandomSource; got rng={shown(rng)} ({type(rng).__name__})."
            )
        return gtm.sample(self.alpha, self.n, self.check_input(q), self.T, rng)

    def claim(self) -> PureDpClaim:
        return PureDpClaim(self.alpha)

    def parameters(self) -> dict[str, str]:
        return {"alpha": exact_text(self.alpha), "n": str(self.n), "T": exact_text(self.T)}

    def uniform_draw_size(self) -> int:
        return self.T

    # --- the paper's bounds -------------------------------------------------------------

    def support_bound(self) -> Fraction:
        """``(1+alpha) / ((1-alpha) * alpha**n)``: with ``T`` at least this, every output in
        ``[0, n]`` has positive probability for every ``q`` (paper §5).  Sufficient, not
        necessary."""
        return (1 + self.alpha) / ((1 - self.alpha) * self.alpha**self.n)

    def theorem_6_2_alpha_prime(self) -> Fraction:
        """Theorem 6.2's degraded ratio bound ``alpha' = (D - 1/T) / (D' + 1/T)`` with
        ``D = (1-alpha)/(1+alpha) * alpha**n`` and ``D' = (1-alpha)/(1+alpha) * alpha**(n-1)``.

        The implementation satisfies ``alpha' <= P_T(x|q)/P_T(x|q') <= 1/alpha'``; the bound
        is vacuous (``<= 0``) when ``T <= 1/D``, and ``1/D`` is exactly :meth:`support_bound`.
        """
        base = (1 - self.alpha) / (1 + self.alpha)
        D = base * self.alpha**self.n
        D_prime = base * self.alpha ** (self.n - 1)
        inverse_T = Fraction(1, self.T)
        return (D - inverse_T) / (D_prime + inverse_T)

    def is_theorem_7_1_instance(self) -> bool:
        """True when ``alpha = 1/D`` for an integer ``D >= 2`` and ``T = (D+1) * D**n``
        (Theorem 7.1: then ``T * CDF_q(x)`` is an integer and ``P_T`` equals ``gtpmf``).
        The paper states ``D > 2``; the argument needs only ``D >= 2``."""
        D = self.alpha.denominator
        return self.alpha.numerator == 1 and self.T == (D + 1) * D**self.n


@lru_cache(maxsize=64)
def _outputs(n: int) -> tuple[int, ...]:
    return tuple(range(n + 1))
