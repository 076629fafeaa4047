"""A :class:`RandomSource` presented as a ``numpy.random.Generator``-compatible object.

Many DP libraries draw from a ``numpy.random.Generator`` (``rng.integers``, ``rng.random``,
``rng.choice``, ...) rather than from ``random``.  :class:`GeneratorCompat` has the Generator
methods such code uses, and every draw is choices of the source underneath, so the engine's
enumerating source sees (and weighs) exactly the draws the code makes, as
:class:`~dpverify.verify.engine._random_compat.RandomCompat` does for ``random.Random``.

What is exact, and in what sense:

- ``integers``, uniform ``choice``, ``bytes``, ``permutation``, ``shuffle``: exact.  Each integer
  is one ``randbelow(n)`` of the source.  numpy reaches the same law through its own rejection
  loops over 64-bit words (Lemire's method, masked rejection, Fisher-Yates); the adapter keeps the
  law and the order of the values, not numpy's word-level draws, and ``choice(replace=False)`` is
  a partial Fisher-Yates (a uniform ordered sample, as numpy's with ``shuffle=True``).
- ``random()`` is ``j / 2**float_bits`` with ``j = randbelow(2**float_bits)``: exactly uniform on
  the grid of ``float_bits``-bit dyadic doubles in ``[0, 1)``.  numpy's ``next_double`` is the
  53-bit grid, ``(next_uint64 >> 11) * 2**-53``, so at ``float_bits = 53`` the law is numpy's; a
  smaller ``float_bits`` enumerates float code exactly at reduced precision, and a verdict on
  such code holds for that precision only (say so).
- ``choice(p=...)``, ``uniform``, ``laplace``, ``geometric`` (``p >= 1/3``) run numpy's own algorithm on that
  ``random()``: ``choice`` numpy's ``cdf = cumsum(p) / sum``, then ``searchsorted(u, 'right')``
  (computed by numpy itself), so the probabilities are those the grid gives, not ``p``;
  ``uniform``, ``laplace`` and ``geometric`` are numpy's C ``random_uniform``,
  ``random_laplace`` and ``random_geometric`` (numpy >= 1.22, ``numpy/random/src/distributions/
  distributions.c``) written out in Python's double arithmetic with the C library's ``log``.  That is the
  same rounding as numpy's C on a platform that does not contract ``a + b * c`` into a fused multiply-add
  (x86-64 builds do not; the tests compare with the numpy installed, draw for draw).
- Every other Generator method (``normal``, ``exponential``, ``gamma``, ``poisson``, ``geometric``
  below ``p = 1/3``, ...: numpy's
  C ziggurat tables and rejection samplers) raises :class:`~dpverify.samplers.SamplerContractError`
  naming the method: code that calls them is audited as a black box.

Scalars come back as numpy's do: ``integers`` a numpy integer of ``dtype``, ``random``,
``uniform`` and ``laplace`` a Python float, ``geometric`` and ``choice`` over an int a Python int;
with ``size`` an ndarray.  Array-valued parameters (broadcasting) are not supported.

:func:`patched_generator` installs the adapter where a library keeps its generator: a module
attribute holding a Generator, or a function returning one (``default_rng``, a getter).  A
library that takes the generator as an argument is simply passed a :class:`GeneratorCompat`.
"""

from __future__ import annotations

import functools
import importlib
import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from dpverify.samplers import InvalidArgument, RandomSource, SamplerContractError
from dpverify.verify.engine._arguments import shown
from dpverify.verify.engine._random_compat import CPYTHON_FLOAT_BITS

try:
    import numpy as np
except ImportError:  # the optional extra; GeneratorCompat refuses to start without it
    np = None  # type: ignore[assignment]  # numpy is optional: None marks it absent

__all__ = ["NOT_REPLICATED", "GeneratorCompat", "patched_generator"]

#: Generator methods whose numpy algorithm the adapter does not reproduce: calling one raises.
NOT_REPLICATED = (
    "beta",
    "binomial",
    "chisquare",
    "dirichlet",
    "exponential",
    "f",
    "gamma",
    "gumbel",
    "hypergeometric",
    "logistic",
    "lognormal",
    "logseries",
    "multinomial",
    "multivariate_hypergeometric",
    "multivariate_normal",
    "negative_binomial",
    "noncentral_chisquare",
    "noncentral_f",
    "normal",
    "pareto",
    "permuted",
    "poisson",
    "power",
    "rayleigh",
    "spawn",
    "standard_cauchy",
    "standard_exponential",
    "standard_gamma",
    "standard_normal",
    "standard_t",
    "triangular",
    "vonmises",
    "wald",
    "weibull",
    "zipf",
)

# random_geometric switches from search to inversion at this double (the C literal 0.333...3).
_ONE_THIRD = 0.333333333333333333333333


def _integer(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) and not (np is not None and isinstance(value, np.integer)):
        raise InvalidArgument(
            f"{name} must be an integer (an int or a numpy integer; arrays of bounds are not "
            f"supported); got {name}={shown(value)}."
        )
    return int(value)


def _real(name: str, value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        and not (np is not None and isinstance(value, (np.integer, np.floating)))
    ):
        raise InvalidArgument(
            f"{name} must be a real number (an int or a float; arrays are not supported); got {name}={shown(value)}."
        )
    number = float(value)
    if math.isnan(number):
        raise InvalidArgument(f"{name} must be a number, not NaN; got {name}={shown(value)}.")
    return number


def _shape(size: object) -> tuple[int, ...] | None:
    if size is None:
        return None
    dims = size if isinstance(size, tuple) else (size,)
    try:
        shape = tuple(_integer("size", d) for d in dims)
    except InvalidArgument:
        raise InvalidArgument(
            f"size must be None, an integer >= 0 or a tuple of them; got size={shown(size)}."
        ) from None
    if any(d < 0 for d in shape):
        raise InvalidArgument(f"size must be None, an integer >= 0 or a tuple of them; got size={shown(size)}.")
    return shape


class GeneratorCompat:
    """``numpy.random.Generator``'s methods over a :class:`RandomSource`, floats on a ``2**-float_bits`` grid.

    >>> from dpverify.samplers import SeededRandomSource
    >>> rng = GeneratorCompat(SeededRandomSource(7))
    >>> bool(0 <= rng.integers(10) < 10), rng.integers(3, 5, size=2).shape
    (True, (2,))
    >>> GeneratorCompat(SeededRandomSource(7), float_bits=3).random() * 8 % 1
    0.0
    """

    # a plain class with a __dict__: the engine's program states compare it by its contents
    def __init__(self, source: RandomSource, *, float_bits: int = CPYTHON_FLOAT_BITS) -> None:
        if np is None:
            raise InvalidArgument("GeneratorCompat needs numpy; install it with pip install 'dpverify[numpy]'.")
        if not isinstance(source, RandomSource):
            raise InvalidArgument(f"source must be a RandomSource; got source={shown(source)}.")
        if isinstance(float_bits, bool) or not isinstance(float_bits, int) or not 1 <= float_bits <= CPYTHON_FLOAT_BITS:
            raise InvalidArgument(
                f"float_bits must be an int in [1, {CPYTHON_FLOAT_BITS}]; got float_bits={shown(float_bits)}."
            )
        self.source = source
        self.float_bits = float_bits

    def __repr__(self) -> str:
        return f"GeneratorCompat({self.source!r}, float_bits={self.float_bits})"

    def __getattr__(self, name: str) -> Any:
        if name in NOT_REPLICATED:
            return functools.partial(_not_replicated, name)
        raise AttributeError(
            f"GeneratorCompat has no attribute {name!r} (numpy's Generator methods it replicates: "
            "integers, random, choice, uniform, bytes, permutation, shuffle, laplace, geometric)."
        )

    # --- the draws -----------------------------------------------------------------------------

    def _next_double(self) -> float:
        k = self.float_bits
        return self.source.randbelow(1 << k) / (1 << k)

    def _array(self, shape: tuple[int, ...], draw: Callable[[], Any], dtype: Any) -> Any:
        return np.array([draw() for _ in range(math.prod(shape))], dtype=dtype).reshape(shape)

    def integers(
        self, low: object, high: object = None, size: object = None, dtype: Any = None, endpoint: bool = False
    ) -> Any:
        """Uniform integers in ``[low, high)`` (``[low, high]`` with ``endpoint``), one ``randbelow`` each."""
        bottom = _integer("low", low)
        top = bottom if high is None else _integer("high", high)
        if high is None:
            bottom = 0
        if not isinstance(endpoint, bool):
            raise InvalidArgument(f"endpoint must be True or False; got endpoint={shown(endpoint)}.")
        stop = top + 1 if endpoint else top
        if stop <= bottom:
            bound = "low <= high" if endpoint else "low < high"
            raise InvalidArgument(f"integers needs {bound}; got low={bottom}, high={top}, endpoint={endpoint}.")
        kind = np.dtype(np.int64 if dtype is None else dtype)
        if kind.kind not in "iu":
            raise InvalidArgument(f"dtype must be an integer dtype; got dtype={shown(dtype)}.")
        info = np.iinfo(kind)
        if bottom < info.min or stop - 1 > info.max:
            raise InvalidArgument(
                f"integers' range [{bottom}, {stop - 1}] must fit dtype {kind} "
                f"([{info.min}, {info.max}]); got low={bottom}, high={top}."
            )
        n, shape, scalar = stop - bottom, _shape(size), kind.type
        if shape is None:
            # a plain call with nothing else live but ints and a class: the engine can renew loops around it
            drawn = self.source.randbelow(n)
            return scalar(bottom + drawn)
        return self._array(shape, lambda: bottom + self.source.randbelow(n), kind)

    def random(self, size: object = None, dtype: Any = None, out: object = None) -> Any:
        """Uniform on ``{j / 2**float_bits}``: numpy's ``next_double`` at ``float_bits = 53``."""
        if dtype is not None and np.dtype(dtype) != np.float64:
            raise InvalidArgument(
                f"dtype must be float64 (numpy's float32 grid is not replicated); got dtype={shown(dtype)}."
            )
        if out is not None:
            raise InvalidArgument("out is not supported by GeneratorCompat.random; got out=an array. Use size.")
        shape = _shape(size)
        if shape is None:
            return self._next_double()
        return self._array(shape, self._next_double, np.float64)

    def uniform(self, low: object = 0.0, high: object = 1.0, size: object = None) -> Any:
        """numpy's ``random_uniform``: ``low + (high - low) * next_double``."""
        bottom, top = _real("low", low), _real("high", high)
        width = top - bottom
        if not math.isfinite(width):
            raise InvalidArgument(f"high - low must be finite; got low={shown(low)}, high={shown(high)}.")
        shape = _shape(size)
        if shape is None:
            u = self._next_double()
            return bottom + width * u
        return self._array(shape, lambda: bottom + width * self._next_double(), np.float64)

    def laplace(self, loc: object = 0.0, scale: object = 1.0, size: object = None) -> Any:
        """numpy's ``random_laplace``: ``U = next_double``; ``U >= 0.5``: ``loc - scale * log(2 - U - U)``;
        ``0 < U < 0.5``: ``loc + scale * log(U + U)``; ``U == 0``: draw again."""
        centre, width = _real("loc", loc), _real("scale", scale)
        if width < 0:
            raise InvalidArgument(f"scale must be a real >= 0; got scale={shown(scale)}.")
        shape = _shape(size)
        if shape is None:
            return self._laplace(centre, width)
        return self._array(shape, lambda: self._laplace(centre, width), np.float64)

    def _laplace(self, loc: float, scale: float) -> float:
        while True:
            u = self._next_double()
            if u >= 0.5:
                return loc - scale * math.log(2.0 - u - u)
            if u > 0.0:
                return loc + scale * math.log(u + u)

    def geometric(self, p: object, size: object = None) -> Any:
        """numpy's ``random_geometric`` for ``p >= 1/3``: ``U = next_double``, then a sequential search
        over the CDF summed in doubles (``X = 1; sum = prod = p; while U > sum: prod *= 1 - p; sum +=
        prod; X += 1``).  Below 1/3 numpy inverts an exponential drawn by its C ziggurat, which is
        not replicated: that raises, as the other ziggurat methods do."""
        q = _real("p", p)
        if not 0.0 < q <= 1.0:
            raise InvalidArgument(f"p must be a real in (0, 1]; got p={shown(p)}.")
        if q < _ONE_THIRD:
            _not_replicated(f"geometric with p < 1/3 (got p={q!r})")
        shape = _shape(size)
        if shape is None:
            return self._geometric(q)
        return self._array(shape, lambda: self._geometric(q), np.int64)

    def _geometric(self, p: float) -> int:
        u = self._next_double()
        x, total, term, fail = 1, p, p, 1.0 - p
        while u > total:
            term *= fail
            total += term
            x += 1
        return x

    def bytes(self, length: object) -> bytes:
        """``length`` uniform bytes: one ``randbelow(256**length)``."""
        n = _integer("length", length)
        if n < 0:
            raise InvalidArgument(f"length must be an integer >= 0; got length={shown(length)}.")
        return self.source.randbelow(1 << (8 * n)).to_bytes(n, "little") if n else b""

    def shuffle(self, x: Any, axis: object = 0) -> None:
        """Shuffle a list or an ndarray along its first axis in place (Fisher-Yates: a uniform permutation)."""
        if _integer("axis", axis) != 0:
            raise InvalidArgument(f"axis must be 0 (other axes are not supported); got axis={shown(axis)}.")
        if not (isinstance(x, list) or isinstance(x, np.ndarray) and x.ndim >= 1):
            raise InvalidArgument(f"x must be a list or an ndarray of at least one dimension; got x={shown(x)}.")
        for i in range(len(x) - 1, 0, -1):
            j = self.source.randbelow(i + 1)
            if isinstance(x, np.ndarray) and x.ndim > 1:
                x[[i, j]] = x[[j, i]]
            else:
                x[i], x[j] = x[j], x[i]

    def permutation(self, x: object, axis: object = 0) -> Any:
        """A shuffled ``arange(x)`` for an int, else a shuffled copy of the array."""
        if isinstance(x, (int, np.integer)):
            array = np.arange(_integer("x", x))
        else:
            array = np.array(x)
            if array.ndim == 0:
                raise InvalidArgument(f"x must be an integer or an array of at least one dimension; got x={shown(x)}.")
        self.shuffle(array, axis)
        return array

    def choice(
        self,
        a: object,
        size: object = None,
        replace: bool = True,
        p: object = None,
        axis: object = 0,
        shuffle: bool = True,
    ) -> Any:
        """numpy's ``Generator.choice`` along axis 0: uniform indices exact; with ``p``, numpy's inverse
        CDF on the ``random()`` grid, so index ``i`` has the grid's probability, not ``p[i]``."""
        if _integer("axis", axis) != 0:
            raise InvalidArgument(f"axis must be 0 (other axes are not supported); got axis={shown(axis)}.")
        for name, flag in (("replace", replace), ("shuffle", shuffle)):
            if not isinstance(flag, bool):
                raise InvalidArgument(f"{name} must be True or False; got {name}={shown(flag)}.")
        population = None if isinstance(a, (int, np.integer)) else np.asarray(a)
        if population is not None and population.ndim == 0:
            raise InvalidArgument(f"a must be an integer or an array of at least one dimension; got a={shown(a)}.")
        count = _integer("a", a) if population is None else len(population)
        shape = _shape(size)
        wanted = 1 if shape is None else math.prod(shape)
        if count <= 0 and wanted:
            raise InvalidArgument(f"a must be a positive integer or a non-empty array; got a={shown(a)}.")
        cdf = None if p is None else _cdf(p, count)
        if replace:
            if cdf is None:
                indices = [self.source.randbelow(count) for _ in range(wanted)]
            else:
                indices = [int(np.searchsorted(cdf, self._next_double(), side="right")) for _ in range(wanted)]
        else:
            if cdf is not None or not shuffle:
                raise InvalidArgument(
                    "choice with replace=False supports only p=None and shuffle=True (a uniform ordered "
                    f"sample); got p={shown(p)}, shuffle={shuffle}."
                )
            if wanted > count:
                raise InvalidArgument(
                    f"choice with replace=False cannot take more than the population; got size="
                    f"{shown(size)} from a population of {count}."
                )
            pool = list(range(count))
            for i in range(wanted):
                j = i + self.source.randbelow(count - i)
                pool[i], pool[j] = pool[j], pool[i]
            indices = pool[:wanted]
        if population is None:
            return indices[0] if shape is None else np.array(indices, dtype=np.int64).reshape(shape)
        if shape is None:
            return population[indices[0]]
        return population.take(np.array(indices, dtype=np.intp).reshape(shape), axis=0)


def _cdf(p: object, count: int) -> Any:
    """numpy's checks of ``p`` and its ``cdf = cumsum(p); cdf /= cdf[-1]``, computed by numpy."""
    try:
        weights = np.asarray(p, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArgument(f"p must be a sequence of probabilities; got p={shown(p)}.") from None
    if weights.ndim != 1 or len(weights) != count:
        raise InvalidArgument(
            f"p must be one-dimensional with one probability per element of a ({count}); got p={shown(p)}."
        )
    if np.isnan(weights).any() or (weights < 0).any():
        raise InvalidArgument(f"p must be probabilities >= 0; got p={shown(p)}.")
    if abs(float(weights.sum()) - 1.0) > math.sqrt(np.finfo(np.float64).eps):
        raise InvalidArgument(f"p must sum to 1 (within numpy's sqrt(eps)); got p={shown(p)}.")
    cdf = weights.cumsum()
    cdf /= cdf[-1]
    return cdf


def _not_replicated(name: str, *args: object, **kwargs: object) -> Any:
    raise SamplerContractError(
        f"GeneratorCompat does not replicate numpy's Generator.{name} (numpy draws it with C code, ziggurat tables or "
        "rejection loops that this adapter does not reproduce), so its law cannot be enumerated exactly; audit code "
        "that calls it as a black box (dpverify audit --black-box)."
    )


# --- installing it where a library keeps its generator ---------------------------------------------

_lock = threading.Lock()
_installed: dict[tuple[str, str], tuple[object, int]] = {}  # (module, attribute) -> (original, active blocks)
_local = threading.local()


def _current(key: tuple[str, str]) -> GeneratorCompat | None:
    stack = getattr(_local, "stacks", {}).get(key)
    return stack[-1] if stack else None


class _GeneratorStandIn:
    """A module's Generator while patched: the thread's adapter where it has one, else the original.

    It holds only its key (no slots, no Generator), so the engine's program states can compare
    frames that keep it, such as a library's wrapper object around its generator."""

    def __init__(self, key: tuple[str, str]) -> None:
        self._key = key

    def __getattr__(self, name: str) -> Any:
        compat = _current(self._key)
        return getattr(_installed[self._key][0] if compat is None else compat, name)


def _stand_in(key: tuple[str, str], original: np.random.Generator | Callable[..., Any]) -> object:
    if isinstance(original, np.random.Generator):
        return _GeneratorStandIn(key)

    def factory(*args: Any, **kwargs: Any) -> Any:
        compat = _current(key)
        return original(*args, **kwargs) if compat is None else compat

    factory.__name__ = factory.__qualname__ = key[1]
    factory.__doc__ = getattr(original, "__doc__", None)
    return factory


@contextmanager
def patched_generator(
    module: ModuleType | str, attribute: str, source: RandomSource, *, float_bits: int = CPYTHON_FLOAT_BITS
) -> Iterator[GeneratorCompat]:
    """Within the block, this thread's draws through ``module.attribute`` come from ``source``.

    ``module.attribute`` is a ``numpy.random.Generator`` (replaced by a stand-in that forwards to
    the adapter) or a function returning one (replaced by one returning the adapter, whatever its
    arguments).  Yields the :class:`GeneratorCompat`.  Thread-safe like
    :func:`~dpverify.verify.engine._patched_random.patched_random`: the stand-in is installed when
    the first block enters and the original put back when the last one leaves (under a lock, in
    ``finally``, on an exception too); threads without a block of their own reach the original.
    Code that bound the Generator to a name of its own before the block keeps the original.
    """
    compat = GeneratorCompat(source, float_bits=float_bits)  # validates both, and that numpy is there
    if isinstance(module, str):
        try:
            module = importlib.import_module(module)
        except ImportError as error:
            raise InvalidArgument(
                f"module must be an importable module; got module={shown(module)} ({error})."
            ) from None
    if not isinstance(module, ModuleType):
        raise InvalidArgument(f"module must be a module or its dotted name; got module={shown(module)}.")
    if not isinstance(attribute, str) or not hasattr(module, attribute):
        raise InvalidArgument(
            f"attribute must name an attribute of {module.__name__}; got attribute={shown(attribute)}."
        )
    key = (module.__name__, attribute)
    with _lock:
        original, active = _installed.get(key, (getattr(module, attribute), 0))
        if active == 0:
            if not (isinstance(original, np.random.Generator) or callable(original)):
                raise InvalidArgument(
                    f"{module.__name__}.{attribute} must be a numpy Generator or a function returning "
                    f"one; got {shown(original)}."
                )
            setattr(module, attribute, _stand_in(key, original))
        _installed[key] = (original, active + 1)
    stack = getattr(_local, "stacks", None)
    if stack is None:
        stack = _local.stacks = {}
    mine = stack.setdefault(key, [])
    try:
        mine.append(compat)
        yield compat
    finally:
        if mine and mine[-1] is compat:
            mine.pop()
        with _lock:
            original, active = _installed[key]
            if active == 1:
                setattr(module, attribute, original)
                del _installed[key]
            else:
                _installed[key] = (original, active - 1)
