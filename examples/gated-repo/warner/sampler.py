"""Warner's randomized response: report a private bit, truthfully with probability ``b/(a+b)``.

The code under test.  Exact (integers and ``Fraction``, no floats), standard library only, and
its randomness comes only through ``rng.randbelow(n)``, an integer uniform on ``{0, ..., n-1}``:
in production ``dpverify.samplers.SystemRandomSource()`` (the OS CSPRNG) or any source with that
method; under ``dpverify check``, the engine's enumerating source.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["respond"]


def respond(bit: int, alpha: Fraction | int, rng: object) -> int:
    """``bit`` (0 or 1) under ``(-ln alpha)``-local differential privacy.

    With ``alpha = a/b`` in lowest terms (``0 < alpha <= 1``) the true bit is reported with
    probability ``b/(a+b)`` and the other with ``a/(a+b)``, so ``P(x | 0) / P(x | 1)`` lies in
    ``[alpha, 1/alpha]`` for both outputs.  One draw: ``u = rng.randbelow(a + b)``; ``u < b``
    reports the bit.
    """
    if isinstance(bit, bool) or bit not in (0, 1):
        raise ValueError(f"bit must be 0 or 1; got bit={bit!r}.")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, Fraction)) or not 0 < alpha <= 1:
        raise ValueError(f"alpha must be an int or Fraction in (0, 1]; got alpha={alpha!r}.")
    a, b = Fraction(alpha).numerator, Fraction(alpha).denominator
    u = rng.randbelow(a + b)  # type: ignore[attr-defined]
    if u < b:
        return bit
    return 1 - bit
