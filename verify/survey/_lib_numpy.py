"""numpy: the textbook float Laplace mechanism ``x + numpy.random.laplace(0, 1/epsilon)``, the one
Mironov (CCS 2012) broke.

numpy releases nothing private and promises no privacy: ``random.laplace`` draws from the Laplace
distribution.  The release is the user's own ``x + numpy.random.laplace(0, 1/epsilon)`` published as
``epsilon``-DP, so a leak found here is a *hazard* of that path, not a violation by numpy
(:mod:`~dpverify.verify.survey._contracts`).

Exact at 53 bits.  ``RandomState.laplace`` (numpy's C ``random_laplace``) reads one double
``U = j / 2^53`` from MT19937 (two 32-bit words ``a, b``: ``j = (a >> 5) * 2^26 + (b >> 6)``), redraws
when ``U = 0``, and returns ``loc + scale * log(U + U)`` below ``1/2`` and
``loc - scale * log(2 - U - U)`` from it: non-decreasing in ``j`` where ``log`` is (assumption L).
MT19937's output is a fixed invertible tempering of its state word, so setting the global
generator's state to the untempered words at position 622 makes numpy's own code read exactly the
``j`` asked for (:func:`global_draw`).  Each run checks that the call read one double (two words),
and the run at ``j = 0`` that numpy redrew, so the law is uniform on ``j = 1 .. 2^53 - 1``.  Then
:func:`~dpverify.verify.engine._bisect.run_of` finds the exact mass of an output at ``x = 0``, and
:func:`~dpverify.verify.engine._bisect.absent_between` the two neighbouring draws at ``x = 1`` whose
outputs straddle it, so no draw gives it there: an infinite privacy loss with exact probabilities,
checked for monotonicity at every draw the searches read.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, cast

from dpverify.verify.survey._primitive import Finding, Library, Primitive, black_box_audit

__all__ = ["LIBRARY", "global_draw", "laplace_witness", "primitives"]

LIBRARY = Library(
    name="numpy",
    module="numpy",
    requirements=("numpy>=1.24",),
    about="the float Laplace noise many pipelines add by hand",
)

#: The draws of ``random()`` at full precision: ``j / 2^53``.
DRAWS = 1 << 53
_WORDS = 624  # MT19937's state words; at position 622 the next two outputs are the last two words


def _untemper(y: int) -> int:
    """The MT19937 state word whose tempered output is ``y`` (the tempering's four steps undone)."""
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    x = y
    for _ in range(5):  # y = x ^ ((x << 7) & mask): each pass fixes 7 more low bits
        x = y ^ ((x << 7) & 0x9D2C5680)
    y = x & 0xFFFFFFFF
    x = y
    for _ in range(3):  # y = x ^ (x >> 11): each pass fixes 11 more high bits
        x = y ^ (x >> 11)
    return x & 0xFFFFFFFF


def global_draw(j: int) -> None:
    """Set numpy's global generator so that its next double is exactly ``j / 2^53``."""
    import numpy as np

    # the other words are a seeded state's, so a redraw past the two set ones reads a live generator
    # (an all-zero state outputs zeros for ever, and numpy would redraw U = 0 without end)
    key = cast(tuple[Any, ...], np.random.RandomState(0).get_state())[1].copy()
    key[_WORDS - 2] = _untemper((j >> 26) << 5)
    key[_WORDS - 1] = _untemper((j & ((1 << 26) - 1)) << 6)
    np.random.set_state(("MT19937", key, _WORDS - 2, 0, 0.0))


def _words_read() -> int:
    import numpy as np

    position = int(cast(tuple[Any, ...], np.random.get_state())[2])
    # past the last word MT19937 regenerates its state and starts again at position 0
    return position - (_WORDS - 2) if position >= _WORDS - 2 else 2 + position


def _release(x: int, scale: float, j: int) -> float:
    """The user's ``x + numpy.random.laplace(0, scale)`` when numpy's double is ``j / 2^53``."""
    import numpy as np

    global_draw(j)
    output = x + np.random.laplace(0.0, scale)
    if _words_read() != 2:
        raise AssertionError(f"numpy.random.laplace read {_words_read()} words at draw {j}, not one double")
    return float(output)


def _rejects_zero(scale: float) -> bool:
    """Whether numpy redraws at ``U = 0`` (two doubles read at ``j = 0``: the law is then on ``1 .. 2^53 - 1``)."""
    import numpy as np

    global_draw(0)
    np.random.laplace(0.0, scale)
    return _words_read() == 4  # the redraw read a second double, from the regenerated state


def laplace_witness(epsilon: Fraction = Fraction(1, 10)) -> Finding:
    """An output of ``0 + laplace(0, 1/epsilon)`` in ``(-1, 0)`` that is not a multiple of ``2^-52``, its
    exact probability at ``x = 0``, and the proof that ``x = 1`` never gives it (Sterbenz: ``1 + y`` is
    exact for ``y`` in ``[-2, -1]``, so every output of ``x = 1`` there is a multiple of ``2^-52``)."""
    import numpy as np

    from dpverify.verify.engine._bisect import absent_between, run_of

    scale = float(1 / epsilon)
    if not _rejects_zero(scale):
        return Finding(
            "inconclusive", "numpy.random.laplace did not redraw at U = 0, so its law is not the one assumed"
        )
    # a draw whose output is near -1/2: 0 + scale * log(2U) = -1/2 at U = exp(-1/(2 scale)) / 2
    j = int(math.exp(-1 / (2 * scale)) * DRAWS / 2)
    while (_release(0, scale, j) * 2**52).is_integer():
        j += 1
    output = _release(0, scale, j)
    start, end = run_of(lambda i: _release(0, scale, i), j, 1, DRAWS - 1)
    below, above = absent_between(lambda i: _release(1, scale, i), output, 1, DRAWS - 1)
    mass = Fraction(end - start + 1, DRAWS - 1)
    magnitude = {
        "epsilon": "Infinity",
        "epsilon_how": "exact",
        "delta_at_claimed_epsilon": str(mass),
        "delta_how": "exact lower bound (one output's mass)",
    }
    details: dict[str, Any] = {
        "bits": 53,
        "numpy": np.__version__,
        "assumption": "np.log non-decreasing (assumption L), checked at every draw the searches read",
        "witness": {
            "output": output,
            "output_hex": output.hex(),
            "draws_at_0": [start, end],
            "p": str(mass),
            "straddling_draws_at_1": [below, above],
            "outputs_at_1": [_release(1, scale, below).hex(), _release(1, scale, above).hex()],
            "p_prime": "0",
        },
        "magnitude": magnitude,
    }
    evidence = (
        f"at 53 bits (numpy's own C code, its MT19937 words set; bisection under assumption L): infinite privacy "
        f"loss at output {output.hex()} ({output!r}), P = {mass} at x = 0 (draws {start}..{end} of 2^53 - 1), "
        f"P' = 0 at x = 1 (draws {below} and {above} give the neighbouring outputs "
        f"{_release(1, scale, below)!r} and {_release(1, scale, above)!r})"
    )
    return Finding("violated", evidence, details)


def primitives() -> list[Primitive]:
    from dpverify.verify.published._blackbox_specs import NUMPY_LAPLACE

    return [
        Primitive(
            "random.laplace added to x in doubles",
            "Laplace",
            "epsilon=0.1, inputs 0 and 1",
            "exact at k bits",
            lambda budget: laplace_witness(Fraction(1, 10)),
        ),
        Primitive(
            "random.laplace added to x in doubles (the event's mass)",
            "Laplace",
            "epsilon=0.1, inputs 0 and 1",
            "black box",
            black_box_audit(NUMPY_LAPLACE, NUMPY_LAPLACE.cases[0]),
            randomness="seeded",  # numpy's global generator, which each draw process seeds
        ),
    ]
