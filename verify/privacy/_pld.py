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
dp-accounting PLD, with exact integer convolutions and directed rounding instead of
floating-point FFTs.

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

The worst case over neighbouring inputs, and claims about a composition, are in
:mod:`dpverify.verify.privacy._pld_worst_case`.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any, Union

from mpmath import iv, libmp

from dpverify.samplers import DpverifyError, InvalidArgument, as_fraction
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf
from dpverify.specs._claims import _at_least_zero
from dpverify.specs._enclosure import enclose, interval_precision, iv_rational
from dpverify.verify.privacy import _convolution
from dpverify.verify.engine._arguments import need_count, need_dps, need_instance
from dpverify.verify.privacy._claim_checks import _decide
from dpverify.verify.engine._intervals import decimal_text
from dpverify.verify.engine._results import fraction_text
from dpverify.verify.engine._text import short_rational

__all__ = [
    "AUTO_POINTS",
    "DEFAULT_BITS",
    "DEFAULT_DPS",
    "DEFAULT_GRID",
    "MAX_COMPOSITIONS",
    "MAX_POINTS",
    "Enclosure",
    "PrivacyLossDistribution",
    "common_base",
]

#: Grid width ``Delta`` of the certified path when none is given (as dp-accounting's default).
DEFAULT_GRID = Fraction(1, 10**4)
#: Fractional bits of the certified path's fixed-point masses.
DEFAULT_BITS = 64
#: Certified digits of an exact value's enclosure (relative width ``10^-dps``).
DEFAULT_DPS = 30
#: Most points a lattice may have (exact or certified); more is refused before any work.
MAX_POINTS = 1 << 22
#: Most compositions one call may ask for.
MAX_COMPOSITIONS = 10_000
#: With ``grid=None``, :func:`composed_delta` and friends pick the finest grid ``DEFAULT_GRID * 2^m``
#: whose k-fold span has at most this many points (GMP big integers; fewer without them).
AUTO_POINTS = {"gmpy2": 1 << 16, "python": 1 << 14}
#: Most bits of one packed operand of a convolution, per big-integer backend.
MAX_PACKED_BITS = {"gmpy2": 1 << 30, "python": 1 << 25}

_MIN_GRID = Fraction(1, 10**9)
_MIN_BITS, _MAX_BITS = 16, 1024
#: Spacing of the stored states of a downward scan (see :class:`_Scanner`).
_CHECKPOINT = 128
#: Precision cap when deciding on which side of a grid point an irrational loss falls.
_MAX_DECIDE_BITS = 1 << 14

Pmf = Union[Mapping[Hashable, Any], ExactPmf]


# --- enclosures ---------------------------------------------------------------------------------


def _fraction_of(raw: tuple) -> Fraction:
    numerator, denominator = libmp.to_rational(raw)
    return Fraction(int(numerator), int(denominator))


def _lower(value: iv.mpf) -> Fraction:
    return _fraction_of(value._mpi_[0])


def _upper(value: iv.mpf) -> Fraction:
    return _fraction_of(value._mpi_[1])


def _optional_fraction(name: str, value: object) -> Fraction | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise InvalidArgument(f"{name} must be a Fraction or None; got {name}={shown(value)} ({type(value).__name__}).")
    return Fraction(value)


@dataclass(frozen=True, slots=True)
class Enclosure:
    """A certified enclosure ``low <= v <= high`` of a real ``v`` (a ``delta`` or an ``epsilon``).

    ``low``/``high`` are exact rationals; ``None`` stands for ``+inf`` (``high=None``: no finite
    upper bound is certified; ``low=None`` too: ``v = +inf`` surely).  When ``v`` is known exactly:
    ``value`` (``v`` is this rational), ``log_argument`` (``v = ln(log_argument)``, an exact
    epsilon) or ``affine`` (``(A, B)`` with ``v = A - e^epsilon * B``, an exact delta at an
    irrational ``e^epsilon``).

    >>> Enclosure(Fraction(1, 4), Fraction(1, 4), value=Fraction(1, 4)).gap
    Fraction(0, 1)
    """

    low: Fraction | None
    high: Fraction | None
    value: Fraction | None = None
    log_argument: Fraction | None = None
    affine: tuple[Fraction, Fraction] | None = None

    def __post_init__(self) -> None:
        low = _optional_fraction("low", self.low)
        high = _optional_fraction("high", self.high)
        if low is not None and high is not None and low > high:
            raise InvalidArgument(f"low must be <= high; got low={shown(low)}, high={shown(high)}.")
        if low is None and high is not None:
            raise InvalidArgument(f"low=None means +infinity, so high must be None too; got high={shown(high)}.")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "value", _optional_fraction("value", self.value))
        argument = _optional_fraction("log_argument", self.log_argument)
        if argument is not None and argument <= 0:
            raise InvalidArgument(f"log_argument must be a rational > 0; got log_argument={shown(argument)}.")
        object.__setattr__(self, "log_argument", argument)
        if self.affine is not None:
            if not isinstance(self.affine, tuple) or len(self.affine) != 2:
                raise InvalidArgument(f"affine must be None or a pair (A, B); got affine={shown(self.affine)}.")
            pair = tuple(_optional_fraction(f"affine[{i}]", x) for i, x in enumerate(self.affine))
            if None in pair:
                raise InvalidArgument(f"affine must be a pair of Fractions (A, B); got affine={shown(self.affine)}.")
            object.__setattr__(self, "affine", pair)

    @property
    def infinite(self) -> bool:
        """True when the value is ``+inf`` for certain."""
        return self.low is None

    @property
    def exact(self) -> bool:
        """True when the value is known exactly (rational, ``ln`` of a rational, or ``A - e^eps B``)."""
        return self.value is not None or self.log_argument is not None or self.affine is not None or self.infinite

    @property
    def gap(self) -> Fraction | None:
        """``high - low``; ``None`` when an end is infinite (0 for a surely infinite value)."""
        if self.low is None:
            return Fraction(0)
        return None if self.high is None else self.high - self.low

    def contains(self, x: Fraction | int) -> bool:
        """``low <= x <= high`` for a finite rational ``x``."""
        x = as_fraction("x", x)
        return self.low is not None and self.low <= x and (self.high is None or x <= self.high)

    def __str__(self) -> str:
        if self.low is None:
            return "+inf"
        if self.value is not None:
            return short_rational(self.value)
        high = "+inf" if self.high is None else decimal_text(self.high, 12)
        return f"[{decimal_text(self.low, 12)}, {high}]"

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: exact ends as ``"num/den"`` (``"Infinity"`` for ``+inf``), decimals for eyes."""

        def text(x: Fraction | None) -> str:
            return "Infinity" if x is None else fraction_text(x)

        def decimal(x: Fraction | None) -> str:
            return "Infinity" if x is None else decimal_text(x, 20)

        return {
            "low": text(self.low), "high": text(self.high),
            "low_decimal": decimal(self.low), "high_decimal": decimal(self.high),
            "value": None if self.value is None else fraction_text(self.value),
            "log_argument": None if self.log_argument is None else fraction_text(self.log_argument),
            "affine": None if self.affine is None else [fraction_text(x) for x in self.affine],
        }


_INFINITE = Enclosure(None, None)


def _exact_value(x: Fraction) -> Enclosure:
    return Enclosure(x, x, value=x)


def _enclosure_of(compute: Callable[[], iv.mpf], dps: int, **exact: Any) -> Enclosure:
    low, high = enclose(compute, dps)
    return Enclosure(max(Fraction(0), _fraction_of(low._mpf_)), _fraction_of(high._mpf_), **exact)


def _log_enclosure(argument: Fraction, dps: int) -> Enclosure:
    """``ln(argument)`` for a rational ``argument >= 1``, exactly when it is 1."""
    if argument <= 1:
        return Enclosure(Fraction(0), Fraction(0), value=Fraction(0), log_argument=Fraction(1))
    return _enclosure_of(lambda: iv.log(iv_rational(argument)), dps, log_argument=argument)


# --- epsilon as a query -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Eps:
    """An ``epsilon >= 0`` given as a rational, or as ``ln(log_of)`` for a rational ``log_of >= 1``."""

    rational: Fraction | None = None
    log_of: Fraction | None = None

    def interval(self) -> iv.mpf:
        return iv_rational(self.rational) if self.log_of is None else iv.log(iv_rational(self.log_of))

    def exp_exact(self) -> Fraction | None:
        if self.log_of is not None:
            return self.log_of
        return Fraction(1) if self.rational == 0 else None

    def exp_interval(self) -> iv.mpf:
        exact = self.exp_exact()
        return iv_rational(exact) if exact is not None else iv.exp(iv_rational(self.rational))

    def bits(self) -> int:
        value = self.rational if self.log_of is None else self.log_of
        return value.numerator.bit_length() + value.denominator.bit_length()

    def describe(self) -> str:
        return f"epsilon={short_rational(self.rational)}" if self.log_of is None else f"epsilon=ln({short_rational(self.log_of)})"

    def to_json(self) -> dict[str, str]:
        if self.log_of is None:
            return {"epsilon": fraction_text(self.rational)}
        return {"epsilon_ln_of": fraction_text(self.log_of)}


def _at_least(eps: _Eps, value: Fraction) -> bool:
    """``eps >= value`` for a rational ``value`` (False when undecided, the safe answer here)."""
    if eps.log_of is None:
        return eps.rational >= value
    if value <= 0:
        return True
    return _decide(lambda: iv_rational(value), eps.interval) is True


def _floors(y: iv.mpf) -> tuple[int | None, int | None]:
    """The floors of an interval's ends; None for an infinite end (an interval divided by one
    that still holds 0)."""
    ends = []
    for raw in y._mpi_:
        ends.append(None if raw in (libmp.finf, libmp.fninf, libmp.fnan) else int(libmp.to_int(raw, "f")))
    return ends[0], ends[1]


def _floor_of(compute: Callable[[], iv.mpf], bits: int) -> int:
    """``floor(y)`` for an irrational ``y`` enclosed by ``compute()`` (never an integer, so a
    precise enough enclosure decides it); ``bits``: the starting precision."""
    bits = max(bits, 96)
    most = _MAX_DECIDE_BITS + 4 * bits
    while bits <= most:
        with interval_precision(bits):
            y = compute()
        low, high = _floors(y)
        if low is not None and low == high:
            return low
        bits *= 2
    raise DpverifyError(f"could not place a privacy loss between two grid points within {most} bits; "
                        "report this as a bug with the PMFs that caused it.")


def _floor_ceil(compute: Callable[[], iv.mpf], bits: int) -> tuple[int, int]:
    """``(floor(y), ceil(y))`` for an irrational ``y``; at the precision cap, the floor of the lower
    end and the ceiling of the upper end (further out, so still sound for both sides)."""
    bits = max(bits, 96)
    most = _MAX_DECIDE_BITS + 4 * bits
    while True:
        with interval_precision(bits):
            y = compute()
        low, high = _floors(y)
        if low is not None and low == high:
            return low, low + 1
        if bits >= most and low is not None and high is not None:
            return low, high + 1
        if bits >= 4 * most:
            raise DpverifyError("could not bound a privacy loss within the working precision; report this as a bug.")
        bits *= 2


# --- the common base of the ratios --------------------------------------------------------------


def _height(r: Fraction) -> int:
    return max(r.numerator, r.denominator).bit_length()


def _may_equal(r: Fraction, b: Fraction, m: int) -> bool:
    """False when ``b^m = r`` is impossible by heights: in lowest terms ``height(b^m) = height(b)^m``,
    and ``2^((bits(b) - 1) m) <= height(b)^m``; so the power is only computed when it is at most
    about as large as ``r``."""
    return (_height(b) - 1) * m < _height(r)


def _ilog(r: Fraction, b: Fraction, cap: int) -> int | None:
    """The largest ``k >= 0`` with ``b^k <= r``, for rationals ``r >= 1`` and ``b > 1``; None when
    that ``k`` exceeds ``cap``.

    ``k = floor(ln r / ln b)``, decided with intervals at rising precision; when an interval holds
    an integer ``m``, ``b^m = r`` is checked exactly (only where heights allow it), so no power
    of ``b`` much larger than ``r`` is ever computed."""
    if r < b:
        return 0
    # ln b for b = 1 + x has about log2(1/x) <= bits(b) leading zero bits: start past them
    bits = 64 + _height(b) + _height(r).bit_length() + cap.bit_length()
    most = _MAX_DECIDE_BITS + 4 * bits
    while True:
        with interval_precision(bits):
            y = iv.log(iv_rational(r)) / iv.log(iv_rational(b))
        low, high = _floors(y)
        if low is not None and low > cap:
            return None
        if low is not None and low == high:
            return low
        if high is not None and high == low + 1 and _may_equal(r, b, high) and b**high == r:  # type: ignore[operator]
            return high if high <= cap else None
        if bits > most:
            raise DpverifyError(f"could not compare the log of a ratio of {_height(r)} bits with a multiple of the "
                                f"log of one of {_height(b)} bits within {most} bits; report this as a bug.")
        bits *= 2


def _power_of(r: Fraction, b: Fraction) -> int | None:
    """``j`` with ``b^j = r`` exactly, or None."""
    if r == 1:
        return 0
    up = r if r > 1 else 1 / r
    k = _ilog(up, b, cap=_height(up))
    if k is None or not _may_equal(up, b, k) or b**k != up:
        return None
    return k if r > 1 else -k


def _pair_base(r: Fraction, s: Fraction) -> Fraction | None:
    """The largest ``c > 1`` with ``r = c^p`` and ``s = c^q`` for integers ``p, q >= 1``, or None.

    Euclid's algorithm on the exponents, run multiplicatively: ``r = s^k t`` with ``1 <= t < s``,
    then ``(s, t)``.  Suppose ``r = c^p, s = c^q`` for a primitive ``c`` (lowest terms, so
    ``height(c^m) = height(c)^m`` with ``height(c) >= 2``).  Then every ``t`` is some ``c^m`` with
    ``m <= p``, so ``height(t) <= H``, the larger height of the inputs; ``height(s)^k <= height(r)``;
    and Euclid takes at most ``1.45 log2(min(p, q)) + 2`` steps, with ``p <= log2(H)``.  A run that
    breaks any of these bounds proves there is no common base (and ``s^k`` is only computed within
    them); a run that ends with ``t = 1`` verified every step exactly.
    """
    limit = max(_height(r), _height(s))
    for _ in range(2 * limit.bit_length() + 8):
        if r < s:
            r, s = s, r
        k = _ilog(r, s, cap=_height(r))
        if k is None or not _may_equal(r, s, k):
            return None
        t = r / s**k
        if t == 1:
            return s
        if _height(t) > limit:
            return None
        r, s = s, t
    return None


def common_base(ratios: Iterable[Fraction | int | str]) -> tuple[Fraction | None, tuple[int, ...]] | None:
    """``(b, (j_1, ...))`` with ``ratios[i] = b^j_i`` for the largest rational ``b > 1``, or None
    when the ratios have no common base.  ``b`` is None when every ratio is 1.

    >>> common_base(["4", "1/8", 1])
    (Fraction(2, 1), (2, -3, 0))
    >>> common_base([2, 3]) is None
    True
    """
    values = []
    for i, r in enumerate(_finite_iterable("ratios", ratios)):
        value = as_fraction(f"ratios[{i}]", r)
        if value <= 0:
            raise InvalidArgument(f"ratios must be rationals > 0; got ratios[{i}]={shown(value)}.")
        values.append(value)
    return _common_base(values)


def _common_base(values: Sequence[Fraction]) -> tuple[Fraction | None, tuple[int, ...]] | None:
    base: Fraction | None = None
    for value in set(values):
        if value == 1:
            continue
        up = value if value > 1 else 1 / value
        base = up if base is None else _pair_base(base, up)
        if base is None:
            return None
    if base is None:
        return None, tuple(0 for _ in values)
    exponents = tuple(_power_of(v, base) for v in values)
    assert all(j is not None for j in exponents), "the Euclid base must divide every ratio"
    return base, exponents  # type: ignore[return-value]


def _finite_iterable(name: str, value: object) -> list[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidArgument(f"{name} must be a list or tuple; got {name}={shown(value)} ({type(value).__name__}).")
    return list(value)


# --- lattices -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lattice:
    """Masses ``weights[i] / scale`` at the integer points ``offset + i`` (non-negative ints; the
    first and last weights are positive unless the lattice is empty)."""

    offset: int
    weights: tuple[int, ...]
    scale: int

    @property
    def top(self) -> int:
        return self.offset + len(self.weights) - 1

    def total(self) -> Fraction:
        return Fraction(sum(self.weights), self.scale)

    @classmethod
    def of(cls, masses: Mapping[int, int], scale: int) -> _Lattice:
        points = [j for j, w in masses.items() if w]
        if not points:
            return cls(0, (), scale)
        low, high = min(points), max(points)
        _need_points(high - low + 1)
        weights = [0] * (high - low + 1)
        for j, w in masses.items():
            if w:
                weights[j - low] += w
        return cls(low, tuple(weights), scale)

    @classmethod
    def trimmed(cls, offset: int, weights: Sequence[int], scale: int) -> _Lattice:
        start = next((i for i, w in enumerate(weights) if w), len(weights))
        end = len(weights)
        while end > start and not weights[end - 1]:
            end -= 1
        return cls(offset + start, tuple(weights[start:end]), scale)


def _need_points(points: int, what: str = "the privacy loss distribution") -> None:
    if points > MAX_POINTS:
        raise InvalidArgument(f"{what} would have {points} points, more than {MAX_POINTS}; "
                              "use a coarser grid (e.g. grid=\"1/10^3\") or fewer compositions.")


def _need_packed(length: int, bits: int, what: str) -> None:
    limit = MAX_PACKED_BITS[_convolution.backend()]
    if length * bits > limit:
        hint = "" if _convolution.backend() == "gmpy2" else " or install gmpy2 (the extra 'fast')"
        raise InvalidArgument(f"{what} needs integers of about {length * bits} bits, more than {limit}; "
                              f"use fewer compositions or a coarser grid{hint}.")


# --- the two states of a PLD --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ExactState:
    """Loss ``j ln base`` with mass ``lattice.weights[j - offset] / lattice.scale``; ``inf`` at ``+inf``.
    ``base`` None: every finite loss is 0 (the lattice is at most the point 0)."""

    base: Fraction | None
    lattice: _Lattice
    inf: Fraction


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
    ``[0, 1]``: what rounding masses up added and what cutting tails moved up.  ``inf``: the exact
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
        return _Side(_Lattice(lattice.offset - self.shift, lattice.weights, lattice.scale),
                     self.side.inf - self.excess, False)


State = Union[_ExactState, _CertifiedState]


def _exact_compose(a: _ExactState, b: _ExactState) -> _ExactState | None:
    """The exact convolution, or None when the two bases have no common base."""
    if a.base is None or b.base is None or a.base == b.base:
        base = a.base if b.base is None else b.base
        steps = (1, 1)
    else:
        base = _pair_base(a.base, b.base)
        if base is None:
            return None
        steps = (_power_of(a.base, base), _power_of(b.base, base))
    first, second = _spread(a.lattice, steps[0]), _spread(b.lattice, steps[1])
    return _ExactState(base, _convolve_exact(first, second), a.inf + b.inf - a.inf * b.inf)


def _spread(lattice: _Lattice, step: int | None) -> _Lattice:
    """The same masses at ``step * j`` (a lattice on ``ln b`` re-expressed on ``ln c``, ``b = c^step``)."""
    assert step is not None and step >= 1
    if step == 1 or not lattice.weights:
        return lattice
    weights = [0] * ((len(lattice.weights) - 1) * step + 1)
    weights[::step] = lattice.weights
    return _Lattice(lattice.offset * step, tuple(weights), lattice.scale)


def _convolve_exact(a: _Lattice, b: _Lattice) -> _Lattice:
    if not a.weights or not b.weights:
        return _Lattice(0, (), a.scale * b.scale)
    length = len(a.weights) + len(b.weights) - 1
    _need_points(length)
    _need_packed(length, max(a.weights).bit_length() + max(b.weights).bit_length() + 8, "the exact convolution")
    weights = _convolution.convolve(a.weights, a.weights if a is b else b.weights)
    return _Lattice.trimmed(a.offset + b.offset, weights, a.scale * b.scale)


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
    weights = _convolution.convolve(a.lattice.weights, a.lattice.weights if a is b else b.lattice.weights,
                                    shift=bits, round_up=True)
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
    if kept:
        kept[0] += bottom
    else:
        top += bottom  # everything went: to +inf
    scale = 1 << bits
    return _Side(_Lattice.trimmed(offset + start, kept, scale), inf + Fraction(top, scale), True), Fraction(bottom + top, scale)


def _certified_compose(a: _CertifiedState, b: _CertifiedState) -> _CertifiedState:
    """The composition.  If ``side_a`` exceeds ``omega_a`` by at most ``E_a`` on every ``h`` (see
    :class:`_CertifiedState`), then ``side_a * side_b`` exceeds ``omega_a * omega_b`` by at most
    ``E_a * mass(side_b) + E_b`` (``x -> h(x + z)`` is again such an ``h``), plus this
    composition's own rounding and cuts."""
    side, own = _compose_sides(a.side, b.side, a.bits)
    top = None if a.support_top is None or b.support_top is None else a.support_top + b.support_top
    return _CertifiedState(a.grid, a.bits, side, a.shift + b.shift, a.excess * b.side.mass() + b.excess + own,
                           a.inf + b.inf - a.inf * b.inf, top)


# --- discretisation -----------------------------------------------------------------------------


def _discretise(atoms: Sequence[tuple[Callable[[], iv.mpf] | None, int, Fraction]], inf: Fraction,
                grid: Fraction, bits: int) -> _CertifiedState:
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


def _ratio_atoms(atoms: Mapping[Fraction, Fraction], grid: Fraction) -> list[tuple[Callable[[], iv.mpf] | None, int, Fraction]]:
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
    for i, w in enumerate(lattice.weights):
        j = lattice.offset + i
        mass = Fraction(w, lattice.scale)
        if j == 0 or base is None:
            atoms.append((None, 0, mass))
        else:
            atoms.append(((lambda j=j: j * iv.log(iv_rational(base)) / iv_rational(grid)),
                          size + abs(j).bit_length() + _height(base), mass))
    return _discretise(atoms, state.inf, grid, bits)


# --- downward scans -----------------------------------------------------------------------------


class _Scanner:
    """The states ``s(j)`` for ``j = top, top-1, ..., stop`` (``offset - 1 <= stop``, ``top`` the
    lattice's top): ``s(top)`` is given and ``s(j) = step(s(j+1), W[j+1])``, so ``s(j)`` summarises
    the atoms above ``j``; ``run(s, ws)`` applies ``step`` for each weight of ``ws`` in turn.
    Every :data:`_CHECKPOINT`-th state is kept, so a state is recomputed in fewer steps than that,
    and :meth:`largest` finds a crossing by bisection over the kept states."""

    def __init__(self, lattice: _Lattice, stop: int, first: Any, run: Callable[[Any, Sequence[int]], Any]) -> None:
        self.lattice, self.run = lattice, run
        top = lattice.top
        self.js: list[int] = [top]
        self.states: list[Any] = [first]
        state, j = first, top
        while j > stop:
            lower = max(stop, j - _CHECKPOINT)
            state = run(state, self._weights(j, lower))
            j = lower
            self.js.append(j)
            self.states.append(state)
        self._keys = [-x for x in self.js]

    def _weights(self, high: int, low: int) -> Sequence[int]:
        """``W[high], W[high-1], ..., W[low+1]``: what takes ``s(high)`` to ``s(low)``."""
        offset = self.lattice.offset
        return self.lattice.weights[low + 1 - offset : high + 1 - offset][::-1]

    def state(self, j: int) -> Any:
        """``s(j)`` for ``stop <= j <= top``."""
        m = bisect.bisect_left(self._keys, -j)  # js descend: the first kept index with js[m] <= j
        if m < len(self.js) and self.js[m] == j:
            return self.states[m]
        return self.run(self.states[m - 1], self._weights(self.js[m - 1], j))

    def largest(self, above: Callable[[Any], bool]) -> tuple[int, Any] | None:
        """The largest ``j`` with ``above(s(j))`` true and ``above(s(j+1))`` false (``above`` is
        false at ``top``), or None when ``above`` is false at every kept state."""
        low, high = 1, len(self.js) - 1  # states[0] (j = top) is below
        if high < 1 or not above(self.states[high]):
            return None
        while low < high:  # the first kept index where above holds
            middle = (low + high) // 2
            if above(self.states[middle]):
                high = middle
            else:
                low = middle + 1
        state, at = self.states[low - 1], self.js[low - 1]
        while True:
            state = self.run(state, self._weights(at, at - 1))
            at -= 1
            if above(state):
                return at, state


def _exact_scanner(state: _ExactState, stop: int) -> _Scanner:
    """States ``(A, t, U)`` with ``A = sum_{i>j} W_i``, ``U = u^(top-j)`` and
    ``t = sum_{i>j} W_i v^(i-j) u^(top-i)``, so ``sum_{i>j} W_i b^-(i-j) = t / U`` for ``b = u/v``."""
    base = state.base if state.base is not None else Fraction(2)
    u, v = base.numerator, base.denominator

    def run(s: tuple[int, int, int], ws: Sequence[int]) -> tuple[int, int, int]:
        a, t, big_u = s
        for w in ws:
            a, t, big_u = a + w, v * (w * big_u + t), big_u * u
        return a, t, big_u

    return _Scanner(state.lattice, stop, (0, 0, 1), run)


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

    return _Scanner(side.lattice, stop, (0, 0), run), precision


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
        raise InvalidArgument(f"{name} must be a PMF {{output: Fraction}} or an ExactPmf; got {name}={shown(value)} "
                              f"({type(value).__name__}).")
    for output, mass in masses.items():
        if not 0 <= mass <= 1:
            raise InvalidArgument(f"{name}[{shown(output)}] must be a probability in [0, 1]; got {shown(mass)}.")
    total = sum(masses.values(), Fraction(0))
    if total != 1:
        raise InvalidArgument(f"{name} must sum to 1; got total={shown(total)}.")
    return masses


def _atoms(upper: Mapping[Hashable, Fraction], lower: Mapping[Hashable, Fraction]) -> tuple[dict[Fraction, Fraction], Fraction]:
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

    def __init__(self, state: object, grid: object = None, bits: object = DEFAULT_BITS, compositions: object = 1) -> None:
        need_instance("state", state, (_ExactState, _CertifiedState),
                      "a PLD state; build a PrivacyLossDistribution with PrivacyLossDistribution.from_pmfs(P, Q)")
        self._state: State = state  # type: ignore[assignment]
        self._grid = _need_grid(grid)
        self._bits = _need_bits(bits)
        self._compositions = need_count("compositions", compositions, low=1)
        self._cache: dict[str, Any] = {}

    # --- construction ---------------------------------------------------------------------------

    @classmethod
    def from_pmfs(cls, upper: Pmf, lower: Pmf, *, method: str = "auto", grid: object = None,
                  bits: object = DEFAULT_BITS) -> PrivacyLossDistribution:
        """The PLD of ``L = ln(P/Q)`` under ``P = upper``, for ``Q = lower``.

        ``upper``/``lower``: ``{output: probability}`` (exact rationals, summing to 1) or
        :class:`~dpverify.specs.ExactPmf`.  ``method``: ``"auto"`` (exact when the ratios have a
        common base, certified otherwise), ``"exact"`` (refused when there is no common base) or
        ``"certified"``.  ``grid`` (rational ``Delta``, default :data:`DEFAULT_GRID`) and ``bits``
        (fixed-point bits, default :data:`DEFAULT_BITS`) set the certified path, also used when an
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
                raise InvalidArgument("method='exact' needs every ratio P/Q to be an integer power of one rational; "
                                      f"these ratios are not (e.g. {', '.join(short_rational(r) for r in list(atoms)[:3])}). "
                                      "Use method='auto' or 'certified'.")
            return cls(_discretise(_ratio_atoms(atoms, grid_), inf, grid_, bits_), grid_, bits_)
        base, exponents = found
        denominator = lcm(*(m.denominator for m in atoms.values())) if atoms else 1
        masses: dict[int, int] = {}
        for j, m in zip(exponents, atoms.values()):
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
            raise InvalidArgument(f"loss_masses needs an exact PLD; this one is certified (grid={state.grid}): "
                                  "read delta() and epsilon() instead.")
        lattice = state.lattice
        return {lattice.offset + i: Fraction(w, lattice.scale) for i, w in enumerate(lattice.weights) if w}

    def __repr__(self) -> str:
        state = self._state
        if isinstance(state, _ExactState):
            return (f"PrivacyLossDistribution(exact, base={state.base}, points={self.points}, "
                    f"compositions={self._compositions})")
        return (f"PrivacyLossDistribution(certified, grid={state.grid}, bits={state.bits}, points={self.points}, "
                f"compositions={self._compositions})")

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
        grid, bits = (a.grid, a.bits) if isinstance(a, _CertifiedState) else (
            (b.grid, b.bits) if isinstance(b, _CertifiedState) else (self._grid, self._bits))
        if isinstance(a, _CertifiedState) and isinstance(b, _CertifiedState) and (a.grid, a.bits) != (b.grid, b.bits):
            raise InvalidArgument(f"other must share this PLD's grid and bits; got grid={b.grid}, bits={b.bits} "
                                  f"against grid={a.grid}, bits={a.bits}. Build both with the same grid and bits.")
        first = a if isinstance(a, _CertifiedState) else _exact_to_certified(a, grid, bits)
        second = b if isinstance(b, _CertifiedState) else _exact_to_certified(b, grid, bits)
        return PrivacyLossDistribution(_certified_compose(first, second), grid, bits, count)

    def self_compose(self, k: object) -> PrivacyLossDistribution:
        """The k-fold composition (``1 <= k <= MAX_COMPOSITIONS``), by squaring.  Refused before any
        work when the result would pass :data:`MAX_POINTS` points."""
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
            if isinstance(x, _ExactState):
                composed = _exact_compose(x, y)  # type: ignore[arg-type]
                assert composed is not None  # same base
                return composed
            return _certified_compose(x, y)  # type: ignore[arg-type]

        result: State | None = None
        power, n = state, k_
        while True:
            if n & 1:
                result = power if result is None else multiply(result, power)
            n >>= 1
            if not n:
                break
            power = multiply(power, power)
        assert result is not None
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
            raise InvalidArgument(f'ratio must be a rational >= 1 (epsilon = ln ratio >= 0); got ratio={shown(value)}.')
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
            j = _floor_of(lambda: iv_rational(eps.rational) / iv.log(iv_rational(base)),
                          64 + eps.bits() + _height(base))
        if j >= lattice.top:
            return _exact_value(p)
        scanner, stop = self._exact_scan(state)
        j = max(j, stop)
        a, t, big_u = scanner.state(j)
        constant = p + Fraction(a, lattice.scale)
        factor = Fraction(t, big_u * lattice.scale) * base ** (-j)  # sum_{i>j} p_i b^-i
        if exact_exp is not None:
            return _exact_value(constant - exact_exp * factor)
        return _enclosure_of(lambda: iv_rational(constant) - eps.exp_interval() * iv_rational(factor), dps,
                             affine=(constant, factor))

    def _exact_scan(self, state: _ExactState) -> tuple[_Scanner, int]:
        if "exact" not in self._cache:
            stop = max(0, state.lattice.offset - 1)
            self._cache["exact"] = (_exact_scanner(state, stop), stop)
        return self._cache["exact"]

    def _side_scan(self, side: _Side, state: _CertifiedState) -> tuple[_Scanner, int, int]:
        key = "upper" if side.upper else "lower"
        if key not in self._cache:
            stop = max(0, side.lattice.offset - 1)
            scanner, precision = _side_scanner(side, state.grid, state.bits, stop)
            self._cache[key] = (scanner, precision, stop)
        return self._cache[key]

    def _side_delta(self, side: _Side, state: _CertifiedState, eps: _Eps) -> Fraction:
        """An upper (upper side) or lower (lower side) bound on ``delta(eps)``."""
        lattice, grid, bits = side.lattice, state.grid, state.bits
        constant = side.inf if side.upper else max(Fraction(0), side.inf)
        if not lattice.weights or lattice.top <= 0:
            return constant
        if eps.log_of is None:
            j = int(eps.rational // grid)
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
            value = (iv_rational(side.inf) + (iv_rational(Fraction(a, 1 << bits))
                     - iv.exp(shift) * iv_rational(Fraction(t, 1 << (bits + precision)))))
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
