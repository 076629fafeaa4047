"""UNSAFE, floating-point: Gazeau-Miller-Palamidessi's truncated and rounded Laplace, kept to be audited.

Gazeau, Miller, Palamidessi, "Preserving differential privacy under finite-precision
semantics" (QAPL 2013), in one dimension (their §5), built on the textbook float Laplace of
:mod:`dpverify.samplers.laplace_float_unsafe` exactly as an implementation would build it:

- **Mechanism 2 (§4.2, truncation).**  With the computed value ``x = fl(q + n'(u))``::

      A(D) = x    if x in M_r = [lower, upper]
             EXC  otherwise                       (the paper's exception value "infinity")

  The exception value is :data:`EXCEPTION` (``math.inf``), never a finite number, so it cannot
  be confused with a released value.  (The paper's Remark 2, returning -inf / +inf and
  remapping them to ``m`` / ``M``, is not implemented: it is a post-processing of this one.)
- **Mechanism 3 (§4.4, rounding).**  ``K(D) = r(A(D))``, where ``r`` returns the point of a
  discrete set ``S'`` closest to its argument.  Here ``S'`` is the set of cell midpoints
  ``lower + (i + 1/2) * step`` for ``i = 0 .. N - 1`` with ``N = (upper - lower) / step``, so
  the point closest to ``x`` is the midpoint of the cell ``[lower + i*step, lower +
  (i+1)*step)`` containing ``x`` (the closed cell at ``upper``).  ``N`` must be an integer
  (checked exactly on the doubles): then every cell of the paper's sigma-algebra ``S'_0`` is
  an interval of length exactly ``L = step``, which is the case §5 ("small intervals of
  length L where L is the accuracy step of the rounding") analyses.  A boundary cell shorter
  than ``L`` would have a larger robustness ratio (5) than the one §5 states.

Every step runs in IEEE doubles, as a naive implementation would: the cell index is
``floor(fl(fl(x - lower) / step))``, which may misplace ``x`` lying within a few ulps of a
cell boundary (``dpverify.verify.precision._gazeau`` charges that to ``delta_n``).  The released value is the
double ``fl(lower + fl((i + 0.5) * step))``; :func:`grid_unsafe` lists them.

Over the reals, with the scale ``b = Delta_f / eps``, this is ``eps``-DP (truncation and
rounding are post-processing).  In doubles, Theorem 4.5 claims it is ``eps'``-DP when the
rounding step ``L`` exceeds twice the total error ``delta_t`` (eq. (3)); ``dpverify.verify.precision._gazeau``
computes the exact privacy loss over every ``k``-bit draw and compares it with ``eps'``.

Contract: :func:`mechanism_unsafe` returns a double of :func:`grid_unsafe` or
:data:`EXCEPTION`.  Checked at run time (by :meth:`GazeauConfig.create`): ``scale`` a finite
double ``> 0``, ``q`` finite, ``2 <= bits <= 53``, ``lower < upper`` finite, ``step > 0``
finite and ``(upper - lower) / step`` an integer ``>= 1`` (exactly, on the doubles).  The
caller guarantees ``1 <= j <= 2^bits - 1`` in :func:`mechanism_unsafe` (the sampler draws
it so).  The lines a proof or attack refers to are ``[LAPF-u]``, ``[LAPF-noise]``,
``[LAPF-add]`` (in :mod:`dpverify.samplers.laplace_float_unsafe`), ``[GZ-trunc]`` and ``[GZ-round]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers._random_source import RandomSource, SystemRandomSource
from dpverify.samplers._rational import shown
from dpverify.samplers.laplace_float_unsafe import check_parameters as _check_laplace
from dpverify.samplers.laplace_float_unsafe import finite_float
from dpverify.samplers.laplace_float_unsafe import mechanism_unsafe as _laplace_unsafe

__all__ = [
    "EXCEPTION",
    "GazeauConfig",
    "grid_unsafe",
    "mechanism_unsafe",
    "round_unsafe",
    "sample_unsafe",
    "truncate_unsafe",
]

#: The exception value of Mechanism 2 (the paper's "infinity"): released when ``q + noise``
#: falls outside ``[lower, upper]``.
EXCEPTION: float = math.inf


def _finite(name: str, value: object) -> float:
    return finite_float(name, value)


@dataclass(frozen=True, slots=True)
class GazeauConfig:
    """The public parameters of Mechanisms 2 and 3 over the textbook float Laplace.

    ``scale`` is the Laplace scale ``b`` (``Delta_f / eps`` in §5), ``bits`` the ``k`` of the
    ``k``-bit uniform draw, ``[lower, upper]`` the truncation set ``M_r = [m, M]``, ``step``
    the rounding step ``L`` and ``cells`` ``N = (M - m) / L``.  Build it with :meth:`create`.

    >>> GazeauConfig.create(scale=1.0, bits=16, lower=-2.0, upper=2.0, step=0.25).cells
    16
    """

    scale: float
    bits: int
    lower: float
    upper: float
    step: float
    cells: int

    @classmethod
    def create(cls, *, scale: float, bits: int, lower: float, upper: float, step: float) -> GazeauConfig:
        """Validate and build; every error is one line naming the parameter and its range."""
        _, b, k = _check_laplace(0.0, scale, bits)
        m, big_m, step_ = _finite("lower", lower), _finite("upper", upper), _finite("step", step)
        if not m < big_m:
            raise InvalidArgument(f"lower must be < upper; got lower={shown(m)}, upper={shown(big_m)}.")
        if step_ <= 0:
            raise InvalidArgument(f"step must be > 0; got step={shown(step_)}.")
        cells = (Fraction(big_m) - Fraction(m)) / Fraction(step_)
        if cells.denominator != 1:
            raise InvalidArgument(
                f"step must divide upper - lower exactly (as doubles); got (upper - lower) / step = "
                f"{shown(cells, 40)} with lower={shown(m)}, upper={shown(big_m)}, step={shown(step_)}: "
                "use a power of two for step."
            )
        return cls(b, k, m, big_m, step_, int(cells))


def truncate_unsafe(x: float, config: GazeauConfig) -> float:
    """Mechanism 2: ``x`` if ``lower <= x <= upper``, else :data:`EXCEPTION`."""
    return x if config.lower <= x <= config.upper else EXCEPTION  # [GZ-trunc]


def round_unsafe(x: float, config: GazeauConfig) -> float:
    """Mechanism 3's ``r``: the midpoint of the cell of ``x`` (``x`` in ``[lower, upper]``), in doubles."""
    # fl(x - lower) >= 0 for x >= lower (rounding is monotone); the quotient may round up to
    # ``cells`` at ``x = upper`` (or within an ulp of it), which belongs to the last, closed cell.
    i = min(math.floor((x - config.lower) / config.step), config.cells - 1)  # [GZ-round]
    return config.lower + (i + 0.5) * config.step


def grid_unsafe(config: GazeauConfig) -> tuple[float, ...]:
    """Every finite value :func:`mechanism_unsafe` can release, in order: the doubles
    ``fl(lower + fl((i + 0.5) * step))`` for ``i = 0 .. cells - 1``."""
    return tuple(config.lower + (i + 0.5) * config.step for i in range(config.cells))


def mechanism_unsafe(q: float, config: GazeauConfig, j: int) -> float:
    """The released value for the draw ``j`` in ``1 .. 2^bits - 1``: ``r(A(D))`` or :data:`EXCEPTION`."""
    x = _laplace_unsafe(q, config.scale, j, config.bits)  # [LAPF-u], [LAPF-noise], [LAPF-add]
    truncated = truncate_unsafe(x, config)
    return EXCEPTION if truncated == EXCEPTION else round_unsafe(truncated, config)


def sample_unsafe(q: float, config: GazeauConfig, rng: RandomSource | None = None) -> float:
    """Release ``q`` through Mechanisms 2 and 3 with one ``bits``-bit uniform draw from ``rng``."""
    q_ = _finite("q", q)
    j = 1 + (rng or SystemRandomSource()).randbelow((1 << config.bits) - 1)
    return mechanism_unsafe(q_, config, j)
