"""diffprivlib's ``Geometric`` at CPython's 53 bits: the edge output of one input that its
neighbour never gives (:func:`geometric_support_edge`), found by bisection under assumption L.
Its own module: a witness of infinite loss found without the PMF, by a derivation of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpverify.samplers import InvalidArgument, SamplerContractError
from dpverify.samplers._rational import shown
from dpverify.verify.engine._random_compat import CPYTHON_FLOAT_BITS, RandomCompat
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.published._diffprivlib_pmf import ASSUMPTION_L, DiffprivlibMechanism, _OneDraw

__all__ = [
    "SupportEdge",
    "geometric_support_edge",
]


@dataclass(frozen=True, slots=True)
class SupportEdge:
    """An output of ``q'`` that ``q`` never produces, for diffprivlib's ``Geometric`` at ``bits`` bits.

    ``output`` is the largest output of ``from_input`` (``q'`` when ``q' > q``, else the
    smallest), produced by ``count`` draws starting at ``draw``: ``P(output | from_input) =
    count / 2^bits`` exactly (the draws are run).  ``other_edge`` is the other input's most
    extreme output on the same side, so every draw of it gives an output strictly inside
    ``output``: ``P(output | other) = 0``, infinite privacy loss.  That last step rests on
    assumption L (module docstring of this section, :func:`geometric_support_edge`);
    ``window`` is the draws scanned exhaustively around each edge to check it at run time.
    """

    mechanism: DiffprivlibMechanism
    q: Fraction
    q_prime: Fraction
    bits: int
    output: int
    from_input: str
    draw: int
    count: int
    other_edge: int
    window: int

    @property
    def probability(self) -> Fraction:
        return Fraction(self.count, 1 << self.bits)

    def check(self) -> CheckResult:
        """``violated`` at ``bits`` bits, under assumption L, with the witness."""
        source, other = (self.q_prime, self.q) if self.from_input == "q_prime" else (self.q, self.q_prime)
        where = f"diffprivlib {self.mechanism.describe()} at {self.bits} bits"
        summary = (
            f"{where}: infinite privacy loss (under assumption L, np.log monotone): output {self.output} "
            f"has P={fraction_text(self.probability)} from q={fraction_text(source)} (draws {self.draw}.."
            f"{self.draw + self.count - 1}) and P=0 from q={fraction_text(other)}, whose outputs stop at "
            f"{self.other_edge}"
        )
        evidence = {
            "bits": self.bits,
            **self.mechanism.to_json(),
            "q": fraction_text(self.q),
            "q_prime": fraction_text(self.q_prime),
            "claim_epsilon": fraction_text(self.mechanism.epsilon),
            "epsilon_exact": "Infinity",
            "assumption": ASSUMPTION_L,
            "window": self.window,
            "witness": {
                "q": fraction_text(source),
                "q_prime": fraction_text(other),
                "output": self.output,
                "p": fraction_text(self.probability),
                "p_prime": "0",
                "ratio": "Infinity",
                "draw": self.draw,
                "count": self.count,
                "other_edge": self.other_edge,
            },
        }
        return CheckResult("privacy", Verdict.VIOLATED, summary, evidence=evidence)


def geometric_support_edge(
    mechanism: DiffprivlibMechanism, q: object, q_prime: object, bits: int = CPYTHON_FLOAT_BITS, *, guard: int = 64
) -> SupportEdge:
    """The output of the larger (or smaller) input that the other never gives, at ``bits`` bits, 53 included.

    Write ``h = 2^(bits-1)``.  In ``Geometric.randomise`` the draw ``j`` gives ``u = j / 2^bits``
    and ``v = fl(fl(u - 0.5) * c)``, ``c = fl(1 + exp(-eps/s)) > 0``, where ``u - 0.5`` is exact,
    so ``v`` is non-decreasing in ``j`` (rounding is monotone), ``< 0`` for ``j < h``, ``0`` at
    ``j = h`` (the draw that raises) and ``> 0`` for ``j > h``.  **Assumption L**: ``np.log`` is
    non-decreasing on the positive doubles.  Then on ``j > h`` the output ``int(round(q +
    floor(log(v) / (-eps/s))))`` is non-increasing in ``j`` (division by a negative double, floor
    and the sum are monotone), so the largest output of ``q`` is the one at ``j = h + 1``; on
    ``j < h``, ``-v`` falls as ``j`` grows and the output ``q - floor(log(-v) / (-eps/s))`` is
    non-increasing too, so the smallest output is the one at ``j = h - 1``.  For ``q < q'`` the
    largest output of ``q'`` exceeds that of ``q`` (it is ``q' - q`` more, unless rounding of the
    double sum intervenes, which the code run decides): ``P = 0`` from ``q``.  Its exact
    probability from ``q'`` is the number of draws from ``h + 1`` on that give it, found by
    bisection on the monotone run; ``guard`` draws on each side of every edge are run to check L
    where it matters, and a decrease seen there is refused (SamplerContractError) rather than trusted.
    Runs ``O(bits + guard)`` executions; at ``bits <= 20`` the tests compare it with the exhaustive PMF.
    """
    import numpy as np

    if mechanism.name != "geometric":
        raise InvalidArgument(f"mechanism must be geometric (the unbounded one); got mechanism={mechanism.name}.")
    if isinstance(bits, bool) or not isinstance(bits, int) or not 2 <= bits <= CPYTHON_FLOAT_BITS:
        raise InvalidArgument(f"bits must be an integer in [2, {CPYTHON_FLOAT_BITS}]; got bits={shown(bits)}.")
    q_, q2 = mechanism.check_input("q", q), mechanism.check_input("q_prime", q_prime)
    if q_ == q2:
        raise InvalidArgument(f"q and q_prime must differ; got q={shown(q)}, q_prime={shown(q_prime)}.")
    n, h = 1 << bits, 1 << (bits - 1)
    draw = _OneDraw(n, 0)
    objects = {x: mechanism.build(RandomCompat(draw, float_bits=bits)) for x in (q_, q2)}

    def output(x: Fraction, j: int) -> int:
        draw.value, draw.draws = j, 0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return int(objects[x].randomise(mechanism.argument(x)))

    up = q2 > q_  # the side on which q' sticks out: above a smaller q, below a larger one
    source, other = q2, q_
    edge, step = (h + 1, 1) if up else (h - 1, -1)
    length = n - 1 - h if up else h  # draws h+1 .. n-1, or h-1 .. 0

    def at(i: int) -> int:  # the i-th draw away from the edge; away from it the output moves towards x
        return edge + step * i

    def beyond(y: int, bound: int) -> bool:
        return y > bound if up else y < bound

    target, other_edge = output(source, edge), output(other, edge)
    low, high = 0, length - 1  # the largest i with output(at(i)) == target
    while low < high:
        middle = (low + high + 1) // 2
        if output(source, at(middle)) == target:
            low = middle
        else:
            high = middle - 1
    count = low + 1
    # Assumption L checked where it carries weight, on every draw near the edge and near the end
    # of the witness's run: nothing beyond the edge, the run exactly where bisection put it.
    near = sorted({*range(min(guard, length)), *range(max(0, count - guard), min(length, count + guard))})
    for i in near:
        y, y_other = output(source, at(i)), output(other, at(i))
        if beyond(y, target) or (y == target) != (i < count) or beyond(y_other, other_edge):
            raise SamplerContractError(
                f"assumption L fails at draw {at(i)} (outputs {y} of q={fraction_text(source)}, "
                f"{y_other} of q={fraction_text(other)}); the witness at {bits} bits cannot be "
                "certified on this platform."
            )
    if (other_edge >= target) if up else (other_edge <= target):
        raise InvalidArgument(
            f"the supports' edges do not differ at {bits} bits: q={fraction_text(other)} reaches "
            f"{other_edge}, q'={fraction_text(source)} reaches {target}."
        )
    first = edge if up else at(count - 1)  # the smallest draw of the run
    return SupportEdge(mechanism, q_, q2, bits, target, "q_prime", first, count, other_edge, guard)
