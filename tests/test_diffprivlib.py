"""diffprivlib's mechanisms, run unmodified on a k-bit random(): exact PMFs, verdicts, witnesses.

The PMFs the engine derives are compared with an independent count: the same float formula as
diffprivlib's source (``mechanisms/geometric.py``, ``laplace.py``, 0.6.6), written out here and
evaluated on every point of the k-bit grid, without the enumeration or RandomCompat.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest

pytest.importorskip("diffprivlib")
np = pytest.importorskip("numpy")

from dpverify.samplers import InvalidArgument, RandomSource  # noqa: E402
from dpverify.verify.engine._random_compat import RandomCompat  # noqa: E402
from dpverify.verify.engine._results import Verdict  # noqa: E402
from dpverify.verify.published._diffprivlib import SPECS  # noqa: E402
from dpverify.verify.published._diffprivlib_check import (  # noqa: E402
    check_diffprivlib,
    delta_at,
    sweep_diffprivlib,
    sweep_table,
)
from dpverify.verify.published._diffprivlib_edge import geometric_support_edge  # noqa: E402
from dpverify.verify.published._diffprivlib_pmf import diffprivlib_mechanism, gtm_distance, output_pmf  # noqa: E402


def _geometric_formula(
    value: int, epsilon: float, sensitivity: int, u: float, bounds: tuple[int, int] | None
) -> object:
    """diffprivlib's Geometric.randomise (and GeometricTruncated's clamp) on the uniform ``u``."""
    scale = -epsilon / sensitivity
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        v = (u - 0.5) * (1 + np.exp(scale))
        sgn = -1 if v < 0 else 1
        noisy = np.round(value + sgn * np.floor(np.log(sgn * v) / scale))
    try:
        result = int(noisy)
    except OverflowError:
        return "raised OverflowError"
    if bounds is not None:
        result = int(np.round(min(max(result, bounds[0]), bounds[1])))
    return result


def _grid_pmf(outputs: list[object], draws: int) -> dict[object, Fraction]:
    return {y: Fraction(c, draws) for y, c in Counter(outputs).items()}


@pytest.mark.parametrize("k", [1, 6, 11])
@pytest.mark.parametrize("epsilon", ["1", "1/3"])
def test_geometric_pmf_is_the_formula_on_every_grid_point(k: int, epsilon: str) -> None:
    mechanism = diffprivlib_mechanism("geometric", epsilon=epsilon, sensitivity=2)
    found = output_pmf(mechanism, 3, k)
    assert found.exhausted and found.paths == 2**k
    expected = _grid_pmf(
        [_geometric_formula(3, float(Fraction(epsilon)), 2, j / 2**k, None) for j in range(2**k)], 2**k
    )
    assert found.masses == expected
    assert sum(found.masses.values()) == 1
    # random() == 0.5 exactly makes log(0) = -inf, and int(round(inf)) raises: one draw in 2^k
    assert found.masses["raised OverflowError"] == Fraction(1, 2**k)


def test_truncated_pmf_is_the_formula_on_every_grid_point() -> None:
    k = 10
    mechanism = diffprivlib_mechanism("geometric-truncated", epsilon="1/2", lower=-2, upper=3)
    found = output_pmf(mechanism, 0, k)
    expected = _grid_pmf([_geometric_formula(0, 0.5, 1, j / 2**k, (-2, 3)) for j in range(2**k)], 2**k)
    assert found.masses == expected
    assert set(found.masses) - {"raised OverflowError"} == set(range(-2, 4))


def test_laplace_pmf_is_the_formula_on_every_grid_point() -> None:
    k = 2
    mechanism = diffprivlib_mechanism("laplace", epsilon="1/2", sensitivity=2)
    found = output_pmf(mechanism, "3/4", k)
    assert found.paths == 2 ** (4 * k)
    grid = [j / 2**k for j in range(2**k)]
    outputs = []
    for u1, u2, u3, u4 in itertools.product(grid, repeat=4):  # the order of diffprivlib's four random() calls
        standard = np.log(1 - u1) * np.cos(np.pi * u2) + np.log(1 - u3) * np.cos(np.pi * u4)
        outputs.append(float(0.75 - (2.0 / (0.5 - np.log(1 - 0.0))) * standard))
    assert found.masses == _grid_pmf(outputs, 2 ** (4 * k))


def test_diffprivlib_accepts_the_compat_object_as_its_generator() -> None:
    from diffprivlib.mechanisms import Geometric

    from dpverify.samplers import SeededRandomSource

    rng = RandomCompat(SeededRandomSource(1), float_bits=8)
    assert Geometric(epsilon=1.0, random_state=rng)._rng is rng


@pytest.mark.parametrize("k", [5, 10])
def test_geometric_is_violated_with_a_witness_that_reproduces(k: int) -> None:
    mechanism = diffprivlib_mechanism("geometric", epsilon=1)
    result = check_diffprivlib(mechanism, 0, 1, k)
    assert result.verdict is Verdict.VIOLATED and f"at {k} bits" in result.summary
    w = result.evidence["witness"]
    assert result.evidence["epsilon_exact"] == "Infinity" and w["p"] == "0"
    on_q = output_pmf(mechanism, int(w["q"]), k).masses
    on_q2 = output_pmf(mechanism, int(w["q_prime"]), k).masses
    assert w["output"] not in on_q and on_q2[w["output"]] == Fraction(w["p_prime"]) > 0


def test_truncated_exact_epsilon_is_the_largest_log_ratio() -> None:
    k = 12
    mechanism = diffprivlib_mechanism("geometric-truncated", epsilon=1, lower=0, upper=4)
    result = check_diffprivlib(mechanism, 1, 2, k)
    p, p2 = output_pmf(mechanism, 1, k).masses, output_pmf(mechanism, 2, k).masses
    assert set(p) == set(p2)  # every output possible from both: the loss is finite
    ratios = [max(p[y] / p2[y], p2[y] / p[y]) for y in p]
    worst = max(ratios)
    w = result.evidence["witness"]
    assert max(Fraction(w["p"]) / Fraction(w["p_prime"]), Fraction(w["p_prime"]) / Fraction(w["p"])) == worst
    assert result.evidence["epsilon_exact"] == pytest.approx(math.log(worst), rel=1e-12)
    assert result.verdict is Verdict.VIOLATED and math.log(worst) > 1
    # the exact loss as the claim: proved at 12 bits; a hair below it: violated
    looser = check_diffprivlib(mechanism, 1, 2, k, claim_epsilon=Fraction(10006, 10000))
    assert looser.verdict is Verdict.PROVED and "at 12 bits" in looser.summary
    assert check_diffprivlib(mechanism, 1, 2, k, claim_epsilon=Fraction(10005, 10000)).verdict is Verdict.VIOLATED


def test_delta_is_the_hockey_stick_divergence() -> None:
    p = {0: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)}
    p2 = {0: Fraction(1, 8), 1: Fraction(7, 8)}
    low, high = delta_at(p, p2, Fraction(1))
    expected = (0.5 - math.e / 8) + 0.25  # output 1 adds nothing, output 2 is impossible from p2
    assert low <= high and float(low) == pytest.approx(expected, rel=1e-15) and high - low < Fraction(1, 10**30)


@pytest.mark.parametrize("k", [6, 9, 14])
@pytest.mark.parametrize(("q", "q_prime"), [(0, 1), (1, 0), (0, 2)])
def test_support_edge_search_agrees_with_the_exhaustive_pmf(k: int, q: int, q_prime: int) -> None:
    mechanism = diffprivlib_mechanism("geometric", epsilon="3/4", sensitivity=2)
    edge = geometric_support_edge(mechanism, q, q_prime, k)
    on_q2 = output_pmf(mechanism, q_prime, k).masses
    on_q = output_pmf(mechanism, q, k).masses
    ints = [y for y in on_q2 if isinstance(y, int)]
    assert edge.output == (max(ints) if q_prime > q else min(ints))
    assert edge.probability == on_q2[edge.output] and edge.output not in on_q
    others = [y for y in on_q if isinstance(y, int)]
    assert edge.other_edge == (max(others) if q_prime > q else min(others))


def test_support_edge_at_53_bits_reproduces() -> None:
    mechanism = diffprivlib_mechanism("geometric", epsilon=1)
    edge = geometric_support_edge(mechanism, 0, 1)
    assert edge.bits == 53 and edge.output > edge.other_edge and edge.count >= 1

    class At(RandomSource):
        def randbelow(self, n: int) -> int:
            assert n == 2**53
            return edge.draw

    from diffprivlib.mechanisms import Geometric

    assert Geometric(epsilon=1.0, random_state=RandomCompat(At())).randomise(1) == edge.output
    result = edge.check()
    assert result.verdict is Verdict.VIOLATED and "at 53 bits" in result.summary
    assert Fraction(result.evidence["witness"]["p"]) == Fraction(edge.count, 2**53)


@pytest.mark.parametrize("k", [1, 2, 7, 13])
@pytest.mark.parametrize(
    ("name", "parameters", "q"),
    [
        ("geometric", {"epsilon": "5/4", "sensitivity": 3}, -2),
        ("geometric-truncated", {"epsilon": "1/2", "lower": -2, "upper": 5}, 1),
    ],
)
def test_bisection_is_the_exhaustive_pmf(k: int, name: str, parameters: dict[str, object], q: int) -> None:
    mechanism = diffprivlib_mechanism(name, **parameters)
    bisected = output_pmf(mechanism, q, k, method="bisect")
    assert bisected.masses == output_pmf(mechanism, q, k, method="enumerate").masses
    assert bisected.executions < 2**k or k < 8


def test_truncated_at_53_bits_by_bisection() -> None:
    mechanism = diffprivlib_mechanism("geometric-truncated", epsilon=1, lower=0, upper=4)
    pmf = output_pmf(mechanism, 2, 53).masses
    assert sum(pmf.values()) == 1 and set(pmf) == {0, 1, 2, 3, 4, "raised OverflowError"}
    result = check_diffprivlib(mechanism, 1, 2, 53)
    assert result.evidence["method"] == "bisect" and "assumption L" in result.summary and "at 53 bits" in result.summary
    w = result.evidence["witness"]
    assert Fraction(w["p"]) > 0 and Fraction(w["p_prime"]) > 0  # finite loss: both supports are [0, 4]
    assert 0 < result.evidence["epsilon_excess"] < 1e-9


@pytest.mark.parametrize(
    ("D", "n", "q", "bits", "bound"),
    [
        (2, 6, 2, 12, Fraction(1, 2**11)),
        (3, 5, 0, 16, Fraction(1, 2**15)),
        (2, 6, 2, 53, Fraction(1, 2**50)),
        (3, 10, 5, 53, Fraction(1, 2**50)),
    ],
)
def test_truncated_is_the_ideal_gtm_up_to_the_grid(D: int, n: int, q: int, bits: int, bound: Fraction) -> None:
    """The exact PMF (bisected at 53 bits) against an independent closed form, GtmSpec's gtpmf at alpha = 1/D."""
    distance = gtm_distance(D, n, q, bits)
    assert 0 < distance.worst < bound and distance.total_variation < n * bound


def test_sweep_table_names_every_precision() -> None:
    mechanism = diffprivlib_mechanism("geometric", epsilon=2)
    results = sweep_diffprivlib(mechanism, 0, 1, [3, 5])
    table = sweep_table(results)
    assert [r.evidence["bits"] for r in results] == [3, 5]
    assert "| 3 |" in table and "| 5 |" in table and "∞" in table


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: diffprivlib_mechanism("gaussian", epsilon=1), "mechanism must be one of"),
        (lambda: diffprivlib_mechanism("geometric", epsilon=0), "epsilon must be a rational > 0"),
        (lambda: diffprivlib_mechanism("geometric", epsilon=1, sensitivity="1/2"), "sensitivity"),
        (
            lambda: diffprivlib_mechanism("laplace", epsilon=1, sensitivity="1/3"),
            "sensitivity must be exactly a double",
        ),
        (lambda: diffprivlib_mechanism("geometric-truncated", epsilon=1, lower=3, upper=3), "lower must be < upper"),
        (lambda: diffprivlib_mechanism("geometric", epsilon=1, lower=0, upper=3), "geometric-truncated only"),
        (lambda: check_diffprivlib(diffprivlib_mechanism("geometric", epsilon=1), 0, 0, 4), "distinct neighbours"),
        (lambda: check_diffprivlib(diffprivlib_mechanism("geometric", epsilon=1), 0, 2, 4), "distinct neighbours"),
        (lambda: check_diffprivlib(diffprivlib_mechanism("geometric", epsilon=1), 0, 1, 54), "bits must be an integer"),
        (lambda: check_diffprivlib(diffprivlib_mechanism("laplace", epsilon=1), 0, 1, 7), "bits must be an integer"),
        (lambda: output_pmf(diffprivlib_mechanism("laplace", epsilon=1), "1/3", 2), "q must be exactly a double"),
        (
            lambda: output_pmf(diffprivlib_mechanism("laplace", epsilon=1), 0, 2, method="bisect"),
            "geometric mechanisms only",
        ),
        (
            lambda: output_pmf(diffprivlib_mechanism("geometric", epsilon=1), 0, 54),
            "bits must be an integer in [1, 53]",
        ),
        (lambda: output_pmf(diffprivlib_mechanism("geometric", epsilon=1), 0, 30, method="enumerate"), "[1, 24]"),
        (
            lambda: output_pmf(diffprivlib_mechanism("geometric", epsilon=1), 0, 3, method="walk"),
            "method must be one of",
        ),
        (
            lambda: output_pmf(diffprivlib_mechanism("geometric-truncated", epsilon=1, lower=0, upper=2), 3, 2),
            "[lower, upper]",
        ),
    ],
)
def test_bad_parameters_are_refused_in_one_line(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidArgument) as caught:
        call()
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_complaint_of_the_source_is_not_taken_for_an_output() -> None:
    from dpverify.samplers import SamplerContractError
    from dpverify.verify.published._diffprivlib_pmf import _OneDraw, _runner

    run = _runner(diffprivlib_mechanism("laplace", epsilon=1), Fraction(0), 3)
    with pytest.raises(SamplerContractError, match="draw once"):
        run(_OneDraw(8, 1))  # Laplace draws four times


def test_the_claim_is_the_double_diffprivlib_receives() -> None:
    mechanism = diffprivlib_mechanism("geometric", epsilon="0.1")
    assert mechanism.epsilon == Fraction(0.1) != Fraction(1, 10)


def test_specs_are_found_by_spec_module() -> None:
    from dpverify.verify.gate._discovery import specs_from_module

    names = [found.spec.name for found in specs_from_module("dpverify.verify.published._diffprivlib")]
    assert (
        names
        == [spec.name for spec in SPECS]
        == ["diffprivlib-geometric", "diffprivlib-geometric-truncated", "diffprivlib-laplace"]
    )


@pytest.mark.slow
def test_check_on_the_spec_module_meets_every_expectation() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "dpverify", "check", "--spec-module", "dpverify.verify.published._diffprivlib"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    cases = sum(len(spec.cases) for spec in SPECS)
    assert f"{cases} of {cases} cases met their expectation: PASS" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "parameters"),
    [("geometric", {"epsilon": 1}), ("geometric-truncated", {"epsilon": "0.1", "lower": 0, "upper": 100})],
)
def test_bisection_is_the_exhaustive_pmf_at_20_bits(name: str, parameters: dict[str, object]) -> None:
    mechanism = diffprivlib_mechanism(name, **parameters)
    assert (
        output_pmf(mechanism, 0, 20, method="bisect").masses == output_pmf(mechanism, 0, 20, method="enumerate").masses
    )
