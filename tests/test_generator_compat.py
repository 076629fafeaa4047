"""The numpy Generator adapter: exact laws under the enumerating source, numpy's own algorithms
draw for draw, one-line errors, refusals, and a patch that is always undone."""

from __future__ import annotations

import bisect
import math
import threading
import types
from collections import Counter
from fractions import Fraction

import pytest

np = pytest.importorskip("numpy")

from dpverify.samplers import InvalidArgument, RandomSource, SamplerContractError, SeededRandomSource  # noqa: E402
from dpverify.verify.engine._enumerate import enumerate_outputs  # noqa: E402
from dpverify.verify.engine._generator_compat import GeneratorCompat, patched_generator  # noqa: E402


class _Doubles(RandomSource):
    """Answers each ``randbelow(2**53)`` with the next of the given doubles' 53-bit numerators."""

    def __init__(self, doubles: list[float]) -> None:
        self.values = [int(u * 2**53) for u in doubles]

    def randbelow(self, n: int) -> int:
        assert n == 2**53, n
        return self.values.pop(0)


def _exact(function, **budget) -> dict[object, Fraction]:
    found = enumerate_outputs(function, **budget)
    assert found.unexplored == 0
    return dict(found.masses)


def test_two_integers_below_three_are_each_pair_one_ninth() -> None:
    def two(source: RandomSource) -> tuple[int, int]:
        g = GeneratorCompat(source)
        first, second = g.integers(0, 3), g.integers(3)
        assert type(first) is np.int64
        return int(first), int(second)

    assert _exact(two) == {(a, b): Fraction(1, 9) for a in range(3) for b in range(3)}


def test_integers_endpoint_dtype_and_size_follow_numpy() -> None:
    g = GeneratorCompat(SeededRandomSource(1))
    assert type(g.integers(5, dtype=np.int32)) is np.int32
    drawn = g.integers(-2, 2, size=(3, 4), endpoint=True)
    assert drawn.shape == (3, 4) and drawn.dtype == np.int64 and drawn.min() >= -2 and drawn.max() <= 2
    assert _exact(lambda s: int(GeneratorCompat(s).integers(1, 3, endpoint=True))) == {
        v: Fraction(1, 3) for v in (1, 2, 3)
    }


def test_random_at_three_bits_is_the_eight_grid_points() -> None:
    law = _exact(lambda s: GeneratorCompat(s, float_bits=3).random())
    assert law == {Fraction(j, 8): Fraction(1, 8) for j in range(8)}
    assert all(type(u) is float for u in law)


def test_choice_with_p_has_the_grids_law_not_p() -> None:
    p = [0.2, 0.3, 0.5]
    law = _exact(lambda s: GeneratorCompat(s, float_bits=3).choice(3, p=p))
    # cdf = (0.2, 0.5, 1.0); u = j/8 goes to the first index whose cdf exceeds it
    cdf = [0.2, 0.2 + 0.3, 1.0]
    expected = Counter(bisect.bisect_right(cdf, j / 8) for j in range(8))
    assert (
        law
        == {i: Fraction(c, 8) for i, c in expected.items()}
        == {0: Fraction(1, 4), 1: Fraction(1, 4), 2: Fraction(1, 2)}
    )


def test_uniform_choice_and_without_replacement_are_exact() -> None:
    assert _exact(lambda s: str(GeneratorCompat(s).choice(["a", "b", "c"]))) == {x: Fraction(1, 3) for x in "abc"}
    ordered = _exact(lambda s: tuple(int(v) for v in GeneratorCompat(s).choice(4, size=2, replace=False)))
    assert ordered == {(a, b): Fraction(1, 12) for a in range(4) for b in range(4) if a != b}
    perms = _exact(lambda s: tuple(int(v) for v in GeneratorCompat(s).permutation(3)))
    assert len(perms) == 6 and set(perms.values()) == {Fraction(1, 6)}


def _laplace_formula(u: float, loc: float, scale: float) -> float:
    return loc - scale * math.log(2.0 - u - u) if u >= 0.5 else loc + scale * math.log(u + u)


def test_laplace_at_four_bits_is_the_formula_over_the_grid() -> None:
    loc, scale, k, depth = 1.0, 2.0, 4, 5
    found = enumerate_outputs(lambda s: GeneratorCompat(s, float_bits=k).laplace(loc, scale), max_depth=depth)
    # U = 0 is drawn again: each of the other 15 grid points has 1/16 per attempt, attempts 1..depth explored
    per_point = sum(Fraction(1, 2**k) ** d for d in range(1, depth + 1))
    expected: dict[float, Fraction] = {}
    for j in range(1, 2**k):
        y = _laplace_formula(j / 2**k, loc, scale)
        expected[y] = expected.get(y, Fraction(0)) + per_point
    assert dict(found.masses) == expected and len(expected) == 2**k - 1
    assert found.unexplored == Fraction(1, 2**k) ** depth


def test_geometric_at_few_bits_is_exact() -> None:
    law = _exact(lambda s: GeneratorCompat(s, float_bits=2).geometric(0.5))
    # U in {0, 1/4} <= 0.5 -> 1; U = 1/2 -> 1 (not > sum); U = 3/4 -> 2
    assert law == {1: Fraction(3, 4), 2: Fraction(1, 4)}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_float_methods_match_numpys_draw_for_draw(seed: int) -> None:
    uniforms = np.random.Generator(np.random.PCG64(seed)).random(4000)
    real = np.random.Generator(np.random.PCG64(seed))
    ours = GeneratorCompat(_Doubles(list(uniforms)))
    for i in range(500):
        assert ours.laplace(0.5, 3.0) == real.laplace(0.5, 3.0), i
        assert ours.geometric(0.6) == real.geometric(0.6), i
        assert ours.uniform(-1.5, 7.25) == real.uniform(-1.5, 7.25), i
        assert ours.choice(4, p=[0.1, 0.2, 0.3, 0.4]) == real.choice(4, p=[0.1, 0.2, 0.3, 0.4]), i
        assert ours.random() == real.random(), i
    assert type(ours.laplace()) is type(real.laplace()) is float
    assert type(ours.geometric(0.5)) is type(real.geometric(0.5)) is int


def test_geometric_below_one_third_is_refused_numpy_inverts_a_ziggurat_draw() -> None:
    with pytest.raises(SamplerContractError, match=r"geometric with p < 1/3 .*black box"):
        GeneratorCompat(SeededRandomSource(0)).geometric(0.05)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda g: g.integers(3, 1), "low"),
        (lambda g: g.integers(0, 2.5), "high"),
        (lambda g: g.integers(0, 300, dtype=np.uint8), "dtype"),
        (lambda g: g.random(size=-1), "size"),
        (lambda g: g.laplace(0.0, -1.0), "scale"),
        (lambda g: g.geometric(1.5), "p"),
        (lambda g: g.choice(3, p=[0.5, 0.6, 0.1]), "p"),
        (lambda g: g.choice(3, size=4, replace=False), "replace=False"),
        (lambda g: g.bytes(-1), "length"),
        (lambda g: GeneratorCompat(g.source, float_bits=54), "float_bits"),
        (lambda g: GeneratorCompat(object()), "source"),
    ],
)
def test_bad_arguments_are_one_line_naming_the_parameter(call, name: str) -> None:
    with pytest.raises(InvalidArgument) as error:
        call(GeneratorCompat(SeededRandomSource(0)))
    assert "\n" not in str(error.value) and name in str(error.value)


@pytest.mark.parametrize("method", ["normal", "exponential", "standard_normal", "poisson", "gamma"])
def test_methods_numpy_draws_by_ziggurat_or_rejection_are_refused_by_name(method: str) -> None:
    g = GeneratorCompat(SeededRandomSource(0))
    with pytest.raises(SamplerContractError, match=rf"Generator\.{method} .*black box"):
        getattr(g, method)(1.0)
    with pytest.raises(AttributeError, match="replicates"):
        g.no_such_method  # noqa: B018


def _library() -> types.ModuleType:
    module = types.ModuleType("fake_numpy_library")
    module.rng = np.random.default_rng(5)  # type: ignore[attr-defined]
    module.prng = lambda: module.rng  # type: ignore[attr-defined]
    module.noise = lambda: int(module.rng.integers(0, 2)) + int(module.prng().integers(0, 2))  # type: ignore[attr-defined]
    return module


def test_a_patched_global_generator_is_enumerated_and_restored() -> None:
    library = _library()
    original = library.rng

    def run(source: RandomSource) -> int:
        with patched_generator(library, "rng", source):
            return library.noise()

    assert _exact(run) == {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}
    assert library.rng is original


def test_a_patched_factory_returns_the_adapter_and_is_restored_after_an_exception() -> None:
    library = _library()
    factory = library.prng
    with (
        pytest.raises(RuntimeError, match="inside"),
        patched_generator(library, "prng", SeededRandomSource(1)) as compat,
    ):
        assert library.prng() is compat and library.prng(123) is compat
        raise RuntimeError("inside")
    assert library.prng is factory and library.prng() is library.rng


def test_other_threads_reach_the_original_generator_while_patched() -> None:
    library = _library()
    seen: list[object] = []
    with patched_generator(library, "prng", SeededRandomSource(2)) as compat:
        worker = threading.Thread(target=lambda: seen.append(library.prng()))
        worker.start()
        worker.join()
        assert library.prng() is compat
    assert seen == [library.rng]


def test_patching_refuses_what_is_not_a_generator_in_one_line() -> None:
    library = _library()
    library.number = 3  # type: ignore[attr-defined]
    for attribute in ("missing", "number"):
        with pytest.raises(InvalidArgument) as error, patched_generator(library, attribute, SeededRandomSource(0)):
            pass
        assert "\n" not in str(error.value) and attribute in str(error.value)
    assert library.number == 3
