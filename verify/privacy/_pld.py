"""Privacy loss distributions (PLDs) of composed finite mechanisms: exact, or certified bounds.

**Definitions.**  For a neighbouring pair of PMFs ``P`` (the "upper" distribution, ``M(x)``) and
``Q`` (``M(x')``) on a finite output set, the privacy loss of an output ``y`` with ``P(y) > 0`` is
``L(y) = ln(P(y)/Q(y))``, ``+inf`` when ``Q(y) = 0``.  Its distribution under ``P`` is the PLD
``omega = sum_y P(y) [L(y)]``.  The hockey-stick divergence::

    delta(eps) = sum_y max(0, P(y) - e^eps Q(y)) = E_{L ~ omega} [(1 - e^(eps - L))^+]

(for ``P(y) > 0`` the term is ``P(y) (1 - e^eps Q(y)/P(y))^+``; an infinite loss contributes its
whole mass ``p_inf``) is the smallest ``delta`` with ``P(S) <= e^eps Q(S) + delta`` for every set
``S`` of outputs: the pair is ``(eps, delta)``-DP exactly when ``delta(eps) <= delta``.  It is
continuous and non-increasing in ``eps``, so ``eps(delta) = min{eps >= 0 : delta(eps) <= delta}``
(``+inf`` when ``p_inf > delta``).  Running the mechanism ``k`` times on the same input multiplies
the PMFs, so losses add and the PLD of the composition is the convolution ``omega^(*k)``
(Sommer, Meiser, Mohammadi, "Privacy Loss Classes: The Central Limit Theorem in Differential
Privacy", PoPETs 2019, Theorem 1; Meiser, Mohammadi, "Tight on Budget? Tight Bounds for r-Fold
Approximate Differential Privacy", CCS 2018).

**Exact path.**  When every finite loss is an integer multiple of ``ln b`` for one rational
``b > 1`` (every ratio ``P(y)/Q(y)`` is an integer power of ``b``; :func:`common_base` finds the
largest such ``b`` by a multiplicative Euclid algorithm, or proves there is none), the PLD is a
measure on the integers ``j`` (loss ``j ln b``) with exact rational masses ``p_j``: composing is
an exact integer convolution (Kronecker substitution, :mod:`dpverify.verify.privacy._convolution`), a
k-fold composition is computed by squaring.  A Theorem 7.1 GTM (Amorim, Gaboardi, Rindisbacher,
"Verified Differential Privacy for Finite Computers": ``alpha = 1/D``, ``T = (D+1) D^n``) has
ratios exactly ``D`` and ``1/D`` between neighbours, so ``b = D``.  Then::

    delta(eps) = p_inf + sum_j p_j (1 - e^eps b^-j)^+ = A - e^eps B,
    A = p_inf + sum_{j > eps/ln b} p_j,     B = sum_{j > eps/ln b} p_j b^-j,

with exact rationals ``A, B`` on each piece between consecutive ``j ln b``: ``delta`` is an exact
rational whenever ``e^eps`` is rational (``eps = ln R``, e.g. ``m ln b``:
:meth:`PrivacyLossDistribution.delta_at_log`) and otherwise is enclosed with certified digits;
``eps(delta) = ln((A - delta)/B)`` on the piece where ``delta`` falls, the log of an exact
rational ``R``, reported as ``R`` with a certified enclosure of ``ln R``.

The certified path (any other ratios) and why both of its bounds are sound are explained in
:mod:`dpverify.verify.privacy._pld_certified`; enclosures and ``epsilon`` queries are in
:mod:`dpverify.verify.privacy._pld_enclosure`, the common base and the lattices in
:mod:`dpverify.verify.privacy._pld_lattice`, the exact path's composition in
:mod:`dpverify.verify.privacy._pld_exact`.  This module holds :class:`PrivacyLossDistribution`:
construction, composition and the ``delta``/``epsilon`` queries of both paths.

The worst case over neighbouring inputs, and claims about a composition, are in
:mod:`dpverify.verify.privacy._pld_worst_case`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from fractions import Fraction
from math import lcm
from typing import Any, cast

from mpmath import iv

from dpverify.samplers import InvalidArgument, as_fraction
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf
from dpverify.specs._claims import _at_least_zero
from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.verify.engine._arguments import need_count, need_dps, need_instance
from dpverify.verify.engine._text import short_rational
from dpverify.verify.privacy._pld_certified import (
    _certified_compose,
    _CertifiedState,
    _discretise,
    _exact_to_certified,
    _fft_self_compose,
    _ratio_atoms,
    _Side,
    _side_scanner,
)
from dpverify.verify.privacy._pld_enclosure import (
    _INFINITE,
    Enclosure,
    _at_least,
    _enclosure_of,
    _Eps,
    _exact_value,
    _floor_of,
    _log_enclosure,
    _lower,
    _upper,
)
from dpverify.verify.privacy._pld_exact import _exact_compose, _exact_scanner, _ExactState
from dpverify.verify.privacy._pld_lattice import (
    _common_base,
    _height,
    _ilog,
    _Lattice,
    _need_packed,
    _need_points,
    _Scanner,
)

__all__ = [
    "AUTO_POINTS",
    "DEFAULT_BITS",
    "DEFAULT_DPS",
    "DEFAULT_GRID",
    "MAX_COMPOSITIONS",
    "PrivacyLossDistribution",
]

#: Grid width ``Delta`` of the certified path when none is given (as dp-accounting's default).
DEFAULT_GRID = Fraction(1, 10**4)
#: Fractional bits of the certified path's fixed-point masses.
DEFAULT_BITS = 64
#: Certified digits of an exact value's enclosure (relative width ``10^-dps``).
DEFAULT_DPS = 30
#: Most compositions one call may ask for.
MAX_COMPOSITIONS = 10_000
#: With ``grid=None``, :func:`composed_delta` and friends pick the finest grid ``DEFAULT_GRID * 2^m``
#: whose k-fold span has at most this many points (GMP big integers; fewer without them).
AUTO_POINTS = {"gmpy2": 1 << 16, "python": 1 << 14}

_MIN_GRID = Fraction(1, 10**9)
_MIN_BITS, _MAX_BITS = 16, 1024

Pmf = Mapping[Hashable, Any] | ExactPmf
State = _ExactState | _CertifiedState


# --- the public object --------------------------------------------------------------------------


def _pmf_dict(name: str, value: object) -> dict[Hashable, Fraction]:
    """``{output: probability}`` from a Mapping or an ExactPmf: exact rationals in [0, 1], total 1."""
    if isinstance(value, ExactPmf):
        masses = value.as_dict()
    elif isinstance(value, Mapping):
        masses = {}
        for output, mass in value.items():
            masses[output] = as_fraction(f"{name}[{shown(output)}]", mass)
    else:
        raise InvalidArgument(
            f"{name} must be a PMF {{output: Fraction}} or an ExactPmf; got {name}={shown(value)} "
            f"({type(value).__name__})."
        )
    for output, mass in masses.items():
        if not 0 <= mass <= 1:
            raise InvalidArgument(f"{name}[{shown(output)}] must be a probability in [0, 1]; got {shown(mass)}.")
    total = sum(masses.values(), Fraction(0))
    if total != 1:
        raise InvalidArgument(f"{name} must sum to 1; got total={shown(total)}.")
    return masses


def _atoms(
    upper: Mapping[Hashable, Fraction], lower: Mapping[Hashable, Fraction]
) -> tuple[dict[Fraction, Fraction], Fraction]:
    """``({ratio P/Q: mass under P}, p_inf)`` over the outputs with ``P > 0``."""
    atoms: dict[Fraction, Fraction] = {}
    inf = Fraction(0)
    for output, p in upper.items():
        if not p:
            continue
        q = lower.get(output, Fraction(0))
        if not q:
            inf += p
        else:
            atoms[p / q] = atoms.get(p / q, Fraction(0)) + p
    return atoms, inf


def _need_grid(grid: object) -> Fraction:
    if grid is None:
        return DEFAULT_GRID
    value = as_fraction("grid", grid)
    if not _MIN_GRID <= value <= 1:
        raise InvalidArgument(f'grid must be a rational in [1/10^9, 1]; got grid={shown(value)}. Pass it as "1/10^4".')
    return value


def _need_bits(bits: object) -> int:
    return need_count("bits", bits, low=_MIN_BITS, high=_MAX_BITS)


def _need_delta(delta: object) -> Fraction:
    value = as_fraction("delta", delta)
    if not 0 <= value <= 1:
        raise InvalidArgument(f'delta must be a rational in [0, 1]; got delta={shown(value)}. Pass it as "1/10^6".')
    return value


def _need_epsilon(epsilon: object) -> Fraction:
    return _at_least_zero("epsilon", epsilon)


_METHODS = ("auto", "exact", "certified")


class PrivacyLossDistribution:
    """The PLD of an ordered pair of PMFs (``P`` upper, ``Q`` lower), exact or certified; see the
    module docstring for the mathematics.  Build it with :meth:`from_pmfs`; compose with
    :meth:`compose` and :meth:`self_compose`; read :meth:`delta`, :meth:`delta_at_log` and
    :meth:`epsilon`, each an :class:`Enclosure`.

    >>> P = {0: Fraction(2, 3), 1: Fraction(1, 3)}      # randomized response, ratio 2
    >>> pld = PrivacyLossDistribution.from_pmfs(P, {0: Fraction(1, 3), 1: Fraction(2, 3)})
    >>> pld.exact, pld.base, pld.loss_masses()
    (True, Fraction(2, 1), {-1: Fraction(1, 3), 1: Fraction(2, 3)})
    >>> pld.self_compose(2).delta_at_log(2).value        # delta(ln 2) of the 2-fold product
    Fraction(2, 9)
    """

    __slots__ = ("_state", "_grid", "_bits", "_compositions", "_cache")

    def __init__(
        self, state: object, grid: object = None, bits: object = DEFAULT_BITS, compositions: object = 1
    ) -> None:
        need_instance(
            "state",
            state,
            (_ExactState, _CertifiedState),
            "a PLD state; build a PrivacyLossDistribution with PrivacyLossDistribution.from_pmfs(P, Q)",
        )
        self._state = cast(State, state)  # need_instance checked it is one
        self._grid = _need_grid(grid)
        self._bits = _need_bits(bits)
        self._compositions = need_count("compositions", compositions, low=1)
        self._cache: dict[str, Any] = {}

    # --- construction ---------------------------------------------------------------------------

    @classmethod
    def from_pmfs(
        cls, upper: Pmf, lower: Pmf, *, method: str = "auto", grid: object = None, bits: object = DEFAULT_BITS
    ) -> PrivacyLossDistribution:
        """The PLD of ``L = ln(P/Q)`` under ``P = upper``, for ``Q = lower``.

        ``upper``/``lower``: ``{output: probability}`` (exact rationals, summing to 1) or
        :class:`~dpverify.specs.ExactPmf`.  ``method``: ``"auto"`` (exact when the ratios have a
        common base, certified otherwise), ``"exact"`` (refused when there is no common base) or
        ``"certified"``.  ``grid`` (rational ``Delta``, default ``DEFAULT_GRID``) and ``bits``
        (fixed-point bits, default ``DEFAULT_BITS``) set the certified path, also used when an
        exact PLD is later composed with one that has no common base.
        """
        P, Q = _pmf_dict("upper", upper), _pmf_dict("lower", lower)
        if method not in _METHODS:
            raise InvalidArgument(f"method must be one of {', '.join(_METHODS)}; got method={shown(method)}.")
        grid_, bits_ = _need_grid(grid), _need_bits(bits)
        atoms, inf = _atoms(P, Q)
        found = _common_base(list(atoms)) if method != "certified" else None
        if found is None:
            if method == "exact":
                raise InvalidArgument(
                    "method='exact' needs every ratio P/Q to be an integer power of one rational; "
                    f"these ratios are not (e.g. {', '.join(short_rational(r) for r in list(atoms)[:3])}). "
                    "Use method='auto' or 'certified'."
                )
            return cls(_discretise(_ratio_atoms(atoms, grid_), inf, grid_, bits_), grid_, bits_)
        base, exponents = found
        denominator = lcm(*(m.denominator for m in atoms.values())) if atoms else 1
        masses: dict[int, int] = {}
        for j, m in zip(exponents, atoms.values(), strict=True):
            masses[j] = masses.get(j, 0) + m.numerator * (denominator // m.denominator)
        return cls(_ExactState(base, _Lattice.of(masses, denominator), inf), grid_, bits_)

    # --- what it is -----------------------------------------------------------------------------

    @property
    def exact(self) -> bool:
        """True on the exact path (losses on ``j ln base`` with exact masses)."""
        return isinstance(self._state, _ExactState)

    @property
    def base(self) -> Fraction | None:
        """The base ``b`` of the exact path's losses ``j ln b`` (None when every loss is 0 or certified)."""
        return self._state.base if isinstance(self._state, _ExactState) else None

    @property
    def grid(self) -> Fraction:
        """The certified path's grid width ``Delta`` (what an exact PLD would use if discretised)."""
        return self._state.grid if isinstance(self._state, _CertifiedState) else self._grid

    @property
    def bits(self) -> int:
        return self._state.bits if isinstance(self._state, _CertifiedState) else self._bits

    @property
    def compositions(self) -> int:
        """How many base PLDs this one composes (``k`` after ``self_compose(k)``)."""
        return self._compositions

    @property
    def infinity_mass(self) -> Fraction:
        """The exact mass of ``L = +inf`` (outputs with ``Q = 0 < P``): ``delta(eps) >= infinity_mass``."""
        return self._state.inf

    @property
    def points(self) -> int:
        """Lattice points held."""
        state = self._state
        if isinstance(state, _ExactState):
            return len(state.lattice.weights)
        return len(state.side.lattice.weights)

    def loss_masses(self) -> dict[int, Fraction]:
        """Exact path: ``{j: mass}`` with the loss ``j ln base``; the mass at ``+inf`` is :attr:`infinity_mass`."""
        state = self._state
        if not isinstance(state, _ExactState):
            raise InvalidArgument(
                f"loss_masses needs an exact PLD; this one is certified (grid={state.grid}): "
                "read delta() and epsilon() instead."
            )
        lattice = state.lattice
        return {lattice.offset + i: Fraction(w, lattice.scale) for i, w in enumerate(lattice.weights) if w}

    def __repr__(self) -> str:
        state = self._state
        if isinstance(state, _ExactState):
            return (
                f"PrivacyLossDistribution(exact, base={state.base}, points={self.points}, "
                f"compositions={self._compositions})"
            )
        return (
            f"PrivacyLossDistribution(certified, grid={state.grid}, bits={state.bits}, points={self.points}, "
            f"compositions={self._compositions})"
        )

    # --- composition ----------------------------------------------------------------------------

    def compose(self, other: PrivacyLossDistribution) -> PrivacyLossDistribution:
        """The PLD of the two mechanisms run one after the other (the convolution).  Exact when both
        are exact with commensurable bases; otherwise certified on the grid of the certified one
        (both certified: their grids and bits must agree), or on this one's grid."""
        need_instance("other", other, PrivacyLossDistribution, "a PrivacyLossDistribution")
        a, b = self._state, other._state
        count = self._compositions + other._compositions
        if isinstance(a, _ExactState) and isinstance(b, _ExactState):
            composed = _exact_compose(a, b)
            if composed is not None:
                return PrivacyLossDistribution(composed, self._grid, self._bits, count)
        grid, bits = (
            (a.grid, a.bits)
            if isinstance(a, _CertifiedState)
            else ((b.grid, b.bits) if isinstance(b, _CertifiedState) else (self._grid, self._bits))
        )
        if isinstance(a, _CertifiedState) and isinstance(b, _CertifiedState) and (a.grid, a.bits) != (b.grid, b.bits):
            raise InvalidArgument(
                f"other must share this PLD's grid and bits; got grid={b.grid}, bits={b.bits} "
                f"against grid={a.grid}, bits={a.bits}. Build both with the same grid and bits."
            )
        first = a if isinstance(a, _CertifiedState) else _exact_to_certified(a, grid, bits)
        second = b if isinstance(b, _CertifiedState) else _exact_to_certified(b, grid, bits)
        return PrivacyLossDistribution(_certified_compose(first, second), grid, bits, count)

    def self_compose(self, k: object) -> PrivacyLossDistribution:
        """The k-fold composition (``1 <= k <= MAX_COMPOSITIONS``), by squaring; a large certified
        one by one FFT power with a certified slack (``dpverify.verify.privacy._fft_power``).
        Refused before any work when the result would pass ``MAX_POINTS`` points."""
        k_ = need_count("k", k, low=1, high=MAX_COMPOSITIONS)
        state = self._state
        if isinstance(state, _ExactState):
            lattice = state.lattice
            if lattice.weights:
                length = k_ * (len(lattice.weights) - 1) + 1
                _need_points(length, f"the {k_}-fold composition")
                _need_packed(length, 2 * k_ * max(lattice.scale.bit_length(), 1) + 64, f"the {k_}-fold composition")
        else:
            _need_points(k_ * (self.points - 1) + 1, f"the {k_}-fold composition")

        def multiply(x: State, y: State) -> State:
            # a self-composition: x and y are states of the same kind
            if isinstance(x, _ExactState):
                assert isinstance(y, _ExactState)
                composed = _exact_compose(x, y)
                assert composed is not None  # same base
                return composed
            assert isinstance(y, _CertifiedState)
            return _certified_compose(x, y)

        if isinstance(state, _CertifiedState):
            fast = _fft_self_compose(state, k_)
            if fast is not None:
                return PrivacyLossDistribution(fast, self._grid, self._bits, self._compositions * k_)
        # left to right: every large product is a square (cheaper than a product of two), and the
        # odd steps multiply by the one-fold PLD, the shortest there is
        result = state
        for bit in bin(k_)[3:]:
            result = multiply(result, result)
            if bit == "1":
                result = multiply(result, state)
        return PrivacyLossDistribution(result, self._grid, self._bits, self._compositions * k_)

    # --- delta ----------------------------------------------------------------------------------

    def delta(self, epsilon: object, *, dps: object = DEFAULT_DPS) -> Enclosure:
        """``delta(epsilon)`` for a rational ``epsilon >= 0``: exact path, an enclosure of relative
        width ``<= 10^-dps`` with ``affine = (A, B)`` (``delta = A - e^eps B`` exactly), or the
        exact rational at ``epsilon = 0``; certified path, ``[delta_low, delta_high]``."""
        return self._delta(_Eps(rational=_need_epsilon(epsilon)), need_dps(dps))

    def delta_at_log(self, ratio: object, *, dps: object = DEFAULT_DPS) -> Enclosure:
        """``delta(ln ratio)`` for a rational ``ratio >= 1`` (so ``e^epsilon`` is rational): an exact
        rational on the exact path (e.g. ``ratio = b^m``), certified bounds otherwise."""
        value = as_fraction("ratio", ratio)
        if value < 1:
            raise InvalidArgument(f"ratio must be a rational >= 1 (epsilon = ln ratio >= 0); got ratio={shown(value)}.")
        return self._delta(_Eps(log_of=value), need_dps(dps))

    def _delta(self, eps: _Eps, dps: int) -> Enclosure:
        state = self._state
        if isinstance(state, _ExactState):
            return self._exact_delta(state, eps, dps)
        if state.support_top is None or _at_least(eps, state.support_top * state.grid):
            return _exact_value(state.inf)  # past every finite loss
        high = self._side_delta(state.upper, state, eps)
        low = self._side_delta(state.lower, state, eps)
        return Enclosure(min(low, high), high)

    def _exact_delta(self, state: _ExactState, eps: _Eps, dps: int) -> Enclosure:
        lattice, p = state.lattice, state.inf
        if not lattice.weights or lattice.top <= 0 or state.base is None:
            return _exact_value(p)  # no positive finite loss: delta(eps >= 0) = p_inf
        base = state.base
        exact_exp = eps.exp_exact()
        if eps.log_of is not None:
            found = _ilog(eps.log_of, base, lattice.top)
            j = lattice.top if found is None else found
        elif eps.rational == 0:
            j = 0
        else:
            j = _floor_of(lambda: iv_rational(eps.exact()) / iv.log(iv_rational(base)), 64 + eps.bits() + _height(base))
        if j >= lattice.top:
            return _exact_value(p)
        scanner, stop = self._exact_scan(state)
        j = max(j, stop)
        a, t, big_u = scanner.state(j)
        constant = p + Fraction(a, lattice.scale)
        factor = Fraction(t, big_u * lattice.scale) * base ** (-j)  # sum_{i>j} p_i b^-i
        if exact_exp is not None:
            return _exact_value(constant - exact_exp * factor)
        return _enclosure_of(
            lambda: iv_rational(constant) - eps.exp_interval() * iv_rational(factor), dps, affine=(constant, factor)
        )

    def _exact_scan(self, state: _ExactState) -> tuple[_Scanner, int]:
        if "exact" not in self._cache:
            stop = max(0, state.lattice.offset - 1)
            self._cache["exact"] = (_exact_scanner(state, stop), stop)
        cached: tuple[_Scanner, int] = self._cache["exact"]
        return cached

    def _side_scan(self, side: _Side, state: _CertifiedState) -> tuple[_Scanner, int, int]:
        key = "upper" if side.upper else "lower"
        if key not in self._cache:
            stop = max(0, side.lattice.offset - 1)
            scanner, precision = _side_scanner(side, state.grid, state.bits, stop)
            self._cache[key] = (scanner, precision, stop)
        cached: tuple[_Scanner, int, int] = self._cache[key]
        return cached

    def _side_delta(self, side: _Side, state: _CertifiedState, eps: _Eps) -> Fraction:
        """An upper (upper side) or lower (lower side) bound on ``delta(eps)``."""
        lattice, grid, bits = side.lattice, state.grid, state.bits
        constant = side.inf if side.upper else max(Fraction(0), side.inf)
        if not lattice.weights or lattice.top <= 0:
            return constant
        if eps.log_of is None:
            j = int(eps.exact() // grid)
        elif eps.log_of == 1:
            j = 0
        else:
            j = _floor_of(lambda: eps.interval() / iv_rational(grid), 64 + eps.bits())
        if j >= lattice.top:
            return constant
        scanner, precision, stop = self._side_scan(side, state)
        j = max(j, stop)
        a, t = scanner.state(j)
        # delta = inf + (a - e^(eps - j grid) t / 2^P) / 2^bits on the piece j grid <= eps < (j+1) grid
        with interval_precision(bits + precision + 64 + eps.bits()):
            shift = eps.interval() - iv_rational(j * grid)
            value = iv_rational(side.inf) + (
                iv_rational(Fraction(a, 1 << bits)) - iv.exp(shift) * iv_rational(Fraction(t, 1 << (bits + precision)))
            )
        return _upper(value) if side.upper else max(Fraction(0), _lower(value))

    # --- epsilon --------------------------------------------------------------------------------

    def epsilon(self, delta: object, *, dps: object = DEFAULT_DPS) -> Enclosure:
        """``eps(delta) = min{eps >= 0 : delta(eps) <= delta}`` for a rational ``delta`` in [0, 1]:
        exact path, ``ln R`` for an exact rational ``R`` (``log_argument``) with an enclosure of
        relative width ``<= 10^-dps``; certified path, ``[eps_low, eps_high]``; ``+inf`` (None ends)
        when ``infinity_mass > delta``."""
        target, dps_ = _need_delta(delta), need_dps(dps)
        state = self._state
        if state.inf > target:
            return _INFINITE
        if isinstance(state, _ExactState):
            return self._exact_epsilon(state, target, dps_)
        high = self._side_epsilon(state.upper, state, target)
        if state.support_top is None:
            high = Fraction(0)  # no finite loss: delta(eps) = inf <= target for every eps
        elif high is None or high > state.support_top * state.grid:
            high = max(Fraction(0), state.support_top * state.grid)  # delta = inf <= target past every finite loss
        low = self._side_epsilon(state.lower, state, target)
        assert low is not None  # the lower side's mass at +inf is at most the exact one
        return Enclosure(low if high is None else min(low, high), high)

    def _exact_epsilon(self, state: _ExactState, target: Fraction, dps: int) -> Enclosure:
        lattice, p = state.lattice, state.inf
        if not lattice.weights or lattice.top <= 0 or state.base is None:
            return _log_enclosure(Fraction(1), dps)
        base, d = state.base, lattice.scale
        scanner, stop = self._exact_scan(state)
        gap = p - target  # < = 0 here
        num, den = gap.numerator, gap.denominator

        def above(s: tuple[int, int, int]) -> bool:  # delta(j ln b) > target
            a, t, big_u = s
            return num * d * big_u + den * (a * big_u - t) > 0

        found = scanner.largest(above)
        if found is None:
            if stop == 0:
                return _log_enclosure(Fraction(1), dps)
            j, s = stop, scanner.state(stop)  # all atoms above: one smooth piece down to eps = 0
        else:
            j, s = found
        a, t, big_u = s
        # target = p + (a - e^eps b^-j t/U)/d  <=>  e^eps = b^j (p + a/d - target) d U / t
        argument = base**j * (p - target + Fraction(a, d)) * d * big_u / t
        return _log_enclosure(argument, dps)

    def _side_epsilon(self, side: _Side, state: _CertifiedState, target: Fraction) -> Fraction | None:
        """``eps_high`` (upper side) or ``eps_low`` (lower side); None for ``+inf``."""
        if side.inf > target:
            return None
        lattice, grid, bits = side.lattice, state.grid, state.bits
        if not lattice.weights or lattice.top <= 0:
            return Fraction(0)
        scanner, precision, stop = self._side_scan(side, state)
        gap = side.inf - target
        num, den = gap.numerator, gap.denominator
        shift_bits = bits + precision

        def above(s: tuple[int, int]) -> bool:  # the side's delta(j grid) > target
            a, t = s
            return num * (1 << shift_bits) + den * ((a << precision) - t) > 0

        found = scanner.largest(above)
        if found is None:
            if stop == 0:
                return Fraction(0)
            j, s = stop, scanner.state(stop)
        else:
            j, s = found
        a, t = s
        if t <= 0:  # nothing to solve with: the piece's right end (upper) or left end (lower)
            return (j + 1) * grid if side.upper else j * grid
        # target = inf + (a - e^(eps - j grid) t/2^P)/2^bits  <=>  eps = j grid + ln X
        x = ((side.inf - target) * (1 << bits) + a) * (1 << precision) / t
        if x <= 0:
            return (j + 1) * grid if side.upper else max(Fraction(0), j * grid)
        with interval_precision(precision + 64 + (j * grid).numerator.bit_length()):
            solved = iv_rational(j * grid) + iv.log(iv_rational(x))
        if side.upper:
            return max(Fraction(0), min(_upper(solved), (j + 1) * grid))
        return max(Fraction(0), j * grid if found is not None else Fraction(0), _lower(solved))
