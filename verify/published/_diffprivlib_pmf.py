"""diffprivlib's mechanisms at ``k`` bits and their exact output PMF (enumerated, or bisected under
assumption L), and the PMF of ``GeometricTruncated`` against the exact GTM.  Its own module: the
privacy check, the sweeps, the support edge and the specs all build on these PMFs; see
:mod:`dpverify.verify.published._diffprivlib` for what is run and what a verdict says.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, SupportsFloat

from dpverify.samplers import DpverifyError, InvalidArgument, RandomSource, SamplerContractError, as_fraction, as_int
from dpverify.samplers._rational import shown
from dpverify.verify.engine._bisect import bisect_outputs
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._enumeration import Enumeration
from dpverify.verify.engine._random_compat import CPYTHON_FLOAT_BITS, RandomCompat
from dpverify.verify.engine._results import fraction_text

__all__ = [
    "ASSUMPTION_L",
    "AUTO_ENUMERATE_BITS",
    "MAX_BITS",
    "MECHANISMS",
    "METHODS",
    "DiffprivlibMechanism",
    "GtmDistance",
    "diffprivlib_mechanism",
    "gtm_distance",
    "output_pmf",
]

#: The mechanisms audited, by the name used here.
MECHANISMS = ("geometric", "geometric-truncated", "laplace")

#: The largest ``k`` each mechanism is enumerated at: ``2^k`` executions per input for the
#: geometric ones (about 8 s per input at ``k = 20`` on one core, 16 times that at 24), ``2^(4k)``
#: for Laplace (about 15 s per input at ``k = 5``, 16 times that at 6).
MAX_BITS = {"geometric": 24, "geometric-truncated": 24, "laplace": 6}

#: Above this ``k`` the geometric mechanisms are bisected unless ``method="enumerate"`` is asked for.
AUTO_ENUMERATE_BITS = 20

#: Draws run on each side of every run boundary found by bisection, to check assumption L there.
GUARD = 8

#: Executions an enumeration may make before its verdict is inconclusive.
MAX_PATHS = 1 << 24

_RAISES = (OverflowError, ValueError, ZeroDivisionError, FloatingPointError)


def _diffprivlib() -> Any:
    try:
        import diffprivlib.mechanisms as mechanisms
    except ImportError as error:  # the optional extra
        raise InvalidArgument(
            f"the diffprivlib audit needs diffprivlib; install it with pip install 'dpverify[diffprivlib]' ({error})."
        ) from None
    return mechanisms


def _exact_double(name: str, value: Fraction) -> float:
    double = float(value)
    if not math.isfinite(double) or Fraction(double) != value:
        raise InvalidArgument(
            f"{name} must be exactly a double, since the mechanism runs on doubles; got {name}={shown(value)}."
        )
    return double


def _integer(name: str, value: object) -> int:
    number = as_fraction(name, value)
    if number.denominator != 1:
        raise InvalidArgument(f"{name} must be an integer; got {name}={shown(value)}.")
    return number.numerator


@dataclass(frozen=True, slots=True)
class DiffprivlibMechanism:
    """One diffprivlib mechanism with its parameters, as the library receives them.

    ``epsilon`` is the exact value of the double passed to diffprivlib (and the claim audited);
    ``sensitivity`` is an int for the geometric mechanisms and an exact double for Laplace;
    ``lower`` and ``upper`` are the truncated mechanism's bounds (None otherwise).
    """

    name: str
    epsilon: Fraction
    sensitivity: Fraction
    lower: int | None = None
    upper: int | None = None

    def build(self, rng: RandomCompat) -> Any:
        """The diffprivlib object, drawing from ``rng`` (its public constructor, unmodified)."""
        mechanisms = _diffprivlib()
        epsilon = float(self.epsilon)
        if self.name == "geometric":
            return mechanisms.Geometric(epsilon=epsilon, sensitivity=int(self.sensitivity), random_state=rng)
        if self.name == "geometric-truncated":
            return mechanisms.GeometricTruncated(
                epsilon=epsilon, sensitivity=int(self.sensitivity), lower=self.lower, upper=self.upper, random_state=rng
            )
        return mechanisms.Laplace(epsilon=epsilon, delta=0.0, sensitivity=float(self.sensitivity), random_state=rng)

    def argument(self, q: Fraction | int) -> int | float:
        """The value handed to ``randomise``: an int for the geometric mechanisms, a double for Laplace."""
        return float(q) if self.name == "laplace" else int(q)

    def check_input(self, name: str, value: object) -> Fraction:
        """``value`` parsed and checked against the mechanism's input domain."""
        if self.name == "laplace":
            q = as_fraction(name, value)
            _exact_double(name, q)
            return q
        q = Fraction(_integer(name, value))
        if self.lower is not None and self.upper is not None and not self.lower <= q <= self.upper:
            raise InvalidArgument(
                f"{name} must be an integer in [lower, upper] = [{self.lower}, {self.upper}]; "
                f"got {name}={shown(value)}."
            )
        return q

    def describe(self) -> str:
        eps = fraction_text(self.epsilon)
        eps = eps if len(eps) <= 12 else repr(float(self.epsilon))  # the double as Python writes it
        if self.name == "geometric":
            return f"Geometric(epsilon={eps}, sensitivity={self.sensitivity})"
        if self.name == "geometric-truncated":
            return (
                f"GeometricTruncated(epsilon={eps}, sensitivity={self.sensitivity}, "
                f"lower={self.lower}, upper={self.upper})"
            )
        return f"Laplace(epsilon={eps}, sensitivity={fraction_text(self.sensitivity)})"

    def to_json(self) -> dict[str, Any]:
        return {
            "mechanism": self.name,
            "epsilon": fraction_text(self.epsilon),
            "sensitivity": fraction_text(self.sensitivity),
            "lower": self.lower,
            "upper": self.upper,
        }


def diffprivlib_mechanism(
    name: str,
    *,
    epsilon: object,
    sensitivity: object = 1,
    lower: object = None,
    upper: object = None,
) -> DiffprivlibMechanism:
    """Parse a mechanism's parameters (exact rationals or their strings; no floats).

    ``epsilon > 0`` (the double nearest to it is what diffprivlib receives and what the claim
    is about); ``sensitivity``: an integer ``>= 1`` for the geometric mechanisms, a rational
    ``> 0`` that is exactly a double for Laplace; ``lower < upper`` integers for
    ``geometric-truncated`` only.
    """
    if name not in MECHANISMS:
        raise InvalidArgument(f"mechanism must be one of {', '.join(MECHANISMS)}; got mechanism={shown(name)}.")
    eps = as_fraction("epsilon", epsilon)
    double = float(eps) if eps > 0 else 0.0
    if not (eps > 0 and math.isfinite(double) and double > 0):
        raise InvalidArgument(
            f"epsilon must be a rational > 0 whose nearest double is finite and > 0; got epsilon={shown(epsilon)}."
        )
    if name == "laplace":
        s = as_fraction("sensitivity", sensitivity)
        if s <= 0:
            raise InvalidArgument(f"sensitivity must be a rational > 0; got sensitivity={shown(sensitivity)}.")
        _exact_double("sensitivity", s)
    else:
        s = Fraction(as_int("sensitivity", sensitivity, low=1))
    low = high = None
    if name == "geometric-truncated":
        if lower is None or upper is None:
            raise InvalidArgument(
                "geometric-truncated needs lower and upper (integers, lower < upper); "
                f"got lower={shown(lower)}, upper={shown(upper)}."
            )
        low, high = _integer("lower", lower), _integer("upper", upper)
        if not low < high:
            raise InvalidArgument(f"lower must be < upper; got lower={low}, upper={high}.")
    elif lower is not None or upper is not None:
        raise InvalidArgument(
            f"lower and upper are parameters of geometric-truncated only; got lower={shown(lower)}, "
            f"upper={shown(upper)} for mechanism={name}."
        )
    return DiffprivlibMechanism(name, Fraction(double), s, low, high)


#: How an output PMF is derived: ``"enumerate"`` runs every execution (no assumption);
#: ``"bisect"`` (the geometric mechanisms, up to 53 bits) finds each output's run of draws.
METHODS = ("enumerate", "bisect")


def _bits(mechanism: DiffprivlibMechanism, bits: object, method: object = None) -> tuple[int, str]:
    if method is not None and method not in METHODS:
        raise InvalidArgument(f"method must be one of {', '.join(METHODS)} or None; got method={shown(method)}.")
    if method == "bisect" and mechanism.name == "laplace":
        raise InvalidArgument(
            "method=bisect applies to the geometric mechanisms only (one draw, monotone on each "
            "half); Laplace's four draws are enumerated: use method=enumerate."
        )
    if method is None and isinstance(bits, int) and not isinstance(bits, bool) and mechanism.name != "laplace":
        method = "enumerate" if bits <= AUTO_ENUMERATE_BITS else "bisect"
    high = CPYTHON_FLOAT_BITS if method == "bisect" else MAX_BITS[mechanism.name]
    if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= high:
        raise InvalidArgument(
            f"bits must be an integer in [1, {high}] for {mechanism.name} (method "
            f"{method or 'enumerate'}); got bits={shown(bits)}."
        )
    return bits, method or "enumerate"


def _output(value: SupportsFloat) -> Hashable:
    # numpy scalars hash and compare like Python numbers; plain ones keep the evidence readable.
    return value if isinstance(value, int) else float(value)


def _runner(mechanism: DiffprivlibMechanism, q: Fraction | int, bits: int) -> Callable[[RandomSource], Hashable]:
    """``source -> output``: the diffprivlib object built once per source (the enumeration hands
    the same enumerating source to every execution) and ``randomise(q)`` called on it."""
    argument = mechanism.argument(q)
    state: dict[str, Any] = {}

    def run(source: RandomSource) -> Hashable:
        if state.get("source") is not source:
            state["source"] = source
            state["object"] = mechanism.build(RandomCompat(source, float_bits=bits))
        try:
            return _output(state["object"].randomise(argument))
        except DpverifyError:  # the engine's or a source's complaint (an InvalidArgument is a ValueError)
            raise
        except _RAISES as error:
            return f"raised {type(error).__name__}"

    return run


def output_pmf(
    mechanism: DiffprivlibMechanism, q: object, bits: int, *, method: str | None = None, max_paths: int = MAX_PATHS
) -> Enumeration:
    """The exact output distribution of diffprivlib's code on input ``q`` with a ``bits``-bit
    ``random()``: an :class:`~dpverify.verify.engine._enumeration.Enumeration` (``masses``, exact).

    ``method="enumerate"`` (the default up to :data:`AUTO_ENUMERATE_BITS`, allowed up to
    :data:`MAX_BITS`) runs every execution through
    :func:`~dpverify.verify.engine._enumerate.enumerate_outputs`.  ``method="bisect"`` (the default
    above, geometric mechanisms only, up to 53 bits) rests on assumption L
    (:data:`ASSUMPTION_L`): with ``h = 2^(bits-1)``, the output is non-increasing in the draw on
    ``0 .. h-1`` and on ``h+1 .. 2^bits - 1``
    (:func:`~dpverify.verify.published._diffprivlib_edge.geometric_support_edge` derives this), so
    on each half every output's draws are one run, found by
    :func:`~dpverify.verify.engine._bisect.bisect_outputs` in ``O(outputs * bits)`` executions; the
    draw ``h`` is run on its own.
    """
    import numpy as np

    q_ = mechanism.check_input("q", q)
    k, how = _bits(mechanism, bits, method)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if how == "bisect":
            return _bisected(mechanism, q_, k)
        return enumerate_outputs(_runner(mechanism, q_, k), max_paths=max_paths)


def _bisected(mechanism: DiffprivlibMechanism, q: Fraction, bits: int) -> Enumeration:
    n, h = 1 << bits, 1 << (bits - 1)
    draw = _OneDraw(n, 0)
    run = _runner(mechanism, q, bits)

    def at(j: int) -> Hashable:
        draw.value, draw.draws = j, 0
        return run(draw)

    def shifted(offset: int, size: int) -> Callable[[RandomSource], Hashable]:
        return lambda source: at(offset + source.randbelow(size))

    masses: dict[Hashable, Fraction] = {}
    executions = 1
    middle = at(h)
    masses[middle] = Fraction(1, n)
    for offset, size in ((0, h), (h + 1, h - 1)):
        if size == 0:
            continue
        found = bisect_outputs(shifted(offset, size), size)
        executions += found.executions
        start = offset
        for y, mass in found.masses.items():  # in the order of their runs along the draws
            masses[y] = masses.get(y, Fraction(0)) + mass * Fraction(size, n)
            end = start + int(mass * size)  # the run is start .. end - 1
            for j in [*range(start, min(start + GUARD, end)), *range(max(start, end - GUARD), end)]:
                executions += 1
                if at(j) != y:
                    raise SamplerContractError(
                        f"assumption L fails on this platform: draw {j} gives {shown(at(j))} inside the run "
                        f"{start}..{end - 1} of output {shown(y)} that bisection found; use bits <= "
                        f"{MAX_BITS[mechanism.name]} (method=enumerate), which assumes nothing."
                    )
            start = end
    return Enumeration(
        masses, Fraction(0), len(masses), executions, "bisection", {(y, 1): m for y, m in masses.items()}
    )


class _OneDraw(RandomSource, trusted=True):
    """Answers the single ``randbelow(2^k)`` of one ``random()`` with ``value``."""

    def __init__(self, n: int, value: int) -> None:
        self.n, self.value, self.draws = n, value, 0

    def randbelow(self, n: int) -> int:
        self.draws += 1
        if self.draws > 1 or n != self.n:
            raise SamplerContractError(
                f"the geometric mechanism was expected to draw once, randbelow({self.n}); "
                f"it asked for randbelow({n}) as draw {self.draws}."
            )
        return self.value


#: The one assumption :func:`~dpverify.verify.published._diffprivlib_edge.geometric_support_edge`
#: (and the bisection of :func:`output_pmf`) makes beyond running the code.
ASSUMPTION_L = (
    "np.log is non-decreasing on the positive doubles it is given (true of a correctly rounded "
    "logarithm; faithful rounding alone does not imply it for neighbouring doubles); checked at run "
    "time on every draw near each edge, and against the exhaustive PMF up to 20 bits by the tests"
)


# --- GeometricTruncated against the exact GTM -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class GtmDistance:
    """diffprivlib's ``GeometricTruncated`` at ``bits`` bits against the ideal truncated geometric.

    ``epsilon`` is the double nearest ``ln(D)`` (what diffprivlib is given for ``alpha = 1/D``);
    ``worst`` is ``max_y |P_bits(y | q) - gtpmf(q, y)|`` with ``gtpmf`` at ``alpha = 1/D`` exactly
    (:meth:`dpverify.specs.GtmSpec.ideal_pmf`, Amorim, Gaboardi, Rindisbacher §2), attained at
    ``output``; ``total_variation`` is half the sum of the absolute differences.  Both are exact.
    """

    D: int
    n: int
    q: int
    bits: int
    epsilon: Fraction
    worst: Fraction
    output: int
    total_variation: Fraction


def gtm_distance(D: int, n: int, q: int, bits: int = CPYTHON_FLOAT_BITS) -> GtmDistance:
    """Compare diffprivlib's float GTM on ``[0, n]`` with the ideal ``gtpmf`` at ``alpha = 1/D``.

    The ideal is irrational for diffprivlib's own ``alpha = e^-eps`` but rational at ``1/D``, so
    the comparison is exact; it includes the (tiny) difference between ``e^-eps`` for the double
    ``eps`` nearest ``ln D`` and ``1/D``.  The PMF at ``bits`` is :func:`output_pmf`'s (bisected
    above 20 bits, under assumption L).  The exact GTM of :mod:`dpverify.samplers.gtm` samples
    ``gtpmf`` exactly at ``T = (D+1) D^n`` (Theorem 7.1): distance 0.
    """
    import mpmath

    from dpverify.specs import GtmSpec

    D_, n_ = as_int("D", D, low=2), as_int("n", n, low=1, high=1000)
    q_ = as_int("q", q, low=0, high=n_)
    with mpmath.workprec(53):  # mpmath rounds to nearest at 53 bits: the double nearest ln D
        epsilon = Fraction(float(mpmath.log(D_)))
    mechanism = diffprivlib_mechanism("geometric-truncated", epsilon=epsilon, lower=0, upper=n_)
    found = output_pmf(mechanism, q_, bits).masses
    ideal = GtmSpec.create(Fraction(1, D_), n_, (D_ + 1) * D_**n_).ideal_pmf(q_).as_dict()
    raised = sum((m for y, m in found.items() if isinstance(y, str)), Fraction(0))
    differences = {y: abs(found.get(y, Fraction(0)) - ideal.get(y, Fraction(0))) for y in range(n_ + 1)}
    output = max(differences, key=lambda y: differences[y])
    total = (sum(differences.values(), Fraction(0)) + raised) / 2
    return GtmDistance(D_, n_, q_, bits, epsilon, differences[output], output, total)
