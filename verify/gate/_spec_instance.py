"""A spec bound to one validated parameter set, its code run on a source as the engine and as a
user call it, and its declared distribution: what every check of a case takes.  Its own module
below the checks and the engine's views of the spec, which both build on it."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import Any

from dpverify.samplers import RandomSource, SystemRandomSource
from dpverify.samplers._rational import shown
from dpverify.specs import ExactPmf
from dpverify.specs._api import Params, Randomness, Spec, SpecError
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT
from dpverify.verify.engine._patched_random import patched_random
from dpverify.verify.engine._program_state import suspended_driver
from dpverify.verify.engine._random_compat import RandomCompat
from dpverify.verify.engine._results import fraction_text

__all__ = ["USERS_DEFAULT", "replay_command"]

suspended_driver(__file__)  # its frames hold one call for a whole execution


def replay_command(spec_name: str, origin: str, *, seed: int, samples: int, time_limit: float | None = None) -> str:
    """The command line that reruns one spec's cases with the same statistical draws (``time_limit``
    is added when it is not the default)."""
    module = f" --spec-module {origin.removeprefix('module ')}" if origin.startswith("module ") else ""
    bound = "" if time_limit is None or time_limit == DEFAULT_TIME_LIMIT else f" --time-limit {time_limit}"
    return f"dpverify check{module} --spec {spec_name} --seed {seed} --samples {samples}{bound}"


def _declared(where: str, what: str, function: Callable[..., Any], *args: Any) -> Any:
    """Call a spec's own callable; anything it raises is the spec's error, not a verdict."""
    try:
        return function(*args)
    except SpecError:
        raise
    except Exception as error:  # noqa: BLE001 - whatever a user's callable raises is reported as theirs
        raise SpecError(f"{where}: {what} raised {type(error).__name__}: {_short(str(error))}") from None


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class _BoundSpec:
    """A spec bound to one validated parameter set: what the engine's checks take."""

    def __init__(self, spec: Spec, p: Params, where: str, *, seed: int, samples: int, origin: str = "") -> None:
        self.spec, self.p, self.where = spec, p, where
        self.arguments = spec.sampler_arguments(p)
        self.input_name = None if spec.input is None else spec.input.name
        self.randomness = Randomness(spec.randomness)
        self.enumeration = spec.enumeration_for()
        self.inputs: tuple[Hashable, ...] | None = None
        if spec.input is not None:
            self.inputs = tuple(_declared(where, "input.values(p)", spec.input.values, p))
            if not self.inputs:
                raise SpecError(f"{where}: input.values(p) is empty; the claim needs at least one input.")
        self.replay = replay_command(spec.name, origin, seed=seed, samples=samples)
        self._table: dict[Hashable, ExactPmf] | None = None

    # --- running the code ----------------------------------------------------------------

    def run(self, q: Hashable | None, rng: RandomSource, function: Callable[..., Any] | None = None) -> Any:
        # The hot path of every enumeration and sample: everything constant is set up once.
        function = function or self.spec.sampler
        assert function is not None
        kwargs = self.arguments if self.input_name is None else {**self.arguments, self.input_name: q}
        if self.randomness is Randomness.SOURCE:
            if rng is USERS_DEFAULT:  # the user's call: no rng where the sampler has a default for it
                return function(**kwargs) if _defaults_rng(function) else function(**kwargs, rng=SystemRandomSource())
            return function(**kwargs, rng=rng)
        if self.randomness is Randomness.RANDOM:
            source = SystemRandomSource() if rng is USERS_DEFAULT else rng
            return function(**kwargs, rng=RandomCompat(source, float_bits=self.spec.float_bits))
        if self.randomness is Randomness.MODULE and rng is not USERS_DEFAULT:
            with patched_random(rng, float_bits=self.spec.float_bits):
                return function(**kwargs)
        return function(**kwargs)  # a black box, or the user's call: CPython's own generators

    @property
    def enumerable(self) -> bool:
        return self.spec.sampler is not None and self.randomness is not Randomness.NONE

    # --- the declared distribution -----------------------------------------------------------

    def table(self) -> dict[Hashable, ExactPmf]:
        """``{input: ExactPmf}`` from the spec's closed form (a noise sampler: ``{0: pmf}``)."""
        if self._table is None:
            pmf = self.spec.pmf
            assert pmf is not None
            if self.inputs is None:
                self._table = {0: self._exact(_declared(self.where, "pmf(p)", pmf, self.p), "pmf(p)")}
            else:
                self._table = {
                    q: self._exact(_declared(self.where, f"pmf(p, {q!r})", pmf, self.p, q), f"pmf(p, {q!r})")
                    for q in self.inputs
                }
        return self._table

    def _exact(self, value: Any, what: str) -> ExactPmf:
        if isinstance(value, ExactPmf):
            pmf = value
        else:
            try:
                masses = {o: _probability(m) for o, m in dict(value).items()}
            except (TypeError, ValueError) as error:
                raise SpecError(
                    f"{self.where}: {what} must return {{output: Fraction}} or an ExactPmf "
                    f"with exact probabilities; {error}"
                ) from None
            pmf = ExactPmf.from_fractions(masses)
        if any(w < 0 for w in pmf.weights):
            raise SpecError(f"{self.where}: {what} has a negative probability.")
        if pmf.total() != 1:
            raise SpecError(f"{self.where}: {what} sums to {fraction_text(pmf.total())}, not 1.")
        return pmf

    def _enclosure(self, q: Hashable | None) -> tuple[Callable[[Hashable, int], tuple[Any, Any]], tuple[Hashable, ...]]:
        if self.spec.pmf is not None:
            pmf = self.table()[0 if q is None else q]
            return (lambda output, dps: (pmf.probability(output),) * 2), pmf.outputs
        ideal, outputs = self.spec.ideal, self.spec.outputs
        assert ideal is not None and outputs is not None
        listed = tuple(_declared(self.where, "outputs(p)", outputs, self.p))
        return (
            lambda output, dps: _declared(self.where, f"ideal(p, {output!r}, dps)", ideal, self.p, output, dps)
        ), listed

    def _claim_table(
        self, table: dict[Hashable, ExactPmf]
    ) -> tuple[dict[Hashable, ExactPmf], tuple[tuple[Hashable, Hashable], ...]]:
        if self.inputs is not None and self.spec.input is not None:  # __init__ sets inputs exactly when input is
            pairs = _declared(self.where, "the neighbour relation", self.spec.input.pairs, self.p, self.inputs)
            unknown = [q for pair in pairs for q in pair if q not in table]
            if unknown:
                raise SpecError(
                    f"{self.where}: the neighbour relation names {shown(unknown[0])}, which is not an input."
                )
            return table, pairs
        # q + noise over integers with |q - q'| <= sensitivity: by shift invariance the rows
        # q = 0..sensitivity and every pair of them cover every neighbouring pair.
        noise, shift = table[0], self.spec.sensitivity_for(self.p)
        shifts = range(shift + 1)
        try:
            rows: dict[Hashable, ExactPmf] = {
                q: ExactPmf(tuple(o + q for o in noise.outputs), noise.weights, noise.denominator)  # type: ignore[operator]  # a non-number raises TypeError, caught below
                for q in shifts
            }
        except TypeError:
            raise SpecError(
                f"{self.where}: a noise sampler's outputs must be numbers, to add them to the input."
            ) from None
        return rows, tuple((a, b) for a in shifts for b in shifts if a < b)


@functools.lru_cache(maxsize=64)
def _defaults_rng(function: Callable[..., Any]) -> bool:
    """Whether ``function`` has a default for ``rng``, so that a user may leave it out."""
    try:
        parameter = inspect.signature(function).parameters.get("rng")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.default is not inspect.Parameter.empty


def _names(function: Callable[..., Any]) -> frozenset[str] | None:
    from dpverify.specs._api import _keyword_names

    return _keyword_names(function)


def _probability(value: Any) -> Fraction:
    if isinstance(value, (float, bool)):
        raise TypeError(f'got the {type(value).__name__} {shown(value)}; give it as a Fraction, int or "num/den"')
    return Fraction(value)


class _UsersDefault(RandomSource, trusted=True):
    """Stands for calling the sampler with no ``rng``; it is never drawn from."""

    def randbelow(self, n: int) -> int:
        raise AssertionError("the user's default source stands for an rng the sampler is not given")


#: Passed where a source is expected, it makes the run call the sampler without ``rng``.
USERS_DEFAULT = _UsersDefault()
