"""Exact convolution of non-negative integer sequences by Kronecker substitution.

The convolution ``c_m = sum_{i+j=m} a_i b_j`` of two sequences of non-negative integers is the
coefficient list of the product of the polynomials ``A(z) = sum a_i z^i`` and ``B(z)``.  Evaluated
at ``z = 2^s`` with every coefficient of the product below ``2^s``, the product of the two
integers ``A(2^s) * B(2^s)`` holds every ``c_m`` in its own ``s``-bit slot, so one big-integer
multiplication (Karatsuba in CPython, FFT in GMP) computes the whole convolution exactly.  A slot
is wide enough when ``2^s`` exceeds every ``c_m``, which is at most
``min(max(a) * sum(b), max(b) * sum(a))`` (each ``c_m`` takes every ``b_j`` at most once):
:func:`slot_bits`.  For a spread-out distribution this is about ``log2(len)`` bits narrower than
``max(a) * max(b) * min(len(a), len(b))``, and the product's cost grows with the slot.

The product runs on ``gmpy2`` when it is installed (the optional extra ``fast``: GMP multiplies
10^8-bit integers about a hundred times faster than CPython) and on Python ints otherwise; the
result is the same integer either way, and :func:`set_backend` lets the tests run both.
"""

from __future__ import annotations

from collections.abc import Sequence

try:  # optional: the extra "fast"
    import gmpy2 as _gmpy2
except ImportError:  # pragma: no cover - depends on the installation
    _gmpy2 = None
try:  # optional: splits the product into slots in C instead of one int.from_bytes per slot
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the installation
    _np = None  # type: ignore[assignment]  # an optional import: None marks numpy absent, checked before use

__all__ = ["SCHOOLBOOK_LENGTH", "backend", "convolve", "set_backend", "slot_bits"]

#: Below this length (of the shorter sequence) the schoolbook product is used.
SCHOOLBOOK_LENGTH = 8

_state = {"backend": "gmpy2" if _gmpy2 is not None else "python"}


def backend() -> str:
    """``"gmpy2"`` or ``"python"``: which big-integer product :func:`convolve` uses."""
    return _state["backend"]


def set_backend(name: str) -> str:
    """Use ``"gmpy2"`` (when installed) or ``"python"`` from now on; returns the previous one."""
    from dpverify.samplers import InvalidArgument
    from dpverify.samplers._rational import shown

    allowed = ("python", "gmpy2") if _gmpy2 is not None else ("python",)
    if name not in allowed:
        raise InvalidArgument(f"backend must be one of {', '.join(allowed)}; got backend={shown(name)}.")
    previous, _state["backend"] = _state["backend"], name
    return previous


def slot_bits(a: Sequence[int], b: Sequence[int]) -> int:
    """Bits ``s`` with ``2^s > min(max(a) * sum(b), max(b) * sum(a))``, so every coefficient of
    the product fits in its slot, and ``2^s > max(a), max(b)``, so every packed value does (the
    bound is below them only when one side is all zeros)."""
    high_a, high_b = max(a), max(b)
    return max(min(high_a * sum(b), high_b * sum(a)), high_a, high_b).bit_length()


def _pack(values: Sequence[int], width: int) -> int:
    if _state["backend"] == "gmpy2":
        packed: int = _gmpy2.pack(list(values), 8 * width)  # the same integer (an mpz), packed in C
        return packed
    return int.from_bytes(b"".join(v.to_bytes(width, "little") for v in values), "little")


def _multiply(x: int, y: int, square: bool) -> int:
    if _state["backend"] == "gmpy2":
        mx = _gmpy2.mpz(x)
        return int(mx * mx if square else mx * _gmpy2.mpz(y))
    return x * x if square else x * y


def convolve(a: Sequence[int], b: Sequence[int], shift: int = 0, round_up: bool = False) -> list[int]:
    """``c[m] = sum_{i+j=m} a[i] * b[j]`` exactly, for non-negative ints (``len(a) + len(b) - 1``
    entries; empty if either is empty); with ``shift``, each ``c[m]`` divided by ``2^shift`` and
    rounded down, or up with ``round_up``.

    >>> convolve([1, 2, 1], [1, 1])
    [1, 3, 3, 1]
    >>> convolve([3] * 20, [2**70] * 20)[19] == 20 * 3 * 2**70
    True
    >>> convolve([5, 7], [1, 1], shift=2), convolve([5, 7], [1, 1], shift=2, round_up=True)
    ([1, 3, 1], [2, 3, 2])
    """
    if not a or not b:
        return []
    count = len(a) + len(b) - 1
    if min(len(a), len(b)) < SCHOOLBOOK_LENGTH:
        out = [0] * count
        short, long_ = (a, b) if len(a) <= len(b) else (b, a)
        for i, x in enumerate(short):
            if x:
                for j, y in enumerate(long_):
                    out[i + j] += x * y
        return _shifted(out, shift, round_up)
    square = a is b
    width = (slot_bits(a, b) + 8) // 8  # one spare bit: adding 2^shift - 1 to a slot cannot overflow it
    x = _pack(a, width)
    y = x if square else _pack(b, width)
    product = _multiply(x, y, square)
    if shift % 8 or shift > 8 * (width - 1):
        data = product.to_bytes(width * count, "little")
        return _shifted(
            [int.from_bytes(data[i : i + width], "little") for i in range(0, width * count, width)], shift, round_up
        )
    low = shift // 8
    if round_up and low:  # ceil(c / 2^shift) = floor((c + 2^shift - 1) / 2^shift), added to every slot at once
        product += int.from_bytes((b"\xff" * low + bytes(width - low)) * count, "little")
    # a whole number of bytes: the quotient is each slot's high bytes
    data = product.to_bytes(width * count, "little")
    words = _words(data, count, width, low)
    if words is not None:
        return words
    return [int.from_bytes(data[i + low : i + width], "little") for i in range(0, width * count, width)]


def _words(data: bytes, count: int, width: int, low: int) -> list[int] | None:
    """Each slot's bytes ``low..width`` read as one little-endian integer, through 64-bit words;
    None (read them one by one) without numpy or when a quotient needs more than 64 bits.  The
    same bytes reinterpreted, so the same integers."""
    if _np is None:
        return None
    high = _np.frombuffer(data, dtype=_np.uint8).reshape(count, width)[:, low:]
    if high.shape[1] > 8:
        if high[:, 8:].any():
            return None
        high = high[:, :8]
    words = _np.zeros((count, 8), dtype=_np.uint8)
    words[:, : high.shape[1]] = high
    return words.view("<u8").ravel().tolist()


def _shifted(values: list[int], shift: int, round_up: bool) -> list[int]:
    if not shift:
        return values
    if round_up:
        mask = (1 << shift) - 1
        return [(v + mask) >> shift for v in values]
    return [v >> shift for v in values]
