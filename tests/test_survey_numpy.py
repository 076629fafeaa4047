"""numpy's float Laplace at 53 bits: numpy's own C code reading the double asked for, and an exact
output of ``0 + laplace`` that ``1 + laplace`` never gives; and the survey reproduced by its seed."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from dpverify.verify.survey import _lib_numpy  # noqa: E402
from dpverify.verify.survey._primitive import Budget  # noqa: E402


@pytest.mark.parametrize("j", [1, 2, 12345, 2**52 - 1, 2**52, 2**53 - 2, 2**53 - 1])
def test_the_global_generator_reads_exactly_the_double_asked_for(j: int) -> None:
    _lib_numpy.global_draw(j)
    assert np.random.random_sample() == j / 2**53
    _lib_numpy.global_draw(j)
    # numpy's own inverse CDF on that double (random_laplace in numpy/random/src/distributions), with the C
    # library's log, as math.log is (numpy's vectorised np.log may differ by an ulp)
    u = j / 2**53
    expected = 10.0 * math.log(u + u) if u < 0.5 else -10.0 * math.log(2.0 - u - u)
    assert np.random.laplace(0.0, 10.0) == expected


def test_the_float_laplace_has_an_output_that_one_input_never_gives() -> None:
    finding = _lib_numpy.laplace_witness(Fraction(1, 10))
    assert finding.verdict == "violated" and finding.details["bits"] == 53
    witness = finding.details["witness"]
    output = float.fromhex(witness["output_hex"])
    # independent of the search: in (-1, 0) every output of x = 1 is 1 + y with y in (-2, -1), exact by
    # Sterbenz's lemma, so a multiple of 2^-52; the witness is not one
    assert -1 < output < 0 and not (output * 2**52).is_integer()
    below, above = (float.fromhex(h) for h in witness["outputs_at_1"])
    assert below < output < above and (below * 2**52).is_integer() and (above * 2**52).is_integer()
    start, end = witness["draws_at_0"]
    assert Fraction(witness["p"]) == Fraction(end - start + 1, 2**53 - 1) and witness["p_prime"] == "0"
    for j in range(start, end + 1):  # the run is exact: numpy gives the witness there and not beside it
        _lib_numpy.global_draw(j)
        assert np.random.laplace(0.0, 10.0) == output
    for j in (start - 1, end + 1):
        _lib_numpy.global_draw(j)
        assert np.random.laplace(0.0, 10.0) != output


def _reproducible(document: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What one seed must reproduce: every row's verdict and magnitude, and a seeded or enumerated row's
    counts (the evidence of an exact row; a black box's held-out counts and event)."""
    rows = []
    for library in document["libraries"]:
        for row in library["rows"]:
            counts: Any = row["evidence"] if row["method"] != "black box" else None
            if row["randomness"] == "seeded":
                counts = [
                    (c["evidence"].get("held_out_counts"), c["evidence"].get("event")) for c in row["details"]["checks"]
                ]
            rows.append((library["name"], row["primitive"], row["verdict"], row["magnitude"], counts))
    return rows


def test_two_survey_runs_with_one_seed_give_the_same_rows(tmp_path: Path) -> None:
    pytest.importorskip("diffprivlib")
    from dpverify.verify.survey._survey import run_survey

    budget = Budget(seed=11, samples=4000, time_limit=120)
    first, second = (run_survey(["numpy", "diffprivlib"], budget, here=True, root=tmp_path / str(i)) for i in range(2))
    assert _reproducible(first) == _reproducible(second)
    rows = _reproducible(first)
    assert any(row[4] for row in rows if row[0] == "numpy" and "mass" in row[1])  # the seeded counts are compared
    other = run_survey(["numpy"], Budget(seed=12, samples=4000, time_limit=120), here=True, root=tmp_path / "o")
    assert _reproducible(other)[1][4] != rows[1][4]  # and the seed reaches them
