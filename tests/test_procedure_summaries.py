"""Procedure summaries are sound: generated programs of coin loops and subroutine calls, run
unmodified, have their exact law inside the engine's intervals, and a function that touches state
outside its frames is walked, never summarised."""

from __future__ import annotations

import importlib.util
import itertools
import types
from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from dpverify.samplers import discrete_gaussian, discrete_laplace
from dpverify.specs import Bounded, DiscreteGaussianSpec, DiscreteLaplaceSpec
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._intervals import judge_intervals
from dpverify.verify.engine._random_compat import RandomCompat

ROOT = Path(__file__).resolve().parents[1]
MIN_MASS = Fraction(1, 10**9)

# --- a small language of random programs, with an exact interpreter of its own ------------------


@dataclass(frozen=True)
class Node:
    """One function ``f<i>(a, rng)`` of a generated program; ``uses`` are lower-numbered functions."""

    kind: str  # coin, sum, reject, count, choose
    uses: tuple[int, ...] = ()
    n: int = 0
    d: int = 2


def _body(node: Node) -> list[str]:
    g = [f"f{j}" for j in node.uses]
    if node.kind == "coin":
        return [f"return 1 if rng.randrange({node.d}) < (a + {node.n}) % {node.d + 1} else 0"]
    if node.kind == "sum":
        return [f"return {g[0]}(a, rng) + {g[1]}(a + 1, rng)"]
    if node.kind == "reject":
        return [
            "while True:",
            f"    x = {g[0]}(a, rng)",
            f"    y = {g[1]}(a, rng)",
            f"    if (x + y) % {node.d} == 0:",
            "        return x",
        ]
    if node.kind == "count":
        return ["k = 0", f"while k < {node.n} and {g[0]}(a, rng) == 1:", "    k += 1", "return k"]
    assert node.kind == "choose"
    return [f"x = {g[0]}(a, rng)", f"return {g[1]}((a + x) % 3, rng)"]


#: Lines that keep state outside the frame without changing the law, by kind of state.
SIDE_EFFECTS = {
    "global counter": ["global CALLS", "CALLS += 1"],
    "attribute": ["Box.calls += 1"],
    "closure cell write": ["_bump()"],
    "closure cell read": ["_peek()"],
}

PRELUDE = """
CALLS = 0


class Box:
    calls = 0


def _counter():
    count = 0

    def bump():
        nonlocal count
        count += 1

    def peek():
        return count

    return bump, peek


_bump, _peek = _counter()
"""


def source(program: tuple[Node, ...], effect: tuple[int, str] | None = None) -> str:
    lines = [PRELUDE]
    for i, node in enumerate(program):
        body = _body(node)
        if effect is not None and effect[0] == i:
            body = SIDE_EFFECTS[effect[1]] + body
        lines += [f"def f{i}(a, rng):", *("    " + line for line in body), ""]
    return "\n".join(lines)


_COUNT = itertools.count()


def load(text: str) -> types.ModuleType:
    module = types.ModuleType(f"generated_program_{next(_COUNT)}")
    module.__file__ = f"<{module.__name__}>"
    exec(compile(text, module.__file__, "exec"), module.__dict__)  # noqa: S102
    return module


class NeverReturns(Exception):
    pass


def exact_law(program: tuple[Node, ...], i: int, a: int, memo: dict | None = None) -> dict[Hashable, Fraction]:
    """The law of ``f<i>(a)``, from the program's structure alone (never from its Python code)."""
    memo = {} if memo is None else memo
    if (i, a) in memo:
        return memo[(i, a)]
    node = program[i]

    def law(j: int, b: int) -> dict[Hashable, Fraction]:
        return exact_law(program, j, b, memo)

    out: dict[Hashable, Fraction] = {}
    if node.kind == "coin":
        p = Fraction((a + node.n) % (node.d + 1), node.d)
        out = {1: p, 0: 1 - p}
    elif node.kind == "sum":
        for (x, px), (y, py) in itertools.product(law(node.uses[0], a).items(), law(node.uses[1], a + 1).items()):
            out[x + y] = out.get(x + y, Fraction(0)) + px * py
    elif node.kind == "reject":
        accepted: dict[Hashable, Fraction] = {}
        for (x, px), (y, py) in itertools.product(law(node.uses[0], a).items(), law(node.uses[1], a).items()):
            if (x + y) % node.d == 0:
                accepted[x] = accepted.get(x, Fraction(0)) + px * py
        total = sum(accepted.values(), Fraction(0))
        if total == 0:
            raise NeverReturns
        out = {x: m / total for x, m in accepted.items()}
    elif node.kind == "count":
        q = law(node.uses[0], a).get(1, Fraction(0))
        out = {k: q**k * (1 - q) for k in range(node.n)}
        out[node.n] = q**node.n
    else:
        for x, px in law(node.uses[0], a).items():
            for y, py in law(node.uses[1], (a + x) % 3).items():
                out[y] = out.get(y, Fraction(0)) + px * py
    out = {o: m for o, m in out.items() if m}
    memo[(i, a)] = out
    return out


@st.composite
def programs(draw: st.DrawFn) -> tuple[Node, ...]:
    nodes = [Node("coin", n=draw(st.integers(0, 4)), d=draw(st.integers(2, 5)))]
    steps = draw(st.integers(1, 4))
    for step in range(steps):
        # The last function calls earlier ones, so there are subroutines to summarise; counting loops
        # come often, since theirs are the summaries with a remainder.
        kinds = (
            ["sum", "reject", "choose"] if step == steps - 1 else ["coin", "sum", "reject", "count", "count", "choose"]
        )
        kind = draw(st.sampled_from(kinds))
        below = st.integers(0, len(nodes) - 1)
        if kind == "coin":
            nodes.append(Node("coin", n=draw(st.integers(0, 4)), d=draw(st.integers(2, 5))))
        elif kind == "count":
            nodes.append(Node("count", (draw(below),), n=draw(st.integers(1, 60))))
        else:
            nodes.append(Node(kind, (draw(below), draw(below)), d=draw(st.integers(2, 3))))
    return tuple(nodes)


def enumerate_program(module: types.ModuleType, top: int, a: int):  # noqa: ANN201
    function = getattr(module, f"f{top}")
    return enumerate_outputs(
        lambda rng: function(a, RandomCompat(rng)), min_mass=MIN_MASS, renewal=True, procedures=True, max_paths=20_000
    )


def assert_inside(found, law: dict[Hashable, Fraction]) -> None:  # noqa: ANN001
    """``E(o) <= P(o) <= E(o) + U`` at every output, exactly."""
    for output in set(law) | set(found.masses):
        explored, exact = found.masses.get(output, Fraction(0)), law.get(output, Fraction(0))
        assert explored <= exact <= explored + found.unexplored, (output, explored, exact, found.unexplored)


# --- the properties -----------------------------------------------------------------------------


@given(programs(), st.integers(0, 2))
def test_summarised_intervals_contain_the_exact_law_of_generated_programs(program: tuple[Node, ...], a: int) -> None:
    try:
        law = exact_law(program, len(program) - 1, a)
    except NeverReturns:
        assume(False)
    found = enumerate_program(load(source(program)), len(program) - 1, a)
    assert_inside(found, law)
    assert not any(note.startswith("walked") for note in found.procedures.values()), found.procedures


@given(programs(), st.integers(0, 2), st.sampled_from(sorted(SIDE_EFFECTS)), st.data())
def test_a_function_with_outside_state_is_walked_and_the_law_stays_exact(
    program: tuple[Node, ...], a: int, effect: str, data: st.DataObject
) -> None:
    assume(len(program) >= 2)
    try:
        law = exact_law(program, len(program) - 1, a)
    except NeverReturns:
        assume(False)
    touched = data.draw(st.integers(0, len(program) - 2), label="function with outside state")
    found = enumerate_program(load(source(program, (touched, effect))), len(program) - 1, a)
    assert_inside(found, law)
    assert "summarised" not in found.procedures.get(f"f{touched}", ""), found.procedures


def test_a_pure_subroutine_is_summarised_once_per_argument_set() -> None:
    program = (Node("coin", n=1, d=3), Node("count", (0,), n=30), Node("sum", (1, 1)))
    found = enumerate_program(load(source(program)), 2, 0)
    assert found.procedures["f1"] == "summarised at 2 argument sets"  # f1(0) and f1(1)
    assert_inside(found, exact_law(program, 2, 0))
    assert found.unexplored < Fraction(1, 10**7)  # the tail the outer walk cuts below min_mass = 10^-9


# --- state that changes the law: the walk gives the law of the code as it runs -------------------

STATEFUL = """
N = 0


def coin(rng):
    global N
    N += 1
    return (1 if rng.randrange(3) < 1 else 0) + N % 2


class Counter:
    n = 0


def coin_attribute(rng):
    Counter.n += 1
    return (1 if rng.randrange(3) < 1 else 0) + Counter.n % 2


def _cell():
    n = 0

    def coin_cell(rng):
        nonlocal n
        n += 1
        return (1 if rng.randrange(3) < 1 else 0) + n % 2

    def reset():
        nonlocal n
        n = 0

    return coin_cell, reset


coin_cell, reset_cell = _cell()


def twice(rng):
    global N
    N = 0
    return coin(rng), coin(rng)


def twice_attribute(rng):
    Counter.n = 0
    return coin_attribute(rng), coin_attribute(rng)


def twice_cell(rng):
    reset_cell()
    return coin_cell(rng), coin_cell(rng)


OFFSET = 0


def shifted(rng):
    return (1 if rng.randrange(3) < 1 else 0) + OFFSET


def shifted_twice(rng):
    global OFFSET
    OFFSET = 0
    first = shifted(rng)
    OFFSET = 10
    return first, shifted(rng)
"""


@pytest.mark.parametrize(
    "sampler, impure",
    [("twice", "coin"), ("twice_attribute", "coin_attribute"), ("twice_cell", "_cell.<locals>.coin_cell")],
)
def test_a_call_whose_law_depends_on_outside_state_is_walked(sampler: str, impure: str) -> None:
    module = load(STATEFUL)
    found = enumerate_outputs(lambda rng: getattr(module, sampler)(RandomCompat(rng)), renewal=True, procedures=True)
    third = Fraction(1, 3)
    # The first call sees an odd count, the second an even one: a summary shared by both would be wrong.
    assert found.exhausted and found.masses == {
        (2, 1): third * third,
        (2, 0): third * 2 * third,
        (1, 1): 2 * third * third,
        (1, 0): 4 * third * third,
    }
    assert "summarised" not in found.procedures.get(impure, ""), found.procedures


def test_a_global_read_is_a_guard_so_a_rebound_global_gets_its_own_summary() -> None:
    module = load(STATEFUL)
    found = enumerate_outputs(lambda rng: module.shifted_twice(RandomCompat(rng)), renewal=True, procedures=True)
    third = Fraction(1, 3)
    assert found.exhausted and found.masses == {
        (1, 11): third * third,
        (1, 10): 2 * third * third,
        (0, 11): 2 * third * third,
        (0, 10): 4 * third * third,
    }
    assert found.procedures["shifted"] == "summarised at 2 argument sets"


def test_calls_that_cannot_be_summarised_are_walked_with_their_reason() -> None:
    module = load("""
def uniform(m, rng):
    return rng.randrange(m) if rng.randrange(2) < 1 else rng.randrange(m)


def total(values, rng):
    return sum(values) + (1 if rng.randrange(2) < 1 else 0)


def sampler(rng):
    return uniform(5, rng) < 2, total([1, 2], rng), total([1, 2], rng)
""")
    found = enumerate_outputs(lambda rng: module.sampler(RandomCompat(rng)), renewal=True, procedures=True)
    assert found.exhausted and sum(found.masses.values()) == 1
    assert found.masses[(True, 3, 4)] == Fraction(2, 5) * Fraction(1, 4)
    assert "returns a uniform draw not yet answered" in found.procedures["uniform"]
    assert "holds a list" in found.procedures["total"]


def test_hooks_are_removed_after_the_enumeration_even_when_the_sampler_raises() -> None:
    module = load("""
def coin(rng):
    return rng.randrange(2)


def sampler(rng):
    if coin(rng) + coin(rng) == 2:
        raise KeyboardInterrupt
    return 0
""")
    code, defaults = module.coin.__code__, module.coin.__defaults__
    with pytest.raises(KeyboardInterrupt):
        enumerate_outputs(lambda rng: module.sampler(RandomCompat(rng)), renewal=True, procedures=True)
    assert module.coin.__code__ is code and module.coin.__defaults__ is defaults and module.coin.__kwdefaults__ is None


def test_a_recursive_function_is_walked_inside_its_own_summary() -> None:
    module = load("""
def flips(n, rng):
    if n == 0:
        return 0
    return rng.randrange(2) + flips(n - 1, rng)


def sampler(rng):
    return flips(3, rng) + flips(3, rng)
""")
    found = enumerate_outputs(lambda rng: module.sampler(RandomCompat(rng)), renewal=True, procedures=True)
    assert found.exhausted and found.masses == {k: Fraction(_binomial(6, k), 64) for k in range(7)}


def _binomial(n: int, k: int) -> int:
    from math import comb

    return comb(n, k)


# --- what summaries give published and plain code -------------------------------------------------


def _cks20() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(
        "cks20_specs_for_summaries", ROOT / "examples/published/cks20_specs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.REFERENCE


@pytest.mark.parametrize("scale", [Fraction(1), Fraction(3, 2)])
def test_the_published_discrete_laplace_is_proved_within_a_trillionth(scale: Fraction) -> None:
    reference = _cks20()
    found = enumerate_outputs(
        lambda rng: reference.sample_dlaplace(scale, rng=RandomCompat(rng)),
        min_mass=Fraction(1, 10**14),
        renewal=True,
        procedures=True,
    )
    assert found.unexplored <= Fraction(1, 10**12)
    spec = DiscreteLaplaceSpec.create(scale)
    assert judge_intervals(found, spec.ideal_probability, spec.outputs_for_check()).verdict.value == "proved"
    assert found.procedures["sample_bernoulli_exp1"].startswith("summarised")


@pytest.mark.parametrize(
    "sampler, spec, parameter",
    [
        (discrete_laplace.sample, DiscreteLaplaceSpec, Fraction(3)),
        (discrete_gaussian.sample, DiscreteGaussianSpec, Fraction(2)),
    ],
)
def test_the_catalogue_samplers_with_their_marks_ignored_are_as_tight_as_with_them(sampler, spec, parameter) -> None:  # noqa: ANN001
    marked = enumerate_outputs(lambda rng: sampler(parameter, rng), min_mass=MIN_MASS, summarise=True)
    plain = enumerate_outputs(lambda rng: sampler(parameter, rng), min_mass=MIN_MASS, renewal=True, procedures=True)
    assert plain.unexplored <= 2 * marked.unexplored
    ideal = spec.create(parameter)
    assert judge_intervals(plain, ideal.ideal_probability, ideal.outputs_for_check()).verdict.value == "proved"


def test_the_switches_are_validated() -> None:
    from dpverify.samplers import InvalidArgument
    from dpverify.specs import SpecError

    with pytest.raises(InvalidArgument, match="procedures must be True or False; got procedures="):
        enumerate_outputs(lambda rng: rng.randbelow(2), procedures="yes")  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="procedures must be True or False"):
        Bounded(renewal=True, procedures=1)  # type: ignore[arg-type]


def test_an_active_profiler_is_left_in_place() -> None:
    import sys

    calls: list[str] = []

    def profiler(frame, event, arg):  # noqa: ANN001, ANN202
        calls.append(event)

    module = load("""
def coin(rng):
    return 1 if rng.randrange(3) < 1 else 0


def sampler(rng):
    return coin(rng) + coin(rng)
""")
    sys.setprofile(profiler)
    try:
        found = enumerate_outputs(lambda rng: module.sampler(RandomCompat(rng)), renewal=True, procedures=True)
    finally:
        installed = sys.getprofile()
        sys.setprofile(None)
    assert installed is profiler and calls
    assert found.exhausted and found.masses[2] == Fraction(1, 9)
