"""The k-fold self-convolution of a certified PLD side by one float FFT power, with an a-priori
bound on its error: the speed of a float PLD (one transform, a pointwise k-th power, one inverse
transform, on a window cut by a tail bound) with bounds that stay certain.

**What is computed.**  ``x`` is the side's finite part, ``x_s = w_s / 2^bits`` at the relative
points ``s = 0..n-1`` (exact integers ``w_s``), ``f = x^(*k)`` its exact k-fold on ``0..k(n-1)``.

1. *Window.*  For ``r > 1`` and every ``h``, ``f(S > h) <= M(r)^k / r^(h+1)`` with
   ``M(r) = sum_s x_s r^s`` (Chernoff: ``1[S > h] <= r^(S-h-1)``); the same on the mirrored
   weights bounds ``f(S < l)``.  ``r = 1 + c/2^40`` is chosen in floats (which ``r`` is chosen
   does not matter for soundness), ``M(r)`` is bounded above by a Horner scheme over the
   non-zero points in integers rounded up (``r^gap`` by squaring, each product rounded up), and
   the smallest ``h`` with the bound at most ``TAIL`` is found with
   outward-rounded ``mpmath.iv`` logarithms.  The window ``[l, h]`` has ``W`` points and the
   transforms length ``L = 2N``, the power of two ``>= W``; ``tails`` is the (rigorous) mass of
   ``f`` outside it.
2. *Spectrum.*  ``x~_s = fl(x_s)`` (so ``x~ <= (1 + u) x``, ``u = 2^-53``).  ``X_q = sum_s x~_s
   w^(qs)``, ``w = e^(-2 pi i/L)``, for ``q = 0..N``: directly when ``x`` has at most
   :data:`DIRECT_ATOMS` non-zero points (each term ``x~_s * T[qs mod L]``, lightest first), by a
   radix-2 FFT of length ``N`` of ``z = x~_even + i x~_odd`` and the usual split
   ``X_q = (Z_q + conj Z_(N-q))/2 - i w^q (Z_q - conj Z_(N-q))/2`` otherwise.
3. *Power.*  ``Y_q = X_q^k`` by binary powering (complex products), entries with
   ``max(|Re|, |Im|) < theta``, the least double with ``theta^k >= 2^-990``, set to 0 (so no
   product underflows; past ``k`` of about 1900 the zeroed entries' term ``(sqrt 2 theta)^k``
   passes any useful slack, and the exact path runs instead).
4. *Inverse.*  ``Z'_q = (Y_q + conj Y_(N-q))/2 + i conj(w^q) (Y_q - conj Y_(N-q))/2``, then
   ``z' = conj(FFT_N(conj Z'))/N`` and ``y_2j = Re z'_j``, ``y_2j+1 = Im z'_j``: the cyclic k-fold
   of ``x~`` (``y_p = sum_{S = p mod L} (x~)^(*k)_S``).

**The theorem and its assumptions.**  Higham, *Accuracy and Stability of Numerical Algorithms*,
2nd ed., Theorem 24.2: if ``y^ = fl(F_N z)`` is computed by the Cooley-Tukey radix-2 algorithm,
``N = 2^t``, with computed weights ``|w^_j - w_j| <= mu``, then
``||y^ - y||_2 <= t eta / (1 - t eta) ||y||_2``, ``eta = mu + gamma_4 (sqrt 2 + mu)``,
``gamma_n = n u / (1 - n u)``.  :func:`_fft` is that algorithm: stage ``m -> 2m`` forms
``a + w^ b`` and ``a - w^ b`` for the pairs of the decimation in time, vectorised over the
stage (the order in which a stage's independent butterflies run changes no rounding); stages
whose odd halves are all zero are skipped, which changes nothing (``a +- fl(w^ 0) = a`` exactly).
Assumed: IEEE-754 binary64, round to nearest (numpy's float64 and complex128 ufuncs); a complex
product's parts computed as ``fl(fl(ac) -+ fl(bd))`` or with one fused multiply-add
``fl(ac -+ fl(bd))``: both err by at most ``(2u + u^2)(|ac| + |bd|) <= gamma_2 (|ac| + |bd|)``,
so Higham's Lemma 3.5 (``|fl(xy) - xy| <= sqrt 2 gamma_2 |x||y|``), which the theorem uses, holds
either way; sums and differences are single roundings.  The theorem assumes no underflow: with
gradual underflow each real product gains an absolute error ``<= 2^-1075`` and a sum none (a sum
whose exact value is subnormal is exact), and each stage has 2-norm ``sqrt 2 (1 + eta)``, so for
``N <= 2^30`` (lattices are capped at ``2^22`` points) this adds less than ``2^-1000``
(``_UNDERFLOW``) to each bound, and the splits and halvings less than ``2^-1070`` per entry.
The weights: ``T[aB + b] = fl(A_a B_b)`` with ``A_a = w^(aB)``, ``B_b = w^b`` rounded to nearest
from the midpoints of ``mpmath.iv`` enclosures of width below ``2^-76``: each part within
``u |part| + 2^-77``, so each within ``u + 2^-76 <= mu_0 = u + 2^-75`` (``cos^2 + sin^2 = 1``), and
``mu = mu_0 (2 + mu_0) + sqrt 2 gamma_2 (1 + mu_0)^2`` (:data:`MU`).

**Error bound** (:func:`_error_bound`, all in outward-rounded ``iv``; ``m = (1 + u) sum x``,
``n_2 >= (1 + u) ||x||_2``, norms over ``q = 0..N``).

(a) ``x~`` against ``x``: ``||(x~)^(*k) - x^(*k)||_1 <= k m^(k-1) u sum x`` (telescoping).

(b) Spectrum, direct (:func:`_direct_error`): per real part the products err by ``u`` each, the
running sum by ``u sum_{i>=2} |partial sum i|`` (Higham (4.3)), the weights by ``MU`` each, so
``|X^_q - X_q| <= e = sqrt 2 (u (1 + MU)(1 + u)^A (m + sum_{i>=2} P_i) + MU m)`` with ``P_i`` the
prefix masses of the ``A`` atoms, lightest first; ``e_2 = sqrt(N+1) e``.  By FFT:
``||Z^ - Z||_2 <= eps_N sqrt N n_2`` (``||Z||_2 = sqrt N ||z||_2``, ``eps_N = t eta/(1 - t eta)``).
*A split* maps entry errors ``D_q`` of its input ``V`` to ``|out^_q - out_q| <= c rho_q + d beta_q
/ 2``, ``rho_q = sqrt(|D_q|^2 + |D_(N-q)|^2)``, ``beta_q = |V_q| + |V_(N-q)|``: its exact part
is ``alpha D_q + beta conj D_(N-q)`` with ``|alpha|^2 + |beta|^2 = (1 + |w^|^2)/2 <= (1 + MU)^2``
(Cauchy-Schwarz), and one sum, one difference, exact halvings, a product with a weight and a
last sum add ``lambda (beta_q + sqrt 2 rho_q)``, ``MU beta_q / 2`` and ``u (|out| + err)``, with
``lambda = u (2 + MU)/2 + (1 + MU)(1 + u) sqrt 2 gamma_2 / 2``; so ``c = (1 + MU + sqrt 2
lambda)/(1 - u)``, ``d = (2 lambda + MU + 2u)/(1 - u)``.  Over ``q``, ``||rho||_2 = sqrt 2 ||D||_2``
and ``||beta/2||_2 <= ||V||_2``: ``e_2 = e = 2 c ||Z^ - Z||_2 + d sqrt(2N) n_2`` (``Z_N = Z_0``).

(c) Power: ``|X^k - X'^k| <= k max(|X|, |X'|)^(k-1) |X - X'|``; a chain of ``k - 1`` products,
each within ``rho = sqrt 2 gamma_2 + 2^-80`` relative (no result below ``2^-991``; the ``2^-80``
covers a part that underflows), leaves ``|Y^_q - X^_q^k| <= ((1 + rho)^(k-1) - 1) |X^_q|^k``; a
zeroed entry had ``|X_q| <= sqrt 2 theta + e``.  With ``M = m + e`` and, for a direct spectrum,
``S_p >= sum_q (|X^_q| + e)^p`` (:func:`_power_sums`: rigorous in floats)::

    ||Y^ - Y||_2 <= k min(M^(k-1) e_2, e sqrt S_(2k-2)) + ((1 + rho)^(k-1) - 1) min(M^(k-1)
                    (sqrt L n_2 + e_2), sqrt S_2k) + sqrt(N+1) (sqrt 2 theta + e)^k,

and ``||Y||_2 <= n_Y = min(sqrt(N+1) m^k, sqrt S_2k)`` (``|Y_q| = |X_q|^k``, at most ``m^k``
and ``(|X^_q| + e)^k``).

(d) Inverse: the split gives ``||Z'^ - Z'||_2 <= sqrt 2 c ||Y^ - Y||_2 + d n_Y``; the FFT adds
``eps_N ||Z'^||_2`` with ``||Z'||_2 = sqrt N ||y||_2 <= min(sqrt N m^k, n_Y)`` (Parseval: the
full spectrum's square norm is at most twice the half's); dividing by ``N`` (exact) gives
``||z'^ - z'||_2 <= (||dZ'|| + eps_N (||Z'|| + ||dZ'||))/sqrt N``, and on the window of ``W``
points ``||y^ - y||_1 <= sqrt W ||z'^ - z'||_2 = E_fft``.

**Reading** (:func:`fft_power`).  ``mu_p = ceil(max(y^_p, 0) 2^bits) / 2^bits`` on the window
(exact: scaling by a power of two and ``ceil`` are exact in binary64): as ``y >= 0``, clipping
moves no entry away from ``y`` and the ceiling at most ``2^-bits``.  On the window ``y`` is
``f~ = (x~)^(*k)`` plus what wraps around from outside it (``<= (1 + u)^k tails``), so::

    ||mu - f|_window||_1 + f(outside) <= slack = W 2^-bits + E_fft + (a) + ((1 + u)^k + 1) tails.

How the slack enters the bounds is in :mod:`dpverify.verify.privacy._pld_certified`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np
from mpmath import iv, libmp

from dpverify.specs._enclosure import interval_precision, iv_rational

__all__ = ["DIRECT_ATOMS", "MU", "TAIL", "FftPower", "fft_power"]

#: Mass of the k-fold allowed outside the window, below it and above it each.
TAIL = Fraction(1, 1 << 50)
#: One-fold sides with at most this many non-zero points get their spectrum term by term.
DIRECT_ATOMS = 24

_U = Fraction(1, 1 << 53)
_SQRT2 = Fraction(14143, 10000)  # > sqrt 2
_UNDERFLOW = Fraction(1, 1 << 1000)  # an FFT's underflow, in 2-norm (see the module docstring)
_ENTRY = Fraction(1, 1 << 1070)  # a split's or halving's underflow, per entry


def _gamma(n: int) -> Fraction:
    return n * _U / (1 - n * _U)


_MU0 = _U + Fraction(1, 1 << 75)
#: Bound on the error of every computed weight ``T[j]`` (see the module docstring).
MU = _MU0 * (2 + _MU0) + _SQRT2 * _gamma(2) * (1 + _MU0) ** 2
_LAMBDA = _U * (2 + MU) / 2 + (1 + MU) * (1 + _U) * _SQRT2 * _gamma(2) / 2
_C = (1 + MU + _SQRT2 * _LAMBDA) / (1 - _U)
_D = (2 * _LAMBDA + MU + 2 * _U) / (1 - _U)
_RHO = _SQRT2 * _gamma(2) + Fraction(1, 1 << 80)


# --- weights and the radix-2 FFT ----------------------------------------------------------------


def _unit(j: int, length: int) -> complex:
    """``e^(-2 pi i j/length)`` rounded to nearest from an enclosure narrower than ``2^-76``."""
    with interval_precision(96):
        angle = 2 * iv.pi * j / length
        parts = (iv.cos(angle), -iv.sin(angle))
    out = []
    for part in parts:
        low, high = part._mpi_
        if not libmp.mpf_le(libmp.mpf_sub(high, low, 256), libmp.from_man_exp(1, -76)):
            raise ArithmeticError(
                f"a twiddle enclosure is wider than 2^-76: j={j}, length={length}"
            )  # pragma: no cover
        out.append(libmp.to_float(libmp.mpf_shift(libmp.mpf_add(low, high, 256), -1), rnd="n"))
    return complex(out[0], out[1])


@lru_cache(maxsize=4)
def _table(length: int) -> np.ndarray:
    """``T[j] ~ e^(-2 pi i j/length)`` for ``j = 0..length-1`` within :data:`MU` (the second half
    is the first negated, exactly)."""
    half = length // 2
    block = 1 << ((half.bit_length()) // 2)
    low = np.array([_unit(b, length) for b in range(block)])
    high = np.array([_unit(a * block, length) for a in range(-(-half // block))])
    first = (high[:, None] * low[None, :]).ravel()[:half]
    return np.concatenate([first, -first])


@lru_cache(maxsize=4)
def _stage_weights(size: int, length: int) -> tuple[np.ndarray, ...]:
    """The weights ``w_2m^q = T[q length/(2m)]`` (``q < m``) of each stage ``m -> 2m`` of an FFT of
    ``size`` points, as columns."""
    table, out, m = _table(length), [], 1
    while m < size:
        out.append(np.ascontiguousarray(table[: length // 2 : length // (2 * m)][:m])[:, None])
        m *= 2
    return tuple(out)


def _fft(z: np.ndarray, support: int, length: int) -> np.ndarray:
    """``F_N z`` (``N = len(z)``, a power of two) by radix-2 decimation in time; ``z`` is zero
    from ``support`` on.  Row ``r`` of the ``(m, N/m)`` array is the ``m``-point DFT of
    ``z[c], z[c + N/m], ...`` at frequency ``r``, column ``c``; columns ``c`` and ``c + N/2m``
    are combined into the ``2m``-point DFTs.  While ``N/m >= support`` every such subsequence is
    ``z[c], 0, 0, ...``, whose DFT is ``z[c]`` in every row: those stages are skipped."""
    size = len(z)
    weights = _stage_weights(size, length)
    m = 1
    while m < size and size // (2 * m) >= max(support, 1):
        m *= 2
    x = np.broadcast_to(z[None, : size // m], (m, size // m))
    stage = m.bit_length() - 1
    buffers = _buffers(size)
    while m < size:
        half = x.shape[1] // 2
        odd = np.multiply(weights[stage], x[:, half:], out=buffers[2][: m * half].reshape(m, half))
        out = buffers[stage % 2].reshape(2 * m, half)
        np.add(x[:, :half], odd, out=out[:m])
        np.subtract(x[:, :half], odd, out=out[m:])
        x, m, stage = out, 2 * m, stage + 1
    return x.ravel()  # a view of a kept buffer: valid until the next call


@lru_cache(maxsize=2)
def _buffers(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two stage arrays and one for the odd halves times their weights, kept between calls (fresh
    memory would be paged in again at every stage); not thread-safe, as ``mpmath.iv``'s precision."""
    return (
        np.empty(size, dtype=np.complex128),
        np.empty(size, dtype=np.complex128),
        np.empty(size // 2, dtype=np.complex128),
    )


# --- spectrum, power, inverse -------------------------------------------------------------------


def _direct_spectrum(points: np.ndarray, values: np.ndarray, length: int) -> np.ndarray:
    """``X_q = sum_s values_s T[q points_s mod length]`` for ``q = 0..length/2``, summed in order."""
    table = _table(length)
    q = np.arange(length // 2 + 1, dtype=np.int64)
    real = np.zeros(len(q))
    imag = np.zeros(len(q))
    index = np.empty_like(q)
    terms = np.empty(len(q), dtype=np.complex128)
    for s, value in zip(points.tolist(), values.tolist(), strict=True):
        if s == 0:  # T[0] = 1: the same sums, value * 1 and + value * 0 being exact
            real += value
            continue
        np.multiply(q, s, out=index)
        index &= length - 1  # q s mod length: length is a power of two
        np.take(table, index, out=terms)
        real += value * terms.real
        imag += value * terms.imag
    out = np.empty(len(q), dtype=np.complex128)
    out.real, out.imag = real, imag  # copies
    return out


@lru_cache(maxsize=4)
def _conj_half(length: int) -> np.ndarray:
    half: np.ndarray = np.conj(_table(length)[: length // 2])
    return half


def _split(v: np.ndarray, sign: float, weights: np.ndarray) -> np.ndarray:
    """``(v_q + conj v_(N-q))/2 + sign i weights_q (v_q - conj v_(N-q))/2`` for ``q`` over
    ``weights`` (``v`` has ``N + 1`` entries)."""
    count = len(weights)
    mirrored = np.conj(v[::-1])
    total: np.ndarray = v[:count] + mirrored[:count]
    diff = np.subtract(v[:count], mirrored[:count], out=mirrored[:count])
    total *= 0.5  # exact: (0.5 a - 0 b) + i (0.5 b + 0 a)
    diff *= 0.5j * sign  # exact: a part times 0.5, the other times 0, swapped
    diff *= weights
    total += diff
    return total


def _spectrum(x: np.ndarray, support: int, length: int) -> np.ndarray:
    """``X_q`` for ``q = 0..N`` of the real ``x`` (zero from ``support`` on), by an FFT of
    ``N = length/2`` points of ``x_even + i x_odd``."""
    size = length // 2
    z = np.zeros(size, dtype=np.complex128)
    z.real = x[0::2]
    z.imag = x[1::2]
    big = _fft(z, -(-support // 2), length)
    return _split(np.append(big, big[0]), -1.0, _table(length)[: size + 1])


@lru_cache(maxsize=16)
def _threshold(k: int) -> float:
    """The least double ``theta`` (about ``2^(-990/k)``) with ``theta^k >= 2^-990``, checked in ``iv``."""
    theta = float(np.nextafter(2.0 ** (-990 / k), 2.0))
    with interval_precision(64):
        while (iv.mpf(theta) ** k)._mpi_[0] < libmp.from_man_exp(1, -990):  # pragma: no cover - pow's error
            theta = float(np.nextafter(theta, 2.0))
    return theta


def _power(spectrum: np.ndarray, k: int) -> np.ndarray:
    """``X_q^k`` by binary powering, entries with both parts below :func:`_threshold` set to 0."""
    theta = _threshold(k)
    small = np.maximum(np.abs(spectrum.real), np.abs(spectrum.imag)) < theta
    base = np.where(small, 0.0, spectrum)
    result = None
    for bit in bin(k)[2:]:
        if result is not None:
            result = result * result
        if bit == "1":
            result = base if result is None else result * base
    assert result is not None
    return result


def _inverse(spectrum: np.ndarray, length: int) -> np.ndarray:
    """The real ``y`` of ``length`` points whose DFT has ``spectrum`` (``q = 0..N``) as its first
    half, by an FFT of ``N`` points."""
    size = length // 2
    packed = _split(spectrum, 1.0, _conj_half(length))
    back = _fft(np.conj(packed), size, length)
    y = np.empty(length)
    y[0::2] = back.real / size
    y[1::2] = back.imag / -size
    return y


# --- the window ---------------------------------------------------------------------------------


def _chernoff_top(
    weights: Sequence[int], nonzero: np.ndarray, values: np.ndarray, bits: int, k: int, tail: Fraction
) -> int:
    """The smallest ``h`` (relative) with ``M(r)^k / r^(h+1) <= tail`` for one ``r = 1 + c/2^40``
    picked in floats; ``k (n-1)`` when that is smaller.  Rigorous: ``M(r)`` is bounded above by
    Horner's scheme in integers rounded up, the logarithms are outward-rounded."""
    n = len(weights)
    top = k * (n - 1)
    if n == 1:
        return top
    log_tail = math.log(float(tail))
    spread = float(nonzero[-1] - nonzero[0] + 1)
    best = None
    for j in range(64):
        t = 2.0 ** (j / 4 - 8) / spread
        exponents = t * (nonzero - nonzero[-1]) + np.log(values)
        log_m = t * nonzero[-1] + float(np.log(np.sum(np.exp(exponents))))
        h = (k * log_m - log_tail) / t
        if best is None or h < best[0]:
            best = (h, t)
    assert best is not None
    if best[0] >= top:
        return top
    c = max(1, round(math.expm1(best[1]) * 2.0**40))
    r = (1 << 40) + c
    guard = 32
    acc, last = 0, n - 1
    for i in reversed(nonzero.astype(np.int64).tolist()):  # acc >= 2^(guard+bits) sum_{s>=i} x_s r^(s-i)
        acc = -((-acc * _power_up(r, last - i)) >> 64) + (weights[i] << guard)
        last = i
    acc = -((-acc * _power_up(r, last)) >> 64)  # down to the point 0
    with interval_precision(96):
        log_m = iv.log(iv_rational(Fraction(acc, 1 << (guard + bits))))
        log_r = iv.log(iv_rational(Fraction(r, 1 << 40)))
        need = (k * log_m - iv.log(iv_rational(tail))) / log_r  # h + 1 >= need
    h = int(libmp.to_int(need._mpi_[1], "c"))
    return min(top, max(h, 0))


def _power_up(r: int, e: int) -> int:
    """An integer at least ``(r/2^40)^e 2^64``, by squaring with every product rounded up."""
    result, base = 1 << 64, r << 24
    while e:
        if e & 1:
            result = -((-result * base) >> 64)
        e >>= 1
        if e:
            base = -((-base * base) >> 64)
    return result


def window(weights: Sequence[int], bits: int, k: int, tail: Fraction = TAIL) -> tuple[int, int]:
    """``(low, high)``, relative to ``k`` times the offset: the k-fold's mass below ``low`` and
    above ``high`` is at most ``tail`` each (``low = 0``, ``high = k (n-1)`` when nothing is cut)."""
    array = np.array([float(w) for w in weights])
    nonzero = np.nonzero(array)[0]
    values = np.maximum(array[nonzero] / 2.0**bits, 1e-300)  # only steers the choice of r
    high = _chernoff_top(weights, nonzero.astype(float), values, bits, k, tail)
    n = len(weights)
    mirrored = (n - 1 - nonzero[::-1]).astype(float)
    low = k * (n - 1) - _chernoff_top(weights[::-1], mirrored, values[::-1], bits, k, tail)
    return low, high


# --- the error bound and the whole power --------------------------------------------------------


def _direct_error(values: Sequence[Fraction]) -> Fraction:
    """A bound on ``|X^_q - X_q|`` of :func:`_direct_spectrum` for the exact ``values`` (each one
    rounded to nearest, summed in this order): per real part, products within ``u``, the sum within
    ``u sum_{i>=2} |partial sum i|`` (Higham (4.3)), the weights within ``MU``."""
    count = len(values)
    grown = [v * (1 + _U) for v in values]
    prefix, partials = Fraction(0), Fraction(0)
    for i, v in enumerate(grown):
        prefix += v
        if i:
            partials += prefix
    part = _U * (1 + MU) * (1 + _U) ** count * (prefix + partials) + MU * prefix + count * _ENTRY
    return _SQRT2 * part


def _power_sums(spectrum: np.ndarray, entry: Fraction, k: int) -> tuple[Fraction, Fraction]:
    """Upper bounds on ``sum_q (|X^_q| + entry)^(2(k-1))`` and ``sum_q (|X^_q| + entry)^(2k)``.

    In floats, each step bounded: ``s = fl(fl(re^2) + fl(im^2)) + 2^-1070`` (rounded) is at least
    ``|X^|^2 (1-u)^3`` (the ``2^-1070`` covers squares that underflow), its correctly rounded square
    root plus ``entry`` (rounded up to a double) is at least ``(|X^| + entry)(1-u)^3.5``, raised to
    at least a ``theta`` with ``theta^(2k) >= 2^-990`` (so no power underflows; raising only
    raises the bound); a power ``p`` by ``p - 1`` products loses at most ``(1-u)^(p-1)`` and a sum
    of ``c`` non-negative terms ``(1-u)^(c-1)``."""
    a = spectrum.real * spectrum.real
    a += spectrum.imag * spectrum.imag
    a += 2.0**-1070
    np.sqrt(a, out=a)
    bump = float(entry)
    if Fraction(bump) < entry:
        bump = float(np.nextafter(bump, 2.0))
    a += bump
    np.maximum(a, _threshold(2 * k), out=a)
    low = _float_power(a, 2 * (k - 1))
    high = low * a
    high *= a
    count, p = len(a), 2 * k
    with interval_precision(96):
        factor = (1 - iv_rational(_U)) ** (-(p * 9 // 2 + count + 2))
        lower, upper = (_fraction_up(iv_rational(Fraction(float(np.sum(v)))) * factor) for v in (low, high))
    return lower, upper


def _float_power(base: np.ndarray, p: int) -> np.ndarray:
    if p == 0:
        return np.ones_like(base)
    result = None
    for bit in bin(p)[2:]:
        if result is not None:
            result = result * result
        if bit == "1":
            result = base.copy() if result is None else result * base
    assert result is not None
    return result


def _error_bound(
    k: int,
    length: int,
    span: int,
    mass: Fraction,
    norm2: Fraction,
    entry: Fraction | None,
    sums: tuple[Fraction, Fraction] | None,
) -> Fraction:
    """An upper bound on ``||y^ - y||_1`` over the window's ``span`` points plus the term (a) of
    the module docstring: ``mass`` and ``norm2`` are the exact ``sum x`` and an upper bound on
    ``||x||_2``; ``entry`` bounds each ``|X^_q - X_q|`` of a direct spectrum (None: the FFT's);
    ``sums`` from :func:`_power_sums` with that ``entry`` (None: not used)."""
    size = length // 2
    t = size.bit_length() - 1
    with interval_precision(128):

        def f(v: Fraction) -> iv.mpf:
            return iv_rational(v)

        u, mu, root2 = f(_U), f(MU), iv.sqrt(2)
        eta = mu + f(_gamma(4)) * (root2 + mu)
        eps = t * eta / (1 - t * eta)
        m = f(mass) * (1 + u)
        n2 = f(norm2) * (1 + u)
        c, d, tiny = f(_C), f(_D), f(_ENTRY)
        root_n, root_n1 = iv.sqrt(size), iv.sqrt(size + 1)
        if entry is not None:
            sup = f(entry)
            e2 = sup * root_n1
        else:
            dz = eps * root_n * n2 + f(_UNDERFLOW)
            e2 = 2 * c * dz + d * iv.sqrt(2 * size) * n2 + root_n1 * tiny
            sup = e2
        big = m + sup
        theta = iv.mpf(_threshold(k))
        rho = f(_RHO)
        first = k * big ** (k - 1) * e2
        rounding = ((1 + rho) ** (k - 1) - 1) * big ** (k - 1) * (iv.sqrt(length) * n2 + e2)
        norm_y = root_n1 * m**k
        if sums is not None:
            first = min(first, k * sup * iv.sqrt(f(sums[0])))
            norm_y = min(norm_y, iv.sqrt(f(sums[1])))
            rounding = min(rounding, ((1 + rho) ** (k - 1) - 1) * iv.sqrt(f(sums[1])))
        dy = first + rounding + root_n1 * (root2 * theta + sup) ** k
        dzp = c * root2 * dy + d * norm_y + root_n1 * tiny
        dz_out = (dzp + eps * (min(root_n * m**k, norm_y) + dzp)) / root_n + f(_UNDERFLOW) + tiny * root_n
        total = iv.sqrt(span) * dz_out + k * m ** (k - 1) * u * f(mass)
    return _fraction_up(total)


def _fraction_up(value: iv.mpf) -> Fraction:
    man, exp = libmp.to_man_exp(value._mpi_[1])
    scale: Fraction = Fraction(2) ** exp  # exp is an int; mpmath is untyped
    return Fraction(man) * scale


class FftPower:
    """The reading of an FFT power: ``weights[i] / 2^bits`` at the relative point ``low + i``
    (integers; the k-fold of the side's finite part within ``slack`` in the sense of the module
    docstring)."""

    __slots__ = ("low", "weights", "slack", "length", "array")

    def __init__(self, low: int, weights: list[int], slack: Fraction, length: int, array: np.ndarray | None) -> None:
        self.low, self.weights, self.slack, self.length = low, weights, slack, length
        self.array = array  # the weights as uint64 (None past 2^64 - 1), before _trim_tails adds to one


def fft_power(weights: Sequence[int], bits: int, k: int, tail: Fraction = TAIL) -> FftPower:
    """The k-fold self-convolution of ``weights / 2^bits`` (non-negative integers, the first and
    last positive) read back as integers, with its slack (see the module docstring)."""
    n = len(weights)
    low, high = window(weights, bits, k, tail)
    full = k * (n - 1)
    if low > high:  # a k-fold lighter than the tails: keep it whole
        low, high = 0, full
    cut = (low > 0) + (high < full)
    span = high - low + 1
    length = max(4, 1 << (max(span, n) - 1).bit_length())
    x = np.zeros(length)
    x[:n] = [float(w) for w in weights]  # each int rounded to nearest
    x *= 2.0**-bits  # exact: a power of two, no underflow for bits <= 960
    nonzero = np.nonzero(x[:n])[0]
    entry: Fraction | None = None
    sums = None
    if len(nonzero) <= DIRECT_ATOMS:
        order = nonzero[np.argsort(x[nonzero], kind="stable")]  # lightest first: small partial sums
        spectrum = _direct_spectrum(order, x[order], length)
        entry = _direct_error([Fraction(weights[i], 1 << bits) for i in order.tolist()])
        sums = _power_sums(spectrum, entry, k)
    else:
        spectrum = _spectrum(x, n, length)
    y = _inverse(_power(spectrum, k), length)
    start = low % length
    window_y = y[start : start + span]
    if len(window_y) < span:  # the window wraps around
        window_y = np.concatenate([window_y, y[: span - len(window_y)]])
    scaled = np.ceil(np.maximum(window_y, 0.0) * 2.0**bits)
    array = None
    if scaled.size and scaled.max() < 2.0**64:
        array = scaled.astype(np.uint64)  # exact: integers below 2^64
        out = array.tolist()
    else:
        out = [int(v) for v in scaled.tolist()]
    mass = Fraction(sum(weights), 1 << bits)
    norm2 = Fraction(math.isqrt(sum(w * w for w in weights)) + 1, 1 << bits)
    tails = cut * tail
    slack = (
        Fraction(span, 1 << bits)
        + _error_bound(k, length, span, mass, norm2, entry, sums)
        + ((1 + _U) ** k + 1) * tails
    )
    return FftPower(low, out, slack, length, array)
