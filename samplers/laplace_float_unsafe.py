"""UNSAFE, floating-point: the textbook Laplace mechanism, kept to be audited, not used.

Lecture notes "Provable Privacy" (paper 002), inverse-transform sampling of Lap(b): draw ``u``
uniform on [0, 1], set ``u' = u - 1/2`` and return ``-b * sgn(u') * ln(1 - 2|u'|)``; the
mechanism releases ``q + noise``.  Here ``u = j / 2^k`` for a ``k``-bit draw
``j = 1 .. 2^k - 1`` (``j = 0`` would give ``ln 0``), supplied by the RandomSource, and every
operation is an IEEE double operation, exactly as a naive implementation runs it.

Over the reals this is ``(Delta/b)``-DP.  In doubles it is not DP at all: the set of outputs
``q + noise(j)`` depends on the low bits of ``q``, so some outputs are possible from ``q`` and
impossible from a neighbour ``q'`` (Mironov 2012; Gazeau, Miller, Palamidessi §1).  dpverify
enumerates every ``j`` through this code to show it exactly.

Contract: ``sample_unsafe`` returns a float; checked at run time: ``b`` a finite float > 0,
``q`` a finite float, ``2 <= k <= 53``.  The lines an attack refers to are ``[LAPF-u]``,
``[LAPF-noise]`` and ``[LAPF-add]``.
"""

from __future__ import annotations

import math

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._random_source import RandomSource, SystemRandomSource
from dpverify.samplers._rational import shown

__all__ = ["check_parameters", "mechanism_unsafe", "noise_unsafe", "sample_unsafe"]


def finite_float(name: str, value: object) -> float:
    """``value`` (an int or a float: the float mechanisms are the subject) as a finite double."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"{name} must be a finite number; got {name}={shown(value)}.")
    try:
        number = float(value)
    except OverflowError:
        raise InvalidArgument(
            f"{name} must be a finite number; got {name}={shown(value)}, too large for a double."
        ) from None
    if not math.isfinite(number):
        raise InvalidArgument(f"{name} must be a finite number; got {name}={shown(value)}.")
    return number


def check_parameters(q: float, b: float, k: int) -> tuple[float, float, int]:
    """Validate the float mechanism's parameters (floats are allowed here: it is the subject)."""
    if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= 53:
        raise InvalidArgument(f"bits must be an integer with 2 <= bits <= 53; got bits={shown(k)}.")
    q_, b_ = finite_float("q", q), finite_float("scale", b)
    if b_ <= 0:
        raise InvalidArgument(f"scale must be > 0; got scale={shown(b)}.")
    return q_, b_, k


def noise_unsafe(j: int, k: int, b: float) -> float:
    """The textbook Laplace noise for the draw ``j`` in ``1 .. 2^k - 1``, in doubles."""
    u = j / (1 << k)  # [LAPF-u]  exact: a k-bit integer scaled by a power of two
    shifted = u - 0.5
    sign = (shifted > 0) - (shifted < 0)
    return -b * sign * math.log(1.0 - 2.0 * abs(shifted))  # [LAPF-noise]


def mechanism_unsafe(q: float, b: float, j: int, k: int) -> float:
    """The released value ``q + noise(j)`` for the draw ``j``."""
    return q + noise_unsafe(j, k, b)  # [LAPF-add]


def sample_unsafe(q: float, b: float, rng: RandomSource | None = None, k: int = 53) -> float:
    """Release ``q`` with textbook Laplace noise of scale ``b`` from a ``k``-bit uniform draw."""
    q_, b_, k_ = check_parameters(q, b, k)
    j = 1 + (rng or SystemRandomSource()).randbelow((1 << k_) - 1)
    return mechanism_unsafe(q_, b_, j, k_)
