"""IBM's diffprivlib mechanisms, run unmodified, with their exact output PMF at ``k`` bits.

The code under audit is the installed ``diffprivlib`` (0.6.x, MIT; ``pip install
'dpverify[diffprivlib]'``), imported and called through its public API, never copied or
patched.  Its mechanisms take ``random_state=``, and ``check_random_state(random_state,
secure=True)`` hands back any ``secrets.SystemRandom`` unchanged; a
:class:`~dpverify.verify.engine._random_compat.RandomCompat` is one.  Its ``random()`` returns
``j / 2^k`` for one draw ``j = randbelow(2^k)`` of the source underneath, so with
:func:`~dpverify.verify.engine._enumerate.enumerate_outputs` as that source every execution of the
mechanism (every tuple of ``k``-bit draws) is run once, with exact probability ``2^-(k d)``
for ``d`` draws, and the output PMF at ``k`` bits is exact.

What is reduced and what is not.  Only the uniform draw is on a coarser grid: with
``random_state=None`` diffprivlib draws from ``secrets.SystemRandom()``, whose ``random()``
returns ``j / 2^53`` for 53 uniform bits ``j``; here ``j / 2^k``.  Everything
after the draw is the library's own IEEE-754 arithmetic (``np.exp``, ``np.log``, ``np.floor``,
``np.round``, ``np.cos``, products and sums of doubles), on this platform's numpy.  The
mechanisms read (diffprivlib 0.6.6, ``diffprivlib/mechanisms/geometric.py``, ``laplace.py``):

- ``Geometric(epsilon, sensitivity)`` (Ghosh, Roughgarden, Sundararajan 2009, "Universally
  utility-maximizing privacy mechanisms"): one draw ``u``; ``v = (u - 0.5) * (1 + exp(-eps/s))``;
  ``sgn = -1 if v < 0 else 1``; returns ``int(round(q + sgn * floor(log(sgn * v) / (-eps/s))))``.
  Claimed: ``eps``-DP for integers with ``|q - q'| <= s``.
- ``GeometricTruncated(epsilon, sensitivity, lower, upper)``: the same, then clamped to
  ``[lower, upper]``.  Its ideal is the truncated geometric mechanism that
  :mod:`dpverify.samplers.gtm` samples exactly (ratio ``alpha = e^-eps``); here ``alpha`` is
  irrational and the noise is a float computation.
- ``Laplace(epsilon, delta=0, sensitivity)`` (Holohan, Braghin 2021, "Secure random sampling in
  differential privacy", arXiv:2107.10138): four draws ``u1..u4``;
  ``L = log(1 - u1) cos(pi u2) + log(1 - u3) cos(pi u4)``; returns ``q - (s / eps) * L``.
  Claimed: ``eps``-DP for reals with ``|q - q'| <= s``.  Four draws make ``2^(4k)`` executions,
  so ``k <= 5`` is what an enumeration affords (``2^20`` executions per input, about 15 s each
  on one core).

The exact epsilon at ``k`` bits is ``max_y |ln P_k(y | q) - ln P_k(y | q')|`` over the outputs
``y`` of both inputs (:func:`~dpverify.verify.privacy._ratio.tightest_alpha`), infinite where an
output is possible under one input only; it is compared with the claimed epsilon by
:func:`~dpverify.verify.privacy._claim_checks.check_pure_epsilon` (``e^-eps`` as an ``mpmath`` interval).
The claimed epsilon is the double diffprivlib receives: asking for ``epsilon="0.1"`` audits the
claim ``Fraction(0.1)``, the exact value of the double ``0.1``.

A call that raises is an output too (``"raised OverflowError"``): diffprivlib's ``Geometric``
computes ``log(0) = -inf`` when ``random()`` returns exactly ``0.5``, and ``int(round(inf))``
raises.  That happens with probability ``2^-k`` here and ``2^-53`` in production, for every
input alike, so it changes no ratio; it is reported in the evidence.  numpy's warnings (divide
by zero) are silenced around the calls; that changes no value.

Up to 53 bits for the geometric mechanisms.  They draw once, and on each half of the draws
(``j < 2^(k-1)`` and ``j > 2^(k-1)``) the output is monotone in ``j`` provided ``np.log`` is
(assumption L, :data:`~dpverify.verify.published._diffprivlib_pmf.ASSUMPTION_L`; derivation in
:func:`~dpverify.verify.published._diffprivlib_edge.geometric_support_edge`), so each
output's draws form one run per half and :func:`~dpverify.verify.engine._bisect.bisect_outputs`
finds the exact PMF in ``O(outputs * k)`` executions, 53 bits included (about 4,000 executions
for ``epsilon = 1``).  Every run boundary is re-checked on
:data:`~dpverify.verify.published._diffprivlib_pmf.GUARD` draws each side, and the tests compare
bisection with the exhaustive PMF up to 20 bits.  Such verdicts say
"bisection, under assumption L" in their summary and carry the assumption in their evidence.

What a verdict at ``k`` bits says about ``k = 53``.  Each verdict holds for the ``k`` it names.
An enumerated violation at ``k`` bits is a property of the code fed a ``k``-bit ``random()``,
not by itself one at 53 bits; the sweep over ``k`` shows the trend.  For the geometric
mechanisms the 53-bit PMF is exact (under L), so their 53-bit verdicts are about CPython's
own ``random()``: ``Geometric``'s support is finite at every ``k`` (the largest noise comes
from the smallest ``|v|``, about ``k ln 2 / eps``) and moves with ``q``, so the loss is
infinite, at probability ``2^-53`` per edge output; ``GeometricTruncated``'s loss is finite
and exceeds the claim by a rounding-sized margin (about ``1e-15`` at ``eps = 1``).  For
``Laplace`` (four draws) only ``k <= 6`` is enumerated and nothing is claimed about 53 bits.

Where each part lives: the mechanisms and their exact PMF (enumerated or bisected), and
``GeometricTruncated`` against the exact GTM, in :mod:`dpverify.verify.published._diffprivlib_pmf`;
the exact epsilon against the claim, the sweeps over ``k`` and the table of docs/diffprivlib-table.md in
:mod:`dpverify.verify.published._diffprivlib_check`; the ``Geometric``'s support edge at 53
bits in :mod:`dpverify.verify.published._diffprivlib_edge`.  This module holds the specs that
``dpverify check --spec-module dpverify.verify.published._diffprivlib`` runs, and :func:`main`,
the table's command.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from dpverify.specs import Case, Integer, Params, PureDp, Randomness, Rational, Spec
from dpverify.verify.engine._random_compat import CPYTHON_FLOAT_BITS, RandomCompat
from dpverify.verify.engine._results import CheckResult
from dpverify.verify.published._diffprivlib_check import check_diffprivlib, readme_sweep, sweep_table
from dpverify.verify.published._diffprivlib_edge import geometric_support_edge
from dpverify.verify.published._diffprivlib_pmf import MAX_BITS, DiffprivlibMechanism, _output, diffprivlib_mechanism

__all__ = [
    "SPECS",
    "main",
]


# --- the specs: ``dpverify check --spec-module dpverify.verify.published._diffprivlib`` -----------------------


def _mechanism_of(name: str) -> Callable[[Params], DiffprivlibMechanism]:
    def of(p: Params) -> DiffprivlibMechanism:
        return diffprivlib_mechanism(
            name, epsilon=p["epsilon"], sensitivity=p.get("sensitivity", 1), lower=p.get("lower"), upper=p.get("upper")
        )

    return of


def _sampler(name: str) -> Callable[..., Hashable]:
    """The production call at full precision: the engine hands it a 53-bit RandomCompat."""
    of = _mechanism_of(name)

    def sample(rng: RandomCompat, **p: Any) -> Hashable:
        mechanism = of(p)
        return _output(mechanism.build(rng).randomise(mechanism.argument(p["q"])))

    return sample


def _geometric_sampler(q: Fraction, epsilon: Fraction, sensitivity: int, rng: RandomCompat) -> Hashable:
    return _sampler("geometric")(rng, q=q, epsilon=epsilon, sensitivity=sensitivity)


def _truncated_sampler(
    q: Fraction, epsilon: Fraction, sensitivity: int, lower: int, upper: int, rng: RandomCompat
) -> Hashable:
    return _sampler("geometric-truncated")(rng, q=q, epsilon=epsilon, sensitivity=sensitivity, lower=lower, upper=upper)


def _laplace_sampler(q: Fraction, epsilon: Fraction, sensitivity: Fraction, rng: RandomCompat) -> Hashable:
    return _sampler("laplace")(rng, q=q, epsilon=epsilon, sensitivity=sensitivity)


def _at_bits(name: str) -> Callable[[Params], CheckResult]:
    of = _mechanism_of(name)

    def exact_epsilon_at_k_bits(p: Params) -> CheckResult:
        return check_diffprivlib(of(p), p["q"], p["q_prime"], p["bits"])

    return exact_epsilon_at_k_bits


def support_edge_at_53_bits(p: Params) -> CheckResult:
    """The Geometric's support edge at CPython's 53 bits
    (:func:`~dpverify.verify.published._diffprivlib_edge.geometric_support_edge`)."""
    return replace(
        geometric_support_edge(_mechanism_of("geometric")(p), p["q"], p["q_prime"]).check(), check="privacy_53_bits"
    )


def _claim(p: Params) -> PureDp:
    return PureDp(epsilon=Fraction(float(p["epsilon"])))


_COMMON: dict[str, Integer | Rational] = {
    "q": Integer(-1000, 1000, search=(-3, 3)),
    "q_prime": Integer(-1000, 1000, search=(-3, 3)),
    "epsilon": Rational(0, 20, low_open=True, search=(Fraction(1, 4), 2)),
    "sensitivity": Integer(1, 10, search=(1, 1)),
}

SPECS: tuple[Spec, ...] = (
    Spec(
        name="diffprivlib-geometric",
        sampler=_geometric_sampler,
        randomness=Randomness.RANDOM,
        parameters={**_COMMON, "bits": Integer(1, CPYTHON_FLOAT_BITS, search=(4, 12))},
        claim=_claim,
        checks=(_at_bits("geometric"), support_edge_at_53_bits),
        citation="diffprivlib 0.6 Geometric (Ghosh, Roughgarden, Sundararajan 2009), run unmodified",
        description="diffprivlib's Geometric: exact PMF at k bits; its support edge at 53 bits",
        cases=(
            Case(
                {"q": 0, "q_prime": 1, "epsilon": 1, "sensitivity": 1, "bits": 12},
                "violated",
                "the float geometric's support is finite at every precision and moves with q: an output of "
                "q' that q never gives, at 12 bits and at 53",
                label="eps=1,k=12",
            ),
        ),
    ),
    Spec(
        name="diffprivlib-geometric-truncated",
        sampler=_truncated_sampler,
        randomness=Randomness.RANDOM,
        parameters={
            **_COMMON,
            "lower": Integer(-1000, 1000, search=(0, 0)),
            "upper": Integer(-1000, 1000, search=(4, 8)),
            "bits": Integer(1, CPYTHON_FLOAT_BITS, search=(4, 12)),
        },
        claim=_claim,
        checks=(_at_bits("geometric-truncated"),),
        citation="diffprivlib 0.6 GeometricTruncated, run unmodified; the exact GTM is samplers/gtm.py",
        description="diffprivlib's GeometricTruncated: exact PMF at k bits against its epsilon",
        cases=(
            Case(
                {"q": 1, "q_prime": 2, "epsilon": 1, "sensitivity": 1, "lower": 0, "upper": 4, "bits": 12},
                "violated",
                "every output is possible from both inputs, but the k-bit grid rounds the "
                "probabilities: exact epsilon 1.000568 > 1 at 12 bits",
                label="eps=1,[0,4],k=12",
            ),
            Case(
                {"q": 1, "q_prime": 2, "epsilon": 1, "sensitivity": 1, "lower": 0, "upper": 4, "bits": 53},
                "violated",
                "at CPython's 53 bits, by bisection under assumption L: exact epsilon exceeds 1 by about 1.4e-15",
                label="eps=1,[0,4],k=53",
            ),
        ),
    ),
    Spec(
        name="diffprivlib-laplace",
        sampler=_laplace_sampler,
        randomness=Randomness.RANDOM,
        parameters={
            **_COMMON,
            "q": Rational(-1000, 1000, search=(-3, 3)),
            "q_prime": Rational(-1000, 1000, search=(-3, 3)),
            "sensitivity": Rational(0, 10, low_open=True, search=(1, 1)),
            "bits": Integer(1, MAX_BITS["laplace"], search=(1, 3)),
        },
        claim=_claim,
        checks=(_at_bits("laplace"),),
        citation="diffprivlib 0.6 Laplace (Holohan, Braghin 2021: four uniforms), run unmodified",
        description="diffprivlib's Laplace: exact PMF at k bits (4 draws, 2^(4k) executions)",
        cases=(
            Case(
                {"q": 0, "q_prime": 1, "epsilon": 1, "sensitivity": 1, "bits": 3},
                "violated",
                "of the 2^12 executions, 78 give q = 0 the output 0.0, which none of q' = 1 gives",
                label="eps=1,k=3",
            ),
        ),
    ),
)


# --- the table of docs/diffprivlib-table.md: ``python -m dpverify.verify.published._diffprivlib`` ---------------------


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dpverify.verify.published._diffprivlib [--jobs N] [--laplace-bits K]``: docs/diffprivlib-table.md."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m dpverify.verify.published._diffprivlib",
        description="diffprivlib's mechanisms, exact epsilon at k bits (the README's table)",
    )
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--laplace-bits", type=int, default=4, help="Laplace up to this k (2^(4k) executions; max 6)")
    args = parser.parse_args(argv)
    results = readme_sweep(jobs=args.jobs, laplace_bits=args.laplace_bits)
    print(sweep_table(results))
    return 0


if __name__ == "__main__":
    from dpverify.verify.published._diffprivlib import (
        main as _main,
    )  # the package's module, so workers can import its tasks

    raise SystemExit(_main())
