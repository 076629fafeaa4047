"""The certified path: losses moved onto a grid, fixed-point masses rounded up, and certified
lower and upper bounds on ``delta`` read from one pessimistic measure.

**Certified path** (any other ratios, e.g. a GTM with an arbitrary ``T``).  Each loss is moved
onto a grid ``i * Delta`` (``Delta`` rational): up to the next grid point on the *pessimistic*
side, down on the *optimistic* side.  ``ln r / Delta`` is irrational for rational ``r != 1``
(Lindemann–Weierstrass), so its floor and ceiling are decided with ``mpmath.iv`` intervals at
rising precision, and the floor is the ceiling minus one (a loss 0 is moved down to ``-Delta``,
which is sound too): the optimistic PLD is the pessimistic one moved down by one grid point per
round, so one chain of convolutions serves both.  Masses are fixed point with ``bits``
fractional bits, rounded up and re-rounded up after every convolution (exact integer products);
tails lighter than ``2^(bits/4)`` units are cut (the bottom moved up onto the first kept point,
the top to ``+inf``).  The computed measure then dominates the pessimistic PLD, and exceeds it
on every non-decreasing ``h`` with values in ``[0, 1]`` by at most a tracked ``excess`` (the
mass the rounding added and the cuts moved, carried through each convolution as
``E_a * mass_b + E_b``), so read at the optimistic losses and less ``excess`` it is a lower
bound.  Then ``delta_low(eps) <= delta(eps) <= delta_high(eps)`` for every ``eps``, and
``eps_low <= eps(delta) <= eps_high``; the gap is reported (about ``k * Delta`` in ``eps``).
This is the pessimistic/optimistic discretisation of Meiser–Mohammadi (2018), Koskela, Jälkö,
Honkela ("Computing Tight Differential Privacy Guarantees Using FFT", AISTATS 2020) and Google's
dp-accounting PLD, with exact integer convolutions and directed rounding; a large k-fold
self-composition is one float FFT power whose error is bounded a priori (below).

**Why both bounds are sound.**  The integrand ``g(L) = (1 - e^(eps - L))^+`` is non-negative,
non-decreasing in ``L`` and at most 1 (``1`` at ``+inf``).  Say a measure ``mu`` on
``[-inf, +inf]`` *dominates* ``omega`` when ``int g dmu >= int g domega`` for every such ``g``.
Domination is kept by moving mass to higher losses (rounding losses up, moving a tail to
``+inf``) and by adding mass (rounding masses up), and by convolution: the top part of mass 1 of
a dominating ``mu`` is above ``omega`` in the usual stochastic order, which convolution
preserves, and the rest of ``mu`` only adds non-negative integrals.  So the computed measure
gives ``delta_high``.  For the lower bound: rounding every loss down gives a PLD ``omega_down``
with ``delta_omega_down <= delta``, and ``omega_down`` is the pessimistic PLD ``omega_up`` moved
``shift`` grid points down, so ``delta_omega_down(eps) = int h domega_up`` with
``h(L) = g(L - shift * Delta)``, again non-decreasing with values in ``[0, 1]``; the computed
measure exceeds ``int h domega_up`` by at most ``excess``, so reading it ``shift`` points lower,
less ``excess``, gives ``delta_low``.  Every comparison of an irrational number is made with
outward-rounded intervals, and every fixed-point sum of ``e^(-i Delta)`` is rounded the safe way
for the bound it serves.

**The FFT power** (:mod:`dpverify.verify.privacy._fft_power`).  ``self_compose(k)`` of a large
certified state takes the k-fold of ``side`` with one float FFT power instead of ``log2 k`` exact
convolutions.  Let ``H`` be the non-decreasing ``h`` with values in ``[0, 1]`` and ``h(+inf) = 1``:
every reading is such an ``h`` (``g`` and its shifts), and the invariant of
:class:`_CertifiedState` is only ever used on ``H``.  ``H`` is kept by composition: for ``h`` in
``H`` and a probability measure ``omega``, ``x -> h(x + z)`` and ``z -> int h(x + z) domega(x)``
are in ``H``, so the argument of :func:`_certified_compose` goes through on ``H`` (``side``
dominating ``omega`` on ``H``: ``int h(x+y) dside_a(x) >= int h(x+y) domega_a(x) =: psi(y)``, with
``psi`` in ``H``).  Let ``nu = side^(*k)`` exactly: it dominates ``omega^(*k)`` and exceeds it by
at most ``E_k = excess (1 + m + ... + m^(k-1))`` on ``H`` (``m`` the side's mass; the rule
``E_a mass_b + E_b`` applied ``k - 1`` times).  The FFT gives a measure ``mu`` on a window with
``||mu - nu|_window||_1 + nu(finite, outside the window) <= slack``, so for every ``h`` in ``H``
``|int h dmu + int h d(nu at +inf) - int h dnu| <= slack``.  The new side is ``mu`` with
``nu``'s mass at ``+inf`` plus ``slack`` there (``h(+inf) = 1``): it dominates ``nu``, hence
``omega^(*k)``, on ``H``, and exceeds ``nu`` by at most ``2 slack``, so its excess is
``E_k + 2 slack`` (plus what :func:`_trim_tails` moves).  Both readings of
:class:`~dpverify.verify.privacy._pld.PrivacyLossDistribution` then stay bounds: ``delta_high`` is ``mu``'s reading plus
``slack``, ``delta_low`` the optimistic reading less ``E_k`` and ``slack``.

Its own module because the exact path (:mod:`dpverify.verify.privacy._pld_exact`) needs none of
this rounding; an exact PLD is discretised here when it meets a certified one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from mpmath import iv, libmp

from dpverify.specs._enclosure import interval_precision, iv_rational
from dpverify.verify.privacy import _convolution
from dpverify.verify.privacy._pld_enclosure import _floor_ceil
from dpverify.verify.privacy._pld_exact import _ExactState
from dpverify.verify.privacy._pld_lattice import _height, _Lattice, _need_packed, _need_points, _Scanner

try:  # optional (the extra "numpy"): the FFT power and the block scans; without it, exact GMP products and scans
    from dpverify.verify.privacy import _block_scan, _fft_power
except ImportError:  # pragma: no cover - depends on the installation
    _block_scan = _fft_power = None  # type: ignore[assignment]  # optional modules: None marks them absent

__all__: list[str] = []


@dataclass(frozen=True, slots=True)
class _Side:
    """A measure with mass ``weights / 2^bits`` at the loss ``i * grid`` and ``inf`` at ``+inf``,
    read as an upper bound on ``delta`` (``upper``) or a lower one."""

    lattice: _Lattice
    inf: Fraction
    upper: bool

    def mass(self) -> Fraction:
        return self.lattice.total() + self.inf


@dataclass(frozen=True, slots=True)
class _CertifiedState:
    """A certified PLD: the pessimistic measure ``side``, which dominates the exact PLD ``omega``
    of the losses rounded *up* to the grid, and from which both bounds are read.

    ``shift``: rounding each round's losses *down* instead gives exactly ``omega`` moved down by
    ``shift`` grid points (every atom's floor is its ceiling minus one, a loss 0 is moved to
    ``-grid``), so the optimistic measure is ``omega`` read ``shift * grid`` lower.  ``excess``
    bounds ``int h d(side) - int h d(omega)`` for every non-decreasing ``h`` with values in
    ``[0, 1]`` and ``h(+inf) = 1`` (every reading is one): what rounding masses up added, what
    cutting tails moved up, and twice the slack of an FFT power.  ``inf``: the exact
    mass at ``+inf``; ``support_top``: every finite loss is at most ``support_top * grid`` (None:
    there is none), so ``delta(eps) = inf`` exactly from there on.
    """

    grid: Fraction
    bits: int
    side: _Side
    shift: int
    excess: Fraction
    inf: Fraction
    support_top: int | None

    @property
    def upper(self) -> _Side:
        return self.side

    @property
    def lower(self) -> _Side:
        """The optimistic reading: ``side`` moved ``shift`` points down, ``excess`` taken off."""
        lattice = self.side.lattice
        return _Side(
            _Lattice(lattice.offset - self.shift, lattice.weights, lattice.scale), self.side.inf - self.excess, False
        )


def _compose_sides(a: _Side, b: _Side, bits: int) -> tuple[_Side, Fraction]:
    """The convolution of two pessimistic sides, masses re-rounded up to ``bits``, thin tails cut
    (:func:`_trim_tails`), the mass at ``+inf`` computed exactly from the two measures; and what
    the rounding added plus what the cut moved."""
    inf = a.inf * b.mass() + (a.mass() - a.inf) * b.inf
    if not a.lattice.weights or not b.lattice.weights:
        return _Side(_Lattice(0, (), 1 << bits), inf, True), Fraction(0)
    length = len(a.lattice.weights) + len(b.lattice.weights) - 1
    _need_points(length)
    _need_packed(length, 2 * bits + 2 + length.bit_length(), "the convolution")
    weights = _convolution.convolve(
        a.lattice.weights, a.lattice.weights if a is b else b.lattice.weights, shift=bits, round_up=True
    )
    # the exact products sum to sum(a) * sum(b) in units of 2^-2bits
    added = Fraction((sum(weights) << bits) - sum(a.lattice.weights) * sum(b.lattice.weights), 1 << (2 * bits))
    side, moved = _trim_tails(a.lattice.offset + b.lattice.offset, weights, inf, bits)
    return side, added + moved


def _trim_tails(offset: int, weights: list[int], inf: Fraction, bits: int) -> tuple[_Side, Fraction]:
    """Cut the tails of at most ``2^(bits//4)`` units each: the bottom is moved up onto the first
    kept point and the top to ``+inf`` (losses only rise); returns the side and the mass moved."""
    budget = 1 << (bits // 4)
    start, end, bottom = 0, len(weights), 0
    while start < end and bottom + weights[start] <= budget:
        bottom += weights[start]
        start += 1
    top = 0
    while end > start and top + weights[end - 1] <= budget:
        top += weights[end - 1]
        end -= 1
    kept = weights[start:end]
    scale = 1 << bits
    if kept:
        kept[0] += bottom
        # both ends are positive: each loop stopped at a weight past what was left of its budget
        lattice = _Lattice(offset + start, tuple(kept), scale)
    else:
        top += bottom  # everything went: to +inf
        lattice = _Lattice(0, (), scale)
    return _Side(lattice, inf + Fraction(top, scale), True), Fraction(bottom + top, scale)


def _certified_compose(a: _CertifiedState, b: _CertifiedState) -> _CertifiedState:
    """The composition.  If ``side_a`` exceeds ``omega_a`` by at most ``E_a`` on every ``h`` (see
    :class:`_CertifiedState`), then ``side_a * side_b`` exceeds ``omega_a * omega_b`` by at most
    ``E_a * mass(side_b) + E_b`` (``x -> h(x + z)`` is again such an ``h``), plus this
    composition's own rounding and cuts."""
    side, own = _compose_sides(a.side, b.side, a.bits)
    top = None if a.support_top is None or b.support_top is None else a.support_top + b.support_top
    return _CertifiedState(
        a.grid,
        a.bits,
        side,
        a.shift + b.shift,
        a.excess * b.side.mass() + b.excess + own,
        a.inf + b.inf - a.inf * b.inf,
        top,
    )


#: Largest slack of an FFT power that is used; past it the exact convolutions run instead.
FFT_SLACK = Fraction(1, 1 << 28)
#: Fewest points of the k-fold for which ``self_compose`` tries the FFT power.
FFT_POINTS = 1 << 14


def _fft_self_compose(state: _CertifiedState, k: int) -> _CertifiedState | None:
    """The k-fold composition by one FFT power (see the module docstring), or None when it does
    not apply (too few points, masses past a float's range) or its slack passes :data:`FFT_SLACK`."""
    side, bits = state.side, state.bits
    weights = side.lattice.weights
    if _fft_power is None or k < 2 or not weights or bits > 960 or k * (len(weights) - 1) + 1 < FFT_POINTS:
        return None
    if (k * len(weights)).bit_length() > bits - 28:
        return None  # the rounding of the reading alone (window / 2^bits) would pass FFT_SLACK
    power = _fft_power.fft_power(weights, bits, k)
    if power.slack > FFT_SLACK:
        return None
    mass, inf = side.mass(), side.inf
    nu_inf = mass**k - (mass - inf) ** k
    geometric = Fraction(k) if mass == 1 else (mass**k - 1) / (mass - 1)
    offset = k * side.lattice.offset + power.low
    new_side, moved = _trim_tails(offset, power.weights, nu_inf + power.slack, bits)
    kept = new_side.lattice.weights
    if power.array is not None and kept and kept[0] >> 64 == 0:
        start = new_side.lattice.offset - offset
        array = power.array[start : start + len(kept)].copy()
        array[0] = kept[0]  # the bottom cut moved onto the first kept point
        _block_scan.remember(kept, array)
    top = None if state.support_top is None else k * state.support_top
    return _CertifiedState(
        state.grid,
        bits,
        new_side,
        k * state.shift,
        state.excess * geometric + 2 * power.slack + moved,
        1 - (1 - state.inf) ** k,
        top,
    )


# --- discretisation -----------------------------------------------------------------------------


def _discretise(
    atoms: Sequence[tuple[Callable[[], iv.mpf] | None, int, Fraction]], inf: Fraction, grid: Fraction, bits: int
) -> _CertifiedState:
    """Certified sides from exact atoms ``(y, size_bits, mass)``: ``y()`` encloses ``loss / grid``
    (None for loss 0), ``size_bits`` the bits of its magnitude."""
    up: dict[int, Fraction] = {}
    shift = 1
    for compute, size, mass in atoms:
        if not mass:
            continue
        floor, ceil = (-1, 0) if compute is None else _floor_ceil(compute, 96 + size)
        up[ceil] = up.get(ceil, Fraction(0)) + mass
        shift = max(shift, ceil - floor)  # 1 unless the precision cap left an atom undecided
    scale = 1 << bits
    upper = _Lattice.of({j: -((-m.numerator << bits) // m.denominator) for j, m in up.items()}, scale)
    top = upper.top if upper.weights else None
    side = _Side(upper, inf, True)
    return _CertifiedState(grid, bits, side, shift, side.mass() - 1, inf, top)


def _ratio_atoms(
    atoms: Mapping[Fraction, Fraction], grid: Fraction
) -> list[tuple[Callable[[], iv.mpf] | None, int, Fraction]]:
    """``(ln r / grid, bits, mass)`` per ratio; ``bits`` starts the precision past the leading zeros
    of ``ln r`` for ``r`` near 1 (at most the bits of ``r``'s height)."""
    g = grid

    def y(r: Fraction) -> Callable[[], iv.mpf]:
        return lambda: iv.log(iv_rational(r)) / iv_rational(g)

    size = g.denominator.bit_length() + g.numerator.bit_length()
    return [(None if r == 1 else y(r), size + _height(r), m) for r, m in atoms.items()]


def _exact_to_certified(state: _ExactState, grid: Fraction, bits: int) -> _CertifiedState:
    lattice, base = state.lattice, state.base
    atoms: list[tuple[Callable[[], iv.mpf] | None, int, Fraction]] = []
    size = grid.numerator.bit_length() + grid.denominator.bit_length()

    def point(j: int, base: Fraction) -> Callable[[], iv.mpf]:
        return lambda: j * iv.log(iv_rational(base)) / iv_rational(grid)

    for i, w in enumerate(lattice.weights):
        j = lattice.offset + i
        mass = Fraction(w, lattice.scale)
        if j == 0 or base is None:
            atoms.append((None, 0, mass))
        else:
            atoms.append(
                (
                    point(j, base),
                    size + abs(j).bit_length() + _height(base),
                    mass,
                )
            )
    return _discretise(atoms, state.inf, grid, bits)


# --- downward scans -----------------------------------------------------------------------------


def _side_scanner(side: _Side, grid: Fraction, bits: int, stop: int) -> tuple[_Scanner, int]:
    """States ``(A, T)``: ``A = sum_{i>j} w_i`` and ``T ~ sum_{i>j} w_i e^-((i-j) grid) * 2^P`` rounded
    down on the upper side (it is subtracted) and up on the lower side, with ``e^-grid`` bounded
    the same way.  Returns the scanner and ``P``."""
    precision = max(64, bits) + len(side.lattice.weights).bit_length() + 16
    with interval_precision(precision + 32):
        scaled = iv.exp(-iv_rational(grid)) * iv.mpf(2) ** precision
    if side.upper:
        factor = int(libmp.to_int(scaled._mpi_[0], "f"))

        def run(s: tuple[int, int], ws: Sequence[int]) -> tuple[int, int]:
            a, t = s
            for w in ws:
                a += w
                t = (factor * ((w << precision) + t)) >> precision
            return a, t
    else:
        factor = -int(libmp.to_int(scaled._mpi_[1], "c"))

        def run(s: tuple[int, int], ws: Sequence[int]) -> tuple[int, int]:
            a, t = s
            for w in ws:
                a += w
                t = -((factor * ((w << precision) + t)) >> precision)  # the ceiling, factor < 0
            return a, t

    lattice = side.lattice
    kept = (
        None
        if _block_scan is None
        else _block_scan.checkpoints(lattice.weights, lattice.offset, stop, grid, precision, side.upper)
    )
    return _Scanner(lattice, stop, (0, 0), run, kept), precision
