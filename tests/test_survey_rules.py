"""What a survey row may claim about someone else's library (verify/survey/_rules.py): a model at
fewer than 53 bits is never a violation, a bounded proof is a proof only at U <= 10^-6, and the
published document names no path of the machine that made it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dpverify.verify.survey._rules import judged, published

ROOT = Path(__file__).resolve().parent.parent


#: A row whose library documents its value as private (diffprivlib's Geometric: epsilon-DP).
LIBRARY, PRIMITIVE = "diffprivlib", "Geometric (mechanisms.Geometric)"


def _row(method: str, verdict: str, primitive: str = PRIMITIVE, **details: Any) -> dict[str, Any]:
    return {
        "primitive": primitive,
        "mechanism": "m",
        "parameters": "",
        "method": method,
        "verdict": verdict,
        "evidence": "infinite privacy loss at q=1",
        "details": details,
        "seconds": 1.0,
    }


@pytest.mark.parametrize("bits", [4, 16, 52])
def test_a_model_below_full_precision_is_never_a_violation(bits: int) -> None:
    row = judged(_row("exact at k bits", "violated", bits=bits), LIBRARY)
    assert row["method"] == "model at k bits" and row["verdict"] == "inconclusive"
    assert row["evidence"].startswith(f"a model at {bits} bits, not the release")
    assert row["evidence"].endswith("infinite privacy loss at q=1")  # the model's finding is kept


def test_random_at_its_full_53_bits_is_the_generator_and_its_violation_stands() -> None:
    row = judged(_row("exact at k bits", "violated", bits=53), LIBRARY)
    assert row["verdict"] == "violated" and row["evidence"] == "infinite privacy loss at q=1"
    assert row["contract"]["private"] and "diffprivlib/mechanisms/geometric.py" in row["contract"]["source"]
    assert judged(row, LIBRARY) == row  # the rules hold of what they leave


def test_a_leak_in_a_value_the_library_does_not_promise_private_is_a_hazard() -> None:
    row = judged(_row("exact at k bits", "violated", "random.laplace added to x in doubles", bits=53), "numpy")
    assert row["verdict"] == "hazard" and not row["contract"]["private"]
    assert "the path that would release it: numpy releases nothing" in row["evidence"]
    assert row["evidence"].endswith("infinite privacy loss at q=1")


def test_a_row_that_cites_no_contract_is_never_a_violation() -> None:
    row = judged(_row("exact at k bits", "violated", "an uncited primitive", bits=53), LIBRARY)
    assert row["verdict"] == "inconclusive" and "contract" not in row
    assert row["evidence"].startswith("no documented contract is cited for this row")


def test_each_row_states_its_magnitude() -> None:
    black_box = {
        "checks": [
            {
                "check": "blackbox_privacy",
                "evidence": {
                    "epsilon_lower_bound": "3.4486",
                    "epsilon_lower_bound_at_delta": "3.448381",
                    "delta_lower_bound_at_epsilon_decimal": "0.04166",
                },
            }
        ]
    }
    row = judged(_row("black box", "violated", **black_box), LIBRARY)
    assert row["magnitude"] == (
        "epsilon >= 3.448381 at the claimed delta; delta >= 0.04166 at the claimed epsilon (certified)"
    )
    assert judged(_row("black box", "not refuted"), LIBRARY)["magnitude"] == "-"


@pytest.mark.parametrize(
    ("within", "verdict"),
    [("31/125", "inconclusive"), ("1/1000001", "proved"), ("1/1000000", "proved"), ("1/999999", "inconclusive")],
)
def test_a_bounded_proof_counts_only_within_the_default_max_unexplored(within: str, verdict: str) -> None:
    row = judged(_row("exact enumeration", "proved", check={"within": within, "within_decimal": "x"}), LIBRARY)
    assert row["verdict"] == verdict
    if verdict == "inconclusive":
        assert row["evidence"].startswith("no proof: the law was bounded only within U = x")


def test_the_published_document_holds_no_path_of_this_machine() -> None:
    document = {
        "libraries": [
            {
                "name": "a",
                "environment": "/tmp/venvs/a",
                "interpreter": "/tmp/venvs/a/bin/python",
                "rows": [_row("exact at k bits", "violated", bits=4)],
            },
            {"name": "b", "environment": "this one", "rows": []},
        ]
    }
    out = published(document)
    assert [lib["environment"] for lib in out["libraries"]] == ["own", "this one"]
    assert "interpreter" not in out["libraries"][0] and "/tmp" not in json.dumps(out)
    assert document["libraries"][0]["environment"] == "/tmp/venvs/a"  # the input is left as it was


def test_the_committed_table_obeys_the_rules() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    document = json.loads((ROOT / "docs" / "ecosystem.json").read_text())
    jsonschema.validate(document, json.loads((ROOT / "schemas" / "survey-2.schema.json").read_text()))
    rows = [row for library in document["libraries"] for row in library["rows"]]
    assert all(judged(row, library["name"]) == row for library in document["libraries"] for row in library["rows"])
    assert all(row["verdict"] != "violated" or row["contract"]["private"] for row in rows)
    assert not any(row["method"] == "model at k bits" and row["verdict"] == "violated" for row in rows)
    # the set union is audited through what it releases (the set of keys), never its noisy weight
    assert not any("rand.laplace" in row["primitive"] for row in rows)
    text = (ROOT / "docs" / "ecosystem.json").read_text()
    assert "/tmp/" not in text and "/home/" not in text and "/root/" not in text


def test_a_black_box_says_where_its_draws_come_from() -> None:
    from dpverify.verify.survey._primitive import Finding, Primitive

    def audit(budget: Any) -> Finding:
        return Finding("not refuted", "")

    assert Primitive("p", "m", "", "black box", audit).draws_from == "OS entropy"
    assert Primitive("p", "m", "", "exact enumeration", audit).draws_from == "enumerated"
    assert Primitive("p", "m", "", "black box", audit, randomness="seeded").draws_from == "seeded"
    with pytest.raises(ValueError, match="randomness must be one of"):
        Primitive("p", "m", "", "black box", audit, randomness="lucky")


def test_a_seeded_black_box_gives_the_same_counts_for_one_seed() -> None:
    pytest.importorskip("numpy")
    from dpverify.verify.survey import _lib_numpy
    from dpverify.verify.survey._primitive import Budget

    [primitive] = [p for p in _lib_numpy.primitives() if p.method == "black box"]
    assert primitive.draws_from == "seeded"

    def counts(seed: int) -> list[Any]:
        finding = primitive.audit(Budget(seed=seed, samples=4000, time_limit=120))
        return [check["evidence"].get("held_out_counts") for check in finding.details["checks"]]

    first = counts(5)
    assert first == counts(5) and any(first)
    assert counts(6) != first  # the seed reaches the draws
