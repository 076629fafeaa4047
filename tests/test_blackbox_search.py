"""The black-box privacy test's search: several neighbouring pairs, atoms, vector outputs.

Every statistical assertion runs on draws from seeded generators (``random.Random(seed)`` here,
``random`` seeded per input by the drawing processes), so none of them can flake; each states
the level it holds at.  The validity test counts false positives over many seeds against the
exact binomial quantile that a correct test stays under with probability ``>= 1 - 10^-6``, and
shows that the same count does exceed it when the held-out half is not independent of the
selection half.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Hashable
from fractions import Fraction
from pathlib import Path

import pytest

from dpverify.samplers import InvalidArgument
from dpverify.specs import Rational
from dpverify.specs._api import Case, Input, Spec
from dpverify.specs._claims import PureDp
from dpverify.verify.engine._results import Verdict
from dpverify.verify.published._blackbox import _shifted, audit_black_box, audit_case
from dpverify.verify.published._blackbox_draw import Garbage, normalise
from dpverify.verify.published._blackbox_privacy import check_black_box_privacy_search
from dpverify.verify.published._blackbox_search import Event, Located, View, search, views_for

# --- samplers that meet their claims exactly --------------------------------------------------------


def _geometric(rng: random.Random) -> int:
    """``P(G = g) = 2^-(g+1)``, exactly: the trailing zeros of uniform bits."""
    g = 0
    while True:
        word = rng.getrandbits(64)
        if word:
            return g + (word & -word).bit_length() - 1
        g += 64


def _discrete_laplace(x: int, rng: random.Random) -> int:
    """``x + G1 - G2``: ``P(o) = (1/3) 2^-|o - x|``, so neighbours differ by a factor 2 at most,
    and exactly 2 on every tail ``{o <= t}``: the claim ``e^-epsilon = 1/2`` is tight."""
    return x + _geometric(rng) - _geometric(rng)


def _vector_response(x: int, rng: random.Random) -> tuple[int, int]:
    """Two independent randomized responses, each truthful with probability 3/4 exactly
    (``random()`` is a multiple of ``2^-53``): ``e^epsilon = 9``, tight at ``(x, x)``."""
    return tuple(x if rng.random() < 0.75 else 1 - x for _ in range(2))  # type: ignore[return-value]


def _binomial_quantile(trials: int, p: Fraction, level: Fraction) -> int:
    """The smallest ``c`` with ``P(Binomial(trials, p) > c) <= level``, exactly."""
    tail = Fraction(1)
    for c in range(trials + 1):
        tail -= Fraction(math.comb(trials, c)) * p**c * (1 - p) ** (trials - c)
        if tail <= level:
            return c
    return trials


_TIGHT: dict[str, tuple[Callable[[int, random.Random], Hashable], tuple[int, ...], list[tuple[int, int]], PureDp]] = {
    "discrete Laplace, two tight pairs": (_discrete_laplace, (0, 1, 2), [(0, 1), (1, 2)], PureDp(alpha=Fraction(1, 2))),
    "vector randomized response": (_vector_response, (0, 1), [(0, 1)], PureDp(alpha=Fraction(1, 9))),
}


def _false_positives(name: str, trials: int, samples: int, alpha: Fraction, *, reuse: bool = False) -> int:
    sampler, inputs, pairs, claim = _TIGHT[name]
    count = 0
    for seed in range(trials):
        rng = random.Random(seed)
        draws = [[sampler(x, rng) for _ in range(samples)] for x in inputs]
        if reuse:  # the held-out half repeats the selection half: no longer independent of the choice
            draws = [d[: samples // 2] * 2 for d in draws]
        result = check_black_box_privacy_search(draws, list(inputs), pairs, claim, alpha=alpha, seed=seed)
        count += result.verdict is Verdict.VIOLATED
    return count


@pytest.mark.parametrize("name", list(_TIGHT))
def test_the_certificate_keeps_its_level_over_pairs_and_events(name: str) -> None:
    # alpha = 1/2 at tight claims: a test that lost its level over the search would show it
    trials, alpha = 150, Fraction(1, 2)
    bound = _binomial_quantile(trials, alpha, Fraction(1, 10**6))
    count = _false_positives(name, trials, 200, alpha)
    assert count <= bound, f"{count} false positives in {trials} seeds at alpha={alpha} (bound {bound})"


def test_the_level_harness_catches_a_held_out_half_that_is_not_independent() -> None:
    trials, alpha = 150, Fraction(1, 2)
    bound = _binomial_quantile(trials, alpha, Fraction(1, 10**6))
    assert _false_positives("discrete Laplace, two tight pairs", trials, 200, alpha, reuse=True) > bound


# --- several neighbouring pairs ------------------------------------------------------------------------


def _second_pair_leak(x: int, epsilon: Fraction) -> int:
    """Uniform on {0, 1, 2, 3} at inputs 0 and 1; at input 2, 3 with probability 5/8."""
    if x == 2 and random.random() < 0.5:
        return 3
    return random.randrange(4)


_LEAK_SPEC = Spec(
    name="second-pair-leak",
    sampler=_second_pair_leak,
    parameters={"epsilon": Rational(0, low_open=True)},
    input=Input("x", values=lambda p: (0, 1, 2), neighbours=1),
    claim=lambda p: PureDp(epsilon=p["epsilon"]),
    randomness="none",
    cases=(Case({"epsilon": Fraction(1, 10)}, "violated", "input 2 piles mass on 3"),),
)


def test_a_leak_only_at_the_second_pair_is_found() -> None:
    result = audit_case(_LEAK_SPEC, _LEAK_SPEC.cases[0], seed=3, samples=4_000)
    assert result.outcome == "violated", [c.summary for c in result.checks]
    (privacy,) = result.checks
    evidence = privacy.evidence
    assert evidence["pairs_searched"] == [[0, 1], [1, 2]] and evidence["pairs_available"] == 2
    assert evidence["inputs"] == [1, 2] and evidence["more_likely_under"] == 2
    assert float(evidence["epsilon_lower_bound"]) > 0.1  # P(3) = 5/8 vs 1/4: epsilon = ln 2.5 = 0.92
    assert "at the pair (1, 2)" in privacy.summary and "seed=3" in privacy.summary
    assert "no correction" in evidence["validity"]
    # the first pair alone is two copies of one law: nothing to certify there
    first = audit_case(_LEAK_SPEC, _LEAK_SPEC.cases[0], seed=3, samples=4_000, max_pairs=1)
    assert first.outcome == "proved" and "not refuted" in first.checks[0].summary
    assert any("first 1 of 2 neighbouring pairs" in note for note in first.notes)


def test_the_document_of_a_search_over_pairs_is_valid() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    document = audit_black_box(_LEAK_SPEC, "tests", _LEAK_SPEC.cases, seed=3, samples=4_000)
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "blackbox-1.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)
    evidence = document["cases"][0]["checks"][0]["evidence"]
    assert document["max_pairs"] == 4 and evidence["candidates_by_family"]["atoms"] > 0
    assert evidence["event"]["family"] == evidence["family"] and evidence["event"]["view"] == "o"


# --- vector outputs ------------------------------------------------------------------------------------


def _float_laplace(scale: float) -> float:
    return (1 if random.random() < 0.5 else -1) * random.expovariate(1 / scale)


def _vector_mironov(x: int, epsilon: Fraction) -> tuple[float, float]:
    """``(noise, x + noise')`` in doubles: the second coordinate is Mironov's float Laplace."""
    scale = 1 / float(epsilon)
    return (_float_laplace(scale), x + _float_laplace(scale))


def _vector_atom(x: int, epsilon: Fraction) -> list[int]:
    """A quarter of the draws are the point ``(x, 0)``: an atom that moves with the input; the
    rest is uniform on a wide square of integers."""
    if random.random() < 0.25:
        return [x, 0]
    return [random.randrange(-1000, 1000), random.randrange(-1000, 1000)]


def _vector_rr(x: int, epsilon: Fraction) -> tuple[int, int]:
    return tuple(x if random.random() < 0.75 else 1 - x for _ in range(2))  # type: ignore[return-value]


def _vector_spec(name: str, sampler: object, claim: PureDp) -> Spec:
    return Spec(
        name=name,
        sampler=sampler,
        parameters={"epsilon": Rational(0, low_open=True)},  # type: ignore[arg-type]
        input=Input("x", values=lambda p: (0, 1)),
        claim=lambda p: claim,
        randomness="none",
        cases=(Case({"epsilon": Fraction(1, 10)}, "violated"),),
    )


def test_a_vector_leaking_in_one_coordinates_low_bits_is_found() -> None:
    spec = _vector_spec("vector-mironov", _vector_mironov, PureDp(epsilon=Fraction(1, 10)))
    result = audit_case(spec, spec.cases[0], seed=5, samples=20_000)
    assert result.outcome == "violated", [c.summary for c in result.checks]
    evidence = result.checks[0].evidence
    assert evidence["view"] == "o[1]" and evidence["family"] == "float structure"
    assert evidence["event"]["view"] == "o[1]" and "o[1] * 2^" in evidence["event"]["description"]
    assert evidence["views_searched"] == ["o", "o[0]", "o[1]", "sum(o)", "|o|_2"]
    assert float(evidence["epsilon_lower_bound"]) > 1


def test_a_vector_with_an_atom_that_moves_with_the_input_is_found() -> None:
    spec = _vector_spec("vector-atom", _vector_atom, PureDp(epsilon=1))
    result = audit_case(spec, spec.cases[0], seed=6, samples=4_000)
    assert result.outcome == "violated", [c.summary for c in result.checks]
    evidence = result.checks[0].evidence
    assert evidence["family"] == "atoms" and evidence["held_out_counts"]["less_likely"] == 0
    assert evidence["more_likely_under"] == 1 and evidence["event"]["description"] == "o = (1, 0)"


def test_a_vector_sampler_that_meets_its_claim_is_not_refuted() -> None:
    spec = _vector_spec("vector-rr", _vector_rr, PureDp(alpha=Fraction(1, 9)))
    result = audit_case(spec, spec.cases[0], seed=7, samples=4_000)
    assert result.outcome == "proved", [c.summary for c in result.checks]
    (privacy,) = result.checks
    assert privacy.verdict is Verdict.PROVED and "not refuted" in privacy.summary
    # the bound is informative: the atom (x, x) has the full ratio 9 = e^2.197
    assert 1.5 < float(privacy.evidence["epsilon_lower_bound"]) <= math.log(9)


def _law_over_numbers(x: int, epsilon: Fraction) -> tuple[int, int]:
    return (x, x)


def test_vectors_where_the_law_is_over_numbers_are_a_certain_violation() -> None:
    spec = Spec(
        name="wrong-shape",
        sampler=_law_over_numbers,
        parameters={"epsilon": Rational(0, low_open=True)},
        input=Input("x", values=lambda p: (0, 1)),
        claim=lambda p: PureDp(epsilon=p["epsilon"]),
        pmf=lambda p, q: {q: Fraction(1)},
        randomness="none",
        cases=(Case({"epsilon": 1}, "violated"),),
    )
    result = audit_case(spec, spec.cases[0], seed=1, samples=40)
    distribution = next(c for c in result.checks if c.check == "blackbox_distribution")
    assert distribution.verdict is Verdict.VIOLATED
    assert "a vector of length 2 where the spec's law is over numbers" in distribution.summary


def test_normalise_makes_vectors_of_numbers_and_garbage_of_the_rest() -> None:
    assert normalise([1, Fraction(1, 2), 0.25]) == (1, Fraction(1, 2), 0.25)
    assert normalise(()) == ()
    for bad in ([1, None], [1, [2]], (1.0, float("inf")), [True, 1]):
        assert isinstance(normalise(bad), Garbage), bad
    np = pytest.importorskip("numpy")
    assert normalise(np.array([1.5, 2.0])) == (1.5, 2.0)
    assert normalise(np.array([[1, 2], [3, 4]], dtype=np.int64)) == (1, 2, 3, 4)
    assert isinstance(normalise(np.array([True, False])), Garbage)
    assert normalise(np.float64(0.5)) == 0.5


def test_views_and_events_read_vectors() -> None:
    views, left_out = views_for([(1, 2, 3)] * 2 + [(1.0,) * 10])
    assert [v.name for v in views] == ["o"] + [f"o[{i}]" for i in range(8)] + ["sum(o)", "|o|_2"] and left_out == 2
    assert View("sum").value((1, Fraction(1, 2))) == Fraction(3, 2)  # exact without floats
    assert View("norm").value((3.0, 4)) == 5.0 and View("coordinate", 3).value((1, 2)) is None
    assert View("sum").value(7) is None and View("norm").value((1.5e308, 1.5e308)) is None  # no infinities
    second = Located(View("coordinate", 1), Event(0, 1))
    assert (0, 0.5) in second and (0.5, 1) not in second and 0.5 not in second
    assert second.to_json()["description"] == "0 <= o[1] < 1" and second.to_json()["family"] == "intervals"
    assert Event(atom=2).describe() == "o = 2" and Event(atom=2).family == "atoms"


def test_a_vector_noise_is_added_to_the_first_coordinate() -> None:
    assert _shifted(1, (0.5, 2)) == (1.5, 2) and _shifted(1, 0.5) == 1.5 and _shifted(1, ()) == ()


def test_the_search_counts_candidates_by_family_and_tests_one_event() -> None:
    rng = random.Random(1)
    draws = [[rng.choice((0, 1, 2)) for _ in range(2_000)], [rng.choice((0, 1)) for _ in range(2_000)]]
    found = search([d[:1000] for d in draws], [0, 1], [(0, 1)], Fraction(1, 10**6))
    assert found.choice is not None and found.choice.forward
    chosen = found.choice.located
    assert 2 in chosen and 0 not in chosen and 1 not in chosen  # {2}, however the family spells it
    assert found.candidates == sum(found.by_family.values()) and found.by_family["atoms"] == 6
    result = check_black_box_privacy_search(draws, [0, 1], [(0, 1)], PureDp(epsilon=1), seed=1)
    assert result.verdict is Verdict.VIOLATED and result.evidence["candidates"] == found.candidates


# --- bad input: one line naming the parameter ---------------------------------------------------------


@pytest.mark.parametrize(
    ("pairs", "inputs", "draws", "needle"),
    [
        ([], [0, 1], 2, "pairs must name at least one neighbouring pair; got pairs=()"),
        ([(0, 0)], [0, 1], 2, "got pairs[0]=(0, 0)"),
        ([(0, 1), (1, 5)], [0, 1], 2, "got pairs[1]=(1, 5)"),
        ([(0, 1)], [0, 1, 2], 2, "one entry per input"),
    ],
)
def test_bad_arguments_get_one_line_naming_the_parameter(
    pairs: list[tuple[int, int]], inputs: list[int], draws: int, needle: str
) -> None:
    with pytest.raises(InvalidArgument) as raised:
        check_black_box_privacy_search([[0] * 10] * draws, inputs, pairs, PureDp(epsilon=1))
    assert needle in str(raised.value) and "\n" not in str(raised.value)


def test_too_few_draws_and_bad_levels_and_caps_are_refused_in_one_line() -> None:
    with pytest.raises(InvalidArgument, match=r"at least 4 draws per input; got 3 at q=1\.$"):
        check_black_box_privacy_search([[0] * 10, [0] * 3], [0, 1], [(0, 1)], PureDp(epsilon=1))
    with pytest.raises(InvalidArgument, match="alpha"):
        check_black_box_privacy_search([[0] * 10] * 2, [0, 1], [(0, 1)], PureDp(epsilon=1), alpha=0.05)
    with pytest.raises(InvalidArgument, match="max_pairs") as raised:
        audit_case(_LEAK_SPEC, _LEAK_SPEC.cases[0], seed=1, samples=10, max_pairs=0)
    assert "\n" not in str(raised.value)
