"""The timing channel of a sampler: how much its number of draws reveals about its output.

A rejection sampler (Canonne, Kamath, Steinke 2020, Algorithms 1-3) loops until it accepts,
so the number of random draws ``D`` it makes, and with it the running time, depends on the
output ``O``: the discrete Laplace needs more Bernoulli(exp(-1)) coins for a larger ``|z|``.
An attacker who times the sampler learns ``I(O; D)`` bits about the noise, a side channel
that the DP claim on ``O`` alone does not cover.  The audit states it; this module measures it.

The data.  :func:`dpverify.verify.engine._enumerate.enumerate_outputs` records, per explored path, the output
and the number of calls made to the source, so ``J(o, d)``, the exact mass of explored paths
returning ``o`` after ``d`` draws, is known; ``E = sum J`` is the explored mass and
``U = 1 - E`` the unexplored remainder.

The numbers, all in bits, with every logarithm evaluated in mpmath interval arithmetic on
exact rationals, so each is a rigorous enclosure:

- ``I_e = sum_{o,d} J/E * log2(J * E / (J_O(o) * J_D(d)))``: the mutual information of the
  explored part, normalised by ``E`` (``J_O``, ``J_D`` are the marginals of ``J``).
- A rigorous lower bound on the code's true ``I(O; D)``.  Let ``Z`` be the event "the path
  was explored".  The chain rule gives ``I(O;D) = I(O;Z) + I(O;D|Z) - I(O;Z|D)``, and
  ``I(O;Z) >= 0``, ``I(O;Z|D) <= H(Z) = h(U)``, ``I(O;D|Z) >= E * I_e``, so

      I(O; D) >= E * I_e - h(U),     h(U) = -U log2 U - (1 - U) log2 (1 - U).

- An upper bound only when ``U = 0`` (then ``I(O; D) = I_e``): the unexplored part may hide
  arbitrarily informative draw counts, so no upper bound follows from a partial enumeration.

The verdict.  The vocabulary stays closed, so the report judges the claim *"the number of
draws is independent of the output"*: ``violated`` when dependence is certain (the lower
bound is positive, or a pair ``(o, d)`` whose joint mass lies outside every product its
marginals allow, see :class:`DependenceWitness`), ``proved`` when the tree was exhausted and
``J(o, d) * E = J_O(o) * J_D(d)`` holds exactly for every pair, and ``inconclusive``
otherwise.  A ``violated`` here is a *finding* about a timing side channel, not a violation
of the sampler's privacy claim, and the summary says so.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from dpverify.samplers import InvalidArgument, SamplerContractError
from dpverify.samplers._rational import shown
from dpverify.verify.engine._arguments import need_callable, need_count, need_dps, need_min_mass, need_outputs
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._enumeration import Enumeration, Sampler, SamplerCrashed, need_enumeration
from dpverify.verify.engine._intervals import DEFAULT_MIN_MASS, decimal_text
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_value
from dpverify.verify.engine._text import shown_value


@contextmanager
def _interval_digits(dps: int) -> Iterator[None]:
    """mpmath's interval context at ``dps`` digits, restored afterwards (it is global)."""
    old = iv.prec
    iv.dps = dps
    try:
        yield
    finally:
        iv.prec = old


def _iv(value: Fraction) -> Any:
    """An mpmath interval enclosing the exact rational ``value``."""
    return iv.mpf(value.numerator) / iv.mpf(value.denominator)


def _ends(interval: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The ends of an mpmath interval as mpf, exactly (no rounding to ``mp.prec``)."""
    low, high = interval._mpi_
    return mpmath.mp.make_mpf(low), mpmath.mp.make_mpf(high)


def _binary_entropy(p: Fraction) -> Any:
    if p == 0 or p == 1:
        return iv.mpf(0)
    q = _iv(p)
    return -(q * iv.log(q) + (1 - q) * iv.log(1 - q)) / iv.log(2)


@dataclass(frozen=True, slots=True)
class DependenceWitness:
    """An output and a draw count whose exact joint mass no independent law can give.

    The code's true ``P(o, d)`` lies in ``[J, J + U]`` and its marginals in ``[J_O, J_O + U]``
    and ``[J_D, J_D + U]``; the witness holds when ``J > (J_O + U)(J_D + U)`` (``"above"``)
    or ``J + U < J_O * J_D`` (``"below"``), so ``P(o, d) != P(o) P(d)`` for certain.
    """

    output: Hashable
    draws: int
    joint: Fraction
    output_mass: Fraction
    draws_mass: Fraction
    unexplored: Fraction
    side: str

    def __post_init__(self) -> None:
        need_count("draws", self.draws)
        for name in ("joint", "output_mass", "draws_mass", "unexplored"):
            _mass(name, getattr(self, name))
        if self.side not in ("above", "below"):
            raise InvalidArgument(f"side must be 'above' or 'below'; got side={shown(self.side)}.")

    @property
    def gap(self) -> Fraction:
        U = self.unexplored
        if self.side == "above":
            return self.joint - (self.output_mass + U) * (self.draws_mass + U)
        return self.output_mass * self.draws_mass - (self.joint + U)

    def to_json(self) -> dict[str, Any]:
        return {
            "output": json_value(self.output),
            "draws": self.draws,
            "joint": fraction_text(self.joint),
            "joint_decimal": decimal_text(self.joint, 12),
            "output_mass_decimal": decimal_text(self.output_mass, 12),
            "draws_mass_decimal": decimal_text(self.draws_mass, 12),
            "side": self.side,
            "reads": (
                f"P(output={shown_value(self.output)}, draws={self.draws}) "
                f"{'>' if self.side == 'above' else '<'} P(output) * P(draws) for certain"
            ),
            "gap_decimal": decimal_text(self.gap, 12),
        }


@dataclass(frozen=True, slots=True)
class TimingChannel:
    """The draw-count channel of one enumeration, with the bounds of the module docstring.

    ``information_explored`` encloses ``I_e`` (bits, conditional on the explored part);
    ``information_lower`` is a rigorous lower bound on the code's ``I(O; D)`` (bits, >= 0);
    ``information_upper`` an upper bound, ``None`` unless the tree was exhausted.
    ``mean_draws[o]`` is the exact mean number of draws of explored paths returning ``o``.
    """

    explored: Fraction
    unexplored: Fraction
    information_explored: tuple[mpmath.mpf, mpmath.mpf]
    information_lower: mpmath.mpf
    information_upper: mpmath.mpf | None
    independent_on_explored: bool
    witness: DependenceWitness | None
    mean_draws: dict[Hashable, Fraction]
    draws_range: tuple[int, int]
    paths: int
    dps: int

    def __post_init__(self) -> None:
        for name in ("explored", "unexplored"):
            _mass(name, getattr(self, name))
        ends = self.information_explored
        if not (isinstance(ends, tuple) and len(ends) == 2 and all(isinstance(e, mpmath.mpf) for e in ends)):
            raise InvalidArgument(
                f"information_explored must be a pair of mpmath.mpf; got information_explored={shown(ends)}."
            )
        for name in ("information_lower", "information_upper"):
            value = getattr(self, name)
            if not (isinstance(value, mpmath.mpf) or (name == "information_upper" and value is None)):
                raise InvalidArgument(
                    f"{name} must be an mpmath.mpf{' or None' if name == 'information_upper' else ''}; "
                    f"got {name}={shown(value)}."
                )
        if not isinstance(self.independent_on_explored, bool):
            raise InvalidArgument(
                f"independent_on_explored must be True or False; got {shown(self.independent_on_explored)}."
            )
        if self.witness is not None and not isinstance(self.witness, DependenceWitness):
            raise InvalidArgument(f"witness must be a DependenceWitness or None; got witness={shown(self.witness)}.")
        if not isinstance(self.mean_draws, dict):
            raise InvalidArgument(
                f"mean_draws must be a dict of output to Fraction; got mean_draws={shown(self.mean_draws)}."
            )
        for output, mean in self.mean_draws.items():
            if not isinstance(mean, Fraction) or mean < 0:
                raise InvalidArgument(f"mean_draws[{shown_value(output)}] must be a Fraction >= 0; got {shown(mean)}.")
        low_high = self.draws_range
        if not (isinstance(low_high, tuple) and len(low_high) == 2):
            raise InvalidArgument(f"draws_range must be a pair of ints; got draws_range={shown(low_high)}.")
        for count in low_high:
            need_count("draws_range", count)
        need_count("paths", self.paths)
        need_dps(self.dps)

    @property
    def verdict(self) -> Verdict:
        if self.information_lower > 0 or self.witness is not None:
            return Verdict.VIOLATED
        if self.unexplored == 0 and self.independent_on_explored:
            return Verdict.PROVED
        return Verdict.INCONCLUSIVE

    def _bits(self, value: mpmath.mpf) -> str:
        return str(mpmath.nstr(value, 12))

    def summary(self) -> str:
        low, high = self.information_explored
        if self.verdict is Verdict.VIOLATED:
            return (
                f"timing channel: the number of draws reveals at least "
                f"{self._bits(self.information_lower)} bits about the output "
                f"(explored part: {self._bits(high)} bits). A side-channel finding, "
                "not a violation of the privacy claim on the output."
            )
        if self.verdict is Verdict.PROVED:
            return "the number of draws is independent of the output (exact, every path explored): no timing channel"
        return (
            f"the draw count is {'independent of' if self.independent_on_explored else 'dependent on'} "
            f"the output on the explored part (I_e in [{self._bits(low)}, {self._bits(high)}] bits), "
            f"but {decimal_text(self.unexplored, 6)} of the mass is unexplored"
        )

    def reason(self) -> str | None:
        if self.verdict is not Verdict.INCONCLUSIVE:
            return None
        if self.independent_on_explored:
            return "independence holds on the explored paths only; dependence may hide in the unexplored mass"
        return (
            "the explored part shows dependence, but the unexplored mass is too large for a positive "
            "lower bound; lower min_mass"
        )

    def to_json(self) -> dict[str, Any]:
        low, high = self.information_explored
        return {
            "claim": "the number of draws is independent of the output",
            "information_explored_bits": [self._bits(low), self._bits(high)],
            "information_explored_is": "conditional on the explored paths, normalised by their mass",
            "information_lower_bits": self._bits(self.information_lower),
            "information_upper_bits": None if self.information_upper is None else self._bits(self.information_upper),
            "upper_bound_note": (
                None
                if self.information_upper is not None
                else "no upper bound: the unexplored mass may carry any draw counts"
            ),
            "independent_on_explored": self.independent_on_explored,
            "witness": None if self.witness is None else self.witness.to_json(),
            "explored": fraction_text(self.explored),
            "unexplored": fraction_text(self.unexplored),
            "unexplored_decimal": decimal_text(self.unexplored),
            "mean_draws": [[json_value(o), decimal_text(m, 8)] for o, m in self.mean_draws.items()],
            "draws_range": list(self.draws_range),
            "paths": self.paths,
            "dps": self.dps,
        }

    def result(self, budgets: dict[str, Any] | None = None) -> CheckResult:
        """This report as a CheckResult of check ``"timing_channel"``."""
        if budgets is not None and not (isinstance(budgets, dict) and all(isinstance(k, str) for k in budgets)):
            raise InvalidArgument(
                f"budgets must be a dict of str keys or None; got budgets={shown(budgets)} ({type(budgets).__name__})."
            )
        return CheckResult(
            "timing_channel",
            self.verdict,
            self.summary(),
            reason=self.reason(),
            evidence={**self.to_json(), **(budgets or {})},
        )


def _mass(name: str, value: object) -> int | Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)) or not 0 <= value <= 1:
        raise InvalidArgument(f"{name} must be a Fraction in [0, 1]; got {name}={shown(value)}.")
    return value


def _find_witness(
    joint: dict[tuple[Hashable, int], Fraction],
    by_output: dict[Hashable, Fraction],
    by_draws: dict[int, Fraction],
    U: Fraction,
) -> DependenceWitness | None:
    """The pair with the largest certain departure from independence, checked exactly.

    Floats only rank candidates; the chosen one is confirmed in exact arithmetic.
    """
    u = float(U)
    best: tuple[float, Hashable, int, str] | None = None
    for o, mo in by_output.items():
        fo = float(mo)
        for d, md in by_draws.items():
            j = float(joint.get((o, d), 0))
            fd = float(md)
            for gap, side in ((j - (fo + u) * (fd + u), "above"), (fo * fd - (j + u), "below")):
                if best is None or gap > best[0]:
                    best = (gap, o, d, side)
    if best is None or best[0] <= 0:
        return None
    _, o, d, side = best
    witness = DependenceWitness(o, d, joint.get((o, d), Fraction(0)), by_output[o], by_draws[d], U, side)
    return witness if witness.gap > 0 else None


def timing_channel(found: Enumeration, *, dps: int = 30, outputs: Sequence[Hashable] | None = None) -> TimingChannel:
    """The draw-count channel of ``found`` (module docstring).

    ``outputs`` selects the outputs whose mean draw counts are listed (default: the 15 most
    probable); the information measures always use every explored output.
    """
    need_enumeration("found", found)
    dps = need_dps(dps)
    outputs = need_outputs("outputs", outputs, allow_none=True)
    joint = {key: mass for key, mass in found.joint.items() if mass}
    E, U = found.explored, found.unexplored
    by_output: dict[Hashable, Fraction] = {}
    by_draws: dict[int, Fraction] = {}
    total_draws: dict[Hashable, Fraction] = {}
    for (o, d), mass in joint.items():
        by_output[o] = by_output.get(o, Fraction(0)) + mass
        by_draws[d] = by_draws.get(d, Fraction(0)) + mass
        total_draws[o] = total_draws.get(o, Fraction(0)) + d * mass
    independent = len(joint) == len(by_output) * len(by_draws) and all(
        mass * E == by_output[o] * by_draws[d] for (o, d), mass in joint.items()
    )
    with _interval_digits(dps):
        information = iv.mpf(0)
        if not independent:  # exact zero otherwise: every log argument is exactly 1
            for (o, d), mass in joint.items():
                ratio = mass * E / (by_output[o] * by_draws[d])
                information += _iv(mass / E) * iv.log(_iv(ratio))
            information /= iv.log(2)
        lower = (_iv(E) * information - _binary_entropy(U)) if E else -_binary_entropy(U)
        low, high = _ends(information)
        explored_ends = (max(low, mpmath.mpf(0)), high)  # I_e >= 0; only rounding goes below
        information_lower = max(_ends(lower)[0], mpmath.mpf(0))
        information_upper = explored_ends[1] if U == 0 else None
    if outputs is None:
        outputs = sorted(by_output, key=lambda o: by_output[o], reverse=True)[:15]
    mean_draws = {o: total_draws[o] / by_output[o] for o in outputs if o in by_output}
    draws_range = (min(by_draws), max(by_draws)) if by_draws else (0, 0)
    witness = None if independent else _find_witness(joint, by_output, by_draws, U)
    return TimingChannel(
        E,
        U,
        explored_ends,
        information_lower,
        information_upper,
        independent,
        witness,
        mean_draws,
        draws_range,
        found.paths,
        dps,
    )


def check_timing(
    sampler: Sampler,
    *,
    min_mass: Fraction | int | str = DEFAULT_MIN_MASS,
    max_paths: int = 1_000_000,
    max_depth: int = 10_000,
    dps: int = 30,
    outputs: Sequence[Hashable] | None = None,
) -> CheckResult:
    """Enumerate ``sampler`` within the budgets and report its draw-count channel.

    ``min_mass`` is a rational in [10^-14, 1) (``MIN_MASS``),
    never 0: the draw counts vary where the code loops, and without a mass budget each loop is
    walked to ``max_depth`` draws, path after path, and its channel measured over them all.
    """
    need_callable("sampler", sampler, "a callable taking a RandomSource, e.g. lambda rng: sample(rng)")
    dps = need_dps(dps)
    outputs = need_outputs("outputs", outputs, allow_none=True)
    min_mass = need_min_mass(min_mass, zero=False)
    budgets = {
        "min_mass": fraction_text(min_mass),
        "max_paths": need_count("max_paths", max_paths, low=1),
        "max_depth": need_count("max_depth", max_depth, low=1),
    }
    try:
        found = enumerate_outputs(sampler, min_mass=min_mass, max_paths=max_paths, max_depth=max_depth)
    except (SamplerCrashed, SamplerContractError) as error:
        return CheckResult("timing_channel", Verdict.INCONCLUSIVE, str(error), reason=str(error), evidence=budgets)
    return timing_channel(found, dps=dps, outputs=outputs).result(budgets)
