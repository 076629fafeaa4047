"""The rational-parsing gate entry: it proves on the shipped parser and catches a changed one."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpverify.samplers import _rational
from dpverify.verify.engine._results import Verdict
from dpverify.verify.gate._catalogue import SPECS
from dpverify.verify.gate._parsing_spec import (
    MAX_BITS,
    MAX_DIGITS,
    MAX_TEXT,
    PARSING_SPEC,
    REFUSED,
    cases,
    check_parsing,
)
from dpverify.verify.gate._spec_run import run_case


def test_the_entry_is_in_the_catalogue_and_proves() -> None:
    assert PARSING_SPEC in SPECS
    outcome = run_case(PARSING_SPEC, PARSING_SPEC.cases[0], seed=0, samples=100)
    assert outcome.met and [c.check for c in outcome.checks] == ["parsing"]


def test_the_restated_limits_are_the_documented_ones() -> None:
    assert (MAX_DIGITS, MAX_TEXT, MAX_BITS) == (_rational.MAX_DIGITS, _rational.MAX_TEXT, _rational.MAX_BITS)


def test_every_limit_is_tried_on_both_sides_of_its_edge() -> None:
    labels = {row.label: row.expected for row in cases()}
    assert labels["as_fraction(x='1e999')"] == Fraction(10**999)
    assert labels["as_fraction(x='1e1000')"] is REFUSED
    accepted = [e for e in labels.values() if e is not REFUSED]
    assert len(accepted) > 50 and len(labels) - len(accepted) > 50


@pytest.mark.parametrize(
    ("name", "value", "caught"),
    [
        ("_LIMIT", 10 ** (MAX_DIGITS - 1), "was refused"),
        ("MAX_BITS", MAX_BITS + 1, "was accepted"),
        ("MAX_TEXT", MAX_TEXT - 1, "was refused"),
    ],
)
def test_a_moved_limit_is_violated(monkeypatch: pytest.MonkeyPatch, name: str, value: int, caught: str) -> None:
    monkeypatch.setattr(_rational, name, value)
    result = check_parsing({})
    assert result.verdict is Verdict.VIOLATED and caught in result.summary


def test_a_parser_that_reads_blanks_inside_a_number_is_violated(monkeypatch: pytest.MonkeyPatch) -> None:
    original = _rational._integer_expression
    monkeypatch.setattr(_rational, "_integer_expression", lambda text: original(text.replace(" ", "")))
    result = check_parsing({})
    assert result.verdict is Verdict.VIOLATED and "'1 2') was accepted as 12" in result.summary


def test_a_parser_that_computes_before_it_refuses_is_cut_off_with_a_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without its digit count the parser computes 10^(10^9) before it refuses it: the row's own
    bound ends that with a violation, not the case's time bound."""
    import time

    from dpverify.verify.gate import _parsing_spec

    real = _rational._integer_expression

    def slow(text: str) -> int | None:
        if "^" in text and len(text) > 6:  # as a huge power would take
            time.sleep(30)
        return real(text)

    monkeypatch.setattr(_parsing_spec, "ROW_SECONDS", 0.1)
    monkeypatch.setattr(_rational, "_integer_expression", slow)
    started = time.monotonic()
    result = check_parsing({})
    assert time.monotonic() - started < 10
    assert result.verdict is Verdict.VIOLATED
    assert "was neither parsed nor refused within 0.1 s" in result.evidence["problems"][-1], result.evidence["problems"]
