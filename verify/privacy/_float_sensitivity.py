"""The computed sensitivity of a bounded sum, searched for or ruled out with Z3's floating-point theory.

Casacuberta, Shoemate, Vadhan, Wagaman, "Widespread Underestimation of Sensitivity in Differentially
Private Libraries and How to Fix It" (CCS 2022): a library clamps each record into ``[L, U]`` and
declares the sum's sensitivity under adding or removing a record to be ``max(|L|, |U|)``, true of the
*ideal* sum; the *computed* sum rounds after every addition (or wraps around, for machine integers),
and neighbouring datasets can then have computed sums further apart than declared.

What is modelled.  ``D = (x_1 .. x_n)``, ``n`` values in ``[lower, upper]`` (the clamping is modelled
by drawing them from that interval), and its neighbour ``D' = (x_1 .. x_n, y)``, ``y`` in
``[lower, upper]`` summed last.  ``S`` is the computed sum in one of these orders:

* ``"sequential"``: binary64 addition, round to nearest even, ``((0 + x_1) + x_2) + ...``: a plain
  loop, CPython 3.11's ``sum`` over floats, numpy's ``np.sum`` below 8 elements.  (CPython 3.12 and
  later compensate ``sum``'s rounding errors (Neumaier): *not* this order.)
* ``"pairwise"``: binary64, textbook pairwise ``S(v) = S(v[:k//2]) + S(v[k//2:])``, ``S((v,)) = v``.
* ``"numpy"``: binary64, ``np.sum`` of a contiguous 1-d float64 array: ``0 + P(v)``, ``P`` numpy's
  ``pairwise_sum`` (``loops_utils.h.src``): a loop from ``-0`` below 8 elements, else eight lanes
  ``r_j`` (every eighth element), ``((r_0 + r_1) + (r_2 + r_3)) + ((r_4 + r_5) + (r_6 + r_7))``, then
  the rest one by one.  Bit for bit numpy 2.4.6's on random data (the tests repeat the comparison where
  numpy is installed); other versions, strides or axes may sum differently.
* ``"integer"``: int64 values, two's-complement addition that wraps on overflow (the paper's other
  source of underestimated sensitivity).

Doubles have ``|lower|, |upper| <= 2**1020``, so no sum of 9 overflows (no NaN or infinity occurs).

What a result establishes.  :func:`check_sum_sensitivity` asks Z3 whether some ``D, D'`` have
``|S(D') - S(D)| > delta``, the difference exact (rational), ``delta`` the declared sensitivity
(default ``max(|lower|, |upper|)``):

* ``found``: such a pair, as floats (and ``float.hex``) or ints, both computed sums and the exact
  difference (a ``Fraction``).  Each is re-checked without Z3: the values lie in ``[lower, upper]``,
  Python's own arithmetic (the CPU's binary64 addition, or wrapped ints) through the same summation
  tree (``computed_sum``) gives Z3's sums bit for bit, and the exact difference exceeds ``delta``;
  a model failing any of these is ``unknown`` with the discrepancy.  (The re-check guards Z3's
  rounding, the encoding and the comparison; the tree itself is checked against numpy and a plain
  loop by the tests.)
* ``excluded``: Z3 proved *no dataset of ``n`` values in ``[lower, upper]`` and added record ``y`` in
  ``[lower, upper]`` has ``|S(D') - S(D)| > delta`` in that summation order*; nothing about other
  ``n``, orders, or neighbour relations (e.g. a record inserted first).
* ``unknown``: the time limit (or the solver) stopped the search; the reason is given.

``largest_difference`` brackets ``max |S(D') - S(D)|`` by such queries with moving thresholds:
its lower bound is a re-checked pair's difference, its upper bound a threshold Z3 proved no pair exceeds.

Encoding (QF_FP, QF_BV).  Each value is a 64-bit vector read as a binary64 (``fpBVToFP``), kept in
``[lower, upper]`` by ``fp.leq`` (false for NaN); the sums are ``fp.add`` with ``RNE``.  ``|a - b| > t``
for doubles ``a, b`` needs no real arithmetic when ``t >= 0`` is representable in a binary format ``F``
with 11 exponent and ``p`` significand bits (``53 <= p <= 64``; 53 is binary64): widening ``a, b`` to
``F`` is exact, and rounding is monotone and fixes ``F``, so ``a - b > t <=> RTP_F(a - b) > t`` and
``a - b < -t <=> RTN_F(a - b) < -t``.  Z3 bit-blasts that far faster than ``fp.to_real`` with real
arithmetic, which did not finish in 20 s even for ``n = 1``.  A ``delta`` no such ``F`` holds (``1/3``)
is approached from below (rounded down to 64 bits: ``unsat`` excludes ``delta`` too) and, if the pair
found lies between the two, from above.  For ``"integer"`` the sums are 64-bit ``bvadd`` and the
difference is taken exactly after sign-extending them to 68 bits.
"""

from __future__ import annotations

import math
import struct
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, TypeVar

import z3

from dpverify.samplers import InvalidArgument
from dpverify.samplers._rational import shown
from dpverify.specs._interval_tools import decimal_text

__all__ = [
    "MAX_N",
    "ORDERS",
    "DifferenceBounds",
    "Query",
    "SensitivityResult",
    "Witness",
    "check_sum_sensitivity",
    "computed_sum",
    "exact_text",
    "largest_difference",
]

#: The largest dataset size: ``D'`` then has 9 records, which keeps every query small.
MAX_N = 8
#: The summation orders modelled (see the module's docstring).
ORDERS = ("sequential", "pairwise", "numpy", "integer")
#: The largest ``|lower|, |upper|`` for the float orders: 9 such values sum to less than the largest double.
MAX_FLOAT_BOUND = 2.0**1020
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_DOUBLE_MAX = Fraction(sys.float_info.max)
#: The longest ``timeout_ms`` (Z3 takes an unsigned 32-bit timeout).
_MAX_TIMEOUT_MS = 2**32 - 1
_MAX_STEPS = 64
#: The widest significand of a comparison format: thresholds with more significant bits are rounded to 64.
_MAX_PRECISION = 64
# Unit roundoff of binary64, for the a-priori error bound that guides the bisection.
_UNIT = Fraction(1, 2**53)

Status = Literal["found", "excluded", "unknown"]
Value = float | int
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Witness:
    """Neighbours ``D = dataset`` and ``D' = dataset + (record,)`` with their computed sums, re-checked in Python.

    ``difference`` is ``S(D') - S(D)`` exactly (signed); the sensitivity it shows is its absolute value.
    """

    dataset: tuple[Value, ...]
    record: Value
    sum_dataset: Value
    sum_neighbour: Value
    difference: Fraction

    @property
    def neighbour(self) -> tuple[Value, ...]:
        """``D'``: the dataset with the added record last."""
        return (*self.dataset, self.record)

    @property
    def magnitude(self) -> Fraction:
        """``|S(D') - S(D)|``."""
        return abs(self.difference)

    @property
    def dataset_hex(self) -> tuple[str, ...]:
        """``D``'s values exactly: ``float.hex`` for doubles, ``hex`` for integers."""
        return tuple(_hex(value) for value in self.dataset)

    @property
    def neighbour_hex(self) -> tuple[str, ...]:
        """``D'``'s values exactly."""
        return tuple(_hex(value) for value in self.neighbour)

    @property
    def sums_hex(self) -> tuple[str, str]:
        """``(S(D), S(D'))`` exactly."""
        return _hex(self.sum_dataset), _hex(self.sum_neighbour)


@dataclass(frozen=True, slots=True)
class SensitivityResult:
    """The answer of :func:`check_sum_sensitivity`: ``status``, the pair when ``found``, and
    ``statement``, one sentence saying exactly what was established (or why nothing was)."""

    status: Status
    n: int
    lower: Value
    upper: Value
    order: str
    delta: Fraction
    witness: Witness | None
    statement: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Query:
    """One solver query of :func:`largest_difference`: is there a pair with ``|S(D') - S(D)| > threshold``
    (``>=`` where ``strict`` is False)?"""

    threshold: Fraction
    strict: bool
    status: Status
    seconds: float


@dataclass(frozen=True, slots=True)
class DifferenceBounds:
    """``lower_bound <= max |S(D') - S(D)| <= upper_bound`` over the neighbours of :func:`largest_difference`.

    ``lower_bound`` is ``witness``'s re-checked difference; ``upper_bound`` is a threshold Z3 proved
    no pair exceeds, or None when no query came back ``unsat``; ``upper_strict`` is True when Z3 also
    proved that no pair reaches it (the maximum is below it).  ``stopped`` says why the search ended.
    """

    n: int
    lower: Value
    upper: Value
    order: str
    lower_bound: Fraction
    witness: Witness
    upper_bound: Fraction | None
    upper_strict: bool
    queries: tuple[Query, ...]
    stopped: str
    seconds: float

    @property
    def exact(self) -> bool:
        """Whether the bounds meet: the maximum is known exactly."""
        return self.upper_bound is not None and self.upper_bound == self.lower_bound


# --- arguments -------------------------------------------------------------------------------------


def exact_text(value: Fraction) -> str:
    """``value`` exactly and briefly: an integer's digits, ``m*2**k`` (with 20 significant digits, rounded
    towards zero) for a dyadic rational, else ``num/den`` (or a short form of a huge one).

    >>> exact_text(Fraction(2**53 + 1, 2**53))
    '9007199254740993*2**-53 (~1.000000000000000111)'
    >>> exact_text(Fraction(1, 3)), exact_text(Fraction(-6))
    ('1/3', '-6')
    """
    if value.denominator == 1:
        return shown(value.numerator)
    den = value.denominator
    if den & (den - 1) == 0 and value.numerator.bit_length() <= 200:
        approx = decimal_text(abs(value), 20, up=False)
        return f"{value.numerator}*2**-{den.bit_length() - 1} (~{'-' if value < 0 else ''}{approx})"
    return shown(value)


def _hex(value: Value) -> str:
    return value.hex() if isinstance(value, float) else hex(value)


def _need_n(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise InvalidArgument(f"n must be an integer in [1, {MAX_N}]; got n={shown(n)}.")
    return n


def _need_order(order: object) -> str:
    if not isinstance(order, str) or order not in ORDERS:
        raise InvalidArgument(f"order must be one of {', '.join(map(repr, ORDERS))}; got order={shown(order)}.")
    return order


def _need_bound(name: str, value: object, order: str) -> Value:
    if order == "integer":
        if isinstance(value, bool) or not isinstance(value, int) or not _INT64_MIN <= value <= _INT64_MAX:
            raise InvalidArgument(
                f"{name} must be an integer in [-2**63, 2**63 - 1] for order='integer'; got {name}={shown(value)}."
            )
        return value
    # NaN and the infinities fail `abs(value) <= MAX_FLOAT_BOUND`; a huge int is compared exactly, never converted
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not abs(value) <= MAX_FLOAT_BOUND
        or float(value) != value
    ):
        raise InvalidArgument(
            f"{name} must be a double in [-2**1020, 2**1020] (finite, not NaN; an int must convert exactly); "
            f"got {name}={shown(value)}."
        )
    return float(value)


def _need_bounds(lower: object, upper: object, order: str) -> tuple[Value, Value]:
    low = _need_bound("lower", lower, order)
    high = _need_bound("upper", upper, order)
    if low > high:
        raise InvalidArgument(f"lower must be <= upper; got lower={shown(lower)}, upper={shown(upper)}.")
    return low, high


def _need_delta(delta: object, low: Value, high: Value) -> Fraction:
    if delta is None:
        return Fraction(max(abs(low), abs(high)))
    if isinstance(delta, bool) or not isinstance(delta, (int, float, Fraction)) or not 0 <= delta < math.inf:
        allowed = "delta must be a finite rational >= 0 (an int, float or Fraction) or None"
        raise InvalidArgument(f"{allowed}; got delta={shown(delta)}.")
    return Fraction(delta)


def _need_timeout(timeout_ms: object) -> int:
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or not 1 <= timeout_ms <= _MAX_TIMEOUT_MS:
        raise InvalidArgument(
            f"timeout_ms must be an integer in [1, {_MAX_TIMEOUT_MS}]; got timeout_ms={shown(timeout_ms)}."
        )
    return timeout_ms


# --- the computed sums: one summation tree, over Python numbers or Z3 terms ------------------------


def _wrap64(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


def _tree_sum(terms: Sequence[_T], order: str, add: Callable[[_T, _T], _T], zero: _T, minus_zero: _T) -> _T:
    """The summation tree of ``order`` over ``terms`` with ``add``, starting from ``zero`` (``+0``), or from
    ``minus_zero`` inside numpy's ``pairwise_sum`` (``numpy/_core/src/umath/loops_utils.h.src``: "Start with
    -0 to preserve -0 values"), whose eight-lane block is written out for up to 128 terms."""
    if order in ("sequential", "integer"):
        acc = zero
        for term in terms:
            acc = add(acc, term)
        return acc
    if order == "pairwise":
        if len(terms) == 1:
            return terms[0]
        half = len(terms) // 2
        left = _tree_sum(terms[:half], order, add, zero, minus_zero)
        return add(left, _tree_sum(terms[half:], order, add, zero, minus_zero))
    k = len(terms)
    if k < 8:
        inner = minus_zero
        for term in terms:
            inner = add(inner, term)
        return add(zero, inner)
    lanes = list(terms[:8])
    i = 8
    while i < k - k % 8:
        for j in range(8):
            lanes[j] = add(lanes[j], terms[i + j])
        i += 8
    inner = add(
        add(add(lanes[0], lanes[1]), add(lanes[2], lanes[3])), add(add(lanes[4], lanes[5]), add(lanes[6], lanes[7]))
    )
    for term in terms[i:]:
        inner = add(inner, term)
    return add(zero, inner)


def computed_sum(values: Sequence[Value], order: str) -> Value:
    """The computed sum of ``values`` in ``order`` with Python's own arithmetic: the CPU's binary64 addition
    for the float orders, int64 wrap-around for ``"integer"``."""
    if order == "integer":
        return _tree_sum([int(v) for v in values], order, lambda a, b: _wrap64(a + b), 0, 0)
    return _tree_sum([float(v) for v in values], order, lambda a, b: a + b, 0.0, -0.0)


def _double_bits(value: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


def _bits_double(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", bits))[0])


@dataclass(frozen=True, slots=True)
class _Model:
    """The query's free constants and the sums built from them."""

    values: list[Any]  # BitVec(64) constants x_1 .. x_n, y
    sum_dataset: Any
    sum_neighbour: Any
    constraints: list[Any]


def _build(n: int, low: Value, high: Value, order: str) -> _Model:
    names = [z3.BitVec(f"x{i + 1}", 64) for i in range(n)] + [z3.BitVec("y", 64)]
    if order == "integer":
        bounds = [c for v in names for c in (v >= z3.BitVecVal(int(low), 64), v <= z3.BitVecVal(int(high), 64))]
        zero = z3.BitVecVal(0, 64)
        s = _tree_sum(names[:n], order, lambda a, b: a + b, zero, zero)
        s2 = _tree_sum(names, order, lambda a, b: a + b, zero, zero)
        return _Model(names, s, s2, bounds)
    sort = z3.Float64()
    floats = [z3.fpBVToFP(v, sort) for v in names]
    lo_fp = z3.fpBVToFP(z3.BitVecVal(_double_bits(float(low)), 64), sort)
    hi_fp = z3.fpBVToFP(z3.BitVecVal(_double_bits(float(high)), 64), sort)
    bounds = [c for x in floats for c in (z3.fpLEQ(lo_fp, x), z3.fpLEQ(x, hi_fp))]
    rne = z3.RNE()
    zero, minus_zero = z3.FPVal(0.0, sort), z3.FPVal(-0.0, sort)

    def add(a: Any, b: Any) -> Any:
        return z3.fpAdd(rne, a, b)

    s = _tree_sum(floats[:n], order, add, zero, minus_zero)
    return _Model(names, s, _tree_sum(floats, order, add, zero, minus_zero), bounds)


def _exceeds(model: _Model, order: str, threshold: Fraction, strict: bool) -> Any:
    """The Z3 formula ``|S(D') - S(D)| > threshold`` (``>=`` unless ``strict``), exact; ``threshold`` one
    :func:`_precision` accepts (an integer for ``"integer"``)."""
    if order == "integer":
        wide = 68
        t = z3.BitVecVal(min(int(threshold), 2**64), wide)
        diff = z3.SignExt(wide - 64, model.sum_neighbour) - z3.SignExt(wide - 64, model.sum_dataset)
        return z3.Or(diff > t, diff < -t) if strict else z3.Or(diff >= t, diff <= -t)
    precision = _precision(threshold)
    assert precision is not None, threshold  # the callers round thresholds with _down and _up
    a, b = model.sum_neighbour, model.sum_dataset
    if precision == 53:
        sort = z3.Float64()
        t_fp = z3.fpBVToFP(z3.BitVecVal(_double_bits(float(threshold)), 64), sort)
    else:  # widening a double is exact, and so is a representable constant
        sort = z3.FPSort(11, precision)
        a, b = z3.fpToFP(z3.RNE(), a, sort), z3.fpToFP(z3.RNE(), b, sort)
        t_fp = z3.fpToFP(z3.RNE(), z3.Q(threshold.numerator, threshold.denominator), sort)
    up = z3.fpSub(z3.RTP(), a, b)
    down = z3.fpSub(z3.RTN(), a, b)
    if strict:  # a - b > t iff RTP(a - b) > t;  a - b < -t iff RTN(a - b) < -t
        return z3.Or(z3.fpGT(up, t_fp), z3.fpLT(down, z3.fpNeg(t_fp)))
    # a - b >= t iff RTN(a - b) >= t;  a - b <= -t iff RTP(a - b) <= -t
    return z3.Or(z3.fpGEQ(down, t_fp), z3.fpLEQ(up, z3.fpNeg(t_fp)))


def _precision(threshold: Fraction) -> int | None:
    """The fewest significand bits ``p`` (53 to 64) of a binary format with 11 exponent bits that holds
    ``threshold`` exactly (``0 <= threshold <= the largest double``), or None when none of them does."""
    den = threshold.denominator
    if not 0 <= threshold <= _DOUBLE_MAX or den & (den - 1):
        return None
    if threshold == 0:
        return 53
    num = threshold.numerator
    zeros = (num & -num).bit_length() - 1
    odd, exponent = num >> zeros, zeros - (den.bit_length() - 1)  # threshold = odd * 2**exponent
    # a normal number needs p bits for odd; below 2**-1022 the last bit's weight is 2**(-1022 - (p - 1)) at least
    need = odd.bit_length() if exponent + odd.bit_length() - 1 >= -1022 else -1021 - exponent
    bits = max(53, need)
    return bits if bits <= _MAX_PRECISION else None


def _solver(order: str, timeout_ms: int) -> Any:
    # Z3's own QF_FP tactic (fpa2bv, then bit-blasting) was the quickest on these queries; the
    # default solver was up to ten times slower on some satisfiable ones.
    solver = z3.Tactic("qfbv").solver() if order == "integer" else z3.Tactic("qffp").solver()
    solver.set("timeout", timeout_ms)
    return solver


def _query(
    n: int, low: Value, high: Value, order: str, threshold: Fraction, timeout_ms: int, strict: bool = True
) -> tuple[Status, Witness | None, str]:
    """One query: a re-checked witness with ``|difference| > threshold`` (``>=`` unless ``strict``) (``found``),
    ``excluded`` (Z3 proved that no pair has one), or ``unknown``."""
    model = _build(n, low, high, order)
    solver = _solver(order, timeout_ms)
    solver.add(*model.constraints)
    solver.add(_exceeds(model, order, threshold, strict))
    answer = solver.check()
    if answer == z3.unsat:
        return "excluded", None, ""
    if answer != z3.sat:
        return "unknown", None, f"Z3 returned {answer} ({solver.reason_unknown()}) within timeout_ms={timeout_ms}"
    found = solver.model()

    def bits(term: Any) -> int:
        value: int = found.eval(term, model_completion=True).as_long()
        return value

    if order == "integer":
        raw = [_wrap64(bits(v)) for v in model.values]
        z3_sums: tuple[Value, Value] = (_wrap64(bits(model.sum_dataset)), _wrap64(bits(model.sum_neighbour)))
        values: list[Value] = list(raw)
    else:
        values = [_bits_double(bits(v)) for v in model.values]
        z3_sums = (
            _bits_double(bits(z3.fpToIEEEBV(model.sum_dataset))),
            _bits_double(bits(z3.fpToIEEEBV(model.sum_neighbour))),
        )
    return _recheck(values[:n], values[n], low, high, order, threshold, z3_sums, strict)


def _recheck(
    dataset: Sequence[Value],
    record: Value,
    low: Value,
    high: Value,
    order: str,
    threshold: Fraction,
    z3_sums: tuple[Value, Value],
    strict: bool = True,
) -> tuple[Status, Witness | None, str]:
    """Recompute Z3's pair in Python; ``found`` only if it is in range, the sums agree and the difference exceeds."""
    shown_pair = f"D={[_hex(v) for v in dataset]}, y={_hex(record)}"
    for value in (*dataset, record):
        if isinstance(value, float) and math.isnan(value) or not low <= value <= high:
            return "unknown", None, f"Z3's model has a value {_hex(value)} outside [lower, upper] ({shown_pair})"
    s = computed_sum(dataset, order)
    s2 = computed_sum((*dataset, record), order)
    same = (
        (s == z3_sums[0] and s2 == z3_sums[1])
        if order == "integer"
        else (_double_bits(float(s)) == _double_bits(float(z3_sums[0])))
        and (_double_bits(float(s2)) == _double_bits(float(z3_sums[1])))
    )
    if not same:
        return (
            "unknown",
            None,
            f"Z3's sums ({_hex(z3_sums[0])}, {_hex(z3_sums[1])}) differ from Python's ({_hex(s)}, {_hex(s2)}) "
            f"for {shown_pair}",
        )
    difference = Fraction(s2) - Fraction(s)
    if abs(difference) < threshold or (strict and abs(difference) == threshold):
        return (
            "unknown",
            None,
            f"Z3's pair {shown_pair} has |S(D') - S(D)| = {exact_text(difference)} "
            f"{'<=' if strict else '<'} {exact_text(threshold)} when recomputed in Python",
        )
    return "found", Witness(tuple(dataset), record, s, s2, difference), ""


# --- thresholds ------------------------------------------------------------------------------------


def _round(value: Fraction, up: bool) -> Fraction:
    """``value`` (``0 <= value <= the largest double``) rounded down or up to ``_MAX_PRECISION`` significant
    bits, or to a multiple of ``2**-1074`` below ``2**-1022``, where every format here is as fine as a double."""
    if value >= Fraction(1, 2**1022):
        exponent = value.numerator.bit_length() - value.denominator.bit_length()
        if Fraction(2) ** exponent > value:
            exponent -= 1
        scale = Fraction(2) ** (_MAX_PRECISION - 1 - exponent)
    else:
        scale = Fraction(2**1074)
    scaled = value * scale
    return Fraction(math.ceil(scaled) if up else math.floor(scaled)) / scale


def _down(value: Fraction, order: str) -> Fraction:
    """The largest threshold the encoding takes (``_MAX_PRECISION`` significant bits at most; an integer for
    ``"integer"``) that is <= ``value`` (``value >= 0``)."""
    if order == "integer":
        return Fraction(math.floor(value))
    if value >= _DOUBLE_MAX:
        return _DOUBLE_MAX
    return value if _precision(value) is not None else _round(value, up=False)


def _up(value: Fraction, order: str) -> Fraction | None:
    """The smallest threshold >= ``value``, or None past the largest double."""
    if order == "integer":
        return Fraction(math.ceil(value))
    if value > _DOUBLE_MAX:
        return None
    if _precision(value) is not None:
        return value
    rounded = _round(value, up=True)
    return rounded if rounded <= _DOUBLE_MAX else None


def _between(a: Fraction, b: Fraction, order: str) -> Fraction | None:
    """A threshold strictly between ``a`` and ``b`` (``0 <= a < b``) about halfway: by value for integers, by
    position among the doubles for floats (so a bracket many binades wide closes in a few steps), by value
    once they are a double or two apart; None if no threshold lies strictly between them."""
    if order == "integer":
        middle = Fraction((math.floor(a) + math.ceil(b)) // 2)
        return middle if a < middle < b else None
    low, high = _double_bits(float(a)), _double_bits(float(b))  # nearest doubles: off by at most one place
    middle = Fraction(_bits_double((low + high) // 2))
    if a < middle < b:
        return middle
    middle = _round((a + b) / 2, up=False)  # a and b a double or two apart: halve by value
    return middle if a < middle < b else None


def _statement_excluded(n: int, low: Value, high: Value, order: str, delta: Fraction) -> str:
    kind = "int64 values" if order == "integer" else "doubles"
    return (
        f"no dataset of {n} {kind} in [{low!r}, {high!r}] and added record in that interval has "
        f"|S(D') - S(D)| > {exact_text(delta)} (the record summed last) in the {order!r} summation order"
    )


# --- the checks ------------------------------------------------------------------------------------


def check_sum_sensitivity(
    n: int,
    lower: float | int,
    upper: float | int,
    order: str = "sequential",
    *,
    delta: float | int | Fraction | None = None,
    timeout_ms: int = 10_000,
) -> SensitivityResult:
    """Search for neighbours whose computed sums differ by more than ``delta``, or prove that none exist.

    ``delta`` defaults to ``max(|lower|, |upper|)``, the sensitivity libraries declare.  Z3 gets at most
    ``timeout_ms`` per query (a second query, above ``delta``, only when ``delta`` has no exact 64-bit
    form).  See the module's docstring for
    what ``found``, ``excluded`` and ``unknown`` establish.
    """
    n = _need_n(n)
    order = _need_order(order)
    low, high = _need_bounds(lower, upper, order)
    bound = _need_delta(delta, low, high)
    timeout_ms = _need_timeout(timeout_ms)
    start = time.perf_counter()

    def result(status: Status, witness: Witness | None, statement: str) -> SensitivityResult:
        return SensitivityResult(status, n, low, high, order, bound, witness, statement, time.perf_counter() - start)

    below = _down(bound, order)  # |d| > bound implies |d| > below: unsat here excludes bound too
    status, witness, why = _query(n, low, high, order, below, timeout_ms)
    if status == "excluded":
        return result("excluded", None, _statement_excluded(n, low, high, order, bound))
    if witness is None:
        return result("unknown", None, why)
    if witness.magnitude > bound:
        return result("found", witness, _statement_found(witness, bound))
    # Only when delta has no 64-bit form: Z3's pair exceeds delta rounded down but not delta; ask above it.
    above = _up(bound, order)
    if above is None:
        return result("unknown", None, f"delta={exact_text(bound)} lies above every double")
    status, witness, why = _query(n, low, high, order, above, timeout_ms)
    if witness is not None:
        return result("found", witness, _statement_found(witness, bound))
    if status == "excluded":
        why = (
            f"some pair has |S(D') - S(D)| > {exact_text(below)} but none > {exact_text(above)}; "
            f"delta={exact_text(bound)} lies between, and neither query decides it"
        )
    return result("unknown", None, why)


def _statement_found(witness: Witness, delta: Fraction) -> str:
    return (
        f"D={list(witness.dataset_hex)} and D'={list(witness.neighbour_hex)} have computed sums "
        f"{witness.sums_hex[0]} and {witness.sums_hex[1]}: "
        f"|S(D') - S(D)| = {exact_text(witness.magnitude)} > delta = {exact_text(delta)} "
        f"(by {exact_text(witness.magnitude - delta)})"
    )


def _seed(n: int, low: Value, high: Value, order: str) -> Witness:
    """The best of the pairs with ``D`` constant at an end of the interval and ``y`` at an end, computed in Python."""

    def pair(fill: Value, record: Value) -> Witness:
        s, s2 = computed_sum((fill,) * n, order), computed_sum((fill,) * n + (record,), order)
        return Witness((fill,) * n, record, s, s2, Fraction(s2) - Fraction(s))

    return max((pair(fill, record) for fill in (low, high) for record in (high, low)), key=lambda w: w.magnitude)


def _a_priori(n: int, low: Value, high: Value, order: str) -> Fraction:
    """A bound on ``|S(D') - S(D)|`` from the textbook error analysis (Higham, *Accuracy and Stability of
    Numerical Algorithms*, ch. 4: any order of k terms errs by at most ``gamma_{k-1} sum |x_i|``), or the
    int64 range.  It only guides the bisection; an upper bound is reported only once Z3 proves it."""
    if order == "integer":
        return Fraction(2**64 - 1)
    m = Fraction(max(abs(low), abs(high)))

    def gamma(k: int) -> Fraction:
        return k * _UNIT / (1 - k * _UNIT)

    return m + gamma(n) * (n + 1) * m + gamma(max(n - 1, 0)) * n * m


def largest_difference(
    n: int,
    lower: float | int,
    upper: float | int,
    order: str = "sequential",
    *,
    steps: int = 8,
    timeout_ms: int = 10_000,
    budget_s: float = 60.0,
) -> DifferenceBounds:
    """Bracket ``max |S(D') - S(D)|`` over the neighbours of :func:`check_sum_sensitivity`.

    Starts from the best pair with constant ``D`` (computed in Python), then asks Z3 at most ``steps``
    times whether some pair exceeds a threshold: first, and after every ``unsat``, a threshold at the
    lower bound (a better pair, or a proof that the lower bound is the maximum, or all but); after every
    ``sat``, one halfway to the upper bound (or, before there is one, to the textbook error bound; halfway
    among the doubles for the float orders, then by value).  Each query gets ``min(timeout_ms, time left)``;
    no query starts after ``budget_s`` seconds.  A ``sat`` raises the lower bound to the re-checked
    pair's difference; an ``unsat`` lowers the upper bound to the threshold; an ``unknown`` ends the search.
    Once no threshold lies strictly between the bounds (they are adjacent at 64 significant bits, or
    integers), one last query asks whether some pair reaches the upper bound: ``sat`` makes the bounds
    meet, ``unsat`` sets ``upper_strict``.
    """
    n = _need_n(n)
    order = _need_order(order)
    low, high = _need_bounds(lower, upper, order)
    timeout_ms = _need_timeout(timeout_ms)
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= _MAX_STEPS:
        raise InvalidArgument(f"steps must be an integer in [1, {_MAX_STEPS}]; got steps={shown(steps)}.")
    if (
        isinstance(budget_s, bool)
        or not isinstance(budget_s, (int, float))
        or not (math.isfinite(budget_s) and budget_s > 0)
    ):
        raise InvalidArgument(f"budget_s must be a finite number of seconds > 0; got budget_s={shown(budget_s)}.")
    start = time.perf_counter()
    best = _seed(n, low, high, order)
    upper_bound: Fraction | None = None
    upper_strict = False  # proved: no pair reaches upper_bound
    guide = max(_a_priori(n, low, high, order), best.magnitude)
    queries: list[Query] = []
    stopped = f"all {steps} steps used"
    for _ in range(steps + 1):
        at_lower = _up(best.magnitude, order)  # the least threshold a better pair exceeds
        adjacent = upper_bound is not None and (at_lower is None or at_lower >= upper_bound)
        if best.magnitude == upper_bound:
            stopped = "the bounds meet"
            break
        if adjacent and upper_strict:
            stopped = "no threshold lies between the bounds, and no pair reaches the upper one"
            break
        if len(queries) == steps:
            break
        left = budget_s - (time.perf_counter() - start)
        if left <= 0:
            stopped = f"time budget of {budget_s} s spent"
            break
        strict = True
        if adjacent:
            assert upper_bound is not None
            threshold, strict = upper_bound, False  # is the upper bound reached?
        elif at_lower is None:
            stopped = "the lower bound lies above every double"
            break
        elif queries and queries[-1].status == "found":
            ceiling = upper_bound if upper_bound is not None else guide
            middle = _between(at_lower, ceiling, order) if at_lower < ceiling else None
            threshold = middle if middle is not None else at_lower
        else:
            threshold = at_lower
        began = time.perf_counter()
        limit = max(1, min(timeout_ms, math.ceil(left * 1000)))
        status, witness, why = _query(n, low, high, order, threshold, limit, strict)
        queries.append(Query(threshold, strict, status, time.perf_counter() - began))
        if status == "found" and witness is not None:
            best = witness if witness.magnitude > best.magnitude else best
            guide = max(guide, best.magnitude)
        elif status == "excluded" and strict:
            upper_bound = threshold if upper_bound is None else min(upper_bound, threshold)
        elif status == "excluded":
            upper_strict = True
        else:
            relation = ">" if strict else ">="
            stopped = f"the query |S(D') - S(D)| {relation} {exact_text(threshold)} came back unknown: {why}"
            break
    seconds = time.perf_counter() - start
    found = (best.magnitude, best, upper_bound, upper_strict, tuple(queries), stopped, seconds)
    return DifferenceBounds(n, low, high, order, *found)
