"""The randomness sources proved exact on their own code, and mutants of that code caught.

Each mutant is the real method's source with one textual change, compiled in the real module's
namespace and installed on a subclass, so every line but the changed one is production code.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import replace
from fractions import Fraction

import pytest

import dpverify.samplers._random_source as module
from dpverify.samplers import InvalidArgument, SeededRandomSource, SystemRandomSource
from dpverify.verify import CheckResult, Verdict
from dpverify.verify.gate._source_check import (
    check_bernoulli,
    check_randbelow,
    check_source,
    check_successive,
    default_fractions,
    default_sizes,
    width_generic,
)
from dpverify.verify.gate._source_specs import SEEDED_SOURCE, SOURCE_SPECS, SYSTEM_SOURCE
from dpverify.verify.gate._spec_run import run_case
from dpverify.verify.gate._time_bound import time_bound
from dpverify.verify.gate._word_sources import SEEDED, SYSTEM, Call, WordSource


def mutant(source: WordSource, method: str, old: str, new: str, *, count: int = 1) -> WordSource:
    """``source`` with ``old`` replaced by ``new`` (``count`` times) in the text of ``method``."""
    owner = source.build.__self__  # type: ignore[attr-defined]
    text = textwrap.dedent(inspect.getsource(getattr(owner, method)))
    assert text.count(old) == count, f"{old!r} occurs {text.count(old)} times in {method}"
    namespace: dict[str, object] = {}
    exec(compile(text.replace(old, new), f"<mutant of {method}>", "exec"), dict(vars(module)), namespace)
    cls = type(f"Mutant{owner.__name__}", (owner,), {method: namespace[method]}, trusted=True)
    builder = cls.from_words if owner is SystemRandomSource else cls.from_blocks
    return replace(source, name=cls.__name__, build=builder)


def assert_violated(result: CheckResult) -> CheckResult:
    assert result.verdict is Verdict.VIOLATED, result.summary
    assert result.summary and "call" in result.evidence
    return result


# --- the real sources prove ---------------------------------------------------------------------


@pytest.mark.parametrize("source", [SYSTEM, SEEDED], ids=["system", "seeded"])
def test_the_real_sources_prove(source: WordSource) -> None:
    for result in check_source(source, 2):
        assert result.verdict is Verdict.PROVED, result.summary
        assert result.evidence["source"] == source.name and result.evidence["width"] == 2


@pytest.mark.parametrize("spec", SOURCE_SPECS, ids=[s.name for s in SOURCE_SPECS])
def test_the_gate_entries_meet_their_expectations_at_every_width(spec: object) -> None:
    assert [s.name for s in SOURCE_SPECS] == ["system-source", "seeded-source"]
    for case in spec.cases:  # type: ignore[attr-defined]
        outcome = run_case(spec, case, seed=1, samples=1000)  # type: ignore[arg-type]
        assert outcome.met and outcome.outcome == "proved", outcome.problems or outcome.error
        production = "production_words" if spec.name == "system-source" else "production_blocks"  # type: ignore[attr-defined]
        assert [c.check for c in outcome.checks] == [
            "randbelow_exact",
            "bernoulli_exact",
            "successive_draws",
            "refuses",
            production,
        ]


def test_the_default_cases_cover_every_relation_of_k_and_the_width() -> None:
    for width in (1, 2, 3):
        sizes = default_sizes(width)
        ks = {(n - 1).bit_length() for n in sizes}
        assert 1 in sizes and 2 ** (3 * width) + 1 in sizes
        assert {2**j + d for j in range(1, 3 * width + 1) for d in (-1, 0, 1)} <= set(sizes)
        assert width in ks and any(k > width and k % width == 0 for k in ks)  # k = w, several whole words
        if width > 1:
            assert any(k < width for k in ks if k) and any(k > width and k % width for k in ks)
        pairs = default_fractions(width)
        assert {(0, 1), (1, 1)} <= set(pairs) and any(den > 2 ** (2 * width) for _, den in pairs)
        assert any(den & (den - 1) and den > 2**width for _, den in pairs)  # an expansion that never ends


def test_the_conversion_has_no_constant_but_0_and_1() -> None:
    assert width_generic(SYSTEM) == [] and width_generic(SEEDED) == []
    wide = mutant(SYSTEM, "randbelow", "if k <= w:", "if k <= w or k > 64:")
    assert width_generic(wide) == ["randbelow: 64"]


def test_a_proof_states_its_bound_and_exactness() -> None:
    result = check_bernoulli(SYSTEM, 2, [(1, 3), (1, 4)])
    assert result.verdict is Verdict.PROVED
    assert result.evidence["max_unexplored"] == "1/4096"  # the one stream that ties 1/3's 6 digits
    assert "exact where p's expansion ends" in result.evidence["bound"]
    assert check_randbelow(SYSTEM, 2, [5]).evidence["calls_checked"] == ["randbelow(5)"]


def test_injected_words_reproduce_a_draw() -> None:
    source = SystemRandomSource.from_words(iter([0b10, 0b11]).__next__, 2)
    assert source.randbelow(12) == 0b1011  # the top 4 bits of two 2-bit words
    assert SystemRandomSource.from_words(iter([0]).__next__, 3).bernoulli(1, 3) is True  # 0 < floor(8/3)
    seeded = SeededRandomSource.from_blocks(iter([0b110]).__next__, 3)
    assert (seeded.randbelow(2), seeded.randbelow(4)) == (1, 2) and seeded.seed is None


def test_production_keeps_the_shared_pool_source() -> None:
    shared = module.as_source(None)
    SystemRandomSource.from_words(lambda: 0, 1)
    assert type(shared) is SystemRandomSource and shared._supply is None and module.as_source(None) is shared
    assert SystemRandomSource()._supply is None and 0 <= shared.randbelow(2**70 + 3) < 2**70 + 3


@pytest.mark.parametrize("bad", [0, -1, True, 2.0, "3"])
def test_injection_refuses_a_bad_width(bad: object) -> None:
    with pytest.raises(InvalidArgument, match="width must be an int >= 1"):
        SystemRandomSource.from_words(lambda: 0, bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="width must be an int >= 1"):
        SeededRandomSource.from_blocks(lambda: 0, bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="words must be a callable"):
        SystemRandomSource.from_words(3, 2)  # type: ignore[arg-type]


def test_the_checks_refuse_bad_arguments() -> None:
    with pytest.raises(InvalidArgument, match=r"width must be an int in \[1, 4\]"):
        check_randbelow(SYSTEM, 9)
    with pytest.raises(InvalidArgument, match="source must be a WordSource"):
        check_randbelow("system", 2)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="sizes must hold ints n >= 1"):
        check_randbelow(SYSTEM, 2, [0])
    with pytest.raises(InvalidArgument, match="fractions must hold pairs"):
        check_bernoulli(SYSTEM, 2, [(3, 2)])


# --- mutants of SystemRandomSource.randbelow -----------------------------------------------------

SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 64, 65]


@pytest.mark.parametrize(
    ("old", "new", "count"),
    [
        ("if x < n:", "if x <= n:", 2),  # returns a rejected value
        ("shift = w - k\n", "shift = w - k + 1\n", 1),  # one bit short: the top values never come
        ("shift = w * words - k", "shift = w * words - k + 1", 1),
        ("for _ in range(words):", "for _ in range(words - 1):", 1),  # one word fewer for multi-word n
        ("                return x\n", "                return x\n            return x % n\n", 1),
        ("if n == 1:\n        return 0", "if n == 0:\n        return 0", 1),  # randbelow(1) reads a word
        ("shift = w - k\n", "shift = w - k - 1\n", 1),  # k + 1 bits: uniform, but not the documented attempt
    ],
    ids=["x<=n", "shift+1", "multi-shift+1", "one-word-fewer", "no-rejection", "n=1-reads", "shift-1"],
)
def test_randbelow_mutants_are_violated(old: str, new: str, count: int) -> None:
    result = assert_violated(check_randbelow(mutant(SYSTEM, "randbelow", old, new, count=count), 2, SIZES))
    assert result.evidence["source"] == "MutantSystemRandomSource"


def test_randbelow_always_zero_is_violated_with_a_reproduction() -> None:
    zero = mutant(SYSTEM, "randbelow", "    if n == 1:\n", "    return 0\n    if n == 1:\n")
    result = assert_violated(check_randbelow(zero, 2, SIZES))
    assert result.evidence["call"] == "randbelow(2)" and result.evidence["output"] == 0
    assert result.evidence["code_probability"] == "1" and result.evidence["expected_probability"] == "1/2"


def test_a_violation_names_the_words_that_reproduce_it() -> None:
    result = assert_violated(check_randbelow(mutant(SYSTEM, "randbelow", "if x < n:", "if x <= n:", count=2), 2, [3]))
    evidence = result.evidence
    assert evidence["output"] == 3 and evidence["expected_probability"] == "0"
    assert evidence["words"] == [3]
    assert evidence["reproduce"].startswith("source = MutantSystemRandomSource.from_words(iter([3]).__next__, width=2)")


def test_a_crashing_source_is_violated_with_its_words() -> None:
    crash = mutant(SYSTEM, "randbelow", "x >>= shift", "x >>= shift - x")
    result = assert_violated(check_randbelow(crash, 2, [9]))
    assert "raised ValueError" in result.summary and result.evidence["words"]


def test_a_loop_that_never_accepts_gets_a_verdict_within_the_budget() -> None:
    for source, old, new in ((SYSTEM, "if x < n:", "if x < 0:"), (SEEDED, "if value < n:", "if value < 0:")):
        count = 2 if source is SYSTEM else 1
        stuck = mutant(source, "randbelow", old, new, count=count)
        with time_bound(30):  # a hang fails the test with CaseTimeUp instead of running for ever
            result = assert_violated(check_randbelow(stuck, 2, [3, 5, 17]))
        assert "documented conversion" in result.summary
        sequence = check_successive(stuck, 2, [(Call("randbelow", (3,)),)])
        assert sequence.verdict is Verdict.INCONCLUSIVE and "undecided" in sequence.summary


# --- mutants of SystemRandomSource.bernoulli -----------------------------------------------------

FRACTIONS = [(0, 1), (1, 1), (0, 5), (5, 5), (1, 2), (1, 3), (2, 3), (3, 8), (5, 7), (1, 16), (7, 17), (40, 81)]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("return x < c", "return x > c"),  # inverted
        ("if x != c:\n            return x < c", "if x <= c:\n            return x <= c"),  # a tie counts as below
        ("    if num == 0:\n        return False\n    if num == den", "    if num == den"),  # p = 0 reads
        ("    if num == den:\n        return True\n", ""),  # p = 1 reads a word
        ("        if num == 0:\n            return False\n", ""),  # a finished expansion keeps reading
        ("divmod(num << w, den)", "divmod(num << (w - 1), den)"),  # the wrong digits
    ],
    ids=["inverted", "tie-below", "p=0-reads", "p=1-reads", "ended-keeps-reading", "digit-shift"],
)
def test_bernoulli_mutants_are_violated(old: str, new: str) -> None:
    assert_violated(check_bernoulli(mutant(SYSTEM, "bernoulli", old, new), 2, FRACTIONS))


def test_x_le_c_under_x_ne_c_is_an_equivalent_mutant_and_proves() -> None:
    same = mutant(SYSTEM, "bernoulli", "return x < c", "return x <= c")
    assert check_bernoulli(same, 2, FRACTIONS).verdict is Verdict.PROVED


def test_bernoulli_is_checked_above_two_to_the_2w_with_the_exact_bound() -> None:
    wrong = mutant(
        SYSTEM, "bernoulli", "if num == 0:\n            return False", "if num == 0:\n            return True"
    )
    result = assert_violated(check_bernoulli(wrong, 2, [(3, 2**6)]))  # p = 3/64: its last digit is in word 3
    assert result.evidence["call"] == "bernoulli(3, 64)"


# --- mutants of SeededRandomSource ----------------------------------------------------------------

#: The pool hands out the last bit of each draw again as the first bit of the next.
REUSE = (
    "    self._pool &= (1 << self._pool_bits) - 1\n",
    "    self._pool_bits += 1\n    self._pool &= (1 << self._pool_bits) - 1\n",
)


@pytest.mark.parametrize(
    ("method", "old", "new"),
    [
        ("_bits", "self._pool &= (1 << self._pool_bits) - 1", "self._pool &= (1 << (self._pool_bits + 1)) - 1"),
        ("_bits", "    self._pool_bits -= k\n", ""),  # consumes no bits
        ("_bits", "self._pool_bits -= k\n", "self._pool_bits -= k - 1 if k > 1 else k\n"),  # a bit short
        ("_bits", REUSE[0], REUSE[1]),
        ("randbelow", "if value < n:", "if value <= n:"),
        ("_bits", "self._pool = (self._pool << width) | self._block()", "self._pool = self._block()"),  # drops bits
    ],
    ids=["keeps-a-used-bit", "consumes-nothing", "a-bit-short", "reuses-a-bit", "value<=n", "drops-the-pool"],
)
def test_seeded_mutants_are_violated(method: str, old: str, new: str) -> None:
    broken = mutant(SEEDED, method, old, new)
    results = [check_randbelow(broken, 2, [2, 3, 4, 5, 8, 9]), check_successive(broken, 2)]
    assert any(r.verdict is Verdict.VIOLATED for r in results), [r.summary for r in results]


def test_a_reused_pool_bit_is_caught_by_successive_draws() -> None:
    reuse = mutant(SEEDED, "_bits", *REUSE)
    result = assert_violated(check_successive(reuse, 3, [(Call("randbelow", (2,)), Call("randbelow", (4,)))]))
    assert result.evidence["call"] == "(randbelow(2), randbelow(4))"
    assert result.evidence["expected_probability"] == "1/8" and result.evidence["code_probability"] == "1/4"
    # each draw alone is still uniform: only the pair shows the dependence
    assert check_randbelow(reuse, 3, [2, 4, 8]).verdict is Verdict.PROVED
    assert assert_violated(check_successive(reuse, 2)).evidence["call"] == "(randbelow(2), randbelow(2), randbelow(2))"


def test_successive_draws_on_the_system_source_are_independent() -> None:
    result = check_successive(SYSTEM, 2)
    assert result.verdict is Verdict.PROVED and Fraction(result.evidence["max_unexplored"]) <= Fraction(1, 8)


def test_specs_are_declared_through_the_public_api() -> None:
    assert SYSTEM_SOURCE.sampler is None and SEEDED_SOURCE.sampler is None
    assert [c.parameters["width"] for c in SYSTEM_SOURCE.cases] == [1, 2, 3]
    assert all(c.expect == "proved" for spec in SOURCE_SPECS for c in spec.cases)


@pytest.mark.parametrize(
    ("method", "arguments", "match"),
    [
        ("randbelow", (0,), "randbelow needs an int n >= 1"),
        ("bernoulli", (3, 2), "bernoulli needs ints"),
        ("getrandbits", (3,), "a Call is"),
    ],
)
def test_a_call_is_checked_when_made(method: str, arguments: tuple[int, ...], match: str) -> None:
    with pytest.raises(InvalidArgument, match=match):
        Call(method, arguments)


def test_the_gate_entry_fails_when_the_production_source_is_broken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The finding that motivated the entries: SystemRandomSource.randbelow always returning 0,
    or its bernoulli inverted, left the gate green."""
    real = SystemRandomSource.bernoulli
    monkeypatch.setattr(SystemRandomSource, "randbelow", lambda self, n: 0)
    monkeypatch.setattr(SystemRandomSource, "bernoulli", lambda self, num, den: not real(self, num, den))
    outcome = run_case(SYSTEM_SOURCE, SYSTEM_SOURCE.cases[0], seed=1, samples=1000)
    assert not outcome.met and outcome.outcome == "violated"
    verdicts = {c.check: c.verdict for c in outcome.checks}
    assert verdicts["randbelow_exact"] is Verdict.VIOLATED and verdicts["bernoulli_exact"] is Verdict.VIOLATED


def test_refuses_catches_a_source_that_lets_an_invalid_draw_through(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpverify.samplers import _random_source
    from dpverify.verify.gate._source_check import check_refuses
    from dpverify.verify.gate._word_sources import SEEDED, SYSTEM

    assert check_refuses(SYSTEM, 2).verdict is Verdict.PROVED
    monkeypatch.setattr(_random_source, "_check_bernoulli", lambda num, den: (num, den))
    result = check_refuses(SEEDED, 2)
    assert result.verdict is Verdict.VIOLATED and "bernoulli(2, 1)" in result.summary


def test_refuses_ends_a_refusal_that_loops_with_a_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    """A randbelow that lets n = 0 through loops on the production source (no value below 0 is
    ever accepted): the check says so within its bound instead of running to the case's."""
    from dpverify.samplers import _random_source
    from dpverify.verify.gate import _source_check
    from dpverify.verify.gate._word_sources import SYSTEM

    monkeypatch.setattr(_source_check, "REFUSAL_SECONDS", 0.2)
    real = _random_source._check_randbelow
    monkeypatch.setattr(_random_source, "_check_randbelow", lambda n: n if n == 0 else real(n))
    result = _source_check.check_refuses(SYSTEM, 1)
    assert result.verdict is Verdict.VIOLATED
    assert "SystemRandomSource.randbelow(0) had not refused after 0.2 s" in result.summary, result.summary


def test_a_walk_that_loops_without_reading_a_word_ends_inconclusive(monkeypatch: pytest.MonkeyPatch) -> None:
    """randbelow(1) whose loop never accepts reads no words (an attempt of 0 bits), so the
    enumeration's bounds on words and paths never end it: the walk's own bound does."""
    from dpverify.samplers import SeededRandomSource
    from dpverify.verify.gate import _source_check
    from dpverify.verify.gate._word_sources import SEEDED

    def never_accepts(self: SeededRandomSource, n: int) -> int:
        while True:
            self._bits((n - 1).bit_length())

    monkeypatch.setattr(_source_check, "WALK_SECONDS", 0.2)
    monkeypatch.setattr(SeededRandomSource, "randbelow", never_accepts)
    result = _source_check.check_randbelow(SEEDED, 1, sizes=(1, 2, 3))
    assert result.verdict is Verdict.INCONCLUSIVE
    assert result.summary.startswith("the walk of randbelow(1) had not ended after 0.2 s"), result.summary
    assert result.evidence["calls_run"] == 1  # the walks after it are not started


def test_refuses_catches_a_guard_that_lets_a_broken_user_source_through(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpverify.samplers import _random_source
    from dpverify.verify.gate._source_check import check_refuses
    from dpverify.verify.gate._word_sources import SYSTEM

    monkeypatch.setattr(_random_source, "_guard_randbelow", lambda method: method)
    result = check_refuses(SYSTEM, 1)
    assert result.verdict is Verdict.VIOLATED and "OutOfRange.randbelow(5) returned 5 unchecked" in result.summary


def test_the_refill_path_is_enumerated_too() -> None:
    def build(words: object, width: int) -> SystemRandomSource:
        after_empty = [False]

        def supply() -> int:
            if after_empty[0]:  # a refill that reads its word wrongly
                after_empty[0] = False
                return words() | 1  # type: ignore[operator]
            try:
                return words()  # type: ignore[operator]
            except IndexError:
                after_empty[0] = True
                raise

        return SystemRandomSource.from_words(supply, width)

    skewed = replace(SYSTEM, name="skewed refill", build=build)
    assert check_randbelow(skewed, 2, sizes=(3,)).verdict is Verdict.VIOLATED
    assert check_randbelow(replace(skewed, refills=False), 2, sizes=(3,)).verdict is Verdict.PROVED
