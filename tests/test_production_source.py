"""The production supplies' check: it proves on the shipped code and catches a broken supply."""

from __future__ import annotations

import hashlib
import os
import threading

import pytest

from dpverify.samplers import SeededRandomSource, SystemRandomSource, _random_source
from dpverify.verify.engine._results import Verdict
from dpverify.verify.gate._production_source import check_production_blocks, check_production_words, documented_block


def test_the_shipped_supplies_prove() -> None:
    words = check_production_words()
    assert words.verdict is Verdict.PROVED, words.summary
    assert "{forked}" not in words.summary and "fork" in words.summary.split("none twice; ")[1]
    blocks = check_production_blocks()
    assert blocks.verdict is Verdict.PROVED, blocks.summary


def test_a_pool_that_repeats_a_word_is_violated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_random_source, "_pop", lambda: 0x0123456789ABCDEF)
    result = check_production_words()
    assert result.verdict is Verdict.VIOLATED
    assert "never changed" in result.summary and "handed out twice" in result.summary


def test_a_draw_that_never_returns_is_violated_within_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A conversion that rejects every word draws from the OS forever: a violation in seconds."""
    from dpverify.verify.gate import _production_source

    def rejects_every_word(self: SystemRandomSource, n: int) -> int:
        while True:
            _random_source._pop() if len(_random_source._WORDS) else _random_source._refill_and_pop()

    monkeypatch.setattr(_production_source, "DRAW_SECONDS", 0.2)
    monkeypatch.setattr(SystemRandomSource, "randbelow", rejects_every_word)
    result = check_production_words()
    assert result.verdict is Verdict.VIOLATED
    assert "the pooled supply had not given 1024 words after 0.2 s" in result.summary, result.summary


def test_narrow_words_are_violated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_random_source, "_pop", lambda: int.from_bytes(os.urandom(7), "little"))
    result = check_production_words()
    assert result.verdict is Verdict.VIOLATED and "[56, 57, 58, 59, 60, 61, 62, 63]" in result.summary


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_that_keeps_its_parents_pool_is_violated(monkeypatch: pytest.MonkeyPatch) -> None:
    if threading.active_count() > 1:
        pytest.skip("the check does not fork while other threads run")

    pool = _random_source._WORDS

    class Kept:  # what the fork handler clears: here nothing, so the child keeps the parent's words
        def __len__(self) -> int:
            return len(pool)

        def __delitem__(self, index: object) -> None:
            pass

    def refill_and_pop() -> int:
        pool.frombytes(os.urandom(4096))
        return pool.pop()

    monkeypatch.setattr(_random_source, "_WORDS", Kept())
    monkeypatch.setattr(_random_source, "_refill_and_pop", refill_and_pop)
    result = check_production_words()
    assert result.verdict is Verdict.VIOLATED and "child drew its parent's next word" in result.summary


def test_blocks_off_the_documented_construction_are_violated(monkeypatch: pytest.MonkeyPatch) -> None:
    def little_endian_counter(self: SeededRandomSource) -> int:
        block = hashlib.sha256(self._key + self._counter.to_bytes(16, "little")).digest()
        self._counter += 1
        return int.from_bytes(block, "big")

    monkeypatch.setattr(SeededRandomSource, "_block", little_endian_counter)
    result = check_production_blocks()
    assert result.verdict is Verdict.VIOLATED and result.summary.startswith("seed 0: block 1 is")


def test_the_documented_block_is_sha256_of_seed_bytes_and_counter() -> None:
    assert documented_block(0, 0) == int.from_bytes(hashlib.sha256(b"\x00" + bytes(16)).digest(), "big")
    assert documented_block(256, 2) == int.from_bytes(
        hashlib.sha256(b"\x01\x00" + (2).to_bytes(16, "big")).digest(), "big"
    )


def test_a_too_wide_unpooled_word_is_violated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_random_source._UnpooledWords, "pop", lambda self: int.from_bytes(os.urandom(9), "little"))
    result = check_production_words()
    assert result.verdict is Verdict.VIOLATED and "the unpooled supply gave" in result.summary


def test_blocks_that_are_never_drawn_are_violated_within_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool that never grows makes every draw of the replay source loop: a violation in seconds."""
    from dpverify.verify.gate import _production_source

    def never_fills(self: SeededRandomSource, k: int) -> int:
        while self._pool_bits < k:
            self._block()
        return 0

    monkeypatch.setattr(_production_source, "DRAW_SECONDS", 0.2)
    monkeypatch.setattr(SeededRandomSource, "_bits", never_fills)
    result = check_production_blocks()
    assert result.verdict is Verdict.VIOLATED and "blocks not drawn after 0.2 s" in result.summary, result.summary
