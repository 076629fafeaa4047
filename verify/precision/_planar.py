"""Exact privacy of the UNSAFE planar Laplace over every pair of ``k``-bit draws.

The sampler :mod:`dpverify.samplers.planar_laplace_unsafe` (Gazeau, Miller, Palamidessi, "Preserving
differential privacy under finite-precision semantics", QAPL 2013, §6) makes two ``k``-bit
draws, the angle ``j_a`` and the radius ``j_r``, so it has exactly ``4^k`` equally likely
executions.  Each pair is encoded as the single draw ``d = j_a * 2^k + j_r`` and the real code
is run on every ``d`` (:func:`dpverify.verify.precision._float_exact.float_pmf`): output ``o`` has probability
``#{d : release(d) = o} / 4^k`` exactly, for the plain release ``(x + dx, y + dy)`` and for the
truncated and rounded one (``None`` outside the box, else the nearest point of the grid of step
``L``).  For two true locations ``a, b`` this gives the exact privacy loss
``max_o ln(P(o|a) / P(o|b))`` over both orders (:func:`dpverify.verify.precision._float_exact.float_privacy`).

What it is compared with.  The ideal planar Laplace (real arithmetic, a continuous uniform
draw) is ``eps``-geo-indistinguishable (Andrés et al., CCS 2013): ``P(S|a) <= e^{eps d(a,b)}
P(S|b)`` for every set ``S``, and truncation and rounding are post-processing, so the ideal
truncated and rounded mechanism has loss at most ``eps * d(a, b)``.  The check
``planar_truncated_rounded`` claims exactly that bound for the implementation.  (The paper's
own bound for its corrected mechanism, Theorem 4.5 and §6, is ``eps' = eps + ln(1 + R
e^{eps (L + delta_t)/Delta_f})``, which needs the implementation error ``delta_t``; its
robustness factor ``R`` is garbled in the extracted text, so no number is derived from it here.)

To tell float error apart from the coarseness of ``4^k`` draws, the report can also run the
same draws through a reference in 40-digit arithmetic (mpmath): if the two tables agree, the
loss is caused by drawing finitely many points (footnote 2 of the paper: "scaling a finite set
of randomly generated numbers"), not by rounding.  A reference point closer than ``1e-30`` to
a cell edge or the box is ambiguous and counted.  Such ties do occur where a cell edge runs
through a true location along a drawn axis direction (``L = 2``, ``b = (1, 0)``: the exact
``cos(pi/2)`` is 0, the double one ``6e-17``), and there doubles and reference may differ.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from dpverify.samplers import InvalidArgument
from dpverify.samplers.planar_laplace_unsafe import (
    Box,
    check_box,
    check_parameters,
    mechanism_unsafe,
    noise_unsafe,
    truncate_round_unsafe,
)
from dpverify.verify.engine._arguments import shown
from dpverify.verify.engine._results import CheckResult, RatioWitness, Verdict, json_number, json_value
from dpverify.verify.precision._float_exact import FloatPmf, FloatPrivacy, float_pmf, float_privacy

__all__ = ["PlanarReport", "planar_report"]

Point = tuple[float, float]

_MAX_BITS = 10  # 4^10 ~ 10^6 executions of the sampler: about 15 s
_REFERENCE_DIGITS = 40
_AMBIGUOUS = mpmath.mpf("1e-30")  # reference points this close to an edge are counted


@dataclass(frozen=True, slots=True)
class PlanarReport:
    """The exact privacy of the planar Laplace at ``k`` bits per draw, between locations ``a, b``.

    ``plain`` and ``rounded`` are the worst-ratio results of the plain and the truncated +
    rounded release (``ratio None``: an output possible from one location only).
    ``plain_outputs`` / ``rounded_outputs``: distinct outputs from ``a`` and from ``b``;
    ``plain_shared``: plain outputs possible from both.  ``reference``: the truncated + rounded
    loss in 40-digit arithmetic on the same draws, ``differing_draws`` the draw pairs (from
    ``a``, from ``b``) whose double output differs from it, ``ambiguous_draws`` the reference
    points within 1e-30 of an edge (None when no reference was run).
    """

    k: int
    eps: float
    a: Point
    b: Point
    box: Box
    L: float
    plain: FloatPrivacy
    plain_outputs: tuple[int, int]
    plain_shared: int
    rounded: FloatPrivacy
    rounded_outputs: tuple[int, int]
    reference: FloatPrivacy | None = None
    differing_draws: tuple[int, int] | None = None
    ambiguous_draws: int | None = None

    @property
    def draws(self) -> int:
        return 1 << (2 * self.k)

    def distance(self) -> mpmath.mpf:
        """``d(a, b)``, Euclidean, from the exact double coordinates (40 digits)."""
        with mpmath.workdps(_REFERENCE_DIGITS):
            return mpmath.hypot(mpmath.mpf(self.b[0]) - self.a[0], mpmath.mpf(self.b[1]) - self.a[1])

    def ideal_epsilon(self) -> float:
        """``eps * d(a, b)``: the ideal mechanism's bound on the loss between ``a`` and ``b``."""
        with mpmath.workdps(_REFERENCE_DIGITS):
            return float(mpmath.mpf(self.eps) * self.distance())

    def checks(self) -> tuple[CheckResult, CheckResult]:
        """Both releases judged against the ideal bound ``eps * d(a, b)``."""
        return (
            self._check("planar_plain", self.plain, self.plain_outputs),
            self._check("planar_truncated_rounded", self.rounded, self.rounded_outputs),
        )

    def _check(self, name: str, found: FloatPrivacy, outputs: tuple[int, int]) -> CheckResult:
        witness = self._witness(found)
        evidence = {
            **self._parameters(),
            "distinct_outputs": list(outputs),
            "epsilon": json_number(found.epsilon),
            "ideal_epsilon": self.ideal_epsilon(),
            "witness": witness.to_json(),
            "draw": _draw_json(found.draw, self.k),
            "witness_is_tightest": True,
        }
        where = f"output {json_value(found.output)} (draw {_draw_text(found.draw, self.k)})"
        if found.ratio is None:
            return CheckResult(
                name,
                Verdict.VIOLATED,
                f"infinite privacy loss at k={self.k}: {where} is possible from "
                f"{_which(found, self)} only, P={_ratio_text(witness)}",
                evidence=evidence,
            )
        with mpmath.workdps(_REFERENCE_DIGITS):
            margin = (
                mpmath.log(mpmath.mpf(found.ratio.numerator) / found.ratio.denominator)
                - mpmath.mpf(self.eps) * self.distance()
            )
        if abs(margin) < mpmath.mpf(10) ** (10 - _REFERENCE_DIGITS):  # too close to call at 40 digits
            return CheckResult(
                name,
                Verdict.INCONCLUSIVE,
                f"loss {found.epsilon:.6g} equals eps*d to 30 digits at k={self.k}",
                reason="precision",
                evidence=evidence,
            )
        verdict = Verdict.VIOLATED if margin > 0 else Verdict.PROVED
        relation = "exceeds" if margin > 0 else "is within"
        return CheckResult(
            name,
            verdict,
            f"exact loss {found.epsilon:.6g} at k={self.k} {relation} the ideal "
            f"eps*d = {self.ideal_epsilon():.6g}; worst {where}, "
            f"P={_ratio_text(witness)}",
            evidence=evidence,
        )

    def _witness(self, found: FloatPrivacy) -> RatioWitness:
        p, p_prime = (Fraction(c, self.draws) for c in found.counts)
        if found.from_input == "q":
            return RatioWitness(self.a, self.b, found.output, p, p_prime)
        return RatioWitness(self.b, self.a, found.output, p_prime, p)

    def _parameters(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "eps": self.eps,
            "a": list(self.a),
            "b": list(self.b),
            "box": list(self.box),
            "L": self.L,
            "draws": self.draws,
        }

    def to_json(self) -> dict[str, Any]:
        def loss(found: FloatPrivacy | None) -> dict[str, Any] | None:
            if found is None:
                return None
            return {
                "epsilon": json_number(found.epsilon),
                "witness": self._witness(found).to_json(),
                "draw": _draw_json(found.draw, self.k),
            }

        return {
            **self._parameters(),
            "ideal_epsilon": self.ideal_epsilon(),
            "plain": {
                **(loss(self.plain) or {}),
                "distinct_outputs": list(self.plain_outputs),
                "shared_outputs": self.plain_shared,
            },
            "truncated_rounded": {**(loss(self.rounded) or {}), "distinct_outputs": list(self.rounded_outputs)},
            "reference": None
            if self.reference is None
            else {
                **(loss(self.reference) or {}),
                "digits": _REFERENCE_DIGITS,
                "differing_draws": list(self.differing_draws or (0, 0)),
                "ambiguous_draws": self.ambiguous_draws,
            },
        }


def _which(found: FloatPrivacy, report: PlanarReport) -> str:
    return f"a={report.a}" if found.from_input == "q" else f"b={report.b}"


def _ratio_text(w: RatioWitness) -> str:
    return f"{w.p} vs {w.p_prime}"


def _draw_json(draw: int, k: int) -> dict[str, int]:
    return {"j_angle": draw >> k, "j_radius": draw & ((1 << k) - 1)}


def _draw_text(draw: int, k: int) -> str:
    return f"j_angle={draw >> k}, j_radius={draw & ((1 << k) - 1)}"


def _reference_cells(k: int, eps: float, location: Point, box: Box, L: float) -> tuple[list[Hashable], int]:
    """The truncated + rounded output of every draw pair in 40-digit arithmetic, and how many
    points fall within 1e-30 of a cell edge or of the box (where the reference is unsure)."""
    n = 1 << k
    with mpmath.workdps(_REFERENCE_DIGITS):
        e = mpmath.mpf(eps)
        radius = [-(mpmath.lambertw((mpmath.mpf(j) / n - 1) / mpmath.e, -1).real + 1) / e for j in range(n)]
        angle = [(mpmath.cos(2 * mpmath.pi * j / n), mpmath.sin(2 * mpmath.pi * j / n)) for j in range(n)]
        x0, y0, step = mpmath.mpf(location[0]), mpmath.mpf(location[1]), mpmath.mpf(L)
        xmin, xmax, ymin, ymax = (mpmath.mpf(v) for v in box)
        cells: list[Hashable] = []
        ambiguous = 0
        for d in range(n * n):
            r, (c, s) = radius[d & (n - 1)], angle[d >> k]
            px, py = x0 + r * c, y0 + r * s
            edges = [px - xmin, xmax - px, py - ymin, ymax - py]
            ix, iy = (int(mpmath.nint(v / step)) for v in (px, py))
            # distances to the nearest cell edges (where v/L - i = +-1/2)
            edges += [abs(v / step - i) - mpmath.mpf(1) / 2 for v, i in ((px, ix), (py, iy))]
            if any(abs(v) < _AMBIGUOUS for v in edges):
                ambiguous += 1
            # the grid point as the sampler spells it (an int times the double L)
            cells.append(None if min(edges[:4]) < 0 else (ix * L, iy * L))
    return cells, ambiguous


def planar_report(
    k: int = 8,
    eps: float = 1.0,
    a: Point = (0.0, 0.0),
    b: Point = (1.0, 0.0),
    box: Box = (-5.5, 6.5, -5.5, 5.5),
    L: float = 1.0,
    *,
    reference: bool = False,
) -> PlanarReport:
    """Enumerate all ``4^k`` draw pairs of the planar Laplace at ``a`` and at ``b`` and return the
    exact privacy loss of the plain and of the truncated + rounded release.

    ``reference=True`` also reruns the draws in 40-digit arithmetic (slower: about 5 s at k=8,
    25 s at k=9, against 1 s and 3 s without).

    >>> r = planar_report(k=4)
    >>> r.plain.ratio is None, r.plain_shared
    (True, 0)
    """
    if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= _MAX_BITS:
        raise InvalidArgument(
            f"bits must be an int with 2 <= bits <= {_MAX_BITS} (4^bits executions); got bits={shown(k)}."
        )
    for name, point in (("a", a), ("b", b)):
        if not isinstance(point, tuple) or len(point) != 2:
            raise InvalidArgument(
                f"{name} must be a point (x, y) of two numbers; got {name}={shown(point)} ({type(point).__name__})."
            )
    ax, ay, eps_, _ = check_parameters(a[0], a[1], eps, k)
    bx, by, _, _ = check_parameters(b[0], b[1], eps, k)
    box_, L_ = check_box(box, L)
    n = 1 << k
    # the noise does not depend on the location: one run of the sampler's own noise code per pair
    noise = [noise_unsafe(d >> k, d & (n - 1), k, eps_) for d in range(n * n)]

    def table(release: Callable[[int], Hashable]) -> FloatPmf:
        return float_pmf(release, range(n * n))

    plain_a = table(lambda d: mechanism_unsafe(ax, ay, noise[d]))
    plain_b = table(lambda d: mechanism_unsafe(bx, by, noise[d]))
    # the truncated + rounded output of every draw, kept to compare with the reference
    cells_a = [truncate_round_unsafe(mechanism_unsafe(ax, ay, noise[d]), box_, L_) for d in range(n * n)]
    cells_b = [truncate_round_unsafe(mechanism_unsafe(bx, by, noise[d]), box_, L_) for d in range(n * n)]
    rounded_a, rounded_b = table(cells_a.__getitem__), table(cells_b.__getitem__)
    extra: dict[str, Any] = {}
    if reference:
        ref_a, amb_a = _reference_cells(k, eps_, (ax, ay), box_, L_)
        ref_b, amb_b = _reference_cells(k, eps_, (bx, by), box_, L_)
        extra = {
            "reference": float_privacy(table(ref_a.__getitem__), table(ref_b.__getitem__)),
            "differing_draws": (
                sum(c != r for c, r in zip(cells_a, ref_a, strict=True)),
                sum(c != r for c, r in zip(cells_b, ref_b, strict=True)),
            ),
            "ambiguous_draws": amb_a + amb_b,
        }
    return PlanarReport(
        k=k,
        eps=eps_,
        a=(ax, ay),
        b=(bx, by),
        box=box_,
        L=L_,
        plain=float_privacy(plain_a, plain_b),
        plain_outputs=(len(plain_a.counts), len(plain_b.counts)),
        plain_shared=sum(1 for o in plain_a.counts if o in plain_b.counts),
        rounded=float_privacy(rounded_a, rounded_b),
        rounded_outputs=(len(rounded_a.counts), len(rounded_b.counts)),
        **extra,
    )
