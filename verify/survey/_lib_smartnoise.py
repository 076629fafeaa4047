"""SmartNoise SQL (``snsql``): the noise its private reader adds, from its ``sql._mechanisms`` package.

- ``Laplace.release`` and ``Gaussian.release``: a float measurement of OpenDP (``make_laplace``,
  ``make_gaussian`` on ``atom_domain(T=float)``, OpenDP 0.14), its scale found by OpenDP's
  ``binary_search_param`` for the user's epsilon (and delta, through zCDP) over a clamped sum with
  bounds ``[0, sensitivity]``.  Rust code drawing from the operating system: black boxes, each
  with inputs ``0.0`` and ``1.0`` (sensitivity 1) against the user's own claim: ``epsilon``-DP,
  and ``(epsilon, delta)``-DP.  The black-box distribution test needs a law over listed outputs,
  which a continuous law has not, so only the privacy test runs.
- ``rand.laplace``: the noise of the differentially private set union (``dpsu.policy_laplace``,
  Gopi et al. 2020) that the reader runs with ``epsilon = 1`` before a histogram query.  It is the
  textbook float Laplace, ``loc - scale * copysign(log(1 - 2|u|), u)`` for
  ``u = sys_rand.uniform(-0.5, 0.5)``, in Python over a module-level ``random.SystemRandom``, so it
  runs unmodified on dpverify's enumerating source (that object swapped for a
  :class:`~dpverify.verify.engine._random_compat.RandomCompat` for one execution) with
  ``random()`` on a ``2**-k`` grid: the law of ``x + noise`` at ``x = 0`` and ``x = 1`` is exact at
  ``k`` bits, and so is its privacy loss against the Laplace mechanism's ``1/scale``.  At
  ``u = -1/2`` (``random() = 0``, probability ``2**-k`` here, ``2**-53`` in production) the code
  takes ``log(0)`` and raises; that output has the same mass at both inputs.  The same code at
  full precision, on the operating system's randomness, is also audited as a black box, where the
  privacy test's float-structure events (Mironov, CCS 2012) look for the leak in the low bits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from typing import Any, cast

from dpverify.specs import Rational
from dpverify.specs._api import Case, Input, Spec
from dpverify.specs._claims import ApproxDp, PureDp
from dpverify.verify.survey._primitive import (
    Budget,
    Finding,
    Library,
    Primitive,
    black_box_audit,
)

__all__ = [
    "LIBRARY",
    "SMARTNOISE_DPSU_LAPLACE",
    "SMARTNOISE_GAUSSIAN",
    "SMARTNOISE_LAPLACE",
    "dpsu_laplace_finding",
    "primitives",
]

LIBRARY = Library(
    name="smartnoise-sql",
    module="snsql",
    requirements=("smartnoise-sql==1.0.10",),
    about="OpenDP's SQL layer; its reader adds OpenDP's float Laplace and Gaussian, and its set union a float Laplace "
    "of its own",
)

#: The precision of ``random()`` the set union's Laplace is enumerated at: ``2**k`` executions per input.
DPSU_BITS = 16

_NEIGHBOURS = Input("x", values=lambda p: (0, 1), neighbours=1)


@functools.lru_cache(maxsize=8)
def _mechanism(kind: str, epsilon: Fraction, delta: Fraction) -> Any:
    from snsql.sql._mechanisms import Gaussian, Laplace

    # the library takes doubles; the cases' epsilons are exact in them, delta is the nearest double
    if kind == "laplace":
        return Laplace(float(epsilon), sensitivity=1)
    return Gaussian(float(epsilon), delta=float(delta), sensitivity=1)


def smartnoise_laplace(x: int, epsilon: Fraction) -> float:
    """One ``Laplace(epsilon, sensitivity=1).release([x])`` of SmartNoise SQL."""
    return cast(float, _mechanism("laplace", epsilon, Fraction(0)).release([float(x)])[0])  # snsql is untyped


def smartnoise_gaussian(x: int, epsilon: Fraction, delta: Fraction) -> float:
    """One ``Gaussian(epsilon, delta=delta, sensitivity=1).release([x])`` of SmartNoise SQL."""
    return cast(float, _mechanism("gaussian", epsilon, delta).release([float(x)])[0])  # snsql is untyped


def smartnoise_dpsu_laplace(x: int, scale: Fraction) -> float:
    """``x + rand.laplace(0, scale, 1)[0]`` in doubles, as the set union adds it to an item's weight."""
    from snsql.sql._mechanisms import rand

    return float(x) + cast(float, rand.laplace(0, float(scale), 1)[0])  # snsql is untyped


_EPSILON = Rational(0, low_open=True, search=(Fraction(1, 4), 4))

SMARTNOISE_LAPLACE = Spec(
    name="smartnoise-laplace",
    sampler=smartnoise_laplace,
    parameters={"epsilon": _EPSILON},
    input=_NEIGHBOURS,
    claim=lambda p: PureDp(epsilon=p["epsilon"]),
    randomness="none",
    description="SmartNoise SQL's Laplace mechanism (OpenDP make_laplace on floats)",
    citation="smartnoise-sql 1.0.10, snsql.sql._mechanisms.laplace.Laplace.release",
    cases=(Case({"epsilon": 1}, "proved", "OpenDP samples the Laplace exactly and rounds once", label="epsilon=1"),),
)

SMARTNOISE_GAUSSIAN = Spec(
    name="smartnoise-gaussian",
    sampler=smartnoise_gaussian,
    parameters={"epsilon": _EPSILON, "delta": Rational(0, 1, low_open=True, high_open=True)},
    input=_NEIGHBOURS,
    claim=lambda p: ApproxDp(epsilon=p["epsilon"], delta=p["delta"]),
    randomness="none",
    description="SmartNoise SQL's Gaussian mechanism (OpenDP make_gaussian on floats)",
    citation="smartnoise-sql 1.0.10, snsql.sql._mechanisms.gaussian.Gaussian.release",
    cases=(
        Case(
            {"epsilon": 1, "delta": "1/100000"},
            "proved",
            "OpenDP samples the Gaussian exactly and rounds once",
            label="epsilon=1, delta=1/100000",
        ),
    ),
)


SMARTNOISE_DPSU_LAPLACE = Spec(
    name="smartnoise-dpsu-laplace",
    sampler=smartnoise_dpsu_laplace,
    parameters={"scale": Rational(0, low_open=True, search=(Fraction(1, 4), 4))},
    input=_NEIGHBOURS,
    claim=lambda p: PureDp(epsilon=1 / p["scale"]),
    randomness="none",
    description="SmartNoise SQL's set-union Laplace: x + rand.laplace(0, scale, 1)[0] in doubles",
    citation="smartnoise-sql 1.0.10, snsql.sql._mechanisms.rand.laplace, snsql.sql.dpsu.policy_laplace; "
    "Mironov, CCS 2012",
    cases=(Case({"scale": 1}, "violated", "the float Laplace's low bits tell the inputs apart", label="scale=1"),),
)


def dpsu_laplace_finding(bits: int = DPSU_BITS, scale: Fraction = Fraction(1)) -> Finding:
    """The exact epsilon of ``x + rand.laplace(0, scale, 1)[0]`` between ``x = 0`` and ``x = 1`` with
    ``random()`` on a ``2**-bits`` grid, against the Laplace mechanism's ``1/scale``."""
    from snsql.sql._mechanisms import rand

    from dpverify.samplers import RandomSource
    from dpverify.specs import ExactPmf
    from dpverify.verify.engine._enumerate import enumerate_outputs
    from dpverify.verify.engine._random_compat import RandomCompat
    from dpverify.verify.privacy._claim_checks import check_pure_epsilon

    def runner(x: int) -> Callable[[RandomSource], object]:
        def run(source: RandomSource) -> object:
            saved = rand.sys_rand
            rand.sys_rand = RandomCompat(source, float_bits=bits)
            try:
                return float(x) + rand.laplace(0, float(scale), 1)[0]
            except (ValueError, OverflowError) as error:  # log(0): an output of the code, weighed like any other
                return f"raised {type(error).__name__}"
            finally:
                rand.sys_rand = saved

        return run

    where = f"random() on a 2^-{bits} grid"
    found = {x: enumerate_outputs(runner(x), max_paths=(1 << bits) + 1) for x in (0, 1)}
    details: dict[str, Any] = {
        "bits": bits,
        "scale": str(scale),
        "executions": {str(x): e.executions for x, e in found.items()},
        "raised": {str(x): {o: str(m) for o, m in e.masses.items() if isinstance(o, str)} for x, e in found.items()},
    }
    unfinished = [x for x, e in found.items() if not e.exhausted]
    if unfinished:
        return Finding("inconclusive", f"the enumeration at x={unfinished[0]} did not finish ({where})", details)
    table = {x: ExactPmf.from_fractions(e.masses) for x, e in found.items()}
    result = check_pure_epsilon(table, [(0, 1)], PureDp(epsilon=1 / scale))
    details["check"] = result.to_json()
    return Finding(
        result.verdict.value, f"privacy at {bits} bits: {result.summary} ({where}, every execution)", details
    )


def _dpsu_audit(budget: Budget) -> Finding:
    return dpsu_laplace_finding()


def primitives() -> list[Primitive]:
    return [
        Primitive(
            "sql._mechanisms.Laplace.release",
            "Laplace",
            "epsilon=1, sensitivity=1 (OpenDP make_laplace on floats), inputs 0.0 and 1.0; claim 1-DP",
            "black box",
            black_box_audit(SMARTNOISE_LAPLACE, SMARTNOISE_LAPLACE.cases[0]),
        ),
        Primitive(
            "sql._mechanisms.Gaussian.release",
            "Gaussian",
            "epsilon=1, delta=1/100000, sensitivity=1 (OpenDP make_gaussian on floats), inputs 0.0 and 1.0; "
            "claim (1, 1/100000)-DP",
            "black box",
            black_box_audit(SMARTNOISE_GAUSSIAN, SMARTNOISE_GAUSSIAN.cases[0]),
        ),
        # Not the set union's Laplace: dpsu.policy_laplace only compares the noisy weight with rho and
        # releases the set of items kept, so the noisy weight is no release to audit (docs/findings.md).
    ]
