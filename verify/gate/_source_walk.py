"""The real code of a source run over every stream of words up to a depth, and the findings of
steps 1 to 3 of :mod:`~dpverify.verify.gate._source_check` for one call or sequence of calls:
the enumeration of the code under test, apart from the expected laws and from the checks' verdicts.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpverify.samplers import DpverifyError, RandomSource
from dpverify.samplers._rational import shown
from dpverify.verify.engine._enumerate import Enumeration, SamplerCrashed, enumerate_outputs
from dpverify.verify.engine._intervals import renewal
from dpverify.verify.engine._results import Verdict, fraction_text, json_value
from dpverify.verify.gate._documented_conversion import Law, _attempts_law, _digits_law, _ends
from dpverify.verify.gate._word_sources import Call, WordSource, _call_text

__all__ = ["BERNOULLI_BITS", "LOOP_BITS", "MAX_PATHS", "MAX_SEQUENCE_REMAINDER", "SEQUENCE_BITS"]


#: Every ``randbelow`` loop is enumerated over at least this many bits of words (and at least
#: one whole attempt), so that the retries are run too where that is affordable.
LOOP_BITS = 10
#: ``bernoulli`` of SystemRandomSource is enumerated over this many bits of words:
#: ``|P[True] - p| <= 2^-BERNOULLI_BITS`` where ``p``'s expansion does not end.
BERNOULLI_BITS = 12
#: Successive draws are enumerated over this many bits of words.
SEQUENCE_BITS = 16
#: A walk never runs more paths than this (a mutant's tree may be far wider than the code's).
MAX_PATHS = 200_000
#: A successive-draws result whose remainder exceeds this proves too little: inconclusive.
MAX_SEQUENCE_REMAINDER = Fraction(1, 8)


# --- running the real code over every word stream ----------------------------------------------


class _Walk:
    """One enumeration of ``calls`` on a fresh source over enumerated words, recording for each
    (output, words read) the first word stream that gives it, to reproduce it."""

    def __init__(self, source: WordSource, width: int, calls: Sequence[Call]) -> None:
        self.source, self.width, self.calls = source, width, tuple(calls)
        self.witness: dict[tuple[Hashable, int], tuple[int, ...]] = {}

    def sampler(self, rng: RandomSource) -> Hashable:
        size, refilling = 2**self.width, [False]
        drawn: list[int] = []

        def words() -> int:
            if self.source.refills and len(drawn) % 3 == 2 and not refilling[0]:
                refilling[0] = True
                raise IndexError("the pool is empty")  # the code must now read this word from its refill
            refilling[0] = False
            word = rng.randbelow(size)
            drawn.append(word)
            return word

        source = self.source.build(words, self.width)
        outputs = tuple(call.run(source) for call in self.calls)
        output = outputs[0] if len(outputs) == 1 else outputs
        self.witness.setdefault((output, len(drawn)), tuple(drawn))
        return output

    def words_of(self, output: Hashable) -> tuple[int, ...] | None:
        found = [words for (o, _), words in self.witness.items() if o == output]
        return min(found, key=len) if found else None

    def reproduce(self, words: Sequence[int]) -> str:
        calls = ", ".join(f"source.{call}" for call in self.calls)
        calls = f"({calls})" if len(self.calls) > 1 else calls
        refills = (
            " (the third, sixth, ... word read after an IndexError, as from an empty pool)"
            if self.source.refills
            else ""
        )
        return f"source = {self.source.constructor}(iter({list(words)}).__next__, width={self.width}); {calls}{refills}"

    def run(self, depth: int) -> Enumeration:
        return enumerate_outputs(self.sampler, max_paths=MAX_PATHS, max_depth=depth)


@dataclass(frozen=True, slots=True)
class _Finding:
    """The verdict on one call (or sequence of calls) at one width."""

    verdict: Verdict
    summary: str
    evidence: dict[str, Any]


def _enumerate(walk: _Walk, depth: int, what: str) -> Enumeration | _Finding:
    """The walk, or the finding it ended with: the code raised (violated, with the words) or
    broke the enumeration's contract (inconclusive)."""
    try:
        return walk.run(depth)
    except SamplerCrashed as crash:
        words = list(crash.draws)
        return _Finding(
            Verdict.VIOLATED,
            f"{what} raised {type(crash.error).__name__}: {shown(str(crash.error))} on the words {words}",
            {"words": words, "error": repr(crash.error), "reproduce": walk.reproduce(words)},
        )
    except DpverifyError as error:
        return _Finding(Verdict.INCONCLUSIVE, f"{what}: {error}", {"reason": str(error)})


def _law_violation(walk: _Walk, found: Enumeration, ideal: dict[Hashable, Fraction], what: str) -> _Finding | None:
    """Step 1: an output whose ideal probability lies outside the code's exact interval."""
    gaps = {}
    for output in {*ideal, *found.masses}:
        explored, expected = found.masses.get(output, Fraction(0)), ideal.get(output, Fraction(0))
        gap = max(explored - expected, expected - explored - found.unexplored)
        if gap > 0:
            gaps[output] = (explored > expected, gap, repr(output))
    if not gaps:
        return None
    # Prefer an output returned too often: a word stream that returns it reproduces the finding.
    output = max(gaps, key=gaps.__getitem__)
    explored, expected = found.masses.get(output, Fraction(0)), ideal.get(output, Fraction(0))
    code = (
        fraction_text(explored)
        if found.exhausted
        else f"[{fraction_text(explored)}, {fraction_text(explored + found.unexplored)}]"
    )
    words = walk.words_of(output)
    if words is None:  # the output is too rare: show one that is returned too often, if any
        too_often = [o for o in found.masses if found.masses[o] > ideal.get(o, Fraction(0))]
        words = walk.words_of(too_often[0]) if too_often else None
    evidence = {
        "output": json_value(output),
        "code_probability": code,
        "expected_probability": fraction_text(expected),
        "unexplored": fraction_text(found.unexplored),
        "words": None if words is None else list(words),
        "reproduce": None if words is None else walk.reproduce(words),
    }
    side = "more" if explored > expected else "less"
    return _Finding(
        Verdict.VIOLATED,
        f"{what} returns {output!r} with probability {code}, {side} than {fraction_text(expected)}",
        evidence,
    )


def _conversion_violation(
    walk: _Walk, found: Enumeration, law: Law, undecided: Fraction, depth: int, what: str
) -> _Finding | None:
    """Step 2: the code's joint law of (output, words read) against the documented one."""
    if found.joint == {key: m for key, m in law.items() if m} and found.unexplored == undecided:
        return None
    differences = {key: found.joint.get(key, Fraction(0)) - law.get(key, Fraction(0)) for key in {*found.joint, *law}}
    differences = {key: d for key, d in differences.items() if d}
    if not differences:  # only the undecided mass differs
        return _Finding(
            Verdict.VIOLATED,
            f"{what} leaves mass {fraction_text(found.unexplored)} undecided after {depth} words; the "
            f"documented conversion leaves {fraction_text(undecided)}",
            {
                "unexplored": fraction_text(found.unexplored),
                "expected_unexplored": fraction_text(undecided),
                "words_enumerated": depth,
            },
        )
    excess = [key for key, d in differences.items() if d > 0]
    key = max(excess or differences, key=lambda k: (abs(differences[k]), repr(k)))
    output, words_read = key
    words = walk.witness.get(key)
    code, documented = found.joint.get(key, Fraction(0)), law.get(key, Fraction(0))
    return _Finding(
        Verdict.VIOLATED,
        f"{what} returns {output!r} after reading {words_read} words with probability {fraction_text(code)}; the "
        f"documented conversion gives {fraction_text(documented)}",
        {
            "output": json_value(output),
            "words_read": words_read,
            "code_probability": fraction_text(code),
            "documented_probability": fraction_text(documented),
            "unexplored": fraction_text(found.unexplored),
            "expected_unexplored": fraction_text(undecided),
            "words": None if words is None else list(words),
            "reproduce": None if words is None else walk.reproduce(words),
        },
    )


def _exact_by_renewal(
    found: Enumeration, first_attempt_words: int, ideal: dict[Hashable, Fraction], what: str
) -> _Finding | None:
    """Step 3: the loop's law from its first attempt, exactly, by renewal."""
    attempt: dict[Hashable, Fraction] = {}
    for (output, words), mass in found.joint.items():
        if words <= first_attempt_words:
            attempt[output] = attempt.get(output, Fraction(0)) + mass
    rejected = 1 - sum(attempt.values(), Fraction(0))
    one = Enumeration(
        masses={**attempt, None: rejected} if rejected else attempt,
        unexplored=Fraction(0),
        paths=found.paths,
        executions=found.executions,
        method="first attempt",
    )
    loop = renewal(one).masses
    if loop == ideal:
        return None
    output = next(o for o in sorted({*ideal, *loop}, key=repr) if loop.get(o) != ideal.get(o))
    return _Finding(
        Verdict.VIOLATED,
        f"{what}: by renewal over one attempt the loop returns {output!r} with probability "
        f"{fraction_text(loop.get(output, Fraction(0)))}, not {fraction_text(ideal.get(output, Fraction(0)))}",
        {
            "output": json_value(output),
            "code_probability": fraction_text(loop.get(output, Fraction(0))),
            "expected_probability": fraction_text(ideal.get(output, Fraction(0))),
        },
    )


def _attempt_call(source: WordSource, width: int, call: Call) -> tuple[Fraction, _Finding]:
    """Steps 1 to 3 for one ``randbelow(n)``, or one ``bernoulli`` that is ``randbelow(den) < num``.

    Returns the remainder of the whole-loop enumeration and the finding."""
    if call.method == "randbelow":
        (n,) = call.arguments
        output: Callable[[int], Hashable] = lambda x: x  # noqa: E731
    else:
        num, n = call.arguments
        output = lambda x: x < num  # noqa: E731
    what = f"{source.name}.{call} at width {width}"
    k = (n - 1).bit_length()
    ends = _ends(source.pooled, k, width)
    first = ends(1) if k else 0
    depth = max(first, LOOP_BITS // width, 1)
    walk = _Walk(source, width, (call,))
    found = _enumerate(walk, depth, what)
    if isinstance(found, _Finding):
        return Fraction(1), found
    ideal = call.ideal()
    law, undecided = _attempts_law(k, n, output, ends, depth)
    finding = (
        _law_violation(walk, found, ideal, what)
        or _stopped(found, what)
        or _conversion_violation(walk, found, law, undecided, depth, what)
        or _exact_by_renewal(found, first, ideal, what)
    )
    if finding:
        return found.unexplored, finding
    return found.unexplored, _Finding(
        Verdict.PROVED, f"{what} is exact", {"words_enumerated": depth, "paths": found.paths}
    )


def _digit_call(source: WordSource, width: int, call: Call) -> tuple[Fraction, _Finding]:
    """Steps 1 and 2 for a digit-wise ``bernoulli(num, den)``: exact when the walk is exhaustive."""
    num, den = call.arguments
    what = f"{source.name}.{call} at width {width}"
    depth = max(BERNOULLI_BITS // width, 1)
    walk = _Walk(source, width, (call,))
    found = _enumerate(walk, depth, what)
    if isinstance(found, _Finding):
        return Fraction(1), found
    law, undecided = _digits_law(num, den, width, depth)
    finding = (
        _law_violation(walk, found, call.ideal(), what)
        or _stopped(found, what)
        or _conversion_violation(walk, found, law, undecided, depth, what)
    )
    if finding:
        return found.unexplored, finding
    exact = "exact" if found.exhausted else f"within {fraction_text(found.unexplored)}"
    return found.unexplored, _Finding(Verdict.PROVED, f"{what} is {exact}", {"words_enumerated": depth})


def _stopped(found: Enumeration, what: str) -> _Finding | None:
    if found.stopped != "max_paths":
        return None
    reason = f"{what}: the walk stopped at max_paths={MAX_PATHS} before every stream of words was read"
    return _Finding(Verdict.INCONCLUSIVE, reason, {"reason": reason, "paths": found.paths})


def _sequence(source: WordSource, width: int, calls: tuple[Call, ...], depth: int) -> tuple[Fraction, _Finding]:
    what = f"{source.name} at width {width}: {_call_text(calls)}"
    walk = _Walk(source, width, calls)
    found = _enumerate(walk, depth, what)
    if isinstance(found, _Finding):
        return Fraction(1), found
    joint: dict[tuple[Hashable, ...], Fraction] = {(): Fraction(1)}
    for call in calls:
        joint = {(*o, x): m * p for o, m in joint.items() for x, p in call.ideal().items()}
    ideal: dict[Hashable, Fraction] = {o[0]: m for o, m in joint.items()} if len(calls) == 1 else dict(joint.items())
    finding = _law_violation(walk, found, ideal, what) or _stopped(found, what)
    if finding is None and found.unexplored > MAX_SEQUENCE_REMAINDER:
        reason = (
            f"{what}: mass {fraction_text(found.unexplored)} is still undecided after {depth} words, above "
            f"{fraction_text(MAX_SEQUENCE_REMAINDER)}: the draws read more words than they should"
        )
        finding = _Finding(
            Verdict.INCONCLUSIVE, reason, {"reason": reason, "unexplored": fraction_text(found.unexplored)}
        )
    return found.unexplored, finding or _Finding(Verdict.PROVED, f"{what}: independent", {})
